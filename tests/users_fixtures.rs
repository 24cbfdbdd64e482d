//! The users-promise corpus (`policies/users/<NAME>/`, recorded from cf-agent 3.21.0 by
//! `tests/oracle/record-users.sh`): each case's profile is the CI machine's with `users` and
//! `groups` made from the case's recorded account snapshot (`start/passwd`, `start/group`,
//! `start/shadow`: the machine's accounts after setup.sh, when the agent ran) and an empty scratch
//! directory as `files_root`. cfsim runs the policy as the recorder ran cf-agent (cwd = the case
//! directory, `-f ./policy.cf`) and its output, normalised as the recorder normalised the agent's
//! (see [`normalise`]), is compared with each mode's recording. The accounts after a `-I` run are
//! read back from the `/etc/passwd`, `/etc/group` and `/etc/shadow` cfsim wrote (`--write-root`) and
//! listed like the recorder's `accounts` file; the second `-I` run (convergence) starts from them.
//! Every difference is printed; the test fails when a mode matches fewer cases than its floor.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/corpus.rs"]
mod corpus;
use corpus::root;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Cases matching per mode, at least (measured; raise, never lower).
const FLOORS: &[(&str, usize)] = &[
    ("I", 38),
    ("accounts", 38),
    ("I2", 38),
    ("accounts2", 38),
    ("n", 43),
    ("n.accounts", 43),
    ("default", 38),
    ("diff", 37),
    ("manifest", 37),
    ("verbose", 43),
];

/// The recorder's normalisation (`tests/oracle/record-users.sh`): the simulate chroot's pid, a
/// SHA-512 crypt hash not containing `cfsim` and a yescrypt hash; plus cfsim's stand-in for a hash
/// made from a plaintext password (`$cfsim-plaintext$<md5>`, cfsim computes no crypt hashes), which
/// stands where the agent's PAM wrote a yescrypt hash.
fn normalise(s: &str) -> String {
    let rules = [
        (
            r"/var/lib/cfengine3/state/[0-9]+\.changes",
            "/var/lib/cfengine3/state/<PID>.changes",
        ),
        (
            r"\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{43}",
            "$$y$$<SALT>$$<HASH>",
        ),
        (r"\$cfsim-plaintext\$[0-9a-f]{32}", "$$y$$<SALT>$$<HASH>"),
    ];
    let mut out = s.to_string();
    for (re, with) in rules {
        if let Ok(re) = regex::Regex::new(re) {
            out = re.replace_all(&out, with).into_owned();
        }
    }
    if let Ok(re) = regex::Regex::new(r"\$6\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{86}") {
        out = out
            .split_inclusive('\n')
            .map(|l| {
                if l.contains("cfsim") {
                    l.to_string()
                } else {
                    re.replace_all(l, "$$6$$<SALT>$$<HASH>").into_owned()
                }
            })
            .collect();
    }
    out
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// `users`/`groups` profile entries from passwd, group and shadow text.
fn accounts_json(
    passwd: &str,
    group: &str,
    shadow: &str,
) -> (serde_json::Value, serde_json::Value) {
    let sh: BTreeMap<String, (String, String)> = shadow
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() >= 2).then(|| {
                // start/shadow has name:password:expire, a full shadow line has expire in field 8
                let expire = if f.len() >= 8 {
                    f[7]
                } else {
                    f.get(2).copied().unwrap_or("")
                };
                (f[0].to_string(), (f[1].to_string(), expire.to_string()))
            })
        })
        .collect();
    let users: Vec<serde_json::Value> = passwd
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            if f.len() < 7 {
                return None;
            }
            let mut u = serde_json::json!({
                "name": f[0], "uid": f[2].parse::<u64>().ok()?, "gid": f[3].parse::<u64>().ok()?,
                "gecos": f[4], "home": f[5], "shell": f[6],
            });
            if let (Some((pw, ex)), Some(m)) = (sh.get(f[0]), u.as_object_mut()) {
                m.insert("password".into(), pw.clone().into());
                m.insert("expire".into(), ex.clone().into());
            }
            Some(u)
        })
        .collect();
    let groups: Vec<serde_json::Value> = group
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            if f.len() < 4 {
                return None;
            }
            let members: Vec<&str> = f[3].split(',').filter(|m| !m.is_empty()).collect();
            Some(serde_json::json!({"name": f[0], "gid": f[2].parse::<u64>().ok()?, "members": members}))
        })
        .collect();
    (users.into(), groups.into())
}

/// The account files of a state: (passwd, group, shadow).
#[derive(Clone)]
struct State {
    passwd: String,
    group: String,
    shadow: String,
}

fn profile(files_root: &Path, st: &State, at: &Path) {
    let base = read(&root().join("policies/hosts/ci-machine.json"));
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap_or_default();
    let (users, groups) = accounts_json(&st.passwd, &st.group, &st.shadow);
    if let Some(m) = v.as_object_mut() {
        m.remove("files");
        m.insert("files_root".into(), files_root.display().to_string().into());
        m.insert("users".into(), users);
        m.insert("groups".into(), groups);
    }
    let _ = std::fs::write(at, v.to_string());
}

/// The recorder's `accounts` listing of a state and scratch directory.
fn accounts(st: &State, scratch: &Path) -> String {
    let mut out = String::new();
    for l in st
        .passwd
        .lines()
        .filter(|l| l.starts_with("cfsimu") || l.starts_with("cfsimg"))
    {
        out.push_str(&format!("passwd:{l}\n"));
    }
    for l in st
        .group
        .lines()
        .filter(|l| l.starts_with("cfsimu") || l.starts_with("cfsimg"))
    {
        out.push_str(&format!("group:{l}\n"));
    }
    for l in st.shadow.lines().filter(|l| l.starts_with("cfsimu")) {
        let f: Vec<&str> = l.split(':').collect();
        let expire = if f.len() >= 8 {
            f[7]
        } else {
            f.get(2).copied().unwrap_or("")
        };
        out.push_str(&format!(
            "shadow:{}:{}:{expire}\n",
            f[0],
            f.get(1).copied().unwrap_or("")
        ));
    }
    out.push_str("tree:\n");
    if scratch.is_dir() {
        let o = Command::new("python3")
            .arg(root().join("tests/oracle/files-tree.py"))
            .arg(scratch)
            .output();
        if let Ok(o) = o {
            out.push_str(&String::from_utf8_lossy(&o.stdout));
        }
    }
    out
}

/// Runs cfsim with `flags` on `files_root` (holding `srv/cfsim-users/<NAME>`) and the accounts of `st`;
/// returns the output, the accounts after and the root after (with cfsim's written changes applied).
fn run(case: &Path, files_root: &Path, st: &State, flags: &[&str]) -> (String, State, PathBuf) {
    let sibling = |ext: &str| PathBuf::from(format!("{}-{ext}", files_root.display()));
    let prof = sibling("profile.json");
    profile(files_root, st, &prof);
    let out_dir = sibling("out");
    let _ = std::fs::remove_dir_all(&out_dir);
    let (stdout, _) = corpus::run_agent(
        case,
        &prof,
        flags,
        &["--write-root".as_ref(), out_dir.as_os_str()],
    );
    let after_st = State {
        passwd: std::fs::read_to_string(out_dir.join("etc/passwd")).unwrap_or(st.passwd.clone()),
        group: std::fs::read_to_string(out_dir.join("etc/group")).unwrap_or(st.group.clone()),
        shadow: std::fs::read_to_string(out_dir.join("etc/shadow")).unwrap_or(st.shadow.clone()),
    };
    let after = sibling("after");
    corpus::apply_write_root(files_root, &out_dir, &after);
    // the account files are not part of the scratch tree
    let _ = std::fs::remove_dir_all(after.join("etc"));
    (stdout, after_st, after)
}

struct CaseResult {
    modes: Vec<(&'static str, Option<String>)>,
}

fn run_case(case: &Path, tmp: &Path, i: usize) -> CaseResult {
    let name = case
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let start = State {
        passwd: read(&case.join("start/passwd")),
        group: read(&case.join("start/group")),
        shadow: read(&case.join("start/shadow")),
    };
    let mut modes = Vec::new();
    let mut check = |mode: &'static str, got: String| {
        let file = match mode {
            "accounts" | "accounts2" | "n.accounts" => mode.to_string(),
            other => format!("{other}.out"),
        };
        let Ok(want) = std::fs::read_to_string(case.join("expected").join(&file)) else {
            return;
        };
        modes.push((mode, corpus::compare(&name, mode, &want, &got)));
    };
    let fresh = || {
        let r = tmp.join(format!("r{i}"));
        let _ = std::fs::remove_dir_all(&r);
        let _ = std::fs::create_dir_all(r.join("srv/cfsim-users").join(&name));
        r
    };
    let sub = |r: &Path| r.join("srv/cfsim-users").join(&name);
    let n_only = case.join("n-only").is_file();
    let r = fresh();
    let (out, stn, aftern) = run(case, &r, &start, &["-n"]);
    check("n", normalise(&out));
    check("n.accounts", normalise(&accounts(&stn, &sub(&aftern))));
    // -v (with -n for a case on the machine's own accounts, as recorded), reduced to the evaluation
    // trace as the recorder reduced the agent's
    let r = fresh();
    let vflags: &[&str] = if n_only { &["-n", "-v"] } else { &["-v"] };
    let (out, _, _) = run(case, &r, &start, vflags);
    check(
        "verbose",
        corpus::eval_filter(
            "verbose",
            &case.display().to_string(),
            normalise(&out).as_bytes(),
        ),
    );
    if n_only {
        // a case on the recording machine's own accounts: recorded with -n only
        return CaseResult { modes };
    }
    let r = fresh();
    let (out, st1, after) = run(case, &r, &start, &["-I"]);
    check("I", normalise(&out));
    check("accounts", normalise(&accounts(&st1, &sub(&after))));
    let (out2, st2, after2) = run(case, &after, &st1, &["-I"]);
    check("I2", normalise(&out2));
    check("accounts2", normalise(&accounts(&st2, &sub(&after2))));
    for (mode, flags) in [
        ("default", &[][..]),
        ("diff", &["-I", "--simulate=diff"][..]),
        ("manifest", &["-I", "--simulate=manifest"][..]),
    ] {
        let r = fresh();
        let (out, _, _) = run(case, &r, &start, flags);
        check(mode, normalise(&out));
    }
    for d in [
        "",
        "-after",
        "-after-after",
        "-out",
        "-after-out",
        "-profile.json",
        "-after-profile.json",
    ] {
        let p = PathBuf::from(format!("{}{d}", tmp.join(format!("r{i}")).display()));
        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
    }
    CaseResult { modes }
}

#[test]
fn users_cases_match_the_real_agent() {
    let cases = corpus::cases("users");
    if cases.is_empty() {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("cfsim-users-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(case) = cases.get(i) else {
                    break;
                };
                let r = run_case(case, &tmp, i);
                if let Ok(mut v) = results.lock() {
                    v.push((i, r));
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    let mut tally = corpus::Tally::default();
    for (i, r) in &results {
        let name = cases[*i]
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for (mode, diff) in &r.modes {
            tally.add(&name, mode, diff.as_deref());
        }
    }
    tally.assert_floors("users", cases.len(), FLOORS);
}

#[test]
fn normalisation_masks_agent_hashes_only() {
    let agent =
        "shadow:u:$y$j9T$GbXgDM/KprnuYApjeTOLq1$0Rx.QRH4rNEbBBv1b.yFu6DriAumlrjF3BATG7Xmue0:\n";
    assert_eq!(normalise(agent), "shadow:u:$y$<SALT>$<HASH>:\n");
    let ours = format!("shadow:u:$cfsim-plaintext${}:\n", "0".repeat(32));
    assert_eq!(normalise(&ours), "shadow:u:$y$<SALT>$<HASH>:\n");
    let fixed = "x:$6$cfsimsalt$abc\n";
    assert_eq!(normalise(fixed), fixed);
}

/// A users promise's changes reach `--result-json` (`users`), later functions, and the account files
/// a later `readfile()` sees (made from the profile's accounts, then rewritten after the change).
#[test]
fn account_changes_reach_functions_files_and_the_result() {
    let tmp = std::env::temp_dir().join(format!("cfsim-users-json-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    let policy = tmp.join("p.cf");
    std::fs::write(
        &policy,
        r#"body common control { bundlesequence => { "main", "after" }; }
bundle agent main
{
  vars:
    "before" string => readfile("/etc/passwd", 4096);
  users:
    "alice" policy => "present", uid => "2001", shell => "/bin/bash";
    "bob" policy => "absent";
  reports:
    "before has bob: yes" if => regcmp("(?s).*\nbob:x:1001:.*", "$(before)");
}
bundle agent after
{
  vars:
    "now" string => readfile("/etc/passwd", 4096);
    "uid" int => getuid("alice");
  reports:
    "alice uid $(uid)";
    "bob gone" if => not(userexists("bob"));
    "passwd has alice: yes" if => regcmp("(?s).*alice:x:2001:2001::/home/alice:/bin/bash\n.*", "$(now)");
}
"#,
    )
    .unwrap();
    let st = State {
        passwd: "root:x:0:0:root:/root:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/sh\n".into(),
        group: "root:x:0:\nbob:x:1001:\n".into(),
        shadow: "root:*:\nbob:$6$x$y:\n".into(),
    };
    let root_dir = tmp.join("root");
    let _ = std::fs::create_dir_all(&root_dir);
    let prof = tmp.join("profile.json");
    profile(&root_dir, &st, &prof);
    let json = tmp.join("result.json");
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .arg("agent")
        .args(["-K", "-I", "-f"])
        .arg(&policy)
        .arg("--host")
        .arg(&prof)
        .arg("--result-json")
        .arg(&json)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("R: before has bob: yes"), "{out}");
    assert!(out.contains("    info: Created user 'alice'"), "{out}");
    assert!(out.contains("    info: Removed user 'bob'"), "{out}");
    assert!(out.contains("R: alice uid 2001"), "{out}");
    assert!(out.contains("R: bob gone"), "{out}");
    assert!(out.contains("R: passwd has alice: yes"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let users = v["users"].as_array().cloned().unwrap_or_default();
    let actions: Vec<(&str, &str)> = users
        .iter()
        .map(|u| (u["user"].as_str().unwrap(), u["action"].as_str().unwrap()))
        .collect();
    assert_eq!(actions, [("alice", "create"), ("bob", "remove")]);
    assert_eq!(
        users[0]["command"],
        r#"/usr/sbin/useradd -u "2001" -s "/bin/bash" -M alice"#
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `--host local`: the accounts come from this machine's files (read only). When the machine still has
/// the accounts a `real-*` case was recorded with, cfsim's `-n` output on it is the agent's (less the
/// stdlib's `returnszero` lines, which depend on what this machine has installed).
#[test]
fn local_host_reads_the_machines_accounts() {
    let same = |f: &str, case: &Path| {
        std::fs::read_to_string(format!("/etc/{f}")).ok()
            == std::fs::read_to_string(case.join("start").join(f)).ok()
    };
    let mut checked = 0;
    for name in ["real-root-kept", "real-nobody-shell", "real-nobody-several"] {
        let case = root().join("policies/users").join(name);
        if !same("passwd", &case) || !same("group", &case) {
            continue;
        }
        let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(&case)
            .args(["agent", "-K", "-n", "-f", "./policy.cf", "--host", "local"])
            .output()
            .unwrap();
        let out: String = String::from_utf8_lossy(&o.stdout)
            .split_inclusive('\n')
            .filter(|l| !l.contains("returnszero could not run"))
            .collect();
        let want = read(&case.join("expected/n.out"));
        assert_eq!(out, want, "{name}");
        checked += 1;
    }
    println!("local host: {checked} real-* cases checked");
}
