//! The agent's expansion of a promise before its actuator runs (DeRefCopyPromise, ExpandDeRefPromise),
//! reduced to what shows: errors for unquoted words naming no body or bundle, the conditions evaluated
//! once per binding (kept for the actuator), and function calls evaluated (and their messages logged)
//! exactly where cf-agent 3.21 evaluates them — body arguments once per promise, every constraint once
//! per binding, a failed call again each time an actuator looks at it (VerifyVarPromise,
//! VerifyClassPromise, defaults) — and remembered per binding so that cfsim's own later looks at the
//! same call stay silent. Recorded: policies/functions/counts, passes/function_errors_per_expansion,
//! methods/unquoted_bundle_name.

use super::output::LogLevel;
use super::rval::RvalResult;
use super::{BundleDef, Engine};
use crate::expr::env::EvalEnv;
use crate::syntax::ast::{Call, Promise, Rval};
use crate::value::Value;

/// Attributes whose value is a bundle reference (from the syntax tables' `bundle` type).
const BUNDLE_LVALS: &[&str] = &[
    "edit_line",
    "edit_xml",
    "home_bundle",
    "service_bundle",
    "usebundle",
];

/// Outcomes and messages of the calls of one promise binding, keyed by the call's address, with the
/// call itself: a call evaluated from a resolved body is a temporary copy, whose address a later
/// temporary (another body's call) may reuse once it is freed, so a hit must also be the same call
/// (name, arguments and position; found by `policies/processes/select-times`, where the
/// `process_count` body's `irange` took the `process_select` body's result once the allocator reused
/// the address).
pub type FnMemo = std::collections::HashMap<
    usize,
    (Call, RvalResult, Vec<(LogLevel, String)>),
    crate::fasthash::FastState,
>;

impl Engine<'_> {
    /// Re-logs, `times` times, the messages of the failed built-in calls of `rv` (top level and list
    /// elements) evaluated earlier in this binding: the agent keeps a failed call unevaluated in its
    /// promise copy, so each later look at the constraint calls the function again.
    pub fn replay_failed_calls(&mut self, rv: &Rval, times: usize) {
        if self.fatal {
            return;
        }
        let calls: Vec<&Call> = match rv {
            Rval::Call(c) => vec![c],
            Rval::List(items, _) => items
                .iter()
                .filter_map(|i| match i {
                    Rval::Call(c) => Some(c),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        for c in calls {
            let key = c as *const Call as usize;
            let Some((_, RvalResult::Failed, lines)) = self
                .fn_memo
                .as_ref()
                .and_then(|m| m.get(&key))
                .filter(|(call, _, _)| call == c)
                .cloned()
            else {
                continue;
            };
            for _ in 0..times {
                for (lvl, msg) in &lines {
                    self.log(*lvl, msg);
                }
            }
        }
    }

    /// Built-in calls given as arguments of body references (`classes => outcome(readfile(…))`) are
    /// evaluated (and logged) once per promise, when the agent copies the promise with its bodies; bundle
    /// references (`usebundle`, `edit_line`, …) keep their arguments for the actuator.
    pub fn expand_body_arguments(&mut self, p: &Promise) {
        for c in &p.constraints {
            if BUNDLE_LVALS.contains(&c.lval.as_str()) {
                continue;
            }
            let Rval::Call(body) = &c.rval else {
                continue;
            };
            if crate::syntax::tables::function(&body.name).is_some() {
                continue;
            }
            for a in &body.args {
                if let Rval::Call(inner) = a {
                    if crate::syntax::tables::function(&inner.name).is_some() {
                        let _ = self.call_function(inner);
                    }
                }
            }
        }
    }

    /// Whether `rv` calls a built-in function (body and bundle references look like calls too).
    pub fn has_builtin_call(rv: &Rval) -> bool {
        match rv {
            Rval::Call(c) => crate::syntax::tables::function(&c.name).is_some(),
            Rval::List(items, _) => items.iter().any(Self::has_builtin_call),
            Rval::Scalar(..) | Rval::Data(..) => false,
        }
    }

    /// The agent's expansion of a promise binding before its actuator runs (`ExpandDeRefPromise`): the
    /// promisee's calls; a classes promise whose class is set stops here; then the conditions
    /// (`ifvarclass`/`if`, `unless`, `depends_on`; their answer is kept for the actuator, which does not
    /// evaluate them again) and, when they hold, every other constraint in order — every built-in call
    /// (not a body named like one) is evaluated once here, logging its messages.
    pub fn expand_promise_calls(&mut self, t: &str, p: &Promise, promiser: &str) {
        if let Some(pe) = &p.promisee {
            if Self::has_builtin_call(pe) {
                let _ = self.eval_rval(pe);
            }
        }
        if t == "classes"
            && self
                .ctx
                .class_defined(None, &crate::expr::canonify(promiser))
        {
            return;
        }
        // the conditions are evaluated once here; the actuator reuses the answer
        let skip = self.conditions(p);
        self.cond_cache = Some(skip);
        if skip.is_some() {
            // the agent expands the constraints written before a false condition anyway: in simulate
            // mode an unsafe call there says it is not called (recorded: the stdlib's returnszero in
            // cfe_internal_hub.cf, twice per --simulate run)
            if self.opts.simulate.is_some() {
                for c in &p.constraints {
                    if matches!(c.lval.as_str(), "ifvarclass" | "if" | "unless") {
                        break;
                    }
                    if let Rval::Call(call) = &c.rval {
                        if super::rval::UNSAFE_FUNCTIONS.contains(&call.name.as_str()) {
                            self.log(
                                LogLevel::Warning,
                                &format!(
                                    "Not calling unsafe function '{}' in simulate mode",
                                    call.name
                                ),
                            );
                        }
                    }
                }
            }
            return;
        }
        // the namespace bodies are looked up in, copied once a constraint is a call
        let mut ns: Option<String> = None;
        for c in &p.constraints {
            // bundle references (`edit_line => regex_replace(…)` names the stdlib bundle, not the
            // function) are not calls
            if matches!(
                c.lval.as_str(),
                "ifvarclass"
                    | "if"
                    | "unless"
                    | "depends_on"
                    | "edit_line"
                    | "edit_xml"
                    | "usebundle"
                    | "service_bundle"
                    | "home_bundle"
            ) || !Self::has_builtin_call(&c.rval)
            {
                continue;
            }
            if let Rval::Call(call) = &c.rval {
                let ns = ns.get_or_insert_with(|| {
                    self.ctx
                        .frames
                        .last()
                        .map_or_else(|| "default".to_string(), |f| f.ns.clone())
                });
                if self.find_body(&c.lval, &call.name, ns).is_some() {
                    continue;
                }
            }
            let r = self.eval_rval(&c.rval);
            if self.fatal {
                return;
            }
            if c.lval == "comment" {
                // a comment whose call did not give a scalar stays a call (or a list) in the copy
                let kind = match (&r, &c.rval) {
                    (
                        RvalResult::Value {
                            value: Value::Scalar(..),
                            ..
                        },
                        _,
                    ) => None,
                    (RvalResult::Value { .. }, _) => Some("list"),
                    (_, Rval::Call(_)) => Some("call"),
                    _ => None,
                };
                if let Some(kind) = kind {
                    self.log(
                        LogLevel::Error,
                        &format!(
                            "Comments can only be scalar objects, not '{kind}' in '{promiser}'"
                        ),
                    );
                }
            }
        }
    }

    /// The agent's DeRefCopyPromise check, made every time a promise whose guard holds is expanded: an
    /// unquoted word as a constraint value (other than `if`/`ifvarclass`) that names neither a body of
    /// that type nor a bundle is an error (recorded: methods/unquoted_bundle_name).
    pub fn bare_reference_errors(&mut self, def: &BundleDef, p: &Promise) {
        for c in &p.constraints {
            let Rval::Scalar(x) = &c.rval else {
                continue;
            };
            if x.quote != crate::syntax::ast::Quote::Bare
                || matches!(c.lval.as_str(), "if" | "ifvarclass")
            {
                continue;
            }
            if self.find_body(&c.lval, &x.value, &def.ns).is_some() {
                continue;
            }
            let (ns, name) = super::split_ns(&x.value, &def.ns);
            if self.find_bundle(ns, name).is_some() {
                continue;
            }
            let file = self.file_path(def.file);
            let line = self
                .files
                .get(def.file)
                .map_or(0, |f| f.lines.line(p.promiser.span.start));
            self.log(
                LogLevel::Error,
                &format!(
                    "Apparent bundle '{}' was undeclared, but used in a promise near line {line} of {file} (possible unquoted literal value)",
                    x.value
                ),
            );
        }
    }
}
