//! Reading `policies/parse/checks/`: the `# check:` headers of each fixture, the recorded `.expected` output,
//! and a renderer that turns `syntax::check` results into what cf-promises prints for the fixture.
//!
//! A fixture starts with comment lines; `# check: ...` lines name, in source order, the constraints the
//! checker is fed (all other constraints of the file are clean). Forms:
//!   `# check: promise BUNDLE_TYPE PROMISE_TYPE LVAL => RVAL`
//!   `# check: body BODY_TYPE BODY_NAME[@VARCLASS] LVAL => RVAL`
//!   `# check: promise-block NAME LVAL => RVAL`
//!   `# check: bundle-type TYPE`
//!   `# check: guard BUNDLE_TYPE PROMISE_TYPE`   (a `promise_type:` line)
//!   `# check: body-open BODY_TYPE BODY_NAME`   (the `{` of a body; starts a new block)
//!   `# check: section BUNDLE_TYPE PROMISE_TYPE N`   (the next section has N promises: post-parse check)
//!   `# check: promise-start BUNDLE_TYPE PROMISE_TYPE PROMISER`   (the next `promise` checks form one promise;
//!      otherwise each `promise` check is a promise of its own for the post-parse check)
//!   `# check: namespace NS` / `# check: bundle-def TYPE NAME` / `# check: body-def TYPE NAME` /
//!   `# check: handle VALUE`   (policy-level post-parse checks: duplicates, reserved names, control body
//!      arguments, duplicate handles; post-parse lines of promises are grouped under the last `bundle-def`)
//!   `# check: block`   (a new bundle/body starts: fresh `BlockChecker`)
//! `{NL}` in a header stands for a newline inside a value. Each `LVAL => RVAL` is located in the policy text (first occurrence after the previous one, whitespace
//! around `=>` free), which gives the lines and columns for rendering.

use std::path::PathBuf;

use crate::check_post::{Group, PostState};
use crate::check_rval::{parse_rval, Rval};
use cfsim::syntax::check::{
    self, Anchor, BlockChecker, CheckError, CheckResult, Severity, MAX_ERRORS,
    SYNTAX_ERRORS_SUMMARY, TOO_MANY_ERRORS,
};

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("policies/parse/checks")
}

/// All fixture names (without `.cf`, relative to [`fixture_dir`]; the generated sweep is under `sweep/`), sorted.
pub fn fixtures() -> Vec<String> {
    let mut names = Vec::new();
    for (sub, prefix) in [("", ""), ("sweep", "sweep/")] {
        let Ok(rd) = std::fs::read_dir(fixture_dir().join(sub)) else {
            continue;
        };
        for e in rd.filter_map(|e| e.ok()) {
            if let Some(n) = e.file_name().to_str().and_then(|n| n.strip_suffix(".cf")) {
                names.push(format!("{prefix}{n}"));
            }
        }
    }
    names.sort();
    names
}

/// Directory and `./FILE.cf` argument to run fixture `name` the way the recordings were made.
pub fn run_location(name: &str) -> (PathBuf, String) {
    let path = fixture_dir().join(format!("{name}.cf"));
    let dir = path.parent().map(PathBuf::from).unwrap_or_else(fixture_dir);
    let file = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or("")
        .to_string();
    (dir, format!("./{file}"))
}

/// A recording: exit code, stderr, stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    pub exit: i32,
    pub stderr: String,
    pub stdout: String,
}

impl Recording {
    pub fn to_text(&self) -> String {
        format!(
            "# exit: {}\n# stderr:\n{}# stdout:\n{}",
            self.exit, self.stderr, self.stdout
        )
    }

    pub fn parse(text: &str) -> Result<Recording, String> {
        let rest = text.strip_prefix("# exit: ").ok_or("missing `# exit:`")?;
        let (exit, rest) = rest.split_once('\n').ok_or("truncated")?;
        let rest = rest
            .strip_prefix("# stderr:\n")
            .ok_or("missing `# stderr:`")?;
        let (stderr, stdout) = if let Some(out) = rest.strip_prefix("# stdout:\n") {
            ("", out)
        } else {
            rest.split_once("\n# stdout:\n")
                .ok_or("missing `# stdout:`")?
        };
        let stderr = if stderr.is_empty() {
            String::new()
        } else {
            format!("{stderr}\n")
        };
        Ok(Recording {
            exit: exit.trim().parse().map_err(|e| format!("exit code: {e}"))?,
            stderr,
            stdout: stdout.to_string(),
        })
    }
}

pub fn read_recording(name: &str) -> Recording {
    let path = fixture_dir().join(format!("{name}.expected"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Recording::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One rendered diagnostic.
struct Rendered {
    severity: Severity,
    text: String,
}

struct Located<'t> {
    text: &'t str,
    name: &'t str,
}

impl Located<'_> {
    fn line_col(&self, offset: usize) -> (usize, usize, &str) {
        let before = &self.text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.matches('\n').count() + 1;
        let line_end = self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i);
        (
            line,
            offset - line_start + 1,
            &self.text[line_start..line_end],
        )
    }

    /// The token after `offset` (skipping whitespace and comments): punctuation is one character, anything
    /// else runs up to whitespace, `;` or `,`.
    fn next_token(&self, mut offset: usize) -> (usize, usize) {
        let b = self.text.as_bytes();
        loop {
            while offset < b.len() && b[offset].is_ascii_whitespace() {
                offset += 1;
            }
            if offset < b.len() && b[offset] == b'#' {
                while offset < b.len() && b[offset] != b'\n' {
                    offset += 1;
                }
                continue;
            }
            break;
        }
        if offset < b.len() && b"{}();,".contains(&b[offset]) {
            return (offset, offset + 1);
        }
        let mut end = offset;
        while end < b.len() && !b[end].is_ascii_whitespace() && !b";,".contains(&b[end]) {
            end += 1;
        }
        (offset, end)
    }

    /// Render `e`; `lval`, `rval_last` are byte ranges of the lval token and of the rval's last token.
    fn render(&self, e: &CheckError, lval: (usize, usize), rval_last: (usize, usize)) -> Rendered {
        let (start, end) = match e.anchor {
            Anchor::LvalEnd | Anchor::BundleTypeEnd | Anchor::GuardEnd | Anchor::BlockOpenEnd => {
                lval
            }
            Anchor::RvalEnd => rval_last,
            Anchor::NextTokenEnd => self.next_token(rval_last.1),
        };
        // cf-promises: the line number where the token ends, but the source text of the line where it starts,
        // and the start column advanced by the token's length in bytes (only differs for multi-line strings).
        let (_, start_col, src) = self.line_col(start);
        let line = self.line_col(end.saturating_sub(1).max(start)).0;
        let col = (start_col + (end - start)) as i64 + e.column_offset;
        let sev = match e.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // printf("%*s", col, "^"): right-justified in `col` columns, left-justified for a negative width.
        let caret = if col >= 0 {
            format!("{:>w$}", "^", w = col as usize)
        } else {
            format!("{:<w$}", "^", w = col.unsigned_abs() as usize)
        };
        Rendered {
            severity: e.severity,
            text: format!(
                "./{}.cf:{line}:{col}: {sev}: {}\n{src}\n{caret}\n",
                self.name, e.message
            ),
        }
    }
}
/// Byte range of the first `LVAL <ws> => <ws> RVAL` at or after `from`.
fn find_constraint(
    text: &str,
    from: usize,
    lval: &str,
    rval: &str,
) -> Option<std::ops::Range<usize>> {
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(lval) {
        let start = at + i;
        let rest = &text[start + lval.len()..];
        let after_ws = rest.trim_start();
        if let Some(after_arrow) = after_ws.strip_prefix("=>") {
            let value = after_arrow.trim_start();
            if value.starts_with(rval) {
                let end = text.len() - value.len() + rval.len();
                return Some(start..end);
            }
        }
        at = start + 1;
    }
    None
}

/// What `syntax::check` predicts cf-promises prints for fixture `name`: (stderr, stdout log lines, errors?).
pub struct Prediction {
    pub stderr: String,
    pub stdout: String,
    pub has_errors: bool,
    pub too_many: bool,
    /// Lines of the post-parse policy check (only printed when the parse had no error).
    pub post: Vec<String>,
}

pub fn predict(name: &str) -> Prediction {
    let path = fixture_dir().join(format!("{name}.cf"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body_start = text
        .split_inclusive('\n')
        .take_while(|l| l.starts_with('#'))
        .map(str::len)
        .sum::<usize>();
    let base = name.rsplit('/').next().unwrap_or(name);
    let loc = Located {
        text: &text,
        name: base,
    };
    let mut cursor = body_start;
    let mut checker = BlockChecker::new();
    let mut rendered = Vec::new();
    let mut log = Vec::new();
    let mut post = PostState::new(base);
    let headers: Vec<String> = text[..body_start]
        .lines()
        .filter_map(|l| l.strip_prefix("# check: "))
        .map(|h| h.replace("{NL}", "\n"))
        .collect();
    for header in headers.iter().map(String::as_str) {
        let mut words = header.splitn(2, ' ');
        let kind = words.next().unwrap_or("");
        let rest = words.next().unwrap_or("");
        if kind != "promise" || !post.in_explicit_group() {
            post.flush();
        }
        if kind == "namespace" {
            post.set_namespace(rest);
            continue;
        }
        if kind == "bundle-def" || kind == "body-def" {
            let (t, n) = rest
                .split_once(' ')
                .unwrap_or_else(|| panic!("{name}: {kind} {rest}"));
            let needle = format!("{} {t} {n}", &kind[..kind.len() - 4]);
            let at = text[cursor..]
                .find(&needle)
                .map(|i| cursor + i)
                .unwrap_or_else(|| panic!("{name}: {needle}"));
            let line = loc.line_col(at).0;
            cursor = at + needle.len();
            if kind == "bundle-def" {
                post.bundle_def(t, n, line);
            } else {
                post.body_def(t, n, line, text[cursor..].trim_start().starts_with('('));
            }
            continue;
        }
        if kind == "handle" {
            let needle = format!("handle => \"{rest}\"");
            let at = text[cursor..]
                .find(&needle)
                .map(|i| cursor + i)
                .unwrap_or_else(|| panic!("{name}: {needle}"));
            post.handle(rest, loc.line_col(at).0);
            cursor = at + needle.len();
            continue;
        }
        if kind == "promise-start" {
            // `promise-start BUNDLE_TYPE PROMISE_TYPE PROMISER`: the following `promise` checks are one promise.
            let parts: Vec<&str> = rest.splitn(3, ' ').collect();
            let quoted = format!("\"{}\"", parts[2]);
            let at = text[cursor..]
                .find(&quoted)
                .map(|i| cursor + i)
                .unwrap_or_else(|| panic!("{name}: {quoted}"));
            let guard = text[..at]
                .rfind(&format!("{}:", parts[1]))
                .unwrap_or_else(|| panic!("{name}: no guard before {quoted}"));
            post.group = Some(Group {
                bundle_type: parts[0].to_string(),
                promise_type: parts[1].to_string(),
                promiser: parts[2].to_string(),
                promiser_line: loc.line_col(at).0,
                guard_line: Some(loc.line_col(guard).0),
                constraints: Vec::new(),
            });
            cursor = at + quoted.len();
            continue;
        }
        if kind == "block" {
            checker = BlockChecker::new();
            continue;
        }
        if kind == "section" {
            // `section BUNDLE_TYPE PROMISE_TYPE N`: the next `PROMISE_TYPE:` guard has N promises.
            let parts: Vec<&str> = rest.split(' ').collect();
            let (bt, pt) = (parts[0], parts[1]);
            let count: usize = parts[2].parse().unwrap();
            let needle = format!("{pt}:");
            let at = text[cursor..]
                .find(&needle)
                .map(|i| cursor + i)
                .unwrap_or_else(|| panic!("{name}: {needle}"));
            post.section(bt, pt, loc.line_col(at).0, count);
            continue;
        }
        if kind == "guard" {
            let (bt, pt) = rest
                .split_once(' ')
                .unwrap_or_else(|| panic!("{name}: guard {rest}"));
            let needle = format!("{pt}:");
            let at = text[cursor..]
                .find(&needle)
                .map(|i| cursor + i)
                .unwrap_or_else(|| panic!("{name}: {needle}"));
            let end = at + needle.len();
            let result = checker.promise_type_guard(bt, pt);
            rendered.extend(
                result
                    .errors
                    .iter()
                    .map(|e| loc.render(e, (at, end), (at, end))),
            );
            cursor = end;
            continue;
        }
        if kind == "body-open" {
            checker = BlockChecker::new();
            let (bt, bn) = rest
                .split_once(' ')
                .unwrap_or_else(|| panic!("{name}: body-open {rest}"));
            let needle = format!("body {bt} {bn}");
            let at = text[cursor..]
                .find(&needle)
                .map(|i| cursor + i)
                .unwrap_or_else(|| panic!("{name}: {needle}"));
            let brace = text[at..]
                .find('{')
                .map(|i| at + i + 1)
                .unwrap_or_else(|| panic!("{name}: no {{"));
            let result = checker.body_open(bt, bn);
            rendered.extend(
                result
                    .errors
                    .iter()
                    .map(|e| loc.render(e, (brace - 1, brace), (brace - 1, brace))),
            );
            cursor = brace;
            continue;
        }
        if kind == "bundle-type" {
            let needle = format!("bundle {rest}");
            let at = text[cursor..]
                .find(&needle)
                .map(|i| cursor + i)
                .unwrap_or_else(|| panic!("{name}: {needle}"));
            let end = at + needle.len();
            if let Some(e) = check::check_bundle_type(rest) {
                rendered.push(loc.render(&e, (end - rest.len(), end), (end - rest.len(), end)));
            }
            cursor = end;
            continue;
        }
        let n_ctx = match kind {
            "promise" | "body" => 2,
            "promise-block" => 1,
            other => panic!("{name}: unknown check kind {other}"),
        };
        let parts: Vec<&str> = rest.splitn(n_ctx + 1, ' ').collect();
        let constraint = parts[n_ctx];
        let (lval, rval_text) = constraint
            .split_once(" => ")
            .unwrap_or_else(|| panic!("{name}: {constraint}"));
        let (rval, _) = parse_rval(rval_text);
        let m = find_constraint(&text, cursor, lval, rval_text.trim())
            .unwrap_or_else(|| panic!("{name}: `{constraint}` not found in the policy"));
        let lval_tok = (m.start, m.start + lval.len());
        let rval_text = rval_text.trim();
        let rval_last = if rval_text.ends_with('"') || rval_text.ends_with('\'') {
            (m.end - rval_text.len(), m.end)
        } else {
            (m.end - 1, m.end)
        };
        cursor = m.end;
        if kind == "promise" {
            let end = match &rval {
                Rval::Bare(_) => loc.next_token(rval_last.1).1,
                _ => rval_last.1,
            };
            let line = loc.line_col(end - 1).0;
            let g = post.group.get_or_insert_with(|| Group {
                bundle_type: parts[0].to_string(),
                promise_type: parts[1].to_string(),
                promiser: "p".to_string(),
                promiser_line: 0,
                guard_line: None,
                constraints: Vec::new(),
            });
            g.constraints.push((lval.to_string(), rval.clone(), line));
        }
        let result: CheckResult = match kind {
            "promise" => checker.promise_constraint(parts[0], parts[1], lval, &rval.shape()),
            "body" => {
                let (body_name, varclass) = match parts[1].split_once('@') {
                    Some((n, v)) => (n, Some(v)),
                    None => (parts[1], None),
                };
                checker.body_constraint(parts[0], body_name, lval, &rval.shape(), varclass)
            }
            _ => checker.promise_block_constraint(parts[0], lval, &rval.shape()),
        };
        rendered.extend(
            result
                .errors
                .iter()
                .map(|e| loc.render(e, lval_tok, rval_last)),
        );
        log.extend(result.log);
    }
    let post = post.finish();
    let mut stderr = String::new();
    let mut errors = 0;
    let mut too_many = false;
    for r in rendered {
        stderr.push_str(&r.text);
        if r.severity == Severity::Error {
            errors += 1;
            if errors > MAX_ERRORS {
                stderr.push_str(TOO_MANY_ERRORS);
                stderr.push('\n');
                too_many = true;
                break;
            }
        }
    }
    let mut stdout: String = log.iter().map(|l| format!("   error: {l}\n")).collect();
    if too_many {
        // cf-promises exits at once; log lines of checks after the limit never happen.
        let kept = stdout
            .lines()
            .take(errors)
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        stdout = kept;
    }
    Prediction {
        stderr,
        stdout,
        has_errors: errors > 0,
        too_many,
        post,
    }
}

/// Stderr lines of the post-parse policy check (`path:line:0: error: ...`, no source line): not parse-time.
pub fn split_post_parse(stderr: &str) -> (String, Vec<String>) {
    // Column 0, and the `1:1` parser errors raised during the policy check (no source line follows them).
    let re = regex::Regex::new(r"^\./[^:]+:(\d+:0|1:1): error: ").unwrap();
    let mut parse_time = String::new();
    let mut post = Vec::new();
    for line in stderr.split_inclusive('\n') {
        if re.is_match(line) {
            post.push(line.trim_end().to_string());
        } else {
            parse_time.push_str(line);
        }
    }
    (parse_time, post)
}

pub fn summary_line() -> String {
    format!("   error: {SYNTAX_ERRORS_SUMMARY}\n")
}
