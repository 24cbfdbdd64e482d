//! Re-checks the parse recordings under `policies/parse/` against the live `cf-promises` 3.21.0: every
//! `ok/F.json` (structurally), `ok/F.pcf`, `err/F.expected` (byte for byte) and `err/F.line` must still be
//! what the real tool prints. Without cf-promises the live tests print a skip note, or fail when `CI=true`.
//! Re-record with `tests/oracle/record-parse.sh`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod parse_support;

use std::path::Path;

use parse_support::{
    cf_promises, dot_name, first_error_line, first_json_diff, fixtures, json_document,
    read_line_file, render_expected, round_trip_difference, run, stem, with_ext, Failures,
};

/// Minimum fixture counts promised by policies/parse/README.md.
const MIN_OK: usize = 40;
const MIN_ERR: usize = 30;

#[test]
fn every_fixture_has_its_recordings() {
    let ok = fixtures("ok");
    let err = fixtures("err");
    assert!(ok.len() >= MIN_OK, "only {} ok fixtures", ok.len());
    assert!(err.len() >= MIN_ERR, "only {} err fixtures", err.len());
    let mut failures = Failures::default();
    for f in &ok {
        for ext in ["json", "pcf"] {
            if !with_ext(f, ext).is_file() {
                failures.push(format!("ok/{}: no .{ext} recording", stem(f)));
            }
        }
    }
    for f in &err {
        for ext in ["expected", "line"] {
            if !with_ext(f, ext).is_file() {
                failures.push(format!("err/{}: no .{ext} recording", stem(f)));
            }
        }
        if let Ok(expected) = std::fs::read(with_ext(f, "expected")) {
            let recorded = first_error_line(&expected);
            let line = with_ext(f, "line");
            if line.is_file() && recorded != Some(read_line_file(&line)) {
                failures.push(format!(
                    "err/{}: .line disagrees with .expected ({recorded:?})",
                    stem(f)
                ));
            }
        }
    }
    for kind in ["ok", "err"] {
        let dir = parse_support::parse_dir().join(kind);
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let recording = path.extension().is_some_and(|e| {
                ["json", "pcf", "expected", "line"].contains(&e.to_string_lossy().as_ref())
            });
            if recording && !with_ext(&path, "cf").is_file() {
                failures.push(format!(
                    "{kind}/{}: recording without a .cf fixture",
                    path.display()
                ));
            }
        }
    }
    failures.assert_none("recordings present", ok.len() + err.len());
}

#[test]
fn ok_json_recordings_match_live_cf_promises() {
    let Some(cf) = cf_promises("ok_json_recordings_match_live_cf_promises") else {
        return;
    };
    let files = fixtures("ok");
    let mut failures = Failures::default();
    for f in &files {
        let out = run(
            &cf,
            f.parent().unwrap(),
            &["-p", "json", "-f", &dot_name(f)],
        );
        if out.code != Some(0) {
            failures.push(format!("ok/{}: cf-promises {}", stem(f), out.describe()));
            continue;
        }
        let recorded = std::fs::read(with_ext(f, "json")).unwrap();
        match (json_document(&recorded), json_document(&out.stdout)) {
            (Ok(expected), Ok(actual)) => {
                if let Some(diff) = first_json_diff(&expected, &actual) {
                    failures.push(format!("ok/{}.json: {diff}", stem(f)));
                }
            }
            (Err(e), _) => failures.push(format!("ok/{}.json (recording): {e}", stem(f))),
            (_, Err(e)) => failures.push(format!("ok/{} (live): {e}", stem(f))),
        }
    }
    failures.assert_none("ok/*.json vs live cf-promises -p json", files.len());
}

#[test]
fn ok_cf_recordings_match_live_cf_promises() {
    let Some(cf) = cf_promises("ok_cf_recordings_match_live_cf_promises") else {
        return;
    };
    let files = fixtures("ok");
    let mut failures = Failures::default();
    for f in &files {
        let out = run(&cf, f.parent().unwrap(), &["-p", "cf", "-f", &dot_name(f)]);
        let recorded = std::fs::read(with_ext(f, "pcf")).unwrap();
        if out.code != Some(0) || out.stdout != recorded {
            failures.push(format!(
                "ok/{}.pcf: live cf-promises -p cf differs ({})",
                stem(f),
                out.describe()
            ));
        }
    }
    failures.assert_none("ok/*.pcf vs live cf-promises -p cf", files.len());
}

#[test]
fn err_recordings_match_live_cf_promises() {
    let Some(cf) = cf_promises("err_recordings_match_live_cf_promises") else {
        return;
    };
    let files = fixtures("err");
    let mut failures = Failures::default();
    for f in &files {
        let out = run(&cf, f.parent().unwrap(), &["-f", &dot_name(f)]);
        let live = render_expected(out.code, &out.stderr, &out.stdout);
        let recorded = std::fs::read(with_ext(f, "expected")).unwrap();
        if live != recorded {
            failures.push(format!(
                "err/{}.expected differs from live output:\n{}",
                stem(f),
                String::from_utf8_lossy(&live)
            ));
        }
        let line = read_line_file(&with_ext(f, "line"));
        if first_error_line(&out.stderr) != Some(line) {
            failures.push(format!(
                "err/{}.line: recorded {line}, live {:?}",
                stem(f),
                first_error_line(&out.stderr)
            ));
        }
    }
    failures.assert_none("err/*.expected vs live cf-promises", files.len());
}

/// `ok/pcf-lossy.txt` lists exactly the ok fixtures whose `F.pcf` (printed by the real cf-promises) does not
/// parse back, with the real cf-promises, to the recorded `F.json` (ignoring `line`/`sourcePath`).
/// With env `RECORD_PCF_LOSSY=1` the file is rewritten instead (tests/oracle/record-parse.sh does that).
#[test]
fn pcf_lossy_list_matches_live_cf_promises() {
    let Some(cf) = cf_promises("pcf_lossy_list_matches_live_cf_promises") else {
        return;
    };
    let files = fixtures("ok");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("parse_recordings")
        .join("pcf_roundtrip");
    let _ = std::fs::remove_dir_all(&dir);
    parse_support::copy_tree(&files[0].parent().unwrap().join("inc"), &dir.join("inc"));
    let mut live = String::from(
        "# ok fixtures whose `cf-promises -p cf` output (F.pcf) does not parse back to F.json with cf-promises\n\
         # itself (ignoring line/sourcePath): the real printer is lossy there. Generated by\n\
         # tests/oracle/record-parse.sh (RECORD_PCF_LOSSY=1 cargo test --test parse_recordings pcf_lossy).\n",
    );
    for f in &files {
        let printed = std::fs::read(with_ext(f, "pcf")).unwrap();
        if let Some(diff) = round_trip_difference(&cf, None, &dir, f, &printed) {
            let name = f.file_name().unwrap().to_string_lossy();
            live.push_str(&format!("{name}: {diff}\n"));
        }
    }
    let path = parse_support::pcf_lossy_path();
    if std::env::var("RECORD_PCF_LOSSY").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &live).unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        recorded, live,
        "ok/pcf-lossy.txt is stale; re-run tests/oracle/record-parse.sh"
    );
}
