//! A function-call expression as written in policy (`join(",", getindices("d"))`): a small parser for
//! quoted-string and nested-call arguments, and `eval_call`, which evaluates arguments (expansion, `@(x)`
//! passing, nested calls), applies the unresolved-argument rule and calls through the table. An
//! evaluator with its own AST evaluates the arguments itself and calls [`call_evaluated`].

use super::cache::FnCache;
use super::{skips_on_unresolved, CallCtx, CallOutcome, FnArg};
use crate::expr::expand::{expand_scalar, lookup_name, naked_list_name};
use crate::value::Value;

/// Maximum nesting of calls in one expression.
pub const MAX_CALL_DEPTH: usize = 64;

/// One argument of a parsed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallArg {
    /// A quoted string, escapes already removed (variables not yet expanded).
    Str(String),
    /// A nested call.
    Call(CallExpr),
}

/// A parsed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallExpr {
    pub name: String,
    pub args: Vec<CallArg>,
}

/// Parses `name(arg, …)`; the whole text must be one call.
pub fn parse_call(text: &str) -> Result<CallExpr, String> {
    let mut p = P {
        s: text.as_bytes(),
        i: 0,
    };
    let c = p.call(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected text after the call at byte {}", p.i));
    }
    Ok(c)
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn call(&mut self, depth: usize) -> Result<CallExpr, String> {
        if depth > MAX_CALL_DEPTH {
            return Err("calls nested too deeply".into());
        }
        self.ws();
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b':')
        {
            self.i += 1;
        }
        let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        if name.is_empty() {
            return Err(format!("expected a function name at byte {start}"));
        }
        self.ws();
        if self.s.get(self.i) != Some(&b'(') {
            return Err(format!("expected `(` after `{name}`"));
        }
        self.i += 1;
        let mut args = Vec::new();
        loop {
            self.ws();
            match self.s.get(self.i) {
                Some(b')') => {
                    self.i += 1;
                    return Ok(CallExpr { name, args });
                }
                Some(b',') if !args.is_empty() => {
                    self.i += 1;
                    self.ws();
                }
                _ if args.is_empty() => {}
                _ => return Err(format!("expected `,` or `)` at byte {}", self.i)),
            }
            match self.s.get(self.i) {
                Some(&q @ (b'"' | b'\'' | b'`')) => args.push(CallArg::Str(self.string(q)?)),
                Some(b'@' | b'$') => args.push(CallArg::Str(self.naked()?)),
                Some(_) => args.push(self.call_or_symbol(depth + 1)?),
                None => return Err("unterminated call".into()),
            }
        }
    }
    /// A nested call, or a bare identifier (the agent passes it as a string).
    fn call_or_symbol(&mut self, depth: usize) -> Result<CallArg, String> {
        let save = self.i;
        let mut j = self.i;
        while self
            .s
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.' || *c == b':')
        {
            j += 1;
        }
        let mut k = j;
        while self.s.get(k).is_some_and(|c| c.is_ascii_whitespace()) {
            k += 1;
        }
        if j > save && self.s.get(k) != Some(&b'(') {
            self.i = j;
            return Ok(CallArg::Str(
                String::from_utf8_lossy(&self.s[save..j]).into_owned(),
            ));
        }
        Ok(CallArg::Call(self.call(depth)?))
    }

    /// A naked `@(x)`/`$(x)` argument, kept as its text.
    fn naked(&mut self) -> Result<String, String> {
        let text = String::from_utf8_lossy(&self.s[self.i..]).into_owned();
        let t = text.replacen('@', "$", 1);
        let end =
            crate::expr::expand::reference_end(&t, 0).ok_or("unterminated variable reference")?;
        self.i += end;
        Ok(text[..end].to_string())
    }

    fn string(&mut self, q: u8) -> Result<String, String> {
        self.i += 1;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            if c == q {
                return Ok(String::from_utf8_lossy(&out).into_owned());
            }
            if c == b'\\' && q != b'`' {
                match self.s.get(self.i) {
                    Some(&n) if n == q || n == b'\\' => {
                        out.push(n);
                        self.i += 1;
                        continue;
                    }
                    Some(b'\n') => {
                        self.i += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            out.push(c);
        }
        Err("unterminated string".into())
    }
}

/// Result of evaluating a call expression.
#[derive(Debug, Clone, PartialEq)]
pub enum EvalOutcome {
    Value(Value),
    /// An argument was unresolved: the call is skipped this pass.
    Unresolved,
    Failed,
    Unknown,
    NotImplemented,
}

/// Evaluates one string argument: `@(x)` passes the variable, other text is expanded.
pub fn eval_str_arg(ctx: &CallCtx<'_>, s: &str) -> (FnArg, bool) {
    if let Some(name) = naked_list_name(s) {
        let name = expand_scalar(name, &*ctx.env).text;
        let found = lookup_name(&*ctx.env, &name);
        // `@(arr)` naming a classic array (entries `arr[k]`) is resolved too
        let unresolved = found.is_none() && super::args::classic_array(ctx, &name).is_none();
        let value = found.unwrap_or_else(|| Value::str(s));
        return (
            FnArg {
                value,
                naked: Some(name),
            },
            unresolved,
        );
    }
    let e = expand_scalar(s, &*ctx.env);
    (FnArg::str(e.text), e.unresolved)
}

/// Replaces `$(this…)` references in every string of a call (for mapping with a call as pattern).
fn substitute_call(call: &CallExpr, pairs: &[(&str, &str)]) -> CallExpr {
    CallExpr {
        name: call.name.clone(),
        args: call
            .args
            .iter()
            .map(|a| match a {
                CallArg::Str(s) => CallArg::Str(super::lists::substitute_this(s, pairs)),
                CallArg::Call(c) => CallArg::Call(substitute_call(c, pairs)),
            })
            .collect(),
    }
}

/// `maplist`/`maparray` whose pattern is itself a call: the agent evaluates the call per element.
fn map_with_call(
    ctx: &mut CallCtx<'_>,
    call: &CallExpr,
    pattern: &CallExpr,
    cache: &mut FnCache,
) -> EvalOutcome {
    let arg = match call.args.get(1) {
        Some(CallArg::Str(src)) => eval_str_arg(ctx, src).0,
        // the list is itself a call (`maplist(f($(this)), grep(…))`)
        Some(CallArg::Call(c)) => match eval_call(ctx, c, cache) {
            EvalOutcome::Value(v) => FnArg {
                value: v,
                naked: None,
            },
            other => return other,
        },
        None => return EvalOutcome::Failed,
    };
    let Some(v) = super::args::collect_container(ctx, &arg) else {
        return EvalOutcome::Failed;
    };
    let pairs: Vec<(String, String)> = if call.name == "maplist" {
        super::args::elements(&v)
            .into_iter()
            .map(|e| (String::new(), e))
            .collect()
    } else {
        super::lists::map_pairs(&v)
    };
    let mut out = Vec::new();
    for (k, e) in &pairs {
        let sub = if call.name == "maplist" {
            substitute_call(pattern, &[("this", e)])
        } else {
            substitute_call(pattern, &[("this.k", k), ("this.v", e)])
        };
        match eval_call(ctx, &sub, cache) {
            EvalOutcome::Value(Value::Scalar(_, s)) => out.push(s),
            EvalOutcome::Value(_) => {}
            other => return other,
        }
    }
    EvalOutcome::Value(Value::slist(out))
}

/// Calls `name` with arguments an evaluator already evaluated: applies the unresolved-argument rule
/// (skip this pass, except 3-argument `ifelse` and the mapping functions) and the per-run cache.
pub fn call_evaluated(
    ctx: &mut CallCtx<'_>,
    name: &str,
    args: &[FnArg],
    any_unresolved: bool,
    cache: &mut FnCache,
) -> EvalOutcome {
    if any_unresolved && skips_on_unresolved(name, args.len()) {
        return EvalOutcome::Unresolved;
    }
    if ctx.work_left == 0 {
        ctx.limit_hit = true;
        if !ctx.work_said {
            ctx.work_said = true;
            ctx.error(format!(
                "cfsim: the run's values add up to more than the limit (--max-total-values); not calling '{name}' nor any function after it"
            ));
        }
        return EvalOutcome::Failed;
    }
    match cache.call(ctx, name, args) {
        CallOutcome::Value(v) => {
            ctx.work_left = ctx.work_left.saturating_sub(v.work_units());
            EvalOutcome::Value(v)
        }
        CallOutcome::Failed => EvalOutcome::Failed,
        CallOutcome::Unknown => EvalOutcome::Unknown,
        CallOutcome::NotImplemented => EvalOutcome::NotImplemented,
    }
}

/// Evaluates arguments and calls (through `cache` when given).
pub fn eval_call(ctx: &mut CallCtx<'_>, call: &CallExpr, cache: &mut FnCache) -> EvalOutcome {
    // a nested unsafe call in simulate mode is refused as a top-level one is (recorded:
    // services/*/diff.out, `string_split(execresult(…))` of the stdlib's systemd_services)
    if ctx.simulate && super::UNSAFE_FUNCTIONS.contains(&call.name.as_str()) {
        ctx.warning(format!(
            "Not calling unsafe function '{}' in simulate mode",
            call.name
        ));
        return EvalOutcome::Failed;
    }
    if matches!(call.name.as_str(), "maplist" | "maparray") && call.args.len() == 2 {
        if let Some(CallArg::Call(pattern)) = call.args.first() {
            return map_with_call(ctx, call, pattern, cache);
        }
    }
    // 3-argument ifelse keeps a nested call that failed as an argument (the agent's FnCallEvaluate
    // leaves it unevaluated and ifelse does not check its arguments): only the branch it picks matters
    // (recorded: eval/thirdparty/ifelse_filestat_missing)
    let lazy_ifelse = call.name == "ifelse" && call.args.len() == 3;
    let mut failed_branches = Vec::new();
    let mut args = Vec::with_capacity(call.args.len());
    let mut unresolved = false;
    // only collecting functions take `@(x)` as the variable x; the others get the text `@(x)` (its
    // `$(…)` expanded), as the agent's NewExpArgs leaves it: `canonify("@(l)")` is `__l_`,
    // `parsestringarray("@(l)", …)` fills an array named `@(l)` (recorded: eval/scope/naked_list_*)
    let mut literal_lists: Option<bool> = None;
    for (i, a) in call.args.iter().enumerate() {
        match a {
            CallArg::Str(s)
                if naked_list_name(s).is_some()
                    && *literal_lists.get_or_insert_with(|| {
                        crate::syntax::tables::function(&call.name).is_some_and(|f| !f.collecting)
                    }) =>
            {
                let e = expand_scalar(s, &*ctx.env);
                unresolved |= e.unresolved;
                args.push(FnArg::str(e.text));
            }
            CallArg::Str(s) => {
                let (arg, u) = eval_str_arg(ctx, s);
                unresolved |= u;
                args.push(arg);
            }
            CallArg::Call(c) => match eval_call(ctx, c, cache) {
                EvalOutcome::Value(v) => args.push(FnArg {
                    value: v,
                    naked: None,
                }),
                EvalOutcome::Failed if lazy_ifelse && i > 0 => {
                    failed_branches.push(i);
                    args.push(FnArg::str(String::new()));
                }
                other => return other,
            },
        }
    }
    if !failed_branches.is_empty() {
        let cond = args
            .first()
            .map(|a| a.text().to_string())
            .unwrap_or_default();
        let chosen = if super::classes::class_arg(ctx, &cond) {
            1
        } else {
            2
        };
        if failed_branches.contains(&chosen) {
            return EvalOutcome::Failed;
        }
    }
    call_evaluated(ctx, &call.name, &args, unresolved, cache)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_calls_and_escapes() {
        let c = parse_call(r#"join(",", getindices('d\'x'), "a\"b\\c\n")"#).unwrap();
        assert_eq!(c.name, "join");
        assert_eq!(c.args.len(), 3);
        assert_eq!(c.args[2], CallArg::Str("a\"b\\c\\n".into()));
        match &c.args[1] {
            CallArg::Call(inner) => assert_eq!(inner.args, vec![CallArg::Str("d'x".into())]),
            other => unreachable!("{other:?}"),
        }
        assert!(parse_call("f(").is_err());
        assert!(parse_call("f() x").is_err());
    }
}
