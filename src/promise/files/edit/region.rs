//! `select_region` (spec §3.7, `SelectRegion`): the start delimiter is the first line fully matching
//! `select_start`, the end delimiter the first line after it fully matching `select_end`. The ops then use
//! the delimiters as the agent does, which differs per op (recorded on cf-agent 3.21.0):
//! * insert_lines scans for existing lines from the start delimiter **inclusive** to the end delimiter
//!   (so a line equal to the start delimiter counts as present) and appends before the end delimiter;
//!   `include_*` change nothing; `before` prepends to the **file**, not the region;
//! * delete_lines works strictly between the delimiters unless `include_start_delimiter` /
//!   `include_end_delimiter`;
//! * replace_patterns and field_edits work from the start delimiter **inclusive** to the end delimiter
//!   exclusive, whatever `include_*` say, and to end of file when the end is not found.
//!
//! A start line that is the file's last line selects nothing unless `include_start_delimiter`.

use super::list::{Id, Lines};
use super::matching::full_text_match;
use super::{EditEnv, LogLevel, Model, Msg, Out, Region};

/// The delimiters found (`begin_ptr`, `end_ptr`): node ids in the agent's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub begin: Option<Id>,
    pub end: Option<Id>,
}

/// `SelectRegion`; `None` when no region could be selected (its verbose reason is logged).
pub(crate) fn select(lines: &Lines, region: &Region, out: &mut Out) -> Option<Bounds> {
    let mut beg: Option<Id> = None;
    let mut end: Option<Id> = None;
    let ids: Vec<Id> = lines.iter(lines.head(), None).collect();
    for id in ids {
        if let Some(start) = &region.select_start {
            if beg.is_none() && full_text_match(start, lines.text(id), out) {
                if !region.include_start && lines.next(id).is_none() {
                    out.log(
                        LogLevel::Verbose,
                        format!(
                            "The promised start pattern '{start}' found an empty region at the end of file '{}'",
                            out.env.filename
                        ),
                    );
                    return None;
                }
                beg = Some(id);
                continue;
            }
        }
        if let (Some(end_re), Some(_)) = (&region.select_end, beg) {
            if end.is_none() && full_text_match(end_re, lines.text(id), out) {
                end = Some(id);
                break;
            }
        }
    }
    if beg.is_none() {
        if let Some(start) = &region.select_start {
            out.log(
                LogLevel::Verbose,
                format!(
                    "The promised start pattern '{start}' was not found when selecting edit region in '{}'",
                    out.env.filename
                ),
            );
            return None;
        }
    }
    Some(Bounds { begin: beg, end })
}

/// A selected region as line indexes into the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Selection {
    /// The start delimiter's index (none when the region has no `select_start`).
    pub start: Option<usize>,
    /// The end delimiter's index (none: not found or no `select_end`; the region runs to end of file).
    pub end: Option<usize>,
    /// `select_end` is set, was not found, and `select_end_match_eof` is off: insert_lines and
    /// delete_lines fail with `The promised end pattern … was not found`, the other ops run to EOF.
    pub end_missing: bool,
}

/// `select_region` over a model: the delimiters, or `None` when the region cannot be selected (the
/// sub-promise fails with `… could not select an edit region …`); with the verbose lines it logs.
pub fn select_region(
    model: &Model,
    region: &Region,
    env: &EditEnv,
) -> (Option<Selection>, Vec<Msg>) {
    let lines = Lines::from_lines(&model.lines);
    let mut out = Out::new(env);
    let sel = select(&lines, region, &mut out).map(|b| {
        let index =
            |id: Option<Id>| id.and_then(|id| lines.iter(lines.head(), None).position(|x| x == id));
        Selection {
            start: index(b.begin),
            end: index(b.end),
            end_missing: b.end.is_none()
                && region.select_end.is_some()
                && !super::end_match_eof(region, env),
        }
    });
    (sel, out.msgs)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{env, model};
    use super::*;

    fn r(start: &str, end: Option<&str>) -> Region {
        Region {
            select_start: Some(start.to_string()),
            select_end: end.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn delimiters_are_full_matches() {
        let e = env();
        let (s, m) = select_region(
            &model("a\n[s]\nk=1\n[t]\nz"),
            &r(r"\[s\]", Some(r"\[.*\]")),
            &e,
        );
        assert_eq!(
            s,
            Some(Selection {
                start: Some(1),
                end: Some(3),
                end_missing: false
            })
        );
        assert!(m.is_empty());
        // `[s]x` does not fully match
        let (s, _) = select_region(&model("[s]x\nb"), &r(r"\[s\]", None), &e);
        assert_eq!(s, None);
    }

    #[test]
    fn end_not_found() {
        let e = env();
        let (s, _) = select_region(&model("a\n[s]\nk=1"), &r(r"\[s\]", Some(r"\[.*\]")), &e);
        assert_eq!(
            s,
            Some(Selection {
                start: Some(1),
                end: None,
                end_missing: true
            })
        );
        let eof = Region {
            select_end_match_eof: Some(true),
            ..r(r"\[s\]", Some(r"\[.*\]"))
        };
        let (s, _) = select_region(&model("a\n[s]\nk=1"), &eof, &e);
        assert_eq!(s.map(|s| s.end_missing), Some(false));
        let ctl = EditEnv {
            select_end_match_eof: true,
            ..env()
        };
        let (s, _) = select_region(&model("a\n[s]\nk=1"), &r(r"\[s\]", Some(r"\[.*\]")), &ctl);
        assert_eq!(s.map(|s| s.end_missing), Some(false));
    }

    // recorded: cf-agent 3.21.0 -v, file `a` / `[s]`:
    //  verbose: The promised start pattern '\[s\]' found an empty region at the end of file '/srv/cfsim-edit/t/v3.txt'
    #[test]
    fn start_on_last_line_selects_nothing_unless_included() {
        let e = env();
        let (s, m) = select_region(&model("a\n[s]"), &r(r"\[s\]", None), &e);
        assert_eq!(s, None);
        assert_eq!(
            m[0].text,
            r"The promised start pattern '\[s\]' found an empty region at the end of file '/srv/t/f.txt'"
        );
        let inc = Region {
            include_start: true,
            ..r(r"\[s\]", None)
        };
        let (s, _) = select_region(&model("a\n[s]"), &inc, &e);
        assert_eq!(
            s,
            Some(Selection {
                start: Some(1),
                end: None,
                end_missing: false
            })
        );
    }

    #[test]
    fn start_not_found() {
        let e = env();
        let (s, m) = select_region(&model("a\n[t]"), &r(r"\[s\]", None), &e);
        assert_eq!(s, None);
        assert_eq!(m[0].level, LogLevel::Verbose);
        assert_eq!(
            m[0].text,
            r"The promised start pattern '\[s\]' was not found when selecting edit region in '/srv/t/f.txt'"
        );
    }

    #[test]
    fn end_is_searched_after_the_start_only() {
        let e = env();
        let (s, _) = select_region(&model("[t]\n[s]\nx\n[t]"), &r(r"\[s\]", Some(r"\[t\]")), &e);
        assert_eq!(s.map(|s| (s.start, s.end)), Some((Some(1), Some(3))));
    }
}
