//! `cfsim explain`: insta snapshots (snapshots/explain/) of the text answers to questions on the eval
//! corpus (policies/eval) and the hENC demo, each run as a host profile of policies/hosts; and for
//! every answer its facts checked against the trace of `cfsim agent --trace-file -` with the same
//! flags, not only the snapshot: the defining evaluation is the first event of the trace that sets
//! the class (or every event that changed the variable, in order), equal field by field, with its
//! pass; each class of the chain behind it was set by an earlier event; a class or variable answered
//! "not defined" is set by no event, and each candidate's evaluations are exactly the trace's events
//! of that promise (none when it is reported never evaluated); a promise's evaluations are its
//! events. Usage errors exit 2; an invalid policy answers as `cfsim agent`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use serde_json::Value;

const WEB1: &str = "policies/hosts/web1-oslo-debian.json";
const CONTAINER: &str = "policies/hosts/container-minimal.json";
const DEMO: &str = "policies/henc/demo/promises.cf";

/// One question: a name for its snapshot, the policy, the host profile, extra flags of the run, and
/// the question (`--class`, `--var` or `--promise` and its value).
struct Q {
    name: &'static str,
    policy: &'static str,
    host: &'static str,
    flags: &'static [&'static str],
    ask: (&'static str, &'static str),
    /// A why-not question (the class or variable is not set, or the promise never did anything).
    why_not: bool,
}

const fn q(
    name: &'static str,
    policy: &'static str,
    flags: &'static [&'static str],
    ask: (&'static str, &'static str),
    why_not: bool,
) -> Q {
    Q {
        name,
        policy,
        host: WEB1,
        flags,
        ask,
        why_not,
    }
}

const CHAIN: &str = "policies/eval/passes/class_chain_three_passes.cf";

const QUESTIONS: &[Q] = &[
    // classes defined: the chain back, across passes
    q("chain_c3", CHAIN, &[], ("--class", "c3"), false),
    q(
        "vars_per_pass_early",
        "policies/eval/passes/vars_per_pass.cf",
        &[],
        ("--class", "early"),
        false,
    ),
    q(
        "dash_d_derived",
        "policies/eval/cli/dash_D.cf",
        &["-D", "from_cli,other_cli"],
        ("--class", "derived_from_cli"),
        false,
    ),
    q(
        "dash_d_from_cli",
        "policies/eval/cli/dash_D.cf",
        &["-D", "from_cli,other_cli"],
        ("--class", "from_cli"),
        false,
    ),
    q(
        "hard_linux",
        "policies/eval/cli/dash_D.cf",
        &[],
        ("--class", "linux"),
        false,
    ),
    q(
        "cancelled_ck",
        "policies/eval/classbody/cancel_outcomes.cf",
        &[],
        ("--class", "ck"),
        false,
    ),
    q(
        "body_local_l_class",
        "policies/eval/classbody/scope_bundle.cf",
        &[],
        ("--class", "l_class"),
        false,
    ),
    q(
        "callee_local",
        "policies/eval/methods/callee_classes_local.cf",
        &[],
        ("--class", "callee_local"),
        false,
    ),
    q(
        "namespace_nsclass",
        "policies/eval/namespaces/classes_in_namespace.cf",
        &[],
        ("--class", "nsclass"),
        false,
    ),
    q(
        "forms_e",
        "policies/eval/guards/classes_promise_forms.cf",
        &[],
        ("--class", "e"),
        false,
    ),
    // classes not defined: why not
    q("chain_c4_why_not", CHAIN, &[], ("--class", "c4"), true),
    q(
        "forms_and_false_why_not",
        "policies/eval/guards/classes_promise_forms.cf",
        &[],
        ("--class", "a_one_false"),
        true,
    ),
    q(
        "forms_unresolved_why_not",
        "policies/eval/guards/classes_promise_forms.cf",
        &[],
        ("--class", "unresolved_and"),
        true,
    ),
    q(
        "if_expressions_b_why_not",
        "policies/eval/guards/if_expressions.cf",
        &[],
        ("--class", "b"),
        true,
    ),
    q(
        "no_candidate_not_given",
        "policies/eval/cli/dash_D.cf",
        &["-D", "from_cli,other_cli"],
        ("--class", "not_given"),
        true,
    ),
    q(
        "never_called_first_global",
        "policies/eval/scope/agent_classes_local.cf",
        &["-b", "second"],
        ("--class", "first_global"),
        true,
    ),
    q(
        "preeval_rounds_c4_why_not",
        "policies/eval/common/preeval_two_rounds.cf",
        &[],
        ("--class", "c4"),
        true,
    ),
    q(
        "module_not_run_derived",
        "policies/eval/common/henc_pitfall.cf",
        &[],
        ("--class", "derived"),
        true,
    ),
    // names written with variables: iterations, classes bodies with parameters
    q(
        "iteration_role_db_2",
        "policies/eval/iteration/classes_iteration.cf",
        &[],
        ("--class", "role_db_2"),
        false,
    ),
    q(
        "iteration_role_other_why_not",
        "policies/eval/iteration/classes_iteration.cf",
        &[],
        ("--class", "role_other"),
        true,
    ),
    q(
        "body_iteration_done_i3_why_not",
        "policies/eval/classbody/classes_body_on_iteration.cf",
        &[],
        ("--class", "done_i3"),
        true,
    ),
    // variables
    q(
        "vars_per_pass_v",
        "policies/eval/passes/vars_per_pass.cf",
        &[],
        ("--var", "main.v"),
        false,
    ),
    q(
        "redefinition_c",
        "policies/eval/meta/vars_redefinition.cf",
        &[],
        ("--var", "main.c"),
        false,
    ),
    q("guard_false_s4_why_not", CHAIN, &[], ("--var", "s4"), true),
    q(
        "meta_untraced",
        "policies/eval/meta/meta_promises.cf",
        &[],
        ("--var", "other_meta.tags"),
        false,
    ),
    // promises
    q(
        "promise_deferred_report",
        CHAIN,
        &[],
        (
            "--promise",
            "policies/eval/passes/class_chain_three_passes.cf:17",
        ),
        false,
    ),
    q(
        "promise_depends_handle",
        "policies/eval/depends/depends_on_chain.cf",
        &[],
        ("--promise", "h4"),
        true,
    ),
    q(
        "promise_if_false",
        "policies/eval/guards/if_unless_error.cf",
        &[],
        ("--promise", "policies/eval/guards/if_unless_error.cf:9"),
        true,
    ),
    q(
        "promise_never_called",
        "policies/eval/cli/dash_b.cf",
        &[],
        ("--promise", "policies/eval/cli/dash_b.cf:15"),
        true,
    ),
    q(
        "promise_if_whitespace",
        "policies/eval/guards/if_expressions.cf",
        &[],
        ("--promise", "policies/eval/guards/if_expressions.cf:18"),
        true,
    ),
    q(
        "promise_missing_bundle",
        "policies/eval/methods/ignore_missing_bundles.cf",
        &[],
        (
            "--promise",
            "policies/eval/methods/ignore_missing_bundles.cf:11",
        ),
        true,
    ),
    // the hENC demo
    q(
        "henc_ntp_client",
        DEMO,
        &[],
        ("--class", "ntp_client"),
        false,
    ),
    q(
        "henc_time_service",
        DEMO,
        &[],
        ("--class", "time_service"),
        false,
    ),
    q(
        "henc_pitfall_time_service_why_not",
        DEMO,
        &["-b", "classify,pitfall"],
        ("--class", "time_service"),
        true,
    ),
    q(
        "henc_backup_client_why_not",
        DEMO,
        &[],
        ("--class", "backup_client"),
        true,
    ),
    q("henc_role", DEMO, &[], ("--var", "derived.role"), false),
    q("henc_site", DEMO, &[], ("--var", "henc.site"), false),
    q(
        "henc_pitfall_report",
        DEMO,
        &[],
        ("--promise", "policies/henc/demo/promises.cf:23"),
        false,
    ),
    q(
        "henc_summary_backups_if_false",
        DEMO,
        &[],
        ("--promise", "policies/henc/demo/consumers.cf:58"),
        true,
    ),
    // the lessons (policies/lessons): one question each, on the rule the lesson teaches
    q(
        "lesson01_normal_order",
        "policies/lessons/01_normal_order.cf",
        &[],
        ("--class", "greeted"),
        false,
    ),
    q(
        "lesson02_three_passes",
        "policies/lessons/02_three_passes.cf",
        &[],
        ("--var", "main.second"),
        false,
    ),
    q(
        "lesson03_vars_reevaluated",
        "policies/lessons/03_vars_reevaluated.cf",
        &[],
        ("--var", "main.site"),
        false,
    ),
    q(
        "lesson04_classes_retried",
        "policies/lessons/04_classes_retried.cf",
        &[],
        ("--class", "b"),
        false,
    ),
    q(
        "lesson05_common_preevaluation",
        "policies/lessons/05_common_preevaluation.cf",
        &[],
        ("--class", "datacenter_a"),
        false,
    ),
    q(
        "lesson06_methods_scope",
        "policies/lessons/06_methods_scope.cf",
        &[],
        ("--promise", "policies/lessons/06_methods_scope.cf:16"),
        true,
    ),
    q(
        "lesson07_depends_on",
        "policies/lessons/07_depends_on.cf",
        &[],
        ("--promise", "policies/lessons/07_depends_on.cf:12"),
        false,
    ),
    q(
        "lesson08_iteration",
        "policies/lessons/08_iteration.cf",
        &[],
        ("--promise", "policies/lessons/08_iteration.cf:16"),
        false,
    ),
    q(
        "lesson09_common_reevaluation",
        "policies/lessons/09_common_reevaluation.cf",
        &[],
        ("--var", "derived.role"),
        false,
    ),
    Q {
        name: "henc_container_located_why_not",
        policy: DEMO,
        host: CONTAINER,
        flags: &[],
        ask: ("--class", "located"),
        why_not: true,
    },
];

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

fn explain(q: &Q, format: &str) -> Run {
    let mut args = vec!["explain", "-f", q.policy, "--host", q.host];
    args.extend_from_slice(q.flags);
    args.extend_from_slice(&[q.ask.0, q.ask.1, "--format", format]);
    cfsim(&args)
}

/// The trace of `cfsim agent` with the question's flags.
fn trace(q: &Q) -> Vec<Value> {
    let mut args = vec!["agent", "-K", "-f", q.policy, "--host", q.host];
    args.extend_from_slice(q.flags);
    args.extend_from_slice(&["--trace-file", "-"]);
    let r = cfsim(&args);
    assert_eq!(r.code, 0, "{}: agent: {}", q.name, r.stdout);
    r.stdout
        .lines()
        .filter(|l| l.starts_with("{\"version\""))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The trace event with sequence number `seq`.
fn by_seq(trace: &[Value], seq: &Value) -> Value {
    trace
        .iter()
        .find(|e| e["seq"] == *seq)
        .cloned()
        .unwrap_or_else(|| panic!("no event #{seq} in the trace"))
}

/// Whether event `e` names class `class` (`ns:name` or `name`) in `key`.
fn names_class(e: &Value, key: &str, class: &str) -> bool {
    let ns = e["bundle"]
        .as_str()
        .and_then(|b| b.split_once(':'))
        .map_or("default", |(n, _)| n);
    e[key].as_array().into_iter().flatten().any(|c| {
        let c = c.as_str().unwrap_or("");
        let q = if c.contains(':') || ns == "default" {
            c.to_string()
        } else {
            format!("{ns}:{c}")
        };
        q == class
    })
}

/// The trace's events of the promise at `file:line` of `promise_type`.
fn events_at(trace: &[Value], file: &str, line: &Value, ptype: &str) -> Vec<Value> {
    trace
        .iter()
        .filter(|e| e["file"] == file && e["line"] == *line && e["promise_type"] == ptype)
        .cloned()
        .collect()
}

/// A step's event is the trace's, and each class of its chain was set by an earlier event of the
/// trace (the one the answer names).
fn check_step(name: &str, trace: &[Value], step: &Value) {
    let ev = &step["event"];
    assert_eq!(*ev, by_seq(trace, &ev["seq"]), "{name}: step event differs");
    assert_eq!(
        step["site"].as_str().unwrap(),
        format!("{}:{}", ev["file"].as_str().unwrap(), ev["line"]),
        "{name}: site"
    );
    for cond in step["conditions"].as_array().unwrap() {
        for c in cond["classes"].as_array().unwrap() {
            let o = &c["origin"];
            if o["kind"] == "promise" {
                let inner = &o["step"];
                let iev = &inner["event"];
                assert!(
                    iev["seq"].as_u64() < ev["seq"].as_u64(),
                    "{name}: {} set after its use",
                    c["class"]
                );
                assert!(
                    names_class(iev, "classes_set", c["class"].as_str().unwrap()),
                    "{name}: #{} does not set {}",
                    iev["seq"],
                    c["class"]
                );
                check_step(name, trace, inner);
            }
        }
    }
}

/// A candidate's evaluations are the trace's events of that promise.
fn check_candidates(name: &str, trace: &[Value], answer: &Value) {
    for c in answer["candidates"].as_array().unwrap() {
        let evs = events_at(
            trace,
            c["file"].as_str().unwrap(),
            &c["line"],
            c["promise_type"].as_str().unwrap(),
        );
        let mut seqs: Vec<u64> = c["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|a| {
                a["seqs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_u64().unwrap())
            })
            .collect();
        seqs.sort_unstable();
        let want: Vec<u64> = evs.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
        assert_eq!(seqs, want, "{name}: candidate {} evaluations", c["site"]);
        assert_eq!(c["evaluations"].as_u64(), Some(want.len() as u64), "{name}");
        assert_eq!(
            c["reach"].is_null(),
            !want.is_empty(),
            "{name}: reach of {}",
            c["site"]
        );
    }
}

fn check_class(q: &Q, trace: &[Value], a: &Value) {
    let class = a["class"].as_str().unwrap();
    let setters: Vec<&Value> = trace
        .iter()
        .filter(|e| names_class(e, "classes_set", class))
        .collect();
    match a["source"].as_str().unwrap() {
        "policy" => {
            let step = &a["defined_by"];
            let first = setters.first().expect("a setter in the trace");
            assert_eq!(step["event"], **first, "{}: not the first setter", q.name);
            assert_eq!(step["event"]["pass"], first["pass"], "{}: pass", q.name);
            check_step(q.name, trace, step);
            let again: Vec<&Value> = a["defined_again"].as_array().unwrap().iter().collect();
            assert_eq!(again, setters[1..].to_vec(), "{}: defined again", q.name);
            let cancels: Vec<&Value> = trace
                .iter()
                .filter(|e| names_class(e, "classes_cancelled", class))
                .collect();
            let got: Vec<&Value> = a["cancelled_by"].as_array().unwrap().iter().collect();
            assert_eq!(got, cancels, "{}: cancellations", q.name);
        }
        "hard" | "command_line" | "augments" => {
            assert!(setters.is_empty(), "{}: {class} set by the policy", q.name);
        }
        "none" => {
            assert!(
                setters.is_empty(),
                "{}: {class} is set in the trace",
                q.name
            );
            check_candidates(q.name, trace, a);
        }
        other => panic!("{}: source {other}", q.name),
    }
}

fn check_var(q: &Q, trace: &[Value], a: &Value) {
    let var = a["var"].as_str().unwrap();
    let setters: Vec<&Value> = trace
        .iter()
        .filter(|e| e["vars_set"].as_array().unwrap().iter().any(|v| v == var))
        .collect();
    let got: Vec<&Value> = a["assignments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["event"])
        .collect();
    assert_eq!(got, setters, "{}: assignments of {var}", q.name);
    for s in a["assignments"].as_array().unwrap() {
        check_step(q.name, trace, s);
    }
    if a["source"] == "none" {
        check_candidates(q.name, trace, a);
    }
}

fn check_promise(q: &Q, trace: &[Value], a: &Value) {
    let want = events_at(
        trace,
        a["file"].as_str().unwrap(),
        &a["line"],
        a["promise_type"].as_str().unwrap(),
    );
    let got: Vec<Value> = a["evaluations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].clone())
        .collect();
    assert_eq!(got, want, "{}: evaluations", q.name);
    assert_eq!(a["reach"].is_null(), !want.is_empty(), "{}: reach", q.name);
}

/// Whether an answer says "not set / nothing done".
fn is_why_not(a: &Value) -> bool {
    match a["kind"].as_str().unwrap() {
        "class" => a["defined"] == false,
        "var" => a["set"] == false,
        _ => {
            let evs = a["evaluations"].as_array().unwrap();
            evs.is_empty() || evs.iter().all(|e| !e["event"]["skip"].is_null())
        }
    }
}

fn redact(s: &str) -> String {
    s.replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]")
}

#[test]
fn answers_match_their_snapshots_and_the_trace() {
    let mut why_not = 0;
    for q in QUESTIONS {
        let text = explain(q, "text");
        assert_eq!(text.code, 0, "{}: {}{}", q.name, text.stdout, text.stderr);
        assert!(text.stderr.is_empty(), "{}: {}", q.name, text.stderr);
        let j = explain(q, "json");
        assert_eq!(j.code, 0, "{}: {}", q.name, j.stderr);
        let doc: Value = serde_json::from_str(&j.stdout).unwrap();
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["question"]["asked"], q.ask.1);
        let trace = trace(q);
        let answers = doc["answers"].as_array().unwrap();
        assert!(!answers.is_empty(), "{}", q.name);
        for a in answers {
            match a["kind"].as_str().unwrap() {
                "class" => check_class(q, &trace, a),
                "var" => check_var(q, &trace, a),
                "promise" => check_promise(q, &trace, a),
                k => panic!("{}: kind {k}", q.name),
            }
            assert_eq!(is_why_not(a), q.why_not, "{}: why-not", q.name);
        }
        why_not += usize::from(q.why_not);
        // every step cites its promise as FILE:LINE with the file as given or relative
        assert!(
            !text.stdout.contains(env!("CARGO_MANIFEST_DIR")),
            "{}: absolute path",
            q.name
        );
        insta::with_settings!({snapshot_path => "../snapshots/explain", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(q.name, redact(&text.stdout));
        });
    }
    assert!(
        QUESTIONS.len() >= 20 && why_not >= 8,
        "{} questions, {why_not} why-not",
        QUESTIONS.len()
    );
}

#[test]
fn json_answer_shape_is_pinned() {
    let q = QUESTIONS
        .iter()
        .find(|q| q.name == "chain_c4_why_not")
        .unwrap();
    let j = explain(q, "json");
    assert_eq!(j.code, 0);
    insta::with_settings!({snapshot_path => "../snapshots/explain", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("json_chain_c4_why_not", j.stdout);
    });
}

#[test]
fn output_is_deterministic() {
    for q in QUESTIONS.iter().filter(|q| q.policy == DEMO) {
        assert_eq!(
            explain(q, "json").stdout,
            explain(q, "json").stdout,
            "{}",
            q.name
        );
    }
}

#[test]
fn usage_errors_exit_2_with_a_message() {
    let base = ["explain", "-f", CHAIN, "--host", WEB1];
    for (flag, value, says) in [
        (
            "--class",
            "nosuch_class_here",
            "unknown class 'nosuch_class_here'",
        ),
        ("--class", "c-1 x", "is not a class name"),
        ("--var", "main.", "is not a variable name"),
        (
            "--var",
            "nosuch_var_here",
            "unknown variable 'nosuch_var_here'",
        ),
        (
            "--promise",
            "no_such_handle",
            "no promise has the handle 'no_such_handle'",
        ),
        (
            "--promise",
            "policies/eval/passes/class_chain_three_passes.cf:2",
            "no promise at",
        ),
        (
            "--promise",
            "elsewhere.cf:3",
            "is not a file of this policy",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(&[flag, value]);
        let r = cfsim(&args);
        assert_eq!(r.code, 2, "{flag} {value}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{flag} {value}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{flag} {value}: {}", r.stdout);
    }
    // a near name is suggested
    let r = cfsim(&["explain", "-f", CHAIN, "--host", WEB1, "--class", "c5"]);
    assert!(r.stderr.contains("did you mean"), "{}", r.stderr);
    // no question at all is clap's usage error
    assert_eq!(cfsim(&["explain", "-f", CHAIN]).code, 2);
    // a missing host profile
    assert_eq!(
        cfsim(&[
            "explain",
            "-f",
            CHAIN,
            "--host",
            "nosuch.json",
            "--class",
            "c1"
        ])
        .code,
        2
    );
}

#[test]
fn an_invalid_policy_answers_as_cfsim_agent() {
    let e = cfsim(&["explain", "-f", "tests/graph/invalid.cf", "--class", "x"]);
    let a = cfsim(&["agent", "-f", "tests/graph/invalid.cf"]);
    assert_eq!(e.code, 1);
    assert_eq!((e.stdout, e.code), (a.stdout, a.code));
}

#[test]
fn a_bundle_local_class_is_found_by_its_name() {
    let r = cfsim(&[
        "explain", "-f", CHAIN, "--host", WEB1, "--class", "c1", "--format", "json",
    ]);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let a = &doc["answers"][0];
    assert_eq!(a["scope"], "bundle");
    assert_eq!(a["at_end"], false);
    assert_eq!(a["defined_by"]["event"]["line"], 9);
}
