//! The per-binding memo of function calls (`eval::expansion::FnMemo`) is keyed by the call's address;
//! a call of a resolved body is a temporary copy whose address a later temporary may reuse once it is
//! freed. A memo entry made for another call at the same address must not answer: the result is the
//! call's own. (Found by `policies/processes/select-times`, where the `process_count` body's `irange`
//! took the `process_select` body's range once the allocator reused the address.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cfsim::eval::expansion::FnMemo;
use cfsim::eval::output::LogLevel;
use cfsim::eval::rval::RvalResult;
use cfsim::eval::setup::ClassOptions;
use cfsim::eval::RunOptions;
use cfsim::host::hard_classes::Component;
use cfsim::syntax::ast::{Call, Quote, Rval, Scalar};
use cfsim::value::Value;

fn call(name: &str, arg: &str, at: usize) -> Call {
    Call {
        name: name.into(),
        args: vec![Rval::Scalar(Scalar {
            value: arg.into(),
            quote: Quote::Double,
            span: cfsim::source::Span::new(at, at + 3),
        })],
        span: cfsim::source::Span::new(at, at + 10),
    }
}

fn text(r: &RvalResult) -> String {
    match r {
        RvalResult::Value { value, .. } => value.as_scalar().unwrap_or_default().to_string(),
        other => format!("{other:?}"),
    }
}

#[test]
fn a_memo_entry_of_another_call_at_the_same_address_is_not_used() {
    let dir = std::env::temp_dir().join(format!("cfsim-fnmemo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("p.cf");
    std::fs::write(&f, "bundle agent main { reports: \"x\"; }\n").unwrap();
    let p = cfsim::sim::Policy::load(&f.to_string_lossy()).unwrap();
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let host = cfsim::host::load_host(
        &root
            .join("policies/hosts/web1-oslo-debian.json")
            .to_string_lossy(),
    )
    .unwrap();
    let mut e = p
        .engine(
            &host,
            Component::Agent,
            &ClassOptions::default(),
            LogLevel::Notice,
            RunOptions::default(),
        )
        .unwrap();
    let b = call("concat", "b", 40);
    // what the memo holds when an earlier temporary `concat("a")` lived at b's address
    let mut memo = FnMemo::default();
    memo.insert(
        std::ptr::from_ref(&b) as usize,
        (
            call("concat", "a", 20),
            RvalResult::Value {
                value: Value::str("a"),
                unresolved: false,
            },
            Vec::new(),
        ),
    );
    e.fn_memo = Some(memo);
    assert_eq!(text(&e.call_function(&b)), "b");
    // the call's own entry answers (its result is now remembered)
    e.fn_memo
        .as_mut()
        .unwrap()
        .get_mut(&(std::ptr::from_ref(&b) as usize))
        .unwrap()
        .1 = RvalResult::Value {
        value: Value::str("remembered"),
        unresolved: false,
    };
    assert_eq!(text(&e.call_function(&b)), "remembered");
    let _ = std::fs::remove_dir_all(&dir);
}
