//! The lexer of cf3lex.l (3.21) as cf-promises runs it: flex's longest match (earlier rule on ties) over
//! bytes, the `yytext` each token leaves, and the line number, column (`line_pos`) and current line that
//! cf-promises' ParseError prints; `@if`/`@else`/`@endif` handled inside the lexer as flex does.

use super::grammar::*;

/// One token as the parser sees it.
pub struct Token {
    pub kind: u16,
    /// The raw character for single-character tokens (`yychar`), else 0.
    pub ch: u8,
    pub text: Vec<u8>,
}

pub struct Lexer<'a> {
    src: &'a [u8],
    pub pos: usize,
    pub line_no: u32,
    pub line_pos: u32,
    /// Byte range of the line ParseError prints (`None` before the first newline).
    pub current_line: Option<(usize, usize)>,
    ignoring: bool,
    if_depth: u32,
    pub text: Vec<u8>,
    /// Messages to print before the next token is handed over, with the column they were printed at.
    pub pending: Vec<(String, u32)>,
}

fn is_id(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}
fn is_class_first(b: u8) -> bool {
    is_id(b) || matches!(b, b'.' | b'|' | b'&' | b'!' | b'(' | b')' | b':')
}
fn is_class(b: u8) -> bool {
    is_class_first(b) || b == b' ' || b == b'\t'
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a [u8]) -> Lexer<'a> {
        Lexer {
            src,
            pos: 0,
            line_no: 1,
            line_pos: 1,
            current_line: None,
            ignoring: false,
            if_depth: 0,
            text: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.src.get(i).copied()
    }

    fn run(&self, from: usize, f: impl Fn(u8) -> bool) -> usize {
        let mut i = from;
        while self.at(i).is_some_and(&f) {
            i += 1;
        }
        i - from
    }

    fn line_end(&self, from: usize) -> usize {
        let mut i = from;
        while self.at(i).is_some_and(|b| b != b'\n') {
            i += 1;
        }
        i
    }

    fn eat_line(&mut self) -> bool {
        let p = self.pos;
        let nl = match (self.at(p), self.at(p + 1)) {
            (Some(b'\n'), _) => 1,
            (Some(b'\r'), Some(b'\n')) => 2,
            _ => return false,
        };
        let start = p + 1;
        let end = self.line_end(p + nl).max(start);
        self.current_line = Some((start, end));
        self.line_no += 1;
        self.line_pos = 1;
        self.pos = p + 1;
        true
    }

    /// `@if ...`, `@else`, `@endif` at the current position: length of the match.
    fn macro_len(&self) -> Option<(usize, &'static str)> {
        let rest = self.src.get(self.pos..)?;
        if rest.starts_with(b"@endif") {
            return Some((6, "endif"));
        }
        if rest.starts_with(b"@else") {
            return Some((5, "else"));
        }
        if rest.starts_with(b"@if ") {
            let end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
            let line = rest.get(..end)?;
            let close = line.iter().rposition(|b| *b == b')')?;
            let s = std::str::from_utf8(line.get(..=close)?).ok()?;
            super::super::macros::eval_condition(s)?;
            return Some((close + 1, "if"));
        }
        None
    }

    fn macro_cond(&self, len: usize) -> bool {
        let s = self
            .src
            .get(self.pos..self.pos + len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("");
        super::super::macros::eval_condition(s).unwrap_or(false)
    }

    /// Handle a macro of `len` bytes; `Some(token)` when flex returns (0 after a fatal error).
    fn do_macro(&mut self, len: usize, word: &str) -> Option<Token> {
        let text = self
            .src
            .get(self.pos..self.pos + len)
            .unwrap_or(&[])
            .to_vec();
        let fatal = |l: &mut Lexer<'_>, msg: &str| {
            l.pending.push((msg.to_string(), l.line_pos));
            l.pos += len;
            l.text = text.clone();
            Some(Token {
                kind: T_EOF,
                ch: 0,
                text: text.clone(),
            })
        };
        if self.line_pos != 1 && !self.ignoring {
            return fatal(
                self,
                &format!("fatal: macro @{word} must be at beginning of the line."),
            );
        }
        match word {
            "if" => {
                if self.if_depth > 0 {
                    return fatal(self, "fatal: nested @if macros are not allowed");
                }
                self.if_depth += 1;
                if !self.macro_cond(len) {
                    self.ignoring = true;
                }
            }
            "else" => {
                if self.if_depth == 0 {
                    return fatal(
                        self,
                        "fatal: @else macro without a matching @if are not allowed",
                    );
                }
                self.ignoring = !self.ignoring;
            }
            _ => {
                self.ignoring = false;
                if self.if_depth == 0 {
                    return fatal(
                        self,
                        "fatal: @endif macros without a matching @if are not allowed",
                    );
                }
                self.if_depth -= 1;
            }
        }
        self.pos += len;
        None
    }

    fn qstring_len(&self) -> Option<usize> {
        let q = self.at(self.pos)?;
        let mut i = self.pos + 1;
        loop {
            let b = self.at(i)?;
            if b == q {
                return Some(i + 1 - self.pos);
            }
            if b == b'\\' && q != b'`' {
                self.at(i + 1)?;
                i += 2;
            } else {
                i += 1;
            }
        }
    }

    fn nakedvar_len(&self) -> usize {
        let p = self.pos;
        if !matches!(self.at(p), Some(b'$' | b'@')) {
            return 0;
        }
        let close = match self.at(p + 1) {
            Some(b'(') => b')',
            Some(b'{') => b'}',
            _ => return 0,
        };
        let x = |b: u8| is_id(b) || matches!(b, b'[' | b']' | b'.' | b':');
        let y = |b: u8| is_id(b) || matches!(b, b'.' | b':');
        let z = |b: u8| is_id(b) || matches!(b, b'$' | b'(' | b')' | b'{' | b'}' | b'.' | b':');
        let mut best = 0;
        let n = self.run(p + 2, x);
        if n > 0 && self.at(p + 2 + n) == Some(close) {
            best = n + 3;
        }
        let n = self.run(p + 2, y);
        if n > 0 && self.at(p + 2 + n) == Some(b'[') {
            let zs = p + 3 + n;
            let m = self.run(zs, z);
            if m > 0 {
                let k = self.run(zs + m, |b| b == b']');
                if k > 0 && self.at(zs + m + k) == Some(close) {
                    best = best.max(zs + m + k + 1 - p);
                }
            }
        }
        best
    }

    fn class_len(&self) -> usize {
        let p = self.pos;
        if !self.at(p).is_some_and(is_class_first) {
            return 0;
        }
        let n = 1 + self.run(p + 1, is_class);
        let run = self.src.get(p..p + n).unwrap_or(&[]);
        let mut i = n;
        while i >= 3 {
            if run.get(i - 2..i) == Some(b"::") {
                return i;
            }
            i -= 1;
        }
        0
    }

    fn varclass_len(&self) -> usize {
        let p = self.pos;
        let Some(q) = self.at(p).filter(|b| *b == b'"' || *b == b'\'') else {
            return 0;
        };
        let mut i = p + 1;
        while let Some(b) = self.at(i) {
            if b == q {
                break;
            }
            i += 1;
        }
        if self.at(i) == Some(q) && self.src.get(i + 1..i + 3) == Some(b"::") {
            i + 3 - p
        } else {
            0
        }
    }

    /// DeEscapeQuotedString: `Some(less)` when flex must push back after `less` bytes, `None` for a runaway
    /// string (no closing quote before the NUL-terminated end).
    fn de_escape(text: &[u8]) -> Result<usize, ()> {
        let len = text.iter().position(|b| *b == 0).unwrap_or(text.len());
        let Some(&start) = text.first() else {
            return Ok(0);
        };
        let mut sp = 1usize;
        while sp < len {
            let c = text.get(sp).copied().unwrap_or(0);
            if c == start {
                return Ok(if text.get(sp + 1).is_some_and(|b| *b != 0) {
                    sp + 2
                } else {
                    0
                });
            }
            if c == b'\\' {
                match text.get(sp + 1) {
                    Some(b'\n') => sp += 2,
                    Some(b'\\' | b'"' | b'\'') => sp += 1,
                    _ => {}
                }
            }
            sp += 1;
        }
        Err(())
    }

    /// The next token (`yylex`).
    pub fn next(&mut self) -> Token {
        loop {
            let p = self.pos;
            let Some(b) = self.at(p) else {
                if self.if_depth > 0 && !self.ignoring {
                    self.pending.push((
                        "EOF seen while @if was waiting for @endif without ignore_state"
                            .to_string(),
                        self.line_pos,
                    ));
                    self.if_depth = 0;
                }
                self.text.clear();
                return Token {
                    kind: T_EOF,
                    ch: 0,
                    text: Vec::new(),
                };
            };
            if self.ignoring {
                if b == b'@' {
                    if let Some((len, word)) = self.macro_len() {
                        if word != "if" {
                            if let Some(t) = self.do_macro(len, word) {
                                return t;
                            }
                            continue;
                        }
                    }
                    self.pos += 1;
                } else if b == b'\n' || b == b'\r' {
                    self.pos += if b == b'\r' && self.at(p + 1) == Some(b'\n') {
                        2
                    } else {
                        1
                    };
                } else {
                    self.pos = self.line_end(p);
                }
                continue;
            }
            if self.eat_line() {
                continue;
            }
            if b == b'@' {
                if let Some((len, word)) = self.macro_len() {
                    if let Some(t) = self.do_macro(len, word) {
                        return t;
                    }
                    continue;
                }
            }
            if b == b' ' || b == b'\t' {
                let n = self.run(p, |c| c == b' ' || c == b'\t');
                self.line_pos += n as u32;
                self.pos += n;
                continue;
            }
            if b == b'#' {
                self.pos = self.line_end(p);
                continue;
            }
            // longest match; candidates in rule order
            let id = self.run(p, is_id);
            let mut cands: Vec<(usize, u16)> = Vec::new();
            for (kw, t) in [
                (&b"bundle"[..], T_BUNDLE),
                (b"body", T_BODY),
                (b"promise", T_PROMISE),
            ] {
                if id == kw.len() && self.src.get(p..p + id) == Some(kw) {
                    cands.push((id, t));
                }
            }
            cands.push((id, T_IDSYNTAX));
            if id > 0 && self.at(p + id) == Some(b':') {
                let m = self.run(p + id + 1, is_id);
                if m > 0 {
                    cands.push((id + 1 + m, T_IDSYNTAX));
                }
            }
            if self.src.get(p..p + 2) == Some(b"=>") {
                cands.push((2, T_ASSIGN));
            }
            if self.src.get(p..p + 2) == Some(b"->") {
                cands.push((2, T_ARROW));
            }
            cands.push((self.varclass_len(), T_CLASS));
            cands.push((self.class_len(), T_CLASS));
            let g = self.run(p, |c| c.is_ascii_alphabetic() || c == b'_');
            if g > 0 && self.at(p + g) == Some(b':') {
                cands.push((g + 1, T_PROMISE_GUARD));
            }
            if matches!(b, b'"' | b'\'' | b'`') {
                if let Some(n) = self.qstring_len() {
                    cands.push((n, T_QSTRING));
                }
            }
            cands.push((self.nakedvar_len(), T_NAKEDVAR));
            let mut best = (0usize, T_OTHER);
            for c in cands {
                if c.0 > best.0 {
                    best = c;
                }
            }
            let (len, kind) = best;
            if len == 0 {
                // `.`: one byte (a NUL byte is token 0, the end of input)
                self.pos += 1;
                self.line_pos += 1;
                self.text = vec![b];
                let kind = match b {
                    0 => T_EOF,
                    b'(' => T_LPAREN,
                    b')' => T_RPAREN,
                    b'{' => T_LBRACE,
                    b'}' => T_RBRACE,
                    b',' => T_COMMA,
                    b';' => T_SEMI,
                    _ => T_OTHER,
                };
                return Token {
                    kind,
                    ch: b,
                    text: vec![b],
                };
            }
            let text = self.src.get(p..p + len).unwrap_or(&[]).to_vec();
            self.line_pos += len as u32;
            self.pos = p + len;
            if kind == T_QSTRING {
                self.line_no += text.iter().filter(|c| **c == b'\n').count() as u32;
                match Self::de_escape(&text) {
                    Ok(less) if less > 0 => self.pos = p + less,
                    Ok(_) => {}
                    Err(()) => self
                        .pending
                        .push(("Runaway string".to_string(), self.line_pos)),
                }
            }
            if kind == T_CLASS
                && text.first() != Some(&b'"')
                && text.first() != Some(&b'\'')
                && whitespace_between_names(&text)
            {
                {
                    self.pending.push((
                        "class names can't be separated by whitespace without an intervening operator"
                            .to_string(),
                        self.line_pos,
                    ));
                }
            }
            self.text = text.clone();
            return Token { kind, ch: 0, text };
        }
    }
}

/// Two class names separated only by blanks (`a b::`).
fn whitespace_between_names(text: &[u8]) -> bool {
    let raw = text.strip_suffix(b"::").unwrap_or(text);
    let mut prev_name_end = false;
    let mut gap = false;
    for &c in raw {
        let name_char = is_id(c);
        if c == b' ' || c == b'\t' {
            gap = prev_name_end;
            continue;
        }
        if name_char && gap {
            return true;
        }
        gap = false;
        prev_name_end = name_char || c == b')';
    }
    false
}
