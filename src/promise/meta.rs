//! `meta:` promises: define `<bundle>_meta.<name>` variables (re-evaluated every pass like vars). In a
//! pass the agent says `V: Computing value`, verifies the promise, reports it kept (even when its value
//! does not resolve), then verifies it once more: classes bodies apply twice and the promise is audited
//! twice (recorded: meta/meta_promises, order/sections_out_of_order).

use crate::eval::rval::RvalResult;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::Promise;

/// Evaluates one meta promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    // an edit bundle's meta promises are not promises of the edit: -v shows nothing for them and
    // they are not counted (recorded: files/std-set-config-values/verbose.out)
    if e.stage != "pass" || def.is_edit_line() {
        let (skip, outcome) = set_meta(e, def, p, promiser);
        e.end_event(skip, outcome);
        return;
    }
    if e.verbose_on() {
        e.log(
            crate::eval::output::LogLevel::Verbose,
            &format!("V:     Computing value of '{promiser}'"),
        );
    }
    let (skip, outcome) = set_meta(e, def, p, promiser);
    e.verbose_promise_end("meta", promiser, Outcome::Kept);
    let before = e.cur.classes_set.len();
    let _ = set_meta(e, def, p, promiser);
    crate::promise::vars::dedup_tail(&mut e.cur.classes_set, before);
    if let Some(c) = e.counts.last_mut() {
        c.kept += 2;
    }
    e.end_event(skip, outcome);
}

/// One verification: evaluates and stores the value, applies the classes body.
fn set_meta(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    promiser: &str,
) -> (Option<&'static str>, Option<Outcome>) {
    let Some(c) = p
        .constraints
        .iter()
        .find(|c| crate::promise::vars::TYPES.contains(&c.lval.as_str()))
    else {
        return (Some("no_value"), None);
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
            return (Some("unresolved"), None);
        }
    };
    if e.ctx.vars.get(&key).map(|v| &v.value) != Some(&value) {
        e.cur
            .vars_set
            .push(format!("{}:{}.{}", key.0, key.1, key.2));
    }
    e.ctx.set_var(key, value, vec!["source=promise".into()]);
    e.apply_classes_body(def, p, Outcome::Kept);
    (None, Some(Outcome::Kept))
}
