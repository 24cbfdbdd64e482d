//! The expression layer against recordings of the real cf-agent 3.21.0 (`policies/expr/*.expected`,
//! recorded by `tests/oracle/record-expr.sh`): scalar expansion (kept-literal and dropped references),
//! implicit iteration order, and run-time class expressions with their error messages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fncases;

use cfsim::expr::classexpr;
use cfsim::expr::expand::{expand_bound, expand_scalar};
use cfsim::expr::iterate::{bindings, references_of};

fn expected(name: &str) -> fncases::Expected {
    let text =
        std::fs::read_to_string(fncases::expr_dir().join(format!("{name}.expected"))).unwrap();
    fncases::read_expected(&text)
}

fn values_of(exp: &fncases::Expected, id: &str) -> Vec<String> {
    exp.values
        .iter()
        .filter(|(i, _)| i == id)
        .map(|(_, v)| v.clone())
        .collect()
}

fn check_errors(name: &str, exp: &fncases::Expected, ours: &[String], failures: &mut Vec<String>) {
    for e in &exp.errors {
        if !ours.contains(e) {
            failures.push(format!("{name}: cf-agent logged `{e}`, cfsim did not"));
        }
    }
    for e in ours {
        if !exp.errors.contains(e) {
            failures.push(format!("{name}: cfsim logged `{e}`, cf-agent did not"));
        }
    }
}

#[test]
fn expansion_matches_the_agent() {
    let file = fncases::read_cases_in(&fncases::expr_dir(), "expansion").unwrap();
    let exp = expected("expansion");
    let mut failures = Vec::new();
    let mut errors = Vec::new();
    for (n, (_, text)) in file.exprs.iter().enumerate() {
        let id = format!("e{}", n + 1);
        let e = expand_scalar(text, &file.env);
        errors.extend(e.errors.iter().cloned());
        let got: Vec<String> = if e.dropped {
            vec![]
        } else {
            vec![e.text.clone()]
        };
        let want = values_of(&exp, &id);
        if got != want {
            failures.push(format!("{id} `{text}`: cfsim {got:?}, cf-agent {want:?}"));
        }
    }
    errors.dedup();
    check_errors("expansion", &exp, &errors, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn iteration_matches_the_agent() {
    let file = fncases::read_cases_in(&fncases::expr_dir(), "iteration").unwrap();
    let exp = expected("iteration");
    let mut failures = Vec::new();
    for (n, (_, text)) in file.exprs.iter().enumerate() {
        let id = format!("i{}", n + 1);
        let mut got: Vec<String> = Vec::new();
        for b in bindings(&references_of(&[text.as_str()]), &file.env, usize::MAX).unwrap() {
            let e = expand_bound(text, &file.env, &b);
            if !e.dropped && !got.contains(&e.text) {
                got.push(e.text);
            }
        }
        let want = values_of(&exp, &id);
        if got != want {
            failures.push(format!("{id} `{text}`: cfsim {got:?}, cf-agent {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn class_expressions_match_the_agent() {
    let file = fncases::read_cases_in(&fncases::expr_dir(), "classexpr").unwrap();
    let exp = expected("classexpr");
    let mut failures = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    for (n, (_, text)) in file.exprs.iter().enumerate() {
        let id = format!("x{}", n + 1);
        let got = match classexpr::eval_str(text, &file.env) {
            Ok(b) => b.to_string(),
            Err(e) => {
                if !errors.contains(&e.to_string()) {
                    errors.push(e.to_string());
                }
                "false".to_string()
            }
        };
        let want = values_of(&exp, &id);
        if vec![got.clone()] != want {
            failures.push(format!("{id} `{text}`: cfsim {got:?}, cf-agent {want:?}"));
        }
    }
    check_errors("classexpr", &exp, &errors, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
