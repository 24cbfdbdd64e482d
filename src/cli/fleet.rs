//! `cfsim fleet` and `cfsim fleet merge`: the front end of [`crate::fleet`] (flags, thread pool,
//! progress bar on a terminal, exit codes: 0 every node ran, 1 a node failed to run, 2 usage or I/O).

use std::io::{IsTerminal, Write};

use crate::cli::agent;
use crate::fleet::{self, Format, Shard};

/// Flags of `cfsim fleet`.
#[derive(Debug, Clone)]
pub struct Options {
    pub file: String,
    pub hosts: Vec<String>,
    pub jobs: Option<usize>,
    pub format: Format,
    pub shard: Option<Shard>,
    /// `--classes RE`: the classes shown per node in the table.
    pub classes: Option<String>,
    pub define: Vec<String>,
    pub negate: Vec<String>,
    pub bundlesequence: Option<String>,
}

fn usage(msg: &str) -> u8 {
    eprintln!("   error: {msg}");
    2
}

/// Runs the fleet; returns the exit code.
pub fn run(o: &Options) -> u8 {
    // `--classes RE` is cfsim's own option (the `regex` crate, not the agent's PCRE)
    let classes = match o.classes.as_deref().map(regex::Regex::new) {
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => return usage(&format!("--classes: {e}")),
        None => None,
    };
    let mut hosts = match fleet::host_files(&o.hosts) {
        Ok(h) => h,
        Err(e) => return usage(&e),
    };
    if let Some(s) = o.shard {
        hosts = hosts
            .into_iter()
            .enumerate()
            .filter(|(i, _)| s.takes(*i))
            .map(|(_, h)| h)
            .collect();
    }
    let policy = match crate::sim::Policy::load(&o.file) {
        Ok(p) => p,
        Err(f) => {
            print!("{}", f.stdout);
            return f.code;
        }
    };
    let agent_opts = agent::Options {
        file: o.file.clone(),
        define: o.define.clone(),
        negate: o.negate.clone(),
        bundlesequence: o.bundlesequence.clone(),
        result_json: Some(String::new()),
        brief_result: o.format == Format::Table,
        // the table shows classes only for `--classes RE`
        brief_without_classes: o.format == Format::Table && classes.is_none(),
        ..agent::Options::default()
    };
    // each worker evaluates whole runs: the stack of the evaluation thread of `cfsim agent`
    let mut pool = rayon::ThreadPoolBuilder::new().stack_size(crate::eval::stack_bytes(
        crate::eval::Limits::default().max_call_depth,
    ));
    if let Some(j) = o.jobs {
        pool = pool.num_threads(j.max(1));
    }
    let pool = match pool.build() {
        Ok(p) => p,
        Err(e) => return usage(&format!("cannot start the worker threads: {e}")),
    };
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(hosts.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} hosts, {per_sec}, eta {eta}",
        ) {
            b.set_style(style);
        }
        Some(b)
    } else {
        None
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if o.format == Format::Table {
        let _ = writeln!(out, "{}", fleet::TABLE_HEADER);
    }
    let progress = |n: usize| {
        if let Some(b) = &bar {
            b.set_position(n as u64);
        }
    };
    let totals = fleet::run_fleet(
        &pool,
        &policy,
        &hosts,
        &agent_opts,
        o.format,
        classes.as_ref(),
        &mut out,
        &progress,
    );
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let totals = match totals {
        Ok(t) => t,
        // the reader went away (`| head`): stop quietly, as a filter does
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return 0,
        Err(e) => return usage(&format!("cannot write the output: {e}")),
    };
    if o.format == Format::Table {
        let _ = writeln!(out, "{}", fleet::total_row(&totals));
    }
    let _ = out.flush();
    u8::from(totals.failed > 0)
}

/// `cfsim fleet merge FILE…`: the shard outputs (JSON lines) as one run would print them, in `format`.
pub fn merge(files: &[String], format: Format, classes: Option<&str>) -> u8 {
    let classes = match classes.map(regex::Regex::new) {
        Some(Ok(r)) => Some(r),
        Some(Err(e)) => return usage(&format!("--classes: {e}")),
        None => None,
    };
    let nodes = match fleet::merge(files) {
        Ok(n) => n,
        Err(e) => return usage(&e),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut totals = fleet::Totals::default();
    if format == Format::Table {
        let _ = writeln!(out, "{}", fleet::TABLE_HEADER);
    }
    for v in &nodes {
        totals.add(v);
        let _ = fleet::write_node(&mut out, v, format, classes.as_ref());
    }
    if format == Format::Table {
        let _ = writeln!(out, "{}", fleet::total_row(&totals));
    }
    let _ = out.flush();
    u8::from(totals.failed > 0)
}
