//! `cfsim test`: the spec suite under tests/specs passes (every expectation kind, the hENC demo, an
//! acceptance-style policy); tests/specs_failing fails each kind with its spec line, expected and
//! actual value; invalid specs exit 2 with `file:line:col: error:`; TAP output is read by a TAP parser
//! (Python tap.py), JUnit by an XML Schema validator (Python xmlschema, docs/junit.xsd), JSON by serde;
//! --filter, --shard and --jobs select and order cases deterministically.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cfsim_test(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .arg("test")
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a Python check over `input`; skipped with a note when the module is missing, except in CI.
fn python(module: &str, script: &str, input: &str) {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir =
        std::env::temp_dir().join(format!("cfsim-test-py-{}-{module}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("input");
    std::fs::write(&f, input).unwrap();
    let o = Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import sys\ntry:\n    import {module}\nexcept ImportError:\n    print('SKIP: no {module}'); sys.exit(3)\n{script}"
        ))
        .arg(&f)
        .arg(root())
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let o = match o {
        Ok(o) => o,
        Err(e) if !ci => return eprintln!("SKIP: no python3 ({e})"),
        Err(e) => panic!("python3 missing under CI: {e}"),
    };
    if o.status.code() == Some(3) && !ci {
        return eprintln!("{}", out(&o));
    }
    assert!(
        o.status.success(),
        "{module} check failed:\n{}{}",
        out(&o),
        err(&o)
    );
}

#[test]
fn passing_suite() {
    let o = cfsim_test(&["tests/specs"]);
    let text = out(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", err(&o));
    assert!(text.ends_with("6 passed, 0 failed\n"), "{text}");
    assert!(text.contains("ok   tests/specs/acceptance/greeting_test.cf: greeting_test.cf [local]"));
    assert!(text.contains(
        "ok   tests/specs/outcomes.cfsim.yaml: defines reach the policy [web1 renamed web9]"
    ));
    // the spec holds every expectation kind
    let spec = std::fs::read_to_string(root().join("tests/specs/outcomes.cfsim.yaml")).unwrap();
    for k in [
        "exit_code:",
        "classes:",
        "not_classes:",
        "vars:",
        "matches:",
        "unset:",
        "reports:",
        "not_reports:",
        "outcomes:",
        "set:",
        "define:",
    ] {
        assert!(spec.contains(k), "{k}");
    }
}

#[test]
fn failing_suite_reports_each_expectation() {
    let o = cfsim_test(&["tests/specs_failing"]);
    let text = out(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    let f = "tests/specs_failing/failing.cfsim.yaml";
    for (line, msg) in [
        (7, "exit code"),
        (8, "class 'not_a_class' is not defined"),
        (9, "class 'greeted' is defined"),
        (11, "variable default:main.greeting"),
        (12, "variable default:main.colours"),
        (13, "variable default:main.role"),
        (14, "variable default:main.missing is not set"),
        (17, "no report matches /goodbye from .*/"),
        (18, "a report matches /hello from .*/"),
        (20, "promise 'set_greeting'"),
        (21, "no promise with handle 'no_such_handle' was evaluated"),
        (25, "variable default:main.greeting is set"),
    ] {
        assert!(
            text.contains(&format!("     {f}:{line}: {msg}")),
            "{line} {msg}:\n{text}"
        );
    }
    assert!(text.contains(
        "       - expected: [\"red\", \"blue\"]\n       + actual:   [\"red\",\"green\"]"
    ));
    assert!(text.contains("FAIL tests/specs_failing/fail_test.cf: fail_test.cf [local]"));
    assert!(text.contains("the policy reported FAIL"));
    assert!(text.contains("ok   tests/specs_failing/failing.cfsim.yaml: this one passes"));
    assert!(text.ends_with("1 passed, 3 failed\n"), "{text}");
}

#[test]
fn invalid_specs_exit_2_with_their_location() {
    for (file, expected) in [
        ("unknown_key", ":6:7: error: unknown key 'clases' in expect"),
        (
            "bad_yaml",
            ":7:1: error: invalid YAML: while parsing a flow sequence",
        ),
        (
            "missing_policy",
            ":1:9: error: policy 'nothere.cf' not found",
        ),
        (
            "bad_regex",
            ":6:17: error: reports: invalid regular expression",
        ),
        ("bad_outcome", ":6:22: error: unknown outcome 'fine'"),
    ] {
        let path = format!("tests/specs_invalid/{file}.cfsim.yaml");
        let o = cfsim_test(&[&path]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        assert!(
            err(&o).starts_with(&format!("{path}{expected}")),
            "{file}: {}",
            err(&o)
        );
    }
    let o = cfsim_test(&["tests/no-such-dir"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn tap_junit_and_json_are_read_by_their_parsers() {
    let paths = ["tests/specs", "tests/specs_failing"];
    let tap = cfsim_test(&[&["--format", "tap"][..], &paths[..]].concat());
    assert_eq!(tap.status.code(), Some(1));
    python(
        "tap",
        r#"
from tap.parser import Parser
lines = list(Parser().parse_text(open(sys.argv[1]).read()))
tests = [l for l in lines if l.category == 'test']
plan = [l for l in lines if l.category == 'plan']
assert plan and plan[0].expected_tests == len(tests) == 10, (plan, len(tests))
assert sum(1 for t in tests if t.ok) == 7, [t.description for t in tests]
bad = [l for l in lines if l.category == 'unknown' and not l.text.startswith('  ')]
assert not bad, bad
yamlish = [t.yaml_block for t in tests if not t.ok]
print(len(tests), "TAP tests parsed")
"#,
        &out(&tap),
    );
    let junit = cfsim_test(&[&["--format", "junit"][..], &paths[..]].concat());
    assert_eq!(junit.status.code(), Some(1));
    python(
        "xmlschema",
        r#"
import xml.etree.ElementTree as ET
schema = xmlschema.XMLSchema(sys.argv[2] + "/docs/junit.xsd")
schema.validate(sys.argv[1])
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall("./testsuite/testcase")
assert len(cases) == 10 and root.get("tests") == "10", len(cases)
assert len(root.findall("./testsuite/testcase/failure")) == 3
print("JUnit valid:", len(cases), "testcases")
"#,
        &out(&junit),
    );
    let json = cfsim_test(&[&["--format", "json"][..], &paths[..]].concat());
    let v: serde_json::Value = serde_json::from_str(&out(&json)).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["passed"], 7);
    assert_eq!(v["failed"], 3);
    let first_fail = v["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "everything wrong")
        .unwrap();
    assert_eq!(first_fail["failures"].as_array().unwrap().len(), 11);
    assert_eq!(first_fail["failures"][0]["line"], 7);
}

#[test]
fn filter_shard_and_jobs() {
    let o = cfsim_test(&["--filter", "hENC|henc_demo", "tests/specs"]);
    assert!(out(&o).ends_with("2 passed, 0 failed\n"), "{}", out(&o));
    let whole = out(&cfsim_test(&["-j", "1", "tests/specs"]));
    assert_eq!(whole, out(&cfsim_test(&["-j", "2", "tests/specs"])));
    let mut rows = Vec::new();
    for k in 1..=2 {
        let s = out(&cfsim_test(&["--shard", &format!("{k}/2"), "tests/specs"]));
        rows.extend(
            s.lines()
                .filter(|l| l.starts_with("ok "))
                .map(str::to_string),
        );
    }
    let mut all: Vec<String> = whole
        .lines()
        .filter(|l| l.starts_with("ok "))
        .map(str::to_string)
        .collect();
    rows.sort();
    all.sort();
    assert_eq!(rows, all);
}

/// `--coverage-json`: every promise of the suite's policies is listed once, and what the coverage says
/// of it agrees with the cases' own results (`--format json` carries each case's run result).
#[test]
fn coverage_agrees_with_the_runs() {
    let cov_path = std::env::temp_dir().join(format!("cfsim-coverage-{}.json", std::process::id()));
    let o = cfsim_test(&[
        "tests/specs",
        "--format",
        "json",
        "--coverage-json",
        &cov_path.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cov: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cov_path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&cov_path);
    assert_eq!(
        report["coverage"], cov,
        "the report's coverage key is the file"
    );
    assert_eq!(cov["cases"], 6);
    // the promises reached in any case, from the runs themselves (cfsim agent --result-json per case)
    let mut reached: std::collections::BTreeMap<(String, u64, String), (u64, u64)> =
        Default::default();
    for c in report["cases"].as_array().unwrap() {
        let spec = c["spec"].as_str().unwrap();
        let case = c["name"].as_str().unwrap();
        let r = run_case_result(spec, case, c["profile"].as_str().unwrap());
        for p in r["promises"].as_array().unwrap() {
            let e = reached
                .entry((
                    p["file"].as_str().unwrap().to_string(),
                    p["line"].as_u64().unwrap(),
                    p["promise_type"].as_str().unwrap().to_string(),
                ))
                .or_default();
            e.0 += p["kept"].as_u64().unwrap();
            e.1 += p["guard_true"].as_u64().unwrap();
        }
    }
    let mut sites = 0;
    let mut seen = std::collections::BTreeSet::new();
    for f in cov["files"].as_array().unwrap() {
        let file = f["file"].as_str().unwrap();
        for s in f["sites"].as_array().unwrap() {
            sites += 1;
            let key = (
                file.to_string(),
                s["line"].as_u64().unwrap(),
                s["promise_type"].as_str().unwrap().to_string(),
            );
            assert!(seen.insert(key.clone()), "listed twice: {key:?}");
            match reached.get(&key) {
                None => assert_eq!(s["status"], "never_reached", "{key:?}"),
                Some((kept, guard_true)) => {
                    assert_ne!(s["status"], "never_reached", "{key:?}");
                    assert_eq!(s["kept"].as_u64().unwrap(), *kept, "{key:?}");
                    assert_eq!(
                        s["status"] == "guard_never_true",
                        *guard_true == 0,
                        "{key:?}"
                    );
                }
            }
        }
    }
    assert_eq!(cov["promises"], sites);
    assert!(
        reached.keys().all(|k| seen.contains(k)),
        "a run's promise is missing"
    );
    // the fixture's known cases: a guard never true, a bundle never called
    let outcomes = cov["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "tests/specs/outcomes/policy.cf")
        .unwrap();
    let status = |line: u64| {
        outcomes["sites"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["line"] == line)
            .map(|s| s["status"].as_str().unwrap().to_string())
    };
    assert_eq!(status(21).as_deref(), Some("guard_never_true"));
    assert_eq!(status(28).as_deref(), Some("never_reached"));
    assert_eq!(status(11).as_deref(), Some("kept"));
    // the text form
    let o = cfsim_test(&["tests/specs/outcomes.cfsim.yaml", "--coverage"]);
    let text = out(&o);
    assert!(
        text.contains("  tests/specs/outcomes/policy.cf  6/8  75.0%\n    never reached: 28 (bundle default:unused)\n    guard never true: 21 reports \"never\" if => \"no_such_class\" (reached in 3 cases)\n"),
        "{text}"
    );
}

/// The result of one spec case, run by `cfsim agent --result-json` with the case's policy and host.
fn run_case_result(spec: &str, case: &str, profile: &str) -> serde_json::Value {
    let (policy, define): (&str, &[&str]) = match (spec, case) {
        ("tests/specs/acceptance/greeting_test.cf", _) => (spec, &[]),
        ("tests/specs/henc_demo.cfsim.yaml", _) => {
            ("tests/specs/../../policies/henc/demo/promises.cf", &[])
        }
        ("tests/specs/outcomes.cfsim.yaml", "defines reach the policy") => {
            ("tests/specs/outcomes/policy.cf", &["role_web"])
        }
        _ => ("tests/specs/outcomes/policy.cf", &[]),
    };
    let path = std::env::temp_dir().join(format!(
        "cfsim-case-{}-{}.json",
        std::process::id(),
        case.len() + profile.len()
    ));
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"));
    c.current_dir(root())
        .args(["agent", "-f", policy, "--host", profile, "--result-json"])
        .arg(&path);
    for d in define {
        c.args(["-D", d]);
    }
    c.output().unwrap();
    let v = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    v
}

/// The masterfiles' own test bundles (`lib/testing.cf`): the test classes cfsim's run defines are those
/// the real agent defined (recorded in `testing_lib.classes.expected`, re-recorded live when cf-agent is
/// installed), and `cfsim test` turns each into a test: passed, failed (with its message, error, trace
/// and the line of its call), skipped and to-do (TAP directives, JUnit `<skipped>`).
#[test]
fn masterfiles_testing_bundles_are_tests() {
    let dir = "tests/specs_testing_lib";
    let policy = format!("{dir}/testing_lib.cf");
    let expected =
        std::fs::read_to_string(root().join(format!("{dir}/testing_lib.classes.expected")))
            .unwrap();
    let rows = |stdout: &[u8]| -> String {
        String::from_utf8_lossy(stdout)
            .lines()
            .filter(|l| l.starts_with("testing_"))
            .map(|l| format!("{}\n", l.trim_end()))
            .collect()
    };
    // live: validated by cf-promises -c first (an invalid policy would make cf-agent run its failsafe)
    match (find_bin("cf-promises"), find_bin("cf-agent")) {
        (Some(promises), Some(agent)) => {
            let dir = root().join(dir);
            let valid = std::process::Command::new(promises)
                .current_dir(&dir)
                .args(["-c", "-f", "./testing_lib.cf"])
                .output()
                .unwrap();
            assert!(valid.status.success(), "{}", out(&valid));
            let o = std::process::Command::new(agent)
                .current_dir(&dir)
                .args(["-K", "-f", "./testing_lib.cf", "--show-evaluated-classes"])
                .output()
                .unwrap();
            assert_eq!(rows(&o.stdout), expected, "cf-agent's test classes changed");
        }
        _ => assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "cf-agent is required when CI=true"
        ),
    }
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(root())
        .args(["agent", "-f", &policy, "--show-evaluated-classes"])
        .output()
        .unwrap();
    assert_eq!(rows(&o.stdout), expected);
    assert_eq!(expected.lines().count(), 4);

    let host = ["--host", "policies/hosts/web1-oslo-debian.json"];
    let o = cfsim_test(&[&host[..], &[dir]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        out(&o),
        format!(
            "FAIL {policy}: missing_class [web1-oslo-debian.json]
     {policy}:16: testing_ok_if: missing_class is defined
       - expected: class missing_class defined
       + actual:   not defined (error: error1; trace: error trace 1)
ok   {policy}: reported_class [web1-oslo-debian.json]
skip {policy}: skipped_class [web1-oslo-debian.json]: we skipped this
todo {policy}: todo_class [web1-oslo-debian.json]: we need to do this
3 passed, 1 failed
"
        )
    );
    let tap = cfsim_test(&[&host[..], &["--format", "tap", dir]].concat());
    python(
        "tap",
        r#"
from tap.parser import Parser
tests = [l for l in Parser().parse_text(open(sys.argv[1]).read()) if l.category == 'test']
got = [(t.ok, t.skip, t.todo) for t in tests]
assert got == [(False, False, False), (True, False, False), (True, True, False), (True, False, True)], got
print("TAP directives parsed")
"#,
        &out(&tap),
    );
    let junit = cfsim_test(&[&host[..], &["--format", "junit", dir]].concat());
    python(
        "xmlschema",
        r#"
import xml.etree.ElementTree as ET
xmlschema.XMLSchema(sys.argv[2] + "/docs/junit.xsd").validate(sys.argv[1])
root = ET.parse(sys.argv[1]).getroot()
assert len(root.findall("./testsuite/testcase/skipped")) == 2
assert root.find("./testsuite").get("skipped") == "2"
assert len(root.findall("./testsuite/testcase/failure")) == 1
"#,
        &out(&junit),
    );
}

fn find_bin(bin: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(bin))
            .find(|p| p.is_file())
    })
}

/// File expectations read the virtual host after the run (edits, templates, perms, a created
/// directory, backups, absent paths); a spec with `converge: true` runs the policy again on the state
/// the first run left. A policy that touches a file is not convergent: `--converge` fails it and says
/// which promise repaired again.
#[test]
fn file_expectations_and_convergence() {
    let ok = cfsim_test(&["tests/specs_files/site.cfsim.yaml"]);
    assert_eq!(ok.status.code(), Some(0), "{}{}", out(&ok), err(&ok));
    assert!(out(&ok).contains("1 passed, 0 failed"), "{}", out(&ok));
    let plain = cfsim_test(&["tests/specs_files/touch.cfsim.yaml"]);
    assert_eq!(plain.status.code(), Some(0), "{}", out(&plain));
    let conv = cfsim_test(&["--converge", "tests/specs_files/touch.cfsim.yaml"]);
    assert_eq!(conv.status.code(), Some(1), "{}", out(&conv));
    let text = out(&conv);
    assert!(
        text.contains(
            "not convergent: a second run on the state the first left repaired 1 promise(s)"
        ) && text.contains("default:main files tests/specs_files/touch.cf:6 '/etc/stamp'"),
        "{text}"
    );
    // a wrong expectation names the file, the part and both values
    let dir = std::env::temp_dir().join(format!("cfsim-files-spec-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let spec = dir.join("wrong.cfsim.yaml");
    let site = root().join("tests/specs_files");
    std::fs::write(
        &spec,
        format!(
            "policy: {0}/site.cf\nhosts: [{0}/web1.json]\ntests:\n  - name: wrong\n    expect:\n      files:\n        /etc/motd: {{ mode: \"0600\" }}\n        /etc/app/app.conf: {{ contains: \"^port=80$\" }}\n",
            site.display()
        ),
    )
    .unwrap();
    let bad = cfsim_test(&[spec.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(bad.status.code(), Some(1), "{}", out(&bad));
    let text = out(&bad);
    assert!(
        text.contains("file '/etc/motd': mode") && text.contains("0600") && text.contains("0644"),
        "{text}"
    );
    assert!(
        text.contains("file '/etc/app/app.conf': contents"),
        "{text}"
    );
}

/// A command the host profile has no result for is not simulated (no outcome, no classes) unless the
/// spec's `assume_commands` says what it returns; a bad value is a spec error with its line.
#[test]
fn unknown_commands_and_assume_commands() {
    let ok = cfsim_test(&["tests/specs_commands/commands.cfsim.yaml"]);
    assert_eq!(ok.status.code(), Some(0), "{}{}", out(&ok), err(&ok));
    assert!(out(&ok).contains("3 passed, 0 failed"), "{}", out(&ok));
    let dir = std::env::temp_dir().join(format!("cfsim-assume-spec-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let spec = dir.join("bad.cfsim.yaml");
    let base = root().join("tests/specs_commands");
    std::fs::write(
        &spec,
        format!(
            "policy: {0}/commands/policy.cf\nhosts: [{1}/policies/hosts/web1-oslo-debian.json]\nassume_commands: maybe\ntests:\n  - name: x\n    expect: {{ exit_code: 0 }}\n",
            base.display(),
            root().display()
        ),
    )
    .unwrap();
    let bad = cfsim_test(&[spec.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(bad.status.code(), Some(2), "{}{}", out(&bad), err(&bad));
    let text = format!("{}{}", out(&bad), err(&bad));
    assert!(
        text.contains("bad.cfsim.yaml:3:")
            && text.contains("assume_commands must be succeed or fail"),
        "{text}"
    );
}

/// `packages:` expectations read the package database the run left: installed, absent or a version;
/// a wrong one names the package with both states.
#[test]
fn package_expectations() {
    let ok = cfsim_test(&["tests/specs_packages/site.cfsim.yaml"]);
    assert_eq!(ok.status.code(), Some(0), "{}{}", out(&ok), err(&ok));
    assert!(out(&ok).contains("1 passed, 0 failed"), "{}", out(&ok));
    let dir = std::env::temp_dir().join(format!("cfsim-pkg-spec-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let spec = dir.join("wrong.cfsim.yaml");
    let site = root().join("tests/specs_packages");
    std::fs::write(
        &spec,
        format!(
            "policy: {0}/site.cf\nhosts: [{0}/web1.json]\ntests:\n  - name: wrong\n    expect:\n      packages:\n        telnet: installed\n        bash: \"5.2.15-2\"\n",
            site.display()
        ),
    )
    .unwrap();
    let bad = cfsim_test(&[spec.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(bad.status.code(), Some(1), "{}", out(&bad));
    let text = out(&bad);
    assert!(
        text.contains("package 'telnet'") && text.contains("+ actual:   absent"),
        "{text}"
    );
    assert!(
        text.contains("package 'bash'") && text.contains("installed 5.2.21-1 (amd64)"),
        "{text}"
    );
}

/// `services:` and `users:` expectations read the service inventory and the accounts the run left; a
/// wrong one names the service or user, the part that differs and both values.
#[test]
fn service_and_user_expectations() {
    let ok = cfsim_test(&["tests/specs_services/site.cfsim.yaml"]);
    assert_eq!(ok.status.code(), Some(0), "{}{}", out(&ok), err(&ok));
    assert!(out(&ok).contains("1 passed, 0 failed"), "{}", out(&ok));
    let dir = std::env::temp_dir().join(format!("cfsim-svc-spec-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let site = root().join("tests/specs_services");
    let write = |name: &str, expect: &str| {
        let spec = dir.join(name);
        std::fs::write(
            &spec,
            format!(
                "policy: {0}/site.cf\nhosts: [{0}/web1.json]\ntests:\n  - name: wrong\n    expect:\n{expect}",
                site.display()
            ),
        )
        .unwrap();
        spec
    };
    let cases: &[(&str, &str)] = &[
        ("      services:\n        nginx: stopped\n", "service 'nginx'\n       - expected: stopped\n       + actual:   running"),
        ("      services:\n        telnetd: enabled\n", "service 'telnetd'\n       - expected: enabled\n       + actual:   disabled"),
        ("      services:\n        mysql: running\n", "service 'mysql'\n       - expected: a known service\n       + actual:   not in the host's services inventory"),
        ("      users:\n        games: present\n", "user 'games': existence\n       - expected: present\n       + actual:   absent"),
        ("      users:\n        deploy: { uid: 1501 }\n", "user 'deploy': uid\n       - expected: 1501\n       + actual:   1500"),
        ("      users:\n        deploy: { group: sudo }\n", "user 'deploy': primary group\n       - expected: sudo\n       + actual:   users (100)"),
        ("      users:\n        deploy: { groups: [sudo] }\n", "user 'deploy': secondary groups\n       - expected: [\"sudo\"]\n       + actual:   [\"sudo\", \"www-data\"]"),
        ("      users:\n        proxy: { locked: false }\n", "user 'proxy': lock\n       - expected: not locked\n       + actual:   locked"),
        ("      users:\n        nosuch: { shell: /bin/sh }\n", "user 'nosuch': missing\n       - expected: present\n       + actual:   absent"),
    ];
    for (i, (expect, want)) in cases.iter().enumerate() {
        let spec = write(&format!("wrong{i}.cfsim.yaml"), expect);
        let bad = cfsim_test(&[spec.to_str().unwrap()]);
        assert_eq!(bad.status.code(), Some(1), "{expect}: {}", out(&bad));
        assert!(
            out(&bad).contains(want),
            "{expect}: want {want:?} in\n{}",
            out(&bad)
        );
    }
    // a malformed expectation is an invalid spec (exit 2) naming the line
    let spec = write(
        "invalid.cfsim.yaml",
        "      services:\n        nginx: sideways\n",
    );
    let inv = cfsim_test(&[spec.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(inv.status.code(), Some(2), "{}", out(&inv));
    assert!(
        err(&inv).contains("invalid.cfsim.yaml:7:")
            && err(&inv).contains("use running, stopped, enabled, disabled"),
        "{}",
        err(&inv)
    );
}
