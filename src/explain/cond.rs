//! The conditions of a promise (class guard, quoted guard, `if`/`ifvarclass`/`unless`, a classes
//! promise's `expression`/`and`/`or`/`xor`/`not`) and, for one evaluation, their value and the
//! classes that decided it, each with where it stood at that moment of the run.

use crate::expr::classexpr::{self, ClassExpr};
use crate::graph::model::written;
use crate::syntax::ast::Rval;

use super::facts::{class_key, ClassKey, Facts, PromiseAt, State};

/// Attributes of a classes promise that decide whether its class is defined.
pub const DECIDERS: &[&str] = &[
    "expression",
    "and",
    "or",
    "xor",
    "not",
    "dist",
    "select_class",
];

/// One condition of a promise, for one evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    /// `guard` (the class guard line), `if`, `ifvarclass`, `unless`, or the classes promise's
    /// deciding attribute (`expression`, `and`, …).
    pub attr: String,
    /// The condition as written (a string's text without its quotes).
    pub expr: String,
    /// The condition is a plain string (shown in quotes), not a list or a function call.
    pub literal: bool,
    /// Its value at that evaluation: from the trace when it says, else evaluated from the classes
    /// the trace had defined by then; `None` when neither can tell.
    pub value: Option<bool>,
    /// The classes that decided the value (every class it names when the value is not known from
    /// the classes alone).
    pub classes: Vec<Atom>,
    /// Why the value does not follow from the classes alone (`contains variables`, `function call`).
    pub note: Option<String>,
}

/// A class a condition uses, and where it stood then.
#[derive(Debug, Clone, PartialEq)]
pub struct Atom {
    /// As written in the condition (`ns:c`, `c`).
    pub written: String,
    pub key: ClassKey,
    /// Written under `!`: it counts when it is *not* defined.
    pub negated: bool,
    pub state: State,
}

/// A condition as written: its attribute, its text, the rval it comes from (none for guards), and
/// the bundle whose variables it reads.
#[derive(Debug, Clone)]
pub struct Written<'p> {
    pub attr: String,
    pub text: String,
    pub rval: Option<&'p Rval>,
    pub scope: &'p str,
}

/// The scalar expressions of a condition with their `$(var)` references replaced by the values the
/// variables had at the end of the run (`None` when one is not a scalar then).
fn expand_at_end(facts: &Facts<'_>, exprs: &[&str], ns: &str, scope: &str) -> Option<String> {
    use crate::expr::env::VarLookup;
    let mut out = Vec::new();
    for e in exprs {
        let b = e.as_bytes();
        let mut s = String::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'$' && matches!(b.get(i + 1), Some(b'(' | b'{')) {
                let close = if b[i + 1] == b'(' { ')' } else { '}' };
                let rest = e.get(i + 2..)?;
                let end = rest.find(close)?;
                let name = rest.get(..end)?;
                if name.contains('$') {
                    return None;
                }
                let r = crate::expr::varref::VarRef::parse(name);
                let vns = r.ns.clone().unwrap_or_else(|| ns.to_string());
                let vscope = r.scope.clone().unwrap_or_else(|| scope.to_string());
                let value = facts.engine.ctx.get_var(&vns, &vscope, &r.lval())?;
                s.push_str(value.as_scalar()?);
                i += 2 + end + 1;
                continue;
            }
            let start = i;
            i += 1;
            while i < b.len() && !e.is_char_boundary(i) {
                i += 1;
            }
            s.push_str(e.get(start..i)?);
        }
        out.push(s);
    }
    Some(out.join(", "))
}

/// The conditions of promise `p` as written, in the order the agent checks them.
pub fn conditions<'p>(p: &PromiseAt<'p>) -> Vec<Written<'p>> {
    let mut out = Vec::new();
    let scope: &'p str = &p.bundle.name;
    if p.promise.guard.expr != "any" {
        out.push(Written {
            attr: "guard".into(),
            text: p.promise.guard.expr.clone(),
            rval: None,
            scope,
        });
    }
    if let Some(vg) = &p.promise.var_guard {
        out.push(Written {
            attr: "guard".into(),
            text: vg.value.clone(),
            rval: None,
            scope,
        });
    }
    for lval in ["ifvarclass", "if", "unless"] {
        if let Some(rv) = p.constraint(lval) {
            out.push(Written {
                attr: lval.into(),
                text: text_of(rv),
                rval: Some(rv),
                scope,
            });
        }
    }
    if p.promise_type == "classes" {
        for c in &p.promise.constraints {
            if DECIDERS.contains(&c.lval.as_str()) {
                out.push(Written {
                    attr: c.lval.clone(),
                    text: text_of(&c.rval),
                    rval: Some(&c.rval),
                    scope,
                });
            }
        }
    }
    out
}

/// An rval shown in a condition: a string as its text, anything else as written.
pub fn text_of(rv: &Rval) -> String {
    match rv {
        Rval::Scalar(s) => s.value.clone(),
        other => written(other),
    }
}

fn has_vars(s: &str) -> bool {
    crate::graph::model::is_dynamic(s)
}

/// Evaluates a written condition just before event `before` (`None`: at the end of the run), in
/// namespace `ns`; `known` is its value when the trace says it.
pub fn evaluate(
    facts: &Facts<'_>,
    w: &Written<'_>,
    ns: &str,
    before: Option<usize>,
    known: Option<bool>,
) -> Cond {
    let mut cond = Cond {
        attr: w.attr.clone(),
        expr: w.text.clone(),
        literal: !matches!(w.rval, Some(Rval::List(..) | Rval::Call(_))),
        value: known,
        classes: Vec::new(),
        note: None,
    };
    let exprs: Vec<&str> = match w.rval {
        None => vec![w.text.as_str()],
        Some(Rval::Scalar(s)) => vec![s.value.as_str()],
        Some(Rval::List(items, _)) => {
            let scalars: Vec<&str> = items
                .iter()
                .filter_map(|i| match i {
                    Rval::Scalar(s) => Some(s.value.as_str()),
                    _ => None,
                })
                .collect();
            // a list holding function calls is known only as a whole
            if scalars.len() == items.len() {
                scalars
            } else {
                Vec::new()
            }
        }
        Some(_) => Vec::new(),
    };
    let whole_list = matches!(w.rval, Some(Rval::List(..)));
    if exprs.is_empty() || (whole_list && !matches!(w.attr.as_str(), "and" | "or" | "xor")) {
        cond.note = Some("function call".into());
        if let Some(rv) = w.rval {
            cond.classes = all_atoms(facts, &names_in_rval(rv), ns, before);
        }
        return cond;
    }
    if exprs.iter().any(|e| has_vars(e)) {
        cond.note = Some(match expand_at_end(facts, &exprs, ns, w.scope) {
            Some(x) => format!(
                "it contains variables; with their values at the end of the run it reads \"{x}\""
            ),
            None => "it contains variables".into(),
        });
        let names: Vec<String> = exprs
            .iter()
            .flat_map(|e| crate::graph::classes::expression_names(e))
            .collect();
        cond.classes = all_atoms(facts, &names, ns, before);
        return cond;
    }
    let mut values = Vec::new();
    let mut blamed: Vec<Vec<Atom>> = Vec::new();
    for e in &exprs {
        match classexpr::parse(e) {
            Ok(x) => {
                let (v, atoms) = blame(facts, &x, ns, before, false);
                values.push(v);
                blamed.push(atoms);
            }
            Err(err) => {
                cond.note = Some(err.to_string());
                return cond;
            }
        }
    }
    let mine = match w.attr.as_str() {
        "and" => values.iter().all(|v| *v),
        "or" => values.iter().any(|v| *v),
        "xor" => values.iter().filter(|v| **v).count() % 2 == 1,
        "not" => !values.first().copied().unwrap_or(false),
        "dist" | "select_class" => true,
        _ => values.first().copied().unwrap_or(false),
    };
    // the classes that decided a list: the false ones of a false `and`, the true ones of a true `or`
    let mut atoms = Vec::new();
    for (v, a) in values.iter().zip(blamed) {
        let counts = match w.attr.as_str() {
            "and" => mine || !*v,
            "or" => !mine || *v,
            _ => true,
        };
        if counts {
            for x in a {
                if !atoms.contains(&x) {
                    atoms.push(x);
                }
            }
        }
    }
    cond.classes = atoms;
    match known {
        Some(k) if k != mine => {
            // the trace knows better (a bundle-local class of another activation, a class
            // defined by a function): show every class it names
            cond.note = Some("the classes named here do not tell the whole story".into());
        }
        Some(_) => {}
        None => cond.value = Some(mine),
    }
    cond
}

/// The class names in the scalars of an rval (function call arguments included).
fn names_in_rval(rv: &Rval) -> Vec<String> {
    let mut out = Vec::new();
    match rv {
        Rval::Scalar(s) => out.extend(crate::graph::classes::expression_names(&s.value)),
        Rval::List(items, _) => items.iter().for_each(|i| out.extend(names_in_rval(i))),
        // only the functions that take class expressions name classes
        Rval::Call(c) => match c.name.as_str() {
            "and" | "or" | "not" => c.args.iter().for_each(|a| out.extend(names_in_rval(a))),
            "ifelse" => {
                let n = c.args.len();
                for (k, a) in c.args.iter().enumerate() {
                    if k % 2 == 0 && k + 1 < n {
                        out.extend(names_in_rval(a));
                    }
                }
            }
            _ => {}
        },
        Rval::Data(..) => {}
    }
    out
}

fn all_atoms(facts: &Facts<'_>, names: &[String], ns: &str, before: Option<usize>) -> Vec<Atom> {
    let mut out: Vec<Atom> = Vec::new();
    for n in names {
        let key = resolve(facts, n, ns);
        if out.iter().any(|a| a.key == key) {
            continue;
        }
        out.push(Atom {
            written: n.clone(),
            state: facts.state(&key, before),
            key,
            negated: false,
        });
    }
    out
}

/// The class a name written in namespace `ns` refers to: `ns:c` exactly; an unqualified name is
/// the namespace's class, or a hard class.
pub fn resolve(facts: &Facts<'_>, written: &str, ns: &str) -> ClassKey {
    let key = class_key(written, ns);
    if key.0 != "default" && !written.contains(':') {
        let default = ("default".to_string(), key.1.clone());
        if facts.hard(&default).is_some() {
            return default;
        }
    }
    key
}

/// The value of `x` and the classes that decided it.
fn blame(
    facts: &Facts<'_>,
    x: &ClassExpr,
    ns: &str,
    before: Option<usize>,
    negated: bool,
) -> (bool, Vec<Atom>) {
    match x {
        ClassExpr::Name(n) => match n.as_str() {
            "any" | "true" => (true, Vec::new()),
            "false" => (false, Vec::new()),
            _ => {
                let key = resolve(facts, n, ns);
                let state = facts.state(&key, before);
                let v = state.defined();
                (
                    v,
                    vec![Atom {
                        written: n.clone(),
                        key,
                        negated,
                        state,
                    }],
                )
            }
        },
        ClassExpr::Not(e) => {
            let (v, a) = blame(facts, e, ns, before, !negated);
            (!v, a)
        }
        ClassExpr::And(l, r) | ClassExpr::Or(l, r) => {
            let and = matches!(x, ClassExpr::And(..));
            let (lv, la) = blame(facts, l, ns, before, negated);
            let (rv, ra) = blame(facts, r, ns, before, negated);
            let v = if and { lv && rv } else { lv || rv };
            // the sides that decided: every side when all agree with the result, else those that do
            let mut out = Vec::new();
            if lv == v {
                out.extend(la);
            }
            if rv == v {
                for a in ra {
                    if !out.contains(&a) {
                        out.push(a);
                    }
                }
            }
            (v, out)
        }
    }
}
