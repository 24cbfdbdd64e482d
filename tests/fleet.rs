//! `cfsim fleet` and `cfsim host generate`: 200 generated hosts across the hENC demo's location ranges
//! give, node by node, exactly the result of 200 separate `cfsim agent --host P --result-json` runs;
//! the table agrees with the JSON lines; any number of threads gives the same bytes; shards run by GNU
//! parallel and joined by `cfsim fleet merge` give what one unsharded run gives. On the masterfiles
//! (promises.cf of the installed CFEngine), 20 generated hosts give in `cfsim fleet` exactly what 20
//! separate `cfsim agent --host` runs give, and the table's brief results count what the full ones do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cfsim(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh directory of `n` generated hosts (oslo public/private, bergen public/private, lab).
fn generate(tag: &str, n: usize) -> PathBuf {
    let out = std::env::temp_dir().join(format!("cfsim-fleet-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let hosts = root().join("policies/hosts");
    let count = n.to_string();
    let o = cfsim(
        &[
            "host",
            "generate",
            "--from",
            hosts.join("web1-oslo-debian.json").to_str().unwrap(),
            hosts.join("db1-rhel-private.json").to_str().unwrap(),
            hosts.join("laptop-ubuntu-ipv6.json").to_str().unwrap(),
            "--count",
            &count,
            "--vary",
            "hostname=node{n:03}",
            "--vary",
            "domain=example.com,example.net",
            "--vary",
            "ipv4=203.0.113.0/24,10.20.0.0/16,198.51.100.0/24,192.168.10.0/23,192.0.2.0/24",
            "--out",
            out.to_str().unwrap(),
        ],
        &root(),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

const MASTERFILES: &str = "/usr/share/cfengine3/masterfiles/promises.cf";

fn demo() -> PathBuf {
    root().join("policies/henc/demo")
}

#[test]
fn fleet_equals_separate_agent_runs() {
    let hosts = generate("equal", 200);
    let o = cfsim(
        &[
            "fleet",
            "-f",
            "./promises.cf",
            "--hosts",
            hosts.to_str().unwrap(),
            "--format",
            "jsonl",
        ],
        &demo(),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<serde_json::Value> = text(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 200);
    let mut locations = std::collections::BTreeMap::<String, usize>::new();
    for node in &lines {
        let profile = node["profile"].as_str().unwrap();
        let result =
            std::env::temp_dir().join(format!("cfsim-fleet-one-{}.json", std::process::id()));
        let one = cfsim(
            &[
                "agent",
                "-K",
                "-f",
                "./promises.cf",
                "--host",
                profile,
                "--result-json",
                result.to_str().unwrap(),
            ],
            &demo(),
        );
        assert_eq!(one.status.code(), Some(0));
        let mut expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
        expected["profile"] = serde_json::Value::String(profile.to_string());
        assert_eq!(node, &expected, "{profile}");
        for c in node["classes"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            if ["oslo", "bergen", "lab"].contains(&name) {
                *locations.entry(name.to_string()).or_default() += 1;
            }
        }
    }
    // the ranges were given in turn: 80 oslo (public and private), 80 bergen, 40 lab
    assert_eq!(
        locations.into_iter().collect::<Vec<_>>(),
        vec![
            ("bergen".to_string(), 80),
            ("lab".to_string(), 40),
            ("oslo".to_string(), 80)
        ]
    );
}

#[test]
fn table_threads_and_shards_agree() {
    let hosts = generate("shards", 60);
    let h = hosts.to_str().unwrap();
    let table = |extra: &[&str]| {
        let mut args = vec!["fleet", "-f", "./promises.cf", "--hosts", h];
        args.extend_from_slice(extra);
        let o = cfsim(&args, &demo());
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        text(&o)
    };
    let one = table(&["-j", "1", "--classes", "^(oslo|bergen|lab)$"]);
    let two = table(&["-j", "2", "--classes", "^(oslo|bergen|lab)$"]);
    assert_eq!(one, two, "thread count changed the output");
    let rows: Vec<&str> = one.lines().collect();
    assert_eq!(rows.len(), 62, "{one}");
    assert!(rows[0].starts_with("node "));
    assert!(
        rows[1].starts_with("node001 ") && rows[1].ends_with("  oslo"),
        "{}",
        rows[1]
    );
    assert!(rows[3].ends_with("  bergen"), "{}", rows[3]);
    assert!(rows[5].ends_with("  lab"), "{}", rows[5]);
    assert!(
        rows[61].starts_with("fleet: 60 nodes, 0 clean, 60 dirty, 0 failed;"),
        "{}",
        rows[61]
    );
    let jsonl = table(&["--format", "jsonl"]);
    // shards through GNU parallel, as the README shows, then merged
    let parallel_ok = Command::new("parallel").arg("--version").output().is_ok();
    if !parallel_ok {
        assert!(
            std::env::var("CI").is_err(),
            "GNU parallel missing under CI (apt-get install parallel)"
        );
        eprintln!("SKIP shards: GNU parallel not installed");
        return;
    }
    let out = std::env::temp_dir().join(format!("cfsim-fleet-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let status = Command::new("parallel")
        .args([
            "--will-cite",
            "-j2",
            &format!(
                "{} fleet -f ./promises.cf --hosts {h} --format jsonl --shard {{}}/3 > {}/shard-{{}}.jsonl",
                env!("CARGO_BIN_EXE_cfsim"),
                out.display()
            ),
            ":::",
            "1",
            "2",
            "3",
        ])
        .current_dir(demo())
        .status()
        .unwrap();
    assert!(status.success());
    let shards: Vec<String> = (1..=3)
        .map(|k| {
            out.join(format!("shard-{k}.jsonl"))
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let sizes: Vec<usize> = shards
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap().lines().count())
        .collect();
    assert_eq!(sizes, vec![20, 20, 20]);
    let mut args = vec!["fleet", "merge"];
    args.extend(shards.iter().map(String::as_str));
    let merged = cfsim(&args, &demo());
    assert_eq!(text(&merged), jsonl, "merged shards differ from one run");
    let mut args = vec!["fleet", "merge", "--format", "table"];
    args.extend(shards.iter().map(String::as_str));
    let merged_table = cfsim(&args, &demo());
    assert_eq!(
        text(&merged_table),
        table(&[]),
        "merged table differs from one run"
    );
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&hosts);
}

#[test]
fn bad_input_is_reported() {
    let o = cfsim(
        &[
            "fleet",
            "-f",
            "./promises.cf",
            "--hosts",
            "/nonexistent-cfsim",
        ],
        &demo(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such file or directory"));
    let o = cfsim(
        &[
            "fleet",
            "-f",
            "./promises.cf",
            "--hosts",
            "../../hosts",
            "--shard",
            "4/3",
        ],
        &demo(),
    );
    assert_eq!(o.status.code(), Some(2));
    // a broken profile makes its node failed (exit 1), the others still run
    let dir = generate("broken", 3);
    std::fs::write(dir.join("zzz.json"), "{ not json").unwrap();
    let o = cfsim(
        &[
            "fleet",
            "-f",
            "./promises.cf",
            "--hosts",
            dir.to_str().unwrap(),
        ],
        &demo(),
    );
    assert_eq!(o.status.code(), Some(1));
    let t = text(&o);
    assert!(t.contains("failed"), "{t}");
    assert!(
        t.contains("fleet: 4 nodes, 0 clean, 3 dirty, 1 failed"),
        "{t}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let o = cfsim(
        &[
            "host",
            "generate",
            "--from",
            "../../hosts/web1-oslo-debian.json",
            "--count",
            "300",
            "--vary",
            "ipv4=203.0.113.0/24",
            "--out",
            "/tmp/cfsim-never-written",
        ],
        &demo(),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(!Path::new("/tmp/cfsim-never-written").exists());
}

/// Each node's result of `cfsim fleet --format jsonl` against one `cfsim agent --host P --result-json`
/// run per profile (with `profile` added), run in `dir`.
fn assert_nodes_equal_agent_runs(policy: &str, lines: &[serde_json::Value], dir: &Path) {
    for node in lines {
        let profile = node["profile"].as_str().unwrap();
        // not the file of fleet_equals_separate_agent_runs, which runs at the same time
        let result =
            std::env::temp_dir().join(format!("cfsim-fleet-mf-one-{}.json", std::process::id()));
        let one = cfsim(
            &[
                "agent",
                "-K",
                "-f",
                policy,
                "--host",
                profile,
                "--result-json",
                result.to_str().unwrap(),
            ],
            dir,
        );
        assert_eq!(
            one.status.code(),
            node["exit_code"].as_i64().map(|c| c as i32),
            "{profile}"
        );
        let mut expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
        expected["profile"] = serde_json::Value::String(profile.to_string());
        assert_eq!(node, &expected, "{profile}");
        let _ = std::fs::remove_file(&result);
    }
}

#[test]
fn masterfiles_fleet_equals_separate_agent_runs() {
    if !Path::new(MASTERFILES).is_file() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the masterfiles are required when CI=true"
        );
        eprintln!("SKIP: {MASTERFILES} not installed");
        return;
    }
    let hosts = generate("masterfiles", 20);
    let h = hosts.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["fleet", "-f", MASTERFILES, "--hosts", h];
        args.extend_from_slice(extra);
        let o = cfsim(&args, &root());
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        text(&o)
    };
    let jsonl = run(&["--format", "jsonl"]);
    let lines: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 20);
    // a real run of the masterfiles: hundreds of promises per node, none failed to load
    for node in &lines {
        assert!(node.get("error").is_none(), "{node}");
        assert!(node["summary"]["kept"].as_u64().unwrap() > 100, "{node}");
    }
    assert_nodes_equal_agent_runs(MASTERFILES, &lines, &root());
    // the table (brief results: counts only) says what the full results say
    let out = std::env::temp_dir().join(format!("cfsim-fleet-mf-{}.jsonl", std::process::id()));
    std::fs::write(&out, &jsonl).unwrap();
    let merged = cfsim(
        &["fleet", "merge", "--format", "table", out.to_str().unwrap()],
        &root(),
    );
    assert_eq!(text(&merged), run(&["-j", "2"]));
    assert_eq!(
        run(&["-j", "1"]),
        run(&["-j", "2"]),
        "thread count changed the table"
    );
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_dir_all(&hosts);
}
