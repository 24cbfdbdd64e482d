//! Live checks against the real cf-agent 3.21 on this machine: `--host local` hard classes and
//! `sys.*` vars equal what `cf-agent -K --show-evaluated-classes --show-evaluated-vars` prints for a
//! trivial policy (time pinned to the agent's own `sys.systime`), and a profile written from the
//! local facts and loaded back yields the same classes. Skip note without cf-agent; FAIL if `CI=true`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod host_support;

use cfsim::host::hard_classes::Component;
use cfsim::host::sysvars::render_vars;
use cfsim::host::{hard_classes, load_host, sys_vars, Host};
use host_support::*;

/// Variables whose values are machine counters cfsim does not simulate (see sysvars.rs).
const UNSIMULATED_VARS: &[&str] = &["sys.interfaces_data", "sys.inet6"];

fn pinned_local(agent_out: &str) -> Host {
    let rows = var_lines(agent_out);
    let systime: i64 = rows
        .iter()
        .find(|r| r.starts_with("default:sys.systime "))
        .and_then(|r| r.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .expect("agent printed sys.systime");
    let agent_uptime: Option<u64> = rows
        .iter()
        .find(|r| r.starts_with("default:sys.uptime "))
        .and_then(|r| r.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok());
    let mut host = load_host("local").unwrap();
    host.time.epoch = systime;
    if let (Some(a), Some(ours)) = (agent_uptime, host.uptime_minutes) {
        assert!(
            a.abs_diff(ours) <= 1,
            "uptime differs by more than the minute between the two reads: {a} vs {ours}"
        );
        host.uptime_minutes = Some(a);
    }
    host
}

fn diff(label: &str, expected: &[String], got: &[String]) -> Vec<String> {
    let mut d = Vec::new();
    for e in expected {
        if !got.contains(e) {
            d.push(format!("{label} missing in cfsim: {e}"));
        }
    }
    for g in got {
        if !expected.contains(g) {
            d.push(format!("{label} extra in cfsim:   {g}"));
        }
    }
    d
}

/// One agent run whose `sys.systime` is not within a second of a minute boundary: the agent takes its
/// time classes and `sys.systime` at slightly different moments, so a run straddling the minute shows
/// the previous minute's classes with the next minute's clock (seen once at hh:mm:00).
fn agent_run() -> String {
    let mut out = String::new();
    for _ in 0..3 {
        out = run_agent(
            &repo_path("policies/hosts/live/trivial.cf"),
            &["--show-evaluated-classes", "--show-evaluated-vars=sys\\..*"],
        );
        let second = var_lines(&out)
            .iter()
            .find(|r| r.starts_with("default:sys.systime "))
            .and_then(|r| r.split_whitespace().nth(1))
            .and_then(|v| v.parse::<i64>().ok())
            .map(|t| t.rem_euclid(60));
        if !matches!(second, Some(0 | 59)) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
    }
    out
}

#[test]
fn local_hard_classes_equal_real_agent() {
    if !agent_available("local_hard_classes_equal_real_agent") {
        return;
    }
    let out = agent_run();
    let host = pinned_local(&out);
    // Persistent classes (`source=persistent`, left in the state DB by earlier runs) are not hard
    // classes; only rows tagged `hardclass` are host discovery.
    let expected: Vec<String> = parse_classes(&out)
        .into_iter()
        .filter(|(_, t)| t.split(',').any(|x| x == "hardclass"))
        .map(|(n, t)| format!("{n} {t}"))
        .collect();
    assert!(
        expected.len() > 60,
        "agent printed too few hard classes: {expected:?}"
    );
    let got: Vec<String> = hard_classes(&host, Component::Agent)
        .sorted()
        .into_iter()
        .map(|c| format!("{} {},hardclass", c.name, c.tags))
        .collect();
    let d = diff("class", &expected, &got);
    assert!(d.is_empty(), "{}", d.join("\n"));
}

#[test]
fn profile_written_from_local_facts_gives_the_real_agent_classes() {
    if !agent_available("profile_written_from_local_facts_gives_the_real_agent_classes") {
        return;
    }
    let out = agent_run();
    let local = pinned_local(&out);
    let json = serde_json::to_string_pretty(&cfsim::host::profile_out::to_profile(&local)).unwrap();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!("generated-profile-{}.json", std::process::id()));
    std::fs::write(&file, json).unwrap();
    let host = load_host(file.to_str().unwrap()).unwrap();
    let expected: Vec<String> = parse_classes(&out)
        .into_iter()
        .filter(|(_, t)| t.split(',').any(|x| x == "hardclass"))
        .map(|(n, t)| format!("{n} {t}"))
        .collect();
    let got: Vec<String> = hard_classes(&host, Component::Agent)
        .sorted()
        .into_iter()
        .map(|c| format!("{} {},hardclass", c.name, c.tags))
        .collect();
    let d = diff("class", &expected, &got);
    assert!(d.is_empty(), "{}", d.join("\n"));
}

#[test]
fn local_sys_vars_equal_real_agent() {
    if !agent_available("local_sys_vars_equal_real_agent") {
        return;
    }
    let out = agent_run();
    let host = pinned_local(&out);
    let entry: std::path::PathBuf = var_lines(&out)
        .iter()
        .find(|l| l.starts_with("default:sys.policy_entry_filename "))
        .and_then(|l| l.split_whitespace().nth(1))
        .expect("agent printed sys.policy_entry_filename")
        .into();
    let expected: Vec<String> = var_lines(&out)
        .into_iter()
        .filter(|l| {
            !UNSIMULATED_VARS
                .iter()
                .any(|v| l.starts_with(&format!("default:{v} ")))
        })
        .map(|l| strip_inet_stats(&l))
        .collect();
    assert!(
        expected.len() > 60,
        "agent printed too few sys vars: {expected:?}"
    );
    let got: Vec<String> = render_vars(&sys_vars(&host, Some(&entry)))
        .lines()
        .map(str::to_string)
        .collect();
    let d = diff("var", &expected, &got);
    assert!(d.is_empty(), "{}", d.join("\n"));
}

/// Remove the `"stats":{…}` member (kernel counters, not simulated) from a `sys.inet` row.
fn strip_inet_stats(line: &str) -> String {
    if !line.starts_with("default:sys.inet ") {
        return line.to_string();
    }
    let start = line.find('{').unwrap();
    let end = line.rfind('}').unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&line[start..=end]).unwrap();
    v.as_object_mut().unwrap().remove("stats");
    let tags = line[end + 1..].trim();
    let vars = vec![cfsim::host::SysVar {
        name: "inet".into(),
        value: cfsim::host::SysValue::Data(v),
        tags: tags.into(),
    }];
    render_vars(&vars).trim_end().to_string()
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[test]
fn local_hard_classes_equal_real_cf_promises() {
    if !agent_available("local_hard_classes_equal_real_cf_promises") {
        return;
    }
    // cf-promises prints no clock; run it inside one minute (retry once) and pin our clock to it.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("host-promises-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        repo_path("policies/hosts/live/trivial.cf"),
        dir.join("trivial.cf"),
    )
    .unwrap();
    let mut attempt = 0;
    let (t0, out) = loop {
        let t0 = now();
        let out = std::process::Command::new("cf-promises")
            .args(["-f", "./trivial.cf", "--show-classes"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let t1 = now();
        attempt += 1;
        if t0 / 60 == t1 / 60 || attempt == 2 {
            break (t0, String::from_utf8_lossy(&out.stdout).to_string());
        }
    };
    let mut host = load_host("local").unwrap();
    host.time.epoch = t0;
    let expected: Vec<String> = parse_classes(&out)
        .into_iter()
        .filter(|(_, t)| t.split(',').any(|x| x == "hardclass"))
        .map(|(n, t)| format!("{n} {t}"))
        .collect();
    assert!(
        expected.iter().any(|c| c.starts_with("common ")),
        "cf-promises defines `common`"
    );
    let got: Vec<String> = hard_classes(&host, Component::Promises)
        .sorted()
        .into_iter()
        .map(|c| format!("{} {},hardclass", c.name, c.tags))
        .collect();
    let d = diff("class", &expected, &got);
    assert!(d.is_empty(), "{}", d.join("\n"));
}

#[test]
fn time_classes_and_date_follow_the_zone_like_real_agent() {
    if !agent_available("time_classes_and_date_follow_the_zone_like_real_agent") {
        return;
    }
    for zone in ["Europe/Oslo", "America/New_York", "Asia/Kolkata"] {
        let tzfile = format!("/usr/share/zoneinfo/{zone}");
        let Ok(tzdata) = std::fs::read(&tzfile) else {
            eprintln!("note: {tzfile} missing; zone skipped");
            continue;
        };
        let out = run_agent_env(
            &repo_path("policies/hosts/live/trivial.cf"),
            &[
                "--show-evaluated-classes=.*",
                "--show-evaluated-vars=sys\\.(systime|date|cdate)",
            ],
            &[("TZ", zone)],
        );
        let mut host = pinned_local(&out);
        host.time.utc_offset = cfsim::host::time::tzif_offset(&tzdata, host.time.epoch).unwrap();
        let time_rows = |v: Vec<String>| -> Vec<String> {
            v.into_iter().filter(|r| r.contains("time_based")).collect()
        };
        let expected = time_rows(
            parse_classes(&out)
                .into_iter()
                .map(|(n, t)| format!("{n} {t}"))
                .collect(),
        );
        let got = time_rows(
            hard_classes(&host, Component::Agent)
                .sorted()
                .into_iter()
                .map(|c| format!("{} {},hardclass", c.name, c.tags))
                .collect(),
        );
        // 12 local + 12 GMT names; `Hr%d` and `Hr%02d` coincide from 10:00.
        assert!(
            expected.len() >= 22,
            "{zone}: too few time classes: {expected:?}"
        );
        assert_eq!(got, expected, "{zone}");
        let vars: Vec<String> = render_vars(&sys_vars(&host, None))
            .lines()
            .filter(|l| l.starts_with("default:sys.date ") || l.starts_with("default:sys.cdate "))
            .map(str::to_string)
            .collect();
        let want: Vec<String> = var_lines(&out)
            .into_iter()
            .filter(|l| l.starts_with("default:sys.date ") || l.starts_with("default:sys.cdate "))
            .collect();
        assert_eq!(vars, want, "{zone}");
    }
}
