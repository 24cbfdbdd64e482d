//! cf-promises' checks of the whole loaded policy, once every input (those named through variables
//! included) is in: the bundle arity check over files (`PolicyCheckPartial` of the merged policy), then —
//! for a runnable policy (with `body common control`, or under `-c`) and without `-b` — the full checks
//! (`PolicyCheckRunnable`: promises without a comment when `require_comments` is on, undefined bodies),
//! and `-c`'s verification of the evaluated bundlesequence. Rules recorded in `policies/parse/runnable/`.
//! Unlike the checks of one file, none of these prints the "syntax errors" summary.

use super::ast::{Body, Bundle, Promise, Rval, Section};
use super::tables::{self, DataType, PromiseTypeLookup};
use super::validate::{constraint_end, usebundle_arity, Callees};
use crate::fasthash::FastState;
use crate::source::SourceFile;

/// How cf-promises was asked to check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mode {
    /// `-c` / `--check-runnable` (cf-agent validates with it unless given `-b`).
    pub check_runnable: bool,
    /// `-b`: a bundlesequence on the command line skips the full checks.
    pub dash_b: bool,
}

/// One message: `path:LINE:0: error: MESSAGE`, or `(null):0:0: error: MESSAGE` when `at` is `None`
/// (3.21 prints the comment check's messages so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub at: Option<(usize, u32)>,
    pub message: String,
}

impl Error {
    /// The line as cf-promises prints it on standard error.
    pub fn render(&self, files: &[std::sync::Arc<SourceFile>]) -> String {
        match self.at.and_then(|(i, off)| files.get(i).map(|f| (f, off))) {
            Some((f, off)) => format!(
                "{}:{}:0: error: {}\n",
                f.path,
                f.lines.line(off),
                self.message
            ),
            None => format!("(null):0:0: error: {}\n", self.message),
        }
    }
}

/// The merged policy: its bundles and bodies in merge order, each bundle with the index of its file in
/// `files`.
pub struct Merged<'a> {
    pub bundles: Vec<(&'a Bundle, usize)>,
    pub bodies: Vec<&'a Body>,
    pub files: &'a [std::sync::Arc<SourceFile>],
}

/// The checks of the merged policy. Empty when the policy passes.
pub fn check(m: &Merged<'_>, mode: Mode, require_comments: bool) -> Vec<Error> {
    let arity = arity_errors(m);
    if !arity.is_empty() || mode.dash_b {
        return arity;
    }
    let runnable = m
        .bodies
        .iter()
        .any(|b| b.body_type == "common" && b.name == "control");
    if !(runnable || mode.check_runnable) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if require_comments {
        out.extend(uncommented(m));
    }
    out.extend(undefined_bodies(m));
    out
}

/// Every promise of the merged policy, in merge order: (file index, its source, bundle, section, promise).
fn promises<'a>(
    m: &'a Merged<'a>,
) -> impl Iterator<Item = (usize, &'a SourceFile, &'a Bundle, &'a Section, &'a Promise)> {
    m.bundles.iter().flat_map(move |&(b, i)| {
        let f = m.files.get(i);
        b.sections.iter().flat_map(move |s| {
            s.promises
                .iter()
                .filter_map(move |p| f.map(|f| (i, &**f, b, s, p)))
        })
    })
}

fn arity_errors(m: &Merged<'_>) -> Vec<Error> {
    let all = Callees::new(m.bundles.iter().map(|(b, _)| *b));
    let mut out = Vec::new();
    for (i, f, _, s, p) in promises(m) {
        if s.promise_type != "methods" {
            continue;
        }
        for c in &p.constraints {
            if let Some(message) = usebundle_arity(c, &all) {
                out.push(Error {
                    at: Some((i, constraint_end(c, f))),
                    message,
                });
            }
        }
    }
    out
}

/// Whether `require_comments` (its last setting whose class guard holds, read without expanding
/// variables) turns the comment check on: `true` or `yes` (recorded: `on` is not).
pub fn comments_required(value: Option<&Rval>) -> bool {
    matches!(value, Some(Rval::Scalar(s)) if s.value == "true" || s.value == "yes")
}

fn uncommented(m: &Merged<'_>) -> Vec<Error> {
    promises(m)
        .filter(|(.., p)| !p.constraints.iter().any(|c| c.lval == "comment"))
        .map(|_| Error {
            at: None,
            message: "Promise is missing a comment attribute, and comments are required by policy"
                .into(),
        })
        .collect()
}

/// Body-typed attributes of built-in promise types (not of custom ones, recorded) naming no body of that
/// type: an unqualified name may be in any namespace, `ns:name` only in `ns`.
fn undefined_bodies(m: &Merged<'_>) -> Vec<Error> {
    // (body type, name as written without a namespace prefix) → the namespaces defining it: one
    // lookup per body-typed constraint (linear in the policy, not constraints × bodies)
    let mut bodies: std::collections::HashMap<(&str, &str), Vec<&str>, FastState> =
        Default::default();
    for b in &m.bodies {
        let written = b.name.rsplit_once(':').map_or(b.name.as_str(), |(_, s)| s);
        bodies
            .entry((b.body_type.as_str(), written))
            .or_default()
            .push(b.namespace.as_str());
    }
    let defined = |ty: &str, ns: Option<&str>, name: &str| {
        bodies
            .get(&(ty, name))
            .is_some_and(|nss| ns.is_none_or(|ns| nss.contains(&ns)))
    };
    let mut out = Vec::new();
    for (i, f, b, s, p) in promises(m) {
        let PromiseTypeLookup::BuiltIn(spec) =
            tables::lookup_promise_type(&b.bundle_type, &s.promise_type)
        else {
            continue;
        };
        for c in &p.constraints {
            let is_body = tables::spec_attr(spec, &c.lval).is_some_and(|a| a.ty == DataType::Body);
            let full = match &c.rval {
                Rval::Scalar(s) if is_body => s.value.as_str(),
                Rval::Call(call) if is_body => call.name.as_str(),
                _ => continue,
            };
            let (ns, symbol) = match full.split_once(':') {
                Some((ns, sym)) => (Some(ns), sym),
                None => (None, full),
            };
            if !defined(&c.lval, ns, symbol) {
                out.push(Error {
                    at: Some((i, constraint_end(c, f))),
                    message: format!("Undefined body {symbol} with type {}", c.lval),
                });
            }
        }
    }
    out
}

/// `-c`'s verification of the evaluated bundlesequence (`names`: each item's name, a function call's
/// name, lists expanded): every name must be a bundle of any type and namespace. `bundles` are the
/// bundles' names as written (`__main__` of the entry file as `main`): a sequence name matches one equal
/// to it or to its part after the namespace prefix (recorded: `x:main` finds `main`, `default:main`
/// finds `default:main`, `main` does not). The lines cf-promises logs, the fatal one last; empty when
/// all are defined.
pub fn verify_bundlesequence(bundles: &[&str], names: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for name in names {
        let short = name.split_once(':').map_or(name.as_str(), |(_, s)| s);
        if !bundles.iter().any(|b| b == name || *b == short) {
            out.push(format!(
                "Bundle '{name}' listed in the bundlesequence is not a defined bundle"
            ));
        }
    }
    if !out.is_empty() {
        out.push(
            "Fatal CFEngine error: Errors in promise bundles: could not verify bundlesequence"
                .into(),
        );
    }
    out
}
