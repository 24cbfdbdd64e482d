//! The lessons (`policies/lessons/NN_topic.cf`): each is recorded from the real cf-agent like the eval
//! corpus (the recordings are checked by tests/eval_conformance.rs and, live, tests/eval_recordings.rs);
//! here: every lesson is explained in README.md with its recorded output, and the committed graphs
//! (`NAME.calls.dot`, `NAME.classes.dot`) and timeline (`NAME.timeline.html`) are what `cfsim graph`
//! and `cfsim agent --timeline` make today (Graphviz accepts the graphs; tests/timeline_browser.rs
//! loads lesson timelines in Chromium). The `cfsim explain` answers of the lessons are in
//! tests/explain.rs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn lessons() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("policies/lessons"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cf"))
        .collect();
    v.sort();
    v
}

#[test]
fn eight_to_ten_lessons_each_in_the_readme_with_its_recorded_output() {
    let all = lessons();
    assert!((8..=10).contains(&all.len()), "{} lessons", all.len());
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for p in &all {
        let name = p.file_stem().unwrap().to_str().unwrap();
        assert!(
            readme.contains(&format!("policies/lessons/{name}.cf")),
            "README.md does not present {name}"
        );
        // the output shown in the README is the real agent's recording, line for line
        let out = std::fs::read_to_string(p.with_extension("out")).unwrap();
        for line in out.lines() {
            assert!(
                readme.contains(line),
                "README.md lacks {name}'s output line {line:?}"
            );
        }
        let text = std::fs::read_to_string(p).unwrap();
        assert!(
            text.starts_with("# Lesson "),
            "{name}: starts with its rule"
        );
    }
}

#[test]
fn committed_graphs_are_current_and_accepted_by_graphviz() {
    let dot_ok = Command::new("dot").arg("-V").output().is_ok();
    for p in lessons() {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let stem = name.trim_end_matches(".cf");
        for kind in ["calls", "classes"] {
            let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
                .current_dir(root().join("policies/lessons"))
                .args(["graph", "-f", &format!("./{name}"), "--host"])
                .arg("../hosts/web1-oslo-debian.json")
                .args(["--kind", kind, "--format", "dot"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{name} {kind}");
            let file = p.with_file_name(format!("{stem}.{kind}.dot"));
            let committed = std::fs::read(&file).unwrap();
            assert!(
                committed == o.stdout,
                "{} is stale: regenerate it with cfsim graph (see README, Lessons)",
                file.display()
            );
            if dot_ok {
                let d = Command::new("dot")
                    .args(["-Tsvg", "-o", "/dev/null"])
                    .arg(&file)
                    .output()
                    .unwrap();
                assert!(d.status.success(), "dot rejects {}", file.display());
            } else {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "graphviz missing in CI"
                );
            }
        }
    }
}

#[test]
fn committed_timelines_are_current() {
    for p in lessons() {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let stem = name.trim_end_matches(".cf");
        let out =
            std::env::temp_dir().join(format!("cfsim-lesson-{}-{stem}.html", std::process::id()));
        let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .current_dir(root().join("policies/lessons"))
            .args(["agent", "-K", "-f", &format!("./{name}"), "--host"])
            .arg("../hosts/web1-oslo-debian.json")
            .arg("--timeline")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}");
        let now = std::fs::read(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        let file = p.with_file_name(format!("{stem}.timeline.html"));
        let committed = std::fs::read(&file).unwrap();
        assert!(
            committed == now,
            "{} is stale: regenerate it with cfsim agent --timeline (see README, Lessons)",
            file.display()
        );
    }
}
