//! `cfsim graph`: DOT output accepted by Graphviz `dot`; the masterfiles call graph equal to the one
//! derived here, independently, from `cf-promises -p json-full` (methods promises whose `usebundle` is
//! a literal name or call); each lint's fixture under tests/graph/ gives exactly its warning lines and
//! its clean twin none; mermaid and JSON outputs parse; an invalid policy answers as `cfsim promises`.
//! Graphviz and cf-promises are installed by `.ci/run`: without them the tests that need them print a
//! skip note, and FAIL when CI=true.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

const MASTERFILES: &str = "/usr/share/cfengine3/masterfiles/promises.cf";
const KINDS: [&str; 4] = ["calls", "classes", "depends", "bodies"];

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

fn cfsim(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn graph(file: &str, kind: &str, format: &str) -> Run {
    cfsim(&["graph", "-f", file, "--kind", kind, "--format", format])
}

/// Whether a tool the test needs is installed; a skip note otherwise (a failure when CI=true).
fn have(tool: &str, what: &str) -> bool {
    let ok = Command::new(tool)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{tool} is required when CI=true"
        );
        eprintln!("note: {tool} missing; {what} skipped");
    }
    ok
}

/// The fixtures that are valid policies (every `*.cf` under tests/graph but `invalid.cf`).
fn fixtures() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/graph");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cf") && n != "invalid.cf")
        .map(|n| format!("tests/graph/{n}"))
        .collect();
    v.sort();
    v
}

/// Runs Graphviz `dot -Tsvg` on `text`; `Err` is what dot said.
fn dot_accepts(text: &str) -> Result<(), String> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // dot exits 0 with warnings; any message at all means it had to guess
    if out.status.success() && stderr.trim().is_empty() {
        Ok(())
    } else {
        Err(stderr)
    }
}

#[test]
fn dot_output_is_accepted_by_graphviz() {
    if !have("dot", "Graphviz check") {
        return;
    }
    let mut checked = 0;
    for f in fixtures() {
        for kind in KINDS {
            let r = graph(&f, kind, "dot");
            assert_eq!(r.code, 0, "{f} {kind}: {}", r.stderr);
            assert!(r.stdout.starts_with("digraph "), "{f} {kind}");
            if let Err(e) = dot_accepts(&r.stdout) {
                panic!("dot rejected the {kind} graph of {f}: {e}\n{}", r.stdout);
            }
            checked += 1;
        }
    }
    if Path::new(MASTERFILES).is_file() {
        for kind in KINDS {
            let r = graph(MASTERFILES, kind, "dot");
            assert_eq!(r.code, 0, "masterfiles {kind}");
            if let Err(e) = dot_accepts(&r.stdout) {
                panic!("dot rejected the {kind} graph of the masterfiles: {e}");
            }
            checked += 1;
        }
    }
    eprintln!("dot accepted {checked} graphs");
}

/// `caller → callee` pairs (both `ns:name`) of literal usebundle calls, with the lines of the methods
/// promises, from cf-promises' JSON (`bundles[].promiseTypes[name=methods].contexts[].promises[]`).
fn reference_calls(policy: &Value) -> BTreeMap<(String, String), BTreeSet<u64>> {
    let mut out: BTreeMap<(String, String), BTreeSet<u64>> = BTreeMap::new();
    for b in policy["bundles"].as_array().unwrap() {
        let ns = b["namespace"].as_str().unwrap();
        let caller = format!("{ns}:{}", b["name"].as_str().unwrap());
        for pt in b["promiseTypes"].as_array().unwrap() {
            if pt["name"] != "methods" {
                continue;
            }
            for ctx in pt["contexts"].as_array().unwrap() {
                for p in ctx["promises"].as_array().unwrap() {
                    for a in p["attributes"].as_array().unwrap() {
                        if a["lval"] != "usebundle" {
                            continue;
                        }
                        let rv = &a["rval"];
                        let name = match rv["type"].as_str().unwrap() {
                            "functionCall" => rv["name"].as_str().unwrap(),
                            "string" | "symbol" => rv["value"].as_str().unwrap(),
                            _ => continue,
                        };
                        if name.contains('$') || name.contains('@') {
                            continue;
                        }
                        let callee = if name.contains(':') {
                            name.to_string()
                        } else {
                            format!("{ns}:{name}")
                        };
                        out.entry((caller.clone(), callee))
                            .or_default()
                            .insert(p["line"].as_u64().unwrap());
                    }
                }
            }
        }
    }
    out
}

#[test]
fn masterfiles_call_graph_matches_cf_promises() {
    if !Path::new(MASTERFILES).is_file() || !have("cf-promises", "masterfiles call graph") {
        if !Path::new(MASTERFILES).is_file() {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "masterfiles are required when CI=true"
            );
        }
        return;
    }
    // `-p json` prints the entry file only (five bundles and no methods promise in promises.cf);
    // `json-full` prints every file cf-promises loaded, inputs given by variables included
    let out = Command::new("cf-promises")
        .args(["-p", "json-full", "-f", MASTERFILES])
        .output()
        .unwrap();
    assert!(out.status.success(), "cf-promises failed");
    let policy: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reference = reference_calls(&policy);
    let r = graph(MASTERFILES, "calls", "json");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let g: Value = serde_json::from_str(&r.stdout).unwrap();
    let nodes: BTreeMap<&str, &Value> = g["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let qualified = |id: &str| {
        let n = nodes[id];
        format!(
            "{}:{}",
            n["namespace"].as_str().unwrap(),
            n["name"].as_str().unwrap()
        )
    };
    let mut mine: BTreeMap<(String, String), BTreeSet<u64>> = BTreeMap::new();
    for e in g["edges"].as_array().unwrap() {
        if e["kind"] != "usebundle" || e["dynamic"] == true {
            continue;
        }
        let key = (
            qualified(e["from"].as_str().unwrap()),
            qualified(e["to"].as_str().unwrap()),
        );
        mine.entry(key)
            .or_default()
            .insert(e["line"].as_u64().unwrap());
    }
    let a: BTreeSet<_> = reference.keys().collect();
    let b: BTreeSet<_> = mine.keys().collect();
    assert_eq!(
        a.difference(&b).collect::<Vec<_>>(),
        Vec::<&&(String, String)>::new(),
        "calls cf-promises has and cfsim graph misses"
    );
    assert_eq!(
        b.difference(&a).collect::<Vec<_>>(),
        Vec::<&&(String, String)>::new(),
        "calls cfsim graph has and cf-promises does not"
    );
    // parallel calls with the same arguments are one edge, at the first call's line
    for (k, lines) in &mine {
        assert!(
            lines.is_subset(&reference[k]),
            "{k:?}: lines {lines:?} not among {:?}",
            reference[k]
        );
    }
    let calls: usize = reference.values().map(BTreeSet::len).sum();
    assert!(
        reference.len() >= 40,
        "only {} call edges: the comparison would be vacuous",
        reference.len()
    );
    eprintln!(
        "masterfiles: {} caller -> callee edges ({calls} methods promises) equal",
        reference.len()
    );
}

/// (fixture, kind, warning lines without the file prefix).
const LINTS: &[(&str, &str, &[&str])] = &[
    (
        "unreached",
        "calls",
        &["20:14: warning: bundle agent 'orphan' is never reached from the bundlesequence"],
    ),
    (
        "cycle",
        "depends",
        &["10:7: warning: depends_on cycle: first -> second -> third -> first"],
    ),
    (
        "undefined_class",
        "classes",
        &["11:5: warning: class 'web_servers' is used but never defined (by no promise, and not a hard class)"],
    ),
    (
        "unused_class",
        "classes",
        &[
            "11:7: warning: class 'never_used (local to main)' is defined but never used",
            "14:30: warning: no class set by classes => if_repaired(\"nobody_cares\") is ever used (nobody_cares)",
        ],
    ),
    (
        "unused_body",
        "bodies",
        &[
            "19:12: warning: body perms 'never' is never used",
            "24:12: warning: body perms 'base' is never used",
            "29:12: warning: body perms 'child' is never used",
        ],
    ),
];

#[test]
fn each_lint_fires_on_its_fixture_and_not_on_the_clean_one() {
    for (name, kind, expected) in LINTS {
        let file = format!("tests/graph/{name}.cf");
        let want: String = expected.iter().map(|l| format!("{file}:{l}\n")).collect();
        let r = cfsim(&["graph", "-f", &file, "--kind", kind]);
        assert_eq!(r.stderr, want, "{file}");
        assert_eq!(r.code, 0, "{file}: warnings alone do not fail");
        let r = cfsim(&["graph", "-f", &file, "--kind", kind, "--deny-warnings"]);
        assert_eq!(r.stderr, want, "{file}");
        assert_eq!(r.code, 1, "{file} with --deny-warnings");

        let clean = format!("tests/graph/{name}_clean.cf");
        let r = cfsim(&["graph", "-f", &clean, "--kind", kind, "--deny-warnings"]);
        assert_eq!(r.stderr, "", "{clean}");
        assert_eq!(r.code, 0, "{clean}");
    }
}

#[test]
fn all_lints_prints_every_kind() {
    // undefined_class.cf: only the classes lint fires, whatever graph is shown
    let r = cfsim(&[
        "graph",
        "-f",
        "tests/graph/undefined_class.cf",
        "--kind",
        "bodies",
        "--all-lints",
        "--deny-warnings",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.contains("'web_servers' is used but never defined"));
    // the same fixture's other graphs are clean
    let r = cfsim(&[
        "graph",
        "-f",
        "tests/graph/undefined_class.cf",
        "--kind",
        "bodies",
        "--deny-warnings",
    ]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}

#[test]
fn json_output_parses_and_is_consistent() {
    for f in fixtures() {
        for kind in KINDS {
            let r = graph(&f, kind, "json");
            assert_eq!(r.code, 0, "{f} {kind}: {}", r.stderr);
            let v: Value = serde_json::from_str(&r.stdout)
                .unwrap_or_else(|e| panic!("{f} {kind}: not JSON: {e}"));
            assert_eq!(v["version"], 1);
            assert_eq!(v["kind"], kind);
            let ids: Vec<&str> = v["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["id"].as_str().unwrap())
                .collect();
            let mut sorted = ids.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(ids, sorted, "{f} {kind}: node ids sorted and unique");
            for e in v["edges"].as_array().unwrap() {
                for end in ["from", "to"] {
                    let id = e[end].as_str().unwrap();
                    assert!(ids.contains(&id), "{f} {kind}: edge {end} {id} is no node");
                }
            }
        }
    }
}

#[test]
fn calls_json_shows_arguments_namespaces_and_dynamic_names() {
    let r = graph("tests/graph/unreached_clean.cf", "calls", "json");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let edges: BTreeSet<(String, String, String, String)> = v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap().to_string(),
                e["to"].as_str().unwrap().to_string(),
                e["kind"].as_str().unwrap().to_string(),
                e["label"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("bundlesequence", "default:main", "bundlesequence", ""),
        (
            "bundlesequence",
            "default:helper",
            "bundlesequence",
            "(\"from sequence\")",
        ),
        ("default:main", "default:by_promiser", "methods", ""),
        ("default:main", "other:remote", "usebundle", "(\"y\")"),
        ("other:remote", "other:sibling", "usebundle", ""),
        (
            "default:main",
            "default:service_handler",
            "service_bundle",
            "(\"$(this.promiser)\", \"$(this.service_policy)\")",
        ),
    ];
    for (a, b, k, l) in want {
        let e = (a.to_string(), b.to_string(), k.to_string(), l.to_string());
        assert!(edges.contains(&e), "missing edge {e:?} in {edges:?}");
    }
    assert_eq!(edges.len(), want.len(), "{edges:?}");

    let r = graph("tests/graph/quoting.cf", "calls", "json");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let dynamic: Vec<&str> = v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["dynamic"] == true)
        .map(|e| e["to"].as_str().unwrap())
        .collect();
    assert_eq!(
        dynamic,
        [
            "bundlesequence -> @(def.more)",
            "default:main -> $(def.more)"
        ]
    );
}

#[test]
fn mermaid_output_parses() {
    let node =
        regex::Regex::new(r#"^  (n\d+)(\[\[|\[/|\(\[|\{\{|\[)"[^"]*"(\]\]|/\]|\]\)|\}\}|\])$"#)
            .unwrap();
    let edge = regex::Regex::new(r#"^  (n\d+) (-->|-\.->)(\|"[^"]*"\|)? (n\d+)$"#).unwrap();
    for f in fixtures() {
        for kind in KINDS {
            let r = graph(&f, kind, "mermaid");
            assert_eq!(r.code, 0, "{f} {kind}: {}", r.stderr);
            let mut lines = r.stdout.lines();
            let first = lines.next().unwrap_or_default();
            assert!(
                first.starts_with("flowchart") || first.starts_with("graph"),
                "{f} {kind}: {first}"
            );
            // every statement is a node, an edge between defined nodes, or a style line
            let mut defined = BTreeSet::new();
            for l in lines {
                if let Some(c) = node.captures(l) {
                    defined.insert(c[1].to_string());
                } else if let Some(c) = edge.captures(l) {
                    assert!(
                        defined.contains(&c[1]) && defined.contains(&c[4]),
                        "{f}: {l}"
                    );
                } else {
                    assert!(
                        l.starts_with("  classDef ") || l.starts_with("  class "),
                        "{f} {kind}: unexpected line {l:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn invalid_policy_answers_as_cfsim_promises() {
    for file in ["tests/graph/invalid.cf", "tests/graph/does-not-exist.cf"] {
        let p = cfsim(&["promises", "-f", file]);
        let g = cfsim(&["graph", "-f", file]);
        assert_ne!(p.code, 0, "{file}");
        assert_eq!(
            (g.code, g.stdout.as_str(), g.stderr.as_str()),
            (p.code, p.stdout.as_str(), p.stderr.as_str()),
            "{file}"
        );
    }
}

#[test]
fn from_and_depth_focus_the_graph() {
    let ids = |r: &Run| -> Vec<String> {
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap().to_string())
            .collect()
    };
    let f = "tests/graph/unreached_clean.cf";
    let r = cfsim(&[
        "graph", "-f", f, "--format", "json", "--from", "main", "--depth", "1",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        ids(&r),
        [
            "default:by_promiser",
            "default:main",
            "default:service_handler",
            "other:remote"
        ]
    );
    let r = cfsim(&[
        "graph",
        "-f",
        f,
        "--format",
        "json",
        "--from",
        "other:remote",
    ]);
    assert_eq!(ids(&r), ["other:remote", "other:sibling"]);
    let r = cfsim(&["graph", "-f", f, "--format", "json", "--depth", "1"]);
    assert_eq!(
        ids(&r),
        ["bundlesequence", "default:helper", "default:main"]
    );
    // the classes graph from a bundle: its promises and what follows from them
    let r = cfsim(&[
        "graph",
        "-f",
        "tests/graph/unused_class_clean.cf",
        "--kind",
        "classes",
        "--format",
        "json",
        "--from",
        "main",
        "--depth",
        "1",
    ]);
    assert!(
        ids(&r).contains(&"class:cmd_repaired".to_string()),
        "{:?}",
        ids(&r)
    );
    let r = cfsim(&["graph", "-f", f, "--from", "nosuchbundle"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "   error: no node 'nosuchbundle' in the calls graph\n"
    );
}

#[test]
fn output_is_deterministic() {
    let files: Vec<String> = if Path::new(MASTERFILES).is_file() {
        vec![
            MASTERFILES.to_string(),
            "tests/graph/quoting.cf".to_string(),
        ]
    } else {
        vec!["tests/graph/quoting.cf".to_string()]
    };
    for f in files {
        for kind in KINDS {
            for format in ["dot", "mermaid", "json"] {
                let a = graph(&f, kind, format);
                let b = graph(&f, kind, format);
                assert_eq!(a.stdout, b.stdout, "{f} {kind} {format}");
                assert_eq!(a.stderr, b.stderr, "{f} {kind} {format}");
            }
        }
    }
}
