//! The remote-copy corpus (`policies/remote/<NAME>/`, recorded from cf-agent 3.21.0 copying from a
//! real cf-serverd 3.21.0 on 127.0.0.1:5309 by `tests/oracle/record-remote.sh`): as the files corpus
//! (`tests/files_fixtures.rs`), each case's `setup.sh` builds a scratch tree that a host profile uses
//! as its `files_root`; the same tree is the served tree of the profile's `remote_files` entry
//! `127.0.0.1` (a case with a file `untrusted-key` marks that server's key as not trusted yet; the
//! paths admitted are those the recorded server admitted), and
//! `127.0.0.1:5310` and `127.0.0.3` are servers that do not answer. cfsim runs the policy as the recorder ran
//! cf-agent, and its output and final tree are compared with the recordings mode by mode, after the
//! recorder's normalisation (`tests/oracle/record-remote.sh --normalise`: that of the files corpus
//! and key digests). The simulate modes differ on purpose where the agent's chroot cannot stat a
//! remote source (docs/simulate.md); the floors say how many cases match.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/tree_corpus.rs"]
mod tree_corpus;
use corpus::root;
use tree_corpus::TreeCorpus;

use std::path::Path;
use std::process::Command;

/// Cases matching per mode, at least (measured; raise, never lower).
const FLOORS: &[(&str, usize)] = &[
    ("I", 20),
    ("tree", 20),
    ("I2", 20),
    ("tree2", 20),
    ("n", 20),
    ("default", 20),
    ("diff", 3),
    ("manifest", 3),
    ("manifest-full", 3),
];

/// The recorder's normalisation (`tests/oracle/record-remote.sh --normalise`): the files corpus's
/// ([`tree_corpus::normalise`]) and key digests (`MD5=<KEY>`, `SHA=<KEY>`).
fn normalise(s: &str) -> String {
    tree_corpus::normalise(
        s,
        &[
            (r"MD5=[0-9a-f]{32}", "MD5=<KEY>"),
            (r"SHA=[0-9a-f]{64}", "SHA=<KEY>"),
        ],
    )
}

/// A profile (the CI machine's: Debian's users and groups, as where the corpus was recorded) whose
/// `files_root` is `root`, and whose `remote_files` serve the same tree as `127.0.0.1` (its key not
/// trusted yet when the case has a file `untrusted-key`; admitting what the recorded server admitted:
/// the case's `served` directory, or the paths its file `admit` lists) and have nothing answering on
/// `127.0.0.1:5310` and `127.0.0.3`.
fn profile(root_dir: &Path, at: &Path, case: &Path) {
    let name = case
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let admit: Vec<String> = std::fs::read_to_string(case.join("admit"))
        .unwrap_or_else(|_| "served".into())
        .split_whitespace()
        .map(|p| format!("/srv/cfsim-remote/{name}/{p}"))
        .collect();
    let untrusted = case.join("untrusted-key").is_file();
    let base =
        std::fs::read_to_string(root().join("policies/hosts/ci-machine.json")).unwrap_or_default();
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        m.remove("files");
        m.insert(
            "files_root".into(),
            serde_json::Value::String(root_dir.display().to_string()),
        );
        let root = root_dir.display().to_string();
        let server = serde_json::json!({ "root": root, "trusted": !untrusted, "admit": admit });
        m.insert(
            "remote_files".into(),
            serde_json::json!({
                "127.0.0.1": server,
                "127.0.0.1:5310": { "unreachable": true },
                "127.0.0.3": { "unreachable": true },
            }),
        );
    }
    let _ = std::fs::write(at, v.to_string());
}

const CORPUS: TreeCorpus = TreeCorpus {
    name: "remote",
    profile,
    normalise,
    verbose: false,
    floors: FLOORS,
    canon: as_is,
};

/// Recording and output are compared as they are.
fn as_is(s: &str) -> String {
    s.to_string()
}

#[test]
fn remote_cases_match_the_real_agent() {
    CORPUS.check_all();
}

#[test]
fn a_server_without_remote_files_is_not_simulated() {
    let case = root().join("policies/remote/remote-new-file");
    let tmp = std::env::temp_dir().join(format!("cfsim-remote-ns-{}", std::process::id()));
    let r = CORPUS.setup(&case, "remote-new-file", &tmp, 0);
    let prof = tmp.join("profile.json");
    profile(&r, &prof, &case);
    // the same profile without remote_files
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&prof).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("remote_files");
    std::fs::write(&prof, v.to_string()).unwrap();
    let result = tmp.join("result.json");
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(&case)
        .args(["agent", "-K", "-I", "-f", "./policy.cf", "--host"])
        .arg(&prof)
        .arg("--result-json")
        .arg(&result)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    let d = "/srv/cfsim-remote/remote-new-file";
    assert_eq!(
        out,
        format!(
            " warning: cfsim: copy_from '{d}/served/a.txt' from server '127.0.0.1' (port 5309) is not simulated: the host profile's remote_files has no entry '127.0.0.1' or '127.0.0.1:5309'\n \
             warning: cfsim: copy_from '{d}/served/b.txt' from server '127.0.0.1' (port 5309) is not simulated: the host profile's remote_files has no entry '127.0.0.1' or '127.0.0.1:5309'\n\
             R: CLASSES: \n"
        )
    );
    assert!(o.status.success());
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!(j["summary"]["not_simulated"], 2);
    let files: Vec<&serde_json::Value> = j["promises"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["promise_type"] == "files")
        .collect();
    assert_eq!(files.len(), 2);
    for p in files {
        assert_eq!(p["outcome"], "not_simulated", "{p}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A served tree is a jail: a link out of it or a path with `..` reads inside it, never this
/// machine's files.
#[test]
fn a_served_tree_is_a_jail() {
    let tmp = std::env::temp_dir().join(format!("cfsim-remote-jail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let hub = tmp.join("hub-root/srv");
    std::fs::create_dir_all(&hub).unwrap();
    std::fs::create_dir_all(tmp.join("root")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", hub.join("evil")).unwrap();
    std::fs::write(
        tmp.join("p.json"),
        r#"{"hostname": "h", "cpus": 1, "time": "2026-01-01T00:00:00Z",
            "os": {"arch": "x86_64", "kernel_release": "6", "kernel_version": "v", "release_id": "debian", "version": "12"},
            "files_root": "root", "remote_files": {"hub": "hub-root"}}"#,
    )
    .unwrap();
    std::fs::write(
        tmp.join("p.cf"),
        "body common control { bundlesequence => { \"j\" }; }\n\
         bundle agent j\n{\n  files:\n    \"/a\" copy_from => h(\"/srv/evil\");\n    \"/b\" copy_from => h(\"/srv/../../../etc/hostname\");\n}\n\
         body copy_from h(f) { source => \"$(f)\"; servers => { \"hub\" }; }\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(&tmp)
        .args([
            "agent",
            "-K",
            "-I",
            "-f",
            "./p.cf",
            "--host",
            "p.json",
            "--write-root",
        ])
        .arg(tmp.join("out"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        out,
        "   error: Can't stat file '/srv/evil' on 'hub' in files.copy_from promise\n   \
         error: Errors encountered when actuating files promise '/a'\n   \
         error: Can't stat file '/srv/../../../etc/hostname' on 'hub' in files.copy_from promise\n   \
         error: Errors encountered when actuating files promise '/b'\n"
    );
    assert!(!tmp.join("out/a").exists() && !tmp.join("out/b").exists());
    let _ = std::fs::remove_dir_all(&tmp);
}
