//! Property tests over the parser: mutated real policy (byte flips, CFEngine token insertions, deletions,
//! splices, truncations, invalid UTF-8 turned into U+FFFD as the loader does) never panics the parse, the
//! policy checks or the printers; and every mutant that parses cleanly survives `-p cf` → parse with the
//! same `-p json` (ignoring line numbers). Deterministic: a fixed seed, `CFSIM_FUZZ_ITERS` inputs (default
//! 4000; the closing note of issue 2 records larger runs). `CFSIM_FUZZ_SEED` picks another seed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod parse_support;
use parse_support::Rng;

use std::path::{Path, PathBuf};

use cfsim::source::SourceFile;
use cfsim::syntax::{json, parse_file_recovering, print, validate};

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "\"",
    "'",
    "`",
    ";",
    ",",
    "::",
    ":",
    "=>",
    "->",
    "$(",
    "${",
    "@(",
    "@{",
    "]",
    "[",
    "\\",
    "\n",
    "\r\n",
    "#",
    "\0",
    "bundle agent x\n{\n",
    "body common control\n{\n",
    "promise agent p\n{\n",
    "@if minimum_version(3.1)\n",
    "@else\n",
    "@endif\n",
    "vars:\n",
    "reports:\n",
    "linux::\n",
    "\"a\"::\n",
    "\"p\" string => \"v\";\n",
    "é",
    "\u{FFFD}",
    "data => '{\"a\": [1]}'",
    "data => '---\na: 1'",
    "||",
    "!!",
    "&&",
    "\t",
    "x(y(z(",
    "{ { {",
    "$($(",
    "slist => @(x)",
    "int => \"1.5\"",
];

fn corpus() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
    collect(&root, &mut files);
    collect(Path::new("/usr/share/cfengine3/masterfiles"), &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            Some((
                p.to_string_lossy().into_owned(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "cf") {
            out.push(p);
        }
    }
}

fn mutate(rng: &mut Rng, text: &str, other: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let n = 1 + rng.below(4);
    for _ in 0..n {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 => {
                if let Some(b) = bytes.get_mut(at) {
                    *b = (rng.next() & 0xff) as u8;
                }
            }
            1 | 2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                bytes.splice(at..at, t.bytes());
            }
            3 => {
                let len = rng.below(64).min(bytes.len().saturating_sub(at));
                bytes.drain(at..at + len);
            }
            4 => {
                let o = other.as_bytes();
                let s = rng.below(o.len() + 1);
                let e = (s + rng.below(400)).min(o.len());
                bytes.splice(at..at, o[s..e].iter().copied());
            }
            _ => bytes.truncate(at),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn strip_lines(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("line");
            m.remove("sourcePath");
            m.values_mut().for_each(strip_lines);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_lines),
        _ => {}
    }
}

/// Parse, check and print one input; returns the JSON when it parsed without any diagnostic.
fn exercise(text: &str) -> Option<serde_json::Value> {
    let parsed = parse_file_recovering("./fuzz.cf", text);
    let file = SourceFile::with_lines("./fuzz.cf", text, parsed.lines.clone());
    let mut diags = parsed.diags;
    let checks = validate::parse_time_checks(&parsed.policy, &file);
    diags.extend(checks.diags);
    if diags.is_empty() {
        diags.extend(
            validate::post_parse_checks(&[(&parsed.policy, &file)])
                .into_iter()
                .map(|(_, d)| d),
        );
    }
    for d in &diags {
        let _ = d.render(&file);
    }
    let text = json::policy_to_json_text(&parsed.policy, &file.lines);
    let v: serde_json::Value = serde_json::from_str(&text).expect("-p json output is JSON");
    let _ = print::policy_to_cf(&parsed.policy);
    if !diags
        .iter()
        .any(|d| d.severity == cfsim::diag::Severity::Error)
    {
        Some(v)
    } else {
        None
    }
}

#[test]
fn mutated_policies_never_panic_and_clean_ones_round_trip() {
    let iters: usize = std::env::var("CFSIM_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4000);
    let seed: u64 = std::env::var("CFSIM_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x0C0F_FEE5);
    let corpus = corpus();
    assert!(!corpus.is_empty(), "no .cf files found under policies/");
    let mut rng = Rng(seed | 1);
    let mut clean = 0usize;
    let mut failures = Vec::new();
    for i in 0..iters {
        let (_, a) = &corpus[rng.below(corpus.len())];
        let (_, b) = &corpus[rng.below(corpus.len())];
        let input = mutate(&mut rng, a, b);
        let result = std::panic::catch_unwind(|| {
            let Some(mut before) = exercise(&input) else {
                return Ok(false);
            };
            let parsed = parse_file_recovering("./fuzz.cf", &input);
            let printed = print::policy_to_cf(&parsed.policy);
            let again = parse_file_recovering("./fuzz.cf", &printed);
            if again
                .diags
                .iter()
                .any(|d| d.severity == cfsim::diag::Severity::Error)
            {
                return Err(format!(
                    "printed policy does not parse: {:?}",
                    again.diags.first()
                ));
            }
            let mut after: serde_json::Value =
                serde_json::from_str(&json::policy_to_json_text(&again.policy, &again.lines))
                    .expect("-p json output is JSON");
            strip_lines(&mut before);
            strip_lines(&mut after);
            if before != after {
                return Err("round trip changed the policy".to_string());
            }
            Ok(true)
        });
        match result {
            Ok(Ok(true)) => clean += 1,
            Ok(Ok(false)) => {}
            Ok(Err(e)) => failures.push((i, e, input)),
            Err(_) => failures.push((i, "panic".to_string(), input)),
        }
        if failures.len() >= 5 {
            break;
        }
    }
    eprintln!("parse fuzz: {iters} inputs, {clean} parsed cleanly and round-tripped (seed {seed})");
    if let Some((i, e, input)) = failures.first() {
        let path = std::env::temp_dir().join("cfsim-fuzz-failure.cf");
        let _ = std::fs::write(&path, input);
        panic!(
            "{} failing inputs; first (#{i}): {e}; written to {}",
            failures.len(),
            path.display()
        );
    }
}
