//! The processes-promise corpus (`policies/processes/<NAME>/`, recorded from cf-agent 3.21.0 by
//! `tests/oracle/record-processes.sh`): each case's `procs` file lists the fake processes the recorder
//! started on the recording machine (NAME USER ARGS: a copy of /bin/sleep run as
//! `/srv/cfsim-processes/<NAME>/NAME ARGS` by `sh /srv/cfsim-processes/<NAME>/keeper N`). cfsim runs the
//! policy on a profile (the CI machine's) whose `processes` table is generated from the same file: per
//! line N the keeper (root, pid 1000+10N-1) and the process (pid 1000+10N, the keeper its parent, the
//! sizes of a sleeping /bin/sleep). PIDs and the varying ps columns are normalised in both outputs as the
//! recorder does (`record-processes.sh --normalise`, see [`normalise`]); `/bin/true` and `/bin/false`
//! (process_stop) are the profile's command results. Output and exit code are compared per mode (`-I`,
//! `-n`, default, `-I --simulate=diff`, `-v` reduced by `tests/oracle/eval-filter.sh verbose`); the test fails when a mode matches fewer cases than its floor.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/corpus.rs"]
mod corpus;
use corpus::root;

use std::path::{Path, PathBuf};

/// Cases matching per mode, at least (measured; raise, never lower).
const FLOORS: &[(&str, usize)] = &[
    ("I", 22),
    ("n", 22),
    ("default", 22),
    ("diff", 22),
    ("verbose", 22),
];

/// The recorder's normalisation: a quoted ps line keeps its user and command, the columns between
/// become `<PS>`; `to process N` / `to pid N` lose the pid; the simulate chroot's pid too.
fn normalise(s: &str) -> String {
    let ps = regex::Regex::new(
        r"(?m)^(.*(?:process entry '|to process [0-9]+ \(|Matched '))([^ ]+) +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +-?[0-9]+ +[0-9]+ +[^ ]+ +[0-9]+ +[^ ]+ +[^ ]+ +[^ ]+ (.*)$",
    )
    .unwrap();
    let out = ps.replace_all(s, "$1$2 <PS> $3");
    let pid = regex::Regex::new(r"to (process|pid) [0-9]+").unwrap();
    let out = pid.replace_all(&out, "to $1 <PID>");
    let chroot = regex::Regex::new(r"/var/lib/cfengine3/state/[0-9]+\.changes").unwrap();
    chroot
        .replace_all(&out, "/var/lib/cfengine3/state/<PID>.changes")
        .into_owned()
}

/// The profile for `case`: ci-machine.json with the process table of its `procs` file.
fn profile(case: &Path, tmp: &Path) -> PathBuf {
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let dir = format!("/srv/cfsim-processes/{name}");
    let procs = std::fs::read_to_string(case.join("procs")).unwrap();
    let mut table = Vec::new();
    for (i, line) in procs.lines().filter(|l| !l.is_empty()).enumerate() {
        let n = i as u64 + 1;
        let mut w = line.split_whitespace();
        let (bin, user) = (w.next().unwrap(), w.next().unwrap());
        let args: Vec<&str> = w.collect();
        let pid = 1000 + 10 * n;
        table.push(serde_json::json!({
            "pid": pid - 1, "ppid": 1, "user": "root",
            "command": format!("sh {dir}/keeper {n}"), "vsize": 2592, "rsize": 1600,
            "elapsed_seconds": 1
        }));
        table.push(serde_json::json!({
            "pid": pid, "ppid": pid - 1, "pgid": pid - 1, "user": user,
            "command": format!("{dir}/{bin} {}", args.join(" ")), "vsize": 2920, "rsize": 1800,
            "elapsed_seconds": 1
        }));
    }
    let base =
        std::fs::read_to_string(root().join("policies/hosts/ci-machine.json")).unwrap_or_default();
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
    let m = v.as_object_mut().unwrap();
    m.insert("processes".into(), serde_json::Value::Array(table));
    m.insert(
        "commands".into(),
        serde_json::json!({
            "/bin/true": {"exit_code": 0, "output": ""},
            "/bin/false": {"exit_code": 1, "output": ""}
        }),
    );
    let _ = std::fs::create_dir_all(tmp);
    let at = tmp.join("profile.json");
    std::fs::write(&at, v.to_string()).unwrap();
    at
}

fn run(case: &Path, prof: &Path, flags: &[&str]) -> (String, String) {
    let (out, code) = corpus::run_agent(case, prof, flags, &[]);
    (out, format!("{}\n", code.unwrap_or(-1)))
}

#[test]
fn normalisation_keeps_user_and_command() {
    let line = "    info: Signalled 'term' (15) to process 5015 (root                            5015     1  5000  0.0  0.0   2920   0      1812 ?           1 12:44       00:01 00:00:00 ./cfsimsleepA 300 1)\n";
    assert_eq!(
        normalise(line),
        "    info: Signalled 'term' (15) to process <PID> (root <PS> ./cfsimsleepA 300 1)\n"
    );
}

#[test]
fn processes_cases_match_the_real_agent() {
    let cases = corpus::cases("processes");
    assert!(cases.len() >= 12, "the corpus has {} cases", cases.len());
    let tmp = std::env::temp_dir().join(format!("cfsim-processes-{}", std::process::id()));
    let mut tally = corpus::Tally::default();
    for (i, case) in cases.iter().enumerate() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let prof = profile(case, &tmp.join(format!("c{i}")));
        for (mode, flags, rc) in [
            ("I", &["-I"][..], Some("I.rc")),
            ("n", &["-n"][..], Some("n.rc")),
            ("default", &[][..], None),
            ("diff", &["-I", "--simulate=diff"][..], None),
            ("verbose", &["-v"][..], None),
        ] {
            let exp = |f: &str| std::fs::read_to_string(case.join("expected").join(f)).unwrap();
            let (out, code) = run(case, &prof, flags);
            let mut want = exp(&format!("{mode}.out"));
            let mut got = normalise(&out);
            if mode == "verbose" {
                // reduced to the evaluation trace as the recorder reduced the agent's
                got = corpus::eval_filter("verbose", &case.display().to_string(), got.as_bytes());
            }
            if let Some(rc) = rc {
                want.push_str(&format!("[rc] {}", exp(rc)));
                got.push_str(&format!("[rc] {code}"));
            }
            tally.check(&name, mode, &want, &got);
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    tally.assert_floors("processes", cases.len(), FLOORS);
}

/// PIDs 0-3 are never signalled, except a lone `hup` to init (the agent's rule, verify_processes.c; not
/// recordable here: it would signal this machine's PID 1).
#[test]
fn low_pids_are_never_signalled() {
    let tmp = std::env::temp_dir().join(format!("cfsim-lowpids-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    let base =
        std::fs::read_to_string(root().join("policies/hosts/ci-machine.json")).unwrap_or_default();
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
    v.as_object_mut().unwrap().insert(
        "processes".into(),
        serde_json::json!([
            {"pid": 1, "user": "root", "command": "/sbin/init"},
            {"pid": 2, "user": "root", "command": "[kthreadd] init"},
            {"pid": 500, "user": "root", "command": "/usr/sbin/init-helper"}
        ]),
    );
    std::fs::write(tmp.join("p.json"), v.to_string()).unwrap();
    std::fs::write(
        tmp.join("policy.cf"),
        "bundle agent main\n{\n  processes:\n      \"init\" signals => { \"term\" };\n      \"/sbin/init$\" signals => { \"hup\" };\n}\n",
    )
    .unwrap();
    let prof = tmp.join("p.json");
    let (out, code) = run(&tmp, &prof, &["-I"]);
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(code, "0\n", "{out}");
    assert!(
        out.contains("Signalled 'term' (15) to process 500 "),
        "{out}"
    );
    assert!(out.contains("Signalled 'hup' (1) to process 1 "), "{out}");
    assert!(!out.contains("'term' (15) to process 1 "), "{out}");
    assert!(!out.contains("to process 2 "), "{out}");
}
