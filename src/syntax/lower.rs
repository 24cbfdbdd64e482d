//! Pest pairs → typed AST: one `lower_<rule>` function per grammar rule; the semantic rewrites
//! cf-promises performs while parsing (section merging, guards, `data =>` JSON, `@(x)` → `mergedata`)
//! are in `sema.rs`, shared with the fast parser.

use pest::iterators::Pair;

use super::ast::*;
use super::sema::{self, BodyHead, BodyItems, SectionItems};
use super::strings::unescape;
use super::Rule;
use crate::diag::Diagnostic;
use crate::source::Span;

pub use super::sema::MAX_CALL_NESTING;

/// Lowering state for one file: the namespace in force and the diagnostics found so far.
pub struct Lowerer<'d> {
    /// Offset of the parsed slice within the file.
    pub base: usize,
    pub namespace: String,
    pub diags: &'d mut Vec<Diagnostic>,
    /// Function calls currently open around the rval being lowered.
    pub call_depth: usize,
}

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

    fn lower_params(&self, pair: Pair<'_, Rule>) -> Vec<String> {
        pair.into_inner().map(|p| p.as_str().to_string()).collect()
    }

    pub fn lower_bundle(&mut self, pair: Pair<'_, Rule>) -> Option<Bundle> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().skip(1);
        let ty = inner.next()?;
        let name = inner.next()?;
        let name_span = self.span(&name);
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
            namespace: self.namespace.clone(),
            name: name.as_str().to_string(),
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
        let promise_type = sema::promise_type_name(header.as_str());
        let mut items = SectionItems::default();
        for p in inner {
            match p.as_rule() {
                Rule::class_guard => {
                    let span = self.span(&p);
                    items.class_guard(sema::guard(p.as_str(), span, self.diags));
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
                        items.var_guard(promiser);
                        continue;
                    }
                    items.promise(promiser, promisee, constraints, span);
                }
                _ => {}
            }
        }
        items.finish(sections, promise_type, header_span);
    }

    fn lower_constraint(&mut self, pair: Pair<'_, Rule>) -> Option<Constraint> {
        let mut inner = pair.into_inner();
        let lval = inner.next()?;
        let lval_span = self.span(&lval);
        let rval = self.lower_rval(inner.next()?)?;
        Some(sema::constraint(lval.as_str(), lval_span, rval))
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
                        let start = args.as_span().start() + self.base;
                        if let Some(d) = sema::call_too_deep(self.call_depth, start) {
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
        let mut params = Vec::new();
        let mut items = BodyItems::default();
        for p in inner {
            match p.as_rule() {
                Rule::params => params = self.lower_params(p),
                Rule::class_guard => {
                    let span = self.span(&p);
                    items.class_guard(sema::guard(p.as_str(), span, self.diags));
                }
                Rule::body_vguard => {
                    let vg = p.into_inner().next().and_then(|s| self.lower_qstring(s));
                    items.var_guard(vg);
                }
                Rule::body_attr => {
                    if let Some(c) = self.lower_attr(p) {
                        items.attr(c);
                    }
                }
                _ => {}
            }
        }
        let head = BodyHead {
            body_type: ty.as_str().to_string(),
            name: name.as_str().to_string(),
            params,
            name_span,
            span,
        };
        Some(sema::finish_body(&mut self.namespace, head, items))
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
