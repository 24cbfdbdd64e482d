//! Drives cf-promises' checks over the AST and places each message where cf-promises prints it: the
//! parse-time checks of `check.rs` (constraints against the syntax tables, bundle types, `if` literals) plus
//! class-guard syntax, runaway strings and custom promise blocks, in source order; then, when no file had an
//! error, the post-parse policy check (column 0, no caret) in cf-promises' order. The rules themselves live in
//! `check.rs` and `check/post_parse.rs`; this file only maps them onto spans.

use super::ast::*;
use super::check::{self, Anchor, BlockChecker, CheckResult, PostParseLine, RvalShape, Severity};
use crate::diag::Diagnostic;
use crate::source::{SourceFile, Span};

/// Everything the checks of one file produced: diagnostics (stderr) and log lines (stdout, printed as
/// `   error: LINE`), each log line with the offset of the constraint it belongs to (cf-promises prints it
/// after that constraint's errors, so a run stopped by "Too many errors" never prints it).
#[derive(Debug, Default)]
pub struct FileChecks {
    pub diags: Vec<Diagnostic>,
    pub log: Vec<(u32, String)>,
}

/// The shape of an rval as the checks see it.
pub fn shape(r: &Rval) -> RvalShape<'_> {
    match r {
        Rval::Scalar(s) => match s.quote {
            Quote::Bare | Quote::NakedVar => RvalShape::Bare(&s.value),
            _ => RvalShape::Scalar(&s.value),
        },
        Rval::List(items, _) => RvalShape::List(items.iter().map(shape).collect()),
        Rval::Call(c) => RvalShape::FnCall { name: &c.name },
        // Written as a quoted string; `data`/`template_data` strings are exempt from value checks.
        Rval::Data(..) => RvalShape::Scalar(""),
    }
}

/// Parse-time checks of one file, in source order.
pub fn parse_time_checks(policy: &Policy, file: &SourceFile) -> FileChecks {
    let mut out = FileChecks::default();
    for b in &policy.bundles {
        bundle_checks(b, file, &mut out);
    }
    for b in &policy.bodies {
        body_checks(b, file, &mut out);
    }
    for b in &policy.promise_blocks {
        promise_block_checks(b, file, &mut out);
    }
    out.diags.sort_by_key(|d| d.offset);
    out
}

fn bundle_checks(b: &Bundle, file: &SourceFile, out: &mut FileChecks) {
    if let Some(e) = check::check_bundle_type(&b.bundle_type) {
        let at = kind_end_offset(file, b.span) as u32;
        push(out, file, &e_result(e), |_| Place::at(at));
    }
    let mut checker = BlockChecker::new();
    for s in &b.sections {
        let header_end = s.header_span.end;
        let r = checker.promise_type_guard(&b.bundle_type, &s.promise_type);
        push(out, file, &r, |_| Place::at(header_end));
        let mut last_guard = (0, 0);
        for p in &s.promises {
            if p.guard.span.end != 0 && last_guard != key(p.guard.span) {
                check_guard(&p.guard, file, out);
            }
            last_guard = key(p.guard.span);
            runaway_strings(p, out);
            for c in &p.constraints {
                let r = checker.promise_constraint(
                    &b.bundle_type,
                    &s.promise_type,
                    &c.lval,
                    &shape(&c.rval),
                );
                push(out, file, &r, |a| anchor_place(a, c, file));
            }
        }
    }
}

fn body_checks(b: &Body, file: &SourceFile, out: &mut FileChecks) {
    let mut checker = BlockChecker::new();
    let open = file
        .text
        .get(b.span.start as usize..)
        .and_then(|t| t.find('{'))
        .map(|i| b.span.start + i as u32 + 1)
        .unwrap_or(b.span.start);
    let r = checker.body_open(&b.body_type, &b.name);
    push(out, file, &r, |_| Place::at(open));
    let mut last_guard = (0, 0);
    for a in &b.attrs {
        if a.guard.span.end != 0 && last_guard != key(a.guard.span) {
            check_guard(&a.guard, file, out);
        }
        last_guard = key(a.guard.span);
        let c = &a.constraint;
        let vc = a.var_guard.as_ref().map(|v| v.value.as_str());
        let r = checker.body_constraint(&b.body_type, &b.name, &c.lval, &shape(&c.rval), vc);
        push(out, file, &r, |an| anchor_place(an, c, file));
    }
}

fn promise_block_checks(b: &PromiseBlock, file: &SourceFile, out: &mut FileChecks) {
    if b.kind != "agent" {
        let kind_end = kind_end_offset(file, b.span);
        out.diags.push(Diagnostic::check(
            kind_end as u32,
            None,
            format!(
                "Custom promises only supported for 'agent', not '{}'",
                b.kind
            ),
        ));
        if let Some(brace) = file
            .text
            .get(b.span.start as usize..)
            .and_then(|t| t.find('{'))
        {
            out.diags.push(Diagnostic::error(
                (b.span.start as usize + brace + 1) as u32,
                format!("Invalid body type '{}'", b.kind),
            ));
        }
        return;
    }
    let mut checker = BlockChecker::new();
    for c in &b.attrs {
        let r = checker.promise_block_constraint(&b.name, &c.lval, &shape(&c.rval));
        push(out, file, &r, |a| anchor_place(a, c, file));
    }
}

fn e_result(e: check::CheckError) -> CheckResult {
    CheckResult {
        errors: vec![e],
        log: Vec::new(),
    }
}

/// Where a message goes: the offset giving its line, an explicit column, and the offset whose line is
/// shown as the snippet.
struct Place {
    offset: u32,
    column: Option<i64>,
    snippet: Option<u32>,
}

impl Place {
    fn at(offset: u32) -> Place {
        Place {
            offset,
            column: None,
            snippet: None,
        }
    }
}

fn push(out: &mut FileChecks, file: &SourceFile, r: &CheckResult, place: impl Fn(Anchor) -> Place) {
    let key = r
        .errors
        .first()
        .map(|e| place(e.anchor).offset)
        .unwrap_or_else(|| place(Anchor::RvalEnd).offset);
    for e in &r.errors {
        let p = place(e.anchor);
        let base_col = p
            .column
            .unwrap_or_else(|| file.lines.line_col(p.offset).1 as i64);
        let mut d = match e.severity {
            Severity::Error => Diagnostic::error(p.offset, e.message.clone()),
            Severity::Warning => Diagnostic::warning(p.offset, e.message.clone()),
        };
        if p.column.is_some() || e.column_offset != 0 {
            d.column = Some((base_col + e.column_offset).max(0) as u32);
        }
        d.snippet_offset = p.snippet;
        out.diags.push(d);
    }
    out.log.extend(r.log.iter().map(|l| (key, l.clone())));
}

/// cf-promises places a token's message on the line where the token ends, at the token's start column
/// plus its length, with the text of the line where it starts.
fn token_place(file: &SourceFile, start: u32, end: u32) -> Place {
    let (_, start_col) = file.lines.line_col(start);
    Place {
        offset: end,
        column: Some(start_col as i64 + (end - start) as i64),
        snippet: Some(start),
    }
}

fn anchor_place(a: Anchor, c: &Constraint, file: &SourceFile) -> Place {
    match a {
        Anchor::LvalEnd => Place::at(c.lval_span.end),
        Anchor::NextTokenEnd => {
            let at = next_token_start(&file.text, c.rval.span().end as usize);
            let end = super::token_end(&file.text, at);
            Place::at(end as u32)
        }
        _ => {
            let sp = c.rval.span();
            match &c.rval {
                Rval::Scalar(s) => token_place(file, s.span.start, s.span.end),
                _ => Place::at(sp.end),
            }
        }
    }
}

/// Offset of the next token at or after `from` (whitespace and comments skipped).
fn next_token_start(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => i += 1,
            b'#' => {
                while bytes.get(i).is_some_and(|c| *c != b'\n') {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    i
}

/// Span equality is structural (always true), so guards are told apart by their offsets.
fn key(s: Span) -> (u32, u32) {
    (s.start, s.end)
}

/// End offset of the second word of a block header (`bundle TYPE`, `promise TYPE`).
fn kind_end_offset(file: &SourceFile, span: Span) -> usize {
    let start = span.start as usize;
    let text = file.text.get(start..).unwrap_or("");
    let mut i = text.find(|c: char| c.is_whitespace()).unwrap_or(text.len());
    i += text
        .get(i..)
        .and_then(|t| t.find(|c: char| !c.is_whitespace()))
        .unwrap_or(0);
    i += text
        .get(i..)
        .and_then(|t| t.find(|c: char| c.is_whitespace() || c == '{' || c == '('))
        .unwrap_or(0);
    start + i
}

/// `expr::`: cf-promises reports a syntax error two columns after the offending character.
fn check_guard(g: &Guard, file: &SourceFile, out: &mut FileChecks) {
    let expr: String = g.expr.chars().filter(|c| *c != ' ' && *c != '\t').collect();
    let err = match check::class_expression(&expr) {
        Err(off) => Some(off),
        Ok(0) => Some(0),
        Ok(_) => None,
    };
    if let Some(off) = err {
        let (_, col) = file.lines.line_col(g.span.start);
        let mut d = Diagnostic::error(g.span.start + off as u32, "Syntax error in context string");
        d.column = Some((col + off + 2) as u32);
        out.diags.push(d);
    }
}

/// A NUL byte ends a string early in cf-promises' lexer: "Runaway string".
fn runaway_strings(p: &Promise, out: &mut FileChecks) {
    let mut scalars: Vec<&Scalar> = vec![&p.promiser];
    fn collect<'a>(r: &'a Rval, acc: &mut Vec<&'a Scalar>) {
        match r {
            Rval::Scalar(s) => acc.push(s),
            Rval::List(items, _) => items.iter().for_each(|i| collect(i, acc)),
            Rval::Call(c) => c.args.iter().for_each(|a| collect(a, acc)),
            Rval::Data(..) => {}
        }
    }
    for c in &p.constraints {
        collect(&c.rval, &mut scalars);
    }
    for s in scalars {
        if s.value.contains('\0') {
            out.diags
                .push(Diagnostic::error(s.span.end, "Runaway string"));
        }
    }
}

/// The post-parse policy check over all files, in cf-promises' order (see `check.rs`). Returns
/// (file index, diagnostic).
pub fn post_parse_checks(files: &[(&Policy, &SourceFile)]) -> Vec<(usize, Diagnostic)> {
    let mut out = Vec::new();
    let at_line = |i: usize, off: u32, msg: String| (i, Diagnostic::check(off, Some(0), msg));
    // Duplicate bundles.
    let mut bundles = Vec::new();
    for (i, (p, _)) in files.iter().enumerate() {
        for b in &p.bundles {
            bundles.push((i, b));
        }
    }
    let defs: Vec<check::Definition<'_>> = bundles
        .iter()
        .map(|(_, b)| check::Definition {
            namespace: &b.namespace,
            def_type: &b.bundle_type,
            name: &b.name,
        })
        .collect();
    for (k, msg) in check::duplicate_definitions(&defs, check::DefinitionKind::Bundle) {
        if let Some((i, b)) = bundles.get(k) {
            out.push(at_line(*i, b.span.start, msg));
        }
    }
    // Per bundle: reserved names, then each promise.
    let mut first_file_start: Vec<(usize, Diagnostic)> = Vec::new();
    // the callees of each file's `usebundle` calls, indexed when the file's first methods promise is met
    let mut callees: std::collections::HashMap<usize, Callees<'_>> = Default::default();
    for (i, b) in &bundles {
        let Some((_, file)) = files.get(*i) else {
            continue;
        };
        if let Some(msg) = check::reserved_bundle_name(&b.name) {
            out.push(at_line(*i, b.span.start, msg));
        }
        for s in &b.sections {
            for p in &s.promises {
                let cs: Vec<(&str, RvalShape<'_>)> = p
                    .constraints
                    .iter()
                    .map(|c| (c.lval.as_str(), shape(&c.rval)))
                    .collect();
                for e in check::post_parse_promise(
                    &b.bundle_type,
                    &s.promise_type,
                    &p.promiser.value,
                    &cs,
                ) {
                    let off = match e.line {
                        PostParseLine::Guard => s.header_span.start,
                        PostParseLine::Promiser => p.promiser.span.end.saturating_sub(1),
                        PostParseLine::Constraint(k) => match p.constraints.get(k) {
                            Some(c) => constraint_end(c, file),
                            None => p.span.start,
                        },
                        PostParseLine::FileStart => {
                            first_file_start.push((*i, Diagnostic::check(0, Some(1), e.message)));
                            continue;
                        }
                    };
                    out.push(at_line(*i, off, e.message));
                }
                if s.promise_type == "methods" {
                    let same_file = callees.entry(*i).or_insert_with(|| {
                        Callees::new(files.get(*i).into_iter().flat_map(|(p, _)| &p.bundles))
                    });
                    for c in &p.constraints {
                        if let Some(msg) = usebundle_arity(c, same_file) {
                            out.push(at_line(*i, constraint_end(c, file), msg));
                        }
                    }
                }
            }
        }
    }
    // Duplicate bodies, then control bodies with arguments.
    let mut bodies = Vec::new();
    for (i, (p, _)) in files.iter().enumerate() {
        for b in &p.bodies {
            bodies.push((i, b));
        }
    }
    let defs: Vec<check::Definition<'_>> = bodies
        .iter()
        .map(|(_, b)| check::Definition {
            namespace: &b.namespace,
            def_type: &b.body_type,
            name: &b.name,
        })
        .collect();
    for (k, msg) in check::duplicate_definitions(&defs, check::DefinitionKind::Body) {
        if let Some((i, b)) = bodies.get(k) {
            out.push(at_line(*i, b.span.start, msg));
        }
    }
    for (i, b) in &bodies {
        if let Some(msg) = check::control_body_args(&b.body_type, &b.name, !b.params.is_empty()) {
            out.push(at_line(*i, b.span.start, msg));
        }
    }
    // Duplicate handles over the whole policy.
    let mut handles: Vec<(usize, u32, (&str, &str))> = Vec::new();
    for (i, b) in &bundles {
        for s in &b.sections {
            for p in &s.promises {
                for c in &p.constraints {
                    if let (true, Rval::Scalar(h)) = (c.lval == "handle", &c.rval) {
                        let at = p.promiser.span.end.saturating_sub(1);
                        handles.push((*i, at, (&h.value, &p.guard.expr)));
                    }
                }
            }
        }
    }
    let names: Vec<(&str, &str)> = handles.iter().map(|h| h.2).collect();
    for (k, msg) in check::duplicate_handles(&names) {
        if let Some((i, off, _)) = handles.get(k) {
            out.push(at_line(*i, *off, msg));
        }
    }
    first_file_start.extend(out);
    first_file_start
}

/// The arity error of a `usebundle => NAME(args)` constraint whose callee is one of `bundles` (an agent
/// bundle first, then a common one).
pub fn usebundle_arity(c: &Constraint, callees: &Callees<'_>) -> Option<String> {
    let Rval::Call(call) = &c.rval else {
        return None;
    };
    if c.lval != "usebundle" {
        return None;
    }
    let callee = callees.get(&call.name)?;
    check::bundle_arity(&call.name, call.args.len(), callee.params.len())
}

/// The bundles a `usebundle` call can name, by the name the call uses ([`check::bundle_call_name`]):
/// the first agent bundle of that name, else the first common bundle. Built once per bundle list, so
/// checking a call is one lookup (costs linear in the policy, not calls × bundles).
#[derive(Default)]
pub struct Callees<'a> {
    /// call name → (first agent bundle, first common bundle)
    by_name: std::collections::HashMap<String, [Option<&'a Bundle>; 2], crate::fasthash::FastState>,
}

impl<'a> Callees<'a> {
    pub fn new(bundles: impl IntoIterator<Item = &'a Bundle>) -> Callees<'a> {
        let mut out = Callees::default();
        for b in bundles {
            let slot = match b.bundle_type.as_str() {
                "agent" => 0,
                "common" => 1,
                _ => continue,
            };
            let entry = out
                .by_name
                .entry(check::bundle_call_name(&b.namespace, &b.name))
                .or_default();
            if let Some(e @ None) = entry.get_mut(slot) {
                *e = Some(b);
            }
        }
        out
    }

    fn get(&self, call: &str) -> Option<&'a Bundle> {
        let [agent, common] = self.by_name.get(call)?;
        agent.or(*common)
    }
}

/// Offset on the line where a constraint ends (after the rval, or the token after a bare rval).
pub fn constraint_end(c: &Constraint, file: &SourceFile) -> u32 {
    match shape(&c.rval) {
        RvalShape::Bare(_) => {
            let at = next_token_start(&file.text, c.rval.span().end as usize);
            at as u32
        }
        _ => c.rval.span().end.saturating_sub(1),
    }
}
