//! Live sweep of `cf-promises -c` against `cfsim promises -c` over every policy file of the repository's
//! corpora and every file of the installed masterfiles, each checked on its own from its directory: the
//! verdict (exit code) must agree on every file, and the output (stdout and stderr, compared apart) on
//! every file not listed in `tests/check_sweep.known` with its reason. Skipped when cf-promises is not
//! installed (a failure under `CI=true`). The counts are printed (`--nocapture`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/tables_live.rs"]
#[allow(dead_code)]
mod tables_live;

use std::path::{Path, PathBuf};
use std::process::Command;

const MASTERFILES: &str = "/usr/share/cfengine3/masterfiles";

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "cf") {
            out.push(p);
        }
    }
}

/// The name a file has in the known list: `policies/…` or `masterfiles/…`.
fn key(p: &Path, root: &Path) -> String {
    if let Ok(r) = p.strip_prefix(root) {
        return r.to_string_lossy().into_owned();
    }
    let r = p.strip_prefix(MASTERFILES).unwrap();
    format!("masterfiles/{}", r.to_string_lossy())
}

fn glob_match(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

fn run(bin: &Path, sub: &[&str], file: &Path) -> (i32, Vec<u8>, Vec<u8>) {
    let dir = file.parent().unwrap();
    let name = format!("./{}", file.file_name().unwrap().to_string_lossy());
    let out = Command::new(bin)
        .args(sub)
        .args(["-c", "-f", &name])
        .current_dir(dir)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), out.stdout, out.stderr)
}

#[test]
fn cfsim_promises_c_agrees_with_cf_promises_c() {
    let Some(real) = tables_live::cf_promises("cfsim_promises_c_agrees_with_cf_promises_c") else {
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let known_text = std::fs::read_to_string(root.join("tests/check_sweep.known")).unwrap();
    let known: Vec<&str> = known_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    let mut files = Vec::new();
    files_under(&root.join("policies"), &mut files);
    let repo_files = files.len();
    files_under(Path::new(MASTERFILES), &mut files);
    assert!(
        files.len() > repo_files,
        "no masterfiles under {MASTERFILES}"
    );
    let cfsim = PathBuf::from(env!("CARGO_BIN_EXE_cfsim"));
    let results: Vec<(String, bool, bool)> = std::thread::scope(|s| {
        let workers: Vec<_> = files
            .chunks(files.len().div_ceil(4))
            .map(|chunk| {
                let (real, cfsim, root) = (&real, &cfsim, &root);
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|f| {
                            let a = run(real, &[], f);
                            let b = run(cfsim, &["promises"], f);
                            (key(f, root), a.0 == b.0, a == b)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let verdict_diff: Vec<&String> = results.iter().filter(|r| !r.1).map(|r| &r.0).collect();
    let output_same = results.iter().filter(|r| r.2).count();
    let unexpected: Vec<&String> = results
        .iter()
        .filter(|r| !r.2 && !known.iter().any(|k| glob_match(k, &r.0)))
        .map(|r| &r.0)
        .collect();
    let stale: Vec<&&str> = known
        .iter()
        .filter(|k| !k.ends_with('*') && results.iter().any(|r| r.0 == **k && r.2))
        .collect();
    println!(
        "cf-promises -c sweep: {} files ({} of the repository, {} masterfiles): verdict identical {}, output identical {}",
        results.len(),
        repo_files,
        results.len() - repo_files,
        results.len() - verdict_diff.len(),
        output_same
    );
    assert!(verdict_diff.is_empty(), "verdicts differ: {verdict_diff:?}");
    assert!(
        unexpected.is_empty(),
        "output differs (not in tests/check_sweep.known): {unexpected:?}"
    );
    assert!(
        stale.is_empty(),
        "listed in tests/check_sweep.known but identical now: {stale:?}"
    );
}
