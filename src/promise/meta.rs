//! `meta:` promises: define `<bundle>_meta.<name>` variables (re-evaluated every pass like vars).

use crate::eval::rval::RvalResult;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::Promise;

/// Evaluates one meta promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
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
    let key = (
        def.ns.clone(),
        format!("{}_meta", def.name),
        promiser.to_string(),
    );
    let value = match e.eval_rval(&c.rval) {
        RvalResult::Value { value, .. } => value,
        other => {
            // VerifyVarPromise calls a failed function again while the variable is undefined
            if other == RvalResult::Failed
                && matches!(c.rval, crate::syntax::ast::Rval::Call(_))
                && !e.ctx.vars.contains_key(&key)
            {
                e.replay_failed_calls(&c.rval, 1);
            }
            e.end_event(Some("unresolved"), None);
            return;
        }
    };
    if e.ctx.vars.get(&key).map(|v| &v.value) != Some(&value) {
        e.cur
            .vars_set
            .push(format!("{}:{}.{}", key.0, key.1, key.2));
    }
    e.ctx.set_var(key, value, vec!["source=promise".into()]);
    e.end_event(None, Some(Outcome::Kept));
}
