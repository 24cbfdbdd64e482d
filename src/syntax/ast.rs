//! The typed AST of a policy file. Every node carries a byte-offset `Span` (ignored by `PartialEq`), so
//! round trips compare structurally.

use crate::source::Span;

/// One parsed policy file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Policy {
    /// The path as given (appears as `sourcePath`).
    pub path: String,
    pub bundles: Vec<Bundle>,
    pub bodies: Vec<Body>,
    pub promise_blocks: Vec<PromiseBlock>,
}

/// `bundle TYPE NAME(params) { sections }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    pub bundle_type: String,
    pub namespace: String,
    pub name: String,
    pub params: Vec<String>,
    pub sections: Vec<Section>,
    /// Span of the name token (its line is the bundle's `line`).
    pub name_span: Span,
    pub span: Span,
}

/// All promises of one promise type in a bundle (repeated headers are merged into the first).
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub promise_type: String,
    /// Span of the last `type:` header of this type.
    pub header_span: Span,
    pub promises: Vec<Promise>,
}

/// A class guard in front of promises or body attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    /// The class expression, blanks removed (`any` by default).
    pub expr: String,
    pub span: Span,
}

impl Guard {
    pub fn any() -> Guard {
        Guard {
            expr: "any".to_string(),
            span: Span::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Promise {
    /// The class guard in force (`linux::`), `any` if none.
    pub guard: Guard,
    /// A quoted variable class guard (`"expr"::`) in force: becomes a synthetic `ifvarclass`.
    pub var_guard: Option<Scalar>,
    pub promiser: Scalar,
    pub promisee: Option<Rval>,
    pub constraints: Vec<Constraint>,
    pub span: Span,
}

/// `lval => rval`.
#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    pub lval: String,
    pub lval_span: Span,
    pub rval: Rval,
}

/// How a scalar was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    Double,
    Single,
    Back,
    /// An unquoted identifier (`immediate`, `ns:name`).
    Bare,
    /// A naked variable reference (`$(x)`, `@(x)`).
    NakedVar,
}

/// A string value with its unescaped text.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    pub value: String,
    pub quote: Quote,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Rval {
    Scalar(Scalar),
    List(Vec<Rval>, Span),
    Call(Call),
    /// A data container parsed at parse time (`data => '{…}'`).
    Data(serde_json::Value, Span),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Vec<Rval>,
    pub span: Span,
}

impl Rval {
    pub fn span(&self) -> Span {
        match self {
            Rval::Scalar(s) => s.span,
            Rval::List(_, sp) | Rval::Data(_, sp) => *sp,
            Rval::Call(c) => c.span,
        }
    }
}

/// `body TYPE NAME(params) { [guard::] attr => rval; … }`.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub body_type: String,
    pub namespace: String,
    pub name: String,
    pub params: Vec<String>,
    pub attrs: Vec<BodyAttr>,
    pub name_span: Span,
    pub span: Span,
}

impl Body {
    /// The attributes in force: a repeated attribute under the same guard replaces the earlier one in
    /// place (what cf-promises keeps, and prints with `-p json`); `attrs` keeps every one for the checks.
    pub fn effective_attrs(&self) -> Vec<&BodyAttr> {
        let mut out: Vec<&BodyAttr> = Vec::with_capacity(self.attrs.len());
        for a in &self.attrs {
            match out
                .iter_mut()
                .find(|o| o.constraint.lval == a.constraint.lval && o.guard.expr == a.guard.expr)
            {
                Some(slot) => *slot = a,
                None => out.push(a),
            }
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BodyAttr {
    pub guard: Guard,
    pub var_guard: Option<Scalar>,
    pub constraint: Constraint,
}

/// `promise agent NAME { attr => rval; … }` (a custom promise type declaration).
#[derive(Debug, Clone, PartialEq)]
pub struct PromiseBlock {
    pub kind: String,
    pub name: String,
    pub attrs: Vec<Constraint>,
    pub name_span: Span,
    pub span: Span,
}
