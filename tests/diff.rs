//! `cfsim diff`: two revisions of the hENC demo (the Oslo NTP servers change: only the Oslo nodes
//! change, and both the same way, so they are grouped) and of the masterfiles (the SMTP server of
//! controls/def.cf changes on every node); a revision against itself and `git:HEAD` against the
//! working tree have no difference; exit codes 0 / 2 / 1 as octocatalog-diff's.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cfsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn copy_tree(from: &Path, to: &Path) {
    let st = Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success());
}

/// A copy of `from` in a fresh temporary directory, with `sed -i EXPR FILE` applied.
fn revised(tag: &str, from: &Path, file: &str, expr: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cfsim-diff-test-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(from, &dir);
    let st = Command::new("sed")
        .args(["-i", expr])
        .arg(dir.join(file))
        .status()
        .unwrap();
    assert!(st.success());
    dir
}

#[test]
fn henc_demo_revisions() {
    let after = revised(
        "henc",
        &root().join("policies/henc/demo"),
        "enc/location/oslo",
        "s/ntp2.oslo.example.com/ntp3.oslo.example.com/",
    );
    let a = after.to_str().unwrap();
    let o = cfsim(&[
        "diff",
        "--before",
        "policies/henc/demo",
        "--after",
        a,
        "-f",
        "promises.cf",
        "--hosts",
        "policies/hosts",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert_eq!(
        out(&o),
        "2 of 6 nodes change, 4 unchanged\n\
         \n== db1.dc1.example.net, web1 (2 nodes)\n\
         \x20 ~ default:henc.ntp_servers: [\"ntp1.oslo.example.com\",\"ntp2.oslo.example.com\"] -> [\"ntp1.oslo.example.com\",\"ntp3.oslo.example.com\"]\n\
         \x20 ~ default:ntp.servers: [\"ntp1.oslo.example.com\",\"ntp2.oslo.example.com\"] -> [\"ntp1.oslo.example.com\",\"ntp3.oslo.example.com\"]\n\
         \x20 - R: ntp: client of ntp2.oslo.example.com\n\
         \x20 + R: ntp: client of ntp3.oslo.example.com\n"
    );
    let j = cfsim(&[
        "diff",
        "--before",
        "policies/henc/demo",
        "--after",
        a,
        "-f",
        "promises.cf",
        "--hosts",
        "policies/hosts",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out(&j)).unwrap();
    assert_eq!(v["nodes"], 6);
    assert_eq!(v["changed"], 2);
    assert_eq!(
        v["groups"][0]["nodes"],
        serde_json::json!(["db1.dc1.example.net", "web1"])
    );
    assert_eq!(
        v["groups"][0]["differences"]["reports"],
        serde_json::json!({"added": ["ntp: client of ntp3.oslo.example.com"], "removed": ["ntp: client of ntp2.oslo.example.com"]})
    );
    // a revision against itself
    let same = cfsim(&[
        "diff",
        "--before",
        a,
        "--after",
        a,
        "-f",
        "promises.cf",
        "--hosts",
        "policies/hosts",
    ]);
    assert_eq!(same.status.code(), Some(0));
    assert_eq!(out(&same), "0 of 6 nodes change, 6 unchanged\n");
    let _ = std::fs::remove_dir_all(&after);
}

#[test]
fn git_head_against_the_working_tree() {
    // the demo is committed; a checkout has no change to it
    let o = cfsim(&[
        "diff",
        "--before",
        "git:HEAD",
        "--after",
        ".",
        "-f",
        "policies/henc/demo/promises.cf",
        "--hosts",
        "policies/hosts/web1-oslo-debian.json",
    ]);
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "policies/henc/demo"])
        .current_dir(root())
        .output()
        .map(|g| !g.stdout.is_empty())
        .unwrap_or(true);
    if dirty {
        eprintln!("SKIP: policies/henc/demo has uncommitted changes");
        return;
    }
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        out(&o),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(out(&o), "0 of 1 nodes change, 1 unchanged\n");
    let bad = cfsim(&[
        "diff",
        "--before",
        "git:no-such-ref-cfsim",
        "--after",
        ".",
        "-f",
        "x.cf",
        "--hosts",
        "policies/hosts",
    ]);
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn masterfiles_revision() {
    let mf = Path::new("/usr/share/cfengine3/masterfiles");
    if !mf.is_dir() {
        assert!(std::env::var("CI").is_err(), "masterfiles missing under CI");
        eprintln!("SKIP: no masterfiles (apt-get install cfengine3)");
        return;
    }
    let after = revised(
        "mf",
        mf,
        "controls/def.cf",
        r#"/"smtpserver"/,/if =>/ s/"localhost"/"smtp.example.net"/"#,
    );
    let o = cfsim(&[
        "diff",
        "--before",
        mf.to_str().unwrap(),
        "--after",
        after.to_str().unwrap(),
        "-f",
        "promises.cf",
        "--hosts",
        "policies/hosts/web1-oslo-debian.json",
        "policies/hosts/db1-rhel-private.json",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", out(&o));
    assert_eq!(
        out(&o),
        "2 of 2 nodes change, 0 unchanged\n\
         \n== db1.dc1.example.net, web1 (2 nodes)\n\
         \x20 ~ default:control_executor.smtpserver: \"localhost\" -> \"smtp.example.net\"\n\
         \x20 ~ default:def.smtpserver: \"localhost\" -> \"smtp.example.net\"\n"
    );
    let _ = std::fs::remove_dir_all(&after);
}
