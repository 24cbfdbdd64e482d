//! Promise types cfsim does not simulate yet (storage,
//! databases, edit_line promise types, guest_environments): each promise that passes its guard and
//! conditions is reported once per run with a warning naming it; nothing happens. A promise of an
//! undefined type gets the agent's error; custom types declared with `promise agent` go to `custom`.

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::Promise;

/// Built-in promise types that are parsed but not simulated.
pub const NOT_SIMULATED: &[&str] = &[
    "storage",
    "databases",
    "guest_environments",
    "delete_lines",
    "field_edits",
    "insert_lines",
    "replace_patterns",
];

/// Reports the promise as not simulated (once per identity); custom types with a `promise agent` block
/// go to [`crate::promise::custom`].
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
    let block = e.promise_types.iter().any(|x| x.0 == t);
    if block && !NOT_SIMULATED.contains(&t) {
        crate::promise::custom::evaluate(e, def, t, p, promiser);
        return;
    }
    if !NOT_SIMULATED.contains(&t) {
        // observed: one error per promise and pass, whatever its guard or conditions
        e.log(LogLevel::Error, &format!("Undefined promise type '{t}'"));
        // recorded: not kept, but not counted in the bundle's accounting
        e.verbose_promise_end(t, promiser, crate::eval::Outcome::Failed);
        e.end_event(Some("undefined_type"), None);
        return;
    }
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let digest = e.digest(def, t, p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    e.log(
        LogLevel::Warning,
        &format!(
            "cfsim: {t} promise '{promiser}' in bundle '{}' is not simulated yet; skipped",
            def.name
        ),
    );
    e.end_event(Some("not_simulated"), None);
}
