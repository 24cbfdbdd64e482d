//! Parse-time checks: the recordings in `policies/parse/checks/` are what the real cf-promises 3.21.0 prints
//! (re-checked live when it is installed), and `syntax::check` reproduces every parse-time message, caret
//! column and log line of them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/check_fixtures.rs"]
mod check_fixtures;
#[path = "common/check_post.rs"]
mod check_post;
#[path = "common/check_rval.rs"]
mod check_rval;
#[path = "common/tables_live.rs"]
mod tables_live;

use check_fixtures::{
    fixture_dir, fixtures, predict, read_recording, run_location, split_post_parse, summary_line,
    Recording,
};

#[test]
fn there_are_fixtures_with_recordings() {
    let names = fixtures();
    assert!(names.len() >= 200, "only {} fixtures", names.len());
    for name in &names {
        assert!(
            fixture_dir().join(format!("{name}.expected")).is_file(),
            "{name}.cf has no recording; run tests/oracle/record-checks.sh"
        );
    }
}

#[test]
fn recordings_match_live_cf_promises() {
    let Some(bin) = tables_live::cf_promises("recordings_match_live_cf_promises") else {
        return;
    };
    let names = fixtures();
    // cf-promises runs are process-start bound: a few at a time.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = names
            .chunks(names.len().div_ceil(4).max(1))
            .map(|chunk| {
                let bin = &bin;
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for name in chunk {
                        let (dir, file) = run_location(name);
                        let run = tables_live::run(bin, &dir, &["-f", &file]).unwrap();
                        let live = Recording {
                            exit: run.exit,
                            stderr: run.stderr,
                            stdout: run.stdout,
                        };
                        let recorded = read_recording(name);
                        if live != recorded {
                            failures.push(format!(
                                "{name}:\n--- recorded\n{}\n--- live\n{}",
                                recorded.to_text(),
                                live.to_text()
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert!(
        failures.is_empty(),
        "recordings differ from cf-promises (re-record with tests/oracle/record-checks.sh):\n{}",
        failures.join("\n")
    );
}

#[test]
fn check_rs_reproduces_the_recordings() {
    let mut failures = Vec::new();
    for name in fixtures() {
        let rec = read_recording(&name);
        let (parse_time, post_parse) = split_post_parse(&rec.stderr);
        let p = predict(&name);
        let mut problems = Vec::new();
        if p.stderr != parse_time {
            problems.push(format!(
                "stderr\n--- recorded\n{parse_time}--- check.rs\n{}",
                p.stderr
            ));
        }
        let expected_post = if p.has_errors {
            Vec::new()
        } else {
            p.post.clone()
        };
        if post_parse != expected_post {
            problems.push(format!(
                "post-parse policy check\n--- recorded\n{}\n--- check.rs\n{}",
                post_parse.join("\n"),
                expected_post.join("\n")
            ));
        }
        let exit = i32::from(p.has_errors || !post_parse.is_empty());
        if exit != rec.exit {
            problems.push(format!("exit: recorded {}, check.rs {exit}", rec.exit));
        }
        if p.has_errors || !post_parse.is_empty() {
            let mut stdout = p.stdout.clone();
            if !p.too_many {
                stdout.push_str(&summary_line());
            }
            if stdout != rec.stdout {
                problems.push(format!(
                    "stdout\n--- recorded\n{}--- check.rs\n{stdout}",
                    rec.stdout
                ));
            }
        } else {
            // Without errors cf-promises goes on to evaluate the policy; its stdout is evaluation output.
            if !p.stdout.is_empty() {
                problems.push(format!("check.rs logged without an error:\n{}", p.stdout));
            }
        }
        if !problems.is_empty() {
            failures.push(format!("== {name}\n{}", problems.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
