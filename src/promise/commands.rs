//! `commands:` promises. Simulated by default: the outcome and output come from the host profile's
//! command results (a `henc` module is merged natively). A command the profile does not know is not
//! simulated: reported as such, no outcome and no classes, unless `--assume-commands=succeed|fail` says
//! what to assume (exit code 0 or 1, no output). `--exec` runs it for real (no shell unless the `contain`
//! body says `useshell`). Output lines become the agent's `Q:` notice block; `module => "true"` parses
//! the output with the module protocol instead.

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::expr::host::{Capture, HostEnv, ShellMode};
use crate::module::process;
use crate::module::protocol::{self, Event};
use crate::syntax::ast::Promise;
use crate::value::Value;

/// Seconds a command may run under `--exec` when the contain body gives no `exec_timeout`.
pub const DEFAULT_EXEC_TIMEOUT_SECS: u64 = 3600;

/// The agent's 15-character tag of `Q:` lines: from the end of `argv[0]` step back 10 characters and take 15.
pub fn q_tag(command: &str) -> String {
    let a0 = protocol::argv0(command);
    let start_in = command.find(a0).unwrap_or(0);
    let end = start_in + a0.chars().count();
    let chars: Vec<char> = command.chars().collect();
    let from = end.saturating_sub(10);
    chars.iter().skip(from).take(15).collect()
}

struct Ran {
    code: i32,
    output: String,
    simulated_unknown: bool,
    /// The exit code is `--assume-commands`' assumption.
    assumed: bool,
    /// Killed (timeout, signal) or cut short by `cfengine-die`.
    abnormal: bool,
}

impl Ran {
    fn done(code: i32, output: String) -> Ran {
        Ran {
            code,
            output,
            simulated_unknown: false,
            assumed: false,
            abnormal: false,
        }
    }
}

/// Evaluates one commands promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let digest = e.digest(def, "commands", p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    let mut cmd = promiser.to_string();
    if let Some(rv) = Engine::constraint(p, "args") {
        if let Some(a) = e.scalar_of(rv) {
            cmd = format!("{cmd} {a}");
        }
    }
    if let Some(rv) = Engine::constraint(p, "arglist") {
        for a in e.list_of(rv) {
            cmd = format!("{cmd} {a}");
        }
    }
    let module = match Engine::constraint(p, "module") {
        Some(rv) => e.scalar_of(rv).as_deref() == Some("true"),
        None => false,
    };
    let contain = e.body_attrs(def, p, "contain", "contain");
    let mut useshell = false;
    let mut no_output = false;
    let mut no_output_set = None;
    let mut timeout = None;
    for (l, rv) in &contain {
        let v = e.scalar_of(rv).unwrap_or_default();
        match l.as_str() {
            "useshell" => useshell = matches!(v.as_str(), "true" | "yes" | "useshell" | "on"),
            "no_output" => {
                no_output = matches!(v.as_str(), "true" | "yes" | "on");
                no_output_set = Some(no_output);
            }
            "exec_timeout" => timeout = v.parse::<u64>().ok(),
            _ => {}
        }
    }
    e.verbose_promise_begin(def, "commands", p, promiser);
    if e.opts.exec && !useshell && e.host.host.command(&cmd).is_none() {
        let a0 = protocol::argv0(&cmd).to_string();
        if a0.starts_with('/') && !std::path::Path::new(&a0).exists() {
            e.log(
                LogLevel::Error,
                &format!("Proposed executable file '{a0}' doesn't exist"),
            );
            e.log(
                LogLevel::Error,
                &format!("'{a0}' promises to be executable but isn't"),
            );
            e.record_outcome(def, p, Outcome::Failed);
            e.verbose_promise_end("commands", promiser, Outcome::Failed);
            e.end_event(None, Some(Outcome::Failed));
            return;
        }
    }
    if e.warn_only(def, p) {
        // nothing runs: `-n` says what would run, a warn-only action that it needs to run; either way
        // the promise is not kept and its repair_failed classes are set (recorded: commands/action_warn)
        e.log(LogLevel::Info, &process::executing_message(&cmd, timeout));
        let msg = if e.opts.dry_run {
            format!("Would execute script '{cmd}'")
        } else {
            format!("Command '{cmd}' needs to be executed, but only warning was promised")
        };
        e.log(LogLevel::Warning, &msg);
        e.record_outcome(def, p, Outcome::Failed);
        e.verbose_promise_end("commands", promiser, Outcome::Failed);
        e.end_event(None, Some(Outcome::Failed));
        return;
    }
    let mut ran = run(e, &cmd, module, useshell, timeout);
    if ran.simulated_unknown {
        match e.host.assume {
            None => {
                // nothing says what the command would do: no outcome, no classes, counted apart
                e.log(
                    LogLevel::Warning,
                    &format!(
                        "cfsim: commands promise '{cmd}' in bundle '{}' is not simulated (the host profile has no result for it; --assume-commands=succeed|fail assumes one, --exec runs it)",
                        def.name
                    ),
                );
                e.end_event(Some("not_simulated"), None);
                return;
            }
            Some(a) => {
                e.log(
                    LogLevel::Info,
                    &format!(
                        "cfsim: assumed '{cmd}' returned {} (--assume-commands; the host profile has no result for it)",
                        a.code()
                    ),
                );
                ran.code = a.code();
                ran.simulated_unknown = false;
                ran.assumed = true;
            }
        }
    } else {
        e.log(LogLevel::Info, &process::executing_message(&cmd, timeout));
    }
    let show_output = if module {
        no_output_set == Some(false)
    } else {
        !no_output
    };
    if module {
        // after `cfengine-die` the agent stops reading and closes the pipe: a module that still writes
        // dies of it (abnormal termination, modules/cfengine_die), one that had finished ends normally
        // (policies/modules/errors)
        if apply_module(e, def, &cmd, &ran.output, show_output) && writes_after_die(&ran.output) {
            ran.abnormal = true;
        }
        if e.fatal {
            e.end_event(None, Some(Outcome::Failed));
            return;
        }
    }
    // the exit-code verdict is logged before the quoted output (recorded)
    let outcome = if ran.abnormal {
        e.log(
            LogLevel::Error,
            &process::abnormal_termination_message(&cmd),
        );
        Outcome::Failed
    } else {
        e.returncode_outcome(def, p, &cmd, ran.code)
    };
    // outcome classes are set with the exit-code verdict, before the quoted output is flushed (recorded)
    e.record_outcome(def, p, outcome);
    if show_output && !ran.output.is_empty() {
        let tag = q_tag(&cmd);
        // empty lines are not quoted (recorded)
        let lines: Vec<&str> = ran.output.lines().filter(|l| !l.is_empty()).collect();
        for (i, l) in lines.iter().enumerate() {
            if i == 0 {
                e.log(LogLevel::Notice, &format!("Q: \"...{tag}\": {l}"));
            } else if e.out.shows(LogLevel::Notice) {
                e.out.raw(format!("Q: \"...{tag}\": {l}"));
            }
        }
        e.log(
            LogLevel::Info,
            &format!(
                "Last {} quoted lines were generated by promiser '{cmd}'",
                lines.len()
            ),
        );
    }
    if !ran.assumed {
        e.log(LogLevel::Info, &process::completed_message(&cmd));
    }
    e.verbose_promise_end("commands", promiser, outcome);
    e.end_event(None, Some(outcome));
}

/// Whether `output` goes on after its first line containing `cfengine-die`.
fn writes_after_die(output: &str) -> bool {
    let mut lines = output.lines().skip_while(|l| !l.contains("cfengine-die"));
    lines.next();
    lines.any(|l| !l.is_empty())
}

fn run(e: &mut Engine<'_>, cmd: &str, module: bool, shell: bool, timeout: Option<u64>) -> Ran {
    if let Some(o) = e.host.virtual_command(cmd) {
        return Ran::done(o.status, o.output);
    }
    if let Some(r) = e.host.host.command(cmd) {
        return Ran::done(r.exit_code, r.output.clone());
    }
    if module {
        let policy_dir = e
            .files
            .first()
            .and_then(|f| std::path::Path::new(&f.path).parent().map(absolute))
            .unwrap_or_default();
        let reader = HostReader {
            host: &e.host,
            policy_dir,
        };
        // the built-in hENC merge answers for a program declared an hENC module (--henc-module) or
        // recognised as a `cfsim henc` wrapper by its content, never for a name
        if let Some((prog, args)) = crate::henc::module_argv(cmd) {
            let declared = e.opts.henc_modules.iter().any(|m| {
                absolute(std::path::Path::new(m)) == absolute(std::path::Path::new(&prog))
            });
            if declared
                || crate::henc::EncReader::read(&reader, &prog)
                    .is_some_and(|t| crate::henc::is_henc_wrapper(&String::from_utf8_lossy(&t)))
            {
                return Ran::done(0, crate::henc::native_henc_output(&args, &reader));
            }
        }
    }
    if !e.opts.exec || e.opts.dry_run {
        return Ran {
            code: 0,
            output: String::new(),
            simulated_unknown: true,
            assumed: false,
            abnormal: false,
        };
    }
    if shell {
        let local = crate::expr::localhost::LocalHost::new();
        return match local.run_command(cmd, ShellMode::UseShell, Capture::Both) {
            Some(o) => Ran::done(o.status, o.output),
            None => Ran::done(-1, String::new()),
        };
    }
    let limit = std::time::Duration::from_secs(timeout.unwrap_or(DEFAULT_EXEC_TIMEOUT_SECS));
    match process::run(cmd, limit) {
        Ok(r) => {
            let (code, abnormal) = match r.exit {
                process::Exit::Success => (0, false),
                process::Exit::Failed(c) => (c, false),
                process::Exit::Signalled | process::Exit::TimedOut => (-1, true),
            };
            Ran {
                code,
                output: r.output,
                simulated_unknown: false,
                assumed: false,
                abnormal,
            }
        }
        Err(err) => {
            e.log(LogLevel::Error, &format!("cfsim: {err}"));
            Ran::done(-1, String::new())
        }
    }
}

/// Where the native hENC module reads its files. ENC data kept in the policy's own directory tree is part
/// of the policy (it is copied to the node with the inputs), so it is read like the policy files; every
/// other path is the host's (the profile's files, or the local machine).
struct HostReader<'a, 'h> {
    host: &'a crate::eval::hostenv::HostAdapter<'h>,
    policy_dir: std::path::PathBuf,
}

impl crate::henc::EncReader for HostReader<'_, '_> {
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        let p = absolute(std::path::Path::new(name));
        if !self.policy_dir.as_os_str().is_empty() && p.starts_with(&self.policy_dir) {
            return crate::host::read::read_regular(&p, crate::henc::MAX_ENC_BYTES).ok();
        }
        self.host.read_file(name)
    }
}

/// `p` made absolute against the working directory and lexically normalised (no file system access).
fn absolute(p: &std::path::Path) -> std::path::PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = std::path::PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Applies the module protocol events of `output`.
/// Applies the module protocol events of `output`; `show` adds the `M '<cmd>': line` info lines of
/// non-protocol lines. Returns true when the output was cut short by `cfengine-die`.
pub fn apply_module(
    e: &mut Engine<'_>,
    def: &BundleDef,
    cmd: &str,
    output: &str,
    show: bool,
) -> bool {
    let mut parser = protocol::ModuleParser::new(cmd);
    let mut events = Vec::new();
    for line in output.lines() {
        if parser.died() {
            break;
        }
        parser.line(line, &mut events);
    }
    let died = parser.died();
    for ev in events {
        match ev {
            Event::DefineClass {
                namespace,
                name,
                tags,
                ..
            } => {
                let ns = namespace.unwrap_or_else(|| def.ns.clone());
                if !e.ctx.is_hard(&name) {
                    e.ctx.define_global(&ns, &name, tags);
                    e.cur.classes_set.push(name);
                }
            }
            Event::UndefineClass { name } => {
                if e.ctx.is_hard(&name) {
                    e.log(LogLevel::Error, &protocol::negate_hard_class_message(&name));
                    e.fatal = true;
                    return died;
                }
                e.ctx.undefine(&def.ns, &name);
                e.cur.classes_cancelled.push(name);
            }
            Event::Scalar {
                context,
                name,
                value,
                tags,
            } => set(e, &context, &name, Value::str(value), tags),
            Event::List {
                context,
                name,
                items,
                tags,
            } => set(e, &context, &name, Value::slist(items), tags),
            Event::Data {
                context,
                name,
                value,
                tags,
            } => set(e, &context, &name, Value::Data(value), tags),
            Event::DataFromFile {
                context,
                name,
                path,
                tags,
            } => {
                let contents = e
                    .host
                    .read_file(&path)
                    .map(|b| String::from_utf8_lossy(&b).into_owned());
                match protocol::load_data_file(&path, contents.as_deref()) {
                    Ok(v) => set(e, &context, &name, Value::Data(v), tags),
                    Err(msg) => e.log(LogLevel::Error, &msg),
                }
            }
            Event::Log { level, message } => {
                let l = match level {
                    protocol::Level::Error => LogLevel::Error,
                    protocol::Level::Info => LogLevel::Info,
                };
                e.log(l, &message);
            }
            Event::Ignored { line } => {
                if show {
                    e.log(LogLevel::Info, &format!("M '{cmd}': {line}"));
                }
            }
        }
    }
    died
}

fn set(e: &mut Engine<'_>, context: &str, name: &str, value: Value, tags: Vec<String>) {
    let key = ("default".to_string(), context.to_string(), name.to_string());
    e.cur
        .vars_set
        .push(format!("{}:{}.{}", key.0, key.1, key.2));
    e.ctx.set_var(key, value, tags);
}

#[cfg(test)]
mod tests {
    use super::q_tag;

    #[test]
    fn output_after_the_die_line() {
        assert!(super::writes_after_die("+a\nstop: cfengine-die\n+after\n"));
        assert!(!super::writes_after_die("+a\n+x_cfengine-die\n"));
    }

    #[test]
    fn q_tag_steps_back_ten_from_the_end_of_argv0() {
        // recorded (spec §8.1 and policies/agent/pass.expected): ".../bin/echo cmd-r"
        assert_eq!(q_tag("/bin/echo cmd-ran"), "/bin/echo cmd-r");
        assert_eq!(q_tag("/srv/demo/mod/errmod arg1"), "mod/errmod arg1");
        assert_eq!(q_tag("/bin/true"), "/bin/true");
    }
}
