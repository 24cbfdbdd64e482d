//! The fast parser's blocks: `file`, `bundle` with its sections and promises, `body`, `promise_block`
//! and `params`, in the order and with the alternatives of `grammar/cfengine.pest`.

use super::lex::{class_guard, ident, keyword, promise_type, qstring, skip};
use super::FastParsed;
use crate::diag::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Body, Bundle, Constraint, PromiseBlock, Scalar};
use crate::syntax::sema::{self, BodyHead, BodyItems, SectionItems};

/// Parser state: the input, the namespace in force, diagnostics, and open function calls.
pub(super) struct P<'a> {
    pub t: &'a str,
    pub b: &'a [u8],
    pub namespace: String,
    pub diags: Vec<Diagnostic>,
    pub call_depth: usize,
}

pub(super) fn file(text: &str) -> Option<FastParsed> {
    let mut p = P {
        t: text,
        b: text.as_bytes(),
        namespace: "default".to_string(),
        diags: Vec::new(),
        call_depth: 0,
    };
    let mut out = FastParsed {
        bundles: Vec::new(),
        bodies: Vec::new(),
        promise_blocks: Vec::new(),
        diags: Vec::new(),
    };
    let mut i = skip(p.b, 0);
    while i < p.b.len() {
        if let Some(e) = keyword(p.b, i, b"bundle") {
            let (b, end) = p.bundle(i, e)?;
            out.bundles.push(b);
            i = end;
        } else if let Some(e) = keyword(p.b, i, b"body") {
            let (b, end) = p.body(i, e)?;
            out.bodies.push(b);
            i = end;
        } else if let Some(e) = keyword(p.b, i, b"promise") {
            let (b, end) = p.promise_block(i, e)?;
            out.promise_blocks.push(b);
            i = end;
        } else {
            return None;
        }
        i = skip(p.b, i);
    }
    out.diags = p.diags;
    Some(out)
}

impl<'a> P<'a> {
    /// The text of `a..e`.
    pub fn s(&self, a: usize, e: usize) -> Option<&'a str> {
        self.t.get(a..e)
    }

    pub fn at(&self, i: usize, c: u8) -> bool {
        self.b.get(i) == Some(&c)
    }

    pub fn at2(&self, i: usize, c: &[u8; 2]) -> bool {
        self.b.get(i..i + 2) == Some(c.as_slice())
    }

    /// An identifier at `i`: its text, span and end.
    fn ident(&self, i: usize) -> Option<(&'a str, Span, usize)> {
        let e = ident(self.b, i)?;
        Some((self.s(i, e)?, Span::new(i, e), e))
    }

    /// The quoted string at `i` as a scalar, and its end.
    pub fn qstring(&self, i: usize) -> Option<(Scalar, usize)> {
        let (e, backslash) = qstring(self.b, i)?;
        Some((self.scalar(i, e, backslash)?, e))
    }

    /// `params` at `i` (a `(`): the names and the end.
    fn params(&self, i: usize) -> Option<(Vec<String>, usize)> {
        let mut j = skip(self.b, i + 1);
        let mut out = Vec::new();
        if let Some((name, _, e)) = self.ident(j) {
            out.push(name.to_string());
            j = skip(self.b, e);
            while self.at(j, b',') {
                j = skip(self.b, j + 1);
                let Some((name, _, e)) = self.ident(j) else {
                    break;
                };
                out.push(name.to_string());
                j = skip(self.b, e);
            }
        }
        self.at(j, b')').then_some((out, j + 1))
    }

    /// `TYPE NAME params? {` after a `bundle` or `body` keyword ending at `kw`: the type, the name and
    /// its span, the parameters, and the position after the brace.
    #[allow(clippy::type_complexity)]
    fn block_header(&mut self, kw: usize) -> Option<(&'a str, &'a str, Span, Vec<String>, usize)> {
        let (ty, _, e) = self.ident(skip(self.b, kw))?;
        let (name, name_span, e) = self.ident(skip(self.b, e))?;
        let mut i = skip(self.b, e);
        let mut params = Vec::new();
        if self.at(i, b'(') {
            let (p, e) = self.params(i)?;
            params = p;
            i = skip(self.b, e);
        }
        if !self.at(i, b'{') {
            return None;
        }
        Some((ty, name, name_span, params, skip(self.b, i + 1)))
    }

    /// `bundle TYPE NAME params? { section* }` from `start` (`kw` = end of the keyword).
    fn bundle(&mut self, start: usize, kw: usize) -> Option<(Bundle, usize)> {
        let (ty, name, name_span, params, mut i) = self.block_header(kw)?;
        let mut sections = Vec::new();
        while let Some(he) = promise_type(self.b, i) {
            let header_span = Span::new(i, he);
            let header = self.s(i, he)?;
            let mut items = SectionItems::default();
            i = skip(self.b, he);
            loop {
                if let Some(ge) = class_guard(self.b, i) {
                    let g = sema::guard(self.s(i, ge)?, Span::new(i, ge), &mut self.diags);
                    items.class_guard(g);
                    i = skip(self.b, ge);
                } else if matches!(self.b.get(i), Some(b'"' | b'\'' | b'`')) {
                    i = skip(self.b, self.promise(i, &mut items)?);
                } else {
                    break;
                }
            }
            items.finish(&mut sections, sema::promise_type_name(header), header_span);
        }
        if !self.at(i, b'}') {
            return None;
        }
        let bundle = Bundle {
            bundle_type: ty.to_string(),
            namespace: self.namespace.clone(),
            name: name.to_string(),
            params,
            sections,
            name_span,
            span: Span::new(start, i + 1),
        };
        Some((bundle, i + 1))
    }

    /// `promise` at `i` (a quote): a promiser with its tail, or a quoted class guard. Its end.
    fn promise(&mut self, start: usize, items: &mut SectionItems) -> Option<usize> {
        let (promiser, e) = self.qstring(start)?;
        let mut j = skip(self.b, e);
        if self.at2(j, b"::") {
            items.var_guard(promiser);
            return Some(j + 2);
        }
        let mut promisee = None;
        if self.at2(j, b"->") {
            let (r, e) = self.rval(skip(self.b, j + 2))?;
            promisee = r;
            j = skip(self.b, e);
        }
        let mut constraints = Vec::new();
        if ident(self.b, j).is_some() {
            loop {
                let (lval, lval_span, e) = self.ident(j)?;
                let k = skip(self.b, e);
                if !self.at2(k, b"=>") {
                    return None;
                }
                let (r, e) = self.rval(skip(self.b, k + 2))?;
                if let Some(r) = r {
                    constraints.push(sema::constraint(lval, lval_span, r));
                }
                j = skip(self.b, e);
                if !self.at(j, b',') {
                    break;
                }
                j = skip(self.b, j + 1);
            }
        }
        if !self.at(j, b';') {
            return None;
        }
        items.promise(promiser, promisee, constraints, Span::new(start, j + 1));
        Some(j + 1)
    }

    /// `body_attr` at `i` when it is one: `ident => rval ;` (the constraint, `None` when its rval was
    /// dropped, and the end). `Some(None)`: not an attribute (no `=>` after an identifier), the caller
    /// tries the other alternatives; `None`: the file fails.
    #[allow(
        clippy::type_complexity,
        reason = "three outcomes of one PEG alternative"
    )]
    fn body_attr(&mut self, i: usize) -> Option<Option<(Option<Constraint>, usize)>> {
        let Some((lval, lval_span, e)) = self.ident(i) else {
            return Some(None);
        };
        let k = skip(self.b, e);
        if !self.at2(k, b"=>") {
            return Some(None);
        }
        let (r, e) = self.rval(skip(self.b, k + 2))?;
        let j = skip(self.b, e);
        if !self.at(j, b';') {
            return None;
        }
        let c = r.map(|rval| Constraint {
            lval: lval.to_string(),
            lval_span,
            rval,
        });
        Some(Some((c, j + 1)))
    }

    /// `body TYPE NAME params? { (body_attr | class_guard | body_vguard)* }`.
    fn body(&mut self, start: usize, kw: usize) -> Option<(Body, usize)> {
        let (ty, name, name_span, params, mut i) = self.block_header(kw)?;
        let mut items = BodyItems::default();
        loop {
            if let Some((c, e)) = self.body_attr(i)? {
                if let Some(c) = c {
                    items.attr(c);
                }
                i = skip(self.b, e);
            } else if let Some(ge) = class_guard(self.b, i) {
                let g = sema::guard(self.s(i, ge)?, Span::new(i, ge), &mut self.diags);
                items.class_guard(g);
                i = skip(self.b, ge);
            } else if let Some((s, e)) = self.qstring(i) {
                let k = skip(self.b, e);
                if !self.at2(k, b"::") {
                    return None;
                }
                items.var_guard(Some(s));
                i = skip(self.b, k + 2);
            } else {
                break;
            }
        }
        if !self.at(i, b'}') {
            return None;
        }
        let head = BodyHead {
            body_type: ty.to_string(),
            name: name.to_string(),
            params,
            name_span,
            span: Span::new(start, i + 1),
        };
        Some((sema::finish_body(&mut self.namespace, head, items), i + 1))
    }

    /// `promise KIND NAME { body_attr* }`.
    fn promise_block(&mut self, start: usize, kw: usize) -> Option<(PromiseBlock, usize)> {
        let (kind, _, e) = self.ident(skip(self.b, kw))?;
        let (name, name_span, e) = self.ident(skip(self.b, e))?;
        let i = skip(self.b, e);
        if !self.at(i, b'{') {
            return None;
        }
        let mut i = skip(self.b, i + 1);
        let mut attrs = Vec::new();
        while let Some((c, e)) = self.body_attr(i)? {
            attrs.extend(c);
            i = skip(self.b, e);
        }
        if !self.at(i, b'}') {
            return None;
        }
        let block = PromiseBlock {
            kind: kind.to_string(),
            name: name.to_string(),
            attrs,
            name_span,
            span: Span::new(start, i + 1),
        };
        Some((block, i + 1))
    }
}
