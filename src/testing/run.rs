//! Running test cases: each case is one simulated agent run (through the library API, the policy
//! loaded once per suite) whose result is checked against the case's expectations; the outcome is a
//! [`CaseResult`] listing every failed expectation with its spec line, expected and actual values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
// test-spec expectations are cfsim's own syntax, not the agent's matching: the `regex` crate
use regex::Regex;
use serde_json::Value as Json;

use super::snapshot::{self, Update, Verdict};
use super::spec::{Case, Expect, HostSpec, VarExpect};
use crate::sim::Policy;
use crate::sim::{simulate_policy, Options};

/// One failed expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// Spec line of the expectation.
    pub line: usize,
    pub message: String,
    pub expected: String,
    pub actual: String,
    /// More text shown under the failure (a snapshot's diff).
    pub detail: Option<String>,
}

/// The outcome of one case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case: Case,
    /// Expectations checked.
    pub checked: usize,
    pub failures: Vec<Failure>,
    /// The case could not run (bad profile, invalid policy): the message.
    pub error: Option<String>,
    /// The run's result document (for `--format json` and coverage).
    pub result: Option<Json>,
    /// What checking its snapshot found (when snapshots were asked for).
    pub snapshot: Option<Verdict>,
    /// A test the policy itself marks skipped or to do (the masterfiles' `testing_skip`/`testing_todo`).
    pub directive: Option<Directive>,
}

/// TAP's directives: the test is not run (skip) or not expected to pass yet (todo).
#[derive(Debug, Clone, PartialEq)]
pub enum Directive {
    Skip(String),
    Todo(String),
}

impl CaseResult {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.failures.is_empty()
    }
}

fn load_host(h: &HostSpec) -> Result<crate::host::Host, String> {
    let Some(set) = &h.set else {
        return crate::host::load_host(&h.profile).map_err(|e| e.to_string());
    };
    let text = crate::load::read_text(&h.profile).map_err(|e| e.to_string())?;
    let mut v: Json = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", h.profile))?;
    if let (Some(o), Some(s)) = (v.as_object_mut(), set.as_object()) {
        for (k, val) in s {
            o.insert(k.clone(), val.clone());
        }
    }
    let base = Path::new(&h.profile)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    crate::host::profile::parse_profile(&v.to_string(), &h.profile, &base)
        .map_err(|e| e.to_string())
}

fn full_name(name: &str) -> String {
    if name.contains(':') {
        name.to_string()
    } else {
        format!("default:{name}")
    }
}

fn show(v: &Json) -> String {
    match v {
        Json::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// Checks one expectation against a run's result; `None` when it holds.
fn check(e: &Expect, r: &Json) -> Option<(String, String, String)> {
    let classes = || {
        r["classes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str())
    };
    let reports = || {
        r["reports"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
    };
    let full = |re: &str| Regex::new(&format!("^(?:{re})$")).ok();
    match e {
        Expect::Class(c) => (!classes().any(|n| n == c)).then(|| {
            (
                format!("class '{c}' is not defined"),
                "defined".into(),
                "not defined".into(),
            )
        }),
        Expect::NotClass(c) => classes().any(|n| n == c).then(|| {
            (
                format!("class '{c}' is defined"),
                "not defined".into(),
                "defined".into(),
            )
        }),
        Expect::Report(re) => {
            let rx = full(re)?;
            (!reports().any(|t| rx.is_match(t))).then(|| {
                let all: Vec<&str> = reports().collect();
                (
                    format!("no report matches /{re}/"),
                    format!("a report matching /{re}/"),
                    format!("{all:?}"),
                )
            })
        }
        Expect::NotReport(re) => {
            let rx = full(re)?;
            reports().find(|t| rx.is_match(t)).map(|t| {
                (
                    format!("a report matches /{re}/"),
                    "no such report".into(),
                    format!("{t:?}"),
                )
            })
        }
        Expect::ExitCode(c) => (r["exit_code"].as_u64() != Some(u64::from(*c))).then(|| {
            (
                "exit code".into(),
                c.to_string(),
                r["exit_code"].to_string(),
            )
        }),
        Expect::Outcome(h, want) => {
            let p = r["promises"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|p| p["handle"].as_str() == Some(h));
            match p {
                None => Some((
                    format!("no promise with handle '{h}' was evaluated"),
                    want.clone(),
                    "never evaluated".into(),
                )),
                Some(p) => {
                    let got = p["outcome"].as_str().unwrap_or("");
                    (got != want).then(|| {
                        (
                            format!(
                                "promise '{h}' ({}:{})",
                                p["file"].as_str().unwrap_or(""),
                                p["line"]
                            ),
                            want.clone(),
                            got.to_string(),
                        )
                    })
                }
            }
        }
        // checked against the run's file system by `check_file`
        Expect::File(..) | Expect::Package(..) | Expect::Service(..) | Expect::User(..) => None,
        Expect::Var(name, want) => {
            let key = full_name(name);
            let var = r["variables"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|v| v["name"].as_str() == Some(&key));
            let value = var.map(|v| &v["value"]);
            match (want, value) {
                (VarExpect::Unset, None) => None,
                (VarExpect::Unset, Some(v)) => {
                    Some((format!("variable {key} is set"), "unset".into(), show(v)))
                }
                (_, None) => Some((
                    format!("variable {key} is not set"),
                    describe(want),
                    "unset".into(),
                )),
                (VarExpect::Equals(vals, list), Some(v)) => {
                    let ok = match (v, list) {
                        (Json::String(s), false) => vals.first() == Some(s),
                        (Json::Array(items), true) => {
                            items.len() == vals.len()
                                && items.iter().zip(vals).all(|(a, b)| a.as_str() == Some(b))
                        }
                        (other, false) => {
                            let text = other.to_string();
                            vals.first() == Some(&text)
                        }
                        _ => false,
                    };
                    (!ok).then(|| (format!("variable {key}"), describe(want), show(v)))
                }
                (VarExpect::Matches(re), Some(v)) => {
                    let rx = full(re)?;
                    let ok = match v {
                        Json::String(s) => rx.is_match(s),
                        Json::Array(items) => items
                            .iter()
                            .all(|i| i.as_str().is_some_and(|s| rx.is_match(s))),
                        other => rx.is_match(&other.to_string()),
                    };
                    (!ok).then(|| (format!("variable {key}"), describe(want), show(v)))
                }
            }
        }
    }
}

fn describe(w: &VarExpect) -> String {
    match w {
        VarExpect::Equals(v, false) => format!("{:?}", v.first().map_or("", String::as_str)),
        VarExpect::Equals(v, true) => format!("{v:?}"),
        VarExpect::Matches(r) => format!("matching /{r}/"),
        VarExpect::Unset => "unset".into(),
    }
}

/// Checks a package expectation (`installed`, `absent` or a version) against the package database
/// the run left.
fn check_package(
    name: &str,
    want: &str,
    db: &crate::host::packages::PackageState,
) -> Option<(String, String, String)> {
    let found = db.find_installed(name, None);
    let actual = if found.is_empty() {
        "absent".to_string()
    } else {
        let mut v: Vec<String> = found
            .iter()
            .map(|p| format!("{} ({})", p.version, p.arch))
            .collect();
        v.sort();
        format!("installed {}", v.join(", "))
    };
    let ok = match want {
        "installed" => !found.is_empty(),
        "absent" => found.is_empty(),
        version => found.iter().any(|p| p.version == version),
    };
    (!ok).then(|| (format!("package '{name}'"), want.to_string(), actual))
}

/// Checks a service expectation against the service inventory the run left.
fn check_service(
    name: &str,
    want: &super::spec::ServiceExpect,
    inv: Option<&crate::host::services::Inventory>,
) -> Option<(String, String, String)> {
    let what = format!("service '{name}'");
    let Some(s) = inv.and_then(|i| i.get(name)) else {
        let why = if inv.is_none() {
            "the host profile has no services inventory"
        } else {
            "not in the host's services inventory"
        };
        return Some((what, "a known service".into(), why.into()));
    };
    let word = |b: bool, yes: &str, no: &str| if b { yes } else { no }.to_string();
    if let Some(r) = want.running {
        if r != s.running {
            let w = |b| word(b, "running", "stopped");
            return Some((what, w(r), w(s.running)));
        }
    }
    if let Some(e) = want.enabled {
        if e != s.enabled {
            let w = |b| word(b, "enabled", "disabled");
            return Some((what, w(e), w(s.enabled)));
        }
    }
    None
}

/// Checks a user expectation against the local accounts the run left.
fn check_user(
    name: &str,
    want: &super::spec::UserExpect,
    db: &crate::host::users::UserDb,
) -> Option<(String, String, String)> {
    let what = |m: &str| format!("user '{name}': {m}");
    let account = db.user(name);
    let presence = |b: bool| if b { "present" } else { "absent" }.to_string();
    if let Some(p) = want.present {
        if p != account.is_some() {
            return Some((what("existence"), presence(p), presence(account.is_some())));
        }
    }
    let Some(a) = account else {
        let asks = want.locked.is_some()
            || want.uid.is_some()
            || want.group.is_some()
            || want.groups.is_some()
            || want.home.is_some()
            || want.shell.is_some()
            || want.description.is_some();
        return asks.then(|| (what("missing"), "present".into(), "absent".into()));
    };
    if let Some(l) = want.locked {
        let got = db.locked(name);
        if l != got {
            let w = |b: bool| if b { "locked" } else { "not locked" }.to_string();
            return Some((what("lock"), w(l), w(got)));
        }
    }
    if let Some(u) = want.uid {
        if u != a.uid {
            return Some((what("uid"), u.to_string(), a.uid.to_string()));
        }
    }
    if let Some(g) = &want.group {
        let primary = db
            .groups
            .iter()
            .find(|x| x.gid == a.gid)
            .map(|x| x.name.clone());
        if *g != a.gid.to_string() && Some(g) != primary.as_ref() {
            let got = primary.map_or_else(|| a.gid.to_string(), |n| format!("{n} ({})", a.gid));
            return Some((what("primary group"), g.clone(), got));
        }
    }
    if let Some(gs) = &want.groups {
        let mut w = gs.clone();
        w.sort();
        let mut got = db.secondary_of(name);
        got.sort();
        if w != got {
            return Some((
                what("secondary groups"),
                format!("{w:?}"),
                format!("{got:?}"),
            ));
        }
    }
    let fields = [
        ("home", &want.home, &a.home),
        ("shell", &want.shell, &a.shell),
        ("description", &want.description, &a.gecos),
    ];
    for (k, w, got) in fields {
        if let Some(w) = w {
            if w != got {
                return Some((what(k), w.clone(), got.clone()));
            }
        }
    }
    None
}

/// Checks a file expectation against the file system the run left (`vfs` over the host's files).
fn check_file(
    path: &str,
    want: &super::spec::FileExpect,
    vfs: &crate::host::vfs::Vfs,
    host: &crate::host::Host,
) -> Option<(String, String, String)> {
    let base: &dyn crate::host::vfs::BaseFs = if host.origin == "local" {
        &crate::host::LocalBase
    } else {
        host
    };
    let node = vfs.node(base, path);
    let what = |m: &str| format!("file '{path}': {m}");
    if let Some(e) = want.exists {
        if e != node.is_some() {
            let s = |b: bool| if b { "present" } else { "absent" }.to_string();
            return Some((what("existence"), s(e), s(node.is_some())));
        }
    }
    let Some(n) = node else {
        let asks = want.content.is_some()
            || want.contains.is_some()
            || want.mode.is_some()
            || want.kind.is_some()
            || want.target.is_some();
        return asks.then(|| (what("missing"), "present".into(), "absent".into()));
    };
    if let Some(k) = &want.kind {
        let got = n.meta.kind.name();
        if got != k {
            return Some((what("type"), k.clone(), got.into()));
        }
    }
    if let Some(m) = &want.mode {
        let want_mode = u32::from_str_radix(m, 8).unwrap_or(0);
        if n.meta.mode & 0o7777 != want_mode {
            return Some((
                what("mode"),
                format!("{want_mode:04o}"),
                format!("{:04o}", n.meta.mode),
            ));
        }
    }
    if let Some(t) = &want.target {
        if n.target.as_deref() != Some(t.as_str()) {
            return Some((
                what("target"),
                t.clone(),
                n.target.clone().unwrap_or_default(),
            ));
        }
    }
    let text = vfs
        .read(base, path)
        .map(|c| String::from_utf8_lossy(&c).into_owned())
        .unwrap_or_default();
    if let Some(c) = &want.content {
        if &text != c {
            return Some((what("content"), c.clone(), text));
        }
    }
    if let Some(re) = &want.contains {
        if !crate::pcre::compile(re).is_ok_and(|r| r.find(&text).is_some()) {
            return Some((what("contents"), format!("matching /{re}/"), text));
        }
    }
    None
}

/// The convergence check: the promises the second run repaired (it started on the state the first
/// left), as `bundle file:line 'promiser'` lines.
fn not_convergent(
    policy: &Policy,
    host: &crate::host::Host,
    o: &Options,
    first: &crate::host::vfs::Vfs,
) -> Result<Vec<String>, String> {
    let o2 = Options {
        start_files: Some(first.clone()),
        ..o.clone()
    };
    let r = simulate_policy(policy, host, &o2);
    let Some(result) = r.result else {
        return Err(r.stdout.trim_end().to_string());
    };
    Ok(result["promises"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["outcome"].as_str() == Some("repaired"))
        .map(|p| {
            format!(
                "{} {} {}:{} '{}'",
                p["bundle"].as_str().unwrap_or(""),
                p["promise_type"].as_str().unwrap_or(""),
                p["file"].as_str().unwrap_or(""),
                p["line"],
                p["promiser"].as_str().unwrap_or("")
            )
        })
        .collect())
}

/// Acceptance-style verdict: a report `<file> Pass` and none `<file> FAIL`.
fn acceptance_verdict(case: &Case, r: &Json) -> Option<Failure> {
    let base = case
        .policy
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let verdicts: Vec<(&str, &str)> = r["reports"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .filter_map(|t| t.rsplit_once(' '))
        .filter(|(f, v)| (*v == "Pass" || *v == "FAIL") && f.ends_with(&base))
        .collect();
    let fail = verdicts.iter().any(|(_, v)| *v == "FAIL");
    let pass = verdicts.iter().any(|(_, v)| *v == "Pass");
    if pass && !fail {
        return None;
    }
    Some(Failure {
        line: 1,
        message: if fail {
            "the policy reported FAIL".into()
        } else {
            "the policy reported no verdict ($(this.promise_filename) Pass|FAIL)".into()
        },
        expected: format!("{base} Pass"),
        actual: format!("{verdicts:?}"),
        detail: None,
    })
}

/// The failure a snapshot verdict stands for, if any.
fn snapshot_failure(case: &Case, v: &Verdict) -> Option<Failure> {
    let snap = snapshot::path(case).display().to_string();
    let review = "review with `cargo insta review`, or accept with `cfsim test --accept`";
    let (message, actual, detail) = match v {
        Verdict::Same | Verdict::Written(_) => return None,
        Verdict::Missing { pending } => (
            format!("no snapshot yet ({review})"),
            pending
                .as_ref()
                .map_or("not written (CI or INSTA_UPDATE=no)".into(), |p| {
                    format!("new snapshot written to {}", p.display())
                }),
            None,
        ),
        Verdict::Differs { diff, pending } => (
            format!("the run differs from its snapshot ({review})"),
            pending
                .as_ref()
                .map_or("not written (CI or INSTA_UPDATE=no)".into(), |p| {
                    format!("new snapshot written to {}", p.display())
                }),
            Some(diff.clone()),
        ),
        Verdict::Error(e) => (format!("snapshot: {e}"), String::new(), None),
    };
    Some(Failure {
        line: case.line,
        message,
        expected: snap,
        actual,
        detail,
    })
}

/// Runs one case with an already loaded policy; `snapshots` (from `--snapshot`/`--accept`) checks
/// every case's snapshot, else only those whose spec asks for one (with insta's default update mode).
pub fn run_case(
    case: &Case,
    policy: &Result<Policy, String>,
    snapshots: Option<Update>,
) -> CaseResult {
    let mut out = CaseResult {
        case: case.clone(),
        checked: 0,
        failures: Vec::new(),
        error: None,
        result: None,
        snapshot: None,
        directive: None,
    };
    let policy = match policy {
        Ok(p) => p,
        Err(e) => {
            out.error = Some(e.clone());
            return out;
        }
    };
    let host = match load_host(&case.host) {
        Ok(h) => h,
        Err(e) => {
            out.error = Some(e);
            return out;
        }
    };
    let o = Options {
        file: case.policy.to_string_lossy().into_owned(),
        define: case.define.clone(),
        bundlesequence: case.bundlesequence.clone(),
        result_json: Some(String::new()),
        assume_commands: case.assume_commands,
        ..Options::default()
    };
    let r = simulate_policy(policy, &host, &o);
    let Some(result) = r.result else {
        // the run never started; only an exit-code expectation can be checked
        let wants_exit = case
            .expect
            .iter()
            .any(|(_, e)| matches!(e, Expect::ExitCode(c) if *c == r.code));
        if !wants_exit {
            out.error = Some(r.stdout.trim_end().to_string());
        }
        out.checked = usize::from(wants_exit);
        return out;
    };
    if case.acceptance && testing_classes(&result).is_empty() {
        out.checked = 1;
        out.failures.extend(acceptance_verdict(case, &result));
    }
    for (line, e) in &case.expect {
        out.checked += 1;
        let failed = match (e, &r.vfs, &r.packages) {
            (Expect::File(path, want), Some(vfs), _) => check_file(path, want, vfs, &host),
            (Expect::Package(name, want), _, Some(db)) => check_package(name, want, db),
            (Expect::Service(name, want), _, _) => check_service(name, want, r.services.as_ref()),
            (Expect::User(name, want), _, _) => r
                .accounts
                .as_ref()
                .and_then(|db| check_user(name, want, db)),
            _ => check(e, &result),
        };
        if let Some((message, expected, actual)) = failed {
            out.failures.push(Failure {
                line: *line,
                message,
                expected,
                actual,
                detail: None,
            });
        }
    }
    if case.converge {
        out.checked += 1;
        let first = r.vfs.clone().unwrap_or_default();
        match not_convergent(policy, &host, &o, &first) {
            Ok(repaired) if repaired.is_empty() => {}
            Ok(repaired) => out.failures.push(Failure {
                line: case.line,
                message: format!(
                    "not convergent: a second run on the state the first left repaired {} promise(s)",
                    repaired.len()
                ),
                expected: "nothing repaired".into(),
                actual: format!("{} repaired", repaired.len()),
                detail: Some(repaired.join("\n")),
            }),
            Err(e) => out.failures.push(Failure {
                line: case.line,
                message: "the second run (convergence check) did not start".into(),
                expected: "a run".into(),
                actual: e,
                detail: None,
            }),
        }
    }
    let update = match snapshots {
        Some(u) => Some(u),
        None if case.snapshot => Some(Update::from_env(false)),
        None => None,
    };
    if let Some(u) = update {
        out.checked += 1;
        let v = snapshot::check(case, &result, u);
        out.failures.extend(snapshot_failure(case, &v));
        out.snapshot = Some(v);
    }
    out.result = Some(result);
    out
}

/// The classes of a run made by the masterfiles' `lib/testing.cf` (`testing_ok`, `testing_ok_if`,
/// `testing_skip`, `testing_todo`): name, status tag and meta tags, sorted by name.
fn testing_classes(r: &Json) -> Vec<(String, &'static str, Vec<String>)> {
    let mut out = Vec::new();
    for c in r["classes"].as_array().into_iter().flatten() {
        let tags: Vec<String> = c["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect();
        let status = [
            "testing_passed",
            "testing_failed",
            "testing_skipped",
            "testing_todo",
        ]
        .into_iter()
        .find(|s| tags.iter().any(|t| t == s));
        if let (Some(name), Some(status)) = (c["name"].as_str(), status) {
            out.push((name.to_string(), status, tags));
        }
    }
    out
}

/// An acceptance case whose policy used `lib/testing.cf` becomes one result per test class it
/// defined: `testing_X` passed, `testing_X_failed` failed (with its message, error and trace), skipped
/// and to-do tests carry their directive. Other results are returned as they are.
pub fn expand_testing(r: CaseResult) -> Vec<CaseResult> {
    let classes = match (&r.result, r.case.acceptance) {
        (Some(res), true) => testing_classes(res),
        _ => Vec::new(),
    };
    if classes.is_empty() {
        return vec![r];
    }
    let tag = |tags: &[String], k: &str| {
        tags.iter()
            .find_map(|t| t.strip_prefix(&format!("{k}=")).map(str::to_string))
            .unwrap_or_default()
    };
    classes
        .into_iter()
        .enumerate()
        .map(|(i, (name, status, tags))| {
            let mut case = r.case.clone();
            let short = name.strip_prefix("testing_").unwrap_or(&name);
            let short = if status == "testing_failed" {
                short.strip_suffix("_failed").unwrap_or(short)
            } else {
                short
            };
            case.name = short.to_string();
            // the line of the call that made the test, for the report
            let line = std::fs::read_to_string(&r.case.policy)
                .ok()
                .and_then(|t| {
                    t.lines()
                        .position(|l| l.contains("testing_") && l.contains(&format!("\"{short}\"")))
                })
                .map_or(1, |i| i + 1);
            case.line = line;
            let message = tag(&tags, "message");
            let mut failures = Vec::new();
            let mut directive = None;
            match status {
                "testing_failed" => failures.push(Failure {
                    line,
                    message: format!("testing_ok_if: {message}"),
                    expected: format!("class {short} defined"),
                    actual: format!(
                        "not defined (error: {}; trace: {})",
                        tag(&tags, "error"),
                        tag(&tags, "trace")
                    ),
                    detail: None,
                }),
                "testing_skipped" => directive = Some(Directive::Skip(message)),
                "testing_todo" => directive = Some(Directive::Todo(message)),
                _ => {}
            }
            CaseResult {
                case,
                checked: 1,
                failures,
                error: None,
                // the run once (coverage counts runs)
                result: if i == 0 { r.result.clone() } else { None },
                snapshot: None,
                directive,
            }
        })
        .chain(
            // a snapshot verdict of the whole run stays a result of its own
            r.snapshot.is_some().then(|| CaseResult {
                failures: r
                    .failures
                    .iter()
                    .filter(|f| f.message.contains("snapshot"))
                    .cloned()
                    .collect(),
                result: None,
                ..r.clone()
            }),
        )
        .collect()
}

/// The distinct policies of the cases, each loaded and checked once.
pub fn load_policies(cases: &[Case]) -> BTreeMap<PathBuf, Result<Policy, String>> {
    let mut policies: BTreeMap<PathBuf, Result<Policy, String>> = BTreeMap::new();
    for c in cases {
        policies.entry(c.policy.clone()).or_insert_with(|| {
            Policy::load(&c.policy.to_string_lossy()).map_err(|f| f.stdout.trim_end().to_string())
        });
    }
    policies
}

/// Runs every case (in parallel on `pool`) with its policy from `policies`; results in case order.
pub fn run_all(
    cases: &[Case],
    policies: &BTreeMap<PathBuf, Result<Policy, String>>,
    pool: &rayon::ThreadPool,
    snapshots: Option<Update>,
) -> Vec<CaseResult> {
    let missing: Result<Policy, String> = Err("policy not loaded".into());
    let results: Vec<CaseResult> = pool.install(|| {
        cases
            .par_iter()
            .map(|c| run_case(c, policies.get(&c.policy).unwrap_or(&missing), snapshots))
            .collect()
    });
    results.into_iter().flat_map(expand_testing).collect()
}
