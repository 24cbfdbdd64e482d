//! `--simulate`: the agent mirrors every path a files promise is about to look at into its changes
//! chroot first (`PrepareChangesChroot`: the parents' permissions, a directory with everything in
//! it, a symbolic link with its target). The real host is left alone, so the mirroring only shows in
//! the INFO lines it prints when the copying of permissions fails (a dangling or looping link, a
//! parent that is not a directory, a relative path). cfsim's virtual host is the chroot; this keeps
//! the set of paths mirrored so far and prints those lines as the agent does.

use crate::eval::output::LogLevel;
use crate::eval::Engine;
use crate::host::vfs::{self, BaseFs, Kind, Meta};

/// Most nested mirrorings (links to links to …).
const MAX_DEPTH: usize = 64;

/// Most paths one promise path mirrors (a directory is mirrored with everything in it).
const MAX_MIRRORED: usize = 100_000;

/// Most symbolic links followed when resolving one path (the kernel's limit).
const MAX_HOPS: usize = 40;

/// Why a path cannot be resolved on the real host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Errno {
    NoEnt,
    Loop,
    NotDir,
}

impl Errno {
    fn text(self) -> &'static str {
        match self {
            Errno::NoEnt => "No such file or directory",
            Errno::Loop => "Too many levels of symbolic links",
            Errno::NotDir => "Not a directory",
        }
    }
}

/// The base with its `lstat` answers kept for the run (the run's file system keeps them: the base
/// does not change during a run).
struct Cached<'a> {
    base: &'a dyn BaseFs,
    vfs: &'a vfs::Vfs,
}

impl BaseFs for Cached<'_> {
    fn lstat(&self, path: &str) -> Option<Meta> {
        self.vfs.base_lstat(self.base, path)
    }
    fn read(&self, path: &str, max: u64) -> Result<Vec<u8>, crate::host::read::ReadError> {
        self.base.read(path, max)
    }
    fn readlink(&self, path: &str) -> Option<String> {
        self.base.readlink(path)
    }
    fn list(&self, path: &str) -> Option<Vec<String>> {
        self.base.list(path)
    }
}

/// `stat` (`follow`) or `lstat` of `raw` on the real host (the base, which a simulate run never
/// changes), with the kernel's errors: a `.` component or a trailing `/` needs a directory.
fn real_stat(base: &dyn BaseFs, raw: &str, follow: bool) -> Result<Meta, Errno> {
    if raw.is_empty() {
        return Err(Errno::NoEnt);
    }
    let mut todo: std::collections::VecDeque<String> = raw
        .split('/')
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect();
    if raw.ends_with('/') {
        todo.push_back(".".into());
    }
    let mut done: Vec<String> = Vec::new();
    let mut hops = 0usize;
    let mut cur: Option<Meta> = base.lstat("/");
    while let Some(c) = todo.pop_front() {
        if c == "." || c == ".." {
            if cur.as_ref().is_some_and(|m| m.kind != Kind::Dir) {
                return Err(Errno::NotDir);
            }
            if c == ".." {
                done.pop();
                cur = base.lstat(&join(&done));
            }
            continue;
        }
        if cur.as_ref().is_some_and(|m| m.kind != Kind::Dir) {
            return Err(Errno::NotDir);
        }
        done.push(c);
        let here = join(&done);
        let Some(m) = base.lstat(&here) else {
            return Err(Errno::NoEnt);
        };
        let last = todo.is_empty();
        if m.kind == Kind::Symlink && (follow || !last) {
            hops += 1;
            if hops > MAX_HOPS {
                return Err(Errno::Loop);
            }
            let Some(target) = base.readlink(&here) else {
                return Err(Errno::NoEnt);
            };
            done.pop();
            if target.starts_with('/') {
                done.clear();
            }
            let mut next: std::collections::VecDeque<String> = target
                .split('/')
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
            if target.ends_with('/') {
                next.push_back(".".into());
            }
            next.extend(todo);
            todo = next;
            cur = base.lstat(&join(&done));
            continue;
        }
        cur = Some(m);
    }
    cur.ok_or(Errno::NoEnt)
}

fn join(done: &[String]) -> String {
    if done.is_empty() {
        return "/".into();
    }
    done.iter().map(|c| format!("/{c}")).collect()
}

/// The agent's `GetFirstNonExistingParentDir`: the longest existing proper prefix of `path` (cut
/// at a `/`), with a `/` after it; empty when there is none.
fn first_existing_parent(base: &dyn BaseFs, path: &str) -> String {
    let b = path.as_bytes();
    let mut cut = match path.rfind('/') {
        Some(i) => i,
        None => return String::new(),
    };
    while cut > 0 {
        let prefix = &path[..cut];
        if real_stat(base, prefix, true).is_ok() {
            return format!("{prefix}/");
        }
        match b[..cut].iter().rposition(|&c| c == b'/') {
            Some(i) => cut = i,
            None => return String::new(),
        }
    }
    String::new()
}

/// `path` as the agent names it where it prints the file it opened: in a simulate run, its copy in
/// the changes chroot.
pub fn opened(e: &Engine<'_>, path: &str) -> String {
    if e.opts.simulate.is_some() && path.starts_with('/') {
        format!("{}{path}", crate::sim::run::SIM_CHROOT)
    } else {
        path.to_string()
    }
}

/// The target of the symbolic link `path` as the agent reads it: in a simulate run, the chroot's
/// copy of a link mirrored from the host points into the chroot when its target is absolute.
pub fn link_target(e: &Engine<'_>, path: &str, target: &str) -> String {
    let mirrored = !e.host.vfs.in_chroot_changed(&vfs::normalize(path));
    if e.opts.simulate.is_some() && target.starts_with('/') && mirrored {
        format!("{}{target}", crate::sim::run::SIM_CHROOT)
    } else {
        target.to_string()
    }
}

/// `PrepareChangesChroot(path)` before a files promise looks at `path` (simulate runs only).
pub fn prepare(e: &mut Engine<'_>, path: &str) {
    if e.opts.simulate.is_none() {
        return;
    }
    let mut budget = MAX_MIRRORED;
    prepare_at(e, path, 0, &mut budget);
}

fn prepare_at(e: &mut Engine<'_>, path: &str, depth: usize, budget: &mut usize) {
    if depth > MAX_DEPTH || *budget == 0 {
        return;
    }
    *budget -= 1;
    if !path.starts_with('/') {
        // the chroot path of a relative name never exists; its parents cannot be made
        let first = first_existing_parent(e.host.base(), path);
        e.log(
            LogLevel::Error,
            &format!("Will not create directories for a relative filename: {first}"),
        );
        e.log(
            LogLevel::Info,
            &format!(
                "Can't copy permissions '{first}'. (stat: {})",
                Errno::NoEnt.text()
            ),
        );
        return;
    }
    let norm = vfs::normalize(path);
    if e.host.vfs.in_chroot(&norm) {
        return;
    }
    let cached = Cached {
        base: e.host.base(),
        vfs: &e.host.vfs,
    };
    let base: &dyn BaseFs = &cached;
    // the parents (the first existing one with a `/`, whose permissions are copied first)
    let first = first_existing_parent(base, path);
    let first_err = real_stat(base, &first, true).err();
    let real = real_stat(base, path, false);
    let kind = real.as_ref().ok().map(|m| m.kind);
    let target = match kind {
        Some(Kind::Symlink) => base.readlink(&norm),
        _ => None,
    };
    let children = match kind {
        Some(Kind::Dir) => {
            let mut names = base.list(&norm).unwrap_or_default();
            names.sort();
            names
        }
        _ => Vec::new(),
    };
    let perms_err = real_stat(base, path, true).err();
    if !first.is_empty() {
        e.host.vfs.mirror(&vfs::normalize(&first));
    }
    if let Some(err) = first_err {
        e.log(
            LogLevel::Info,
            &format!("Can't copy permissions '{first}'. (stat: {})", err.text()),
        );
    }
    if kind.is_none() {
        return;
    }
    e.host.vfs.mirror(&norm);
    if let Some(t) = &target {
        // the link's target is mirrored too (a relative one after one level of expansion)
        let expanded = if t.starts_with('/') {
            t.clone()
        } else {
            format!("{}/{t}", vfs::parent(&norm).trim_end_matches('/'))
        };
        prepare_at(e, &expanded, depth + 1, budget);
    }
    for n in &children {
        prepare_at(
            e,
            &format!("{}/{n}", norm.trim_end_matches('/')),
            depth + 1,
            budget,
        );
    }
    // CopyFilePermissionsDisk(path, chrooted): stat on the host, chmod through the chroot's link
    if let Some(err) = perms_err {
        e.log(
            LogLevel::Info,
            &format!("Can't copy permissions '{path}'. (stat: {})", err.text()),
        );
    } else if target
        .as_deref()
        .is_some_and(|t| !t.starts_with('/') && t.trim_end_matches('/').contains('/'))
    {
        // recorded (edit-through-symlink): the chroot's copy of a link whose relative target has
        // several components does not lead to the mirrored target
        e.log(
            LogLevel::Info,
            &format!(
                "Can't copy permissions '{path}'. (chmod: {})",
                Errno::NoEnt.text()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct MapBase(Vec<(&'static str, Kind, &'static str)>);

    impl BaseFs for MapBase {
        fn lstat(&self, path: &str) -> Option<Meta> {
            if path == "/" {
                return Some(Meta::new(Kind::Dir, 0o755, 0));
            }
            self.0
                .iter()
                .find(|(p, _, _)| *p == path)
                .map(|(_, k, _)| Meta::new(*k, 0o644, 0))
        }
        fn read(&self, _: &str, _: u64) -> Result<Vec<u8>, crate::host::read::ReadError> {
            Ok(Vec::new())
        }
        fn readlink(&self, path: &str) -> Option<String> {
            self.0
                .iter()
                .find(|(p, k, _)| *p == path && *k == Kind::Symlink)
                .map(|(_, _, t)| t.to_string())
        }
        fn list(&self, _: &str) -> Option<Vec<String>> {
            None
        }
    }

    fn base() -> MapBase {
        MapBase(vec![
            ("/d", Kind::Dir, ""),
            ("/d/file", Kind::File, ""),
            ("/d/dead", Kind::Symlink, "missing"),
            ("/d/a", Kind::Symlink, "b"),
            ("/d/b", Kind::Symlink, "a"),
            ("/d/good", Kind::Symlink, "file"),
        ])
    }

    #[test]
    fn real_stat_gives_the_kernels_errors() {
        let b = base();
        assert!(real_stat(&b, "/d/good", true).is_ok_and(|m| m.kind == Kind::File));
        assert!(real_stat(&b, "/d/good", false).is_ok_and(|m| m.kind == Kind::Symlink));
        assert_eq!(real_stat(&b, "/d/dead", true).err(), Some(Errno::NoEnt));
        assert_eq!(real_stat(&b, "/d/a", true).err(), Some(Errno::Loop));
        assert_eq!(real_stat(&b, "/d/file/", true).err(), Some(Errno::NotDir));
        assert_eq!(real_stat(&b, "/d/file/.", false).err(), Some(Errno::NotDir));
        assert_eq!(real_stat(&b, "/d/file/x", false).err(), Some(Errno::NotDir));
        assert!(real_stat(&b, "/d/.", false).is_ok_and(|m| m.kind == Kind::Dir));
    }

    #[test]
    fn first_existing_parent_keeps_a_slash() {
        let b = base();
        assert_eq!(first_existing_parent(&b, "/d/new"), "/d/");
        assert_eq!(first_existing_parent(&b, "/d/file/."), "/d/file/");
        assert_eq!(first_existing_parent(&b, "/d/file/x/y/."), "/d/file/");
        assert_eq!(first_existing_parent(&b, "/d/x/y"), "/d/");
        assert_eq!(first_existing_parent(&b, "relative.txt"), "");
    }
}
