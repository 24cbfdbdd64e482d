//! The brief result (`cfsim fleet`'s table) counts outcomes as the run goes (`eval::counts`) instead
//! of keeping a trace: for every runnable policy of the repository (files with edit bundles, methods
//! calls, packages, services, the eval corpus, …) on a bundled profile, its summary must be the one
//! counted from the full trace of the same run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use cfsim::sim::run::{simulate, Options};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn policies(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            policies(&p, out);
        } else if p.extension().is_some_and(|e| e == "cf")
            && std::fs::read_to_string(&p).is_ok_and(|t| t.contains("bundlesequence"))
        {
            out.push(p);
        }
    }
}

fn summary(policy: &Path, host: &Path, keep_trace: bool) -> Option<serde_json::Value> {
    let o = Options {
        file: policy.to_string_lossy().into_owned(),
        host: host.to_string_lossy().into_owned(),
        result_json: Some("-".into()),
        brief_result: true,
        brief_without_classes: true,
        keep_trace,
        ..Options::default()
    };
    simulate(&o).result.map(|r| r["summary"].clone())
}

#[test]
fn brief_counts_equal_the_trace_counts() {
    let mut all = Vec::new();
    policies(&root().join("policies"), &mut all);
    let host = root().join("policies/hosts/web1-oslo-debian.json");
    let mut compared = 0;
    let mut counted = 0u64;
    for p in &all {
        let (Some(brief), Some(full)) = (summary(p, &host, false), summary(p, &host, true)) else {
            continue;
        };
        assert_eq!(brief, full, "{}", p.display());
        compared += 1;
        counted += ["kept", "repaired", "not_kept", "not_simulated", "skipped"]
            .iter()
            .map(|k| brief[k].as_u64().unwrap_or(0))
            .sum::<u64>();
    }
    eprintln!(
        "{compared} policies of {}, {counted} promises counted alike",
        all.len()
    );
    // most policies of the repository run (the others are rejected or need their own host)
    assert!(compared * 2 > all.len(), "{compared} of {}", all.len());
}
