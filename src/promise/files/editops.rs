//! The promise types of `edit_line` bundles (insert_lines, delete_lines, replace_patterns,
//! field_edits) run on the model of the file being edited: their bodies flattened and expanded, the
//! per-file lock (called every pass, as the agent repeats what comes before its lock), the lines
//! each op logs (INFO held back by the driver) and the outcome classes they set; and `cfengine`
//! templates turned into `preserve_all_lines` insertions.

use super::edit::{self, EditEnv, EditResult, Model, OpOut, Region, SelectLists};
use super::result::Res;
use super::Pr;
use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::{Promise, Rval};

fn truthy(s: &str) -> bool {
    matches!(s, "true" | "yes" | "on")
}

/// A body's attributes as strings and lists.
struct Body(Vec<(String, Rval)>);

impl Body {
    fn get(&self, e: &mut Engine<'_>, l: &str) -> Option<String> {
        let rv = self
            .0
            .iter()
            .rev()
            .find(|(k, _)| k == l)
            .map(|(_, v)| v.clone())?;
        e.scalar_of(&rv)
    }
    fn list(&self, e: &mut Engine<'_>, l: &str) -> Vec<String> {
        match self
            .0
            .iter()
            .rev()
            .find(|(k, _)| k == l)
            .map(|(_, v)| v.clone())
        {
            Some(rv) => e.list_of(&rv),
            None => Vec::new(),
        }
    }
    fn flag(&self, e: &mut Engine<'_>, l: &str) -> bool {
        self.get(e, l).is_some_and(|v| truthy(&v))
    }
}

fn body(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, lval: &str) -> Option<Body> {
    Engine::constraint(p, lval)?;
    Some(Body(e.body_attrs(def, p, lval, lval)))
}

fn region(e: &mut Engine<'_>, def: &BundleDef, p: &Promise) -> Option<Region> {
    let b = body(e, def, p, "select_region")?;
    let eof = b.get(e, "select_end_match_eof").map(|v| truthy(&v));
    Some(Region {
        select_start: b.get(e, "select_start"),
        select_end: b.get(e, "select_end"),
        include_start: b.flag(e, "include_start_delimiter"),
        include_end: b.flag(e, "include_end_delimiter"),
        select_end_match_eof: eof,
    })
}

fn select_lists(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    lval: &str,
    pre: &str,
) -> SelectLists {
    let Some(b) = body(e, def, p, lval) else {
        return SelectLists::default();
    };
    SelectLists {
        startwith: b.list(e, &format!("{pre}_startwith_from_list")),
        not_startwith: b.list(e, &format!("{pre}_not_startwith_from_list")),
        matching: b.list(e, &format!("{pre}_match_from_list")),
        not_matching: b.list(e, &format!("{pre}_not_match_from_list")),
        contains: b.list(e, &format!("{pre}_contains_from_list")),
        not_contains: b.list(e, &format!("{pre}_not_contains_from_list")),
    }
}

fn scalar(e: &mut Engine<'_>, p: &Promise, l: &str) -> Option<String> {
    let rv = Engine::constraint(p, l)?;
    e.scalar_of(rv)
}

/// Replaces `$(match.N)` / `${match.N}` by the captures.
fn with_matches(s: &str, caps: &[Option<String>]) -> String {
    let mut out = s.to_string();
    for (i, c) in caps.iter().enumerate().rev() {
        let v = c.clone().unwrap_or_default();
        out = out
            .replace(&format!("$(match.{i})"), &v)
            .replace(&format!("${{match.{i}}}"), &v);
    }
    out
}

/// `select_end_match_eof` of `body agent control` (default false).
fn agent_eof(e: &Engine<'_>) -> bool {
    e.ctx
        .vars
        .get(&(
            "default".to_string(),
            "control_agent".to_string(),
            "select_end_match_eof".to_string(),
        ))
        .is_some_and(|v| matches!(v.value.as_scalar(), Some("true" | "yes" | "on")))
}

/// Logs an op's lines, sets the outcome classes its records ask for, and returns its result.
fn emit(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, out: &OpOut) {
    for m in &out.msgs {
        e.log(m.level, &m.text);
        if let Some(r) = m.record {
            if let Some(o) = outcome(r) {
                e.apply_classes_body(def, p, o);
            }
        }
    }
}

fn outcome(r: EditResult) -> Option<Outcome> {
    match r {
        EditResult::Skipped => None,
        EditResult::Kept => Some(Outcome::Kept),
        EditResult::Repaired => Some(Outcome::Repaired),
        EditResult::Warn | EditResult::Failed | EditResult::Interrupted => Some(Outcome::Failed),
    }
}

/// Stage 7's constraint recheck of an insert_lines promise (`PromiseRecheckAllConstraints`): the
/// second promise of a bundle using the same literal `select_line_matching` anchor gets an INFO
/// warning with its location, once per expanded promise (recorded: files/insert-locators). The
/// anchors are remembered for the run with the first bundle using each; an anchor first used in
/// another bundle is not reported.
pub fn recheck_anchor(e: &mut Engine<'_>, def: &BundleDef, p: &Promise) {
    if e.conditions(p).is_some() {
        return;
    }
    let attrs = e.body_attrs(def, p, "location", "location");
    let Some(anchor) = attrs
        .iter()
        .rev()
        .find(|(l, _)| l == "select_line_matching")
        .and_then(|(_, rv)| e.scalar_of(rv))
    else {
        return;
    };
    if anchor.contains("$(")
        || anchor.contains("${")
        || anchor.contains("@(")
        || anchor.contains("@{")
    {
        return;
    }
    match e.edit_anchors.get(&anchor) {
        Some(b) if *b == def.name => {
            e.log(
                LogLevel::Info,
                &format!("insert_lines promise uses the same select_line_matching anchor '{anchor}' as another promise. This will lead to non-convergent behaviour unless 'empty_file_before_editing' is set"),
            );
            let file = e.file_path(def.file);
            let line = e.line_of(p);
            e.log(
                LogLevel::Info,
                &format!(
                    "Promise belongs to bundle '{}' in file '{file}' near line {line}",
                    def.name
                ),
            );
            if let Some(c) = scalar(e, p, "comment") {
                e.log(LogLevel::Info, &format!("Comment is '{c}'"));
            }
        }
        Some(_) => {}
        None => {
            e.edit_anchors.insert(anchor, def.name.clone());
        }
    }
}

/// Evaluates one edit_line sub-promise binding on the model in `e.edit`.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let Some(state) = e.edit.as_ref() else {
        e.end_event(Some("not_simulated"), None);
        return;
    };
    let filename = state.filename.clone();
    e.verbose_promise_begin(def, t, p, promiser);
    // a warn-only files promise does not make its edit promises warn-only: they edit the model and
    // the files promise then says what it would change (recorded: files/warn-only-edit)
    // the lock: once per file and run
    let digest = e.digest(def, t, p, &format!("{promiser}\u{2}{filename}"));
    let already_ran = e.done.contains(&digest);
    let warn_only = !e.opts.dry_run && e.warn_only(def, p);
    let policy_file = e.file_path(def.file);
    let line = e.line_of(p);
    let comment = scalar(e, p, "comment");
    let env = EditEnv {
        filename: &filename,
        dry_run: e.opts.dry_run && e.opts.simulate.is_none(),
        warn_only,
        bundle: &def.name,
        policy_file: &policy_file,
        line,
        comment: comment.as_deref(),
        select_end_match_eof: agent_eof(e),
        already_ran,
    };
    let region = region(e, def, p);
    // the lines are moved out and back (an op replaces them only when it changed them)
    let mut model = Model {
        lines: e
            .edit
            .as_mut()
            .map(|s| std::mem::take(&mut s.lines))
            .unwrap_or_default(),
    };
    let out =
        match t {
            "insert_lines" => {
                let location = body(e, def, p, "location").map(|b| edit::insert::Location {
                    select_line_matching: b.get(e, "select_line_matching"),
                    before_after: b.get(e, "before_after"),
                    first_last: b.get(e, "first_last"),
                });
                let req = edit::insert::InsertLines {
                    promiser: promiser.to_string(),
                    region,
                    location,
                    insert_type: scalar(e, p, "insert_type").unwrap_or_else(|| "literal".into()),
                    whitespace_policy: match Engine::constraint(p, "whitespace_policy") {
                        Some(rv) => e.list_of(rv),
                        None => Vec::new(),
                    },
                    insert_select: select_lists(e, def, p, "insert_select", "insert_if"),
                    expand_scalars: scalar(e, p, "expand_scalars").is_some_and(|v| truthy(&v)),
                };
                let read =
                    |path: &str| -> Result<Vec<u8>, edit::ReadError> {
                        let b = e.host.base();
                        match e.host.vfs.stat(b, path, true) {
                            Some(m) if m.kind == crate::host::vfs::Kind::Dir => {
                                Err(edit::ReadError::IsDirectory)
                            }
                            _ => e.host.vfs.read(b, path).map(|c| c.to_vec()).map_err(|_| {
                                edit::ReadError::Os("No such file or directory".into())
                            }),
                        }
                    };
                let ctx = &e.ctx;
                let mut expand = |s: &str, caps: &[Option<String>]| {
                    crate::expr::expand::expand_scalar(&with_matches(s, caps), ctx).text
                };
                edit::insert::insert_lines(&mut model, &req, &env, &read, &mut expand)
            }
            "delete_lines" => {
                let req = edit::delete::DeleteLines {
                    promiser: promiser.to_string(),
                    region,
                    not_matching: scalar(e, p, "not_matching").is_some_and(|v| truthy(&v)),
                    delete_select: select_lists(e, def, p, "delete_select", "delete_if"),
                };
                edit::delete::delete_lines(&mut model, &req, &env)
            }
            "replace_patterns" => {
                let b = body(e, def, p, "replace_with");
                let (value, occ) = match &b {
                    Some(b) => (b.get(e, "replace_value"), b.get(e, "occurrences")),
                    None => (None, None),
                };
                let req = edit::replace::ReplacePatterns {
                    promiser: promiser.to_string(),
                    region,
                    replace_value: value,
                    occurrences: occ,
                };
                let ctx = &e.ctx;
                let mut expand = |s: &str, caps: &[Option<String>]| {
                    crate::expr::expand::expand_scalar(&with_matches(s, caps), ctx).text
                };
                edit::replace::replace_patterns(&mut model, &req, &env, &mut expand)
            }
            _ => {
                let b = body(e, def, p, "edit_field");
                let get = |e: &mut Engine<'_>, l: &str| b.as_ref().and_then(|b| b.get(e, l));
                let req = edit::fields::FieldEdits {
                    promiser: promiser.to_string(),
                    region,
                    field_separator: get(e, "field_separator"),
                    select_field: get(e, "select_field").and_then(|v| v.trim().parse().ok()),
                    start_fields_from_zero: get(e, "start_fields_from_zero")
                        .is_some_and(|v| truthy(&v)),
                    value_separator: get(e, "value_separator"),
                    field_value: get(e, "field_value"),
                    field_operation: get(e, "field_operation"),
                    extend_fields: get(e, "extend_fields").is_some_and(|v| truthy(&v)),
                    allow_blank_fields: get(e, "allow_blank_fields").is_some_and(|v| truthy(&v)),
                };
                edit::fields::field_edits(&mut model, &req, &env)
            }
        };
    emit(e, def, p, &out);
    if out.ran {
        e.done.insert(digest);
    }
    if let Some(st) = e.edit.as_mut() {
        st.lines = model.lines;
        if out.result == EditResult::Repaired || out.changed {
            st.edited = true;
        }
    }
    match outcome(out.result) {
        Some(o) => {
            if let Some(c) = e.counts.last_mut() {
                match o {
                    Outcome::Kept => c.kept += 1,
                    Outcome::Repaired => c.repaired += 1,
                    Outcome::Failed => c.notkept += 1,
                }
            }
            e.end_event(None, Some(o));
        }
        None => e.end_event(Some("already_done"), None),
    }
}

/// `template_method => "cfengine"` (the agent's `MakeTemporaryBundleFromTemplate`): each template line
/// becomes a `preserve_all_lines` insertion under the class context of `[%CFEngine ctx:: %]` (which
/// persists), `[%CFEngine BEGIN %]` … `[%CFEngine END %]` one multi-line block; variables expanded.
/// A directive starts its line; its operator and close are read as `sscanf("%1024s %3s")` reads them.
/// A template that cannot be read, a close that is not a separate `%]` and a BEGIN inside a block are
/// errors, each a counted `cfPS` (recorded: files/cftemplate-missing-template,
/// files/cftemplate-missing-close, files/cftemplate-nested-begin); any directive but BEGIN and `ctx::`
/// ends the lines gathered so far as one promise, even none (files/cftemplate-directives). False when
/// the template failed.
pub fn cfengine_template(e: &mut Engine<'_>, pr: &mut Pr<'_>, t: &str) -> bool {
    let b = e.host.base();
    let Ok(bytes) = e.host.vfs.read(b, t) else {
        // a counted cfPS (recorded: files/cftemplate-missing-template)
        let msg = format!(
            "Unable to open template file '{t}' to make '{}'",
            pr.promiser
        );
        pr.cfps(e, LogLevel::Error, &msg, Res::Fail);
        return false;
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let Some(filename) = e.edit.as_ref().map(|s| s.filename.clone()) else {
        return false;
    };
    let mut context = "any".to_string();
    let mut stack: Vec<String> = Vec::new();
    let mut level: usize = 0;
    let mut block: Vec<String> = Vec::new();
    let mut chunks: Vec<(String, String)> = Vec::new();
    for (n, l) in text.split_inclusive('\n').enumerate() {
        let lineno = n + 1;
        let Some(rest) = l.strip_prefix("[%CFEngine") else {
            let line = l.strip_suffix('\n').unwrap_or(l);
            if level > 0 {
                // a block's lines are kept when their class context holds as the template is read
                if e.eval_class_str(&context) == Ok(true) {
                    block.push(line.to_string());
                }
            } else {
                chunks.push((context.clone(), line.to_string()));
            }
            continue;
        };
        let mut words = rest.split_ascii_whitespace();
        let op = words.next().unwrap_or("");
        let close: String = words.next().unwrap_or("").chars().take(3).collect();
        if close != "%]" {
            let msg =
                format!("Template file '{t}' syntax error, missing close \"%]\" at line {lineno}");
            pr.cfps(e, LogLevel::Error, &msg, Res::Fail);
            return false;
        }
        if op == "BEGIN" {
            stack.push(context.clone());
            level = level.wrapping_add(1);
            if level > 1 {
                let msg = format!(
                    "Template file '{t}' contains nested blocks which are not allowed, near line {lineno}"
                );
                pr.cfps(e, LogLevel::Error, &msg, Res::Fail);
                return false;
            }
            continue;
        }
        if op == "END" {
            level = level.wrapping_sub(1);
            if let Some(c) = stack.pop() {
                context = c;
            }
        }
        if let Some(c) = op.strip_suffix("::") {
            context = c.to_string();
            continue;
        }
        chunks.push((context.clone(), std::mem::take(&mut block).join("\n")));
    }
    let policy_file = e.file_path(pr.def.file);
    let line = e.line_of(pr.p);
    // -v: the temporary bundle's three passes announce each promise whose class holds; the lines
    // are inserted in the first (recorded: files/cftemplate-basic/verbose.out)
    let stack = e.promise_stack("files", &pr.promiser);
    let mut live: Vec<(String, String)> = Vec::new();
    for (ctx, chunk) in chunks {
        if e.eval_class_str(&ctx) == Ok(true) {
            let text = e.expand(&chunk).text;
            live.push((ctx, text));
        }
    }
    for pass in 1..=3 {
        for (ctx, text) in &live {
            e.verbose_template_begin(&stack, t, ctx, text);
            if pass == 1 {
                template_line(e, pr, &filename, &policy_file, line, text);
            }
        }
    }
    true
}

/// One line (or block) of a cfengine template inserted into the edit's model.
fn template_line(
    e: &mut Engine<'_>,
    pr: &Pr<'_>,
    filename: &str,
    policy_file: &str,
    line: usize,
    line_text: &str,
) {
    {
        let line_text = line_text.to_string();
        let env = EditEnv {
            filename,
            dry_run: e.opts.dry_run && e.opts.simulate.is_none(),
            // the temporary bundle's promises have no action body: a warn-only files promise
            // still edits the model (recorded: files/cftemplate-warn-only)
            warn_only: false,
            bundle: &pr.def.name,
            policy_file,
            line,
            comment: None,
            select_end_match_eof: false,
            already_ran: false,
        };
        let req = edit::insert::InsertLines {
            promiser: line_text,
            insert_type: "preserve_all_lines".into(),
            ..Default::default()
        };
        let mut model = Model {
            lines: e.edit.as_ref().map(|s| s.lines.clone()).unwrap_or_default(),
        };
        let read = |_: &str| -> Result<Vec<u8>, edit::ReadError> {
            Err(edit::ReadError::Os("No such file or directory".into()))
        };
        let mut expand = |s: &str, _: &[Option<String>]| s.to_string();
        let out = edit::insert::insert_lines(&mut model, &req, &env, &read, &mut expand);
        for m in &out.msgs {
            e.log(m.level, &m.text);
        }
        if let Some(st) = e.edit.as_mut() {
            if out.changed {
                st.lines = model.lines;
                st.edited = true;
            }
        }
    }
}
