//! `cfsim test [PATH…]`: discover specs and acceptance policies, run them (in parallel), report.
//! Exit codes: 0 every case passed, 1 a case failed, 2 usage error or invalid spec (`file:line:col:`).

use std::io::Write;

use crate::fleet::Shard;
use crate::testing::{self, report, spec};

/// Flags of `cfsim test`.
#[derive(Debug, Clone)]
pub struct Options {
    pub paths: Vec<String>,
    pub format: report::Format,
    pub jobs: Option<usize>,
    /// Only cases whose `spec: name [host]` title matches.
    pub filter: Option<String>,
    pub shard: Option<Shard>,
    /// Host for acceptance-style `.cf` tests (default `local`).
    pub host: String,
    /// Check every case's snapshot (`--snapshot`).
    pub snapshot: bool,
    /// Accept every snapshot that differs or is new (`--accept`; implies `--snapshot`).
    pub accept: bool,
    /// Report coverage (`--coverage`): after the human report, on stderr with TAP/JUnit, as the
    /// `coverage` key with JSON.
    pub coverage: bool,
    /// Also write the coverage JSON to this file (`--coverage-json PATH`; implies `--coverage`).
    pub coverage_json: Option<String>,
    /// Check every case for convergence (`--converge`).
    pub converge: bool,
}

/// Runs the suite; returns the exit code.
pub fn run(o: &Options) -> u8 {
    // `--filter RE` is cfsim's own option (the `regex` crate, not the agent's PCRE)
    let filter = match o.filter.as_deref().map(regex::Regex::new) {
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => {
            eprintln!("   error: --filter: {e}");
            return 2;
        }
        None => None,
    };
    let paths = if o.paths.is_empty() {
        vec![".".to_string()]
    } else {
        o.paths.clone()
    };
    let files = match testing::discover(&paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("   error: {e}");
            return 2;
        }
    };
    let mut cases = Vec::new();
    for f in &files {
        let name = f.to_string_lossy().into_owned();
        if name.ends_with(".cf") {
            cases.push(spec::acceptance(&name, &o.host));
            continue;
        }
        let text = match crate::load::read_text(&name) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("   error: {e}");
                return 2;
            }
        };
        match spec::read(&name, &text) {
            Ok(c) => cases.extend(c),
            Err(e) => {
                eprintln!("{e}");
                return 2;
            }
        }
    }
    if let Some(re) = &filter {
        cases.retain(|c| re.is_match(&format!("{}: {} [{}]", c.spec, c.name, c.host.label)));
    }
    if let Some(s) = o.shard {
        cases = cases
            .into_iter()
            .enumerate()
            .filter(|(i, _)| s.takes(*i))
            .map(|(_, c)| c)
            .collect();
    }
    if cases.is_empty() {
        eprintln!("   error: no test found in {}", paths.join(", "));
        return 2;
    }
    // each worker evaluates whole runs: the stack of the evaluation thread of `cfsim agent`
    let mut pool = rayon::ThreadPoolBuilder::new().stack_size(crate::eval::stack_bytes(
        crate::eval::Limits::default().max_call_depth,
    ));
    if let Some(j) = o.jobs {
        pool = pool.num_threads(j.max(1));
    }
    let pool = match pool.build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("   error: cannot start the worker threads: {e}");
            return 2;
        }
    };
    if o.converge {
        for c in &mut cases {
            c.converge = true;
        }
    }
    let snapshots = (o.snapshot || o.accept).then(|| testing::snapshot::Update::from_env(o.accept));
    let policies = testing::run::load_policies(&cases);
    let results = testing::run::run_all(&cases, &policies, &pool, snapshots);
    let coverage = (o.coverage || o.coverage_json.is_some())
        .then(|| testing::coverage::compute(&results, &policies));
    let mut text = report::render(&results, o.format);
    if let Some(c) = &coverage {
        if let Some(path) = &o.coverage_json {
            if let Err(e) = std::fs::write(path, format!("{c}\n")) {
                eprintln!("   error: {path}: {e}");
                return 2;
            }
        }
        match o.format {
            report::Format::Human => text.push_str(&testing::coverage::text(c)),
            report::Format::Json => {
                if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&text) {
                    v["coverage"] = c.clone();
                    text = format!("{v}\n");
                }
            }
            report::Format::Tap | report::Format::Junit => {
                eprint!("{}", testing::coverage::text(c));
            }
        }
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    u8::from(results.iter().any(|r| !r.passed()))
}
