//! `cfsim test --snapshot`: insta-format snapshots of runs. The cycle a user goes through (new →
//! pending `.snap.new` → accepted → unchanged → a policy change shows a diff), insta's CI rule, and
//! compatibility both ways with insta itself: the insta crate reads the files cfsim writes and cfsim
//! reads the files insta writes, and `cargo insta pending-snapshots|accept|reject` work on them
//! (cargo-insta is installed by `.ci/run`; with CI set, its absence fails the test).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const POLICY: &str = r#"body common control
{
  bundlesequence => { "main" };
}

bundle agent main
{
  vars:
      "greeting" string => "hello";
      debian::
        "family" string => "debian";
      redhat::
        "family" string => "redhat";

  classes:
      "greeted" expression => "any", handle => "define_greeted";

  reports:
      "$(greeting) from $(sys.uqhost) ($(family))" handle => "say_hello";
      "never" handle => "never_said", if => "no_such_class";
}
"#;

/// A suite in a fresh directory: `policy.cf` and `suite.cfsim.yaml` (two hosts, snapshot only).
fn suite(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cfsim-snap-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("policy.cf"), POLICY).unwrap();
    let hosts = root().join("policies/hosts");
    let spec = format!(
        "policy: policy.cf\nsnapshot: true\nhosts:\n  - {}\n  - {}\ntests:\n  - name: greeting\n",
        hosts.join("web1-oslo-debian.json").display(),
        hosts.join("db1-rhel-private.json").display()
    );
    std::fs::write(dir.join("suite.cfsim.yaml"), spec).unwrap();
    dir
}

/// `cfsim test ARGS…` in `dir` with insta's environment variables set as given (others removed).
fn cfsim_test(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cfsim"));
    c.arg("test").args(args).current_dir(dir);
    c.env_remove("CI").env_remove("INSTA_UPDATE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The files under `dir/snapshots` whose names end with `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("snapshots"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

const NAMES: [&str; 2] = [
    "suite__greeting__db1-rhel-private.json.snap",
    "suite__greeting__web1-oslo-debian.json.snap",
];

#[test]
fn new_pending_accepted_unchanged_then_a_diff() {
    let dir = suite("cycle");
    // in CI (insta's `auto` = `no`) nothing is written, and the case fails
    let o = cfsim_test(&dir, &["."], &[("CI", "true")]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("no snapshot yet"), "{}", out(&o));
    assert!(files(&dir, ".new").is_empty());
    // elsewhere a pending .snap.new (with the spec line as assertion_line) is written; still failing
    let o = cfsim_test(&dir, &["."], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert_eq!(
        files(&dir, ".snap.new"),
        NAMES.iter().map(|n| format!("{n}.new")).collect::<Vec<_>>()
    );
    assert!(files(&dir, ".snap").is_empty());
    let pending =
        std::fs::read_to_string(dir.join("snapshots").join(format!("{}.new", NAMES[1]))).unwrap();
    assert!(pending.starts_with("---\nsource: suite.cfsim.yaml\nassertion_line: 7\n"));
    assert!(pending.contains("\n---\nexit_code: 0\n"), "{pending}");
    assert!(
        pending.contains("\nreports:\n  - hello from web1 (debian)\n"),
        "{pending}"
    );
    assert!(
        pending.contains("\n  main.family: \"debian\"\n"),
        "{pending}"
    );
    assert!(
        pending.contains("\n  - \"policy.cf:19 main reports \\\"$(greeting) from $(sys.uqhost) ($(family))\\\" (say_hello): kept [1 kept, 2 skipped]\"\n"),
        "{pending}"
    );
    // paths of the suite are written relative to the spec
    assert!(
        pending.contains("\n  sys.policy_entry_filename: \"$(spec_dir)/policy.cf\"\n"),
        "{pending}"
    );
    assert!(!pending.contains(&dir.display().to_string()), "{pending}");
    // --accept writes the .snap files without assertion_line and removes the pending ones
    let o = cfsim_test(&dir, &[".", "--accept"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(out(&o).ends_with("2 passed, 0 failed, 2 snapshots written\n"));
    assert_eq!(files(&dir, ".snap"), NAMES);
    assert!(files(&dir, ".new").is_empty());
    let snap = std::fs::read_to_string(dir.join("snapshots").join(NAMES[1])).unwrap();
    assert!(!snap.contains("assertion_line"));
    // unchanged: passes, writes nothing
    let o = cfsim_test(&dir, &["--snapshot", "."], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(files(&dir, ".new").is_empty());
    // a policy change: the diff of the snapshot is shown, a pending file written, the case fails
    let changed = POLICY.replace("\"hello\"", "\"good morning\"");
    std::fs::write(dir.join("policy.cf"), changed).unwrap();
    let o = cfsim_test(&dir, &["."], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = out(&o);
    assert!(text.contains("the run differs from its snapshot"), "{text}");
    assert!(text.contains("-  main.greeting: \"hello\""), "{text}");
    assert!(
        text.contains("+  main.greeting: \"good morning\""),
        "{text}"
    );
    assert!(
        text.contains("+  - good morning from web1 (debian)"),
        "{text}"
    );
    assert_eq!(files(&dir, ".new").len(), 2);
    let json = cfsim_test(&dir, &[".", "--format", "json"], &[]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["cases"][0]["snapshot"], "differs");
    // INSTA_UPDATE=always accepts like --accept
    let o = cfsim_test(&dir, &["."], &[("INSTA_UPDATE", "always")]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(files(&dir, ".new").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_insta_crate_reads_cfsim_snapshots_and_cfsim_reads_insta_ones() {
    let dir = suite("insta");
    let o = cfsim_test(&dir, &[".", "--accept"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let snapdir = dir.join("snapshots");
    for name in NAMES {
        let text = std::fs::read_to_string(snapdir.join(name)).unwrap();
        // the body as cfsim wrote it, taken apart by hand: what insta must find in the file
        let body = text.splitn(3, "---\n").nth(2).unwrap().to_string();
        let stem = name.trim_end_matches(".snap");
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(&snapdir);
        settings.set_prepend_module_to_snapshot(false);
        // a mismatch or an unreadable header makes insta fail this assertion (INSTA_UPDATE=no is
        // forced by its CI rule when CI is set; a pending file would show up below otherwise)
        settings.bind(|| insta::assert_snapshot!(stem, body.trim_end()));
        assert!(
            !snapdir.join(format!("{name}.new")).exists(),
            "insta wrote a pending file"
        );
        // insta writes the same body under another directory (in a child process: insta reads
        // INSTA_UPDATE once per process); cfsim accepts insta's file as its own
        let other = dir.join("insta-written");
        let child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "zz_child_insta_writes_a_snapshot", "--nocapture"])
            .env("INSTA_UPDATE", "always")
            .env_remove("CI")
            .env("CFSIM_INSTA_DIR", &other)
            .env("CFSIM_INSTA_NAME", stem)
            .env("CFSIM_INSTA_BODY", body.trim_end())
            .output()
            .unwrap();
        assert!(
            child.status.success(),
            "{}",
            String::from_utf8_lossy(&child.stdout)
        );
        let written = other.join(name);
        let theirs = std::fs::read_to_string(&written).expect("insta wrote its snapshot");
        assert!(
            theirs.starts_with("---\nsource: tests/snapshots_insta.rs\n"),
            "{theirs}"
        );
        assert_eq!(
            theirs.splitn(3, "---\n").nth(2).unwrap(),
            body,
            "insta's body differs"
        );
        std::fs::copy(&written, snapdir.join(name)).unwrap();
    }
    // cfsim now reads two snapshots written by insta (its own header) and finds the runs unchanged
    let o = cfsim_test(&dir, &["--snapshot", "."], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zz_child_insta_writes_a_snapshot() {
    let (Some(dir), Ok(name), Ok(body)) = (
        std::env::var_os("CFSIM_INSTA_DIR"),
        std::env::var("CFSIM_INSTA_NAME"),
        std::env::var("CFSIM_INSTA_BODY"),
    ) else {
        return;
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(PathBuf::from(dir));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name.as_str(), body));
}

fn cargo_insta() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("cargo-insta"))
            .find(|f| f.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "cargo-insta is missing in CI (.ci/run installs it)"
        );
        eprintln!("cargo-insta not installed: `cargo install cargo-insta` to run this test");
    }
    found
}

fn cargo_insta_run(bin: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .arg("insta")
        .args(args)
        .arg("--workspace-root")
        .arg(dir)
        .env_remove("CI")
        .output()
        .unwrap()
}

#[test]
fn cargo_insta_lists_accepts_and_rejects_cfsim_snapshots() {
    let Some(bin) = cargo_insta() else { return };
    let dir = suite("cargo-insta");
    // cargo-insta works in a Cargo package: README's manifest for a policy repository (never built)
    std::fs::write(dir.join("Cargo.toml"), CARGO_TOML).unwrap();
    let o = cfsim_test(&dir, &["."], &[]);
    assert_eq!(o.status.code(), Some(1));
    let list = cargo_insta_run(&bin, &dir, &["pending-snapshots", "--as-json"]);
    let listed = String::from_utf8_lossy(&list.stdout);
    for n in NAMES {
        assert!(listed.contains(&format!("{n}\"")), "{listed}");
    }
    // reject removes the pending files
    let o = cargo_insta_run(&bin, &dir, &["reject"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(files(&dir, ".new").is_empty());
    // accept turns them into the .snap files cfsim's own --accept writes, byte for byte
    cfsim_test(&dir, &["."], &[]);
    let o = cargo_insta_run(&bin, &dir, &["accept"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(files(&dir, ".snap"), NAMES);
    let accepted: Vec<String> = NAMES
        .iter()
        .map(|n| std::fs::read_to_string(dir.join("snapshots").join(n)).unwrap())
        .collect();
    let o = cfsim_test(&dir, &["--snapshot", "."], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    std::fs::remove_dir_all(dir.join("snapshots")).unwrap();
    let o = cfsim_test(&dir, &["--accept", "."], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    for (n, a) in NAMES.iter().zip(&accepted) {
        let ours = std::fs::read_to_string(dir.join("snapshots").join(n)).unwrap();
        assert_eq!(
            &ours, a,
            "{n}: cargo insta accept and cfsim --accept differ"
        );
    }
    // the interactive review, on a terminal (util-linux `script`): `a` accepts the first snapshot
    std::fs::remove_dir_all(dir.join("snapshots")).unwrap();
    cfsim_test(&dir, &["."], &[]);
    let mut review = Command::new("script")
        .args(["-qfec", "cargo insta review", "/dev/null"])
        .current_dir(&dir)
        .env_remove("CI")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = review.stdin.take().unwrap();
        std::thread::sleep(std::time::Duration::from_secs(2));
        stdin.write_all(b"A").unwrap();
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    let o = review.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(shown.contains("insta review finished"), "{shown}");
    assert!(shown.contains("suite.cfsim.yaml"), "{shown}");
    assert_eq!(files(&dir, ".snap"), NAMES, "{shown}");
    assert!(files(&dir, ".new").is_empty());
    let o = cfsim_test(&dir, &["--snapshot", "."], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The manifest README gives for running cargo-insta in a policy repository.
const CARGO_TOML: &str =
    "# Only so that `cargo insta review` finds this repository's cfsim snapshots; nothing is built.
[package]
name = \"policy-snapshots\"
version = \"0.0.0\"
edition = \"2021\"
publish = false

[lib]
path = \"snapshots/none.rs\"
";
