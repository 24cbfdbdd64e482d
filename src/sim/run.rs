//! Running a simulation: [`Options`] (the flags of `cfsim agent`, which every front end fills in), a
//! checked [`super::Policy`] and a [`crate::host::Host`] in, a [`RunResult`] out — what cf-agent would
//! print, its exit code, and on request the trace and the result document. [`simulate`] loads both
//! from files and runs on a thread whose stack is sized from `--max-call-depth`; [`simulate_policy`]
//! runs an already loaded policy (fleet, diff and test load it once for many hosts); [`run_engine`]
//! runs one and keeps its engine (class and variable tables, trace) for tools that inspect the run.

use crate::eval::output::LogLevel;
use crate::eval::setup::ClassOptions;
use crate::eval::{render, trace, RunOptions};
use crate::host::hard_classes::Component;

/// Trace output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Text,
    Json,
}

/// Flags of `cfsim agent`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub file: String,
    pub host: String,
    pub define: Vec<String>,
    pub negate: Vec<String>,
    pub bundlesequence: Option<String>,
    pub inform: bool,
    pub verbose: bool,
    pub dry_run: bool,
    /// `-g LEVEL`.
    pub level: Option<String>,
    /// `--show-evaluated-classes[=RE]` (`Some("")` = all).
    pub show_classes: Option<String>,
    pub show_vars: Option<String>,
    pub exec: bool,
    /// `--allow-network`: names may be resolved with DNS (`--exec` implies it).
    pub allow_network: bool,
    /// `--assume-commands=succeed|fail`: what a command the host profile does not know returns.
    pub assume_commands: Option<crate::expr::host::Assume>,
    /// `--henc-module PATH`: programs cfsim answers with its built-in hENC merge.
    pub henc_modules: Vec<String>,
    pub trace: Option<TraceFormat>,
    /// `--trace-file PATH`: the trace as JSON lines in PATH (`-`: stdout, after the run's output).
    pub trace_file: Option<String>,
    /// `--result-json PATH`: the run's result (docs/result.schema.json) in PATH (`-`: stdout).
    pub result_json: Option<String>,
    /// `--timeline PATH.html`: the run as one self-contained HTML page (see [`crate::timeline`]).
    pub timeline: Option<String>,
    /// The result without variables and per-promise entries (see `eval::result::RunFacts::brief`).
    pub brief_result: bool,
    /// With `brief_result`: without the classes either (`eval::result::RunFacts::brief_without_classes`).
    pub brief_without_classes: bool,
    /// Limits (method nesting, iterations per promise); defaults when `None`.
    pub limits: Option<crate::eval::Limits>,
    /// Keep the full trace (call paths included) in the engine of [`run_engine`] without printing it.
    pub keep_trace: bool,
    /// `--simulate=diff|manifest|manifest-full`.
    pub simulate: Option<crate::host::simreport::Mode>,
    /// Start from this file system state (a previous run's: the convergence check).
    pub start_files: Option<crate::host::vfs::Vfs>,
    /// `--write-root DIR`: write the final state of every changed path under DIR.
    pub write_root: Option<String>,
    /// `--changes=json` (or `--changes-file PATH`): every change for programs (`-`: after the output).
    pub changes_json: Option<String>,
    /// Where file contents past the memory budget go (`--spill-dir`, `--spill-above`).
    pub spill: crate::host::spill::SpillConfig,
    /// Print the run's lines to standard output as they are made instead of returning them in
    /// [`RunResult::stdout`] (which then holds only what follows the run: tables, traces, reports).
    pub stream: bool,
    /// The process ends after this run (`cfsim agent`): the engine, the policy and the host are left
    /// to the exit instead of being freed item by item (a tenth of a small run). Never set it in a
    /// process that runs more than once (fleet, tests): the memory would only come back at exit.
    pub exit_after: bool,
}

/// What cfsim prints when the agent's validation fails at run time: the agent's own line, then why the
/// simulation stops there.
const FAILSAFE: &str = "   error: CFEngine was not able to get confirmation of promises from cf-promises, so going to failsafe\n   error: cfsim: the agent would now run its built-in failsafe policy, which cfsim does not simulate\n";

/// Everything a run printed, and its exit code (used by tests and the CLI).
#[derive(Debug, Clone, Default)]
pub struct RunResult {
    pub stdout: String,
    pub code: u8,
    /// The JSON-lines trace for `--trace-file` (`None` when not asked for or the run never started).
    pub trace_json: Option<String>,
    /// The result document for `--result-json` (`None` when not asked for or the run never started).
    pub result: Option<serde_json::Value>,
    /// The HTML page for `--timeline` (`None` when not asked for or the run never started).
    pub timeline: Option<String>,
    /// The paths the run changed on the virtual host, before and after.
    pub files: Vec<crate::host::writeroot::FileChange>,
    /// The unchanged directories above them.
    pub file_parents: Vec<(String, crate::host::vfs::Node)>,
    /// The virtual file system as the run left it (over the host's files).
    pub vfs: Option<crate::host::vfs::Vfs>,
    /// The package database as the run left it.
    pub packages: Option<crate::host::packages::PackageState>,
    /// The service inventory as the run left it (`None` when the profile has none).
    pub services: Option<crate::host::services::Inventory>,
    /// The local users and groups as the run left them.
    pub accounts: Option<crate::host::users::UserDb>,
}

/// The output and exit code of a policy that could not be loaded or pre-evaluated.
fn failed(f: crate::sim::Failure) -> RunResult {
    RunResult {
        stdout: f.stdout,
        code: f.code,
        ..RunResult::default()
    }
}

/// The chroot `--simulate` names in its first line and report.
pub const SIM_CHROOT: &str = "/var/lib/cfengine3/state/<PID>.changes";

/// Runs the agent simulation (the host profile and the policy named by `o`) and returns its output,
/// on a thread with a stack for `--max-call-depth` nested calls.
pub fn simulate(o: &Options) -> RunResult {
    let depth = o.limits.unwrap_or_default().max_call_depth;
    on_eval_thread(depth, || simulate_here(o)).unwrap_or_else(|(stdout, code)| RunResult {
        stdout,
        code,
        ..RunResult::default()
    })
}

/// Runs `f` on a thread whose stack holds `max_call_depth` nested methods calls (the stack of
/// `cfsim agent`). `Err` is the message and exit code when the thread cannot start (2) or stopped
/// unexpectedly (1).
pub fn on_eval_thread<T: Send>(
    max_call_depth: usize,
    f: impl FnOnce() -> T + Send,
) -> Result<T, (String, u8)> {
    if main_stack_suffices(max_call_depth) {
        return Ok(f());
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("cfsim-eval".into())
            .stack_size(crate::eval::stack_bytes(max_call_depth))
            .spawn_scoped(scope, f);
        match worker.map(|w| w.join()) {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(_)) => Err((
                "   error: cfsim: the evaluation thread stopped unexpectedly\n".into(),
                1,
            )),
            Err(e) => Err((
                format!("   error: cfsim: cannot start the evaluation thread: {e}\n"),
                2,
            )),
        }
    })
}

/// Stack the main thread must be allowed to grow to for running `max_call_depth` nested calls itself:
/// 6 MiB for everything else (what `cfsim promises` has for the same parsing and pre-evaluation) plus
/// 32 KiB a level (about 3 KiB a level measured in a release build, 10–16 KiB in a debug build).
pub fn inline_stack_bytes(max_call_depth: usize) -> usize {
    (6 << 20) + max_call_depth.min(crate::eval::MAX_CALL_DEPTH) * (32 << 10)
}

/// Whether the evaluation may stay on this thread: it is the process's main thread and its stack may
/// grow to [`inline_stack_bytes`] (the soft `RLIMIT_STACK`, "unlimited" counted
/// as 64 MiB). With the default `--max-call-depth` 64 and the usual 8 MiB limit it
/// does: a second thread costs a small run ~70 page faults and 0.2–0.6 ms (its stack mapping and an
/// allocator heap of its own). A deeper limit, a smaller `ulimit -s` or a library caller's thread gets
/// the evaluation thread with a stack sized from the limit.
fn main_stack_suffices(max_call_depth: usize) -> bool {
    // the process's main thread (whose thread id is the process id; not its name: cfsim's own start-up,
    // `start.rs` in the binary, does not name it)
    if rustix::thread::gettid() != rustix::process::getpid() {
        return false;
    }
    let soft = match rustix::process::getrlimit(rustix::process::Resource::Stack).current {
        None => 64 << 20,
        Some(bytes) => usize::try_from(bytes).unwrap_or(usize::MAX),
    };
    soft >= inline_stack_bytes(max_call_depth)
}

/// [`simulate`] on the current thread.
fn simulate_here(o: &Options) -> RunResult {
    let deferred = defers_network(o);
    let (host, policy) = host_and_policy(o, deferred);
    let host = match host {
        Ok(h) => h,
        Err(e) => {
            return RunResult {
                stdout: format!("   error: {e}\n"),
                code: 2,
                ..RunResult::default()
            }
        }
    };
    let policy = match policy {
        Ok(p) => p,
        Err(r) => return *r,
    };
    let mut r = simulate_policy(&policy, &host, o);
    let mut host = host;
    if host.net_watch.tripped() {
        // the run asked for a network fact: it is run again on the host discovered in full
        match crate::host::local::discover() {
            Ok(full) => {
                let first = std::mem::replace(&mut host, full);
                std::mem::forget(first);
                let old = std::mem::replace(&mut r, simulate_policy(&policy, &host, o));
                std::mem::forget(old);
            }
            Err(e) => {
                return RunResult {
                    stdout: format!("   error: {e}\n"),
                    code: 2,
                    ..RunResult::default()
                }
            }
        }
    }
    if o.exit_after {
        std::mem::forget(policy);
        std::mem::forget(host);
    }
    r
}

/// Whether a run may start on the local host without its network facts (`crate::host::netwatch`):
/// a `cfsim agent` process (one run) on the local host whose outputs list no classes or variables and
/// that runs no command (a run asking for a network fact is run again: nothing it did may show).
fn defers_network(o: &Options) -> bool {
    o.host == "local"
        && o.exit_after
        && !o.exec
        && !o.allow_network
        && !o.verbose
        && !o.keep_trace
        && o.level.is_none()
        && o.show_classes.is_none()
        && o.show_vars.is_none()
        && o.trace.is_none()
        && o.trace_file.is_none()
        && o.result_json.is_none()
        && o.timeline.is_none()
        && o.simulate.is_none()
        && o.write_root.is_none()
        && o.changes_json.is_none()
        && o.start_files.is_none()
        && crate::host::netwatch::deferral_allowed()
}

/// The run's host and policy, one after the other (both read in full, so that the host's error is
/// the one reported when both fail). Reading the host on a second thread while the policy loads was
/// measured to cost more than it saved: a small `cfsim agent` run took ~60 more page faults (the
/// thread's allocator heap) and more CPU and wall time than without it.
#[allow(clippy::type_complexity)]
fn host_and_policy(
    o: &Options,
    deferred: bool,
) -> (
    Result<crate::host::Host, crate::host::HostError>,
    Result<crate::sim::Policy, Box<RunResult>>,
) {
    let policy = load_for_agent(&o.file);
    let host = if deferred {
        crate::host::local::discover_deferred()
    } else {
        crate::host::load_host(&o.host)
    };
    (host, policy)
}

/// Loads the policy of an agent run; `Err` is what `cfsim agent` prints: cf-promises' messages, and for
/// a rejected policy that the agent would go to its failsafe policy.
pub fn load_for_agent(file: &str) -> Result<crate::sim::Policy, Box<RunResult>> {
    crate::sim::Policy::load(file).map_err(|f| {
        Box::new(if f.code == 1 {
            RunResult {
                stdout: format!("{}{FAILSAFE}", f.stdout),
                code: 1,
                ..RunResult::default()
            }
        } else {
            failed(f)
        })
    })
}

/// Runs the agent simulation of a loaded policy on `host` (the flags of `o` but its file and host), as
/// `cfsim fleet` does for each host.
pub fn simulate_policy(
    policy: &crate::sim::Policy,
    host: &crate::host::Host,
    o: &Options,
) -> RunResult {
    if let Some(g) = o.level.as_deref().filter(|g| LogLevel::parse(g).is_none()) {
        return usage(format!("Unknown log level '{g}'"));
    }
    let (cre, vre) = match (
        render::filter(o.show_classes.as_deref()),
        render::filter(o.show_vars.as_deref()),
    ) {
        (Ok(c), Ok(v)) => (c, v),
        (Err(e), _) | (_, Err(e)) => return usage(e),
    };
    let Finished {
        engine: mut e,
        ok,
        code,
        ..
    } = match run_engine(policy, host, o) {
        Ok(f) => f,
        Err(r) => return *r,
    };
    let mut stdout = e.out.text();
    if o.show_classes.is_some() && ok {
        stdout.push_str(&render::classes_table(&e.ctx, cre.as_ref()));
    }
    if o.show_vars.is_some() && ok {
        stdout.push_str(&render::vars_table(&e.ctx, vre.as_ref()));
    }
    match o.trace {
        Some(TraceFormat::Json) => stdout.push_str(&trace::render_json(&e.trace)),
        Some(TraceFormat::Text) => stdout.push_str(&trace::render_text(&e.trace)),
        None => {}
    }
    let report_lines = e.out.report_lines();
    let result = o.result_json.as_ref().map(|_| {
        let facts = crate::eval::result::RunFacts {
            policy: policy.entry(),
            host: &host.hostname,
            exit_code: code,
            lines: &report_lines,
            brief: o.brief_result,
            brief_without_classes: o.brief_without_classes,
            counts: e.opts.trace_counts_only.then_some(&e.tallies),
        };
        if e.opts.trace_counts_only {
            policy.keep_count_groups(e.tallies.groups());
        }
        crate::eval::result::build(&e.ctx, &e.trace, &facts)
    });
    let timeline = o.timeline.as_ref().map(|_| {
        let info = crate::timeline::RunInfo {
            policy: policy.entry(),
            host: &host.hostname,
            exit_code: code,
        };
        crate::timeline::render(&e.trace, &info)
    });
    if let Some(mode) = o.simulate {
        let info = o.inform || o.verbose;
        if o.stream {
            // what came before, then the report as it is made (never held whole)
            use std::io::Write;
            let mut w = std::io::stdout().lock();
            let _ = w.write_all(stdout.as_bytes());
            stdout.clear();
            let _ = super::simulate::report_to(&e, mode, info, &mut w);
            let _ = w.flush();
        } else {
            stdout.push_str(&super::simulate::report(&e, mode, info));
        }
    }
    // the list of changes, for the outputs that show it (the command line asks only when one is
    // wanted; a library caller gets it always)
    let wanted = !o.stream
        || o.write_root.is_some()
        || o.changes_json.is_some()
        || (o.result_json.is_some() && !o.brief_result);
    let (files, file_parents) = if wanted {
        let files = crate::host::writeroot::changes(&e.host.vfs, e.host.base());
        let parents = crate::host::writeroot::parents(&e.host.vfs, e.host.base(), &files);
        (files, parents)
    } else {
        (Vec::new(), Vec::new())
    };
    let mut result = result;
    if let Some(serde_json::Value::Object(m)) = result.as_mut() {
        if !o.brief_result {
            m.insert(
                "files".into(),
                crate::host::writeroot::changes_json(&files)["changes"].clone(),
            );
            m.insert(
                "packages".into(),
                serde_json::Value::Array(
                    e.host
                        .packages
                        .applied
                        .iter()
                        .map(|a| {
                            serde_json::json!({"name": a.name, "version": a.version, "arch": a.arch, "action": a.action})
                        })
                        .collect(),
                ),
            );
        }
        // account changes made by users promises (the key is left out when there are none)
        let changes = &e.host.accounts.changes;
        if !changes.is_empty() {
            let list: Vec<serde_json::Value> = changes
                .iter()
                .map(|c| serde_json::json!({"user": c.user, "action": c.action, "command": c.command}))
                .collect();
            m.insert("users".into(), serde_json::Value::Array(list));
        }
        if let (false, Some(before), Some(after)) = (
            o.brief_result,
            host.services.as_ref(),
            e.host.services.borrow().as_ref(),
        ) {
            m.insert(
                "services".into(),
                crate::host::services::changes_json(before, after),
            );
        }
    }
    let r = RunResult {
        stdout,
        code,
        trace_json: o.trace_file.as_ref().map(|_| trace::render_json(&e.trace)),
        result,
        timeline,
        files,
        file_parents,
        // moved, not copied: the engine ends here
        vfs: Some(std::mem::take(&mut e.host.vfs)),
        packages: Some(e.host.packages.clone()),
        services: e.host.services.borrow().clone(),
        accounts: Some(e.host.accounts.clone()),
    };
    if o.exit_after {
        std::mem::forget(e);
    }
    r
}

/// A usage error (exit 2) before the run starts.
fn usage(msg: String) -> RunResult {
    RunResult {
        stdout: format!("   error: {msg}\n"),
        code: 2,
        ..RunResult::default()
    }
}

/// A run that went to its end (or to a fatal error), with its engine: the class and variable tables,
/// the trace (when [`Options::keep_trace`], a printed trace or the result document asked for it) and
/// what it printed. For tools that inspect a run rather than print it (`cfsim explain`).
pub struct Finished<'h> {
    pub engine: crate::eval::Engine<'h>,
    /// The bundlesequence that ran (`-b` or `body common control`).
    pub sequence: Vec<crate::eval::sequence::SeqItem>,
    /// `false` after a fatal error (already in the engine's output).
    pub ok: bool,
    /// The exit code `cfsim agent` gives this run.
    pub code: u8,
}

/// Runs the agent simulation of a loaded policy on `host` and keeps the engine. `Err` is what
/// `cfsim agent` prints, with its exit code, when the run never started: a bad flag, a failed
/// pre-evaluation, or a fatal error of cf-promises' validation (the agent's failsafe policy).
pub fn run_engine<'h>(
    policy: &crate::sim::Policy,
    host: &'h crate::host::Host,
    o: &Options,
) -> Result<Finished<'h>, Box<RunResult>> {
    let mut level = if o.verbose {
        LogLevel::Verbose
    } else if o.inform {
        LogLevel::Info
    } else {
        LogLevel::Notice
    };
    if let Some(g) = &o.level {
        match LogLevel::parse(g) {
            Some(l) => level = l,
            None => return Err(Box::new(usage(format!("Unknown log level '{g}'")))),
        }
    }
    let classes = ClassOptions {
        define: o.define.clone(),
        negate: o.negate.clone(),
        inform: o.inform,
        verbose: o.verbose,
        dry_run: o.dry_run,
    };
    let printed = o.trace.is_some() || o.trace_file.is_some() || o.keep_trace;
    let spill = match o.spill.for_host(host.files.root.as_deref()) {
        Ok(s) => s,
        Err(m) => return Err(Box::new(usage(m))),
    };
    let opts = RunOptions {
        exec: o.exec,
        // --simulate is a dry run for everything but files promises
        dry_run: o.dry_run || o.simulate.is_some(),
        simulate: o.simulate,
        start_files: o.start_files.clone(),
        spill,
        trace: printed || o.result_json.is_some() || o.timeline.is_some(),
        trace_calls: printed || o.timeline.is_some(),
        // the brief result counts outcomes only (see eval::result::RunFacts::brief)
        trace_counts_only: o.brief_result && !printed && o.timeline.is_none(),
        count_groups_hint: policy.count_groups_hint(),
        limits: o.limits.unwrap_or_default(),
        allow_network: o.allow_network,
        henc_modules: o.henc_modules.clone(),
        assume_commands: o.assume_commands,
        ..RunOptions::default()
    };
    // cf-agent validates the policy with `cf-promises -c` first and passes on what it printed (the
    // function errors of cf-promises' own pre-evaluation); `-D`/`-N` are not passed on (recorded:
    // policies/functions/counts/define_not_validated)
    // the host's hard classes and sys vars, the same for both engines
    let facts = crate::eval::setup::HostFacts::new(host, policy.entry());
    let validation = match policy.engine_with_facts(
        host,
        &facts,
        Component::Promises,
        &ClassOptions::default(),
        LogLevel::Notice,
        RunOptions {
            exec: o.exec,
            dry_run: o.dry_run,
            limits: o.limits.unwrap_or_default(),
            allow_network: o.allow_network,
            assume_commands: o.assume_commands,
            // `cf-promises -c FILE`, or `cf-promises FILE -b SEQ` when the agent was given -b
            validation: Some(crate::syntax::runnable::Mode {
                check_runnable: o.bundlesequence.is_none(),
                dash_b: o.bundlesequence.is_some(),
            }),
            ..RunOptions::default()
        },
    ) {
        Ok(v) => {
            let text = v.out.text();
            if o.exit_after {
                // the process ends after the run: freeing the validation's engine only costs time
                std::mem::forget(v);
            }
            text
        }
        // cf-promises rejected the policy or stopped on a fatal error: the agent falls back to its
        // failsafe policy
        Err(f) if f.fatal || !f.stderr.is_empty() => {
            return Err(Box::new(RunResult {
                stdout: format!("{}{}{FAILSAFE}", f.stderr, f.stdout),
                code: 1,
                ..RunResult::default()
            }))
        }
        Err(_) => String::new(),
    };
    let engine = policy.engine_with_facts(host, &facts, Component::Agent, &classes, level, opts);
    if o.exit_after {
        // the process ends after the run: freeing the facts only costs time
        std::mem::forget(facts);
    }
    let mut e = match engine {
        Ok(e) => e,
        // what the validation printed comes first (a FatalError of the agent's own pre-evaluation,
        // after cf-promises accepted the policy: eval/scope/string_from_list_fatal)
        Err(mut f) => {
            f.stdout.insert_str(0, &validation);
            let trace_json = o.trace_file.as_ref().map(|_| trace::render_json(&f.trace));
            return Err(Box::new(RunResult {
                trace_json,
                ..failed(f)
            }));
        }
    };
    // a policy_server.dat naming a host that does not resolve: the agent and its cf-promises each log it
    // at their start (recorded: policies/hosts/policy_hub/unresolved)
    if let Some((info, error)) = crate::host::policy_server::policy_server(host)
        .and_then(|ps| crate::host::policy_server::unresolved_messages(&ps))
    {
        let n = e.out.lines.len();
        for _ in 0..2 {
            e.log(LogLevel::Info, &info);
            e.log(LogLevel::Error, &error);
        }
        let startup: Vec<String> = e.out.lines.drain(n..).collect();
        e.out.lines.splice(0..0, startup);
    }
    e.out
        .lines
        .splice(0..0, validation.lines().map(str::to_string));
    if o.simulate.is_some() {
        // cfsim needs no chroot; the agent's line names the one it would use (`<PID>`: there is no
        // process id in a simulation)
        e.out.lines.insert(
            0,
            format!(" warning: All changes in files will be made in the '{SIM_CHROOT}' chroot"),
        );
    }
    if o.bundlesequence.is_some() {
        e.log(
            LogLevel::Info,
            "Using command line specified bundlesequence",
        );
    }
    let sequence = e.bundlesequence(o.bundlesequence.as_deref());
    // a run on a host without its network facts may be thrown away (`simulate_here`): kept whole
    if o.stream && !host.net_watch.is_armed() {
        e.out.start_streaming();
    }
    let ok = e.run_sequence(&sequence);
    e.out.stop_streaming();
    let code = if !ok {
        1
    } else if e.limit_hit {
        crate::eval::EXIT_LIMIT
    } else {
        0
    };
    Ok(Finished {
        engine: e,
        sequence,
        ok,
        code,
    })
}
