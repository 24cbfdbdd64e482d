//! `cfsim agent` on hypothetical hosts (policies/hosts profiles): commands are simulated from the
//! profile's command results (nothing runs), iprange sees the profile's addresses. The real agent cannot
//! run on a hypothetical host, so these are insta snapshots (snapshots/agent_profiles/), reviewed by eye;
//! the rules they exercise are pinned against the real agent by the eval corpus.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cfsim::cli::agent::{simulate, Options};
use cfsim::expr::host::Assume;

fn run(profile: &str, inform: bool) -> String {
    run_assuming(profile, inform, None)
}

fn run_assuming(profile: &str, inform: bool, assume: Option<Assume>) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let r = simulate(&Options {
        file: format!("{root}/policies/agent-sim/profile_commands.cf"),
        host: format!("{root}/policies/hosts/{profile}.json"),
        inform,
        assume_commands: assume,
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
    // the profile knows no result for this command: it is reported as not simulated, not run, and
    // defines no outcome class; functions asking for it fail
    let out = run("container-minimal", true);
    assert!(
        out.contains(
            "commands promise '/usr/bin/unknown-command --flag' in bundle 'main' is not simulated"
        ),
        "{out}"
    );
    assert!(!out.contains("Executing 'no timeout' ... '/usr/bin/unknown-command"));
    assert!(out.contains("R: unknown command: no outcome"), "{out}");
    assert!(!out.contains("R: unknown command repaired"), "{out}");
    assert!(
        out.contains("R: returnszero of an unknown command: nonzero"),
        "{out}"
    );
}

#[test]
fn assume_commands_chooses_the_answer() {
    let ok = run_assuming("container-minimal", true, Some(Assume::Succeed));
    assert!(
        ok.contains("assumed '/usr/bin/unknown-command --flag' returned 0"),
        "{ok}"
    );
    assert!(ok.contains("R: unknown command repaired"), "{ok}");
    assert!(
        ok.contains("R: returnszero of an unknown command: zero"),
        "{ok}"
    );
    assert!(!ok.contains("not simulated"), "{ok}");
    let bad = run_assuming("container-minimal", true, Some(Assume::Fail));
    assert!(bad.contains("R: unknown command failed"), "{bad}");
    assert!(
        bad.contains("R: returnszero of an unknown command: nonzero"),
        "{bad}"
    );
    // a command the profile knows keeps the profile's answer whatever is assumed
    let web = run_assuming("web1-oslo-debian", true, Some(Assume::Fail));
    assert!(web.contains("R: nginx active"), "{web}");
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
