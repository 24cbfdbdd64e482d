//! Evaluating right-hand values against the run's context: scalars expanded (unresolved references kept
//! literally), lists with `@(x)` spliced, function calls through the one function table (unresolved
//! arguments skip the call), class expressions and `if`/`unless` values with their ERROR result.

use super::output::LogLevel;
use super::Engine;
use crate::expr::expand::{expand_scalar, has_reference, naked_list_name, resolve, Resolved};
use crate::functions::callexpr::{eval_call, CallArg, CallExpr, EvalOutcome};
use crate::functions::{CallCtx, Level};
use crate::syntax::ast::{Call, Rval};
use crate::value::{ListKind, Value};

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

pub use crate::functions::UNSAFE_FUNCTIONS;

impl Engine<'_> {
    /// Calls a function expression. Inside a promise binding (see [`super::expansion::FnMemo`]) a call evaluated before
    /// returns its earlier outcome without logging again.
    pub fn call_function(&mut self, c: &Call) -> RvalResult {
        let key = c as *const Call as usize;
        let hit = self
            .fn_memo
            .as_ref()
            .and_then(|m| m.get(&key))
            .filter(|(call, _, _)| call == c);
        if let Some((_, result, _)) = hit {
            // a remembered result costs its copy (the run-wide value budget counts it again)
            if let RvalResult::Value { value, .. } = result {
                self.work_left = self.work_left.saturating_sub(value.work_units());
            }
            return result.clone();
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
            m.insert(key, (c.clone(), result.clone(), lines));
        }
        result
    }

    fn call_function_uncached(
        &mut self,
        c: &Call,
        lines: &mut Vec<(LogLevel, String)>,
    ) -> RvalResult {
        // the agent's FNCALL_OPTION_UNSAFE functions are not called in simulate mode
        if self.opts.simulate.is_some() && UNSAFE_FUNCTIONS.contains(&c.name.as_str()) {
            lines.push((
                LogLevel::Warning,
                format!("Not calling unsafe function '{}' in simulate mode", c.name),
            ));
            return RvalResult::Failed;
        }
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
            cx.simulate = self.opts.simulate.is_some();
            cx.max_values = self.opts.limits.max_list_length;
            cx.work_left = self.work_left;
            cx.work_said = self.work_said;
            let o = eval_call(&mut cx, &expr, &mut self.cache);
            self.limit_hit |= cx.limit_hit;
            self.work_left = cx.work_left;
            self.work_said = cx.work_said;
            (o, cx.log)
        };
        for l in log {
            // a command's output goes to the terminal as it is, when the command runs (the agent
            // caches the call: once per run)
            let shown = match l.level {
                Level::Output => Some(true),
                Level::OutputInform => Some(self.out.shows(LogLevel::Info)),
                _ => None,
            };
            if let Some(shown) = shown {
                if shown && self.agent_component {
                    for line in l.message.lines() {
                        self.out.raw(line.to_string());
                    }
                }
                continue;
            }
            let lvl = match l.level {
                Level::Error => LogLevel::Error,
                Level::Warning => LogLevel::Warning,
                Level::Info => LogLevel::Info,
                Level::Verbose | Level::Output | Level::OutputInform => LogLevel::Verbose,
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

    /// Expands a scalar.
    pub fn expand(&self, s: &str) -> crate::expr::Expanded {
        expand_scalar(s, &self.ctx)
    }

    /// What a text that is exactly `@(x)` designates for the agent's ExpandList: the variable x (its
    /// `$(…)` expanded) as the variable table holds it, not a promise's iteration over it (`None`: not
    /// such a text, or no such variable). Used wherever the agent expands a list element, a result or
    /// an argument written so (vars, classes, methods).
    pub fn list_element_var(&self, text: &str) -> Option<Value> {
        let name = naked_list_name(text)?;
        let name = self.expand(name).text;
        self.ctx.table_var(&name).cloned()
    }

    /// What ExpandList makes of such an element: x's elements (a list x) or x's value alone (a string
    /// x, `true`: the agent warns, see [`crate::promise::warn_not_list`]); `None` for anything else
    /// (a container, no such variable, not a lone `@(x)`), which stays as written.
    pub fn list_element_items(&self, text: &str) -> Option<(Vec<String>, bool)> {
        match self.list_element_var(text)? {
            Value::List(_, items) => Some((items, false)),
            Value::Scalar(_, v) => Some((vec![v], true)),
            Value::Data(_) => None,
        }
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
        // most class expressions hold no reference: nothing to expand
        let expanded;
        let text = if expr.bytes().any(|c| c == b'$' || c == b'@') {
            expanded = self.expand(expr).text;
            if has_reference(&expanded) || expanded.contains("@(") || expanded.contains("@{") {
                return Err(ClassError);
            }
            expanded.as_str()
        } else {
            expr
        };
        match crate::expr::classexpr::eval_str(text, &self.ctx) {
            Ok(b) => Ok(b),
            Err(err) => {
                if matches!(err, crate::expr::classexpr::ClassExprError::Whitespace(_)) {
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
