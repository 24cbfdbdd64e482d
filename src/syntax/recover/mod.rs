//! cf-promises' messages for a file with a syntax error: a second parser, run only on the error path, that
//! reproduces cf3lex.l, the bison LALR(1) automaton of cf3parse.y and its `error` recovery, so the chain of
//! follow-up messages (`Expected '}', got 'body'`, `Invalid r-value type '}'`, ...) is the real one.

mod driver;
mod grammar;
mod lalr;
mod lexer;

use crate::diag::Diagnostic;

/// The messages cf-promises prints for `text`, or `None` when the emulation cannot model the file.
pub fn messages(text: &[u8]) -> Option<Vec<Diagnostic>> {
    let tables = lalr::tables()?;
    let msgs = driver::run(tables, text).ok()?;
    Some(
        msgs.into_iter()
            .map(|m| {
                let shown = m.current_line.and_then(|(s, e)| {
                    let b = text.get(s..e)?;
                    let b = b.split(|c| *c == 0).next().unwrap_or(&[]);
                    Some(String::from_utf8_lossy(b).into_owned())
                });
                let mut d = Diagnostic::error(m.offset as u32, m.text);
                d.fatal = m.fatal;
                d.explicit = Some(Box::new(crate::diag::Explicit {
                    line: m.line,
                    col: m.col,
                    shown,
                }));
                d
            })
            .collect(),
    )
}
