//! The scratch-tree corpora (`policies/files/`, `policies/remote/`): each case's `setup.sh` builds a
//! scratch tree under `srv/cfsim-<corpus>/<NAME>` of a temporary root that a host profile uses as its
//! `files_root`; cfsim runs the policy as the recorder ran cf-agent (cwd = the case directory,
//! `-f ./policy.cf`), and its output and final tree (written with `--write-root` over a copy of the
//! scratch tree, listed by `tests/oracle/files-tree.py`) are compared with the recordings mode by mode:
//! `-I`, its tree, a second `-I` on what the first left and its tree, `-n`, the default, the three
//! `--simulate` reports, and (for corpora recorded with it) `-v` reduced to the evaluation trace.
//! The includer declares `mod corpus` (tests/common/corpus.rs) next to this module.

use super::corpus;
use super::corpus::root;

use std::path::{Path, PathBuf};
use std::process::Command;

/// One scratch-tree corpus.
pub struct TreeCorpus {
    /// `files` → `policies/files/`, scratch trees under `srv/cfsim-files/`.
    pub name: &'static str,
    /// Writes the profile at `at` (second argument) for the scratch root (first) of a case (third).
    pub profile: fn(&Path, &Path, &Path),
    /// The recorder's normalisation, applied to cfsim's output and trees.
    pub normalise: fn(&str) -> String,
    /// The corpus has `expected/verbose.out` recordings.
    pub verbose: bool,
    /// Cases matching per mode, at least.
    pub floors: &'static [(&'static str, usize)],
    /// Applied to the recording and to cfsim's (normalised) output alike before they are compared: an
    /// order the agent takes from the recording machine's file system (files_fixtures.rs'
    /// `sort_dir_listings`).
    pub canon: fn(&str) -> String,
}

/// The recorders' normalisation (`tests/oracle/record-files.sh --normalise`, `record-remote.sh` adds its
/// `extra` rules): the simulate chroot's
/// pid, stat-block dates, timestamp backup names (`_<epoch>_<canonified ctime>` → `_<TS>`) and the
/// size of a symbolic link in a manifest stat block.
pub fn normalise(s: &str, extra: &[(&str, &str)]) -> String {
    let rules = [
        (
            r"/var/lib/cfengine3/state/[0-9]+\.changes",
            "/var/lib/cfengine3/state/<PID>.changes",
        ),
        (
            r"(?m)^(Access|Modify|Change): [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}$",
            "$1: <TIME>",
        ),
        (
            r"_[0-9]{9,11}_[A-Z][a-z]{2}_[A-Z][a-z]{2}_+[0-9]{1,2}_[0-9]{2}_[0-9]{2}_[0-9]{2}_[0-9]{4}",
            "_<TS>",
        ),
    ];
    let mut out = s.to_string();
    for (re, with) in rules.iter().chain(extra) {
        if let Ok(re) = regex::Regex::new(re) {
            out = re.replace_all(&out, *with).into_owned();
        }
    }
    let link_header = regex::Regex::new(
        r"^'.*' is a symbolic link$|^'.*' changed type from .* to symbolic link$",
    )
    .ok();
    let size = regex::Regex::new(r"^Size: [0-9]+$").ok();
    let mut link = false;
    let mut lines = Vec::new();
    for l in out.split_inclusive('\n') {
        let body = l.strip_suffix('\n').unwrap_or(l);
        if link && size.as_ref().is_some_and(|r| r.is_match(body)) {
            lines.push(l.replacen(body, "Size: <LINKSIZE>", 1));
            link = false;
            continue;
        }
        link = link_header.as_ref().is_some_and(|r| r.is_match(body));
        lines.push(l.to_string());
    }
    lines.concat()
}

fn sh(cmd: &mut Command) -> String {
    match cmd.output() {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => format!("cannot run: {e}"),
    }
}

/// The tree listing of `dir` (uid/gid columns masked unless this runs as root: a non-root writer
/// cannot give files away).
pub fn tree(dir: &Path, root_user: bool) -> String {
    let out = sh(Command::new("python3")
        .arg(root().join("tests/oracle/files-tree.py"))
        .arg(dir));
    if root_user {
        return out;
    }
    mask_owners(&out)
}

fn mask_owners(t: &str) -> String {
    t.lines()
        .map(|l| {
            let mut f: Vec<&str> = l.splitn(8, ' ').collect();
            if f.len() == 8 {
                f[2] = "-";
                f[3] = "-";
            }
            f.join(" ") + "\n"
        })
        .collect()
}

pub fn is_root() -> bool {
    sh(Command::new("id").arg("-u")).trim() == "0"
}

/// What one case gave: per mode, identical or a diff; and whether its scratch tree changed.
struct CaseResult {
    name: String,
    modes: Vec<(&'static str, Option<String>)>,
    touched: bool,
}

impl TreeCorpus {
    /// A fresh scratch root for `case` in `tmp`: `tmp/r<n>/srv/cfsim-<corpus>/<NAME>` set up by its
    /// script.
    pub fn setup(&self, case: &Path, name: &str, tmp: &Path, n: usize) -> PathBuf {
        let r = tmp.join(format!("r{n}"));
        let _ = std::fs::remove_dir_all(&r);
        let d = self.sub(&r, name);
        let _ = std::fs::create_dir_all(&d);
        let _ = Command::new("sh")
            .arg(case.join("setup.sh"))
            .current_dir(&d)
            .status();
        r
    }

    fn sub(&self, r: &Path, name: &str) -> PathBuf {
        r.join(format!("srv/cfsim-{}", self.name)).join(name)
    }

    /// Runs cfsim on `case` with `flags` against the scratch root; returns (stdout and stderr, the
    /// tree after: a copy of the scratch tree with the written changes and removals applied).
    fn run(&self, case: &Path, scratch: &Path, flags: &[&str]) -> (String, PathBuf) {
        let sibling = |ext: &str| PathBuf::from(format!("{}-{ext}", scratch.display()));
        let prof = sibling("profile.json");
        (self.profile)(scratch, &prof, case);
        let out_dir = sibling("out");
        let _ = std::fs::remove_dir_all(&out_dir);
        let (stdout, _) = corpus::run_agent(
            case,
            &prof,
            flags,
            &["--write-root".as_ref(), out_dir.as_os_str()],
        );
        let after = sibling("after");
        corpus::apply_write_root(scratch, &out_dir, &after);
        (stdout, after)
    }

    /// Runs every mode of one case in scratch directory number `i`.
    fn run_case(&self, case: &Path, tmp: &Path, i: usize, root_user: bool) -> CaseResult {
        let name = case
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let norm = self.normalise;
        let mut modes = Vec::new();
        let mut check = |mode: &'static str, got: String| {
            let file = match mode {
                "tree" | "tree2" => mode.to_string(),
                other => format!("{other}.out"),
            };
            let Ok(mut want) = std::fs::read_to_string(case.join("expected").join(&file)) else {
                return;
            };
            if file.starts_with("tree") && !root_user {
                want = mask_owners(&want);
            }
            let (want, got) = ((self.canon)(&want), (self.canon)(&got));
            modes.push((mode, corpus::compare(&name, mode, &want, &got)));
        };
        // -I, its tree, then the second run on what it left
        let r = self.setup(case, &name, tmp, i);
        let before = tree(&self.sub(&r, &name), true);
        let (out, after) = self.run(case, &r, &["-I"]);
        let touched = tree(&self.sub(&r, &name), true) != before;
        check("I", norm(&out));
        check("tree", norm(&tree(&self.sub(&after, &name), root_user)));
        let (out2, after2) = self.run(case, &after, &["-I"]);
        check("I2", norm(&out2));
        check("tree2", norm(&tree(&self.sub(&after2, &name), root_user)));
        for (mode, flags) in [
            ("n", &["-n"][..]),
            ("default", &[][..]),
            ("diff", &["-I", "--simulate=diff"][..]),
            ("manifest", &["-I", "--simulate=manifest"][..]),
            ("manifest-full", &["-I", "--simulate=manifest-full"][..]),
        ] {
            let r = self.setup(case, &name, tmp, i);
            let (out, _) = self.run(case, &r, flags);
            check(mode, norm(&out));
        }
        if self.verbose {
            // -v, reduced to the evaluation trace as the recorder reduced the agent's
            let r = self.setup(case, &name, tmp, i);
            let (out, _) = self.run(case, &r, &["-v"]);
            check(
                "verbose",
                corpus::eval_filter(
                    "verbose",
                    &case.display().to_string(),
                    norm(&out).as_bytes(),
                ),
            );
        }
        let _ = std::fs::remove_dir_all(tmp.join(format!("r{i}")));
        CaseResult {
            name,
            modes,
            touched,
        }
    }

    /// Runs every case (on every core, each in its own scratch directories), prints each difference
    /// and the count per mode, and fails when a scratch tree changed or a mode is below its floor
    /// (floors are not checked when the corpus is narrowed with `CFSIM_<CORPUS>_ONLY`).
    pub fn check_all(&self) {
        let cases = corpus::cases(self.name);
        if cases.is_empty() {
            return;
        }
        let root_user = is_root();
        let tmp = std::env::temp_dir().join(format!("cfsim-{}-{}", self.name, std::process::id()));
        let _ = std::fs::create_dir_all(&tmp);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results = std::sync::Mutex::new(Vec::new());
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(case) = cases.get(i) else {
                        break;
                    };
                    let r = self.run_case(case, &tmp, i, root_user);
                    if let Ok(mut v) = results.lock() {
                        v.push((i, r));
                    }
                });
            }
        });
        let _ = std::fs::remove_dir_all(&tmp);
        let mut results = results.into_inner().unwrap_or_default();
        results.sort_by_key(|(i, _)| *i);
        let mut tally = corpus::Tally::default();
        let mut touched = Vec::new();
        for (_, r) in &results {
            for (mode, diff) in &r.modes {
                tally.add(&r.name, mode, diff.as_deref());
            }
            if r.touched {
                touched.push(r.name.clone());
            }
        }
        assert!(touched.is_empty(), "the scratch tree changed: {touched:?}");
        tally.assert_floors(self.name, cases.len(), self.floors);
    }
}
