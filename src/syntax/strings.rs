//! Quoted-string unescaping as cf3lex.l does it: in `"…"` and `'…'` a backslash before `"`, `'` or `\`
//! yields that character and a backslash before a newline joins lines; any other backslash is kept with
//! the character after it (`"\n"` is backslash-n). Backquoted strings are raw.

/// Unescape the inner text of a `"…"` or `'…'` string.
pub fn unescape(inner: &str) -> String {
    if !inner.contains('\\') {
        return inner.to_string();
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(q @ ('"' | '\'' | '\\')) => out.push(q),
            Some('\n') => {}
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Escape a value so that `unescape` gives it back inside `"…"`.
pub fn escape_dq(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_recorded_from_cf_promises() {
        // Values taken from `cf-promises --show-vars` on 3.21.0 (see policies/parse/ok/rval_strings.cf).
        assert_eq!(unescape(r#"x\"y\\z\n\q\'w"#), r#"x"y\z\n\q'w"#);
        assert_eq!(unescape(r#"x\'y\\z\n\"q"#), r#"x'y\z\n"q"#);
        assert_eq!(unescape("cont\\\ninued"), "continued");
        assert_eq!(unescape("tab\\\tx"), "tab\\\tx");
        assert_eq!(unescape(r"end\\"), r"end\");
    }

    #[test]
    fn escape_round_trips() {
        for v in [r#"a"b\c"#, r"\n", "x\\", "plain", "q'"] {
            assert_eq!(unescape(&escape_dq(v)), v);
        }
    }
}
