//! The checks of a runnable policy and `cf-promises -c`: the recordings in `policies/parse/runnable/` are
//! what the real cf-promises 3.21.0 prints with and without `-c` (re-checked live when it is installed);
//! `cfsim promises` reproduces each byte for byte, and `cfsim agent` (which validates as cf-agent does,
//! with `cf-promises -c`, or without `-c` under `-b`) prints the same errors, then says the agent would
//! run its failsafe policy, and exits 1 — or runs the policy when the validation passes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/tables_live.rs"]
#[allow(dead_code)]
mod tables_live;

use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/parse/runnable")
}

fn cases() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().into_owned();
            n.strip_suffix(".cf").map(str::to_string)
        })
        .collect();
    v.sort();
    v
}

/// The `# args:` line of a case.
fn args(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(dir().join(format!("{name}.cf"))).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("# args:"))
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

#[derive(Debug, PartialEq)]
struct Rec {
    exit: i32,
    stderr: String,
    stdout: String,
}

fn recording(name: &str, c: bool) -> Rec {
    let file = if c {
        format!("{name}.c.expected")
    } else {
        format!("{name}.expected")
    };
    let text = std::fs::read_to_string(dir().join(&file)).unwrap();
    let exit = text
        .lines()
        .next()
        .unwrap()
        .strip_prefix("# exit: ")
        .unwrap()
        .parse()
        .unwrap();
    let rest = text.split_once("# stderr:\n").unwrap().1;
    let (stderr, stdout) = rest.split_once("# stdout:\n").unwrap();
    Rec {
        exit,
        stderr: stderr.to_string(),
        stdout: stdout.to_string(),
    }
}

fn run(bin: &Path, pre: &[&str], name: &str) -> Rec {
    let file = format!("./{name}.cf");
    let out = Command::new(bin)
        .args(pre)
        .args(["-f", &file])
        .args(args(name))
        .current_dir(dir())
        .output()
        .unwrap();
    Rec {
        exit: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    }
}

fn cfsim() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cfsim"))
}

#[test]
fn every_case_is_recorded_with_and_without_c() {
    let names = cases();
    assert!(names.len() >= 20, "only {} cases", names.len());
    for n in &names {
        for c in [false, true] {
            let _ = recording(n, c);
        }
    }
    // the corpus covers both verdicts in both modes
    let rejected = |c: bool| names.iter().filter(|n| recording(n, c).exit != 0).count();
    assert!(
        rejected(false) >= 8 && rejected(true) >= 14,
        "{} {}",
        rejected(false),
        rejected(true)
    );
    assert!(names.len() - rejected(true) >= 4);
}

#[test]
fn recordings_match_live_cf_promises() {
    let Some(bin) = tables_live::cf_promises("recordings_match_live_cf_promises") else {
        return;
    };
    let mut failures = Vec::new();
    for n in cases() {
        for c in [false, true] {
            let pre: &[&str] = if c { &["-c"] } else { &[] };
            let live = run(&bin, pre, &n);
            let rec = recording(&n, c);
            if live != rec {
                failures.push(format!(
                    "{n} (-c: {c}):\n  recorded {rec:?}\n  live     {live:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn cfsim_promises_prints_what_cf_promises_prints() {
    let mut failures = Vec::new();
    let names = cases();
    for n in &names {
        for c in [false, true] {
            let pre: Vec<&str> = if c {
                vec!["promises", "-c"]
            } else {
                vec!["promises"]
            };
            let got = run(&cfsim(), &pre, n);
            let rec = recording(n, c);
            if got != rec {
                failures.push(format!(
                    "{n} (-c: {c}):\n--- recorded (exit {})\n{}{}--- cfsim (exit {})\n{}{}",
                    rec.exit, rec.stderr, rec.stdout, got.exit, got.stderr, got.stdout
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} runs differ:\n{}",
        failures.len(),
        2 * names.len(),
        failures.join("\n")
    );
}

const FAILSAFE: &str = "   error: CFEngine was not able to get confirmation of promises from cf-promises, so going to failsafe\n";

#[test]
fn cfsim_agent_validates_as_cf_agent_does() {
    let mut failures = Vec::new();
    for n in cases() {
        // cf-agent runs `cf-promises -c`, or `cf-promises -b …` (no -c) when given -b
        let dash_b = args(&n).iter().any(|a| a == "-b");
        let rec = recording(&n, !dash_b);
        let got = run(&cfsim(), &["agent", "-K"], &n);
        let text = format!("{}{}", got.stderr, got.stdout);
        if rec.exit != 0 {
            let want = format!("{}{}{FAILSAFE}", rec.stderr, rec.stdout);
            if got.exit != 1 || !text.starts_with(&want) {
                failures.push(format!("{n}: rejected by cf-promises; cfsim agent (exit {}):\n{text}--- wanted first\n{want}", got.exit));
            }
        } else if text.contains("going to failsafe")
            || text.contains("Undefined body")
            || text.contains("is not a defined bundle")
        {
            failures.push(format!(
                "{n}: accepted by cf-promises; cfsim agent (exit {}):\n{text}",
                got.exit
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
