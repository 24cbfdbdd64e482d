//! `defaults:` promises: set a bundle variable when it is undefined, or when `if_match_regex` matches its
//! current value.

use crate::eval::rval::RvalResult;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::Promise;
use crate::value::Value;

/// Evaluates one defaults promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let key = (def.ns.clone(), def.name.clone(), promiser.to_string());
    let current = e.ctx.vars.get(&key).map(|v| v.value.clone());
    let apply = match (&current, Engine::constraint(p, "if_match_regex")) {
        (None, _) => true,
        (Some(Value::Scalar(_, s)), Some(rv)) => {
            let re = e.scalar_of(rv).unwrap_or_default();
            regex::Regex::new(&format!("^(?:{re})$")).is_ok_and(|r| r.is_match(s))
        }
        (Some(_), _) => false,
    };
    if e.stage == "pass" {
        // recorded: every defaults promise reports itself kept, applied or not
        e.verbose_promise_end("defaults", promiser, Outcome::Kept);
        if !apply && e.pass == 1 {
            if let Some(c) = e.counts.last_mut() {
                c.kept += 1;
            }
        }
    }
    if !apply {
        e.end_event(None, Some(Outcome::Kept));
        return;
    }
    let Some(c) = p
        .constraints
        .iter()
        .find(|c| crate::promise::vars::TYPES.contains(&c.lval.as_str()))
    else {
        e.end_event(Some("no_value"), None);
        return;
    };
    match e.eval_rval(&c.rval) {
        RvalResult::Value { value, .. } => {
            e.cur
                .vars_set
                .push(format!("{}:{}.{}", key.0, key.1, key.2));
            e.ctx.set_var(key, value, vec!["source=promise".into()]);
            e.end_event(None, Some(Outcome::Repaired));
        }
        other => {
            // the actuator calls a function that failed during expansion once more (recorded)
            if other == RvalResult::Failed {
                e.replay_failed_calls(&c.rval, 1);
            }
            e.end_event(Some("unresolved"), None);
        }
    }
}
