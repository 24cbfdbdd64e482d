//! Shared access to the eval corpus `policies/eval/<topic>/NAME.cf` for tests: listing the policies,
//! reading their header lines (`# args:`, `# cfsim: --exec`), the recordings, and the normalisation that
//! makes a run comparable with a recording (`$DIR` substitution, `tests/oracle/eval-filter.sh`).
//! Used by `tests/eval_recordings.rs` (live cf-agent) and meant for the tests of `cfsim agent`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What is recorded per policy: file suffix, the agent flag added for it, the `eval-filter.sh` kind applied.
pub struct Variant {
    pub suffix: &'static str,
    pub flag: Option<&'static str>,
    pub table: Option<&'static str>,
}

pub const VARIANTS: [Variant; 5] = [
    Variant {
        suffix: "out",
        flag: None,
        table: None,
    },
    Variant {
        suffix: "info.out",
        flag: Some("-I"),
        table: None,
    },
    Variant {
        suffix: "classes",
        flag: Some("--show-evaluated-classes"),
        table: Some("classes"),
    },
    Variant {
        suffix: "vars",
        flag: Some("--show-evaluated-vars"),
        table: Some("vars"),
    },
    Variant {
        suffix: "verbose",
        flag: Some("-v"),
        table: Some("verbose"),
    },
];

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn eval_dir() -> PathBuf {
    root().join("policies/eval")
}

/// Every `policies/eval/<topic>/NAME.cf`, then the lessons `policies/lessons/NAME.cf` (recorded the same
/// way, topic `lessons`), sorted by path.
pub fn policies() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in std::fs::read_dir(root().join("policies/lessons"))
        .unwrap()
        .filter_map(|e| e.ok())
    {
        let p = f.path();
        if p.extension().and_then(|e| e.to_str()) == Some("cf") {
            out.push(p);
        }
    }
    for topic in std::fs::read_dir(eval_dir())
        .unwrap()
        .filter_map(|e| e.ok())
    {
        if !topic.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(topic.path())
            .unwrap()
            .filter_map(|e| e.ok())
        {
            let p = f.path();
            if p.extension().and_then(|e| e.to_str()) == Some("cf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `topic/NAME` of a policy path.
pub fn name(policy: &Path) -> String {
    let rel = policy
        .strip_prefix(eval_dir())
        .or_else(|_| policy.strip_prefix(root().join("policies")))
        .unwrap();
    rel.with_extension("").display().to_string()
}

/// The recording `NAME.<suffix>` beside the policy.
pub fn recording(policy: &Path, suffix: &str) -> PathBuf {
    policy.with_extension(suffix)
}

pub fn read_recording(policy: &Path, suffix: &str) -> String {
    std::fs::read_to_string(recording(policy, suffix)).unwrap()
}

/// Flags of the policy's first `# args:` line, split on blanks (as cf-oracle does).
pub fn policy_args(text: &str) -> Vec<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("# args:"))
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Whether the policy is marked `# cfsim: --exec` (its commands must really run).
pub fn is_exec(text: &str) -> bool {
    text.lines().any(|l| l.trim() == "# cfsim: --exec")
}

/// The scratch directory a policy may use; removed before and after every run.
pub fn scratch(policy: &Path) -> PathBuf {
    let stem = policy.file_stem().unwrap().to_str().unwrap();
    PathBuf::from(format!("/tmp/cfsim-eval-{stem}"))
}

/// Replace every occurrence of the fixture directory by `$DIR` (used for `.out` and `.info.out`).
pub fn subdir(text: &str, dir: &str) -> String {
    text.replace(dir, "$DIR")
}

/// Apply `tests/oracle/eval-filter.sh <kind> <dir>` (classes, vars, verbose) to a run's raw stdout.
pub fn filter_table(kind: &str, dir: &str, raw: &[u8]) -> String {
    let script = root().join("tests/oracle/eval-filter.sh");
    let mut child = Command::new("bash")
        .arg(script)
        .arg(kind)
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // write from another thread: a table bigger than the pipe buffer would block both sides
    let mut stdin = child.stdin.take().unwrap();
    let data = raw.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Normalise the raw output (stdout and stderr interleaved) of one run of `policy` in `variant` so that
/// it can be compared with the recording `NAME.<variant.suffix>`.
pub fn normalise(policy: &Path, variant: &Variant, raw: &[u8]) -> String {
    let dir = policy.parent().unwrap().to_str().unwrap();
    match variant.table {
        Some(kind) => filter_table(kind, dir, raw),
        None => subdir(&String::from_utf8_lossy(raw), dir),
    }
}
