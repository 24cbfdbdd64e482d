//! The files-promise corpus (`policies/files/<NAME>/`, recorded from cf-agent 3.21.0 by
//! `tests/oracle/record-files.sh`): each case's `setup.sh` builds a scratch tree in a temporary
//! directory that a host profile uses as its `files_root`; cfsim runs the policy as the recorder ran
//! cf-agent (cwd = the case directory, `-f ./policy.cf`), and its output and final tree (written with
//! `--write-root` over a copy of the scratch tree, listed by `tests/oracle/files-tree.py`) are compared
//! with the recordings, mode by mode. A second `-I` run on the state the first left (the convergence
//! check) is compared with `I2.out`/`tree2`. cfsim's output and trees pass through the recorder's
//! normalisation (`tests/oracle/record-files.sh --normalise`, see [`normalise`]) first, as the
//! recordings did. Every difference is printed; the test fails when a mode
//! matches fewer cases than its floor (raised as cfsim gets closer) or when the scratch tree the
//! policy ran on changed (the simulation never touches it).

#[path = "common/corpus.rs"]
mod corpus;
#[path = "common/tree_corpus.rs"]
mod tree_corpus;
use corpus::root;
use tree_corpus::TreeCorpus;

use std::path::Path;

/// Cases matching per mode, at least (measured; raise, never lower).
const FLOORS: &[(&str, usize)] = &[
    ("I", 213),
    ("tree", 213),
    ("I2", 213),
    ("tree2", 213),
    ("n", 213),
    ("default", 213),
    ("diff", 183),
    ("manifest", 184),
    ("manifest-full", 184),
    ("verbose", 213),
];

/// The recorder's normalisation (`tests/oracle/record-files.sh --normalise`, see
/// [`tree_corpus::normalise`]).
fn normalise(s: &str) -> String {
    tree_corpus::normalise(s, &[])
}

/// A profile (the CI machine's: Debian's users and groups, as where the corpus was recorded) whose `files_root` is `root`.
fn profile(root_dir: &Path, at: &Path, _case: &Path) {
    let base =
        std::fs::read_to_string(root().join("policies/hosts/ci-machine.json")).unwrap_or_default();
    let mut v: serde_json::Value = serde_json::from_str(&base).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        m.remove("files");
        m.insert(
            "files_root".into(),
            serde_json::Value::String(root_dir.display().to_string()),
        );
    }
    let _ = std::fs::write(at, v.to_string());
}

/// Each `Directory contents:` block of a `--simulate` report with its names sorted by bytes. The agent's
/// `ManifestDirectoryListing` (cf-agent/simulate_mode.c) prints the chroot directory's entries as
/// `readdir` returns them, unsorted: on ext4 that is the directory's hash order, seeded per file
/// system (two names list in the same order whichever was created first), so no simulator can
/// reproduce it from names alone; cfsim lists them sorted (docs/simulate.md, "Not reproduced"). A block
/// ends at the report's delimiter line, a log line or the end of the output.
fn sort_dir_listings(s: &str) -> String {
    let end = regex::Regex::new(r"^(=+|\s*[a-z]+: .*|R: .*)$").ok();
    let mut out = String::with_capacity(s.len());
    let mut block: Option<Vec<&str>> = None;
    for l in s.split_inclusive('\n') {
        let body = l.strip_suffix('\n').unwrap_or(l);
        if let Some(b) = block.as_mut() {
            if !end.as_ref().is_some_and(|r| r.is_match(body)) && l.ends_with('\n') {
                b.push(l);
                continue;
            }
            b.sort_unstable();
            out.extend(b.drain(..));
            block = None;
        }
        out.push_str(l);
        if body == "Directory contents:" {
            block = Some(Vec::new());
        }
    }
    if let Some(mut b) = block {
        b.sort_unstable();
        out.extend(b);
    }
    out
}

#[test]
fn files_cases_match_the_real_agent() {
    TreeCorpus {
        name: "files",
        profile,
        normalise,
        verbose: true,
        floors: FLOORS,
        // the order of a `Directory contents:` listing is the recording machine's ext4 hash order
        // (real-nginx-mustache): both sides are compared with those names sorted
        canon: sort_dir_listings,
    }
    .check_all();
}
