//! `replace_patterns` (spec §3.6, `VerifyPatterns` / `ReplacePatterns`): an unanchored regex replaced
//! per line by `replace_value` (expanded for every match, with `$(match.N)`), up to 20 substitutions per
//! line; `occurrences => "first"`; the two non-convergence checks; the dry-run per-line quirk; a missing
//! `replace_value`.
//!
//! Recorded on cf-agent 3.21.0 where the spec was vague or wrong: `occurrences => "first"` replaces the
//! first match in the **region** (the first line that matches) and stops; in a region the start delimiter
//! line is edited too and `include_*` change nothing; a dry run prints `Should replace pattern …` for
//! every line it reaches and, when nothing matched, also records `No match …` (kept and failed classes).

use super::list::{Id, Lines};
use super::matching::block_text_match;
use super::region;
use super::{EditEnv, EditResult, LogLevel, Model, OpOut, Out, Region};

/// One `replace_patterns` promise, attributes expanded (but not `replace_value`, which is expanded per
/// match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplacePatterns {
    pub promiser: String,
    pub region: Option<Region>,
    /// `replace_with` body: the unexpanded `replace_value`.
    pub replace_value: Option<String>,
    /// `replace_with` body: `"all"` (default) or `"first"`.
    pub occurrences: Option<String>,
}

const MAX_REPLACE: usize = 20;

/// Actuates one `replace_patterns` promise on the model. `expand` expands `replace_value` with the
/// match's `match.0..N`.
pub fn replace_patterns(
    model: &mut Model,
    req: &ReplacePatterns,
    env: &EditEnv,
    expand: &mut dyn FnMut(&str, &[Option<String>]) -> String,
) -> OpOut {
    let mut out = Out::new(env);
    let filename = env.filename;
    let p = req.promiser.as_str();
    out.log(LogLevel::Verbose, format!("Looking at pattern '{p}'"));

    let Some(value) = &req.replace_value else {
        out.record(
            LogLevel::Error,
            EditResult::Interrupted,
            format!("The promised pattern replace '{p}' has no replacement string"),
        );
        return out.finish();
    };

    let mut lines = Lines::from_lines(&model.lines);
    let (mut begin, mut end) = (lines.head(), None);
    if let Some(r) = &req.region {
        let Some(b) = region::select(&lines, r, &mut out) else {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("The promised pattern replace '{p}' could not select an edit region in '{filename}'"),
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

    let once_only = req.occurrences.as_deref() == Some("first");
    if once_only {
        out.log(LogLevel::Warning, "Setting replace-occurrences policy to 'first' is not convergent");
    }
    let not_anchored = !(p.starts_with('^') && p.ends_with('$'));
    let mut notfound = true;
    let ids: Vec<Id> = lines.iter(begin, end).collect();
    for id in ids {
        let original = lines.text(id).to_string();
        let mut buf = original.clone();
        let mut replaced = false;
        let mut cutoff = 1;
        let mut match_len = 0;
        while let Some(caps) = block_text_match(p, &buf, &mut out) {
            if match_len == buf.len() {
                out.log(LogLevel::Verbose, "Improper convergent expression matches defacto convergence, so accepting");
                break;
            }
            let over = cutoff > MAX_REPLACE;
            cutoff += 1;
            if over {
                out.log(LogLevel::Verbose, "Too many replacements on this line");
                break;
            }
            match_len = caps.end - caps.start;
            let replacement = expand(value, &caps.groups);
            out.log(
                LogLevel::Verbose,
                format!("Verifying replacement of '{p}' with '{replacement}', cutoff {cutoff}"),
            );
            buf = format!("{}{}{}", &buf[..caps.start], replacement, &buf[caps.end..]);
            notfound = false;
            replaced = true;
            if once_only {
                out.log(LogLevel::Verbose, "Replace first occurrence only (warning, this is not a convergent policy)");
                break;
            }
        }

        if not_anchored && block_text_match(p, &buf, &mut out).is_some() {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!(
                    "Promised replacement '{buf}' on line '{original}' for pattern '{p}' is not convergent while editing '{filename}' (regular expression matches the replacement string)"
                ),
            );
            out.promise_ref(LogLevel::Error);
            break;
        }

        if !out.making_changes(&format!("replace pattern '{p}' in '{filename}'")) {
            continue;
        }
        if replaced {
            if buf != original {
                out.changed = true;
            }
            lines.set_text(id, buf.clone());
            out.change(format!("Replaced pattern '{p}' in '{filename}'"));
            out.log(LogLevel::Verbose, format!("cutoff {cutoff}, '{buf}'"));
            out.log(LogLevel::Verbose, format!("cutoff {cutoff}, '{buf}'"));
            if once_only {
                out.log(LogLevel::Verbose, "Replace first occurrence only (warning, this is not a convergent policy)");
                break;
            }
            if block_text_match(p, &buf, &mut out).is_some() {
                out.record(
                    LogLevel::Error,
                    EditResult::Interrupted,
                    format!(
                        "Promised replacement '{buf}' for pattern '{p}' is not properly convergent while editing '{filename}' (pattern still matches the end-state replacement string '{buf}', consider use of a negative look ahead)"
                    ),
                );
                out.promise_ref(LogLevel::Info);
            }
        }
    }

    if notfound {
        out.no_change(format!("No match for pattern '{p}' in '{filename}'"));
    }
    out.end_line("replace_patterns", p);
    if out.changed {
        model.lines = lines.to_lines();
    }
    out.finish()
}
