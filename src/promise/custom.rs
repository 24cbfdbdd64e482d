//! Custom promise types backed by a promise module (`promise agent NAME { interpreter => …; path => …; }`),
//! evaluated as cf-agent 3.21 does (recorded in policies/eval/custom): the module is started once per
//! path for the whole run and terminated at its end; each promise is checked for unresolved
//! references, then validated and evaluated by the module; its answer decides the outcome (kept,
//! repaired, not kept, error) that feeds the `classes` body, `result_classes` define bundle classes.
//! Under `-n` or `action_policy => "warn"` only a module announcing `action_policy` is asked (warn mode,
//! with the agent's checks of its answer). The module is run only with `--exec` (it may change the
//! machine); without it each promise is reported as not simulated and skipped.

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::module::promise_module::{Answer, ModLevel, Msg, PromiseModule};
use crate::syntax::ast::{Constraint, Promise, Rval};
use crate::value::Value;

/// Constraints never sent to the module nor checked for unresolved references (recorded:
/// custom/custom_module_attributes).
const NOT_SENT: &[&str] = &["classes", "unless", "log_level", "meta", "with"];

/// Constraints the agent evaluates itself: not sent, but a list or unresolved reference in them makes a
/// line-based promise unresolved, as in the agent.
const CHECKED_ONLY: &[&str] = &["if", "ifvarclass", "depends_on"];

/// The running promise modules of a run, by module path, in start order.
#[derive(Default)]
pub struct Modules {
    pub running: IndexMap<String, PromiseModule>,
}

/// The attributes of the `promise agent` block of type `t`.
fn block(e: &Engine<'_>, t: &str) -> Option<Vec<Constraint>> {
    e.promise_types
        .iter()
        .find(|x| x.0 == t)
        .map(|(_, a, _)| a.clone())
}

/// An attribute of a `promise agent` block, expanded in the context of the promise being evaluated:
/// `$(this.promise_dirname)` is the directory of the promise's file, not of the block's (recorded:
/// custom/custom_block_in_input).
pub fn block_attr(e: &mut Engine<'_>, attrs: &[Constraint], lval: &str) -> Option<String> {
    let rv = attrs.iter().find(|c| c.lval == lval).map(|c| &c.rval)?;
    e.scalar_of(rv)
}

fn has_unresolved(s: &str) -> bool {
    s.contains("$(") || s.contains("${") || s.contains("@(") || s.contains("@{")
}

/// The value of a bare `@(name)` reference to a data container or a list (a list as an array of strings,
/// flagged `true`: a line-based module cannot take it).
fn container_ref(e: &Engine<'_>, s: &str) -> Option<(Json, bool)> {
    let name = s
        .strip_prefix("@(")
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| s.strip_prefix("@{").and_then(|r| r.strip_suffix('}')))?;
    match crate::expr::expand::lookup_name(&e.ctx, name) {
        Some(Value::Data(d)) => Some((d, false)),
        Some(Value::List(_, items)) => Some((
            Json::Array(items.into_iter().map(Json::String).collect()),
            true,
        )),
        _ => None,
    }
}

/// The attributes sent to the module, and whether everything is resolved (scalars only for a line-based
/// module, as the agent requires). An `action` body is sent as its attributes, in its place.
fn attributes(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    json: bool,
) -> (serde_json::Map<String, Json>, bool) {
    // constraint values are borrowed, not copied: the call memo of the binding knows a call by its place
    // in the policy (a call evaluated by the expansion is not evaluated again here)
    let mut items: Vec<(String, std::borrow::Cow<'_, Rval>, bool)> = Vec::new();
    let body_lvals = crate::eval::bodies::CLASSES_BODY_LVALS;
    for c in &p.constraints {
        let l = c.lval.as_str();
        if NOT_SENT.contains(&l) || body_lvals.contains(&l) {
            continue;
        }
        if l == "action" {
            for (bl, brv) in e.body_attrs(def, p, "action", "action") {
                items.push((bl, std::borrow::Cow::Owned(brv), true));
            }
            continue;
        }
        items.push((
            c.lval.clone(),
            std::borrow::Cow::Borrowed(&c.rval),
            !CHECKED_ONLY.contains(&l),
        ));
    }
    let mut out = serde_json::Map::new();
    let mut resolved = true;
    for (lval, rval, send) in &items {
        let (lval, rval, send): (String, &Rval, bool) = (lval.clone(), rval, *send);
        if let Rval::Scalar(s) = rval {
            let text = e.expand(&s.value).text;
            if let Some((d, is_list)) = container_ref(e, &text) {
                resolved &= json || !is_list;
                if send {
                    out.insert(lval, d);
                }
                continue;
            }
        }
        match e.eval_rval(rval) {
            crate::eval::rval::RvalResult::Value { value, unresolved } => {
                let v = match value {
                    Value::Scalar(_, s) => {
                        resolved &= !unresolved && !has_unresolved(&s);
                        Json::String(s)
                    }
                    Value::List(_, items) => {
                        resolved &= json && !unresolved && !items.iter().any(|i| has_unresolved(i));
                        Json::Array(items.into_iter().map(Json::String).collect())
                    }
                    Value::Data(d) => {
                        resolved &= json;
                        d
                    }
                };
                if send {
                    out.insert(lval, v);
                }
            }
            _ => resolved = false,
        }
    }
    (out, resolved)
}

/// The level the agent asks the module to log at: the run's level, lowered by the promise's `log_level`.
fn request_level(e: &mut Engine<'_>, promise_level: Option<ModLevel>) -> &'static str {
    let global = match e.out.level {
        LogLevel::Error => ModLevel::Error,
        LogLevel::Warning => ModLevel::Warning,
        LogLevel::Notice => ModLevel::Notice,
        LogLevel::Info => ModLevel::Info,
        LogLevel::Verbose => ModLevel::Verbose,
        LogLevel::Debug => ModLevel::Debug,
    };
    let l = promise_level.map_or(global, |p| p.min(global));
    match l {
        ModLevel::Critical | ModLevel::Error => "error",
        ModLevel::Warning => "warning",
        ModLevel::Notice => "notice",
        ModLevel::Info => "info",
        ModLevel::Verbose => "verbose",
        ModLevel::Debug => "debug",
    }
}

/// A promise's `log_level` as the agent reads it.
fn promise_level(e: &mut Engine<'_>, p: &Promise) -> Option<ModLevel> {
    let rv = Engine::constraint(p, "log_level")?;
    match e.scalar_of(rv)?.as_str() {
        "error" | "log" => Some(ModLevel::Error),
        "warning" => Some(ModLevel::Warning),
        "notice" => Some(ModLevel::Notice),
        "inform" | "info" => Some(ModLevel::Info),
        "verbose" => Some(ModLevel::Verbose),
        "debug" => Some(ModLevel::Debug),
        _ => None,
    }
}

/// Prints a module message or the agent's error about an answer.
fn print_msgs(e: &mut Engine<'_>, msgs: &[Msg]) {
    for m in msgs {
        match m {
            Msg::Error(s) => e.log(LogLevel::Error, s),
            Msg::Log(l, s) => {
                let level = match l {
                    ModLevel::Critical => {
                        critical(e, s);
                        continue;
                    }
                    ModLevel::Error => LogLevel::Error,
                    ModLevel::Warning => LogLevel::Warning,
                    ModLevel::Notice => LogLevel::Notice,
                    ModLevel::Info => LogLevel::Info,
                    ModLevel::Verbose => LogLevel::Verbose,
                    ModLevel::Debug => LogLevel::Debug,
                };
                e.log(level, s);
            }
        }
    }
}

/// A `CRITICAL:` line (shown at every level that shows errors).
fn critical(e: &mut Engine<'_>, msg: &str) {
    if e.out.shows(LogLevel::Error) {
        e.out.raw(format!("CRITICAL: {msg}"));
    }
}

/// The promise fails with the outcome recorded (classes, accounting), as the agent's `cfPS`.
fn fail_recorded(e: &mut Engine<'_>, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
    e.record_outcome(def, p, Outcome::Failed);
    e.verbose_promise_end(t, promiser, Outcome::Failed);
    e.end_event(None, Some(Outcome::Failed));
}

/// Evaluates one custom promise binding (its guard has passed).
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
    let Some(attrs) = block(e, t) else {
        return;
    };
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let interpreter = block_attr(e, &attrs, "interpreter");
    let Some(path) = block_attr(e, &attrs, "path") else {
        e.log(
            LogLevel::Error,
            &format!("Custom promise type '{t}' missing path"),
        );
        fail_recorded(e, def, t, p, promiser);
        return;
    };
    if !e.opts.exec {
        not_simulated(e, def, t, p, promiser, &path);
        return;
    }
    if !start(e, def, t, p, promiser, interpreter.as_deref(), &path) {
        return;
    }
    let (json, supports_warn) = e
        .modules
        .running
        .get(&path)
        .map_or((false, false), |m| (m.json, m.action_policy));
    let (mut attributes, attrs_resolved) = attributes(e, def, p, json);
    let resolved = attrs_resolved && !has_unresolved(promiser);
    if !resolved && e.pass == 3 {
        e.log(
            LogLevel::Error,
            &format!("{t} promise with promiser '{promiser}' has unresolved/unexpanded variables"),
        );
    }
    let digest = e.digest(def, t, p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    let level = promise_level(e, p);
    let line = e.line_of(p);
    let filename = e.file_path(def.file);
    if !resolved {
        skipped_invalid(e, def, t, p, promiser);
        return;
    }
    // `-n` or `action_policy => "warn"`: only a module that announced `action_policy` is asked, in warn mode
    let warn = e.warn_only(def, p);
    if warn && !supports_warn {
        e.log(
            LogLevel::Error,
            &format!("Not making changes to the system, but the custom promise module '{path}' doesn't support action_policy"),
        );
        fail_recorded(e, def, t, p, promiser);
        return;
    }
    if warn {
        attributes.insert("action_policy".into(), Json::String("warn".into()));
    }
    let mut req = IndexMap::new();
    req.insert(
        "operation".to_string(),
        Json::String("validate_promise".into()),
    );
    req.insert(
        "log_level".to_string(),
        Json::String(request_level(e, level).into()),
    );
    req.insert("promise_type".to_string(), Json::String(t.into()));
    req.insert("promiser".to_string(), Json::String(promiser.into()));
    req.insert("line_number".to_string(), Json::from(line));
    req.insert("filename".to_string(), Json::String(filename.clone()));
    if !attributes.is_empty() {
        req.insert("attributes".to_string(), Json::Object(attributes));
    }
    let answer = exchange(e, &path, &req, level);
    let valid = answer.get("result") == Some("valid");
    // an unusable answer (already reported) fails validation without further messages
    if !valid && answer.fields.is_some() {
        e.log(
            LogLevel::Verbose,
            &format!(
                "{t} promise with promiser '{promiser}' failed validation ({filename}:{line})"
            ),
        );
        if !answer.logged_error {
            critical(
                e,
                &format!(
                    "Bug in promise module - No error(s) logged for invalid {t} promise with promiser '{promiser}' ({filename}:{line})"
                ),
            );
        }
    }
    if !valid {
        skipped_invalid(e, def, t, p, promiser);
        return;
    }
    req.insert(
        "operation".to_string(),
        Json::String("evaluate_promise".into()),
    );
    let answer = exchange(e, &path, &req, level);
    let disabled = format!("({filename}:{line}) while making changes on the system disabled");
    if warn && answer.logged_info {
        critical(
            e,
            &format!("Bug in promise module - 'info:' log messages reported for {t} promise with promiser '{promiser}' {disabled}"),
        );
    }
    if answer.fields.is_none() {
        // the agent returns a failure without recording it (no classes, not counted)
        e.verbose_promise_end(t, promiser, Outcome::Failed);
        e.end_event(None, Some(Outcome::Failed));
        return;
    }
    if let Some(Some(Json::Array(classes))) =
        answer.fields.as_ref().map(|f| f.get("result_classes"))
    {
        for c in classes.iter().filter_map(Json::as_str) {
            let c = crate::expr::canonify(c);
            e.ctx.define_local(&c, vec!["source=promise-module".into()]);
            e.cur.classes_set.push(c);
        }
    }
    let result = answer.get("result").map(str::to_string);
    let outcome = match result.as_deref() {
        Some("kept") => Outcome::Kept,
        Some("repaired") => Outcome::Repaired,
        Some("not_kept") => Outcome::Failed,
        None => {
            e.log(
                LogLevel::Error,
                &format!(
                    "Promise module did not return a result for promise evaluation ({t} promise, promiser: '{promiser}' module: '{path}')"
                ),
            );
            Outcome::Failed
        }
        Some("error") => {
            e.log(
                LogLevel::Error,
                &format!(
                    "An unexpected error occured in promise module ({t} promise, promiser: '{promiser}' module: '{path}')"
                ),
            );
            Outcome::Failed
        }
        Some(other) => {
            e.log(
                LogLevel::Error,
                &format!(
                    "Promise module returned unacceptable result: '{other}' ({t} promise, promiser: '{promiser}' module: '{path}')"
                ),
            );
            Outcome::Failed
        }
    };
    e.record_outcome(def, p, outcome);
    match result.as_deref() {
        Some("not_kept") if warn && !answer.logged_warning => critical(
            e,
            &format!("Bug in promise module - Failed to log warnings for not kept {t} promise with promiser '{promiser}' {disabled}"),
        ),
        Some("not_kept") if !warn && !answer.logged_error => critical(
            e,
            &format!(
                "Bug in promise module - Failed to log errors for not kept {t} promise with promiser '{promiser}' ({filename}:{line})"
            ),
        ),
        Some("repaired") => {
            if warn {
                critical(
                    e,
                    &format!("Bug in promise module - {t} promise with promiser '{promiser}' ({filename}:{line}) repaired while making changes on the system disabled"),
                );
            }
            if !answer.logged_info {
                critical(
                    e,
                    &format!("Bug in promise module - Failed to log about changes made by a repaired {t} promise with promiser '{promiser}' ({filename}:{line})"),
                );
            }
        }
        _ => {}
    }
    e.verbose_promise_end(t, promiser, outcome);
    e.end_event(None, Some(outcome));
}

fn skipped_invalid(e: &mut Engine<'_>, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
    e.log(
        LogLevel::Verbose,
        &format!(
            "{t} promise with promiser '{promiser}' will be skipped because it failed validation"
        ),
    );
    fail_recorded(e, def, t, p, promiser);
}

/// Starts the module of `path` unless it runs already; false (reported, promise failed) when it cannot.
fn start(
    e: &mut Engine<'_>,
    def: &BundleDef,
    t: &str,
    p: &Promise,
    promiser: &str,
    interpreter: Option<&str>,
    path: &str,
) -> bool {
    if let Some(m) = e.modules.running.get(path) {
        if let Some(why) = &m.dead {
            let msg = why.clone();
            e.log(LogLevel::Error, &msg);
            fail_recorded(e, def, t, p, promiser);
            return false;
        }
        if m.interpreter.as_deref() != interpreter {
            let msg = format!(
                "Conflicting interpreter specifications for custom promise module '{path}' (started with '{}' and '{}' requested for promise '{promiser}' of type '{t}')",
                m.interpreter.as_deref().unwrap_or("(null)"),
                interpreter.unwrap_or("(null)")
            );
            e.log(LogLevel::Error, &msg);
            fail_recorded(e, def, t, p, promiser);
            return false;
        }
        return true;
    }
    let cmd = match interpreter {
        Some(i) => format!("{i} {path}"),
        None => path.to_string(),
    };
    e.log(
        LogLevel::Verbose,
        &format!("Starting custom promise module '{path}' with command '{cmd}'"),
    );
    let timeout = std::time::Duration::from_secs(e.opts.limits.module_timeout_secs);
    match PromiseModule::start(interpreter, path, timeout) {
        Ok(mut m) => {
            print_stderr(e, &m.drain_stderr());
            e.modules.running.insert(path.to_string(), m);
            true
        }
        Err(err) => {
            print_stderr(e, &err.stderr);
            e.log(LogLevel::Error, &err.message);
            e.limit_hit |= err.limit;
            fail_recorded(e, def, t, p, promiser);
            false
        }
    }
}

/// Sends `req` to the module of `path` and prints what its answer logged.
fn exchange(
    e: &mut Engine<'_>,
    path: &str,
    req: &IndexMap<String, Json>,
    level: Option<ModLevel>,
) -> Answer {
    let Some(m) = e.modules.running.get_mut(path) else {
        return Answer::default();
    };
    m.send(req);
    let a = m.receive(level);
    let stderr = m.drain_stderr();
    // killed for a limit (no answer in time, an endless answer): the run is incomplete
    e.limit_hit |= a.timed_out;
    print_stderr(e, &stderr);
    print_msgs(e, &a.msgs);
    a
}

/// What a module wrote to stderr: the agent lets it through to its output as it is, at every level.
fn print_stderr(e: &mut Engine<'_>, lines: &[String]) {
    for l in lines {
        e.out.raw(l.clone());
    }
}

/// Without `--exec`: the module file must exist (the agent's error otherwise, every pass), then the
/// promise is reported once as not simulated.
fn not_simulated(
    e: &mut Engine<'_>,
    def: &BundleDef,
    t: &str,
    p: &Promise,
    promiser: &str,
    path: &str,
) {
    use crate::expr::host::HostEnv;
    if e.host.stat(path, true).is_none() {
        e.log(
            LogLevel::Error,
            &format!("Promise module '{path}' does not exist"),
        );
        fail_recorded(e, def, t, p, promiser);
        return;
    }
    let digest = e.digest(def, t, p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    let why = if e.opts.dry_run {
        "which cfsim does not run under -n"
    } else {
        "which cfsim runs only with --exec"
    };
    e.log(
        LogLevel::Warning,
        &format!(
            "cfsim: {t} promise '{promiser}' in bundle '{}' needs its promise module '{path}', {why}; skipped",
            def.name
        ),
    );
    e.end_event(Some("not_simulated"), None);
}

/// Terminates every running module (end of the run), printing what their answers logged.
pub fn terminate_all(e: &mut Engine<'_>) {
    let running = std::mem::take(&mut e.modules.running);
    for (_, m) in running {
        let (a, stderr) = m.terminate();
        print_stderr(e, &stderr);
        print_msgs(e, &a.msgs);
    }
}
