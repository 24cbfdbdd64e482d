//! `MemEnv`: a simple in-memory `EvalEnv` (variables, classes, bundles) for tests and for callers that
//! evaluate expressions without a policy (the `functions` table tests, `cfsim functions`).

use indexmap::IndexMap;

use super::env::{BundleInfo, ClassInfo, EvalEnv, VarInfo, VarLookup};
use crate::value::Value;

/// In-memory variables and classes; deterministic iteration order (insertion).
#[derive(Debug, Clone)]
pub struct MemEnv {
    pub ns: String,
    pub bundle: String,
    pub vars: IndexMap<(String, String, String), (Value, Vec<String>)>,
    pub classes: IndexMap<(String, String), Vec<String>>,
    pub bundles: Vec<BundleInfo>,
    pub callstack: Vec<String>,
    /// Bundle-local classes of the current frame with their tags (found by name whatever namespace
    /// is written).
    pub local_classes: Vec<(String, Vec<String>)>,
    /// What `callstack_callers()` returns.
    pub callers: serde_json::Value,
}

impl MemEnv {
    /// An empty environment whose current frame is `default:bundle`.
    pub fn new(bundle: &str) -> MemEnv {
        MemEnv {
            ns: "default".into(),
            bundle: bundle.into(),
            vars: IndexMap::new(),
            classes: IndexMap::new(),
            bundles: Vec::new(),
            callstack: Vec::new(),
            local_classes: Vec::new(),
            callers: serde_json::Value::Array(Vec::new()),
        }
    }

    /// Sets a variable of the current bundle (`lval` may be `arr[k]`, or `b.v` for another bundle).
    pub fn set(&mut self, lval: &str, value: Value) {
        self.set_with_tags(lval, value, &[]);
    }

    /// Like [`MemEnv::set`], with meta tags (`source=promise` for promise-defined variables).
    pub fn set_with_tags(&mut self, lval: &str, value: Value, tags: &[&str]) {
        let (scope, lval) = match lval.split_once('.') {
            Some((s, l)) if !s.contains('[') => (s.to_string(), l.to_string()),
            _ => (self.bundle.clone(), lval.to_string()),
        };
        let tags = tags.iter().map(|t| t.to_string()).collect();
        self.vars
            .insert((self.ns.clone(), scope, lval), (value, tags));
    }

    /// Defines a bundle-local class (as `classes:` promises of an agent bundle do).
    pub fn define_local(&mut self, class: &str, tags: &[&str]) {
        self.local_classes.push((
            class.to_string(),
            tags.iter().map(|t| t.to_string()).collect(),
        ));
    }

    /// Defines a class in the current namespace.
    pub fn define(&mut self, class: &str, tags: &[&str]) {
        let (ns, name) = match class.split_once(':') {
            Some((n, c)) => (n.to_string(), c.to_string()),
            None => (self.ns.clone(), class.to_string()),
        };
        self.classes
            .insert((ns, name), tags.iter().map(|t| t.to_string()).collect());
    }
}

impl VarLookup for MemEnv {
    fn current_ns(&self) -> &str {
        &self.ns
    }
    fn current_bundle(&self) -> &str {
        &self.bundle
    }
    fn get_var(&self, ns: &str, scope: &str, lval: &str) -> Option<Value> {
        self.vars
            .get(&(ns.to_string(), scope.to_string(), lval.to_string()))
            .map(|(v, _)| v.clone())
    }
}

impl EvalEnv for MemEnv {
    fn class_defined(&self, ns: Option<&str>, name: &str) -> bool {
        if self.local_classes.iter().any(|(c, _)| c == name) {
            return true;
        }
        let ns = ns.unwrap_or(&self.ns);
        self.classes
            .contains_key(&(ns.to_string(), name.to_string()))
            || self
                .classes
                .contains_key(&("default".to_string(), name.to_string()))
                && self
                    .classes
                    .get(&("default".to_string(), name.to_string()))
                    .is_some_and(|t| t.iter().any(|t| t == "hardclass"))
    }
    fn classes(&self) -> Vec<ClassInfo> {
        let mut out: Vec<ClassInfo> = self
            .classes
            .iter()
            .map(|((ns, name), tags)| ClassInfo {
                ns: ns.clone(),
                name: name.clone(),
                tags: tags.clone(),
            })
            .collect();
        out.extend(self.local_classes.iter().map(|(c, tags)| ClassInfo {
            ns: self.ns.clone(),
            name: c.clone(),
            tags: tags.clone(),
        }));
        out
    }
    fn variables(&self) -> Vec<VarInfo> {
        self.vars
            .iter()
            .map(|((ns, scope, lval), (value, tags))| VarInfo {
                ns: ns.clone(),
                scope: scope.clone(),
                lval: lval.clone(),
                value: value.clone(),
                tags: tags.clone(),
            })
            .collect()
    }
    fn bundles(&self) -> Vec<BundleInfo> {
        self.bundles.clone()
    }
    fn define_var(&mut self, ns: &str, scope: &str, lval: &str, value: Value) {
        self.vars.insert(
            (ns.to_string(), scope.to_string(), lval.to_string()),
            (value, Vec::new()),
        );
    }
    fn define_class(&mut self, ns: Option<&str>, name: &str, tags: &[String]) {
        let ns = ns.unwrap_or(&self.ns).to_string();
        self.classes.insert((ns, name.to_string()), tags.to_vec());
    }
    fn undefine_class(&mut self, name: &str) {
        self.classes.retain(|(_, n), _| n != name);
        self.local_classes.retain(|(n, _)| n != name);
    }
    fn callstack_promisers(&self) -> Vec<String> {
        self.callstack.clone()
    }
    fn callstack_callers(&self) -> serde_json::Value {
        self.callers.clone()
    }
}
