//! The evaluator-facing traits: `VarLookup` (variables, used by expansion) and `EvalEnv` (variables,
//! classes, bundles and the few writes functions perform, e.g. `regextract` defining an array).

use crate::value::Value;

/// Read access to variables, already split into namespace, scope (bundle) and lval.
pub trait VarLookup {
    /// Namespace of the current frame (`default` unless `body file control` said otherwise).
    fn current_ns(&self) -> &str;
    /// Bundle (scope) of the current frame.
    fn current_bundle(&self) -> &str;
    /// Looks up a variable. `lval` may carry classic-array indices (`arr[k]`), already expanded.
    fn get_var(&self, ns: &str, scope: &str, lval: &str) -> Option<Value>;
    /// Like [`VarLookup::get_var`], borrowing the value where the implementation stores it (a
    /// container indexed by a reference is not copied whole). The default copies.
    fn var_ref(&self, ns: &str, scope: &str, lval: &str) -> Option<std::borrow::Cow<'_, Value>> {
        self.get_var(ns, scope, lval).map(std::borrow::Cow::Owned)
    }
    /// The text of a variable the implementation keeps as plain text outside its table (an iteration
    /// value, a `this.*` entry), borrowed; `None` sends the lookup to [`VarLookup::var_ref`]. The
    /// expansion asks this first so that such values are not copied into a [`Value`] first.
    fn text_ref(&self, _ns: &str, _scope: &str, _lval: &str) -> Option<&str> {
        None
    }
    /// Whether the variable exists and is a scalar (string, int, real or a JSON primitive), without
    /// copying its value. Implementations may override the copying default.
    fn is_scalar_var(&self, ns: &str, scope: &str, lval: &str) -> bool {
        match self.get_var(ns, scope, lval) {
            Some(Value::Scalar(..)) => true,
            Some(Value::Data(d)) => !(d.is_array() || d.is_object() || d.is_null()),
            _ => false,
        }
    }
}

/// A defined class as listing functions (`classesmatching`, `getclassmetatags`) see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassInfo {
    pub ns: String,
    pub name: String,
    pub tags: Vec<String>,
}

impl ClassInfo {
    /// `name` in the default namespace, `ns:name` elsewhere (how `classesmatching` reports it).
    pub fn qualified(&self) -> String {
        if self.ns == "default" {
            self.name.clone()
        } else {
            format!("{}:{}", self.ns, self.name)
        }
    }
}

/// The tags of a class as [`EvalEnv::visit_classes`] hands them over, without copying.
#[derive(Debug, Clone, Copy)]
pub enum ClassTags<'a> {
    /// A hard class: its comma-separated tags, plus the implicit `hardclass` tag.
    Hard(&'a str),
    /// A soft class: its tags.
    Soft(&'a [String]),
}

impl ClassTags<'_> {
    /// Whether some tag satisfies `f`.
    pub fn any(&self, mut f: impl FnMut(&str) -> bool) -> bool {
        match self {
            ClassTags::Hard(csv) => csv.split(',').any(&mut f) || f("hardclass"),
            ClassTags::Soft(tags) => tags.iter().any(|t| f(t)),
        }
    }

    /// The tags as a list (`hardclass` last for a hard class).
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            ClassTags::Hard(csv) => csv
                .split(',')
                .chain(std::iter::once("hardclass"))
                .map(str::to_string)
                .collect(),
            ClassTags::Soft(tags) => tags.to_vec(),
        }
    }
}

/// Callback of [`EvalEnv::visit_classes`]: `(ns, name, tags)`.
pub type ClassVisitor<'a> = dyn FnMut(&str, &str, ClassTags<'_>) + 'a;

/// Callback of [`EvalEnv::visit_class_tables`]: `(local, ns, name, tags)`.
pub type TableClassVisitor<'a> = dyn FnMut(bool, &str, &str, ClassTags<'_>) + 'a;

/// Callback of [`EvalEnv::visit_variables`]: `(ns, scope, lval, value, tags)`.
pub type VarVisitor<'a> = dyn FnMut(&str, &str, &str, &Value, &[String]) + 'a;

/// A defined variable as listing functions (`variablesmatching`, `bundlestate`) see it.
#[derive(Debug, Clone, PartialEq)]
pub struct VarInfo {
    pub ns: String,
    pub scope: String,
    pub lval: String,
    pub value: Value,
    pub tags: Vec<String>,
}

impl VarInfo {
    /// `ns:scope.lval`, as `variablesmatching` reports it.
    pub fn qualified(&self) -> String {
        format!("{}:{}.{}", self.ns, self.scope, self.lval)
    }
}

/// A bundle as `bundlesmatching` sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct BundleInfo {
    pub ns: String,
    pub name: String,
    pub tags: Vec<String>,
}

/// Everything a built-in function may ask of the evaluator.
pub trait EvalEnv: VarLookup {
    /// Whether class `name` is defined; `ns` is the namespace written in the expression, if any.
    fn class_defined(&self, ns: Option<&str>, name: &str) -> bool;
    /// All defined classes (hard and soft, global and bundle-local).
    fn classes(&self) -> Vec<ClassInfo>;
    /// Visits every defined class without copying it, in the order of [`EvalEnv::classes`].
    fn visit_classes(&self, f: &mut ClassVisitor<'_>) {
        for c in self.classes() {
            f(&c.ns, &c.name, ClassTags::Soft(&c.tags));
        }
    }
    /// Visits the global class table in the agent's iteration order (`local` false), then the local
    /// classes of the current bundle frame (`local` true) in theirs, and returns true; an environment
    /// that does not model the agent's tables returns false without visiting anything.
    fn visit_class_tables(&self, _f: &mut TableClassVisitor<'_>) -> bool {
        false
    }
    /// All defined variables.
    fn variables(&self) -> Vec<VarInfo>;
    /// All bundles of the policy.
    fn bundles(&self) -> Vec<BundleInfo>;
    /// Defines (or replaces) a variable, e.g. the capture array of `regextract`.
    /// Visits every variable without copying it: `(ns, scope, lval, value, tags)`. Collecting functions
    /// scan all variables on every call; implementations should override the copying default.
    fn visit_variables(&self, f: &mut VarVisitor<'_>) {
        for v in self.variables() {
            f(&v.ns, &v.scope, &v.lval, &v.value, &v.tags);
        }
    }
    /// Whether some variable `ns:scope.name[...]` (a classic array entry) exists. Implementations with
    /// many variables should override this scan.
    fn has_array(&self, ns: &str, scope: &str, name: &str) -> bool {
        let mut found = false;
        self.visit_variables(&mut |n, s, l, _, _| {
            found |=
                n == ns && s == scope && l.strip_prefix(name).is_some_and(|r| r.starts_with('['));
        });
        found
    }
    /// Visits, in table order, the variable `ns:scope.name` and the classic array entries
    /// `ns:scope.name[...]`: what [`Self::visit_variables`] shows of them. Implementations with many
    /// variables should override this scan.
    fn visit_array(&self, ns: &str, scope: &str, name: &str, f: &mut VarVisitor<'_>) {
        self.visit_variables(&mut |n, s, l, v, t| {
            if n == ns
                && s == scope
                && l.strip_prefix(name)
                    .is_some_and(|r| r.is_empty() || r.starts_with('['))
            {
                f(n, s, l, v, t);
            }
        });
    }
    fn define_var(&mut self, ns: &str, scope: &str, lval: &str, value: Value);
    /// [`Self::define_var`] for a variable a function creates: the agent tags it
    /// `source=function,function=NAME` (NAME the agent's internal name, e.g. `buildlinearray` for the
    /// `read*array`/`parse*array` family).
    fn define_function_var(
        &mut self,
        ns: &str,
        scope: &str,
        lval: &str,
        value: Value,
        _function: &str,
    ) {
        self.define_var(ns, scope, lval, value);
    }
    /// Defines a class (`read_module_protocol`); `ns` `None` = the current namespace.
    fn define_class(&mut self, ns: Option<&str>, name: &str, tags: &[String]);
    /// Undefines a class (`-name` in module protocol lines).
    fn undefine_class(&mut self, name: &str);
    /// Promisers of the enclosing `methods` promises, outermost first.
    fn callstack_promisers(&self) -> Vec<String>;
    /// The call stack as `callstack_callers()` reports it (array of frame objects, innermost first).
    fn callstack_callers(&self) -> serde_json::Value;
    /// Sorts the object keys of the data container `name` (or of the part `name[i]…` designates) in
    /// place, recursively: `format("%S")` does that to the container it prints, so a later
    /// `getindices`/`getvalues`/iteration sees the sorted order (recorded: show/data_sorted_by_writing).
    fn sort_container(&mut self, _name: &str) {}
}

/// Sorts every object of `j` by key (bytewise, as `strcmp`), recursively.
pub fn sort_json_keys(j: &mut serde_json::Value) {
    match j {
        serde_json::Value::Object(m) => {
            let mut items: Vec<(String, serde_json::Value)> =
                std::mem::take(m).into_iter().collect();
            items.sort_by(|a, b| a.0.cmp(&b.0));
            for (k, mut v) in items {
                sort_json_keys(&mut v);
                m.insert(k, v);
            }
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(sort_json_keys),
        _ => {}
    }
}
