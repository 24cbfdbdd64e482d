//! Function families end to end: each `policies/functions/<family>.cf` (generated from `<family>.cases`)
//! run by `cfsim agent`, compared byte for byte with what the real cf-agent 3.21 printed for it
//! (`<family>.expected`, re-checked live by tests/functions_live.rs) — report lines and every log line,
//! including the function errors of cf-agent's own `cf-promises -c` validation and of each evaluation.
//! Families listed in `IDENTICAL` must stay identical (a ratchet: add a family when it starts to match);
//! the others are reported with their count of differing lines. Families calling command-running
//! functions run with `--exec` (cfsim runs no command unless allowed); `splayclass.expected` is a filtered
//! `-v` recording and is compared through the same filter. `cfsim promises` is compared with
//! `<family>.promises.expected` (what `cf-promises -f` printed).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fncases;

use std::path::Path;

/// Families whose whole agent output is identical to the real agent's.
const IDENTICAL: &[&str] = &[
    "classes",
    "corners",
    "data",
    "edges",
    "files",
    "inventory",
    "lists",
    "math",
    "misc",
    "module",
    "mustache",
    "net",
    "pcre",
    "readers",
    "regex",
    "splayclass",
    "strings",
    "system",
    "time",
    "vars",
    "yaml",
];

/// splayclass.expected holds the verbose "Computed context" lines of `cf-agent -K -v` (the agent prints
/// nothing at its default level), filtered as tests/oracle/record-splay.sh does: the same filter here.
fn splay_filter(stdout: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(stdout);
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| l.contains("Computed context"))
        .map(|l| match l.rsplit_once("verbose: ") {
            Some((_, rest)) => rest.to_string(),
            None => l.to_string(),
        })
        .collect();
    lines.sort();
    lines.dedup();
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

#[test]
fn function_families_through_cfsim_agent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions");
    let mut families: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let stem = p.file_stem()?.to_string_lossy().to_string();
            (p.extension().is_some_and(|x| x == "cf")
                && dir.join(format!("{stem}.expected")).exists())
            .then_some(stem)
        })
        .collect();
    families.sort();
    let mut identical = Vec::new();
    let mut report = Vec::new();
    for fam in &families {
        let policy = format!("./{fam}.cf");
        let mut args = vec!["agent", "-K", "-f", &policy];
        if fam == "splayclass" {
            args.push("-v");
        }
        // execresult & co. run their command only when the user allows execution (`--exec`; cfsim
        // never runs commands on its own): these families call them
        let text = std::fs::read_to_string(dir.join(format!("{fam}.cf"))).unwrap();
        if ["execresult", "returnszero", "usemodule"]
            .iter()
            .any(|f| text.contains(f))
        {
            args.push("--exec");
        }
        let mut out = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(&dir)
            .env("CFSIM_TEST_VAR", "value-of-test")
            .args(&args)
            .output()
            .unwrap();
        if fam == "splayclass" {
            out.stdout = splay_filter(&out.stdout);
        }
        let want = std::fs::read(dir.join(format!("{fam}.expected"))).unwrap();
        if out.stdout == want {
            identical.push(fam.clone());
        } else {
            let got = String::from_utf8_lossy(&out.stdout);
            let want = String::from_utf8_lossy(&want);
            let differing = want
                .lines()
                .filter(|l| !got.lines().any(|g| g == *l))
                .count();
            report.push(format!("{fam}: {differing} recorded lines not reproduced"));
        }
    }
    eprintln!(
        "function families identical end to end: {}/{} ({})\n{}",
        identical.len(),
        families.len(),
        identical.join(", "),
        report.join("\n")
    );
    for fam in IDENTICAL {
        assert!(
            identical.iter().any(|f| f == fam),
            "family {fam} no longer identical to cf-agent's output"
        );
    }
}

/// `cfsim promises -f ./<family>.cf` prints what `cf-promises -f` printed for it (the errors of its
/// pre-evaluation; `<family>.promises.expected`, re-checked live by tests/functions_live.rs): every
/// recorded family must match.
#[test]
fn function_families_through_cfsim_promises() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions");
    let families = fncases::stems(&dir, ".promises.expected");
    assert!(families.len() >= 18, "promises recordings missing");
    let mut differing = Vec::new();
    for fam in &families {
        let policy = format!("./{fam}.cf");
        let mut args = vec!["promises", "-f", &policy];
        let text = std::fs::read_to_string(dir.join(format!("{fam}.cf"))).unwrap();
        if ["execresult", "returnszero", "usemodule"]
            .iter()
            .any(|f| text.contains(f))
        {
            args.push("--exec");
        }
        let got = cfsim_stdout(&dir, &args, &[("CFSIM_TEST_VAR", "value-of-test")]);
        let want = std::fs::read(dir.join(format!("{fam}.promises.expected"))).unwrap();
        differing.extend(difference(fam, &got, &want, "cf-promises"));
    }
    assert!(differing.is_empty(), "{}", differing.join("\n"));
}

/// cfsim's standard output for `args`, run in `dir` with the extra environment `env`.
fn cfsim_stdout(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(dir)
        .envs(env.iter().copied())
        .args(args)
        .output()
        .unwrap()
        .stdout
}

/// A report entry (both outputs) when cfsim's output `got` for `name` differs from `tool`'s recording.
fn difference(name: &str, got: &[u8], want: &[u8], tool: &str) -> Option<String> {
    (got != want).then(|| {
        format!(
            "{name}:\n--- cfsim\n{}--- {tool}\n{}",
            String::from_utf8_lossy(got),
            String::from_utf8_lossy(want)
        )
    })
}

/// The flags of a policy's `# args:` line (as cf-oracle passes them).
fn extra_args(text: &str) -> Vec<&str> {
    text.lines()
        .find_map(|l| l.strip_prefix("# args:"))
        .map(|a| a.split_whitespace().collect())
        .unwrap_or_default()
}

/// `policies/functions/counts/*.cf`: small policies pinning how often the agent logs a function's
/// errors at each stage (validation, PolicyResolve, stage 7, passes, BundleResolve, actuators calling a
/// failed function again), recorded by tests/oracle/record-fn-counts.sh; all must be identical.
#[test]
fn function_error_counts_match_the_agent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions/counts");
    let names = fncases::stems(&dir, ".cf");
    assert!(names.len() >= 6, "count fixtures missing");
    let mut differing = Vec::new();
    for n in &names {
        let policy = format!("./{n}.cf");
        let text = std::fs::read_to_string(dir.join(format!("{n}.cf"))).unwrap();
        let mut args = vec!["agent", "-K", "-f", &policy];
        args.extend(extra_args(&text));
        // flags for cfsim only (e.g. what a command the agent ran returns)
        args.extend(
            text.lines()
                .find_map(|l| l.strip_prefix("# cfsim-args:"))
                .map(|a| a.split_whitespace().collect::<Vec<_>>())
                .unwrap_or_default(),
        );
        let got = cfsim_stdout(&dir, &args, &[]);
        let want = std::fs::read(dir.join(format!("{n}.expected"))).unwrap();
        differing.extend(difference(n, &got, &want, "cf-agent"));
    }
    assert!(differing.is_empty(), "{}", differing.join("\n"));
}

/// `usemodule()` with the fixture's module directory (`policies/functions/usemodule/workdir`, selected with
/// the agent's CFENGINE_TEST_OVERRIDE_WORKDIR) and `--exec`, at the default level and with `-I`, against
/// the recordings of tests/oracle/record-usemodule.sh (the work directory written as `$WORKDIR`).
#[test]
fn usemodule_matches_the_agent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions/usemodule");
    let wd = dir.join("workdir");
    let wd_text = wd.to_string_lossy().to_string();
    for (flag, rec) in [
        (None, "usemodule.expected"),
        (Some("-I"), "usemodule.info.expected"),
    ] {
        let mut args = vec!["agent", "--exec", "-K", "-f", "./usemodule.cf"];
        args.extend(flag);
        let out = cfsim_stdout(&dir, &args, &[("CFENGINE_TEST_OVERRIDE_WORKDIR", &wd_text)]);
        let got = String::from_utf8_lossy(&out).replace(&wd_text, "$WORKDIR");
        let want = std::fs::read_to_string(dir.join(rec)).unwrap();
        assert_eq!(got, want, "cfsim agent {flag:?} differs from {rec}");
    }
}

/// `policies/functions/fatal/*.cf`: a function's fatal error stops `cfsim promises` where cf-promises
/// stops, with its exit code (recorded by tests/oracle/record-fatal.sh as `# exit: N` then stdout); the
/// agent reports that its validation failed and does not run the policy.
#[test]
fn fatal_function_errors_stop_like_cf_promises() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions/fatal");
    let names = fncases::stems(&dir, ".cf");
    assert!(names.len() >= 2, "fatal fixtures missing");
    for n in &names {
        let policy = format!("./{n}.cf");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(&dir)
            .args(["promises", "-f", &policy])
            .output()
            .unwrap();
        let got = format!(
            "# exit: {}\n{}",
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout)
        );
        let want = std::fs::read_to_string(dir.join(format!("{n}.expected"))).unwrap();
        assert_eq!(got, want, "cfsim promises on fatal/{n}.cf");
        let agent = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(&dir)
            .args(["agent", "-K", "-f", &policy])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&agent.stdout);
        assert_eq!(agent.status.code(), Some(1), "cfsim agent on fatal/{n}.cf");
        assert!(
            text.contains("so going to failsafe") && !text.contains("R: "),
            "cfsim agent on fatal/{n}.cf:\n{text}"
        );
    }
}

/// Without `--exec` no command runs: execresult & co. fail with their "could not run" error and usemodule
/// does not run its module (the decision documented by `cfsim functions`).
#[test]
fn commands_run_only_with_exec() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions/usemodule");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(&dir)
        .env("CFENGINE_TEST_OVERRIDE_WORKDIR", dir.join("workdir"))
        .args(["agent", "-K", "-f", "./usemodule.cf"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("usemodule could not run"), "{text}");
    assert!(!text.contains("R: probe_class_x"), "{text}");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(&dir)
        .env("CFSIM_TEST_VAR", "value-of-test")
        .args(["agent", "-K", "-f", "./system.cf"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("execresult could not run '/bin/echo hello'"),
        "{text}"
    );
}
