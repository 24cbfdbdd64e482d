//! Loading a policy: the entry file, then every file named by `inputs` in `body common control` and
//! `body file control` (relative to the entry file's directory, each file once), as cf-promises does.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::source::SourceFile;
use crate::syntax::ast::{Policy, Rval};

/// Most files one load may read (a runaway `inputs` graph is reported, not followed forever).
pub const MAX_FILES: usize = 10_000;

/// One loaded file with its AST (possibly partial when it had errors) and its diagnostics.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub file: SourceFile,
    pub policy: Policy,
    pub diags: Vec<Diagnostic>,
    /// The diagnostics come from the recovery parser (parse-time checks included).
    pub recovered: bool,
}

/// Errors that stop loading (I/O), printed as cf-promises log lines.
#[derive(Debug)]
pub enum LoadError {
    Stat { path: String, reason: String },
    TooManyFiles,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Stat { path, reason } => {
                write!(f, "Can't stat file '{path}' for parsing. (stat: {reason})")
            }
            LoadError::TooManyFiles => write!(f, "more than {MAX_FILES} policy files in inputs"),
        }
    }
}

/// Read a file as text; bytes that are not UTF-8 become U+FFFD.
pub fn read_text(path: &str) -> Result<String, LoadError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }),
        Err(e) => Err(LoadError::Stat {
            path: path.to_string(),
            reason: io_reason(&e),
        }),
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_string()
        }
    }
}

/// Parse one file.
pub fn load_one(path: &str) -> Result<Loaded, LoadError> {
    let text = read_text(path)?;
    let parsed = crate::syntax::parse_file_recovering(path, &text);
    Ok(Loaded {
        file: SourceFile::with_lines(path, text, parsed.lines),
        policy: parsed.policy,
        diags: parsed.diags,
        recovered: parsed.recovered,
    })
}

/// Literal `inputs` of a policy (items containing variables are left to pre-evaluation).
pub fn literal_inputs(p: &Policy) -> Vec<String> {
    literal_inputs_marked(p)
        .into_iter()
        .map(|(s, _)| s)
        .collect()
}

/// Whether `body common control` of `p` sets `ignore_missing_inputs` to a literal true value.
fn ignores_missing_inputs(p: &Policy) -> bool {
    p.bodies
        .iter()
        .filter(|b| b.body_type == "common" && b.name == "control")
        .flat_map(|b| &b.attrs)
        .any(|a| {
            a.constraint.lval == "ignore_missing_inputs"
                && matches!(&a.constraint.rval, Rval::Scalar(s) if matches!(s.value.as_str(), "true" | "yes" | "on"))
        })
}

/// [`literal_inputs`], each with whether a missing file may be skipped here: when the policy sets
/// `ignore_missing_inputs`, or when its `inputs` line has a class guard other than `any` (the
/// pre-evaluation decides whether that line is active and reports the missing file then).
fn literal_inputs_marked(p: &Policy) -> Vec<(String, bool)> {
    let ignore = ignores_missing_inputs(p);
    let mut out = Vec::new();
    for b in &p.bodies {
        let control = (b.body_type == "common" || b.body_type == "file") && b.name == "control";
        if !control {
            continue;
        }
        for a in &b.attrs {
            if a.constraint.lval != "inputs" {
                continue;
            }
            // `inputs` must be a list; a scalar is a type error reported by the checks, not a file to load.
            let items: Vec<&Rval> = match &a.constraint.rval {
                Rval::List(items, _) => items.iter().collect(),
                _ => Vec::new(),
            };
            let lenient = ignore || !matches!(a.guard.expr.as_str(), "" | "any");
            for it in items {
                if let Rval::Scalar(s) = it {
                    if !s.value.contains("$(")
                        && !s.value.contains("${")
                        && !s.value.starts_with('@')
                    {
                        out.push((s.value.clone(), lenient));
                    }
                }
            }
        }
    }
    out
}

/// Load the entry file and, transitively, its literal inputs, in the agent's order: each input file is
/// followed by its own inputs before the next input of its parent (depth first, recorded: `bundlesmatching`
/// and `-p json-full` list `lib1.cf`, `lib1.cf`'s input `lib3.cf`, then `lib2.cf`). A file is loaded once.
/// Paths of inputs are joined to the entry file's directory the way cf-promises prints them (`./lib/x.cf`).
pub fn load_with_inputs(entry: &str) -> Result<Vec<Loaded>, LoadError> {
    let first = load_one(entry)?;
    let dir: PathBuf = Path::new(entry)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut seen: std::collections::HashSet<PathBuf, crate::fasthash::FastState> =
        [normalize(Path::new(entry))].into_iter().collect();
    let inputs = literal_inputs_marked(&first.policy);
    let mut out = vec![first];
    load_inputs(&dir, inputs, &mut seen, &mut out)?;
    Ok(out)
}

/// Loads `inputs` (and theirs, depth first) into `out`; the depth is bounded by [`MAX_FILES`].
fn load_inputs(
    dir: &Path,
    inputs: Vec<(String, bool)>,
    seen: &mut std::collections::HashSet<PathBuf, crate::fasthash::FastState>,
    out: &mut Vec<Loaded>,
) -> Result<(), LoadError> {
    for (inp, lenient) in inputs {
        let p = if Path::new(&inp).is_absolute() {
            PathBuf::from(&inp)
        } else {
            join_like_cf(dir, &inp)
        };
        let key = normalize(&p);
        if seen.contains(&key) {
            continue;
        }
        if lenient && std::fs::metadata(&p).is_err() {
            continue;
        }
        seen.insert(key);
        if out.len() >= MAX_FILES {
            return Err(LoadError::TooManyFiles);
        }
        let loaded = load_one(&p.to_string_lossy())?;
        let nested = literal_inputs_marked(&loaded.policy);
        out.push(loaded);
        load_inputs(dir, nested, seen, out)?;
    }
    Ok(())
}

fn join_like_cf(dir: &Path, inp: &str) -> PathBuf {
    if dir.as_os_str().is_empty() {
        PathBuf::from(format!("./{inp}"))
    } else {
        dir.join(inp)
    }
}

/// Lexical normalisation (`a/./b/../c` → `a/c`) used to load each file once (here and by the
/// engine's loader).
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Every message of the checks, in the order cf-promises prints them.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// (file index, diagnostic) for stderr.
    pub diags: Vec<(usize, Diagnostic)>,
    /// Lines cf-promises logs on stdout as `   error: LINE`, with (file index, offset of their constraint).
    pub log: Vec<(usize, u32, String)>,
    /// How many of `diags` come from parsing (the rest from the post-parse check, which the
    /// "Too many errors" limit does not count).
    pub parse_time: usize,
}

impl CheckReport {
    /// Whether any error (not a warning) was found.
    pub fn has_errors(&self) -> bool {
        self.diags
            .iter()
            .any(|(_, d)| d.severity == crate::diag::Severity::Error)
    }
}

/// Run the checks over every loaded file: per file its syntax errors and parse-time checks in source order;
/// then, when there was no error at all, the post-parse policy check.
pub fn check_all(files: &[Loaded]) -> CheckReport {
    let mut report = CheckReport::default();
    for (i, l) in files.iter().enumerate() {
        let checks = if l.recovered {
            crate::syntax::validate::FileChecks::default()
        } else {
            crate::syntax::validate::parse_time_checks(&l.policy, &l.file)
        };
        let mut diags: Vec<Diagnostic> = l.diags.clone();
        diags.extend(checks.diags);
        diags.sort_by_key(|d| d.offset);
        report.diags.extend(diags.into_iter().map(|d| (i, d)));
        report
            .log
            .extend(checks.log.into_iter().map(|(o, l)| (i, o, l)));
    }
    report.parse_time = report.diags.len();
    if !report.has_errors() {
        let refs: Vec<(&Policy, &SourceFile)> =
            files.iter().map(|l| (&l.policy, &l.file)).collect();
        report
            .diags
            .extend(crate::syntax::validate::post_parse_checks(&refs));
    }
    report
}

impl CheckReport {
    /// The report as cf-promises prints it when the policy is invalid: every diagnostic, then the summary
    /// log line (used where cf-agent refuses a policy).
    pub fn render(&self, files: &[Loaded]) -> String {
        let mut s = String::new();
        for (i, d) in &self.diags {
            if let Some(l) = files.get(*i) {
                s.push_str(&d.render(&l.file));
            }
        }
        for (_, _, line) in &self.log {
            s.push_str("   error: ");
            s.push_str(line);
            s.push('\n');
        }
        s.push_str("   error: There are syntax errors in policy files\n");
        s
    }
}
