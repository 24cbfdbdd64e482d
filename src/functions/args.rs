//! Argument helpers shared by the families: range/option checks, the collecting-function convention
//! (variable name, `@(x)`, inline JSON, or a nested call's list/data), boolean options, regex compilation
//! with the agent's PCRE semantics.

use serde_json::Value as Json;

use super::{CallCtx, FnArg, FnFail};
use crate::expr::expand::lookup;
use crate::expr::varref::VarRef;
use crate::value::{json_leaf_string, parse_int, parse_real, Value};

/// `None` when `text` is an int inside `range` (`"lo,hi"`), else the agent's complaint.
pub fn check_int_range(text: &str, range: &str) -> Option<&'static str> {
    let Some(v) = parse_int(text) else {
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

/// Resolves a collecting argument to its value, or `None` (variable missing, JSON invalid).
pub fn collect(ctx: &CallCtx<'_>, a: &FnArg) -> Option<Value> {
    if let Some(name) = &a.naked {
        return lookup(&*ctx.env, &VarRef::parse(name));
    }
    match &a.value {
        Value::List(..) | Value::Data(_) => Some(a.value.clone()),
        Value::Scalar(_, s) => {
            if let Some(v) = lookup(&*ctx.env, &VarRef::parse(s)) {
                return Some(v);
            }
            let t = s.trim_start();
            if t.starts_with('[') || t.starts_with('{') || t.starts_with('"') {
                return serde_json::from_str::<Json>(s).ok().map(Value::Data);
            }
            None
        }
    }
}

/// Like [`collect`], but logs the agent's verbose note and fails when missing.
pub fn collect_or_fail(ctx: &mut CallCtx<'_>, fname: &str, a: &FnArg) -> Result<Value, FnFail> {
    match collect(ctx, a) {
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

/// Compiles a regex as the agent does (PCRE, DOTALL, MULTILINE); logs the agent's error on failure.
pub fn regex(ctx: &mut CallCtx<'_>, re: &str) -> Result<regex::Regex, FnFail> {
    compile(re).map_err(|msg| {
        ctx.fail(format!(
            "Regular expression error: pcre_compile() '{msg}' in expression '{re}' (offset: {})",
            pcre_offset(re)
        ))
    })
}

/// Compiles with the agent's flags; the error is a PCRE-style message.
pub fn compile(re: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(&format!("(?ms){re}")).map_err(|e| pcre_message(re, &e.to_string()))
}

fn pcre_message(re: &str, rust_msg: &str) -> String {
    let opens = re
        .matches('(')
        .count()
        .saturating_sub(re.matches("\\(").count());
    let closes = re
        .matches(')')
        .count()
        .saturating_sub(re.matches("\\)").count());
    if opens > closes {
        "missing )".into()
    } else if closes > opens {
        "unmatched parentheses".into()
    } else if rust_msg.contains("repetition operator missing expression") {
        "nothing to repeat".into()
    } else if rust_msg.contains("unclosed character class") {
        "missing terminating ] for character class".into()
    } else {
        rust_msg
            .lines()
            .last()
            .unwrap_or(rust_msg)
            .trim()
            .to_string()
    }
}

fn pcre_offset(re: &str) -> usize {
    re.len()
}

/// The agent's "full match": the first (leftmost) match must span the whole string.
pub fn full_match(re: &regex::Regex, s: &str) -> bool {
    re.find(s)
        .is_some_and(|m| m.start() == 0 && m.end() == s.len())
}
