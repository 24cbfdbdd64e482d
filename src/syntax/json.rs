//! The AST in the `cf-promises -p json` schema: alphabetical keys, `line` numbers, `symbol` for bare
//! identifiers in bundles, quotes backslash-escaped inside string values, and cf-promises' layout (first
//! line `{`, every later line indented by four more spaces, no final newline).

use serde_json::{json, Map, Value};

use super::ast::*;
use crate::source::{LineIndex, Span};

/// Render `policy` (parsed from text with line index `lines`) as cf-promises prints it.
pub fn policy_to_json_text(policy: &Policy, lines: &LineIndex) -> String {
    layout(&policy_to_json(policy, lines))
}

/// cf-promises' layout: two-space pretty printing with every line but the first shifted by four spaces.
pub fn layout(v: &Value) -> String {
    let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
    let mut out = String::with_capacity(pretty.len() + pretty.len() / 8);
    for (i, line) in pretty.split('\n').enumerate() {
        if i > 0 {
            out.push_str("\n    ");
        }
        out.push_str(line);
    }
    out
}

struct Ctx<'a> {
    lines: &'a LineIndex,
    path: &'a str,
}

impl Ctx<'_> {
    fn line(&self, sp: Span) -> usize {
        self.lines.line(sp.start)
    }
    /// Line of the last character of `sp` (where the parser reduced the rule).
    fn end_line(&self, sp: Span) -> usize {
        self.lines.line(sp.end.saturating_sub(1).max(sp.start))
    }
}

pub fn policy_to_json(policy: &Policy, lines: &LineIndex) -> Value {
    let cx = Ctx {
        lines,
        path: &policy.path,
    };
    let bodies: Vec<Value> = policy.bodies.iter().map(|b| body(&cx, b)).collect();
    let bundles: Vec<Value> = policy.bundles.iter().map(|b| bundle(&cx, b)).collect();
    json!({ "bodies": bodies, "bundles": bundles })
}

/// A string value as cf-promises writes it: `"` and `'` get a backslash before JSON escaping.
fn cf_str(s: &str) -> Value {
    if !s.contains(['"', '\'']) {
        return Value::String(s.to_string());
    }
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if c == '"' || c == '\'' {
            out.push('\\');
        }
        out.push(c);
    }
    Value::String(out)
}

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

fn bundle(cx: &Ctx, b: &Bundle) -> Value {
    let sections: Vec<Value> = b
        .sections
        .iter()
        .filter(|s| is_builtin_type(&s.promise_type))
        .map(|s| section(cx, s, true))
        .collect();
    obj(vec![
        ("arguments", json!(b.params)),
        ("bundleType", json!(b.bundle_type)),
        ("line", json!(cx.line(b.name_span))),
        ("name", json!(b.name)),
        ("namespace", json!(b.namespace)),
        ("promiseTypes", Value::Array(sections)),
        ("sourcePath", json!(cx.path)),
    ])
}

/// Promise types that cf-promises emits (custom promise type sections are left out of the JSON).
fn is_builtin_type(t: &str) -> bool {
    crate::syntax::BUILTIN_PROMISE_TYPES.contains(&t)
}

fn section(cx: &Ctx, s: &Section, in_bundle: bool) -> Value {
    let mut contexts: Vec<Value> = Vec::new();
    let mut current: Option<(String, Vec<Value>)> = None;
    for p in &s.promises {
        match &mut current {
            Some((name, ps)) if *name == p.guard.expr => ps.push(promise(cx, p, in_bundle)),
            _ => {
                if let Some((name, ps)) = current.take() {
                    contexts.push(obj(vec![
                        ("name", json!(name)),
                        ("promises", Value::Array(ps)),
                    ]));
                }
                current = Some((p.guard.expr.clone(), vec![promise(cx, p, in_bundle)]));
            }
        }
    }
    if let Some((name, ps)) = current {
        contexts.push(obj(vec![
            ("name", json!(name)),
            ("promises", Value::Array(ps)),
        ]));
    }
    obj(vec![
        ("contexts", Value::Array(contexts)),
        ("line", json!(cx.line(s.header_span))),
        ("name", json!(s.promise_type)),
    ])
}

fn promise(cx: &Ctx, p: &Promise, in_bundle: bool) -> Value {
    let mut attrs = Vec::new();
    if let Some(vg) = &p.var_guard {
        attrs.push(obj(vec![
            ("line", json!(0)),
            ("lval", json!("ifvarclass")),
            (
                "rval",
                obj(vec![
                    ("type", json!("symbol")),
                    ("value", cf_str(&vg.value)),
                ]),
            ),
        ]));
    }
    for c in &p.constraints {
        attrs.push(attr(cx, c, in_bundle));
    }
    let mut pairs = vec![
        ("attributes", Value::Array(attrs)),
        ("line", json!(cx.end_line(p.promiser.span))),
    ];
    if let Some(pe) = &p.promisee {
        pairs.push(("promisee", promisee(pe)));
    }
    pairs.push(("promiser", json!(p.promiser.value)));
    obj(pairs)
}

fn promisee(r: &Rval) -> Value {
    match r {
        Rval::List(items, _) => Value::Array(items.iter().map(promisee).collect()),
        Rval::Scalar(s) => cf_str(&s.value),
        Rval::Call(c) => cf_str(&c.name),
        Rval::Data(v, _) => reals_as_cf(v),
    }
}

fn attr(cx: &Ctx, c: &Constraint, in_bundle: bool) -> Value {
    obj(vec![
        ("line", json!(cx.end_line(c.rval.span()))),
        ("lval", json!(c.lval)),
        ("rval", rval(&c.rval, in_bundle)),
    ])
}

fn rval(r: &Rval, in_bundle: bool) -> Value {
    match r {
        Rval::Scalar(s) => {
            let ty = if in_bundle && s.quote == Quote::Bare {
                "symbol"
            } else {
                "string"
            };
            obj(vec![("type", json!(ty)), ("value", cf_str(&s.value))])
        }
        Rval::List(items, _) => obj(vec![
            ("type", json!("list")),
            (
                "value",
                Value::Array(items.iter().map(|i| rval(i, false)).collect()),
            ),
        ]),
        Rval::Call(c) => obj(vec![
            (
                "arguments",
                Value::Array(c.args.iter().map(|a| rval(a, false)).collect()),
            ),
            ("name", json!(c.name)),
            ("type", json!("functionCall")),
        ]),
        Rval::Data(v, _) => reals_as_cf(v),
    }
}

/// cf-promises writes real numbers of data containers with four decimals (`2.5` → `2.5000`).
fn reals_as_cf(v: &Value) -> Value {
    match v {
        Value::Number(n) => {
            let text = n.to_string();
            if text.contains(['.', 'e', 'E']) {
                let f = n.as_f64().unwrap_or(0.0);
                serde_json::from_str(&format!("{f:.4}")).unwrap_or_else(|_| v.clone())
            } else {
                v.clone()
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(reals_as_cf).collect()),
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), reals_as_cf(x))).collect())
        }
        other => other.clone(),
    }
}

fn body(cx: &Ctx, b: &Body) -> Value {
    let mut contexts: Vec<Value> = Vec::new();
    let mut name = "any".to_string();
    let mut attrs: Vec<Value> = Vec::new();
    for a in b.effective_attrs() {
        if a.guard.expr != name {
            contexts.push(obj(vec![
                ("attributes", Value::Array(std::mem::take(&mut attrs))),
                ("name", json!(name)),
            ]));
            name = a.guard.expr.clone();
        }
        attrs.push(attr(cx, &a.constraint, false));
    }
    contexts.push(obj(vec![
        ("attributes", Value::Array(attrs)),
        ("name", json!(name)),
    ]));
    obj(vec![
        ("arguments", json!(b.params)),
        ("bodyType", json!(b.body_type)),
        ("contexts", Value::Array(contexts)),
        ("line", json!(cx.line(b.name_span))),
        ("name", json!(b.name)),
        ("namespace", json!(b.namespace)),
        ("sourcePath", json!(cx.path)),
    ])
}
