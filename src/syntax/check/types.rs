//! Matching one rval against an attribute type and range (`CheckConstraintTypeMatch` and the `CheckParse*`
//! functions of cf-promises): the verdicts and their messages.

use super::{numbers, strings, Anchor, Outcome, RvalShape};
use crate::syntax::tables::{self, AttrSpec, DataType};

/// `SyntaxTypeMatch`: result of checking one rval against a type and range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Match {
    Ok,
    Unexpanded,
    RangeBracketed,
    RangeMultipleItems,
    GotScalar,
    GotList,
    UnixPermission,
    ScalarOutOfRange,
    EmptyScalarOutOfRange,
    IntParse,
    IntOutOfRange,
    RealInf,
    RealOutOfRange,
    OptsOutOfRange,
    FnCallReturnType,
    FnCallUnknown,
    ContextOutOfRange,
    AbsolutePath,
}

impl Match {
    fn message(self) -> Option<&'static str> {
        Some(match self {
            Match::Ok | Match::Unexpanded => return None,
            Match::RangeBracketed => {
                "Real range specification should not be enclosed in brackets - just 'a,b'"
            }
            Match::RangeMultipleItems => {
                "Range format specifier should be of form 'a,b'' but got multiple items"
            }
            Match::GotScalar => "Attempted to give a scalar to a non-scalar type",
            Match::GotList => "Attempted to give a list to a non-list type",
            Match::UnixPermission => "Error parsing Unix permission string",
            Match::ScalarOutOfRange => "Scalar value is out of range",
            Match::EmptyScalarOutOfRange => "Empty scalar value is out of range",
            Match::IntParse => "Cannot parse value as integer",
            Match::IntOutOfRange => "Integer is out of range",
            Match::RealInf => "Keyword 'inf' has an integer value, cannot be used as real",
            Match::RealOutOfRange => "Real value is out of range",
            Match::OptsOutOfRange => "Selection is out of bounds",
            Match::FnCallReturnType => "Function does not return the required type",
            Match::FnCallUnknown => "Unknown function",
            Match::ContextOutOfRange => "Context string is invalid/out of range",
            Match::AbsolutePath => "Filename is not an absolute path",
        })
    }
}

/// The range CFEngine uses for absolute paths; failing it has its own message.
const ABSPATH_RANGE: &str = "\"?(/.*)";

/// Attributes whose function-call rvals are bundle references, not function calls.
const BUNDLE_CALL_LVALS: [&str; 6] = [
    "bundlesequence",
    "edit_line",
    "edit_xml",
    "usebundle",
    "service_bundle",
    "home_bundle",
];

/// Whether a function returning `returns` may be the rval of an attribute of type `want` (measured matrix).
fn fn_return_fits(want: DataType, returns: DataType) -> bool {
    use DataType as T;
    want == returns
        || matches!(
            (want, returns),
            (T::String, T::Context | T::Int | T::Real)
                | (T::Slist, T::String)
                | (T::Ilist, T::Int)
                | (T::Rlist, T::Real)
                | (T::Context, T::String)
                | (T::Clist, T::Context)
                | (T::Olist, T::Option)
        )
}

/// `CheckConstraintTypeMatch`.
fn type_match(
    lval: &str,
    rval: &RvalShape<'_>,
    ty: DataType,
    range: &str,
    level: u8,
    out: &mut Outcome,
) -> Match {
    let s = match rval {
        RvalShape::Scalar(s) | RvalShape::Bare(s) => {
            if ty.is_list() && level == 0 {
                return Match::GotScalar;
            }
            *s
        }
        RvalShape::List(items) => {
            if !ty.is_list() {
                return Match::GotList;
            }
            for item in items {
                match type_match(lval, item, ty, range, 1, out) {
                    Match::Ok | Match::Unexpanded => {}
                    err => return err,
                }
            }
            return Match::Ok;
        }
        RvalShape::FnCall { name } => {
            if BUNDLE_CALL_LVALS.contains(&lval) {
                return Match::Ok;
            }
            return match tables::function(name) {
                None => Match::FnCallUnknown,
                Some(f) if fn_return_fits(ty, f.returns) => Match::Ok,
                Some(_) => Match::FnCallReturnType,
            };
        }
    };
    match ty {
        DataType::String | DataType::Slist => check_string(lval, s, range, out),
        DataType::Int | DataType::Ilist => numbers::check_int(s, range, out),
        DataType::Real | DataType::Rlist => numbers::check_real(s, range, out),
        DataType::Option | DataType::Olist => check_option(s, range),
        DataType::Context | DataType::Clist => check_context(s, range),
        DataType::Irange => numbers::check_int_range(s, range, out),
        DataType::Rrange => numbers::check_real_range(s, range, out),
        DataType::Body | DataType::Bundle | DataType::Data | DataType::Counter | DataType::None => {
            Match::Ok
        }
    }
}

/// `CheckParseString`.
fn check_string(lval: &str, s: &str, range: &str, out: &mut Outcome) -> Match {
    if range.is_empty() {
        return Match::Ok;
    }
    if strings::is_naked_var(s, b'@') || strings::is_naked_var(s, b'$') {
        return Match::Unexpanded;
    }
    if (lval == "mode" || lval == "search_mode") && !strings::parse_mode_string(s, &mut out.log) {
        return Match::UnixPermission;
    }
    if range == s || strings::full_match(range, s).unwrap_or(true) {
        return Match::Ok;
    }
    if strings::is_var_string(s, out) {
        Match::Unexpanded
    } else if s.is_empty() {
        Match::EmptyScalarOutOfRange
    } else if range == ABSPATH_RANGE {
        Match::AbsolutePath
    } else {
        Match::ScalarOutOfRange
    }
}

/// `CheckParseOpts`: one item of the comma-separated menu (the empty string is always accepted).
fn check_option(s: &str, range: &str) -> Match {
    if strings::is_naked_var(s, b'@') || strings::is_naked_var(s, b'$') {
        return Match::Unexpanded;
    }
    if s.is_empty() || range.split(',').any(|item| item == s) {
        Match::Ok
    } else {
        Match::OptsOutOfRange
    }
}

/// `CheckParseContext`: the whole string matches the context regex (no exemption for variables).
fn check_context(s: &str, range: &str) -> Match {
    if range.is_empty() || range == s || strings::full_match(range, s).unwrap_or(true) {
        Match::Ok
    } else {
        Match::ContextOutOfRange
    }
}

/// Check `rval` against `attr` and record the message for a mismatch.
pub(super) fn check_value(attr: &AttrSpec, rval: &RvalShape<'_>, out: &mut Outcome) {
    if matches!(attr.ty, DataType::Body | DataType::Bundle) {
        return;
    }
    let m = type_match(attr.name, rval, attr.ty, attr.range.unwrap_or(""), 0, out);
    if let Some(msg) = m.message() {
        out.error(Anchor::RvalEnd, 0, msg);
    }
}
