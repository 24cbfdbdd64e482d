//! The client side of the custom promise module protocol as cf-agent 3.21 speaks it (`--exec` only): start
//! `INTERPRETER PATH` without a shell, the header exchange (`cf-agent 3.21.0 v1`, the module's
//! `NAME VERSION v1 [line_based|json_based]`), requests in the line-based or JSON-based form, and responses
//! read up to the empty line (`log_<level>=` lines, `key=value` lines or one JSON line, `result_classes`).
//! Every read waits at most an explicit timeout; a module that does not answer in time is killed.
//! The agent's semantics of the answers (outcomes, classes, messages) are in `crate::promise::custom`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::Value as Json;

/// The header line cf-agent 3.21.0 sends (followed by an empty line).
pub const AGENT_HEADER: &str = "cf-agent 3.21.0 v1";

/// Default seconds cfsim waits for one line of a promise module's answer before killing it (the agent
/// itself waits forever).
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

/// Longest line cfsim reads from a module; a longer one is read as several lines.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// Most lines of one answer; a module that sends more is killed.
pub const MAX_ANSWER_LINES: usize = 100_000;

/// How long cfsim waits for a further stderr line of a module that writes to stderr (see
/// [`PromiseModule::drain_stderr`]).
pub const STDERR_GRACE: Duration = Duration::from_millis(50);

/// How long it waits for a stderr line of a module that never wrote one.
pub const STDERR_POLL: Duration = Duration::from_millis(2);

/// Log levels a module can log at (`log_<level>=`), most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ModLevel {
    Critical,
    Error,
    Warning,
    Notice,
    Info,
    Verbose,
    Debug,
}

impl ModLevel {
    /// The agent's reading of a level name: any non-empty prefix of a level's name
    /// (`err`, `inform`, `informational`, …); `emergency` and `alert` count as critical.
    pub fn parse(s: &str) -> Option<ModLevel> {
        let s = s.to_ascii_lowercase();
        if s.is_empty() {
            return None;
        }
        const NAMES: &[(&str, ModLevel)] = &[
            ("emergency", ModLevel::Critical),
            ("alert", ModLevel::Critical),
            ("critical", ModLevel::Critical),
            ("error", ModLevel::Error),
            ("warning", ModLevel::Warning),
            ("notice", ModLevel::Notice),
            ("informational", ModLevel::Info),
            ("verbose", ModLevel::Verbose),
            ("debug", ModLevel::Debug),
        ];
        NAMES
            .iter()
            .find(|(n, _)| n.starts_with(s.as_str()))
            .map(|(_, l)| *l)
    }
}

/// What reading one answer produced, in the order the agent prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    /// A `log_<level>=` line or an entry of a JSON answer's `log` array.
    Log(ModLevel, String),
    /// An error the agent itself reports about the answer.
    Error(String),
}

/// One answer: the messages, the fields (line-based: strings, `result_classes` an array) and whether the
/// module logged an error or critical message. `fields` is `None` when the answer was unusable.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub msgs: Vec<Msg>,
    pub fields: Option<IndexMap<String, Json>>,
    pub logged_error: bool,
    /// It logged a warning, error or critical message.
    pub logged_warning: bool,
    /// It logged an info message.
    pub logged_info: bool,
    /// The module did not answer within the timeout and was killed.
    pub timed_out: bool,
}

impl Answer {
    /// A string field.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.as_ref()?.get(key)?.as_str()
    }
}

/// Why a module could not be started: the agent's message and what the module wrote to stderr first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartError {
    pub message: String,
    pub stderr: Vec<String>,
    /// The module was killed for a limit (it did not answer in time).
    pub limit: bool,
}

impl From<String> for StartError {
    fn from(message: String) -> StartError {
        StartError {
            message,
            stderr: Vec::new(),
            limit: false,
        }
    }
}

/// One line read from the module: text without the newline, and whether the newline was there.
enum Line {
    Text(String, bool),
    Eof,
}

/// A running promise module.
pub struct PromiseModule {
    pub path: String,
    pub interpreter: Option<String>,
    pub json: bool,
    /// The header announced `action_policy`: the module can evaluate promises without making changes.
    pub action_policy: bool,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Line>,
    /// Lines the module wrote to stderr (the agent lets them through to its own output).
    err_lines: mpsc::Receiver<String>,
    stderr_seen: bool,
    drained_once: bool,
    /// Its stdout reached end of file (it exited or closed it).
    stdout_closed: bool,
    timeout: Duration,
    /// Why cfsim killed it (timeout, endless answer): every later request fails at once with this.
    pub dead: Option<String>,
}

/// `interpreter path` as the agent prints it in header errors (`(null)` without an interpreter).
fn shown_command(interpreter: Option<&str>, path: &str) -> String {
    format!("{} {path}", interpreter.unwrap_or("(null)"))
}

fn executable(path: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

impl PromiseModule {
    /// Starts the module and exchanges headers. `Err` holds the agent's error message.
    pub fn start(
        interpreter: Option<&str>,
        path: &str,
        timeout: Duration,
    ) -> Result<PromiseModule, StartError> {
        if let Some(i) = interpreter {
            if !executable(i) {
                return Err(
                    format!("Promise module interpreter '{i}' is not an executable file").into(),
                );
            }
        } else if !executable(path) {
            return Err(format!("Promise module path '{path}' is not an executable file").into());
        }
        if !std::path::Path::new(path).exists() {
            return Err(format!("Promise module '{path}' does not exist").into());
        }
        let mut cmd = match interpreter {
            Some(i) => {
                let mut c = Command::new(i);
                c.arg(path);
                c
            }
            // a path without a slash names a file here, never one found through PATH
            None if !path.contains('/') => Command::new(format!("./{path}")),
            None => Command::new(path),
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cfsim: could not start promise module '{path}': {e}"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| format!("cfsim: no output pipe for promise module '{path}'"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match (&mut r).take(MAX_LINE_BYTES).read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Line::Eof);
                        return;
                    }
                    Ok(_) => {
                        let nl = buf.last() == Some(&b'\n');
                        if nl {
                            buf.pop();
                        }
                        let text = String::from_utf8_lossy(&buf).into_owned();
                        if tx.send(Line::Text(text, nl)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let (etx, erx) = mpsc::channel();
        if let Some(stderr) = child.stderr.take() {
            std::thread::spawn(move || {
                let mut r = BufReader::new(stderr);
                loop {
                    let mut buf = Vec::new();
                    match (&mut r).take(MAX_LINE_BYTES).read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            if buf.last() == Some(&b'\n') {
                                buf.pop();
                            }
                            if etx
                                .send(String::from_utf8_lossy(&buf).into_owned())
                                .is_err()
                            {
                                return;
                            }
                        }
                    }
                }
            });
        }
        let stdin = child.stdin.take();
        let mut m = PromiseModule {
            path: path.to_string(),
            interpreter: interpreter.map(str::to_string),
            json: false,
            action_policy: false,
            child,
            stdin,
            lines: rx,
            err_lines: erx,
            stderr_seen: false,
            drained_once: false,
            stdout_closed: false,
            timeout,
            dead: None,
        };
        m.write(&format!("{AGENT_HEADER}\n\n"));
        let shown = shown_command(interpreter, path);
        let header = match m.read_line() {
            Some(Line::Text(t, true)) => t,
            Some(Line::Text(t, false)) => {
                return Err(m.fail_start(format!(
                    "Promise module '{shown}' sent an invalid header with no newline: '{t}'"
                )));
            }
            Some(Line::Eof) => {
                return Err(m.fail_start(format!(
                    "Did not receive header from promise module '{path}'"
                )));
            }
            None => {
                let mut err = m.fail_start(m.timeout_message());
                err.limit = true;
                return Err(err);
            }
        };
        match m.read_line() {
            Some(Line::Text(t, true)) if t.is_empty() => {}
            Some(Line::Text(t, nl)) => {
                let raw = if nl { format!("{t}\n") } else { t };
                return Err(m.fail_start(format!(
                    "Promise module '{shown}' failed to send empty line after header: '{raw}'"
                )));
            }
            Some(Line::Eof) => {
                return Err(m.fail_start(format!(
                    "Promise module '{shown}' failed to send empty line after header: ''"
                )));
            }
            None => {
                let mut err = m.fail_start(m.timeout_message());
                err.limit = true;
                return Err(err);
            }
        }
        for flag in header.split(' ').skip(3) {
            match flag {
                "json_based" => m.json = true,
                "line_based" => m.json = false,
                "action_policy" => m.action_policy = true,
                _ => {}
            }
        }
        Ok(m)
    }

    /// A failed start: what the module wrote to stderr, then the module is killed.
    fn fail_start(&mut self, message: String) -> StartError {
        let stderr = self.drain_stderr();
        self.kill(message.clone());
        StartError {
            message,
            stderr,
            limit: false,
        }
    }

    /// The stderr lines the module wrote so far. Its stderr is read by a thread of its own, so a line
    /// written just before an answer may arrive just after it: cfsim waits [`STDERR_GRACE`] for further
    /// lines on the first drain, after the module ended its output, and once it has written to stderr;
    /// a silent module costs [`STDERR_POLL`] per answer.
    pub fn drain_stderr(&mut self) -> Vec<String> {
        let wait = if !self.drained_once || self.stderr_seen || self.stdout_closed {
            STDERR_GRACE
        } else {
            STDERR_POLL
        };
        self.drained_once = true;
        let mut out = Vec::new();
        while let Ok(l) = self.err_lines.recv_timeout(wait) {
            out.push(l);
        }
        self.stderr_seen |= !out.is_empty();
        out
    }

    /// cfsim's message when the module did not answer in time.
    pub fn timeout_message(&self) -> String {
        format!(
            "cfsim: promise module '{}' did not answer within {} s; killed",
            self.path,
            self.timeout.as_secs()
        )
    }

    fn write(&mut self, text: &str) {
        if let Some(s) = self.stdin.as_mut() {
            // a module that exited is noticed when its answer is read
            let _ = s.write_all(text.as_bytes());
            let _ = s.flush();
        }
    }

    /// The next line, `None` after the timeout (the module is then killed).
    fn read_line(&mut self) -> Option<Line> {
        if self.dead.is_some() {
            return None;
        }
        match self.lines.recv_timeout(self.timeout) {
            Ok(Line::Eof) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.stdout_closed = true;
                Some(Line::Eof)
            }
            Ok(l) => Some(l),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                self.kill(self.timeout_message());
                None
            }
        }
    }

    fn kill(&mut self, reason: String) {
        self.dead = Some(reason);
        // drop the receiving end: the reader thread stops at its next line and closes the pipe, so a
        // writer the module left behind gets SIGPIPE instead of filling memory
        self.lines = mpsc::channel().1;
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends one request: `fields` in order (line-based `key=value` lines, `attributes` as
    /// `attribute_<name>=` lines), or compact JSON with sorted keys; then the empty line.
    pub fn send(&mut self, fields: &IndexMap<String, Json>) {
        let mut text = String::new();
        if self.json {
            let obj: serde_json::Map<String, Json> = fields.clone().into_iter().collect();
            text.push_str(&crate::functions::json::write_compact(&Json::Object(obj)));
            text.push('\n');
        } else {
            for (k, v) in fields {
                match v {
                    Json::Object(attrs) if k == "attributes" => {
                        for (a, av) in attrs {
                            text.push_str(&format!("attribute_{a}={}\n", line_value(av)));
                        }
                    }
                    other => text.push_str(&format!("{k}={}\n", line_value(other))),
                }
            }
        }
        text.push('\n');
        self.write(&text);
    }

    /// Reads one answer up to its empty line. `promise_level` is the promise's own `log_level`: module
    /// messages less severe than it are dropped.
    pub fn receive(&mut self, promise_level: Option<ModLevel>) -> Answer {
        let mut a = Answer::default();
        let mut fields: Option<IndexMap<String, Json>> = if self.json {
            None
        } else {
            Some(IndexMap::new())
        };
        let mut count = 0;
        loop {
            count += 1;
            if count > MAX_ANSWER_LINES {
                let why = format!(
                    "cfsim: promise module '{}' sent more than {MAX_ANSWER_LINES} lines in one answer; killed",
                    self.path
                );
                self.kill(why.clone());
                a.timed_out = true;
                a.msgs.push(Msg::Error(why));
                a.fields = None;
                return a;
            }
            let line = match self.read_line() {
                None => {
                    a.timed_out = true;
                    let why = self.dead.clone().unwrap_or_else(|| self.timeout_message());
                    a.msgs.push(Msg::Error(why));
                    a.fields = None;
                    return a;
                }
                Some(Line::Eof) => break,
                Some(Line::Text(t, _)) => t,
            };
            if line.is_empty() {
                break;
            }
            if let Some(rest) = line.strip_prefix("log_") {
                match rest.split_once('=') {
                    Some((level, msg)) => log(&mut a, level, msg, promise_level),
                    None => a.msgs.push(Msg::Error(format!(
                        "Promise module sent invalid log line: '{line}'"
                    ))),
                }
            } else if !self.json {
                match line.split_once('=') {
                    Some((k, v)) => {
                        let value = if k == "result_classes" {
                            Json::Array(v.split(',').map(|c| Json::String(c.into())).collect())
                        } else {
                            Json::String(v.to_string())
                        };
                        if let Some(f) = fields.as_mut() {
                            f.insert(k.to_string(), value);
                        }
                    }
                    None => a.msgs.push(Msg::Error(format!(
                        "Promise module sent invalid line: '{line}'"
                    ))),
                }
            } else {
                match crate::functions::json::parse(&line) {
                    Ok(Json::Object(m)) => fields = Some(m.into_iter().collect()),
                    _ => {
                        // the rest of the answer stays unread, as in the agent
                        a.msgs.push(Msg::Error(format!(
                            "Promise module '{}' sent invalid JSON",
                            self.path
                        )));
                        return a;
                    }
                }
            }
        }
        if self.json {
            let Some(f) = fields.as_ref() else {
                a.msgs.push(Msg::Error(format!(
                    "The '{}' promise module sent an invalid/incomplete response with JSON based protocol",
                    self.path
                )));
                return a;
            };
            if let Some(Json::Array(logs)) = f.get("log") {
                for l in logs {
                    let level = l.get("level").and_then(Json::as_str).unwrap_or("");
                    let msg = l.get("message").and_then(Json::as_str).unwrap_or("");
                    log(&mut a, level, msg, promise_level);
                }
            }
        }
        a.fields = fields;
        a
    }

    /// Sends `terminate`, reads the answer, closes the pipes and reaps the process; the answer and what
    /// the module wrote to stderr meanwhile.
    pub fn terminate(mut self) -> (Answer, Vec<String>) {
        if self.dead.is_some() {
            return (Answer::default(), Vec::new());
        }
        let mut req = IndexMap::new();
        req.insert("operation".to_string(), Json::String("terminate".into()));
        self.send(&req);
        let a = self.receive(None);
        let stderr = self.drain_stderr();
        self.stdin = None;
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if std::time::Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        (a, stderr)
    }
}

impl Drop for PromiseModule {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A request value on a line-based request line: strings as they are, numbers as written, containers
/// as compact JSON.
fn line_value(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        Json::Number(n) => n.to_string(),
        other => crate::functions::json::write_compact(other),
    }
}

fn log(a: &mut Answer, level: &str, msg: &str, promise_level: Option<ModLevel>) {
    let Some(l) = ModLevel::parse(level) else {
        return;
    };
    if promise_level.is_some_and(|p| l > p) {
        return;
    }
    if l <= ModLevel::Error {
        a.logged_error = true;
    }
    if l <= ModLevel::Warning {
        a.logged_warning = true;
    }
    if l == ModLevel::Info {
        a.logged_info = true;
    }
    a.msgs.push(Msg::Log(l, msg.to_string()));
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn level_names_are_read_by_prefix() {
        assert_eq!(ModLevel::parse("err"), Some(ModLevel::Error));
        assert_eq!(ModLevel::parse("info"), Some(ModLevel::Info));
        assert_eq!(ModLevel::parse("inform"), Some(ModLevel::Info));
        assert_eq!(ModLevel::parse("critical"), Some(ModLevel::Critical));
        assert_eq!(ModLevel::parse("bogus"), None);
        assert_eq!(ModLevel::parse(""), None);
    }

    #[test]
    fn a_module_that_never_answers_is_killed_after_the_timeout() {
        let dir = std::env::temp_dir().join(format!("cfsim-pm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("hang.sh");
        std::fs::write(&path, "read -r h\nsleep 30\n").unwrap();
        let t0 = std::time::Instant::now();
        let err = PromiseModule::start(
            Some("/bin/sh"),
            path.to_str().unwrap(),
            Duration::from_millis(300),
        )
        .err()
        .unwrap();
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert!(err.message.contains("did not answer within"), "{err:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
