//! `field_edits` / `edit_field` (spec §3.8, `VerifyColumnEdits`, `EditColumns`, `EditLineByColumn`,
//! `DoEditColumn`): lines fully matching the promiser are split on the `field_separator` regex (joined
//! back with the text of its first occurrence), the selected field (`select_field`, 1-based unless
//! `start_fields_from_zero`) is edited whole or, with `value_separator`, as a list of sub-values by
//! `field_operation` set / append (default) / prepend / alphanum / delete; `extend_fields`,
//! `allow_blank_fields`; the end line's type word is `fields_edit`.
//!
//! Recorded on cf-agent 3.21.0: with `value_separator` a dry run says `Should edit field …` for every
//! matched line, changed or not; `alphanum` leaves a list alone when the value is present (no re-sort);
//! without `value_separator`, `set` is a repair on every run and `delete` reports the emptied value
//! (`Deleted column field value '' …`); in a region the start delimiter line is a candidate.

use super::list::{Id, Lines};
use super::matching::{block_text_match, full_text_match};
use super::region;
use super::{EditEnv, EditResult, LogLevel, Model, OpOut, Out, Region};
use crate::pcre;

/// One `field_edits` promise with its `edit_field` body, attributes expanded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldEdits {
    /// Full-line regex selecting the lines to edit.
    pub promiser: String,
    pub region: Option<Region>,
    pub field_separator: Option<String>,
    pub select_field: Option<i64>,
    pub start_fields_from_zero: bool,
    /// Its first character splits the field into sub-values.
    pub value_separator: Option<String>,
    pub field_value: Option<String>,
    /// `set`, `append` (default), `prepend`, `alphanum`, `delete`.
    pub field_operation: Option<String>,
    pub extend_fields: bool,
    pub allow_blank_fields: bool,
}

/// Actuates one `field_edits` promise on the model.
pub fn field_edits(model: &mut Model, req: &FieldEdits, env: &EditEnv) -> OpOut {
    let mut out = Out::new(env);
    let filename = env.filename;
    let p = req.promiser.as_str();

    let Some(sep) = &req.field_separator else {
        out.record(
            LogLevel::Error,
            EditResult::Warn,
            format!("No field_separator in promise to edit by column for '{p}'"),
        );
        out.promise_ref(LogLevel::Error);
        return out.finish();
    };
    let select = req.select_field.map(|f| if req.start_fields_from_zero { f + 1 } else { f }).unwrap_or(0);
    if select <= 0 {
        out.record(LogLevel::Error, EditResult::Warn, format!("No select_field in promise to edit '{p}'"));
        out.promise_ref(LogLevel::Error);
        return out.finish();
    }
    let Some(value) = &req.field_value else {
        out.record(LogLevel::Error, EditResult::Warn, format!("No field_value is promised to column_edit '{p}'"));
        out.promise_ref(LogLevel::Error);
        return out.finish();
    };

    let mut lines = Lines::from_lines(&model.lines);
    let (mut begin, mut end) = (lines.head(), None);
    if let Some(r) = &req.region {
        let Some(b) = region::select(&lines, r, &mut out) else {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("The promised column edit '{p}' could not select an edit region in '{filename}'"),
            );
            return out.finish();
        };
        begin = b.begin;
        end = b.end;
    }

    if env.already_ran {
        out.result = EditResult::Skipped;
        return out.finish();
    }
    out.ran = true;

    let vsep = req.value_separator.as_deref().and_then(|s| s.chars().next());
    let spec = Spec { select: select as usize, value, vsep, req };
    edit_columns(&mut lines, begin, end, sep, &spec, &mut out);

    out.end_line("fields_edit", p);
    if out.changed {
        model.lines = lines.to_lines();
    }
    out.finish()
}

struct Spec<'a> {
    select: usize,
    value: &'a str,
    vsep: Option<char>,
    req: &'a FieldEdits,
}

/// `EditColumns`.
fn edit_columns(lines: &mut Lines, begin: Option<Id>, end: Option<Id>, sep: &str, spec: &Spec, out: &mut Out) {
    let p = spec.req.promiser.as_str();
    if let Err(e) = pcre::compile(p) {
        out.log(LogLevel::Error, e.agent_message());
        return;
    }
    let mut matched = false;
    let ids: Vec<Id> = lines.iter(begin, end).collect();
    for id in ids {
        let text = lines.text(id).to_string();
        if !full_text_match(p, &text, out) {
            continue;
        }
        out.log(LogLevel::Verbose, format!("Matched line '{text}'"));
        matched = true;
        let Some(first) = block_text_match(sep, &text, out) else {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("Field edit, no fields found by promised pattern '{sep}' in '{}'", out.env.filename),
            );
            return;
        };
        let separator = text[first.start..first.end].to_string();
        let mut columns = split_regex(&text, sep, spec.req.allow_blank_fields);
        if edit_line_by_column(&mut columns, spec, out) {
            let joined = columns.join(&separator);
            if joined != text {
                out.changed = true;
            }
            lines.set_text(id, joined);
        }
    }
    if !matched {
        out.record(
            LogLevel::Error,
            EditResult::Interrupted,
            format!("No matched line to edit fields of for pattern '{p}' in '{}'", out.env.filename),
        );
    }
}

/// `RlistFromSplitRegex(s, re, ∞, allow_blanks)`.
pub(crate) fn split_regex(s: &str, re: &str, allow_blanks: bool) -> Vec<String> {
    let mut result = Vec::new();
    let mut rest = s;
    let mut consumed = false;
    if let Ok(rx) = pcre::compile(re) {
        while let Some((start, end)) = rx.find(rest) {
            if end == 0 {
                break;
            }
            let piece = &rest[..start];
            if allow_blanks || !piece.is_empty() {
                result.push(piece.to_string());
            }
            rest = &rest[end..];
            consumed = true;
        }
    }
    if (allow_blanks && consumed) || !rest.is_empty() {
        result.push(rest.to_string());
    }
    result
}

/// `RlistFromSplitString(s, sep)`: `\<sep>` escapes a separator; a trailing separator adds nothing.
pub(crate) fn split_values(s: &str, sep: char) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let mut item = String::new();
        while i < chars.len() && chars[i] != sep {
            if chars[i] == '\\' && chars.get(i + 1) == Some(&sep) {
                i += 1;
            }
            item.push(chars[i]);
            i += 1;
        }
        out.push(item);
        if i < chars.len() {
            i += 1; // the separator
        }
    }
    out
}

/// `EditLineByColumn`: true when the columns were changed.
fn edit_line_by_column(columns: &mut Vec<String>, spec: &Spec, out: &mut Out) -> bool {
    let filename = out.env.filename;
    let count = columns.len();
    if spec.select <= count {
        out.log(LogLevel::Verbose, format!("Stopped at field {}", spec.select));
    } else {
        if !spec.req.extend_fields {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!(
                    "The file {filename} has only {count} fields, but there is a promise for field {}",
                    spec.select
                ),
            );
            return false;
        }
        columns.resize(spec.select, String::new());
        out.log(LogLevel::Verbose, format!("Stopped at column/field {}", spec.select));
    }
    let k = spec.select - 1;
    let value = spec.value;
    let op = spec.req.field_operation.as_deref().unwrap_or("append");

    if let Some(vsep) = spec.vsep {
        if !out.making_changes(&format!("edit field '{value}' in '{filename}'")) {
            return false;
        }
        let mut sub = split_values(&columns[k], vsep);
        let changed = do_edit_column(&mut sub, op, value, out);
        if changed {
            columns[k] = sub.join(&vsep.to_string());
        }
        return changed;
    }

    if op == "delete" {
        let old = columns[k].clone();
        if !out.making_changes(&format!("delete field value '{old}' in '{filename}'")) {
            return false;
        }
        columns[k] = String::new();
        out.change(format!("Deleted column field value '{}' in '{filename}'", columns[k]));
        true
    } else {
        let old = columns[k].clone();
        if !out.making_changes(&format!("set column field value '{old}' to '{value}' in '{filename}'")) {
            return false;
        }
        out.change(format!("Set whole column field value '{old}' to '{value}' in '{filename}'"));
        columns[k] = value.to_string();
        true
    }
}

/// `DoEditColumn`: one operation on the sub-values.
fn do_edit_column(sub: &mut Vec<String>, op: &str, value: &str, out: &mut Out) -> bool {
    let filename = out.env.filename;
    let present = |sub: &Vec<String>| sub.iter().any(|s| s == value);
    match op {
        "delete" => {
            let mut changed = false;
            while let Some(i) = sub.iter().position(|s| s == value) {
                sub.remove(i);
                out.change(format!("Deleted column field sub-value '{value}' in '{filename}'"));
                changed = true;
            }
            changed
        }
        "set" => {
            if sub.len() == 1 && sub[0] == value {
                out.log(LogLevel::Verbose, "Field sub-value set as promised");
                return false;
            }
            if sub.is_empty() && value.is_empty() {
                out.log(LogLevel::Verbose, "Empty field sub-value set as promised");
                return false;
            }
            out.change(format!("Set field sub-value '{value}' in '{filename}'"));
            *sub = vec![value.to_string()];
            true
        }
        "prepend" | "alphanum" => {
            if present(sub) {
                out.no_change(format!("Field sub-value '{value}' already present in '{filename}'"));
                return false;
            }
            sub.insert(0, value.to_string());
            if op == "alphanum" {
                sub.sort();
                out.change(format!("Inserted field sub-value '{value}' in '{filename}'"));
            } else {
                out.change(format!("Prepended field sub-value '{value}' in '{filename}'"));
            }
            true
        }
        _ => {
            if present(sub) {
                out.no_change(format!("Field sub-value '{value}' already present in '{filename}'"));
                return false;
            }
            sub.push(value.to_string());
            out.change(format!("Appended field sub-value '{value}' in '{filename}'"));
            true
        }
    }
}
