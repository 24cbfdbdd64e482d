//! Byte-compares cfsim's full `promises -f ./F.cf` output (exit code, stderr, stdout) with every recorded
//! `policies/parse/err/F.expected`: the follow-up messages of cf-promises' error recovery included.

#![allow(clippy::unwrap_used, reason = "test code")]

mod parse_support;

use parse_support::{cfsim, dot_name, fixtures, preview, render_expected, run, stem, with_ext};

/// Recordings of files that are not UTF-8: cf-promises echoes their invalid bytes as they are, cfsim's
/// diagnostics are UTF-8 text and show U+FFFD for them (lines and columns still count the file's bytes,
/// as the agent's do). Their output must equal the recording read as UTF-8 with invalid bytes replaced.
const NOT_UTF8: &[&str] = &["non_utf8_bytes", "non_utf8_invalid_sequence"];

/// How many recordings must be identical byte for byte (all but `NOT_UTF8`).
const FLOOR: usize = 102;

#[test]
fn err_fixtures_full_output_is_identical() {
    let files = fixtures("err");
    let mut same = 0usize;
    let mut failures = Vec::new();
    for f in &files {
        let expected = std::fs::read(with_ext(f, "expected")).unwrap();
        let out = run(
            &cfsim(),
            f.parent().unwrap(),
            &["promises", "-f", &dot_name(f)],
        );
        let got = render_expected(out.code, &out.stderr, &out.stdout);
        if got == expected {
            same += 1;
        } else if !(NOT_UTF8.contains(&stem(f).as_str())
            && String::from_utf8_lossy(&expected).as_bytes() == got.as_slice())
        {
            failures.push(format!("{}: got\n{}", stem(f), preview(&got)));
        }
    }
    eprintln!("err/*.expected identical: {same}/{}", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(same >= FLOOR, "only {same} identical, floor {FLOOR}");
}
