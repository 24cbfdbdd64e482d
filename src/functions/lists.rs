//! List functions: join, length, nth, getindices, getvalues, grep, filter, sort, unique, reverse,
//! sublist, difference, intersection, some/every/none, reglist, sum/product/mean/variance, max/min,
//! maplist/maparray, expandrange. Arguments follow the collecting convention (`args::collect`).

use serde_json::Value as Json;

use super::args::{bool_opt, collect, collect_or_fail, elements, full_match, int_arg, regex};
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::value::{json_leaf_string, Value};

pub const FUNCTIONS: &[FnDef] = &[
    def("join", true, join),
    def("length", true, length),
    def("nth", true, nth),
    def("getindices", true, getindices),
    def("getvalues", true, getvalues),
    def("grep", true, grep),
    def("filter", true, filter),
    def("sort", true, sort),
    def("unique", true, unique),
    def("reverse", true, reverse),
    def("sublist", true, sublist),
    def("difference", true, difference),
    def("intersection", true, intersection),
    def("some", true, some),
    def("every", true, every),
    def("none", true, none),
    def("reglist", true, reglist),
    def("sum", true, sum),
    def("product", true, product),
    def("mean", true, mean),
    def("variance", true, variance),
    def("max", true, max),
    def("min", true, min),
    def("maplist", true, maplist),
    def("maparray", true, maparray),
    def("expandrange", true, expandrange),
    def("shuffle", true, shuffle),
];

fn shuffle(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let items = list(ctx, "shuffle", &a[0])?;
    slist(super::prng::shuffle(&items, a[1].text()))
}

fn list(ctx: &mut CallCtx<'_>, name: &str, a: &FnArg) -> Result<Vec<String>, FnFail> {
    Ok(elements(&collect_or_fail(ctx, name, a)?))
}

fn slist(v: Vec<String>) -> FnResult {
    Ok(Value::slist(v))
}

fn join(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let items = list(ctx, "join", &a[1])?;
    Ok(Value::str(items.join(a[0].text())))
}

fn length(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let n = match collect_or_fail(ctx, "length", &a[0])? {
        Value::Data(Json::Array(x)) => x.len(),
        Value::Data(Json::Object(o)) => o.len(),
        v => elements(&v).len(),
    };
    Ok(Value::int(n as i64))
}

fn nth(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let key = a[1].text();
    let v = collect_or_fail(ctx, "nth", &a[0])?;
    let found = match &v {
        Value::Data(Json::Object(o)) => o.get(key).and_then(super::json::primitive_text),
        Value::Data(Json::Array(arr)) => index(arr.len(), key)
            .and_then(|i| arr.get(i))
            .and_then(super::json::primitive_text),
        other => {
            let items = elements(other);
            index(items.len(), key).and_then(|i| items.get(i).cloned())
        }
    };
    found.map(Value::str).ok_or_else(|| {
        ctx.verbose(format!("nth: index '{key}' not found"));
        FnFail
    })
}

fn index(len: usize, key: &str) -> Option<usize> {
    let i: i64 = key.trim().parse().ok()?;
    let i = if i < 0 { len as i64 + i } else { i };
    (i >= 0 && (i as usize) < len).then_some(i as usize)
}

fn getindices(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    // `@(x)`: the agent reads a data container x, and otherwise the classic array literally named
    // `@(x)` (which parsestringarray("@(x)", …) makes), never a list or classic array x (recorded:
    // eval/scope/naked_list_function_args, getindices_naked_arg)
    if let Some(name) = &a[0].naked {
        let keys = match crate::expr::expand::lookup_name(&*ctx.env, name) {
            Some(Value::Data(Json::Object(o))) => o.keys().cloned().collect(),
            Some(Value::Data(Json::Array(arr))) => (0..arr.len()).map(|i| i.to_string()).collect(),
            _ => classic_indices(ctx, &format!("@({name})"), false),
        };
        return slist(keys);
    }
    let keys = match collect(ctx, &a[0]) {
        Some(Value::Data(Json::Object(o))) => o.keys().cloned().collect(),
        Some(Value::Data(Json::Array(arr))) => (0..arr.len()).map(|i| i.to_string()).collect(),
        Some(_) => Vec::new(),
        None => classic_indices(ctx, a[0].naked.as_deref().unwrap_or(a[0].text()), false),
    };
    slist(keys)
}

/// Keys (or values) of a classic array `name[k]` of the current bundle, first level only.
pub fn classic_indices(ctx: &CallCtx<'_>, name: &str, values: bool) -> Vec<String> {
    let r = crate::expr::VarRef::parse(name);
    let (ns, scope) = r.resolve_scope(&*ctx.env);
    if !ctx.env.has_array(&ns, &scope, &r.name) {
        return Vec::new();
    }
    let prefix = format!("{}[", r.lval());
    let mut out: Vec<String> = Vec::new();
    ctx.env
        .visit_array(&ns, &scope, &r.name, &mut |vns, vscope, lval, value, _| {
            if vns != ns || vscope != scope {
                return;
            }
            let Some(rest) = lval.strip_prefix(&prefix) else {
                return;
            };
            let Some(end) = rest.find(']') else { return };
            if values {
                out.extend(elements(value));
            } else {
                let k = rest.get(..end).unwrap_or("").to_string();
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        });
    out
}

fn leaves(j: &Json, out: &mut Vec<String>) {
    match j {
        Json::Array(a) => a.iter().for_each(|x| leaves(x, out)),
        Json::Object(o) => o.values().for_each(|x| leaves(x, out)),
        // getvalues renders a real primitive with two decimals (recorded: 1.5 → "1.50")
        Json::Number(n) if n.is_f64() => out.push(format!("{:.2}", n.as_f64().unwrap_or(0.0))),
        other => out.extend(json_leaf_string(other)),
    }
}

fn getvalues(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let vals = match collect(ctx, &a[0]) {
        Some(Value::Data(d)) => {
            let mut out = Vec::new();
            leaves(&d, &mut out);
            out
        }
        Some(v) => elements(&v),
        None => classic_indices(ctx, a[0].naked.as_deref().unwrap_or(a[0].text()), true),
    };
    slist(vals)
}

fn grep(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[0].text())?;
    let items = list(ctx, "grep", &a[1])?;
    slist(items.into_iter().filter(|i| full_match(&re, i)).collect())
}

fn filter(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let is_regex = bool_opt(a[2].text());
    let invert = bool_opt(a[3].text());
    let max = int_arg(&a[4]).max(0) as usize;
    let items = list(ctx, "filter", &a[1])?;
    let re = if is_regex {
        Some(regex(ctx, a[0].text())?)
    } else {
        None
    };
    let out = items
        .into_iter()
        .filter(|i| {
            let m = match &re {
                Some(re) => full_match(re, i),
                None => i == a[0].text(),
            };
            m != invert
        })
        .take(max)
        .collect();
    slist(out)
}

/// Sorts by one of the agent's modes (`lex int real IP ip MAC mac`), as the agent orders them.
pub fn sort_by_mode(items: &mut Vec<String>, mode: &str) {
    super::sorting::agent_sort(items, super::sorting::Order::parse(mode));
}

fn sort(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let Some(first) = a.first() else {
        return Err(ctx.fail("Function sort requires at least one argument"));
    };
    let mut items = list(ctx, "sort", first)?;
    let mode = a.get(1).map_or("lex", FnArg::text);
    sort_by_mode(&mut items, mode);
    slist(items)
}

fn dedup(items: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

fn unique(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    slist(dedup(list(ctx, "unique", &a[0])?))
}

fn reverse(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mut items = list(ctx, "reverse", &a[0])?;
    items.reverse();
    slist(items)
}

fn sublist(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let items = list(ctx, "sublist", &a[0])?;
    let n = (int_arg(&a[2]).max(0) as usize).min(items.len());
    let out = if a[1].text() == "tail" {
        items[items.len() - n..].to_vec()
    } else {
        items[..n].to_vec()
    };
    slist(out)
}

fn difference(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let x = list(ctx, "difference", &a[0])?;
    let y = list(ctx, "difference", &a[1])?;
    slist(dedup(x.into_iter().filter(|i| !y.contains(i)).collect()))
}

fn intersection(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let x = list(ctx, "intersection", &a[0])?;
    let y = list(ctx, "intersection", &a[1])?;
    slist(dedup(x.into_iter().filter(|i| y.contains(i)).collect()))
}

fn count_matches(ctx: &mut CallCtx<'_>, name: &str, a: &[FnArg]) -> Result<(usize, usize), FnFail> {
    let re = regex(ctx, a[0].text())?;
    let items = list(ctx, name, &a[1])?;
    let hits = items.iter().filter(|i| full_match(&re, i)).count();
    Ok((hits, items.len()))
}

fn some(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (hits, _) = count_matches(ctx, "some", a)?;
    Ok(Value::context(hits > 0))
}

fn every(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (hits, n) = count_matches(ctx, "every", a)?;
    Ok(Value::context(n > 0 && hits == n))
}

fn none(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (hits, _) = count_matches(ctx, "none", a)?;
    Ok(Value::context(hits == 0))
}

fn reglist(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let items = list(ctx, "reglist", &a[0])?;
    let re = regex(ctx, a[1].text())?;
    Ok(Value::context(items.iter().any(|i| full_match(&re, i))))
}

/// The items of list `a` as numbers, read the way the agent's sum/product/mean/variance read them:
/// the C library's reading of a number at the item's start (`2x` is 2, `2k` 2, `50%` 50, `0x10` 16,
/// ` 5` 5, `inf` infinite, a text without a leading number 0), without a message and without the unit
/// letters of other readers (recorded:
/// policies/functions/corners, eval/iteration/sum_product_items).
fn numbers(ctx: &mut CallCtx<'_>, name: &str, a: &FnArg) -> Result<Vec<f64>, FnFail> {
    let items = list(ctx, name, a)?;
    Ok(items
        .iter()
        .map(|i| crate::syntax::check::numbers::scan_double(i).map_or(0.0, |(f, _)| f))
        .collect())
}

fn sum(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::real(
        numbers(ctx, "sum", &a[0])?.iter().fold(0.0, |x, y| x + y),
    ))
}

fn product(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::real(
        numbers(ctx, "product", &a[0])?
            .iter()
            .fold(1.0, |x, y| x * y),
    ))
}

fn mean(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let v = numbers(ctx, "mean", &a[0])?;
    if v.is_empty() {
        return Err(FnFail);
    }
    Ok(Value::real(
        v.iter().fold(0.0, |x, y| x + y) / v.len() as f64,
    ))
}

fn variance(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let v = numbers(ctx, "variance", &a[0])?;
    if v.len() < 2 {
        return if v.is_empty() {
            Err(FnFail)
        } else {
            Ok(Value::real(0.0))
        };
    }
    let m = v.iter().fold(0.0, |x, y| x + y) / v.len() as f64;
    let ss: f64 = v.iter().map(|x| (x - m) * (x - m)).sum();
    Ok(Value::real(ss / (v.len() - 1) as f64))
}

fn extreme(ctx: &mut CallCtx<'_>, a: &[FnArg], name: &str, want_max: bool) -> FnResult {
    let items = list(ctx, name, &a[0])?;
    let order = super::sorting::Order::parse(a[1].text());
    super::sorting::extreme(&items, order, want_max)
        .cloned()
        .map(Value::str)
        .ok_or(FnFail)
}

fn max(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    extreme(ctx, a, "max", true)
}

fn min(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    extreme(ctx, a, "min", false)
}

/// Replaces `$(this)`/`${this}` (or `this.k`/`this.v` variants) in a map pattern.
pub fn substitute_this(pattern: &str, pairs: &[(&str, &str)]) -> String {
    let mut s = pattern.to_string();
    for (name, val) in pairs {
        s = s
            .replace(&format!("$({name})"), val)
            .replace(&format!("${{{name}}}"), val);
    }
    s
}

fn maplist(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let items = list(ctx, "maplist", &a[1])?;
    let pat = a[0].text();
    slist(
        items
            .iter()
            .map(|i| substitute_this(pat, &[("this", i)]))
            .collect(),
    )
}

/// (key, value) pairs a map over an array/container visits: nested arrays/objects give one pair per
/// scalar element.
pub fn map_pairs(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    match v {
        Value::Data(Json::Object(o)) => {
            for (k, x) in o {
                match x {
                    Json::Array(_) | Json::Object(_) => {
                        for e in crate::value::json_scalar_values(x) {
                            out.push((k.clone(), e));
                        }
                    }
                    other => out.extend(json_leaf_string(other).map(|s| (k.clone(), s))),
                }
            }
        }
        Value::Data(Json::Array(arr)) => {
            for (i, x) in arr.iter().enumerate() {
                out.extend(json_leaf_string(x).map(|s| (i.to_string(), s)));
            }
        }
        other => {
            for (i, e) in elements(other).into_iter().enumerate() {
                out.push((i.to_string(), e));
            }
        }
    }
    out
}

fn maparray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let v = collect_or_fail(ctx, "maparray", &a[1])?;
    let pat = a[0].text();
    slist(
        map_pairs(&v)
            .iter()
            .map(|(k, x)| {
                let s = substitute_this(pat, &[("this.k", k), ("this.v", x)]);
                // references around this.k/this.v (`$(static[$(this.v)])`) are expanded once they
                // are complete; unknown ones stay as written (recorded: functions/corners)
                if s.contains("$(") || s.contains("${") {
                    crate::expr::expand::expand_scalar(&s, &*ctx.env).text
                } else {
                    s
                }
            })
            .collect(),
    )
}

fn expandrange(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let s = a[0].text();
    let step = int_arg(&a[1]);
    let parsed = s.find('[').and_then(|o| {
        let c = o + s[o..].find(']')?;
        let (lo, hi) = s[o + 1..c].split_once('-')?;
        Some((
            o,
            c,
            lo.trim().parse::<i64>().ok()?,
            hi.trim().parse::<i64>().ok()?,
        ))
    });
    let Some((o, c, lo, hi)) = parsed else {
        return slist(vec![s.to_string()]);
    };
    let count = hi.saturating_sub(lo).checked_div(step.max(1)).unwrap_or(0);
    if count > super::MAX_ELEMENTS as i64 {
        return Err(ctx.fail(format!(
            "expandrange: '{s}' would give more than {} elements",
            super::MAX_ELEMENTS
        )));
    }
    if step < 1 || step > hi.saturating_sub(lo).saturating_abs() {
        return Err(ctx.fail(
            "Fatal CFEngine error: EXPANDRANGE Step size cannot be less than 1 or greater than the interval",
        ));
    }
    let mut out = Vec::new();
    let mut i = lo;
    while i <= hi {
        out.push(format!("{}{}{}", &s[..o], i, &s[c + 1..]));
        i = i.saturating_add(step);
        if i == i64::MAX {
            break;
        }
    }
    slist(out)
}
