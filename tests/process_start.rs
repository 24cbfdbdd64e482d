//! The `cfsim` process's own start-up on Linux/glibc (`src/start.rs`, in place of Rust's): what the
//! user sees of it stays as under Rust's start-up — a reader that closes the pipe early does not kill
//! cfsim with SIGPIPE (exit 0, no message), closed standard descriptors are no error, the exit codes
//! of the subcommands come through, and the allocator reads nothing of the environment. (Which thread
//! evaluates, main or one sized from `--max-call-depth`, is tests/hostile.rs'
//! `the_default_depth_ends_at_the_limit_whatever_the_stack_ulimit`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

/// A scratch directory of this test process (removed when dropped).
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let d = std::env::temp_dir().join(format!("cfsim-start-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn cfsim() -> &'static str {
    env!("CARGO_BIN_EXE_cfsim")
}

/// A policy whose `-p json` and agent output are well past a pipe's 64 KiB buffer.
fn big_policy(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from("bundle agent main\n{\nreports:\n");
    for i in 0..5000 {
        text.push_str(&format!(
            "  \"line {i} with some padding text to make it long enough\";\n"
        ));
    }
    text.push_str("}\n");
    let p = dir.join("big.cf");
    std::fs::write(&p, text).unwrap();
    p
}

fn bash(script: &str, policy: &std::path::Path) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(cfsim())
        .arg(policy)
        .output()
        .unwrap()
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let dir = Scratch::new("pipe");
    let policy = big_policy(dir.path());
    // `$0` is cfsim, `$1` the policy; the status is cfsim's (141 if SIGPIPE killed it)
    for cmd in [
        r#""$0" promises -p json -f "$1" | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}"#,
        r#""$0" agent -K -f "$1" | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}"#,
    ] {
        let out = bash(cmd, &policy);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{cmd}: {err}");
    }
}

#[test]
fn closed_standard_descriptors_are_no_error() {
    let dir = Scratch::new("closed");
    let policy = big_policy(dir.path());
    for cmd in [
        r#"exec "$0" promises -p json -f "$1" >&-"#,
        r#"exec "$0" agent -K -f "$1" <&- >&-"#,
    ] {
        let out = bash(cmd, &policy);
        assert_eq!(out.status.code(), Some(0), "{cmd}: {out:?}");
        assert!(out.stderr.is_empty(), "{cmd}: {out:?}");
    }
}

#[test]
fn exit_codes_come_through() {
    let dir = Scratch::new("codes");
    let missing = dir.path().join("missing.cf");
    let out = Command::new(cfsim())
        .args(["agent", "-K", "-f"])
        .arg(&missing)
        .output()
        .unwrap();
    // cf-agent's code for a policy it cannot read
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = Command::new(cfsim())
        .arg("no-such-subcommand")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = Command::new(cfsim()).arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("cfsim "));
}

/// mimalloc reads `MIMALLOC_*` variables at start unless built with `MI_NO_GETENV`
/// (.cargo/config.toml): `MIMALLOC_VERBOSE` or `MIMALLOC_SHOW_STATS` in a user's or a CI job's
/// environment made cfsim print its allocator's options and statistics on standard error. The output
/// is cfsim's alone whatever the environment holds.
#[test]
fn allocator_variables_change_no_output() {
    let dir = Scratch::new("mimalloc");
    let policy = dir.path().join("p.cf");
    std::fs::write(&policy, "bundle agent main\n{\nreports:\n  \"hello\";\n}\n").unwrap();
    for args in [
        &["promises", "-p", "json", "-f"][..],
        &["agent", "-K", "-f"][..],
    ] {
        let run = |env: &[(&str, &str)]| {
            Command::new(cfsim())
                .args(args)
                .arg(&policy)
                .envs(env.iter().copied())
                .output()
                .unwrap()
        };
        let plain = run(&[]);
        let noisy = run(&[
            ("MIMALLOC_VERBOSE", "1"),
            ("MIMALLOC_SHOW_STATS", "1"),
            ("MIMALLOC_SHOW_ERRORS", "1"),
        ]);
        assert_eq!(noisy.status.code(), Some(0), "{args:?}: {noisy:?}");
        assert_eq!(noisy.stdout, plain.stdout, "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&noisy.stderr),
            String::from_utf8_lossy(&plain.stderr),
            "{args:?}"
        );
    }
}
