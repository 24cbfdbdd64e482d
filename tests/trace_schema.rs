//! `cfsim agent --trace-file PATH`: every event of real traces (policies/agent, the eval corpus, the hENC
//! demo on every bundled profile) validates against docs/trace.schema.json (checked by the `jsonschema`
//! Python package, an independent validator); the facts an event claims hold (seq order, its file exists
//! and its line holds the promiser); the file equals `--trace=json` and `--trace-file -`; two runs give
//! byte-identical traces.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/json_schema.rs"]
mod json_schema;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Extra flags a fixture names in its `# args:` / `# cfsim-args:` lines.
fn fixture_args(policy: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(policy).unwrap_or_default();
    let mut args = Vec::new();
    for prefix in ["# args:", "# agent-args:", "# cfsim-args:"] {
        if let Some(a) = text.lines().find_map(|l| l.strip_prefix(prefix)) {
            args.extend(a.split_whitespace().map(str::to_string));
        }
    }
    args
}

struct Run {
    stdout: Vec<u8>,
    trace: String,
}

/// Runs `cfsim agent -K -f ./NAME extra… --trace-file OUT` in `dir`.
fn run(dir: &Path, name: &str, extra: &[String], tag: &str) -> Run {
    let out_file = std::env::temp_dir().join(format!(
        "cfsim-trace-{}-{}-{tag}.jsonl",
        std::process::id(),
        name.replace('/', "_")
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", &format!("./{name}")])
        .args(extra)
        .arg("--trace-file")
        .arg(&out_file)
        .current_dir(dir)
        .output()
        .unwrap();
    let trace = std::fs::read_to_string(&out_file).unwrap_or_else(|e| {
        panic!(
            "{name}: no trace file ({e}); stdout: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let _ = std::fs::remove_file(&out_file);
    Run {
        stdout: out.stdout,
        trace,
    }
}

/// Checks the facts of each event against the policy files (relative to `dir`).
fn check_facts(dir: &Path, name: &str, trace: &str) -> usize {
    let mut n = 0;
    for (i, line) in trace.lines().enumerate() {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(
            e["seq"],
            i + 1,
            "{name}: seq out of order at line {}",
            i + 1
        );
        let file = e["file"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|err| panic!("{name}: event file {file} unreadable: {err}"));
        let lno = e["line"].as_u64().unwrap() as usize;
        let src_line = text
            .lines()
            .nth(lno - 1)
            .unwrap_or_else(|| panic!("{name}: {file}:{lno} past the end"));
        // a promiser written once in its file, on a line without references (so not the expansion
        // of another promiser), must stand on the event's line
        let promiser = e["promiser"].as_str().unwrap();
        if !src_line.contains('$')
            && !src_line.contains('@')
            && !promiser.is_empty()
            && !promiser.contains('\n')
            && !promiser.contains('\\')
            && text.matches(&format!("\"{promiser}\"")).count() == 1
        {
            assert!(
                src_line.contains(&format!("\"{promiser}\"")),
                "{name}: event {} says {file}:{lno} for promiser {promiser:?}, the line is {src_line:?}",
                i + 1
            );
            n += 1;
        }
    }
    n
}

/// The policies traced: every policy of policies/agent and the eval corpus, and the hENC demo.
fn corpus() -> Vec<(PathBuf, String, Vec<String>)> {
    let mut v = Vec::new();
    let agent = root().join("policies/agent");
    let mut names: Vec<String> = std::fs::read_dir(&agent)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cf"))
        .collect();
    names.sort();
    for n in names {
        let args = fixture_args(&agent.join(&n));
        v.push((agent.clone(), n, args));
    }
    let eval = root().join("policies/eval");
    let mut groups: Vec<PathBuf> = std::fs::read_dir(&eval)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    groups.sort();
    for g in groups {
        let mut names: Vec<String> = std::fs::read_dir(&g)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".cf"))
            .collect();
        names.sort();
        for n in names {
            let args = fixture_args(&g.join(&n));
            // --exec fixtures run real commands; the trace does not need them
            if args.iter().any(|a| a == "--exec") {
                continue;
            }
            v.push((g.clone(), n, args));
        }
    }
    let demo = root().join("policies/henc/demo");
    let mut hosts: Vec<PathBuf> = std::fs::read_dir(root().join("policies/hosts"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name().is_some_and(|n| n != "schema.json")
        })
        .collect();
    hosts.sort();
    for h in hosts {
        v.push((
            demo.clone(),
            "promises.cf".into(),
            vec!["--host".into(), h.to_string_lossy().into_owned()],
        ));
    }
    v
}

#[test]
fn traces_match_the_schema_and_their_policies() {
    let mut traces = Vec::new();
    let mut events = 0;
    let mut located = 0;
    for (dir, name, args) in corpus() {
        let r = run(&dir, &name, &args, "a");
        if r.trace.is_empty() {
            continue;
        }
        events += r.trace.lines().count();
        located += check_facts(&dir, &name, &r.trace);
        traces.push((name, r.trace));
    }
    assert!(traces.len() > 150, "only {} policies traced", traces.len());
    assert!(
        located * 4 > events,
        "only {located} of {events} events had a checkable promiser line"
    );
    eprintln!(
        "{} traces, {events} events, {located} promiser lines checked",
        traces.len()
    );
    let texts: Vec<String> = traces.into_iter().map(|(_, t)| t).collect();
    json_schema::validate_lines(&root().join("docs/trace.schema.json"), &texts);
}

#[test]
fn trace_file_is_deterministic_and_equals_the_other_forms() {
    let dir = root().join("policies/henc/demo");
    let host = root().join("policies/hosts/web1-oslo-debian.json");
    let args = vec!["--host".to_string(), host.to_string_lossy().into_owned()];
    let a = run(&dir, "promises.cf", &args, "one");
    let b = run(&dir, "promises.cf", &args, "two");
    assert!(a.trace.lines().count() > 50);
    assert_eq!(a.trace, b.trace, "two runs gave different traces");
    // the trace file is separate from the agent's output
    assert!(!String::from_utf8_lossy(&a.stdout).contains("\"seq\""));
    // `--trace=json` (old form, after the output) holds the same lines
    let old = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", "./promises.cf"])
        .args(&args)
        .arg("--trace=json")
        .current_dir(&dir)
        .output()
        .unwrap();
    let mut expected = a.stdout.clone();
    expected.extend_from_slice(a.trace.as_bytes());
    assert_eq!(
        String::from_utf8_lossy(&old.stdout),
        String::from_utf8_lossy(&expected)
    );
    // `--trace-file -`: the output, then the trace
    let dash = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", "./promises.cf"])
        .args(&args)
        .args(["--trace-file", "-"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&dash.stdout),
        String::from_utf8_lossy(&expected)
    );
}

#[test]
fn unwritable_trace_file_is_an_error() {
    let dir = root().join("policies/agent");
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", "./methods.cf"])
        .args(["--trace-file", "/nonexistent-dir-cfsim/trace.jsonl"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "error: cfsim: cannot write the trace file '/nonexistent-dir-cfsim/trace.jsonl'"
        ),
        "{text}"
    );
}
