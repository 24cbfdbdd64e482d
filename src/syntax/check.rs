//! Parse-time constraint checks of cf-promises 3.21, with its exact messages and caret positions.
//!
//! cf-promises checks each `lval => rval` while parsing: unknown attributes, then the rval against the
//! attribute's type and range from the syntax tables (`CheckConstraintTypeMatch`), and `if`/`ifvarclass`
//! strings as class expressions. The interface is independent of the AST: the caller describes the rval with
//! [`RvalShape`] and renders each [`CheckError`] at the position its [`Anchor`] names.
//!
//! ```
//! use cfsim::syntax::check::{Anchor, BlockChecker, RvalShape, Severity};
//!
//! // One checker per bundle / body / promise block, fed every constraint in source order.
//! let mut bundle = BlockChecker::new();
//! let result = bundle.promise_constraint("agent", "vars", "int", &RvalShape::Scalar("1.5"));
//! let error = &result.errors[0];
//! assert_eq!((error.severity, error.anchor), (Severity::Error, Anchor::RvalEnd));
//! // stderr: `path:LINE:COL: error: {error.message}` + source line + caret; stdout: `   error: {line}`
//! assert_eq!(result.log.len(), 1);
//! assert!(bundle.promise_constraint("agent", "vars", "string", &RvalShape::Bare("x")).is_clean());
//! ```
//!
//! Behaviour measured against the real binary (recordings in `policies/parse/checks/`):
//! - Only attributes specific to a built-in promise type are value-checked while parsing; the common ones
//!   (`comment`, `handle`, `if`, `depends_on`, ...) and `select_region`-like bundle-wide ones are not.
//! - Unknown promise types (also built-in types used in the wrong bundle type, e.g. `files:` in `common`) are
//!   custom types while parsing: any attribute, no value checks, but `if`/`ifvarclass` are still
//!   class-checked (the post-parse check then rejects built-in types of other bundle types).
//! - Removed promise/body types (`outputs:`, `body reporter control`) are warnings; variable class guards
//!   (`"a&&b"::`) are not validated.
//! - After an unknown attribute, value checks stop for the rest of the bundle/body (CFEngine's `INSTALL_SKIP`);
//!   unknown attributes are still reported. [`BlockChecker`] carries that state for one block.
//! - Values containing a variable reference are not checked (numbers, ranges, and strings that fail their
//!   range); options are only skipped when the whole value is one `$(x)`.
//! - Function calls are checked only for their name and return type, never their arguments.
//! - Unknown body types are accepted silently and their attributes are not checked.
//!
//! When the whole parse produced no error, cf-promises runs a policy check with its own messages (no caret,
//! column 0), in this order: [`duplicate_definitions`] of bundles; per bundle in source order
//! [`reserved_bundle_name`] then [`post_parse_promise`] for each promise (rval shapes of *all* attributes of
//! built-in promise types, so `comment => { "a" }` fails there and not while parsing; `vars` names and value
//! types; `access` rules); [`duplicate_definitions`] of bodies; per body [`control_body_args`]; finally
//! [`duplicate_handles`].

pub(crate) mod numbers;
mod post_parse;
mod strings;
mod types;

use crate::syntax::tables::{self, AttrSpec, DataType, PromiseTypeLookup, Status, Visibility};
use types::check_value;

use types::Match;

pub use post_parse::{
    bundle_arity, bundle_call_name, control_body_args, duplicate_definitions, duplicate_handles,
    post_parse_promise, reserved_bundle_name, Definition, DefinitionKind, PostParseError,
    PostParseLine, RESERVED_BUNDLE_NAMES,
};
pub use strings::class_expression;

/// cf-promises stops after this many errors: the next error is printed, then `Too many errors`, exit 1.
pub const MAX_ERRORS: usize = 12;
/// Printed on stderr (own line) when the error count exceeds [`MAX_ERRORS`].
pub const TOO_MANY_ERRORS: &str = "Too many errors";
/// Logged on stdout (`   error: ` prefix) at the end of a parse with errors.
pub const SYNTAX_ERRORS_SUMMARY: &str = "There are syntax errors in policy files";

/// The shape of an rval as the checks need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RvalShape<'a> {
    /// A quoted string (its value, escapes resolved).
    Scalar(&'a str),
    /// An unquoted scalar: a bare identifier or a naked `$(x)` / `@(x)`. CFEngine treats it like a quoted
    /// string (so `slist => @(x)` is "a scalar given to a non-scalar type"), but reports its errors after the
    /// token that follows it ([`Anchor::NextTokenEnd`]).
    Bare(&'a str),
    /// `{ ... }`.
    List(Vec<RvalShape<'a>>),
    /// `name(...)`; `name` may itself be a naked variable (then it is an unknown function).
    FnCall { name: &'a str },
}

impl RvalShape<'_> {
    /// Quoted or bare scalar.
    pub fn is_scalar(&self) -> bool {
        matches!(self, RvalShape::Scalar(_) | RvalShape::Bare(_))
    }
}

/// Severity of a check result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    /// Printed as `path:line:col: warning: message`; does not fail the parse.
    Warning,
}

/// Where cf-promises puts the column (and caret) of a message.
///
/// Every anchor names a token (the lval, the rval's last token, ...). cf-promises prints the number of the
/// line where that token *ends*, the text of the line where it *starts*, and as column the token's start
/// column plus its length in bytes; tabs count as one column and the caret line is padded with spaces
/// (`printf("%*s", col, "^")`). Only multi-line strings make these differ from "just after the token".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Just after the last character of the lval (line of the lval).
    LvalEnd,
    /// Just after the last character of the rval: after the closing quote, `}` or `)` (line of that character).
    RvalEnd,
    /// Just after the bundle type word of `bundle TYPE NAME`.
    BundleTypeEnd,
    /// Just after the `:` of a promise type guard (`outputs:`).
    GuardEnd,
    /// Just after the `{` that opens a body.
    BlockOpenEnd,
    /// Just after the token that follows an unquoted rval (usually its `;` or `,`, possibly on a later line):
    /// the parser needs that lookahead before it can act on a bare word. Used instead of `RvalEnd` for
    /// [`RvalShape::Bare`].
    NextTokenEnd,
}

/// One message cf-promises prints on stderr for a constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError {
    pub severity: Severity,
    /// Full message text after `error: ` / `warning: `.
    pub message: String,
    pub anchor: Anchor,
    /// Added to the anchor column (class-expression errors point back into the string; may be negative).
    pub column_offset: i64,
}

impl CheckError {
    fn error(anchor: Anchor, column_offset: i64, message: impl Into<String>) -> CheckError {
        CheckError {
            severity: Severity::Error,
            message: message.into(),
            anchor,
            column_offset,
        }
    }
}

/// Everything one constraint produces: stderr messages in order, and the lines cf-promises logs on stdout
/// (printed there as `   error: <line>`), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckResult {
    pub errors: Vec<CheckError>,
    pub log: Vec<String>,
}

impl CheckResult {
    /// No message at all.
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty() && self.log.is_empty()
    }
}

/// Accumulator used by the checks.
type Outcome = CheckResult;

impl Outcome {
    fn error(&mut self, anchor: Anchor, column_offset: i64, message: impl Into<String>) {
        self.errors
            .push(CheckError::error(anchor, column_offset, message));
    }
}

/// Attributes of a custom promise type definition (`promise agent NAME { ... }`); not in `cf-promises -s json`.
pub const PROMISE_BLOCK_ATTRS: [AttrSpec; 2] = [
    AttrSpec {
        name: "interpreter",
        ty: DataType::String,
        range: Some(""),
        status: Status::Normal,
        visibility: Visibility::Body,
    },
    AttrSpec {
        name: "path",
        ty: DataType::String,
        range: Some(""),
        status: Status::Normal,
        visibility: Visibility::Body,
    },
];

/// Bundle types cf-promises 3.21 accepts besides those of `cf-promises -s json` (measured: `reporter`, `gendoc`,
/// `reactor`, `file` are rejected). Bundles of these types only have the common promise types.
pub const EXTRA_BUNDLE_TYPES: [&str; 5] =
    ["executor", "hub", "keygenerator", "knowledge", "runagent"];

/// Promise types removed from CFEngine but still known to the 3.21 parser (bundle type, promise type): using
/// one is a warning, and values are no longer checked in the rest of the bundle.
pub const REMOVED_PROMISE_TYPES: [(&str, &str); 5] = [
    ("agent", "outputs"),
    ("knowledge", "inferences"),
    ("knowledge", "occurrences"),
    ("knowledge", "things"),
    ("knowledge", "topics"),
];

/// Body types removed from CFEngine (former control bodies): a warning, then the body is ignored.
pub const REMOVED_BODY_TYPES: [&str; 2] = ["knowledge", "reporter"];

fn is_removed_promise_type(bundle_type: &str, promise_type: &str) -> bool {
    REMOVED_PROMISE_TYPES.contains(&(bundle_type, promise_type))
}

fn check_class_literal(lval: &str, rval: &RvalShape<'_>, out: &mut Outcome) {
    if let (RvalShape::Scalar(s) | RvalShape::Bare(s), "if" | "ifvarclass") = (rval, lval) {
        if let Some(e) = strings::validate_class_literal(s) {
            out.errors.push(e);
        }
    }
}

/// Errors after a bare rval are reported after the next token.
fn bare_anchors(mut out: CheckResult, rval: &RvalShape<'_>) -> CheckResult {
    if matches!(rval, RvalShape::Bare(_)) {
        for e in &mut out.errors {
            if e.anchor == Anchor::RvalEnd {
                e.anchor = Anchor::NextTokenEnd;
            }
        }
    }
    out
}

/// Checks for the constraints of one bundle, body or promise block, in source order.
///
/// After an unknown attribute cf-promises stops checking values for the rest of the block, so use one
/// `BlockChecker` per block and feed it every constraint.
#[derive(Debug, Clone, Default)]
pub struct BlockChecker {
    skip_values: bool,
    removed_body: bool,
}

impl BlockChecker {
    pub fn new() -> BlockChecker {
        BlockChecker::default()
    }

    /// A promise type guard `promise_type:` in a bundle of type `bundle_type`.
    pub fn promise_type_guard(&mut self, bundle_type: &str, promise_type: &str) -> CheckResult {
        let mut out = Outcome::default();
        if is_removed_promise_type(bundle_type, promise_type) {
            out.errors.push(CheckError {
                severity: Severity::Warning,
                message: format!(
                    "Removed promise type '{promise_type}' in bundle type '{bundle_type}' [-Wremoved]"
                ),
                anchor: Anchor::GuardEnd,
                column_offset: 0,
            });
            self.skip_values = true;
        }
        out
    }

    /// The opening `{` of `body body_type body_name`.
    pub fn body_open(&mut self, body_type: &str, body_name: &str) -> CheckResult {
        let mut out = Outcome::default();
        if REMOVED_BODY_TYPES.contains(&body_type) {
            out.errors.push(CheckError {
                severity: Severity::Warning,
                message: format!("Removed body '{body_name}' of type '{body_type}' [-Wremoved]"),
                anchor: Anchor::BlockOpenEnd,
                column_offset: 0,
            });
            self.removed_body = true;
        }
        out
    }

    /// A constraint of a promise in a section `promise_type:` of a bundle of type `bundle_type`.
    pub fn promise_constraint(
        &mut self,
        bundle_type: &str,
        promise_type: &str,
        lval: &str,
        rval: &RvalShape<'_>,
    ) -> CheckResult {
        let out = self.promise_constraint_at_rval(bundle_type, promise_type, lval, rval);
        bare_anchors(out, rval)
    }

    fn promise_constraint_at_rval(
        &mut self,
        bundle_type: &str,
        promise_type: &str,
        lval: &str,
        rval: &RvalShape<'_>,
    ) -> CheckResult {
        let mut out = Outcome::default();
        if is_removed_promise_type(bundle_type, promise_type) {
            // Its attribute table is not published (`cf-promises -s json` omits removed types).
            return out;
        }
        let spec = match tables::lookup_promise_type(bundle_type, promise_type) {
            PromiseTypeLookup::BuiltIn(spec) => spec,
            PromiseTypeLookup::Custom => {
                if !self.skip_values {
                    check_class_literal(lval, rval, &mut out);
                }
                return out;
            }
        };
        let Some(attr) = tables::spec_attr(spec, lval) else {
            out.error(
                Anchor::LvalEnd,
                0,
                format!(
                    "Unknown attribute '{lval}' for promise type '{}' in bundle with type '{bundle_type}'",
                    spec.name
                ),
            );
            self.skip_values = true;
            return out;
        };
        if self.skip_values {
            return out;
        }
        let parse_time_json =
            matches!(lval, "data" | "template_data") && matches!(rval, RvalShape::Scalar(_));
        if attr.visibility == Visibility::PromiseType && !parse_time_json {
            check_value(attr, rval, &mut out);
        }
        check_class_literal(lval, rval, &mut out);
        out
    }

    /// A constraint of `body body_type body_name`; `varclass` is the enclosing `"expr"::` guard, if any.
    pub fn body_constraint(
        &mut self,
        body_type: &str,
        body_name: &str,
        lval: &str,
        rval: &RvalShape<'_>,
        varclass: Option<&str>,
    ) -> CheckResult {
        let out = self.body_constraint_at_rval(body_type, body_name, lval, rval, varclass);
        bare_anchors(out, rval)
    }

    fn body_constraint_at_rval(
        &mut self,
        body_type: &str,
        body_name: &str,
        lval: &str,
        rval: &RvalShape<'_>,
        varclass: Option<&str>,
    ) -> CheckResult {
        let mut out = Outcome::default();
        if self.removed_body {
            return out;
        }
        if tables::body_type(body_type).is_some() {
            match tables::body_attr(body_type, lval) {
                None => {
                    out.error(
                        Anchor::LvalEnd,
                        0,
                        format!("Unknown attribute '{lval}' for 'body {body_type} {body_name}'"),
                    );
                    self.skip_values = true;
                }
                Some(_) if self.skip_values => {}
                Some(attr) => {
                    if attr.status == Status::Deprecated {
                        out.errors.push(CheckError {
                            severity: Severity::Warning,
                            message: format!(
                                "Deprecated constraint '{lval}' in body type '{body_type}' [-Wdeprecated]"
                            ),
                            anchor: Anchor::RvalEnd,
                            column_offset: 0,
                        });
                    }
                    check_value(attr, rval, &mut out);
                    if let Some(vc) = varclass {
                        out.error(
                            Anchor::RvalEnd,
                            0,
                            format!("Body attributes can't be put under a variable class '{vc}'"),
                        );
                    }
                }
            }
        }
        if body_type == "file" && body_name == "control" && !rval.is_scalar() {
            match lval {
                "namespace" => out.error(
                    Anchor::RvalEnd,
                    0,
                    "namespace must be a constant scalar string",
                ),
                "evaluation_order" => out.error(
                    Anchor::RvalEnd,
                    0,
                    "evaluation_order must be a constant scalar string",
                ),
                _ => {}
            }
        }
        out
    }

    /// A constraint of a custom promise type definition `promise agent NAME { lval => rval; }`.
    pub fn promise_block_constraint(
        &mut self,
        name: &str,
        lval: &str,
        rval: &RvalShape<'_>,
    ) -> CheckResult {
        let mut out = Outcome::default();
        match PROMISE_BLOCK_ATTRS.iter().find(|a| a.name == lval) {
            None => {
                out.error(
                    Anchor::LvalEnd,
                    0,
                    format!("Unknown attribute '{lval}' for 'promise agent {name}'"),
                );
                self.skip_values = true;
            }
            Some(_) if self.skip_values => {}
            Some(attr) => check_value(attr, rval, &mut out),
        }
        out
    }
}

/// `bundle TYPE NAME`: an unknown bundle type is an error; the bundle is still parsed, its common promise types
/// (`vars`, `classes`, ...) checked and its other sections treated as custom promise types.
pub fn check_bundle_type(bundle_type: &str) -> Option<CheckError> {
    if tables::bundle_type(bundle_type).is_some() || EXTRA_BUNDLE_TYPES.contains(&bundle_type) {
        return None;
    }
    Some(CheckError::error(
        Anchor::BundleTypeEnd,
        0,
        format!("Unknown bundle type '{bundle_type}'"),
    ))
}

/// [`BlockChecker::promise_constraint`] for a constraint with no unknown attribute before it in its bundle.
pub fn check_promise_constraint(
    bundle_type: &str,
    promise_type: &str,
    lval: &str,
    rval: &RvalShape<'_>,
) -> CheckResult {
    BlockChecker::new().promise_constraint(bundle_type, promise_type, lval, rval)
}

/// [`BlockChecker::body_constraint`] for a constraint with no unknown attribute before it in its body.
pub fn check_body_constraint(
    body_type: &str,
    body_name: &str,
    lval: &str,
    rval: &RvalShape<'_>,
) -> CheckResult {
    BlockChecker::new().body_constraint(body_type, body_name, lval, rval, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random values, multi-byte characters and CFEngine syntax included.
    fn values() -> Vec<String> {
        const PIECES: [&str; 24] = [
            "1",
            "-",
            "+",
            ".",
            "e",
            "x",
            "0x",
            "k",
            "%",
            " ",
            "\t",
            "$(",
            "${",
            ")",
            "}",
            "@(",
            "é",
            "ß",
            "\u{1F600}",
            "\\",
            "\"",
            "inf",
            "nan",
            ",",
        ];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut out = Vec::new();
        for _ in 0..400 {
            let mut s = String::new();
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for k in 0..(seed >> 60) {
                let i = ((seed >> (4 * k)) % PIECES.len() as u64) as usize;
                s.push_str(PIECES[i]);
            }
            out.push(s);
        }
        out
    }

    #[test]
    fn arbitrary_values_never_panic_and_anchor_sensibly() {
        let values = values();
        for p in tables::promise_types() {
            for a in p.attrs {
                for v in &values {
                    for rval in [
                        RvalShape::Scalar(v),
                        RvalShape::Bare(v),
                        RvalShape::List(vec![RvalShape::Scalar(v)]),
                        RvalShape::FnCall { name: v },
                    ] {
                        let r = check_promise_constraint("agent", p.name, a.name, &rval);
                        for e in &r.errors {
                            assert!(!e.message.is_empty());
                            assert!(e.column_offset <= 0, "{} {} {v:?}", p.name, a.name);
                        }
                    }
                }
            }
        }
        for b in tables::body_types() {
            for a in b.attrs {
                for v in &values {
                    let r = check_body_constraint(b.name, "x", a.name, &RvalShape::Scalar(v));
                    assert!(r.errors.iter().all(|e| e.column_offset == 0));
                }
            }
        }
    }
}
