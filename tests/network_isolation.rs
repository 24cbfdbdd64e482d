//! A simulation never asks DNS unless allowed: `host2ip()` with this machine as the host is answered by
//! its `/etc/hosts` (no resolver call, counted by `cfsim::host::names::DNS_QUERIES`), and only
//! `--allow-network` (or `--exec`) lets the system resolver answer. A host profile's own `/etc/hosts`
//! answers for that host.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::Ordering;

use cfsim::eval::output::LogLevel;
use cfsim::eval::setup::ClassOptions;
use cfsim::eval::RunOptions;
use cfsim::host::hard_classes::Component;
use cfsim::host::names::DNS_QUERIES;

fn run(policy: &str, host: &cfsim::host::Host, allow_network: bool) -> String {
    let dir = std::env::temp_dir().join(format!("cfsim-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // one file per call: the tests run in parallel threads of one process
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let f = dir.join(format!("p{n}.cf"));
    std::fs::write(&f, policy).unwrap();
    let p = cfsim::sim::Policy::load(&f.to_string_lossy()).unwrap();
    let opts = RunOptions {
        allow_network,
        ..RunOptions::default()
    };
    let mut e = p
        .engine(
            host,
            Component::Agent,
            &ClassOptions::default(),
            LogLevel::Notice,
            opts,
        )
        .unwrap();
    let seq = e.bundlesequence(None);
    e.run_sequence(&seq);
    e.out.text()
}

const POLICY: &str = r#"bundle agent main
{
  vars:
      "a" string => host2ip("name-only-dns-could-answer.example");
      "b" string => host2ip("web1.example");
      "c" string => ip2host("192.0.2.5");
  reports:
      "a=$(a) b=$(b) c=$(c)";
}
"#;

#[test]
fn dns_only_when_allowed() {
    let local = cfsim::host::load_host("local").unwrap();
    let before = DNS_QUERIES.load(Ordering::SeqCst);
    let out = run(POLICY, &local, false);
    assert_eq!(
        DNS_QUERIES.load(Ordering::SeqCst),
        before,
        "a simulation asked DNS: {out}"
    );
    assert!(
        out.contains("R: a=name-only-dns-could-answer.example"),
        "{out}"
    );
    let _ = run(POLICY, &local, true);
    assert_eq!(
        DNS_QUERIES.load(Ordering::SeqCst),
        before + 2,
        "--allow-network uses the resolver"
    );
}

#[test]
fn a_profile_answers_from_its_own_etc_hosts() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("policies/hosts/web1-oslo-debian.json"),
    )
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["files"]["/etc/hosts"] =
        serde_json::json!("127.0.0.1 localhost\n192.0.2.5 web1.example web1\n");
    let host =
        cfsim::host::profile::parse_profile(&v.to_string(), "web1.json", std::path::Path::new("."))
            .unwrap();
    let out = run(POLICY, &host, false);
    assert!(
        out.contains("R: a=name-only-dns-could-answer.example b=192.0.2.5 c=web1.example"),
        "{out}"
    );
}
