//! Argument helpers shared by the families: range/option checks, the collecting-function convention
//! (variable name, `@(x)`, inline JSON, or a nested call's list/data), boolean options, regex compilation
//! with the agent's PCRE semantics.

use std::sync::Arc;

use serde_json::Value as Json;

use super::{CallCtx, FnArg, FnFail};
use crate::expr::expand::lookup_name;
use crate::expr::varref::VarRef;
use crate::pcre;
use crate::value::{json_leaf_string, parse_int, parse_real, Value};

/// `None` when `text` is an int inside `range` (`"lo,hi"`), else the agent's complaint.
pub fn check_int_range(text: &str, range: &str) -> Option<&'static str> {
    let Some(v) = parse_int(text) else {
        let digits = text.trim().trim_start_matches(['-', '+']);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Some("Integer is out of range");
        }
        return Some("Cannot parse value as integer");
    };
    let (lo, hi) = range.split_once(',')?;
    let (lo, hi) = (parse_int(lo)?, parse_int(hi)?);
    (v < lo || v > hi).then_some("Integer is out of range")
}

/// `None` when `text` is a real inside `range`.
pub fn check_real_range(text: &str, range: &str) -> Option<&'static str> {
    let Some(v) = parse_real(text) else {
        return Some("Cannot parse value as real number");
    };
    let (lo, hi) = range.split_once(',')?;
    let (lo, hi) = (parse_real(lo)?, parse_real(hi)?);
    (v < lo || v > hi).then_some("Real value is out of range")
}

/// `None` when `text` is one of the comma-separated `menu` entries.
pub fn check_option(text: &str, menu: &str) -> Option<&'static str> {
    (!menu.split(',').any(|m| m == text)).then_some("Selection is out of bounds")
}

/// A CFEngine boolean option (`true/yes/on` vs `false/no/off`).
pub fn bool_opt(text: &str) -> bool {
    matches!(text, "true" | "yes" | "on")
}

/// An int argument (already range-checked by the signature).
pub fn int_arg(a: &FnArg) -> i64 {
    parse_int(a.text()).unwrap_or(0)
}

/// Resolves a collecting argument to its value, or `None` (variable missing, JSON invalid). A variable
/// holding a plain string is that string (`getvalues`, `getindices`); see [`collect_container`] for
/// the functions that want a list or a container.
pub fn collect(ctx: &CallCtx<'_>, a: &FnArg) -> Option<Value> {
    collect_with(ctx, a, true)
}

/// [`collect`] for the functions that take a list or a data container (`length`, `join`, `nth`,
/// `mergedata`, `storejson`, `sum`, `every`, …): a variable holding a plain string (without classic
/// array entries) is `None`, and the function fails, as the agent's `VarRefValueToJson` answers without
/// scalars (recorded: functions/scalar_collections, named `"s"` and `@(s)` alike).
pub fn collect_container(ctx: &CallCtx<'_>, a: &FnArg) -> Option<Value> {
    collect_with(ctx, a, false)
}

fn collect_with(ctx: &CallCtx<'_>, a: &FnArg, scalars: bool) -> Option<Value> {
    // a scalar that also has array entries (`sys.ipv4` and `sys.ipv4[eth0]`) is read as the array
    let scalar = |v: Value, name: &str| match classic_array(ctx, name) {
        Some(arr) => Some(arr),
        None => scalars.then_some(v),
    };
    if let Some(name) = &a.naked {
        return match lookup_name(&*ctx.env, name) {
            Some(v @ Value::Scalar(..)) => scalar(v, name),
            Some(v) => Some(v),
            None => classic_array(ctx, name),
        };
    }
    match &a.value {
        Value::List(..) | Value::Data(_) => Some(a.value.clone()),
        Value::Scalar(_, s) => {
            if let Some(v) = lookup_name(&*ctx.env, s) {
                return match v {
                    Value::Scalar(..) => scalar(v, s),
                    v => Some(v),
                };
            }
            if let Some(v) = classic_array(ctx, s) {
                return Some(v);
            }
            let t = s.trim_start();
            if t.starts_with('[') || t.starts_with('{') {
                // bare words are variable names (recorded: functions/corners, `mergedata('[ d1 ]')`)
                let mut lookup = |name: &str| {
                    lookup_name(&*ctx.env, name)
                        .or_else(|| classic_array(ctx, name))
                        .map(|v| v.to_json())
                };
                return super::json::parse_with(s, &mut lookup)
                    .ok()
                    .map(Value::Data);
            }
            None
        }
    }
}

/// The name of the variable a collecting argument designates (not an inline JSON text, not a classic
/// array), for [`crate::expr::env::EvalEnv::sort_container`].
pub fn collected_name(ctx: &CallCtx<'_>, a: &FnArg) -> Option<String> {
    let name = match (&a.naked, &a.value) {
        (Some(n), _) => n.clone(),
        (None, Value::Scalar(_, s)) => s.clone(),
        _ => return None,
    };
    matches!(lookup_name(&*ctx.env, &name), Some(Value::Data(_))).then_some(name)
}

/// A classic array `name[k]…` of the referenced bundle as a JSON object (first index → value; deeper
/// indices nest), or `None` when there is no such element. Built like the agent's `VarRefValueToJson`:
/// the variables named `name` are walked in the variable table's order; string and list values are
/// (re)appended under their last index, containers are skipped, and an entry without further indices
/// (the variable `name` itself) is stored under the key the previous entry left behind.
pub fn classic_array(ctx: &CallCtx<'_>, name: &str) -> Option<Value> {
    let r = VarRef::parse(name);
    let (ns, scope) = r.resolve_scope(&*ctx.env);
    if !ctx.env.has_array(&ns, &scope, &r.name) {
        return None;
    }
    let base = r.name.clone();
    let depth = r.indices.len();
    let mut obj = serde_json::Map::new();
    let mut last_key: Option<String> = None;
    ctx.env
        .visit_array(&ns, &scope, &base, &mut |vns, vscope, lval, value, _| {
            if vns != ns || vscope != scope {
                return;
            }
            let Some(rest) = lval.strip_prefix(base.as_str()) else {
                return;
            };
            if !rest.is_empty() && !rest.starts_with('[') {
                return;
            }
            let keys = crate::expr::varref::split_indices(rest);
            if keys.len() < depth || keys.get(..depth) != Some(&r.indices[..]) {
                return;
            }
            let keys = keys.get(depth..).unwrap_or(&[]);
            let json = match value {
                Value::Scalar(_, s) => Json::String(s.clone()),
                Value::List(_, items) => Json::Array(
                    items
                        .iter()
                        .filter(|i| *i != "cf_null")
                        .map(|i| Json::String(i.clone()))
                        .collect(),
                ),
                Value::Data(_) => return,
            };
            match keys {
                [] => {
                    if let Some(k) = &last_key {
                        obj.shift_remove(k);
                        obj.insert(k.clone(), json);
                    }
                }
                [k] => {
                    last_key = Some(k.clone());
                    obj.shift_remove(k);
                    obj.insert(k.clone(), json);
                }
                [path @ .., k] => {
                    last_key = Some(k.clone());
                    insert_nested(&mut obj, path, k, json);
                }
            }
        });
    (!obj.is_empty()).then_some(Value::Data(Json::Object(obj)))
}

/// Walks (creating) the objects of `path` and (re)appends `key` there.
fn insert_nested(obj: &mut serde_json::Map<String, Json>, path: &[String], key: &str, value: Json) {
    match path {
        [] => {
            obj.shift_remove(key);
            obj.insert(key.to_string(), value);
        }
        [p, rest @ ..] => {
            let entry = obj
                .entry(p.clone())
                .or_insert_with(|| Json::Object(serde_json::Map::new()));
            if let Json::Object(inner) = entry {
                insert_nested(inner, rest, key, value);
            }
        }
    }
}

/// Like [`collect_container`], but logs the agent's verbose note and fails when missing.
pub fn collect_or_fail(ctx: &mut CallCtx<'_>, fname: &str, a: &FnArg) -> Result<Value, FnFail> {
    match collect_container(ctx, a) {
        Some(v) => Ok(v),
        None => {
            ctx.verbose(format!(
                "{fname}: argument '{}' is not a variable reference or valid JSON",
                a.naked.as_deref().unwrap_or(a.text())
            ));
            Err(FnFail)
        }
    }
}

/// The elements of a collected value as strings (data: scalar values of an array/object, in order).
pub fn elements(v: &Value) -> Vec<String> {
    match v {
        Value::Scalar(_, s) => vec![s.clone()],
        Value::List(_, items) => items.clone(),
        Value::Data(Json::Array(a)) => a.iter().filter_map(json_leaf_string).collect(),
        Value::Data(Json::Object(o)) => o.values().filter_map(json_leaf_string).collect(),
        Value::Data(other) => json_leaf_string(other).into_iter().collect(),
    }
}

/// A collected value as JSON (lists become arrays of strings).
pub fn as_json(v: &Value) -> Json {
    v.to_json()
}

/// A compiled regex with the agent's semantics (`crate::pcre`: PCRE without UTF mode, so `\\w`, `.` and
/// `(?i)` are byte based; DOTALL and MULTILINE). Shared (`Arc`): a compiled regex is cached per text.
/// Full matches of [`Simple`] patterns are decided without the engine.
#[derive(Debug, Clone)]
pub struct Re(Arc<FullMatcher>);

/// A compiled pattern and, for a plain one, its byte-by-byte matcher.
#[derive(Debug)]
pub struct FullMatcher {
    body: String,
    plain: Arc<pcre::Regex>,
    /// The pattern when it is made only of ASCII letters, digits, `_ - : = , /`, blanks and `.` (any
    /// byte), optionally ending in `.*`: matched byte by byte without the regex engine.
    simple: Option<Simple>,
}

/// A pattern of plain bytes and `.` wildcards, with an optional `.*` tail.
#[derive(Debug)]
struct Simple {
    body: Vec<u8>,
    any_tail: bool,
}

impl Simple {
    fn parse(re: &str) -> Option<Simple> {
        let (body, any_tail) = match re.strip_suffix(".*") {
            Some(b) => (b, true),
            None => (re, false),
        };
        let ok = !re.is_empty()
            && body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-:=,/ .".contains(&b));
        ok.then(|| Simple {
            body: body.as_bytes().to_vec(),
            any_tail,
        })
    }

    /// [`Simple::full_match`] of the concatenation of `parts`.
    fn full_match_parts(&self, parts: &[&str]) -> bool {
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let n = self.body.len();
        let len_ok = if self.any_tail {
            total >= n
        } else {
            total == n
        };
        if !len_ok {
            return false;
        }
        let mut at = 0;
        for p in parts {
            let pattern = self.body.get(at..).unwrap_or(&[]);
            if !pattern
                .iter()
                .zip(p.as_bytes())
                .all(|(want, c)| *want == b'.' || want == c)
            {
                return false;
            }
            at += p.len();
            if at >= n {
                // the rest is the `.*` tail's (or nothing: the lengths are equal otherwise)
                return true;
            }
        }
        true
    }

    fn full_match(&self, s: &[u8]) -> bool {
        let n = self.body.len();
        let len_ok = if self.any_tail {
            s.len() >= n
        } else {
            s.len() == n
        };
        len_ok && self.body.iter().zip(s).all(|(p, c)| *p == b'.' || p == c)
    }
}

impl Re {
    /// The regex that searches (DOTALL, MULTILINE, bytes).
    pub fn plain(&self) -> &pcre::Regex {
        &self.0.plain
    }

    /// [`Re::full_match`] of the concatenation of `parts`, built in `buf` only when the pattern needs
    /// the regex engine.
    pub fn full_match_parts(&self, parts: &[&str], buf: &mut String) -> bool {
        let f = &self.0;
        if f.body == ".*" {
            return true;
        }
        if let Some(simple) = &f.simple {
            return simple.full_match_parts(parts);
        }
        buf.clear();
        for p in parts {
            buf.push_str(p);
        }
        f.plain.is_full_match(buf)
    }

    /// The agent's "full match": the first (leftmost) match must span the whole string.
    pub fn full_match(&self, s: &str) -> bool {
        let f = &self.0;
        if f.body == ".*" {
            return true;
        }
        if let Some(simple) = &f.simple {
            return simple.full_match(s.as_bytes());
        }
        f.plain.is_full_match(s)
    }
}

/// Compiles a regex as the agent does; logs the agent's error on failure.
pub fn regex(ctx: &mut CallCtx<'_>, re: &str) -> Result<Re, FnFail> {
    compile(re).map_err(|(msg, off)| {
        ctx.fail(format!(
            "Regular expression error: pcre_compile() '{msg}' in expression '{re}' (offset: {off})"
        ))
    })
}

/// Compiles `re`, logging the agent's error (once) when it does not compile: for the functions that go
/// on without it (they match nothing) instead of failing.
pub fn regex_or_log(ctx: &mut CallCtx<'_>, re: &str) -> Option<Re> {
    regex(ctx, re).ok()
}

/// Compiles with the agent's flags; the error is a PCRE message and offset. Compiled regexes (errors
/// too) are memoised per thread by `crate::pcre`.
pub fn compile(re: &str) -> Result<Re, (String, usize)> {
    let plain = pcre::compile(re).map_err(|e| (e.message, e.offset))?;
    Ok(Re(Arc::new(FullMatcher {
        body: re.to_string(),
        plain,
        simple: Simple::parse(re),
    })))
}

/// The agent's "full match" (see [`Re::full_match`]).
pub fn full_match(re: &Re, s: &str) -> bool {
    re.full_match(s)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn matching_parts_is_matching_their_concatenation() {
        let patterns = [
            "default:def.control_server_.*",
            "default:def.x",
            ".*",
            "def.*",
            "default:d.f.a",
            "(default|ns):def\\..*",
            "default:def\\.a[0-9]+",
        ];
        let names = [
            ("default", "def", "control_server_allowconnects"),
            ("default", "def", "x"),
            ("default", "deg", "x"),
            ("ns", "def", "a12"),
            ("default", "def", "a12"),
            ("default", "d", "f.a"),
            ("default", "def", ""),
            ("", "", ""),
        ];
        let mut buf = String::new();
        for p in patterns {
            let re = compile(p).unwrap();
            for (ns, scope, lval) in names {
                let whole = format!("{ns}:{scope}.{lval}");
                assert_eq!(
                    re.full_match_parts(&[ns, ":", scope, ".", lval], &mut buf),
                    re.full_match(&whole),
                    "{p} on {whole}"
                );
            }
        }
    }

    #[test]
    fn simple_patterns_match_like_the_regex() {
        for (re, s, want) in [
            (
                "default:def.control_.*",
                "default:def.control_server_x",
                true,
            ),
            ("default:def.control_.*", "default:defXcontrol_", true),
            ("default:def.control_.*", "default:def.contro", false),
            ("inventory", "inventory", true),
            ("inventory", "inventory2", false),
            ("a.c", "abc", true),
            ("a.c", "a\nc", true),
            ("event_.*", "event_", true),
            ("x.*", "x\ny", true),
        ] {
            let r = compile(re).unwrap();
            assert_eq!(r.full_match(s), want, "{re} on {s}");
            let plain = crate::pcre::compile(re).unwrap();
            assert_eq!(plain.is_full_match(s), want, "pcre {re} on {s}");
        }
    }
}
