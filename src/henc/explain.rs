//! `cfsim henc --explain`: for every class and variable, the file and line that decided it and the lines it
//! overrode, in the same order as the merge output; then the names that were touched but end up absent.
//! Names and lines are shown between backticks with control bytes escaped (`\r`, `\t`), so trailing blanks
//! and CRLF damage are visible.

use std::fmt::Write as _;

use super::merge::{self, Action, ClassState, Merged, NameKey, Origin, Source, Step};

/// Show bytes as text: invalid UTF-8 replaced, control characters escaped.
pub fn show(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Line texts of every source, indexed `[file][line - 1]`.
struct Lines<'a> {
    names: Vec<&'a str>,
    lines: Vec<Vec<&'a [u8]>>,
}

impl<'a> Lines<'a> {
    fn new(sources: &'a [Source]) -> Lines<'a> {
        Lines {
            names: sources.iter().map(|s| s.name.as_str()).collect(),
            lines: sources
                .iter()
                .map(|s| match &s.text {
                    Some(t) => merge::lines(t).collect(),
                    None => Vec::new(),
                })
                .collect(),
        }
    }

    fn at(&self, o: Origin) -> String {
        let name = self.names.get(o.file as usize).copied().unwrap_or("?");
        let text = self
            .lines
            .get(o.file as usize)
            .and_then(|l| l.get((o.line as usize).wrapping_sub(1)))
            .map(|l| show(l))
            .unwrap_or_default();
        format!("{name}:{}: `{text}`", o.line)
    }
}

fn verb(action: Action) -> &'static str {
    match action {
        Action::Set | Action::Cancel | Action::Assign(_) => "set by",
        Action::Forget => "forgotten (`_`) by",
        Action::ResetAll => "cleared by !RESET_ALL_CLASSES at",
        Action::ResetActive => "cleared by !RESET_ACTIVE_CLASSES at",
        Action::ResetCancelled => "cleared by !RESET_CANCELLED_CLASSES at",
        Action::Slash => "removed (`/`) by",
    }
}

fn history_lines(out: &mut String, lines: &Lines<'_>, steps: &[Step], decided: Option<Origin>) {
    for s in steps.iter().rev() {
        if Some(s.origin) == decided {
            continue;
        }
        let _ = writeln!(out, "  overrode   {}", lines.at(s.origin));
    }
}

fn absent(out: &mut String, lines: &Lines<'_>, kind: &str, name: &[u8], steps: &[Step]) {
    let Some((last, earlier)) = steps.split_last() else {
        return;
    };
    let _ = writeln!(out, "{kind} `{}` (absent)", show(name));
    let _ = writeln!(out, "  {} {}", verb(last.action), lines.at(last.origin));
    history_lines(out, lines, earlier, None);
}

/// Render the explanation of a merge made with `history = true`.
pub fn explain(sources: &[Source], merged: &Merged<'_>) -> String {
    let lines = Lines::new(sources);
    let mut out = String::new();
    for &i in &merged.skipped {
        let name = lines.names.get(i as usize).copied().unwrap_or("?");
        let _ = writeln!(
            out,
            "skipped {name} (missing or unreadable; hENC says nothing)"
        );
    }
    let none: &[Step] = &[];
    for (name, e) in merged.sorted_classes() {
        let sign = if e.state == ClassState::Set { '+' } else { '-' };
        let _ = writeln!(out, "class {sign}{}", show(name));
        match e.origin {
            Some(o) => {
                let _ = writeln!(out, "  decided by {}", lines.at(o));
            }
            None => {
                let _ = writeln!(
                    out,
                    "  decided by hENC itself (always set after the last line)"
                );
            }
        }
        let steps = merged
            .class_history
            .get(&NameKey::new(name))
            .map_or(none, Vec::as_slice);
        history_lines(&mut out, &lines, steps, e.origin);
    }
    for (name, v) in merged.sorted_vars() {
        let _ = writeln!(out, "variable `{}` = `{}`", show(name), show(v.line));
        let _ = writeln!(out, "  decided by {}", lines.at(v.origin));
        let steps = merged
            .var_history
            .get(&NameKey::new(name))
            .map_or(none, Vec::as_slice);
        history_lines(&mut out, &lines, steps, Some(v.origin));
    }
    let mut gone: Vec<_> = merged
        .class_history
        .iter()
        .filter(|(n, _)| !merged.classes.contains_key(*n))
        .collect();
    gone.sort_unstable_by(|a, b| a.0.bytes().cmp(b.0.bytes()));
    for (name, steps) in gone {
        absent(&mut out, &lines, "class", name.bytes(), steps);
    }
    let mut gone: Vec<_> = merged
        .var_history
        .iter()
        .filter(|(n, _)| !merged.vars.contains_key(*n))
        .collect();
    gone.sort_unstable_by(|a, b| a.0.bytes().cmp(b.0.bytes()));
    for (name, steps) in gone {
        absent(&mut out, &lines, "variable", name.bytes(), steps);
    }
    out
}
