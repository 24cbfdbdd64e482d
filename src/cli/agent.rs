//! `cfsim agent`: simulate `cf-agent -K` on a policy for a host: load and validate, pre-evaluate, run the
//! bundlesequence, print what cf-agent prints (at the chosen level), then the `--show-evaluated-*`
//! tables and the trace, and writes the trace, result and timeline files. Exit codes: 0 done (even with failed promises, as cf-agent), 1 fatal error or
//! invalid policy, 2 usage or I/O error (bad host profile, unreadable file, bad regex), 3
//! ([`crate::eval::EXIT_LIMIT`]) a limit of the run was hit (the simulation is incomplete). The
//! evaluation runs on a thread whose stack is sized from `--max-call-depth`, so the limit, not the
//! stack, ends a deep recursion.

use std::io::Write;

pub use crate::sim::run::{simulate, simulate_policy, Options, RunResult, TraceFormat};

/// `cfsim agent`: prints the run's output; returns the exit code.
pub fn run(o: &Options) -> u8 {
    let r = simulate(o);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(r.stdout.as_bytes());
    let result_json = r.result.as_ref().map(|v| format!("{v}\n"));
    let changes = o
        .changes_json
        .as_ref()
        .map(|_| format!("{}\n", crate::host::writeroot::changes_json(&r.files)));
    if let Some(dir) = &o.write_root {
        if let Err(e) =
            crate::host::writeroot::write_root(std::path::Path::new(dir), &r.files, &r.file_parents)
        {
            let _ = writeln!(
                out,
                "   error: cfsim: cannot write the changes under '{dir}': {e}"
            );
            let _ = out.flush();
            return 2;
        }
    }
    for (what, path, text) in [
        ("trace file", &o.trace_file, &r.trace_json),
        ("result file", &o.result_json, &result_json),
        ("timeline", &o.timeline, &r.timeline),
        ("changes file", &o.changes_json, &changes),
    ] {
        let (Some(path), Some(text)) = (path, text) else {
            continue;
        };
        if path == "-" {
            let _ = out.write_all(text.as_bytes());
        } else if let Err(e) = std::fs::write(path, text) {
            let _ = writeln!(
                out,
                "   error: cfsim: cannot write the {what} '{path}': {e}"
            );
            let _ = out.flush();
            return 2;
        }
    }
    let _ = out.flush();
    let code = r.code;
    if o.exit_after {
        // the process ends now: its memory goes back at exit
        std::mem::forget(r);
    }
    code
}
