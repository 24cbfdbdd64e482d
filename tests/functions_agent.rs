//! Function families end to end: each `policies/functions/<family>.cf` (generated from `<family>.cases`)
//! run by `cfsim agent`, compared byte for byte with what the real cf-agent 3.21 printed for it
//! (`<family>.expected`, re-checked live by tests/functions_live.rs). Families listed in `IDENTICAL` must stay
//! identical (a ratchet: add a family when it starts to match); the others are reported with their count of
//! differing lines, so the issue note can track them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

/// Families whose whole agent output is identical to the real agent's.
const IDENTICAL: &[&str] = &["lists", "math", "misc", "module", "time", "vars"];

#[test]
fn function_families_through_cfsim_agent() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/functions");
    let mut families: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let stem = p.file_stem()?.to_string_lossy().to_string();
            (p.extension().is_some_and(|x| x == "cf")
                && dir.join(format!("{stem}.expected")).exists())
            .then_some(stem)
        })
        .collect();
    families.sort();
    let mut identical = Vec::new();
    let mut report = Vec::new();
    for fam in &families {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(&dir)
            .env("CFSIM_TEST_VAR", "value-of-test")
            .args(["agent", "-K", "-f", &format!("./{fam}.cf")])
            .output()
            .unwrap();
        let want = std::fs::read(dir.join(format!("{fam}.expected"))).unwrap();
        if out.stdout == want {
            identical.push(fam.clone());
        } else {
            let got = String::from_utf8_lossy(&out.stdout);
            let want = String::from_utf8_lossy(&want);
            let differing = want
                .lines()
                .filter(|l| !got.lines().any(|g| g == *l))
                .count();
            report.push(format!("{fam}: {differing} recorded lines not reproduced"));
        }
    }
    eprintln!(
        "function families identical end to end: {}/{} ({})\n{}",
        identical.len(),
        families.len(),
        identical.join(", "),
        report.join("\n")
    );
    for fam in IDENTICAL {
        assert!(
            identical.iter().any(|f| f == fam),
            "family {fam} no longer identical to cf-agent's output"
        );
    }
}
