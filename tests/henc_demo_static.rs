//! The hENC demo's policy and ENC data through cfsim's own front ends: every demo `.cf` file parses
//! to the AST cf-promises 3.21 prints (`policies/henc/demo/ast/<file>.json`, recorded with
//! `cf-promises -p json -f ./<file>.cf`, re-checked live; skip note without cf-promises, FAIL when
//! `CI=true`; `CFSIM_RECORD=1` rewrites), and `cfsim henc --explain` on each profile's recorded
//! henclist is pinned as an insta snapshot under `snapshots/henc_demo/` (what the ENC decided, with
//! file:line, per host profile).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod host_support;

use std::path::PathBuf;
use std::process::Command;

use host_support::{agent_available, repo_path};

fn demo() -> PathBuf {
    repo_path("policies/henc/demo")
}

/// The demo's policy files, sorted.
fn policy_files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(demo())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".cf"))
        .collect();
    v.sort();
    v
}

fn run(cmd: &str, args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(cmd)
        .args(args)
        .current_dir(demo())
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).to_string(),
    )
}

#[test]
fn cfsim_parses_every_demo_file_to_the_recorded_cf_promises_ast() {
    let files = policy_files();
    assert_eq!(files.len(), 5, "{files:?}");
    let mut recorded_names: Vec<String> = std::fs::read_dir(demo().join("ast"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    recorded_names.sort();
    let want_names: Vec<String> = files.iter().map(|f| f.replace(".cf", ".json")).collect();
    assert_eq!(recorded_names, want_names, "one recording per policy file");
    for f in &files {
        let local = format!("./{f}");
        let recording = demo().join("ast").join(f.replace(".cf", ".json"));
        let want = std::fs::read_to_string(&recording).unwrap();
        let (code, ours) = run(
            env!("CARGO_BIN_EXE_cfsim"),
            &["promises", "-p", "json", "-f", &local],
        );
        assert_eq!(code, Some(0), "cfsim promises rejected {f}");
        assert_eq!(ours, want, "{f}: cfsim's AST differs from the recording");
    }
}

#[test]
fn ast_recordings_match_live_cf_promises() {
    if !agent_available("ast_recordings_match_live_cf_promises") {
        return;
    }
    let record = std::env::var("CFSIM_RECORD").as_deref() == Ok("1");
    for f in policy_files() {
        let local = format!("./{f}");
        let (code, theirs) = run("cf-promises", &["-p", "json", "-f", &local]);
        assert_eq!(code, Some(0), "cf-promises rejected {f}");
        let recording = demo().join("ast").join(f.replace(".cf", ".json"));
        if record {
            std::fs::write(&recording, &theirs).unwrap();
        }
        let want = std::fs::read_to_string(&recording).unwrap();
        assert_eq!(theirs, want, "{f}: the recording is stale");
    }
    let (code, _) = run("cf-promises", &["-c", "-f", "./promises.cf"]);
    assert_eq!(code, Some(0), "cf-promises -c rejected the demo");
}

#[test]
fn explain_snapshot_per_profile() {
    let mut names: Vec<String> = std::fs::read_dir(demo().join("recorded"))
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().to_string_lossy().to_string();
            n.strip_suffix(".out").map(String::from)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    for name in names {
        let out = std::fs::read_to_string(demo().join(format!("recorded/{name}.out"))).unwrap();
        let levels: Vec<String> = out
            .lines()
            .filter_map(|l| l.strip_prefix("R: henc: level "))
            .map(|l| format!("enc/{l}"))
            .collect();
        let mut args = vec!["henc", "--explain"];
        args.extend(levels.iter().map(String::as_str));
        let (code, text) = run(env!("CARGO_BIN_EXE_cfsim"), &args);
        assert_eq!(code, Some(0), "{name}: cfsim henc --explain failed");
        let text = format!("$ cfsim henc --explain {}\n{text}", levels.join(" "));
        insta::with_settings!({snapshot_path => "../snapshots/henc_demo", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(name, text);
        });
    }
}
