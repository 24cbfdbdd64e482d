//! `processes:` promises (spec §5.4, recorded: policies/processes) over the host's process table
//! (profile `processes`). The promiser is a regex searched unanchored in each row's command line; a
//! `process_select` body narrows the rows (criteria as tokens, `process_result` a class expression over
//! them). Then, in the agent's order: `process_count` (in range: its classes, kept, done; out of range:
//! its classes, repaired), `process_stop`, `signals` (every signal to every row, rows in ascending pid
//! order as ps lists them), `restart_class`. The table is read once per run: a
//! signalled process stays in it (recorded: signal-then-exists). A local host reads this machine's table
//! from `/proc` (nothing is ever signalled: the run is a simulation); a profile without `processes` gets
//! a warning and nothing happens.

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::expr::classexpr::parse;
use crate::host::processes::Process;
// one step's result: the files promises' lattice
use crate::promise::files::Res;
use crate::syntax::ast::Promise;

/// The agent's signal names and numbers (Linux).
const SIGNALS: &[(&str, i32)] = &[
    ("hup", 1),
    ("int", 2),
    ("quit", 3),
    ("trap", 5),
    ("abrt", 6),
    ("bus", 7),
    ("kill", 9),
    ("usr1", 10),
    ("segv", 11),
    ("usr2", 12),
    ("pipe", 13),
    ("term", 15),
    ("child", 17),
    ("cont", 18),
    ("stop", 19),
];

struct Run<'a> {
    def: &'a BundleDef,
    p: &'a Promise,
    res: Res,
    /// `action_policy => "warn"`: -v ends the promise as not kept whatever its steps were (recorded:
    /// processes/warn-only/verbose.out)
    warn: bool,
}

impl Run<'_> {
    /// `cfPS`: the step's classes at once and its outcome counted in the bundle's accounting (each
    /// step counts: recorded processes/*/verbose.out, e.g. process-stop counts a stop and its "no
    /// restart" as repaired and kept), the promise's result aggregated.
    fn step(&mut self, e: &mut Engine<'_>, r: Res) {
        self.res = self.res.max(r);
        if let Some(o) = r.outcome() {
            e.record_outcome(self.def, self.p, o);
        }
    }
}

/// An `irange` value `lo,hi` (`inf` and `-inf` as the agent's integer limits).
fn range(v: &str) -> Option<(i64, i64)> {
    let (a, b) = v.split_once(',')?;
    let int = |s: &str| match s.trim() {
        "inf" => Some(i64::MAX),
        "-inf" => Some(i64::MIN),
        n => n.parse().ok(),
    };
    Some((int(a)?, int(b)?))
}

/// A `process_select` body, its values expanded.
#[derive(Default)]
struct Select {
    owners: Vec<String>,
    ranges: Vec<(&'static str, (i64, i64))>,
    status: Option<String>,
    command: Option<String>,
    tty: Option<String>,
    ttime: Option<(i64, i64)>,
    stime: Option<(i64, i64)>,
    result: Option<String>,
}

impl Select {
    fn read(e: &mut Engine<'_>, def: &BundleDef, p: &Promise) -> Option<Select> {
        let attrs = e.body_attrs(def, p, "process_select", "process_select");
        if attrs.is_empty() {
            return None;
        }
        let mut s = Select::default();
        for (l, rv) in &attrs {
            if l == "process_owner" {
                s.owners = e.list_of(rv);
                continue;
            }
            let val = e.scalar_of(rv).unwrap_or_default();
            let v = || val.clone();
            match l.as_str() {
                "status" => s.status = Some(v()),
                "command" => s.command = Some(v()),
                "tty" => s.tty = Some(v()),
                "ttime_range" => s.ttime = range(&v()),
                "stime_range" => s.stime = range(&v()),
                "process_result" => s.result = Some(v()),
                k @ ("pid" | "ppid" | "pgid" | "rsize" | "vsize" | "threads" | "priority") => {
                    let name = match k {
                        "pid" => "pid",
                        "ppid" => "ppid",
                        "pgid" => "pgid",
                        "rsize" => "rsize",
                        "vsize" => "vsize",
                        "threads" => "threads",
                        _ => "priority",
                    };
                    if let Some(r) = range(&v()) {
                        s.ranges.push((name, r));
                    }
                }
                _ => {}
            }
        }
        Some(s)
    }

    /// Whether `row` is selected (started `now - elapsed`).
    fn selects(&self, row: &Process, now: i64) -> bool {
        let mut tokens: Vec<&str> = Vec::new();
        let full = |re: &str, s: &str| crate::pcre::full_match(re, s);
        if self.owners.iter().any(|o| full(o, &row.user)) {
            tokens.push("process_owner");
        }
        for (name, (lo, hi)) in &self.ranges {
            let v = match *name {
                "pid" => i64::from(row.pid),
                "ppid" => i64::from(row.ppid),
                "pgid" => i64::from(row.pgid),
                "rsize" => row.rsize as i64,
                "vsize" => row.vsize as i64,
                "threads" => row.threads as i64,
                _ => row.priority,
            };
            if *lo <= v && v <= *hi {
                tokens.push(name);
            }
        }
        // recorded (select-status): the agent's Linux ps format has no STAT column; never matches
        if let Some(c) = &self.command {
            if full(c, &row.command) {
                tokens.push("command");
            }
        }
        if let Some(t) = &self.tty {
            if full(t, &row.tty) {
                tokens.push("tty");
            }
        }
        if let Some((lo, hi)) = self.ttime {
            let t = row.cpu_seconds as i64;
            if lo <= t && t <= hi {
                tokens.push("ttime");
            }
        }
        if let Some((lo, hi)) = self.stime {
            let t = now - row.elapsed_seconds as i64;
            if lo <= t && t <= hi {
                tokens.push("stime");
            }
        }
        match self.result.as_deref().map(parse) {
            Some(Ok(x)) => x.eval_names(&tokens),
            Some(Err(_)) => false,
            // without process_result every given criterion must hold
            None => {
                let given = usize::from(!self.owners.is_empty())
                    + self.ranges.len()
                    + usize::from(self.status.is_some())
                    + usize::from(self.command.is_some())
                    + usize::from(self.tty.is_some())
                    + usize::from(self.ttime.is_some())
                    + usize::from(self.stime.is_some());
                tokens.len() == given
            }
        }
    }
}

/// Evaluates one processes promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let signals: Vec<String> = Engine::constraint(p, "signals")
        .map(|rv| e.list_of(rv))
        .unwrap_or_default();
    let restart = Engine::constraint(p, "restart_class").and_then(|rv| e.scalar_of(rv));
    // the sanity check runs before the promise lock: once per pass (recorded: restart-after-signal)
    if restart.is_some() && signals.iter().any(|s| s == "term" || s == "kill") {
        e.log(
            LogLevel::Warning,
            &format!("Promise '{promiser}' kills then restarts - never strictly converges"),
        );
        e.log(
            LogLevel::Info,
            &format!(
                "Promise belongs to bundle '{}' in file '{}' near line {}",
                def.name,
                e.file_path(def.file),
                e.line_of(p)
            ),
        );
    }
    let digest = e.digest(def, "processes", p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    let Some(table) = e.host.process_table() else {
        e.log(
            LogLevel::Warning,
            &format!(
                "cfsim: processes promise '{promiser}' in bundle '{}' is not simulated: the host profile has no process table (field `processes`); skipped",
                def.name
            ),
        );
        e.end_event(Some("not_simulated"), None);
        return;
    };
    e.verbose_promise_begin(def, "processes", p, promiser);
    let now = e.host.host.time.epoch;
    let offset = i64::from(e.host.host.time.utc_offset);
    let select = Select::read(e, def, p);
    // the agent's table is in ps order: ascending pid (recorded: signals-cont-term)
    let mut rows: Vec<&Process> = table.iter().collect();
    rows.sort_by_key(|r| r.pid);
    let matched: Vec<&Process> = rows
        .into_iter()
        .filter(|r| crate::pcre::find(promiser, &r.command).is_ok_and(|m| m.is_some()))
        .filter(|r| select.as_ref().is_none_or(|s| s.selects(r, now)))
        .collect();
    let warn_action = e.action_warn(def, p);
    // recorded (warn-only): a warn-only promise prints its matches as warnings
    let level = if warn_action {
        LogLevel::Warning
    } else {
        LogLevel::Verbose
    };
    for r in &matched {
        e.log(level, &format!("Matched '{}'", r.ps_line(now, offset)));
    }
    let mut run = Run {
        def,
        p,
        res: Res::Skipped,
        warn: warn_action,
    };
    let count = e.body_attrs(def, p, "process_count", "process_count");
    let mut match_range = None;
    let mut in_define = Vec::new();
    let mut out_define = Vec::new();
    for (l, rv) in &count {
        match l.as_str() {
            "match_range" => match_range = e.scalar_of(rv).and_then(|v| range(&v)),
            "in_range_define" => in_define = e.list_of(rv),
            "out_of_range_define" => out_define = e.list_of(rv),
            _ => {}
        }
    }
    let n = matched.len() as i64;
    if let Some((lo, hi)) = match_range {
        if n < lo || n > hi {
            e.log(
                LogLevel::Verbose,
                &format!("Process count for '{promiser}' was out of promised range ({n} found)"),
            );
            run.step(e, Res::Change);
            for c in &out_define {
                define(e, def, c, false);
            }
        } else {
            for c in &in_define {
                define(e, def, c, false);
            }
            e.log(
                LogLevel::Verbose,
                &format!("Process promise for '{promiser}' is kept"),
            );
            run.step(e, Res::Noop);
            return finish(e, &run, promiser);
        }
    }
    let dry = e.opts.dry_run;
    let mut killed = false;
    if !warn_action && !matched.is_empty() {
        if let Some(stop) = Engine::constraint(p, "process_stop").and_then(|rv| e.scalar_of(rv)) {
            if dry {
                e.log(
                    LogLevel::Error,
                    &format!("Need to keep process-stop promise for '{promiser}', but only a warning is promised"),
                );
                run.step(e, Res::Warn);
            } else {
                let code = e
                    .host
                    .virtual_command(&stop)
                    .map(|o| o.status)
                    .or_else(|| e.host.host.command(&stop).map(|r| r.exit_code))
                    .or_else(|| e.host.assume.map(|a| a.code()));
                match code {
                    Some(0) => {
                        e.log(
                            LogLevel::Info,
                            &format!(
                                "Promise to stop '{promiser}' repaired, '{stop}' returned zero"
                            ),
                        );
                        run.step(e, Res::Change);
                    }
                    Some(_) => {
                        e.log(
                            LogLevel::Error,
                            &format!(
                                "Promise to stop '{promiser}' failed, '{stop}' returned nonzero"
                            ),
                        );
                        run.step(e, Res::Fail);
                    }
                    None => {
                        // as for commands promises: nothing says what it would return
                        e.log(
                            LogLevel::Warning,
                            &format!("cfsim: process_stop '{stop}' for '{promiser}' is not simulated (the host profile has no result for it; --assume-commands=succeed|fail assumes one, --exec runs it)"),
                        );
                    }
                }
            }
        }
        if signals.is_empty() {
            e.log(
                LogLevel::Verbose,
                &format!("No signals to send for '{promiser}'"),
            );
        }
        for r in &matched {
            // the agent never signals PIDs 0-3 (only a lone `hup` to init) [S verify_processes.c]
            let lone_hup = r.pid == 1 && signals.len() == 1 && signals[0] == "hup";
            if r.pid < 4 && !signals.is_empty() && !lone_hup {
                e.log(
                    LogLevel::Verbose,
                    &format!("Will not signal or restart processes 0,1,2,3 (occurred while trying to signal {promiser})"),
                );
                continue;
            }
            for s in &signals {
                let Some(num) = SIGNALS.iter().find(|x| x.0 == s).map(|x| x.1) else {
                    continue;
                };
                let line = r.ps_line(now, offset);
                if dry {
                    e.log(
                        LogLevel::Error,
                        &format!("Need to keep signal promise '{s}' in process entry '{line}'"),
                    );
                    continue;
                }
                e.log(
                    LogLevel::Info,
                    &format!("Signalled '{s}' ({num}) to process {} ({line})", r.pid),
                );
                run.step(e, Res::Change);
                killed = true;
            }
        }
    }
    let need_restart = restart.is_some() && (killed || matched.is_empty());
    match restart {
        Some(class) if need_restart => {
            if warn_action {
                e.log(
                    LogLevel::Warning,
                    &format!("Need to keep restart promise for '{promiser}', but only a warning is promised"),
                );
                run.step(e, Res::Warn);
            } else {
                define(e, def, &class, true);
                // recorded: repaired after signals (restart-after-signal), kept when nothing matched
                // (restart-class-none)
                run.step(e, if killed { Res::Change } else { Res::Noop });
            }
        }
        _ => {
            e.log(
                LogLevel::Verbose,
                &format!("No restart promised for {promiser}"),
            );
            run.step(e, Res::Noop);
        }
    }
    finish(e, &run, promiser);
}

/// Defines a class of a `process_count` body or `restart_class` (namespace scope); -v shows only a
/// restart class (`verbose`; recorded: processes/count-restart/verbose.out).
fn define(e: &mut Engine<'_>, def: &BundleDef, class: &str, verbose: bool) {
    let name = crate::expr::canonify(class);
    if verbose && e.verbose_on() {
        // recorded (eval/custom/processes_services_types.verbose): with a trailing space
        e.log(
            LogLevel::Verbose,
            &format!("C:     +  Global class: {name} "),
        );
    }
    if !e.ctx.is_hard(&name) {
        e.ctx
            .define_global(&def.ns, &name, vec!["source=promise".to_string()]);
        e.cur.classes_set.push(name);
    }
}

fn finish(e: &mut Engine<'_>, run: &Run<'_>, promiser: &str) {
    let o = match run.res {
        Res::Skipped | Res::Noop => Outcome::Kept,
        Res::Change => Outcome::Repaired,
        Res::Warn | Res::Fail => Outcome::Failed,
    };
    // every step set its classes and was counted already (the agent has no final re-set: recorded
    // restart-after-signal, and -v shows no further outcome class)
    let shown = if run.warn { Outcome::Failed } else { o };
    e.verbose_promise_end("processes", promiser, shown);
    e.end_event(None, Some(o));
}

#[cfg(test)]
mod tests {
    #[test]
    fn irange_values() {
        assert_eq!(super::range("1,5"), Some((1, 5)));
        assert_eq!(super::range("-1, 1"), Some((-1, 1)));
        assert_eq!(super::range("x"), None);
        assert_eq!(super::range("5,inf"), Some((5, i64::MAX)));
    }
}
