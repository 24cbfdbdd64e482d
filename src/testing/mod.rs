//! `cfsim test`: policy tests. Specs (`*.cfsim.yaml`, read by `spec`) name a policy, hosts and
//! expectations; acceptance-style policies (`.cf` files reporting `$(this.promise_filename) Pass|FAIL`)
//! are tests too. `run` simulates each case through the library API and checks it; `report` writes
//! human, TAP, JUnit or JSON output.

pub mod coverage;
pub mod report;
pub mod run;
pub mod snapshot;
pub mod spec;
pub mod yaml_tree;

use std::path::{Path, PathBuf};

/// Most spec files one run discovers (explicit limit).
pub const MAX_SPECS: usize = 100_000;

/// The test files under `paths`: directories are searched (sorted, recursively, symlinks not
/// followed) for `*.cfsim.yaml` and for acceptance-style policies (`*.cf` whose text reports
/// `$(this.promise_filename) Pass` or `FAIL`); a file given directly is a spec or, ending in `.cf`, an
/// acceptance policy. Sorted, deduplicated.
pub fn discover(paths: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        let path = Path::new(p);
        if path.is_dir() {
            walk(path, &mut out)?;
        } else if path.is_file() {
            out.push(path.to_path_buf());
        } else {
            return Err(format!("{p}: no such file or directory"));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Largest `.cf` file read to decide whether it is an acceptance test.
const MAX_ACCEPTANCE_BYTES: u64 = 1 << 20;

/// Whether `path` is a `.cf` policy reporting `$(this.promise_filename) Pass` (or `FAIL`), or one
/// calling the masterfiles' `lib/testing.cf` bundles (`testing_ok`, `testing_ok_if`, `testing_skip`,
/// `testing_todo`) without defining them.
fn is_acceptance(path: &Path, len: u64) -> bool {
    path.extension().is_some_and(|x| x == "cf")
        && len <= MAX_ACCEPTANCE_BYTES
        && std::fs::read_to_string(path).is_ok_and(|t| {
            t.contains("$(this.promise_filename) Pass")
                || t.contains("$(this.promise_filename) FAIL")
                || ([
                    "testing_ok(",
                    "testing_ok_if(",
                    "testing_skip(",
                    "testing_todo(",
                ]
                .iter()
                .any(|b| t.contains(&format!("usebundle => {b}")))
                    && !t.contains("bundle agent testing_ok_if"))
        })
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for e in entries {
        let Ok(meta) = std::fs::symlink_metadata(&e) else {
            continue;
        };
        if meta.is_dir() {
            walk(&e, out)?;
        } else if meta.is_file()
            && (e.to_string_lossy().ends_with(".cfsim.yaml") || is_acceptance(&e, meta.len()))
        {
            out.push(e);
            if out.len() > MAX_SPECS {
                return Err(format!("more than {MAX_SPECS} spec files"));
            }
        }
    }
    Ok(())
}
