//! The AST in the `cf-promises -p json` schema: alphabetical keys, `line` numbers, `symbol` for bare
//! identifiers in bundles, quotes backslash-escaped inside string values, reals with four decimals, and
//! cf-promises' layout (first line `{`, every later line indented by four more spaces, no final newline).
//! Written straight to text: building a `serde_json::Value` tree first cost more than parsing the file.

use std::fmt::Write;

use serde_json::Value;

use super::ast::*;
use crate::source::{LineIndex, Span};

/// Render `policy` (parsed from text with line index `lines`) as cf-promises prints it.
pub fn policy_to_json_text(policy: &Policy, lines: &LineIndex) -> String {
    policies_to_json_text(&[(policy, lines)])
}

/// Several files as one policy (`-p json-full`): all bodies, then all bundles.
pub fn policies_to_json_text(files: &[(&Policy, &LineIndex)]) -> String {
    // the JSON is 4-8 times the size of the text (the masterfiles): reserved at once, it is neither
    // copied while it grows nor are pages touched twice (a fifth of the page faults of a
    // `promises -p json` run); the pages of the unused tail are never touched
    let text: usize = files.iter().map(|(_, l)| l.last_line_start()).sum();
    let mut w = W {
        out: String::with_capacity(4096 + text.saturating_mul(8)),
        depth: 0,
    };
    w.out.push('{');
    w.depth += 1;
    w.key("bodies", true);
    w.list(
        files
            .iter()
            .flat_map(|(p, l)| p.bodies.iter().map(move |b| (b, *l, p.path.as_str()))),
        |w, (b, l, path)| body(w, b, &Cx { lines: l, path }),
    );
    w.key("bundles", false);
    w.list(
        files
            .iter()
            .flat_map(|(p, l)| p.bundles.iter().map(move |b| (b, *l, p.path.as_str()))),
        |w, (b, l, path)| bundle(w, b, &Cx { lines: l, path }),
    );
    w.depth -= 1;
    w.nl();
    w.out.push('}');
    w.out
}

/// Blanks for [`W::nl`]'s indentation.
const BLANKS: &str = "                                                                ";

/// Text writer with cf-promises' indentation.
struct W {
    out: String,
    depth: usize,
}

impl W {
    fn nl(&mut self) {
        self.out.push('\n');
        // the indentation in slices of blanks rather than one push per blank
        let mut n = 4 + 2 * self.depth;
        while n > 0 {
            let k = n.min(BLANKS.len());
            self.out.push_str(BLANKS.get(..k).unwrap_or_default());
            n -= k;
        }
    }

    /// `"key": ` on a new line; `first` omits the separating comma.
    fn key(&mut self, k: &str, first: bool) {
        if !first {
            self.out.push(',');
        }
        self.nl();
        self.out.push('"');
        self.out.push_str(k);
        self.out.push_str("\": ");
    }

    fn obj(&mut self, f: impl FnOnce(&mut W)) {
        self.out.push('{');
        self.depth += 1;
        f(self);
        self.depth -= 1;
        self.nl();
        self.out.push('}');
    }

    fn list<T>(&mut self, items: impl Iterator<Item = T>, mut f: impl FnMut(&mut W, T)) {
        self.out.push('[');
        self.depth += 1;
        let mut any = false;
        for (i, it) in items.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.nl();
            f(self, it);
            any = true;
        }
        self.depth -= 1;
        if any {
            self.nl();
        }
        self.out.push(']');
    }

    fn num(&mut self, n: usize) {
        let _ = write!(self.out, "{n}");
    }

    /// A JSON string.
    fn str(&mut self, s: &str) {
        self.out.push('"');
        // most strings need no escape: copied whole
        if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
            self.out.push_str(s);
            self.out.push('"');
            return;
        }
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{08}' => self.out.push_str("\\b"),
                '\u{0C}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", c as u32);
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// A string value as cf-promises writes it: `"` and `'` get a backslash before JSON escaping.
    fn cf_str(&mut self, s: &str) {
        if !s.contains(['"', '\'']) {
            return self.str(s);
        }
        let mut t = String::with_capacity(s.len() + 4);
        for c in s.chars() {
            if c == '"' || c == '\'' {
                t.push('\\');
            }
            t.push(c);
        }
        self.str(&t);
    }

    /// A data container, pretty-printed at the current depth.
    fn data(&mut self, v: &Value) {
        match v {
            Value::Object(m) => {
                // cf-promises writes container keys sorted, and an empty object over two lines.
                self.out.push('{');
                self.depth += 1;
                let mut keys: Vec<(&String, &Value)> = m.iter().collect();
                keys.sort_by(|a, b| a.0.cmp(b.0));
                for (i, (k, x)) in keys.into_iter().enumerate() {
                    self.key_raw(k, i == 0);
                    self.data(x);
                }
                self.depth -= 1;
                self.nl();
                self.out.push('}');
            }
            Value::Array(a) => {
                if a.is_empty() {
                    self.out.push_str("[]");
                    return;
                }
                self.list(a.iter(), |w, x| w.data(x));
            }
            Value::String(s) => self.str(s),
            Value::Number(n) => {
                // cf-promises writes reals with four decimals (`2.5` → `2.5000`).
                let text = n.to_string();
                if text.contains(['.', 'e', 'E']) {
                    let _ = write!(self.out, "{:.4}", n.as_f64().unwrap_or(0.0));
                } else {
                    self.out.push_str(&text);
                }
            }
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Null => self.out.push_str("null"),
        }
    }

    fn key_raw(&mut self, k: &str, first: bool) {
        if !first {
            self.out.push(',');
        }
        self.nl();
        self.str(k);
        self.out.push_str(": ");
    }

    fn strings(&mut self, items: &[String]) {
        if items.is_empty() {
            self.out.push_str("[]");
            return;
        }
        self.list(items.iter(), |w, s| w.str(s));
    }
}

struct Cx<'a> {
    lines: &'a LineIndex,
    path: &'a str,
}

impl Cx<'_> {
    fn line(&self, sp: Span) -> usize {
        self.lines.line(sp.start)
    }
    /// Line of the last character of `sp` (where the parser reduced the rule).
    fn end_line(&self, sp: Span) -> usize {
        self.lines.line(sp.end.saturating_sub(1).max(sp.start))
    }
}

/// Promise types that cf-promises emits (custom promise type sections are left out of the JSON).
fn is_builtin_type(t: &str) -> bool {
    crate::syntax::tables::promise_type(t).is_some()
}

fn bundle(w: &mut W, b: &Bundle, cx: &Cx) {
    w.obj(|w| {
        w.key("arguments", true);
        w.strings(&b.params);
        w.key("bundleType", false);
        w.str(&b.bundle_type);
        w.key("line", false);
        w.num(cx.line(b.name_span));
        w.key("name", false);
        w.str(&b.name);
        w.key("namespace", false);
        w.str(&b.namespace);
        w.key("promiseTypes", false);
        w.list(
            b.sections
                .iter()
                .filter(|s| is_builtin_type(&s.promise_type)),
            |w, s| section(w, s, cx),
        );
        w.key("sourcePath", false);
        w.str(cx.path);
    });
}

/// Consecutive promises sharing a class guard form one context.
fn section(w: &mut W, s: &Section, cx: &Cx) {
    let mut groups: Vec<&[Promise]> = Vec::new();
    let mut start = 0;
    for i in 1..=s.promises.len() {
        let split = match (s.promises.get(i - 1), s.promises.get(i)) {
            (Some(a), Some(b)) => a.guard.expr != b.guard.expr,
            _ => true,
        };
        if split {
            if let Some(g) = s.promises.get(start..i) {
                groups.push(g);
            }
            start = i;
        }
    }
    w.obj(|w| {
        w.key("contexts", true);
        w.list(groups.into_iter(), |w, g| {
            w.obj(|w| {
                w.key("name", true);
                w.str(g.first().map(|p| p.guard.expr.as_str()).unwrap_or("any"));
                w.key("promises", false);
                w.list(g.iter(), |w, p| promise(w, p, cx));
            })
        });
        w.key("line", false);
        w.num(cx.line(s.header_span));
        w.key("name", false);
        w.str(&s.promise_type);
    });
}

fn promise(w: &mut W, p: &Promise, cx: &Cx) {
    w.obj(|w| {
        w.key("attributes", true);
        let synthetic = p.var_guard.iter().map(Attr::VarGuard);
        let attrs = synthetic.chain(p.constraints.iter().map(Attr::Constraint));
        if p.var_guard.is_none() && p.constraints.is_empty() {
            w.out.push_str("[]");
        } else {
            w.list(attrs, |w, a| match a {
                Attr::VarGuard(vg) => w.obj(|w| {
                    w.key("line", true);
                    w.num(0);
                    w.key("lval", false);
                    w.str("ifvarclass");
                    w.key("rval", false);
                    w.obj(|w| {
                        w.key("type", true);
                        w.str("symbol");
                        w.key("value", false);
                        w.cf_str(&vg.value);
                    });
                }),
                Attr::Constraint(c) => attr(w, c, true, cx),
            });
        }
        w.key("line", false);
        w.num(cx.end_line(p.promiser.span));
        if let Some(pe) = &p.promisee {
            w.key("promisee", false);
            promisee(w, pe);
        }
        w.key("promiser", false);
        w.str(&p.promiser.value);
    });
}

enum Attr<'a> {
    VarGuard(&'a Scalar),
    Constraint(&'a Constraint),
}

fn promisee(w: &mut W, r: &Rval) {
    match r {
        Rval::List(items, _) if items.is_empty() => w.out.push_str("[]"),
        Rval::List(items, _) => w.list(items.iter(), promisee),
        Rval::Scalar(s) => w.cf_str(&s.value),
        Rval::Call(c) => w.cf_str(&c.name),
        Rval::Data(v, _) => w.data(v),
    }
}

fn attr(w: &mut W, c: &Constraint, in_bundle: bool, cx: &Cx) {
    w.obj(|w| {
        w.key("line", true);
        w.num(cx.end_line(c.rval.span()));
        w.key("lval", false);
        w.str(&c.lval);
        w.key("rval", false);
        rval(w, &c.rval, in_bundle);
    });
}

/// `symbol` only for a bare identifier that is a bundle promise's own rval; list items and function
/// arguments are strings.
fn rval(w: &mut W, r: &Rval, symbol_ok: bool) {
    match r {
        Rval::Scalar(s) => w.obj(|w| {
            w.key("type", true);
            w.str(if symbol_ok && s.quote == Quote::Bare {
                "symbol"
            } else {
                "string"
            });
            w.key("value", false);
            w.cf_str(&s.value);
        }),
        Rval::List(items, _) => w.obj(|w| {
            w.key("type", true);
            w.str("list");
            w.key("value", false);
            if items.is_empty() {
                w.out.push_str("[]");
            } else {
                w.list(items.iter(), |w, i| rval(w, i, false));
            }
        }),
        Rval::Call(c) => w.obj(|w| {
            w.key("arguments", true);
            if c.args.is_empty() {
                w.out.push_str("[]");
            } else {
                w.list(c.args.iter(), |w, a| rval(w, a, false));
            }
            w.key("name", false);
            w.str(&c.name);
            w.key("type", false);
            w.str("functionCall");
        }),
        Rval::Data(v, _) => w.data(v),
    }
}

/// Body contexts: a new context at every guard change (even back to `any`), and an empty `any` context
/// first when the first attribute is guarded.
fn body(w: &mut W, b: &Body, cx: &Cx) {
    let attrs = b.effective_attrs();
    let mut groups: Vec<(&str, Vec<&BodyAttr>)> = vec![("any", Vec::new())];
    for a in attrs {
        let same = groups.last().is_some_and(|(n, _)| *n == a.guard.expr);
        if !same {
            groups.push((&a.guard.expr, Vec::new()));
        }
        if let Some((_, g)) = groups.last_mut() {
            g.push(a);
        }
    }
    w.obj(|w| {
        w.key("arguments", true);
        w.strings(&b.params);
        w.key("bodyType", false);
        w.str(&b.body_type);
        w.key("contexts", false);
        w.list(groups.iter(), |w, (name, g)| {
            w.obj(|w| {
                w.key("attributes", true);
                if g.is_empty() {
                    w.out.push_str("[]");
                } else {
                    w.list(g.iter(), |w, a| attr(w, &a.constraint, false, cx));
                }
                w.key("name", false);
                w.str(name);
            })
        });
        w.key("line", false);
        w.num(cx.line(b.name_span));
        w.key("name", false);
        w.str(&b.name);
        w.key("namespace", false);
        w.str(&b.namespace);
        w.key("sourcePath", false);
        w.str(cx.path);
    });
}
