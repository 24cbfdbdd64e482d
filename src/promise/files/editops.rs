//! The promise types of `edit_line` bundles (insert_lines, delete_lines, replace_patterns,
//! field_edits) evaluated on the model of the file being edited, and `cfengine` templates turned into
//! insert_lines promises.

use super::Pr;
use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::Promise;

/// Evaluates one edit_line sub-promise binding on the model in `e.edit`.
pub fn evaluate(e: &mut Engine<'_>, _def: &BundleDef, t: &str, _p: &Promise, promiser: &str) {
    e.log(
        LogLevel::Warning,
        &format!("cfsim: {t} promise '{promiser}' is not simulated yet"),
    );
    e.end_event(Some("not_simulated"), None);
}

/// `template_method => "cfengine"`.
pub fn cfengine_template(e: &mut Engine<'_>, _pr: &mut Pr<'_>, t: &str) {
    e.log(
        LogLevel::Warning,
        &format!("cfsim: cfengine template '{t}' is not simulated yet"),
    );
}
