//! Finding and running the real `cf-promises` for the syntax-table and parse-check tests.
//!
//! When the binary is missing the live tests print a skip note, except under `CI=true`, where a missing
//! reference binary is a failure (the recordings must be re-checked in CI).

use std::path::PathBuf;
use std::process::Command;

/// Path of the real `cf-promises`, or `None` after printing a skip note for `test`.
///
/// Panics (fails the test) when it is missing and `CI=true`.
#[allow(clippy::panic)]
pub fn cf_promises(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("cf-promises"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{test}: cf-promises is not installed but CI=true; install cfengine3 3.21.0");
        }
        eprintln!(
            "{test}: skipped, cf-promises is not installed (set CI=true to make this a failure)"
        );
    }
    found
}

/// Output of one `cf-promises` run.
pub struct Run {
    pub exit: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run `cf-promises` with `args` in directory `dir`.
pub fn run(bin: &PathBuf, dir: &std::path::Path, args: &[&str]) -> Result<Run, String> {
    let out = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("running {}: {e}", bin.display()))?;
    Ok(Run {
        exit: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}
