//! Variable functions: isvariable, type, getvariablemetatags, variablesmatching,
//! variablesmatching_as_data, bundlesmatching, bundlestate, datastate, callstack_promisers.

use serde_json::{Map, Value as Json};

use super::args::{bool_opt, full_match, regex};
use super::classes::filter_tags;
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::expr::env::VarInfo;
use crate::expr::expand::lookup_name;
use crate::expr::VarRef;
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("isvariable", true, isvariable),
    def("type", true, type_),
    def("getvariablemetatags", true, getvariablemetatags),
    def("variablesmatching", true, variablesmatching),
    def("variablesmatching_as_data", true, variablesmatching_as_data),
    def("bundlesmatching", true, bundlesmatching),
    def("bundlestate", true, bundlestate),
    def("datastate", true, datastate),
    def("callstack_promisers", true, callstack_promisers),
    def("callstack_callers", true, callstack_callers),
];

fn isvariable(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(
        lookup_name(&*ctx.env, a[0].text()).is_some(),
    ))
}

fn type_(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let detail = a.get(1).is_some_and(|d| bool_opt(d.text()));
    let v = lookup_name(&*ctx.env, a[0].text());
    let s = match (v, detail) {
        (None, false) => "none".to_string(),
        (None, true) => "policy none".to_string(),
        (Some(Value::Data(d)), true) => format!(
            "data {}",
            match d {
                Json::Object(_) => "object",
                Json::Array(_) => "array",
                Json::String(_) => "string",
                Json::Number(_) => "int",
                Json::Bool(_) => "boolean",
                Json::Null => "null",
            }
        ),
        (Some(v), true) => format!("policy {}", v.type_name()),
        (Some(v), false) => v.type_name().to_string(),
    };
    Ok(Value::str(s))
}

fn find_var(ctx: &CallCtx<'_>, name: &str) -> Option<VarInfo> {
    let r = VarRef::parse(name);
    let (ns, scope) = r.resolve_scope(&*ctx.env);
    let lval = r.lval();
    // visited, not copied: only the variable asked for is cloned (copying every value of a run whose
    // variables hold containers was quadratic; fuzz/slow/)
    let mut found = None;
    ctx.env
        .visit_variables(&mut |vns, vscope, vlval, value, tags| {
            if found.is_none() && vns == ns && vscope == scope && vlval == lval {
                found = Some(VarInfo {
                    ns: vns.to_string(),
                    scope: vscope.to_string(),
                    lval: vlval.to_string(),
                    value: value.clone(),
                    tags: tags.to_vec(),
                });
            }
        });
    found
}

fn getvariablemetatags(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let Some(tags) = find_var(ctx, a[0].text()).map(|v| v.tags) else {
        return Err(FnFail);
    };
    Ok(Value::slist(filter_tags(tags, a.get(1).map(FnArg::text))))
}

/// Visits the variables whose qualified name (`ns:scope.lval`) matches the regex `a[0]` and, when tag
/// regexes follow, that have a tag matching one of them, in table order: `f(qualified, var)`.
fn visit_matching_vars(
    ctx: &mut CallCtx<'_>,
    a: &[FnArg],
    f: &mut dyn FnMut(&str, VarView<'_>),
) -> Result<(), FnFail> {
    // a regex that does not compile is logged and matches nothing (recorded)
    let Some(re) = super::args::regex_or_log(ctx, a.first().map_or(".*", FnArg::text)) else {
        return Ok(());
    };
    let tag_res = a
        .get(1..)
        .unwrap_or(&[])
        .iter()
        .map(|t| regex(ctx, t.text()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut qualified = String::new();
    let mut buf = String::new();
    ctx.env
        .visit_variables(&mut |ns, scope, lval, value, tags| {
            // as the agent does: with tag regexes, any of them matching any tag passes (checked first:
            // most variables have one or two tags)
            if !(tag_res.is_empty()
                || tag_res
                    .iter()
                    .any(|t| tags.iter().any(|tag| full_match(t, tag))))
            {
                return;
            }
            if re.full_match_parts(&[ns, ":", scope, ".", lval], &mut buf) {
                qualified.clear();
                qualified.push_str(ns);
                qualified.push(':');
                qualified.push_str(scope);
                qualified.push('.');
                qualified.push_str(lval);
                f(
                    &qualified,
                    VarView {
                        ns,
                        scope,
                        lval,
                        value,
                        tags,
                    },
                );
            }
        });
    Ok(())
}

/// One variable as [`visit_matching_vars`] shows it (borrowed from the table).
struct VarView<'a> {
    ns: &'a str,
    scope: &'a str,
    lval: &'a str,
    value: &'a Value,
    tags: &'a [String],
}

fn matching_vars(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> Result<Vec<VarInfo>, FnFail> {
    let mut out: Vec<VarInfo> = Vec::new();
    visit_matching_vars(ctx, a, &mut |_, v| {
        out.push(VarInfo {
            ns: v.ns.to_string(),
            scope: v.scope.to_string(),
            lval: v.lval.to_string(),
            value: v.value.clone(),
            tags: v.tags.to_vec(),
        });
    })?;
    Ok(out)
}

fn variablesmatching(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mut vars = matching_vars(ctx, a)?;
    // the agent walks its variable table and prepends each match: the table order reversed (recorded:
    // eval/thirdparty/variablesmatching_order)
    vars.reverse();
    Ok(Value::slist(vars.iter().map(VarInfo::qualified).collect()))
}

fn variablesmatching_as_data(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    // the object gets the matches appended in table order (recorded:
    // eval/thirdparty/variablesmatching_as_data_order)
    // converted while visited: each value is copied once, into the result
    let mut m = Map::new();
    visit_matching_vars(ctx, a, &mut |qualified, v| {
        m.insert(qualified.to_string(), v.value.to_json());
    })?;
    Ok(Value::Data(Json::Object(m)))
}

fn bundlesmatching(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a.first().map_or(".*", FnArg::text))?;
    let tag_res = a
        .get(1..)
        .unwrap_or(&[])
        .iter()
        .map(|t| regex(ctx, t.text()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut out: Vec<String> = ctx
        .env
        .bundles()
        .into_iter()
        .filter(|b| full_match(&re, &format!("{}:{}", b.ns, b.name)))
        .filter(|b| {
            tag_res
                .iter()
                .all(|t| b.tags.iter().any(|tag| full_match(t, tag)))
        })
        .map(|b| format!("{}:{}", b.ns, b.name))
        .collect();
    // the agent walks the policy's bundle list and prepends every match: last bundle first
    out.reverse();
    Ok(Value::slist(out))
}

fn state_of(ctx: &CallCtx<'_>, ns: &str, scope: &str) -> Map<String, Json> {
    // visited, not copied: only the bundle's own variables are converted (bundlestate() per element of
    // a list over a growing state copied every value of the run at every call; fuzz/slow/)
    let mut m = Map::new();
    ctx.env.visit_variables(&mut |vns, vscope, lval, value, _| {
        if vns == ns && vscope == scope && !lval.contains('[') {
            m.insert(lval.to_string(), value.to_json());
        }
    });
    m
}

fn bundlestate(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let name = a[0].text();
    let (ns, b) = match name.split_once(':') {
        Some((n, b)) => (n.to_string(), b.to_string()),
        None => (ctx.env.current_ns().to_string(), name.to_string()),
    };
    let m = state_of(ctx, &ns, &b);
    if m.is_empty() {
        return Err(FnFail);
    }
    Ok(Value::Data(Json::Object(m)))
}

fn datastate(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    match datastate_json(ctx) {
        Some(j) => Ok(Value::Data(j)),
        None => Err(too_many_values(ctx, "datastate")),
    }
}

/// `{"classes": {name: true}, "vars": {bundle: {var: value}}}` as `datastate()` builds it; bundles in
/// other namespaces are keyed `ns:bundle`. `None` when it would hold more than `ctx.max_values`
/// values (counted before anything is copied: a state holding earlier states doubles at every step).
pub fn datastate_json(ctx: &CallCtx<'_>) -> Option<Json> {
    let budget = ctx.max_values;
    let mut total = 0usize;
    // the agent's classes object is sorted by name, whatever its table order (recorded:
    // eval/thirdparty/classesmatching_tables)
    let mut names: Vec<String> = Vec::new();
    ctx.env.visit_classes(&mut |ns, name, _| {
        total += 1;
        if total <= budget {
            names.push(if ns == "default" {
                name.to_string()
            } else {
                format!("{ns}:{name}")
            });
        }
    });
    names.sort_unstable();
    let mut classes = Map::new();
    for n in names {
        classes.insert(n, Json::Bool(true));
    }
    let mut vars: Map<String, Json> = Map::new();
    ctx.env.visit_variables(&mut |ns, scope, lval, value, _| {
        if lval.contains('[') || total > budget {
            return;
        }
        total = total.saturating_add(value.count_values((budget - total).saturating_add(1)));
        if total > budget {
            return;
        }
        let key = if ns == "default" {
            scope.to_string()
        } else {
            format!("{ns}:{scope}")
        };
        let entry = vars.entry(key).or_insert_with(|| Json::Object(Map::new()));
        if let Json::Object(m) = entry {
            m.insert(lval.to_string(), value.to_json());
        }
    });
    if total > budget {
        return None;
    }
    let mut top = Map::new();
    top.insert("classes".into(), Json::Object(classes));
    top.insert("vars".into(), Json::Object(vars));
    Some(Json::Object(top))
}

/// The failure of a table copy past the value limit (an error line; the run's exit code says a
/// limit was hit).
pub fn too_many_values(ctx: &mut CallCtx<'_>, fname: &str) -> FnFail {
    ctx.limit_hit = true;
    let max = ctx.max_values;
    ctx.fail(format!(
        "cfsim: {fname}() would hold more than {max} values (--max-list-length)"
    ))
}

fn callstack_promisers(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Ok(Value::slist(ctx.env.callstack_promisers()))
}

fn callstack_callers(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Ok(Value::Data(ctx.env.callstack_callers()))
}
