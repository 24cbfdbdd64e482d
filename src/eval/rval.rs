//! Evaluating right-hand values against the run's context: scalars expanded (unresolved references kept
//! literally), lists with `@(x)` spliced, function calls through the one function table (unresolved
//! arguments skip the call), class expressions and `if`/`unless` values with their ERROR result.

use super::output::LogLevel;
use super::Engine;
use crate::expr::env::EvalEnv;
use crate::expr::expand::{expand_scalar, has_reference, naked_list_name, resolve, Resolved};
use crate::functions::callexpr::{eval_call, CallArg, CallExpr, EvalOutcome};
use crate::functions::{CallCtx, Level};
use crate::syntax::ast::{Call, Promise, Rval};
use crate::value::{ListKind, Value};

/// Attributes whose value is a bundle reference (from the syntax tables' `bundle` type).
const BUNDLE_LVALS: &[&str] = &[
    "edit_line",
    "edit_xml",
    "home_bundle",
    "service_bundle",
    "usebundle",
];

/// Outcomes and messages of the calls of one promise binding, keyed by the call's address in the policy.
pub type FnMemo = std::collections::HashMap<usize, (RvalResult, Vec<(LogLevel, String)>)>;

/// The agent's ERROR value of a class expression (unexpanded reference, parse failure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassError;

/// Result of evaluating one rval.
#[derive(Debug, Clone, PartialEq)]
pub enum RvalResult {
    /// A value; `unresolved` when some reference was kept literally.
    Value {
        value: Value,
        unresolved: bool,
    },
    /// A function argument was unresolved: skip the promise this pass.
    Skip,
    /// The promise is dropped (nested unresolved reference) or a function failed.
    Dropped,
    Failed,
}

/// Converts an AST call to the function layer's call expression.
pub fn to_call_expr(c: &Call) -> Option<CallExpr> {
    let mut args = Vec::new();
    for a in &c.args {
        args.push(match a {
            Rval::Scalar(s) => CallArg::Str(s.value.clone()),
            Rval::Call(inner) => CallArg::Call(to_call_expr(inner)?),
            Rval::List(..) | Rval::Data(..) => return None,
        });
    }
    Some(CallExpr {
        name: c.name.clone(),
        args,
    })
}

/// Every string of an rval (scalars, list items, call arguments except mapping functions').
pub fn rval_strings<'a>(rv: &'a Rval, out: &mut Vec<&'a str>) {
    match rv {
        Rval::Scalar(s) => out.push(&s.value),
        Rval::List(items, _) => items.iter().for_each(|i| rval_strings(i, out)),
        Rval::Call(c) => {
            if !matches!(c.name.as_str(), "maplist" | "maparray" | "mapdata") {
                c.args.iter().for_each(|a| rval_strings(a, out));
            }
        }
        Rval::Data(..) => {}
    }
}

impl Engine<'_> {
    /// Calls a function expression. Inside a promise binding (see [`FnMemo`]) a call evaluated before
    /// returns its earlier outcome without logging again.
    pub fn call_function(&mut self, c: &Call) -> RvalResult {
        let key = c as *const Call as usize;
        if let Some(hit) = self.fn_memo.as_ref().and_then(|m| m.get(&key)) {
            return hit.0.clone();
        }
        let mut lines = Vec::new();
        let result = self.call_function_uncached(c, &mut lines);
        for (lvl, msg) in &lines {
            self.log(*lvl, msg);
        }
        // FatalError: the tool stops right after printing it (exit code 1)
        if lines
            .iter()
            .any(|(_, m)| m.starts_with("Fatal CFEngine error"))
        {
            self.fatal = true;
        }
        if let Some(m) = self.fn_memo.as_mut() {
            m.insert(key, (result.clone(), lines));
        }
        result
    }

    fn call_function_uncached(
        &mut self,
        c: &Call,
        lines: &mut Vec<(LogLevel, String)>,
    ) -> RvalResult {
        let Some(expr) = to_call_expr(c) else {
            lines.push((
                LogLevel::Error,
                format!("cfsim cannot pass a list literal to function '{}'", c.name),
            ));
            return RvalResult::Failed;
        };
        let (outcome, log) = {
            let mut cx = CallCtx::new(&mut self.ctx, &self.host);
            cx.agent = self.agent_component;
            let o = eval_call(&mut cx, &expr, &mut self.cache);
            (o, cx.log)
        };
        for l in log {
            let lvl = match l.level {
                Level::Error => LogLevel::Error,
                Level::Warning => LogLevel::Warning,
                Level::Info => LogLevel::Info,
                Level::Verbose => LogLevel::Verbose,
            };
            lines.push((lvl, l.message));
        }
        match outcome {
            EvalOutcome::Value(v) => RvalResult::Value {
                value: v,
                unresolved: false,
            },
            EvalOutcome::Unresolved => RvalResult::Skip,
            EvalOutcome::Unknown => {
                lines.push((LogLevel::Error, format!("Unknown function '{}'", c.name)));
                RvalResult::Failed
            }
            EvalOutcome::Failed | EvalOutcome::NotImplemented => RvalResult::Failed,
        }
    }

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
            let Some((RvalResult::Failed, lines)) =
                self.fn_memo.as_ref().and_then(|m| m.get(&key)).cloned()
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

    /// The agent's expansion of a promise binding before its actuator runs (`ExpandDeRefPromise`): a
    /// classes promise whose class is set is skipped; then `ifvarclass`/`if`, `unless` and `depends_on`
    /// (stopping when they exclude the promise), then every other constraint in order — every built-in
    /// call is evaluated once here, logging its messages.
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
        let cond = |lval: &str| p.constraints.iter().find(|c| c.lval == lval);
        if let Some(c) = cond("ifvarclass").or_else(|| cond("if")) {
            if Self::has_builtin_call(&c.rval) && self.eval_condition(&c.rval) != Ok(true) {
                return;
            }
        }
        if let Some(c) = cond("unless") {
            if Self::has_builtin_call(&c.rval) && self.eval_condition(&c.rval) == Ok(true) {
                return;
            }
        }
        if let Some(c) = cond("depends_on") {
            let needed = self.list_of(&c.rval);
            if needed
                .iter()
                .any(|h| !self.handles.contains(&crate::expr::canonify(h)))
            {
                return;
            }
        }
        for c in &p.constraints {
            if matches!(
                c.lval.as_str(),
                "ifvarclass" | "if" | "unless" | "depends_on"
            ) || !Self::has_builtin_call(&c.rval)
            {
                continue;
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

    /// Expands a scalar.
    pub fn expand(&self, s: &str) -> crate::expr::Expanded {
        expand_scalar(s, &self.ctx)
    }

    /// Evaluates an rval to a value.
    pub fn eval_rval(&mut self, rv: &Rval) -> RvalResult {
        match rv {
            Rval::Scalar(s) => {
                let e = self.expand(&s.value);
                if e.dropped {
                    return RvalResult::Dropped;
                }
                RvalResult::Value {
                    value: Value::str(e.text),
                    unresolved: e.unresolved,
                }
            }
            Rval::Data(d, _) => RvalResult::Value {
                value: Value::Data(d.clone()),
                unresolved: false,
            },
            Rval::Call(c) => self.call_function(c),
            Rval::List(items, _) => {
                let mut out = Vec::new();
                let mut unresolved = false;
                for it in items {
                    match it {
                        Rval::Scalar(s) => {
                            if let Some(name) = naked_list_name(&s.value) {
                                let name = self.expand(name).text;
                                match resolve(&self.ctx, &name) {
                                    Resolved::Iterable(v) => out.extend(v),
                                    Resolved::Scalar(v) => out.push(v),
                                    _ => {
                                        unresolved = true;
                                        out.push(s.value.clone());
                                    }
                                }
                                continue;
                            }
                            let e = self.expand(&s.value);
                            unresolved |= e.unresolved;
                            out.push(e.text);
                        }
                        Rval::Call(c) => match self.call_function(c) {
                            RvalResult::Value {
                                value: Value::List(_, v),
                                ..
                            } => out.extend(v),
                            RvalResult::Value {
                                value: Value::Scalar(_, v),
                                ..
                            } => out.push(v),
                            RvalResult::Value { .. } => {}
                            other => return other,
                        },
                        Rval::List(..) | Rval::Data(..) => {}
                    }
                }
                RvalResult::Value {
                    value: Value::List(ListKind::Slist, out),
                    unresolved,
                }
            }
        }
    }

    /// Evaluates a class expression string after expanding its variables: `Err` is the agent's ERROR
    /// (unexpanded reference or a parse failure).
    pub fn eval_class_str(&mut self, expr: &str) -> Result<bool, ClassError> {
        let e = self.expand(expr);
        if has_reference(&e.text) || e.text.contains("@(") || e.text.contains("@{") {
            return Err(ClassError);
        }
        match crate::expr::classexpr::eval_str(&e.text, &self.ctx) {
            Ok(b) => Ok(b),
            Err(err) => {
                if matches!(err, crate::expr::classexpr::ClassExprError::Whitespace(_))
                    && self.stage != "prelim"
                {
                    self.log(LogLevel::Error, &err.to_string());
                }
                Err(ClassError)
            }
        }
    }

    /// Evaluates an `if`/`unless`/`ifvarclass`/`expression` value: a class expression string or a
    /// function returning a context.
    pub fn eval_condition(&mut self, rv: &Rval) -> Result<bool, ClassError> {
        match rv {
            Rval::Scalar(s) => self.eval_class_str(&s.value),
            Rval::Call(c) => match self.call_function(c) {
                RvalResult::Value {
                    value: Value::Scalar(_, s),
                    ..
                } => crate::expr::classexpr::eval_str(&s, &self.ctx).map_err(|_| ClassError),
                RvalResult::Value { .. } => Err(ClassError),
                _ => Err(ClassError),
            },
            Rval::List(..) | Rval::Data(..) => Err(ClassError),
        }
    }

    /// The scalar text of an rval (expanded), if it is a scalar.
    pub fn scalar_of(&mut self, rv: &Rval) -> Option<String> {
        match self.eval_rval(rv) {
            RvalResult::Value {
                value: Value::Scalar(_, s),
                ..
            } => Some(s),
            _ => None,
        }
    }

    /// The elements of an rval as a list of strings (a scalar gives one element).
    pub fn list_of(&mut self, rv: &Rval) -> Vec<String> {
        match self.eval_rval(rv) {
            RvalResult::Value {
                value: Value::List(_, v),
                ..
            } => v,
            RvalResult::Value {
                value: Value::Scalar(_, s),
                ..
            } => vec![s],
            RvalResult::Value {
                value: Value::Data(d),
                ..
            } => crate::value::json_scalar_values(&d),
            _ => Vec::new(),
        }
    }
}
