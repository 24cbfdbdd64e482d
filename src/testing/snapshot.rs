//! Snapshots of test runs in insta's file format: per case (spec test × host) the run's result —
//! exit code, summary, classes, variables, promise outcomes, reports — as readable text in
//! `<spec dir>/snapshots/<spec>__<test>__<host>.snap`; a difference is written next to it as
//! `.snap.new` (with `assertion_line`, as insta does) and fails the case, `--accept` (or
//! `INSTA_UPDATE=always`) rewrites the `.snap`. `cargo insta review|accept|reject` work on these files.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::spec::Case;

/// What to do with a snapshot that differs or is missing (insta's `INSTA_UPDATE` values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    /// Write `.snap.new` and fail (insta's `new`; its `auto` outside CI).
    New,
    /// Write nothing and fail (insta's `no`; its `auto` when `CI` is set).
    No,
    /// Write the `.snap` and pass (`--accept`, insta's `always`).
    Always,
}

impl Update {
    /// The mode from `--accept` and the environment, as insta decides it.
    pub fn from_env(accept: bool) -> Update {
        if accept {
            return Update::Always;
        }
        let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false");
        match std::env::var("INSTA_UPDATE").as_deref() {
            Ok("always") | Ok("force") => Update::Always,
            Ok("no") => Update::No,
            Ok("new") | Ok("unseen") => Update::New,
            _ if ci => Update::No,
            _ => Update::New,
        }
    }
}

/// A name part as a file name: letters, digits, `-` and `.` kept, anything else one `_`.
fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// The spec's file name without `.cfsim.yaml` (or `.cf`).
fn spec_stem(spec: &str) -> String {
    let name = Path::new(spec)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".cfsim.yaml")
        .or_else(|| name.strip_suffix(".cf"))
        .unwrap_or(&name);
    slug(stem)
}

/// The snapshot's name (insta's `<prefix>__<name>`): spec, test and host.
pub fn name(case: &Case) -> String {
    if case.acceptance {
        format!("{}__{}", spec_stem(&case.spec), slug(&case.host.label))
    } else {
        format!(
            "{}__{}__{}",
            spec_stem(&case.spec),
            slug(&case.name),
            slug(&case.host.label)
        )
    }
}

/// The `.snap` path of a case: `snapshots/` next to its spec.
pub fn path(case: &Case) -> PathBuf {
    Path::new(&case.spec)
        .parent()
        .unwrap_or(Path::new(""))
        .join("snapshots")
        .join(format!("{}.snap", name(case)))
}

/// `to` relative to `from` (both absolute), with `..` where it climbs.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let f: Vec<_> = from.components().collect();
    let t: Vec<_> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// The result with the policy's directory written `$(spec_dir)/…` (relative to the spec), so the same
/// run gives the same snapshot wherever the repository is checked out.
pub fn normalise(case: &Case, result: &Json) -> Json {
    let mut v = result.clone();
    let spec_dir = std::fs::canonicalize(Path::new(&case.spec))
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let policy_dir = std::fs::canonicalize(&case.policy)
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    if let (Some(s), Some(p)) = (spec_dir, policy_dir) {
        let rel = relative(&s, &p);
        let to = if rel.as_os_str().is_empty() {
            "$(spec_dir)".to_string()
        } else {
            format!("$(spec_dir)/{}", rel.display())
        };
        crate::diff::replace_in_strings(&mut v, &p.to_string_lossy(), &to);
    }
    v
}

/// A scalar for the YAML header and body: plain when unambiguous, else double-quoted (JSON escapes,
/// which YAML reads).
fn scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-$() ".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '/')
        && !s.ends_with(' ')
        && !matches!(
            s,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain {
        s.to_string()
    } else {
        Json::String(s.to_string()).to_string()
    }
}

/// A variable's name: `default:` left out.
fn var_name(n: &str) -> &str {
    n.strip_prefix("default:").unwrap_or(n)
}

/// The snapshot's content: the normalised result as readable, YAML-shaped text.
pub fn body(result: &Json) -> String {
    let mut s = String::new();
    s.push_str(&format!("exit_code: {}\n", result["exit_code"]));
    s.push_str("summary:\n");
    if let Some(m) = result["summary"].as_object() {
        for (k, v) in m {
            s.push_str(&format!("  {k}: {v}\n"));
        }
    }
    let list = |key: &str| result[key].as_array().cloned().unwrap_or_default();
    s.push_str("classes:\n");
    for c in list("classes") {
        s.push_str(&format!(
            "  - {}\n",
            scalar(c["name"].as_str().unwrap_or(""))
        ));
    }
    s.push_str("variables:\n");
    for v in list("variables") {
        let name = var_name(v["name"].as_str().unwrap_or(""));
        let value = &v["value"];
        s.push_str(&format!("  {}: {value}\n", scalar(name)));
    }
    s.push_str("promises:\n");
    for p in list("promises") {
        let file = p["file"].as_str().unwrap_or("");
        let file = Path::new(file)
            .file_name()
            .map_or_else(|| file.to_string(), |f| f.to_string_lossy().into_owned());
        let handle = p["handle"]
            .as_str()
            .map(|h| format!(" ({h})"))
            .unwrap_or_default();
        let mut counts = Vec::new();
        for k in ["kept", "repaired", "not_kept", "not_simulated", "skipped"] {
            let n = p[k].as_u64().unwrap_or(0);
            if n > 0 {
                counts.push(format!("{n} {k}"));
            }
        }
        let line = format!(
            "{file}:{} {} {} {}{handle}: {} [{}]",
            p["line"],
            var_name(p["bundle"].as_str().unwrap_or("")),
            p["promise_type"].as_str().unwrap_or(""),
            Json::String(p["promiser"].as_str().unwrap_or("").to_string()),
            p["outcome"].as_str().unwrap_or(""),
            counts.join(", ")
        );
        s.push_str(&format!("  - {}\n", Json::String(line)));
    }
    s.push_str("reports:\n");
    for r in list("reports") {
        s.push_str(&format!("  - {}\n", scalar(r.as_str().unwrap_or(""))));
    }
    s
}

/// The header fields (insta's order: source, assertion_line, description, expression, info,
/// input_file) and the body, as one file.
fn file_text(case: &Case, body: &str, assertion_line: Option<usize>) -> String {
    let mut s = String::from("---\n");
    s.push_str(&format!(
        "source: {}\n",
        scalar(case.spec.trim_start_matches("./"))
    ));
    if let Some(l) = assertion_line {
        s.push_str(&format!("assertion_line: {l}\n"));
    }
    let description = format!("{} [{}]", case.name, case.host.label);
    s.push_str(&format!("description: {}\n", scalar(&description)));
    let policy = case.policy.to_string_lossy();
    let mut expression = format!("cfsim agent -f {policy} --host {}", case.host.profile);
    for d in &case.define {
        expression.push_str(&format!(" -D {d}"));
    }
    if let Some(b) = &case.bundlesequence {
        expression.push_str(&format!(" -b {b}"));
    }
    s.push_str(&format!("expression: {}\n", scalar(&expression)));
    s.push_str("info:\n");
    s.push_str(&format!("  test: {}\n", scalar(&case.name)));
    s.push_str(&format!("  host: {}\n", scalar(&case.host.label)));
    s.push_str(&format!("  profile: {}\n", scalar(&case.host.profile)));
    if let Some(set) = case.host.set.as_ref().and_then(Json::as_object) {
        s.push_str("  set:\n");
        for (k, v) in set {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            s.push_str(&format!("    {}: {}\n", scalar(k), scalar(&v)));
        }
    }
    if !case.define.is_empty() {
        s.push_str("  define:\n");
        for d in &case.define {
            s.push_str(&format!("    - {}\n", scalar(d)));
        }
    }
    s.push_str(&format!("input_file: {}\n", scalar(&policy)));
    s.push_str("---\n");
    s.push_str(body);
    if !body.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// The body of a `.snap` file (after the second `---` line), or `None` when it is not one.
pub fn read_body(text: &str) -> Option<String> {
    let text = text.replace("\r\n", "\n");
    let rest = text.strip_prefix("---\n")?;
    let end = rest.find("\n---\n")?;
    Some(rest[end + 5..].to_string())
}

/// Insta's comparison: trailing whitespace of each line and of the whole text ignored.
fn same(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> Vec<String> {
        let mut v: Vec<String> = s.lines().map(|l| l.trim_end().to_string()).collect();
        while v.last().is_some_and(String::is_empty) {
            v.pop();
        }
        v
    };
    norm(a) == norm(b)
}

/// A unified diff of two snapshot bodies (old `-`, new `+`), three lines of context.
pub fn diff(old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("snapshot", "this run")
        .to_string()
}

/// What checking a case's snapshot found.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The snapshot holds the same content.
    Same,
    /// Written (accepted, or the first with `Update::Always`).
    Written(PathBuf),
    /// No snapshot yet; `pending` is the `.snap.new` written, if any.
    Missing { pending: Option<PathBuf> },
    /// Content differs: the diff, and the `.snap.new` written, if any.
    Differs {
        diff: String,
        pending: Option<PathBuf>,
    },
    /// The snapshot file could not be read or written.
    Error(String),
}

fn pending_path(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(".new");
    PathBuf::from(s)
}

fn write(p: &Path, text: &str) -> Result<(), String> {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))
}

/// Checks (and, as `update` says, writes) the snapshot of one case's result.
pub fn check(case: &Case, result: &Json, update: Update) -> Verdict {
    let body = body(&normalise(case, result));
    let snap = path(case);
    let pending = pending_path(&snap);
    let old = match std::fs::symlink_metadata(&snap) {
        Ok(m) if m.is_file() => {
            match crate::host::read::read_regular(&snap, crate::host::read::MAX_READ_BYTES) {
                Ok(bytes) => match read_body(&String::from_utf8_lossy(&bytes)) {
                    Some(b) => Some(b),
                    None => {
                        return Verdict::Error(format!("{}: not a snapshot file", snap.display()))
                    }
                },
                Err(e) => {
                    return Verdict::Error(format!("{}: cannot read it ({e:?})", snap.display()))
                }
            }
        }
        Ok(_) => return Verdict::Error(format!("{}: not a regular file", snap.display())),
        Err(_) => None,
    };
    if old.as_deref().is_some_and(|o| same(o, &body)) {
        // a pending file left from an earlier run is stale now
        let _ = std::fs::remove_file(&pending);
        return Verdict::Same;
    }
    match update {
        Update::Always => match write(&snap, &file_text(case, &body, None)) {
            Ok(()) => {
                let _ = std::fs::remove_file(&pending);
                Verdict::Written(snap)
            }
            Err(e) => Verdict::Error(e),
        },
        Update::New | Update::No => {
            let written = if update == Update::New {
                match write(&pending, &file_text(case, &body, Some(case.line))) {
                    Ok(()) => Some(pending),
                    Err(e) => return Verdict::Error(e),
                }
            } else {
                None
            };
            match old {
                None => Verdict::Missing { pending: written },
                Some(o) => Verdict::Differs {
                    diff: diff(&o, &body),
                    pending: written,
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_and_descend() {
        assert_eq!(
            relative(Path::new("/a/b/c"), Path::new("/a/d")),
            PathBuf::from("../../d")
        );
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/b")),
            PathBuf::new()
        );
        assert_eq!(
            relative(Path::new("/a"), Path::new("/a/b/c")),
            PathBuf::from("b/c")
        );
    }

    #[test]
    fn scalars_are_quoted_only_when_yaml_would_misread_them() {
        assert_eq!(scalar("web1"), "web1");
        assert_eq!(scalar("a: b"), "\"a: b\"");
        assert_eq!(scalar("true"), "\"true\"");
        assert_eq!(scalar("12"), "\"12\"");
        assert_eq!(scalar("-x"), "\"-x\"");
        assert_eq!(scalar("127_0_0_1"), "\"127_0_0_1\"");
        assert_eq!(scalar(""), "\"\"");
    }

    #[test]
    fn bodies_compare_as_insta_does() {
        assert!(same("a  \nb\n\n", "a\nb"));
        assert!(!same("a\nb", "a\nc"));
        assert_eq!(
            read_body("---\nsource: x\n---\nbody\n").as_deref(),
            Some("body\n")
        );
        assert_eq!(read_body("no header"), None);
    }
}
