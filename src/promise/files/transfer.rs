//! `copy_from` (compare modes, backups, preserve, the copied file's attributes, recursive copies
//! with purge) from local sources or from a server of the profile's `remote_files` (the source side
//! and the connection step are [`super::remote`]) and `link_from` (symlink, relative, hardlink,
//! obstructions, children) on the virtual file system.

use super::attrs::Attrs;
use super::remote::Origin;
use super::{lstat, stat, Pr};
use crate::eval::output::LogLevel;
use crate::eval::Engine;
use crate::host::vfs::{self, Kind, Meta};

fn read(e: &Engine<'_>, path: &str) -> Option<Vec<u8>> {
    let b = e.host.base();
    e.host.vfs.read(b, path).ok().map(|c| c.to_vec())
}

/// Whether the destination must be updated from the source.
fn outdated(
    e: &Engine<'_>,
    o: &Origin,
    compare: &str,
    src: &str,
    s: &Meta,
    dst: &str,
    d: &Meta,
) -> bool {
    let times = d.ctime < s.ctime || d.mtime < s.mtime;
    match compare {
        "mtime" => d.mtime < s.mtime,
        "atime" => times || o.read(e, src) != read(e, dst),
        "digest" | "hash" | "binary" => {
            if s.kind == Kind::File && d.kind == Kind::File {
                o.read(e, src) != read(e, dst)
            } else {
                times
            }
        }
        "exists" => false,
        _ => times,
    }
}

/// `copy_from` for one destination path (`CopyFileSources`).
pub fn copy(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, dst: &str) {
    let Some(c) = &a.copy else {
        return;
    };
    let Some(o) = super::remote::connect(e, a, pr, dst) else {
        return;
    };
    let src = c.source.clone();
    let Some(s) = o.stat(e, &src) else {
        if c.missing_ok {
            pr.kept(e);
        } else {
            e.log(
                LogLevel::Error,
                &format!(
                    "Can't stat file '{src}' on '{}' in files.copy_from promise",
                    o.name()
                ),
            );
            pr.fail(e);
        }
        return;
    };
    if !o.is_remote() && vfs::normalize(&src) == vfs::normalize(dst) {
        pr.kept(e);
        return;
    }
    // a local directory source without depth_search is left alone; a remote one is a recursion of
    // depth 0 into a destination directory made first (recorded: remote/remote-recursive-missing-dest)
    if s.kind == Kind::Dir && a.depth.is_none() && !o.is_remote() {
        pr.kept(e);
        return;
    }
    // the destination's missing parents (for a directory source: the destination itself)
    let want = if s.kind == Kind::Dir {
        format!("{}/.", dst.trim_end_matches('/'))
    } else {
        dst.to_string()
    };
    if o.is_remote() && s.kind != Kind::Dir {
        // the agent changes into the destination's directory before it asks the server
        let dir = vfs::parent(&vfs::normalize(dst)).to_string();
        if stat(e, &dir).is_none() {
            e.log(
                LogLevel::Error,
                &format!("Failed to chdir into '{dir}'. (chdir: 'No such file or directory')"),
            );
        }
    }
    match make_parents(e, pr, &want) {
        None => return,
        Some(true) => pr.change(e, &format!("Created parent directory for '{dst}'")),
        Some(false) => {}
    }
    if s.kind == Kind::Dir && a.depth.is_none() {
        e.log(
            LogLevel::Error,
            &format!("Maximum recursion level reached at '{src}'"),
        );
        pr.fail(e);
        return;
    }
    let size = copy_size(e, pr);
    if s.kind == Kind::Dir {
        let depth = a.depth.as_ref().map_or(0, |d| d.depth);
        copy_tree(e, a, pr, &o, size, &src, dst, depth);
        return;
    }
    copy_file(e, a, pr, &o, size, &src, &s, dst);
}

/// The body's `copy_size` range (`irange(min, max)`): sources outside it are not copied.
fn copy_size(e: &mut Engine<'_>, pr: &Pr<'_>) -> Option<(i64, i64)> {
    let (def, p) = (pr.def, pr.p);
    let v = e
        .body_attrs(def, p, "copy_from", "copy_from")
        .into_iter()
        .rev()
        .find(|(l, _)| l == "copy_size")
        .and_then(|(_, rv)| e.scalar_of(&rv))?;
    let (lo, hi) = v.split_once(',')?;
    Some((lo.trim().parse().ok()?, hi.trim().parse().ok()?))
}

/// `MakeParentDirectoryForPromise`: the missing directories above `path` (for `D/.` the directory
/// `D` itself), made with mode 0700. `Some(true)`: some were made; `Some(false)`: none were missing,
/// or the run may only say what it should do; `None`: the promise cannot go on (failed).
fn make_parents(e: &mut Engine<'_>, pr: &mut Pr<'_>, path: &str) -> Option<bool> {
    let dir = match path.strip_suffix("/.") {
        Some(d) => vfs::normalize(d),
        None => vfs::parent(&vfs::normalize(path)).to_string(),
    };
    let mut missing = Vec::new();
    let mut p = dir;
    loop {
        match stat(e, &p) {
            Some(m) if m.kind == Kind::Dir => break,
            Some(_) => {
                e.log(
                    LogLevel::Error,
                    &format!("The object '{p}' is not a directory. Cannot make a new directory without deleting it."),
                );
                pr.fail(e);
                return None;
            }
            None => {
                if p == "/" || p.is_empty() {
                    break;
                }
                let up = vfs::parent(&p).to_string();
                missing.push(p);
                p = up;
            }
        }
    }
    if missing.is_empty() {
        return Some(false);
    }
    missing.reverse();
    if pr.warn_only {
        for d in &missing {
            pr.should(e, &format!("make directory '{d}' for '{path}'"));
        }
        return Some(false);
    }
    for d in &missing {
        let (v, b) = e.host.vfs_mut();
        let _ = v.mkdir(b, d, 0o700);
    }
    Some(true)
}

/// `VerifyCopiedFileAttributes`: the destination's mode as the promise's perms say, or with
/// `preserve` the source's mode, owner and group (where perms promise none); an owner and group are
/// then promised explicitly (with `preserve` the source's, else the destination's own), so they are
/// kept.
fn verify_copied(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, s: &Meta, dst: &str) {
    let mut perms = a.perms.clone().unwrap_or_default();
    if a.copy.as_ref().is_some_and(|c| c.preserve) {
        let m = s.mode & 0o7777;
        perms.mode = Some((m, !m & 0o7777));
        if perms.owners.is_empty() {
            perms.owners = vec![s.uid.to_string()];
        }
        if perms.groups.is_empty() {
            perms.groups = vec![s.gid.to_string()];
        }
    }
    // without `preserve`, the destination's own owner and group are promised: two kept records
    // before the mode's (recorded: files/copy-*/verbose.out)
    if let Some(d) = lstat(e, dst) {
        if perms.owners.is_empty() {
            perms.owners = vec![d.uid.to_string()];
        }
        if perms.groups.is_empty() {
            perms.groups = vec![d.gid.to_string()];
        }
    }
    let mut b = a.clone();
    b.perms = Some(perms);
    super::leaf::perms(e, &b, pr, dst, false);
}

/// `CfCopyFile` for a source that is not a directory.
#[allow(clippy::too_many_arguments)]
fn copy_file(
    e: &mut Engine<'_>,
    a: &Attrs,
    pr: &mut Pr<'_>,
    o: &Origin,
    size: Option<(i64, i64)>,
    src: &str,
    s: &Meta,
    dst: &str,
) {
    let Some(c) = &a.copy else {
        return;
    };
    let mut d = lstat(e, dst);
    match &d {
        Some(dm) if dm.kind == Kind::Symlink && s.kind != Kind::Symlink => {
            if pr.warn_only {
                pr.should(
                    e,
                    &format!("remove old symbolic link '{dst}' to make way for copy"),
                );
                return;
            }
            {
                let (v, b) = e.host.vfs_mut();
                let _ = v.remove(b, dst, false);
            }
            pr.change(
                e,
                &format!("Removing old symbolic link '{dst}' to make way for copy"),
            );
            d = None;
        }
        Some(_) => {}
        None => match make_parents(e, pr, dst) {
            None => return,
            Some(true) => pr.change(e, &format!("Created parent directory for '{dst}'")),
            Some(false) => {}
        },
    }
    if let Some((lo, hi)) = size {
        let n = i64::try_from(s.size).unwrap_or(i64::MAX);
        if n < lo || n > hi {
            pr.kept(e);
            return;
        }
    }
    let Some(d) = d else {
        if pr.warn_only {
            pr.should(e, &format!("copy '{dst}' to '{src}'"));
            return;
        }
        if !copy_regular(e, a, pr, o, src, s, dst) {
            return;
        }
        verify_copied(e, a, pr, s, dst);
        pr.change(
            e,
            &format!("Updated file '{dst}' from '{}:{src}'", o.name()),
        );
        return;
    };
    if c.compare == "exists" {
        pr.kept(e);
        return;
    }
    let update = c.force_update || outdated(e, o, &c.compare, src, s, dst, &d);
    if c.type_check && d.kind != s.kind {
        e.log(
            LogLevel::Error,
            &format!("Promised file copy {dst} exists but type mismatch with source '{src}'"),
        );
        pr.fail(e);
        return;
    }
    if !update {
        verify_copied(e, a, pr, s, dst);
        pr.kept(e);
        return;
    }
    if pr.warn_only {
        pr.should(
            e,
            &format!("update file '{dst}' from '{src}' on '{}'", o.name()),
        );
        return;
    }
    if !copy_regular(e, a, pr, o, src, s, dst) {
        return;
    }
    pr.change(
        e,
        &format!("Updated '{dst}' from source '{src}' on '{}'", o.name()),
    );
    verify_copied(e, a, pr, s, dst);
}

/// The name of the backup of `dst` (`copy_backup`: `D.cfsaved`, or with `timestamp`
/// `D_<start>_<canonified ctime>.cfsaved`).
fn backup_name(e: &Engine<'_>, backup: &str, dst: &str) -> String {
    stamped_name(e, backup, dst, ".cfsaved")
}

/// `dst` + `suffix`, or with `timestamp` `dst_<start>_<canonified ctime>` + `suffix` (backups of
/// copies and of edits).
pub(super) fn stamped_name(e: &Engine<'_>, backup: &str, dst: &str, suffix: &str) -> String {
    if backup != "timestamp" {
        return format!("{dst}{suffix}");
    }
    let now = e.host.vfs.now;
    let c = crate::host::time::civil(now, e.host.host.time.utc_offset);
    let stamp = crate::host::canon::canonify(&crate::host::time::ctime(&c));
    format!("{dst}_{now}_{stamp}{suffix}")
}

/// `CopyRegularFile`: the new copy, the backup of what was there, the move into place. False when
/// it failed (said and recorded).
fn copy_regular(
    e: &mut Engine<'_>,
    a: &Attrs,
    pr: &mut Pr<'_>,
    o: &Origin,
    src: &str,
    s: &Meta,
    dst: &str,
) -> bool {
    let Some(c) = &a.copy else {
        return false;
    };
    let dest = stat(e, dst);
    let content = o.read(e, src).unwrap_or_default();
    // a local copy keeps the destination's mode (or takes the source's with preserve); a remote one
    // is written 0600 and its attributes are set afterwards (recorded: remote/remote-changed-digest,
    // remote/remote-preserve)
    let mode = if o.is_remote() {
        0o600
    } else if c.preserve {
        s.mode & 0o7777
    } else {
        dest.as_ref().map_or(0o600, |d| d.mode & 0o777)
    };
    if o.is_remote() {
        pr.change(
            e,
            &format!("Copied file '{src}' from '{}' to '{dst}.cfnew'", o.name()),
        );
    } else if c.preserve {
        pr.change(
            e,
            &format!("Copied file '{src}' to '{dst}.cfnew' (permissions preserved)"),
        );
    } else {
        pr.change(
            e,
            &format!("Copied file '{src}' to '{dst}.cfnew' (mode '{mode:o}')"),
        );
    }
    if dest.is_some() {
        if matches!(c.backup.as_str(), "false" | "no" | "off") {
            let (v, b) = e.host.vfs_mut();
            let _ = v.remove(b, dst, true);
        } else {
            let backup = backup_name(e, &c.backup, dst);
            if lstat(e, &backup).is_some() {
                {
                    let (v, b) = e.host.vfs_mut();
                    let _ = v.remove(b, &backup, true);
                }
                pr.change(e, &format!("Removed old backup '{backup}'"));
            }
            let res = {
                let (v, b) = e.host.vfs_mut();
                v.rename(b, dst, &backup)
            };
            if res.is_ok() {
                pr.change(e, &format!("Backed up '{dst}' as '{backup}'"));
            } else {
                e.log(
                    LogLevel::Error,
                    &format!("Failed to back up '{dst}' as '{backup}'"),
                );
                pr.fail(e);
            }
        }
    }
    // --simulate lists every copied file (the agent's chroot cannot copy local sources)
    let res = {
        let (v, b) = e.host.vfs_mut();
        let r = v.write_file(b, dst, content, mode);
        if r.is_ok() {
            v.mark_changed(b, dst);
        }
        r
    };
    if res.is_err() {
        e.log(
            LogLevel::Error,
            &format!("Could not install copy file as '{dst}', directory in the way?. (rename: Is a directory)"),
        );
        pr.fail(e);
        return false;
    }
    pr.change(e, &format!("Moved '{dst}.cfnew' to '{dst}'"));
    true
}

/// `SourceSearchAndCopy`: the entries of the directory `src` into `dst`, `maxrecurse` levels deep
/// (sorted, where the agent follows the directory's order).
#[allow(clippy::too_many_arguments)]
fn copy_tree(
    e: &mut Engine<'_>,
    a: &Attrs,
    pr: &mut Pr<'_>,
    o: &Origin,
    size: Option<(i64, i64)>,
    src: &str,
    dst: &str,
    maxrecurse: u64,
) {
    if maxrecurse == 0 {
        return;
    }
    let dst = dst.trim_end_matches('/');
    match make_parents(e, pr, &format!("{dst}/dummy")) {
        None => return,
        Some(true) => pr.change(e, &format!("Created parent directory for '{dst}'")),
        Some(false) => {}
    }
    if lstat(e, dst).is_none() {
        e.log(
            LogLevel::Error,
            &format!("Unable to stat newly created directory '{dst}'. (lstat: No such file or directory)"),
        );
        pr.fail(e);
        return;
    }
    let names = o.list(e, src).unwrap_or_default();
    for n in &names {
        let sp = format!("{}/{n}", src.trim_end_matches('/'));
        let dp = format!("{dst}/{n}");
        let Some(sm) = o.stat(e, &sp) else {
            continue;
        };
        if sm.kind != Kind::Dir {
            copy_file(e, a, pr, o, size, &sp, &sm, &dp);
            continue;
        }
        if stat(e, &dp).is_none() {
            // made even in a dry run (the agent's mkdir does not ask MakingChanges)
            let res = {
                let (v, b) = e.host.vfs_mut();
                let r = v.mkdir(b, &dp, 0o700);
                if r.is_ok() {
                    v.mark_changed(b, &dp);
                }
                r
            };
            if res.is_err() {
                e.log(
                    LogLevel::Error,
                    &format!("Can't make directory '{dp}'. (mkdir: Not a directory)"),
                );
                pr.fail(e);
                continue;
            }
            pr.change(e, &format!("Created directory '{dp}'"));
        }
        // the agent drops this check's result: its lines and classes, not the promise's outcome
        let res = pr.res;
        verify_copied(e, a, pr, &sm, &dp);
        pr.res = res;
        copy_tree(e, a, pr, o, size, &sp, &dp, maxrecurse.saturating_sub(1));
    }
    if a.copy.as_ref().is_some_and(|c| c.purge) {
        purge(e, pr, dst, &names);
    }
}

/// `PurgeLocalFiles`: what `dst` holds that the source directory does not.
fn purge(e: &mut Engine<'_>, pr: &mut Pr<'_>, dst: &str, keep: &[String]) {
    let dnames = {
        let b = e.host.base();
        e.host.vfs.list(b, dst).unwrap_or_default()
    };
    for n in dnames.iter().filter(|n| !keep.contains(n)) {
        let dp = format!("{dst}/{n}");
        if pr.warn_only {
            pr.should(e, &format!("purge '{dp}' from copy dest directory"));
            continue;
        }
        let is_dir = lstat(e, &dp).is_some_and(|m| m.kind == Kind::Dir);
        let res = {
            let (v, b) = e.host.vfs_mut();
            let r = v.remove(b, &dp, true);
            if r.is_ok() {
                v.mark_changed(b, &dp);
            }
            r
        };
        match (res, is_dir) {
            (Ok(()), true) => pr.change(
                e,
                &format!("Purged directory '{dp}' in copy dest directory"),
            ),
            (Ok(()), false) => pr.change(e, &format!("Purged '{dp}' copy dest directory")),
            (Err(_), _) => {
                e.log(
                    LogLevel::Error,
                    &format!("Couldn't delete '{dp}' while purging"),
                );
                pr.fail(e);
            }
        }
    }
}

/// `link_from` for one path.
pub fn link(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str) {
    let Some(k) = &a.link else {
        return;
    };
    let src = k.source.clone();
    if k.link_children {
        link_children(e, a, pr, path, &src, 0);
        return;
    }
    link_one(e, a, pr, path, &src);
}

/// `ScheduleLinkChildrenOperation`: `path` a directory (made when missing) whose entries link to
/// the entries of the directory `src` (sorted, where the agent follows the directory's order); an
/// entry that is neither a link nor a directory is left alone (`when_linking_children` default).
fn link_children(
    e: &mut Engine<'_>,
    a: &Attrs,
    pr: &mut Pr<'_>,
    path: &str,
    src: &str,
    level: u64,
) {
    let Some(k) = &a.link else {
        return;
    };
    let path = path.trim_end_matches('/');
    let mut exists = false;
    if let Some(m) = lstat(e, path) {
        if k.move_obstructions && m.kind == Kind::Symlink {
            let res = {
                let (v, b) = e.host.vfs_mut();
                v.remove(b, path, false)
            };
            if res.is_ok() {
                pr.change(e, &format!("Removed obstructing link '{path}'"));
            }
        } else if m.kind != Kind::Dir {
            e.log(
                LogLevel::Error,
                &format!(
                    "Cannot promise to link files to children of '{path}' as it is not a directory"
                ),
            );
            pr.fail(e);
            return;
        } else {
            exists = true;
        }
    }
    if !exists && !super::leaf::create(e, a, pr, &format!("{path}/.")) {
        e.log(
            LogLevel::Error,
            &format!("Failed to create directory '{path}' for linking files as its children"),
        );
        pr.fail(e);
        return;
    }
    let names = {
        let b = e.host.base();
        e.host.vfs.list(b, src)
    };
    let Some(names) = names else {
        e.log(
            LogLevel::Error,
            &format!(
                "Can't open source of children to link '{}'. (opendir: No such file or directory)",
                k.source
            ),
        );
        pr.fail(e);
        return;
    };
    let depth = a.depth.as_ref().map_or(0, |d| d.depth);
    for n in &names {
        let pp = format!("{path}/{n}");
        let sp = format!("{}/{n}", src.trim_end_matches('/'));
        if lstat(e, &pp).is_some_and(|m| m.kind != Kind::Symlink && m.kind != Kind::Dir) {
            continue;
        }
        if depth > level && stat(e, &sp).is_some_and(|m| m.kind == Kind::Dir) {
            link_children(e, a, pr, &pp, &sp, level + 1);
        } else {
            link_one(e, a, pr, &pp, &sp);
        }
    }
}

/// `ScheduleLinkOperation`: `path` a link to `src`.
fn link_one(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str, src: &str) {
    let Some(k) = &a.link else {
        return;
    };
    let src = src.to_string();
    let target = if k.link_type == "relative" {
        relative(&src, path)
    } else {
        src.clone()
    };
    if stat(e, &src).is_none() && k.when_no_source != "force" {
        e.log(
            LogLevel::Error,
            &format!("Unable to create link '{path}' -> '{src}', no source"),
        );
        pr.fail(e);
        return;
    }
    let cur = lstat(e, path);
    if k.link_type == "hardlink" {
        if cur.is_some() {
            pr.kept(e);
            return;
        }
        if pr.warn_only {
            pr.should(e, &format!("hard link files '{path}' -> '{src}'"));
            return;
        }
        let content = read(e, &src).unwrap_or_default();
        let mode = stat(e, &src).map_or(0o600, |m| m.mode);
        let (v, b) = e.host.vfs_mut();
        let _ = v.write_file(b, path, content, mode);
        pr.change(e, &format!("Hard linked file '{path}' -> '{src}'"));
        return;
    }
    match cur {
        Some(m) if m.kind == Kind::Symlink => {
            let now = {
                let b = e.host.base();
                e.host.vfs.readlink(b, path)
            };
            if now.as_deref() == Some(target.as_str()) {
                pr.kept(e);
                return;
            }
            if !k.move_obstructions {
                e.log(
                    LogLevel::Error,
                    &format!(
                        "Link '{path}' points to '{}' not '{target}', but not moving obstructions",
                        super::chroot::link_target(e, path, &now.clone().unwrap_or_default())
                    ),
                );
                pr.fail(e);
                return;
            }
            if pr.warn_only {
                pr.should(e, &format!("remove incorrect link '{path}'"));
                return;
            }
            {
                let (v, b) = e.host.vfs_mut();
                let _ = v.remove(b, path, false);
            }
            pr.change(e, &format!("Overrode incorrect link '{path}'"));
        }
        Some(_) => {
            if !k.move_obstructions {
                if pr.warn_only {
                    pr.should(e, &format!("create link '{path}'"));
                    return;
                }
                // a failed record of its own, then the error of the link (recorded:
                // link-obstruction/verbose.out)
                e.log(
                    LogLevel::Error,
                    &format!("Object '{path}' is obstructing promise"),
                );
                pr.fail(e);
                e.log(
                    LogLevel::Error,
                    &format!(
                        "Unable to create link '{path}' -> '{src}', failed to move obstruction"
                    ),
                );
                pr.fail(e);
                return;
            }
            if !pr.warn_only {
                let saved = format!("{path}.cfsaved");
                let shown = super::chroot::opened(e, &saved);
                let (v, b) = e.host.vfs_mut();
                // a side file, not a rename the --simulate report lists (as the agent's)
                let _ = v.rename_unlisted(b, path, &saved);
                pr.change(
                    e,
                    &format!("Moved obstructing object '{path}' to '{shown}'"),
                );
            }
        }
        None => {}
    }
    if pr.warn_only {
        pr.should(e, &format!("create link '{path}'"));
        return;
    }
    let (v, b) = e.host.vfs_mut();
    // a link made for one of `link_children`' entries is listed too (recorded: link-children)
    if v.symlink(b, path, &target).is_ok() {
        v.mark_changed(b, path);
    }
    pr.change(e, &format!("Linked files '{path}' -> '{target}'"));
}

/// `src` relative to the directory of `path` (`./x` when in the same directory).
fn relative(src: &str, path: &str) -> String {
    let s: Vec<&str> = src.split('/').filter(|c| !c.is_empty()).collect();
    let d: Vec<&str> = vfs::parent(path)
        .split('/')
        .filter(|c| !c.is_empty())
        .collect();
    let common = s.iter().zip(&d).take_while(|(a, b)| a == b).count();
    let mut out = String::new();
    if d.len() == common {
        out.push_str("./");
    }
    for _ in common..d.len() {
        out.push_str("../");
    }
    out.push_str(&s[common..].join("/"));
    out
}
