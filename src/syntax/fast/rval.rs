//! The fast parser's rvals: quoted strings, `{ … }` lists, and `callish` (an identifier or naked
//! variable, optionally with arguments), as `grammar/cfengine.pest` has them. An rval comes back as
//! `Some(None)` when lowering drops it (a call nested deeper than `sema::MAX_CALL_NESTING`, whose fatal
//! diagnostic is recorded), as `lower.rs` does.

use super::lex::{ident, nakedvar, skip};
use super::parse::P;
use crate::source::Span;
use crate::syntax::ast::{Call, Quote, Rval, Scalar};
use crate::syntax::sema;
use crate::syntax::strings::unescape;
use crate::syntax::MAX_NESTING;

/// A lowered rval (`None`: dropped) and the offset after it.
type Lowered = (Option<Rval>, usize);

impl P<'_> {
    /// The scalar of the quoted string `a..e` (quotes included); `backslash`: its text has one.
    pub fn scalar(&self, a: usize, e: usize, backslash: bool) -> Option<Scalar> {
        let quote = match self.b.get(a)? {
            b'"' => Quote::Double,
            b'\'' => Quote::Single,
            _ => Quote::Back,
        };
        let raw = self.s(a + 1, e.checked_sub(1)?)?;
        Some(Scalar {
            value: if backslash {
                unescape(raw)
            } else {
                raw.to_string()
            },
            quote,
            span: Span::new(a, e),
        })
    }

    /// `rval = qstring | list | callish` at `i`.
    pub fn rval(&mut self, i: usize) -> Option<Lowered> {
        match self.b.get(i)? {
            b'{' => self.list(i),
            _ => self.item(i),
        }
    }

    /// `item = arg = qstring | callish` at `i`.
    fn item(&mut self, i: usize) -> Option<Lowered> {
        match self.b.get(i)? {
            b'"' | b'\'' | b'`' => {
                let (s, e) = self.qstring(i)?;
                Some((Some(Rval::Scalar(s)), e))
            }
            _ => self.callish(i),
        }
    }

    /// `list = "{" (item ("," item)* ","?)? "}"` at `i` (a `{`).
    fn list(&mut self, i: usize) -> Option<Lowered> {
        let (items, j) = self.items(skip(self.b, i + 1), b'}', true)?;
        Some((Some(Rval::List(items, Span::new(i, j + 1))), j + 1))
    }

    /// Comma-separated items from `j` up to the `close` byte (a trailing comma allowed when
    /// `trailing`): the items kept and the position of `close`.
    fn items(&mut self, mut j: usize, close: u8, trailing: bool) -> Option<(Vec<Rval>, usize)> {
        let mut items = Vec::new();
        if !self.at(j, close) {
            loop {
                let (r, e) = self.item(j)?;
                items.extend(r);
                j = skip(self.b, e);
                if !self.at(j, b',') {
                    break;
                }
                j = skip(self.b, j + 1);
                if trailing && self.at(j, close) {
                    break;
                }
            }
        }
        self.at(j, close).then_some((items, j))
    }

    /// `callish = (ident | nakedvar) call_args?` at `i`. A `(` after the head always starts the
    /// arguments: were they to fail, the head alone would be followed by `(`, which no rule accepts.
    fn callish(&mut self, i: usize) -> Option<Lowered> {
        let (he, naked) = match ident(self.b, i) {
            Some(e) => (e, false),
            None => (nakedvar(self.b, i)?, true),
        };
        let name = self.s(i, he)?;
        let k = skip(self.b, he);
        if !self.at(k, b'(') {
            let quote = if naked { Quote::NakedVar } else { Quote::Bare };
            // pest skips the blanks and comments before trying the optional `call_args`, and keeps
            // them in the rule's span when there are none.
            let s = Scalar {
                value: name.to_string(),
                quote,
                span: Span::new(i, k),
            };
            return Some((Some(Rval::Scalar(s)), k));
        }
        if self.call_depth >= MAX_NESTING {
            return None;
        }
        let too_deep = sema::call_too_deep(self.call_depth, k);
        let mark = self.diags.len();
        self.call_depth += 1;
        let parsed = self.items(skip(self.b, k + 1), b')', false);
        self.call_depth -= 1;
        let (args, j) = parsed?;
        if let Some(d) = too_deep {
            // Lowering stops at this call: its arguments give no diagnostics.
            self.diags.truncate(mark);
            self.diags.push(d);
            return Some((None, j + 1));
        }
        let call = Call {
            name: name.to_string(),
            args,
            span: Span::new(i, j + 1),
        };
        Some((Some(Rval::Call(call)), j + 1))
    }
}
