//! String-level checks of cf-promises: naked variables (`IsNakedVar`), variable detection with its bracket
//! error (`IsCf3VarString`), Unix mode strings (`ParseModeString`), PCRE range matching (`StringMatchFull`) and
//! the class-expression syntax check applied to `if`/`ifvarclass` (`ParseExpression`).

use super::{Anchor, CheckError, Outcome};

/// `IsNakedVar`: the whole string is one `$(...)`/`${...}` (or `@` for `vtype == '@'`) reference.
pub(super) fn is_naked_var(s: &str, vtype: u8) -> bool {
    let b = s.as_bytes();
    if b.len() < 3 || b[0] != vtype || !matches!(b[1], b'(' | b'{') {
        return false;
    }
    if !matches!(b[b.len() - 1], b')' | b'}') {
        return false;
    }
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(1) {
        match c {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => {
                depth -= 1;
                if depth == 0 && i + 1 < b.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// `IsCf3VarString`: whether `s` contains a complete `$(..)`/`${..}`/`@(..)`/`@{..}` reference. An unclosed
/// reference is a parse error ("Broken variable syntax or bracket mismatch"), recorded in `out`.
pub(super) fn is_var_string(s: &str, out: &mut Outcome) -> bool {
    let b = s.as_bytes();
    let (mut left, mut right) = (b'x', b'x');
    let mut dollar = false;
    let mut bracks = 0i32;
    let mut vars = 0;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'$' | b'@' => {
                if matches!(b.get(i + 1), Some(b'(' | b'{')) {
                    dollar = true;
                }
            }
            b'(' | b'{' if dollar => {
                left = c;
                bracks += 1;
            }
            b')' | b'}' if dollar => {
                bracks -= 1;
                right = c;
            }
            _ => {}
        }
        if bracks > 0 && c == b'/' {
            return false;
        }
        if dollar
            && bracks == 0
            && ((left == b'(' && right == b')') || (left == b'{' && right == b'}'))
        {
            vars += 1;
            dollar = false;
        }
    }
    if dollar && bracks != 0 {
        out.error(
            Anchor::RvalEnd,
            0,
            format!("Broken variable syntax or bracket mismatch in string ({s})"),
        );
        return false;
    }
    vars > 0
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ModeState {
    Wild,
    Who,
    Which,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ModeSort {
    Unknown,
    Numeric,
    Symbolic,
}

/// `CheckModeState`: logs (but, like CFEngine, does not fail) on out-of-context characters.
fn mode_state(
    a: ModeState,
    b: ModeState,
    sa: ModeSort,
    sb: ModeSort,
    ch: char,
    log: &mut Vec<String>,
) {
    if a != ModeState::Wild && b != ModeState::Wild && a != b {
        log.push(format!("Mode string constant ({ch}) used out of context"));
    } else if sa != ModeSort::Unknown && sb != ModeSort::Unknown && sa != sb {
        log.push("Symbolic and numeric filemodes mixed within expression".to_string());
    }
}

/// `ParseModeString` as a validity check: `false` when cf-promises rejects the mode (its log lines in `log`).
pub(super) fn parse_mode_string(mode: &str, log: &mut Vec<String>) -> bool {
    const S_IFMT: u32 = 0o170000;
    let b = mode.as_bytes();
    let mut state = ModeState::Wild;
    let mut sort = ModeSort::Unknown;
    let mut gotaction = false;
    let mut value: u32 = 0;
    let mut affected: u32 = 0;
    let mut i = 0;
    loop {
        let c = b.get(i).copied().unwrap_or(0);
        match c {
            b'a' | b'u' | b'g' | b'o' => {
                mode_state(
                    ModeState::Who,
                    state,
                    ModeSort::Symbolic,
                    sort,
                    char::from(c),
                    log,
                );
                affected |= match c {
                    b'a' => 0o7777,
                    b'u' => 0o4700,
                    b'g' => 0o2070,
                    _ => 0o0007,
                };
                sort = ModeSort::Symbolic;
            }
            b'+' | b'-' | b'=' => {
                if gotaction {
                    log.push("Too many +-= in mode string".to_string());
                    return false;
                }
                mode_state(
                    ModeState::Who,
                    state,
                    ModeSort::Symbolic,
                    sort,
                    char::from(c),
                    log,
                );
                state = ModeState::Which;
                gotaction = true;
                sort = ModeSort::Unknown;
            }
            b'r' | b'w' | b'x' | b's' | b't' => {
                mode_state(
                    ModeState::Which,
                    state,
                    ModeSort::Symbolic,
                    sort,
                    char::from(c),
                    log,
                );
                value |= match c {
                    b'r' => 0o444 & affected,
                    b'w' => 0o222 & affected,
                    b'x' => 0o111 & affected,
                    b's' => 0o6000 & affected,
                    _ => 0o1000,
                };
                sort = ModeSort::Symbolic;
            }
            b'0'..=b'7' => {
                mode_state(
                    ModeState::Which,
                    state,
                    ModeSort::Numeric,
                    sort,
                    char::from(c),
                    log,
                );
                sort = ModeSort::Numeric;
                gotaction = true;
                state = ModeState::Which;
                affected = 0o7777;
                let mut v: u32 = 0;
                let mut j = i;
                while j < b.len() && (b'0'..=b'7').contains(&b[j]) {
                    v = v.wrapping_mul(8).wrapping_add(u32::from(b[j] - b'0'));
                    j += 1;
                }
                value = v & !S_IFMT;
                if value > 0o7777 {
                    log.push(format!("Mode-Value too big : {mode}"));
                    return false;
                }
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                i = j;
                continue;
            }
            b',' => {
                sort = ModeSort::Unknown;
                affected = 0;
                value = 0;
                gotaction = false;
                state = ModeState::Who;
            }
            0 if i >= b.len() => {
                if (state == ModeState::Who || value == 0) && mode != "0000" && mode != "000" {
                    log.push("mode string is incomplete".to_string());
                    return false;
                }
                return true;
            }
            _ => {
                log.push(format!("Invalid mode string ({mode})"));
                return false;
            }
        }
        i += 1;
    }
}

/// `StringMatchFull` against a syntax range: the first (leftmost, PCRE-preferred) match covers the whole
/// string. The agent compiles ranges with PCRE_DOTALL only (`.*` accepts a multi-line `content`, recorded:
/// policies/files/content-multiline-nonl), without UTF mode (bytes: `.` is one byte of `é`); through
/// `crate::pcre`, which caches compiled ranges per thread. `None` when the pattern does not compile.
pub(super) fn full_match(pattern: &str, s: &str) -> Option<bool> {
    let opts = crate::pcre::Options {
        single_line: true,
        no_jit: true,
        ..Default::default()
    };
    crate::pcre::compile_with(pattern, opts)
        .ok()
        .map(|re| re.is_full_match(s))
}

/// `ParseExpression` over a class expression: `Ok(end)` for a parsable prefix ending at byte `end` (trailing
/// text is ignored), `Err(position)` with the byte position where parsing failed.
pub fn class_expression(expr: &str) -> Result<usize, usize> {
    parse_or(expr.as_bytes(), 0)
}

fn parse_or(e: &[u8], start: usize) -> Result<usize, usize> {
    let mut pos = parse_and(e, start)?;
    if pos == e.len() || e[pos] != b'|' {
        return Ok(pos);
    }
    if pos + 1 < e.len() && e[pos + 1] == b'|' {
        pos += 1;
    }
    parse_or(e, pos + 1)
}

fn parse_and(e: &[u8], start: usize) -> Result<usize, usize> {
    let pos = parse_not(e, start)?;
    if pos == e.len() || (e[pos] != b'.' && e[pos] != b'&') {
        return Ok(pos);
    }
    parse_and(e, pos + 1)
}

fn parse_not(e: &[u8], start: usize) -> Result<usize, usize> {
    if start < e.len() && e[start] == b'!' {
        parse_primary(e, start + 1)
    } else {
        parse_primary(e, start)
    }
}

fn parse_primary(e: &[u8], start: usize) -> Result<usize, usize> {
    if start < e.len() && e[start] == b'(' {
        let pos = parse_or(e, start + 1)?;
        if pos < e.len() && e[pos] == b')' {
            Ok(pos + 1)
        } else {
            Err(pos)
        }
    } else {
        string_expression(e, start)
    }
}

/// `ParseStringExpression`: one or more tokens / variable references.
fn string_expression(e: &[u8], start: usize) -> Result<usize, usize> {
    let mut pos = term(e, start)?;
    while let Ok(next) = term(e, pos) {
        pos = next;
    }
    Ok(pos)
}

fn term(e: &[u8], start: usize) -> Result<usize, usize> {
    let mut end = start;
    while end < e.len()
        && (e[end].is_ascii_alphanumeric() || matches!(e[end], b'_' | b'[' | b']' | b':'))
    {
        end += 1;
    }
    if end > start {
        return Ok(end);
    }
    var_ref(e, start)
}

fn var_ref(e: &[u8], start: usize) -> Result<usize, usize> {
    if start + 1 >= e.len() || !matches!(e[start], b'$' | b'@') {
        return Err(start);
    }
    let close = match e[start + 1] {
        b'(' => b')',
        b'{' => b'}',
        _ => return Err(start + 1),
    };
    let pos = qname(e, start + 2)?;
    if pos < e.len() && e[pos] == close {
        Ok(pos + 1)
    } else {
        Err(pos)
    }
}

fn qname(e: &[u8], start: usize) -> Result<usize, usize> {
    let pos = string_expression(e, start)?;
    if pos == e.len() || e[pos] != b'.' {
        return Ok(pos);
    }
    string_expression(e, pos + 1)
}

/// `ValidateClassLiteral`: the error for a class expression without a parsable prefix.
pub(super) fn validate_class_literal(expr: &str) -> Option<CheckError> {
    let pos = class_expression(expr).err()?;
    Some(CheckError::error(
        Anchor::RvalEnd,
        pos as i64 - expr.len() as i64,
        "Syntax error in context string",
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn class_expressions() {
        assert_eq!(class_expression("a.b|c"), Ok(5));
        assert_eq!(class_expression("a-b"), Ok(1));
        assert_eq!(class_expression("!!a"), Err(1));
        assert_eq!(class_expression("a&&b"), Err(2));
        assert_eq!(class_expression("a.b|"), Err(4));
        assert_eq!(class_expression("(a"), Err(2));
        assert_eq!(class_expression(""), Err(0));
        assert_eq!(class_expression("a||$(x.y)"), Ok(9));
    }

    #[test]
    fn naked_vars() {
        assert!(is_naked_var("$(x)", b'$'));
        assert!(is_naked_var("${x[$(i)]}", b'$'));
        assert!(!is_naked_var("$(x)$(y)", b'$'));
        assert!(!is_naked_var("a$(x)", b'$'));
        assert!(is_naked_var("@(x)", b'@'));
    }

    #[test]
    fn every_table_range_compiles() {
        for p in crate::syntax::tables::promise_types() {
            for a in p.attrs {
                if let Some(r) = a.range.filter(|r| !r.is_empty()) {
                    assert!(full_match(r, "").is_some(), "{}: {r}", a.name);
                }
            }
        }
        for b in crate::syntax::tables::body_types() {
            for a in b.attrs {
                if let Some(r) = a.range.filter(|r| !r.is_empty()) {
                    assert!(full_match(r, "").is_some(), "{}: {r}", a.name);
                }
            }
        }
    }

    #[test]
    fn pcre_classes() {
        assert_eq!(full_match("[a-z&]+", "a&b"), Some(true));
        assert_eq!(full_match("[(arch|uchg)]+", "uchg"), Some(true));
        assert_eq!(full_match("a|ab", "ab"), Some(false));
        assert_eq!(full_match(".*", ""), Some(true));
    }
}
