//! `defaults:` promises: (re)set a bundle variable when it is undefined, when a scalar's value matches
//! `if_match_regex`, when a list has no `if_match_regex` or one of its elements matches it, and always for
//! data containers (the agent's DefaultVarPromise). An applied default counts as a kept promise.

use crate::eval::rval::RvalResult;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::Promise;
use crate::value::Value;

/// `if_match_regex`: the agent's full match (PCRE, the first match spans the value).
fn full_match(re: &str, s: &str) -> bool {
    crate::pcre::string_match_full(re, s)
}

/// Whether the default replaces `current` (`None`: undefined).
fn applies(current: Option<&Value>, regex: Option<&str>) -> bool {
    match (current, regex) {
        (None, _) => true,
        (Some(Value::Scalar(_, s)), Some(re)) => full_match(re, s),
        (Some(Value::Scalar(..)), None) => false,
        (Some(Value::List(_, items)), Some(re)) => items.iter().any(|i| full_match(re, i)),
        (Some(Value::List(..)), None) => true,
        (Some(_), _) => true,
    }
}

/// Evaluates one defaults promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let key = (def.ns.clone(), def.name.clone(), promiser.to_string());
    let current = e.ctx.vars.get(&key).map(|v| v.value.clone());
    let regex = match Engine::constraint(p, "if_match_regex") {
        Some(rv) => e.scalar_of(rv),
        None => None,
    };
    let apply = applies(current.as_ref(), regex.as_deref());
    let mut outcome = (None, Some(Outcome::Kept));
    if apply {
        let c = p
            .constraints
            .iter()
            .find(|c| crate::promise::vars::TYPES.contains(&c.lval.as_str()));
        let value = c.map(|c| (e.eval_rval(&c.rval), &c.rval));
        outcome = match value {
            None => (Some("no_value"), None),
            Some((RvalResult::Value { value, .. }, _)) => {
                e.cur
                    .vars_set
                    .push(format!("{}:{}.{}", key.0, key.1, key.2));
                e.ctx.set_var(key, value, vec!["source=promise".into()]);
                e.apply_classes_body(def, p, Outcome::Kept);
                // the agent audits an applied default as a kept promise, in passes and in the
                // resolution after the classes section alike (recorded: meta/defaults_promises)
                if let Some(c) = e.counts.last_mut() {
                    c.kept += 1;
                }
                (None, Some(Outcome::Repaired))
            }
            Some((other, rv)) => {
                // the actuator calls a function that failed during expansion once more (recorded)
                if other == RvalResult::Failed {
                    e.replay_failed_calls(rv, 1);
                }
                (Some("unresolved"), None)
            }
        };
    }
    if e.stage == "pass" {
        // recorded: every defaults promise reports itself kept in a pass, applied or not
        e.verbose_promise_end("defaults", promiser, Outcome::Kept);
    }
    e.end_event(outcome.0, outcome.1);
}

#[cfg(test)]
mod tests {
    use super::applies;
    use crate::value::Value;

    #[test]
    fn when_a_default_applies() {
        assert!(applies(None, None));
        assert!(!applies(Some(&Value::str("given")), None));
        assert!(applies(Some(&Value::str("")), Some("^$")));
        assert!(!applies(Some(&Value::str("keep me")), Some("^$")));
        // lists are re-defaulted every time unless no element matches the regex (recorded)
        assert!(applies(Some(&Value::slist(vec!["x".into()])), None));
        assert!(!applies(Some(&Value::slist(vec!["x".into()])), Some("y")));
    }
}
