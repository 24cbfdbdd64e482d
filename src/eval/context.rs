//! The evaluation context of one run: hard classes, namespace (global) soft classes, bundle-local classes
//! per frame, variables keyed `(namespace, scope, lval)` with their meta tags, the frame stack of bundle
//! activations, the `this.*` scope and the iteration overlay. Implements `expr::EvalEnv`.

use super::classtable::MapOrder;
use super::this_scope::ThisScope;
use super::vartable::{var_hash, AgentTable};
use crate::expr::env::{BundleInfo, ClassInfo, EvalEnv, VarInfo, VarLookup};
use crate::expr::expand::Binding;
use crate::expr::varref::VarRef;
use crate::fasthash::FastIndexMap;
use crate::value::Value;

/// Key of a variable: namespace, scope (bundle name or special scope), lval (with `[k]` indices).
pub type VarKey = (String, String, String);

/// A borrowed [`VarKey`] for lookups without allocating (hashes exactly like the owned tuple).
#[derive(Hash)]
pub struct VarKeyRef<'a>(pub &'a str, pub &'a str, pub &'a str);

impl indexmap::Equivalent<VarKey> for VarKeyRef<'_> {
    fn equivalent(&self, k: &VarKey) -> bool {
        self.2 == k.2 && self.1 == k.1 && self.0 == k.0
    }
}

/// A borrowed soft class key `(namespace, name)` (hashes like the owned pair).
#[derive(Hash)]
pub struct ClassKeyRef<'a>(pub &'a str, pub &'a str);

impl indexmap::Equivalent<(String, String)> for ClassKeyRef<'_> {
    fn equivalent(&self, k: &(String, String)) -> bool {
        self.1 == k.1 && self.0 == k.0
    }
}

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
    pub local: FastIndexMap<String, Vec<String>>,
    /// The agent's iteration order of `local` (keys `ns:name`, see [`super::classtable`]).
    pub local_order: MapOrder,
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
    pub hard: FastIndexMap<String, String>,
    /// Soft global classes keyed `(namespace, name)`.
    pub soft: FastIndexMap<(String, String), Vec<String>>,
    pub vars: FastIndexMap<VarKey, VarEntry>,
    pub frames: Vec<Frame>,
    /// Iteration values in force for the promise being evaluated (resolved keys).
    pub overlay: Vec<(VarKey, String)>,
    /// The `this.*` scope of the promise being evaluated.
    this: ThisScope,
    pub bundles: Vec<BundleInfo>,
    /// `comment =>` of variables and classes, keyed by their table name (`ns:scope.lval`, class name).
    pub comments: FastIndexMap<String, String>,
    /// The agent's iteration order of `vars` (see [`super::vartable`]), for the first `indexed` of
    /// them: a new variable enters it when the order is next read ([`Context::table`]) or a variable is
    /// removed. Each engine sets ~200 `sys`/`const` variables at its start that a small run never
    /// reads in table order: hashing them the agent's way and placing them was a twentieth of a small
    /// `cfsim agent` run's instructions. The order is the same: variables enter in the order of their
    /// places, which no removal has changed since they were set.
    table: std::cell::RefCell<AgentTable>,
    indexed: std::cell::Cell<usize>,
    /// The classic array entries (their lvals `name[...]`) per `(namespace, scope, array name)`, so that
    /// the functions reading an array visit its entries, not the whole table.
    arrays: FastIndexMap<VarKey, Vec<String>>,
    /// The array names of `arrays` per scope, keyed `(namespace, scope, "")`: clearing a bundle's
    /// arrays (every methods call) reads its own, not the whole table.
    scope_arrays: FastIndexMap<VarKey, Vec<String>>,
    /// The agent's iteration order of its global class table (hard and soft classes, keys `ns:name`,
    /// see [`super::classtable`]); hard classes enter it lazily, in `hard` order, up to `hard_in_order`,
    /// when a soft class is defined or the order is read (a cell, as `table`: reads borrow the context).
    class_order: std::cell::RefCell<MapOrder>,
    /// Number of `hard` entries already in `class_order` (`hard` only grows).
    hard_in_order: std::cell::Cell<usize>,
    /// The host's watch for deferred network facts (`crate::host::netwatch`): raised by every lookup
    /// that could concern them and by every listing of classes or variables.
    pub net_watch: crate::host::netwatch::NetWatch,
}

/// Enters the hard classes from `in_order` on into the class order `order`, in `hard` order.
fn enter_hard(
    order: &mut MapOrder,
    hard: &FastIndexMap<String, String>,
    in_order: &std::cell::Cell<usize>,
) {
    let mut i = in_order.get();
    while let Some((name, _)) = hard.get_index(i) {
        order.insert(&format!("default:{name}"));
        i += 1;
    }
    in_order.set(i);
}

/// Enters the variables from map position `from` on into the agent's table order, in their order.
fn index_from(table: &mut AgentTable, vars: &FastIndexMap<VarKey, VarEntry>, from: usize) {
    for pos in from..vars.len() {
        if let Some(((ns, scope, lval), _)) = vars.get_index(pos) {
            table.insert(var_hash(ns, scope, lval), pos);
        }
    }
}

/// `(ns, scope, name)` of a classic array entry `name[...]`.
fn array_of(key: &VarKey) -> Option<VarKey> {
    let i = crate::expr::find_byte(&key.2, 0, b'[')?;
    Some((key.0.clone(), key.1.clone(), key.2.get(..i)?.to_string()))
}

impl Context {
    /// An empty context with room for a host's hard classes and `sys`/`const` variables (~100 and
    /// ~200): their maps are filled at every engine's start, and growing them by doubling rehashed and
    /// moved them five times over.
    pub fn for_host() -> Context {
        Context {
            hard: FastIndexMap::with_capacity_and_hasher(128, Default::default()),
            vars: FastIndexMap::with_capacity_and_hasher(256, Default::default()),
            ..Context::default()
        }
    }

    /// The innermost frame's namespace and bundle (`default`, `` when no frame).
    pub fn here(&self) -> (&str, &str) {
        match self.frames.last() {
            Some(f) => (&f.ns, &f.bundle),
            None => ("default", ""),
        }
    }

    /// Sets a variable given by borrowed key parts: an existing one is updated in place (no key copies).
    pub fn set_var_at(&mut self, key: VarKeyRef<'_>, value: Value, tags: Vec<String>) {
        if let Some(e) = self.vars.get_mut(&key) {
            *e = VarEntry { value, tags };
            return;
        }
        self.set_var(
            (key.0.to_string(), key.1.to_string(), key.2.to_string()),
            value,
            tags,
        );
    }

    /// Sets a variable.
    pub fn set_var(&mut self, key: VarKey, value: Value, tags: Vec<String>) {
        match self.vars.entry(key) {
            indexmap::map::Entry::Occupied(mut o) => {
                o.insert(VarEntry { value, tags });
            }
            indexmap::map::Entry::Vacant(v) => {
                if let Some(a) = array_of(v.key()) {
                    let lval = v.key().2.clone();
                    match self.arrays.entry(a) {
                        indexmap::map::Entry::Occupied(mut o) => o.get_mut().push(lval),
                        indexmap::map::Entry::Vacant(new) => {
                            let (ns, scope, name) = new.key();
                            self.scope_arrays
                                .entry((ns.clone(), scope.clone(), String::new()))
                                .or_default()
                                .push(name.clone());
                            new.insert(vec![lval]);
                        }
                    }
                }
                v.insert(VarEntry { value, tags });
            }
        }
    }

    /// Takes the variable at map position `pos` out: the map's last entry fills the hole (one bucket
    /// of the agent's table each), so removing k variables costs k whatever the size of the table.
    /// The arrays index is the caller's to update.
    fn swap_out(&mut self, pos: usize) -> Option<VarKey> {
        self.index_new_vars();
        let last = self.vars.len().checked_sub(1)?;
        let (key, _) = self.vars.swap_remove_index(pos)?;
        let table = self.table.get_mut();
        table.forget(var_hash(&key.0, &key.1, &key.2), pos);
        if pos != last {
            if let Some(((ns, scope, lval), _)) = self.vars.get_index(pos) {
                table.moved(var_hash(ns, scope, lval), last, pos);
            }
        }
        self.indexed.set(self.vars.len());
        Some(key)
    }

    /// Puts the variables set since the table order was last brought up to date into it.
    fn index_new_vars(&mut self) {
        index_from(self.table.get_mut(), &self.vars, self.indexed.get());
        self.indexed.set(self.vars.len());
    }

    /// The agent's table order of every variable (brought up to date first). `None` only if it were
    /// asked while being brought up to date, which a shared borrow of the context cannot do.
    fn table(&self) -> Option<std::cell::Ref<'_, AgentTable>> {
        // the order depends on every variable in the table, the network's `sys` ones included (a
        // classic array's `getindices()` order changes with the table's size): a deferred discovery
        // is needed first (`crate::host::netwatch`)
        self.net_watch.trip();
        if self.indexed.get() < self.vars.len() {
            index_from(
                &mut *self.table.try_borrow_mut().ok()?,
                &self.vars,
                self.indexed.get(),
            );
            self.indexed.set(self.vars.len());
        }
        self.table.try_borrow().ok()
    }

    /// Removes a variable (bundle parameters after the call).
    pub fn remove_var(&mut self, key: &VarKey) {
        self.remove_vars(std::slice::from_ref(key));
    }

    /// Removes the variables `keys` (those that exist): each costs one lookup and one bucket of the
    /// agent's table, and the arrays index is updated once per array touched (100,000 parameters of
    /// a methods call, or a cleared array per call of a bundle, cost linear time).
    pub fn remove_vars(&mut self, keys: &[VarKey]) {
        // the array entries removed, per array: one pass over each array's members
        let mut from_arrays: FastIndexMap<VarKey, std::collections::HashSet<String>> =
            FastIndexMap::default();
        for k in keys {
            let Some(pos) = self.vars.get_index_of(k) else {
                continue;
            };
            let Some(key) = self.swap_out(pos) else {
                continue;
            };
            if let Some(a) = array_of(&key) {
                from_arrays.entry(a).or_default().insert(key.2);
            }
        }
        for (a, lvals) in from_arrays {
            if let Some(m) = self.arrays.get_mut(&a) {
                m.retain(|l| !lvals.contains(l));
            }
        }
    }

    /// Removes the classic array entries (`name[...]`) of bundle `ns:bundle`.
    pub fn clear_arrays(&mut self, ns: &str, bundle: &str) {
        let Some(names) = self.scope_arrays.get(&VarKeyRef(ns, bundle, "")) else {
            return;
        };
        let gone: Vec<VarKey> = names
            .iter()
            .filter_map(|name| self.arrays.get(&VarKeyRef(ns, bundle, name)))
            .flatten()
            .map(|lval| (ns.to_string(), bundle.to_string(), lval.clone()))
            .collect();
        self.remove_vars(&gone);
    }

    /// Empties the `this` scope.
    pub fn clear_this(&mut self) {
        self.this.clear();
    }

    /// `this.<key>`, if set.
    pub fn this_get(&self, key: &str) -> Option<&str> {
        self.this.get(key)
    }

    /// Takes the whole `this` scope out (a called bundle starts with none); see [`Context::restore_this`].
    pub fn take_this(&mut self) -> ThisScope {
        std::mem::take(&mut self.this)
    }

    /// Puts back a `this` scope taken by [`Context::take_this`].
    pub fn restore_this(&mut self, this: ThisScope) {
        self.this = this;
    }

    /// Makes `this` hold exactly `entries`, in their order (as [`Context::clear_this`] followed by
    /// [`Context::put_this`] for each would).
    pub fn reset_this(&mut self, entries: &[(&str, &str)]) {
        self.this.reset(entries);
    }

    /// [`Context::reset_this`] whose first `fixed` values are decided by `owner` (see
    /// [`super::this_scope::ThisScope::reset_owned`]).
    pub fn reset_this_owned(
        &mut self,
        owner: (usize, usize),
        fixed: usize,
        entries: &[(&str, &str)],
    ) {
        self.this.reset_owned(owner, fixed, entries);
    }

    /// Sets `this.<key>`.
    pub fn put_this(&mut self, key: &str, value: &str) {
        self.this.put(key, value);
    }

    /// Visits the variables in the agent's table order.
    fn visit_in_table_order(&self, f: &mut dyn FnMut(&VarKey, &VarEntry)) {
        // (`table` trips the deferred network watch)
        let Some(table) = self.table() else {
            return;
        };
        table.visit(&mut |p| {
            if let Some((k, e)) = self.vars.get_index(p) {
                f(k, e);
            }
        });
    }

    /// Installs the values of one iteration binding (reference text → element).
    pub fn bind(&mut self, binding: &Binding) {
        let mut out = std::mem::take(&mut self.overlay);
        out.clear();
        for (name, v) in binding {
            let key = if name.contains('[') {
                let r = VarRef::parse(name);
                let (ns, scope) = r.resolve_scope(self);
                (ns, scope, r.lval())
            } else {
                // the split VarRef::parse and resolve_scope make, without their allocations
                let (ns, scope, lval) = crate::expr::expand::split_name(self, name);
                (ns.to_string(), scope.to_string(), lval.to_string())
            };
            out.push((key, v.clone()));
        }
        self.overlay = out;
    }

    /// Defines a global soft class.
    pub fn define_global(&mut self, ns: &str, name: &str, tags: Vec<String>) {
        if self.is_hard(name) {
            return;
        }
        if let indexmap::map::Entry::Vacant(v) = self.soft.entry((ns.to_string(), name.to_string()))
        {
            v.insert(tags);
            let order = self.class_order.get_mut();
            enter_hard(order, &self.hard, &self.hard_in_order);
            order.insert(&format!("{ns}:{name}"));
        }
    }

    /// The global class table's order, the hard classes added since it was last brought up to date
    /// entered first (kept: the next read does not enter them again). `None` only if it were asked while
    /// being brought up to date, which a shared borrow of the context cannot do.
    fn global_class_order(&self) -> Option<std::cell::Ref<'_, MapOrder>> {
        if self.hard_in_order.get() < self.hard.len() {
            enter_hard(
                &mut *self.class_order.try_borrow_mut().ok()?,
                &self.hard,
                &self.hard_in_order,
            );
        }
        self.class_order.try_borrow().ok()
    }

    /// Defines a class local to the innermost frame.
    pub fn define_local(&mut self, name: &str, tags: Vec<String>) {
        if let Some(f) = self.frames.last_mut() {
            if let indexmap::map::Entry::Vacant(v) = f.local.entry(name.to_string()) {
                v.insert(tags);
                f.local_order.insert(&format!("{}:{name}", f.ns));
            }
        }
    }

    /// Removes a soft class (global and local of the innermost frame); hard classes stay.
    pub fn undefine(&mut self, ns: &str, name: &str) {
        self.net_watch.class(name);
        if self
            .soft
            .shift_remove(&(ns.to_string(), name.to_string()))
            .is_some()
        {
            self.class_order.get_mut().remove(&format!("{ns}:{name}"));
        }
        if let Some(f) = self.frames.last_mut() {
            if f.local.shift_remove(name).is_some() {
                f.local_order.remove(&format!("{}:{name}", f.ns));
            }
        }
    }

    /// Visits the global classes (`local` false) in the agent's table order, then the local classes of
    /// the innermost frame (`local` true) in theirs.
    fn visit_class_tables_in_order(
        &self,
        f: &mut dyn FnMut(bool, &str, &str, crate::expr::env::ClassTags<'_>),
    ) {
        use crate::expr::env::ClassTags;
        self.net_watch.trip();
        if let Some(order) = self.global_class_order() {
            order.visit(&mut |key| {
                let Some((ns, name)) = crate::expr::split_once_byte(key, b':') else {
                    return;
                };
                if ns == "default" {
                    if let Some(t) = self.hard.get(name) {
                        f(false, ns, name, ClassTags::Hard(t));
                        return;
                    }
                }
                if let Some(t) = self.soft.get(&ClassKeyRef(ns, name)) {
                    f(false, ns, name, ClassTags::Soft(t));
                }
            });
        }
        if let Some(fr) = self.frames.last() {
            fr.local_order.visit(&mut |key| {
                let name = crate::expr::split_once_byte(key, b':').map_or(key, |(_, n)| n);
                if let Some(t) = fr.local.get(name) {
                    f(true, &fr.ns, name, ClassTags::Soft(t));
                }
            });
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
        self.net_watch.trip();
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
    fn is_scalar_var(&self, ns: &str, scope: &str, lval: &str) -> bool {
        self.net_watch.var(scope, lval);
        if self.text_ref(ns, scope, lval).is_some() {
            return true;
        }
        match self.vars.get(&VarKeyRef(ns, scope, lval)).map(|e| &e.value) {
            Some(Value::Scalar(..)) => true,
            Some(Value::Data(d)) => !(d.is_array() || d.is_object() || d.is_null()),
            _ => false,
        }
    }
    fn get_var(&self, ns: &str, scope: &str, lval: &str) -> Option<Value> {
        self.var_ref(ns, scope, lval)
            .map(std::borrow::Cow::into_owned)
    }
    fn text_ref(&self, ns: &str, scope: &str, lval: &str) -> Option<&str> {
        self.net_watch.var(scope, lval);
        for ((n, s, l), v) in &self.overlay {
            if n == ns && s == scope && l == lval {
                return Some(v);
            }
        }
        if scope == "this" {
            return self.this_get(lval);
        }
        None
    }
    fn var_ref(&self, ns: &str, scope: &str, lval: &str) -> Option<std::borrow::Cow<'_, Value>> {
        use std::borrow::Cow;
        if let Some(v) = self.text_ref(ns, scope, lval) {
            return Some(Cow::Owned(Value::str(v.to_string())));
        }
        self.vars
            .get(&VarKeyRef(ns, scope, lval))
            .map(|e| Cow::Borrowed(&e.value))
    }
}

impl Context {
    /// Whether `name` is a hard class (the network facts' watch told when it could be one of theirs).
    pub fn is_hard(&self, name: &str) -> bool {
        self.net_watch.class(name);
        self.hard.contains_key(name)
    }

    /// The variable `name` (qualified or not, without indices) as the variable table holds it: a
    /// promise's iteration over it does not make it a scalar here. What a lone `@(name)` element of a
    /// list designates for the agent's ExpandList.
    pub fn table_var(&self, name: &str) -> Option<&Value> {
        let (ns, scope, lval) = crate::expr::expand::split_name(self, name);
        self.net_watch.var(scope, lval);
        self.vars.get(&VarKeyRef(ns, scope, lval)).map(|e| &e.value)
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
        if self.is_hard(name) {
            return ns.is_none_or(|n| n == "default");
        }
        match ns {
            None => {
                self.local_defined(name)
                    || self
                        .soft
                        .contains_key(&ClassKeyRef(self.current_ns(), name))
            }
            Some(n) => self.soft.contains_key(&ClassKeyRef(n, name)) || self.local_defined(name),
        }
    }
    fn classes(&self) -> Vec<ClassInfo> {
        let mut out = Vec::new();
        self.visit_classes(&mut |ns, name, tags| {
            out.push(ClassInfo {
                ns: ns.to_string(),
                name: name.to_string(),
                tags: tags.to_vec(),
            })
        });
        out
    }
    fn visit_classes(&self, f: &mut crate::expr::env::ClassVisitor<'_>) {
        self.visit_class_tables_in_order(&mut |_, ns, n, t| f(ns, n, t));
    }
    fn visit_class_tables(&self, f: &mut crate::expr::env::TableClassVisitor<'_>) -> bool {
        self.visit_class_tables_in_order(f);
        true
    }
    fn variables(&self) -> Vec<VarInfo> {
        let mut out = Vec::with_capacity(self.vars.len());
        self.visit_in_table_order(&mut |(ns, scope, lval), e| {
            out.push(VarInfo {
                ns: ns.clone(),
                scope: scope.clone(),
                lval: lval.clone(),
                value: e.value.clone(),
                tags: e.tags.clone(),
            })
        });
        out
    }
    fn has_array(&self, ns: &str, scope: &str, name: &str) -> bool {
        self.net_watch.var(scope, name);
        self.arrays
            .get(&VarKeyRef(ns, scope, name))
            .is_some_and(|m| !m.is_empty())
    }
    fn visit_array(
        &self,
        ns: &str,
        scope: &str,
        name: &str,
        f: &mut crate::expr::env::VarVisitor<'_>,
    ) {
        self.net_watch.var(scope, name);
        // the entries' places in the table order, sorted: the order a whole-table visit gives them
        let members = self.arrays.get(&VarKeyRef(ns, scope, name));
        let Some(table) = self.table() else {
            return;
        };
        let mut picks: Vec<((usize, usize), usize)> = Vec::new();
        for lval in members
            .into_iter()
            .flatten()
            .map(String::as_str)
            .chain(std::iter::once(name))
        {
            let Some(pos) = self.vars.get_index_of(&VarKeyRef(ns, scope, lval)) else {
                continue;
            };
            if let Some(rank) = table.rank(var_hash(ns, scope, lval), pos) {
                picks.push((rank, pos));
            }
        }
        picks.sort_unstable();
        for (_, pos) in picks {
            if let Some(((n, s, l), e)) = self.vars.get_index(pos) {
                f(n, s, l, &e.value, &e.tags);
            }
        }
    }
    fn visit_variables(&self, f: &mut crate::expr::env::VarVisitor<'_>) {
        self.visit_in_table_order(&mut |(ns, scope, lval), e| {
            f(ns, scope, lval, &e.value, &e.tags)
        });
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
    fn define_function_var(
        &mut self,
        ns: &str,
        scope: &str,
        lval: &str,
        value: Value,
        function: &str,
    ) {
        self.set_var(
            (ns.to_string(), scope.to_string(), lval.to_string()),
            value,
            vec![
                "source=function".to_string(),
                format!("function={function}"),
            ],
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

    /// What a whole-table visit shows of array `name` of `ns:scope`.
    fn by_scan(c: &Context, ns: &str, scope: &str, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        c.visit_variables(&mut |n, s, l, _, _| {
            if n == ns
                && s == scope
                && l.strip_prefix(name)
                    .is_some_and(|r| r.is_empty() || r.starts_with('['))
            {
                out.push(l.to_string());
            }
        });
        out
    }

    fn by_index(c: &Context, ns: &str, scope: &str, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        c.visit_array(ns, scope, name, &mut |_, _, l, _, _| {
            out.push(l.to_string())
        });
        out
    }

    /// A seeded xorshift32 sequence (the randomised tests' inputs, the same on every run).
    fn xorshift(mut x: u32) -> impl FnMut() -> u32 {
        move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        }
    }

    /// The table order built when it is read is the order kept up at every change: variables set,
    /// replaced and removed (a removal moves the last variable into the hole) in a random sequence,
    /// read now and then, against a table maintained at each step as before.
    #[test]
    fn table_order_built_when_read_is_the_order_kept_at_every_change() {
        let mut c = Context::default();
        let mut eager = AgentTable::default();
        let mut next = xorshift(11);
        let order = |c: &Context| {
            let mut keys = Vec::new();
            c.visit_in_table_order(&mut |k, _| keys.push(k.clone()));
            keys
        };
        for round in 0..3000 {
            let key = (
                "default".to_string(),
                format!("s{}", next() % 3),
                format!("v{}", next() % 400),
            );
            if next().is_multiple_of(4) {
                if let Some(pos) = c.vars.get_index_of(&key) {
                    let last = c.vars.len() - 1;
                    let moved = c.vars.get_index(last).map(|(k, _)| k.clone());
                    c.remove_var(&key);
                    eager.forget(var_hash(&key.0, &key.1, &key.2), pos);
                    if let (true, Some(m)) = (pos != last, moved) {
                        eager.moved(var_hash(&m.0, &m.1, &m.2), last, pos);
                    }
                }
            } else {
                if !c.vars.contains_key(&key) {
                    eager.insert(var_hash(&key.0, &key.1, &key.2), c.vars.len());
                }
                c.set_var(key, Value::str("v"), Vec::new());
            }
            if round % 97 == 0 || round == 2999 {
                let mut want = Vec::new();
                eager.visit(&mut |p| {
                    if let Some((k, _)) = c.vars.get_index(p) {
                        want.push(k.clone());
                    }
                });
                assert_eq!(order(&c), want, "round {round}");
                assert_eq!(want.len(), c.vars.len());
            }
        }
    }

    /// The array index visits an array's entries in the table order a full scan gives them, through
    /// growth past the tiny array, bucket doublings, single and bulk removals.
    #[test]
    fn array_visits_follow_the_table_order() {
        let mut c = Context::default();
        let mut next = xorshift(7);
        let arrays = ["a", "b", "cc"];
        let check = |c: &Context| {
            for a in arrays {
                for scope in ["s1", "s2"] {
                    assert_eq!(
                        by_index(c, "default", scope, a),
                        by_scan(c, "default", scope, a)
                    );
                }
            }
        };
        for round in 0..600 {
            let a = arrays[(next() % 3) as usize];
            let scope = if next().is_multiple_of(4) { "s2" } else { "s1" };
            let lval = match next() % 5 {
                0 => a.to_string(),
                1 => format!("{a}[k{}][j{}]", next() % 7, next() % 3),
                2 => format!("other{}", next() % 50),
                _ => format!("{a}[k{}]", next() % 40),
            };
            let key = ("default".to_string(), scope.to_string(), lval);
            if next().is_multiple_of(5) {
                c.remove_var(&key);
            } else {
                c.set_var(key, Value::str("v"), Vec::new());
            }
            if round % 150 == 149 {
                let gone: Vec<VarKey> = c
                    .vars
                    .keys()
                    .filter(|k| next().is_multiple_of(3) && k.2.contains('['))
                    .cloned()
                    .collect();
                c.remove_vars(&gone);
            }
            check(&c);
        }
        let entries = |c: &Context, scope: &str| {
            c.vars
                .keys()
                .filter(|k| k.1 == scope && k.2.contains('['))
                .count()
        };
        let s2 = entries(&c, "s2");
        assert!(entries(&c, "s1") > 0 && s2 > 0);
        c.clear_arrays("default", "s1");
        check(&c);
        assert!(!c.has_array("default", "s1", "a"));
        // every entry of the scope's arrays went (the plain variables stayed), none of another scope
        assert_eq!(entries(&c, "s1"), 0);
        assert_eq!(entries(&c, "s2"), s2);
        assert!(c.vars.keys().any(|k| k.1 == "s1" && !k.2.contains('[')));
    }

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
        let mut b = Binding::default();
        b.insert("l".into(), "b".into());
        c.bind(&b);
        assert_eq!(c.get_var("default", "main", "l"), Some(Value::str("b")));
    }
}
