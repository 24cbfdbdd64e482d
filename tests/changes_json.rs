//! `cfsim agent --changes=json` / `--changes-file`: every changed path with its state before and after,
//! the promises that changed it (bundle, handle, file:line pointing at the promiser) and a unified diff
//! of text content.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

#[test]
fn changes_name_their_promises_and_diffs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/specs_files");
    let out = std::env::temp_dir().join(format!("cfsim-changes-{}.json", std::process::id()));
    let r = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(&dir)
        .args([
            "agent",
            "-K",
            "-f",
            "site.cf",
            "--host",
            "web1.json",
            "--changes-file",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stdout)
    );
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    let changes = doc["changes"].as_array().unwrap();
    let conf = changes
        .iter()
        .find(|c| c["path"] == "/etc/app/app.conf")
        .expect("app.conf changed");
    assert_eq!(conf["action"], "modified");
    assert_eq!(
        conf["diff"],
        "--- a/etc/app/app.conf\n+++ b/etc/app/app.conf\n@@ -1,2 +1,2 @@\n-port=80\n-name=old\n+port=8080\n+name=web1\n"
    );
    let p = &conf["promises"][0];
    assert_eq!(p["bundle"], "site");
    assert_eq!(p["handle"], "app_conf");
    assert_eq!(p["file"], "site.cf");
    // file:line names the promise: its promiser is on that line
    let line = p["line"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(dir.join("site.cf")).unwrap();
    assert!(
        text.lines()
            .nth(line - 1)
            .unwrap()
            .contains("\"/etc/app/app.conf\""),
        "line {line}"
    );
    // a directory has no diff; every change names at least one promise
    let logdir = changes
        .iter()
        .find(|c| c["path"] == "/var/log/app")
        .unwrap();
    assert!(logdir.get("diff").is_none());
    assert!(changes
        .iter()
        .all(|c| !c["promises"].as_array().unwrap().is_empty()));
}
