//! Byte-level token scanners of the fast parser, one per atomic rule of `grammar/cfengine.pest`: each
//! takes the input and a start offset and returns the token's end (`None`: the rule does not match).
//! A byte ≥ 0x80 stands for the non-ASCII character it belongs to: every such character matches the
//! same classes (`'\u{80}'..'\u{10FFFF}'`) and all its bytes are ≥ 0x80, so runs match alike.

/// `WHITESPACE`.
fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// `ident_char`.
pub fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// `guard_char`.
fn is_guard(c: u8) -> bool {
    is_ident(c) || matches!(c, b'.' | b'&' | b'|' | b'!' | b'(' | b')' | b':')
}

/// `guard_run_char`.
fn is_guard_run(c: u8) -> bool {
    is_guard(c) || c == b' ' || c == b'\t'
}

/// `nv_char`.
fn is_nv(c: u8) -> bool {
    is_ident(c) || c == b'.' || c == b':'
}

/// `nv_idx_char`.
fn is_nv_idx(c: u8) -> bool {
    is_nv(c) || matches!(c, b'$' | b'(' | b')' | b'{' | b'}')
}

/// The implicit `(WHITESPACE | COMMENT)*` between tokens: the offset after it.
pub fn skip(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if is_blank(c) {
            i += 1;
        } else if c == b'#' {
            i = b
                .get(i..)
                .and_then(|r| memchr::memchr(b'\n', r))
                .map_or(b.len(), |n| i + n);
        } else {
            break;
        }
    }
    i
}

/// End of the run of bytes satisfying `f` from `i`.
fn run(b: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while b.get(i).is_some_and(|&c| f(c)) {
        i += 1;
    }
    i
}

/// `ident`: `ident_char+ (":" ident_char+)?`.
pub fn ident(b: &[u8], i: usize) -> Option<usize> {
    let e = run(b, i, is_ident);
    if e == i {
        return None;
    }
    if b.get(e) == Some(&b':') && b.get(e + 1).is_some_and(|&c| is_ident(c)) {
        return Some(run(b, e + 1, is_ident));
    }
    Some(e)
}

/// `kw_bundle` and friends: `word` not followed by an identifier character.
pub fn keyword(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    let e = i + word.len();
    (b.get(i..e) == Some(word) && !b.get(e).is_some_and(|&c| is_ident(c))).then_some(e)
}

/// `promise_type`: `(ASCII_ALPHA | "_")+ ":" !":"`.
pub fn promise_type(b: &[u8], i: usize) -> Option<usize> {
    let e = run(b, i, |c| c.is_ascii_alphabetic() || c == b'_');
    (e > i && b.get(e) == Some(&b':') && b.get(e + 1) != Some(&b':')).then_some(e + 1)
}

/// `class_guard`: a guard character, then a run of guard characters and blanks, ending at the LAST `::`
/// of that run that starts after the first character (the rule's `guard_end` lookahead).
pub fn class_guard(b: &[u8], i: usize) -> Option<usize> {
    if !b.get(i).is_some_and(|&c| is_guard(c)) {
        return None;
    }
    let end = run(b, i + 1, is_guard_run);
    let mut last = None;
    let mut q = i + 1;
    while q + 1 < end {
        if b.get(q) == Some(&b':') && b.get(q + 1) == Some(&b':') {
            last = Some(q);
        }
        q += 1;
    }
    last.map(|q| q + 2)
}

/// A quoted string `"…"`, `'…'` or `` `…` `` at `i`: its end (after the closing quote) and whether its
/// text holds a backslash (else it needs no unescaping). Backslash escapes any character in the first
/// two; backquoted text has no escapes.
pub fn qstring(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let q = *b.get(i)?;
    if q == b'`' {
        let n = memchr::memchr(b'`', b.get(i + 1..)?)?;
        let end = i + 1 + n;
        let backslash = memchr::memchr(b'\\', b.get(i + 1..end)?).is_some();
        return Some((end + 1, backslash));
    }
    if q != b'"' && q != b'\'' {
        return None;
    }
    let mut j = i + 1;
    let mut backslash = false;
    loop {
        j += memchr::memchr2(q, b'\\', b.get(j..)?)?;
        if b.get(j) == Some(&q) {
            return Some((j + 1, backslash));
        }
        // A backslash: it and the byte after it (a UTF-8 lead byte's continuation bytes are never a
        // quote or a backslash).
        if j + 1 >= b.len() {
            return None;
        }
        backslash = true;
        j += 2;
    }
}

/// `nakedvar`: `$(…)`, `${…}`, `@(…)`, `@{…}` with the rule's four alternatives in order.
pub fn nakedvar(b: &[u8], i: usize) -> Option<usize> {
    if !matches!(b.get(i), Some(b'$' | b'@')) {
        return None;
    }
    let close = match b.get(i + 1)? {
        b'(' => b')',
        b'{' => b'}',
        _ => return None,
    };
    let s = i + 2;
    // `nv_simple`: (nv_char | "[" | "]")+ then the closer.
    let e = run(b, s, |c| is_nv(c) || c == b'[' || c == b']');
    if e > s && b.get(e) == Some(&close) {
        return Some(e + 1);
    }
    // nv_char+ "[" nv_idx_char+ "]"+ closer.
    let e = run(b, s, is_nv);
    if e == s || b.get(e) != Some(&b'[') {
        return None;
    }
    let x = run(b, e + 1, is_nv_idx);
    if x == e + 1 {
        return None;
    }
    let r = run(b, x, |c| c == b']');
    (r > x && b.get(r) == Some(&close)).then_some(r + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_guard_ends_at_last_double_colon_of_its_run() {
        assert_eq!(class_guard(b"any::", 0), Some(5));
        assert_eq!(class_guard(b"any::::\n", 0), Some(7));
        assert_eq!(class_guard(b"a. b:: c::\"x\"", 0), Some(10));
        assert_eq!(class_guard(b"vars:\n", 0), None);
        assert_eq!(class_guard(b"::", 0), None);
        assert_eq!(class_guard(b":::", 0), Some(3));
        assert_eq!(class_guard(b" a::", 0), None);
    }

    #[test]
    fn tokens() {
        assert_eq!(ident(b"ns:name(", 0), Some(7));
        assert_eq!(ident(b"name::", 0), Some(4));
        assert_eq!(promise_type(b"vars:\n", 0), Some(5));
        assert_eq!(promise_type(b"vars::", 0), None);
        assert_eq!(promise_type(b"v2:", 0), None);
        assert_eq!(keyword(b"bundle agent", 0, b"bundle"), Some(6));
        assert_eq!(keyword(b"bundles", 0, b"bundle"), None);
        assert_eq!(qstring(br#""a\"b" x"#, 0), Some((6, true)));
        assert_eq!(qstring(br#""ab" x"#, 0), Some((4, false)));
        assert_eq!(qstring(br#""a\"#, 0), None);
        assert_eq!(qstring(b"`a\\`", 0), Some((4, true)));
        assert_eq!(nakedvar(b"$(a[$(k)])", 0), Some(10));
        assert_eq!(nakedvar(b"$(a[1])", 0), Some(7));
        assert_eq!(nakedvar(b"@{x.y}", 0), Some(6));
        assert_eq!(nakedvar(b"$(a[$(k)][x])", 0), None);
        assert_eq!(nakedvar(b"$()", 0), None);
    }
}
