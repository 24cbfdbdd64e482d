//! Class functions: and, or, not, ifelse (class-expression arguments), classify, classmatch,
//! classesmatching, countclassesmatching, getclassmetatags, cf_version_*, isgreaterthan, islessthan.

use super::args::{full_match, regex};
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::eval::classtable::set_order;
use crate::expr::classexpr;
use crate::expr::env::ClassTags;
use crate::value::{parse_real, Value};

/// Version of the agent being simulated.
pub const CF_VERSION: [u32; 3] = [3, 21, 0];

pub const FUNCTIONS: &[FnDef] = &[
    def("and", true, and),
    def("or", true, or),
    def("not", true, not),
    def("ifelse", true, ifelse),
    def("classify", true, classify),
    def("classmatch", true, classmatch),
    def("classesmatching", true, classesmatching),
    def("countclassesmatching", true, countclassesmatching),
    def("getclassmetatags", true, getclassmetatags),
    def("isgreaterthan", true, isgreaterthan),
    def("islessthan", true, islessthan),
    def("cf_version_minimum", true, cf_version_minimum),
    def("cf_version_maximum", true, cf_version_maximum),
    def("cf_version_after", true, cf_version_after),
    def("cf_version_before", true, cf_version_before),
    def("cf_version_at", true, cf_version_at),
    def("cf_version_between", true, cf_version_between),
    def("splayclass", true, splayclass),
];

/// The time-slot class `splayclass(s, policy)` tests: 5-minute slot in the hour (`hourly`) or in the
/// day (`daily`, with its hour), from the agent's string hash of `s`.
pub fn splay_class_name(s: &str, hourly: bool) -> String {
    const SPLAY: u32 = 8192;
    let h = super::prng::string_hash(s, 0) & (SPLAY - 1);
    if hourly {
        let slot = h * 12 / SPLAY;
        format!("Min{:02}_{:02}", slot * 5, ((slot + 1) * 5) % 60)
    } else {
        let dayslot = h * 12 * 24 / SPLAY;
        let (hour, slot) = (dayslot / 12, dayslot % 12);
        format!(
            "Min{:02}_{:02}.Hr{hour:02}",
            slot * 5,
            ((slot + 1) * 5) % 60
        )
    }
}

fn splayclass(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let name = splay_class_name(a[0].text(), a[1].text() == "hourly");
    ctx.verbose(format!(
        "Computed context for '{}' splayclass: '{name}'",
        a[0].text()
    ));
    Ok(Value::context(class_arg(ctx, &name)))
}

/// Evaluates one class-expression argument; a parse error is logged and counts as false.
pub fn class_arg(ctx: &mut CallCtx<'_>, expr: &str) -> bool {
    match classexpr::eval_str(expr, &*ctx.env) {
        Ok(b) => b,
        Err(classexpr::ClassExprError::Unresolved(_)) => false,
        Err(e) => {
            ctx.error(e.to_string());
            false
        }
    }
}

fn and(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    for x in a {
        if !class_arg(ctx, x.text()) {
            return Ok(Value::context(false));
        }
    }
    Ok(Value::context(true))
}

fn or(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    for x in a {
        if class_arg(ctx, x.text()) {
            return Ok(Value::context(true));
        }
    }
    Ok(Value::context(false))
}

fn not(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(!class_arg(ctx, a[0].text())))
}

fn ifelse(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    if a.len().is_multiple_of(2) {
        return Err(
            ctx.fail("Fatal CFEngine error: in built-in FnCall ifelse: even number of arguments")
        );
    }
    for pair in a.chunks(2) {
        match pair {
            [cond, val] if class_arg(ctx, cond.text()) => {
                return Ok(Value::str(val.text()));
            }
            [default] => return Ok(Value::str(default.text())),
            _ => {}
        }
    }
    Err(FnFail)
}

fn classify(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let name = crate::expr::canonify(a[0].text());
    Ok(Value::context(ctx.env.class_defined(None, &name)))
}

/// The message of the regex error just logged (to log it again).
fn regex_error_text(ctx: &CallCtx<'_>) -> String {
    ctx.log
        .last()
        .map(|l| l.message.clone())
        .unwrap_or_default()
}

/// Defined classes whose (qualified) name fully matches `re` (or equals it) and which carry a tag
/// matching one of `tags` (any of them, as the agent's loop breaks out on the first match; recorded:
/// eval/thirdparty/classesmatching_tables), in the agent's order: it collects the matches of its
/// global class table, then of the current bundle frame's local classes, each in table order into a
/// string set, and prepends the elements of each set in set order (so the local matches come first,
/// each set reversed; see `eval::classtable`). An environment that does not model the tables gives
/// its classes sorted.
pub fn matching_classes(
    ctx: &mut CallCtx<'_>,
    re: &str,
    tags: &[FnArg],
) -> Result<Vec<String>, FnFail> {
    // a class regex that does not compile matches nothing; the agent logs its error twice (recorded:
    // policies/functions/counts/bad_regex)
    let literal = re.to_string();
    let Some(re) = super::args::regex_or_log(ctx, re) else {
        ctx.error(regex_error_text(ctx));
        return Ok(Vec::new());
    };
    let tag_res = tags
        .iter()
        .map(|t| Ok((t.text().to_string(), regex(ctx, t.text())?)))
        .collect::<Result<Vec<_>, FnFail>>()?;
    let mut global: Vec<String> = Vec::new();
    let mut local: Vec<String> = Vec::new();
    let mut qualified = String::new();
    let mut check = |ns: &str, name: &str, class_tags: ClassTags<'_>| -> Option<String> {
        qualified.clear();
        if ns != "default" {
            qualified.push_str(ns);
            qualified.push(':');
        }
        qualified.push_str(name);
        // the tags only of a class whose name matches (matching is pure: the order is free)
        let name_ok = qualified == literal || full_match(&re, &qualified);
        let ok = name_ok
            && (tag_res.is_empty()
                || tag_res
                    .iter()
                    .any(|(lit, t)| class_tags.any(|tag| tag == lit || full_match(t, tag))));
        ok.then(|| qualified.clone())
    };
    let modelled = ctx
        .env
        .visit_class_tables(&mut |is_local, ns, name, class_tags| {
            if let Some(q) = check(ns, name, class_tags) {
                if is_local {
                    local.push(q);
                } else {
                    global.push(q);
                }
            }
        });
    if !modelled {
        ctx.env.visit_classes(&mut |ns, name, class_tags| {
            if let Some(q) = check(ns, name, class_tags) {
                global.push(q);
            }
        });
        global.sort_unstable();
        global.dedup();
        return Ok(global);
    }
    let mut out = set_order(&local);
    out.reverse();
    let mut g = set_order(&global);
    g.reverse();
    out.extend(g);
    Ok(out)
}

fn classmatch(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = a.first().map_or(".*", FnArg::text).to_string();
    let found = matching_classes(ctx, &re, a.get(1..).unwrap_or(&[]))?;
    Ok(Value::context(!found.is_empty()))
}

fn classesmatching(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = a.first().map_or(".*", FnArg::text).to_string();
    let found = matching_classes(ctx, &re, a.get(1..).unwrap_or(&[]))?;
    Ok(Value::slist(found))
}

fn countclassesmatching(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = a.first().map_or(".*", FnArg::text).to_string();
    let found = matching_classes(ctx, &re, a.get(1..).unwrap_or(&[]))?;
    Ok(Value::int(found.len() as i64))
}

fn getclassmetatags(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let name = a[0].text();
    let (ns, cls) = match name.split_once(':') {
        Some((n, c)) => (n.to_string(), c.to_string()),
        None => (ctx.env.current_ns().to_string(), name.to_string()),
    };
    let Some(tags) = ctx
        .env
        .classes()
        .into_iter()
        .find(|c| c.name == cls && (c.ns == ns || c.tags.iter().any(|t| t == "hardclass")))
        .map(|c| c.tags)
    else {
        return Err(FnFail);
    };
    Ok(Value::slist(filter_tags(tags, a.get(1).map(FnArg::text))))
}

/// Tags, optionally reduced to the values of `key=value` tags for `key`.
pub fn filter_tags(tags: Vec<String>, key: Option<&str>) -> Vec<String> {
    match key {
        None => tags,
        Some(k) => tags
            .iter()
            .filter_map(|t| {
                t.split_once('=')
                    .filter(|(tk, _)| *tk == k)
                    .map(|(_, v)| v.to_string())
            })
            .collect(),
    }
}

/// `strtod`-like: the longest numeric prefix, if any.
fn numeric_prefix(s: &str) -> Option<f64> {
    let t = s.trim();
    if let Some(f) = parse_real(t) {
        return Some(f);
    }
    (1..t.len())
        .rev()
        .filter(|&n| t.is_char_boundary(n))
        .find_map(|n| t[..n].parse::<f64>().ok())
}

fn compare(a: &str, b: &str) -> std::cmp::Ordering {
    match (numeric_prefix(a), numeric_prefix(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    }
}

fn isgreaterthan(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(
        compare(a[0].text(), a[1].text()) == std::cmp::Ordering::Greater,
    ))
}

fn islessthan(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(
        compare(a[0].text(), a[1].text()) == std::cmp::Ordering::Less,
    ))
}

/// Parses `N[.N[.N]]`; missing parts are `None` (they match anything).
fn parse_version(ctx: &mut CallCtx<'_>, fname: &str, s: &str) -> Result<Vec<u32>, FnFail> {
    let parts: Result<Vec<u32>, _> = s.split('.').map(str::parse).collect();
    match parts {
        Ok(p) if !p.is_empty() && p.len() <= 3 => Ok(p),
        _ => Err(ctx.fail(format!(
            "{fname}: Format of version comparison string '{s}' is incorrect"
        ))),
    }
}

/// Compares the running version with a (possibly partial) version: only the given parts count.
fn cmp_version(v: &[u32]) -> std::cmp::Ordering {
    for (mine, theirs) in CF_VERSION.iter().zip(v) {
        match mine.cmp(theirs) {
            std::cmp::Ordering::Equal => continue,
            other => return other,
        }
    }
    std::cmp::Ordering::Equal
}

fn version_test(
    ctx: &mut CallCtx<'_>,
    a: &[FnArg],
    name: &str,
    ok: fn(std::cmp::Ordering) -> bool,
) -> FnResult {
    // a malformed version fails the call (recorded: the classes actuator calls it again)
    match parse_version(ctx, name, a[0].text()) {
        Ok(v) => Ok(Value::context(ok(cmp_version(&v)))),
        Err(FnFail) => Err(FnFail),
    }
}

fn cf_version_minimum(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    version_test(ctx, a, "cf_version_minimum", |o| o.is_ge())
}

fn cf_version_maximum(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    version_test(ctx, a, "cf_version_maximum", |o| o.is_le())
}

fn cf_version_after(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    version_test(ctx, a, "cf_version_after", |o| o.is_gt())
}

fn cf_version_before(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    version_test(ctx, a, "cf_version_before", |o| o.is_lt())
}

fn cf_version_at(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    version_test(ctx, a, "cf_version_at", |o| o.is_eq())
}

fn cf_version_between(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let lo = parse_version(ctx, "cf_version_between", a[0].text())?;
    let hi = parse_version(ctx, "cf_version_between", a[1].text())?;
    Ok(Value::context(
        cmp_version(&lo).is_ge() && cmp_version(&hi).is_le(),
    ))
}
