//! Shared helpers of the parse test suites: fixture discovery under `policies/parse/`, running the real
//! `cf-promises` and `cfsim` with a time limit, the `F.expected` renderer, and structural JSON diffs.
//!
//! Used by `tests/parse_recordings.rs` (recordings vs. the live cf-promises) and
//! `tests/parse_conformance.rs` (cfsim vs. the recordings), and by the mutation suites `parse_fuzz.rs` and
//! `fast_parse.rs` (its [`Rng`]); each includes this file with `mod parse_support;`.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The seeded generator of the mutation suites (`parse_fuzz.rs`, `fast_parse.rs`): xorshift64*.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Time limit of one external command (cf-promises or cfsim) run by the parse suites.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// Directory of the installed CFEngine masterfiles (Debian package `cfengine3`).
pub const MASTERFILES: &str = "/usr/share/cfengine3/masterfiles";

/// `policies/parse` of this crate.
pub fn parse_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("policies")
        .join("parse")
}

/// The `*.cf` fixtures directly inside `policies/parse/<kind>` (`ok` or `err`), sorted by name.
/// Files under `inc/` subfolders are inputs of other fixtures, not fixtures.
pub fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = parse_dir().join(kind);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "cf"))
        .collect();
    out.sort();
    out
}

/// All `*.cf` files below `root`, sorted, as paths relative to `root` written `./a/b.cf`.
pub fn cf_files_below(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "cf") {
                let rel = path.strip_prefix(root).unwrap();
                out.push(format!("./{}", rel.display()));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// `F` of `.../F.cf`.
pub fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

/// `./F.cf`: the path argument every fixture is run with (from its own directory).
pub fn dot_name(path: &Path) -> String {
    format!("./{}", path.file_name().unwrap().to_string_lossy())
}

/// A sibling recording of a fixture: `with_ext(".../F.cf", "json")` is `.../F.json`.
pub fn with_ext(path: &Path, ext: &str) -> PathBuf {
    path.with_extension(ext)
}

/// What a finished command printed.
#[derive(Debug)]
pub struct Outcome {
    /// Exit code; `None` when the process was killed by a signal or by the time limit.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

impl Outcome {
    /// A one-line description of how the process ended, for failure messages.
    pub fn describe(&self) -> String {
        match (self.timed_out, self.code) {
            (true, _) => format!("killed after the {}s time limit", COMMAND_TIMEOUT.as_secs()),
            (false, Some(c)) => format!("exit {c}"),
            (false, None) => "killed by a signal".to_string(),
        }
    }
}

/// Run `program args…` in `cwd` with stdin closed, killing it after [`COMMAND_TIMEOUT`].
pub fn run(program: &Path, cwd: &Path, args: &[&str]) -> Outcome {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > COMMAND_TIMEOUT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Outcome {
        code: if timed_out { None } else { status.code() },
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
        timed_out,
    }
}

/// The cfsim binary built by cargo for this test run, or the program named by env `CFSIM_BIN` (any program
/// taking `promises [cf-promises flags]`; used to self-check the harness against a wrapper around the real
/// cf-promises, see tests/oracle/cf-promises-as-cfsim.sh).
pub fn cfsim() -> PathBuf {
    std::env::var_os("CFSIM_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cfsim")), PathBuf::from)
}

/// Locate `cf-promises` on `PATH`. When it is missing: fail if `CI=true`, else print a skip note for
/// `test` and return `None`.
pub fn cf_promises(test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("cf-promises"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{test}: cf-promises is not installed but CI=true (run .ci/run, which installs cfengine3)");
        }
        eprintln!(
            "SKIP {test}: cf-promises is not installed (apt-get install cfengine3); not checked"
        );
    }
    found
}

/// Whether the masterfiles tree exists; when it does not: fail if `CI=true`, else print a skip note.
pub fn masterfiles(test: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(MASTERFILES);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{test}: {MASTERFILES} is missing but CI=true");
    }
    eprintln!("SKIP {test}: {MASTERFILES} is missing; not checked");
    None
}

/// Render a run as `F.expected` (see policies/parse/README.md): `# exit: N`, `# stderr:`, the stderr bytes,
/// `# stdout:`, the stdout bytes; a non-empty stream that does not end in `\n` gets one appended.
pub fn render_expected(code: Option<i32>, stderr: &[u8], stdout: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let code = code.map_or_else(|| "signal".to_string(), |c| c.to_string());
    out.extend_from_slice(format!("# exit: {code}\n# stderr:\n").as_bytes());
    push_section(&mut out, stderr);
    out.extend_from_slice(b"# stdout:\n");
    push_section(&mut out, stdout);
    out
}

fn push_section(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
    if bytes.last().is_some_and(|b| *b != b'\n') {
        out.push(b'\n');
    }
}

/// Line number of the first error of a diagnostic stream: a `path:line:col: error: …` line, or the form
/// cf-promises uses for fatal parser errors, `path: line,col: Fatal error during parsing: …`.
pub fn first_error_line(stderr: &[u8]) -> Option<u32> {
    let re = regex::bytes::Regex::new(
        r"^[^ ]+(?::([0-9]+):[0-9]+: error:|: ([0-9]+),[0-9]+: Fatal error)",
    )
    .unwrap();
    stderr.split(|b| *b == b'\n').find_map(|line| {
        let caps = re.captures(line)?;
        let num = caps.get(1).or_else(|| caps.get(2))?;
        std::str::from_utf8(num.as_bytes()).ok()?.parse().ok()
    })
}

/// The recorded `F.line`.
pub fn read_line_file(path: &Path) -> u32 {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parse the JSON document of a `-p json` run. cf-promises may print log lines (`   error: …`) on stdout
/// before the document; the document starts at the first line beginning with `{`.
pub fn json_document(stdout: &[u8]) -> Result<Value, String> {
    let start = if stdout.first() == Some(&b'{') {
        0
    } else {
        stdout
            .windows(2)
            .position(|w| w == b"\n{")
            .map(|p| p + 1)
            .ok_or_else(|| format!("no JSON document in output: {}", preview(stdout)))?
    };
    serde_json::from_slice(&stdout[start..])
        .map_err(|e| format!("invalid JSON ({e}): {}", preview(stdout)))
}

/// First 300 bytes of an output, lossily decoded, for failure messages.
pub fn preview(bytes: &[u8]) -> String {
    let end = bytes.len().min(300);
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// The first difference between two JSON values, as `path: expected X, got Y`; `None` when equal.
pub fn first_json_diff(expected: &Value, actual: &Value) -> Option<String> {
    diff_at("$", expected, actual)
}

fn diff_at(path: &str, expected: &Value, actual: &Value) -> Option<String> {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                match a.get(k) {
                    Some(av) => {
                        if let Some(d) = diff_at(&format!("{path}.{k}"), ev, av) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{path}.{k}: missing (expected {})", short(ev))),
                }
            }
            a.keys()
                .find(|k| !e.contains_key(*k))
                .map(|k| format!("{path}.{k}: unexpected key (value {})", short(&a[k])))
        }
        (Value::Array(e), Value::Array(a)) => {
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                if let Some(d) = diff_at(&format!("{path}[{i}]"), ev, av) {
                    return Some(d);
                }
            }
            (e.len() != a.len())
                .then(|| format!("{path}: expected {} elements, got {}", e.len(), a.len()))
        }
        _ => (expected != actual).then(|| {
            format!(
                "{path}: expected {}, got {}",
                short(expected),
                short(actual)
            )
        }),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 {
        format!("{}…", s.chars().take(120).collect::<String>())
    } else {
        s
    }
}

/// A copy of a `-p json` document without the keys that legitimately change in a print → re-parse round
/// trip: every `line` (the printer re-lays out the source) and every `sourcePath` (different file).
pub fn without_positions(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "line" && k.as_str() != "sourcePath")
                .map(|(k, v)| (k.clone(), without_positions(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_positions).collect()),
        other => other.clone(),
    }
}

/// Copy a directory tree (used to place `inc/` next to round-trip files).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

/// Collects failure messages of a fixture loop and fails once, listing all of them.
#[derive(Default)]
pub struct Failures(Vec<String>);

impl Failures {
    pub fn push(&mut self, msg: String) {
        self.0.push(msg);
    }

    pub fn assert_none(self, what: &str, checked: usize) {
        assert!(
            self.0.is_empty(),
            "{what}: {} of {checked} failed:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
        eprintln!("{what}: all {checked} passed");
    }
}

/// `policies/parse/ok/pcf-lossy.txt`: the ok fixtures whose `-p cf` output, printed by the real cf-promises,
/// does not parse back to the same policy (one `NAME.cf: reason` per line, `#` comments).
pub fn pcf_lossy_path() -> PathBuf {
    parse_dir().join("ok").join("pcf-lossy.txt")
}

/// The fixture file names listed in `pcf-lossy.txt` (empty when the file is missing).
pub fn pcf_lossy_names() -> Vec<String> {
    std::fs::read_to_string(pcf_lossy_path())
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split(':').next().map(|n| n.trim().to_string()))
        .collect()
}

/// Parse `printed` (a `-p cf` output of `fixture`) with `program [promises] -p json` from a scratch copy of
/// the fixture's directory and compare with the fixture's recorded JSON, ignoring `line` and `sourcePath`.
/// Returns the first difference (or why the printed policy was rejected); `None` when it round-trips.
pub fn round_trip_difference(
    program: &Path,
    subcommand: Option<&str>,
    scratch: &Path,
    fixture: &Path,
    printed: &[u8],
) -> Option<String> {
    let copy = scratch.join(fixture.file_name().unwrap());
    std::fs::write(&copy, printed).unwrap();
    let mut args: Vec<&str> = subcommand.into_iter().collect();
    let name = dot_name(&copy);
    args.extend(["-p", "json", "-f", &name]);
    let reparsed = run(program, scratch, &args);
    if reparsed.code != Some(0) {
        let first = reparsed
            .stderr
            .split(|b| *b == b'\n')
            .next()
            .unwrap_or_default();
        return Some(format!(
            "printed policy rejected ({}): {}",
            reparsed.describe(),
            String::from_utf8_lossy(first)
        ));
    }
    let original = json_document(&std::fs::read(with_ext(fixture, "json")).unwrap()).unwrap();
    match json_document(&reparsed.stdout) {
        Ok(actual) => first_json_diff(&without_positions(&original), &without_positions(&actual)),
        Err(e) => Some(e),
    }
}
