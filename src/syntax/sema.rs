//! The semantic rewrites cf-promises performs while parsing, over plain values: section merging, class
//! guards and quoted variable guards, `data =>` JSON/YAML, `@(x)` → `mergedata`, constraint merging,
//! function-call nesting limit, and the namespace switch of `body file control`. Both parsers call these:
//! the pest lowering (`lower.rs`) and the hand-written fast path (`fast/`), so their ASTs agree by
//! construction.

use super::ast::*;
use crate::diag::Diagnostic;
use crate::source::Span;

/// cf-promises' parser refuses function calls nested deeper than this (fatal parse error).
pub const MAX_CALL_NESTING: usize = 9;

/// The fatal diagnostic of a call opened at `call_depth` open calls, when that is one too many;
/// `args_start` is the offset of its `(`.
pub fn call_too_deep(call_depth: usize, args_start: usize) -> Option<Diagnostic> {
    if call_depth < MAX_CALL_NESTING {
        return None;
    }
    let mut d = Diagnostic::error(
        (args_start + 1) as u32,
        "Nesting of functions is deeper than recommended, near token '('",
    );
    d.fatal = true;
    Some(d)
}

/// The promise type of a `type:` header.
pub fn promise_type_name(header: &str) -> String {
    header.trim_end_matches(':').to_string()
}

/// A class guard token `expr::` → its guard; two names separated only by blanks is an error.
pub fn guard(token: &str, span: Span, diags: &mut Vec<Diagnostic>) -> Guard {
    let raw = token.strip_suffix("::").unwrap_or(token);
    let mut prev_name_end = false;
    let mut gap = false;
    for c in raw.chars() {
        let name_char = c.is_alphanumeric() || c == '_' || !c.is_ascii();
        if c == ' ' || c == '\t' {
            gap = prev_name_end;
            continue;
        }
        if name_char && gap {
            diags.push(Diagnostic::error(
                span.end,
                "class names can't be separated by whitespace without an intervening operator",
            ));
            break;
        }
        gap = false;
        prev_name_end = name_char || c == ')';
    }
    Guard {
        expr: raw.to_string(),
        span,
    }
}

/// A promise constraint `lval => rval`, with the parse-time rval rewrites applied.
pub fn constraint(lval: &str, lval_span: Span, rval: Rval) -> Constraint {
    Constraint {
        lval: lval.to_string(),
        rval: rewrite_rval(lval, rval),
        lval_span,
    }
}

/// The promises of one section as its items arrive, with the guard state in force.
pub struct SectionItems {
    guard: Guard,
    var_guard: Option<Scalar>,
    promises: Vec<Promise>,
}

impl Default for SectionItems {
    fn default() -> Self {
        SectionItems {
            guard: Guard::any(),
            var_guard: None,
            promises: Vec::new(),
        }
    }
}

impl SectionItems {
    /// A class guard `expr::`.
    pub fn class_guard(&mut self, g: Guard) {
        self.guard = g;
        self.var_guard = None;
    }

    /// A quoted variable class guard `"expr"::`.
    pub fn var_guard(&mut self, s: Scalar) {
        self.guard = Guard::any();
        self.var_guard = Some(s);
    }

    /// A promise; `constraints` as written (already through `constraint`).
    pub fn promise(
        &mut self,
        promiser: Scalar,
        promisee: Option<Rval>,
        constraints: Vec<Constraint>,
        span: Span,
    ) {
        let mut vg = self.var_guard.clone();
        let constraints = merge_constraints(&mut vg, constraints);
        self.promises.push(Promise {
            guard: self.guard.clone(),
            var_guard: vg,
            promiser,
            promisee,
            constraints,
            span,
        });
    }

    /// Add the section to the bundle's sections: a repeated promise type is merged into the first.
    pub fn finish(self, sections: &mut Vec<Section>, promise_type: String, header_span: Span) {
        if let Some(existing) = sections.iter_mut().find(|s| s.promise_type == promise_type) {
            existing.header_span = header_span;
            existing.promises.extend(self.promises);
        } else {
            sections.push(Section {
                promise_type,
                header_span,
                promises: self.promises,
            });
        }
    }
}

/// The attributes of one body as they arrive, with the guard state in force.
pub struct BodyItems {
    guard: Guard,
    var_guard: Option<Scalar>,
    pub attrs: Vec<BodyAttr>,
}

impl Default for BodyItems {
    fn default() -> Self {
        BodyItems {
            guard: Guard::any(),
            var_guard: None,
            attrs: Vec::new(),
        }
    }
}

impl BodyItems {
    pub fn class_guard(&mut self, g: Guard) {
        self.guard = g;
        self.var_guard = None;
    }

    pub fn var_guard(&mut self, s: Option<Scalar>) {
        self.guard = Guard::any();
        self.var_guard = s;
    }

    pub fn attr(&mut self, constraint: Constraint) {
        self.attrs.push(BodyAttr {
            guard: self.guard.clone(),
            var_guard: self.var_guard.clone(),
            constraint,
        });
    }
}

/// The parts of a `body TYPE NAME(params)` header.
pub struct BodyHead {
    pub body_type: String,
    pub name: String,
    pub params: Vec<String>,
    pub name_span: Span,
    pub span: Span,
}

/// A finished body in `namespace`; `body file control` with a `namespace` attribute switches the
/// namespace for the blocks after it (not for the body itself).
pub fn finish_body(namespace: &mut String, head: BodyHead, items: BodyItems) -> Body {
    let body_namespace = namespace.clone();
    if head.body_type == "file" && head.name == "control" {
        for a in &items.attrs {
            if a.constraint.lval == "namespace" {
                if let Rval::Scalar(s) = &a.constraint.rval {
                    *namespace = s.value.clone();
                }
            }
        }
    }
    Body {
        body_type: head.body_type,
        namespace: body_namespace,
        name: head.name,
        params: head.params,
        attrs: items.attrs,
        name_span: head.name_span,
        span: head.span,
    }
}

/// The parse-time rval rewrites of cf3parse.y: `data => "<json>"` is parsed now (a string with variables
/// becomes `parsejson(…)`, YAML text `parseyaml(…)`), and `data => @(x)` becomes `mergedata("x")`; the
/// same holds for `template_data`.
pub fn rewrite_rval(lval: &str, rval: Rval) -> Rval {
    if lval != "data" && lval != "template_data" {
        return rval;
    }
    let Rval::Scalar(s) = rval else { return rval };
    match s.quote {
        Quote::NakedVar if s.value.starts_with('@') => {
            let inner = s
                .value
                .get(2..s.value.len().saturating_sub(1))
                .unwrap_or("")
                .to_string();
            Rval::Call(Call {
                name: "mergedata".to_string(),
                args: vec![Rval::Scalar(Scalar {
                    value: inner,
                    quote: Quote::Double,
                    span: s.span,
                })],
                span: s.span,
            })
        }
        Quote::Double | Quote::Single | Quote::Back => {
            let yaml = s.value.starts_with("---");
            if s.value.contains("$(") || s.value.contains("${") {
                let span = s.span;
                return Rval::Call(Call {
                    name: if yaml { "parseyaml" } else { "parsejson" }.to_string(),
                    args: vec![Rval::Scalar(s)],
                    span,
                });
            }
            if yaml {
                return match crate::yaml::parse(&s.value) {
                    Ok(v) if v.is_object() || v.is_array() => Rval::Data(v, s.span),
                    _ => Rval::Scalar(s),
                };
            }
            // cf-promises' JSON parser keeps `\uXXXX` escapes as literal text.
            // (the agent's dialect: trailing commas accepted, text after the value ignored)
            match crate::functions::json::parse(&s.value) {
                Ok(mut v) if v.is_object() || v.is_array() => {
                    crate::functions::json::store_numbers(&mut v);
                    Rval::Data(v, s.span)
                }
                _ => Rval::Scalar(s),
            }
        }
        _ => Rval::Scalar(s),
    }
}

/// A promise's constraints as cf-promises' parser appends them (`PromiseAppendConstraint`): an attribute
/// given again replaces the earlier one in its place (the last value wins), except that two string
/// `if` (or `ifvarclass`) values are combined as `(first).(second)`; a quoted class guard (`"expr"::`)
/// is the first `ifvarclass` of each promise under it, so it combines with the promise's own.
fn merge_constraints(var_guard: &mut Option<Scalar>, raw: Vec<Constraint>) -> Vec<Constraint> {
    let repeated = |i: usize, c: &Constraint| {
        raw.get(..i)
            .is_some_and(|b| b.iter().any(|o| o.lval == c.lval))
    };
    let any_repeated = raw.iter().enumerate().any(|(i, c)| repeated(i, c));
    if !any_repeated && (var_guard.is_none() || raw.iter().all(|c| c.lval != "ifvarclass")) {
        // Nothing to merge or combine: the constraints as written.
        return raw;
    }
    let mut out: Vec<Constraint> = Vec::with_capacity(raw.len());
    for mut c in raw {
        let and_ed = c.lval == "if" || c.lval == "ifvarclass";
        if c.lval == "ifvarclass" {
            if let (Some(vg), Rval::Scalar(new)) = (var_guard.as_ref(), &mut c.rval) {
                new.value = format!("({}).({})", vg.value, new.value);
                *var_guard = None;
            }
        }
        match out.iter_mut().find(|o| o.lval == c.lval) {
            Some(old) => {
                if and_ed {
                    if let (Rval::Scalar(o), Rval::Scalar(n)) = (&old.rval, &mut c.rval) {
                        n.value = format!("({}).({})", o.value, n.value);
                    }
                }
                *old = c;
            }
            None => out.push(c),
        }
    }
    out
}
