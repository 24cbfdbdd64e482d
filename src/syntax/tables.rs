//! Lookup API over the syntax tables generated from `cf-promises -s json` (bundle, promise, body types, functions).
//!
//! The data lives in `tables_gen.rs` and `functions_gen.rs` as static slices sorted by name, so every lookup is
//! a binary search over `'static` data: nothing is built at startup.

use super::functions_gen::FUNCTIONS;
use super::tables_gen::{
    BODY_TYPES, BUNDLE_TYPES, COMMON_ATTRS, CONTROL_BODY_TYPES, PROMISE_TYPES,
};

/// Data type of an attribute, function parameter or function result, as named by CFEngine (`DataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `string`
    String,
    /// `int`
    Int,
    /// `real`
    Real,
    /// `slist`
    Slist,
    /// `ilist`
    Ilist,
    /// `rlist`
    Rlist,
    /// `option`: one value from a comma-separated menu
    Option,
    /// `olist`: list of values from a menu
    Olist,
    /// `body`: reference to a body of the type named by the attribute
    Body,
    /// `bundle`: reference to a bundle
    Bundle,
    /// `context`: class expression
    Context,
    /// `clist`: list of class expressions
    Clist,
    /// `irange`: `irange(a,b)`
    Irange,
    /// `rrange`: `rrange(a,b)`
    Rrange,
    /// `counter`
    Counter,
    /// `data`: data container
    Data,
    /// `none`
    None,
}

impl DataType {
    /// The name CFEngine prints (`slist`, `irange`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DataType::String => "string",
            DataType::Int => "int",
            DataType::Real => "real",
            DataType::Slist => "slist",
            DataType::Ilist => "ilist",
            DataType::Rlist => "rlist",
            DataType::Option => "option",
            DataType::Olist => "olist",
            DataType::Body => "body",
            DataType::Bundle => "bundle",
            DataType::Context => "context",
            DataType::Clist => "clist",
            DataType::Irange => "irange",
            DataType::Rrange => "rrange",
            DataType::Counter => "counter",
            DataType::Data => "data",
            DataType::None => "none",
        }
    }

    /// Parse a CFEngine data type name; `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<DataType> {
        const ALL: [DataType; 17] = [
            DataType::String,
            DataType::Int,
            DataType::Real,
            DataType::Slist,
            DataType::Ilist,
            DataType::Rlist,
            DataType::Option,
            DataType::Olist,
            DataType::Body,
            DataType::Bundle,
            DataType::Context,
            DataType::Clist,
            DataType::Irange,
            DataType::Rrange,
            DataType::Counter,
            DataType::Data,
            DataType::None,
        ];
        ALL.into_iter().find(|t| t.name() == name)
    }

    /// List types (`slist`, `ilist`, `rlist`, `olist`, `clist`).
    pub fn is_list(self) -> bool {
        matches!(
            self,
            DataType::Slist | DataType::Ilist | DataType::Rlist | DataType::Olist | DataType::Clist
        )
    }
}

/// Syntax status of an attribute, type or function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Normal,
    Deprecated,
    Removed,
}

impl Status {
    /// The name `cf-promises -s json` prints.
    pub fn name(self) -> &'static str {
        match self {
            Status::Normal => "normal",
            Status::Deprecated => "deprecated",
            Status::Removed => "removed",
        }
    }

    /// Parse a status name; `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Status> {
        [Status::Normal, Status::Deprecated, Status::Removed]
            .into_iter()
            .find(|s| s.name() == name)
    }
}

/// Where an attribute comes from, as `cf-promises -s json` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visibility {
    /// Common to every promise type (`if`, `handle`, `comment`, ...).
    Global,
    /// Common to every promise type of one bundle type (`select_region` in `edit_line`).
    Bundle,
    /// Specific to the promise type.
    PromiseType,
    /// Attribute of a body type.
    Body,
}

impl Visibility {
    /// The name `cf-promises -s json` prints.
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Global => "global",
            Visibility::Bundle => "bundle",
            Visibility::PromiseType => "promiseType",
            Visibility::Body => "body",
        }
    }

    /// Parse a visibility name; `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Visibility> {
        [
            Visibility::Global,
            Visibility::Bundle,
            Visibility::PromiseType,
            Visibility::Body,
        ]
        .into_iter()
        .find(|v| v.name() == name)
    }
}

/// One attribute (constraint lval) of a promise type or body type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrSpec {
    pub name: &'static str,
    pub ty: DataType,
    /// The range string: a comma-separated menu for `option`/`olist`, `min,max` for numbers, a regex for
    /// strings and lists; `None` when the table has no range (bodies and bundles).
    pub range: Option<&'static str>,
    pub status: Status,
    pub visibility: Visibility,
}

/// A bundle type (`agent`, `common`, `edit_line`, ...) and the built-in promise types it allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BundleTypeSpec {
    pub name: &'static str,
    pub status: Status,
    /// Allowed built-in promise types, sorted by name.
    pub promise_types: &'static [&'static str],
}

/// A built-in promise type and all its attributes (global, bundle-common and own), sorted by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromiseTypeSpec {
    pub name: &'static str,
    pub status: Status,
    pub attrs: &'static [AttrSpec],
}

/// A body type (`perms`, `action`, or a control body such as `common`) and its attributes, sorted by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTypeSpec {
    pub name: &'static str,
    pub status: Status,
    pub attrs: &'static [AttrSpec],
}

/// One parameter of a built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FnParam {
    pub ty: DataType,
    /// Menu, `min,max` or regex, as for attributes.
    pub range: &'static str,
    pub description: &'static str,
}

/// Signature of a built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FnSpec {
    pub name: &'static str,
    pub returns: DataType,
    /// Fixed parameters; with `variadic`, further arguments of any count may follow.
    pub params: &'static [FnParam],
    pub variadic: bool,
    /// Category as printed by `cf-promises -s json` (`data`, `files`, `system`, ...).
    pub category: &'static str,
    /// Results are cached per run (`cached` in the table).
    pub cached: bool,
    /// Accepts a list or data container by name or inline JSON (`collecting` in the table).
    pub collecting: bool,
    pub status: Status,
}

fn find<T>(
    slice: &'static [T],
    key: &str,
    name: impl Fn(&T) -> &'static str,
) -> Option<&'static T> {
    slice
        .binary_search_by(|item| name(item).cmp(key))
        .ok()
        .and_then(|i| slice.get(i))
}

/// The bundle type named `name`, if CFEngine knows it.
pub fn bundle_type(name: &str) -> Option<&'static BundleTypeSpec> {
    find(BUNDLE_TYPES, name, |b| b.name)
}

/// All bundle types, sorted by name.
pub fn bundle_types() -> &'static [BundleTypeSpec] {
    BUNDLE_TYPES
}

/// Built-in promise types allowed in bundles of type `bundle_type` (sorted; empty for an unknown bundle type).
pub fn promise_types_in(bundle_type: &str) -> &'static [&'static str] {
    self::bundle_type(bundle_type).map_or(&[], |b| b.promise_types)
}

/// Whether the built-in promise type `promise_type` is allowed in a bundle of type `bundle_type`.
pub fn promise_type_allowed(bundle_type: &str, promise_type: &str) -> bool {
    promise_types_in(bundle_type)
        .binary_search(&promise_type)
        .is_ok()
}

/// The built-in promise type named `name` (regardless of bundle type).
pub fn promise_type(name: &str) -> Option<&'static PromiseTypeSpec> {
    find(PROMISE_TYPES, name, |p| p.name)
}

/// All built-in promise types, sorted by name.
pub fn promise_types() -> &'static [PromiseTypeSpec] {
    PROMISE_TYPES
}

/// The attributes every promise type accepts (`if`, `handle`, `comment`, ...), sorted by name. Custom promise
/// types accept these too.
pub fn common_attrs() -> &'static [AttrSpec] {
    COMMON_ATTRS
}

/// A common attribute by name.
pub fn common_attr(lval: &str) -> Option<&'static AttrSpec> {
    find(COMMON_ATTRS, lval, |a| a.name)
}

/// What the tables say about the promise type `promise_type` in a bundle of type `bundle_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromiseTypeLookup {
    /// Built-in and allowed in this bundle type.
    BuiltIn(&'static PromiseTypeSpec),
    /// Not a built-in promise type of this bundle type: CFEngine treats it as a custom promise type (it is
    /// only resolved at run time, against `promise agent NAME` blocks). Only common attributes are known.
    Custom,
}

/// Classify `promise_type` inside a bundle of type `bundle_type`, as CFEngine's `PromiseTypeSyntaxGet` does:
/// the types of the bundle type, else the common ones (`vars`, `classes`, `meta`, `defaults`, `reports`, which
/// are exactly the promise types of bundle type `common`), whatever the bundle type.
pub fn lookup_promise_type(bundle_type: &str, promise_type: &str) -> PromiseTypeLookup {
    // asked for every constraint the checks and the evaluator meet: the promises of a section come one
    // after the other and a policy uses few pairs of bundle and promise type, so the last answers are
    // kept (the masterfiles check: 5,500 lookups); others are binary searches of the sorted tables (a
    // hashed index of every bundle type's promise types cost each process ~42,000 instructions to
    // build, 5% of a small `promises -p json`)
    type Kept = std::cell::Cell<Option<(&'static str, &'static PromiseTypeSpec)>>;
    const KEPT: usize = 4;
    thread_local! {
        static LAST: ([Kept; KEPT], std::cell::Cell<usize>) =
            const { ([const { std::cell::Cell::new(None) }; KEPT], std::cell::Cell::new(0)) };
    }
    let hit = LAST.with(|(kept, _)| {
        kept.iter()
            .filter_map(std::cell::Cell::get)
            .find(|(b, spec)| spec.name == promise_type && *b == bundle_type)
    });
    if let Some((_, spec)) = hit {
        return PromiseTypeLookup::BuiltIn(spec);
    }
    let keep = |b: &'static str, spec: &'static PromiseTypeSpec| {
        LAST.with(|(kept, next)| {
            if let Some(slot) = kept.get(next.get() % KEPT) {
                slot.set(Some((b, spec)));
            }
            next.set(next.get().wrapping_add(1));
        });
    };
    let allowed = |b: &BundleTypeSpec| {
        b.promise_types.binary_search(&promise_type).is_ok()
            || promise_type_allowed("common", promise_type)
    };
    let found = match self::bundle_type(bundle_type) {
        Some(b) => {
            let spec = allowed(b)
                .then(|| self::promise_type(promise_type))
                .flatten();
            if let Some(spec) = spec {
                keep(b.name, spec);
            }
            spec
        }
        // a bundle type the tables do not know allows the common promise types
        None => promise_type_allowed("common", promise_type)
            .then(|| self::promise_type(promise_type))
            .flatten(),
    };
    match found {
        Some(spec) => PromiseTypeLookup::BuiltIn(spec),
        None => PromiseTypeLookup::Custom,
    }
}

type HashMap<K, V> = std::collections::HashMap<K, V, crate::fasthash::FastState>;

/// The attribute `lval` of the built-in promise type `spec`: for a caller that already looked the
/// promise type up. Asked for every promise constraint: a hashed index per promise type, by the spec's
/// place in `PROMISE_TYPES` (one probe; a binary search of its sorted attributes for a spec from
/// elsewhere).
pub fn spec_attr(spec: &'static PromiseTypeSpec, lval: &str) -> Option<&'static AttrSpec> {
    type ByPlace = Vec<HashMap<&'static str, &'static AttrSpec>>;
    static BY_PLACE: std::sync::OnceLock<ByPlace> = std::sync::OnceLock::new();
    let place = (spec as *const PromiseTypeSpec as usize)
        .checked_sub(PROMISE_TYPES.as_ptr() as usize)
        .map(|off| off / std::mem::size_of::<PromiseTypeSpec>())
        .filter(|&i| PROMISE_TYPES.get(i).is_some_and(|p| std::ptr::eq(p, spec)));
    match place {
        Some(i) => BY_PLACE
            .get_or_init(|| {
                PROMISE_TYPES
                    .iter()
                    .map(|p| p.attrs.iter().map(|a| (a.name, a)).collect())
                    .collect()
            })
            .get(i)?
            .get(lval)
            .copied(),
        None => find(spec.attrs, lval, |a| a.name),
    }
}

/// The attribute spec for `lval` of a promise of type `promise_type` in a bundle of type `bundle_type`.
///
/// For built-in promise types this searches the promise type's full attribute list (common attributes
/// included). For custom promise types only the common attributes are known; `None` there means "passed to
/// the promise module", not "unknown".
pub fn promise_attr(
    bundle_type: &str,
    promise_type: &str,
    lval: &str,
) -> Option<&'static AttrSpec> {
    match lookup_promise_type(bundle_type, promise_type) {
        PromiseTypeLookup::BuiltIn(spec) => spec_attr(spec, lval),
        PromiseTypeLookup::Custom => common_attr(lval),
    }
}

/// The body type named `name` (including control body types such as `common` and `agent`).
pub fn body_type(name: &str) -> Option<&'static BodyTypeSpec> {
    find(BODY_TYPES, name, |b| b.name)
}

/// All body types, sorted by name.
pub fn body_types() -> &'static [BodyTypeSpec] {
    BODY_TYPES
}

/// Whether `name` is a control body type (`body common control`, `body agent control`, ...).
pub fn is_control_body_type(name: &str) -> bool {
    CONTROL_BODY_TYPES.binary_search(&name).is_ok()
}

/// Control body types, sorted by name.
pub fn control_body_types() -> &'static [&'static str] {
    CONTROL_BODY_TYPES
}

/// The attribute spec for `lval` in a body of type `body_type`.
pub fn body_attr(body_type: &str, lval: &str) -> Option<&'static AttrSpec> {
    // asked for every body constraint: two binary searches of the sorted tables (a hashed index of
    // every body type's attributes cost each process ~66,000 instructions and fresh pages to build,
    // a tenth of a small run's own work; the masterfiles check meets ~1,000 body constraints)
    find(self::body_type(body_type)?.attrs, lval, |a| a.name)
}

/// The built-in function named `name`.
pub fn function(name: &str) -> Option<&'static FnSpec> {
    // asked for every call the evaluator meets (is it built in? cached?): a hashed index, built once
    static INDEX: std::sync::OnceLock<HashMap<&'static str, &'static FnSpec>> =
        std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| FUNCTIONS.iter().map(|f| (f.name, f)).collect())
        .get(name)
        .copied()
}

/// All built-in functions, sorted by name.
pub fn functions() -> &'static [FnSpec] {
    FUNCTIONS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lookups (the last answers kept per thread, the hashed attribute index) answer what the
    /// sorted tables' searches answer, for every bundle type (and one the tables do not know) × every
    /// promise type (and a custom one) × every attribute.
    #[test]
    fn hashed_lookups_agree_with_the_searches() {
        let bundles: Vec<&str> = BUNDLE_TYPES
            .iter()
            .map(|b| b.name)
            .chain(["no_such_bundle_type"])
            .collect();
        let types: Vec<&str> = PROMISE_TYPES
            .iter()
            .map(|p| p.name)
            .chain(["my_custom_type"])
            .collect();
        for bt in BODY_TYPES {
            for a in bt.attrs {
                assert_eq!(body_attr(bt.name, a.name).map(|x| x.name), Some(a.name));
            }
        }
        for b in &bundles {
            for t in &types {
                let searched = if promise_type_allowed(b, t) || promise_type_allowed("common", t) {
                    promise_type(t)
                } else {
                    None
                };
                let hashed = match lookup_promise_type(b, t) {
                    PromiseTypeLookup::BuiltIn(s) => Some(s),
                    PromiseTypeLookup::Custom => None,
                };
                assert_eq!(hashed.map(|s| s.name), searched.map(|s| s.name), "{b} {t}");
                for bt in BODY_TYPES.iter().map(|x| x.name).chain(["no_such_body"]) {
                    assert_eq!(
                        body_attr(bt, t).map(|x| x.name),
                        body_type(bt)
                            .and_then(|x| find(x.attrs, t, |a| a.name))
                            .map(|x| x.name),
                        "{bt} {t}"
                    );
                }
                if let Some(spec) = searched {
                    for a in spec.attrs.iter().map(|a| a.name).chain(["no_such_attr"]) {
                        assert_eq!(
                            promise_attr(b, t, a).map(|x| x.name),
                            find(spec.attrs, a, |x| x.name).map(|x| x.name),
                            "{b} {t} {a}"
                        );
                    }
                }
            }
        }
        // promise type first: the last answer (remembered per thread) must not be given for the same
        // promise type in another bundle type (`files` in `agent`, then in `common`)
        for t in &types {
            for b in &bundles {
                let searched = promise_type_allowed(b, t) || promise_type_allowed("common", t);
                let hashed = matches!(lookup_promise_type(b, t), PromiseTypeLookup::BuiltIn(_));
                assert_eq!(hashed, searched, "{b} {t}");
            }
        }
        // pairs asked again a few lookups later: answered from the kept ones, or searched again once
        // evicted (four are kept)
        let pairs: Vec<(&str, &str)> = bundles
            .iter()
            .flat_map(|b| types.iter().map(move |t| (*b, *t)))
            .collect();
        for i in 0..pairs.len() {
            for back in [0, 1, 2, 3, 4, 6, 1, 0] {
                let Some(&(b, t)) = i.checked_sub(back).and_then(|j| pairs.get(j)) else {
                    continue;
                };
                let searched = promise_type_allowed(b, t) || promise_type_allowed("common", t);
                let kept = match lookup_promise_type(b, t) {
                    PromiseTypeLookup::BuiltIn(s) => Some(s.name),
                    PromiseTypeLookup::Custom => None,
                };
                assert_eq!(kept, searched.then_some(t), "{b} {t}");
            }
        }
    }
}
