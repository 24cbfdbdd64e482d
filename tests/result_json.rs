//! `cfsim agent --result-json PATH` on real runs (policies/agent, the eval corpus, the hENC demo on every
//! bundled profile): every document validates against docs/result.schema.json (Python's jsonschema, an
//! independent validator), and what it says agrees with the run's other outputs, which the conformance
//! tests compare with the real cf-agent: its classes and variables are the rows of
//! `--show-evaluated-classes` / `--show-evaluated-vars`, its reports the R: lines, its exit code the
//! process's, its promise tallies the `--trace-file` events; two runs give the same bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/json_schema.rs"]
mod json_schema;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

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

fn cf_files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cf"))
        .collect();
    v.sort();
    v
}

/// (directory, policy, flags) of every run checked.
fn corpus() -> Vec<(PathBuf, String, Vec<String>)> {
    let mut v = Vec::new();
    let agent = root().join("policies/agent");
    for n in cf_files(&agent) {
        let a = fixture_args(&agent.join(&n));
        v.push((agent.clone(), n, a));
    }
    let mut groups: Vec<PathBuf> = std::fs::read_dir(root().join("policies/eval"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    groups.sort();
    for g in groups {
        for n in cf_files(&g) {
            let a = fixture_args(&g.join(&n));
            if !a.iter().any(|x| x == "--exec") {
                v.push((g.clone(), n, a));
            }
        }
    }
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
            root().join("policies/henc/demo"),
            "promises.cf".into(),
            vec!["--host".into(), h.to_string_lossy().into_owned()],
        ));
    }
    v
}

struct Run {
    stdout: String,
    code: i32,
    result: String,
    trace: String,
}

fn run(dir: &Path, name: &str, extra: &[String], tag: &str) -> Run {
    let base = std::env::temp_dir().join(format!(
        "cfsim-result-{}-{tag}-{}",
        std::process::id(),
        name.replace('/', "_")
    ));
    let result = base.with_extension("json");
    let trace = base.with_extension("jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", &format!("./{name}")])
        .args(extra)
        .args(["--show-evaluated-classes", "--show-evaluated-vars"])
        .arg("--result-json")
        .arg(&result)
        .arg("--trace-file")
        .arg(&trace)
        .current_dir(dir)
        .output()
        .unwrap();
    let r = Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        code: out.status.code().unwrap_or(-1),
        result: std::fs::read_to_string(&result).unwrap_or_default(),
        trace: std::fs::read_to_string(&trace).unwrap_or_default(),
    };
    let _ = std::fs::remove_file(&result);
    let _ = std::fs::remove_file(&trace);
    r
}

/// The rows of the table whose header starts with `header`.
fn table_rows<'a>(stdout: &'a str, header: &str) -> Vec<&'a str> {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with(header));
    lines.next();
    lines
        .take_while(|l| !l.starts_with("Variable name ") && !l.starts_with("Class name "))
        .collect()
}

/// Asserts that the table's rows are, in order, those of `names` (a row is the name, blanks, …).
fn same_rows(label: &str, names: &[String], rows: &[&str]) {
    assert_eq!(names.len(), rows.len(), "{label}: {names:?} vs {rows:?}");
    for (n, r) in names.iter().zip(rows) {
        assert!(
            r.strip_prefix(n.as_str())
                .is_some_and(|rest| rest.starts_with(' ')),
            "{label}: row {r:?} is not {n:?}"
        );
    }
}

fn strings(v: &serde_json::Value, key: &str) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_str().unwrap().to_string())
        .collect()
}

/// Checks one document against the run's other outputs; returns how many promises it holds.
fn check(label: &str, r: &Run) -> usize {
    let d: serde_json::Value = serde_json::from_str(&r.result)
        .unwrap_or_else(|e| panic!("{label}: result is not JSON ({e}): {}", r.stdout));
    assert_eq!(d["exit_code"], r.code, "{label}: exit code");
    // a run that fails prints no tables (as cf-agent); its result still says where it stopped
    if !r.stdout.contains("Class name ") {
        assert_ne!(r.code, 0, "{label}: no tables after a successful run");
        return d["promises"].as_array().map_or(0, Vec::len);
    }
    same_rows(
        &format!("{label}: classes vs --show-evaluated-classes"),
        &strings(&d["classes"], "name"),
        &table_rows(&r.stdout, "Class name "),
    );
    same_rows(
        &format!("{label}: variables vs --show-evaluated-vars"),
        &strings(&d["variables"], "name"),
        &table_rows(&r.stdout, "Variable name "),
    );
    // each report is printed as `R: TEXT` (TEXT may span lines), in order, and nothing else starts so
    let got: Vec<&str> = d["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    let printed = r.stdout.lines().filter(|l| l.starts_with("R: ")).count();
    assert_eq!(got.len(), printed, "{label}: {got:?}");
    let mut at = 0;
    for rep in &got {
        let needle = format!("R: {rep}\n");
        match r.stdout[at..].find(&needle) {
            Some(i) => at += i + needle.len(),
            None => panic!("{label}: report {rep:?} not printed in order"),
        }
    }
    // tallies: each promise's counts add up, the summary counts the outcomes, and the run's events
    // (everything but pre-evaluation) are all tallied
    let promises = d["promises"].as_array().unwrap();
    let mut evaluated_in_run = 0u64;
    let run_keys: std::collections::BTreeSet<(String, String, u64, String)> = r
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["stage"] != "preeval")
        .map(|e| {
            evaluated_in_run += 1;
            (
                e["bundle"].as_str().unwrap().to_string(),
                e["file"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
                e["promise_type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut tallied_in_run = 0u64;
    let mut by_outcome = std::collections::BTreeMap::<String, u64>::new();
    for p in promises {
        let parts: u64 = ["kept", "repaired", "not_kept", "not_simulated", "skipped"]
            .iter()
            .map(|k| p[*k].as_u64().unwrap())
            .sum();
        assert_eq!(parts, p["evaluations"].as_u64().unwrap(), "{label}: {p}");
        *by_outcome
            .entry(p["outcome"].as_str().unwrap().to_string())
            .or_default() += 1;
        let key = (
            p["bundle"].as_str().unwrap().to_string(),
            p["file"].as_str().unwrap().to_string(),
            p["line"].as_u64().unwrap(),
            p["promise_type"].as_str().unwrap().to_string(),
        );
        if run_keys.contains(&key) {
            tallied_in_run += parts;
        }
    }
    assert_eq!(tallied_in_run, evaluated_in_run, "{label}: run events");
    for (k, n) in d["summary"].as_object().unwrap() {
        assert_eq!(
            n.as_u64().unwrap(),
            by_outcome.get(k).copied().unwrap_or(0),
            "{label}: summary {k}"
        );
    }
    promises.len()
}

#[test]
fn results_match_the_schema_and_the_run() {
    let mut docs = Vec::new();
    let mut promises = 0;
    for (dir, name, args) in corpus() {
        let r = run(&dir, &name, &args, "a");
        if r.result.is_empty() {
            // the run stopped before evaluating (invalid policy, fatal error): no result is written
            assert_ne!(r.code, 0, "{name}: exit 0 without a result");
            continue;
        }
        promises += check(&format!("{}/{name} {args:?}", dir.display()), &r);
        docs.push(r.result);
    }
    assert!(docs.len() > 150, "only {} results", docs.len());
    eprintln!("{} results, {promises} promises checked", docs.len());
    json_schema::validate_lines(&root().join("docs/result.schema.json"), &docs);
}

#[test]
fn result_is_deterministic_and_can_go_to_stdout() {
    let dir = root().join("policies/henc/demo");
    let host = root().join("policies/hosts/db1-rhel-private.json");
    let args = vec!["--host".to_string(), host.to_string_lossy().into_owned()];
    let a = run(&dir, "promises.cf", &args, "one");
    let b = run(&dir, "promises.cf", &args, "two");
    assert!(!a.result.is_empty());
    assert_eq!(a.result, b.result);
    let d: serde_json::Value = serde_json::from_str(&a.result).unwrap();
    assert_eq!(d["host"], "db1.dc1.example.net");
    assert_eq!(d["version"], 1);
    let dash = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", "./promises.cf"])
        .args(&args)
        .args(["--result-json", "-"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&dash.stdout);
    assert!(text.ends_with(&a.result), "{text}");
}
