//! Parsing: the pest grammar in `grammar/cfengine.pest`, the macro pass, lowering to the typed AST, and
//! cf-promises style syntax errors with resynchronisation at the next top-level block. A hand-written
//! fast path (`fast/`), proven equal to pest + lowering, runs first; pest stays the normative grammar and
//! the error path.

pub mod ast;
pub mod check;
pub mod fast;
pub mod functions_gen;
pub mod json;
pub mod lower;
pub mod macros;
pub mod print;
pub mod recover;
pub mod runnable;
pub mod sema;
pub mod strings;
pub mod tables;
pub mod tables_gen;
pub mod validate;

use pest::Parser;

use crate::diag::Diagnostic;
use ast::Policy;

#[derive(pest_derive::Parser)]
#[grammar = "grammar/cfengine.pest"]
pub struct CfParser;

/// Deepest nesting of `{`/`(` accepted before parsing; deeper input is rejected with a diagnostic instead of
/// risking the parser's stack. Real policy nests a few levels.
pub const MAX_NESTING: usize = 512;

/// Parse one file. `Ok` holds the AST when there was no error; `Err` holds every diagnostic found (the AST
/// of the blocks that did parse is dropped).
pub fn parse_file(path: &str, text: &str) -> Result<Policy, Vec<Diagnostic>> {
    let parsed = parse_file_recovering(path, text);
    if parsed.diags.is_empty() {
        Ok(parsed.policy)
    } else {
        Err(parsed.diags)
    }
}

/// The result of parsing one file.
pub struct Parsed {
    /// The AST of every block that parsed.
    pub policy: Policy,
    pub diags: Vec<Diagnostic>,
    /// Line index numbering lines as cf-promises does.
    pub lines: crate::source::LineIndex,
    /// `diags` come from the recovery parser (`recover`), which also printed the parse-time checks of
    /// the file in its actions: the AST-based parse-time checks must not run again.
    pub recovered: bool,
}

/// Parse one file, returning the AST of every block that parsed and all diagnostics.
pub fn parse_file_recovering(path: &str, text: &str) -> Parsed {
    let mut parsed = parse_with_pest(path, text);
    if parsed.recovered {
        // cf-promises' own parser, run on the original text, tells what it prints for this file. It
        // works on bytes, as the agent does: a file that is not UTF-8 (read with invalid bytes
        // replaced by U+FFFD) is read again as it is, so columns count its bytes; the echoed text
        // shows U+FFFD for an invalid byte (cfsim's diagnostics are UTF-8 text).
        let raw = text
            .contains('\u{FFFD}')
            .then(|| std::fs::read(path).ok())
            .flatten()
            .filter(|b| String::from_utf8_lossy(b) == text);
        match recover::messages(raw.as_deref().unwrap_or(text.as_bytes())) {
            Some(d) => parsed.diags = d,
            None => parsed.recovered = false,
        }
    }
    parsed
}

/// Which parser `parse_with` runs after the macro pass and the nesting check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The fast path, then pest when the fast path does not accept the file (what `parse_file` does).
    Auto,
    /// Only pest and lowering (the normative grammar).
    Pest,
    /// Only the fast path: `None` when it does not accept the file.
    Fast,
}

/// The pest parse; `recovered` is set when the file has a syntax or macro error (the caller then asks the
/// recovery parser for cf-promises' messages).
fn parse_with_pest(path: &str, text: &str) -> Parsed {
    parse_with(path, text, Engine::Auto).unwrap_or_else(|| Parsed {
        policy: Policy::default(),
        diags: Vec::new(),
        lines: crate::source::LineIndex::default(),
        recovered: false,
    })
}

/// Parse one file with the given engine (before the recovery parser's messages): `tests/fast_parse.rs`
/// compares `Engine::Fast` with `Engine::Pest`. `None` only for `Engine::Fast` on a file it does not
/// accept.
pub fn parse_with(path: &str, text: &str, engine: Engine) -> Option<Parsed> {
    let pass = macros::apply(text);
    let macro_errors = !pass.diags.is_empty();
    let mut adjust: Vec<(u32, i64)> = pass.uncounted_newlines.iter().map(|o| (*o, -1)).collect();
    let mut diags = pass.diags;
    let text = pass.text.as_deref().unwrap_or(text);
    adjust.extend(counted_carriage_returns(text).into_iter().map(|o| (o, 1)));
    let lines = crate::source::LineIndex::new(text).with_adjustments(adjust);
    let mut policy = Policy {
        path: path.to_string(),
        ..Policy::default()
    };
    if let Some(off) = too_deep(text) {
        diags.push(Diagnostic::error(
            off as u32,
            format!("nesting deeper than {MAX_NESTING} levels"),
        ));
        return Some(Parsed {
            policy,
            diags,
            lines,
            recovered: false,
        });
    }
    // Fast path: the hand-written parser (src/syntax/fast/), proven equal to pest + lowering on every
    // file it accepts; anything else goes to pest below.
    if engine != Engine::Pest {
        if let Some(fast) = fast::parse(text) {
            policy.bundles = fast.bundles;
            policy.bodies = fast.bodies;
            policy.promise_blocks = fast.promise_blocks;
            diags.extend(fast.diags);
            return Some(Parsed {
                policy,
                diags,
                lines,
                recovered: macro_errors,
            });
        }
        if engine == Engine::Fast {
            return None;
        }
    }
    Some(parse_with_pest_only(
        text,
        policy,
        diags,
        lines,
        macro_errors,
    ))
}

/// The pest parse and lowering of a file (after the macro pass and the nesting check): the normative
/// grammar and the error path.
#[allow(
    clippy::result_large_err,
    reason = "pest's own error type, only built on the error path"
)]
fn parse_with_pest_only(
    text: &str,
    mut policy: Policy,
    mut diags: Vec<Diagnostic>,
    lines: crate::source::LineIndex,
    macro_errors: bool,
) -> Parsed {
    let mut low = lower::Lowerer {
        base: 0,
        namespace: "default".to_string(),
        diags: &mut diags,
        call_depth: 0,
    };
    // Happy path: the whole file in one parse (pest indexes the input once per parse).
    if let Ok(pairs) = CfParser::parse(Rule::file, text) {
        for block in pairs {
            lower_block(&mut low, block, &mut policy);
        }
        return Parsed {
            policy,
            diags,
            lines,
            recovered: macro_errors,
        };
    }
    // After a syntax error: block by block, each parse bounded by the next line that starts a block, so
    // that hostile input with many errors stays linear.
    let mut pos = 0usize;
    while pos < text.len() {
        let rest = text.get(pos..).unwrap_or("");
        if only_blanks_and_comments(rest) {
            break;
        }
        let bound = resync(text, pos).max(pos + 1).min(text.len());
        let slice = text.get(pos..bound).unwrap_or(rest);
        // A parse reads its input only up to its furthest failure: an error inside the slice is the
        // error of the whole rest, so the rest is parsed only when the slice ran out (an error at its
        // end). Parsing the rest after every error made a file of errors quadratic (50,000 broken
        // bundles: 18 s).
        let attempt = CfParser::parse(Rule::block_at, slice).or_else(|e| {
            let at = match e.location {
                pest::error::InputLocation::Pos(p) => p,
                pest::error::InputLocation::Span((_, end)) => end,
            };
            if bound < text.len() && at >= slice.len() {
                CfParser::parse(Rule::block_at, rest)
            } else {
                Err(e)
            }
        });
        match attempt {
            Ok(mut pairs) => {
                let Some(block) = pairs.next() else { break };
                let end = block.as_span().end();
                low.base = pos;
                lower_block(&mut low, block, &mut policy);
                pos += end.max(1);
            }
            Err(e) => {
                let at = match e.location {
                    pest::error::InputLocation::Pos(p) => p,
                    pest::error::InputLocation::Span((s, _)) => s,
                };
                let mut at = pos + at;
                if at >= text.len() {
                    // The lexer sees an unterminated string as a lone quote character.
                    if let Some(q) = unterminated_string(text, pos) {
                        at = q;
                    }
                }
                if let Some(d) = broken_bundle_header_type(text, pos) {
                    low.diags.push(d);
                }
                low.diags.extend(syntax_error(text, at, &e));
                pos = resync(text, at);
            }
        }
    }
    Parsed {
        policy,
        diags,
        lines,
        recovered: true,
    }
}

fn lower_block(
    low: &mut lower::Lowerer<'_>,
    block: pest::iterators::Pair<'_, Rule>,
    policy: &mut Policy,
) {
    match block.as_rule() {
        Rule::bundle => {
            if let Some(b) = low.lower_bundle(block) {
                policy.bundles.push(b);
            }
        }
        Rule::body => {
            if let Some(b) = low.lower_body(block) {
                policy.bodies.push(b);
            }
        }
        Rule::promise_block => {
            if let Some(b) = low.lower_promise_block(block) {
                policy.promise_blocks.push(b);
            }
        }
        _ => {}
    }
}

/// A bundle header whose parse failed still has its type checked first (`bundle main {` reports "Unknown
/// bundle type 'main'" before the syntax error), as cf-promises' parser does.
fn broken_bundle_header_type(text: &str, pos: usize) -> Option<Diagnostic> {
    let rest = text.get(pos..)?;
    let start = pos + (rest.len() - rest.trim_start().len());
    let after = text.get(start..)?.strip_prefix("bundle")?;
    let word_start = start + 6 + (after.len() - after.trim_start().len());
    let word: String = text
        .get(word_start..)?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
        .collect();
    if word.is_empty() {
        return None;
    }
    check::check_bundle_type(&word)
        .map(|e| Diagnostic::check((word_start + word.len()) as u32, None, e.message))
}

/// Whether `text` holds only whitespace and `#` comments.
fn only_blanks_and_comments(text: &str) -> bool {
    let mut in_comment = false;
    for b in text.bytes() {
        match b {
            b'\n' => in_comment = false,
            _ if in_comment => {}
            b'#' => in_comment = true,
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {}
            _ => return false,
        }
    }
    true
}

/// Carriage returns that cf-promises' lexer counts as line breaks: those outside strings and comments.
fn counted_carriage_returns(text: &str) -> Vec<u32> {
    if !text.contains('\r') {
        return Vec::new();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\r' => out.push(i as u32),
            b'#' => {
                while bytes.get(i + 1).is_some_and(|c| *c != b'\n') {
                    i += 1;
                }
            }
            b'"' | b'\'' | b'`' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    if c == b'\\' {
                        i += 1;
                    } else if c == b {
                        break;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The offset where `{`/`(` nesting first exceeds `MAX_NESTING` (strings and comments not considered).
///
/// By chunks of 32 bytes whose openers and closers are counted in `u8` lanes (vectorised; 5 GB/s
/// against 1 GB/s for the plain walk on the masterfiles): a chunk whose closers cannot take the depth
/// below zero and whose openers cannot take it past the limit changes it by their difference; only the
/// other chunks are walked byte by byte.
fn too_deep(text: &str) -> Option<usize> {
    const CHUNK: usize = 32;
    let mut depth = 0usize;
    for (c, chunk) in text.as_bytes().chunks(CHUNK).enumerate() {
        let count = |x: u8, y: u8| {
            chunk
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from((b == x) | (b == y))))
        };
        let (open, close) = (
            usize::from(count(b'{', b'(')),
            usize::from(count(b'}', b')')),
        );
        if close <= depth && depth + open <= MAX_NESTING {
            depth = depth + open - close;
            continue;
        }
        for (i, b) in chunk.iter().enumerate() {
            match b {
                b'{' | b'(' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Some(c * CHUNK + i);
                    }
                }
                b'}' | b')' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    None
}

/// Next offset after `at` where a line starts with `bundle`, `body` or `promise`.
fn resync(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < bytes.len() {
        if bytes.get(i) == Some(&b'\n') {
            let line = text.get(i + 1..).unwrap_or("");
            if ["bundle", "body", "promise"].iter().any(|k| {
                line.strip_prefix(k)
                    .map(|r| r.starts_with([' ', '\t']))
                    .unwrap_or(false)
            }) {
                return i + 1;
            }
        }
        i += 1;
    }
    text.len()
}

/// Offset of the opening quote of a string that never closes, scanning from `from` (comments skipped).
fn unterminated_string(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = from;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'#' => {
                while bytes.get(i).is_some_and(|c| *c != b'\n') {
                    i += 1;
                }
            }
            b'"' | b'\'' | b'`' => {
                let q = b;
                let start = i;
                i += 1;
                loop {
                    match bytes.get(i) {
                        None => return Some(start),
                        Some(b'\\') if q != b'`' => i += 2,
                        Some(c) if *c == q => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// End offset of the token starting at `at` (cf-promises points after the offending token).
pub(crate) fn token_end(text: &str, at: usize) -> usize {
    let rest = text.get(at..).unwrap_or("");
    let mut chars = rest.char_indices();
    let Some((_, c)) = chars.next() else {
        return at;
    };
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || !c.is_ascii();
    let len = match c {
        '"' | '\'' | '`' => {
            let mut esc = false;
            let mut end = 1;
            for (i, ch) in rest.char_indices().skip(1) {
                if esc {
                    esc = false;
                } else if ch == '\\' && c != '`' {
                    esc = true;
                } else if ch == c {
                    end = i + 1;
                    break;
                }
            }
            end
        }
        c if is_ident(c) => rest
            .char_indices()
            .find(|(_, ch)| !is_ident(*ch))
            .map(|(i, _)| i)
            .unwrap_or(rest.len()),
        '=' | '-' if rest.get(1..2) == Some(">") => 2,
        ':' if rest.get(1..2) == Some(":") => 2,
        c => c.len_utf8(),
    };
    at + len
}

fn token_text(text: &str, at: usize) -> &str {
    text.get(at..token_end(text, at)).unwrap_or("")
}

/// Turn a pest error into cf-promises' `syntax error` plus a more specific line.
fn syntax_error(text: &str, at: usize, e: &pest::error::Error<Rule>) -> Vec<Diagnostic> {
    let end = token_end(text, at) as u32;
    let got = token_text(text, at);
    let mut out = vec![Diagnostic::error(end, "syntax error")];
    let expected: Vec<Rule> = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        _ => Vec::new(),
    };
    let want = |r: Rule| expected.contains(&r);
    let detail = if got == "," && want(Rule::constraint) {
        "Expected attribute, got ',' (comma after promiser is not allowed since 3.5.0)".to_string()
    } else if want(Rule::promise_end) && got.starts_with(['"', '\'', '`']) {
        format!("Check previous line, Expected ';', got '{got}'")
    } else if want(Rule::promise_end) {
        format!("Expected ';', got '{got}'")
    } else if want(Rule::callish) || want(Rule::list) {
        format!("Invalid r-value type '{got}'")
    } else if want(Rule::promise) || want(Rule::promise_type) {
        format!("Expected promiser string, got '{got}'")
    } else if want(Rule::params) || want(Rule::ident) {
        format!("Expected identifier, got '{got}'")
    } else {
        format!("Unexpected '{got}'")
    };
    out.push(Diagnostic::error(end, detail));
    out
}

/// Promise types built into 3.21.0 (any other section in an agent bundle is a custom promise type).
pub const BUILTIN_PROMISE_TYPES: &[&str] = &[
    "access",
    "build_xpath",
    "classes",
    "commands",
    "databases",
    "defaults",
    "delete_attribute",
    "delete_lines",
    "delete_text",
    "delete_tree",
    "field_edits",
    "files",
    "guest_environments",
    "insert_lines",
    "insert_text",
    "insert_tree",
    "measurements",
    "meta",
    "methods",
    "packages",
    "processes",
    "replace_patterns",
    "reports",
    "roles",
    "services",
    "set_attribute",
    "set_text",
    "storage",
    "users",
    "vars",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte definition `too_deep`'s chunked count must agree with.
    fn too_deep_naive(text: &str) -> Option<usize> {
        let mut depth = 0usize;
        for (i, b) in text.bytes().enumerate() {
            match b {
                b'{' | b'(' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Some(i);
                    }
                }
                b'}' | b')' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        None
    }

    #[test]
    fn too_deep_by_chunks_is_the_byte_walk() {
        let deep = "(".repeat(MAX_NESTING + 1);
        let mut cases = vec![
            String::new(),
            deep.clone(),
            format!("x{deep}"),
            format!("{})))){}", "(".repeat(MAX_NESTING - 2), "((((((("),
            format!("))))){}", "{".repeat(MAX_NESTING)),
            format!("{}{}", ")".repeat(100), "(".repeat(MAX_NESTING + 1)),
        ];
        // Seeded mixes of openers, closers and other bytes.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in 0..200 {
            let mut s = String::new();
            for _ in 0..(n * 37 % 3000) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(match x % 7 {
                    0..=2 => '(',
                    3 => '{',
                    4 => ')',
                    5 => '}',
                    _ => 'a',
                });
            }
            cases.push(s);
        }
        for c in &cases {
            assert_eq!(too_deep(c), too_deep_naive(c), "{c}");
        }
        assert!(cases.iter().filter(|c| too_deep(c).is_some()).count() > 10);
    }
}
