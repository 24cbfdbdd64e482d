//! `methods:` promises: `usebundle => name(args)` / `"name"` / the promiser itself; scalar and `@(list)`
//! arguments; `inherit`; the callee's aggregated outcome (kept / repaired / failed with the agent's
//! error); `useresult` copying the callee's `bundle_return_value_index` reports; missing bundle fatal.

use crate::eval::output::LogLevel;
use crate::eval::rval::RvalResult;
use crate::eval::{split_ns, BundleDef, Engine, Outcome};
use crate::expr::expand::{naked_list_name, resolve, Resolved};
use crate::syntax::ast::{Promise, Rval};
use crate::value::Value;

fn eval_args(e: &mut Engine<'_>, args: &[Rval]) -> Option<Vec<Option<Value>>> {
    let mut out = Vec::new();
    for a in args {
        match a {
            Rval::Scalar(s) => {
                if let Some(name) = naked_list_name(&s.value) {
                    let name = e.expand(name).text;
                    let r = crate::expr::varref::VarRef::parse(&name);
                    match crate::expr::expand::lookup(&e.ctx, &r) {
                        Some(v) => out.push(Some(v)),
                        None => match resolve(&e.ctx, &name) {
                            Resolved::Iterable(v) => out.push(Some(Value::slist(v))),
                            Resolved::Scalar(v) => out.push(Some(Value::str(v))),
                            _ => out.push(Some(Value::str(s.value.clone()))),
                        },
                    }
                    continue;
                }
                out.push(Some(Value::str(e.expand(&s.value).text)));
            }
            Rval::Call(c) => {
                // recorded: a call as a bundle argument is refused (once its own arguments resolve)
                // and the parameter stays unset; the call itself runs first (its errors are logged)
                let _ = e.call_function(c);
                e.log(
                    LogLevel::Error,
                    "Only functions returning scalars can be used as arguments",
                );
                out.push(None);
                continue;
            }
            other => match e.eval_rval(other) {
                RvalResult::Value { value, .. } => out.push(Some(value)),
                RvalResult::Skip => return None,
                _ => out.push(Some(Value::str(""))),
            },
        }
    }
    Some(out)
}

/// The promise as its identity sees it: calls given as bundle arguments count unexpanded (recorded: the
/// refused call argument of a methods promise is reported once, not again when its inputs change).
fn identity_form(p: &Promise) -> Promise {
    let mut q = p.clone();
    for c in q.constraints.iter_mut().filter(|c| c.lval == "usebundle") {
        if let Rval::Call(call) = &mut c.rval {
            for a in call.args.iter_mut() {
                if let Rval::Call(inner) = a {
                    let raw = format!("{inner:?}").replace('$', "\u{2}");
                    *a = Rval::Scalar(crate::syntax::ast::Scalar {
                        value: raw,
                        quote: crate::syntax::ast::Quote::Double,
                        span: inner.span,
                    });
                }
            }
        }
    }
    q
}

/// Evaluates one methods promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let digest = e.digest(def, "methods", &identity_form(p), promiser);
    if e.done.contains(&digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    let mut call_text = String::new();
    let (written, args) = match Engine::constraint(p, "usebundle") {
        Some(Rval::Call(c)) => {
            let raw: Vec<String> = c
                .args
                .iter()
                .map(|a| match a {
                    // scalars as expanded, `@(list)` as written (recorded)
                    Rval::Scalar(s) if naked_list_name(&s.value).is_some() => {
                        format!("\"{}\"", s.value)
                    }
                    Rval::Scalar(s) => format!("\"{}\"", e.expand(&s.value).text),
                    _ => String::new(),
                })
                .collect();
            call_text = format!("{}( {{{}}})", c.name, raw.join(","));
            let Some(args) = eval_args(e, &c.args) else {
                e.end_event(Some("unresolved"), None);
                return;
            };
            (c.name.clone(), args)
        }
        Some(Rval::Scalar(s)) => (e.expand(&s.value).text, Vec::new()),
        Some(_) => {
            e.end_event(Some("unresolved"), None);
            return;
        }
        None => (promiser.to_string(), Vec::new()),
    };
    e.done.insert(digest);
    e.verbose_promise_begin(def, "methods", p, promiser);
    let (ns, name) = split_ns(&written, &def.ns);
    let Some(bi) = e.find_bundle(ns, name) else {
        e.log(
            LogLevel::Error,
            &format!("A method attempted to use a bundle '{name}' that was apparently not defined"),
        );
        let ignore = matches!(
            e.ctx.vars.get(&(
                "default".to_string(),
                "control_common".to_string(),
                "ignore_missing_bundles".to_string()
            )),
            Some(v) if matches!(v.value.as_scalar(), Some("true" | "yes" | "on"))
        );
        if ignore {
            e.verbose_promise_end("methods", promiser, Outcome::Failed);
            e.end_event(Some("missing_bundle"), None);
            return;
        }
        e.log(
            LogLevel::Error,
            &format!("Fatal CFEngine error: Aborting due to missing bundle '{name}'"),
        );
        e.fatal = true;
        e.end_event(Some("missing_bundle"), Some(Outcome::Failed));
        return;
    };
    let inherit = match Engine::constraint(p, "inherit") {
        Some(rv) => e.scalar_of(rv).as_deref() == Some("true"),
        None => false,
    };
    // The methods event goes into the trace before the callee's events; its outcome is filled in after.
    let slot = e.trace.len();
    let event = e.cur.clone();
    e.end_event(None, None);
    let name = name.to_string();
    let stack = match e.ctx.frames.last() {
        Some(f) => format!("{}/{}/{}/methods/'{promiser}'", f.stack, f.ns, f.bundle),
        None => String::new(),
    };
    e.pending_call = Some((stack, call_text));
    let agg = e.run_bundle(bi, &args, true, inherit, promiser);
    e.cur = event;
    let results = std::mem::take(&mut e.last_results);
    if let Some(rv) = Engine::constraint(p, "useresult") {
        let ret = e.scalar_of(rv).unwrap_or_default();
        for (k, v) in results {
            e.ctx.set_var(
                (def.ns.clone(), def.name.clone(), format!("{ret}[{k}]")),
                Value::str(v),
                vec!["source=bundle".into()],
            );
        }
    }
    let outcome = if agg.failed {
        e.log(
            LogLevel::Error,
            &format!("Method '{name}' failed in some repairs"),
        );
        Outcome::Failed
    } else if agg.repaired {
        Outcome::Repaired
    } else {
        Outcome::Kept
    };
    e.record_outcome(def, p, outcome);
    e.verbose_promise_end("methods", promiser, outcome);
    let done = std::mem::take(&mut e.cur);
    if let Some(ev) = e.trace.get_mut(slot) {
        ev.outcome = Some(outcome.name().to_string());
        ev.classes_set = done.classes_set;
        ev.classes_cancelled = done.classes_cancelled;
        ev.vars_set = done.vars_set;
    }
}
