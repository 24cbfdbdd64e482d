//! Promise types cfsim does not simulate yet (files, packages, services, processes, users, storage,
//! databases, edit_line promise types, guest_environments) and custom promise types: each promise that
//! passes its guard and conditions is reported once per run with a warning naming it; nothing happens.

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::Promise;

/// Built-in promise types that are parsed but not simulated.
pub const NOT_SIMULATED: &[&str] = &[
    "files",
    "packages",
    "services",
    "processes",
    "users",
    "storage",
    "databases",
    "guest_environments",
    "delete_lines",
    "field_edits",
    "insert_lines",
    "replace_patterns",
];

/// Reports the promise as not simulated (once per identity).
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
    if !NOT_SIMULATED.contains(&t) && !e.promise_types.iter().any(|x| x == t) {
        // observed: one error per promise and pass, whatever its guard or conditions
        e.log(LogLevel::Error, &format!("Undefined promise type '{t}'"));
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
    let what = if NOT_SIMULATED.contains(&t) {
        "is not simulated yet"
    } else {
        "has a custom promise type, which cfsim does not simulate"
    };
    e.log(
        LogLevel::Warning,
        &format!(
            "cfsim: {t} promise '{promiser}' in bundle '{}' {what}; skipped",
            def.name
        ),
    );
    e.end_event(Some("not_simulated"), None);
}
