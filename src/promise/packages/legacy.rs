//! Legacy `packages:` promises with a `package_method` body (`verify_packages.c`): the installed list
//! is the profile's package database, or the profile's `commands` result for the exact
//! `package_list_command` (parsed with `package_list_name_regex` / `…_version_regex` /
//! `…_arch_regex`, lines matching `package_installed_regex`). Actions are scheduled and executed at
//! the end of the packages section of the pass ([`execute`]): deletes, then adds, then updates; one `Installing NAME...`
//! line per action and method; `individual` runs one command per package, `bulk` one for all. A
//! command is never run: the profile's `commands` result for the exact command line answers, else
//! the database does (an add or update of a package the repositories do not have exits 1). `-n`
//! and `--simulate` print the schedule but run nothing and set no outcome class. Recorded behaviour:
//! `policies/packages/lg-*`.

use std::sync::Arc;

use super::attr;
use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::{Promise, Rval};

/// A scheduled legacy package action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Delete,
    Add,
    Update,
}

impl Action {
    fn verb(self) -> &'static str {
        match self {
            Action::Delete => "Deleting",
            Action::Add => "Installing",
            Action::Update => "Updating",
        }
    }
}

/// One package in the agent's schedule.
#[derive(Debug, Clone)]
pub struct Scheduled {
    def: Arc<BundleDef>,
    promise: Promise,
    name: String,
    action: Action,
    /// The `package_method` body (the agent's package manager) as called.
    manager: String,
    bulk: bool,
    command: String,
}

/// The method body the promise names, as written (`fake("bulk")` → `fake(bulk)`).
fn manager_name(e: &mut Engine<'_>, p: &Promise) -> String {
    match Engine::constraint(p, "package_method") {
        Some(Rval::Scalar(s)) => e.expand(&s.value).text,
        Some(Rval::Call(c)) => {
            let mut args = Vec::new();
            for a in &c.args {
                args.push(e.scalar_of(a).unwrap_or_default());
            }
            format!("{}({})", c.name, args.join(","))
        }
        _ => String::new(),
    }
}

/// The installed packages as `(name, version, arch)`: the profile's result for the list command, else
/// the database.
fn installed_list(e: &mut Engine<'_>, body: &[(String, String)]) -> Vec<(String, String, String)> {
    let get = |k: &str| body.iter().find(|(l, _)| l == k).map(|(_, v)| v.clone());
    if let Some(cmd) = get("package_list_command") {
        if let Some(r) = e.host.host.command(&cmd) {
            // the package_* regexes with the agent's PCRE (anchored both ends, as modelled before)
            let re =
                |k: &str| get(k).and_then(|s| crate::pcre::compile(&format!("^(?:{s})$")).ok());
            let (name, ver, arch, inst) = (
                re("package_list_name_regex"),
                re("package_list_version_regex"),
                re("package_list_arch_regex"),
                re("package_installed_regex"),
            );
            let cap = |r: &Option<std::sync::Arc<crate::pcre::Regex>>, l: &str| {
                r.as_ref()
                    .and_then(|r| r.captures(l))
                    .and_then(|c| c.groups.get(1).cloned().flatten())
            };
            return r
                .output
                .lines()
                .filter(|l| inst.as_ref().is_none_or(|r| r.is_match(l.as_bytes())))
                .filter_map(|l| {
                    Some((
                        cap(&name, l)?,
                        cap(&ver, l).unwrap_or_default(),
                        cap(&arch, l).unwrap_or_default(),
                    ))
                })
                .collect();
        }
    }
    e.host
        .packages
        .installed
        .iter()
        .map(|p| (p.name.clone(), p.version.clone(), p.arch.clone()))
        .collect()
}

/// The agent's sanity checks of a legacy promise (logged; `false`: the promise fails, in every pass).
pub fn sane(e: &mut Engine<'_>, def: &BundleDef, p: &Promise) -> bool {
    if Engine::constraint(p, "package_method").is_none() {
        e.log(LogLevel::Error, "Old package promise failed sanity check.");
        return false;
    }
    let policy = attr(e, p, "package_policy").unwrap_or_else(|| "add".to_string());
    if policy == "verify" {
        let body = e.body_attrs(def, p, "package_method", "package_method");
        if !body.iter().any(|(l, _)| l == "package_verify_command") {
            e.log(
                LogLevel::Error,
                "!! Package verify policy is used, but no package_verify_command is defined",
            );
            return false;
        }
    }
    true
}

/// Evaluates one legacy promise: kept, failed, or scheduled (`None`: the outcome comes when the
/// schedule runs).
pub fn evaluate(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    promiser: &str,
) -> Option<Outcome> {
    let policy = attr(e, p, "package_policy").unwrap_or_else(|| "add".to_string());
    let version = attr(e, p, "package_version").filter(|v| !v.is_empty());
    let raw = e.body_attrs(def, p, "package_method", "package_method");
    let mut body = Vec::new();
    for (l, rv) in &raw {
        if let Some(v) = e.scalar_of(rv) {
            body.push((l.clone(), v));
        }
    }
    let get = |k: &str| body.iter().find(|(l, _)| l == k).map(|(_, v)| v.clone());
    if policy == "verify" {
        // a verify command is never run: the package counts as verified
        e.record_outcome(def, p, Outcome::Kept);
        return Some(Outcome::Kept);
    }
    let installed = installed_list(e, &body);
    let mine: Vec<&(String, String, String)> =
        installed.iter().filter(|(n, _, _)| n == promiser).collect();
    let has_update = e.host.packages.find_update(promiser, None).is_some()
        || version
            .as_deref()
            .is_some_and(|v| mine.iter().all(|(_, iv, _)| iv != v));
    let action = match policy.as_str() {
        "delete" if !mine.is_empty() => Some(Action::Delete),
        "add" | "addupdate" if mine.is_empty() => Some(Action::Add),
        "update" | "addupdate" if !mine.is_empty() && has_update => Some(Action::Update),
        _ => None,
    };
    let Some(action) = action else {
        e.record_outcome(def, p, Outcome::Kept);
        return Some(Outcome::Kept);
    };
    if e.action_warn(def, p) {
        let how = match action {
            Action::Add => "installing",
            Action::Delete => "uninstalling",
            Action::Update => "updating",
        };
        e.log(
            LogLevel::Warning,
            &format!("Need to repair promise '{promiser}' by '{how}' package '{promiser}'"),
        );
        e.record_outcome(def, p, Outcome::Failed);
        return Some(Outcome::Failed);
    }
    let key = match action {
        Action::Delete => "package_delete_command",
        Action::Add => "package_add_command",
        Action::Update => "package_update_command",
    };
    let command = get(key).unwrap_or_default();
    let bulk = get("package_changes").as_deref() == Some("bulk");
    let manager = manager_name(e, p);
    let rc_def = e
        .bundles
        .iter()
        .find(|b| std::ptr::eq(b.as_ref(), def))
        .cloned()?;
    let promise = frozen(e, p);
    e.package_schedule.push(Scheduled {
        def: rc_def,
        promise,
        name: promiser.to_string(),
        action,
        manager,
        bulk,
        command,
    });
    None
}

/// A copy of `p` whose `classes` body arguments are expanded now: the outcome classes are set when the
/// schedule runs, after the iteration's bindings are gone (recorded: `lg-loop-classes`).
fn frozen(e: &Engine<'_>, p: &Promise) -> Promise {
    let mut q = p.clone();
    for c in &mut q.constraints {
        if c.lval != "classes" {
            continue;
        }
        if let Rval::Call(call) = &mut c.rval {
            for a in &mut call.args {
                if let Rval::Scalar(sc) = a {
                    sc.value = e.expand(&sc.value).text;
                }
            }
        }
    }
    q
}

/// Runs the schedule (the agent's `ExecuteScheduledPackages`, at the end of the packages section of a
/// pass).
pub fn execute(e: &mut Engine<'_>) {
    let schedule = std::mem::take(&mut e.package_schedule);
    if schedule.is_empty() {
        return;
    }
    let dry = e.opts.dry_run;
    for action in [Action::Delete, Action::Add, Action::Update] {
        // managers and their packages are prepended by the agent: the last scheduled comes first
        let mut managers: Vec<(String, Vec<&Scheduled>)> = Vec::new();
        for s in schedule.iter().filter(|s| s.action == action) {
            let key = format!("{}\u{1}{}", s.manager, s.command);
            match managers.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => v.insert(0, s),
                None => managers.insert(0, (key, vec![s])),
            }
        }
        for (_, items) in managers {
            let Some(first) = items.first() else {
                continue;
            };
            let head: String = first.name.chars().take(39).collect();
            e.log(LogLevel::Info, &format!("{} {head}...", action.verb()));
            if dry {
                continue;
            }
            if first.bulk {
                let names: Vec<&str> = items.iter().map(|s| s.name.as_str()).collect();
                let ok = run(e, action, &first.command, &names);
                // one outcome for the one command: the first package's promise gets it (recorded:
                // packages/lg-add-bulk/verbose.out, one outcome class and one repaired promise)
                finish(e, first, ok);
            } else {
                for s in &items {
                    let ok = run(e, action, &s.command, &[s.name.as_str()]);
                    finish(e, s, ok);
                }
            }
        }
    }
}

/// Runs (simulates) one package command; whether it succeeded.
fn run(e: &mut Engine<'_>, action: Action, command: &str, names: &[&str]) -> bool {
    let line = format!("{command} {}", names.join(" "));
    let (code, output) = match e.host.host.command(&line) {
        Some(r) => (r.exit_code, r.output.clone()),
        None => {
            let mut code = 0;
            for n in names {
                match action {
                    Action::Delete => e.host.packages.remove(n, None),
                    Action::Add | Action::Update => {
                        match e.host.packages.candidate(n, None, None).cloned() {
                            Some(c) => e.host.packages.install(&c),
                            None => code = 1,
                        }
                    }
                }
            }
            (code, String::new())
        }
    };
    // the agent's `Q:%20.20s ...:%s` over the command's base name and arguments
    let a0 = line.split(' ').next().unwrap_or_default();
    let base = a0.rsplit('/').next().unwrap_or(a0);
    let shown = format!("{base}{}", &line[a0.len()..]);
    let tag: String = shown.chars().take(20).collect();
    for l in output.lines().filter(|l| !l.is_empty()) {
        e.log(LogLevel::Info, &format!("Q:{tag:>20} ...:{l}"));
    }
    if code != 0 {
        for n in names {
            e.log(
                LogLevel::Error,
                &format!("Finished command related to promiser '{n}' -- an error occurred, returned {code}"),
            );
        }
    }
    code == 0
}

fn finish(e: &mut Engine<'_>, s: &Scheduled, ok: bool) {
    let outcome = if ok {
        Outcome::Repaired
    } else {
        Outcome::Failed
    };
    let def = s.def.clone();
    e.record_outcome(&def, &s.promise, outcome);
    // after the outcome's classes (recorded: packages/lg-add-fails/verbose.out)
    if !ok {
        e.log(
            LogLevel::Error,
            &format!("Package schedule execution failed for '{}'", s.name),
        );
    }
}
