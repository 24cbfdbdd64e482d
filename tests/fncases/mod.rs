//! Shared by `tests/functions.rs` and `tests/functions_live.rs`: reading `policies/functions/*.cases`
//! and the recorded `*.expected` output of the real cf-agent, and evaluating a case with cfsim.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use cfsim::expr::classexpr;
use cfsim::expr::host::{
    Capture, CommandOutput, FileStat, GroupInfo, HostEnv, ProcessInfo, ShellMode, UserInfo,
};
use cfsim::expr::localhost::LocalHost;
use cfsim::expr::memenv::MemEnv;
use cfsim::functions::cache::FnCache;
use cfsim::functions::callexpr::{eval_call, parse_call, EvalOutcome};
use cfsim::functions::strings::render_s;
use cfsim::functions::{CallCtx, Level};
use cfsim::value::{ListKind, ScalarKind, Value};

/// Environment variable given to the recording run (and answered by [`TestHost`]).
pub const TEST_VAR: (&str, &str) = ("CFSIM_TEST_VAR", "value-of-test");

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions")
}

/// Every family that has a case file, sorted.
pub fn families() -> Vec<String> {
    stems(&dir(), ".cases")
}

/// The names of the files of `dir` ending in `suffix`, without it, sorted.
pub fn stems(dir: &Path, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.strip_suffix(suffix).map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

pub struct Case {
    pub id: String,
    pub ty: String,
    pub call: String,
}

pub struct CaseFile {
    pub env: MemEnv,
    pub cases: Vec<Case>,
    /// `expand`/`iter`/`classexpr` lines: (kind, text).
    pub exprs: Vec<(String, String)>,
}

/// `policies/expr`, the expression-layer recordings.
pub fn expr_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/expr")
}

/// Splits `NAME TYPE JSON` where NAME may contain spaces inside brackets.
fn split_var(rest: &str) -> Option<(&str, &str, &str)> {
    let mut depth = 0;
    let end = rest.char_indices().find_map(|(i, c)| {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ' ' if depth == 0 => return Some(i),
            _ => {}
        }
        None
    })?;
    let (name, tail) = (&rest[..end], rest[end + 1..].trim_start());
    let (ty, val) = tail.split_once(' ')?;
    Some((name, ty, val))
}

pub fn read_cases(family: &str) -> Result<CaseFile, String> {
    read_cases_in(&dir(), family)
}

pub fn read_cases_in(base: &Path, family: &str) -> Result<CaseFile, String> {
    let path = base.join(format!("{family}.cases"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut env = MemEnv::new("main");
    env.define("any", &["hardclass"]);
    env.define("cfengine", &["hardclass"]);
    for b in ["main", "g"] {
        env.bundles.push(cfsim::expr::env::BundleInfo {
            ns: "default".into(),
            name: b.into(),
            tags: Vec::new(),
        });
    }
    {
        use cfsim::expr::env::EvalEnv;
        env.define_var(
            "default",
            "this",
            "promise_dirname",
            Value::str(dir().to_string_lossy().into_owned()),
        );
        for (k, v) in cfsim::expr::CONST_VARS {
            env.define_var("default", "const", k, Value::str(*v));
        }
        env.define_var("default", "this", "bundle", Value::str("main"));
        env.define_var("default", "this", "namespace", Value::str("default"));
    }
    let mut cases = Vec::new();
    let mut exprs = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let (kind, rest) = line.split_once(' ').ok_or(format!("bad line {line}"))?;
        match kind {
            "expand" | "iter" | "classexpr" => exprs.push((kind.to_string(), rest.to_string())),
            "var" | "gvar" => {
                let (name, ty, val) = split_var(rest).ok_or(format!("bad var line {line}"))?;
                let name = if kind == "gvar" {
                    format!("g.{name}")
                } else {
                    name.to_string()
                };
                let j: serde_json::Value =
                    serde_json::from_str(val).map_err(|e| format!("{line}: {e}"))?;
                let strs = |j: &serde_json::Value| -> Vec<String> {
                    j.as_array()
                        .map(|a| {
                            a.iter()
                                .map(|x| x.as_str().unwrap_or("").to_string())
                                .collect()
                        })
                        .unwrap_or_default()
                };
                let text = |j: &serde_json::Value| match j {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let v = match ty {
                    "data" => Value::Data(j),
                    "slist" => Value::List(ListKind::Slist, strs(&j)),
                    "ilist" => Value::List(ListKind::Ilist, strs(&j)),
                    "rlist" => Value::List(ListKind::Rlist, strs(&j)),
                    "int" => Value::Scalar(ScalarKind::Int, text(&j)),
                    "real" => Value::Scalar(ScalarKind::Real, text(&j)),
                    _ => Value::Scalar(ScalarKind::String, text(&j)),
                };
                let v = match v {
                    Value::Scalar(k, s) => {
                        Value::Scalar(k, cfsim::expr::expand_scalar(&s, &env).text)
                    }
                    Value::List(k, items) => {
                        Value::List(k, cfsim::expr::expand::expand_list(&items, &env))
                    }
                    other => other,
                };
                env.set_with_tags(&name, v, &["source=promise"]);
            }
            "class" => {
                let mut parts = rest.split_whitespace();
                let name = parts.next().unwrap_or("");
                let mut tags: Vec<&str> = vec!["source=promise"];
                tags.extend(
                    parts
                        .next()
                        .map(|t| t.split(',').collect::<Vec<_>>())
                        .unwrap_or_default(),
                );
                env.define_local(name, &tags);
            }
            "case" => {
                let (ty, call) = rest.split_once(' ').ok_or(format!("bad case {line}"))?;
                cases.push(Case {
                    id: format!("c{}", cases.len() + 1),
                    ty: ty.into(),
                    call: call.into(),
                });
            }
            _ => return Err(format!("unknown line kind in {line}")),
        }
    }
    Ok(CaseFile { env, cases, exprs })
}

/// Recorded report values (`cN` → text) and the distinct error messages of a `.expected` file.
pub struct Expected {
    pub values: Vec<(String, String)>,
    pub errors: Vec<String>,
}

fn log_message(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    for lvl in ["error", "warning", "notice", "info", "verbose", "debug"] {
        if let Some(rest) = t.strip_prefix(lvl).and_then(|r| r.strip_prefix(": ")) {
            if line.len() - t.len() + lvl.len() == 8 {
                return Some((lvl, rest));
            }
        }
    }
    None
}

pub fn read_expected(text: &str) -> Expected {
    let mut values: Vec<(String, String)> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("R: ") {
            if let Some((id, v)) = rest.split_once(" => ") {
                values.push((id.to_string(), v.to_string()));
                open = true;
                continue;
            }
        }
        if let Some((lvl, msg)) = log_message(line) {
            open = false;
            if lvl == "error" && !errors.iter().any(|e| e == msg) {
                errors.push(msg.to_string());
            }
            continue;
        }
        if open {
            if let Some(last) = values.last_mut() {
                last.1.push('\n');
                last.1.push_str(line);
            }
        }
    }
    Expected { values, errors }
}

/// `LocalHost`, except for the one environment variable the recording run was given.
pub struct TestHost(pub LocalHost);

impl HostEnv for TestHost {
    fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        self.0.read_file(&resolve(path))
    }
    fn stat(&self, path: &str, follow: bool) -> Option<FileStat> {
        self.0.stat(&resolve(path), follow)
    }
    fn list_dir(&self, path: &str) -> Option<Vec<String>> {
        self.0.list_dir(&resolve(path))
    }
    fn run_command(&self, cmd: &str, mode: ShellMode, capture: Capture) -> Option<CommandOutput> {
        self.0.run_command(cmd, mode, capture)
    }
    fn getenv(&self, name: &str) -> Option<String> {
        (name == TEST_VAR.0).then(|| TEST_VAR.1.to_string())
    }
    fn users(&self) -> Vec<UserInfo> {
        self.0.users()
    }
    fn groups(&self) -> Vec<GroupInfo> {
        self.0.groups()
    }
    fn now(&self) -> i64 {
        self.0.now()
    }
    fn utc_offset(&self, epoch: i64) -> i64 {
        self.0.utc_offset(epoch)
    }
    fn hostname(&self) -> String {
        self.0.hostname()
    }
    fn in_netgroup(&self, g: &str) -> bool {
        self.0.in_netgroup(g)
    }
    fn addresses(&self) -> Vec<(String, String)> {
        self.0.addresses()
    }
    fn processes(&self) -> Vec<ProcessInfo> {
        self.0.processes()
    }
    fn random(&self, lo: i64, hi: i64) -> i64 {
        self.0.random(lo, hi)
    }
    fn resolve_host(&self, name: &str) -> Option<Vec<String>> {
        self.0.resolve_host(name)
    }
    fn reverse_lookup(&self, ip: &str) -> Option<String> {
        self.0.reverse_lookup(ip)
    }
    fn disk_free(&self, path: &str) -> Option<i64> {
        self.0.disk_free(path)
    }
    fn packages(&self, updates: bool) -> Vec<cfsim::expr::host::PackageInfo> {
        self.0.packages(updates)
    }
    fn lastseen(&self) -> Option<Vec<cfsim::expr::host::LastSeen>> {
        self.0.lastseen()
    }
}

/// Relative paths in case files are relative to `policies/functions` (the policy's directory).
fn resolve(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        dir().join(path).to_string_lossy().into_owned()
    }
}

/// The error messages the call logs when cf-promises evaluates it (cf-agent's recording starts with the
/// output of its `cf-promises -c` validation; a few messages differ between the tools).
pub fn promises_errors(
    env: &mut MemEnv,
    host: &dyn HostEnv,
    cache: &mut FnCache,
    case: &Case,
) -> Vec<String> {
    let Ok(call) = parse_call(&case.call) else {
        return Vec::new();
    };
    let mut ctx = CallCtx::new(env, host);
    ctx.agent = false;
    let _ = eval_call(&mut ctx, &call, cache);
    ctx.log
        .iter()
        .filter(|l| l.level == Level::Error)
        .map(|l| l.message.clone())
        .collect()
}

/// What cfsim reports for one case, rendered like the generated policy does; `None` when the agent
/// would print nothing usable (`$(cN)` stays unexpanded).
pub fn evaluate(
    env: &mut MemEnv,
    host: &dyn HostEnv,
    cache: &mut FnCache,
    case: &Case,
) -> (Option<String>, Vec<String>) {
    let call = match parse_call(&case.call) {
        Ok(c) => c,
        Err(e) => return (Some(format!("<parse error: {e}>")), Vec::new()),
    };
    let mut ctx = CallCtx::new(env, host);
    let out = eval_call(&mut ctx, &call, cache);
    let errors: Vec<String> = ctx
        .log
        .iter()
        .filter(|l| l.level == Level::Error)
        .map(|l| l.message.clone())
        .collect();
    let rendered = match out {
        EvalOutcome::Value(v) => match case.ty.as_str() {
            "context" => {
                let expr = v.as_scalar().unwrap_or("").to_string();
                Some(
                    classexpr::eval_str(&expr, &*ctx.env)
                        .unwrap_or(false)
                        .to_string(),
                )
            }
            "string" | "int" | "real" => match &v {
                Value::Scalar(..) => v.as_scalar().map(str::to_string),
                _ => None,
            },
            _ => match &v {
                Value::Scalar(..) => None,
                other => Some(render_s(other)),
            },
        },
        _ if case.ty == "context" => Some("false".into()),
        _ => None,
    };
    (rendered, errors)
}
