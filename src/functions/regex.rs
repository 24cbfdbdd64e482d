//! Regex functions: regcmp, regex_replace, regextract, data_regextract, string_split, splitstring,
//! regarray. Matching uses the agent's semantics (`args::Re`: bytes, DOTALL, MULTILINE, full match =
//! the first match spans the string).

use serde_json::{Map, Value as Json};

use super::args::{classic_array, compile, elements, full_match, int_arg, regex};
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("regcmp", true, regcmp),
    def("regex_replace", true, regex_replace),
    def("regextract", true, regextract),
    def("data_regextract", true, data_regextract),
    def("string_split", true, string_split),
    def("splitstring", true, splitstring),
    def("regarray", true, regarray),
];

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A regex that does not compile is logged and simply does not match: the call succeeds (recorded:
/// its error is printed once per evaluation, never again by the actuator).
fn regcmp(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    match regex(ctx, a[0].text()) {
        Ok(re) => Ok(Value::context(full_match(&re, a[1].text()))),
        Err(FnFail) => Ok(Value::context(false)),
    }
}

/// Expands `$N` and `\N` back-references of a replacement.
fn expand_replacement(rep: &str, caps: &crate::pcre::ByteCaptures<'_>) -> Vec<u8> {
    let b = rep.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // `\0` is a NUL byte in pcrs replacements, not group 0 (recorded: the result ends there)
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'0') {
            out.push(0);
            i += 2;
            continue;
        }
        if (b[i] == b'$' || b[i] == b'\\') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            let mut j = i + 1;
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
            let n: usize = rep[i + 1..j].parse().unwrap_or(0);
            if let Some(m) = caps.get(n) {
                out.extend_from_slice(m.as_bytes());
            }
            i = j;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn regex_replace(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (s, pat, rep, opts) = (a[0].text(), a[1].text(), a[2].text(), a[3].text());
    let mut flags = String::new();
    for c in opts.chars() {
        if matches!(c, 'i' | 'm' | 's' | 'x' | 'U') {
            flags.push(c);
        }
    }
    let full = if flags.is_empty() {
        pat.to_string()
    } else {
        format!("(?{flags}){pat}")
    };
    let re = match compile(&full) {
        Ok(r) => r,
        Err(_) => {
            return Err(ctx.fail(format!(
                "regex_replace: couldn't use regex '{pat}', replacement '{rep}', and options '{opts}': error=(pcre_wrap:) Everything's just fine. Thanks for asking."
            )))
        }
    };
    let global = opts.contains('g');
    let hay = s.as_bytes();
    // the agent's pcre_wrap (Privoxy's pcrs): record every match first; after a match the search goes on
    // from its end, or one byte on when the match is empty *at the search offset* (so an empty match
    // right after a non-empty one is found twice: `\b` on "foo bar" gives "|foo|| |bar||", recorded)
    let mut matches = Vec::new();
    let mut offset = 0;
    while let Some(caps) = re.plain().captures_at(hay, offset) {
        let Some(m) = caps.get(0) else { break };
        let end = m.end();
        matches.push(caps);
        if !global {
            break;
        }
        if end == offset {
            if offset < hay.len() {
                offset += 1;
            } else {
                break;
            }
        } else {
            offset = end;
        }
    }
    let mut out = Vec::new();
    let mut last = 0;
    for caps in &matches {
        let Some(m) = caps.get(0) else { continue };
        out.extend_from_slice(hay.get(last..m.start()).unwrap_or_default());
        out.extend(expand_replacement(rep, caps));
        if out.len() > super::MAX_RESULT_BYTES {
            return Err(ctx.fail(format!(
                "cfsim: regex_replace would build a string of more than {} bytes",
                super::MAX_RESULT_BYTES
            )));
        }
        last = m.end();
    }
    out.extend_from_slice(hay.get(last..).unwrap_or_default());
    // the result is a C string: a NUL from a `\0` in the replacement ends it (recorded)
    if let Some(nul) = out.iter().position(|&b| b == 0) {
        out.truncate(nul);
    }
    Ok(Value::str(lossy(&out)))
}

fn regextract(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    // a regex that does not compile silently does not match (recorded)
    let Ok(re) = compile(a[0].text()) else {
        return Ok(Value::context(false));
    };
    let s = a[1].text();
    let Some(caps) = re.plain().captures_bytes(s.as_bytes()) else {
        return Ok(Value::context(false));
    };
    let arr = crate::expr::VarRef::parse(a[2].text());
    let (ns, scope) = arr.resolve_scope(&*ctx.env);
    for (key, val) in agent_groups(re.plain(), &caps) {
        let lval = format!("{}[{key}]", arr.lval());
        ctx.env
            .define_function_var(&ns, &scope, &lval, Value::str(val), "regextract");
    }
    Ok(Value::context(true))
}

fn data_regextract(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    // a regex that does not compile fails the call without a message (recorded)
    let Ok(re) = compile(a[0].text()) else {
        return Err(FnFail);
    };
    let s = a[1].text();
    let Some(caps) = re.plain().captures_bytes(s.as_bytes()) else {
        return Err(FnFail);
    };
    let mut m = Map::new();
    for (key, val) in agent_groups(re.plain(), &caps) {
        m.insert(key, Json::String(val));
    }
    Ok(Value::Data(Json::Object(m)))
}

/// The groups as regextract and data_regextract store them (recorded): PCRE's `rc` groups (up to the
/// last one that took part), a named group under its name only, a group that did not take part as "".
fn agent_groups(
    re: &crate::pcre::Regex,
    caps: &crate::pcre::ByteCaptures<'_>,
) -> Vec<(String, String)> {
    let names: Vec<Option<&str>> = re.capture_names().collect();
    let last = (0..caps.len())
        .rev()
        .find(|&i| caps.get(i).is_some())
        .unwrap_or(0);
    (0..=last)
        .map(|i| {
            let key = names
                .get(i)
                .copied()
                .flatten()
                .map_or_else(|| i.to_string(), str::to_string);
            let val = caps.get(i).map(|m| lossy(m.as_bytes())).unwrap_or_default();
            (key, val)
        })
        .collect()
}

/// Splits like `string_split`: at most `max` pieces, the last keeping the remainder.
pub fn split_max(re: &super::args::Re, s: &str, max: usize) -> Vec<String> {
    let max = max.min(super::MAX_ELEMENTS);
    let hay = s.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while out.len() + 1 < max {
        // the agent searches the rest as a new subject: look-behind does not see the bytes before it, and
        // an empty match at its start yields an empty piece without moving on (recorded)
        let rest = hay.get(start..).unwrap_or_default();
        let Some(m) = re.plain().find_at(rest, 0) else {
            break;
        };
        if m.end() == 0 {
            out.push(String::new());
            continue;
        }
        out.push(lossy(&rest[..m.start()]));
        start += m.end();
    }
    out.push(lossy(&hay[start..]));
    out
}

fn string_split(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[1].text())?;
    // at most 0 pieces: the function fails, without a word (recorded: iteration/split_edges)
    if int_arg(&a[2]) < 1 {
        return Err(FnFail);
    }
    let max = int_arg(&a[2]).max(1) as usize;
    Ok(Value::slist(split_max(&re, a[0].text(), max)))
}

fn splitstring(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    // a regex that does not compile is logged and the string is not split (recorded)
    let Some(re) = super::args::regex_or_log(ctx, a[1].text()) else {
        return Ok(Value::slist(vec![a[0].text().to_string()]));
    };
    // an empty string, or at most 0 pieces, is an empty list (recorded: iteration/split_edges)
    if a[0].text().is_empty() || int_arg(&a[2]) < 1 {
        return Ok(Value::slist(Vec::new()));
    }
    let max = int_arg(&a[2]).max(1) as usize;
    let mut parts = split_max(&re, a[0].text(), usize::MAX);
    parts.truncate(max);
    Ok(Value::slist(parts))
}

fn regarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[1].text())?;
    let name = a[0].naked.as_deref().unwrap_or(a[0].text()).to_string();
    // no such array (a string variable is none either) fails (recorded: iteration/scalar_collections)
    let vals = elements(&classic_array(ctx, &name).ok_or(FnFail)?);
    Ok(Value::context(vals.iter().any(|v| full_match(&re, v))))
}
