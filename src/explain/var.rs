//! `--var [NS:][BUNDLE.]NAME`: every assignment that changed a variable, in run order (the last one
//! wins), each with the classes its conditions needed and the chain behind them; variables of the
//! agent and bundle parameters say so; a variable never set gets every promise that could have set
//! it and why each did not.

use super::candidates::{self, VarName};
use super::class::{reports, CandidateReport};
use super::facts::Facts;
use super::steps::{self, Chain, Step, Target};

/// The answer for one variable.
#[derive(Debug, Clone)]
pub struct VarAnswer<'a> {
    /// `ns:scope.lval` as the trace writes it.
    pub qualified: String,
    pub ns: String,
    pub scope: String,
    pub lval: String,
    /// The value at the end of the run (rendered as `--show-evaluated-vars` does), if still set.
    pub value: Option<String>,
    pub value_type: Option<String>,
    /// `policy`, `agent` (sys, const, def, …), `control` (a control body), `parameter`, `module`,
    /// `untraced` (set by no evaluation of the trace: `candidates` are the promises that can set
    /// it), or `none` (never set).
    pub source: String,
    /// The evaluations that changed it, in order; the last one gave the value.
    pub assignments: Vec<Step>,
    /// Other evaluations of those promises that assigned it without changing the value.
    pub same_value: Vec<usize>,
    /// The bundle whose parameter it is, if it is one.
    pub parameter_of: Option<String>,
    /// When never set: every promise that could have, and why it did not.
    pub candidates: Vec<CandidateReport<'a>>,
    /// When no promise could: the promises that refer to it (`FILE:LINE`).
    pub used_by: Vec<String>,
}

/// The strings of an rval (function arguments and list items included).
fn strings<'r>(rv: &'r crate::syntax::ast::Rval, out: &mut Vec<&'r str>) {
    use crate::syntax::ast::Rval;
    match rv {
        Rval::Scalar(s) => out.push(&s.value),
        Rval::List(items, _) => items.iter().for_each(|i| strings(i, out)),
        Rval::Call(c) => c.args.iter().for_each(|a| strings(a, out)),
        Rval::Data(..) => {}
    }
}

/// The promises that refer to a variable (`$(lval)`, `$(scope.lval)`, `@(…)`, `${…}`).
fn used_by(facts: &Facts<'_>, scope: Option<&str>, lval: &str) -> Vec<String> {
    let base = lval.split('[').next().unwrap_or(lval);
    let forms = |scope: Option<&str>| -> Vec<String> {
        let mut out = Vec::new();
        for (open, close) in [("$(", ")"), ("${", "}"), ("@(", ")"), ("@{", "}")] {
            let name = match scope {
                Some(s) => format!("{s}.{base}"),
                None => base.to_string(),
            };
            out.push(format!("{open}{name}{close}"));
            out.push(format!("{open}{name}["));
            if scope.is_some() {
                out.push(format!(":{name}{close}"));
            }
        }
        out
    };
    let qualified = scope.map(|s| forms(Some(s))).unwrap_or_default();
    let bare = forms(None);
    let mut out = Vec::new();
    for p in &facts.promises {
        let mut texts: Vec<&str> = vec![&p.promise.promiser.value];
        for c in &p.promise.constraints {
            strings(&c.rval, &mut texts);
        }
        // unqualified references count in the variable's own bundle (or anywhere when asked so)
        let local = scope.is_none_or(|s| s == p.bundle.name);
        let hit = texts.iter().any(|t| {
            qualified.iter().any(|f| t.contains(f.as_str()))
                || (local && bare.iter().any(|f| t.contains(f.as_str())))
        });
        if hit {
            let site = p.site();
            if !out.contains(&site) {
                out.push(site);
            }
        }
    }
    out
}

/// The variables (`ns`, `scope`, `lval`) a name asked about may mean, in a stable order.
pub fn keys(facts: &Facts<'_>, v: &VarName) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut add = |k: (String, String, String)| {
        if !out.contains(&k) {
            out.push(k);
        }
    };
    for q in facts.traced_vars() {
        if let Some(k) = split(q) {
            if v.matches(&k.0, &k.1, &k.2) {
                add(k);
            }
        }
    }
    for (k, _) in facts.engine.ctx.vars.iter() {
        if v.matches(&k.0, &k.1, &k.2) {
            add(k.clone());
        }
    }
    out.sort();
    out
}

/// `ns:scope.lval` split (the `.` before any `[`).
pub fn split(q: &str) -> Option<(String, String, String)> {
    let (ns, rest) = q.split_once(':')?;
    let head = rest.split('[').next().unwrap_or(rest);
    let i = head.find('.')?;
    Some((
        ns.to_string(),
        rest.get(..i)?.to_string(),
        rest.get(i + 1..)?.to_string(),
    ))
}

/// The bundle (`ns`, `name`) whose parameter `lval` is, if any.
fn parameter_of(facts: &Facts<'_>, ns: &str, scope: &str, lval: &str) -> Option<String> {
    facts
        .engine
        .bundles
        .iter()
        .find(|b| b.ns == ns && b.name == scope && b.bundle.params.iter().any(|p| p == lval))
        .map(|b| super::facts::display(&b.ns, &b.name))
}

/// Explains one variable.
pub fn explain<'a>(facts: &Facts<'a>, key: &(String, String, String)) -> VarAnswer<'a> {
    let (ns, scope, lval) = key;
    let q = format!("{ns}:{scope}.{lval}");
    let entry = facts
        .engine
        .ctx
        .vars
        .get(&crate::eval::context::VarKeyRef(ns, scope, lval));
    let mut a = VarAnswer {
        qualified: q.clone(),
        ns: ns.clone(),
        scope: scope.clone(),
        lval: lval.clone(),
        value: entry.map(|e| crate::eval::render::render_value(&e.value)),
        value_type: entry.map(|e| e.value.type_name().to_string()),
        source: "none".into(),
        assignments: Vec::new(),
        same_value: Vec::new(),
        parameter_of: parameter_of(facts, ns, scope, lval),
        candidates: Vec::new(),
        used_by: Vec::new(),
    };
    let target = Target::Var(q.clone());
    let sets = facts.assignments(&q);
    if !sets.is_empty() {
        let module = sets.iter().all(|i| {
            facts
                .event(*i)
                .and_then(|e| facts.promise_of(e))
                .is_some_and(|p| candidates::is_module(&p))
        });
        a.source = if module { "module" } else { "policy" }.into();
        for &ev in sets {
            let mut chain = Chain::new();
            a.assignments
                .push(steps::step(facts, ev, &target, &mut chain));
        }
        // the other evaluations of the promises that assigned it: same value again
        let mut sites: Vec<(String, usize)> = Vec::new();
        for &ev in sets {
            if let Some(e) = facts.event(ev) {
                if !sites.contains(&(e.file.clone(), e.line)) {
                    sites.push((e.file.clone(), e.line));
                }
            }
        }
        for p in facts
            .promises
            .iter()
            .filter(|p| sites.contains(&(p.file.to_string(), p.line)))
        {
            for ev in facts.evaluations(p) {
                let same = facts.event(ev).is_some_and(|e| {
                    e.skip.is_none()
                        && e.outcome.as_deref() != Some("failed")
                        && !sets.contains(&ev)
                        && p.promise_type == "vars"
                        && candidates::names(&p.promise.promiser.value, lval, false).is_some()
                });
                if same {
                    a.same_value.push(ev);
                }
            }
        }
        a.same_value.sort_unstable();
        return a;
    }
    if let Some(e) = entry {
        a.source =
            if e.tags.iter().any(|t| t == "source=agent") || scope == "sys" || scope == "const" {
                "agent".into()
            } else if scope.starts_with("control_") {
                "control".into()
            } else if a.parameter_of.is_some() {
                "parameter".into()
            } else {
                // set without an evaluation of the trace (the agent's preliminary evaluation): the
                // promises that can set it are the best answer
                let name = VarName {
                    ns: Some(ns.clone()),
                    scope: Some(scope.clone()),
                    lval: lval.clone(),
                };
                let cands = candidates::for_var(facts, &name);
                a.candidates = reports(facts, cands, &target);
                "untraced".into()
            };
        return a;
    }
    if a.parameter_of.is_some() {
        a.source = "parameter".into();
    }
    let name = VarName {
        ns: Some(ns.clone()),
        scope: Some(scope.clone()),
        lval: lval.clone(),
    };
    let cands = candidates::for_var(facts, &name);
    a.candidates = reports(facts, cands, &target);
    if a.candidates.is_empty() {
        a.used_by = used_by(facts, Some(scope), lval);
    }
    a
}

/// Explains a variable that no run or promise knows by its full name: the candidates of a name
/// asked without a bundle (or namespace).
pub fn explain_unset<'a>(facts: &Facts<'a>, v: &VarName) -> VarAnswer<'a> {
    let ns = v.ns.clone().unwrap_or_else(|| "default".into());
    let scope = v.scope.clone().unwrap_or_default();
    let q = if scope.is_empty() {
        v.lval.clone()
    } else {
        format!("{ns}:{scope}.{}", v.lval)
    };
    let cands = candidates::for_var(facts, v);
    let target = Target::Var(q.clone());
    let candidates = reports(facts, cands, &target);
    let used_by = if candidates.is_empty() {
        used_by(facts, v.scope.as_deref(), &v.lval)
    } else {
        Vec::new()
    };
    VarAnswer {
        qualified: q,
        ns,
        scope: scope.clone(),
        lval: v.lval.clone(),
        value: None,
        value_type: None,
        source: "none".into(),
        assignments: Vec::new(),
        same_value: Vec::new(),
        parameter_of: None,
        candidates,
        used_by,
    }
}

/// Names close to the one asked among the variables the run and the policy know.
pub fn suggestions(facts: &Facts<'_>, v: &VarName) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for ((ns, scope, lval), _) in facts.engine.ctx.vars.iter() {
        names.push(candidates::var_display(ns, scope, lval));
    }
    for q in facts.traced_vars() {
        if let Some((ns, scope, lval)) = split(q) {
            names.push(candidates::var_display(&ns, &scope, &lval));
        }
    }
    let asked = match &v.scope {
        Some(s) => format!("{s}.{}", v.lval),
        None => v.lval.clone(),
    };
    super::class::close(&asked, names)
}
