//! Byte-compares cfsim's full `promises -f ./F.cf` output (exit code, stderr, stdout) with every recorded
//! `policies/parse/err/F.expected`: the follow-up messages of cf-promises' error recovery included.

#![allow(clippy::unwrap_used, reason = "test code")]

mod parse_support;

use parse_support::{cfsim, dot_name, fixtures, preview, render_expected, run, stem, with_ext};

/// Recordings cfsim does not reproduce byte for byte, each with its reason.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "non_utf8_bytes",
        "cfsim reads policy files as UTF-8 text (invalid bytes become U+FFFD, 3 bytes each), so columns \
         after an invalid byte and the echoed bytes differ",
    ),
    ("non_utf8_invalid_sequence", "as non_utf8_bytes"),
];

/// How many recordings must be identical (all but `EXCEPTIONS`).
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
        } else if !EXCEPTIONS.iter().any(|(n, _)| *n == stem(f)) {
            failures.push(format!("{}: got\n{}", stem(f), preview(&got)));
        }
    }
    eprintln!("err/*.expected identical: {same}/{}", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(same >= FLOOR, "only {same} identical, floor {FLOOR}");
}
