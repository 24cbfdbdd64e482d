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
use corpus::root;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Cases matching per mode, at least (measured; raise, never lower).
const FLOORS: &[(&str, usize)] = &[
    ("I", 207),
    ("tree", 207),
    ("I2", 207),
    ("tree2", 207),
    ("n", 207),
    ("default", 207),
    ("diff", 176),
    ("manifest", 177),
    ("manifest-full", 177),
    ("verbose", 205),
];

/// The recorder's normalisation (`tests/oracle/record-files.sh --normalise`): the simulate chroot's
/// pid, stat-block dates, timestamp backup names (`_<epoch>_<canonified ctime>` → `_<TS>`) and the
/// size of a symbolic link in a manifest stat block.
fn normalise(s: &str) -> String {
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
    for (re, with) in rules {
        if let Ok(re) = regex::Regex::new(re) {
            out = re.replace_all(&out, with).into_owned();
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
fn tree(dir: &Path, root_user: bool) -> String {
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

fn is_root() -> bool {
    sh(Command::new("id").arg("-u")).trim() == "0"
}

/// A profile (the CI machine's: Debian's users and groups, as where the corpus was recorded) whose `files_root` is `root`.
fn profile(root_dir: &Path, at: &Path) {
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

/// Runs cfsim on the case with `flags` against the scratch root; returns (stdout, tree after).
fn run(
    case: &Path,
    name: &str,
    scratch: &Path,
    flags: &[&str],
    root_user: bool,
) -> (String, PathBuf) {
    let sibling = |ext: &str| PathBuf::from(format!("{}-{ext}", scratch.display()));
    let prof = sibling("profile.json");
    profile(scratch, &prof);
    let out_dir = sibling("out");
    let _ = std::fs::remove_dir_all(&out_dir);
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(case)
        .arg("agent")
        .arg("-K")
        .args(flags)
        .args(["-f", "./policy.cf", "--host"])
        .arg(&prof)
        .arg("--write-root")
        .arg(&out_dir)
        .output();
    let stdout = match o {
        Ok(o) => {
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
        }
        Err(e) => format!("cannot run cfsim: {e}"),
    };
    // the state after: a copy of the scratch tree with the written changes and removals applied
    let after = sibling("after");
    let _ = std::fs::remove_dir_all(&after);
    let _ = Command::new("cp")
        .arg("-a")
        .arg(scratch)
        .arg(&after)
        .status();
    // removed paths first (a path whose type changed is listed too), then the written state;
    // --remove-destination: a path that was a symbolic link and is now a file is replaced, not
    // written through
    let removed = std::fs::read_to_string(out_dir.join(".cfsim-removed")).unwrap_or_default();
    for r in removed.lines() {
        let p = after.join(r.trim_start_matches('/'));
        let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
    }
    let _ = Command::new("cp")
        .arg("-a")
        .arg("--remove-destination")
        .arg(format!("{}/.", out_dir.display()))
        .arg(&after)
        .status();
    let _ = std::fs::remove_file(after.join(".cfsim-removed"));
    let _ = (name, root_user);
    (stdout, after)
}

/// A fresh scratch root for `case` in `tmp`: `tmp/<n>/srv/cfsim-files/<NAME>` set up by its script.
fn setup(case: &Path, name: &str, tmp: &Path, n: usize) -> PathBuf {
    let r = tmp.join(format!("r{n}"));
    let _ = std::fs::remove_dir_all(&r);
    let d = r.join("srv/cfsim-files").join(name);
    let _ = std::fs::create_dir_all(&d);
    let _ = Command::new("sh")
        .arg(case.join("setup.sh"))
        .current_dir(&d)
        .status();
    r
}

fn expected(case: &Path, f: &str, root_user: bool) -> Option<String> {
    let t = std::fs::read_to_string(case.join("expected").join(f)).ok()?;
    if f.starts_with("tree") && !root_user {
        return Some(mask_owners(&t));
    }
    Some(t)
}

/// What one case gave: per mode, identical or a diff; and whether its scratch tree changed.
struct CaseResult {
    name: String,
    modes: Vec<(&'static str, Option<String>)>,
    touched: bool,
}

/// Runs every mode of one case in scratch directory number `i`.
fn run_case(case: &Path, tmp: &Path, i: usize, root_user: bool) -> CaseResult {
    let name = case
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sub = |r: &Path| r.join("srv/cfsim-files").join(&name);
    let mut modes = Vec::new();
    let mut check = |mode: &'static str, got: String| {
        let file = match mode {
            "tree" | "tree2" => mode.to_string(),
            other => format!("{other}.out"),
        };
        let Some(want) = expected(case, &file, root_user) else {
            return;
        };
        if want == got {
            modes.push((mode, None));
        } else {
            modes.push((
                mode,
                Some(format!(
                    "--- {name} {mode}\n{}",
                    similar::TextDiff::from_lines(&want, &got)
                        .unified_diff()
                        .header("recorded", "cfsim")
                )),
            ));
        }
    };
    // -I, its tree, then the second run on what it left
    let r = setup(case, &name, tmp, i);
    let before = tree(&sub(&r), true);
    let (out, after) = run(case, &name, &r, &["-I"], root_user);
    let touched = tree(&sub(&r), true) != before;
    check("I", normalise(&out));
    check("tree", normalise(&tree(&sub(&after), root_user)));
    let (out2, after2) = run(case, &name, &after, &["-I"], root_user);
    check("I2", normalise(&out2));
    check("tree2", normalise(&tree(&sub(&after2), root_user)));
    for (mode, flags) in [
        ("n", &["-n"][..]),
        ("default", &[][..]),
        ("diff", &["-I", "--simulate=diff"][..]),
        ("manifest", &["-I", "--simulate=manifest"][..]),
        ("manifest-full", &["-I", "--simulate=manifest-full"][..]),
    ] {
        let r = setup(case, &name, tmp, i);
        let (out, _) = run(case, &name, &r, flags, root_user);
        check(mode, normalise(&out));
    }
    // -v, reduced to the evaluation trace as the recorder reduced the agent's
    let r = setup(case, &name, tmp, i);
    let (out, _) = run(case, &name, &r, &["-v"], root_user);
    check(
        "verbose",
        corpus::eval_filter(
            "verbose",
            &case.display().to_string(),
            normalise(&out).as_bytes(),
        ),
    );
    let _ = std::fs::remove_dir_all(tmp.join(format!("r{i}")));
    CaseResult {
        name,
        modes,
        touched,
    }
}

#[test]
fn files_cases_match_the_real_agent() {
    let cases = corpus::cases("files");
    if cases.is_empty() {
        return;
    }
    let root_user = is_root();
    let tmp = std::env::temp_dir().join(format!("cfsim-files-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    // the cases run on every core (each in its own scratch directories)
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
                let r = run_case(case, &tmp, i, root_user);
                if let Ok(mut v) = results.lock() {
                    v.push((i, r));
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    let mut ok: BTreeMap<&str, usize> = BTreeMap::new();
    let mut touched = Vec::new();
    for (_, r) in &results {
        for (mode, diff) in &r.modes {
            match diff {
                None => *ok.entry(mode).or_default() += 1,
                Some(d) => println!("{d}"),
            }
        }
        if r.touched {
            touched.push(r.name.clone());
        }
    }
    let mut short = Vec::new();
    for (mode, floor) in FLOORS {
        let n = ok.get(mode).copied().unwrap_or(0);
        println!("files corpus: {mode}: {n}/{} cases identical", cases.len());
        if n < *floor {
            short.push(format!("{mode}: {n} < {floor}"));
        }
    }
    assert!(touched.is_empty(), "the scratch tree changed: {touched:?}");
    if !corpus::narrowed("files") {
        assert!(short.is_empty(), "below the floors: {short:?}");
    }
}
