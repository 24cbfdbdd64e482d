//! Run a real module executable (for `--exec`): no shell, stdout and stderr merged into one stream (as the
//! agent reads them), a wall-clock timeout, and the exit status mapped to the promise outcome.
//! This is the only place in cfsim that starts a module process; simulations never call it.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// After the module exits, how long to wait for the rest of its output (a background child may hold the
/// pipe open; its later output is dropped).
pub const DRAIN_LIMIT: Duration = Duration::from_secs(1);

/// How a module run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Exit status 0: the commands promise is repaired.
    Success,
    /// Non-zero exit status: the promise is not kept (repair_failed); emitted lines still count.
    Failed(i32),
    /// Killed by a signal (no exit code).
    Signalled,
    /// Killed by cfsim after the timeout.
    TimedOut,
}

/// Output and status of one module run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// stdout and stderr, interleaved as written.
    pub output: String,
    pub exit: Exit,
}

/// Why a module could not be run at all.
#[derive(Debug)]
pub enum RunError {
    EmptyCommand,
    Spawn(std::io::Error),
    Io(std::io::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::EmptyCommand => write!(f, "empty module command"),
            RunError::Spawn(e) => write!(f, "could not start the module: {e}"),
            RunError::Io(e) => write!(f, "could not read the module output: {e}"),
        }
    }
}

impl std::error::Error for RunError {}

/// The agent's info line when it starts a command (`timeout` = the contain body's `exec_timeout`).
pub fn executing_message(command: &str, timeout_secs: Option<u64>) -> String {
    let t = timeout_secs.map_or("no timeout".to_string(), |s| format!("timeout={s}s"));
    format!("Executing '{t}' ... '{command}'")
}

/// The agent's info line after a command finished (whatever its outcome).
pub fn completed_message(command: &str) -> String {
    format!("Completed execution of '{command}'")
}

/// The agent's error line when a module was cut short: killed by `exec_timeout`, or stopped reading after
/// `cfengine-die` (observed in policies/modules/timeout and policies/modules/errors).
pub fn abnormal_termination_message(command: &str) -> String {
    format!("Finished script '{command}' - failed (abnormal termination)")
}

/// Promise outcome of a finished module run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Repaired,
    Failed,
}

/// The outcome of a module run and the error line the agent logs for it, if any: exit 0 → repaired;
/// non-zero → failed with "returned N"; killed (timeout or signal) → failed with "abnormal termination".
pub fn outcome(command: &str, exit: &Exit) -> (Outcome, Option<String>) {
    match exit {
        Exit::Success => (Outcome::Repaired, None),
        Exit::Failed(code) => (
            Outcome::Failed,
            Some(super::protocol::exit_error_message(command, *code)),
        ),
        Exit::Signalled | Exit::TimedOut => {
            (Outcome::Failed, Some(abnormal_termination_message(command)))
        }
    }
}

/// Split a command line into argv as cf-agent's `ArgSplitCommand` does: C `isspace` separates words, `"…"`
/// and `'…'` group (quotes removed). The one splitter for `commands`, `execresult` and the hENC module.
pub fn split_command(command: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_ascii_whitespace() => {
                if in_word {
                    args.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            None => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        args.push(cur);
    }
    args
}

/// Run `command` (argv split by [`split_command`]) with stdin closed and stderr merged into stdout; kill it
/// when it runs longer than `timeout`.
pub fn run(command: &str, timeout: Duration) -> Result<RunResult, RunError> {
    let argv = split_command(command);
    let (prog, args) = argv.split_first().ok_or(RunError::EmptyCommand)?;
    let (mut reader, writer) = std::io::pipe().map_err(RunError::Io)?;
    let writer2 = writer.try_clone().map_err(RunError::Io)?;
    let mut child = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer2)
        .spawn()
        .map_err(RunError::Spawn)?;
    // The pipe's write ends now live only in the child, so the reader sees EOF when it exits.
    // Read in chunks into a shared buffer, so output is kept even if a grandchild keeps the pipe open.
    let shared = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&shared);
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        let res = loop {
            match reader.read(&mut chunk) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if let Ok(mut b) = sink.lock() {
                        b.extend_from_slice(chunk.get(..n).unwrap_or_default());
                    }
                }
                Err(e) => break Err(e),
            }
        };
        let _ = done_tx.send(res);
    });
    let start = Instant::now();
    let exit = loop {
        match child.try_wait().map_err(RunError::Io)? {
            Some(status) => {
                break match status.code() {
                    Some(0) => Exit::Success,
                    Some(c) => Exit::Failed(c),
                    None => Exit::Signalled,
                }
            }
            None if start.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break Exit::TimedOut;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    if let Ok(Err(e)) = done_rx.recv_timeout(DRAIN_LIMIT) {
        return Err(RunError::Io(e));
    }
    let bytes = shared.lock().map(|b| b.clone()).unwrap_or_default();
    Ok(RunResult {
        output: String::from_utf8_lossy(&bytes).into_owned(),
        exit,
    })
}
