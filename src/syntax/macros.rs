//! The `@if`/`@else`/`@endif` macro pass, as cf3lex.l of 3.21.0 applies it before tokenising: macro lines
//! and the text of false branches are blanked (newlines kept), so byte offsets stay those of the file.

use crate::diag::Diagnostic;

/// The version these macros are evaluated against.
pub const VERSION: (u32, u32, u32) = (3, 21, 0);

/// Features a Debian 3.21.0 build reports (`feature_*` hard classes).
pub const FEATURES: &[&str] = &[
    "copyfrom_restrict_keys",
    "def_json_preparse",
    "host_specific_data_load",
    "tls_1_0",
    "tls_1_1",
    "tls_1_2",
    "tls_1_3",
    "xml",
    "yaml",
];

/// The result of the macro pass.
pub struct MacroPass {
    /// The rewritten text (same length as the input), or `None` when the input has no macro.
    pub text: Option<String>,
    pub diags: Vec<Diagnostic>,
    /// Offsets of newlines cf-promises' lexer consumes without counting a line (those ending a line that
    /// enters or stays in a skipped branch).
    pub uncounted_newlines: Vec<u32>,
}

/// Blank macro lines and false branches. Only lines whose first non-blank character is `@` can be
/// macro lines: they are found with `memchr`, and the text between them is copied (or blanked) at once.
pub fn apply(text: &str) -> MacroPass {
    if !text.contains("@if") && !text.contains("@else") && !text.contains("@endif") {
        return MacroPass {
            text: None,
            diags: Vec::new(),
            uncounted_newlines: Vec::new(),
        };
    }
    let bytes = text.as_bytes();
    let mut pass = Pass {
        out: String::with_capacity(text.len()),
        diags: Vec::new(),
        uncounted: Vec::new(),
        state: None,
    };
    // Text before `done` is in `pass.out`.
    let mut done = 0usize;
    for at in memchr::memchr_iter(b'@', bytes) {
        let start = bytes
            .get(..at)
            .and_then(|b| memchr::memrchr(b'\n', b))
            .map_or(0, |i| i + 1);
        let indented = bytes.get(start..at).unwrap_or(&[]);
        if start < done || !indented.iter().all(|&b| b == b' ' || b == b'\t') {
            continue;
        }
        let end = bytes
            .get(at..)
            .and_then(|b| memchr::memchr(b'\n', b))
            .map_or(bytes.len(), |i| at + i + 1);
        let (Some(line), Some(trimmed)) = (text.get(start..end), text.get(at..end)) else {
            continue;
        };
        let Some(d) = macro_directive(trimmed) else {
            continue;
        };
        pass.ordinary(text.get(done..start).unwrap_or(""), done);
        pass.directive(d, line, trimmed, start);
        done = end;
    }
    pass.ordinary(text.get(done..).unwrap_or(""), done);
    if pass.state.is_some() {
        pass.diags.push(Diagnostic::error(
            text.len() as u32,
            "EOF seen while @if was waiting for @endif without ignore_state",
        ));
    }
    MacroPass {
        text: Some(pass.out),
        diags: pass.diags,
        uncounted_newlines: pass.uncounted,
    }
}

/// The macro pass under way.
struct Pass {
    out: String,
    diags: Vec<Diagnostic>,
    uncounted: Vec<u32>,
    /// None: outside @if; Some(true): in a branch being kept; Some(false): in a branch being dropped.
    state: Option<bool>,
}

impl Pass {
    /// Lines without a macro, starting at offset `start`: kept, or blanked in a dropped branch (whose
    /// newlines the lexer does not count).
    fn ordinary(&mut self, lines: &str, start: usize) {
        let keep = self.state != Some(false);
        push_kept_or_blank(&mut self.out, lines, keep);
        if !keep {
            self.uncounted
                .extend(memchr::memchr_iter(b'\n', lines.as_bytes()).map(|i| (start + i) as u32));
        }
    }

    /// A macro line at offset `start` (`trimmed`: from its `@`).
    fn directive(&mut self, d: Directive, line: &str, trimmed: &str, start: usize) {
        let indent = line.len() - trimmed.len();
        if indent > 0 {
            if self.state != Some(false) {
                self.diags.push(Diagnostic::error(
                    (start + indent) as u32,
                    format!(
                        "fatal: macro {} must be at beginning of the line.",
                        d.word()
                    ),
                ));
            }
            push_kept_or_blank(&mut self.out, line, self.state != Some(false));
            return;
        }
        match d {
            Directive::If => {
                if self.state.is_some() {
                    self.diags.push(Diagnostic::error(
                        start as u32,
                        "fatal: nested @if macros are not allowed",
                    ));
                } else {
                    match eval_condition(trimmed) {
                        Some(v) => self.state = Some(v),
                        None => {
                            self.diags
                                .push(Diagnostic::error((start + 1) as u32, "syntax error"));
                            self.state = Some(false);
                        }
                    }
                }
            }
            Directive::Else => match self.state {
                Some(v) => self.state = Some(!v),
                None => self.diags.push(Diagnostic::error(
                    start as u32,
                    "fatal: @else macros without a matching @if are not allowed",
                )),
            },
            Directive::Endif => match self.state {
                Some(_) => self.state = None,
                None => self.diags.push(Diagnostic::error(
                    start as u32,
                    "fatal: @endif macros without a matching @if are not allowed",
                )),
            },
        }
        push_kept_or_blank(&mut self.out, line, false);
        if self.state == Some(false) && line.ends_with('\n') {
            self.uncounted.push((start + line.len() - 1) as u32);
        }
    }
}

#[derive(Clone, Copy)]
enum Directive {
    If,
    Else,
    Endif,
}

impl Directive {
    fn word(self) -> &'static str {
        match self {
            Directive::If => "@if",
            Directive::Else => "@else",
            Directive::Endif => "@endif",
        }
    }
}

fn macro_directive(s: &str) -> Option<Directive> {
    let word_end = |w: &str| {
        s.strip_prefix(w)
            .map(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(false)
    };
    if word_end("@if") {
        Some(Directive::If)
    } else if word_end("@else") {
        Some(Directive::Else)
    } else if word_end("@endif") {
        Some(Directive::Endif)
    } else {
        None
    }
}

fn push_kept_or_blank(out: &mut String, line: &str, keep: bool) {
    if keep {
        out.push_str(line);
    } else {
        for b in line.bytes() {
            out.push(if b == b'\n' { '\n' } else { ' ' });
        }
        // Multi-byte characters were blanked byte by byte; lengths match since each byte became one space.
    }
}

/// Evaluate `@if cond(args)`; `None` when the line does not parse.
pub(crate) fn eval_condition(line: &str) -> Option<bool> {
    let rest = line.strip_prefix("@if")?.trim();
    let open = rest.find('(')?;
    let name = rest.get(..open)?.trim();
    let close = rest.rfind(')')?;
    let args: Vec<&str> = rest
        .get(open + 1..close)?
        .split(',')
        .map(str::trim)
        .collect();
    let v = |i: usize| args.get(i).and_then(|a| parse_version(a));
    match name {
        "feature" => {
            let f = args.first()?;
            if f.is_empty() {
                return None;
            }
            Some(FEATURES.contains(f))
        }
        "minimum_version" => Some(cmp_prefix(VERSION, v(0)?) >= std::cmp::Ordering::Equal),
        "maximum_version" => Some(cmp_prefix(VERSION, v(0)?) <= std::cmp::Ordering::Equal),
        "before_version" => Some(cmp_prefix(VERSION, v(0)?) == std::cmp::Ordering::Less),
        "after_version" => Some(cmp_prefix(VERSION, v(0)?) == std::cmp::Ordering::Greater),
        "at_version" => Some(cmp_prefix(VERSION, v(0)?) == std::cmp::Ordering::Equal),
        "between_versions" => {
            let lo = v(0)?;
            let hi = v(1)?;
            Some(
                cmp_prefix(VERSION, lo) >= std::cmp::Ordering::Equal
                    && cmp_prefix(VERSION, hi) <= std::cmp::Ordering::Equal,
            )
        }
        _ => None,
    }
}

/// A version `N[.N[.N]]`: the given components only.
fn parse_version(s: &str) -> Option<Vec<u32>> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    parts.iter().map(|p| p.parse::<u32>().ok()).collect()
}

/// Compare the running version with `v`, looking only at the components `v` gives (`3.21` matches 3.21.x).
fn cmp_prefix(have: (u32, u32, u32), v: Vec<u32>) -> std::cmp::Ordering {
    let h = [have.0, have.1, have.2];
    for (a, b) in h.iter().zip(v.iter()) {
        match a.cmp(b) {
            std::cmp::Ordering::Equal => continue,
            o => return o,
        }
    }
    std::cmp::Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line-by-line pass `apply` replaced: its oracle.
    fn apply_by_lines(text: &str) -> MacroPass {
        if !text.contains("@if") && !text.contains("@else") && !text.contains("@endif") {
            return MacroPass {
                text: None,
                diags: Vec::new(),
                uncounted_newlines: Vec::new(),
            };
        }
        let mut uncounted = Vec::new();
        let mut out = String::with_capacity(text.len());
        let mut diags = Vec::new();
        // None: outside @if; Some(true): in a branch being kept; Some(false): in a branch being dropped.
        let mut state: Option<bool> = None;
        let mut pos = 0usize;
        for line in text.split_inclusive('\n') {
            let start = pos;
            pos += line.len();
            let trimmed = line.trim_start_matches([' ', '\t']);
            let indent = line.len() - trimmed.len();
            let directive = macro_directive(trimmed);
            if let Some(d) = directive {
                if indent > 0 {
                    if state != Some(false) {
                        diags.push(Diagnostic::error(
                            (start + indent) as u32,
                            format!(
                                "fatal: macro {} must be at beginning of the line.",
                                d.word()
                            ),
                        ));
                    }
                    push_kept_or_blank(&mut out, line, state != Some(false));
                    continue;
                }
                match d {
                    Directive::If => {
                        if state.is_some() {
                            diags.push(Diagnostic::error(
                                start as u32,
                                "fatal: nested @if macros are not allowed",
                            ));
                        } else {
                            match eval_condition(trimmed) {
                                Some(v) => state = Some(v),
                                None => {
                                    diags.push(Diagnostic::error(
                                        (start + 1) as u32,
                                        "syntax error",
                                    ));
                                    state = Some(false);
                                }
                            }
                        }
                    }
                    Directive::Else => match state {
                        Some(v) => state = Some(!v),
                        None => diags.push(Diagnostic::error(
                            start as u32,
                            "fatal: @else macros without a matching @if are not allowed",
                        )),
                    },
                    Directive::Endif => match state {
                        Some(_) => state = None,
                        None => diags.push(Diagnostic::error(
                            start as u32,
                            "fatal: @endif macros without a matching @if are not allowed",
                        )),
                    },
                }
                push_kept_or_blank(&mut out, line, false);
                if state == Some(false) && line.ends_with('\n') {
                    uncounted.push((pos - 1) as u32);
                }
                continue;
            }
            push_kept_or_blank(&mut out, line, state != Some(false));
            if state == Some(false) && line.ends_with('\n') {
                uncounted.push((pos - 1) as u32);
            }
        }
        if state.is_some() {
            diags.push(Diagnostic::error(
                text.len() as u32,
                "EOF seen while @if was waiting for @endif without ignore_state",
            ));
        }
        MacroPass {
            text: Some(out),
            diags,
            uncounted_newlines: uncounted,
        }
    }

    #[test]
    fn apply_equals_the_line_by_line_pass() {
        let mut cases: Vec<String> = vec![
            "@if minimum_version(3.7)\na\n@else\nb\n@endif\n".into(),
            "x\n  @if feature(yaml)\ny\n@endif".into(),
            "@if bogus\n@if minimum_version(1)\n@else\n @else\n@endif\n@endif\n@else\n".into(),
            "a @if\n@ifx\n@if maximum_version(3.0)\nq\n\t@endif\nr\n@endif\n@if at_version(3.21.0)\ns".into(),
            "\"$(x)\" slist => { @(y) };\n@else\n@endif\n@if minimum_version(3.21)\n\n".into(),
        ];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for dir in [
            root.join("policies"),
            std::path::PathBuf::from("/usr/share/cfengine3/masterfiles"),
        ] {
            let mut stack = vec![dir];
            while let Some(d) = stack.pop() {
                for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                    let p = e.path();
                    if p.is_dir() {
                        stack.push(p);
                    } else if p.extension().is_some_and(|x| x == "cf") {
                        if let Ok(t) = std::fs::read_to_string(&p) {
                            if t.contains('@') {
                                cases.push(t);
                            }
                        }
                    }
                }
            }
        }
        for c in &cases {
            let (a, b) = (apply(c), apply_by_lines(c));
            assert_eq!(a.text, b.text, "{c}");
            assert_eq!(a.diags, b.diags, "{c}");
            assert_eq!(a.uncounted_newlines, b.uncounted_newlines, "{c}");
        }
    }

    #[test]
    fn conditions_as_observed_on_3_21_0() {
        let t = |c: &str| eval_condition(&format!("@if {c}"));
        assert_eq!(t("minimum_version(3.18)"), Some(true));
        assert_eq!(t("minimum_version(3.22)"), Some(false));
        assert_eq!(t("maximum_version(3.21.0)"), Some(true));
        assert_eq!(t("at_version(3.21)"), Some(true));
        assert_eq!(t("at_version(3)"), Some(true));
        assert_eq!(t("before_version(3.21.1)"), Some(true));
        assert_eq!(t("after_version(3.20.9)"), Some(true));
        assert_eq!(t("between_versions(3.20, 3.22)"), Some(true));
        assert_eq!(t("feature(xml)"), Some(true));
        assert_eq!(t("feature(curl)"), Some(false));
        assert_eq!(t("nosuch(3)"), None);
        assert_eq!(t("minimum_version(abc)"), None);
    }

    #[test]
    fn blanking_keeps_offsets() {
        let src = "a\n@if minimum_version(9)\nbé\n@else\nc\n@endif\nd\n";
        let pass = apply(src);
        assert!(pass.diags.is_empty());
        assert_eq!(pass.uncounted_newlines.len(), 2);
        let out = pass.text.unwrap_or_default();
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out.lines().map(str::trim).collect::<Vec<_>>(),
            ["a", "", "", "", "c", "", "d"]
        );
    }
}
