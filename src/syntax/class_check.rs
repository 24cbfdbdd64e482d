//! Parse-time syntax check of class expressions (guards `expr::` and literal `if`/`ifvarclass`/`unless`
//! strings), as cf-promises 3.21.0 validates them: only the parsable prefix counts (`a-b` is `a`), but an
//! operator must be followed by an operand, parentheses must close and `!!` is an error.
//!
//! ```text
//! or_expr  := and_expr [ ("|" | "||") or_expr ]
//! and_expr := not_expr [ ("." | "&") and_expr ]
//! not_expr := "!" primary | primary
//! primary  := "(" or_expr ")" | name
//! ```

/// Check `expr`; `Err(offset)` is the byte offset in `expr` where the syntax error was found.
pub fn check(expr: &str) -> Result<(), usize> {
    let b = expr.as_bytes();
    let mut p = Checker {
        b,
        pos: 0,
        depth: 0,
    };
    p.or_expr().map(|_| ())
}

/// Deepest parenthesis nesting checked (deeper is reported as an error at that point).
const MAX_DEPTH: usize = 256;

struct Checker<'a> {
    b: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Checker<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn or_expr(&mut self) -> Result<(), usize> {
        self.and_expr()?;
        match self.peek() {
            Some(b'|') => {
                self.pos += 1;
                if self.peek() == Some(b'|') {
                    self.pos += 1;
                }
                self.or_expr()
            }
            _ => Ok(()),
        }
    }

    fn and_expr(&mut self) -> Result<(), usize> {
        self.not_expr()?;
        match self.peek() {
            Some(b'.') | Some(b'&') => {
                self.pos += 1;
                self.and_expr()
            }
            _ => Ok(()),
        }
    }

    fn not_expr(&mut self) -> Result<(), usize> {
        if self.peek() == Some(b'!') {
            self.pos += 1;
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<(), usize> {
        if self.peek() == Some(b'(') {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.pos);
            }
            self.pos += 1;
            self.or_expr()?;
            if self.peek() != Some(b')') {
                return Err(self.pos);
            }
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        self.name()
    }

    /// Name characters, `[...]` (anything up to `]`), `$(...)`/`${...}` (balanced).
    fn name(&mut self) -> Result<(), usize> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            match c {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b':' | 0x80..=0xff => {
                    self.pos += 1
                }
                b'[' => match self
                    .b
                    .get(self.pos..)
                    .and_then(|r| r.iter().position(|x| *x == b']'))
                {
                    Some(n) => self.pos += n + 1,
                    None => return Err(self.b.len()),
                },
                b'$' if matches!(self.b.get(self.pos + 1), Some(b'(') | Some(b'{')) => {
                    let open = self.b.get(self.pos + 1).copied().unwrap_or(b'(');
                    let close = if open == b'(' { b')' } else { b'}' };
                    let mut depth = 0usize;
                    let mut i = self.pos + 1;
                    loop {
                        match self.b.get(i) {
                            None => return Err(self.b.len()),
                            Some(x) if *x == open => depth += 1,
                            Some(x) if *x == close => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        i += 1;
                    }
                    self.pos = i + 1;
                }
                _ => break,
            }
        }
        if self.pos == start {
            Err(self.pos)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn accepted_as_cf_promises_accepts() {
        for e in [
            "a.c", "a&c", "a|b", "a||b", "!b", "a.!b", "!(a.b)", "a&!b|b", "$(cn).c", "a-b",
            "ns:cls", "x[a b]", "any", "(a|b).c",
        ] {
            assert_eq!(check(e), Ok(()), "{e}");
        }
    }

    #[test]
    fn rejected_where_cf_promises_rejects() {
        assert_eq!(check("!!linux"), Err(1));
        assert_eq!(check("linux&&debian"), Err(6));
        assert_eq!(check("(linux"), Err(6));
        assert!(check("").is_err());
    }
}
