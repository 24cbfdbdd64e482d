//! The policy check cf-promises runs after a parse without errors (`PolicyCheck`): promise types used in a
//! bundle type that does not support them, and rvals whose *shape* (scalar, list, function call, container)
//! does not fit the attribute type. These messages have no caret: `path:LINE:0: error: MESSAGE`.

use super::{Anchor, RvalShape};
use crate::syntax::tables::{self, DataType, PromiseTypeLookup};

/// One message of the post-parse policy check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostParseError {
    pub message: String,
    /// Which line is printed: [`Anchor::GuardEnd`] (the promise type guard), [`Anchor::RvalEnd`] (line where
    /// the rval ends) or [`Anchor::NextTokenEnd`] (bare rvals: line of the token after it). Column is always 0.
    pub anchor: Anchor,
}

/// Whether `promise_type` is a built-in type of some bundle type.
fn is_known_promise_type(promise_type: &str) -> bool {
    tables::promise_type(promise_type).is_some()
}

/// For every promise in a section `promise_type:` of a bundle of type `bundle_type` (printed once per promise,
/// at the line of the guard): a built-in promise type of another bundle type.
pub fn post_parse_promise(bundle_type: &str, promise_type: &str) -> Option<PostParseError> {
    let custom =
        tables::lookup_promise_type(bundle_type, promise_type) == PromiseTypeLookup::Custom;
    (custom && is_known_promise_type(promise_type)).then(|| PostParseError {
        message: format!(
            "Promise type '{promise_type}' not supported by '{bundle_type}' bundle type"
        ),
        anchor: Anchor::GuardEnd,
    })
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

/// For each constraint of a promise of a built-in promise type: an rval of the wrong shape (`comment => { "a" }`).
/// Applies to all attributes, the common ones included; custom promise types are not checked.
pub fn post_parse_constraint(
    bundle_type: &str,
    promise_type: &str,
    lval: &str,
    rval: &RvalShape<'_>,
) -> Option<PostParseError> {
    let PromiseTypeLookup::BuiltIn(_) = tables::lookup_promise_type(bundle_type, promise_type)
    else {
        return None;
    };
    let attr = tables::promise_attr(bundle_type, promise_type, lval)?;
    if shape_fits(lval, rval, attr.ty) {
        return None;
    }
    Some(PostParseError {
        message: format!("Type mismatch in constraint: {lval}"),
        anchor: if matches!(rval, RvalShape::Bare(_)) {
            Anchor::NextTokenEnd
        } else {
            Anchor::RvalEnd
        },
    })
}
