//! The hENC demo under `cfsim agent`, as every shipped host profile: the R: lines, the soft classes and the
//! module's `henc.*` variables equal what the real cf-agent 3.21 printed as that host
//! (`policies/henc/demo/recorded/`, recorded in network namespaces built from each profile, with the Perl
//! reference and `cfsim henc` as the `henc` module; re-checked live by tests/henc_demo.rs). cfsim merges
//! the ENC files natively: nothing is executed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod henc_demo_support;

use henc_demo_support::{demo, profiles, recorded, split_run};

#[test]
fn demo_as_every_profile_matches_the_real_agent() {
    let profiles = profiles();
    assert!(
        profiles.len() >= 6,
        "expected the shipped profiles, found {}",
        profiles.len()
    );
    let mut failures = Vec::new();
    for (name, path) in &profiles {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(demo())
            .args(["agent", "-K", "-f", "./promises.cf", "--host"])
            .arg(path)
            .args([
                "--show-evaluated-classes",
                "--show-evaluated-vars=henc\\..*",
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = split_run(&String::from_utf8_lossy(&out.stdout), &demo());
        let want = recorded(name);
        for (what, g, w) in [
            ("R: lines", &got.out, &want.out),
            ("classes", &got.classes, &want.classes),
            ("henc vars", &got.vars, &want.vars),
        ] {
            if g != w {
                failures.push(format!(
                    "{name}: {what} differ\n--- real cf-agent\n{w}--- cfsim\n{g}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
