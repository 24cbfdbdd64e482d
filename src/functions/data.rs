//! Data-container functions: parsejson, storejson, mergedata, validjson, validdata, mapdata,
//! data_expand. JSON text goes through the agent's dialect in `json.rs`.

use serde_json::{Map, Value as Json};

use super::args::{collect_container, collect_or_fail, elements};
use super::json::{self, write_pretty};
use super::lists::{map_pairs, substitute_this};
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::expr::expand_scalar;
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("parsejson", true, parsejson),
    def("storejson", true, storejson),
    def("mergedata", true, mergedata),
    def("validjson", true, validjson),
    def("validdata", true, validdata),
    def("mapdata", true, mapdata),
    def("data_expand", true, data_expand),
    def("classfiltercsv", false, classfiltercsv),
    def("parseyaml", true, parseyaml),
];

/// Parses YAML text that must give a container (`crate::yaml` converts scalars as libyaml does).
pub fn parse_yaml_container(ctx: &mut CallCtx<'_>, text: &str) -> Result<Json, FnFail> {
    match crate::yaml::parse(text) {
        Ok(j @ (Json::Object(_) | Json::Array(_))) => Ok(j),
        Ok(_) => Err(ctx.fail(format!(
            "Non-container from parsing YAML expression '{text}'"
        ))),
        Err(e) => Err(ctx.fail(format!("Error parsing YAML expression '{text}': {e}"))),
    }
}

fn parseyaml(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::Data(parse_yaml_container(ctx, a[0].text())?))
}

/// Parses JSON text that must be a container, logging the agent's errors.
pub fn parse_container(ctx: &mut CallCtx<'_>, text: &str) -> Result<Json, FnFail> {
    match json::parse_end(text) {
        Ok((j @ (Json::Object(_) | Json::Array(_)), _)) => Ok(j),
        // quoted from the scalar's last character, where the agent's parser stopped (recorded)
        Ok((_, end)) => Err(ctx.fail(format!(
            "Non-container from parsing JSON expression '{}'",
            text.get(end..).unwrap_or("")
        ))),
        Err(e) => Err(ctx.fail(e.agent_message())),
    }
}

fn parsejson(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::Data(parse_container(ctx, a[0].text())?))
}

fn storejson(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let v = collect_or_fail(ctx, "storejson", &a[0])?;
    // prints sorted keys but, unlike format("%S"), leaves the container as it is (recorded:
    // show/data_sorted_by_writing)
    Ok(Value::str(write_pretty(&v.to_json())))
}

/// Merges containers as `mergedata` does: all arrays → concatenation; otherwise an object where arrays
/// contribute their indices as keys and later keys replace earlier ones (shallow).
pub fn merge(parts: Vec<Json>) -> Json {
    if parts.iter().all(Json::is_array) {
        let mut out = Vec::new();
        for p in parts {
            if let Json::Array(a) = p {
                out.extend(a);
            }
        }
        return Json::Array(out);
    }
    let mut m = Map::new();
    for p in parts {
        match p {
            Json::Object(o) => {
                for (k, v) in o {
                    m.insert(k, v);
                }
            }
            Json::Array(a) => {
                for (i, v) in a.into_iter().enumerate() {
                    m.insert(i.to_string(), v);
                }
            }
            _ => {}
        }
    }
    Json::Object(m)
}

fn mergedata(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    if a.is_empty() {
        return Err(
            ctx.fail("mergedata needs at least one argument, a reference to a container variable")
        );
    }
    let mut parts = Vec::with_capacity(a.len());
    for x in a {
        let v = collect_or_fail(ctx, "mergedata", x)?;
        match v.to_json() {
            j @ (Json::Object(_) | Json::Array(_)) => parts.push(j),
            _ => return Err(FnFail),
        }
    }
    if parts.len() == 1 {
        return Ok(Value::Data(parts.remove(0)));
    }
    Ok(Value::Data(merge(parts)))
}

fn validjson(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(json::parse(a[0].text()).is_ok()))
}

fn validdata(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(json::parse(a[0].text()).is_ok()))
}

fn mapdata(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mode = a[0].text().to_string();
    let pattern = a[1].text().to_string();
    let v = collect_or_fail(ctx, "mapdata", &a[2])?;
    let pairs = match &v {
        Value::List(..) => elements(&v)
            .into_iter()
            .map(|e| (String::new(), e))
            .collect::<Vec<_>>(),
        other => map_pairs(other),
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (k, x) in pairs {
        let s = if matches!(v, Value::List(..)) {
            pattern.clone()
        } else {
            substitute_this(&pattern, &[("this.k", &k), ("this.v", &x)])
        };
        out.push(match mode.as_str() {
            "canonify" => Json::String(crate::expr::canonify(&s)),
            "json" | "json_pipe" => match json::parse(&s) {
                Ok(j) => j,
                Err(e) => return Err(ctx.fail(e.agent_message())),
            },
            _ => Json::String(s),
        });
    }
    Ok(Value::Data(Json::Array(out)))
}

/// Expands every string (keys too); `None` when some reference stays unresolved.
fn expand_json(ctx: &CallCtx<'_>, j: &Json) -> Option<Json> {
    let exp = |s: &str| {
        let e = expand_scalar(s, &*ctx.env);
        (!e.unresolved).then_some(e.text)
    };
    Some(match j {
        Json::String(s) => Json::String(exp(s)?),
        Json::Array(a) => Json::Array(
            a.iter()
                .map(|x| expand_json(ctx, x))
                .collect::<Option<Vec<_>>>()?,
        ),
        Json::Object(o) => {
            let mut m = Map::new();
            for (k, v) in o {
                m.insert(exp(k)?, expand_json(ctx, v)?);
            }
            Json::Object(m)
        }
        other => other.clone(),
    })
}

fn data_expand(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let Some(v) = collect_container(ctx, &a[0]) else {
        return Err(FnFail);
    };
    expand_json(ctx, &v.to_json())
        .map(Value::Data)
        .ok_or(FnFail)
}

/// One output row of `classfiltercsv`: (key, value) pairs.
type Fields = Vec<(String, String)>;

/// Rows of a CSV file whose class column is a true class expression, that column removed; objects keyed
/// by the heading (or by column index without one), optionally sorted by a column.
fn classfiltercsv(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let path = a[0].text();
    let Some(b) = ctx.host.read_file(path) else {
        return Err(ctx.fail(format!("classfiltercsv: could not read file '{path}'")));
    };
    let text = String::from_utf8_lossy(&b).into_owned();
    let mut rows = super::readers::parse_csv(&text);
    let has_heading = super::args::bool_opt(a[1].text());
    let class_col = super::args::int_arg(&a[2]).max(0) as usize;
    let heading: Option<Vec<String>> = if has_heading && !rows.is_empty() {
        Some(rows.remove(0))
    } else {
        None
    };
    let mut kept: Vec<(Vec<String>, Fields)> = Vec::new();
    for row in rows {
        let Some(expr) = row.get(class_col) else {
            continue;
        };
        if !super::classes::class_arg(ctx, expr) {
            continue;
        }
        let fields = row
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != class_col)
            .enumerate()
            .map(|(j, (i, v))| {
                let key = heading
                    .as_ref()
                    .and_then(|h| h.get(i).cloned())
                    .unwrap_or_else(|| j.to_string());
                (key, v.clone())
            })
            .collect();
        kept.push((row.clone(), fields));
    }
    if let Some(col) = a.get(3).map(super::args::int_arg) {
        let col = col.max(0) as usize;
        kept.sort_by(|x, y| {
            let kx = x.0.get(col).map(String::as_str).unwrap_or("");
            let ky = y.0.get(col).map(String::as_str).unwrap_or("");
            kx.cmp(ky)
        });
    }
    Ok(Value::Data(Json::Array(
        kept.into_iter()
            .map(|(_, r)| Json::Object(r.into_iter().map(|(k, v)| (k, Json::String(v))).collect()))
            .collect(),
    )))
}
