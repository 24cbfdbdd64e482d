//! The recorded corpora under `policies/<corpus>/` (files, packages, users, services, processes): the
//! repository root and the list of cases, one directory with a `policy.cf` each, sorted by name; with
//! the environment variable `CFSIM_<CORPUS>_ONLY=prefix,prefix` set, only the cases whose names start
//! with one of the prefixes (the tests then do not check their floors).
#![allow(dead_code)]

use std::path::PathBuf;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The environment variable that narrows `corpus` (`CFSIM_FILES_ONLY` for `files`).
pub fn only_var(corpus: &str) -> String {
    format!("CFSIM_{}_ONLY", corpus.to_uppercase())
}

/// Whether the run is narrowed to some cases (the floors are not checked then).
pub fn narrowed(corpus: &str) -> bool {
    std::env::var_os(only_var(corpus)).is_some()
}

/// The cases of `policies/<corpus>/`.
pub fn cases(corpus: &str) -> Vec<PathBuf> {
    let only: Vec<String> = std::env::var(only_var(corpus))
        .map(|v| {
            v.split(',')
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("policies").join(corpus))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.join("policy.cf").is_file())
                .filter(|p| {
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
                    only.is_empty()
                        || name.is_some_and(|n| only.iter().any(|o| n.starts_with(o.as_str())))
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `tests/oracle/eval-filter.sh KIND DIR` over `raw` (the recorders' filter of tables and `-v` traces).
pub fn eval_filter(kind: &str, dir: &str, raw: &[u8]) -> String {
    use std::io::Write;
    let script = root().join("tests/oracle/eval-filter.sh");
    let Ok(mut child) = std::process::Command::new("bash")
        .arg(script)
        .arg(kind)
        .arg(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    else {
        return "cannot run eval-filter.sh".into();
    };
    // write from another thread: an input bigger than the pipe buffer would block both sides
    let Some(mut stdin) = child.stdin.take() else {
        return String::new();
    };
    let data = raw.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child
        .wait_with_output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    let _ = writer.join();
    String::from_utf8_lossy(&out).into_owned()
}

/// `cfsim agent -K FLAGS -f ./policy.cf --host PROFILE EXTRA...` in the case directory, as the recorders
/// run cf-agent: stdout and stderr together, and the exit code (`None` when cfsim could not run).
pub fn run_agent(
    case: &std::path::Path,
    profile: &std::path::Path,
    flags: &[&str],
    extra: &[&std::ffi::OsStr],
) -> (String, Option<i32>) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(case)
        .arg("agent")
        .arg("-K")
        .args(flags)
        .args(["-f", "./policy.cf", "--host"])
        .arg(profile)
        .args(extra)
        .output();
    match o {
        Ok(o) => (
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
            o.status.code(),
        ),
        Err(e) => (format!("cannot run cfsim: {e}"), None),
    }
}

/// The tree after a run: a copy of `scratch` at `after` (replaced) with what cfsim wrote to `out_dir`
/// (`--write-root`) applied: the removed paths (`.cfsim-removed`, a path whose type changed is listed
/// too) first, then the written state, `--remove-destination` so that a path that was a symbolic
/// link and is now a file is replaced, not written through.
pub fn apply_write_root(
    scratch: &std::path::Path,
    out_dir: &std::path::Path,
    after: &std::path::Path,
) {
    use std::process::Command;
    let _ = std::fs::remove_dir_all(after);
    let _ = Command::new("cp")
        .arg("-a")
        .arg(scratch)
        .arg(after)
        .status();
    let removed = std::fs::read_to_string(out_dir.join(".cfsim-removed")).unwrap_or_default();
    for r in removed.lines() {
        let p = after.join(r.trim_start_matches('/'));
        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
    }
    let _ = Command::new("cp")
        .arg("-a")
        .arg("--remove-destination")
        .arg(format!("{}/.", out_dir.display()))
        .arg(after)
        .status();
    let _ = std::fs::remove_file(after.join(".cfsim-removed"));
}

/// A case's recording `want` against cfsim's `got` in one mode: `None` when identical, else the unified
/// diff headed `--- CASE MODE`.
pub fn compare(case: &str, mode: &str, want: &str, got: &str) -> Option<String> {
    (want != got).then(|| {
        format!(
            "--- {case} {mode}\n{}",
            similar::TextDiff::from_lines(want, got)
                .unified_diff()
                .header("recorded", "cfsim")
        )
    })
}

/// The per-mode count of a corpus test: identical cases per mode, the names of the others, and the
/// floors checked at the end.
#[derive(Default)]
pub struct Tally {
    ok: std::collections::BTreeMap<String, usize>,
    differ: std::collections::BTreeMap<String, Vec<String>>,
}

impl Tally {
    /// Counts one comparison (from [`compare`]); prints the diff of a difference.
    pub fn add(&mut self, case: &str, mode: &str, diff: Option<&str>) {
        match diff {
            None => *self.ok.entry(mode.to_string()).or_default() += 1,
            Some(d) => {
                println!("{d}");
                self.differ
                    .entry(mode.to_string())
                    .or_default()
                    .push(case.to_string());
            }
        }
    }

    /// Compares and counts.
    pub fn check(&mut self, case: &str, mode: &str, want: &str, got: &str) {
        let d = compare(case, mode, want, got);
        self.add(case, mode, d.as_deref());
    }

    /// Cases identical in `mode`.
    pub fn identical(&self, mode: &str) -> usize {
        self.ok.get(mode).copied().unwrap_or(0)
    }

    /// Prints `CORPUS corpus: MODE: n/total cases identical; differ: [...]` for every mode with a
    /// floor, and fails when one is below its floor (not when the corpus is narrowed, see [`cases`]).
    pub fn assert_floors(&self, corpus: &str, total: usize, floors: &[(&str, usize)]) {
        let mut short = Vec::new();
        for (mode, floor) in floors {
            let n = self.identical(mode);
            let differ = self.differ.get(*mode).cloned().unwrap_or_default();
            println!("{corpus} corpus: {mode}: {n}/{total} cases identical; differ: {differ:?}");
            if n < *floor {
                short.push(format!("{mode}: {n} < {floor}"));
            }
        }
        assert!(
            narrowed(corpus) || short.is_empty(),
            "below the floors: {short:?}"
        );
    }
}
