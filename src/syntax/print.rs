//! `-p cf`: the AST printed as CFEngine syntax in cf-promises 3.21.0's own layout, byte for byte, wherever
//! that printer is faithful. Where cf-promises loses information (it drops promisees, prints data
//! containers as bare JSON, does not escape backslashes, prints a quoted class guard as a bare symbol and
//! omits the guard when a body returns to `any`), cfsim prints what parses back to the same policy instead:
//! a `-> promisee`, a single-quoted JSON string, the needed backslashes, a `"expr"::` guard and an `any::`.
//! `tests/parse_conformance.rs` checks both properties.

use super::ast::*;

/// Print a whole policy: bundles first, then bodies (cf-promises' order; `body file control` namespace
/// changes are kept in front of the blocks they apply to by printing in source order within each kind).
pub fn policy_to_cf(p: &Policy) -> String {
    let mut out = String::new();
    let namespaced = p.bodies.iter().any(|b| {
        b.body_type == "file"
            && b.name == "control"
            && b.attrs.iter().any(|a| a.constraint.lval == "namespace")
    });
    if namespaced {
        // cf-promises prints bundles before bodies, which moves blocks out of the `body file control`
        // namespace they belong to; cfsim keeps source order in that case.
        let mut blocks: Vec<(u32, String)> = Vec::new();
        for b in &p.bundles {
            let mut s = String::new();
            bundle(&mut s, b);
            blocks.push((b.span.start, s));
        }
        for b in &p.bodies {
            let mut s = String::new();
            body(&mut s, b);
            blocks.push((b.span.start, s));
        }
        for b in &p.promise_blocks {
            let mut s = String::new();
            promise_block(&mut s, b);
            blocks.push((b.span.start, s));
        }
        blocks.sort_by_key(|b| b.0);
        for (_, s) in blocks {
            out.push_str(&s);
            out.push('\n');
        }
        return out;
    }
    for b in &p.bundles {
        bundle(&mut out, b);
        out.push('\n');
    }
    for b in &p.bodies {
        body(&mut out, b);
        out.push('\n');
    }
    for b in &p.promise_blocks {
        promise_block(&mut out, b);
        out.push('\n');
    }
    out
}

fn args(out: &mut String, ps: &[String]) {
    out.push('(');
    out.push_str(&ps.join(", "));
    out.push(')');
}

fn bundle(out: &mut String, b: &Bundle) {
    out.push_str("bundle ");
    out.push_str(&b.bundle_type);
    out.push(' ');
    out.push_str(&b.name);
    args(out, &b.params);
    out.push_str("\n{\n");
    for s in &b.sections {
        out.push_str(&s.promise_type);
        out.push_str(":\n");
        // The guard in force: the class guard, and a variable class guard printed as a `"expr"::` line.
        let mut guard: Option<(&str, Option<&str>)> = None;
        for p in &s.promises {
            let line_guard = p
                .var_guard
                .as_ref()
                .map(|v| v.value.as_str())
                .filter(|v| !is_bare_safe(v));
            let g = (p.guard.expr.as_str(), line_guard);
            if guard != Some(g) {
                if guard.map(|o| o.0) != Some(g.0)
                    || (guard.and_then(|o| o.1).is_some() && g.1.is_none())
                {
                    out.push_str("  ");
                    out.push_str(g.0);
                    out.push_str("::\n");
                }
                if let Some(v) = g.1 {
                    out.push_str("  ");
                    quoted(out, v);
                    out.push_str("::\n");
                }
                guard = Some(g);
            }
            promise(out, p);
        }
        out.push('\n');
    }
    if !b.sections.is_empty() {
        out.push('\n');
    }
    out.push_str("}\n");
}

fn promise(out: &mut String, p: &Promise) {
    out.push_str("    ");
    quoted(out, &p.promiser.value);
    if let Some(pe) = &p.promisee {
        out.push_str(" -> ");
        rval(out, pe, true);
    }
    let mut first = true;
    let mut attr = |out: &mut String, lval: &str, f: &dyn Fn(&mut String)| {
        out.push_str(if first { "        " } else { ",\n        " });
        first = false;
        out.push_str(lval);
        out.push_str(" => ");
        f(out);
    };
    // cf-promises prints a variable class guard as a bare `ifvarclass` symbol; one that would not read
    // back as a symbol was printed as a `"expr"::` line by the caller instead.
    if let Some(vg) = p.var_guard.as_ref().filter(|v| is_bare_safe(&v.value)) {
        attr(out, "ifvarclass", &|o: &mut String| o.push_str(&vg.value));
    }
    for c in &p.constraints {
        attr(out, &c.lval, &|o: &mut String| rval(o, &c.rval, true));
    }
    out.push_str(";\n");
}

/// Whether `s` reads back as a bare identifier rval.
fn is_bare_safe(s: &str) -> bool {
    let mut parts = s.splitn(2, ':');
    let ok = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii())
    };
    match (parts.next(), parts.next()) {
        (Some(a), None) => ok(a),
        (Some(a), Some(b)) => ok(a) && ok(b),
        _ => false,
    }
}

fn body(out: &mut String, b: &Body) {
    out.push_str("body ");
    out.push_str(&b.body_type);
    out.push(' ');
    out.push_str(&b.name);
    args(out, &b.params);
    out.push_str("\n{\n");
    let mut current: Option<(&str, Option<&str>)> = None;
    for a in b.effective_attrs() {
        let g = (
            a.guard.expr.as_str(),
            a.var_guard.as_ref().map(|v| v.value.as_str()),
        );
        if current != Some(g) {
            if current.is_some() {
                out.push('\n');
            }
            match g {
                (_, Some(v)) => {
                    out.push('\n');
                    quoted(out, v);
                    out.push_str("::");
                }
                ("any", None) if current.is_none() => {}
                (expr, None) => {
                    out.push('\n');
                    out.push_str(expr);
                    out.push_str("::");
                }
            }
            current = Some(g);
        }
        out.push_str("  ");
        out.push_str(&a.constraint.lval);
        out.push_str(" => ");
        rval(out, &a.constraint.rval, false);
        out.push_str(";\n");
    }
    if current.is_some() {
        out.push('\n');
    }
    out.push_str("}\n");
}

fn promise_block(out: &mut String, b: &PromiseBlock) {
    out.push_str("promise ");
    out.push_str(&b.kind);
    out.push(' ');
    out.push_str(&b.name);
    out.push_str("\n{\n");
    for c in &b.attrs {
        out.push_str("  ");
        out.push_str(&c.lval);
        out.push_str(" => ");
        rval(out, &c.rval, false);
        out.push_str(";\n");
    }
    out.push_str("}\n");
}

/// `"value"` with `"` escaped, and a backslash doubled only where it would otherwise be read as an escape
/// (before `"`, `'`, `\`, a newline, or at the end) — cf-promises never doubles it.
fn quoted(out: &mut String, v: &str) {
    quoted_with(out, v, '"');
}

fn quoted_with(out: &mut String, v: &str, q: char) {
    out.push(q);
    let mut chars = v.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let next = chars.peek().copied();
            if matches!(
                next,
                None | Some('"') | Some('\'') | Some('\\') | Some('\n')
            ) {
                out.push('\\');
            }
            out.push('\\');
        } else {
            if c == q {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push(q);
}

/// A constraint's value as written in policy (`"linux"`, `isvariable("x")`, `{ "a", "b" }`).
pub fn rval_to_cf(r: &Rval) -> String {
    let mut s = String::new();
    rval(&mut s, r, true);
    s.trim_start().to_string()
}

/// An rval; `top` marks a bundle constraint's own value, where a bare identifier stays bare.
fn rval(out: &mut String, r: &Rval, top: bool) {
    match r {
        Rval::Scalar(s) => match s.quote {
            Quote::Bare if top => out.push_str(&s.value),
            _ => quoted(out, &s.value),
        },
        Rval::List(items, _) => {
            out.push_str(" {");
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                rval(out, it, false);
            }
            out.push('}');
        }
        Rval::Call(c) => {
            out.push_str(&c.name);
            out.push('(');
            for (i, a) in c.args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                rval(out, a, false);
            }
            out.push(')');
        }
        Rval::Data(v, _) => {
            let text = serde_json::to_string(v).unwrap_or_default();
            quoted_with(out, &text, '\'');
        }
    }
}
