//! `reports:` promises: `R: <text>` once per identity; text still holding `$(…)` waits for pass 3 and is
//! then printed literally; `bundle_return_value_index` stores the text for the caller's `useresult`.

use crate::eval::{BundleDef, Engine, Outcome};
use crate::expr::expand::has_reference;
use crate::syntax::ast::Promise;

/// Evaluates one reports promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str, _unres: bool) {
    if has_reference(promiser) && e.pass < 3 {
        e.end_event(Some("deferred"), None);
        return;
    }
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let digest = e.digest(def, "reports", p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    e.verbose_promise_begin(def, "reports", p, promiser);
    if let Some(rv) = Engine::constraint(p, "bundle_return_value_index") {
        let k = e.scalar_of(rv).unwrap_or_default();
        e.ctx.set_var(
            (
                def.ns.clone(),
                def.name.clone(),
                format!("last-result[{k}]"),
            ),
            crate::value::Value::str(promiser),
            vec!["source=bundle".into()],
        );
        if let Some(r) = e.results.last_mut() {
            r.push((k, promiser.to_string()));
        }
    } else if e.opts.dry_run {
        e.log(
            crate::eval::output::LogLevel::Warning,
            &format!("Need to repair reports promise: {promiser}"),
        );
    } else {
        e.out.raw(format!("R: {promiser}"));
    }
    e.record_outcome(def, p, Outcome::Kept);
    e.verbose_promise_end("reports", promiser, Outcome::Kept);
    e.end_event(None, Some(Outcome::Kept));
}
