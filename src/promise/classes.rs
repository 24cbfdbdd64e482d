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

fn elements(rv: &Rval) -> Vec<Rval> {
    match rv {
        Rval::List(items, _) => items.clone(),
        other => vec![other.clone()],
    }
}

/// Evaluates one classes promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str, unres: bool) {
    if unres {
        e.end_event(Some("unresolved"), None);
        return;
    }
    let name = canonify(promiser);
    if e.ctx.class_defined(None, &name) {
        e.end_event(Some("already_defined"), None);
        return;
    }
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
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
            let Some(rv) = Engine::constraint(p, d).cloned() else {
                return;
            };
            match d {
                "expression" => e.eval_condition(&rv) == Ok(true),
                "not" => e.eval_condition(&rv) == Ok(false),
                "and" => elements(&rv)
                    .iter()
                    .all(|x| e.eval_condition(x) == Ok(true)),
                "or" => elements(&rv)
                    .iter()
                    .any(|x| e.eval_condition(x) == Ok(true)),
                "xor" => {
                    elements(&rv)
                        .iter()
                        .filter(|x| e.eval_condition(x) == Ok(true))
                        .count()
                        % 2
                        == 1
                }
                "dist" => {
                    let weights = e.list_of(&rv);
                    if let Some(w) = weights.first() {
                        extra = Some(format!("{name}_{w}"));
                    }
                    true
                }
                _ => {
                    let opts = e.list_of(&rv);
                    if let Some(first) = opts.first() {
                        extra = Some(canonify(first));
                    }
                    true
                }
            }
        }
    };
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
    let global = Engine::constraint(p, "persistence").is_some()
        || match scope.as_str() {
            "namespace" => true,
            "bundle" => false,
            _ => def.bundle.bundle_type == "common",
        };
    let comment = match Engine::constraint(p, "comment") {
        Some(rv) => e.scalar_of(rv),
        None => None,
    };
    for c in std::iter::once(name).chain(extra) {
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
        e.cur.classes_set.push(c);
    }
    e.end_event(None, Some(Outcome::Kept));
}
