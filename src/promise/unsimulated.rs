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
    let block = e.promise_types.iter().find(|x| x.0 == t).cloned();
    if let Some((_, attrs, file)) = &block {
        if let Some(path) = module_path(e, attrs, *file) {
            use crate::expr::host::HostEnv;
            if e.host.stat(&path, true).is_none() {
                // observed: once per promise and pass
                e.log(
                    LogLevel::Error,
                    &format!("Promise module '{path}' does not exist"),
                );
                e.verbose_promise_end(t, promiser, crate::eval::Outcome::Failed);
                e.end_event(Some("missing_module"), None);
                return;
            }
        }
    }
    if !NOT_SIMULATED.contains(&t) && block.is_none() {
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

/// The expanded `path` of a `promise agent` block (`$(this.promise_dirname)` is the block's directory).
fn module_path(
    e: &mut Engine<'_>,
    attrs: &[crate::syntax::ast::Constraint],
    file: usize,
) -> Option<String> {
    let rv = attrs
        .iter()
        .find(|c| c.lval == "path")
        .map(|c| c.rval.clone())?;
    let fpath = e
        .files
        .get(file)
        .map(|f| crate::eval::runner::absolute_keep_dots(&f.path))
        .unwrap_or_default();
    let dir = fpath
        .rsplit_once('/')
        .map(|(d, _)| d.to_string())
        .unwrap_or_default();
    let saved = std::mem::take(&mut e.ctx.this);
    e.ctx.this.insert("promise_filename".into(), fpath);
    e.ctx.this.insert("promise_dirname".into(), dir);
    let path = e.scalar_of(&rv);
    e.ctx.this = saved;
    path
}
