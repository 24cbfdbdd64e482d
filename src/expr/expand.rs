//! Scalar expansion of `$(…)`/`${…}` references, inside-out, keeping unresolved references literally
//! where the agent keeps them. Lists and containers do not expand here (iteration binds them first).

use indexmap::IndexMap;
use serde_json::Value as Json;
use std::borrow::Cow;

use super::env::VarLookup;
use super::varref::{VarRef, SPECIAL_SCOPES};
use crate::value::{json_leaf_string, Value};

/// Maximum nesting of references inside references; deeper text is kept literally.
pub const MAX_EXPANSION_DEPTH: usize = 32;

/// Iteration values bound for one pass through a promise, keyed by the reference text between the
/// delimiters (after inner expansion): `$(a)` and `${a}` share a binding, `$(main.a)` has its own.
pub type Binding = IndexMap<String, String, crate::fasthash::FastState>;

/// The result of expanding one string.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expanded {
    pub text: String,
    /// Some reference could not be resolved to a scalar and was kept literally.
    pub unresolved: bool,
    /// The agent drops the whole promise: an unresolved reference that contained a nested reference
    /// (`$(nosuch[$(k)])`, `$($(x))`), or a container leaf that is `null`.
    pub dropped: bool,
    /// Errors the agent logs while expanding (unterminated references).
    pub errors: Vec<String>,
}

/// What one reference name denotes.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    Scalar(String),
    /// A list, or a container array/object (its scalar values).
    Iterable(Vec<String>),
    /// A container leaf that is `null`.
    Null,
    Missing,
}

/// Looks up a reference, walking into a data container for indices that are not classic-array keys.
pub fn lookup(env: &dyn VarLookup, r: &VarRef) -> Option<Value> {
    lookup_ref(env, r).map(Cow::into_owned)
}

/// [`lookup`], borrowing a value found under its whole name where the environment keeps it.
pub fn lookup_ref<'e>(env: &'e dyn VarLookup, r: &VarRef) -> Option<Cow<'e, Value>> {
    let (ns, scope) = r.resolve_scope(env);
    lookup_parts(env, &ns, &scope, &r.name, &r.indices)
}

/// [`lookup_ref`] of the parts of a reference: the classic-array entry `name[i1][i2]…`, else the
/// container holding the value, the longest prefix of the indices that names a variable, walked
/// into with the rest.
fn lookup_parts<'e, K: AsRef<str>>(
    env: &'e dyn VarLookup,
    ns: &str,
    scope: &str,
    name: &str,
    indices: &[K],
) -> Option<Cow<'e, Value>> {
    let mut lval = super::varref::indexed_lval(name, indices);
    if let Some(v) = env.var_ref(ns, scope, &lval) {
        return Some(v);
    }
    for k in (0..indices.len()).rev() {
        lval.truncate(lval.len() - indices[k].as_ref().len() - 2);
        if let Some(v) = env.var_ref(ns, scope, &lval) {
            if let Value::Data(d) = v.as_ref() {
                return walk(d, &indices[k..]).map(|j| Cow::Owned(Value::Data(j)));
            }
        }
    }
    None
}

fn walk<K: AsRef<str>>(d: &Json, path: &[K]) -> Option<Json> {
    let mut cur = d;
    for key in path {
        let key = key.as_ref();
        cur = match cur {
            Json::Object(o) => o.get(key)?,
            Json::Array(a) => a.get(key.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur.clone())
}

/// `lookup_ref(env, &VarRef::parse(text))` for a reference with indices, without allocating its
/// parts: the name split as [`split_name`] splits it, the indices borrowed from `text`.
fn lookup_indexed<'e>(env: &'e dyn VarLookup, text: &str) -> Option<Cow<'e, Value>> {
    let bracket = super::find_byte(text, 0, b'[').unwrap_or(text.len());
    let (head, tail) = text.split_at(bracket);
    let (ns, scope, name) = split_name(env, head);
    lookup_parts(env, ns, scope, name, &super::varref::index_texts(tail))
}

/// `lookup(env, &VarRef::parse(text))`, without allocating the parts of `text`.
pub fn lookup_name(env: &dyn VarLookup, text: &str) -> Option<Value> {
    if text.contains('[') {
        return lookup_indexed(env, text).map(Cow::into_owned);
    }
    let (ns, scope, name) = split_name(env, text);
    env.get_var(ns, scope, name)
}

/// (namespace, scope, name) of a reference name without indices: the same split as `VarRef::parse` and
/// `VarRef::resolve_scope`, without allocating.
pub(crate) fn split_name<'a>(env: &'a dyn VarLookup, text: &'a str) -> (&'a str, &'a str, &'a str) {
    let (ns, rest) = match super::find_byte(text, 0, b':') {
        Some(i) => (Some(&text[..i]), &text[i + 1..]),
        None => (None, text),
    };
    let (scope, name) = match super::find_byte(rest, 0, b'.') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (env.current_bundle(), rest),
    };
    let ns = match ns {
        Some(ns) => ns,
        None if SPECIAL_SCOPES.contains(&scope) => "default",
        None => env.current_ns(),
    };
    (ns, scope, name)
}

/// Whether `text` (a reference name without indices) names a scalar variable: checked without
/// copying the value (iteration only needs to know that it does not iterate).
pub fn names_scalar(env: &dyn VarLookup, text: &str) -> bool {
    if text.contains('[') {
        return false;
    }
    let (ns, scope, name) = split_name(env, text);
    env.is_scalar_var(ns, scope, name)
}

/// Resolves a reference name (the text between the delimiters, already expanded).
pub fn resolve(env: &dyn VarLookup, name: &str) -> Resolved {
    if name.contains('[') {
        return match lookup_indexed(env, name) {
            Some(v) => resolved(&v),
            None => Resolved::Missing,
        };
    }
    let (ns, scope, lval) = split_name(env, name);
    match env.var_ref(ns, scope, lval) {
        Some(v) => resolved(&v),
        None => Resolved::Missing,
    }
}

fn resolved(v: &Value) -> Resolved {
    match v {
        Value::Scalar(_, s) => Resolved::Scalar(s.clone()),
        Value::List(_, items) => Resolved::Iterable(items.clone()),
        Value::Data(d) => match d {
            Json::Array(_) | Json::Object(_) => {
                Resolved::Iterable(crate::value::json_scalar_values(d))
            }
            Json::Null => Resolved::Null,
            other => json_leaf_string(other).map_or(Resolved::Missing, Resolved::Scalar),
        },
    }
}

/// What a reference expands to, as [`resolve`] would say it, without copying a scalar's text.
enum Found<'a> {
    /// A scalar (or a JSON primitive): its text.
    Text(Cow<'a, str>),
    /// A JSON null.
    Null,
    /// Missing, or a list or container.
    Other,
}

/// [`resolve`] for the scalar expansion: the text borrowed from where the environment keeps it.
fn find_scalar<'e>(env: &'e dyn VarLookup, name: &str) -> Found<'e> {
    let value = if name.contains('[') {
        lookup_indexed(env, name)
    } else {
        let (ns, scope, lval) = split_name(env, name);
        if let Some(t) = env.text_ref(ns, scope, lval) {
            return Found::Text(Cow::Borrowed(t));
        }
        env.var_ref(ns, scope, lval)
    };
    match value {
        None => Found::Other,
        Some(Cow::Borrowed(Value::Scalar(_, s))) => Found::Text(Cow::Borrowed(s)),
        Some(Cow::Owned(Value::Scalar(_, s))) => Found::Text(Cow::Owned(s)),
        Some(v) => match resolved(&v) {
            Resolved::Scalar(s) => Found::Text(Cow::Owned(s)),
            Resolved::Null => Found::Null,
            Resolved::Missing | Resolved::Iterable(_) => Found::Other,
        },
    }
}

/// Finds the reference starting at byte `i` (`$(` or `${`): returns the end of the closing delimiter.
pub fn reference_end(s: &str, i: usize) -> Option<usize> {
    let b = s.as_bytes();
    if b.get(i) != Some(&b'$') {
        return None;
    }
    let (open, close) = match b.get(i + 1) {
        Some(b'(') => (b'(', b')'),
        Some(b'{') => (b'{', b'}'),
        _ => return None,
    };
    let mut depth = 0usize;
    for (j, &c) in b.iter().enumerate().skip(i + 1) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(j + 1);
            }
        }
    }
    None
}

/// Expands every scalar reference of `s`.
pub fn expand_scalar(s: &str, env: &dyn VarLookup) -> Expanded {
    expand_depth(s, env, None, 0)
}

/// Expands with iteration values bound (see [`Binding`]).
pub fn expand_bound(s: &str, env: &dyn VarLookup, binding: &Binding) -> Expanded {
    expand_depth(s, env, Some(binding), 0)
}

fn expand_depth(s: &str, env: &dyn VarLookup, binding: Option<&Binding>, depth: usize) -> Expanded {
    let mut out = Expanded {
        text: String::with_capacity(s.len()),
        ..Expanded::default()
    };
    let mut i = 0;
    let mut lit_start = 0;
    while let Some(start) = super::find_byte(s, i, b'$') {
        let opens = matches!(s.as_bytes().get(start + 1), Some(b'(' | b'{'));
        let Some(end) = reference_end(s, start).filter(|_| depth < MAX_EXPANSION_DEPTH) else {
            if opens && depth < MAX_EXPANSION_DEPTH {
                let rest = &s[start + 2..];
                let close = if s.as_bytes().get(start + 1) == Some(&b'(') {
                    ')'
                } else {
                    '}'
                };
                out.errors
                    .push(format!("No closing '{close}' found for variable: {rest}"));
                out.errors.push(format!(
                    "Variable reference close mismatch '{}'",
                    &s[start..]
                ));
                out.text.push_str(&s[lit_start..start]);
                out.text.push_str(&s[start..start + 2]);
                out.text.push(close);
                out.unresolved = true;
                return out;
            }
            i = start + 1;
            continue;
        };
        out.text.push_str(&s[lit_start..start]);
        let raw_inner = &s[start + 2..end - 1];
        // a reference without a nested one expands to itself: no need to copy it
        let nested;
        let (inner_text, inner_unresolved) = if raw_inner.contains('$') {
            nested = expand_depth(raw_inner, env, binding, depth + 1);
            out.errors.extend(nested.errors.iter().cloned());
            out.dropped |= nested.dropped;
            (nested.text.as_str(), nested.unresolved)
        } else {
            (raw_inner, false)
        };
        let found = match binding.and_then(|b| b.get(inner_text)) {
            Some(v) => Found::Text(Cow::Borrowed(v.as_str())),
            None => find_scalar(env, inner_text),
        };
        match found {
            Found::Text(v) if !inner_unresolved => out.text.push_str(&v),
            other => {
                out.unresolved = true;
                if matches!(other, Found::Null)
                    || raw_inner.contains("$(")
                    || raw_inner.contains("${")
                {
                    out.dropped = true;
                }
                out.text.push_str(&s[start..start + 2]);
                out.text.push_str(inner_text);
                out.text.push_str(&s[end - 1..end]);
            }
        }
        i = end;
        lit_start = end;
    }
    out.text.push_str(&s[lit_start..]);
    out
}

/// Whether a string still contains a `$(`/`${` reference (the agent's "looks unresolved" test).
pub fn has_reference(s: &str) -> bool {
    s.as_bytes()
        .windows(2)
        .any(|w| w[0] == b'$' && (w[1] == b'(' || w[1] == b'{'))
}

/// `@(name)` as a whole string: the name of a list spliced into a list or argument.
pub fn naked_list_name(s: &str) -> Option<&str> {
    let inner = s
        .strip_prefix("@(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| s.strip_prefix("@{").and_then(|r| r.strip_suffix('}')))?;
    (!inner.is_empty()).then_some(inner)
}

/// Splices `@(list)` elements into a list: each element that is exactly `@(x)` (or `$(x)` naming a
/// list) with `x` a list (or container) is replaced by its elements; other elements are expanded as
/// scalars; an unresolved `@(x)` stays literally.
pub fn expand_list(items: &[String], env: &dyn VarLookup) -> Vec<String> {
    let mut out = Vec::new();
    for it in items {
        let dollar = it
            .strip_prefix("$(")
            .and_then(|r| r.strip_suffix(')'))
            .filter(|_| reference_end(it, 0) == Some(it.len()));
        if let Some(name) = dollar {
            let name = expand_scalar(name, env).text;
            if let Resolved::Iterable(v) = resolve(env, &name) {
                out.extend(v);
                continue;
            }
        }
        if let Some(name) = naked_list_name(it) {
            let name = expand_scalar(name, env).text;
            match resolve(env, &name) {
                Resolved::Iterable(v) => {
                    out.extend(v);
                    continue;
                }
                Resolved::Scalar(s) => {
                    out.push(s);
                    continue;
                }
                Resolved::Missing | Resolved::Null => {}
            }
        }
        out.push(expand_scalar(it, env).text);
    }
    out
}
