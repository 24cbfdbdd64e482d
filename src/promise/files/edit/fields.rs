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
    let select = req
        .select_field
        .map(|f| if req.start_fields_from_zero { f + 1 } else { f })
        .unwrap_or(0);
    if select <= 0 {
        out.record(
            LogLevel::Error,
            EditResult::Warn,
            format!("No select_field in promise to edit '{p}'"),
        );
        out.promise_ref(LogLevel::Error);
        return out.finish();
    }
    let Some(value) = &req.field_value else {
        out.record(
            LogLevel::Error,
            EditResult::Warn,
            format!("No field_value is promised to column_edit '{p}'"),
        );
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

    let vsep = req
        .value_separator
        .as_deref()
        .and_then(|s| s.chars().next());
    let spec = Spec {
        select: select as usize,
        value,
        vsep,
        req,
    };
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
fn edit_columns(
    lines: &mut Lines,
    begin: Option<Id>,
    end: Option<Id>,
    sep: &str,
    spec: &Spec,
    out: &mut Out,
) {
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
                format!(
                    "Field edit, no fields found by promised pattern '{sep}' in '{}'",
                    out.env.filename
                ),
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
            format!(
                "No matched line to edit fields of for pattern '{p}' in '{}'",
                out.env.filename
            ),
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
        out.log(
            LogLevel::Verbose,
            format!("Stopped at field {}", spec.select),
        );
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
        out.log(
            LogLevel::Verbose,
            format!("Stopped at column/field {}", spec.select),
        );
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
        out.change(format!(
            "Deleted column field value '{}' in '{filename}'",
            columns[k]
        ));
        true
    } else {
        let old = columns[k].clone();
        if !out.making_changes(&format!(
            "set column field value '{old}' to '{value}' in '{filename}'"
        )) {
            return false;
        }
        out.change(format!(
            "Set whole column field value '{old}' to '{value}' in '{filename}'"
        ));
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
                out.change(format!(
                    "Deleted column field sub-value '{value}' in '{filename}'"
                ));
                changed = true;
            }
            changed
        }
        "set" => {
            if sub.len() == 1 && sub[0] == value {
                out.no_change("Field sub-value set as promised");
                return false;
            }
            if sub.is_empty() && value.is_empty() {
                out.no_change("Empty field sub-value set as promised");
                return false;
            }
            out.change(format!("Set field sub-value '{value}' in '{filename}'"));
            *sub = vec![value.to_string()];
            true
        }
        "prepend" | "alphanum" => {
            if present(sub) {
                out.no_change(format!(
                    "Field sub-value '{value}' already present in '{filename}'"
                ));
                return false;
            }
            sub.insert(0, value.to_string());
            if op == "alphanum" {
                sub.sort();
                out.change(format!(
                    "Inserted field sub-value '{value}' in '{filename}'"
                ));
            } else {
                out.change(format!(
                    "Prepended field sub-value '{value}' in '{filename}'"
                ));
            }
            true
        }
        _ => {
            if present(sub) {
                out.no_change(format!(
                    "Field sub-value '{value}' already present in '{filename}'"
                ));
                return false;
            }
            sub.push(value.to_string());
            out.change(format!(
                "Appended field sub-value '{value}' in '{filename}'"
            ));
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{dry, env, lines, model, shown, text, warn};
    use super::*;

    const P: &str = "/srv/t/f.txt";

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    /// The stdlib's `col(split, col, newval, method)`: value_separator ",", extend and blanks on.
    fn col(p: &str, sep: &str, field: i64, value: &str, op: &str) -> FieldEdits {
        FieldEdits {
            promiser: p.into(),
            field_separator: Some(sep.into()),
            select_field: Some(field),
            value_separator: Some(",".into()),
            field_value: Some(value.into()),
            field_operation: Some(op.into()),
            extend_fields: true,
            allow_blank_fields: true,
            ..Default::default()
        }
    }

    /// Whole-field edits (no value_separator).
    fn whole(p: &str, sep: &str, field: i64, value: &str, op: &str) -> FieldEdits {
        FieldEdits {
            value_separator: None,
            ..col(p, sep, field, value, op)
        }
    }

    fn run(m: &mut Model, req: &FieldEdits) -> OpOut {
        field_edits(m, req, &env())
    }

    fn repaired(p: &str) -> String {
        format!("    info: fields_edit promise '{p}' repaired")
    }

    // recorded: cf-agent 3.21.0, col(":", "4", "c", "append") on g:x:1:a,b / h:x:2:
    //     info: Appended field sub-value 'c' in '/srv/cfsim-edit/t/c1.txt'
    //     info: fields_edit promise 'g:.*' repaired
    #[test]
    fn append() {
        let mut m = model("g:x:1:a,b\nh:x:2:");
        let o = run(&mut m, &col("g:.*", ":", 4, "c", "append"));
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Appended field sub-value 'c' in '{P}'"),
                &repaired("g:.*")
            ])
        );
        run(&mut m, &col("h:.*", ":", 4, "c", "append"));
        assert_eq!(text(&m), "g:x:1:a,b,c\nh:x:2:c");
    }

    // recorded: cf-agent 3.21.0 -v, the value present (append, prepend and alphanum alike):
    //  verbose: Matched line 'a:x,c'
    //  verbose: Stopped at field 2
    //  verbose: Field sub-value 'c' already present in '/srv/cfsim-edit/t/cv1.txt'
    //  verbose: No changes done for the fields_edit promise 'a:.*'
    #[test]
    fn present_value_is_kept() {
        let mut m = model("a:x,c\ne:c,a");
        let o = run(&mut m, &col("a:.*", ":", 2, "c", "append"));
        assert_eq!(
            lines(&o),
            v(&[
                " verbose: Matched line 'a:x,c'",
                " verbose: Stopped at field 2",
                &format!(" verbose: Field sub-value 'c' already present in '{P}'"),
                " verbose: No changes done for the fields_edit promise 'a:.*'",
            ])
        );
        assert_eq!(o.msgs[2].record, Some(EditResult::Kept));
        assert_eq!(
            run(&mut m, &col("e:.*", ":", 2, "c", "prepend")).result,
            EditResult::Kept
        );
        // alphanum with the value present does not re-sort `c,a`
        assert_eq!(
            run(&mut m, &col("e:.*", ":", 2, "a", "alphanum")).result,
            EditResult::Kept
        );
        assert_eq!(text(&m), "a:x,c\ne:c,a");
    }

    // recorded: cf-agent 3.21.0, prepend / alphanum / delete / set on g:x:1:…
    //     info: Prepended field sub-value 'c' in '…'      (a,b → c,a,b)
    //     info: Inserted field sub-value 'c' in '…'       (d,b → b,c,d)
    //     info: Deleted column field sub-value 'c' in '…' (twice: c,b,c → b)
    //     info: Set field sub-value 'c' in '…'            (a,b → c)
    #[test]
    fn sub_value_operations() {
        let cases = [
            (
                "g:x:1:a,b",
                "prepend",
                "g:x:1:c,a,b",
                vec![format!("    info: Prepended field sub-value 'c' in '{P}'")],
            ),
            (
                "g:x:1:d,b",
                "alphanum",
                "g:x:1:b,c,d",
                vec![format!("    info: Inserted field sub-value 'c' in '{P}'")],
            ),
            (
                "g:x:1:c,b,c",
                "delete",
                "g:x:1:b",
                vec![
                    format!("    info: Deleted column field sub-value 'c' in '{P}'"),
                    format!("    info: Deleted column field sub-value 'c' in '{P}'"),
                ],
            ),
            (
                "g:x:1:a,b",
                "set",
                "g:x:1:c",
                vec![format!("    info: Set field sub-value 'c' in '{P}'")],
            ),
        ];
        for (line, op, want, msgs) in cases {
            let mut m = model(line);
            let o = run(&mut m, &col("g:.*", ":", 4, "c", op));
            assert_eq!(text(&m), want, "{op}");
            let mut expect = msgs;
            expect.push(repaired("g:.*"));
            assert_eq!(shown(&o), expect, "{op}");
        }
    }

    // recorded: cf-agent 3.21.0 -v: set on `c` and "" on an empty field are kept; delete of an absent
    // value says nothing
    //  verbose: Field sub-value set as promised
    //  verbose: Empty field sub-value set as promised
    #[test]
    fn sub_value_kept_cases() {
        let mut m = model("b:c\nc:\nd:x");
        let o = run(&mut m, &col("b:.*", ":", 2, "c", "set"));
        assert_eq!(lines(&o)[2], " verbose: Field sub-value set as promised");
        assert_eq!(o.result, EditResult::Kept);
        let o = run(&mut m, &col("c:.*", ":", 2, "", "set"));
        assert_eq!(
            lines(&o)[2],
            " verbose: Empty field sub-value set as promised"
        );
        let o = run(&mut m, &col("d:.*", ":", 2, "c", "delete"));
        assert_eq!(
            lines(&o),
            v(&[
                " verbose: Matched line 'd:x'",
                " verbose: Stopped at field 2",
                " verbose: No changes done for the fields_edit promise 'd:.*'"
            ])
        );
        assert_eq!(text(&m), "b:c\nc:\nd:x");
    }

    // recorded: cf-agent 3.21.0, whole-field set is a repair on every run, even to the same value
    //     info: Set whole column field value '/bin/sh' to '/bin/bash' in '…'
    //     info: Set whole column field value '/bin/bash' to '/bin/bash' in '…'
    #[test]
    fn whole_field_set_always_repairs() {
        let mut m = model("root:x:0:0:root:/root:/bin/sh\nu:x:1:1::/h:/bin/bash");
        let o = run(&mut m, &whole("root:.*", ":", 7, "/bin/bash", "set"));
        assert_eq!(
            shown(&o),
            v(&[
                &format!(
                    "    info: Set whole column field value '/bin/sh' to '/bin/bash' in '{P}'"
                ),
                &repaired("root:.*")
            ])
        );
        assert!(o.changed);
        let o = run(&mut m, &whole("u:.*", ":", 7, "/bin/bash", "set"));
        assert_eq!(
            shown(&o),
            v(&[
                &format!(
                    "    info: Set whole column field value '/bin/bash' to '/bin/bash' in '{P}'"
                ),
                &repaired("u:.*")
            ])
        );
        assert_eq!(o.result, EditResult::Repaired);
        assert!(!o.changed);
        assert_eq!(
            text(&m),
            "root:x:0:0:root:/root:/bin/bash\nu:x:1:1::/h:/bin/bash"
        );
    }

    // recorded: cf-agent 3.21.0, whole-field delete prints the emptied value
    //     info: Deleted column field value '' in '/srv/cfsim-edit/t/c8.txt'   (a:b:c → a::c)
    #[test]
    fn whole_field_delete() {
        let mut m = model("a:b:c");
        let o = run(&mut m, &whole("a:.*", ":", 2, "zz", "delete"));
        assert_eq!(text(&m), "a::c");
        assert_eq!(
            shown(&o)[0],
            format!("    info: Deleted column field value '' in '{P}'")
        );
    }

    // recorded: cf-agent 3.21.0, field 5 of a:b:c without extend_fields / with it
    //    error: The file /srv/cfsim-edit/t/c9.txt has only 3 fields, but there is a promise for field 5
    //    error: Errors encountered when actuating fields_edit promise 'a:.*'
    //     info: Set whole column field value '' to 'zz' in '…'   (a:b:c → a:b:c::zz)
    #[test]
    fn extend_fields() {
        let mut m = model("a:b:c");
        let mut req = whole("a:.*", ":", 5, "zz", "set");
        req.extend_fields = false;
        let o = run(&mut m, &req);
        assert_eq!(
            shown(&o),
            v(&[
                &format!(
                    "   error: The file {P} has only 3 fields, but there is a promise for field 5"
                ),
                "   error: Errors encountered when actuating fields_edit promise 'a:.*'",
            ])
        );
        req.extend_fields = true;
        let o = run(&mut m, &req);
        assert_eq!(text(&m), "a:b:c::zz");
        assert_eq!(
            shown(&o)[0],
            format!("    info: Set whole column field value '' to 'zz' in '{P}'")
        );
        assert_eq!(lines(&o)[1], " verbose: Stopped at column/field 5");
    }

    // recorded: cf-agent 3.21.0, no line matching
    //    error: No matched line to edit fields of for pattern 'zz.*' in '/srv/cfsim-edit/t/c11.txt'
    //    error: Errors encountered when actuating fields_edit promise 'zz.*'
    #[test]
    fn no_matched_line() {
        let mut m = model("a:b:c");
        let o = run(&mut m, &whole("zz.*", ":", 2, "zz", "set"));
        assert_eq!(
            shown(&o),
            v(&[
                &format!("   error: No matched line to edit fields of for pattern 'zz.*' in '{P}'"),
                "   error: Errors encountered when actuating fields_edit promise 'zz.*'",
            ])
        );
        // also in a dry run
        let o = field_edits(&mut m, &whole("zz.*", ":", 2, "zz", "set"), &dry());
        assert_eq!(o.result, EditResult::Interrupted);
    }

    // recorded: cf-agent 3.21.0, start_fields_from_zero with select_field 1 edits the 2nd field
    #[test]
    fn fields_from_zero() {
        let mut m = model("a:b:c");
        let req = FieldEdits {
            start_fields_from_zero: true,
            ..whole("a:.*", ":", 1, "Z", "set")
        };
        let o = run(&mut m, &req);
        assert_eq!(text(&m), "a:Z:c");
        assert_eq!(
            shown(&o)[0],
            format!("    info: Set whole column field value 'b' to 'Z' in '{P}'")
        );
    }

    // recorded: cf-agent 3.21.0, regex separator "\s*=\s*" re-joined with its first occurrence
    // (`k  =   v` → `k  =   w`)
    #[test]
    fn regex_separator() {
        let mut m = model("k  =   v");
        run(&mut m, &whole("k.*", r"\s*=\s*", 2, "w", "set"));
        assert_eq!(text(&m), "k  =   w");
    }

    // recorded: cf-agent 3.21.0, `a::c:` field 3: blanks kept → a::x: ; not allowed → fields a,c →
    // a:c:x (Set whole column field value '' to 'x')
    #[test]
    fn blank_fields() {
        let mut m = model("a::c:");
        run(&mut m, &whole("a.*", ":", 3, "x", "set"));
        assert_eq!(text(&m), "a::x:");
        let mut m = model("a::c:");
        let o = run(
            &mut m,
            &FieldEdits {
                allow_blank_fields: false,
                ..whole("a.*", ":", 3, "x", "set")
            },
        );
        assert_eq!(text(&m), "a:c:x");
        assert_eq!(
            shown(&o)[0],
            format!("    info: Set whole column field value '' to 'x' in '{P}'")
        );
    }

    // recorded: cf-agent 3.21.0, separator absent from the matched line
    //    error: Field edit, no fields found by promised pattern ':' in '/srv/cfsim-edit/t/c17.txt'
    //    error: Errors encountered when actuating fields_edit promise 'a.*'
    #[test]
    fn separator_not_found() {
        let mut m = model("ab");
        let o = run(&mut m, &whole("a.*", ":", 2, "x", "set"));
        assert_eq!(
            shown(&o),
            v(&[
                &format!("   error: Field edit, no fields found by promised pattern ':' in '{P}'"),
                "   error: Errors encountered when actuating fields_edit promise 'a.*'",
            ])
        );
    }

    // recorded: cf-agent 3.21.0, missing body attributes (each pass, failed classes, no end line)
    //    error: No field_separator in promise to edit by column for 'a.*'
    //    error: Promise belongs to bundle 'e' in file './c14.cf' near line 10
    //    error: No select_field in promise to edit 'a.*'
    //    error: No field_value is promised to column_edit 'a.*'
    #[test]
    fn missing_attributes() {
        let base = whole("a.*", ":", 2, "x", "set");
        let cases = [
            (
                FieldEdits {
                    field_separator: None,
                    ..base.clone()
                },
                "No field_separator in promise to edit by column for 'a.*'",
            ),
            (
                FieldEdits {
                    select_field: None,
                    ..base.clone()
                },
                "No select_field in promise to edit 'a.*'",
            ),
            (
                FieldEdits {
                    field_value: None,
                    ..base.clone()
                },
                "No field_value is promised to column_edit 'a.*'",
            ),
        ];
        for (req, msg) in cases {
            let mut m = model("a:b");
            let o = run(&mut m, &req);
            assert_eq!(
                shown(&o),
                v(&[
                    &format!("   error: {msg}"),
                    "   error: Promise belongs to bundle 'e' in file './t.cf' near line 10"
                ])
            );
            assert!(!o.ran);
            assert_eq!(o.result.class_suffix(), Some("failed"));
        }
    }

    // recorded: cf-agent 3.21.0 -n / warn: with value_separator always `Should edit field`, even when
    // the value is there; whole-field set and delete
    //  warning: Should edit field 'c' in '/srv/cfsim-edit/t/cd1.txt'
    //  warning: Should set column field value 'a' to 'c' in '…'
    //  warning: Should delete field value 'b' in '…'
    //  warning: Should edit field 'c' in '…', but only warning promised
    #[test]
    fn dry_run_and_warn() {
        let mut m = model("g:x:a,c\nh:x:b");
        let o = field_edits(&mut m, &col("g:.*", ":", 3, "c", "append"), &dry());
        assert_eq!(
            shown(&o),
            v(&[
                &format!(" warning: Should edit field 'c' in '{P}'"),
                " warning: Warnings encountered when actuating fields_edit promise 'g:.*'",
            ])
        );
        let o = field_edits(&mut m, &whole("g:.*", ":", 3, "c", "set"), &dry());
        assert_eq!(
            shown(&o)[0],
            format!(" warning: Should set column field value 'a,c' to 'c' in '{P}'")
        );
        let o = field_edits(&mut m, &whole("h:.*", ":", 3, "c", "delete"), &dry());
        assert_eq!(
            shown(&o)[0],
            format!(" warning: Should delete field value 'b' in '{P}'")
        );
        let o = field_edits(&mut m, &col("h:.*", ":", 3, "c", "append"), &warn());
        assert_eq!(
            shown(&o)[0],
            format!(" warning: Should edit field 'c' in '{P}', but only warning promised")
        );
        assert_eq!(o.result, EditResult::Warn);
        assert_eq!(text(&m), "g:x:a,c\nh:x:b");
    }

    // recorded: cf-agent 3.21.0, every matching line is edited (a:1/b:2/a:3 → a:9/b:2/a:9); in a
    // region the start delimiter line is a candidate (s:1/a:2/t:3/a:4 → s:9/a:9/t:3/a:4)
    #[test]
    fn all_lines_and_regions() {
        let mut m = model("a:1\nb:2\na:3");
        let o = run(&mut m, &whole("a:.*", ":", 2, "9", "set"));
        assert_eq!(text(&m), "a:9\nb:2\na:9");
        assert_eq!(shown(&o).len(), 3);
        let mut m = model("s:1\na:2\nt:3\na:4");
        let region = Some(Region {
            select_start: Some("s:.*".into()),
            select_end: Some("t:.*".into()),
            ..Default::default()
        });
        run(
            &mut m,
            &FieldEdits {
                region,
                ..whole(".*", ":", 2, "9", "set")
            },
        );
        assert_eq!(text(&m), "s:9\na:9\nt:3\na:4");
    }

    // recorded: cf-agent 3.21.0, a bad promiser regex: the error once, kept; a bad separator:
    //    error: Regular expression error: pcre_compile() 'missing )' in expression '(' (offset: 1)
    //    error: Field edit, no fields found by promised pattern '(' in '…'
    #[test]
    fn bad_regexes() {
        let mut m = model("a(b:c\nx");
        let o = run(&mut m, &whole("a(b.*", ":", 2, "z", "set"));
        assert_eq!(
            shown(&o),
            v(&["   error: Regular expression error: pcre_compile() 'missing )' in expression 'a(b.*' (offset: 5)"])
        );
        assert_eq!(o.result, EditResult::Kept);
        let mut m = model("ab:c");
        let o = run(&mut m, &whole("ab.*", "(", 2, "z", "set"));
        assert_eq!(
            shown(&o)[..2],
            v(&[
                "   error: Regular expression error: pcre_compile() 'missing )' in expression '(' (offset: 1)",
                &format!("   error: Field edit, no fields found by promised pattern '(' in '{P}'"),
            ])[..]
        );
    }

    #[test]
    fn splitting() {
        assert_eq!(split_regex("a::c:", ":", true), v(&["a", "", "c", ""]));
        assert_eq!(split_regex("a::c:", ":", false), v(&["a", "c"]));
        assert_eq!(split_regex("abc", ":", true), v(&["abc"]));
        assert_eq!(split_values("a,b", ','), v(&["a", "b"]));
        assert_eq!(split_values("a,", ','), v(&["a"]));
        assert_eq!(split_values(",a,,b", ','), v(&["", "a", "", "b"]));
        assert_eq!(split_values(r"a\,b,c", ','), v(&["a,b", "c"]));
        assert!(split_values("", ',').is_empty());
    }
}
