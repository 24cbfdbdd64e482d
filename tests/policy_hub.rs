//! `sys.policy_hub` / `sys.policy_hub_port` from the host's `/var/lib/cfengine3/policy_server.dat`
//! (`policies/hosts/policy_hub/<NAME>/`, recorded from cf-agent 3.21.0 by
//! `tests/oracle/record-policy-hub.sh` with a scratch work directory): cfsim runs the shared
//! `policy.cf` on the CI machine's profile whose files hold the case's `policy_server.dat` (none for a
//! case without one) and the recording machine's name table (`/etc/hosts`: `127.0.0.1 localhost`), and
//! its output (`-K`, with its exit code, and `-K -I`) is byte-compared with the recording.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/corpus.rs"]
mod corpus;
use corpus::root;

use std::path::Path;
use std::process::Command;

fn profile(case: &Path, at: &Path) {
    let base = std::fs::read_to_string(root().join("policies/hosts/ci-machine.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
    let files = v["files"].as_object_mut().unwrap();
    files.insert("/etc/hosts".into(), "127.0.0.1 localhost\n".into());
    if let Ok(dat) = std::fs::read_to_string(case.join("policy_server.dat")) {
        files.insert("/var/lib/cfengine3/policy_server.dat".into(), dat.into());
    }
    std::fs::write(at, v.to_string()).unwrap();
}

#[test]
fn policy_hub_cases_match_the_real_agent() {
    let dir = root().join("policies/hosts/policy_hub");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected").is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 12, "{} cases", cases.len());
    let tmp = std::env::temp_dir().join(format!("cfsim-policy-hub-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut failed = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let prof = tmp.join(format!("{name}.json"));
        profile(case, &prof);
        for (mode, flags) in [("default", &[][..]), ("I", &["-I"][..])] {
            let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
                .current_dir(&dir)
                .args(["agent", "-K"])
                .args(flags)
                .args(["-f", "./policy.cf", "--host"])
                .arg(&prof)
                .output()
                .unwrap();
            let mut got = String::from_utf8_lossy(&o.stdout).into_owned()
                + &String::from_utf8_lossy(&o.stderr);
            let mut want =
                std::fs::read_to_string(case.join("expected").join(format!("{mode}.out"))).unwrap();
            if mode == "default" {
                want += &format!(
                    "[rc] {}",
                    std::fs::read_to_string(case.join("expected/default.rc")).unwrap()
                );
                got += &format!("[rc] {}\n", o.status.code().unwrap_or(-1));
            }
            if want != got {
                println!(
                    "--- {name} {mode}\n{}",
                    similar::TextDiff::from_lines(&want, &got)
                        .unified_diff()
                        .header("recorded", "cfsim")
                );
                failed.push(format!("{name} {mode}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failed.is_empty(), "differ: {failed:?}");
}
