//! Policy checks cf-promises makes after parsing, with its messages and positions: bundle types, promise
//! types allowed per bundle type, custom promise blocks, class-guard and `if`/`unless` syntax, runaway
//! strings, and duplicate bundle/body definitions across all loaded files. Attribute-level checks against
//! the syntax tables live in `check.rs`.

use super::ast::*;
use super::class_check;
use super::tables;
use crate::diag::Diagnostic;
use crate::source::{SourceFile, Span};

/// Checks of one file.
pub fn validate_file(policy: &Policy, file: &SourceFile) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for b in &policy.promise_blocks {
        if b.kind != "agent" {
            let kind_end = kind_end_offset(file, b.span);
            out.push(Diagnostic::check(
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
                out.push(Diagnostic::error(
                    (b.span.start as usize + brace + 1) as u32,
                    format!("Invalid body type '{}'", b.kind),
                ));
            }
        }
    }
    for b in &policy.bundles {
        if tables::bundle_type(&b.bundle_type).is_none() {
            let kind_end = kind_end_offset(file, b.span);
            out.push(Diagnostic::check(
                kind_end as u32,
                None,
                format!("Unknown bundle type '{}'", b.bundle_type),
            ));
            continue;
        }
        for s in &b.sections {
            let builtin = tables::promise_type(&s.promise_type).is_some();
            let allowed = tables::promise_type_allowed(&b.bundle_type, &s.promise_type)
                || (b.bundle_type == "agent" && !builtin);
            if !allowed {
                out.push(Diagnostic::check(
                    s.header_span.start,
                    Some(0),
                    format!(
                        "Promise type '{}' not supported by '{}' bundle type",
                        s.promise_type, b.bundle_type
                    ),
                ));
            }
            let mut last_guard = (0, 0);
            for p in &s.promises {
                if p.guard.span.end != 0 && last_guard != key(p.guard.span) {
                    check_guard(&p.guard, file, &mut out);
                }
                last_guard = key(p.guard.span);
                check_strings(p, &mut out);
                for c in &p.constraints {
                    check_class_attr(c, &mut out);
                }
            }
        }
    }
    for b in &policy.bodies {
        let mut last_guard = (0, 0);
        for a in &b.attrs {
            if a.guard.span.end != 0 && last_guard != key(a.guard.span) {
                check_guard(&a.guard, file, &mut out);
            }
            last_guard = key(a.guard.span);
        }
    }
    out
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
fn check_guard(g: &Guard, file: &SourceFile, out: &mut Vec<Diagnostic>) {
    let expr: String = g.expr.chars().filter(|c| *c != ' ' && *c != '\t').collect();
    if let Err(off) = class_check::check(&expr) {
        let (_, col) = file.lines.line_col(g.span.start);
        let mut d = Diagnostic::error(g.span.start + off as u32, "Syntax error in context string");
        d.column = Some((col + off + 2) as u32);
        out.push(d);
    }
}

/// `if`, `ifvarclass` and `unless` given as a literal string are checked as class expressions.
fn check_class_attr(c: &Constraint, out: &mut Vec<Diagnostic>) {
    if !matches!(c.lval.as_str(), "if" | "ifvarclass" | "unless") {
        return;
    }
    if let Rval::Scalar(s) = &c.rval {
        if matches!(s.quote, Quote::Double | Quote::Single | Quote::Back) {
            let expr: String = s.value.chars().filter(|c| !c.is_whitespace()).collect();
            if class_check::check(&expr).is_err() {
                out.push(Diagnostic::error(
                    s.span.end,
                    "Syntax error in context string",
                ));
            }
        }
    }
}

/// A NUL byte ends a string early in cf-promises' lexer: "Runaway string".
fn check_strings(p: &Promise, out: &mut Vec<Diagnostic>) {
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
            out.push(Diagnostic::error(s.span.end, "Runaway string"));
        }
    }
}

/// Duplicate bundle and body definitions across all files: every definition is reported.
pub fn validate_duplicates(files: &[(&Policy, &SourceFile)]) -> Vec<(usize, Diagnostic)> {
    let mut keys: indexmap::IndexMap<(String, &str, String, String), Vec<(usize, u32)>> =
        indexmap::IndexMap::new();
    for (i, (p, _)) in files.iter().enumerate() {
        for b in &p.bundles {
            keys.entry((
                "bundle".to_string(),
                b.bundle_type.as_str(),
                b.namespace.clone(),
                b.name.clone(),
            ))
            .or_default()
            .push((i, b.span.start));
        }
        for b in &p.bodies {
            keys.entry((
                "body".to_string(),
                b.body_type.as_str(),
                b.namespace.clone(),
                b.name.clone(),
            ))
            .or_default()
            .push((i, b.span.start));
        }
    }
    let mut out = Vec::new();
    for ((what, ty, _ns, name), defs) in &keys {
        if defs.len() < 2 {
            continue;
        }
        for (i, off) in defs {
            out.push((
                *i,
                Diagnostic::check(
                    *off,
                    Some(0),
                    format!("Duplicate definition of {what} {name} with type {ty}"),
                ),
            ));
        }
    }
    out.sort_by_key(|(i, d)| (*i, d.offset));
    out
}
