//! `cfsim diff`: the front end of [`crate::diff`]. Exit codes follow octocatalog-diff: 0 no node
//! changes, 2 some node changes, 1 a failure (bad flags, a revision or policy that cannot be read, a
//! node that cannot be simulated in one of the revisions).

use crate::diff;
use crate::fleet::{self, Shard};

/// Flags of `cfsim diff`.
#[derive(Debug, Clone)]
pub struct Options {
    pub before: String,
    pub after: String,
    /// The entry policy, relative to each revision's root.
    pub file: String,
    pub hosts: Vec<String>,
    pub json: bool,
    pub jobs: Option<usize>,
    pub shard: Option<Shard>,
}

fn fail(msg: &str) -> u8 {
    eprintln!("   error: {msg}");
    1
}

/// Runs the diff; returns the exit code.
pub fn run(o: &Options) -> u8 {
    let mut hosts = match fleet::host_files(&o.hosts) {
        Ok(h) => h,
        Err(e) => return fail(&e),
    };
    if let Some(s) = o.shard {
        hosts = hosts
            .into_iter()
            .enumerate()
            .filter(|(i, _)| s.takes(*i))
            .map(|(_, h)| h)
            .collect();
    }
    let before = match diff::revision(&o.before, "before") {
        Ok(r) => r,
        Err(e) => return fail(&format!("--before {e}")),
    };
    let after = match diff::revision(&o.after, "after") {
        Ok(r) => r,
        Err(e) => return fail(&format!("--after {e}")),
    };
    for r in [&before, &after] {
        if !r.root.join(&o.file).is_file() {
            return fail(&format!("{}: no policy file '{}'", r.label, o.file));
        }
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
        Err(e) => return fail(&format!("cannot start the worker threads: {e}")),
    };
    let nodes = diff::diff_nodes(&pool, &before, &after, &o.file, &hosts);
    let groups = diff::group(&nodes);
    let changed: usize = groups.iter().map(|(n, _)| n.len()).sum();
    let unchanged = nodes.len() - changed;
    if o.json {
        let v = serde_json::json!({
            "version": 1,
            "before": before.label,
            "after": after.label,
            "policy": o.file,
            "nodes": nodes.len(),
            "changed": changed,
            "unchanged": unchanged,
            "groups": groups.iter().map(|(n, d)| serde_json::json!({"nodes": n, "differences": d})).collect::<Vec<_>>(),
        });
        println!("{v}");
    } else {
        print!("{}", diff::text(&groups, unchanged, nodes.len()));
    }
    let failed = groups.iter().any(|(_, d)| {
        d.get("exit_code")
            .is_some_and(|e| e["error_before"].is_string() || e["error_after"].is_string())
    });
    if failed {
        1
    } else if changed > 0 {
        2
    } else {
        0
    }
}
