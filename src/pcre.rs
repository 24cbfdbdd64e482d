//! PCRE-compatible regexes for the places the agent uses PCRE (the edit_line engine first): look-around and
//! backreferences through `fancy-regex`, compiled with the flags the agent's `CompileRegex` uses
//! (`PCRE_MULTILINE | PCRE_DOTALL`), cached per thread, and compile errors worded as PCRE words the common
//! ones (`Regular expression error: pcre_compile() 'missing )' in expression 'a(b' (offset: 3)`).
//!
//! Matching is leftmost-first like PCRE. Differences that remain: `\d`, `\w`, `\s` are Unicode-aware here
//! and byte-oriented in the agent (only non-ASCII text differs), and PCRE-only syntax `fancy-regex` lacks
//! (`\Q…\E`, recursion, callouts) is a compile error here.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// A compiled regex.
#[derive(Debug)]
pub struct Regex {
    inner: fancy_regex::Regex,
}

/// A pattern that does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub pattern: String,
    /// PCRE's wording where known (`missing )`, `nothing to repeat`, …), else the parser's.
    pub message: String,
    /// Byte offset PCRE reports.
    pub offset: usize,
}

impl Error {
    /// The agent's ERR line for it (libntech `CompileRegex`).
    pub fn agent_message(&self) -> String {
        format!(
            "Regular expression error: pcre_compile() '{}' in expression '{}' (offset: {})",
            self.message, self.pattern, self.offset
        )
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.agent_message())
    }
}

impl std::error::Error for Error {}

/// One match: its byte span and the groups as the agent defines `$(match.0..N)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captures {
    pub start: usize,
    pub end: usize,
    /// Index i is `match.i`: every group up to the last one that took part (PCRE's `rc`), a group that
    /// did not take part in between is `Some("")` as in the agent; groups after it are left out.
    pub groups: Vec<Option<String>>,
}

const CACHE_MAX: usize = 512;

thread_local! {
    static CACHE: RefCell<HashMap<String, Result<Arc<Regex>, Error>>> = RefCell::new(HashMap::new());
}

/// Compiles `pattern` with the agent's flags (cached).
pub fn compile(pattern: &str) -> Result<Arc<Regex>, Error> {
    if let Some(hit) = CACHE.with(|c| c.borrow().get(pattern).cloned()) {
        return hit;
    }
    let compiled = compile_uncached(pattern);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_MAX {
            c.clear();
        }
        c.insert(pattern.to_string(), compiled.clone());
    });
    compiled
}

fn compile_uncached(pattern: &str) -> Result<Arc<Regex>, Error> {
    if let Some((message, offset)) = pcre_syntax_error(pattern) {
        return Err(Error {
            pattern: pattern.to_string(),
            message: message.to_string(),
            offset,
        });
    }
    fancy_regex::RegexBuilder::new(pattern)
        .multi_line(true)
        .dot_matches_new_line(true)
        .build()
        .map(|inner| Arc::new(Regex { inner }))
        .map_err(|e| Error {
            pattern: pattern.to_string(),
            message: fancy_message(&e),
            offset: 0,
        })
}

fn fancy_message(e: &fancy_regex::Error) -> String {
    let text = e.to_string();
    if text.contains("look-behind") || text.contains("lookbehind") || text.contains("LookBehind") {
        return "lookbehind assertion is not fixed length".to_string();
    }
    text
}

/// PCRE's wording and offset for the syntax errors policies actually make; `None` lets the parser decide.
fn pcre_syntax_error(p: &str) -> Option<(&'static str, usize)> {
    let b = p.as_bytes();
    // open groups: (is a lookbehind, holds a variable-length quantifier)
    let mut depth: Vec<(bool, bool)> = Vec::new();
    let mut i = 0;
    // whether the previous item can take a quantifier
    let mut repeatable = false;
    // whether the previous item is a quantifier (a second one is "nothing to repeat" unless ? or +)
    let mut after_quant = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                if i + 1 >= b.len() {
                    return Some(("\\ at end of pattern", b.len()));
                }
                if b[i + 1] == b'k' && !matches!(b.get(i + 2), Some(b'{' | b'<' | b'\'')) {
                    return Some((
                        "\\k is not followed by a braced, angle-bracketed, or quoted name",
                        i + 1,
                    ));
                }
                i += 2;
                repeatable = true;
                after_quant = false;
                continue;
            }
            b'[' => {
                i += 1;
                if i < b.len() && b[i] == b'^' {
                    i += 1;
                }
                if i < b.len() && b[i] == b']' {
                    i += 1;
                }
                let mut prev: Option<u8> = None;
                let mut closed = false;
                while i < b.len() {
                    match b[i] {
                        b'\\' => {
                            prev = None;
                            i += 2;
                        }
                        b'[' if b.get(i + 1) == Some(&b':') => {
                            // POSIX class [:alpha:]
                            match p[i + 2..].find(":]") {
                                Some(k) => i += k + 4,
                                None => i += 1,
                            }
                            prev = None;
                        }
                        b']' => {
                            closed = true;
                            break;
                        }
                        b'-' if prev.is_some()
                            && i + 1 < b.len()
                            && b[i + 1] != b']'
                            && b[i + 1] != b'\\' =>
                        {
                            let lo = prev.unwrap_or(0);
                            let hi = b[i + 1];
                            if hi < lo {
                                return Some(("range out of order in character class", i + 1));
                            }
                            prev = None;
                            i += 2;
                        }
                        x => {
                            prev = Some(x);
                            i += 1;
                        }
                    }
                }
                if !closed {
                    return Some(("missing terminating ] for character class", b.len()));
                }
                i += 1;
                repeatable = true;
                after_quant = false;
                continue;
            }
            b'(' => {
                if b.get(i + 1) == Some(&b'?') {
                    let next = b.get(i + 2).copied();
                    let known = matches!(
                        next,
                        Some(
                            b':' | b'='
                                | b'!'
                                | b'<'
                                | b'>'
                                | b'|'
                                | b'#'
                                | b'P'
                                | b'\''
                                | b'-'
                                | b')'
                        )
                    ) || next.is_some_and(|n| b"imsxJUX".contains(&n));
                    if !known {
                        return Some(("unrecognized character after (? or (?-", i + 2));
                    }
                }
                let lookbehind = p[i..].starts_with("(?<=") || p[i..].starts_with("(?<!");
                depth.push((lookbehind, false));
                repeatable = false;
                after_quant = false;
                i += if b.get(i + 1) == Some(&b'?') { 2 } else { 1 };
                continue;
            }
            b')' => {
                match depth.pop() {
                    None => return Some(("unmatched parentheses", i)),
                    Some((true, true)) => {
                        return Some(("lookbehind assertion is not fixed length", i))
                    }
                    Some(_) => {}
                }
                repeatable = true;
                after_quant = false;
            }
            b'|' => {
                repeatable = false;
                after_quant = false;
            }
            b'*' | b'+' | b'?' => {
                if after_quant && (c == b'?' || c == b'+') {
                    // lazy / possessive modifier
                    after_quant = false;
                    repeatable = false;
                } else if !repeatable {
                    return Some(("nothing to repeat", i));
                } else {
                    after_quant = true;
                    repeatable = false;
                    mark_variable(&mut depth);
                }
            }
            b'{' => {
                if let Some((lo, hi, len)) = parse_braces(&p[i..]) {
                    if !repeatable {
                        return Some(("nothing to repeat", i));
                    }
                    if let Some(hi) = hi {
                        if hi < lo {
                            return Some(("numbers out of order in {} quantifier", i + len - 1));
                        }
                    }
                    if hi != Some(lo) {
                        mark_variable(&mut depth);
                    }
                    i += len;
                    after_quant = true;
                    repeatable = false;
                    continue;
                }
                repeatable = true;
                after_quant = false;
            }
            b'^' | b'$' => {
                repeatable = false;
                after_quant = false;
            }
            _ => {
                repeatable = true;
                after_quant = false;
            }
        }
        i += 1;
    }
    if !depth.is_empty() {
        return Some(("missing )", b.len()));
    }
    None
}

/// A variable-length quantifier inside a lookbehind (PCRE1 wants them fixed-length).
fn mark_variable(depth: &mut [(bool, bool)]) {
    for g in depth.iter_mut().filter(|g| g.0) {
        g.1 = true;
    }
}

/// `{n}`, `{n,}`, `{n,m}` at the start of `s`: (n, m, length); anything else is a literal brace in PCRE.
fn parse_braces(s: &str) -> Option<(u64, Option<u64>, usize)> {
    let close = s.find('}')?;
    let body = &s[1..close];
    let (lo, hi) = match body.split_once(',') {
        None => (body, Some(body)),
        Some((lo, hi)) => (lo, if hi.is_empty() { None } else { Some(hi) }),
    };
    if lo.is_empty() || !lo.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if let Some(hi) = hi {
        if !hi.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    let lo_n = lo.parse().ok()?;
    let hi_n = match hi {
        Some(h) => Some(h.parse().ok()?),
        None => None,
    };
    Some((lo_n, hi_n, close + 1))
}

impl Regex {
    /// The first match's byte span (PCRE's `ovector[0..2]`). A run-time failure (backtrack limit) is no match.
    pub fn find(&self, s: &str) -> Option<(usize, usize)> {
        match self.inner.find(s) {
            Ok(Some(m)) => Some((m.start(), m.end())),
            _ => None,
        }
    }

    /// The first match with its groups (see [`Captures`]).
    pub fn captures(&self, s: &str) -> Option<Captures> {
        let caps = match self.inner.captures(s) {
            Ok(Some(c)) => c,
            _ => return None,
        };
        let whole = caps.get(0)?;
        let last = (0..caps.len())
            .rev()
            .find(|&i| caps.get(i).is_some())
            .unwrap_or(0);
        let groups = (0..=last)
            .map(|i| {
                Some(
                    caps.get(i)
                        .map(|m| m.as_str().to_string())
                        .unwrap_or_default(),
                )
            })
            .collect();
        Some(Captures {
            start: whole.start(),
            end: whole.end(),
            groups,
        })
    }

    /// Spec §3.3 on a compiled regex: the first match spans the whole string.
    pub fn is_full_match(&self, s: &str) -> bool {
        self.find(s) == Some((0, s.len()))
    }
}

/// `FullTextMatch`: `pattern == s` literally, or the **first** match starts at 0 and ends at `s.len()`.
/// A pattern that does not compile matches only literally.
pub fn full_match(pattern: &str, s: &str) -> bool {
    pattern == s || compile(pattern).is_ok_and(|r| r.is_full_match(s))
}

/// The first match's byte span (unanchored, `BlockTextMatch`).
pub fn find(pattern: &str, s: &str) -> Result<Option<(usize, usize)>, Error> {
    Ok(compile(pattern)?.find(s))
}

/// The first match with its `match.N` groups.
pub fn captures(pattern: &str, s: &str) -> Result<Option<Captures>, Error> {
    Ok(compile(pattern)?.captures(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(p: &str) -> String {
        match compile(p) {
            Err(e) => e.agent_message(),
            Ok(_) => "compiled".to_string(),
        }
    }

    #[test]
    fn full_match_is_literal_or_first_match_spanning() {
        assert!(full_match("abc", "abc"));
        assert!(!full_match("abc", "abcd"));
        assert!(full_match("a.c", "abc"));
        // the first match of an alternation decides (spec §3.3)
        assert!(!full_match("gt|gts", "gts"));
        assert!(full_match("gts|gt", "gts"));
        // a bad regex still matches literally
        assert!(full_match("a(b", "a(b"));
        assert!(!full_match("a(b", "ab"));
    }

    #[test]
    fn lookahead_and_backreferences() {
        assert!(full_match("^foo=(?!bar$).*$", "foo=baz"));
        assert!(!full_match("^foo=(?!bar$).*$", "foo=bar"));
        assert!(full_match(r"(a+)b\1", "aabaa"));
        assert_eq!(find(r"(?<=x)y", "xy"), Ok(Some((1, 2))));
    }

    #[test]
    fn captures_are_pcre_groups() {
        let c = captures(r"^(\w+)=(\w+)$", "k=v").ok().flatten();
        let groups = c.map(|c| c.groups);
        assert_eq!(
            groups,
            Some(vec![
                Some("k=v".to_string()),
                Some("k".to_string()),
                Some("v".to_string())
            ])
        );
        // a trailing group that did not take part is not defined; one in between is ""
        let c = captures("(a)|(b)", "a").ok().flatten().map(|c| c.groups);
        assert_eq!(c, Some(vec![Some("a".to_string()), Some("a".to_string())]));
        let c = captures("(x)?(b)", "b").ok().flatten().map(|c| c.groups);
        assert_eq!(
            c,
            Some(vec![
                Some("b".to_string()),
                Some(String::new()),
                Some("b".to_string())
            ])
        );
    }

    #[test]
    fn dotall_and_multiline_flags() {
        assert_eq!(find("a.b", "a\nb"), Ok(Some((0, 3))));
        assert_eq!(find("^b$", "a\nb"), Ok(Some((2, 3))));
    }

    // recorded: cf-agent 3.21.0, policy `delete_lines: "a)b"; "[ab"; "*a"; "a\\"; "a{2,1}"; "(?<=a+)b";
    // "\\k"; "a(?z)"; "[b-a]"; "x**";` on a one-line file
    #[test]
    fn compile_errors_are_worded_as_pcre() {
        assert_eq!(
            err("a(b"),
            "Regular expression error: pcre_compile() 'missing )' in expression 'a(b' (offset: 3)"
        );
        assert_eq!(
            err("a)b"),
            "Regular expression error: pcre_compile() 'unmatched parentheses' in expression 'a)b' (offset: 1)"
        );
        assert_eq!(
            err("[ab"),
            "Regular expression error: pcre_compile() 'missing terminating ] for character class' in expression '[ab' (offset: 3)"
        );
        assert_eq!(
            err("*a"),
            "Regular expression error: pcre_compile() 'nothing to repeat' in expression '*a' (offset: 0)"
        );
        assert_eq!(
            err("a\\"),
            "Regular expression error: pcre_compile() '\\ at end of pattern' in expression 'a\\' (offset: 2)"
        );
        assert_eq!(
            err("a{2,1}"),
            "Regular expression error: pcre_compile() 'numbers out of order in {} quantifier' in expression 'a{2,1}' (offset: 5)"
        );
        assert_eq!(
            err("\\k"),
            "Regular expression error: pcre_compile() '\\k is not followed by a braced, angle-bracketed, or quoted name' in expression '\\k' (offset: 1)"
        );
        assert_eq!(
            err("a(?z)"),
            "Regular expression error: pcre_compile() 'unrecognized character after (? or (?-' in expression 'a(?z)' (offset: 3)"
        );
        assert_eq!(
            err("[b-a]"),
            "Regular expression error: pcre_compile() 'range out of order in character class' in expression '[b-a]' (offset: 3)"
        );
        assert_eq!(
            err("x**"),
            "Regular expression error: pcre_compile() 'nothing to repeat' in expression 'x**' (offset: 2)"
        );
        assert_eq!(
            err("(?<=a+)b"),
            "Regular expression error: pcre_compile() 'lookbehind assertion is not fixed length' in expression '(?<=a+)b' (offset: 6)"
        );
        assert_eq!(err("(?<=ab)c|(?<!x{2})d"), "compiled");
    }

    #[test]
    fn valid_syntax_is_not_rejected_by_the_prescan() {
        for p in [
            r"^(\s*)port\s*=\s*(?!8080$)\d+$",
            r"x*?y+?z??",
            r"a{2}b{1,}c{1,3}",
            r"a{,3}",
            r"[]a]",
            r"[^]a]",
            r"[[:alpha:]_-]+",
            r"\[s\]",
            r"(?i)abc",
            r"(?:a|b)",
            r"(?P<n>x)(?P=n)",
            r"a|",
            r"\d+\.\d+",
        ] {
            assert_eq!(err(p), "compiled", "{p}");
        }
    }
}
