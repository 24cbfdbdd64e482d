//! Table-driven tests of the built-in functions: every case of `policies/functions/<family>.cases` is
//! evaluated by cfsim and compared with what the real cf-agent 3.21.0 reported for it
//! (`<family>.expected`, recorded by `tests/oracle/record-functions.sh`). Errors the agent logged must
//! be logged by cfsim too (same message text).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fncases;

use cfsim::expr::localhost::LocalHost;
use cfsim::functions::cache::FnCache;

/// The first function called in `call` that cfsim does not implement.
fn unimplemented_in(call: &str) -> Option<String> {
    fn walk(c: &cfsim::functions::callexpr::CallExpr) -> Option<String> {
        if cfsim::functions::lookup(&c.name).is_none() {
            return Some(c.name.clone());
        }
        c.args.iter().find_map(|a| match a {
            cfsim::functions::callexpr::CallArg::Call(inner) => walk(inner),
            _ => None,
        })
    }
    walk(&cfsim::functions::callexpr::parse_call(call).ok()?)
}

/// `(family, case id)` pairs listed in `known-divergences.txt`.
fn known_divergences() -> Vec<(String, String)> {
    let text =
        std::fs::read_to_string(fncases::dir().join("known-divergences.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.to_string(), it.next()?.to_string()))
        })
        .collect()
}

fn check_family(family: &str) {
    let known = known_divergences();
    let mut file = fncases::read_cases(family).unwrap();
    let expected_text =
        std::fs::read_to_string(fncases::dir().join(format!("{family}.expected"))).unwrap();
    let expected = fncases::read_expected(&expected_text);
    let host = fncases::TestHost(LocalHost::new());
    let mut cache = FnCache::default();
    let mut failures = Vec::new();
    let mut our_errors: Vec<String> = Vec::new();
    for case in &file.cases {
        if let Some(missing) = unimplemented_in(&case.call) {
            eprintln!(
                "{family} {}: `{missing}` is not implemented; recorded value kept for later",
                case.id
            );
            continue;
        }
        let (got, mut errors) = fncases::evaluate(&mut file.env, &host, &mut cache, case);
        errors.extend(fncases::promises_errors(
            &mut file.env,
            &host,
            &mut cache,
            case,
        ));
        for e in errors {
            if !our_errors.contains(&e) {
                our_errors.push(e);
            }
        }
        let want = expected
            .values
            .iter()
            .find(|(id, _)| id == &case.id)
            .map(|(_, v)| v.clone());
        let unresolved = format!("$({})", case.id);
        let want = match want {
            Some(v) if v == unresolved || v == "$(with)" => None,
            other => other,
        };
        let listed = known.iter().any(|(f, id)| f == family && id == &case.id);
        if got != want && !listed {
            failures.push(format!(
                "{} {}: cfsim {:?}, cf-agent {:?}",
                case.id, case.call, got, want
            ));
        }
        if got == want && listed {
            failures.push(format!(
                "{} now matches cf-agent: remove it from known-divergences.txt",
                case.id
            ));
        }
    }
    for e in &expected.errors {
        if !our_errors.contains(e) {
            failures.push(format!(
                "cf-agent logged `{e}`, cfsim did not (cfsim: {our_errors:?})"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{family}: {} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_family_has_a_recording() {
    let fams = fncases::families();
    assert!(!fams.is_empty());
    for f in fams {
        assert!(
            fncases::dir().join(format!("{f}.expected")).is_file(),
            "{f}.expected missing: run tests/oracle/record-functions.sh {f}"
        );
    }
}

macro_rules! family_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check_family(stringify!($name)); })*
        #[test]
        fn all_families_are_tested() {
            let listed = [$(stringify!($name)),*];
            for f in fncases::families() {
                assert!(listed.contains(&f.as_str()), "family {f} has no test: add it to family_tests!");
            }
        }
    };
}

family_tests!(
    strings, lists, system, regex, data, files, readers, math, time, net, mustache, misc,
    inventory, classes, vars, yaml, edges, module, pcre, corners
);

#[test]
fn splayclass_slots_match_the_agent() {
    let text = std::fs::read_to_string(fncases::dir().join("splayclass.expected")).unwrap();
    let cf = std::fs::read_to_string(fncases::dir().join("splayclass.cf")).unwrap();
    let mut checked = 0;
    for line in text.lines() {
        // Computed context for 'alpha' splayclass: 'Min30_35'
        let arg = line.split('\'').nth(1).unwrap();
        let class = line.split('\'').nth(3).unwrap();
        let hourly = !class.contains(".Hr");
        assert!(cf.contains(&format!("splayclass(\"{arg}\"")));
        assert_eq!(
            cfsim::functions::classes::splay_class_name(arg, hourly),
            class,
            "{line}"
        );
        checked += 1;
    }
    assert!(checked >= 6);
}
