//! What a run changed on the virtual host, for programs and people: the list of changed paths with
//! their state before and after ([`changes`]), `--write-root DIR` (the final state of each changed
//! path written under DIR, removed paths listed in `DIR/.cfsim-removed`) and `--changes=json`.
//! Writing never follows a symbolic link inside DIR, so nothing is written outside it.

use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::vfs::{BaseFs, Kind, Node, Vfs};

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub before: Option<Node>,
    pub after: Option<Node>,
    /// The promises that changed it.
    pub promises: Vec<super::vfs::Actor>,
}

/// Every path the run changed, in first-change order, with its state before and after; paths whose
/// final state equals the first are left out.
pub fn changes(vfs: &Vfs, base: &dyn BaseFs) -> Vec<FileChange> {
    let mut out = Vec::new();
    for (path, before) in vfs.originals() {
        let after = vfs.node(base, path);
        if before.cloned() == after {
            continue;
        }
        out.push(FileChange {
            path: path.to_string(),
            before: before.cloned(),
            after,
            promises: vfs.actors_of(path),
        });
    }
    out
}

/// The directories above the changed paths that the run did not change, with their state (so
/// `--write-root` gives them their mode and owner rather than defaults).
pub fn parents(vfs: &Vfs, base: &dyn BaseFs, changes: &[FileChange]) -> Vec<(String, Node)> {
    let mut seen: std::collections::BTreeMap<String, Node> = Default::default();
    for c in changes {
        let mut p = c.path.as_str();
        while p != "/" {
            p = super::vfs::parent(p);
            if p == "/" || seen.contains_key(p) || changes.iter().any(|x| x.path == p) {
                continue;
            }
            if let Some(n) = vfs.node(base, p) {
                seen.insert(p.to_string(), n);
            }
        }
    }
    seen.into_iter().collect()
}

/// `DIR/path` for an absolute, normalised path.
fn under(dir: &Path, path: &str) -> PathBuf {
    dir.join(path.trim_start_matches('/'))
}

/// Fails if a component of `p` below `dir` is a symbolic link (so a write cannot leave `dir`).
fn no_link_below(dir: &Path, p: &Path) -> io::Result<()> {
    let Ok(rel) = p.strip_prefix(dir) else {
        return Err(io::Error::other("path outside the write root"));
    };
    let mut cur = dir.to_path_buf();
    for c in rel.parent().into_iter().flat_map(|x| x.components()) {
        cur.push(c);
        if let Ok(m) = std::fs::symlink_metadata(&cur) {
            if m.file_type().is_symlink() {
                return Err(io::Error::other(format!(
                    "'{}' is a symbolic link; not writing through it",
                    cur.display()
                )));
            }
        }
    }
    Ok(())
}

fn set_mode(p: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode & 0o7777))
}

/// Sets the owner when this process may (as root); otherwise the owner stays the writer's.
fn set_owner(p: &Path, n: &Node) {
    let _ = std::os::unix::fs::lchown(p, Some(n.meta.uid), Some(n.meta.gid));
}

/// Writes the final state of every changed path under `dir` (directories and files first, symbolic
/// links last) and the removed paths, one per line, to `dir/.cfsim-removed`. Owners are set when
/// cfsim runs as root (`--changes=json` always has them).
pub fn write_root(
    dir: &Path,
    changes: &[FileChange],
    parents: &[(String, Node)],
) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (path, n) in parents {
        if n.meta.kind == Kind::Dir {
            let p = under(dir, path);
            no_link_below(dir, &p)?;
            std::fs::create_dir_all(&p)?;
        }
    }
    let mut sorted: Vec<&FileChange> = changes.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut removed = String::new();
    for c in &sorted {
        let p = under(dir, &c.path);
        // a path whose type changed was removed first, then made again
        if c.after.is_none() || action(c) == "type_changed" {
            removed.push_str(&c.path);
            removed.push('\n');
        }
        match &c.after {
            None => {}
            Some(n) if n.meta.kind == Kind::Dir => {
                no_link_below(dir, &p)?;
                std::fs::create_dir_all(&p)?;
            }
            Some(n) if n.meta.kind == Kind::File => {
                no_link_below(dir, &p)?;
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
                    std::fs::remove_file(&p)?;
                }
                let bytes = match &n.content {
                    Some(c) => c.load()?,
                    None => Default::default(),
                };
                std::fs::write(&p, bytes.as_slice())?;
                // chown clears set-id bits: owner first, then the mode
                set_owner(&p, n);
                set_mode(&p, n.meta.mode)?;
            }
            Some(n) if n.meta.kind == Kind::Fifo => {
                no_link_below(dir, &p)?;
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                // std has no mkfifo: the coreutils program makes it (no shell, the path as an argument)
                let made = std::process::Command::new("mkfifo")
                    .arg("-m")
                    .arg(format!("{:o}", n.meta.mode & 0o7777))
                    .arg(&p)
                    .status()?;
                if !made.success() {
                    return Err(io::Error::other(format!("mkfifo '{}' failed", p.display())));
                }
                set_owner(&p, n);
            }
            Some(_) => {}
        }
    }
    for c in &sorted {
        if let Some(n) = &c.after {
            if n.meta.kind == Kind::Symlink {
                let p = under(dir, &c.path);
                no_link_below(dir, &p)?;
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                if std::fs::symlink_metadata(&p).is_ok() {
                    std::fs::remove_file(&p)?;
                }
                std::os::unix::fs::symlink(n.target.as_deref().unwrap_or(""), &p)?;
                set_owner(&p, n);
            }
        }
    }
    // directory modes last: a 0500 directory must not stop the writes into it
    let mut dirs: Vec<(&str, &Node)> = sorted
        .iter()
        .filter_map(|c| c.after.as_ref().map(|n| (c.path.as_str(), n)))
        .chain(parents.iter().map(|(p, n)| (p.as_str(), n)))
        .filter(|(_, n)| n.meta.kind == Kind::Dir)
        .collect();
    dirs.sort_by(|a, b| b.0.cmp(a.0));
    for (path, n) in dirs {
        set_owner(&under(dir, path), n);
        set_mode(&under(dir, path), n.meta.mode)?;
    }
    std::fs::write(dir.join(".cfsim-removed"), removed)
}

fn node_json(n: &Node) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), n.meta.kind.name().into());
    m.insert("mode".into(), format!("{:04o}", n.meta.mode).into());
    m.insert("uid".into(), n.meta.uid.into());
    m.insert("gid".into(), n.meta.gid.into());
    if let Some(c) = &n.content {
        m.insert("size".into(), c.len().into());
        let digest = Sha256::digest(c.bytes().as_slice());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        m.insert("sha256".into(), hex.into());
    }
    if let Some(t) = &n.target {
        m.insert("target".into(), t.clone().into());
    }
    serde_json::Value::Object(m)
}

/// A unified diff (GNU `diff -u` alignment, labels `a/PATH` and `b/PATH`) of a text file the run
/// created, modified or removed; `None` for other objects or content that is not text (not UTF-8, or
/// with a NUL byte).
fn text_diff(c: &FileChange) -> Option<String> {
    let text = |n: Option<&Node>| -> Option<Vec<u8>> {
        match n {
            None => Some(Vec::new()),
            Some(n) if n.meta.kind == Kind::File => {
                let b = n
                    .content
                    .as_ref()
                    .map(|c| c.bytes().to_vec())
                    .unwrap_or_default();
                (std::str::from_utf8(&b).is_ok() && !b.contains(&0)).then_some(b)
            }
            Some(_) => None,
        }
    };
    let old = text(c.before.as_ref())?;
    let new = text(c.after.as_ref())?;
    if old == new {
        return None;
    }
    let label = |side: &str| format!("{side}{}", c.path);
    let d = super::simreport::unified_diff(&old, &new, &label("a"), &label("b"));
    String::from_utf8(d).ok()
}

/// The action a change stands for: created, removed, modified, type_changed.
pub fn action(c: &FileChange) -> &'static str {
    match (&c.before, &c.after) {
        (None, Some(_)) => "created",
        (Some(_), None) => "removed",
        (Some(b), Some(a)) if b.meta.kind != a.meta.kind => "type_changed",
        (Some(b), Some(a)) if b.content != a.content || b.target != a.target => "modified",
        _ => "attributes",
    }
}

/// `--changes=json`: one object per changed path, in first-change order.
pub fn changes_json(changes: &[FileChange]) -> serde_json::Value {
    let items: Vec<serde_json::Value> = changes
        .iter()
        .map(|c| {
            let mut m = serde_json::Map::new();
            m.insert("path".into(), c.path.clone().into());
            m.insert("action".into(), action(c).into());
            m.insert(
                "before".into(),
                c.before.as_ref().map_or(serde_json::Value::Null, node_json),
            );
            m.insert(
                "after".into(),
                c.after.as_ref().map_or(serde_json::Value::Null, node_json),
            );
            let promises: Vec<serde_json::Value> = c
                .promises
                .iter()
                .map(|a| {
                    serde_json::json!({
                        "bundle": a.bundle,
                        "handle": a.handle,
                        "file": a.file,
                        "line": a.line,
                    })
                })
                .collect();
            m.insert("promises".into(), promises.into());
            if let Some(d) = text_diff(c) {
                m.insert("diff".into(), d.into());
            }
            serde_json::Value::Object(m)
        })
        .collect();
    serde_json::json!({ "version": 1, "changes": items })
}
