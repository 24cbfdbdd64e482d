//! `cfsim host capture`: the profile it writes describes this machine (every hard class and `sys.*`
//! variable equal to `--host local`'s, the clock pinned), the named trees are copied into its
//! `files_root` (modes, links; FIFOs skipped with a warning), a simulated files promise acts on the
//! copy and never on the machine, and bad requests are diagnostics with exit 2.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cfsim::host::hard_classes::{hard_classes, Component};
use cfsim::host::sysvars::render_vars;
use cfsim::host::{load_host, sys_vars};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cfsim-capture-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cfsim(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A tree to capture: a config file, a private file, a subdirectory, a symlink and a FIFO.
fn tree(d: &Path) -> PathBuf {
    let t = d.join("srv/app");
    std::fs::create_dir_all(t.join("conf.d")).unwrap();
    std::fs::write(t.join("app.conf"), "port=80\nworkers=4\n").unwrap();
    std::fs::write(t.join("secret.key"), "k").unwrap();
    std::fs::set_permissions(t.join("secret.key"), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(t.join("conf.d/extra.conf"), "x=1\n").unwrap();
    std::os::unix::fs::symlink("app.conf", t.join("current.conf")).unwrap();
    let st = Command::new("mkfifo").arg(t.join("pipe")).status().unwrap();
    assert!(st.success());
    t
}

#[test]
fn capture_copies_trees_and_describes_this_machine() {
    let d = scratch("full");
    let t = tree(&d);
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let tree_arg = t.to_str().unwrap().to_string();
    let r = cfsim(
        &["host", "capture", "--out", "me.json", "--files", &tree_arg],
        &out,
    );
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}{}",
        text(&r.stdout),
        text(&r.stderr)
    );
    assert!(
        text(&r.stderr).contains(&format!(
            "not captured: {tree_arg}/pipe: not a file, directory or symlink"
        )),
        "{}",
        text(&r.stderr)
    );
    // the copy: content, modes, the link as a link, nothing for the FIFO
    let root = out.join("me.root");
    let copy = root.join(t.strip_prefix("/").unwrap());
    assert_eq!(
        std::fs::read_to_string(copy.join("app.conf")).unwrap(),
        "port=80\nworkers=4\n"
    );
    let mode = std::fs::metadata(copy.join("secret.key"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o600);
    assert_eq!(
        std::fs::read_link(copy.join("current.conf")).unwrap(),
        PathBuf::from("app.conf")
    );
    assert!(copy.join("conf.d/extra.conf").is_file());
    assert!(!copy.join("pipe").exists());
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("me.json")).unwrap()).unwrap();
    assert_eq!(profile["files_root"], "me.root");
    // the installed packages are dpkg's (every row compared), the process table holds this test
    if let Ok(q) = Command::new("dpkg-query")
        .args([
            "-W",
            "-f",
            "${db:Status-Abbrev}|${Package}|${Version}|${Architecture}\n",
        ])
        .output()
    {
        let mut want: Vec<String> = String::from_utf8_lossy(&q.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("ii |"))
            .map(str::to_string)
            .collect();
        want.sort();
        let mut got: Vec<String> = profile["packages"]["installed"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| {
                format!(
                    "{}|{}|{}",
                    p["name"].as_str().unwrap(),
                    p["version"].as_str().unwrap(),
                    p["arch"].as_str().unwrap()
                )
            })
            .collect();
        got.sort();
        assert_eq!(got, want);
    }
    let me = std::process::id();
    assert!(
        profile["processes"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["pid"] == me),
        "the capturing test (pid {me}) is in the captured process table"
    );
    // only the variables policies read are kept from the environment
    for k in profile["env"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, _)| k)
    {
        assert!(
            cfsim::host::capture::KEPT_ENV.contains(&k.as_str()),
            "env {k} kept"
        );
    }

    // every hard class and sys variable equals --host local's (the clock pinned to one instant)
    let local = load_host("local").unwrap();
    let mut captured = load_host(out.join("me.json").to_str().unwrap()).unwrap();
    captured.time = local.time.clone();
    captured.uptime_minutes = local.uptime_minutes;
    let rows = |h: &cfsim::host::Host| -> Vec<String> {
        hard_classes(h, Component::Agent)
            .sorted()
            .into_iter()
            .map(|c| format!("{} {}", c.name, c.tags))
            .collect()
    };
    assert_eq!(rows(&captured), rows(&local));
    let vars = |h: &cfsim::host::Host| -> Vec<String> {
        render_vars(&sys_vars(h, None))
            .lines()
            // the process environment is not captured beyond KEPT_ENV
            .filter(|l| !l.starts_with("default:sys.env"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(vars(&captured), vars(&local));

    // a simulation on the captured host edits the copy's virtual state, never the machine nor the copy
    let policy = d.join("p.cf");
    std::fs::write(
        &policy,
        format!(
            "bundle agent main\n{{\n  files:\n    \"{tree_arg}/app.conf\"\n      edit_line => port;\n  vars:\n    \"c\" string => readfile(\"{tree_arg}/app.conf\", 1000);\n  reports:\n    \"now: $(c)\";\n}}\nbundle edit_line port\n{{\n  replace_patterns:\n    \"^port=80$\" replace_with => to8080;\n}}\nbody replace_with to8080\n{{\n  replace_value => \"port=8080\";\n}}\n"
        ),
    )
    .unwrap();
    let run = cfsim(
        &[
            "agent",
            "-K",
            "-f",
            policy.to_str().unwrap(),
            "--host",
            out.join("me.json").to_str().unwrap(),
        ],
        &d,
    );
    let said = text(&run.stdout);
    assert!(
        said.contains("R: now: port=8080\nworkers=4"),
        "{said}{}",
        text(&run.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(t.join("app.conf")).unwrap(),
        "port=80\nworkers=4\n"
    );
    assert_eq!(
        std::fs::read_to_string(copy.join("app.conf")).unwrap(),
        "port=80\nworkers=4\n"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_capture_requests_are_diagnostics() {
    let d = scratch("bad");
    let r = cfsim(
        &["host", "capture", "--out", "x.json", "--files", "etc/hosts"],
        &d,
    );
    assert_eq!(r.status.code(), Some(2));
    assert!(
        text(&r.stderr).contains("give an absolute path"),
        "{}",
        text(&r.stderr)
    );
    let r = cfsim(
        &[
            "host",
            "capture",
            "--out",
            "x.json",
            "--files",
            "/etc/../etc/hosts",
        ],
        &d,
    );
    assert_eq!(r.status.code(), Some(2));
    assert!(
        text(&r.stderr).contains("no '..' components"),
        "{}",
        text(&r.stderr)
    );
    std::fs::create_dir_all(d.join("x.root")).unwrap();
    let r = cfsim(&["host", "capture", "--out", "x.json"], &d);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        text(&r.stderr).contains("x.root exists"),
        "{}",
        text(&r.stderr)
    );
    assert!(!d.join("x.json").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// The captured services are systemd's service units of this machine: `enabled` exactly for the units
/// `systemctl list-unit-files` says are enabled, and nothing running when systemd does not run here
/// (a container). Compared row by row with systemctl (skipped where systemctl is missing).
#[test]
fn captured_services_agree_with_systemctl() {
    let Ok(o) = std::process::Command::new("systemctl")
        .args([
            "list-unit-files",
            "--type=service",
            "--no-legend",
            "--no-pager",
        ])
        .output()
    else {
        eprintln!("skipped: no systemctl");
        return;
    };
    let listed: std::collections::BTreeMap<String, String> = text(&o.stdout)
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let unit = f.next()?.strip_suffix(".service")?.to_string();
            Some((unit, f.next()?.to_string()))
        })
        .filter(|(u, state)| !u.ends_with('@') && state != "alias")
        .collect();
    let d = scratch("services");
    std::fs::create_dir_all(&d).unwrap();
    let r = cfsim(&["host", "capture", "--out", "me.json"], &d);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("me.json")).unwrap()).unwrap();
    let captured = v["services"].as_object().cloned().unwrap_or_default();
    let systemd_runs = Path::new("/run/systemd/system").is_dir();
    let mut differ = Vec::new();
    for (unit, state) in &listed {
        let Some(s) = captured.get(unit) else {
            // systemctl lists generated and transient units that have no unit file
            if !matches!(state.as_str(), "generated" | "transient") {
                differ.push(format!("{unit}: {state}, not captured"));
            }
            continue;
        };
        if s["enabled"] != (state == "enabled") {
            differ.push(format!("{unit}: systemctl {state}, captured {s}"));
        }
        if !systemd_runs && s["running"] != false {
            differ.push(format!("{unit}: running without systemd"));
        }
    }
    for unit in captured.keys() {
        if !listed.contains_key(unit) {
            differ.push(format!("{unit}: captured, not listed by systemctl"));
        }
    }
    let _ = std::fs::remove_dir_all(&d);
    assert!(differ.is_empty(), "{differ:#?}");
}
