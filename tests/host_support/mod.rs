//! Test helpers for the host suites: run the real cf-agent safely (validate with `cf-promises -c`
//! first, always `-K`, `./name` paths) and parse its `--show-evaluated-classes/vars` tables.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod netns;
pub mod schema_check;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether the real agent is installed. Without it: skip note, or failure when `CI=true`.
pub fn agent_available(test: &str) -> bool {
    if Path::new("/usr/bin/cf-agent").exists() && Path::new("/usr/bin/cf-promises").exists() {
        return true;
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "{test}: CI=true but cf-agent/cf-promises are not installed; the live check cannot run"
        );
    }
    eprintln!("note: {test}: skipped, cf-agent 3.21 is not installed (set CI=true to make this a failure)");
    false
}

/// Copy `policy` into a scratch dir and run `cf-agent -K -f ./NAME args...` there after validating it.
pub fn run_agent(policy: &Path, args: &[&str]) -> String {
    run_agent_env(policy, args, &[])
}

/// [`run_agent`] with extra environment variables for the agent (e.g. `TZ`).
pub fn run_agent_env(policy: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("host-live-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let name = policy.file_name().unwrap().to_string_lossy().to_string();
    std::fs::copy(policy, dir.join(&name)).unwrap();
    let local = format!("./{name}");
    let check = Command::new("cf-promises")
        .args(["-c", "-f", &local])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "cf-promises rejected {}: {}",
        policy.display(),
        String::from_utf8_lossy(&check.stdout)
    );
    let out = Command::new("timeout")
        .arg("60")
        .arg("cf-agent")
        .args(["-K", "-f", &local])
        .args(args)
        .envs(env.iter().copied())
        .current_dir(&dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// `--show-evaluated-classes` rows: (name, tags).
pub fn parse_classes(out: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut on = false;
    for line in out.lines() {
        if line.starts_with("Class name") {
            on = true;
            continue;
        }
        if line.starts_with("Variable name") || line.starts_with("R: ") {
            on = false;
            continue;
        }
        if on {
            let mut it = line.split_whitespace();
            if let (Some(n), Some(t)) = (it.next(), it.next()) {
                rows.push((n.to_string(), t.to_string()));
            }
        }
    }
    rows
}

/// `--show-evaluated-vars` rows, trailing blanks trimmed.
pub fn var_lines(out: &str) -> Vec<String> {
    let mut rows = Vec::new();
    let mut on = false;
    for line in out.lines() {
        if line.starts_with("Variable name") {
            on = true;
            continue;
        }
        if line.starts_with("Class name") || line.starts_with("R: ") {
            on = false;
            continue;
        }
        if on {
            rows.push(line.trim_end().to_string());
        }
    }
    rows
}

/// Value of one var row: the text after the 41-column name field, before the tags (fixed layout).
pub fn var_value<'a>(rows: &'a [String], name: &str) -> Option<&'a str> {
    let prefix = format!("default:sys.{name} ");
    rows.iter().find(|r| r.starts_with(&prefix)).map(|r| {
        r.get(41..)
            .unwrap_or("")
            .split("  ")
            .next()
            .unwrap_or("")
            .trim()
    })
}

pub fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Whether cf-agent 3.21's answer for `iprange(range)` is not reproducible from run to run: for an
/// IPv6 range written with a dash (`fd00::1-3`), `FuzzySetMatch` scans 8 `:`-separated fields and
/// moves its pointer past the end of the range string once the string has fewer fields (the `::`
/// and the last field), so the remaining fields are read from whatever memory follows the string.
/// Measured here: 3 runs in 100 gave another answer for `c_35`, and one CI run printed both `yes`
/// and `no` for it (the class expression was evaluated again in a later pass with another result).
/// cfsim reads the missing fields as empty (the answer the agent gives most of the time); the live
/// comparisons print a note for these cases instead of failing, and compare every other case.
pub fn agent_iprange_reads_past_end(range: &str) -> bool {
    range.contains(':') && range.contains('-') && !range.contains('/')
}
