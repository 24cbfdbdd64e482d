//! CI's short fuzz run: every target runs its whole seed corpus (the regression inputs of earlier
//! findings included) and then generated and mutated inputs for a few seconds, all targets at once,
//! and must find nothing. The long runs are done by hand (docs/fuzzing.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};

/// Seconds of fuzzing per target after its corpus (`CFSIM_FUZZ_SECONDS` overrides).
fn seconds() -> String {
    std::env::var("CFSIM_FUZZ_SECONDS").unwrap_or_else(|_| "8".into())
}

#[test]
fn every_target_runs_its_corpus_and_a_short_fuzz_without_findings() {
    let exe = env!("CARGO_BIN_EXE_cfsim-fuzz");
    let list = Command::new(exe).arg("list").output().unwrap();
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(names.len() >= 8, "{names:?}");
    let scratch = std::env::temp_dir().join(format!("cfsim-fuzz-smoke-{}", std::process::id()));
    let runs: Vec<_> = names
        .iter()
        .map(|t| {
            let artifacts = scratch.join(t);
            let child = Command::new(exe)
                .args([
                    t.as_str(),
                    "--seconds",
                    &seconds(),
                    "--seed",
                    "7",
                    "--timeout",
                    "120",
                ])
                .arg("--artifacts")
                .arg(&artifacts)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn();
            (t.clone(), child)
        })
        .collect::<Vec<_>>();
    let mut failed = Vec::new();
    for (t, out) in runs {
        let out = out.unwrap().wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        eprintln!("{}", stdout.trim_end());
        if !out.status.success() || !stdout.starts_with(&format!("{t}: ")) {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
            failed.push(t);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failed.is_empty(), "targets with findings: {failed:?}");
}
