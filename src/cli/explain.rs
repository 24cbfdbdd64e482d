//! `cfsim explain`: runs the policy on a host as `cfsim agent` would, then answers one question —
//! why a class is (not) defined, why a variable has its value (or none), what became of a promise —
//! as text or JSON on stdout. Exit codes: 0 answered; 1 invalid policy or a run that could not start
//! (the output of `cfsim agent`); 2 usage error (unknown class, variable or promise, bad name, host
//! profile or I/O error).

use std::io::Write;

pub use crate::explain::{Format, Question, Request};

/// Prints the answer; returns the exit code.
pub fn run(req: &Request) -> u8 {
    let out = crate::explain::explain(req);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.stdout.as_bytes());
    let _ = stdout.flush();
    let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
    out.code
}
