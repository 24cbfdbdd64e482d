//! The driver: runs a target's inputs in worker processes (itself, `--worker`) under an address-space
//! limit, so that what cannot be caught in-process — a stack overflow, an allocation failure, an
//! abort — ends only the worker. A worker that dies, or reports no progress for `timeout`, is replayed
//! from its last checkpoint with every input saved before it runs; the input that kills or hangs the
//! replay is kept as `crash-HASH` or `timeout-HASH`, and the run goes on after it. Panics are caught in
//! the worker and reported (with their place) without stopping the run.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::worker::PROGRESS_EVERY;

/// The time budget of a run without `--seconds` (ten days: long enough, and small enough to pass on
/// to a worker in milliseconds).
const NO_BUDGET: Duration = Duration::from_secs(10 * 24 * 3600);

/// Settings of one run.
#[derive(Debug, Clone)]
pub struct Settings {
    pub target: String,
    pub seed: u64,
    pub start: u64,
    pub iterations: Option<u64>,
    pub seconds: Option<f64>,
    pub corpus: PathBuf,
    pub artifacts: PathBuf,
    pub timeout: Duration,
    pub memory_mb: u64,
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Findings {
    /// Panic place → (count, first artifact).
    pub panics: BTreeMap<String, (u64, String)>,
    /// Artifacts of inputs that killed the worker (abort, stack overflow, out of memory).
    pub crashes: Vec<String>,
    /// Artifacts of inputs that ran longer than the timeout.
    pub hangs: Vec<String>,
    /// Deaths or hangs that did not happen again on replay.
    pub unreproduced: u64,
}

impl Findings {
    pub fn count(&self) -> u64 {
        self.panics.values().map(|(n, _)| n).sum::<u64>()
            + self.crashes.len() as u64
            + self.hangs.len() as u64
            + self.unreproduced
    }
}

enum Event {
    Done(u64),
    Panic(String, String),
    End(u64),
}

/// How a worker stopped.
enum Stop {
    /// It printed `end N`.
    Ended(u64),
    /// It died (signal or exit without `end`) after finishing inputs before the index.
    Died(u64, String),
    /// No progress for the timeout after finishing inputs before the index.
    Hung(u64),
}

struct Worker {
    child: Child,
    events: Receiver<Event>,
}

fn spawn(
    s: &Settings,
    from: u64,
    to: u64,
    deadline: Duration,
    save: bool,
) -> std::io::Result<Worker> {
    let exe = std::env::current_exe()?;
    let kb = s.memory_mb.saturating_mul(1024);
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(r#"ulimit -v "$1" || exit 99; shift; exec "$@""#)
        .arg("sh")
        .arg(kb.to_string())
        .arg(exe)
        .arg(&s.target)
        .arg("--worker")
        .args([
            from.to_string(),
            to.to_string(),
            deadline.as_millis().to_string(),
            if save { "save" } else { "nosave" }.to_string(),
        ])
        .arg("--seed")
        .arg(s.seed.to_string())
        .arg("--corpus")
        .arg(&s.corpus)
        .arg("--artifacts")
        .arg(&s.artifacts)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    // The worker's stderr (an abort message, a stack overflow report) is kept for the findings list.
    if let Some(err) = stderr {
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("  worker: {line}");
            }
        });
    }
    let (tx, rx) = channel();
    if let Some(out) = stdout {
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                let mut it = line.splitn(4, ' ');
                let ev = match (it.next(), it.next(), it.next(), it.next()) {
                    (Some("done"), Some(n), _, _) => n.parse().ok().map(Event::Done),
                    (Some("end"), Some(n), _, _) => n.parse().ok().map(Event::End),
                    (Some("panic"), Some(_), Some(file), msg) => Some(Event::Panic(
                        msg.unwrap_or("").to_string(),
                        file.to_string(),
                    )),
                    _ => None,
                };
                if let Some(ev) = ev {
                    if tx.send(ev).is_err() {
                        break;
                    }
                }
            }
        });
    }
    Ok(Worker { child, events: rx })
}

/// Follows a worker until it stops; `pos` is where it started.
fn follow(
    w: &mut Worker,
    pos: u64,
    timeout: Duration,
    f: &mut Findings,
    tick: &mut dyn FnMut(u64),
) -> Stop {
    let mut done = pos;
    let mut last = Instant::now();
    loop {
        match w.events.recv_timeout(Duration::from_millis(200)) {
            Ok(Event::Done(n)) => {
                done = n;
                last = Instant::now();
                tick(done);
            }
            Ok(Event::End(n)) => {
                let _ = w.child.wait();
                return Stop::Ended(n);
            }
            Ok(Event::Panic(msg, file)) => {
                let e = f.panics.entry(msg).or_insert((0, file));
                e.0 += 1;
            }
            Err(RecvTimeoutError::Timeout) => {
                if last.elapsed() > timeout {
                    let _ = w.child.kill();
                    let _ = w.child.wait();
                    return Stop::Hung(done);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = w.child.wait();
                let how = match status {
                    Ok(s) => s.to_string(),
                    Err(e) => e.to_string(),
                };
                return Stop::Died(done, how);
            }
        }
    }
}

/// Runs the settings' inputs; returns (inputs run, findings).
pub fn run(s: &Settings) -> std::io::Result<(u64, Findings)> {
    let started = Instant::now();
    let end = s.iterations.map_or(u64::MAX, |n| s.start.saturating_add(n));
    let budget = s.seconds.map(Duration::from_secs_f64);
    let mut f = Findings::default();
    let mut pos = s.start;
    let corpus_len = crate::worker::read_corpus(&s.corpus).len() as u64;
    let mut last_status = Instant::now();
    let target = s.target.clone();
    let mut tick = move |done: u64, f_count: u64| {
        if last_status.elapsed() >= Duration::from_secs(10) {
            let n = done - s.start;
            let secs = started.elapsed().as_secs_f64();
            eprintln!(
                "[{target}] {n} inputs in {secs:.0} s ({:.0}/s), {f_count} findings",
                n as f64 / secs.max(1e-9)
            );
            last_status = Instant::now();
        }
    };
    while pos < end {
        let remaining = match budget {
            Some(b) => match b.checked_sub(started.elapsed()) {
                Some(r) if !r.is_zero() => r,
                _ if pos < corpus_len => Duration::ZERO,
                _ => break,
            },
            None => NO_BUDGET,
        };
        let mut w = spawn(s, pos, end, remaining, false)?;
        let fc = f.count();
        let stop = follow(&mut w, pos, s.timeout, &mut f, &mut |d| tick(d, fc));
        match stop {
            Stop::Ended(n) => {
                pos = n;
                if n < end && n >= corpus_len {
                    break; // the time budget ran out
                }
            }
            Stop::Died(at, how) => {
                eprintln!(
                    "[{}] worker died after input {at} ({how}); replaying",
                    s.target
                );
                pos = replay(s, at, end, &mut f)?;
            }
            Stop::Hung(at) => {
                eprintln!(
                    "[{}] no progress after input {at} for {:?}; replaying",
                    s.target, s.timeout
                );
                pos = replay(s, at, end, &mut f)?;
            }
        }
    }
    Ok((pos - s.start, f))
}

/// Runs inputs `at..` one by one with each saved before it runs, until the worker dies or hangs again
/// (that input is the finding) or `PROGRESS_EVERY` inputs pass; returns where to go on.
fn replay(s: &Settings, at: u64, end: u64, f: &mut Findings) -> std::io::Result<u64> {
    let to = at.saturating_add(PROGRESS_EVERY + 1).min(end);
    let _ = std::fs::remove_file(s.artifacts.join(format!("current-{}", s.seed)));
    let mut w = spawn(s, at, to, NO_BUDGET, true)?;
    let stop = follow(&mut w, at, s.timeout, f, &mut |_| {});
    let current = s.artifacts.join(format!("current-{}", s.seed));
    let (kind, done) = match stop {
        Stop::Ended(n) => {
            eprintln!(
                "[{}] the replay of inputs {at}..{n} finished: not reproduced",
                s.target
            );
            f.unreproduced += 1;
            return Ok(n);
        }
        Stop::Died(done, how) => {
            eprintln!("[{}] input {done} kills the worker ({how})", s.target);
            ("crash", done)
        }
        Stop::Hung(done) => {
            eprintln!(
                "[{}] input {done} runs longer than {:?}",
                s.target, s.timeout
            );
            ("timeout", done)
        }
    };
    let Ok(input) = std::fs::read(&current) else {
        // the replay did not get as far as running an input: not a finding of the target
        return Err(std::io::Error::other(format!(
            "the replaying worker stopped before it ran input {done}"
        )));
    };
    let path = crate::worker::save_artifact(&s.artifacts, kind, &input);
    let _ = std::fs::remove_file(&current);
    eprintln!("[{}] saved {}", s.target, path.display());
    let name = path.display().to_string();
    if kind == "crash" {
        f.crashes.push(name);
    } else {
        f.hangs.push(name);
    }
    Ok(done + 1)
}
