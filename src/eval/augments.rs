//! Augments: `def.json` beside the entry file, loaded before the policy as cf-agent 3.21 does: `vars`
//! (→ `def.<name>`), `variables` (`name` or `[ns:]bundle.name` with `value`, `comment`, `tags`),
//! `classes` (a regex or list of regexes matched against the classes defined so far, or an object with
//! `class_expressions` / `regular_expressions`, `tags`, `comment`). Everything is tagged
//! `source=augments_file`. `inputs` are not handled yet. A malformed file is reported, not fatal.

use std::path::Path;

use serde_json::Value as Json;

use super::output::LogLevel;
use super::Engine;
use crate::expr::env::EvalEnv;
use crate::value::Value;

const TAG: &str = "source=augments_file";

fn to_value(j: &Json) -> Value {
    match j {
        Json::String(s) => Value::str(s.clone()),
        // a number reads as a scalar (a real as `%.2f`, recorded: policies/agent/augments_reals)
        Json::Number(_) => Value::str(crate::value::json_leaf_string(j).unwrap_or_default()),
        Json::Array(a) if a.iter().all(|x| x.is_string()) => Value::slist(
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
        ),
        other => Value::Data(other.clone()),
    }
}

fn strings(j: Option<&Json>) -> Vec<String> {
    match j {
        Some(Json::String(s)) => vec![s.clone()],
        Some(Json::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

impl Engine<'_> {
    /// Loads `def.json` from the directory of `entry`, if present.
    pub fn load_augments(&mut self, entry: &str) {
        let dir = Path::new(entry).parent().unwrap_or(Path::new("."));
        let path = dir.join("def.json");
        let Ok(text) = std::fs::read_to_string(&path) else {
            return;
        };
        let doc: Json = match serde_json::from_str(&text) {
            Ok(mut d) => {
                // reals kept as their %.4f text, as by every JSON parse of the agent
                crate::functions::json::store_numbers(&mut d);
                d
            }
            Err(e) => {
                self.log(
                    LogLevel::Error,
                    &format!("Could not parse JSON file {}: {e}", path.display()),
                );
                return;
            }
        };
        if let Some(Json::Object(vars)) = doc.get("vars") {
            for (k, v) in vars {
                self.ctx.set_var(
                    ("default".into(), "def".into(), k.clone()),
                    to_value(v),
                    vec![TAG.into()],
                );
            }
        }
        if let Some(Json::Object(vars)) = doc.get("variables") {
            for (k, spec) in vars {
                let (ns, rest) = match k.split_once(':') {
                    Some((n, r)) => (n.to_string(), r.to_string()),
                    None => ("default".to_string(), k.clone()),
                };
                let (scope, name) = match rest.split_once('.') {
                    Some((s, n)) => (s.to_string(), n.to_string()),
                    None => ("def".to_string(), rest),
                };
                let Some(value) = spec.get("value") else {
                    continue;
                };
                let mut tags = strings(spec.get("tags"));
                tags.push(TAG.into());
                if let Some(c) = spec.get("comment").and_then(Json::as_str) {
                    self.ctx
                        .comments
                        .insert(format!("{ns}:{scope}.{name}"), c.to_string());
                }
                self.ctx.set_var((ns, scope, name), to_value(value), tags);
            }
        }
        if let Some(Json::Object(classes)) = doc.get("classes") {
            for (name, spec) in classes {
                let (regexes, exprs, mut tags, comment) = match spec {
                    Json::Object(o) => (
                        strings(o.get("regular_expressions")),
                        strings(o.get("class_expressions")),
                        strings(o.get("tags")),
                        o.get("comment").and_then(Json::as_str).map(str::to_string),
                    ),
                    other => (strings(Some(other)), Vec::new(), Vec::new(), None),
                };
                let defined: Vec<String> =
                    self.ctx.classes().iter().map(|c| c.qualified()).collect();
                let by_regex = regexes.iter().any(|r| {
                    // the agent's PCRE full match of each defined class
                    crate::pcre::compile(r)
                        .is_ok_and(|re| defined.iter().any(|c| re.is_full_match(c)))
                });
                let by_expr = exprs
                    .iter()
                    .any(|x| crate::expr::classexpr::eval_str(x, &self.ctx).unwrap_or(false));
                if by_regex || by_expr {
                    tags.push(TAG.into());
                    let c = crate::expr::canonify(name);
                    if let Some(cm) = comment {
                        self.ctx.comments.insert(c.clone(), cm);
                    }
                    self.ctx.define_global("default", &c, tags);
                }
            }
        }
    }
}
