//! System functions answered by the run's host: execresult, execresult_as_data, returnszero, getenv,
//! getusers, getuid, getgid, userexists, groupexists, getuserinfo, hostinnetgroup, and the module-protocol functions
//! (read_module_protocol, usemodule).

use serde_json::{json, Value as Json};

use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult, Level, LogLine};
use crate::expr::host::{Capture, CommandOutput, ShellMode};
use crate::value::{parse_int, Value};

pub const FUNCTIONS: &[FnDef] = &[
    def("execresult", false, execresult),
    def("execresult_as_data", false, execresult_as_data),
    def("returnszero", false, returnszero),
    def("getenv", false, getenv),
    def("getusers", false, getusers),
    def("getuid", false, getuid),
    def("getgid", false, getgid),
    def("userexists", false, userexists),
    def("groupexists", false, groupexists),
    def("getuserinfo", false, getuserinfo),
    def("hostinnetgroup", false, hostinnetgroup),
    def("read_module_protocol", false, read_module_protocol),
    def("usemodule", false, usemodule),
];

/// Reads a file of module-protocol lines (`crate::module::protocol`) and applies them as the agent
/// does: variables go to the context named after the file's canonified basename (or `^context`),
/// classes are defined; true when the file could be read.
fn read_module_protocol(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let path = a[0].text();
    let Some(bytes) = ctx.host.read_file(path) else {
        return Ok(Value::context(false));
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    apply_module_output(ctx, path, None, &text);
    Ok(Value::context(true))
}

/// `usemodule(module, args)`: runs `$(sys.workdir)/modules/<module> <args>` and applies its output through
/// the module protocol (classes global, variables in the module's context), as the agent does; a module
/// that does not exist fails with the agent's error. The command is answered by the host: a simulated
/// host from its profile (`commands` result for `<workdir>/modules/<module> <args>`, the module file must
/// be in its files), the local host only when the user allows execution (`--exec`): cfsim never runs a
/// program on its own.
fn usemodule(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let module = a[0].text();
    let args = a.get(1).map_or("", FnArg::text);
    let workdir = crate::expr::expand::lookup_name(&*ctx.env, "sys.workdir")
        .and_then(|v| v.as_scalar().map(str::to_string))
        .unwrap_or_else(|| "/var/lib/cfengine3".to_string());
    let path = format!("{workdir}/modules/{module}");
    if ctx.host.stat(&path, true).is_none() {
        return Err(ctx.fail(format!("Plug-in module '\"{path}\"' not found")));
    }
    let shown = format!("\"{path}\" {args}");
    let cmd = format!("{path} {args}").trim_end().to_string();
    ctx.verbose(format!("Executing and using module [{shown}]"));
    let Some(out) = ctx
        .host
        .run_command(&cmd, ShellMode::NoShell, Capture::Stdout)
    else {
        return Err(ctx.fail(format!("usemodule could not run '{cmd}'")));
    };
    apply_module_output(ctx, &path, Some(&shown), &out.output);
    Ok(Value::context(true))
}

/// Applies module-protocol output: classes defined, variables stored (the context is the canonified
/// basename of `command` until `^context`), protocol errors logged; other lines are shown as
/// `M '<shown>': line` at info level when `shown` is given.
fn apply_module_output(ctx: &mut CallCtx<'_>, command: &str, shown: Option<&str>, text: &str) {
    use crate::module::protocol::{self, Event};
    let ns = ctx.env.current_ns().to_string();
    for ev in protocol::parse_output(command, text) {
        match ev {
            Event::DefineClass {
                namespace,
                name,
                tags,
                ..
            } => ctx.env.define_class(namespace.as_deref(), &name, &tags),
            Event::UndefineClass { name } => ctx.env.undefine_class(&name),
            Event::Scalar {
                context,
                name,
                value,
                ..
            } => ctx.env.define_var(&ns, &context, &name, Value::str(value)),
            Event::List {
                context,
                name,
                items,
                ..
            } => ctx
                .env
                .define_var(&ns, &context, &name, Value::slist(items)),
            Event::Data {
                context,
                name,
                value,
                ..
            } => ctx.env.define_var(&ns, &context, &name, Value::Data(value)),
            Event::DataFromFile {
                context,
                name,
                path,
                ..
            } => {
                let contents = ctx
                    .host
                    .read_file(&path)
                    .map(|b| String::from_utf8_lossy(&b).into_owned());
                match protocol::load_data_file(&path, contents.as_deref()) {
                    Ok(v) => ctx.env.define_var(&ns, &context, &name, Value::Data(v)),
                    Err(e) => ctx.error(e),
                }
            }
            Event::Log { level, message } => match level {
                protocol::Level::Error => ctx.error(message),
                // read_module_protocol keeps these at verbose level, as before
                protocol::Level::Info if shown.is_some() => ctx.info(message),
                protocol::Level::Info => ctx.verbose(message),
            },
            Event::Ignored { line } => {
                if let Some(shown) = shown {
                    ctx.info(format!("M '{shown}': {line}"));
                }
            }
        }
    }
}

/// Splits a command line into argv the way the agent does for `noshell` (one implementation, shared with
/// the `commands` promise runner).
pub use crate::module::process::split_command;

fn shell_mode(s: &str) -> ShellMode {
    match s {
        "useshell" => ShellMode::UseShell,
        "powershell" => ShellMode::Powershell,
        _ => ShellMode::NoShell,
    }
}

/// Runs a command as `execresult`/`returnszero` do, with their checks and messages.
fn run(
    ctx: &mut CallCtx<'_>,
    fname: &str,
    a: &[FnArg],
    capture: Capture,
) -> Result<CommandOutput, FnFail> {
    check_command(ctx, fname, a)?;
    let cmd = a.first().map_or("", FnArg::text);
    let mode = shell_mode(a.get(1).map_or("noshell", FnArg::text));
    match ctx.host.run_command(cmd, mode, capture) {
        Some(o) => Ok(o),
        None => Err(ctx.fail(format!(
            "{fname} could not run '{cmd}' (not simulated: the host has no result for it; --exec runs it, --assume-commands=succeed|fail assumes one)"
        ))),
    }
}

/// The checks before running a `noshell` command: an absolute path to an executable file.
fn check_command(ctx: &mut CallCtx<'_>, fname: &str, a: &[FnArg]) -> Result<(), FnFail> {
    let cmd = a.first().map_or("", FnArg::text);
    let mode = shell_mode(a.get(1).map_or("noshell", FnArg::text));
    if mode == ShellMode::NoShell {
        let argv = split_command(cmd);
        let prog = argv.first().map_or("", String::as_str);
        if !prog.starts_with('/') {
            return Err(ctx.fail(format!("{fname} '{cmd}' does not have an absolute path")));
        }
        let executable = ctx
            .host
            .stat(prog, true)
            .is_some_and(|s| s.is_file && s.mode & 0o111 != 0);
        if !executable {
            if ctx.host.stat(prog, true).is_none() {
                ctx.error(format!("Proposed executable file '{prog}' doesn't exist"));
            }
            // the whole command, arguments included (recorded: policies/services/*/policy.cf under
            // cf-promises -c, when the scratch tree is absent)
            return Err(ctx.fail(format!(
                "{fname} '{cmd}' is assumed to be executable but isn't"
            )));
        }
    }
    Ok(())
}

fn capture_of(a: &[FnArg]) -> Capture {
    match a.get(2).map(FnArg::text) {
        Some("stdout") => Capture::Stdout,
        Some("stderr") => Capture::Stderr,
        _ => Capture::Both,
    }
}

fn execresult(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let out = run(ctx, "execresult", a, capture_of(a))?;
    Ok(Value::str(out.output.trim_end()))
}

fn execresult_as_data(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let out = run(ctx, "execresult_as_data", a, capture_of(a))?;
    Ok(Value::Data(json!({
        "exit_code": out.status,
        "output": out.output.trim_end(),
    })))
}

fn returnszero(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    // a command that fails the checks simply does not return zero (recorded: logged once, the false
    // answer is cached like any other)
    if check_command(ctx, "returnszero", a).is_err() {
        return Ok(Value::context(false));
    }
    let out = run(ctx, "returnszero", a, Capture::Both)?;
    // the command's output reaches the agent's terminal: with a shell always, without one under
    // -I/-v only (recorded: services/chkconfig-unregistered, I.out)
    if !out.output.is_empty() {
        let level = if shell_mode(a.get(1).map_or("noshell", FnArg::text)) == ShellMode::NoShell {
            Level::OutputInform
        } else {
            Level::Output
        };
        ctx.log.push(LogLine {
            level,
            message: out.output.clone(),
        });
    }
    Ok(Value::context(out.status == 0))
}

fn getenv(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let v = ctx.host.getenv(a[0].text()).unwrap_or_default();
    let max = parse_int(a[1].text()).unwrap_or(0).max(0) as usize;
    let cut: String = v.bytes().take(max).map(char::from).collect();
    Ok(Value::str(if v.is_ascii() {
        cut
    } else {
        String::from_utf8_lossy(&v.as_bytes()[..max.min(v.len())]).into_owned()
    }))
}

fn getusers(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let names: Vec<&str> = a[0].text().split(',').filter(|s| !s.is_empty()).collect();
    let ids: Vec<&str> = a[1].text().split(',').filter(|s| !s.is_empty()).collect();
    let users = ctx
        .host
        .users()
        .into_iter()
        .filter(|u| !names.contains(&u.name.as_str()) && !ids.contains(&u.uid.to_string().as_str()))
        .map(|u| u.name)
        .collect();
    Ok(Value::slist(users))
}

fn getuid(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let name = a[0].text();
    match ctx.host.users().into_iter().find(|u| u.name == name) {
        Some(u) => Ok(Value::int(i64::from(u.uid))),
        None => Err(ctx.fail(format!(
            "Could not get UID for user '{name}', (getpwnam: not found)"
        ))),
    }
}

fn getgid(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let name = a[0].text();
    match ctx.host.groups().into_iter().find(|g| g.name == name) {
        Some(g) => Ok(Value::int(i64::from(g.gid))),
        None => Err(ctx.fail(format!(
            "Could not get GID for group '{name}', (getgrnam: not found)"
        ))),
    }
}

fn userexists(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let n = a[0].text();
    let found = ctx
        .host
        .users()
        .iter()
        .any(|u| u.name == n || u.uid.to_string() == n);
    Ok(Value::context(found))
}

fn groupexists(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let n = a[0].text();
    let found = ctx
        .host
        .groups()
        .iter()
        .any(|g| g.name == n || g.gid.to_string() == n);
    Ok(Value::context(found))
}

fn getuserinfo(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let users = ctx.host.users();
    let who = a.first().map(FnArg::text);
    let u = match who {
        Some(n) => users.iter().find(|u| u.name == n || u.uid.to_string() == n),
        None => users.iter().find(|u| u.uid == 0),
    };
    let Some(u) = u else {
        return Err(FnFail);
    };
    let mut m = serde_json::Map::new();
    m.insert("description".into(), Json::String(u.gecos.clone()));
    m.insert("gid".into(), json!(u.gid));
    m.insert("home_dir".into(), Json::String(u.home.clone()));
    m.insert("shell".into(), Json::String(u.shell.clone()));
    m.insert("uid".into(), json!(u.uid));
    m.insert("username".into(), Json::String(u.name.clone()));
    Ok(Value::Data(Json::Object(m)))
}

fn hostinnetgroup(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(ctx.host.in_netgroup(a[0].text())))
}
