//! `-p cf`: the AST printed as canonical CFEngine syntax. Unlike cf-promises 3.21.0 (which drops
//! promisees and bare-identifier quoting), the output parses back to the same AST: `tests/roundtrip`.

use std::fmt::Write;

use super::ast::*;
use super::strings::escape_dq;

/// Print a whole policy: bundles first, then bodies, then promise blocks (cf-promises' order).
pub fn policy_to_cf(p: &Policy) -> String {
    let mut out = String::new();
    let mut blocks: Vec<(u32, String)> = Vec::new();
    for b in &p.bundles {
        blocks.push((b.span.start, bundle(b)));
    }
    for b in &p.bodies {
        blocks.push((b.span.start, body(b)));
    }
    for b in &p.promise_blocks {
        blocks.push((b.span.start, promise_block(b)));
    }
    // Source order keeps `body file control` namespaces in force for the blocks after them.
    blocks.sort_by_key(|(s, _)| *s);
    for (_, text) in blocks {
        out.push_str(&text);
        out.push('\n');
    }
    out
}

fn params(ps: &[String]) -> String {
    if ps.is_empty() {
        String::new()
    } else {
        format!("({})", ps.join(", "))
    }
}

fn bundle(b: &Bundle) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "bundle {} {}{}\n{{",
        b.bundle_type,
        b.name,
        params(&b.params)
    );
    for s in &b.sections {
        let _ = writeln!(out, "  {}:", s.promise_type);
        let mut guard: Option<(&str, Option<&str>)> = None;
        for p in &s.promises {
            let g = (
                p.guard.expr.as_str(),
                p.var_guard.as_ref().map(|v| v.value.as_str()),
            );
            if guard != Some(g) {
                match g.1 {
                    Some(v) => {
                        let _ = writeln!(out, "    \"{}\"::", escape_dq(v));
                    }
                    None => {
                        let _ = writeln!(out, "    {}::", g.0);
                    }
                }
                guard = Some(g);
            }
            let _ = write!(out, "      {}", scalar(&p.promiser));
            if let Some(pe) = &p.promisee {
                let _ = write!(out, " -> {}", rval(pe));
            }
            for (i, c) in p.constraints.iter().enumerate() {
                let sep = if i == 0 { "\n" } else { ",\n" };
                let _ = write!(out, "{sep}        {} => {}", c.lval, rval(&c.rval));
            }
            out.push_str(";\n");
        }
    }
    out.push_str("}\n");
    out
}

fn body(b: &Body) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "body {} {}{}\n{{",
        b.body_type,
        b.name,
        params(&b.params)
    );
    let mut guard: Option<(&str, Option<&str>)> = None;
    for a in &b.attrs {
        let g = (
            a.guard.expr.as_str(),
            a.var_guard.as_ref().map(|v| v.value.as_str()),
        );
        if guard != Some(g) && !(guard.is_none() && g == ("any", None)) {
            match g.1 {
                Some(v) => {
                    let _ = writeln!(out, "  \"{}\"::", escape_dq(v));
                }
                None => {
                    let _ = writeln!(out, "  {}::", g.0);
                }
            }
        }
        guard = Some(g);
        let _ = writeln!(
            out,
            "    {} => {};",
            a.constraint.lval,
            rval(&a.constraint.rval)
        );
    }
    out.push_str("}\n");
    out
}

fn promise_block(b: &PromiseBlock) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "promise {} {}\n{{", b.kind, b.name);
    for c in &b.attrs {
        let _ = writeln!(out, "  {} => {};", c.lval, rval(&c.rval));
    }
    out.push_str("}\n");
    out
}

fn scalar(s: &Scalar) -> String {
    match s.quote {
        Quote::Bare | Quote::NakedVar => s.value.clone(),
        _ => format!("\"{}\"", escape_dq(&s.value)),
    }
}

fn rval(r: &Rval) -> String {
    match r {
        Rval::Scalar(s) => scalar(s),
        Rval::List(items, _) => {
            let inner: Vec<String> = items.iter().map(rval).collect();
            format!("{{ {} }}", inner.join(", "))
        }
        Rval::Call(c) => {
            let args: Vec<String> = c.args.iter().map(rval).collect();
            format!("{}({})", c.name, args.join(", "))
        }
        Rval::Data(v, _) => {
            let text = serde_json::to_string(v).unwrap_or_default();
            format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
        }
    }
}
