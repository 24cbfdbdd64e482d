//! `insert_lines` (spec §3.4, `VerifyLineInsertions` and its helpers): the `location` body
//! (`select_line_matching`, `before_after`, `first_last`), `insert_type` (literal/string, preserve_block,
//! preserve_all_lines, file, file_preserve_block with `expand_scalars`), `whitespace_policy`,
//! `insert_select`, multi-line promisers, regions, the neighbour check, and the agent's messages.
//!
//! Convergence as the agent does it (recorded on cf-agent 3.21.0): a chunk already present where it would
//! go is kept; otherwise each line is inserted unless it exists anywhere in the region (scanned from the
//! region's first line as it was **before** this promise — so into an empty file every line goes in,
//! duplicates included, and lines prepended by this promise are not seen) or is the neighbour of the
//! insertion point. preserve_block / preserve_all_lines / file_preserve_block skip the per-line test;
//! preserve_all_lines also skips the chunk test and the neighbour test.

use super::list::{Id, Lines};
use super::matching::{is_item_in_region, match_policy, match_region, select_line};
use super::region;
use super::{end_match_eof, EditEnv, EditResult, LogLevel, Model, OpOut, Out, ReadError, Region, SelectLists};

/// `location` body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// Full-match regex for the locator line.
    pub select_line_matching: Option<String>,
    /// `"before"` or `"after"` (default).
    pub before_after: Option<String>,
    /// `"first"` or `"last"` (default).
    pub first_last: Option<String>,
}

/// One `insert_lines` promise, attributes expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsertLines {
    /// The line(s) to insert, or for `insert_type` file/file_preserve_block the file to read them from.
    pub promiser: String,
    pub region: Option<Region>,
    pub location: Option<Location>,
    /// `literal` (default), `string`, `preserve_block`, `preserve_all_lines`, `file`, `file_preserve_block`.
    pub insert_type: String,
    pub whitespace_policy: Vec<String>,
    pub insert_select: SelectLists,
    /// Expand `$(…)` in lines read from a file (`insert_type` file/file_preserve_block).
    pub expand_scalars: bool,
}

impl Default for InsertLines {
    fn default() -> Self {
        InsertLines {
            promiser: String::new(),
            region: None,
            location: None,
            insert_type: "literal".to_string(),
            whitespace_policy: Vec::new(),
            insert_select: SelectLists::default(),
            expand_scalars: false,
        }
    }
}

/// Reads the promiser file for `insert_type => "file"`.
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, ReadError>;
/// Expands `$(…)` in a string; the slice holds `match.0..N` where a regex match is in scope.
pub type Expand<'a> = &'a mut dyn FnMut(&str, &[Option<String>]) -> String;

struct Ctx<'r, 'x> {
    req: &'r InsertLines,
    lines: Lines,
    begin: Option<Id>,
    end: Option<Id>,
    before: bool,
    expand: Expand<'x>,
}

impl Ctx<'_, '_> {
    fn ty(&self) -> &str {
        self.req.insert_type.as_str()
    }
}

/// Actuates one `insert_lines` promise on the model.
pub fn insert_lines(
    model: &mut Model,
    req: &InsertLines,
    env: &EditEnv,
    read_file: ReadFile,
    expand: Expand,
) -> OpOut {
    let mut out = Out::new(env);
    let filename = env.filename;
    let p = req.promiser.as_str();

    if !sanity_check(req, &mut out) {
        out.record(
            LogLevel::Error,
            EditResult::Interrupted,
            format!("The promised line insertion '{p}' breaks its own promises"),
        );
        return out.finish();
    }

    let lines = Lines::from_lines(&model.lines);
    let (mut begin, mut end) = (lines.head(), None);
    if let Some(r) = &req.region {
        let Some(b) = region::select(&lines, r, &mut out) else {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("The promised line insertion '{p}' could not select an edit region in '{filename}'"),
            );
            return out.finish();
        };
        if b.end.is_none() && r.select_end.is_some() && !end_match_eof(r, env) {
            let e = r.select_end.as_deref().unwrap_or_default();
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("The promised end pattern '{e}' was not found when selecting region to insert in '{filename}'"),
            );
            return out.finish();
        }
        begin = b.begin;
        end = b.end;
    }

    if env.already_ran {
        out.result = EditResult::Skipped;
        return out.finish();
    }
    out.ran = true;

    let loc = req.location.clone().unwrap_or_default();
    let before = loc.before_after.as_deref() == Some("before");
    let mut cx = Ctx { req, lines, begin, end, before, expand };

    match &loc.select_line_matching {
        None => {
            insert_to_region(&mut cx, read_file, &mut out);
        }
        Some(re) => {
            let first = loc.first_last.as_deref() == Some("first");
            let Some(found) = select_item_matching(&cx.lines, re, begin, end, first, &mut out) else {
                out.record(
                    LogLevel::Error,
                    EditResult::Interrupted,
                    format!(
                        "The promised line insertion '{p}' could not select a locator matching regex '{re}' in '{filename}'"
                    ),
                );
                return out.finish();
            };
            let prev = cx.lines.prev_of(found);
            insert_at_location(&mut cx, Some(found), prev, read_file, &mut out);
        }
    }

    out.end_line("insert_lines", p);
    if out.changed {
        model.lines = cx.lines.to_lines();
    }
    out.finish()
}

/// `SanityCheckInsertions`; logs each complaint.
fn sanity_check(req: &InsertLines, out: &mut Out) -> bool {
    let s = &req.insert_select;
    let with = [&s.startwith, &s.matching, &s.contains].iter().filter(|l| !l.is_empty()).count();
    let not = [&s.not_startwith, &s.not_matching, &s.not_contains].iter().filter(|l| !l.is_empty()).count();
    let mut ok = true;
    if not > 1 {
        out.log(
            LogLevel::Error,
            "Line insertion selection promise is meaningless - the alternatives are mutually exclusive (only one is allowed)",
        );
        ok = false;
    }
    if with > 0 && not > 0 {
        out.log(
            LogLevel::Error,
            "Line insertion selection promise is meaningless - cannot mix positive and negative constraints",
        );
        ok = false;
    }
    let preserve_block = req.insert_type == "preserve_block";
    let mut exact = false;
    let mut ignore = false;
    for p in &req.whitespace_policy {
        if p == "exact_match" {
            exact = true;
        } else {
            ignore = true;
            if preserve_block {
                out.log(LogLevel::Error, "Line insertion should not use whitespace policy with preserve_block");
                ok = false;
            }
        }
    }
    if exact && ignore {
        out.log(
            LogLevel::Error,
            "Line insertion selection promise is meaningless - cannot mix exact_match with other ignore whitespace options",
        );
        ok = false;
    }
    ok
}

/// `SelectItemMatching`: the first or last line in the region fully matching the locator regex.
fn select_item_matching(
    lines: &Lines,
    re: &str,
    begin: Option<Id>,
    end: Option<Id>,
    first: bool,
    out: &mut Out,
) -> Option<Id> {
    let ids: Vec<Id> = lines.iter(begin, end).collect();
    let mut found = None;
    for id in ids {
        if super::matching::full_text_match(re, lines.text(id), out) {
            found = Some(id);
            if first {
                break;
            }
        }
    }
    found
}

/// `InsertMultipleLinesToRegion`: no locator — at the region's (file's) end, or its start for `before`.
fn insert_to_region(cx: &mut Ctx, read_file: ReadFile, out: &mut Out) -> bool {
    if cx.lines.head().is_none() {
        return insert_at_location(cx, None, None, read_file, out);
    }
    if cx.before {
        if cx.begin.is_some() {
            return insert_at_location(cx, cx.begin, None, read_file, out);
        }
        return false;
    }
    let allow_multi = cx.ty() == "preserve_all_lines";
    let mut prev = None;
    let mut ip = cx.begin;
    while let Some(id) = ip {
        if !allow_multi && match_region(&cx.lines, &cx.req.promiser, Some(id), cx.end, false, out) > 0 {
            out.log(
                LogLevel::Verbose,
                format!(
                    "Promised chunk '{}' exists within selected region of {}",
                    cx.req.promiser, out.env.filename
                ),
            );
            return false;
        }
        let next = cx.lines.next(id);
        if next.is_none() || next == cx.end {
            return insert_at_location(cx, Some(id), prev, read_file, out);
        }
        prev = Some(id);
        ip = next;
    }
    false
}

/// `InsertMultipleLinesAtLocation`.
fn insert_at_location(
    cx: &mut Ctx,
    location: Option<Id>,
    prev: Option<Id>,
    read_file: ReadFile,
    out: &mut Out,
) -> bool {
    if matches!(cx.ty(), "file" | "file_preserve_block") {
        insert_file(cx, location, prev, read_file, out)
    } else {
        let chunk = cx.req.promiser.clone();
        insert_compound(cx, &chunk, location, prev, out)
    }
}

/// `InsertFileAtLocation`: the promiser file's lines, one compound insertion each.
fn insert_file(cx: &mut Ctx, location: Option<Id>, mut prev: Option<Id>, read_file: ReadFile, out: &mut Out) -> bool {
    let p = cx.req.promiser.clone();
    let data = match read_file(&p) {
        Ok(d) => d,
        Err(ReadError::IsDirectory) => {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("Could not insert lines from a directory '{p}'"),
            );
            return false;
        }
        Err(ReadError::Os(e)) => {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("Could not read file '{p}'. (fopen: {e})"),
            );
            return false;
        }
    };
    let text = String::from_utf8_lossy(&data).into_owned();
    let mut file_lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        file_lines.pop();
    }
    let preserve_block = cx.ty() == "file_preserve_block";
    let mut loc = location;
    let mut retval = false;
    for raw in file_lines {
        let exp = if cx.req.expand_scalars { (cx.expand)(raw, &[]) } else { raw.to_string() };
        if !select_line(&exp, &cx.req.insert_select, out) {
            continue;
        }
        if !preserve_block
            && is_item_in_region(&cx.lines, &exp, cx.begin, cx.end, &cx.req.whitespace_policy, out)
        {
            out.no_change(format!("Promised file line '{exp}' exists within file '{}'", out.env.filename));
            continue;
        }
        retval |= insert_compound(cx, &exp, loc, prev, out);
        prev = match prev {
            Some(pv) => cx.lines.next(pv),
            None => cx.lines.head(),
        };
        // the agent advances its locator only while it has one (an empty file keeps appending)
        if let Some(l) = loc {
            loc = cx.lines.next(l);
        }
    }
    retval
}

/// `InsertCompoundLineAtLocation`: a (multi-line) chunk at a location, line by line.
fn insert_compound(
    cx: &mut Ctx,
    chunk: &str,
    mut location: Option<Id>,
    mut prev: Option<Id>,
    out: &mut Out,
) -> bool {
    let ty = cx.ty().to_string();
    let preserve_all = ty == "preserve_all_lines";
    let preserve_block = matches!(ty.as_str(), "preserve_all_lines" | "preserve_block" | "file_preserve_block");
    let filename = out.env.filename;
    if !preserve_all && match_region(&cx.lines, chunk, location, None, false, out) > 0 {
        out.no_change(format!(
            "Promised chunk '{}' exists within selected region of {filename} (promise kept)",
            cx.req.promiser
        ));
        return false;
    }
    let mut retval = false;
    for buf in chunk.split('\n') {
        if !select_line(buf, &cx.req.insert_select, out) {
            continue;
        }
        if !preserve_block && is_item_in_region(&cx.lines, buf, cx.begin, cx.end, &cx.req.whitespace_policy, out)
        {
            out.no_change(format!(
                "Promised chunk '{}' exists within selected region of '{filename}'",
                cx.req.promiser
            ));
            continue;
        }
        retval |= insert_line(cx, buf, location, prev, out);
        if preserve_block && cx.before && location.is_none() && prev.is_none() {
            location = cx.lines.head();
        }
        prev = match prev {
            Some(pv) => cx.lines.next(pv),
            None => cx.lines.head(),
        };
        location = match location {
            Some(l) => cx.lines.next(l),
            None => cx.lines.head(),
        };
    }
    retval
}

/// `NeighbourItemMatches`: the line just before (`before`) or after the location is the new line.
fn neighbour_matches(cx: &Ctx, location: Option<Id>, line: &str, before: bool, out: &mut Out) -> bool {
    let ids: Vec<Id> = cx.lines.iter(cx.lines.head(), None).collect();
    for ip in ids {
        let next = cx.lines.next(ip);
        if before {
            if next.is_some() && next == location {
                return match_policy(line, cx.lines.text(ip), &cx.req.whitespace_policy, out);
            }
        } else if Some(ip) == location {
            return match next {
                Some(n) => match_policy(line, cx.lines.text(n), &cx.req.whitespace_policy, out),
                None => false,
            };
        }
    }
    false
}

/// `InsertLineAtLocation`: one line.
fn insert_line(cx: &mut Ctx, line: &str, location: Option<Id>, prev: Option<Id>, out: &mut Out) -> bool {
    let filename = out.env.filename;
    // recorded: preserve_all_lines skips the neighbour test too (3.21; the older source only skipped it
    // for preserve_block)
    let skip_neighbour = matches!(cx.ty(), "preserve_block" | "preserve_all_lines");
    if prev.is_none() && cx.before {
        let Some(head) = cx.lines.head() else {
            if !out.making_changes(&format!("insert promised line '{line}' into '{filename}'")) {
                return true;
            }
            cx.lines.prepend(line);
            out.changed = true;
            out.change(format!("Inserted the promised line '{line}' into '{filename}'"));
            return true;
        };
        if cx.lines.text(head) != line {
            if !out.making_changes(&format!("prepend promised line '{line}' to '{filename}'")) {
                return true;
            }
            cx.lines.prepend(line);
            out.changed = true;
            out.change(format!("Prepended the promised line '{line}' to {filename}"));
            return true;
        }
        out.no_change(format!("Promised line '{line}' exists at start of file '{filename}'"));
        return false;
    }
    if cx.before {
        if !skip_neighbour && neighbour_matches(cx, location, line, true, out) {
            out.no_change(format!("Promised line '{line}' exists before locator in '{filename}'"));
            return false;
        }
        if !out.making_changes(&format!("insert line '{line}' into '{filename}' before locator")) {
            return true;
        }
        cx.lines.insert_after(prev, line);
        out.changed = true;
        out.change(format!("Inserted the promised line '{line}' into '{filename}' before locator"));
        true
    } else {
        if !skip_neighbour && neighbour_matches(cx, location, line, false, out) {
            out.no_change(format!("Promised line '{line}' exists after locator in '{filename}'"));
            return false;
        }
        if !out.making_changes(&format!("insert line '{line}' into '{filename}' after locator")) {
            return true;
        }
        cx.lines.insert_after(location, line);
        out.changed = true;
        out.change(format!("Inserted the promised line '{line}' into '{filename}' after locator"));
        true
    }
}
