//! The `classes` graph: promise → class for each class a promise defines (a `classes:` promise, its
//! `select_class` options, and the literal outcome classes of the `classes` body it uses, with the
//! body's parameters replaced by literal arguments and `inherit_from` followed), and class → promise
//! (or body) for each class a guard uses: the context of a promise or body attribute, `if`,
//! `ifvarclass`, `unless`, a classes promise's `expression`/`and`/`or`/`xor`/`not`, the class
//! expressions given to `and()`, `or()`, `not()`, `ifelse()`, and the defined classes a literal
//! `classmatch()`/`classesmatching()`/`countclassesmatching()` regex matches.
//!
//! Names with variables are skipped (they are known only at run time). Names are canonified like the
//! agent does for definitions; a class defined in a namespace other than `default` is `ns:name`, and
//! an unqualified use in that namespace refers to it when it exists. A `classes:` promise that defines a
//! bundle-local class (`crate::promise::classes::written_global`) makes `NAME@BUNDLE` (shown as
//! "NAME (local to BUNDLE)"): only uses in that bundle refer to it; elsewhere the name means the
//! global class, as for the agent.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::NodeIndex;

use super::calls::constraint;
use super::model::{display_name, is_dynamic, scalars, split_ns, written, BodyRef, Model, Pos};
use super::{Edge, Kind, Node, PolicyGraph};
use crate::syntax::ast::{Promise, Rval};

/// Outcome attributes of a `classes` body that define classes.
pub const OUTCOME_ATTRS: &[&str] = &[
    "promise_kept",
    "promise_repaired",
    "repair_failed",
    "repair_denied",
    "repair_timeout",
];

/// Attributes whose values are class expressions (a use of every name in them).
const EXPRESSION_ATTRS: &[&str] = &["if", "ifvarclass", "unless"];
const CLASSES_PROMISE_ATTRS: &[&str] = &["expression", "and", "or", "xor", "not"];
const CLASSMATCH_FUNCTIONS: &[&str] = &["classmatch", "classesmatching", "countclassesmatching"];
const MAX_INHERIT_DEPTH: usize = 16;
/// Most (regex, class) tests for classmatch-style calls in one graph (a bound for hostile policies).
const MATCH_BUDGET: usize = 20_000_000;

/// The text every match of `re` starts with (empty when unknown: alternatives, optional first
/// characters).
fn literal_prefix(re: &str) -> String {
    if re.contains('|') {
        return String::new();
    }
    let re = re.strip_prefix('^').unwrap_or(re);
    let b = re.as_bytes();
    let mut n = 0;
    while n < b.len() && (b[n].is_ascii_alphanumeric() || b[n] == b'_') {
        n += 1;
    }
    // a quantifier after the last literal character makes it optional
    if matches!(b.get(n), Some(b'?' | b'*' | b'{')) {
        n = n.saturating_sub(1);
    }
    re.get(..n).unwrap_or("").to_string()
}

/// Who defines or uses a class: a promise (`FILE:LINE:COL` of its promiser) or a body.
#[derive(Debug, Clone)]
struct Actor {
    id: String,
    label: String,
    ty: &'static str,
    bundle: String,
    pos: Pos,
}

#[derive(Debug, Clone)]
struct Def {
    class: String,
    actor: Actor,
    kind: &'static str,
    label: String,
    pos: Pos,
}

#[derive(Debug, Clone)]
struct Use {
    /// The name as written (without `default:`); resolved against the definitions afterwards.
    name: String,
    ns: String,
    actor: Actor,
    kind: &'static str,
    label: String,
    pos: Pos,
}

#[cfg(test)]
mod tests {
    #[test]
    fn literal_prefixes() {
        assert_eq!(super::literal_prefix("k12.*"), "k12");
        assert_eq!(super::literal_prefix("^web_.*"), "web_");
        assert_eq!(super::literal_prefix("ab?c"), "a");
        assert_eq!(super::literal_prefix("a.*|b"), "");
        assert_eq!(super::literal_prefix(".*_ok"), "");
        assert_eq!(super::literal_prefix("x+"), "x");
    }

    #[test]
    fn names_of_expressions() {
        assert_eq!(
            super::expression_names("(linux|default:web).!$(x)_ok&any&a_$(y)"),
            ["linux", "web"]
        );
        assert_eq!(super::expression_names("ns:c|ns:c"), ["ns:c"]);
    }
}

#[derive(Default)]
struct Collect {
    defs: Vec<Def>,
    uses: Vec<Use>,
    /// (regex text, actor, function, pos) of literal classmatch-style calls.
    matches: Vec<(String, Actor, &'static str, Pos)>,
}

/// Canonifies a class name as the agent does (`ns:` prefix kept).
fn canon(name: &str) -> String {
    match name.split_once(':') {
        Some((ns, n)) => format!("{ns}:{}", crate::expr::canonify(n)),
        None => crate::expr::canonify(name),
    }
}

/// A defined class's key: `name`, or `ns:name` outside the default namespace.
fn key(ns: &str, name: &str) -> String {
    let (ns, n) = split_ns(name, ns);
    if ns == "default" {
        n.to_string()
    } else {
        format!("{ns}:{n}")
    }
}

/// The class names a class expression uses, with variable references and their names removed.
pub fn expression_names(expr: &str) -> Vec<String> {
    // variable references become one placeholder byte (nesting counted), so `$(x)_ok` is dynamic
    let mut flat = String::with_capacity(expr.len());
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if (c == b'$' || c == b'@') && matches!(b.get(i + 1), Some(b'(' | b'{')) {
            let mut depth = 0usize;
            let mut j = i + 1;
            while j < b.len() {
                match b[j] {
                    b'(' | b'{' => depth += 1,
                    b')' | b'}' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            flat.push('\u{1}');
            i = j + 1;
            continue;
        }
        flat.push(char::from(c));
        i += 1;
    }
    let mut out = Vec::new();
    for tok in flat.split(|c: char| "!&|.()".contains(c) || c.is_whitespace()) {
        if tok.is_empty()
            || matches!(tok, "any" | "true" | "false")
            || !tok
                .bytes()
                .all(|x| x.is_ascii_alphanumeric() || x == b'_' || x == b':')
        {
            continue;
        }
        let t = tok.strip_prefix("default:").unwrap_or(tok);
        if !t.is_empty() && !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    }
    out
}

/// The class expressions in an rval used as a condition: scalars (of lists), and the expression
/// arguments of `and()`, `or()`, `not()` and `ifelse()`.
fn condition_scalars(rv: &Rval) -> Vec<(&str, Pos32)> {
    let mut out = Vec::new();
    match rv {
        Rval::Scalar(s) => out.push((s.value.as_str(), s.span.start)),
        Rval::List(items, _) => {
            for it in items {
                out.extend(condition_scalars(it));
            }
        }
        Rval::Call(c) => match c.name.as_str() {
            "and" | "or" | "not" => {
                for a in &c.args {
                    out.extend(condition_scalars(a));
                }
            }
            "ifelse" => {
                let n = c.args.len();
                for (k, a) in c.args.iter().enumerate() {
                    if k % 2 == 0 && k + 1 < n {
                        out.extend(condition_scalars(a));
                    }
                }
            }
            _ => {}
        },
        Rval::Data(..) => {}
    }
    out
}

type Pos32 = u32;

/// Literal regexes of classmatch-style calls anywhere in an rval.
fn classmatch_calls(rv: &Rval, out: &mut Vec<(String, &'static str, Pos32)>) {
    match rv {
        Rval::Call(c) => {
            if let Some(f) = CLASSMATCH_FUNCTIONS.iter().find(|f| **f == c.name) {
                if let Some(Rval::Scalar(s)) = c.args.first() {
                    if !is_dynamic(&s.value) {
                        out.push((s.value.clone(), f, s.span.start));
                    }
                }
            }
            for a in &c.args {
                classmatch_calls(a, out);
            }
        }
        Rval::List(items, _) => {
            for it in items {
                classmatch_calls(it, out);
            }
        }
        _ => {}
    }
}

/// Replaces `$(param)`/`${param}` by the literal arguments of a body call.
fn substitute(text: &str, pairs: &[(String, String)]) -> String {
    let mut s = text.to_string();
    for (p, v) in pairs {
        s = s
            .replace(&format!("$({p})"), v)
            .replace(&format!("${{{p}}}"), v);
    }
    s
}

/// The outcome classes a `classes` body sets: (attribute, class text) with parameters substituted;
/// parent bodies (`inherit_from`) give the attributes the body does not set itself.
fn body_outcome_classes(
    m: &Model<'_>,
    body: &BodyRef<'_>,
    args: &[String],
    depth: usize,
) -> Vec<(String, String)> {
    if depth > MAX_INHERIT_DEPTH {
        return Vec::new();
    }
    let pairs: Vec<(String, String)> = body
        .body
        .params
        .iter()
        .cloned()
        .zip(args.iter().cloned())
        .collect();
    let mut own: Vec<(String, String)> = Vec::new();
    let mut own_lvals: BTreeSet<&str> = BTreeSet::new();
    let mut parent: Vec<(String, String)> = Vec::new();
    for a in &body.body.attrs {
        let lval = a.constraint.lval.as_str();
        if lval == "inherit_from" {
            let (name, pargs) = match &a.constraint.rval {
                Rval::Scalar(s) => (s.value.clone(), Vec::new()),
                Rval::Call(c) => (
                    c.name.clone(),
                    c.args
                        .iter()
                        .map(|x| match x {
                            Rval::Scalar(s) => substitute(&s.value, &pairs),
                            other => written(other),
                        })
                        .collect(),
                ),
                _ => continue,
            };
            if let Some(p) = m
                .find_body("classes", &name, body.ns)
                .and_then(|i| m.bodies.get(i))
            {
                parent = body_outcome_classes(m, p, &pargs, depth + 1);
            }
            continue;
        }
        if !OUTCOME_ATTRS.contains(&lval) {
            continue;
        }
        own_lvals.insert(lval);
        for s in scalars(&a.constraint.rval) {
            own.push((lval.to_string(), substitute(&s.value, &pairs)));
        }
    }
    parent.retain(|(l, _)| !own_lvals.contains(l.as_str()));
    parent.extend(own);
    parent
}

fn promise_actor(m: &Model<'_>, bundle: &str, ptype: &str, p: &Promise, file: usize) -> Actor {
    let pos = Pos {
        file,
        offset: p.promiser.span.start,
    };
    let site = m.site(pos);
    Actor {
        id: site.to_string(),
        label: format!("{bundle}: {ptype} \"{}\"", p.promiser.value),
        ty: "promise",
        bundle: bundle.to_string(),
        pos,
    }
}

fn collect(m: &Model<'_>) -> Collect {
    let mut c = Collect::default();
    for b in &m.bundles {
        let bname = display_name(b.ns, b.name);
        for s in &b.bundle.sections {
            for p in &s.promises {
                let actor = promise_actor(m, &bname, &s.promise_type, p, b.file);
                let at = |offset: u32| Pos {
                    file: b.file,
                    offset,
                };
                let used = |c: &mut Collect, expr: &str, off: u32, kind: &'static str| {
                    for name in expression_names(expr) {
                        c.uses.push(Use {
                            name,
                            ns: b.ns.to_string(),
                            actor: actor.clone(),
                            kind,
                            label: String::new(),
                            pos: at(off),
                        });
                    }
                };
                used(&mut c, &p.guard.expr, p.guard.span.start, "guard");
                for con in &p.constraints {
                    let lval = con.lval.as_str();
                    if let Some(k) = EXPRESSION_ATTRS.iter().find(|k| **k == lval) {
                        for (e, off) in condition_scalars(&con.rval) {
                            used(&mut c, e, off, k);
                        }
                    }
                    if s.promise_type == "classes" && CLASSES_PROMISE_ATTRS.contains(&lval) {
                        for (e, off) in condition_scalars(&con.rval) {
                            used(&mut c, e, off, "expression");
                        }
                    }
                    let mut found = Vec::new();
                    classmatch_calls(&con.rval, &mut found);
                    for (re, f, off) in found {
                        c.matches.push((re, actor.clone(), f, at(off)));
                    }
                }
                if s.promise_type == "classes" && !is_dynamic(&p.promiser.value) {
                    let global = key(b.ns, &canon(&p.promiser.value));
                    let class = if crate::promise::classes::written_global(&b.bundle.bundle_type, p)
                    {
                        global
                    } else {
                        format!("{global}@{bname}")
                    };
                    c.defs.push(Def {
                        class,
                        actor: actor.clone(),
                        kind: "classes",
                        label: String::new(),
                        pos: actor.pos,
                    });
                    if let Some(rv) = constraint(p, "select_class") {
                        for opt in scalars(rv) {
                            if !is_dynamic(&opt.value) {
                                c.defs.push(Def {
                                    class: key(b.ns, &canon(&opt.value)),
                                    actor: actor.clone(),
                                    kind: "select_class",
                                    label: String::new(),
                                    pos: at(opt.span.start),
                                });
                            }
                        }
                    }
                }
                if let Some(rv) = constraint(p, "classes") {
                    body_defs(m, &mut c, &actor, rv, b.ns, at(rv.span().start));
                }
            }
        }
    }
    for body in &m.bodies {
        let actor = Actor {
            id: format!(
                "body {} {}",
                body.body.body_type,
                display_name(body.ns, body.name)
            ),
            label: format!(
                "body {} {}",
                body.body.body_type,
                display_name(body.ns, body.name)
            ),
            ty: "body",
            bundle: String::new(),
            pos: Pos {
                file: body.file,
                offset: body.body.name_span.start,
            },
        };
        for a in &body.body.attrs {
            for name in expression_names(&a.guard.expr) {
                c.uses.push(Use {
                    name,
                    ns: body.ns.to_string(),
                    actor: actor.clone(),
                    kind: "guard",
                    label: String::new(),
                    pos: Pos {
                        file: body.file,
                        offset: a.guard.span.start,
                    },
                });
            }
        }
    }
    c
}

/// The classes a promise's `classes => NAME(ARGS)` sets (literal ones only).
fn body_defs(m: &Model<'_>, c: &mut Collect, actor: &Actor, rv: &Rval, ns: &str, pos: Pos) {
    let (name, args): (&str, Vec<String>) = match rv {
        Rval::Scalar(s) => (&s.value, Vec::new()),
        Rval::Call(call) => (
            &call.name,
            call.args
                .iter()
                .map(|a| match a {
                    Rval::Scalar(s) => s.value.clone(),
                    // a call's value is known at run time only: its classes stay dynamic
                    _ => "$(?)".to_string(),
                })
                .collect(),
        ),
        _ => return,
    };
    if is_dynamic(name) {
        return;
    }
    let Some(body) = m
        .find_body("classes", name, ns)
        .and_then(|i| m.bodies.get(i))
    else {
        return;
    };
    let label = format!("classes => {}", written(rv));
    for (attr, class) in body_outcome_classes(m, body, &args, 0) {
        if is_dynamic(&class) || class.is_empty() {
            continue;
        }
        let kind = OUTCOME_ATTRS
            .iter()
            .find(|a| **a == attr)
            .copied()
            .unwrap_or("promise_repaired");
        c.defs.push(Def {
            class: key(ns, &canon(&class)),
            actor: actor.clone(),
            kind,
            label: label.clone(),
            pos,
        });
    }
}

fn actor_node(g: &mut PolicyGraph, m: &Model<'_>, a: &Actor) -> NodeIndex {
    let mut n = Node::new(a.id.clone(), a.label.clone(), a.ty);
    n.bundle = a.bundle.clone();
    g.node(n.at(m, a.pos))
}

/// Edge kinds that mean "defines".
pub fn is_definition(kind: &str) -> bool {
    kind == "classes" || kind == "select_class" || OUTCOME_ATTRS.contains(&kind)
}

pub fn build(m: &Model<'_>) -> PolicyGraph {
    let mut g = PolicyGraph::new(Kind::Classes);
    let c = collect(m);
    let defined: BTreeSet<&str> = c.defs.iter().map(|d| d.class.as_str()).collect();
    let mut class_nodes: BTreeMap<String, NodeIndex> = BTreeMap::new();
    let mut class_node = |g: &mut PolicyGraph, name: &str, pos: Pos| -> NodeIndex {
        if let Some(i) = class_nodes.get(name) {
            return *i;
        }
        let (local, bundle) = name.split_once('@').unwrap_or((name, ""));
        let (ns, bare) = split_ns(local, "default");
        let label = if bundle.is_empty() {
            name.to_string()
        } else {
            format!("{local} (local to {bundle})")
        };
        let mut n = Node::new(format!("class:{name}"), &label, "class");
        n.namespace = ns.to_string();
        n.name = bare.to_string();
        n.subtype = if defined.contains(name) {
            "defined"
        } else if super::known::is_known(name) {
            "hard"
        } else {
            "undefined"
        }
        .to_string();
        let i = g.node(n.at(m, pos));
        class_nodes.insert(name.to_string(), i);
        i
    };
    for d in &c.defs {
        let from = actor_node(&mut g, m, &d.actor);
        let to = class_node(&mut g, &d.class, d.pos);
        g.edge(
            from,
            to,
            Edge::new(d.kind, d.label.clone(), false, m, Some(d.pos)),
        );
    }
    for u in &c.uses {
        // an unqualified name in a namespace means that namespace's class when the policy defines it
        let name = if u.ns != "default" && !u.name.contains(':') {
            let q = format!("{}:{}", u.ns, u.name);
            if defined.contains(q.as_str()) {
                q
            } else {
                u.name.clone()
            }
        } else {
            u.name.clone()
        };
        // a bundle-local class of the bundle the use is in comes first
        let local = format!("{name}@{}", u.actor.bundle);
        let name = if defined.contains(local.as_str()) {
            local
        } else {
            name
        };
        let from = class_node(&mut g, &name, u.pos);
        let to = actor_node(&mut g, m, &u.actor);
        g.edge(
            from,
            to,
            Edge::new(u.kind, u.label.clone(), false, m, Some(u.pos)),
        );
    }
    // each distinct regex is compiled once and matched against the defined classes that start with
    // its literal prefix; past MATCH_BUDGET tests the remaining regexes are not followed
    let mut by_regex: BTreeMap<&str, Vec<&(String, Actor, &'static str, Pos)>> = BTreeMap::new();
    for x in &c.matches {
        by_regex.entry(x.0.as_str()).or_default().push(x);
    }
    let mut budget = MATCH_BUDGET;
    for (re, calls) in by_regex {
        // classmatch()/classesmatching() as the agent matches: PCRE, the first match spanning the name
        let Ok(rx) = crate::pcre::compile(re) else {
            continue;
        };
        let prefix = literal_prefix(re);
        let mut hits: Vec<&str> = Vec::new();
        for d in defined
            .range(prefix.as_str()..)
            .take_while(|d| d.starts_with(prefix.as_str()))
        {
            if budget == 0 {
                break;
            }
            budget -= 1;
            if rx.is_full_match(d) {
                hits.push(d);
            }
        }
        for (_, actor, f, pos) in calls {
            let to = actor_node(&mut g, m, actor);
            for d in &hits {
                let from = class_node(&mut g, d, *pos);
                g.edge(from, to, Edge::new(f, re, false, m, Some(*pos)));
            }
        }
    }
    g
}
