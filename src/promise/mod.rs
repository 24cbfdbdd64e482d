//! Promise types: one file per simulated type (`vars`, `classes`, `reports`, `methods`, `commands`,
//! `meta`, `defaults`, `files`, `packages`, `users`, `services`, `processes`) and `unsimulated` for
//! the types not simulated yet and
//! custom promise types. [`evaluate`] dispatches one expanded promise (one iteration binding).

pub mod classes;
pub mod commands;
pub mod custom;
pub mod defaults;
pub mod files;
pub mod meta;
pub mod methods;
pub mod packages;
pub mod processes;
pub mod reports;
pub mod services;
pub mod unsimulated;
pub mod users;
pub mod vars;

use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::Promise;

/// Evaluates one promise for the current binding; `promiser` is already expanded.
pub fn evaluate(
    e: &mut Engine<'_>,
    def: &BundleDef,
    t: &str,
    p: &Promise,
    promiser: &str,
    unresolved: bool,
) {
    match t {
        "vars" => vars::evaluate(e, def, p, promiser),
        "classes" => classes::evaluate(e, def, p, promiser, unresolved),
        "reports" => reports::evaluate(e, def, p, promiser, unresolved),
        "methods" => methods::evaluate(e, def, p, promiser),
        "commands" => commands::evaluate(e, def, p, promiser),
        "meta" => meta::evaluate(e, def, p, promiser),
        "defaults" => defaults::evaluate(e, def, p, promiser),
        "files" => files::evaluate(e, def, p, promiser),
        "packages" => packages::evaluate(e, def, p, promiser),
        "users" => users::evaluate(e, def, p, promiser),
        "services" => services::evaluate(e, def, p, promiser),
        "processes" => processes::evaluate(e, def, p, promiser),
        "insert_lines" | "delete_lines" | "replace_patterns" | "field_edits"
            if e.edit.is_some() =>
        {
            files::editops::evaluate(e, def, t, p, promiser)
        }
        _ => unsimulated::evaluate(e, def, t, p, promiser),
    }
}

/// List elements written as a lone `@(x)` naming a string (in the variable table, not a promise's
/// iteration over it): the agent's ExpandList takes the string as the element and warns, at each
/// expansion of the promise (recorded: eval/scope/list_from_string, class_list_expansion).
pub(crate) fn warn_scalar_refs<'r>(
    e: &mut Engine<'_>,
    items: impl IntoIterator<Item = &'r crate::syntax::ast::Rval>,
) {
    for it in items {
        let crate::syntax::ast::Rval::Scalar(s) = it else {
            continue;
        };
        if let Some(crate::value::Value::Scalar(..)) = e.list_element_var(&s.value) {
            warn_not_list(e, &s.value);
        }
    }
}

/// The agent's warning for an element `text` (a lone `@(x)`) whose x is a string.
pub(crate) fn warn_not_list(e: &mut Engine<'_>, text: &str) {
    e.log(
        crate::eval::output::LogLevel::Warning,
        &format!("'{text}' failed - variable is not list but string"),
    );
}

/// Stage 7 of the agent ("preliminary convergence"): every promise was expanded already (its function
/// calls logged); only `vars` and `meta` promises act, through their second "sampling".
pub fn preliminary(e: &mut Engine<'_>, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
    match t {
        "vars" => vars::evaluate(e, def, p, promiser),
        "meta" => meta::evaluate(e, def, p, promiser),
        "classes" => {
            classes::warn_scalar_refs(e, p);
            e.end_event(Some("preliminary"), None);
        }
        "insert_lines" => {
            files::editops::recheck_anchor(e, def, p);
            e.end_event(Some("preliminary"), None);
        }
        _ => e.end_event(Some("preliminary"), None),
    }
}
