//! `packages:` promises on the host profile's package database ([`crate::host::packages`]): the 3.21
//! `package_module` style ([`module`], spec §5.1) and the legacy `package_method` bodies ([`legacy`],
//! §5.2). Neither a package module nor a legacy package command is ever run: the inventory answers
//! for them. Outputs, outcome classes and the `--simulate` records follow the recordings in
//! `policies/packages/`.

pub mod legacy;
pub mod module;

use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::Promise;

/// Evaluates one packages promise binding: a promise with a `policy` attribute is a package_module
/// one, every other a legacy one (recorded: `package_module` without `policy` is an "old package
/// promise" and fails its sanity check).
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let legacy = Engine::constraint(p, "policy").is_none();
    // the legacy sanity checks run before the promise lock: their errors repeat every pass (recorded);
    // -v shows no promise begin for them, only its end (recorded: packages/lg-verify/verbose.out)
    if legacy && !legacy::sane(e, def, p) {
        e.record_outcome(def, p, crate::eval::Outcome::Failed);
        e.verbose_promise_end("packages", promiser, crate::eval::Outcome::Failed);
        e.end_event(None, Some(crate::eval::Outcome::Failed));
        return;
    }
    // -v: the agent begins the promise every pass, before its lock (recorded: packages/*/verbose.out)
    e.verbose_promise_begin(def, "packages", p, promiser);
    let digest = e.digest(def, "packages", p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    let outcome = if legacy {
        legacy::evaluate(e, def, p, promiser)
    } else {
        module::evaluate(e, def, p, promiser)
    };
    // a scheduled legacy action ends as repaired now; its outcome comes when the schedule runs
    // (recorded: packages/lg-add-missing/verbose.out)
    e.verbose_promise_end(
        "packages",
        promiser,
        outcome.unwrap_or(crate::eval::Outcome::Repaired),
    );
    e.end_event(None, outcome);
}

/// A scalar attribute of the promise, expanded.
fn attr(e: &mut Engine<'_>, p: &Promise, lval: &str) -> Option<String> {
    let rv = Engine::constraint(p, lval)?;
    e.scalar_of(rv)
}
