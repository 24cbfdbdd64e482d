//! The fast parser (src/syntax/fast/) against the normative pest parser + lowering: on every policy file
//! at hand (policies/, tests/, fuzz/corpus/parse, the installed masterfiles and their lib when present)
//! and on seeded byte mutants of them, the fast path either declines (`None`, pest then runs) or gives
//! exactly pest's AST (spans included, compared through `Debug`), diagnostics and `recovered` flag.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod parse_support;
use parse_support::{Rng, MASTERFILES};

use std::path::{Path, PathBuf};

use cfsim::syntax::{parse_with, Engine, Parsed};

/// Files pest accepts without error that the fast path declines, with the reason (none so far).
const KNOWN_DECLINED: &[(&str, &str)] = &[];

fn files(dir: &Path, all: bool, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in rd.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, all, out);
        } else if all || path.extension().is_some_and(|e| e == "cf") {
            out.push(path);
        }
    }
}

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    files(&root.join("policies"), false, &mut paths);
    files(&root.join("tests"), false, &mut paths);
    files(&root.join("fuzz/corpus/parse"), true, &mut paths);
    files(Path::new(MASTERFILES), false, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            Some((
                p.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        })
        .collect()
}

fn render(p: &Parsed) -> String {
    format!("{:#?}\n{:#?}\nrecovered={}", p.policy, p.diags, p.recovered)
}

/// Compare the engines on one input: `Some(true)` fast accepted (and agreed), `Some(false)` declined;
/// `None` with `why` set: disagreement.
fn compare(path: &str, text: &str) -> Result<bool, String> {
    let Some(fast) = parse_with(path, text, Engine::Fast) else {
        return Ok(false);
    };
    let pest = parse_with(path, text, Engine::Pest).expect("pest always answers");
    if fast.policy != pest.policy || fast.diags != pest.diags || fast.recovered != pest.recovered {
        return Err(first_difference(&render(&fast), &render(&pest)));
    }
    let (f, p) = (render(&fast), render(&pest));
    if f != p {
        return Err(first_difference(&f, &p));
    }
    Ok(true)
}

fn first_difference(fast: &str, pest: &str) -> String {
    let lines: Vec<&str> = pest.lines().collect();
    for (i, (a, b)) in fast.lines().zip(pest.lines()).enumerate() {
        if a != b {
            let context = lines.get(i.saturating_sub(8)..i).unwrap_or(&[]).join("\n");
            return format!("line {i} of the dump: fast `{a}` vs pest `{b}` after\n{context}");
        }
    }
    format!(
        "dumps differ in length: fast {} lines, pest {}",
        fast.lines().count(),
        pest.lines().count()
    )
}

#[test]
fn fast_path_equals_pest_on_every_policy_file() {
    let files = corpus();
    let (mut accepted, mut declined, mut pest_clean_declined) = (0, 0, Vec::new());
    let mut bad = Vec::new();
    for (path, text) in &files {
        match compare(path, text) {
            Ok(true) => accepted += 1,
            Ok(false) => {
                declined += 1;
                let pest = parse_with(path, text, Engine::Pest).unwrap();
                // A file pest takes without a syntax or macro error must be fast-accepted.
                if !pest.recovered && !KNOWN_DECLINED.iter().any(|(p, _)| path.ends_with(p)) {
                    pest_clean_declined.push(path.clone());
                }
            }
            Err(why) => bad.push(format!("{path}: {why}")),
        }
    }
    eprintln!(
        "fast_parse: {} files, {accepted} fast-accepted, {declined} fell back to pest",
        files.len()
    );
    assert!(
        bad.is_empty(),
        "fast path disagrees with pest:\n{}",
        bad.join("\n")
    );
    assert!(
        pest_clean_declined.is_empty(),
        "files pest accepts without error but the fast path declines:\n{}",
        pest_clean_declined.join("\n")
    );
    assert!(files.len() > 100, "corpus not found");
}

const TOKENS: &[&str] = &[
    "\"",
    "'",
    "`",
    "::",
    ":",
    "(",
    ")",
    "{",
    "}",
    ",",
    ";",
    "=>",
    "->",
    "$(",
    "@(",
    "${",
    "[",
    "]",
    "#",
    "\n",
    " ",
    "\\",
    "x",
    "any::",
    "vars:",
    "a b::",
    "\"c\"::",
    "f(",
    "$(a[$(b)])",
    "\u{0B}",
    "é",
    ":::",
    "bundle",
    "body ",
    "promise ",
];

/// One deterministic mutation of `text` at a random place.
fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut b = text.as_bytes().to_vec();
    let at = rng.below(b.len() + 1);
    match rng.below(5) {
        0 if at < b.len() => {
            b.remove(at);
        }
        1 if at < b.len() => {
            let c = b[at];
            b.insert(at, c);
        }
        2 if at + 1 < b.len() => b.swap(at, at + 1),
        3 => {
            // Delete a short range.
            let n = rng.below(8).min(b.len() - at);
            b.drain(at..at + n);
        }
        _ => {
            let t = TOKENS[rng.below(TOKENS.len())];
            b.splice(at..at, t.bytes());
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn fast_path_never_disagrees_with_pest_on_mutants() {
    let files: Vec<(String, String)> = corpus()
        .into_iter()
        .filter(|(_, t)| t.len() < 16_000)
        .collect();
    let iters: usize = std::env::var("CFSIM_FAST_PARSE_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    let mut rng = Rng(0x5eed_fa57_9a25_e001);
    let (mut accepted, mut declined) = (0, 0);
    let mut bad = Vec::new();
    for n in 0..iters {
        let (path, text) = &files[rng.below(files.len())];
        let mut m = mutate(&mut rng, text);
        for _ in 0..rng.below(3) {
            m = mutate(&mut rng, &m);
        }
        match compare(path, &m) {
            Ok(true) => accepted += 1,
            Ok(false) => declined += 1,
            Err(why) => {
                let out = std::env::temp_dir().join(format!("fast_parse_mutant_{n}.cf"));
                let _ = std::fs::write(&out, &m);
                bad.push(format!(
                    "mutant {n} of {path} (saved as {}): {why}",
                    out.display()
                ));
            }
        }
    }
    eprintln!("fast_parse mutants: {iters} inputs, {accepted} fast-accepted and equal, {declined} declined");
    assert!(
        bad.is_empty(),
        "fast path disagrees with pest:\n{}",
        bad.join("\n")
    );
}

/// The grammar's subtle token rules, each in a file the fast path must accept with pest's result.
#[test]
fn grammar_corners_are_fast_accepted_and_equal() {
    let cases: &[&str] = &[
        // class_guard ends at the LAST `::` of its run, may contain blanks; `vars: any::` is a guard
        // inside a section, a promise type right after `{`.
        "bundle agent m {\nvars: any::\n \"a\" string => \"b\";\nany::::\n\"c\" string => \"d\";\n a. b:: c::\n\"e\" string => \"f\";\n}\n",
        // two names separated by blanks only: a diagnostic from lowering
        "bundle agent m {\nreports:\n linux  debian::\n \"x\";\n}\n",
        // naked variables with indices, calls with blanks before `(`, trailing commas in lists/params
        "bundle agent m(a, b,) {\nvars:\n \"x\" slist => { $(a[$(k)]), @{b}, \"z\", };\n \"y\" string => concat (\"a\", $(x[1]));\n \"z\" string => $(f)(\"q\");\n}\n",
        // strings with escapes, backquotes, comments between every token, \\v and \\f blanks
        "bundle#c\nagent#c\nm#c\n{#c\nvars:#c\n\"a\\\"b\"#c\nstring#c\n=>#c\n'c\\'d'#c\n;\n\u{0B}\u{0C}\"e\" string => `f\\`;\n}\n",
        // non-ASCII identifiers and guards
        "bundle agent mé {\nclasses:\n é::\n \"ü\" expression => \"any\";\n}\n",
        // quoted variable guards in bundles and bodies, promisees, if merging
        "bundle agent m {\nreports:\n \"x\"::\n \"a\" -> { \"p\" } if => \"b\", ifvarclass => \"c\", if => \"d\";\n}\nbody classes c(x) {\n\"$(x)\"::\n promise_kept => { \"k\" };\n linux::\n repaired => { \"r\" };\n}\n",
        // data => JSON / YAML / with variables / @(x) rewrites
        "bundle agent m {\nvars:\n \"a\" data => '{\"k\": [1, 2.5]}';\n \"b\" data => '---\na: 1';\n \"c\" data => '{\"k\": \"$(x)\"}';\n \"d\" data => @(a);\n \"e\" data => '[bad';\n}\n",
        // namespaces: body file control switches the namespace of later blocks
        "body file control {\n namespace => \"ns1\";\n}\nbundle agent m {\nmethods:\n \"x\" usebundle => default:n;\n}\npromise agent git {\n path => \"/x\";\n interpreter => \"/bin/sh\";\n}\n",
        // calls nested deeper than cf-promises allows: a fatal diagnostic, the rval dropped
        "bundle agent m {\nvars:\n \"a\" string => f(f(f(f(f(f(f(f(f(f(f(\"x\")))))))))));\n \"b\" string => \"c\";\n}\n",
        // CR line ends and an @if macro blanked by the macro pass
        "bundle agent m\r\n{\r\nvars:\r\n@if minimum_version(99.0)\n \"a\" string => \"b\";\n@endif\n \"c\" string => \"d\";\r\n}\r\n",
        // keywords as names, empty bundles and bodies
        "bundle agent bundle {\n}\nbody common control {\n}\nbundle edit_line body(x) {\ninsert_lines:\n \"$(x)\";\n}\n",
    ];
    for (n, text) in cases.iter().enumerate() {
        match compare("./corner.cf", text) {
            Ok(true) => {}
            Ok(false) => panic!("corner {n} declined by the fast path:\n{text}"),
            Err(why) => panic!("corner {n} disagrees: {why}\n{text}"),
        }
        let fast = parse_with("./corner.cf", text, Engine::Fast).unwrap();
        // The blank-separated guard (1) and the deep calls (8) give diagnostics; the others none.
        assert_eq!(
            !fast.diags.is_empty(),
            n == 1 || n == 8,
            "corner {n}: {:?}",
            fast.diags
        );
    }
}
