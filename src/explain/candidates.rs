//! Every promise of the policy that could set a class or a variable, found in the AST: classes
//! promises (their promiser, `select_class` options), the outcome classes of the `classes` body a
//! promise uses (`promise_kept`, `promise_repaired`, `repair_failed`, …, parameters replaced by the
//! literal arguments, `inherit_from` followed), vars/defaults/meta promises, `useresult` of methods,
//! and modules (`commands` with `module => "true"`, which may set anything). A name written with
//! variables that could expand to the one asked about is a "maybe" candidate.

// cfsim's own candidate search, not the agent's matching: the `regex` crate (agent matching is crate::pcre)
use regex::Regex;

use super::facts::{display, ClassKey, Facts, PromiseAt};
use crate::expr::canonify;
use crate::syntax::ast::Rval;

/// Outcome attributes of a `classes` body that define classes.
pub const OUTCOME_ATTRS: &[&str] = &[
    "promise_kept",
    "promise_repaired",
    "repair_failed",
    "repair_denied",
    "repair_timeout",
];

const MAX_INHERIT_DEPTH: usize = 16;

/// How a candidate would set the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// A classes promise whose promiser is the class.
    ClassesPromise,
    /// One of the options of a classes promise's `select_class`.
    SelectClass,
    /// The outcome classes of the promise's `classes` body: the call as written and the attribute.
    Body { call: String, attr: String },
    /// A module (`commands` with `module => "true"`): any class or variable its output names.
    Module,
    /// A vars promise (or a defaults or meta promise: `promise_type` tells).
    Assign,
    /// A methods promise's `useresult` array.
    UseResult,
}

impl Via {
    /// A short phrase: `classes promise`, `classes body if_ok("x") (promise_repaired)`, ….
    pub fn describe(&self, promise_type: &str) -> String {
        match self {
            Via::ClassesPromise => "classes promise".into(),
            Via::SelectClass => "select_class option of a classes promise".into(),
            Via::Body { call, attr } => {
                format!("{attr} of classes => {call} on a {promise_type} promise")
            }
            Via::Module => {
                "module (commands with module => \"true\"): its output may set it".into()
            }
            Via::Assign => format!("{promise_type} promise"),
            Via::UseResult => "useresult of a methods promise".into(),
        }
    }

    /// The JSON name.
    pub fn code(&self) -> &'static str {
        match self {
            Via::ClassesPromise => "classes_promise",
            Via::SelectClass => "select_class",
            Via::Body { .. } => "classes_body",
            Via::Module => "module",
            Via::Assign => "assignment",
            Via::UseResult => "useresult",
        }
    }
}

/// A promise that could set the name.
#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    pub promise: PromiseAt<'a>,
    pub via: Via,
    /// The name written literally (`false`: written with variables that could expand to it, or a
    /// module).
    pub exact: bool,
    /// The name as written (promiser, body class, option), empty for a module.
    pub written: String,
}

/// A regex for a name written with variables: each `$(…)`/`${…}` matches anything.
fn template(t: &str, canon: bool) -> Option<Regex> {
    let b = t.as_bytes();
    let mut re = String::from("^");
    let mut lit = String::new();
    let mut i = 0;
    let flush = |lit: &mut String, re: &mut String| {
        let l = if canon { canonify(lit) } else { lit.clone() };
        re.push_str(&regex::escape(&l));
        lit.clear();
    };
    while i < b.len() {
        if (b[i] == b'$' || b[i] == b'@') && matches!(b.get(i + 1), Some(b'(' | b'{')) {
            flush(&mut lit, &mut re);
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
            re.push_str(".*");
            i = j + 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < b.len() && !t.is_char_boundary(i) {
            i += 1;
        }
        lit.push_str(t.get(start..i).unwrap_or(""));
    }
    flush(&mut lit, &mut re);
    re.push('$');
    Regex::new(&re).ok()
}

/// Whether `written` (a promiser or class name, maybe with variables) names `name`: `Some(true)`
/// literally, `Some(false)` possibly (through its variables), `None` not.
pub fn names(written: &str, name: &str, canon: bool) -> Option<bool> {
    if crate::graph::model::is_dynamic(written) {
        template(written, canon)
            .filter(|re| re.is_match(name))
            .map(|_| false)
    } else {
        let w = if canon {
            canonify(written)
        } else {
            written.to_string()
        };
        (w == name).then_some(true)
    }
}

/// Most expansions of one name tried by [`expansions`].
const MAX_EXPANSIONS: usize = 1000;

/// What a name written with variables expands to with the values the variables had at the end of
/// the run (a list gives each of its elements), in bundle `scope` of namespace `ns`; `None` when a
/// reference does not resolve then (a parameter gone after its call, a variable never set).
pub fn expansions(facts: &Facts<'_>, t: &str, ns: &str, scope: &str) -> Option<Vec<String>> {
    use crate::expr::env::VarLookup;
    let mut out = vec![String::new()];
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if (b[i] == b'$' || b[i] == b'@') && matches!(b.get(i + 1), Some(b'(' | b'{')) {
            let close = if b[i + 1] == b'(' { ')' } else { '}' };
            let rest = t.get(i + 2..)?;
            let end = rest.find(close)?;
            let name = rest.get(..end)?;
            if name.contains('$') || name.contains('@') {
                return None;
            }
            let r = crate::expr::varref::VarRef::parse(name);
            let vns = r.ns.clone().unwrap_or_else(|| ns.to_string());
            let vscope = r.scope.clone().unwrap_or_else(|| scope.to_string());
            let values: Vec<String> = match facts.engine.ctx.get_var(&vns, &vscope, &r.lval())? {
                crate::value::Value::Scalar(_, v) => vec![v],
                crate::value::Value::List(_, items) => items,
                crate::value::Value::Data(_) => return None,
            };
            let mut next = Vec::new();
            for o in &out {
                for v in &values {
                    if next.len() >= MAX_EXPANSIONS {
                        return None;
                    }
                    next.push(format!("{o}{v}"));
                }
            }
            out = next;
            i += 2 + end + 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < b.len() && !t.is_char_boundary(i) {
            i += 1;
        }
        let lit = t.get(start..i)?;
        for o in &mut out {
            o.push_str(lit);
        }
    }
    Some(out)
}

/// The literal text of a name written with variables (`web_$(role)` → `web_`).
pub fn literal_text(t: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if (b[i] == b'$' || b[i] == b'@') && matches!(b.get(i + 1), Some(b'(' | b'{')) {
            depth += 1;
            i += 2;
            continue;
        }
        if depth > 0 && (b[i] == b')' || b[i] == b'}') {
            depth -= 1;
        } else if depth == 0 {
            out.push(char::from(b[i]));
        }
        i += 1;
    }
    out
}

/// Whether a name written with variables may still be `name` (its literal text matched already):
/// kept when it has literal text (`role_$(x)`: its evaluations show what it expanded to), and a bare
/// variable (`$(x)`, which matches every name) only when one of its values at the end of the run, or
/// an expansion in the trace, is `name`.
fn may_name(facts: &Facts<'_>, p: &PromiseAt<'_>, written: &str, name: &str, canon: bool) -> bool {
    if !literal_text(written).trim().is_empty() {
        return true;
    }
    let same = |v: &str| {
        let v = v.split_once(':').map_or(v, |(_, n)| n);
        if canon {
            canonify(v) == name
        } else {
            v == name
        }
    };
    let at_end = expansions(facts, written, &p.bundle.ns, &p.bundle.name)
        .is_some_and(|values| values.iter().any(|v| same(v)));
    at_end
        || facts
            .evaluations(p)
            .iter()
            .any(|i| facts.event(*i).is_some_and(|e| same(&e.promiser)))
}

/// Whether a promise is a module call (`module => "true"`).
pub fn is_module(p: &PromiseAt<'_>) -> bool {
    p.promise_type == "commands"
        && p.scalar("module")
            .is_some_and(|v| matches!(v, "true" | "yes" | "on"))
}

/// The classes a `classes => NAME(ARGS)` body sets: (attribute, class as written after replacing
/// the body's parameters by the call's literal arguments).
pub fn body_classes(facts: &Facts<'_>, rv: &Rval, ns: &str) -> Vec<(String, String)> {
    body_attr_classes(facts, rv, ns, OUTCOME_ATTRS)
}

/// Attributes of a `classes` body that cancel classes.
pub const CANCEL_ATTRS: &[&str] = &["cancel_kept", "cancel_repaired", "cancel_notkept"];

/// The classes the attributes `attrs` of a `classes => NAME(ARGS)` body name, as
/// [`body_classes`] finds them.
pub fn body_attr_classes(
    facts: &Facts<'_>,
    rv: &Rval,
    ns: &str,
    attrs: &[&str],
) -> Vec<(String, String)> {
    let (name, args): (&str, Vec<String>) = match rv {
        Rval::Scalar(s) => (&s.value, Vec::new()),
        Rval::Call(c) => (
            &c.name,
            c.args
                .iter()
                .map(|a| match a {
                    Rval::Scalar(s) => s.value.clone(),
                    _ => "$(?)".to_string(),
                })
                .collect(),
        ),
        _ => return Vec::new(),
    };
    outcome_classes(facts, name, ns, &args, attrs, 0)
}

fn substitute(text: &str, pairs: &[(String, String)]) -> String {
    let mut s = text.to_string();
    for (p, v) in pairs {
        s = s
            .replace(&format!("$({p})"), v)
            .replace(&format!("${{{p}}}"), v);
    }
    s
}

fn outcome_classes(
    facts: &Facts<'_>,
    name: &str,
    ns: &str,
    args: &[String],
    attrs: &[&str],
    depth: usize,
) -> Vec<(String, String)> {
    if depth > MAX_INHERIT_DEPTH {
        return Vec::new();
    }
    let Some(body) = facts.engine.find_body("classes", name, ns) else {
        return Vec::new();
    };
    let pairs: Vec<(String, String)> = body
        .body
        .params
        .iter()
        .cloned()
        .zip(args.iter().cloned())
        .collect();
    let mut own: Vec<(String, String)> = Vec::new();
    let mut parent: Vec<(String, String)> = Vec::new();
    for a in &body.body.attrs {
        let lval = a.constraint.lval.as_str();
        if lval == "inherit_from" {
            let (pname, pargs): (String, Vec<String>) = match &a.constraint.rval {
                Rval::Scalar(s) => (s.value.clone(), Vec::new()),
                Rval::Call(c) => (
                    c.name.clone(),
                    c.args
                        .iter()
                        .map(|x| match x {
                            Rval::Scalar(s) => substitute(&s.value, &pairs),
                            _ => "$(?)".to_string(),
                        })
                        .collect(),
                ),
                _ => continue,
            };
            parent = outcome_classes(facts, &pname, &body.ns, &pargs, attrs, depth + 1);
            continue;
        }
        if !attrs.contains(&lval) {
            continue;
        }
        for s in crate::graph::model::scalars(&a.constraint.rval) {
            own.push((lval.to_string(), substitute(&s.value, &pairs)));
        }
    }
    parent.retain(|(l, _)| !own.iter().any(|(o, _)| o == l));
    parent.extend(own);
    parent
}

/// The promises that could define class `key` (`any_ns`: in any namespace, for a name asked
/// without one that the run does not know).
pub fn for_class<'a>(facts: &Facts<'a>, key: &ClassKey, any_ns: bool) -> Vec<Candidate<'a>> {
    let mut out = Vec::new();
    let ns_ok = |p: &PromiseAt<'_>, written: &str| {
        let ns = match written.split_once(':') {
            Some((n, _)) => n,
            None => p.bundle.ns.as_str(),
        };
        any_ns || ns == key.0
    };
    let bare = |w: &str| w.split_once(':').map_or(w, |(_, n)| n).to_string();
    for p in &facts.promises {
        if p.promise_type == "classes" {
            let w = &p.promise.promiser.value;
            if let (true, Some(exact)) = (ns_ok(p, w), names(&bare(w), &key.1, true)) {
                if exact || may_name(facts, p, w, &key.1, true) {
                    out.push(Candidate {
                        promise: *p,
                        via: Via::ClassesPromise,
                        exact,
                        written: w.clone(),
                    });
                }
            }
            if let Some(rv) = p.constraint("select_class") {
                for s in crate::graph::model::scalars(rv) {
                    if let (true, Some(exact)) = (ns_ok(p, &s.value), names(&s.value, &key.1, true))
                    {
                        if !exact && !may_name(facts, p, &s.value, &key.1, true) {
                            continue;
                        }
                        out.push(Candidate {
                            promise: *p,
                            via: Via::SelectClass,
                            exact,
                            written: s.value.clone(),
                        });
                    }
                }
            }
        }
        if let Some(rv) = p.constraint("classes") {
            for (attr, class) in body_classes(facts, rv, &p.bundle.ns) {
                if let (true, Some(exact)) = (ns_ok(p, &class), names(&bare(&class), &key.1, true))
                {
                    if !exact && !may_name(facts, p, &class, &key.1, true) {
                        continue;
                    }
                    out.push(Candidate {
                        promise: *p,
                        via: Via::Body {
                            call: crate::graph::model::written(rv),
                            attr,
                        },
                        exact,
                        written: class,
                    });
                }
            }
        }
        if is_module(p) {
            out.push(Candidate {
                promise: *p,
                via: Via::Module,
                exact: false,
                written: String::new(),
            });
        }
    }
    out
}

/// A variable asked about: namespace and bundle (scope) when given, and the lval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarName {
    pub ns: Option<String>,
    pub scope: Option<String>,
    pub lval: String,
}

impl VarName {
    /// `[NS:][BUNDLE.]NAME` (a `.` inside `[…]` belongs to the name).
    pub fn parse(text: &str) -> Option<VarName> {
        let text = text.trim();
        let text = text
            .strip_prefix("$(")
            .and_then(|t| t.strip_suffix(')'))
            .unwrap_or(text);
        let (ns, rest) = match text.split_once(':') {
            Some((n, r)) if !n.contains('[') && !n.contains('.') => (Some(n.to_string()), r),
            _ => (None, text),
        };
        let head = rest.split('[').next().unwrap_or(rest);
        let (scope, lval) = match head.find('.') {
            Some(i) => (
                Some(rest.get(..i).unwrap_or("").to_string()),
                rest.get(i + 1..).unwrap_or("").to_string(),
            ),
            None => (None, rest.to_string()),
        };
        let ok = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        if lval.is_empty() || !ns.as_deref().is_none_or(ok) || !scope.as_deref().is_none_or(ok) {
            return None;
        }
        Some(VarName { ns, scope, lval })
    }

    /// Whether a variable key (`ns:scope.lval` parts) is this one.
    pub fn matches(&self, ns: &str, scope: &str, lval: &str) -> bool {
        self.ns.as_deref().is_none_or(|n| n == ns)
            && self.scope.as_deref().is_none_or(|s| s == scope)
            && lval == self.lval
    }
}

/// The promises that could set variable `ns:scope.lval` (`scope` `None`: in any bundle).
pub fn for_var<'a>(facts: &Facts<'a>, v: &VarName) -> Vec<Candidate<'a>> {
    let mut out = Vec::new();
    for p in &facts.promises {
        let (ns, bundle) = (p.bundle.ns.as_str(), p.bundle.name.as_str());
        if v.ns.as_deref().is_some_and(|n| n != ns) {
            continue;
        }
        let scope = match p.promise_type {
            "vars" | "defaults" => bundle.to_string(),
            "meta" => format!("{bundle}_meta"),
            "methods" => bundle.to_string(),
            _ => String::new(),
        };
        let scope_ok = v.scope.as_deref().is_none_or(|s| s == scope);
        match p.promise_type {
            "vars" | "defaults" | "meta" if scope_ok => {
                let w = &p.promise.promiser.value;
                if let Some(exact) = names(w, &v.lval, false) {
                    if !exact && !may_name(facts, p, w, &v.lval, false) {
                        continue;
                    }
                    out.push(Candidate {
                        promise: *p,
                        via: Via::Assign,
                        exact,
                        written: w.clone(),
                    });
                }
            }
            "methods" if scope_ok => {
                if let Some(r) = p.scalar("useresult") {
                    let base = v.lval.split('[').next().unwrap_or("");
                    if let Some(exact) = names(r, base, false) {
                        out.push(Candidate {
                            promise: *p,
                            via: Via::UseResult,
                            exact: exact && v.lval.contains('['),
                            written: format!("{r}[…]"),
                        });
                    }
                }
            }
            _ => {}
        }
        if is_module(p) {
            out.push(Candidate {
                promise: *p,
                via: Via::Module,
                exact: false,
                written: String::new(),
            });
        }
    }
    out
}

/// `ns:scope.lval` as people write it (`scope.lval` in the default namespace).
pub fn var_display(ns: &str, scope: &str, lval: &str) -> String {
    format!("{}.{lval}", display(ns, scope))
}

#[cfg(test)]
mod tests {
    use super::{names, VarName};

    #[test]
    fn names_with_variables() {
        assert_eq!(names("web_$(role)", "web_db", true), Some(false));
        assert_eq!(names("c-1", "c_1", true), Some(true));
        assert_eq!(names("x", "y", true), None);
        assert_eq!(names("a[$(k)]", "a[x]", false), Some(false));
        assert_eq!(names("$(x)_ok", "ko", true), None);
    }

    #[test]
    fn var_names() {
        let v = VarName::parse("ns:b.x[a.b]");
        assert_eq!(
            v,
            Some(VarName {
                ns: Some("ns".into()),
                scope: Some("b".into()),
                lval: "x[a.b]".into()
            })
        );
        assert_eq!(VarName::parse("x").map(|v| v.scope), Some(None::<String>));
        assert!(VarName::parse("").is_none());
        assert!(VarName::parse("b.").is_none());
    }
}
