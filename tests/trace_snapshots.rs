//! insta snapshots of `cfsim agent --trace` (readable text) for a dozen policies of policies/agent, and of
//! `--trace=json` for two, under snapshots/trace/. They pin the trace format and the evaluation order
//! (pre-evaluation, passes, BundleResolve, skips and outcomes); the R: lines of the same runs are checked
//! against the real agent by tests/eval_conformance.rs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

const TEXT: &[&str] = &[
    "pass",
    "cancel",
    "depends",
    "dedup",
    "deferral",
    "ifunless",
    "iterate",
    "methods",
    "inherit",
    "scope",
    "outcomes",
    "namespaces",
    "commonpitfall",
    "chain",
];
const JSON: &[&str] = &["pass", "methods"];

fn trace(name: &str, format: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("policies/agent");
    let text = std::fs::read_to_string(dir.join(format!("{name}.cf"))).unwrap();
    let mut args: Vec<String> = vec![
        "agent".into(),
        "-K".into(),
        "-f".into(),
        format!("./{name}.cf"),
        format!("--trace={format}"),
    ];
    for prefix in ["# args:", "# agent-args:", "# cfsim-args:"] {
        if let Some(a) = text.lines().find_map(|l| l.strip_prefix(prefix)) {
            args.extend(a.split_whitespace().map(str::to_string));
        }
    }
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(&args)
        .current_dir(&dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn text_traces() {
    for name in TEXT {
        let t = trace(name, "text");
        insta::with_settings!({snapshot_path => "../snapshots/trace", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("{name}_text"), t);
        });
    }
}

#[test]
fn json_traces() {
    for name in JSON {
        let t = trace(name, "json");
        for line in t.lines().filter(|l| l.starts_with('{')) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v.get("seq").is_some() && v.get("stage").is_some(), "{line}");
        }
        insta::with_settings!({snapshot_path => "../snapshots/trace", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("{name}_json"), t);
        });
    }
}
