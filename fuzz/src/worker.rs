//! The worker process: runs a target on inputs `from..to` of a seed in-process, catching panics (the
//! panic hook is silenced and records where; the input is saved as `crash-HASH`), and tells the driver
//! on stdout how far it got: `done N` (every input before N finished) at least every 100 ms or 4096
//! inputs, `panic N HASH WHERE`, and `end N`. With `save_current` each input is written to
//! `ARTIFACTS/current-SEED` before it runs and progress is told after every input: the driver replays that
//! way to find the input that aborted the process or hung.

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::rng::{fnv, Rng};
use crate::targets::Target;

/// Where the last panic happened and its message (set by the silent hook).
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Inputs between two progress lines at most (the driver replays at most this many).
pub const PROGRESS_EVERY: u64 = 4096;

/// Stack of the thread the target runs on: deep enough for every documented nesting limit.
pub const STACK_BYTES: usize = 256 << 20;

/// Replace the panic hook by one that records the panic instead of printing it.
pub fn silence_panics() {
    std::panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(non-string payload)".to_string()
        };
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_else(|| "?".into());
        let line = format!("{at}: {msg}").replace(['\n', '\r'], " ");
        if let Ok(mut g) = LAST_PANIC.lock() {
            *g = Some(line);
        }
    }));
}

/// Runs `target` on `input`; `Err(where: message)` when it panicked.
pub fn run_one(target: &Target, input: &[u8]) -> Result<(), String> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| (target.run)(input))) {
        Ok(()) => Ok(()),
        Err(_) => Err(LAST_PANIC
            .lock()
            .ok()
            .and_then(|mut g| g.take())
            .unwrap_or_else(|| "panic".into())),
    }
}

/// Input number `index` of a run: the corpus entries first, then generated and mutated inputs.
pub fn make_input(target: &Target, corpus: &[Vec<u8>], seed: u64, index: u64) -> Vec<u8> {
    if let Some(c) = usize::try_from(index).ok().and_then(|i| corpus.get(i)) {
        return c.clone();
    }
    let mut rng = Rng::for_input(seed, index);
    let base = |rng: &mut Rng| -> Vec<u8> {
        if corpus.is_empty() || rng.one_in(2) {
            (target.generate)(rng)
        } else {
            corpus[rng.below(corpus.len())].clone()
        }
    };
    if rng.below(100) < target.generate_percent {
        return (target.generate)(&mut rng);
    }
    let a = base(&mut rng);
    let b = base(&mut rng);
    crate::mutate::mutate(&mut rng, &a, &b, target.dict, target.max_ops)
}

/// Reads the corpus: every file of `dir`, sorted by name.
pub fn read_corpus(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Saves `input` as `ARTIFACTS/KIND-HASH` and returns the path.
pub fn save_artifact(artifacts: &Path, kind: &str, input: &[u8]) -> PathBuf {
    let _ = std::fs::create_dir_all(artifacts);
    let path = artifacts.join(format!("{kind}-{:016x}", fnv(input)));
    let _ = std::fs::write(&path, input);
    path
}

/// What a worker runs.
pub struct Job<'a> {
    pub target: &'a Target,
    pub corpus: Vec<Vec<u8>>,
    pub seed: u64,
    pub from: u64,
    pub to: u64,
    pub deadline: Duration,
    pub artifacts: PathBuf,
    pub save_current: bool,
}

/// The worker's loop (on a thread with a deep stack).
pub fn work(job: &Job<'_>) {
    silence_panics();
    let start = Instant::now();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut last = Instant::now();
    let mut since = 0u64;
    let current = job.artifacts.join(format!("current-{}", job.seed));
    if job.save_current {
        let _ = std::fs::create_dir_all(&job.artifacts);
    }
    let mut i = job.from;
    while i < job.to {
        // the corpus always runs whole (it holds the regression inputs); the time budget starts after it
        if i >= job.corpus.len() as u64 && start.elapsed() >= job.deadline {
            break;
        }
        let input = make_input(job.target, &job.corpus, job.seed, i);
        if job.save_current {
            let _ = std::fs::write(&current, &input);
        }
        if let Err(msg) = run_one(job.target, &input) {
            let path = save_artifact(&job.artifacts, "crash", &input);
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let _ = writeln!(out, "panic {i} {} {msg}", name.unwrap_or_default());
            let _ = out.flush();
        }
        i += 1;
        since += 1;
        if job.save_current
            || since >= PROGRESS_EVERY
            || last.elapsed() >= Duration::from_millis(100)
        {
            let _ = writeln!(out, "done {i}");
            let _ = out.flush();
            last = Instant::now();
            since = 0;
        }
    }
    let _ = writeln!(out, "end {i}");
    let _ = out.flush();
}
