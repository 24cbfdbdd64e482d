//! Argument checks against `policies/functions/arity.expected`, recorded from `cf-promises -c` by
//! `tests/oracle/record-arity.sh`: for every call the agent rejects, cfsim must fail the call with the
//! same error messages (lines about the enclosing promise and syntax errors belong to the parser).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fncases;

use cfsim::expr::localhost::LocalHost;
use cfsim::expr::memenv::MemEnv;
use cfsim::functions::cache::FnCache;
use cfsim::functions::callexpr::{eval_call, parse_call, EvalOutcome};
use cfsim::functions::{CallCtx, Level};

#[test]
fn argument_errors_match_cf_promises() {
    let text = std::fs::read_to_string(fncases::dir().join("arity.expected")).unwrap();
    let host = LocalHost::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for block in text.split("== ").skip(1) {
        let mut lines = block.lines();
        let call = lines.next().unwrap().to_string();
        let rest: Vec<&str> = lines.collect();
        let rejected = rest.last() != Some(&"exit 0");
        let parser_level = rest
            .iter()
            .any(|l| l.contains("Function does not return the required type"));
        if parser_level {
            continue;
        }
        let want: Vec<String> = rest
            .iter()
            .filter_map(|l| l.trim_start().strip_prefix("error: "))
            .filter(|m| !m.starts_with("Promise belongs to bundle"))
            .map(str::to_string)
            .collect();
        let mut env = MemEnv::new("main");
        let mut ctx = CallCtx::new(&mut env, &host);
        let parsed = parse_call(&call).unwrap();
        let out = eval_call(&mut ctx, &parsed, &mut FnCache::default());
        let got: Vec<String> = ctx
            .log
            .iter()
            .filter(|l| l.level == Level::Error)
            .map(|l| l.message.clone())
            .collect();
        checked += 1;
        if rejected && (out != EvalOutcome::Failed || got != want) {
            failures.push(format!(
                "{call}: cfsim {out:?} {got:?}, cf-promises {want:?}"
            ));
        }
        if !rejected && !matches!(out, EvalOutcome::Failed | EvalOutcome::Value(_)) {
            failures.push(format!("{call}: accepted by cf-promises, cfsim {out:?}"));
        }
    }
    assert!(checked > 10, "arity.expected has too few cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
