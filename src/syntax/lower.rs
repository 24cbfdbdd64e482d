//! Pest pairs → typed AST: one `lower_<rule>` function per grammar rule, plus the semantic rewrites
//! cf-promises performs while parsing (section merging, guards, `data =>` JSON, `@(x)` → `mergedata`).

use pest::iterators::Pair;

use super::ast::*;
use super::strings::unescape;
use super::Rule;
use crate::diag::Diagnostic;
use crate::source::Span;

/// Lowering state for one file: the namespace in force and the diagnostics found so far.
pub struct Lowerer<'d> {
    /// Offset of the parsed slice within the file.
    pub base: usize,
    pub namespace: String,
    pub diags: &'d mut Vec<Diagnostic>,
    /// Function calls currently open around the rval being lowered.
    pub call_depth: usize,
}

/// cf-promises' parser refuses function calls nested deeper than this (fatal parse error).
pub const MAX_CALL_NESTING: usize = 9;

fn internal(pair: &Pair<'_, Rule>, base: usize) -> Diagnostic {
    Diagnostic::error(
        (pair.as_span().start() + base) as u32,
        format!("internal parser error at rule {:?}", pair.as_rule()),
    )
}

impl Lowerer<'_> {
    fn span(&self, pair: &Pair<'_, Rule>) -> Span {
        let s = pair.as_span();
        Span::new(s.start() + self.base, s.end() + self.base)
    }

    fn err(&mut self, offset: usize, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(offset as u32, msg));
    }

    /// The namespace in force and the name as written (`default:main` stays qualified, as in cf-promises'
    /// JSON).
    fn split_ns(&self, name: &str) -> (String, String) {
        (self.namespace.clone(), name.to_string())
    }

    fn lower_params(&self, pair: Pair<'_, Rule>) -> Vec<String> {
        pair.into_inner().map(|p| p.as_str().to_string()).collect()
    }

    pub fn lower_bundle(&mut self, pair: Pair<'_, Rule>) -> Option<Bundle> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().skip(1);
        let ty = inner.next()?;
        let name = inner.next()?;
        let name_span = self.span(&name);
        let (namespace, name) = self.split_ns(name.as_str());
        let mut params = Vec::new();
        let mut sections: Vec<Section> = Vec::new();
        for p in inner {
            match p.as_rule() {
                Rule::params => params = self.lower_params(p),
                Rule::section => self.lower_section(p, &mut sections),
                _ => {
                    let d = internal(&p, self.base);
                    self.diags.push(d);
                }
            }
        }
        Some(Bundle {
            bundle_type: ty.as_str().to_string(),
            namespace,
            name,
            params,
            sections,
            name_span,
            span,
        })
    }

    fn lower_section(&mut self, pair: Pair<'_, Rule>, sections: &mut Vec<Section>) {
        let mut inner = pair.into_inner();
        let Some(header) = inner.next() else { return };
        let header_span = self.span(&header);
        let promise_type = header.as_str().trim_end_matches(':').to_string();
        let mut guard = Guard::any();
        let mut var_guard: Option<Scalar> = None;
        let mut promises = Vec::new();
        for p in inner {
            match p.as_rule() {
                Rule::class_guard => {
                    guard = self.lower_guard(&p);
                    var_guard = None;
                }
                Rule::promise => {
                    let span = self.span(&p);
                    let mut pi = p.into_inner();
                    let Some(promiser) = pi.next().and_then(|s| self.lower_qstring(s)) else {
                        continue;
                    };
                    let mut promisee = None;
                    let mut constraints = Vec::new();
                    let mut is_guard = false;
                    for part in pi {
                        match part.as_rule() {
                            Rule::vguard_end => is_guard = true,
                            Rule::promisee => {
                                promisee =
                                    part.into_inner().next().and_then(|r| self.lower_rval(r));
                            }
                            Rule::constraint => {
                                if let Some(c) = self.lower_constraint(part) {
                                    constraints.push(c);
                                }
                            }
                            _ => {}
                        }
                    }
                    if is_guard {
                        guard = Guard::any();
                        var_guard = Some(promiser);
                        continue;
                    }
                    let mut vg = var_guard.clone();
                    let constraints = merge_constraints(&mut vg, constraints);
                    promises.push(Promise {
                        guard: guard.clone(),
                        var_guard: vg,
                        promiser,
                        promisee,
                        constraints,
                        span,
                    });
                }
                _ => {}
            }
        }
        if let Some(existing) = sections.iter_mut().find(|s| s.promise_type == promise_type) {
            existing.header_span = header_span;
            existing.promises.extend(promises);
        } else {
            sections.push(Section {
                promise_type,
                header_span,
                promises,
            });
        }
    }

    /// `linux.!foo::` → `linux.!foo`; two names separated only by blanks is an error.
    fn lower_guard(&mut self, pair: &Pair<'_, Rule>) -> Guard {
        let span = self.span(pair);
        let raw = pair.as_str().strip_suffix("::").unwrap_or(pair.as_str());
        let mut prev_name_end = false;
        let mut gap = false;
        for c in raw.chars() {
            let name_char = c.is_alphanumeric() || c == '_' || !c.is_ascii();
            if c == ' ' || c == '\t' {
                gap = prev_name_end;
                continue;
            }
            if name_char && gap {
                self.err(
                    span.end as usize,
                    "class names can't be separated by whitespace without an intervening operator",
                );
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

    fn lower_constraint(&mut self, pair: Pair<'_, Rule>) -> Option<Constraint> {
        let mut inner = pair.into_inner();
        let lval = inner.next()?;
        let lval_span = self.span(&lval);
        let rval = self.lower_rval(inner.next()?)?;
        let lval = lval.as_str().to_string();
        let rval = rewrite_rval(&lval, rval);
        Some(Constraint {
            lval,
            lval_span,
            rval,
        })
    }

    fn lower_qstring(&mut self, pair: Pair<'_, Rule>) -> Option<Scalar> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let inner = pair.into_inner().next()?;
        let raw = inner.as_str();
        let (value, quote) = match rule {
            Rule::dq_string => (unescape(raw), Quote::Double),
            Rule::sq_string => (unescape(raw), Quote::Single),
            // Recorded from cf-promises: backquoted strings unescape like the others (`\"` → `"`,
            // backslash-newline joins lines, `\n` stays).
            _ => (unescape(raw), Quote::Back),
        };
        Some(Scalar { value, quote, span })
    }

    pub fn lower_rval(&mut self, pair: Pair<'_, Rule>) -> Option<Rval> {
        match pair.as_rule() {
            Rule::dq_string | Rule::sq_string | Rule::bq_string => {
                self.lower_qstring(pair).map(Rval::Scalar)
            }
            Rule::list => {
                let span = self.span(&pair);
                let items = pair
                    .into_inner()
                    .filter_map(|p| self.lower_rval(p))
                    .collect();
                Some(Rval::List(items, span))
            }
            Rule::callish => {
                let span = self.span(&pair);
                let mut inner = pair.into_inner();
                let head = inner.next()?;
                let head_rule = head.as_rule();
                let name = head.as_str().to_string();
                match inner.next() {
                    Some(args) => {
                        if self.call_depth >= MAX_CALL_NESTING {
                            let mut d = Diagnostic::error(
                                (args.as_span().start() + self.base + 1) as u32,
                                "Nesting of functions is deeper than recommended, near token '('",
                            );
                            d.fatal = true;
                            self.diags.push(d);
                            return None;
                        }
                        self.call_depth += 1;
                        let args = args
                            .into_inner()
                            .filter_map(|a| self.lower_rval(a))
                            .collect();
                        self.call_depth -= 1;
                        Some(Rval::Call(Call { name, args, span }))
                    }
                    None => Some(Rval::Scalar(Scalar {
                        value: name,
                        quote: if head_rule == Rule::nakedvar {
                            Quote::NakedVar
                        } else {
                            Quote::Bare
                        },
                        span,
                    })),
                }
            }
            _ => {
                let d = internal(&pair, self.base);
                self.diags.push(d);
                None
            }
        }
    }

    pub fn lower_body(&mut self, pair: Pair<'_, Rule>) -> Option<Body> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().skip(1);
        let ty = inner.next()?;
        let name = inner.next()?;
        let name_span = self.span(&name);
        let (namespace, name) = self.split_ns(name.as_str());
        let body_type = ty.as_str().to_string();
        let mut params = Vec::new();
        let mut attrs = Vec::new();
        let mut guard = Guard::any();
        let mut var_guard: Option<Scalar> = None;
        for p in inner {
            match p.as_rule() {
                Rule::params => params = self.lower_params(p),
                Rule::class_guard => {
                    guard = self.lower_guard(&p);
                    var_guard = None;
                }
                Rule::body_vguard => {
                    guard = Guard::any();
                    var_guard = p.into_inner().next().and_then(|s| self.lower_qstring(s));
                }
                Rule::body_attr => {
                    if let Some(c) = self.lower_attr(p) {
                        let attr = BodyAttr {
                            guard: guard.clone(),
                            var_guard: var_guard.clone(),
                            constraint: c,
                        };
                        attrs.push(attr);
                    }
                }
                _ => {}
            }
        }
        if body_type == "file" && name == "control" {
            // The new namespace applies to the blocks after this body, not to the body itself.
            for a in &attrs {
                if a.constraint.lval == "namespace" {
                    if let Rval::Scalar(s) = &a.constraint.rval {
                        self.namespace = s.value.clone();
                    }
                }
            }
        }
        Some(Body {
            body_type,
            namespace,
            name,
            params,
            attrs,
            name_span,
            span,
        })
    }

    fn lower_attr(&mut self, pair: Pair<'_, Rule>) -> Option<Constraint> {
        let mut inner = pair.into_inner();
        let lval = inner.next()?;
        let lval_span = self.span(&lval);
        let rval = self.lower_rval(inner.next()?)?;
        Some(Constraint {
            lval: lval.as_str().to_string(),
            lval_span,
            rval,
        })
    }

    pub fn lower_promise_block(&mut self, pair: Pair<'_, Rule>) -> Option<PromiseBlock> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().skip(1);
        let kind = inner.next()?.as_str().to_string();
        let name = inner.next()?;
        let name_span = self.span(&name);
        let name = name.as_str().to_string();
        let attrs = inner.filter_map(|p| self.lower_attr(p)).collect();
        Some(PromiseBlock {
            kind,
            name,
            attrs,
            name_span,
            span,
        })
    }
}

/// The parse-time rval rewrites of cf3parse.y: `data => "<json>"` is parsed now (a string with variables
/// becomes `parsejson(…)`, YAML text `parseyaml(…)`), and `data => @(x)` becomes `mergedata("x")`; the
/// same holds for `template_data`.
fn rewrite_rval(lval: &str, rval: Rval) -> Rval {
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
