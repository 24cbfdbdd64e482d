//! Bad input never panics: every implemented function is called with 0 to 6 arguments drawn from
//! awkward values (empty, huge, non-ASCII, invalid regex/JSON, lists, data, out-of-range numbers) on an
//! in-memory host, and must return a value or a logged failure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cfsim::expr::host::MemHost;
use cfsim::expr::memenv::MemEnv;
use cfsim::functions::{call, table, CallCtx, CallOutcome, FnArg};
use cfsim::value::{ListKind, Value};

fn awkward() -> Vec<FnArg> {
    let huge = "é(x%99s".repeat(4_000);
    vec![
        FnArg::str(""),
        FnArg::str("x"),
        FnArg::str("("),
        FnArg::str("{bad json"),
        FnArg::str("-1"),
        FnArg::str("99999999999999999999"),
        FnArg::str(huge),
        FnArg::str("日本語 $(nosuch) @(l)"),
        FnArg {
            value: Value::List(ListKind::Slist, vec!["a".into(), "".into(), "é".into()]),
            naked: Some("l".into()),
        },
        FnArg {
            value: Value::Data(serde_json::json!({"k": [1, null, {"z": true}], "": ""})),
            naked: None,
        },
    ]
}

#[test]
fn no_function_panics_on_awkward_arguments() {
    let host = MemHost::default();
    let vals = awkward();
    let mut calls = 0;
    for def in table() {
        let started = std::time::Instant::now();
        for n in 0..=6usize {
            for (k, _) in vals.iter().enumerate() {
                let args: Vec<FnArg> = (0..n).map(|j| vals[(k + j) % vals.len()].clone()).collect();
                let mut env = MemEnv::new("main");
                env.set("l", Value::List(ListKind::Slist, vec!["a".into()]));
                let mut ctx = CallCtx::new(&mut env, &host);
                let out = call(&mut ctx, def.name, &args);
                assert!(
                    !matches!(out, CallOutcome::Unknown | CallOutcome::NotImplemented),
                    "{} is in the table but not callable",
                    def.name
                );
                calls += 1;
            }
        }
        let took = started.elapsed();
        if took.as_millis() > 500 {
            eprintln!("slow: {} {:?}", def.name, took);
        }
    }
    assert!(calls > 1000);
}

#[test]
fn table_names_are_unique_and_known_to_3_21() {
    let mut names: Vec<&str> = table().map(|d| d.name).collect();
    let n = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(n, names.len(), "duplicate function in the table");
    for name in names {
        assert!(
            cfsim::syntax::tables::function(name).is_some(),
            "{name} is not a 3.21 function"
        );
    }
    assert!(n >= 150, "only {n} functions implemented");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let env = MemEnv::new("main");
    let deep = format!("{}a{}", "(".repeat(100_000), ")".repeat(100_000));
    assert!(cfsim::expr::classexpr::eval_str(&deep, &env).is_err());
    let minus = format!("{}1", "-".repeat(100_000));
    assert_eq!(cfsim::functions::math::eval_math(&minus), None);
    let refs = format!("{}x{}", "$(".repeat(10_000), ")".repeat(10_000));
    let e = cfsim::expr::expand_scalar(&refs, &env);
    assert!(e.unresolved);
}

#[test]
fn huge_inputs_are_handled() {
    let host = MemHost::default();
    let mut env = MemEnv::new("main");
    let big = "a.b c".repeat(200_000);
    let mut ctx = CallCtx::new(&mut env, &host);
    match call(&mut ctx, "canonify", &[FnArg::str(big.clone())]) {
        CallOutcome::Value(v) => assert_eq!(v.as_scalar().map(str::len), Some(big.len())),
        other => panic!("canonify: {other:?}"),
    }
    match call(
        &mut ctx,
        "string_split",
        &[FnArg::str(big), FnArg::str(""), FnArg::str("99999999999")],
    ) {
        CallOutcome::Value(Value::List(_, items)) => {
            assert_eq!(items.len(), cfsim::functions::MAX_ELEMENTS)
        }
        other => panic!("string_split: {other:?}"),
    }
}

#[test]
fn every_missing_function_has_a_reason() {
    for spec in cfsim::syntax::tables::functions() {
        let implemented = cfsim::functions::lookup(spec.name).is_some();
        let listed = cfsim::functions::NOT_IMPLEMENTED
            .iter()
            .any(|(n, _)| *n == spec.name);
        assert!(
            implemented != listed,
            "{}: implemented={implemented}, listed as missing={listed}",
            spec.name
        );
    }
}
