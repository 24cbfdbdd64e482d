//! `cfsim functions`: the coverage listing of the 186 functions of 3.21 (snapshot), exit status 0.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[test]
fn functions_subcommand_lists_all_186() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .arg("functions")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().count(),
        187,
        "186 functions and a summary line"
    );
    insta::with_settings!({snapshot_path => "../snapshots/functions", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("functions_coverage", text);
    });
}
