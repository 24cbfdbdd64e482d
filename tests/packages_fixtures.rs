//! The packages-promise corpus (`policies/packages/<NAME>/`, recorded from cf-agent 3.21.0 by
//! `tests/oracle/record-packages.sh` with a fake package module and fake legacy package commands over
//! text inventories): each case's `inventory.json` is both what its `setup.sh` turns into the fakes'
//! data files and the host profile's `packages` field here (with `"cache": "cold"`, as the recorder
//! clears the agent's package caches before every mode), so the inventory is written once. cfsim runs
//! the policy as the recorder ran cf-agent (cwd = the case directory, `-f ./policy.cf`) on a profile
//! whose `files_root` holds the scratch tree (the fake module must exist there), and its output is
//! byte-compared with the recordings mode by mode after the recorder's normalisation. The package
//! database after the `-I` run (the result JSON's `packages` changes applied to the inventory) is
//! compared with the fake inventory the agent left (`expected/installed`), and is the starting
//! inventory of the second `-I` run (`I2.out`), with warm caches (the recorder does not clear them
//! between the two runs: the second run's `packagesmatching` sees the first run's last query). The test fails when a mode matches fewer cases than its
//! floor (measured; raise, never lower).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/corpus.rs"]
mod corpus;
use corpus::root;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

/// Cases matching per mode, at least.
const FLOORS: &[(&str, usize)] = &[
    ("I", 43),
    ("installed", 43),
    ("I2", 43),
    ("n", 43),
    ("default", 43),
    ("diff", 43),
    ("manifest", 43),
    ("verbose", 43),
];

/// The recorder's normalisation (only the simulate chroot's pid matters here).
fn normalise(s: &str) -> String {
    let re = regex::Regex::new(r"/var/lib/cfengine3/state/[0-9]+\.changes").unwrap();
    re.replace_all(s, "/var/lib/cfengine3/state/<PID>.changes")
        .into_owned()
}

/// A profile (the CI machine's) whose `files_root` is `files_root` and whose package database is `inv`.
fn profile(files_root: &Path, inv: &Value, cache: &str, at: &Path) {
    let base =
        std::fs::read_to_string(root().join("policies/hosts/ci-machine.json")).unwrap_or_default();
    let mut v: Value = serde_json::from_str(&base).unwrap_or_default();
    let mut packages = inv.clone();
    packages["cache"] = json!(cache);
    if let Some(m) = v.as_object_mut() {
        m.remove("files");
        m.insert("files_root".into(), json!(files_root.display().to_string()));
        m.insert("packages".into(), packages);
    }
    std::fs::write(at, v.to_string()).unwrap();
}

/// Runs cfsim on the case; returns (output, result JSON).
fn run(
    case: &Path,
    files_root: &Path,
    inv: &Value,
    cache: &str,
    flags: &[&str],
) -> (String, Value) {
    let prof = files_root.with_extension("profile.json");
    profile(files_root, inv, cache, &prof);
    let result = files_root.with_extension("result.json");
    let (out, _) = corpus::run_agent(
        case,
        &prof,
        flags,
        &["--result-json".as_ref(), result.as_os_str()],
    );
    let res = std::fs::read_to_string(&result)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (normalise(&out), res)
}

/// The inventory after the run: the result's package changes applied to `inv` (an install or update
/// replaces the package of that name and architecture and drops its update; a removal drops it).
fn after(inv: &Value, result: &Value) -> Value {
    let mut inv = inv.clone();
    let same = |p: &Value, n: &Value, a: &Value| {
        p["name"] == *n && p["arch"].as_str().unwrap_or("amd64") == a.as_str().unwrap_or("")
    };
    for c in result["packages"].as_array().cloned().unwrap_or_default() {
        let (n, a) = (&c["name"], &c["arch"]);
        for list in ["installed", "updates"] {
            if let Some(l) = inv[list].as_array_mut() {
                l.retain(|p| !same(p, n, a));
            }
        }
        if c["action"] != "remove" {
            let rec = json!({"name": n, "version": c["version"], "arch": a});
            match inv["installed"].as_array_mut() {
                Some(l) => l.push(rec),
                None => inv["installed"] = json!([rec]),
            }
        }
    }
    inv
}

/// `expected/installed`'s format: sorted `NAME VERSION ARCH` lines (`ii  NAME VERSION ARCH` for a legacy
/// case, whose fake reads dpkg.txt).
fn installed_text(inv: &Value, legacy: bool) -> String {
    let mut lines: Vec<String> = inv["installed"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|p| {
            let l = format!(
                "{} {} {}",
                p["name"].as_str().unwrap_or(""),
                p["version"].as_str().unwrap_or(""),
                p["arch"].as_str().unwrap_or("amd64")
            );
            if legacy {
                format!("ii  {l}\n")
            } else {
                l + "\n"
            }
        })
        .collect();
    lines.sort();
    lines.concat()
}

fn setup(case: &Path, name: &str, tmp: &Path, n: usize) -> PathBuf {
    let r = tmp.join(format!("r{n}"));
    let _ = std::fs::remove_dir_all(&r);
    let d = r.join("srv/cfsim-packages").join(name);
    std::fs::create_dir_all(&d).unwrap();
    let _ = Command::new("sh")
        .arg(case.join("setup.sh"))
        .current_dir(&d)
        .status();
    r
}

#[test]
fn packages_cases_match_the_real_agent() {
    let cases = corpus::cases("packages");
    if cases.is_empty() {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("cfsim-packages-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut tally = corpus::Tally::default();
    for (i, case) in cases.iter().enumerate() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let inv: Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("inventory.json")).unwrap())
                .unwrap();
        let legacy = std::fs::read_to_string(case.join("policy.cf"))
            .unwrap_or_default()
            .contains("package_method");
        let mut check = |mode: &'static str, got: &str| {
            let file = if mode == "installed" {
                mode.to_string()
            } else {
                format!("{mode}.out")
            };
            let Ok(want) = std::fs::read_to_string(case.join("expected").join(file)) else {
                return;
            };
            tally.check(&name, mode, &want, got);
        };
        let r = setup(case, &name, &tmp, i);
        let (out, res) = run(case, &r, &inv, "cold", &["-I"]);
        check("I", &out);
        let inv2 = after(&inv, &res);
        check("installed", &installed_text(&inv2, legacy));
        let (out2, _) = run(case, &r, &inv2, "warm", &["-I"]);
        check("I2", &out2);
        for (mode, flags) in [
            ("n", &["-n"][..]),
            ("default", &[][..]),
            ("diff", &["-I", "--simulate=diff"][..]),
            ("manifest", &["-I", "--simulate=manifest"][..]),
        ] {
            let (out, _) = run(case, &r, &inv, "cold", flags);
            check(mode, &out);
        }
        // -v, reduced to the evaluation trace as the recorder reduced the agent's
        let (out, _) = run(case, &r, &inv, "cold", &["-v"]);
        check(
            "verbose",
            &corpus::eval_filter("verbose", &case.display().to_string(), out.as_bytes()),
        );
        let _ = std::fs::remove_dir_all(&r);
    }
    let _ = std::fs::remove_dir_all(&tmp);
    tally.assert_floors("packages", cases.len(), FLOORS);
}
