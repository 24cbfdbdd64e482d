//! A small JSON Schema validator for the keywords `policies/hosts/schema.json` uses (type,
//! properties, required, additionalProperties, items, enum, pattern, minimum, maximum, minLength,
//! `$ref` to `#/$defs/…`). Any other keyword is reported, so the schema cannot silently rely on an
//! unsupported one. Hand-written instead of the `jsonschema` crate, which pulls in dozens of crates.
#![allow(dead_code, clippy::unwrap_used)]

use serde_json::Value;

const IGNORED: &[&str] = &["$schema", "$id", "title", "description", "$defs"];

/// Validate `v` against `schema` (whose `$defs` resolve `$ref`); returns error messages with paths.
pub fn validate(root: &Value, v: &Value) -> Vec<String> {
    let mut errs = Vec::new();
    check(root, root, v, "$", &mut errs);
    errs
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

fn check(root: &Value, s: &Value, v: &Value, path: &str, errs: &mut Vec<String>) {
    let Some(s) = s.as_object() else {
        errs.push(format!("{path}: schema is not an object"));
        return;
    };
    for (k, kv) in s {
        match k.as_str() {
            k if IGNORED.contains(&k) => {}
            "$ref" => {
                let name = kv
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .unwrap_or("");
                match root.get("$defs").and_then(|d| d.get(name)) {
                    Some(target) => check(root, target, v, path, errs),
                    None => errs.push(format!("{path}: unresolved $ref {kv}")),
                }
            }
            "type" => {
                let ok = match kv {
                    Value::String(t) => type_ok(t, v),
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v)),
                    _ => false,
                };
                if !ok {
                    errs.push(format!("{path}: expected type {kv}, got {v}"));
                }
            }
            "enum" => {
                if !kv.as_array().is_some_and(|a| a.contains(v)) {
                    errs.push(format!("{path}: {v} not in {kv}"));
                }
            }
            "pattern" => {
                if let (Some(p), Some(text)) = (kv.as_str(), v.as_str()) {
                    if !regex::Regex::new(p).unwrap().is_match(text) {
                        errs.push(format!("{path}: \"{text}\" does not match {p}"));
                    }
                }
            }
            "minLength" => {
                if let (Some(n), Some(text)) = (kv.as_u64(), v.as_str()) {
                    if (text.chars().count() as u64) < n {
                        errs.push(format!("{path}: shorter than {n}"));
                    }
                }
            }
            "minimum" | "maximum" => {
                if let (Some(lim), Some(x)) = (kv.as_f64(), v.as_f64()) {
                    if (k == "minimum" && x < lim) || (k == "maximum" && x > lim) {
                        errs.push(format!("{path}: {x} violates {k} {lim}"));
                    }
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for r in kv
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                    {
                        if !o.contains_key(r) {
                            errs.push(format!("{path}: missing required `{r}`"));
                        }
                    }
                }
            }
            "properties" => {
                if let (Some(props), Some(o)) = (kv.as_object(), v.as_object()) {
                    for (name, sub) in props {
                        if let Some(x) = o.get(name) {
                            check(root, sub, x, &format!("{path}.{name}"), errs);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let props = s.get("properties").and_then(Value::as_object);
                    for (name, x) in o {
                        if props.is_some_and(|p| p.contains_key(name)) {
                            continue;
                        }
                        match kv {
                            Value::Bool(false) => {
                                errs.push(format!("{path}: unexpected property `{name}`"))
                            }
                            Value::Bool(true) => {}
                            sub => check(root, sub, x, &format!("{path}.{name}"), errs),
                        }
                    }
                }
            }
            "items" => {
                if let Some(a) = v.as_array() {
                    for (i, x) in a.iter().enumerate() {
                        check(root, kv, x, &format!("{path}[{i}]"), errs);
                    }
                }
            }
            other => errs.push(format!("{path}: unsupported schema keyword `{other}`")),
        }
    }
}
