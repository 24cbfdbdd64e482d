//! `cfsim host capture`: a host profile of this machine (the facts local discovery reads, its users and
//! groups, its installed packages from dpkg's database, its process table from `/proc`, its services
//! from systemd's unit files and links, [`super::capture_services`]) and, for the
//! file trees the user names, a copy of them as the profile's `files_root` (with the files discovery
//! reads, [`ALWAYS`], so classes and name lookups are this machine's): a policy can then be simulated
//! "as this host" anywhere, and "this host after the change" with the files promises acting on the
//! copy. Read-only on the machine: nothing
//! runs, nothing outside `--out` and its root directory is written. Limits: files of at most
//! [`MAX_FILE_BYTES`], at most [`MAX_ENTRIES`]
//! entries and [`MAX_TOTAL_BYTES`] in all; going over one is an error and nothing is written.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{local, profile_out};

/// Largest file copied (bytes); larger ones are skipped with a note (the agent's own edit limit is far
/// below).
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// Most entries (files, directories, links) copied from all trees.
pub const MAX_ENTRIES: usize = 200_000;
/// Most bytes copied from all trees.
pub const MAX_TOTAL_BYTES: u64 = 2 << 30;
/// Environment variables kept in a captured profile: the ones policies read. Others (tokens, keys in
/// a shell's environment) never go into a file meant to be shared.
pub const KEPT_ENV: &[&str] = &["HOME", "LANG", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// Files every capture copies when they exist (followed if they are links): what discovery and the
/// hard classes read (release files, names, mounts) and the account files, so a profile's classes and
/// lookups equal this machine's. `/etc/shadow` is never copied.
pub const ALWAYS: &[&str] = &[
    "/etc/alpine-release",
    "/etc/arch-release",
    "/etc/debian_version",
    "/etc/exports",
    "/etc/fstab",
    "/etc/gentoo-release",
    "/etc/group",
    "/etc/hosts",
    "/etc/issue",
    "/etc/os-release",
    "/etc/passwd",
    "/etc/redhat-release",
    "/etc/resolv.conf",
    "/etc/system-release",
    "/usr/lib/os-release",
];

/// What to capture.
#[derive(Debug, Clone)]
pub struct Request {
    /// The profile to write (`.json`); the file trees go to the directory beside it named after it
    /// with `.root` instead of `.json`.
    pub out: PathBuf,
    /// Absolute paths of files or directories to copy (recursively, symlinks as links).
    pub files: Vec<String>,
}

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    pub profile: PathBuf,
    /// The `files_root` directory, when trees were named.
    pub root: Option<PathBuf>,
    pub entries: usize,
    pub bytes: u64,
    /// Paths not copied, with the reason (unreadable, too large, a device or socket).
    pub skipped: Vec<(String, String)>,
}

/// Why a capture failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError(pub String);

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The `.root` directory beside a profile path.
pub fn root_of(out: &Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "host".to_string(), |s| s.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}.root"))
}

/// Captures this machine as asked.
pub fn capture(req: &Request) -> Result<Captured, CaptureError> {
    for f in &req.files {
        if !f.starts_with('/') {
            return Err(CaptureError(format!(
                "--files '{f}': give an absolute path (the path it has on the host)"
            )));
        }
        if Path::new(f)
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return Err(CaptureError(format!("--files '{f}': no '..' components")));
        }
    }
    let mut host = local::discover().map_err(|e| CaptureError(e.to_string()))?;
    host.env.retain(|k, _| KEPT_ENV.contains(&k.as_str()));
    host.files.root = None;
    let mut got = Captured {
        profile: req.out.clone(),
        ..Captured::default()
    };
    let mut plan = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for f in ALWAYS {
        if let Ok(meta) = fs::metadata(f) {
            if meta.is_file() && meta.len() <= MAX_FILE_BYTES && seen.insert(PathBuf::from(f)) {
                got.bytes += meta.len();
                plan.push(Item::File(PathBuf::from(f), meta));
            }
        }
    }
    for f in &req.files {
        walk(Path::new(f), &mut plan, &mut seen, &mut got)?;
    }
    let root = root_of(&req.out);
    if !plan.is_empty() {
        if root.exists() {
            return Err(CaptureError(format!(
                "{} exists: remove it or capture to another name",
                root.display()
            )));
        }
        fs::create_dir_all(&root)
            .map_err(|e| CaptureError(format!("cannot create {}: {e}", root.display())))?;
        for item in &plan {
            copy(item, &root, &mut got)?;
        }
        // directories last, so copying into them did not change their times
        for item in plan.iter().rev() {
            if let Item::Dir(p, meta) = item {
                finish_dir(&under(&root, p), meta);
            }
        }
        got.root = Some(root.clone());
    }
    let mut v = profile_out::to_profile(&host);
    if let (Some(m), true) = (v.as_object_mut(), !plan.is_empty()) {
        let name = root
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        m.insert("files_root".into(), Value::String(name));
        let mut held: Vec<String> = ALWAYS
            .iter()
            .filter(|f| Path::new(f).is_file())
            .map(|f| f.to_string())
            .collect();
        held.extend(req.files.iter().cloned());
        m.insert(
            "description".into(),
            Value::String(format!(
                "captured by cfsim host capture; files_root holds {}",
                held.join(", ")
            )),
        );
    }
    if let Some(m) = v.as_object_mut() {
        let installed = dpkg_installed();
        if !installed.is_empty() {
            m.insert(
                "packages".into(),
                serde_json::json!({ "installed": installed }),
            );
        }
        let procs: Vec<Value> = super::processes::local_table(&host.users)
            .into_iter()
            .map(|p| {
                serde_json::json!({
                    "pid": p.pid, "ppid": p.ppid, "pgid": p.pgid, "user": p.user,
                    "command": p.command, "vsize": p.vsize, "rsize": p.rsize, "tty": p.tty,
                    "priority": p.priority, "threads": p.threads,
                    "elapsed_seconds": p.elapsed_seconds, "cpu_seconds": p.cpu_seconds,
                })
            })
            .collect();
        if !procs.is_empty() {
            m.insert("processes".into(), Value::Array(procs));
        }
        let services: serde_json::Map<String, Value> =
            super::capture_services::services(Path::new("/"))
                .into_iter()
                .map(|(n, s)| {
                    (
                        n,
                        serde_json::json!({"running": s.running, "enabled": s.enabled}),
                    )
                })
                .collect();
        if !services.is_empty() {
            m.insert("services".into(), Value::Object(services));
        }
    }
    let text = serde_json::to_string_pretty(&v).map_err(|e| CaptureError(e.to_string()))?;
    fs::write(&req.out, format!("{text}\n"))
        .map_err(|e| CaptureError(format!("cannot write {}: {e}", req.out.display())))?;
    Ok(got)
}

enum Item {
    Dir(PathBuf, fs::Metadata),
    File(PathBuf, fs::Metadata),
    Link(PathBuf, PathBuf),
}

/// Lists what to copy below `p` (sorted, depth first), within the limits; nothing is written yet.
fn walk(
    p: &Path,
    plan: &mut Vec<Item>,
    seen: &mut std::collections::BTreeSet<PathBuf>,
    got: &mut Captured,
) -> Result<(), CaptureError> {
    let shown = p.display().to_string();
    let meta = match fs::symlink_metadata(p) {
        Ok(m) => m,
        Err(e) => {
            got.skipped.push((shown, e.to_string()));
            return Ok(());
        }
    };
    if plan.len() >= MAX_ENTRIES {
        return Err(CaptureError(format!(
            "more than {MAX_ENTRIES} entries in the named trees (at {shown}): name smaller trees"
        )));
    }
    let ft = meta.file_type();
    if !ft.is_dir() && !seen.insert(p.to_path_buf()) {
        return Ok(());
    }
    if ft.is_symlink() {
        match fs::read_link(p) {
            Ok(t) => plan.push(Item::Link(p.to_path_buf(), t)),
            Err(e) => got.skipped.push((shown, e.to_string())),
        }
    } else if ft.is_dir() {
        let mut names: Vec<_> = match fs::read_dir(p) {
            Ok(rd) => rd.filter_map(Result::ok).map(|e| e.file_name()).collect(),
            Err(e) => {
                got.skipped.push((shown, e.to_string()));
                return Ok(());
            }
        };
        names.sort();
        plan.push(Item::Dir(p.to_path_buf(), meta));
        for n in names {
            walk(&p.join(n), plan, seen, got)?;
        }
    } else if ft.is_file() {
        if meta.len() > MAX_FILE_BYTES {
            got.skipped.push((
                shown,
                format!("{} bytes, over the {MAX_FILE_BYTES} byte limit", meta.len()),
            ));
            return Ok(());
        }
        got.bytes += meta.len();
        if got.bytes > MAX_TOTAL_BYTES {
            return Err(CaptureError(format!(
                "the named trees hold more than {MAX_TOTAL_BYTES} bytes (at {shown}): name smaller trees"
            )));
        }
        plan.push(Item::File(p.to_path_buf(), meta));
    } else {
        got.skipped
            .push((shown, "not a file, directory or symlink".into()));
    }
    Ok(())
}

/// `root` + the absolute path `p`.
fn under(root: &Path, p: &Path) -> PathBuf {
    root.join(p.strip_prefix("/").unwrap_or(p))
}

fn copy(item: &Item, root: &Path, got: &mut Captured) -> Result<(), CaptureError> {
    let fail =
        |p: &Path, e: std::io::Error| CaptureError(format!("cannot write {}: {e}", p.display()));
    match item {
        Item::Dir(p, _) => {
            let to = under(root, p);
            fs::create_dir_all(&to).map_err(|e| fail(&to, e))?;
        }
        Item::Link(p, target) => {
            let to = under(root, p);
            if let Some(parent) = to.parent() {
                fs::create_dir_all(parent).map_err(|e| fail(parent, e))?;
            }
            // stored as it is: the profile's jail resolves it inside files_root
            std::os::unix::fs::symlink(target, &to).map_err(|e| fail(&to, e))?;
        }
        Item::File(p, meta) => {
            let to = under(root, p);
            if let Some(parent) = to.parent() {
                fs::create_dir_all(parent).map_err(|e| fail(parent, e))?;
            }
            match fs::read(p) {
                Ok(bytes) => {
                    use std::io::Write;
                    let mut f = fs::File::create(&to).map_err(|e| fail(&to, e))?;
                    f.write_all(&bytes).map_err(|e| fail(&to, e))?;
                    if let Ok(m) = meta.modified() {
                        let _ = f.set_modified(m);
                    }
                    drop(f);
                    apply_meta(&to, meta);
                }
                Err(e) => {
                    got.skipped.push((p.display().to_string(), e.to_string()));
                    return Ok(());
                }
            }
        }
    }
    got.entries += 1;
    Ok(())
}

/// Mode and owner (when running as root) of the original; best effort.
fn apply_meta(to: &Path, meta: &fs::Metadata) {
    let _ = std::os::unix::fs::lchown(to, Some(meta.uid()), Some(meta.gid()));
    let _ = fs::set_permissions(to, fs::Permissions::from_mode(meta.mode() & 0o7777));
}

/// A copied directory gets the original's time, mode and owner once everything is in it.
fn finish_dir(to: &Path, meta: &fs::Metadata) {
    if let (Ok(f), Ok(m)) = (fs::File::open(to), meta.modified()) {
        let _ = f.set_modified(m);
    }
    apply_meta(to, meta);
}

/// The installed packages of a Debian-style machine, from dpkg's database (`/var/lib/dpkg/status`,
/// read, not queried through dpkg): name, version, architecture of each `install ok installed`
/// entry, in the file's order. Other package managers' databases are not read (empty).
fn dpkg_installed() -> Vec<Value> {
    let Ok(text) = fs::read_to_string("/var/lib/dpkg/status") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for stanza in text.split("\n\n") {
        let field = |k: &str| {
            stanza
                .lines()
                .find_map(|l| l.strip_prefix(k).and_then(|r| r.strip_prefix(": ")))
                .map(str::trim)
        };
        let (Some(name), Some(version), Some(status)) =
            (field("Package"), field("Version"), field("Status"))
        else {
            continue;
        };
        if status != "install ok installed" {
            continue;
        }
        let arch = field("Architecture").unwrap_or("amd64");
        out.push(serde_json::json!({ "name": name, "version": version, "arch": arch }));
    }
    out
}
