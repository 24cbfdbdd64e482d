//! Implicit iteration: which lists/containers referenced by a promise's strings iterate, and the
//! cartesian bindings in the agent's order (first mentioned = outermost; the same variable bound once;
//! references nested in indices are bound before the reference that contains them).

use indexmap::IndexMap;

use super::env::VarLookup;
use super::expand::{expand_scalar, reference_end, resolve, Resolved};
use super::varref::VarRef;
use crate::value::Value;

/// Upper bound on the number of iterations one promise may produce.
pub const MAX_ITERATIONS: usize = 1_000_000;

/// Key of a bound variable: (namespace, scope, lval).
pub type VarKey = (String, String, String);

/// One iteration: bound variables and their scalar value for this pass through the loop.
pub type Binding = IndexMap<VarKey, String>;

/// A `VarLookup` that sees the bound scalar values first.
pub struct Bound<'a> {
    pub inner: &'a dyn VarLookup,
    pub binding: &'a Binding,
}

impl VarLookup for Bound<'_> {
    fn current_ns(&self) -> &str {
        self.inner.current_ns()
    }
    fn current_bundle(&self) -> &str {
        self.inner.current_bundle()
    }
    fn get_var(&self, ns: &str, scope: &str, lval: &str) -> Option<Value> {
        let key = (ns.to_string(), scope.to_string(), lval.to_string());
        match self.binding.get(&key) {
            Some(v) => Some(Value::str(v.clone())),
            None => self.inner.get_var(ns, scope, lval),
        }
    }
}

/// Reference texts (between the delimiters, unexpanded) of `s`, inner references before outer ones.
pub fn references(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    collect(s, &mut out, 0);
    out
}

fn collect(s: &str, out: &mut Vec<String>, depth: usize) {
    if depth > super::expand::MAX_EXPANSION_DEPTH {
        return;
    }
    let mut i = 0;
    while let Some(off) = s[i..].find('$') {
        let start = i + off;
        match reference_end(s, start) {
            Some(end) => {
                let inner = &s[start + 2..end - 1];
                collect(inner, out, depth + 1);
                out.push(inner.to_string());
                i = end;
            }
            None => i = start + 1,
        }
    }
}

/// Error when a promise would iterate more than [`MAX_ITERATIONS`] times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManyIterations;

/// All bindings for a promise whose strings (promiser, promisee, constraint values, in that order) are
/// `strings`. No iterable reference gives one empty binding; an empty list gives none.
pub fn bindings(strings: &[&str], env: &dyn VarLookup) -> Result<Vec<Binding>, TooManyIterations> {
    let mut refs: Vec<String> = Vec::new();
    for s in strings {
        for r in references(s) {
            if !refs.contains(&r) {
                refs.push(r);
            }
        }
    }
    let mut out = Vec::new();
    walk(&refs, 0, &mut Binding::new(), env, &mut out)?;
    Ok(out)
}

fn walk(
    refs: &[String],
    i: usize,
    cur: &mut Binding,
    env: &dyn VarLookup,
    out: &mut Vec<Binding>,
) -> Result<(), TooManyIterations> {
    let Some(r) = refs.get(i) else {
        if out.len() >= MAX_ITERATIONS {
            return Err(TooManyIterations);
        }
        out.push(cur.clone());
        return Ok(());
    };
    let bound = Bound {
        inner: env,
        binding: cur,
    };
    let name = expand_scalar(r, &bound);
    if name.unresolved {
        return walk(refs, i + 1, cur, env, out);
    }
    let vr = VarRef::parse(&name.text);
    let (ns, scope) = vr.resolve_scope(&bound);
    let key = (ns, scope, vr.lval());
    if cur.contains_key(&key) {
        return walk(refs, i + 1, cur, env, out);
    }
    match resolve(&bound, &name.text) {
        Resolved::Iterable(values) => {
            for v in values.into_iter().filter(|v| v != "cf_null") {
                cur.insert(key.clone(), v);
                walk(refs, i + 1, cur, env, out)?;
                cur.shift_remove(&key);
            }
            Ok(())
        }
        _ => walk(refs, i + 1, cur, env, out),
    }
}
