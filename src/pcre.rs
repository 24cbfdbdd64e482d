//! The ONE regex engine for everything the agent matches with PCRE: functions (regcmp, regex_replace,
//! classesmatching, grep, countlinesmatching, lsdir, readstringarray's comments, …), class-name and tag
//! matching, edit_line (select_line_matching, delete/replace/field edits, select_region), file_select
//! (leaf_name, path_name), `ifvarclass`/`classmatch()`, package regexes, augments' class regexes and the
//! `default` attribute. cfsim's own filters (`--classes RE`, `cfsim test --filter`, test specs, the
//! syntax checker's range regexes) stay on the `regex` crate: they are not the agent's matching.
//!
//! Engine: PCRE2 through the `pcre2` crate (bindings to the C library, built from the vendored source by
//! `pcre2-sys` with the `cc` crate when no system libpcre2-8 is found: needs a C compiler, which the
//! Rust toolchain's linker already requires). Compiled as the agent 3.21 (PCRE 8.x) compiles: no UTF
//! mode (bytes: `.` is one byte, `\w \d \s` and `(?i)` are ASCII), `PCRE_MULTILINE | PCRE_DOTALL`,
//! JIT when available. Compile errors carry PCRE 8's wording and offset
//! (`Regular expression error: pcre_compile() 'missing )' in expression 'a(b' (offset: 3)`).
//!
//! Why pcre2 and not fancy-regex (measured by `cargo bench --bench regex`, 2 shared cores):
//! - fidelity on the 60 `regcmp` cases of the recorded corpus (policies/functions/pcre.cases): pcre2
//!   60/60, fancy-regex 44/60 (no `\Q…\E`, `\h`, recursion; Unicode instead of bytes for non-ASCII
//!   subjects; accepts `a{2,1}`, duplicate group names, unknown POSIX classes; no error for a
//!   variable-length look-behind).
//! - speed, compile + full match over 2,000 class names (ms per round, fancy-regex / pcre2):
//!   anchored literal 0.095 / 0.114, alternation 0.366 / 0.070, `.*` heavy 0.196 / 0.095,
//!   classesmatching prefix 0.126 / 0.073, look-ahead 0.693 / 0.075; compiling the 60 corpus patterns
//!   17.3 ms / 0.32 ms.
//!
//! The remaining difference from the agent is PCRE2 against PCRE 8.39: the same syntax for everything
//! policies use; PCRE2's error wording is mapped back to PCRE 8's (table below).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::fasthash::FastState;

/// A compiled regex.
///
/// Compiled for PCRE2's interpreter first; after [`JIT_AFTER`] searches it is compiled again with the
/// JIT, which later searches use. JIT compilation costs ~30,000 instructions a pattern, and an
/// interpreted search of a short string ~800 more than a JIT one (callgrind, masterfiles check): the
/// JIT pays for itself after some 40 searches. Most of the agent's patterns (function arguments,
/// `classmatch`, `regcmp`) are searched a few times, a few (`variablesmatching`, `classesmatching` over
/// every name) thousands of times. The masterfiles check compiled 47 patterns with the JIT at once (3%
/// of its instructions); compiled this way it takes 1.1% fewer. Same matches either way (PCRE2 runs
/// the same pattern); a search that hits the interpreter's match limit is no match as before.
#[derive(Debug)]
pub struct Regex {
    inner: pcre2::bytes::Regex,
    names: Vec<Option<String>>,
    /// What to compile the JIT twin from (`None`: the caller asked for no JIT).
    jit_source: Option<(String, Options)>,
    jit: std::sync::OnceLock<Option<pcre2::bytes::Regex>>,
    searches: std::sync::atomic::AtomicU32,
}

/// Searches with the interpreter before a pattern is compiled with the JIT (see [`Regex`]).
const JIT_AFTER: u32 = 32;

/// A pattern that does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub pattern: String,
    /// PCRE 8's wording (`missing )`, `nothing to repeat`, …).
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

/// A match in a byte subject (the shape of `regex::bytes::Match`).
#[derive(Debug, Clone, Copy)]
pub struct Match<'s> {
    subject: &'s [u8],
    start: usize,
    end: usize,
}

impl<'s> Match<'s> {
    pub fn start(&self) -> usize {
        self.start
    }
    pub fn end(&self) -> usize {
        self.end
    }
    pub fn as_bytes(&self) -> &'s [u8] {
        self.subject.get(self.start..self.end).unwrap_or_default()
    }
}

/// The groups of one match in a byte subject: index 0 is the whole match, `None` a group that did not
/// take part.
#[derive(Debug, Clone)]
pub struct ByteCaptures<'s> {
    groups: Vec<Option<Match<'s>>>,
}

impl<'s> ByteCaptures<'s> {
    pub fn get(&self, i: usize) -> Option<Match<'s>> {
        self.groups.get(i).copied().flatten()
    }
    pub fn len(&self) -> usize {
        self.groups.len()
    }
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = Option<Match<'s>>> + '_ {
        self.groups.iter().copied()
    }
}

/// Options beyond the agent's defaults (regex_replace's option letters).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Options {
    pub caseless: bool,
    pub extended: bool,
    pub ungreedy: bool,
    /// Without PCRE_MULTILINE (the syntax checker's ranges).
    pub single_line: bool,
    /// Without the JIT: for a pattern matched once or twice (the syntax checker's ranges, one match per
    /// constraint), JIT compilation costs far more than it saves (a hello-world agent run compiled ~40
    /// ranges: 3% of its CPU). Same matches; only the engine differs.
    pub no_jit: bool,
}

const CACHE_MAX: usize = 1024;

type Compiled = Result<Arc<Regex>, Error>;

thread_local! {
    /// Options → pattern → compiled (looked up by `&str`: a hit allocates nothing).
    static CACHE: RefCell<HashMap<Options, HashMap<String, Compiled, FastState>, FastState>> =
        RefCell::new(HashMap::default());
}

/// Compiles `pattern` with the agent's flags (cached per thread, errors too).
pub fn compile(pattern: &str) -> Result<Arc<Regex>, Error> {
    compile_with(pattern, Options::default())
}

/// Compiles with extra options (cached per thread).
pub fn compile_with(pattern: &str, opts: Options) -> Result<Arc<Regex>, Error> {
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&opts).and_then(|m| m.get(pattern)).cloned()) {
        return hit;
    }
    let compiled = compile_uncached(pattern, opts);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let m = c.entry(opts).or_default();
        if m.len() >= CACHE_MAX {
            m.clear();
        }
        m.insert(pattern.to_string(), compiled.clone());
    });
    compiled
}

fn compile_uncached(pattern: &str, opts: Options) -> Result<Arc<Regex>, Error> {
    // PCRE2 has no compile-option setter for UNGREEDY in the crate: the inline form is equivalent
    let text = if opts.ungreedy {
        format!("(?U){pattern}")
    } else {
        pattern.to_string()
    };
    let shift = text.len() - pattern.len();
    build(&text, opts, false)
        .map(|inner| {
            let names = inner.capture_names().to_vec();
            Arc::new(Regex {
                inner,
                names,
                jit_source: (!opts.no_jit).then_some((text, opts)),
                jit: std::sync::OnceLock::new(),
                searches: std::sync::atomic::AtomicU32::new(0),
            })
        })
        .map_err(|e| {
            let (message, offset) = pcre8_error(pattern, &e);
            Error {
                pattern: pattern.to_string(),
                message,
                offset: offset.saturating_sub(shift),
            }
        })
}

/// `text` compiled with the agent's flags and `opts`, with the JIT or for the interpreter.
fn build(text: &str, opts: Options, jit: bool) -> Result<pcre2::bytes::Regex, pcre2::Error> {
    pcre2::bytes::RegexBuilder::new()
        .multi_line(!opts.single_line)
        .dotall(true)
        .caseless(opts.caseless)
        .extended(opts.extended)
        .utf(false)
        .ucp(false)
        .jit_if_available(jit)
        .build(text)
}

/// PCRE2's error code → PCRE 8.39's message, and the offset PCRE 8 reports where it differs.
fn pcre8_error(pattern: &str, e: &pcre2::Error) -> (String, usize) {
    let offset = e.offset().unwrap_or(0);
    let text = e.to_string();
    let msg = text.split_once(": ").map_or(text.as_str(), |(_, m)| m);
    let msg = match msg.find("pattern at offset ") {
        Some(i) => msg[i..].split_once(": ").map_or(msg, |(_, m)| m),
        None => msg.strip_prefix("error compiling pattern: ").unwrap_or(msg),
    }
    .to_string();
    let b = pattern.as_bytes();
    let len = b.len();
    match e.code() {
        101 => ("\\ at end of pattern".to_string(), len),
        106 => ("missing terminating ] for character class".to_string(), len),
        109 => ("nothing to repeat".to_string(), offset),
        114 => ("missing )".to_string(), len),
        118 => ("missing ) after comment".to_string(), offset),
        122 => ("unmatched parentheses".to_string(), offset),
        // PCRE 8 points at the start of the class name, PCRE2 after its `:]`
        130 => {
            let start = pattern
                .get(..offset.min(len))
                .and_then(|p| p.rfind("[:"))
                .map_or(offset, |i| i + 2);
            ("unknown POSIX class name".to_string(), start)
        }
        // PCRE 8: a numbered reference is checked at the end, a named one at the name's terminator
        115 => {
            let named = pattern.get(..offset.min(len)).is_some_and(|p| {
                p.ends_with("\\k<")
                    || p.ends_with("\\k{")
                    || p.ends_with("\\k'")
                    || p.ends_with("(?P=")
                    || p.ends_with("\\g{")
                    || p.ends_with("(?&")
            });
            let at = if named {
                b.iter()
                    .skip(offset)
                    .position(|c| matches!(c, b'>' | b'}' | b'\'' | b')'))
                    .map_or(len, |k| offset + k)
            } else {
                len
            };
            ("reference to non-existent subpattern".to_string(), at)
        }
        // PCRE 8 reports it at the look-behind's closing parenthesis
        125 | 187 => (
            "lookbehind assertion is not fixed length".to_string(),
            group_end(b, offset),
        ),
        127 => (
            "conditional group contains more than two branches".to_string(),
            offset,
        ),
        128 => ("assertion expected after (?(".to_string(), offset),
        142 => (
            "syntax error in subpattern name (missing terminator)".to_string(),
            offset,
        ),
        143 => (
            "two named subpatterns have the same name".to_string(),
            offset.saturating_sub(1),
        ),
        169 => (msg, offset.saturating_sub(1)),
        146 | 147 => (
            "unknown property name after \\P or \\p".to_string(),
            offset.saturating_sub(1),
        ),
        _ => (msg, offset),
    }
}

/// The offset of the `)` closing the group that opens at `start` (the pattern's length if none).
fn group_end(b: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    let mut in_class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class => depth += 1,
            b')' if !in_class => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

impl Regex {
    /// The compiled pattern the next search uses: the JIT twin once the pattern has been searched
    /// [`JIT_AFTER`] times (when the JIT compiles it), else the interpreter's.
    fn engine(&self) -> &pcre2::bytes::Regex {
        use std::sync::atomic::Ordering::Relaxed;
        let Some((text, opts)) = &self.jit_source else {
            return &self.inner;
        };
        if let Some(twin) = self.jit.get() {
            return twin.as_ref().unwrap_or(&self.inner);
        }
        if self.searches.fetch_add(1, Relaxed) < JIT_AFTER {
            return &self.inner;
        }
        self.jit
            .get_or_init(|| build(text, *opts, true).ok())
            .as_ref()
            .unwrap_or(&self.inner)
    }

    /// The group names, index 0 (the whole match) first (`None` for an unnamed group).
    pub fn capture_names(&self) -> impl Iterator<Item = Option<&str>> + '_ {
        self.names.iter().map(|n| n.as_deref())
    }

    /// Whether it matches anywhere. A run-time failure (match limit) is no match.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        self.engine().is_match(hay).unwrap_or(false)
    }

    /// The leftmost match starting the search at byte `start` (look-behind sees the bytes before it).
    pub fn find_at<'s>(&self, hay: &'s [u8], start: usize) -> Option<Match<'s>> {
        if start > hay.len() {
            return None;
        }
        match self.engine().find_at(hay, start) {
            Ok(Some(m)) => Some(Match {
                subject: hay,
                start: m.start(),
                end: m.end(),
            }),
            _ => None,
        }
    }

    /// Every non-overlapping match, left to right; after an empty match the search goes on one byte on.
    pub fn find_iter<'s>(&self, hay: &'s [u8]) -> Vec<Match<'s>> {
        let mut out = Vec::new();
        let mut pos = 0;
        while let Some(m) = self.find_at(hay, pos) {
            pos = if m.end == m.start { m.end + 1 } else { m.end };
            out.push(m);
            if pos > hay.len() {
                break;
            }
        }
        out
    }

    /// The leftmost match with its groups, searching from byte `start`.
    pub fn captures_at<'s>(&self, hay: &'s [u8], start: usize) -> Option<ByteCaptures<'s>> {
        if start > hay.len() {
            return None;
        }
        let re = self.engine();
        let mut locs = re.capture_locations();
        match re.captures_read_at(&mut locs, hay, start) {
            Ok(Some(_)) => {}
            _ => return None,
        }
        let groups = (0..locs.len())
            .map(|i| {
                locs.get(i).map(|(s, e)| Match {
                    subject: hay,
                    start: s,
                    end: e,
                })
            })
            .collect();
        Some(ByteCaptures { groups })
    }

    /// The leftmost match with its groups.
    pub fn captures_bytes<'s>(&self, hay: &'s [u8]) -> Option<ByteCaptures<'s>> {
        self.captures_at(hay, 0)
    }

    /// Every match replaced by `rep` (literally).
    pub fn replace_all(&self, hay: &[u8], rep: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(hay.len());
        let mut last = 0;
        for m in self.find_iter(hay) {
            out.extend_from_slice(hay.get(last..m.start).unwrap_or_default());
            out.extend_from_slice(rep);
            last = m.end;
        }
        out.extend_from_slice(hay.get(last..).unwrap_or_default());
        out
    }

    /// The pieces between matches (`regex::bytes::Regex::split`'s shape).
    pub fn split<'s>(&self, hay: &'s [u8]) -> std::vec::IntoIter<&'s [u8]> {
        let mut out = Vec::new();
        let mut last = 0;
        for m in self.find_iter(hay) {
            out.push(hay.get(last..m.start).unwrap_or_default());
            last = m.end;
        }
        out.push(hay.get(last..).unwrap_or_default());
        out.into_iter()
    }

    /// The first match's byte span (PCRE's `ovector[0..2]`), widened to character boundaries so the
    /// caller can slice `s` (the agent's byte-wise match may end inside a multi-byte character).
    pub fn find(&self, s: &str) -> Option<(usize, usize)> {
        let m = self.find_at(s.as_bytes(), 0)?;
        Some((floor_char(s, m.start), ceil_char(s, m.end)))
    }

    /// The first match with its groups (see [`Captures`]).
    pub fn captures(&self, s: &str) -> Option<Captures> {
        let caps = self.captures_at(s.as_bytes(), 0)?;
        let whole = caps.get(0)?;
        let last = (0..caps.len())
            .rev()
            .find(|&i| caps.get(i).is_some())
            .unwrap_or(0);
        let groups = (0..=last)
            .map(|i| {
                Some(
                    caps.get(i)
                        .map(|m| String::from_utf8_lossy(m.as_bytes()).into_owned())
                        .unwrap_or_default(),
                )
            })
            .collect();
        Some(Captures {
            start: floor_char(s, whole.start),
            end: ceil_char(s, whole.end),
            groups,
        })
    }

    /// The agent's full match: the first (leftmost) match spans the whole subject.
    pub fn is_full_match(&self, s: &str) -> bool {
        self.is_full_match_bytes(s.as_bytes())
    }

    /// [`Regex::is_full_match`] on bytes.
    pub fn is_full_match_bytes(&self, hay: &[u8]) -> bool {
        self.find_at(hay, 0)
            .is_some_and(|m| m.start == 0 && m.end == hay.len())
    }
}

fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// `FullTextMatch`: `pattern == s` literally, or the **first** match starts at 0 and ends at `s.len()`.
/// A pattern that does not compile matches only literally.
pub fn full_match(pattern: &str, s: &str) -> bool {
    pattern == s || compile(pattern).is_ok_and(|r| r.is_full_match(s))
}

/// The agent's `StringMatchFull` (functions, file_select, class and tag matching): the first match
/// spans `s`; a pattern that does not compile matches nothing.
pub fn string_match_full(pattern: &str, s: &str) -> bool {
    compile(pattern).is_ok_and(|r| r.is_full_match(s))
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
    fn searches_give_the_same_answers_before_and_after_the_jit_takes_over() {
        let Ok(re) = compile_uncached(r"^(?<key>[a-z]+)_(\d+)$|(?<=x)y", Options::default()) else {
            unreachable!("the pattern compiles")
        };
        let subjects: [&[u8]; 4] = [b"name_42", b"Name_42", b"xy", b"line\nabc_1"];
        let answers = |re: &Regex| -> Vec<String> {
            subjects
                .iter()
                .map(|s| {
                    let groups: Vec<Option<(usize, usize)>> = re
                        .captures_at(s, 0)
                        .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect())
                        .unwrap_or_default();
                    format!(
                        "{} {:?} {groups:?}",
                        re.is_match(s),
                        re.find_at(s, 0).map(|m| (m.start(), m.end()))
                    )
                })
                .collect()
        };
        let interpreted = answers(&re);
        assert!(re.jit.get().is_none(), "compiled with the JIT too early");
        for _ in 0..JIT_AFTER {
            re.is_match(b"warm");
        }
        assert!(
            re.jit.get().is_some(),
            "not compiled with the JIT after {JIT_AFTER} searches"
        );
        assert_eq!(answers(&re), interpreted);
        assert_eq!(
            interpreted[0],
            "true Some((0, 7)) [Some((0, 7)), Some((0, 4)), Some((5, 7))]"
        );
        assert_eq!(
            interpreted[3],
            "true Some((5, 10)) [Some((5, 10)), Some((5, 8)), Some((9, 10))]"
        );
        // a pattern asked without the JIT never gets one
        let Ok(plain) = compile_uncached(
            "a+",
            Options {
                no_jit: true,
                ..Options::default()
            },
        ) else {
            unreachable!("the pattern compiles")
        };
        for _ in 0..=JIT_AFTER {
            plain.is_match(b"aa");
        }
        assert!(plain.jit.get().is_none());
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
