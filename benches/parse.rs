//! Parse throughput benchmark: parses every `.cf` file of the installed masterfiles in one process, N times,
//! with `cfsim::syntax::parse_file`, and prints MB/s (no process start-up, no output rendering).
//!
//!   cargo bench --bench parse                      # 20 iterations over /usr/share/cfengine3/masterfiles
//!   cargo bench --bench parse -- 50 /some/policy/dir
//!
//! Needs in Cargo.toml: `[[bench]] name = "parse" harness = false`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Default policy tree and iteration count.
const DEFAULT_ROOT: &str = "/usr/share/cfengine3/masterfiles";
const DEFAULT_ITERATIONS: usize = 20;
/// Upper bound on the iteration count accepted from the command line.
const MAX_ITERATIONS: usize = 100_000;

fn cf_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            cf_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "cf") {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    // `cargo bench` passes `--bench`; ignore flags, take the first number and the first other word.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let iterations = match args.iter().find_map(|a| a.parse::<usize>().ok()) {
        Some(n) if (1..=MAX_ITERATIONS).contains(&n) => n,
        Some(n) => {
            eprintln!("parse bench: iterations must be 1..={MAX_ITERATIONS}, got {n}");
            return ExitCode::from(2);
        }
        None => DEFAULT_ITERATIONS,
    };
    let root = args
        .iter()
        .find(|a| a.parse::<usize>().is_err())
        .map_or_else(|| PathBuf::from(DEFAULT_ROOT), PathBuf::from);

    let mut paths = Vec::new();
    if let Err(e) = cf_files(&root, &mut paths) {
        eprintln!("parse bench: cannot read {}: {e}", root.display());
        return ExitCode::from(2);
    }
    paths.sort();
    let mut inputs = Vec::with_capacity(paths.len());
    for path in &paths {
        match std::fs::read_to_string(path) {
            Ok(text) => inputs.push((path.display().to_string(), text)),
            Err(e) => {
                eprintln!("parse bench: cannot read {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    }
    if inputs.is_empty() {
        eprintln!("parse bench: no .cf files under {}", root.display());
        return ExitCode::from(2);
    }
    let bytes: usize = inputs.iter().map(|(_, text)| text.len()).sum();

    // Warm-up pass, which also checks that every file parses (a failing parse would flatter the numbers).
    let mut failed = 0;
    for (path, text) in &inputs {
        if let Err(diags) = cfsim::syntax::parse_file(path, text) {
            failed += 1;
            eprintln!("parse bench: {path}: {} diagnostic(s)", diags.len());
        }
    }

    let start = Instant::now();
    for _ in 0..iterations {
        for (path, text) in &inputs {
            let _ =
                std::hint::black_box(cfsim::syntax::parse_file(path, std::hint::black_box(text)));
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let mb = (bytes * iterations) as f64 / 1_000_000.0;
    println!(
        "parse bench: {} files, {:.3} MB per pass, {iterations} passes in {secs:.3} s: {:.2} ms/pass, {:.1} MB/s",
        inputs.len(),
        bytes as f64 / 1_000_000.0,
        secs * 1000.0 / iterations as f64,
        mb / secs
    );
    if failed > 0 {
        eprintln!(
            "parse bench: {failed} of {} files failed to parse",
            inputs.len()
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
