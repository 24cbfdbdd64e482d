//! `cfsim agent` on hypothetical hosts (policies/hosts profiles): commands are simulated from the
//! profile's command results (nothing runs), iprange sees the profile's addresses. The real agent cannot
//! run on a hypothetical host, so these are insta snapshots (snapshots/agent_profiles/), reviewed by eye;
//! the rules they exercise are pinned against the real agent by the eval corpus.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cfsim::cli::agent::{simulate, Options};

fn run(profile: &str, inform: bool) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let r = simulate(&Options {
        file: format!("{root}/policies/agent-sim/profile_commands.cf"),
        host: format!("{root}/policies/hosts/{profile}.json"),
        inform,
        ..Options::default()
    });
    format!("# exit: {}\n{}", r.code, r.stdout)
}

#[test]
fn profile_commands_per_host() {
    for profile in ["web1-oslo-debian", "db1-rhel-private", "container-minimal"] {
        let out = run(profile, true);
        insta::with_settings!({snapshot_path => "../snapshots/agent_profiles", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(profile, out);
        });
    }
}

#[test]
fn nothing_is_executed_by_default() {
    // the profile knows no result for this command: it is reported, not run
    let out = run("container-minimal", true);
    assert!(out.contains("would have run '/usr/bin/unknown-command --flag'"));
    assert!(!out.contains("Executing 'no timeout' ... '/usr/bin/unknown-command"));
}

#[test]
fn bad_profile_is_a_diagnostic() {
    let r = simulate(&Options {
        file: "policies/agent-sim/profile_commands.cf".into(),
        host: "/nonexistent/profile.json".into(),
        ..Options::default()
    });
    assert_eq!(r.code, 2);
    assert!(
        r.stdout.contains("/nonexistent/profile.json"),
        "{}",
        r.stdout
    );
}
