//! `insert_lines` (spec §3.4, `VerifyLineInsertions` and its helpers): the `location` body
//! (`select_line_matching`, `before_after`, `first_last`), `insert_type` (literal/string, preserve_block,
//! preserve_all_lines, file, file_preserve_block with `expand_scalars`), `whitespace_policy`,
//! `insert_select`, multi-line promisers, regions, the neighbour check, and the agent's messages.
//!
//! Convergence as the agent does it (recorded on cf-agent 3.21.0): a chunk already present where it would
//! go is kept; otherwise each line is inserted unless it exists anywhere in the region (scanned from the
//! region's first line as it was **before** this promise — so into an empty file every line goes in,
//! duplicates included, and lines prepended by this promise are not seen) or is the neighbour of the
//! insertion point. preserve_block / preserve_all_lines / file_preserve_block skip the per-line and the
//! neighbour test; preserve_all_lines also skips the chunk test.

use super::list::{Id, Lines};
use super::matching::{is_item_in_region, match_policy, match_region, select_line};
use super::region;
use super::{
    end_match_eof, EditEnv, EditResult, LogLevel, Model, OpOut, Out, ReadError, Region, SelectLists,
};

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

struct Ctx<'r, 'x, 'l> {
    req: &'r InsertLines,
    lines: Lines<'l>,
    begin: Option<Id>,
    end: Option<Id>,
    before: bool,
    expand: Expand<'x>,
}

impl Ctx<'_, '_, '_> {
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
    let mut cx = Ctx {
        req,
        lines,
        begin,
        end,
        before,
        expand,
    };

    match &loc.select_line_matching {
        None => {
            insert_to_region(&mut cx, read_file, &mut out);
        }
        Some(re) => {
            let first = loc.first_last.as_deref() == Some("first");
            let Some(found) = select_item_matching(&cx.lines, re, begin, end, first, &mut out)
            else {
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
    let with = [&s.startwith, &s.matching, &s.contains]
        .iter()
        .filter(|l| !l.is_empty())
        .count();
    let not = [&s.not_startwith, &s.not_matching, &s.not_contains]
        .iter()
        .filter(|l| !l.is_empty())
        .count();
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
                out.log(
                    LogLevel::Error,
                    "Line insertion should not use whitespace policy with preserve_block",
                );
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
        if !allow_multi
            && match_region(&cx.lines, &cx.req.promiser, Some(id), cx.end, false, out) > 0
        {
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
fn insert_file(
    cx: &mut Ctx,
    location: Option<Id>,
    mut prev: Option<Id>,
    read_file: ReadFile,
    out: &mut Out,
) -> bool {
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
        let exp = if cx.req.expand_scalars {
            (cx.expand)(raw, &[])
        } else {
            raw.to_string()
        };
        if !select_line(&exp, &cx.req.insert_select, out) {
            continue;
        }
        if !preserve_block
            && is_item_in_region(
                &cx.lines,
                &exp,
                cx.begin,
                cx.end,
                &cx.req.whitespace_policy,
                out,
            )
        {
            out.no_change(format!(
                "Promised file line '{exp}' exists within file '{}'",
                out.env.filename
            ));
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
    let preserve_block = matches!(
        ty.as_str(),
        "preserve_all_lines" | "preserve_block" | "file_preserve_block"
    );
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
        if !preserve_block
            && is_item_in_region(
                &cx.lines,
                buf,
                cx.begin,
                cx.end,
                &cx.req.whitespace_policy,
                out,
            )
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
fn neighbour_matches(
    cx: &Ctx,
    location: Option<Id>,
    line: &str,
    before: bool,
    out: &mut Out,
) -> bool {
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
fn insert_line(
    cx: &mut Ctx,
    line: &str,
    location: Option<Id>,
    prev: Option<Id>,
    out: &mut Out,
) -> bool {
    let filename = out.env.filename;
    // recorded: preserve_all_lines and file_preserve_block skip the neighbour test too (3.21; the older
    // source only skipped it for preserve_block)
    let skip_neighbour = matches!(
        cx.ty(),
        "preserve_block" | "preserve_all_lines" | "file_preserve_block"
    );
    if prev.is_none() && cx.before {
        let Some(head) = cx.lines.head() else {
            if !out.making_changes(&format!("insert promised line '{line}' into '{filename}'")) {
                return true;
            }
            cx.lines.prepend(line);
            out.changed = true;
            out.change(format!(
                "Inserted the promised line '{line}' into '{filename}'"
            ));
            return true;
        };
        if cx.lines.text(head) != line {
            if !out.making_changes(&format!("prepend promised line '{line}' to '{filename}'")) {
                return true;
            }
            cx.lines.prepend(line);
            out.changed = true;
            out.change(format!(
                "Prepended the promised line '{line}' to {filename}"
            ));
            return true;
        }
        out.no_change(format!(
            "Promised line '{line}' exists at start of file '{filename}'"
        ));
        return false;
    }
    if cx.before {
        if !skip_neighbour && neighbour_matches(cx, location, line, true, out) {
            out.no_change(format!(
                "Promised line '{line}' exists before locator in '{filename}'"
            ));
            return false;
        }
        if !out.making_changes(&format!(
            "insert line '{line}' into '{filename}' before locator"
        )) {
            return true;
        }
        cx.lines.insert_after(prev, line);
        out.changed = true;
        out.change(format!(
            "Inserted the promised line '{line}' into '{filename}' before locator"
        ));
        true
    } else {
        if !skip_neighbour && neighbour_matches(cx, location, line, false, out) {
            out.no_change(format!(
                "Promised line '{line}' exists after locator in '{filename}'"
            ));
            return false;
        }
        if !out.making_changes(&format!(
            "insert line '{line}' into '{filename}' after locator"
        )) {
            return true;
        }
        cx.lines.insert_after(location, line);
        out.changed = true;
        out.change(format!(
            "Inserted the promised line '{line}' into '{filename}' after locator"
        ));
        true
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

    fn ins(p: &str) -> InsertLines {
        InsertLines {
            promiser: p.to_string(),
            ..Default::default()
        }
    }

    fn no_file(_: &str) -> Result<Vec<u8>, ReadError> {
        Err(ReadError::Os("No such file or directory".to_string()))
    }

    fn run_env(m: &mut Model, req: &InsertLines, e: &EditEnv) -> OpOut {
        let mut expand = |s: &str, _: &[Option<String>]| s.replace("$(v)", "VAL");
        insert_lines(m, req, e, &no_file, &mut expand)
    }

    fn run(m: &mut Model, req: &InsertLines) -> OpOut {
        run_env(m, req, &env())
    }

    fn after(p: &str) -> String {
        format!("    info: Inserted the promised line '{p}' into '{P}' after locator")
    }

    fn before(p: &str) -> String {
        format!("    info: Inserted the promised line '{p}' into '{P}' before locator")
    }

    fn repaired(p: &str) -> String {
        format!("    info: insert_lines promise '{p}' repaired")
    }

    fn loc(re: Option<&str>, ba: Option<&str>, fl: Option<&str>) -> Option<Location> {
        Some(Location {
            select_line_matching: re.map(str::to_string),
            before_after: ba.map(str::to_string),
            first_last: fl.map(str::to_string),
        })
    }

    fn start() -> Option<Location> {
        loc(None, Some("before"), None)
    }

    // recorded: cf-agent 3.21.0, policy insert_lines: "c"; file a/b
    //     info: Inserted the promised line 'c' into '/srv/cfsim-edit/t/t1.txt' after locator
    //     info: insert_lines promise 'c' repaired
    #[test]
    fn appends_at_end_of_file() {
        let mut m = model("a\nb");
        let o = run(&mut m, &ins("c"));
        assert_eq!(text(&m), "a\nb\nc");
        assert_eq!(shown(&o), vec![after("c"), repaired("c")]);
        assert_eq!(
            (o.result, o.changed, o.ran),
            (EditResult::Repaired, true, true)
        );
    }

    // recorded: cf-agent 3.21.0 -v, insert_lines: "c" on a/b/c
    //  verbose: Promised chunk 'c' exists within selected region of /srv/cfsim-edit/t/t1.txt
    //  verbose: No changes done for the insert_lines promise 'c'
    #[test]
    fn present_chunk_is_kept() {
        let mut m = model("a\nb\nc");
        let o = run(&mut m, &ins("c"));
        assert_eq!(
            lines(&o),
            v(&[
                &format!(" verbose: Promised chunk 'c' exists within selected region of {P}"),
                " verbose: No changes done for the insert_lines promise 'c'",
            ])
        );
        // a plain log line, then the end line's record
        assert_eq!(o.msgs[0].record, None);
        assert_eq!(o.msgs[1].record, Some(EditResult::Kept));
        assert_eq!((o.result, o.changed), (EditResult::Kept, false));
    }

    // recorded: cf-agent 3.21.0, insert_lines: "dup\nx\ndup" into an empty file: all three inserted
    // (spec §3.4 empty-file case, `p/e7.cf`); the second run is kept
    #[test]
    fn empty_file_inserts_duplicates_then_converges() {
        let mut m = model("");
        let o = run(&mut m, &ins("dup\nx\ndup"));
        assert_eq!(text(&m), "dup\nx\ndup");
        assert_eq!(
            shown(&o),
            vec![
                after("dup"),
                after("x"),
                after("dup"),
                repaired("dup\nx\ndup")
            ]
        );
        let o = run(&mut m, &ins("dup\nx\ndup"));
        assert_eq!(o.result, EditResult::Kept);
        assert_eq!(text(&m), "dup\nx\ndup");
    }

    // recorded: cf-agent 3.21.0, the same promise into a file holding `x`: only one dup
    #[test]
    fn existing_content_collapses_duplicates() {
        let mut m = model("x");
        let o = run(&mut m, &ins("dup\nx\ndup"));
        assert_eq!(text(&m), "x\ndup");
        assert_eq!(shown(&o), vec![after("dup"), repaired("dup\nx\ndup")]);
    }

    // recorded: cf-agent 3.21.0, insert_lines: "m1\nm2\nm3" into a/m2/b → a/m2/b/m1/m3
    #[test]
    fn multi_line_skips_present_lines() {
        let mut m = model("a\nm2\nb");
        let o = run(&mut m, &ins("m1\nm2\nm3"));
        assert_eq!(text(&m), "a\nm2\nb\nm1\nm3");
        assert_eq!(
            shown(&o),
            vec![after("m1"), after("m3"), repaired("m1\nm2\nm3")]
        );
    }

    // recorded: cf-agent 3.21.0, insert_lines: "p1\np2" location => start (before) into a/b
    //     info: Prepended the promised line 'p1' to /srv/cfsim-edit/t/i1.txt
    //     info: Inserted the promised line 'p2' into '/srv/cfsim-edit/t/i1.txt' before locator
    #[test]
    fn prepend_without_locator() {
        let mut m = model("a\nb");
        let o = run(
            &mut m,
            &InsertLines {
                location: start(),
                ..ins("p1\np2")
            },
        );
        assert_eq!(text(&m), "p1\np2\na\nb");
        assert_eq!(
            shown(&o),
            vec![
                format!("    info: Prepended the promised line 'p1' to {P}"),
                before("p2"),
                repaired("p1\np2")
            ]
        );
    }

    // recorded: cf-agent 3.21.0, the same into an empty file
    //     info: Inserted the promised line 'p1' into '/srv/cfsim-edit/t/i2.txt'
    //     info: Inserted the promised line 'p2' into '/srv/cfsim-edit/t/i2.txt' before locator
    #[test]
    fn before_into_empty_file() {
        let mut m = model("");
        let o = run(
            &mut m,
            &InsertLines {
                location: start(),
                ..ins("p1\np2")
            },
        );
        assert_eq!(text(&m), "p1\np2");
        assert_eq!(
            shown(&o),
            vec![
                format!("    info: Inserted the promised line 'p1' into '{P}'"),
                before("p2"),
                repaired("p1\np2")
            ]
        );
    }

    // recorded: cf-agent 3.21.0 -v, insert_lines: "p1" location => start on p1/b
    //  verbose: Promised chunk 'p1' exists within selected region of /srv/cfsim-edit/t/i3.txt (promise kept)
    #[test]
    fn before_with_first_line_equal_is_kept() {
        let mut m = model("p1\nb");
        let o = run(
            &mut m,
            &InsertLines {
                location: start(),
                ..ins("p1")
            },
        );
        assert_eq!(
            lines(&o),
            v(&[
                &format!(" verbose: Promised chunk 'p1' exists within selected region of {P} (promise kept)"),
                " verbose: No changes done for the insert_lines promise 'p1'",
            ])
        );
        assert_eq!(o.msgs[0].record, Some(EditResult::Kept));
    }

    // recorded: cf-agent 3.21.0, select_line_matching => "lo.*" on a/loc/b/loc/c: after the last
    #[test]
    fn locator_after_last() {
        let mut m = model("a\nloc\nb\nloc\nc");
        let o = run(
            &mut m,
            &InsertLines {
                location: loc(Some("lo.*"), None, None),
                ..ins("n1\nn2")
            },
        );
        assert_eq!(text(&m), "a\nloc\nb\nloc\nn1\nn2\nc");
        assert_eq!(
            shown(&o),
            vec![after("n1"), after("n2"), repaired("n1\nn2")]
        );
    }

    // recorded: cf-agent 3.21.0, first_last => "first": after the first locator
    #[test]
    fn locator_after_first() {
        let mut m = model("a\nloc\nb\nloc\nc");
        run(
            &mut m,
            &InsertLines {
                location: loc(Some("lo.*"), None, Some("first")),
                ..ins("n1")
            },
        );
        assert_eq!(text(&m), "a\nloc\nn1\nb\nloc\nc");
    }

    // recorded: cf-agent 3.21.0, before_after => "before": before the last locator, in order
    #[test]
    fn locator_before_last() {
        let mut m = model("a\nloc\nb\nloc\nc");
        let o = run(
            &mut m,
            &InsertLines {
                location: loc(Some("lo.*"), Some("before"), None),
                ..ins("n1\nn2")
            },
        );
        assert_eq!(text(&m), "a\nloc\nb\nn1\nn2\nloc\nc");
        assert_eq!(
            shown(&o),
            vec![before("n1"), before("n2"), repaired("n1\nn2")]
        );
    }

    // recorded: cf-agent 3.21.0, before the first locator which is line 1: a prepend, then before
    //     info: Prepended the promised line 'n1' to /srv/cfsim-edit/t/i7.txt
    //     info: Inserted the promised line 'n2' into '/srv/cfsim-edit/t/i7.txt' before locator
    #[test]
    fn locator_before_first_line() {
        let mut m = model("loc\nb\nloc\nc");
        let o = run(
            &mut m,
            &InsertLines {
                location: loc(Some("lo.*"), Some("before"), Some("first")),
                ..ins("n1\nn2")
            },
        );
        assert_eq!(text(&m), "n1\nn2\nloc\nb\nloc\nc");
        assert_eq!(
            shown(&o),
            vec![
                format!("    info: Prepended the promised line 'n1' to {P}"),
                before("n2"),
                repaired("n1\nn2")
            ]
        );
    }

    // recorded: cf-agent 3.21.0, locator not found: the error only (no end line), failed classes,
    // once per run (after the lock)
    //    error: The promised line insertion 'n1' could not select a locator matching regex 'zz.*' in '…'
    #[test]
    fn locator_not_found() {
        let mut m = model("a\nb");
        let o = run(
            &mut m,
            &InsertLines {
                location: loc(Some("zz.*"), None, None),
                ..ins("n1")
            },
        );
        assert_eq!(
            lines(&o),
            vec![format!(
                "   error: The promised line insertion 'n1' could not select a locator matching regex 'zz.*' in '{P}'"
            )]
        );
        assert_eq!(o.msgs[0].record, Some(EditResult::Interrupted));
        assert_eq!((o.result, o.ran), (EditResult::Interrupted, true));
        assert_eq!(text(&m), "a\nb");
    }

    // recorded: cf-agent 3.21.0, locator "a(b" on a(b/x: the literal line is the locator; the regex
    // error is logged for the other line
    #[test]
    fn bad_locator_regex_matches_literally() {
        let mut m = model("a(b\nx");
        let o = run(
            &mut m,
            &InsertLines {
                location: loc(Some("a(b"), None, None),
                ..ins("q")
            },
        );
        assert_eq!(text(&m), "a(b\nq\nx");
        assert_eq!(
            shown(&o)[0],
            "   error: Regular expression error: pcre_compile() 'missing )' in expression 'a(b' (offset: 3)"
        );
    }

    // recorded: cf-agent 3.21.0, preserve_block "line1\nline2\nline3" on line1/x/line2/line3: all
    // three re-appended (present only non-contiguously)
    #[test]
    fn preserve_block_non_contiguous_is_reinserted() {
        let mut m = model("line1\nx\nline2\nline3");
        let req = InsertLines {
            insert_type: "preserve_block".into(),
            ..ins("line1\nline2\nline3")
        };
        let o = run(&mut m, &req);
        assert_eq!(text(&m), "line1\nx\nline2\nline3\nline1\nline2\nline3");
        assert_eq!(
            shown(&o),
            vec![
                after("line1"),
                after("line2"),
                after("line3"),
                repaired("line1\nline2\nline3")
            ]
        );
    }

    // recorded: cf-agent 3.21.0, preserve_block present contiguously in the middle: kept
    #[test]
    fn preserve_block_contiguous_is_kept() {
        let mut m = model("a\nline1\nline2\nb");
        let req = InsertLines {
            insert_type: "preserve_block".into(),
            ..ins("line1\nline2")
        };
        let o = run(&mut m, &req);
        assert_eq!(o.result, EditResult::Kept);
        assert_eq!(text(&m), "a\nline1\nline2\nb");
    }

    // recorded: cf-agent 3.21.0, preserve_block "d\nd" into an empty file: both
    #[test]
    fn preserve_block_into_empty_file() {
        let mut m = model("");
        run(
            &mut m,
            &InsertLines {
                insert_type: "preserve_block".into(),
                ..ins("d\nd")
            },
        );
        assert_eq!(text(&m), "d\nd");
    }

    // recorded: cf-agent 3.21.0, preserve_all_lines "x\nx" on a/x → a/x/x/x
    #[test]
    fn preserve_all_lines_inserts_duplicates() {
        let mut m = model("a\nx");
        let o = run(
            &mut m,
            &InsertLines {
                insert_type: "preserve_all_lines".into(),
                ..ins("x\nx")
            },
        );
        assert_eq!(text(&m), "a\nx\nx\nx");
        assert_eq!(shown(&o), vec![after("x"), after("x"), repaired("x\nx")]);
    }

    // recorded: cf-agent 3.21.0, neighbour test: a line just after the locator counts as present even
    // outside the region ("[t]" after "loc" in [s]/loc/[t] is kept), but not for preserve_all_lines
    #[test]
    fn neighbour_check() {
        let region = Some(Region {
            select_start: Some(r"\[s\]".into()),
            select_end: Some(r"\[t\]".into()),
            ..Default::default()
        });
        let req = InsertLines {
            region,
            location: loc(Some("loc"), None, None),
            ..ins("[t]")
        };
        let mut m = model("[s]\nloc\n[t]");
        let o = run(&mut m, &req);
        assert_eq!(text(&m), "[s]\nloc\n[t]");
        assert_eq!(
            lines(&o),
            v(&[
                &format!(" verbose: Promised line '[t]' exists after locator in '{P}'"),
                " verbose: No changes done for the insert_lines promise '[t]'",
            ])
        );
        let all = InsertLines {
            insert_type: "preserve_all_lines".into(),
            ..req.clone()
        };
        run(&mut m, &all);
        assert_eq!(text(&m), "[s]\nloc\n[t]\n[t]");
        // recorded: also for preserve_all_lines after a plain locator (loc/x/z → loc/x/x/z)
        let mut m = model("loc\nx\nz");
        run(
            &mut m,
            &InsertLines {
                insert_type: "preserve_all_lines".into(),
                location: loc(Some("loc"), None, None),
                ..ins("x")
            },
        );
        assert_eq!(text(&m), "loc\nx\nx\nz");
    }

    // recorded: cf-agent 3.21.0, insert_type => "string" behaves as literal ("a\nb" on a → a/b)
    #[test]
    fn string_type_is_literal() {
        let mut m = model("a");
        let o = run(
            &mut m,
            &InsertLines {
                insert_type: "string".into(),
                ..ins("a\nb")
            },
        );
        assert_eq!(text(&m), "a\nb");
        assert_eq!(shown(&o), vec![after("b"), repaired("a\nb")]);
    }

    // recorded: cf-agent 3.21.0, whitespace_policy on `  lead` / `key    =   value`: "lead"
    // (ignore_leading) and "key = value" (ignore_embedded) kept, "  key    =   value  " inserted
    #[test]
    fn whitespace_policy() {
        let mut m = model("  lead\nkey    =   value");
        let lead = InsertLines {
            whitespace_policy: v(&["ignore_leading"]),
            ..ins("lead")
        };
        assert_eq!(run(&mut m, &lead).result, EditResult::Kept);
        let emb = InsertLines {
            whitespace_policy: v(&["ignore_embedded"]),
            ..ins("key = value")
        };
        assert_eq!(run(&mut m, &emb).result, EditResult::Kept);
        let emb2 = InsertLines {
            whitespace_policy: v(&["ignore_embedded"]),
            ..ins("  key    =   value  ")
        };
        let o = run(&mut m, &emb2);
        assert_eq!(
            shown(&o),
            vec![
                after("  key    =   value  "),
                repaired("  key    =   value  ")
            ]
        );
        assert_eq!(text(&m), "  lead\nkey    =   value\n  key    =   value  ");
    }

    // recorded: cf-agent 3.21.0, ignore_trailing: "a.b" kept against `a.b   `, "a*b" inserted;
    // {"ignore_leading","ignore_trailing"}: "a" kept against `  a  `, " b" (ignore_leading) inserted
    #[test]
    fn whitespace_policy_trailing_and_both() {
        let mut m = model("a.b   \nx");
        let t = |p: &str| InsertLines {
            whitespace_policy: v(&["ignore_trailing"]),
            ..ins(p)
        };
        assert_eq!(run(&mut m, &t("a.b")).result, EditResult::Kept);
        assert_eq!(run(&mut m, &t("a*b")).result, EditResult::Repaired);
        assert_eq!(text(&m), "a.b   \nx\na*b");
        let mut m = model("  a  ");
        let both = InsertLines {
            whitespace_policy: v(&["ignore_leading", "ignore_trailing"]),
            ..ins("a")
        };
        assert_eq!(run(&mut m, &both).result, EditResult::Kept);
        let lead = InsertLines {
            whitespace_policy: v(&["ignore_leading"]),
            ..ins(" b")
        };
        assert_eq!(run(&mut m, &lead).result, EditResult::Repaired);
        assert_eq!(text(&m), "  a  \n b");
    }

    // recorded: cf-agent 3.21.0, whitespace_policy => {"exact_match", "ignore_leading"}: per pass
    //    error: Line insertion selection promise is meaningless - cannot mix exact_match with other ignore whitespace options
    //    error: The promised line insertion 'b' breaks its own promises
    #[test]
    fn sanity_exact_and_ignore() {
        let mut m = model("a");
        let req = InsertLines {
            whitespace_policy: v(&["exact_match", "ignore_leading"]),
            ..ins("b")
        };
        let want = v(&[
            "   error: Line insertion selection promise is meaningless - cannot mix exact_match with other ignore whitespace options",
            "   error: The promised line insertion 'b' breaks its own promises",
        ]);
        let o = run(&mut m, &req);
        assert_eq!(lines(&o), want);
        assert_eq!((o.result, o.ran), (EditResult::Interrupted, false));
        // printed again in later passes (before the lock)
        let again = EditEnv {
            already_ran: true,
            ..env()
        };
        assert_eq!(lines(&run_env(&mut m, &req, &again)), want);
        assert_eq!(text(&m), "a");
    }

    // recorded: cf-agent 3.21.0, preserve_block with whitespace_policy => {"ignore_leading"}
    //    error: Line insertion should not use whitespace policy with preserve_block
    //    error: The promised line insertion 'b' breaks its own promises
    #[test]
    fn sanity_preserve_block_with_policy() {
        let mut m = model("a");
        let req = InsertLines {
            insert_type: "preserve_block".into(),
            whitespace_policy: v(&["ignore_leading"]),
            ..ins("b")
        };
        assert_eq!(
            lines(&run(&mut m, &req)),
            v(&[
                "   error: Line insertion should not use whitespace policy with preserve_block",
                "   error: The promised line insertion 'b' breaks its own promises",
            ])
        );
    }

    fn sel(f: impl Fn(&mut SelectLists)) -> SelectLists {
        let mut s = SelectLists::default();
        f(&mut s);
        s
    }

    // recorded: cf-agent 3.21.0, insert_select on "ab1\ncd2\nab3" / "ab1\ncd2\nabc3" into x
    #[test]
    fn insert_select_lists() {
        let cases: Vec<(&str, SelectLists, &str)> = vec![
            (
                "ab1\ncd2\nab3",
                sel(|s| s.startwith = v(&["ab", "zz"])),
                "x\nab1\nab3",
            ),
            (
                "ab1\ncd2\nab3",
                sel(|s| s.not_startwith = v(&["ab"])),
                "x\ncd2",
            ),
            (
                "ab1\ncd2\nabc3",
                sel(|s| s.matching = v(&["ab.", "c"])),
                "x\nab1",
            ),
            (
                "ab1\ncd2\nabc3",
                sel(|s| s.not_matching = v(&["ab."])),
                "x\ncd2\nabc3",
            ),
            (
                "ab1\ncd2\nabc3",
                sel(|s| s.contains = v(&["c"])),
                "x\ncd2\nabc3",
            ),
            (
                "ab1\ncd2\nabc3",
                sel(|s| s.not_contains = v(&["c"])),
                "x\nab1",
            ),
            // two positive lists: startwith decides
            (
                "ab1\ncd2",
                sel(|s| {
                    s.contains = v(&["c"]);
                    s.startwith = v(&["a"])
                }),
                "x\nab1",
            ),
        ];
        for (p, s, want) in cases {
            let mut m = model("x");
            run(
                &mut m,
                &InsertLines {
                    insert_select: s,
                    ..ins(p)
                },
            );
            assert_eq!(text(&m), want, "{p}");
        }
        // every line filtered out: kept
        let mut m = model("x");
        let o = run(
            &mut m,
            &InsertLines {
                insert_select: sel(|s| s.contains = v(&["zz"])),
                ..ins("ab1")
            },
        );
        assert_eq!(o.result, EditResult::Kept);
    }

    // recorded: cf-agent 3.21.0, two negative lists / positive and negative (each pass, failed)
    #[test]
    fn insert_select_sanity() {
        let mut m = model("x");
        let two = sel(|s| {
            s.not_contains = v(&["c"]);
            s.not_matching = v(&["c"])
        });
        assert_eq!(
            lines(&run(&mut m, &InsertLines { insert_select: two, ..ins("ab1") })),
            v(&[
                "   error: Line insertion selection promise is meaningless - the alternatives are mutually exclusive (only one is allowed)",
                "   error: The promised line insertion 'ab1' breaks its own promises",
            ])
        );
        let mixed = sel(|s| {
            s.contains = v(&["c"]);
            s.not_matching = v(&["c"])
        });
        assert_eq!(
            lines(&run(&mut m, &InsertLines { insert_select: mixed, ..ins("ab1") })),
            v(&[
                "   error: Line insertion selection promise is meaningless - cannot mix positive and negative constraints",
                "   error: The promised line insertion 'ab1' breaks its own promises",
            ])
        );
    }

    fn src(_: &str) -> Result<Vec<u8>, ReadError> {
        Ok(b"f1\n$(v)\nf2\n".to_vec())
    }

    fn run_file(m: &mut Model, req: &InsertLines) -> OpOut {
        let mut expand = |s: &str, _: &[Option<String>]| s.replace("$(v)", "VAL");
        insert_lines(m, req, &env(), &src, &mut expand)
    }

    // recorded: cf-agent 3.21.0, insert_type => "file" with src.txt = f1/$(v)/f2 (v = "VAL"):
    // on x/f2 → x/f2/f1/$(v); with expand_scalars on x → x/f1/VAL/f2
    #[test]
    fn insert_file() {
        let mut m = model("x\nf2");
        let req = InsertLines {
            insert_type: "file".into(),
            ..ins("/srv/src.txt")
        };
        let o = run_file(&mut m, &req);
        assert_eq!(text(&m), "x\nf2\nf1\n$(v)");
        assert_eq!(
            shown(&o),
            vec![after("f1"), after("$(v)"), repaired("/srv/src.txt")]
        );
        let mut m = model("x");
        let exp = InsertLines {
            expand_scalars: true,
            ..req.clone()
        };
        let o = run_file(&mut m, &exp);
        assert_eq!(text(&m), "x\nf1\nVAL\nf2");
        assert_eq!(
            shown(&o),
            vec![
                after("f1"),
                after("VAL"),
                after("f2"),
                repaired("/srv/src.txt")
            ]
        );
        // into an empty file, in order
        let mut m = model("");
        run_file(&mut m, &req);
        assert_eq!(text(&m), "f1\n$(v)\nf2");
    }

    // recorded: cf-agent 3.21.0, file_preserve_block on f1/x → f1/x/f1/$(v)/f2
    #[test]
    fn insert_file_preserve_block() {
        let mut m = model("f1\nx");
        run_file(
            &mut m,
            &InsertLines {
                insert_type: "file_preserve_block".into(),
                ..ins("/srv/src.txt")
            },
        );
        assert_eq!(text(&m), "f1\nx\nf1\n$(v)\nf2");
    }

    // recorded: cf-agent 3.21.0, file_preserve_block with src3.txt = x after locator loc on loc/x/z:
    // no neighbour test → loc/x/x/z
    #[test]
    fn insert_file_preserve_block_skips_neighbour() {
        let mut m = model("loc\nx\nz");
        let one = |_: &str| Ok(b"x\n".to_vec());
        let mut expand = |s: &str, _: &[Option<String>]| s.to_string();
        let req = InsertLines {
            insert_type: "file_preserve_block".into(),
            location: loc(Some("loc"), None, None),
            ..ins("/srv/src3.txt")
        };
        let o = insert_lines(&mut m, &req, &env(), &one, &mut expand);
        assert_eq!(text(&m), "loc\nx\nx\nz");
        assert_eq!(shown(&o), vec![after("x"), repaired("/srv/src3.txt")]);
    }

    // recorded: cf-agent 3.21.0, a missing file and a directory
    //    error: Could not read file '/srv/cfsim-edit/nonexist.txt'. (fopen: No such file or directory)
    //    error: Errors encountered when actuating insert_lines promise '/srv/cfsim-edit/nonexist.txt'
    //    error: Could not insert lines from a directory '/srv/cfsim-edit/adir'
    #[test]
    fn insert_file_errors() {
        let mut m = model("x");
        let req = InsertLines {
            insert_type: "file".into(),
            ..ins("/srv/nonexist.txt")
        };
        let o = run(&mut m, &req);
        assert_eq!(
            shown(&o),
            v(&[
                "   error: Could not read file '/srv/nonexist.txt'. (fopen: No such file or directory)",
                "   error: Errors encountered when actuating insert_lines promise '/srv/nonexist.txt'",
            ])
        );
        assert_eq!(o.result, EditResult::Interrupted);
        let dir = |_: &str| Err(ReadError::IsDirectory);
        let mut expand = |s: &str, _: &[Option<String>]| s.to_string();
        let o = insert_lines(
            &mut m,
            &InsertLines {
                promiser: "/srv/adir".into(),
                ..req
            },
            &env(),
            &dir,
            &mut expand,
        );
        assert_eq!(
            shown(&o),
            v(&[
                "   error: Could not insert lines from a directory '/srv/adir'",
                "   error: Errors encountered when actuating insert_lines promise '/srv/adir'",
            ])
        );
    }

    fn region(start: &str, end: Option<&str>, eof: Option<bool>) -> Option<Region> {
        Some(Region {
            select_start: Some(start.into()),
            select_end: end.map(str::to_string),
            select_end_match_eof: eof,
            ..Default::default()
        })
    }

    // recorded: cf-agent 3.21.0, select_region [s]..[.*]: new=1 lands before the end delimiter, even when
    // present outside the region
    #[test]
    fn region_insert() {
        let mut m = model("a\n[s]\nk=1\n[t]\nz");
        let req = InsertLines {
            region: region(r"\[s\]", Some(r"\[.*\]"), None),
            ..ins("new=1")
        };
        let o = run(&mut m, &req);
        assert_eq!(text(&m), "a\n[s]\nk=1\nnew=1\n[t]\nz");
        assert_eq!(shown(&o), vec![after("new=1"), repaired("new=1")]);
        let mut m = model("new=1\n[s]\nk=1\n[t]\nnew=1");
        run(&mut m, &req);
        assert_eq!(text(&m), "new=1\n[s]\nk=1\nnew=1\n[t]\nnew=1");
        // an empty region
        let mut m = model("a\n[s]\n[t]\nz");
        run(&mut m, &req);
        assert_eq!(text(&m), "a\n[s]\nnew=1\n[t]\nz");
        // include_* change nothing for inserts
        let mut inc = req.clone();
        if let Some(r) = inc.region.as_mut() {
            r.include_start = true;
            r.include_end = true;
        }
        let mut m = model("a\n[s]\nk=1\n[t]\nz");
        run(&mut m, &inc);
        assert_eq!(text(&m), "a\n[s]\nk=1\nnew=1\n[t]\nz");
    }

    // recorded: cf-agent 3.21.0, a line equal to the start delimiter counts as present in the region
    #[test]
    fn region_scan_includes_start_delimiter() {
        let mut m = model("a\n[s]\nk=1\n[t]\nz");
        let req = InsertLines {
            region: region(r"\[s\]", Some(r"\[.*\]"), None),
            ..ins("[s]")
        };
        assert_eq!(run(&mut m, &req).result, EditResult::Kept);
    }

    // recorded: cf-agent 3.21.0, region + location => start: prepended to the FILE (spec §3.4 says region)
    //     info: Prepended the promised line 'new=1' to /srv/cfsim-edit/t/r7.txt
    #[test]
    fn region_before_prepends_to_file() {
        let mut m = model("a\n[s]\nk=1\n[t]\nz");
        let req = InsertLines {
            region: region(r"\[s\]", Some(r"\[.*\]"), None),
            location: start(),
            ..ins("new=1")
        };
        let o = run(&mut m, &req);
        assert_eq!(text(&m), "new=1\na\n[s]\nk=1\n[t]\nz");
        assert_eq!(
            shown(&o)[0],
            format!("    info: Prepended the promised line 'new=1' to {P}")
        );
    }

    // recorded: cf-agent 3.21.0, region errors (each pass, failed classes, no end line)
    //    error: The promised line insertion 'new=1' could not select an edit region in '…'
    //    error: The promised end pattern '\[.*\]' was not found when selecting region to insert in '…'
    #[test]
    fn region_errors() {
        let req = InsertLines {
            region: region(r"\[s\]", Some(r"\[.*\]"), None),
            ..ins("new=1")
        };
        let mut m = model("a\n[t]");
        let o = run(&mut m, &req);
        assert_eq!(
            shown(&o),
            vec![format!("   error: The promised line insertion 'new=1' could not select an edit region in '{P}'")]
        );
        assert_eq!((o.result, o.ran), (EditResult::Interrupted, false));
        let mut m = model("a\n[s]\nk=1");
        let o = run(&mut m, &req);
        assert_eq!(
            shown(&o),
            vec![format!(
                r"   error: The promised end pattern '\[.*\]' was not found when selecting region to insert in '{P}'"
            )]
        );
        // with select_end_match_eof the region runs to the end of the file
        let eof = InsertLines {
            region: region(r"\[s\]", Some(r"\[.*\]"), Some(true)),
            ..ins("new=1")
        };
        run(&mut m, &eof);
        assert_eq!(text(&m), "a\n[s]\nk=1\nnew=1");
        // the start on the last line: no region even with eof
        let mut m = model("a\n[s]");
        let o = run(&mut m, &eof);
        assert_eq!(o.result, EditResult::Interrupted);
        assert_eq!(text(&m), "a\n[s]");
        // no select_end: to the end of the file
        let mut m = model("a\n[s]\nk=1\n[t]\nz");
        run(
            &mut m,
            &InsertLines {
                region: region(r"\[s\]", None, None),
                ..ins("new=1")
            },
        );
        assert_eq!(text(&m), "a\n[s]\nk=1\n[t]\nz\nnew=1");
    }

    // recorded: cf-agent 3.21.0 -n: "x\ny" into a / with location => start / into an empty file / before
    // a locator / "x\nx" into an empty file
    #[test]
    fn dry_run_messages() {
        let mut m = model("a");
        let o = run_env(&mut m, &ins("x\ny"), &dry());
        assert_eq!(
            shown(&o),
            v(&[
                &format!(" warning: Should insert line 'x' into '{P}' after locator"),
                &format!(" warning: Should insert line 'y' into '{P}' after locator"),
                " warning: Warnings encountered when actuating insert_lines promise 'x\ny'",
            ])
        );
        assert_eq!((o.result, o.changed), (EditResult::Warn, false));
        assert_eq!(text(&m), "a");
        let o = run_env(
            &mut m,
            &InsertLines {
                location: start(),
                ..ins("x\ny")
            },
            &dry(),
        );
        assert_eq!(
            shown(&o)[..2],
            v(&[
                &format!(" warning: Should prepend promised line 'x' to '{P}'"),
                &format!(" warning: Should insert line 'y' into '{P}' before locator"),
            ])[..]
        );
        let mut e = model("");
        let o = run_env(
            &mut e,
            &InsertLines {
                location: start(),
                ..ins("x\ny")
            },
            &dry(),
        );
        assert_eq!(
            shown(&o)[..2],
            v(&[
                &format!(" warning: Should insert promised line 'x' into '{P}'"),
                &format!(" warning: Should insert promised line 'y' into '{P}'"),
            ])[..]
        );
        let mut l = model("a\nloc");
        let o = run_env(
            &mut l,
            &InsertLines {
                location: loc(Some("loc"), Some("before"), None),
                ..ins("x")
            },
            &dry(),
        );
        assert_eq!(
            shown(&o)[0],
            format!(" warning: Should insert line 'x' into '{P}' before locator")
        );
        let o = run_env(&mut e, &ins("x\nx"), &dry());
        assert_eq!(shown(&o).len(), 3);
    }

    // recorded: cf-agent 3.21.0, action_policy => "warn":
    //  warning: Should insert line 'x' into '/srv/cfsim-edit/t/n1.txt' after locator, but only warning promised
    //  warning: Should prepend promised line 'x' to '/srv/cfsim-edit/t/n2.txt', but only warning promised
    #[test]
    fn warn_only_messages() {
        let mut m = model("a");
        let o = run_env(&mut m, &ins("x\ny"), &warn());
        assert_eq!(
            shown(&o),
            v(&[
                &format!(" warning: Should insert line 'x' into '{P}' after locator, but only warning promised"),
                &format!(" warning: Should insert line 'y' into '{P}' after locator, but only warning promised"),
                " warning: Warnings encountered when actuating insert_lines promise 'x\ny'",
            ])
        );
        let o = run_env(
            &mut m,
            &InsertLines {
                location: start(),
                ..ins("x")
            },
            &warn(),
        );
        assert_eq!(
            shown(&o)[0],
            format!(
                " warning: Should prepend promised line 'x' to '{P}', but only warning promised"
            )
        );
        assert_eq!(o.msgs[0].record, Some(EditResult::Warn));
    }

    // recorded: cf-agent 3.21.0, a promiser ending in a newline inserts an empty line (a → a/b/''),
    // and an empty line already in the region counts as present ('' /q → ''/q/z for "z\n")
    #[test]
    fn trailing_newline_promiser() {
        let mut m = model("a");
        let o = run(&mut m, &ins("b\n"));
        assert_eq!(m.lines, v(&["a", "b", ""]));
        assert_eq!(shown(&o), vec![after("b"), after(""), repaired("b\n")]);
        assert_eq!(run(&mut m, &ins("b\n")).result, EditResult::Kept);
        let mut m = model("\nq");
        run(&mut m, &ins("z\n"));
        assert_eq!(m.lines, v(&["", "q", "z"]));
    }

    // recorded: cf-agent 3.21.0 -v, kept lines of a chunk present line by line (quoted file name, a
    // record each) and of a line found after its locator
    //  verbose: Promised chunk 'c\na' exists within selected region of '/srv/cfsim-edit/t/va1.txt'  (twice)
    #[test]
    fn kept_lines_per_line() {
        let mut m = model("a\nb\nloc\nc");
        let o = run(&mut m, &ins("c\na"));
        let quoted =
            format!(" verbose: Promised chunk 'c\na' exists within selected region of '{P}'");
        assert_eq!(
            lines(&o),
            v(&[
                &quoted,
                &quoted,
                " verbose: No changes done for the insert_lines promise 'c\na'"
            ])
        );
        assert!(o.msgs.iter().all(|m| m.record == Some(EditResult::Kept)));
    }

    #[test]
    fn already_ran_is_skipped_silently() {
        let mut m = model("a");
        let o = run_env(
            &mut m,
            &ins("b"),
            &EditEnv {
                already_ran: true,
                ..env()
            },
        );
        assert!(o.msgs.is_empty());
        assert_eq!(
            (o.result, o.ran, o.changed),
            (EditResult::Skipped, false, false)
        );
        assert_eq!(text(&m), "a");
    }
}
