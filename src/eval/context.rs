//! The evaluation context of one run: hard classes, namespace (global) soft classes, bundle-local classes
//! per frame, variables keyed `(namespace, scope, lval)` with their meta tags, the frame stack of bundle
//! activations, the `this.*` scope and the iteration overlay. Implements `expr::EvalEnv`.

use indexmap::IndexMap;

use crate::expr::env::{BundleInfo, ClassInfo, EvalEnv, VarInfo, VarLookup};
use crate::expr::expand::Binding;
use crate::expr::varref::VarRef;
use crate::value::Value;

/// Key of a variable: namespace, scope (bundle name or special scope), lval (with `[k]` indices).
pub type VarKey = (String, String, String);

/// A stored variable.
#[derive(Debug, Clone, PartialEq)]
pub struct VarEntry {
    pub value: Value,
    pub tags: Vec<String>,
}

/// One bundle activation.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub ns: String,
    pub bundle: String,
    /// Bundle-local classes defined in this activation, with their tags.
    pub local: IndexMap<String, Vec<String>>,
    /// `inherit => "true"`: the caller's local classes are visible.
    pub inherit: bool,
    /// Promiser of the methods promise that started this frame (empty for the bundlesequence).
    pub caller_promiser: String,
    /// The verbose stack path of the caller (`/default/main/methods/'call1'`), empty at top level.
    pub stack: String,
    /// The call as written (`worker( {"a","@(l)"})`) for a parameterized bundle, else empty.
    pub call_text: String,
}

/// Variables, classes and frames of the run.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Hard classes, name → comma-joined tags (without the trailing `hardclass`).
    pub hard: IndexMap<String, String>,
    /// Soft global classes keyed `(namespace, name)`.
    pub soft: IndexMap<(String, String), Vec<String>>,
    pub vars: IndexMap<VarKey, VarEntry>,
    pub frames: Vec<Frame>,
    /// Iteration values in force for the promise being evaluated (resolved keys).
    pub overlay: Vec<(VarKey, String)>,
    /// The `this.*` scope of the promise being evaluated.
    pub this: IndexMap<String, String>,
    pub bundles: Vec<BundleInfo>,
    /// `comment =>` of variables and classes, keyed by their table name (`ns:scope.lval`, class name).
    pub comments: IndexMap<String, String>,
}

impl Context {
    /// The innermost frame's namespace and bundle (`default`, `` when no frame).
    pub fn here(&self) -> (&str, &str) {
        match self.frames.last() {
            Some(f) => (&f.ns, &f.bundle),
            None => ("default", ""),
        }
    }

    /// Sets a variable.
    pub fn set_var(&mut self, key: VarKey, value: Value, tags: Vec<String>) {
        self.vars.insert(key, VarEntry { value, tags });
    }

    /// Removes a variable (bundle parameters after the call).
    pub fn remove_var(&mut self, key: &VarKey) {
        self.vars.shift_remove(key);
    }

    /// Removes the classic array entries (`name[...]`) of bundle `ns:bundle`.
    pub fn clear_arrays(&mut self, ns: &str, bundle: &str) {
        self.vars
            .retain(|(n, s, l), _| !(n == ns && s == bundle && l.contains('[')));
    }

    /// Installs the values of one iteration binding (reference text → element).
    pub fn bind(&mut self, binding: &Binding) {
        self.overlay.clear();
        let mut out = Vec::new();
        for (name, v) in binding {
            let r = VarRef::parse(name);
            let (ns, scope) = r.resolve_scope(self);
            out.push(((ns, scope, r.lval()), v.clone()));
        }
        self.overlay = out;
    }

    /// Defines a global soft class.
    pub fn define_global(&mut self, ns: &str, name: &str, tags: Vec<String>) {
        if self.hard.contains_key(name) {
            return;
        }
        self.soft
            .entry((ns.to_string(), name.to_string()))
            .or_insert(tags);
    }

    /// Defines a class local to the innermost frame.
    pub fn define_local(&mut self, name: &str, tags: Vec<String>) {
        if let Some(f) = self.frames.last_mut() {
            f.local.entry(name.to_string()).or_insert(tags);
        }
    }

    /// Removes a soft class (global and local of the innermost frame); hard classes stay.
    pub fn undefine(&mut self, ns: &str, name: &str) {
        self.soft.shift_remove(&(ns.to_string(), name.to_string()));
        if let Some(f) = self.frames.last_mut() {
            f.local.shift_remove(name);
        }
    }

    fn local_defined(&self, name: &str) -> bool {
        for f in self.frames.iter().rev() {
            if f.local.contains_key(name) {
                return true;
            }
            if !f.inherit {
                break;
            }
        }
        false
    }

    /// Global classes (hard and soft) as `--show-evaluated-classes` lists them: `(name, tags)` sorted.
    pub fn global_class_rows(&self) -> Vec<(String, String)> {
        let mut rows: Vec<(String, String)> = self
            .hard
            .iter()
            .map(|(n, t)| (n.clone(), format!("{t},hardclass")))
            .collect();
        for ((ns, n), tags) in &self.soft {
            let name = if ns == "default" {
                n.clone()
            } else {
                format!("{ns}:{n}")
            };
            rows.push((name, tags.join(",")));
        }
        rows.sort();
        rows
    }
}

impl VarLookup for Context {
    fn current_ns(&self) -> &str {
        self.here().0
    }
    fn current_bundle(&self) -> &str {
        self.here().1
    }
    fn get_var(&self, ns: &str, scope: &str, lval: &str) -> Option<Value> {
        for ((n, s, l), v) in &self.overlay {
            if n == ns && s == scope && l == lval {
                return Some(Value::str(v.clone()));
            }
        }
        if scope == "this" {
            if let Some(v) = self.this.get(lval) {
                return Some(Value::str(v.clone()));
            }
        }
        self.vars
            .get(&(ns.to_string(), scope.to_string(), lval.to_string()))
            .map(|e| e.value.clone())
    }
}

impl EvalEnv for Context {
    /// The agent's EvalTokenAsClass: `any` in every namespace, hard classes only unqualified or in
    /// `default`, a bundle-local class by its name whatever the namespace written (recorded:
    /// guards/qualified_class_names).
    fn class_defined(&self, ns: Option<&str>, name: &str) -> bool {
        if name == "any" {
            return true;
        }
        if self.hard.contains_key(name) {
            return ns.is_none_or(|n| n == "default");
        }
        match ns {
            None => {
                self.local_defined(name)
                    || self
                        .soft
                        .contains_key(&(self.current_ns().to_string(), name.to_string()))
            }
            Some(n) => {
                self.soft.contains_key(&(n.to_string(), name.to_string()))
                    || self.local_defined(name)
            }
        }
    }
    fn classes(&self) -> Vec<ClassInfo> {
        let mut out: Vec<ClassInfo> = self
            .hard
            .iter()
            .map(|(n, t)| ClassInfo {
                ns: "default".into(),
                name: n.clone(),
                tags: t
                    .split(',')
                    .map(str::to_string)
                    .chain(std::iter::once("hardclass".to_string()))
                    .collect(),
            })
            .collect();
        out.extend(self.soft.iter().map(|((ns, n), t)| ClassInfo {
            ns: ns.clone(),
            name: n.clone(),
            tags: t.clone(),
        }));
        if let Some(f) = self.frames.last() {
            out.extend(f.local.iter().map(|(n, t)| ClassInfo {
                ns: f.ns.clone(),
                name: n.clone(),
                tags: t.clone(),
            }));
        }
        out
    }
    fn variables(&self) -> Vec<VarInfo> {
        self.vars
            .iter()
            .map(|((ns, scope, lval), e)| VarInfo {
                ns: ns.clone(),
                scope: scope.clone(),
                lval: lval.clone(),
                value: e.value.clone(),
                tags: e.tags.clone(),
            })
            .collect()
    }
    fn visit_variables(&self, f: &mut crate::expr::env::VarVisitor<'_>) {
        for ((ns, scope, lval), e) in &self.vars {
            f(ns, scope, lval, &e.value, &e.tags);
        }
    }
    fn bundles(&self) -> Vec<BundleInfo> {
        self.bundles.clone()
    }
    fn define_var(&mut self, ns: &str, scope: &str, lval: &str, value: Value) {
        self.set_var(
            (ns.to_string(), scope.to_string(), lval.to_string()),
            value,
            vec!["source=function".to_string()],
        );
    }
    fn define_class(&mut self, ns: Option<&str>, name: &str, tags: &[String]) {
        let ns = ns
            .map(str::to_string)
            .unwrap_or_else(|| self.current_ns().to_string());
        self.define_global(&ns, name, tags.to_vec());
    }
    fn undefine_class(&mut self, name: &str) {
        let ns = self.current_ns().to_string();
        self.undefine(&ns, name);
    }
    fn callstack_promisers(&self) -> Vec<String> {
        self.frames
            .iter()
            .filter(|f| !f.caller_promiser.is_empty())
            .map(|f| f.caller_promiser.clone())
            .collect()
    }
    fn callstack_callers(&self) -> serde_json::Value {
        let mut out = Vec::new();
        for f in self.frames.iter().rev() {
            out.push(serde_json::json!({
                "type": "bundle",
                "namespace": f.ns,
                "bundle": f.bundle,
            }));
        }
        serde_json::Value::Array(out)
    }
    fn sort_container(&mut self, name: &str) {
        let r = VarRef::parse(name);
        let (ns, scope) = r.resolve_scope(self);
        // a classic array element `a[k]` is a variable of its own; otherwise walk into the container
        let mut key = (ns.clone(), scope.clone(), r.lval());
        let mut path: &[String] = &[];
        if !self.vars.contains_key(&key) {
            key = (ns, scope, r.name.clone());
            path = &r.indices;
        }
        let Some(VarEntry {
            value: Value::Data(d),
            ..
        }) = self.vars.get_mut(&key)
        else {
            return;
        };
        let mut cur = d;
        for k in path {
            let next = match cur {
                serde_json::Value::Object(m) => m.get_mut(k),
                serde_json::Value::Array(a) => k.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
                _ => None,
            };
            match next {
                Some(n) => cur = n,
                None => return,
            }
        }
        crate::expr::env::sort_json_keys(cur);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Context {
        let mut c = Context::default();
        c.hard.insert("linux".into(), "source=agent".into());
        c.frames.push(Frame {
            ns: "default".into(),
            bundle: "main".into(),
            ..Frame::default()
        });
        c
    }

    #[test]
    fn local_classes_vanish_with_their_frame_unless_inherited() {
        let mut c = ctx();
        c.define_local("loc", vec![]);
        c.frames.push(Frame {
            ns: "default".into(),
            bundle: "child".into(),
            ..Frame::default()
        });
        assert!(!c.class_defined(None, "loc"));
        if let Some(f) = c.frames.last_mut() {
            f.inherit = true;
        }
        assert!(c.class_defined(None, "loc"));
        c.frames.pop();
        c.frames.pop();
        assert!(!c.class_defined(None, "loc"));
    }

    #[test]
    fn namespaced_classes_and_hard_classes() {
        let mut c = ctx();
        c.define_global("web", "w", vec![]);
        assert!(!c.class_defined(None, "w"));
        assert!(c.class_defined(Some("web"), "w"));
        assert!(c.class_defined(None, "linux"));
        c.undefine("default", "linux");
        assert!(
            c.class_defined(None, "linux"),
            "hard classes cannot be removed"
        );
    }

    #[test]
    fn iteration_overlay_wins_over_the_list() {
        let mut c = ctx();
        c.set_var(
            ("default".into(), "main".into(), "l".into()),
            Value::slist(vec!["a".into(), "b".into()]),
            vec![],
        );
        let mut b = Binding::new();
        b.insert("l".into(), "b".into());
        c.bind(&b);
        assert_eq!(c.get_var("default", "main", "l"), Some(Value::str("b")));
    }
}
