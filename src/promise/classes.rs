//! `classes:` promises: skipped while the class is defined; `expression`, `and`, `or`, `xor`, `not`,
//! `dist`, `select_class` or nothing (= defined); scope (agent bundles local, common bundles namespace,
//! `scope =>`, `persistence =>` global); tags `source=promise` plus `meta`.

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::expr::canonify;
use crate::expr::env::EvalEnv;
use crate::syntax::ast::{Promise, Rval};

const DECIDERS: &[&str] = &[
    "expression",
    "and",
    "or",
    "xor",
    "not",
    "dist",
    "select_class",
];

/// Which of `n` `select_class` options the agent picks for the seed `fqhost+ipv4+uid`.
pub fn select_index(seed: &str, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    (crate::libmap::string_hash(seed, 0) as usize) % n
}

/// The `select_class` seed of this run: `sys.fqhost`, `sys.ipv4` and the agent's uid.
fn select_seed(e: &Engine<'_>) -> String {
    use crate::expr::env::VarLookup;
    let get = |k: &str| {
        e.ctx
            .get_var("default", "sys", k)
            .and_then(|v| v.as_scalar().map(str::to_string))
            .unwrap_or_default()
    };
    let host = e.host.host;
    let uid = host.user(&host.current_user).map_or(0, |u| u.uid);
    format!("{}+{}+{uid}", get("fqhost"), get("ipv4"))
}

/// The elements of an `and`/`or`/`xor` value, borrowed from the policy (function calls are remembered
/// by their place in it).
fn elements(rv: &Rval) -> Vec<&Rval> {
    match rv {
        Rval::List(items, _) => items.iter().collect(),
        other => vec![other],
    }
}

/// Whether each element of an `and`/`or`/`xor` list holds. An element that is exactly `@(x)` is
/// expanded first, as the agent's ExpandList does: a list x gives its elements (none for an empty
/// list), a string x its value (the warning is [`warn_scalar_refs`]'); other elements (class
/// expressions, calls) are evaluated as written (recorded: eval/scope/class_list_expansion).
fn truths(e: &mut Engine<'_>, rv: &Rval) -> Vec<bool> {
    let mut out = Vec::new();
    for x in elements(rv) {
        if let Some((items, _)) = match x {
            Rval::Scalar(s) => e.list_element_items(&s.value),
            _ => None,
        } {
            for it in &items {
                out.push(e.eval_class_str(it) == Ok(true));
            }
            continue;
        }
        out.push(e.eval_condition(x) == Ok(true));
    }
    out
}

/// The agent expands a classes promise (ExpandList) before it looks at the class: each `@(x)` element
/// of an `and`/`or`/`xor` list naming a string warns at every expansion, in stage 7 and every pass,
/// even once the class is defined (recorded: eval/scope/class_list_expansion).
pub(crate) fn warn_scalar_refs(e: &mut Engine<'_>, p: &Promise) {
    for c in &p.constraints {
        if matches!(c.lval.as_str(), "and" | "or" | "xor") {
            super::warn_scalar_refs(e, elements(&c.rval));
        }
    }
}

/// Evaluates one classes promise binding.
/// A promiser still holding an unresolved reference defines its canonified literal text (`c_$(x)` →
/// `c___x_`; recorded: passes/unresolved_class_promiser).
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str, _unres: bool) {
    let name = canonify(promiser);
    warn_scalar_refs(e, p);
    if e.ctx.class_defined(None, &name) {
        e.end_event(Some("already_defined"), None);
        return;
    }
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    if e.stage == "pass" && def.is_edit_line() {
        // an edit bundle's classes are promises of the edit (recorded: files/*/verbose.out)
        e.verbose_promise_begin(def, "classes", p, promiser);
    }
    let deciders: Vec<&str> = p
        .constraints
        .iter()
        .map(|c| c.lval.as_str())
        .filter(|l| DECIDERS.contains(l))
        .collect();
    if deciders.len() > 1 {
        e.log(
            LogLevel::Error,
            &format!("Irreconcilable constraints in classes for '{promiser}'"),
        );
        e.end_event(Some("irreconcilable"), Some(Outcome::Failed));
        return;
    }
    let mut extra: Option<String> = None;
    let value = match deciders.first().copied() {
        None => true,
        Some(d) => {
            let Some(rv) = Engine::constraint(p, d) else {
                return;
            };
            match d {
                "expression" => e.eval_condition(rv) == Ok(true),
                "not" => e.eval_condition(rv) == Ok(false),
                "and" => truths(e, rv).iter().all(|t| *t),
                "or" => truths(e, rv).iter().any(|t| *t),
                "xor" => truths(e, rv).iter().filter(|t| **t).count() % 2 == 1,
                "dist" => {
                    let weights = e.list_of(rv);
                    if let Some(w) = weights.first() {
                        extra = Some(format!("{name}_{w}"));
                    }
                    true
                }
                _ => {
                    let opts = e.list_of(rv);
                    let seed = select_seed(e);
                    if let Some(chosen) = opts.get(select_index(&seed, opts.len())) {
                        extra = Some(canonify(chosen));
                    }
                    true
                }
            }
        }
    };
    // VerifyClassPromise evaluates a call that failed during expansion once more
    if let Some(rv) = deciders.first().and_then(|d| Engine::constraint(p, d)) {
        e.replay_failed_calls(rv, 1);
    }
    if !value {
        e.end_event(None, Some(Outcome::Kept));
        return;
    }
    let mut tags = vec!["source=promise".to_string()];
    if let Some(m) = Engine::constraint(p, "meta") {
        tags.extend(e.list_of(m));
    }
    let scope = match Engine::constraint(p, "scope") {
        Some(rv) => e.scalar_of(rv).unwrap_or_default(),
        None => String::new(),
    };
    let global = defines_global(
        &def.bundle.bundle_type,
        &scope,
        Engine::constraint(p, "persistence").is_some(),
    );
    let comment = match Engine::constraint(p, "comment") {
        Some(rv) => e.scalar_of(rv),
        None => None,
    };
    let is_select = deciders.first() == Some(&"select_class");
    for (i, c) in std::iter::once(name).chain(extra).enumerate() {
        // the class chosen by select_class is always global
        let global = global || (is_select && i == 1);
        if let (Some(cm), true) = (&comment, global) {
            let row = if def.ns == "default" {
                c.clone()
            } else {
                format!("{}:{c}", def.ns)
            };
            e.ctx.comments.insert(row, cm.clone());
        }
        if e.verbose_on() {
            let kind = if global { "Global" } else { "Private" };
            e.log(
                crate::eval::output::LogLevel::Verbose,
                &format!("C:     +  {kind} class: {c}"),
            );
        }
        if global {
            e.ctx.define_global(&def.ns, &c, tags.clone());
        } else {
            e.ctx.define_local(&c, tags.clone());
        }
        e.check_abort_class(&c);
        e.cur.classes_set.push(c);
    }
    e.end_event(None, Some(Outcome::Kept));
}

/// Whether a `classes:` promise defines a global (namespace) class: with `persistence`, with
/// `scope => "namespace"`, or in a common bundle unless `scope => "bundle"`; otherwise the class is
/// local to its bundle. The one rule the run, `cfsim graph` and `cfsim explain` use.
pub fn defines_global(bundle_type: &str, scope: &str, persistent: bool) -> bool {
    persistent
        || match scope {
            "namespace" => true,
            "bundle" => false,
            _ => bundle_type == "common",
        }
}

/// [`defines_global`] of a promise as written (a `scope` given with variables counts as absent).
pub fn written_global(bundle_type: &str, p: &crate::syntax::ast::Promise) -> bool {
    let lit = |lval: &str| {
        p.constraints
            .iter()
            .rev()
            .find(|c| c.lval == lval)
            .map(|c| match &c.rval {
                crate::syntax::ast::Rval::Scalar(v) => v.value.clone(),
                _ => String::new(),
            })
    };
    defines_global(
        bundle_type,
        &lit("scope").unwrap_or_default(),
        lit("persistence").is_some(),
    )
}

#[cfg(test)]
mod tests {
    use super::select_index;

    #[test]
    fn select_class_matches_the_agent() {
        // recorded on the VM (sys.fqhost "vm", sys.ipv4 "192.0.2.2", uid 0) with lists of 2, 3, 5, 7
        // and 11 options: a2_1, a3_2, a5_3, a7_4, b7
        let seed = "vm+192.0.2.2+0";
        let picked: Vec<usize> = [2, 3, 5, 7, 11]
            .iter()
            .map(|&n| select_index(seed, n))
            .collect();
        assert_eq!(picked, vec![0, 1, 2, 3, 6]);
    }
}
