//! Shared by the hENC demo suites (and meant for the `cfsim agent` comparison): the shipped profiles,
//! the demo directory, and the filter that turns one agent run into the recorded form
//! (`policies/henc/demo/README.md`, "Recording format").
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

pub fn demo() -> PathBuf {
    repo_path("policies/henc/demo")
}

/// Placeholder for the scratch copy of the demo in recorded output.
pub const DEMO_DIR: &str = "<demo>";

/// Shipped profiles (`policies/hosts/*.json` except the schema): (stem, path), sorted by stem.
pub fn profiles() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(repo_path("policies/hosts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| p.file_stem().is_some_and(|s| s != "schema"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().to_string(), p))
        .collect();
    out.sort();
    out
}

/// One agent run as recorded (see the README): the lines before the tables, the soft classes of
/// `--show-evaluated-classes`, and the module's `henc.*` rows of `--show-evaluated-vars`.
#[derive(Debug, Default, PartialEq)]
pub struct Recording {
    pub out: String,
    pub classes: String,
    pub vars: String,
}

pub fn split_run(out: &str, demo_dir: &Path) -> Recording {
    let out = out.replace(&*demo_dir.to_string_lossy(), DEMO_DIR);
    let mut rec = Recording::default();
    let mut table = "";
    for line in out.lines() {
        if line.starts_with("Class name") {
            table = "classes";
            continue;
        }
        if line.starts_with("Variable name") {
            table = "vars";
            continue;
        }
        let mut cols = line.split_whitespace();
        match table {
            "classes" => {
                let Some(name) = cols.next() else { continue };
                let tags = cols.next().unwrap_or("");
                if tags.split(',').any(|t| t == "hardclass") {
                    continue;
                }
                rec.classes.push_str(name);
                if !tags.is_empty() {
                    rec.classes.push(' ');
                    rec.classes.push_str(tags);
                }
                rec.classes.push('\n');
            }
            "vars" => {
                // The henc bundle's own variables (same scope, tagged source=promise) are not ENC output.
                if line.trim().is_empty() || line.contains("source=promise") {
                    continue;
                }
                rec.vars.push_str(line.trim_end());
                rec.vars.push('\n');
            }
            _ => {
                rec.out.push_str(line);
                rec.out.push('\n');
            }
        }
    }
    rec
}

/// The recording of `profile` (stem of `policies/hosts/<profile>.json`); missing files read as empty.
pub fn recorded(profile: &str) -> Recording {
    let file = |ext: &str| demo().join(format!("recorded/{profile}.{ext}"));
    Recording {
        out: std::fs::read_to_string(file("out")).unwrap_or_default(),
        classes: std::fs::read_to_string(file("classes")).unwrap_or_default(),
        vars: std::fs::read_to_string(file("vars")).unwrap_or_default(),
    }
}
