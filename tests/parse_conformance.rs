//! cfsim's parser and `promises` subcommand against the real cf-promises 3.21.0: the recorded parse
//! fixtures under `policies/parse/` (JSON AST, `-p cf` output, print→re-parse round trip, error exit code and
//! first error line, diagnostics snapshots), the installed masterfiles (live differential test), and
//! robustness on hostile input (cfsim must exit 0 or 1, never crash or hang).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod parse_support;

use std::path::{Path, PathBuf};

use parse_support::{
    cf_files_below, cf_promises, cfsim, copy_tree, dot_name, first_error_line, first_json_diff,
    fixtures, json_document, masterfiles, parse_dir, pcf_lossy_names, preview, read_line_file,
    render_expected, round_trip_difference, run, stem, with_ext, Failures,
};

/// Scratch directory of this suite inside cargo's target dir (never in the source tree).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("parse_conformance")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `cfsim promises -p json -f ./F.cf` from F's directory equals the recorded `F.json`: structurally, and
/// byte for byte (cf-promises' layout, key order, reals with four decimals).
#[test]
fn ok_fixtures_json_matches_recording() {
    let files = fixtures("ok");
    let mut failures = Failures::default();
    for f in &files {
        let out = run(
            &cfsim(),
            f.parent().unwrap(),
            &["promises", "-p", "json", "-f", &dot_name(f)],
        );
        if out.code != Some(0) {
            failures.push(format!(
                "ok/{}: cfsim {}: {}",
                stem(f),
                out.describe(),
                preview(&out.stderr)
            ));
            continue;
        }
        let recorded = std::fs::read(with_ext(f, "json")).unwrap();
        let expected = json_document(&recorded).unwrap();
        match json_document(&out.stdout) {
            Ok(actual) => {
                if let Some(diff) = first_json_diff(&expected, &actual) {
                    failures.push(format!("ok/{}: {diff}", stem(f)));
                } else if out.stdout != recorded {
                    failures.push(format!("ok/{}: same structure, different bytes", stem(f)));
                }
            }
            Err(e) => failures.push(format!("ok/{}: {e}", stem(f))),
        }
    }
    failures.assert_none("cfsim -p json vs ok/*.json", files.len());
}

/// Fixtures whose `-p cf` output intentionally differs from cf-promises' although its printer is not lossy
/// for the JSON: cf-promises drops custom promise type sections and `promise agent` blocks from `-p cf`
/// (they are not in the JSON either), which makes the printed policy fail at run time; cfsim keeps them.
const PCF_KEEPS_CUSTOM_PROMISES: &[&str] = &["custom_promise_section.cf", "promise_block.cf"];

/// `cfsim promises -p cf -f ./F.cf` prints exactly what cf-promises printed (`F.pcf`), except where the
/// real printer loses information (`ok/pcf-lossy.txt`, recorded) or drops custom promises (above): there
/// cfsim prints what parses back to the same policy (`ok_fixtures_cf_output_round_trips`).
#[test]
fn ok_fixtures_cf_output_matches_recording() {
    let files = fixtures("ok");
    let lossy = pcf_lossy_names();
    let mut failures = Failures::default();
    let mut checked = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if lossy.contains(&name) || PCF_KEEPS_CUSTOM_PROMISES.contains(&name.as_str()) {
            continue;
        }
        checked += 1;
        let out = run(
            &cfsim(),
            f.parent().unwrap(),
            &["promises", "-p", "cf", "-f", &dot_name(f)],
        );
        let expected = std::fs::read(with_ext(f, "pcf")).unwrap();
        if out.code != Some(0) || out.stdout != expected {
            failures.push(format!(
                "ok/{}: cfsim -p cf ({}) differs from F.pcf; got:\n{}",
                stem(f),
                out.describe(),
                preview(&out.stdout)
            ));
        }
    }
    failures.assert_none("cfsim -p cf vs ok/*.pcf", checked);
}

/// Round trip: the `-p cf` output of cfsim, parsed again by cfsim, gives the JSON of the original fixture
/// (ignoring `line` and `sourcePath`). The printed file is placed in a scratch copy of `ok/` so that
/// relative `inputs` still resolve. Every fixture is checked, including those where the real printer is
/// lossy (`ok/pcf-lossy.txt`): cfsim's printer is not.
#[test]
fn ok_fixtures_cf_output_round_trips() {
    let files = fixtures("ok");
    let dir = scratch("roundtrip");
    copy_tree(&files[0].parent().unwrap().join("inc"), &dir.join("inc"));
    let mut failures = Failures::default();
    let mut checked = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        checked += 1;
        let printed = run(
            &cfsim(),
            f.parent().unwrap(),
            &["promises", "-p", "cf", "-f", &dot_name(f)],
        );
        if printed.code != Some(0) {
            failures.push(format!(
                "ok/{}: cfsim -p cf {}",
                stem(f),
                printed.describe()
            ));
            continue;
        }
        if let Some(diff) =
            round_trip_difference(&cfsim(), Some("promises"), &dir, f, &printed.stdout)
        {
            failures.push(format!("ok/{name}: round trip changed the policy: {diff}"));
        }
    }
    eprintln!(
        "round trip: {} fixtures skipped (listed in ok/pcf-lossy.txt)",
        files.len() - checked
    );
    failures.assert_none("cfsim -p cf → -p json round trip", checked);
}

/// Invalid policies: cfsim exits 1 and its first `path:line:col: error:` is on the recorded line; its full
/// stderr is snapshotted under `snapshots/parse_err/`.
#[test]
fn err_fixtures_fail_on_the_recorded_line() {
    let files = fixtures("err");
    let mut failures = Failures::default();
    insta::with_settings!({snapshot_path => "../snapshots/parse_err", prepend_module_to_snapshot => false}, {
        insta::glob!("../policies/parse/err", "*.cf", |f| {
            let out = run(&cfsim(), f.parent().unwrap(), &["promises", "-f", &dot_name(f)]);
            insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr).into_owned());
            if out.code != Some(1) {
                failures.push(format!("err/{}: expected exit 1, cfsim {}", stem(f), out.describe()));
            }
            let expected = read_line_file(&with_ext(f, "line"));
            let got = first_error_line(&out.stderr);
            if got != Some(expected) {
                failures.push(format!("err/{}: first error on line {got:?}, cf-promises says {expected}", stem(f)));
            }
        });
    });
    failures.assert_none("cfsim on err/*.cf", files.len());
}

/// Every `.cf` file of the installed masterfiles: cfsim's `-p json` equals the live cf-promises `-p json`
/// (same cwd = the masterfiles root, same `./relative/path.cf` argument). Log lines cf-promises prints before
/// the JSON document (e.g. for `controls/def_inputs.cf`) are not compared.
#[test]
fn masterfiles_json_matches_live_cf_promises() {
    let Some(cf) = cf_promises("masterfiles_json_matches_live_cf_promises") else {
        return;
    };
    let Some(root) = masterfiles("masterfiles_json_matches_live_cf_promises") else {
        return;
    };
    let files = cf_files_below(&root);
    assert!(!files.is_empty(), "no .cf files under {}", root.display());
    let mut failures = Failures::default();
    for rel in &files {
        let real = run(&cf, &root, &["-p", "json", "-f", rel]);
        let expected = match json_document(&real.stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{rel}: cf-promises ({}) {e}", real.describe()));
                continue;
            }
        };
        let ours = run(&cfsim(), &root, &["promises", "-p", "json", "-f", rel]);
        match json_document(&ours.stdout) {
            Ok(actual) => {
                if let Some(diff) = first_json_diff(&expected, &actual) {
                    failures.push(format!("{rel}: {diff}"));
                }
            }
            Err(e) => failures.push(format!(
                "{rel}: cfsim ({}) {e} {}",
                ours.describe(),
                preview(&ours.stderr)
            )),
        }
    }
    failures.assert_none(
        "masterfiles: cfsim -p json vs live cf-promises -p json",
        files.len(),
    );
}

/// Deterministic pseudo-random bytes (xorshift64), so the garbage inputs are the same on every run.
fn garbage(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
    let mut state = seed.max(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            alphabet[(state % alphabet.len() as u64) as usize]
        })
        .collect()
}

/// Hostile inputs for the robustness test, as (file name, bytes).
fn hostile_inputs() -> Vec<(String, Vec<u8>)> {
    const TEN_MB: usize = 10 * 1024 * 1024;
    const DEPTH: usize = 10_000;
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("empty.cf".into(), Vec::new()),
        (
            "non_utf8_in_string.cf".into(),
            b"bundle agent main\n{\n reports:\n  \"\xff\xfe\xc3\x28\";\n}\n".to_vec(),
        ),
        (
            "non_utf8_bare.cf".into(),
            b"bundle agent main\n{\n reports:\n  \"x\" \xff\xfe;\n}\n\xc3".to_vec(),
        ),
        (
            "nul_in_string.cf".into(),
            b"bundle agent main\n{\n reports:\n  \"a\x00b\";\n}\n".to_vec(),
        ),
        ("nul_everywhere.cf".into(), vec![0u8; 4096]),
        ("lone_quote.cf".into(), b"\"".to_vec()),
        (
            "lone_dollar_paren.cf".into(),
            b"bundle agent main { vars: \"x\" string => $(".to_vec(),
        ),
        (
            "unterminated_comment_then_eof.cf".into(),
            b"bundle agent main\n{ # no newline at eof".to_vec(),
        ),
        (
            "macro_only.cf".into(),
            b"@if minimum_version(3.18)\n".to_vec(),
        ),
    ];
    let mut long_string = b"bundle agent main { reports: \"".to_vec();
    long_string.extend(std::iter::repeat_n(b'a', TEN_MB));
    long_string.extend_from_slice(b"\"; }\n");
    cases.push(("ten_mb_string_line.cf".into(), long_string));
    let mut long_garbage = garbage(7, TEN_MB, b"abc {}();,=>\"'$@:.!|&");
    long_garbage.retain(|b| *b != b'\n');
    cases.push(("ten_mb_garbage_line.cf".into(), long_garbage));
    let mut braces = b"bundle agent main { vars: \"x\" slist => ".to_vec();
    braces.extend(std::iter::repeat_n(b'{', DEPTH));
    braces.extend(std::iter::repeat_n(b'}', DEPTH));
    braces.extend_from_slice(b"; }\n");
    cases.push(("deep_braces.cf".into(), braces));
    let mut calls = b"bundle agent main { vars: \"x\" string => ".to_vec();
    for _ in 0..DEPTH {
        calls.extend_from_slice(b"f(");
    }
    calls.extend(std::iter::repeat_n(b')', DEPTH));
    calls.extend_from_slice(b"; }\n");
    cases.push(("deep_calls.cf".into(), calls));
    let mut parens = b"bundle agent main { reports: ".to_vec();
    parens.extend(std::iter::repeat_n(b'(', DEPTH));
    parens.extend_from_slice(b"linux");
    parens.extend(std::iter::repeat_n(b')', DEPTH));
    parens.extend_from_slice(b":: \"x\"; }\n");
    cases.push(("deep_guard_parens.cf".into(), parens));
    let mut if_parens = b"bundle agent main { reports: \"x\" if => \"".to_vec();
    if_parens.extend(std::iter::repeat_n(b'(', DEPTH));
    if_parens.extend_from_slice(b"linux\"; }\n");
    cases.push(("deep_if_parens_unclosed.cf".into(), if_parens));
    let mut open_only = Vec::new();
    open_only.extend(std::iter::repeat_n(b'{', DEPTH));
    open_only.extend(std::iter::repeat_n(b'(', DEPTH));
    cases.push(("deep_open_only.cf".into(), open_only));
    for seed in 1..=8u64 {
        let all_bytes: Vec<u8> = (0..=255).collect();
        cases.push((
            format!("random_bytes_{seed}.cf"),
            garbage(seed, 4096, &all_bytes),
        ));
        let tokens = b"bundle agent body common main vars: reports: \"x\" 'y' `z` { } ( ) , ; => -> :: $( ${ @( ) linux . | & ! # \n";
        cases.push((
            format!("random_tokens_{seed}.cf"),
            garbage(seed * 31, 4096, tokens),
        ));
    }
    cases
}

/// cfsim never crashes on hostile input: exit 0 or 1 (a signal, a timeout, or Rust's panic exit 101 fail),
/// and an exit 1 comes with at least one error diagnostic (`path:line:col: error:` or cf-promises' fatal
/// form `path: line,col: Fatal error …`).
#[test]
fn hostile_input_never_crashes() {
    let dir = scratch("hostile");
    let cases = hostile_inputs();
    let mut failures = Failures::default();
    for (name, bytes) in &cases {
        std::fs::write(dir.join(name), bytes).unwrap();
        for format in ["json", "cf"] {
            let out = run(
                &cfsim(),
                &dir,
                &["promises", "-p", format, "-f", &format!("./{name}")],
            );
            if !matches!(out.code, Some(0) | Some(1)) {
                failures.push(format!(
                    "{name} (-p {format}): cfsim {}: {}",
                    out.describe(),
                    preview(&out.stderr)
                ));
            } else if out.code == Some(1) && first_error_line(&out.stderr).is_none() {
                failures.push(format!(
                    "{name} (-p {format}): exit 1 without an error diagnostic: {}",
                    preview(&out.stderr)
                ));
            }
        }
    }
    failures.assert_none("hostile inputs", cases.len() * 2);
}

/// The syntax-check recordings (`policies/parse/checks/**`, 528 policies recorded from cf-promises):
/// `cfsim promises -f ./F.cf` prints exactly what cf-promises printed — every message, position, caret,
/// stdout log line and exit code. For a valid policy (exit 0) cf-promises goes on to evaluate it, so its
/// stdout is evaluation output (e.g. "Failed to parse integer number" from pre-evaluating `int => "@(x)"`):
/// there only stderr and the exit code are compared here; evaluation output is the evaluator's to match.
#[test]
fn check_fixtures_cli_output_matches_recording() {
    let root = parse_dir().join("checks");
    let mut files: Vec<std::path::PathBuf> = cf_files_below(&root)
        .into_iter()
        .map(|p| root.join(p))
        .filter(|p| with_ext(p, "expected").exists())
        .collect();
    files.sort();
    assert!(
        files.len() >= 500,
        "expected the 528 check recordings, found {}",
        files.len()
    );
    let mut failures = Failures::default();
    for f in &files {
        let out = run(
            &cfsim(),
            f.parent().unwrap(),
            &["promises", "-f", &dot_name(f)],
        );
        let expected = std::fs::read(with_ext(f, "expected")).unwrap();
        let stdout: &[u8] = if expected.starts_with(b"# exit: 0\n") {
            b""
        } else {
            &out.stdout
        };
        let expected = if expected.starts_with(b"# exit: 0\n") {
            let cut = expected
                .windows(10)
                .position(|w| w == b"# stdout:\n")
                .unwrap();
            expected[..cut + 10].to_vec()
        } else {
            expected
        };
        let got = render_expected(out.code, &out.stderr, stdout);
        if got != expected {
            failures.push(format!(
                "checks/{}: differs from the recording; got:\n{}",
                stem(f),
                preview(&got)
            ));
        }
    }
    failures.assert_none("cfsim promises vs checks/**/*.expected", files.len());
}
