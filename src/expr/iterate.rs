//! Implicit iteration: which lists/containers referenced by a promise's strings iterate, and the
//! cartesian bindings in the agent's order (first mentioned = outermost; the same variable bound once;
//! references nested in indices are bound before the reference that contains them).

use super::env::VarLookup;
use super::expand::{expand_bound, names_scalar, reference_end, resolve, Binding, Resolved};

/// Upper bound on the number of iterations one promise may produce.
pub const MAX_ITERATIONS: usize = 1_000_000;

/// Adds the reference texts (between the delimiters, unexpanded) of `s` to `out`, inner references
/// before outer ones.
fn collect<'s>(s: &'s str, out: &mut Vec<&'s str>, depth: usize) {
    if depth > super::expand::MAX_EXPANSION_DEPTH {
        return;
    }
    let mut i = 0;
    while let Some(start) = super::find_byte(s, i, b'$') {
        match reference_end(s, start) {
            Some(end) => {
                let inner = &s[start + 2..end - 1];
                collect(inner, out, depth + 1);
                out.push(inner);
                i = end;
            }
            None => i = start + 1,
        }
    }
}

/// Error when a promise would iterate more than [`MAX_ITERATIONS`] times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManyIterations;

/// All bindings for a promise whose references ([`references_of`] its strings) are `refs`. No iterable reference gives one empty binding; an empty list gives none. More than
/// `limit` bindings (or [`MAX_ITERATIONS`]) is an error as soon as the next one would be made, so
/// memory stays within the limit however large the cartesian product.
pub fn bindings(
    refs: &[String],
    env: &dyn VarLookup,
    limit: usize,
) -> Result<Vec<Binding>, TooManyIterations> {
    let mut out = Vec::new();
    walk(
        refs,
        0,
        &mut Binding::default(),
        env,
        &mut out,
        limit.min(MAX_ITERATIONS),
    )?;
    Ok(out)
}

/// The references of a promise whose strings (promiser, promisee, constraint values, in that order)
/// are `strings`, in binding order: first mention first, inner references before the reference that
/// holds them, each once.
pub fn references_of(strings: &[&str]) -> Vec<String> {
    let mut all: Vec<&str> = Vec::new();
    for s in strings {
        collect(s, &mut all, 0);
    }
    let mut refs: Vec<String> = Vec::with_capacity(all.len());
    for r in all {
        if !refs.iter().any(|x| x == r) {
            refs.push(r.to_string());
        }
    }
    refs
}

fn walk(
    refs: &[String],
    i: usize,
    cur: &mut Binding,
    env: &dyn VarLookup,
    out: &mut Vec<Binding>,
    limit: usize,
) -> Result<(), TooManyIterations> {
    let Some(r) = refs.get(i) else {
        if out.len() >= limit {
            return Err(TooManyIterations);
        }
        out.push(cur.clone());
        return Ok(());
    };
    // a name without a reference in it is itself (expanding it would only copy it)
    let expanded;
    let name: &str = if r.contains('$') {
        expanded = expand_bound(r, env, cur);
        if expanded.unresolved {
            return walk(refs, i + 1, cur, env, out, limit);
        }
        &expanded.text
    } else {
        r
    };
    if cur.contains_key(name) || names_scalar(env, name) {
        return walk(refs, i + 1, cur, env, out, limit);
    }
    match resolve(env, name) {
        Resolved::Iterable(values) => {
            for v in values {
                cur.insert(name.to_string(), v);
                walk(refs, i + 1, cur, env, out, limit)?;
                cur.shift_remove(name);
            }
            Ok(())
        }
        _ => walk(refs, i + 1, cur, env, out, limit),
    }
}
