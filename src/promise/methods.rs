//! `methods:` promises: `usebundle => name(args)` / `"name"` / the promiser itself; scalar and `@(list)`
//! arguments; `inherit`; the callee's aggregated outcome (kept / repaired / failed with the agent's
//! error); `useresult` copying the callee's `bundle_return_value_index` reports; missing bundle fatal.

use crate::eval::output::LogLevel;
use crate::eval::rval::RvalResult;
use crate::eval::{split_ns, BundleDef, Engine, Outcome};
use crate::expr::expand::{naked_list_name, resolve, Resolved};
use crate::syntax::ast::{Promise, Rval};
use crate::value::Value;

/// The values of a call's arguments (`None`: a function call that gave no scalar; the callee logs the
/// agent's error after its parameter note) and their kinds (`s` scalar, `f` function call, `l` a lone
/// `@(x)` whose x is no list or container: the text `@(x)` is passed and the callee logs the agent's
/// error, see [`naked_arg_error`]).
pub(crate) fn eval_args(
    e: &mut Engine<'_>,
    args: &[Rval],
) -> Option<(Vec<Option<Value>>, Vec<char>)> {
    let mut out = Vec::new();
    let mut kinds = Vec::new();
    for a in args {
        kinds.push(if matches!(a, Rval::Call(_)) { 'f' } else { 's' });
        match a {
            Rval::Scalar(s) => {
                if let Some(name) = naked_list_name(&s.value) {
                    let name = e.expand(name).text;
                    let r = crate::expr::varref::VarRef::parse(&name);
                    match crate::expr::expand::lookup(&e.ctx, &r) {
                        Some(v @ (Value::List(..) | Value::Data(_))) => out.push(Some(v)),
                        // a string (or an iteration's value of a list): the table decides
                        Some(Value::Scalar(..)) => match e.ctx.table_var(&name) {
                            Some(v @ (Value::List(..) | Value::Data(_))) => {
                                out.push(Some(v.clone()))
                            }
                            _ => naked_text(&mut out, &mut kinds, &name),
                        },
                        None => match resolve(&e.ctx, &name) {
                            Resolved::Iterable(v) => out.push(Some(Value::slist(v))),
                            Resolved::Scalar(v) => out.push(Some(Value::str(v))),
                            _ => naked_text(&mut out, &mut kinds, &name),
                        },
                    }
                    continue;
                }
                out.push(Some(Value::str(e.expand(&s.value).text)));
            }
            // a call is evaluated when the bundle starts: a scalar result is the parameter, anything
            // else (unresolved arguments, a list, a failure) leaves it unset (recorded:
            // methods/function_arguments)
            Rval::Call(c) => match e.call_function(c) {
                RvalResult::Value {
                    value: Value::Scalar(_, s),
                    unresolved: false,
                } => out.push(Some(Value::str(s))),
                _ => out.push(None),
            },
            other => match e.eval_rval(other) {
                RvalResult::Value { value, .. } => out.push(Some(value)),
                RvalResult::Skip => return None,
                _ => out.push(Some(Value::str(""))),
            },
        }
    }
    Some((out, kinds))
}

/// A lone `@(name)` argument naming no list or container: the agent passes the text `@(name)` and logs
/// an error when it builds the callee's scope (recorded: eval/scope/naked_bundle_args).
fn naked_text(out: &mut Vec<Option<Value>>, kinds: &mut [char], name: &str) {
    out.push(Some(Value::str(format!("@({name})"))));
    if let Some(k) = kinds.last_mut() {
        *k = 'l';
    }
}

/// The agent's error for a [`naked_text`] argument, logged by the callee `bundle`.
pub(crate) fn naked_arg_error(arg: Option<&Option<Value>>, bundle: &str) -> Option<String> {
    let text = match arg {
        Some(Some(Value::Scalar(_, t))) => t,
        _ => return None,
    };
    let name = naked_list_name(text)?;
    Some(format!(
        "List or container parameter '{name}' not found while constructing scope '{bundle}' - use @(scope.variable) in calling reference"
    ))
}

/// A function call as the agent writes it in banners: `name("arg","arg")`, arguments expanded.
fn written_call(e: &Engine<'_>, c: &crate::syntax::ast::Call) -> String {
    let args: Vec<String> = c
        .args
        .iter()
        .map(|a| match a {
            Rval::Scalar(s) => format!("\"{}\"", e.expand(&s.value).text),
            Rval::Call(inner) => written_call(e, inner),
            _ => String::new(),
        })
        .collect();
    format!("{}({})", c.name, args.join(","))
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
    evaluate_as(e, def, p, promiser, "methods");
}

/// `$(this.service_policy)` in a bundle argument, kept as written in the `-v` call text.
const SERVICE_POLICY_REFS: [&str; 2] = ["$(this.service_policy)", "${this.service_policy}"];

/// A bundle argument as the `-v` call text shows it: expanded, but `$(this.service_policy)` as written
/// when `keep_policy` (a services promise whose form is unexpanded, see [`crate::promise::services`]).
fn shown_arg(e: &Engine<'_>, text: &str, keep_policy: bool) -> String {
    if !keep_policy {
        return e.expand(text).text;
    }
    let mut t = text.to_string();
    for (i, r) in SERVICE_POLICY_REFS.iter().enumerate() {
        t = t.replace(r, &format!("\u{1}{i}\u{1}"));
    }
    let mut out = e.expand(&t).text;
    for (i, r) in SERVICE_POLICY_REFS.iter().enumerate() {
        out = out.replace(&format!("\u{1}{i}\u{1}"), r);
    }
    out
}

/// [`evaluate`] with the promise type the `-v` banners and stack paths name: `services` for a services
/// promise, which the agent runs as the method call it stands for and begins twice (recorded:
/// services/*/verbose.out).
pub fn evaluate_as(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    promiser: &str,
    shown_type: &str,
) {
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
    let keep_policy = Engine::constraint(p, "cfsim_service_policy_form")
        .is_some_and(|rv| matches!(rv, Rval::Scalar(s) if s.value == "unexpanded"));
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
                    // a double quote in the value is written escaped (recorded:
                    // files/std-file-make-bundles/verbose.out)
                    Rval::Scalar(s) => format!(
                        "\"{}\"",
                        shown_arg(e, &s.value, keep_policy).replace('"', "\\\"")
                    ),
                    Rval::Call(inner) => written_call(e, inner),
                    _ => String::new(),
                })
                .collect();
            // the agent's banner names the bundle without its namespace (recorded:
            // namespaces/ns_bundle_with_args)
            let shown = e.expand(&c.name).text;
            let shown = shown.rsplit(':').next().unwrap_or_default();
            if !raw.is_empty() {
                call_text = format!("{shown}( {{{}}})", raw.join(","));
            }
            let Some((args, kinds)) = eval_args(e, &c.args) else {
                e.end_event(Some("unresolved"), None);
                return;
            };
            // an argument past the value limits is refused as a variable would be: a bundle calling
            // itself with a doubling argument would otherwise grow without bound
            let too_large = args.iter().enumerate().find_map(|(i, a)| {
                a.as_ref()
                    .and_then(|v| e.opts.limits.too_large(v))
                    .map(|why| (i + 1, why))
            });
            if let Some((n, why)) = too_large {
                e.limit_hit = true;
                e.log(
                    LogLevel::Error,
                    &format!(
                        "cfsim: argument {n} of the call of '{}' {why}; not calling it",
                        c.name
                    ),
                );
                e.end_event(Some("too_large"), Some(Outcome::Failed));
                return;
            }
            e.pending_arg_kinds = kinds;
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
    e.verbose_promise_begin(def, shown_type, p, promiser);
    if shown_type != "methods" {
        e.verbose_promise_begin(def, shown_type, p, promiser);
    }
    let (ns, name) = split_ns(&written, &def.ns);
    let Some(bi) = e.find_bundle(ns, name) else {
        e.log(
            LogLevel::Error,
            &format!("A method attempted to use a bundle '{name}' that was apparently not defined"),
        );
        let ignore = e.ignore_missing_bundles();
        if ignore {
            // the error is the promise's not-kept outcome: audited, classes body applied (recorded)
            e.record_outcome(def, p, Outcome::Failed);
            e.verbose_promise_end(shown_type, promiser, Outcome::Failed);
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
    // -n and --simulate still run the bundle (its promises only warn); an action body's warn does not
    if e.action_warn(def, p) {
        // the bundle is not run; the agent still prints its end banner (recorded: commands/action_warn)
        e.log(
            LogLevel::Warning,
            &format!("Bundle '{written}' should be invoked, but only a warning was promised!"),
        );
        e.record_outcome(def, p, Outcome::Failed);
        let shown = e
            .bundles
            .get(bi)
            .map(|b| b.name.clone())
            .unwrap_or_default();
        e.verbose_bundle_end_banner(&shown);
        e.verbose_promise_end(shown_type, promiser, Outcome::Failed);
        e.end_event(None, Some(Outcome::Failed));
        return;
    }
    let inherit = match Engine::constraint(p, "inherit") {
        Some(rv) => e.scalar_of(rv).as_deref() == Some("true"),
        None => false,
    };
    // The methods event goes into the trace before the callee's events; its outcome is filled in after.
    let slot = e.trace.len();
    let event = e.cur.clone();
    e.end_event(None, None);
    // (the same for a run that only counts outcomes)
    let counted = e
        .tallies
        .last_counted()
        .filter(|_| e.opts.trace_counts_only);
    let name = name.to_string();
    let stack = e.promise_stack(shown_type, promiser);
    e.pending_call = Some((stack, call_text));
    let agg = e.run_bundle(bi, &args, true, inherit, promiser);
    e.cur = event;
    if e.fatal {
        // the agent exits at once: no outcome, no end banner
        if let Some(ev) = e.trace.get_mut(slot) {
            ev.outcome = Some(Outcome::Failed.name().to_string());
        }
        if let Some(g) = counted {
            e.tallies.amend(g, Outcome::Failed.name());
        }
        return;
    }
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
    // the agent says so of a bundle whose result is a warning: in a dry run every repair is one;
    // in a simulate run the files changes are real repairs (made in its chroot) and only what it
    // does not run (commands, services) warns — cfsim's aggregate has no warning of its own, so
    // a failure stands for it there (recorded: policies/files/std-file-make-bundles -n and
    // --simulate, policies/services/*/diff.out)
    let warned = if e.opts.simulate.is_some() {
        agg.failed
    } else {
        e.opts.dry_run && (agg.failed || agg.repaired)
    };
    let outcome = if warned {
        // recorded: policies/files/std-file-make-bundles (-n)
        e.log(
            LogLevel::Warning,
            &format!("Method '{name}' invoked repairs, but only warnings promised"),
        );
        Outcome::Failed
    } else if agg.failed {
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
    e.verbose_bundle_end_banner(
        &e.bundles
            .get(bi)
            .map(|b| b.name.clone())
            .unwrap_or_default(),
    );
    e.verbose_promise_end(shown_type, promiser, outcome);
    let done = std::mem::take(&mut e.cur);
    if let Some(g) = counted {
        e.tallies.amend(g, outcome.name());
    }
    if let Some(ev) = e.trace.get_mut(slot) {
        ev.outcome = Some(outcome.name().to_string());
        ev.classes_set = done.classes_set;
        ev.classes_cancelled = done.classes_cancelled;
        ev.vars_set = done.vars_set;
    }
}
