//! cfsim-fuzz: a fuzz driver for cfsim that needs only the stable toolchain (docs/fuzzing.md).
//!
//! `cfsim-fuzz TARGET [--iterations N] [--seconds S] [--seed S] [--start I] [--corpus DIR]
//! [--artifacts DIR] [--timeout S] [--memory-mb M]` runs TARGET on its whole corpus, then on generated
//! and mutated inputs until N inputs or S more seconds; `cfsim-fuzz TARGET --replay FILE…` runs saved inputs in this process (a panic prints
//! its place); `cfsim-fuzz TARGET --show I` prints input I; `cfsim-fuzz list` names the targets.
//! The exit code is 0 when nothing was found, 1 when a panic, crash or hang was, 2 for usage errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod driver;
mod mutate;
mod rng;
mod targets;
mod worker;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str =
    "usage: cfsim-fuzz TARGET [--iterations N] [--seconds S] [--seed S] [--start I] \
[--corpus DIR] [--artifacts DIR] [--timeout S] [--memory-mb M] | TARGET --replay FILE... | \
TARGET --show I [--seed S] | list";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match real_main(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cfsim-fuzz: {e}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn num<T: std::str::FromStr>(v: Option<&String>, flag: &str) -> Result<T, String> {
    let v = v.ok_or(format!("{flag} needs a value"))?;
    let v = v.replace('_', "");
    if let Some(hex) = v.strip_prefix("0x") {
        if let Ok(n) = u64::from_str_radix(hex, 16) {
            return n.to_string().parse().map_err(|_| format!("bad {flag} {v}"));
        }
    }
    v.parse().map_err(|_| format!("bad {flag} {v}"))
}

fn real_main(args: &[String]) -> Result<ExitCode, String> {
    let Some(name) = args.first() else {
        return Err("no target".into());
    };
    if name == "list" {
        for t in targets::ALL {
            println!("{:10} {}", t.name, t.about);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let target = targets::find(name).ok_or(format!("unknown target {name}"))?;
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut s = driver::Settings {
        target: name.clone(),
        seed: 1,
        start: 0,
        iterations: None,
        seconds: None,
        corpus: here.join("corpus").join(name),
        artifacts: here.join("artifacts").join(name),
        timeout: Duration::from_secs(10),
        memory_mb: 4096,
    };
    let mut worker: Option<(u64, u64, u64, bool)> = None;
    let mut replay: Vec<PathBuf> = Vec::new();
    let mut show: Option<u64> = None;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--iterations" => s.iterations = Some(num(it.next(), a)?),
            "--seconds" => s.seconds = Some(num(it.next(), a)?),
            "--seed" => s.seed = num(it.next(), a)?,
            "--start" => s.start = num(it.next(), a)?,
            "--corpus" => s.corpus = PathBuf::from(it.next().ok_or("--corpus needs a value")?),
            "--artifacts" => {
                s.artifacts = PathBuf::from(it.next().ok_or("--artifacts needs a value")?)
            }
            "--timeout" => s.timeout = Duration::from_secs_f64(num(it.next(), a)?),
            "--memory-mb" => s.memory_mb = num(it.next(), a)?,
            "--show" => show = Some(num(it.next(), a)?),
            "--replay" => {
                replay.extend(it.by_ref().map(PathBuf::from));
            }
            "--worker" => {
                let from = num(it.next(), a)?;
                let to = num(it.next(), a)?;
                let ms = num(it.next(), a)?;
                let save = it.next().map(String::as_str) == Some("save");
                worker = Some((from, to, ms, save));
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let corpus = worker::read_corpus(&s.corpus);
    if let Some((from, to, ms, save)) = worker {
        let job = worker::Job {
            target,
            corpus,
            seed: s.seed,
            from,
            to,
            deadline: Duration::from_millis(ms),
            artifacts: s.artifacts.clone(),
            save_current: save,
        };
        let t = std::thread::Builder::new()
            .stack_size(worker::STACK_BYTES)
            .spawn_scoped_or_run(move || worker::work(&job));
        return Ok(if t {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    if let Some(i) = show {
        let input = worker::make_input(target, &corpus, s.seed, i);
        let _ = std::io::stdout().write_all(&input);
        return Ok(ExitCode::SUCCESS);
    }
    if !replay.is_empty() {
        return Ok(replay_files(target, &replay));
    }
    if s.iterations.is_none() && s.seconds.is_none() {
        s.seconds = Some(10.0);
    }
    let started = Instant::now();
    let (n, f) = driver::run(&s).map_err(|e| format!("cannot run a worker: {e}"))?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{}: {n} inputs in {secs:.1} s ({:.0}/s), seed {}, start {}; {} panics ({} places), {} crashes, {} hangs, {} not reproduced",
        s.target,
        n as f64 / secs.max(1e-9),
        s.seed,
        s.start,
        f.panics.values().map(|(c, _)| c).sum::<u64>(),
        f.panics.len(),
        f.crashes.len(),
        f.hangs.len(),
        f.unreproduced
    );
    for (place, (count, file)) in &f.panics {
        println!("  panic ×{count} at {place} (first input: {file})");
    }
    for c in &f.crashes {
        println!("  crash: {c}");
    }
    for h in &f.hangs {
        println!("  hang: {h}");
    }
    Ok(if f.count() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Runs saved inputs in this process (on a deep stack) and says how each ended.
fn replay_files(target: &'static targets::Target, files: &[PathBuf]) -> ExitCode {
    worker::silence_panics();
    let files = files.to_vec();
    let ok = std::thread::Builder::new()
        .stack_size(worker::STACK_BYTES)
        .spawn_scoped_or_run(move || {
            let mut bad = false;
            for f in &files {
                let Ok(input) = std::fs::read(f) else {
                    eprintln!("{}: cannot read", f.display());
                    bad = true;
                    continue;
                };
                let t = Instant::now();
                match worker::run_one(target, &input) {
                    Ok(()) => println!("{}: ok in {:.3} s", f.display(), t.elapsed().as_secs_f64()),
                    Err(m) => {
                        println!("{}: panic at {m}", f.display());
                        bad = true;
                    }
                }
            }
            if bad {
                panic!("failed");
            }
        });
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Runs a closure on a thread built from `self` and waits for it; false when it panicked or could not start.
trait RunOn {
    fn spawn_scoped_or_run<F: FnOnce() + Send + 'static>(self, f: F) -> bool;
}

impl RunOn for std::thread::Builder {
    fn spawn_scoped_or_run<F: FnOnce() + Send + 'static>(self, f: F) -> bool {
        match self.spawn(f) {
            Ok(h) => h.join().is_ok(),
            Err(_) => false,
        }
    }
}
