//! The policy check cf-promises runs after a parse without errors (`PolicyCheck`): promise types used in a
//! bundle type that does not support them, rvals whose *shape* (scalar, list, function call, container) does
//! not fit the attribute type, and the checks of `vars` (variable names, one value type) and `access`
//! (`report_data_select` needs `resource_type => "query"`). These messages have no caret and column 0:
//! `path:LINE:0: error: MESSAGE`, printed after all parse-time messages.

use super::RvalShape;
use crate::fasthash::FastState;
use crate::syntax::tables::{self, DataType, PromiseTypeLookup};

/// Which line a post-parse message is printed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostParseLine {
    /// The line of the promise type guard (`files:`).
    Guard,
    /// The line of the promiser.
    Promiser,
    /// The line where constraint `index` (of the slice given) ends: the rval's last token, or for a bare rval
    /// the token after it.
    Constraint(usize),
    /// Printed as `path:1:1: error: MESSAGE` without source line, before every other post-parse message (it
    /// is a parser error raised while the parser state is reset).
    FileStart,
}

/// One message of the post-parse policy check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostParseError {
    pub message: String,
    pub line: PostParseLine,
}

fn error(line: PostParseLine, message: impl Into<String>) -> PostParseError {
    PostParseError {
        message: message.into(),
        line,
    }
}

/// `RvalTypeCheckDataType`: function calls always fit; scalar types need a scalar, list types a scalar or a
/// list, `data` a container (a `data => "..."` string became one, or a function call, while parsing).
fn shape_fits(lval: &str, rval: &RvalShape<'_>, ty: DataType) -> bool {
    match rval {
        RvalShape::FnCall { .. } => true,
        RvalShape::List(_) => ty.is_list(),
        RvalShape::Scalar(_) | RvalShape::Bare(_) => match ty {
            DataType::Data => matches!(lval, "data" | "template_data"),
            _ => true,
        },
    }
}

/// Variable names `vars` rejects (`CheckParseVariableName`); `Err` carries the parser error some shapes raise.
fn variable_name_ok(name: &str) -> Result<bool, &'static str> {
    const RESERVED: [&str; 6] = [
        "promiser",
        "handle",
        "promise_filename",
        "promise_dirname",
        "promise_linenumber",
        "this",
    ];
    if RESERVED.contains(&name) {
        return Ok(false);
    }
    let Some(first_dot) = name.find('.') else {
        return Ok(true);
    };
    let (mut count, mut level) = (0, 0i32);
    for c in name.bytes() {
        match c {
            b'.' => {
                count += 1;
                if count > 1 && level != 1 {
                    return Ok(false);
                }
            }
            b'[' => level += 1,
            b']' => level -= 1,
            _ => {}
        }
        if level > 1 {
            return Err("Too many levels of [] reserved for array use");
        }
    }
    if count == 1 {
        // sscanf("%[^.].%s"): something before the dot, and a word after it.
        let after = name.get(first_dot + 1..).unwrap_or("");
        if first_dot == 0 || after.trim_start().is_empty() {
            return Ok(false);
        }
    }
    Ok(true)
}

const VALUE_TYPES: [&str; 7] = ["string", "int", "real", "slist", "ilist", "rlist", "data"];

fn check_vars(
    promiser: &str,
    constraints: &[(&str, RvalShape<'_>)],
    out: &mut Vec<PostParseError>,
) {
    match variable_name_ok(promiser) {
        Ok(true) => {}
        Ok(false) => out.push(error(
            PostParseLine::Promiser,
            "Variable promise is using an invalid name (promiser)",
        )),
        Err(parser_error) => {
            out.push(error(PostParseLine::FileStart, parser_error));
            out.push(error(
                PostParseLine::Promiser,
                "Variable promise is using an invalid name (promiser)",
            ));
        }
    }
    let mut existing: Option<&str> = None;
    for (i, (lval, _)) in constraints.iter().enumerate() {
        if !VALUE_TYPES.contains(lval) {
            continue;
        }
        if let Some(prev) = existing.filter(|prev| prev != lval) {
            out.push(error(
                PostParseLine::Constraint(i),
                format!("Variable contains existing data type contstraint {prev}, tried to redefine with {lval}"),
            ));
        }
        existing = Some(lval);
    }
}

fn check_access(constraints: &[(&str, RvalShape<'_>)], out: &mut Vec<PostParseError>) {
    let query = constraints.iter().any(|(lval, rval)| {
        *lval == "resource_type"
            && matches!(rval, RvalShape::Scalar("query") | RvalShape::Bare("query"))
    });
    let select = constraints
        .iter()
        .rposition(|(lval, _)| *lval == "report_data_select");
    if let (Some(i), false) = (select, query) {
        out.push(error(
            PostParseLine::Constraint(i),
            "Constraint report_data_select is allowed only for 'query' resource_type",
        ));
    }
}

/// The post-parse messages for one promise (`promiser` and its constraints in source order) in a section
/// `promise_type:` of a bundle of type `bundle_type`. Custom promise types are not checked.
pub fn post_parse_promise(
    bundle_type: &str,
    promise_type: &str,
    promiser: &str,
    constraints: &[(&str, RvalShape<'_>)],
) -> Vec<PostParseError> {
    let mut out = Vec::new();
    let PromiseTypeLookup::BuiltIn(spec) = tables::lookup_promise_type(bundle_type, promise_type)
    else {
        if tables::promise_type(promise_type).is_some() {
            out.push(error(
                PostParseLine::Guard,
                format!(
                    "Promise type '{promise_type}' not supported by '{bundle_type}' bundle type"
                ),
            ));
        }
        return out;
    };
    for (i, (lval, rval)) in constraints.iter().enumerate() {
        let Some(attr) = tables::spec_attr(spec, lval) else {
            continue;
        };
        if !shape_fits(lval, rval, attr.ty) {
            out.push(error(
                PostParseLine::Constraint(i),
                format!("Type mismatch in constraint: {lval}"),
            ));
        }
    }
    match promise_type {
        "vars" => check_vars(promiser, constraints, &mut out),
        "access" => check_access(constraints, &mut out),
        _ => {}
    }
    out
}

/// Bundle names cf-promises reserves for special variable contexts (measured: `def`, `default`, `control`,
/// `data` are allowed).
pub const RESERVED_BUNDLE_NAMES: [&str; 6] = ["const", "edit", "match", "mon", "sys", "this"];

/// A bundle or body definition, for the policy-level checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Definition<'a> {
    /// Namespace from `body file control { namespace => ... }` (`default` otherwise).
    pub namespace: &'a str,
    /// Bundle type or body type.
    pub def_type: &'a str,
    pub name: &'a str,
}

/// Whether [`duplicate_definitions`] looks at bundles or bodies (only the message differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionKind {
    Bundle,
    Body,
}

/// Duplicate definitions, in the order cf-promises prints them: for each definition in source order, one
/// message per *other* definition with the same namespace, type and name (printed at its `bundle`/`body`
/// line). Returns (index into `defs`, message).
pub fn duplicate_definitions(
    defs: &[Definition<'_>],
    kind: DefinitionKind,
) -> Vec<(usize, String)> {
    let word = match kind {
        DefinitionKind::Bundle => "bundle",
        DefinitionKind::Body => "body",
    };
    // `body file control` is per file and never a duplicate, even twice in one file (recorded:
    // policies/parse/checks/file_control_twice)
    let per_file = |d: &Definition<'_>| {
        kind == DefinitionKind::Body && d.def_type == "file" && d.name == "control"
    };
    // how often each definition occurs (one pass: a pairwise comparison took 68 s for 40,000 bundles)
    let mut count: std::collections::HashMap<&Definition<'_>, usize, FastState> =
        std::collections::HashMap::with_capacity_and_hasher(defs.len(), FastState::default());
    for d in defs {
        *count.entry(d).or_default() += 1;
    }
    let mut out = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        if per_file(d) {
            continue;
        }
        let others = count.get(d).map_or(0, |n| n - 1);
        for _ in 0..others {
            out.push((
                i,
                format!(
                    "Duplicate definition of {word} {} with type {}",
                    d.name, d.def_type
                ),
            ));
        }
    }
    out
}

/// A bundle named like a special variable context (printed at the `bundle` line, before the checks of the
/// bundle's promises).
pub fn reserved_bundle_name(name: &str) -> Option<String> {
    RESERVED_BUNDLE_NAMES
        .contains(&name)
        .then(|| format!("Use of a reserved container name as a bundle name \"{name}\""))
}

/// `body TYPE control(args)`, whatever the type (`body perms control(x)` too; printed at the `body` line,
/// after the body duplicates).
pub fn control_body_args(body_type: &str, body_name: &str, has_args: bool) -> Option<String> {
    (has_args && body_name == "control")
        .then(|| format!("Control bodies cannot take arguments, body {body_type} control"))
}

/// Duplicate promise handles over the whole policy, in source order: a handle used again by a promise
/// whose class guard is written exactly as that of the handle's *first* promise (other guards may be
/// exclusive, so they are legal; `if`/`unless` do not count). Printed at the promise's line, after all
/// other post-parse messages. Handles containing a variable reference are not compared. `handles` holds
/// (handle, class guard); returns (index into `handles`, message).
pub fn duplicate_handles(handles: &[(&str, &str)]) -> Vec<(usize, String)> {
    let mut first: std::collections::HashMap<&str, &str, FastState> = Default::default();
    let mut out = Vec::new();
    for (i, (h, guard)) in handles.iter().enumerate() {
        if h.contains("$(") || h.contains("${") {
            continue;
        }
        match first.get(h) {
            Some(g) if g == guard => out.push((i, format!("Duplicate promise handle {h} found"))),
            Some(_) => {}
            None => {
                first.insert(h, guard);
            }
        }
    }
    out
}

/// The name a bundle is called by for the arity check (`GetBundle`): its name, qualified with its
/// namespace outside `default` (so `ns:b(…)` finds `b` of namespace `ns`, and a plain `b(…)` does not).
pub fn bundle_call_name(namespace: &str, name: &str) -> String {
    if namespace == "default" || name.contains(':') {
        name.to_string()
    } else {
        format!("{namespace}:{name}")
    }
}

/// `usebundle => NAME(args)` whose callee (an agent bundle, else a common bundle, called by
/// [`bundle_call_name`]) takes another number of parameters. A bare name is not checked.
pub fn bundle_arity(call: &str, given: usize, params: usize) -> Option<String> {
    (given != params).then(|| {
        format!("Conflicting arity in calling bundle {call}, expected {params} arguments, {given} given")
    })
}
