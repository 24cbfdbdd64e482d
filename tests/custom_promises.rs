//! Custom promise types backed by a promise module, beyond the recorded eval corpus
//! (policies/eval/custom/custom_module_*, checked by tests/eval_conformance.rs): without `--exec` the
//! module is never run and each promise is reported as not simulated; a module that stops answering is
//! killed after `--module-timeout` (the real agent would wait forever, so there is nothing to record).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `cfsim agent -K -f ./NAME ARGS` from `dir`; stdout+stderr and the exit code.
fn cfsim(dir: &str, name: &str, args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", &format!("./{name}")])
        .args(args)
        .current_dir(root().join(dir))
        .output()
        .unwrap();
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    (s, out.status.code().unwrap_or(-1))
}

#[test]
fn without_exec_each_custom_promise_is_reported_not_simulated_and_skipped() {
    let dir = "policies/eval/custom";
    let (out, code) = cfsim(
        dir,
        "custom_module_line_based.cf",
        &["--show-evaluated-classes"],
    );
    assert_eq!(code, 0, "{out}");
    for p in ["keep-me", "repair-me", "fail-me"] {
        let warn = format!(
            " warning: cfsim: foo promise '{p}' in bundle 'main' needs its promise module '{}/./foo_module.sh', which cfsim runs only with --exec; skipped",
            std::fs::canonicalize(root().join(dir)).unwrap().display()
        );
        assert_eq!(out.matches(&warn).count(), 1, "{warn}\nin\n{out}");
    }
    // the module did not run: no module log line, no outcome class, the report keeps its references
    assert!(!out.contains("foo not_kept"), "{out}");
    assert!(!out.contains("k_kept"), "{out}");
    assert!(
        out.contains("R: report pass: k=$(k) r=$(r) f=$(f)"),
        "{out}"
    );
}

#[test]
fn a_module_that_stops_answering_is_killed_after_the_timeout() {
    let t0 = Instant::now();
    let (out, code) = cfsim(
        "tests/custom",
        "hang.cf",
        &["--exec", "--module-timeout", "1"],
    );
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "took {:?}",
        t0.elapsed()
    );
    assert_eq!(code, 3, "a limit was hit: {out}");
    let dir = std::fs::canonicalize(root().join("tests/custom")).unwrap();
    let msg = format!(
        "   error: cfsim: promise module '{}/./hang_module.sh' did not answer within 1 s; killed",
        dir.display()
    );
    // the first promise waits for the answer; the killed module fails the second one at once
    assert!(out.contains(&msg), "{out}");
    assert!(out.contains("R: first failed\n"), "{out}");
    assert!(out.contains("R: second failed\n"), "{out}");
}

#[test]
fn a_module_that_never_ends_its_answer_is_killed() {
    let t0 = Instant::now();
    let (out, code) = cfsim("tests/custom", "endless.cf", &["--exec"]);
    assert!(
        t0.elapsed() < Duration::from_secs(60),
        "took {:?}",
        t0.elapsed()
    );
    assert_eq!(code, 3, "a limit was hit: {out}");
    let dir = std::fs::canonicalize(root().join("tests/custom")).unwrap();
    let msg = format!(
        "   error: cfsim: promise module '{}/./endless_module.sh' sent more than {} lines in one answer; killed",
        dir.display(),
        cfsim::module::promise_module::MAX_ANSWER_LINES
    );
    // the first promise reads the endless answer; the killed module fails the second one at once
    assert!(out.matches(&msg).count() >= 2, "{out}");
    assert!(out.contains("R: after\n"), "{out}");
}
