//! Re-checks the recordings of `policies/functions/*.expected` against the real cf-agent 3.21.0 when it
//! is installed: each generated policy is validated with `cf-promises -c` (never run cf-agent on an
//! invalid policy: it would fall back to failsafe) and run with `cf-agent -K`; stdout must equal the
//! recording, and `cf-promises -f` must print `<family>.promises.expected`. Without cf-agent the test prints a skip note, except under `CI=true`, where it fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fncases;

use std::path::PathBuf;
use std::process::Command;

fn find(bin: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(bin))
            .find(|p| p.is_file())
    })
}

fn agent_or_skip() -> Option<(PathBuf, PathBuf)> {
    match (find("cf-promises"), find("cf-agent")) {
        (Some(p), Some(a)) => Some((p, a)),
        _ => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("cf-agent/cf-promises not installed but CI=true: install cfengine3 3.21.0");
            }
            eprintln!(
                "functions_live: skipped, cf-agent is not installed (CI=true makes this a failure)"
            );
            None
        }
    }
}

/// Every recorded case file: (directory, name).
fn recordings() -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    for dir in [fncases::dir(), fncases::expr_dir()] {
        let names = fncases::stems(&dir, ".cases");
        out.extend(names.into_iter().map(|n| (dir.clone(), n)));
    }
    out
}

#[test]
fn generated_policies_contain_every_case() {
    for (dir, fam) in recordings() {
        let cf = std::fs::read_to_string(dir.join(format!("{fam}.cf"))).unwrap();
        let file = fncases::read_cases_in(&dir, &fam).unwrap();
        for (_, text) in &file.exprs {
            assert!(
                cf.contains(text.as_str()),
                "{fam}.cf is stale (missing `{text}`)"
            );
        }
        for c in &file.cases {
            assert!(
                cf.contains(&c.call),
                "{fam}.cf is stale (missing `{}`): run tests/oracle/record-functions.sh {fam}",
                c.call
            );
        }
    }
}

#[test]
fn recordings_match_the_live_agent() {
    let Some((promises, agent)) = agent_or_skip() else {
        return;
    };
    let mut diffs = Vec::new();
    for (dir, fam) in recordings() {
        let policy = format!("./{fam}.cf");
        let check = Command::new(&promises)
            .args(["-c", "-f", &policy])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(check.status.success(), "cf-promises rejected {fam}.cf");
        let out = Command::new(&agent)
            .args(["-K", "-f", &policy])
            .env(fncases::TEST_VAR.0, fncases::TEST_VAR.1)
            .current_dir(&dir)
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&out.stdout).into_owned();
        let want = std::fs::read_to_string(dir.join(format!("{fam}.expected"))).unwrap();
        if got != want {
            diffs.push(format!("{fam}: live output differs from {fam}.expected\n--- live\n{got}\n--- recorded\n{want}"));
        }
        let recorded = dir.join(format!("{fam}.promises.expected"));
        if recorded.is_file() {
            let out = Command::new(&promises)
                .args(["-f", &policy])
                .env(fncases::TEST_VAR.0, fncases::TEST_VAR.1)
                .current_dir(&dir)
                .output()
                .unwrap();
            let got = String::from_utf8_lossy(&out.stdout).into_owned();
            let want = std::fs::read_to_string(&recorded).unwrap();
            if got != want {
                diffs.push(format!("{fam}: live cf-promises output differs from {fam}.promises.expected\n--- live\n{got}\n--- recorded\n{want}"));
            }
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn argument_error_recording_matches_live_cf_promises() {
    let Some((promises, _)) = agent_or_skip() else {
        return;
    };
    let dir = fncases::dir();
    let list = std::fs::read_to_string(dir.join("arity.list")).unwrap();
    let mut got = String::new();
    let tmp = std::env::temp_dir().join(format!("cfsim-arity-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for line in list
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (ty, call) = line.split_once(' ').unwrap();
        std::fs::write(
            tmp.join("x.cf"),
            format!("bundle agent main\n{{\nvars:\n  \"x\" {ty} => {call};\n}}\n"),
        )
        .unwrap();
        let out = Command::new(&promises)
            .args(["-c", "-f", "./x.cf"])
            .current_dir(&tmp)
            .output()
            .unwrap();
        got.push_str(&format!("== {call}\n"));
        got.push_str(&String::from_utf8_lossy(&out.stdout));
        got.push_str(&String::from_utf8_lossy(&out.stderr));
        got.push_str(&format!("exit {}\n", out.status.code().unwrap_or(-1)));
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let want = std::fs::read_to_string(dir.join("arity.expected")).unwrap();
    assert_eq!(got, want, "arity.expected differs from live cf-promises");
}

#[test]
fn splayclass_recording_matches_live_agent() {
    let Some((_, agent)) = agent_or_skip() else {
        return;
    };
    let dir = fncases::dir();
    let out = Command::new(&agent)
        .args(["-K", "-v", "-f", "./splayclass.cf"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let mut got: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("Computed context"))
        .filter_map(|l| l.split("verbose: ").nth(1).map(str::to_string))
        .collect();
    got.sort();
    got.dedup();
    let want: Vec<String> = std::fs::read_to_string(dir.join("splayclass.expected"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(got, want);
}

/// The recordings of `policies/functions/counts/*.cf` against the live agent (validated first).
#[test]
fn count_recordings_match_the_live_agent() {
    let Some((promises, agent)) = agent_or_skip() else {
        return;
    };
    let dir = fncases::dir().join("counts");
    let names = fncases::stems(&dir, ".cf");
    let mut diffs = Vec::new();
    for n in &names {
        let policy = format!("./{n}.cf");
        let check = Command::new(&promises)
            .args(["-c", "-f", &policy])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(check.status.success(), "cf-promises rejected counts/{n}.cf");
        let text = std::fs::read_to_string(dir.join(format!("{n}.cf"))).unwrap();
        let extra: Vec<&str> = text
            .lines()
            .find_map(|l| l.strip_prefix("# args:"))
            .map(|a| a.split_whitespace().collect())
            .unwrap_or_default();
        let out = Command::new(&agent)
            .args(["-K", "-f", &policy])
            .args(&extra)
            .current_dir(&dir)
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&out.stdout).into_owned();
        let want = std::fs::read_to_string(dir.join(format!("{n}.expected"))).unwrap();
        if got != want {
            diffs.push(format!(
                "counts/{n}: live output differs\n--- live\n{got}\n--- recorded\n{want}"
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The usemodule recordings against the live agent: a temporary copy of the fixture's work directory
/// (plus `bin/cf-promises`, which the agent's validation step looks for there) selected with
/// CFENGINE_TEST_OVERRIDE_WORKDIR, so nothing is installed into the real work directory.
#[test]
fn usemodule_recordings_match_the_live_agent() {
    let Some((promises, agent)) = agent_or_skip() else {
        return;
    };
    let dir = fncases::dir().join("usemodule");
    let wd = std::env::temp_dir().join(format!("cfsim-usemodule-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&wd);
    std::fs::create_dir_all(wd.join("modules")).unwrap();
    std::fs::create_dir_all(wd.join("bin")).unwrap();
    let module = "cfsim_probe";
    std::fs::copy(
        dir.join("workdir/modules").join(module),
        wd.join("modules").join(module),
    )
    .unwrap();
    std::os::unix::fs::symlink(&promises, wd.join("bin/cf-promises")).unwrap();
    let check = Command::new(&promises)
        .args(["-c", "-f", "./usemodule.cf"])
        .env("CFENGINE_TEST_OVERRIDE_WORKDIR", &wd)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(check.status.success(), "cf-promises rejected usemodule.cf");
    let wd_text = wd.to_string_lossy().to_string();
    let mut diffs = Vec::new();
    for (flag, rec) in [
        (None, "usemodule.expected"),
        (Some("-I"), "usemodule.info.expected"),
    ] {
        let mut args = vec!["-K", "-f", "./usemodule.cf"];
        args.extend(flag);
        let out = Command::new(&agent)
            .args(&args)
            .env("CFENGINE_TEST_OVERRIDE_WORKDIR", &wd)
            .current_dir(&dir)
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&out.stdout).replace(&wd_text, "$WORKDIR");
        let want = std::fs::read_to_string(dir.join(rec)).unwrap();
        if got != want {
            diffs.push(format!(
                "{rec}: live differs\n--- live\n{got}\n--- recorded\n{want}"
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&wd);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The recordings of `policies/functions/fatal/*.cf` against the live cf-promises (cf-agent is never run
/// on them: its validation fails and it would fall back to failsafe).
#[test]
fn fatal_recordings_match_live_cf_promises() {
    let Some((promises, _)) = agent_or_skip() else {
        return;
    };
    let dir = fncases::dir().join("fatal");
    let names = fncases::stems(&dir, ".cf");
    for n in &names {
        let out = Command::new(&promises)
            .args(["-f", &format!("./{n}.cf")])
            .current_dir(&dir)
            .output()
            .unwrap();
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let got = format!("# exit: {}\n{text}", out.status.code().unwrap_or(-1));
        let want = std::fs::read_to_string(dir.join(format!("{n}.expected"))).unwrap();
        assert_eq!(got, want, "live cf-promises on fatal/{n}.cf");
    }
}
