//! `cfsim enc NODE`: a Puppet external node classifier (exec terminus) built on the hENC merge.
//!
//! Config (JSON): `basedir` (directory of the ENC files), `hierarchy` (file patterns, most general first,
//! merged with hENC rules so later levels win) and optional `profile` (a pattern naming a JSON host
//! profile whose values become facts). Patterns interpolate `%{name}`: `fqdn`/`certname`/`node` (the node
//! name), `hostname` (up to the first dot), `domain` (after it), or a dotted path into the profile
//! (`%{role}`, `%{net.site}`). A level whose interpolation is unknown or empty is skipped with a warning.
//! A node is known when at least one interpolated level exists; otherwise the answer is empty and the exit
//! status non-zero, as Puppet expects for "node not found".
//!
//! Answer: YAML `classes` (set classes, sorted, without `henc_classification_completed`), `parameters` (one
//! per variable, sorted: `=` strings, `@` sequences, `%` data, `=a[k]=v` entries grouped into a map `a`)
//! and `environment` (from the variable `environment`, then removed from `parameters`).

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::merge::{self, ClassState, Source};
use super::EncReader;
use crate::module::rlist;

/// Parsed ENC configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct EncConfig {
    pub basedir: String,
    pub hierarchy: Vec<String>,
    pub profile: Option<String>,
}

/// The ENC answer for a known node, plus warnings for stderr.
#[derive(Debug, Clone, PartialEq)]
pub struct EncAnswer {
    pub classes: Vec<String>,
    pub parameters: Map<String, Value>,
    pub environment: Option<String>,
    pub warnings: Vec<String>,
}

/// Why there is no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncError {
    BadConfig(String),
    UnknownNode { node: String, warnings: Vec<String> },
}

impl std::fmt::Display for EncError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncError::BadConfig(m) => write!(f, "bad ENC config: {m}"),
            EncError::UnknownNode { node, .. } => {
                write!(
                    f,
                    "node `{node}` not found: no node-specific hierarchy level exists"
                )
            }
        }
    }
}

impl EncConfig {
    /// Parse the JSON config text.
    pub fn parse(text: &str) -> Result<EncConfig, EncError> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| EncError::BadConfig(format!("not JSON: {e}")))?;
        let basedir = v
            .get("basedir")
            .and_then(Value::as_str)
            .ok_or_else(|| EncError::BadConfig("`basedir` (string) is required".into()))?
            .to_string();
        let hierarchy = v
            .get("hierarchy")
            .and_then(Value::as_array)
            .ok_or_else(|| EncError::BadConfig("`hierarchy` (list of strings) is required".into()))?
            .iter()
            .map(|p| p.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| EncError::BadConfig("`hierarchy` entries must be strings".into()))?;
        let profile = match v.get("profile") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(EncError::BadConfig("`profile` must be a string".into())),
        };
        Ok(EncConfig {
            basedir,
            hierarchy,
            profile,
        })
    }
}

impl EncConfig {
    /// Make a relative `basedir` and `profile` relative to `dir` (the config file's directory).
    pub fn relative_to(mut self, dir: &str) -> EncConfig {
        self.basedir = join(dir, &self.basedir);
        self.profile = self.profile.map(|p| join(dir, &p));
        self
    }
}

/// Facts available to patterns for one node.
pub struct Facts {
    builtin: IndexMap<&'static str, String>,
    profile: Value,
}

impl Facts {
    pub fn new(node: &str, profile: Value) -> Facts {
        let mut builtin = IndexMap::new();
        for k in ["fqdn", "certname", "node"] {
            builtin.insert(k, node.to_string());
        }
        let (host, domain) = node.split_once('.').unwrap_or((node, ""));
        builtin.insert("hostname", host.to_string());
        builtin.insert("domain", domain.to_string());
        Facts { builtin, profile }
    }

    pub fn get(&self, key: &str) -> Option<String> {
        if let Some(v) = self.builtin.get(key) {
            return Some(v.clone());
        }
        let mut cur = &self.profile;
        for part in key.split('.') {
            cur = cur.get(part)?;
        }
        match cur {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
}

/// Interpolate `%{…}` in `pattern`; `Err(name)` names the first unknown or empty fact.
pub fn interpolate(pattern: &str, facts: &Facts) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(start) = rest.find("%{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(after.to_string());
        };
        let key = after[..end].trim_start_matches("::");
        match facts.get(key) {
            Some(v) if !v.is_empty() => out.push_str(&v),
            _ => return Err(key.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn join(base: &str, rel: &str) -> String {
    if rel.starts_with('/') || base.is_empty() {
        rel.to_string()
    } else {
        format!("{}/{rel}", base.trim_end_matches('/'))
    }
}

/// Classify `node`: resolve the hierarchy, merge it with hENC rules, build the answer.
pub fn classify(
    node: &str,
    cfg: &EncConfig,
    reader: &dyn EncReader,
) -> Result<EncAnswer, EncError> {
    let mut warnings = Vec::new();
    let profile = match &cfg.profile {
        None => Value::Null,
        Some(p) => load_profile(node, p, reader, &mut warnings)?,
    };
    let facts = Facts::new(node, profile);
    let mut sources = Vec::new();
    let mut known = false;
    for pattern in &cfg.hierarchy {
        match interpolate(pattern, &facts) {
            Ok(rel) => {
                let name = join(&cfg.basedir, &rel);
                let text = reader.read(&name);
                known |= pattern.contains("%{") && text.is_some();
                sources.push(Source { name, text });
            }
            Err(key) => warnings.push(format!(
                "level `{pattern}` skipped: fact `{key}` is unknown or empty"
            )),
        }
    }
    if !known {
        return Err(EncError::UnknownNode {
            node: node.to_string(),
            warnings,
        });
    }
    let merged = merge::merge(&sources, false);
    let mut answer = build(&merged, &mut warnings);
    answer.warnings = warnings;
    Ok(answer)
}

fn load_profile(
    node: &str,
    pattern: &str,
    reader: &dyn EncReader,
    warnings: &mut Vec<String>,
) -> Result<Value, EncError> {
    let path = interpolate(pattern, &Facts::new(node, Value::Null))
        .map_err(|k| EncError::BadConfig(format!("`profile` uses unknown fact `{k}`")))?;
    let Some(bytes) = reader.read(&path) else {
        warnings.push(format!("no host profile at `{path}`"));
        return Ok(Value::Null);
    };
    serde_json::from_slice(&bytes)
        .map_err(|e| EncError::BadConfig(format!("host profile `{path}` is not JSON: {e}")))
}

fn build(merged: &merge::Merged<'_>, warnings: &mut Vec<String>) -> EncAnswer {
    let classes = merged
        .sorted_classes()
        .into_iter()
        .filter(|(n, e)| e.state == ClassState::Set && *n != merge::COMPLETED_CLASS)
        .map(|(n, _)| String::from_utf8_lossy(n).into_owned())
        .collect();
    let mut parameters = Map::new();
    let mut environment = None;
    for (_, v) in merged.sorted_vars() {
        let line = String::from_utf8_lossy(v.line);
        let line = line.trim_start();
        let body = line.get(1..).unwrap_or_default();
        let name = String::from_utf8_lossy(merge::var_name(body.as_bytes())).into_owned();
        if name.is_empty() {
            warnings.push(format!("variable line without `=` ignored: `{line}`"));
            continue;
        }
        let value = body.get(name.len() + 1..).unwrap_or_default();
        let parsed = match v.sigil {
            b'@' => rlist::parse(value)
                .map(|items| Value::Array(items.into_iter().map(Value::String).collect()))
                .map_err(|e| e.message().to_string()),
            b'%' => serde_json::from_str::<Value>(value).map_err(|e| e.to_string()),
            _ => Ok(Value::String(value.to_string())),
        };
        let value = match parsed {
            Ok(val) => val,
            Err(e) => {
                warnings.push(format!("variable `{name}` ignored ({e}): `{line}`"));
                continue;
            }
        };
        if let Some((base, key)) = array_entry(&name) {
            let slot = parameters
                .entry(base.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = slot {
                m.insert(key.to_string(), value);
                continue;
            }
            warnings.push(format!(
                "array entry `{name}` conflicts with variable `{base}`"
            ));
            continue;
        }
        if name == "environment" {
            if let Value::String(s) = &value {
                environment = Some(s.clone());
                continue;
            }
        }
        parameters.insert(name, value);
    }
    EncAnswer {
        classes,
        parameters,
        environment,
        warnings: Vec::new(),
    }
}

/// `arr[key]` → (`arr`, `key`).
fn array_entry(name: &str) -> Option<(&str, &str)> {
    let inner = name.strip_suffix(']')?;
    let (base, key) = inner.split_once('[')?;
    (!base.is_empty()).then_some((base, key))
}

impl EncAnswer {
    /// The YAML document Puppet reads.
    pub fn to_yaml(&self) -> String {
        let mut doc = Map::new();
        doc.insert(
            "classes".into(),
            Value::Array(self.classes.iter().cloned().map(Value::String).collect()),
        );
        doc.insert("parameters".into(), Value::Object(self.parameters.clone()));
        if let Some(env) = &self.environment {
            doc.insert("environment".into(), Value::String(env.clone()));
        }
        super::yaml::document(&Value::Object(doc))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn facts_come_from_the_node_name_and_the_profile() {
        let profile =
            serde_json::json!({"role": "web", "net": {"site": "eu", "rack": 7}, "empty": ""});
        let f = Facts::new("web1.dc1.example.com", profile);
        assert_eq!(
            interpolate("node/%{fqdn}", &f).unwrap(),
            "node/web1.dc1.example.com"
        );
        assert_eq!(
            interpolate("%{hostname}-%{domain}", &f).unwrap(),
            "web1-dc1.example.com"
        );
        assert_eq!(
            interpolate("site/%{net.site}/%{net.rack}", &f).unwrap(),
            "site/eu/7"
        );
        assert_eq!(interpolate("role/%{::role}", &f).unwrap(), "role/web");
        assert_eq!(interpolate("x/%{missing}", &f), Err("missing".to_string()));
        assert_eq!(interpolate("x/%{empty}", &f), Err("empty".to_string()));
        assert_eq!(interpolate("x/%{net}", &f), Err("net".to_string()));
        let bare = Facts::new("localhost", Value::Null);
        assert_eq!(interpolate("d/%{domain}", &bare), Err("domain".to_string()));
    }

    #[test]
    fn config_errors_are_clear() {
        assert!(
            matches!(EncConfig::parse("{}"), Err(EncError::BadConfig(m)) if m.contains("basedir"))
        );
        assert!(matches!(
            EncConfig::parse(r#"{"basedir": "d", "hierarchy": [1]}"#),
            Err(EncError::BadConfig(m)) if m.contains("strings")
        ));
        let c = EncConfig::parse(r#"{"basedir": "d", "hierarchy": ["a"]}"#).unwrap();
        assert_eq!(c.relative_to("/etc/cfsim").basedir, "/etc/cfsim/d");
    }
}
