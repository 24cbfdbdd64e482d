//! The services-promise corpus (`policies/services/<NAME>/`, recorded from cf-agent 3.21.0 by
//! `tests/oracle/record-services.sh`): cfsim runs each case's policy as the recorder ran cf-agent
//! (cwd = the case directory, `-f ./policy.cf`) on a profile (the CI machine's, no systemd) whose
//! `services` inventory is the case's `services.json` — the same file the recorder turned into the fake
//! tools' state files — and whose `files_root` holds the fake tools and init scripts where the recorder
//! put them, and `/usr/sbin/service` and `/bin/systemctl` (both exist
//! on the recording machine; the stdlib's `paths` probe them). Output and exit code are byte-compared per
//! mode (`-I`, `-n`, default, `-I --simulate=diff`, the simulate chroot's pid normalised as the recorder
//! does; `-v` reduced to the evaluation trace by `tests/oracle/eval-filter.sh verbose`). Every difference is
//! printed; the test fails when a mode matches fewer cases than its floor.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/corpus.rs"]
mod corpus;
use corpus::root;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Cases matching per mode, at least (measured; raise, never lower).
const FLOORS: &[(&str, usize)] = &[
    ("I", 24),
    ("n", 24),
    ("default", 24),
    ("diff", 24),
    ("verbose", 24),
];

/// The profile for `case`: ci-machine.json with the case's inventory and a files root in `tmp`.
fn profile(case: &Path, tmp: &Path) -> PathBuf {
    let files = tmp.join("root");
    for (p, text) in [("usr/sbin/service", "#!/bin/sh\n"), ("bin/systemctl", "")] {
        let f = files.join(p);
        let _ = std::fs::create_dir_all(f.parent().unwrap());
        std::fs::write(&f, text).unwrap();
    }
    // the case's fake tools, where the recorder put them (functions check that they are executable)
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let d = files.join("srv/cfsim-services").join(&name);
    let _ = std::fs::create_dir_all(&d);
    for tool in ["systemctl", "service", "chkconfig"] {
        std::fs::copy(
            root().join("policies/services/fake").join(tool),
            d.join(tool),
        )
        .unwrap();
    }
    let inv_text = std::fs::read_to_string(case.join("services.json")).unwrap();
    let inv_map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&inv_text).unwrap();
    let _ = std::fs::create_dir_all(d.join("init.d"));
    for n in inv_map.keys() {
        std::fs::copy(
            root().join("policies/services/fake/init-script"),
            d.join("init.d").join(n),
        )
        .unwrap();
    }
    let base =
        std::fs::read_to_string(root().join("policies/hosts/ci-machine.json")).unwrap_or_default();
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
    let inv: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(case.join("services.json")).unwrap())
            .unwrap();
    let m = v.as_object_mut().unwrap();
    m.remove("files");
    m.insert("files_root".into(), files.display().to_string().into());
    m.insert("services".into(), inv);
    let at = tmp.join("profile.json");
    std::fs::write(&at, v.to_string()).unwrap();
    at
}

fn run(case: &Path, prof: &Path, flags: &[&str]) -> (String, String) {
    let (out, code) = corpus::run_agent(case, prof, flags, &[]);
    (out, format!("{}\n", code.unwrap_or(-1)))
}

#[test]
fn services_cases_match_the_real_agent() {
    let cases = corpus::cases("services");
    assert!(cases.len() >= 12, "the corpus has {} cases", cases.len());
    let tmp = std::env::temp_dir().join(format!("cfsim-services-{}", std::process::id()));
    let mut tally = corpus::Tally::default();
    let chroot = regex::Regex::new(r"/var/lib/cfengine3/state/[0-9]+\.changes").unwrap();
    for (i, case) in cases.iter().enumerate() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let t = tmp.join(format!("c{i}"));
        let prof = profile(case, &t);
        for (mode, flags, rc) in [
            ("I", &["-I"][..], Some("I.rc")),
            ("n", &["-n"][..], Some("n.rc")),
            ("default", &[][..], None),
            ("diff", &["-I", "--simulate=diff"][..], None),
            ("verbose", &["-v"][..], None),
        ] {
            let exp = |f: &str| std::fs::read_to_string(case.join("expected").join(f)).unwrap();
            let (out, code) = run(case, &prof, flags);
            let mut out = chroot
                .replace_all(&out, "/var/lib/cfengine3/state/<PID>.changes")
                .into_owned();
            if mode == "verbose" {
                // reduced to the evaluation trace as the recorder reduced the agent's
                out = corpus::eval_filter("verbose", &case.display().to_string(), out.as_bytes());
            }
            let mut want = exp(&format!("{mode}.out"));
            let mut got = out;
            if let Some(rc) = rc {
                want.push_str(&format!("[rc] {}", exp(rc)));
                got.push_str(&format!("[rc] {code}"));
            }
            tally.check(&name, mode, &want, &got);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    tally.assert_floors("services", cases.len(), FLOORS);
}

/// The README's example (policies/services/example/): a systemd host whose inventory and process table
/// come from the profile. Not a recording (the real agent cannot run on a profile): it checks the
/// observable behaviour the README promises.
#[test]
fn readme_example_runs_on_its_profile() {
    let dir = root().join("policies/services/example");
    let run = |flag: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(&dir)
            .args([
                "agent",
                "-K",
                flag,
                "-f",
                "./site.cf",
                "--host",
                "web1.json",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = run("-I");
    let sc = "/bin/systemctl --no-ask-password --global --system -q";
    for want in [
        format!("Executing 'no timeout' ... '{sc} start nginx'"),
        format!("Executing 'no timeout' ... '{sc} stop telnetd'"),
        format!("Executing 'no timeout' ... '{sc} disable telnetd'"),
        "Signalled 'term' (15) to process 901 (www-data ".to_string(),
        "Q: \"...in/service cron\": cron: unrecognized service".to_string(),
    ] {
        assert!(out.contains(&want), "missing {want:?} in\n{out}");
    }
    assert!(!out.contains("to process 900"), "{out}");
    assert!(!out.contains("start sshd"), "{out}");
    let dry = run("-n");
    assert!(
        dry.contains("error: Need to keep signal promise 'term' in process entry 'www-data "),
        "{dry}"
    );
    assert!(dry.contains(&format!("Would execute script '{sc} start nginx'")));
    // the result document lists the services the run changed
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(&dir)
        .args([
            "agent",
            "-K",
            "-f",
            "./site.cf",
            "--host",
            "web1.json",
            "--result-json",
            "-",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let doc: serde_json::Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    assert_eq!(
        doc["services"],
        serde_json::json!([
            {"name": "nginx", "before": {"running": false, "enabled": true},
             "after": {"running": true, "enabled": true}},
            {"name": "telnetd", "before": {"running": true, "enabled": true},
             "after": {"running": false, "enabled": false}}
        ])
    );
}
