//! Regression tests of what the fuzz targets found (docs/fuzzing.md, "Findings"): each input ends
//! quickly, within bounded memory, with the limit's message. The agent runs go through `sh -c
//! 'ulimit -v …'` so that a regression fails with an allocation error instead of exhausting the
//! machine. (The YAML findings are unit tests in src/yaml.rs.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use cfsim::expr::host::MemHost;
use cfsim::expr::memenv::MemEnv;
use cfsim::functions::cache::FnCache;
use cfsim::functions::callexpr::{eval_call, parse_call};
use cfsim::functions::{CallCtx, Level};
use cfsim::value::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cfsim agent -f tests/hostile/POLICY ARGS` under a 2 GiB address-space limit: (exit code, stdout).
fn agent_limited(policy: &str, args: &[&str]) -> (Option<i32>, String) {
    let start = Instant::now();
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(r#"ulimit -v 2097152 || exit 99; exec "$@""#)
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f", policy])
        .args(["--host", "../../policies/hosts/web1-oslo-debian.json"])
        .args(args)
        .current_dir(root().join("tests/hostile"))
        .output()
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(120),
        "{policy}: {:?}",
        start.elapsed()
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn branching_recursion_stops_at_the_bundle_call_limit_in_bounded_memory() {
    let (code, out) = agent_limited("./branching_recursion.cf", &["--max-bundle-calls", "3000"]);
    assert_eq!(code, Some(3), "{}", &out[out.len().saturating_sub(400)..]);
    let msg = "error: cfsim: more than 3000 bundle calls in this run (--max-bundle-calls); not calling 'b' nor any bundle after it";
    assert_eq!(
        out.matches(msg).count(),
        1,
        "{}",
        &out[..out.len().min(400)]
    );
}

#[test]
fn string_replace_refuses_a_result_larger_than_the_limit() {
    let (code, out) = agent_limited("./string_replace_product.cf", &[]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("error: cfsim: string_replace would build a string of "),
        "{out}"
    );
}

/// Evaluates `call` with `l` a 3-element list and `s` a 1 MiB string; returns the error messages.
fn errors_of(call: &str) -> Vec<String> {
    let mut env = MemEnv::new("main");
    env.set("l", Value::slist(vec!["a".into(), "b".into(), "c".into()]));
    env.set("s", Value::str("a".repeat(1 << 20)));
    let host = MemHost::default();
    let mut ctx = CallCtx::new(&mut env, &host);
    let start = Instant::now();
    let _ = eval_call(
        &mut ctx,
        &parse_call(call).unwrap(),
        &mut FnCache::default(),
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{call}: {:?}",
        start.elapsed()
    );
    ctx.log
        .iter()
        .filter(|l| l.level == Level::Error)
        .map(|l| l.message.clone())
        .collect()
}

#[test]
fn function_results_that_multiply_their_inputs_are_bounded() {
    // 2^20 matches, each replaced by 1 MiB: 1 TiB
    let e = errors_of(r#"string_replace("$(s)", "a", "$(s)")"#);
    assert!(
        e.iter()
            .any(|m| m.contains("string_replace would build a string of 1099511627776 bytes")),
        "{e:?}"
    );
    let e = errors_of(r#"regex_replace("$(s)", "a", "$(s)", "g")"#);
    assert!(
        e.iter()
            .any(|m| m.contains("regex_replace would build a string of more than")),
        "{e:?}"
    );
    // 3^40 section renderings
    let t = format!("{}x{}", "{{#l}}".repeat(40), "{{/l}}".repeat(40));
    let e = errors_of(&format!(
        r#"string_mustache("{t}", parsejson('{{"l": [1, 2, 3]}}'))"#
    ));
    assert!(
        e.iter()
            .any(|m| m.contains("Mustache rendering larger than")),
        "{e:?}"
    );
    // within the limits, as before
    assert!(errors_of(r#"string_replace("abc", "b", "xx")"#).is_empty());
}

#[test]
fn a_doubling_bundle_argument_stops_at_the_value_limit() {
    let (code, out) = agent_limited("./doubling_argument.cf", &["--max-value-bytes", "1000000"]);
    assert_eq!(code, Some(3), "{}", &out[out.len().saturating_sub(400)..]);
    assert!(
        out.contains("error: cfsim: argument 1 of the call of 'b' is 1310719 bytes, more than the limit of 1000000 (--max-value-bytes); not calling it"),
        "{}",
        &out[..out.len().min(600)]
    );
}

#[test]
fn datastate_holding_earlier_states_stops_at_the_list_limit() {
    let (code, out) = agent_limited("./datastate_doubling.cf", &["--max-list-length", "100000"]);
    assert_eq!(code, Some(3), "{}", &out[out.len().saturating_sub(400)..]);
    assert!(
        out.contains(
            "error: cfsim: datastate() would hold more than 100000 values (--max-list-length)"
        ),
        "{}",
        &out[..out.len().min(600)]
    );
    assert!(out.contains("R: done"), "{out}");
}

/// Fuzz finding 9: every value within its own limits, but the run's values add up without bound
/// (self-referencing lists, a bundlestate() per element holding the earlier ones): the run-wide budget
/// refuses later calls and assignments with one error line per engine, exit code 3.
#[test]
fn self_growing_states_stop_at_the_total_value_budget() {
    let (code, out) = agent_limited(
        "./self_growing_states.cf",
        &["--max-total-values", "1000000"],
    );
    assert_eq!(code, Some(3), "{}", &out[out.len().saturating_sub(400)..]);
    let said = out
        .lines()
        .filter(|l| {
            l.contains("the run's values add up to more than the limit (--max-total-values)")
        })
        .count();
    // said once by cf-promises' pre-evaluation (passed on by the agent) and once by the agent's own
    assert_eq!(said, 2, "{}", &out[..out.len().min(800)]);
    // with a small list limit the lists stop growing early: the run stays within the budget (the list
    // limit is what it reports) and reaches its report
    let (code, out) = agent_limited(
        "./self_growing_states.cf",
        &["--max-total-values", "1000000", "--max-list-length", "20"],
    );
    assert!(code == Some(3) && out.contains("R: web295382"), "{out}");
    assert!(!out.contains("--max-total-values"), "{out}");
}

/// An empty token in an inline JSON argument (`some("@(l)", '{"": {"list": [}}')`) names no variable,
/// even when an array named "" exists: the parser looked it up, found it, consumed nothing and looped
/// (functions target, seed 7003; tests/hostile/empty_array_name_json.cf). The output is cf-agent's.
#[test]
fn an_empty_json_token_is_not_a_variable_name() {
    let (code, out) = agent_limited("./empty_array_name_json.cf", &[]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(out, "R: n=1\n");
}

/// An int variable given `"@(list)"` (found while following finding 10 up): the agent prints its
/// list's address as text where it fails to parse the number, garbage that differs on every run; cfsim
/// prints the text it was given (the one place it departs from the agent here), then stops with the
/// agent's FatalError, exit 1 (its lines as in the recording eval/scope/string_from_list_fatal).
#[test]
fn an_int_from_a_list_names_the_text_not_the_agents_garbage() {
    let (code, out) = agent_limited("./number_from_list.cf", &[]);
    assert_eq!(code, Some(1), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    // cf-promises' two rounds and the agent's first: the text, never bytes of an address
    assert_eq!(
        lines
            .iter()
            .filter(|l| **l == "   error: Failed to parse integer number: @(l2)")
            .count(),
        3,
        "{out}"
    );
    assert_eq!(
        lines.get(3..),
        Some(
            &[
                "   error: ./number_from_list.cf:0:0: In attribute 'int', Attempted to give a list to a non-list type. Given attribute value ' {\"a\",\"b\"}'",
                "   error: Fatal CFEngine error: Cannot continue",
            ][..]
        ),
        "{out}"
    );
}
