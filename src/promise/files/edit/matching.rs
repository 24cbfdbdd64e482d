//! Matching primitives of the engine (spec §3.3) on top of [`crate::pcre`]: `FullTextMatch` (literal
//! equality or a first match spanning the line), `BlockTextMatch` (unanchored, with `match.N`), each
//! logging the agent's ERR line when a pattern does not compile (every time it is tried, as the agent
//! does); `SelectLine` (`insert_select`/`delete_select`), `MatchRegion` (a chunk of lines at a position)
//! and `MatchPolicy` (`whitespace_policy` → the regexes a line is tried with).

use super::list::{Id, Lines};
use super::{LogLevel, Out, SelectLists};
use crate::pcre;

/// `FullTextMatch(re, s)`.
pub(crate) fn full_text_match(re: &str, s: &str, out: &mut Out) -> bool {
    if re == s {
        return true;
    }
    match pcre::compile(re) {
        Ok(r) => r.is_full_match(s),
        Err(e) => {
            out.log(LogLevel::Error, e.agent_message());
            false
        }
    }
}

/// `BlockTextMatch(re, s)`: the first match with its groups.
pub(crate) fn block_text_match(re: &str, s: &str, out: &mut Out) -> Option<pcre::Captures> {
    match pcre::compile(re) {
        Ok(r) => r.captures(s),
        Err(e) => {
            out.log(LogLevel::Error, e.agent_message());
            None
        }
    }
}

/// `SelectLine`: the first non-empty list of `insert_select`/`delete_select` decides (in the order
/// startwith, not_startwith, match, not_match, contains, not_contains); no list selects every line.
pub(crate) fn select_line(line: &str, sel: &SelectLists, out: &mut Out) -> bool {
    if !sel.startwith.is_empty() {
        return sel.startwith.iter().any(|p| line.starts_with(p.as_str()));
    }
    if !sel.not_startwith.is_empty() {
        return !sel
            .not_startwith
            .iter()
            .any(|p| line.starts_with(p.as_str()));
    }
    if !sel.matching.is_empty() {
        return sel.matching.iter().any(|p| full_text_match(p, line, out));
    }
    if !sel.not_matching.is_empty() {
        return !sel
            .not_matching
            .iter()
            .any(|p| full_text_match(p, line, out));
    }
    if !sel.contains.is_empty() {
        return sel
            .contains
            .iter()
            .any(|p| block_text_match(p, line, out).is_some());
    }
    if !sel.not_contains.is_empty() {
        return !sel
            .not_contains
            .iter()
            .any(|p| block_text_match(p, line, out).is_some());
    }
    true
}

/// `MatchRegion(chunk, begin, end, regex)`: how many lines of the (multi-line) chunk match the file from
/// `begin` on — 0 unless all do, the run reaches `end`, or the file ends first. Lines compare literally,
/// or as full-match regexes when `regex` (delete_lines).
pub(crate) fn match_region(
    lines: &Lines,
    chunk: &str,
    begin: Option<Id>,
    end: Option<Id>,
    regex: bool,
    out: &mut Out,
) -> usize {
    let pieces: Vec<&str> = chunk.split('\n').collect();
    let mut ip = begin;
    let mut count = 0;
    for (k, piece) in pieces.iter().enumerate() {
        let Some(id) = ip else { return 0 };
        let text = lines.text(id);
        let same = if regex {
            full_text_match(piece, text, out)
        } else {
            *piece == text
        };
        if !same {
            return 0;
        }
        count += 1;
        if Some(id) == end {
            return 0;
        }
        match lines.next(id) {
            Some(n) => ip = Some(n),
            None => {
                if k + 1 < pieces.len() {
                    return 0;
                }
                break;
            }
        }
    }
    count
}

/// `EscapeRegexChars`: the agent escapes only `.` and `*` before applying a whitespace policy (so
/// `a+b` with a policy also matches `aab`, and `a(b` is a regex error).
pub fn escape_regex_chars(s: &str) -> String {
    let mut r = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if c == '.' || c == '*' {
            r.push('\\');
        }
        r.push(c);
    }
    r
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `ignore_embedded`: runs of whitespace strictly between the first and the last non-space character
/// become `\s+`.
fn ignore_embedded(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let first = chars
        .iter()
        .position(|&c| !is_c_space(c))
        .unwrap_or(chars.len());
    let mut last = chars.len().saturating_sub(1);
    while last > first && is_c_space(chars[last]) {
        last -= 1;
    }
    let mut r = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if i > first && i < last && is_c_space(c) {
            while i + 1 < chars.len() && is_c_space(chars[i + 1]) {
                i += 1;
            }
            r.push_str("\\s+");
        } else {
            r.push(c);
        }
        i += 1;
    }
    r
}

/// `ignore_leading`: leading whitespace becomes `\s*` (unless it already starts so).
fn ignore_leading(s: &str) -> String {
    if s.starts_with("\\s*") {
        return s.to_string();
    }
    format!("\\s*{}", s.trim_start_matches(is_c_space))
}

/// `ignore_trailing`: trailing whitespace becomes `\s*` (unless it already ends so). Recorded on
/// 3.21.0: `{"ignore_leading", "ignore_trailing"}` makes `a` match `  a  `, so the agent's end test is
/// not the older source's off-by-one one (which would have left `\s*a` alone).
fn ignore_trailing(s: &str) -> String {
    if s.ends_with("\\s*") {
        return s.to_string();
    }
    let mut t: Vec<char> = s.chars().collect();
    while t.len() > 1 && t.last().is_some_and(|&c| is_c_space(c)) {
        t.pop();
    }
    let mut r: String = t.into_iter().collect();
    r.push_str("\\s*");
    r
}

/// The regexes `MatchPolicy` tries for one line under a `whitespace_policy` list, one after each
/// policy (they accumulate: `{"ignore_leading", "ignore_trailing"}` tries `\s*a` then `\s*a\s*`).
/// Empty for no policy or when `exact_match` comes first (a literal comparison).
pub fn whitespace_regexes(line: &str, policy: &[String]) -> Vec<String> {
    let mut tried = Vec::new();
    let mut fin: Option<String> = None;
    for p in policy {
        if p == "exact_match" {
            break;
        }
        let cur = fin.take().unwrap_or_else(|| escape_regex_chars(line));
        let next = match p.as_str() {
            "ignore_embedded" => ignore_embedded(&cur),
            "ignore_leading" => ignore_leading(&cur),
            "ignore_trailing" => ignore_trailing(&cur),
            _ => cur,
        };
        tried.push(next.clone());
        fin = Some(next);
    }
    tried
}

/// `MatchPolicy(needle, haystack, whitespace_policy)`: whether `haystack` counts as the needle line.
pub(crate) fn match_policy(needle: &str, haystack: &str, policy: &[String], out: &mut Out) -> bool {
    let mut ok = false;
    let mut escaped = false;
    for line in needle.split('\n') {
        ok = false;
        let direct = needle == haystack;
        if policy.is_empty() {
            ok = direct;
            break;
        }
        let mut fin = line.to_string();
        for (k, p) in policy.iter().enumerate() {
            if p == "exact_match" {
                if policy.len() > 1 || k != 0 {
                    out.log(
                        LogLevel::Error,
                        "Multiple policies conflict with \"exact_match\", using exact match",
                    );
                    out.promise_ref(LogLevel::Error);
                }
                ok = ok || direct;
                break;
            }
            if !escaped {
                fin = escape_regex_chars(line);
                escaped = true;
            }
            fin = match p.as_str() {
                "ignore_embedded" => ignore_embedded(&fin),
                "ignore_leading" => ignore_leading(&fin),
                "ignore_trailing" => ignore_trailing(&fin),
                _ => fin,
            };
            ok = ok || full_text_match(&fin, haystack, out);
        }
        if !ok {
            break;
        }
    }
    ok
}

/// `IsItemInRegion`: some line from `begin` up to (excluding) `end` matches under the policy.
pub(crate) fn is_item_in_region(
    lines: &Lines,
    item: &str,
    begin: Option<Id>,
    end: Option<Id>,
    policy: &[String],
    out: &mut Out,
) -> bool {
    let ids: Vec<Id> = lines.iter(begin, end).collect();
    ids.into_iter()
        .any(|id| match_policy(item, lines.text(id), policy, out))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::env;
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn whitespace_policy_regexes() {
        assert_eq!(
            whitespace_regexes("key = value", &v(&["ignore_embedded"])),
            v(&[r"key\s+=\s+value"])
        );
        assert_eq!(
            whitespace_regexes("  lead", &v(&["ignore_leading"])),
            v(&[r"\s*lead"])
        );
        assert_eq!(
            whitespace_regexes("a.b  ", &v(&["ignore_trailing"])),
            v(&[r"a\.b\s*"])
        );
        assert_eq!(
            whitespace_regexes(" a  b ", &v(&["ignore_leading", "ignore_trailing"])),
            v(&[r"\s*a  b ", r"\s*a  b\s*"])
        );
        // leading/trailing blanks stay literal under ignore_embedded
        assert_eq!(
            whitespace_regexes(" a b ", &v(&["ignore_embedded"])),
            v(&[r" a\s+b "])
        );
        assert!(whitespace_regexes("x", &v(&["exact_match"])).is_empty());
    }

    // recorded: cf-agent 3.21.0, file `  lead` / `key    =   value`, policy insert_lines: "lead"
    // whitespace_policy => {"ignore_leading"}; "key = value" whitespace_policy => {"ignore_embedded"};
    // "  key    =   value  " whitespace_policy => {"ignore_embedded"}; → only the third line inserted
    #[test]
    fn match_policy_as_recorded() {
        let e = env();
        let mut o = Out::new(&e);
        assert!(match_policy(
            "lead",
            "  lead",
            &v(&["ignore_leading"]),
            &mut o
        ));
        assert!(match_policy(
            "key = value",
            "key    =   value",
            &v(&["ignore_embedded"]),
            &mut o
        ));
        assert!(!match_policy(
            "  key    =   value  ",
            "key    =   value",
            &v(&["ignore_embedded"]),
            &mut o
        ));
        // recorded: "a+b" with ignore_trailing is kept against "aab" (only . and * are escaped)
        assert!(match_policy("a+b", "aab", &v(&["ignore_trailing"]), &mut o));
        assert!(!match_policy(
            "a*b",
            "a.b   ",
            &v(&["ignore_trailing"]),
            &mut o
        ));
        assert!(match_policy(
            "a.b",
            "a.b   ",
            &v(&["ignore_trailing"]),
            &mut o
        ));
        // no policy: literal
        assert!(match_policy("x", "x", &[], &mut o));
        assert!(!match_policy("x", " x", &[], &mut o));
        assert!(o.msgs.is_empty());
    }

    // recorded: cf-agent 3.21.0, file `ab`, insert_lines: "a(b" whitespace_policy => {"ignore_trailing"};
    //    error: Regular expression error: pcre_compile() 'missing )' in expression 'a(b\s*' (offset: 6)
    #[test]
    fn policy_regex_errors_are_logged() {
        let e = env();
        let mut o = Out::new(&e);
        assert!(!match_policy("a(b", "ab", &v(&["ignore_trailing"]), &mut o));
        assert_eq!(
            o.msgs[0].text,
            r"Regular expression error: pcre_compile() 'missing )' in expression 'a(b\s*' (offset: 6)"
        );
    }

    #[test]
    fn select_line_first_list_decides() {
        let e = env();
        let mut o = Out::new(&e);
        let sel = SelectLists {
            contains: v(&["c"]),
            startwith: v(&["a"]),
            ..Default::default()
        };
        // recorded (S9): startwith is consulted before contains
        assert!(select_line("ab1", &sel, &mut o));
        assert!(!select_line("cd2", &sel, &mut o));
        let m = SelectLists {
            matching: v(&["ab.", "c"]),
            ..Default::default()
        };
        assert!(select_line("ab1", &m, &mut o));
        assert!(!select_line("abc3", &m, &mut o));
        assert!(select_line("anything", &SelectLists::default(), &mut o));
    }

    #[test]
    fn match_region_counts_chunk_lines() {
        let e = env();
        let mut o = Out::new(&e);
        let model = v(&["a", "b", "c"]);
        let l = Lines::from_lines(&model);
        let a = l.head();
        assert_eq!(match_region(&l, "a\nb", a, None, false, &mut o), 2);
        assert_eq!(match_region(&l, "b", a, None, false, &mut o), 0);
        // the chunk may not reach the end marker
        let c = l.last();
        let b = a.and_then(|x| l.next(x));
        assert_eq!(match_region(&l, "b\nc", b, c, false, &mut o), 0);
        // the file may not run out before the chunk does
        assert_eq!(match_region(&l, "c\nd", c, None, false, &mut o), 0);
        assert_eq!(match_region(&l, "a\n.", a, None, true, &mut o), 2);
    }
}
