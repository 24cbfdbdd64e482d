//! Checks the eval corpus `policies/eval/<topic>/NAME.cf` (issue 5's conformance target): every policy
//! has its complete recording (`.out`, `.exit`, `.info.out`, `.classes`, `.vars`, `.verbose`), and, when
//! cf-agent 3.21.0 is installed, every recording is re-checked against the live agent exactly the way
//! `tests/oracle/record-eval.sh` made it (validate with `cf-promises -c` first, run `cf-agent -K -f
//! ./NAME.cf` from the policy's directory with the policy's `# args:` flags, replace the fixture directory
//! by `$DIR`, filter tables and the -v trace with `tests/oracle/eval-filter.sh`). Without cf-agent the live
//! test prints a skip note, except under `CI=true`, where it fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod eval_support;

use eval_support::{
    is_exec, name, normalise, policies, policy_args, read_recording, recording, root, scratch,
    VARIANTS,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

#[test]
fn corpus_has_at_least_seventy_policies() {
    let n = policies().len();
    assert!(
        n >= 70,
        "policies/eval holds {n} policies, issue 5 wants at least 60 and the brief 70"
    );
}

#[test]
fn every_policy_is_completely_recorded() {
    let index = std::fs::read_to_string(root().join("policies/eval/INDEX.md")).unwrap();
    for p in policies() {
        let row = format!("| `{}` |", name(&p));
        assert!(
            index.contains(&row),
            "INDEX.md lacks {row}: run tests/oracle/record-eval.sh"
        );
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.starts_with("# "),
            "{}: must start with a comment saying what it pins",
            p.display()
        );
        for v in &VARIANTS {
            let r = recording(&p, v.suffix);
            let body = std::fs::read_to_string(&r).unwrap_or_else(|_| {
                panic!(
                    "{} is missing: run tests/oracle/record-eval.sh",
                    r.display()
                )
            });
            assert!(
                !body.contains("policy rejected by cf-promises"),
                "{}: the policy was rejected by cf-promises",
                r.display()
            );
            assert!(
                !body.contains(root().to_str().unwrap()),
                "{}: contains the absolute fixture path; it must read $DIR",
                r.display()
            );
        }
        let exit = read_recording(&p, "exit");
        assert!(
            exit.trim().parse::<i32>().is_ok(),
            "{}: .exit must hold the exit status",
            p.display()
        );
        // A run that aborts (fatal error, exit 1) prints no table: its table recordings are empty.
        let fatal = exit.trim() != "0";
        let classes = read_recording(&p, "classes");
        assert!(
            classes.starts_with("Class name ") || (fatal && classes.is_empty()),
            "{}: .classes header",
            p.display()
        );
        let vars = read_recording(&p, "vars");
        assert!(
            vars.starts_with("Variable name ") || (fatal && vars.is_empty()),
            "{}: .vars header",
            p.display()
        );
        if text.contains("commands:") {
            assert!(
                is_exec(&text),
                "{}: has commands, so it must be marked `# cfsim: --exec`",
                p.display()
            );
        }
    }
}

#[test]
fn at_least_twenty_info_recordings_differ_from_the_default_run() {
    let n = policies()
        .iter()
        .filter(|p| read_recording(p, "out") != read_recording(p, "info.out"))
        .count();
    assert!(
        n >= 20,
        "only {n} policies have -I output that differs from the default run"
    );
}

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
                "eval_recordings: live check skipped, cf-agent is not installed (CI=true makes this a failure)"
            );
            None
        }
    }
}

/// Run one policy in every variant and return the mismatches.
fn check_live(promises: &Path, agent: &Path, policy: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(policy).unwrap();
    let args = policy_args(&text);
    let dir = policy.parent().unwrap();
    let base = policy.file_name().unwrap().to_str().unwrap();
    let scratch = scratch(policy);
    let local = format!("./{base}");
    let valid = Command::new(promises)
        .current_dir(dir)
        .args(["-c", "-f", &local])
        .args(&args)
        .output()
        .unwrap();
    if !valid.status.success() {
        return vec![format!(
            "{}: rejected by cf-promises -c:\n{}",
            policy.display(),
            String::from_utf8_lossy(&valid.stdout)
        )];
    }
    let mut bad = Vec::new();
    for v in &VARIANTS {
        let _ = std::fs::remove_dir_all(&scratch);
        let mut cmd = Command::new(agent);
        cmd.current_dir(dir).args(["-K", "-f", &local]).args(&args);
        if let Some(f) = v.flag {
            cmd.arg(f);
        }
        // stdout and stderr into one file, interleaved as the recorder's `2>&1` (a promise module's
        // stderr goes to the agent's stderr, between its stdout lines)
        let cap = std::env::temp_dir().join(format!(
            "cfsim-eval-capture-{}-{}-{}",
            std::process::id(),
            base,
            v.suffix
        ));
        let file = std::fs::File::create(&cap).unwrap();
        cmd.stdout(file.try_clone().unwrap()).stderr(file);
        let status = cmd.status().unwrap();
        let raw = std::fs::read(&cap).unwrap();
        let _ = std::fs::remove_file(&cap);
        let _ = std::fs::remove_dir_all(&scratch);
        let got = normalise(policy, v, &raw);
        let want = read_recording(policy, v.suffix);
        if got != want {
            bad.push(format!(
                "{}: {} differs from the live agent\n--- recorded\n{want}--- live\n{got}",
                policy.display(),
                v.suffix
            ));
        }
        if v.suffix == "out" {
            let want_rc = read_recording(policy, "exit");
            let got_rc = status.code().unwrap_or(-1).to_string();
            if want_rc.trim() != got_rc {
                bad.push(format!(
                    "{}: exit {got_rc}, recorded {}",
                    policy.display(),
                    want_rc.trim()
                ));
            }
        }
    }
    bad
}

#[test]
fn recordings_match_the_live_agent() {
    let Some((promises, agent)) = agent_or_skip() else {
        return;
    };
    let queue = Mutex::new(policies());
    let failures = Mutex::new(Vec::new());
    // Two workers: the machine has two cores; every run is a separate short process.
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let next = queue.lock().unwrap().pop();
                let Some(p) = next else { break };
                let bad = check_live(&promises, &agent, &p);
                failures.lock().unwrap().extend(bad);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} live mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
