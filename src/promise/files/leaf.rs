//! One path's own changes: create (`CfCreateFile`), `VerifyFileLeaf` (rename/disable/rotate, delete,
//! touch, perms: mode, owners, groups) and `content`, each with the agent's messages at `-I` and its
//! `Should …` lines under `-n` or a warn-only action.

use super::attrs::Attrs;
use super::{lstat, Pr};
use crate::eval::output::LogLevel;
use crate::eval::Engine;
use crate::host::vfs::{self, FsError, Kind};

/// The mode a created file gets: the perms body's `mode` (set bits without the cleared ones), else
/// 0600.
pub fn create_mode(a: &Attrs) -> u32 {
    match a.perms.as_ref().and_then(|p| p.mode) {
        Some((plus, minus)) => plus & !minus & 0o7777,
        None => 0o600,
    }
}

/// Creates the missing `path` (a directory for `P/.`, missing parents 0700). False: the promise
/// cannot go on (failed, or only warned).
pub fn create(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str) -> bool {
    if !path.starts_with('/') {
        e.log(
            LogLevel::Error,
            &format!("Cannot create a relative filename '{path}' - has no invariant meaning. (create: No such file or directory)"),
        );
        pr.fail(e);
        return false;
    }
    // only `P/.` names a directory (`ReadLastNode` is "."); for `P/` the agent makes `P` as the
    // file's parent, then fails to create the file `P/` (recorded: files/create-trailing-slash)
    let is_dir = path.ends_with("/.");
    let slash = !is_dir && path.ends_with('/');
    let target = vfs::normalize(path);
    // missing parents
    let mut missing = Vec::new();
    let mut p = if is_dir || slash {
        target.clone()
    } else {
        vfs::parent(&target).to_string()
    };
    loop {
        match super::stat(e, &p) {
            Some(m) if m.kind == Kind::Dir => break,
            Some(_) if is_dir && pr.warn_only => break,
            Some(_) if is_dir && p == target && a.move_obstructions => {
                let moved = format!("{p}.cf-moved");
                let (v, b) = e.host.vfs_mut();
                let _ = v.rename(b, &p, &moved);
                pr.change(
                    e,
                    &format!("Moved obstructing file/link '{p}' to '{moved}' to make directories for '{path}'"),
                );
                missing.push(p.clone());
                p = vfs::parent(&p).to_string();
            }
            Some(_) => {
                let msg = if is_dir && p != target {
                    format!("Cannot make {target} - {p} is not a directory!")
                } else {
                    format!("The object '{p}' is not a directory. Cannot make a new directory without deleting it.")
                };
                e.log(LogLevel::Error, &msg);
                pr.fail(e);
                return false;
            }
            None => {
                if p == "/" {
                    break;
                }
                missing.push(p.clone());
                p = vfs::parent(&p).to_string();
            }
        }
    }
    missing.reverse();
    if is_dir {
        // the directory itself is the last "missing parent"
        if pr.warn_only {
            pr.should(e, &format!("create directory '{path}'"));
            return false;
        }
        for d in &missing {
            let (v, b) = e.host.vfs_mut();
            let _ = v.mkdir(b, d, 0o700);
        }
        pr.change(e, &format!("Created directory '{path}'"));
        return true;
    }
    let mode = create_mode(a);
    let fifo = a.file_type == "fifo";
    if pr.warn_only {
        if fifo {
            pr.should(e, &format!("create named pipe '{path}', mode {mode:04o}"));
            return false;
        }
        for d in &missing {
            pr.should(e, &format!("make directory '{d}' for '{path}'"));
        }
        pr.should(e, &format!("create file '{path}', mode '{mode:04o}'"));
        return false;
    }
    if !missing.is_empty() {
        for d in &missing {
            let (v, b) = e.host.vfs_mut();
            let _ = v.mkdir(b, d, 0o700);
        }
        pr.change(e, &format!("Created directory for '{path}'"));
    }
    if slash {
        e.log(
            LogLevel::Error,
            &format!("Error creating file '{path}', mode '{mode:04o}'. (open: 'File exists'). Most likely a dangling symlink is in the way. Refusing to create the target file of dangling symlink (security risk)."),
        );
        pr.fail(e);
        return false;
    }
    if fifo {
        let (v, b) = e.host.vfs_mut();
        if v.mkfifo(b, &target, mode).is_ok() {
            pr.change(e, &format!("Created named pipe '{path}', mode {mode:04o}"));
            return true;
        }
    }
    let res = {
        let (v, b) = e.host.vfs_mut();
        v.write_file(b, &target, Vec::new(), mode)
    };
    match res {
        Ok(()) => {
            pr.change(e, &format!("Created file '{path}', mode {mode:04o}"));
            true
        }
        Err(_) => {
            e.log(
                LogLevel::Error,
                &format!("Error creating file '{path}', mode '{mode:04o}'. (open: No such file or directory)"),
            );
            pr.fail(e);
            false
        }
    }
}

/// What the agent prints each time it parses the promise's attributes (`GetFilesAttributes`: at the
/// start of every pass and again before each leaf check): the rxdirs default warning, and the lookup
/// failures of owners and groups.
pub fn attr_notes(e: &mut Engine<'_>, a: &Attrs, pr: &Pr<'_>, path: &str) {
    let Some(perms) = &a.perms else {
        return;
    };
    if perms.mode.is_some() && !perms.rxdirs_set {
        let file = e.file_path(pr.def.file);
        let line = e.line_of(pr.p);
        e.log(
            LogLevel::Warning,
            &format!("Using the default value 'false' for attribute rxdirs (promiser: {path}, file: {file}:{line}), please set it explicitly"),
        );
    }
    for o in &perms.owners {
        if uid_of(e, o).is_none() {
            e.log(
                LogLevel::Info,
                &format!("Could not get UID for user '{o}', (getpwnam: not found)"),
            );
            let b = pr.belongs(e);
            e.log(LogLevel::Info, &b);
        }
    }
    for g in &perms.groups {
        if gid_of(e, g).is_none() {
            e.log(
                LogLevel::Info,
                &format!("Could not get GID for group '{g}', (getgrnam: not found)"),
            );
            let b = pr.belongs(e);
            e.log(LogLevel::Info, &b);
        }
    }
}

/// `VerifyFileLeaf`: rename, delete, touch, perms of one existing path.
pub fn verify_leaf(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str) {
    verify_leaf_at(e, a, pr, path, Leaf::Plain)
}

/// Which of the agent's leaf checks runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// The first check of a path (step 7): a symlink's mode is not checked.
    Plain,
    /// The base directory of a depth search: never deleted by it.
    BaseDir,
    /// The final check (step 12): a symlink's mode is its target's (chmod follows links).
    Final,
}

/// [`verify_leaf`] for the check `which`.
pub fn verify_leaf_at(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str, which: Leaf) {
    let base_dir = which == Leaf::BaseDir;
    e.host.vfs.note(path);
    attr_notes(e, a, pr, path);
    if let Some(r) = &a.rename {
        if !rename(e, r, pr, path) {
            return;
        }
    }
    if a.delete.is_some() {
        // VerifyDelete: the path is in the agent's list of evaluated files
        e.host.vfs.keep(path);
        delete(e, a, pr, path, base_dir);
        return;
    }
    if a.touch {
        if pr.warn_only {
            pr.should(e, &format!("update time stamps for '{path}'"));
        } else {
            let now = e.host.vfs.now;
            let (v, b) = e.host.vfs_mut();
            let _ = v.set_meta(b, path, true, "touch", |m| {
                m.mtime = now;
                m.atime = now;
            });
            pr.change(
                e,
                &format!("Touched (updated time stamps) for path '{path}'"),
            );
        }
    }
    if a.perms.is_some() || a.changes {
        // VerifyFileAttributes: the path is in the agent's list of evaluated files
        e.host.vfs.keep(path);
    }
    if a.changes {
        integrity(e, a, pr, path);
    }
    if a.perms.is_some() {
        perms(e, a, pr, path, which == Leaf::Final);
        // with touch, the attribute check stamps the file again, a change even in a dry run
        // (recorded: touch-with-perms)
        if a.touch {
            pr.change(e, &format!("Updated timestamps on '{path}'"));
        }
    }
}

fn delete(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str, base_dir: bool) {
    let Some(m) = lstat(e, path) else {
        pr.kept(e);
        return;
    };
    let rmdirs = a.delete.as_ref().is_some_and(|d| d.rmdirs);
    if m.kind == Kind::Dir {
        // a dry run announces every directory, rmdirs or not, empty or not (recorded)
        if pr.warn_only {
            pr.should(e, &format!("delete directory '{path}'"));
            return;
        }
        if base_dir {
            return;
        }
        if !rmdirs {
            pr.kept(e);
            return;
        }
        let empty = {
            let base = e.host.base();
            e.host.vfs.list(base, path).unwrap_or_default().is_empty()
        };
        if !empty {
            // `Delete directory '…' not empty, skipping`: a plain verbose line (recorded:
            // delete-nonempty-dir)
            pr.noop();
            return;
        }
        let (v, b) = e.host.vfs_mut();
        if v.remove(b, path, false).is_ok() {
            v.mark_changed(b, path);
        }
        pr.change(e, &format!("Deleted directory '{path}'"));
        return;
    }
    if pr.warn_only {
        pr.should(e, &format!("delete file '{path}'"));
        return;
    }
    let (v, b) = e.host.vfs_mut();
    if v.remove(b, path, false).is_ok() {
        v.mark_changed(b, path);
    }
    pr.change(e, &format!("Deleted file '{path}'"));
}

/// Rename/disable/rotate; false when the path is gone afterwards.
fn rename(e: &mut Engine<'_>, r: &super::attrs::Rename, pr: &mut Pr<'_>, path: &str) -> bool {
    let Some(m) = lstat(e, path) else {
        pr.kept(e);
        return false;
    };
    if let Some(newname) = &r.newname {
        let to = if newname.starts_with('/') {
            newname.clone()
        } else {
            format!("{}/{newname}", vfs::parent(path).trim_end_matches('/'))
        };
        if pr.warn_only {
            pr.should(e, &format!("rename file '{path}' to '{to}'"));
            return true;
        }
        let res = {
            let (v, b) = e.host.vfs_mut();
            v.rename(b, path, &to)
        };
        if res.is_ok() {
            pr.change(e, &format!("Renamed file '{path}' to '{to}'"));
        }
        return false;
    }
    if r.disable {
        let suffix = r
            .disable_suffix
            .clone()
            .unwrap_or_else(|| ".cfdisabled".into());
        let to = format!("{path}{suffix}");
        e.log(
            LogLevel::Warning,
            &format!("File object '{path}' exists, contrary to promise"),
        );
        if m.kind == Kind::Symlink {
            if pr.warn_only {
                pr.should(e, &format!("disable link '{path}'"));
                return true;
            }
            let (v, b) = e.host.vfs_mut();
            if v.remove(b, path, false).is_ok() {
                // --simulate shows the deletion (the agent's report leaves it out)
                v.mark_changed(b, path);
            }
            pr.change(
                e,
                &format!("Disabled symbolic link '{path}' by deleting it"),
            );
            return false;
        }
        let what = if m.kind == Kind::Dir {
            "directory"
        } else {
            "file"
        };
        if pr.warn_only {
            pr.should(e, &format!("rename '{what}' '{path}'"));
            return true;
        }
        // without a disable_mode the mode stays (and is still set)
        let mode = match r.disable_mode {
            Some((plus, minus)) => ((m.mode & 0o7777) | plus) & !minus,
            None => m.mode & 0o7777,
        };
        {
            let (v, b) = e.host.vfs_mut();
            let _ = v.set_meta(b, path, false, "chmod", |mm| mm.mode = mode);
        }
        pr.change(
            e,
            &format!("Changed permissions of '{path}' to 'mode {mode:04o}'"),
        );
        let res = {
            let (v, b) = e.host.vfs_mut();
            v.rename(b, path, &to)
        };
        if res.is_ok() {
            pr.change(
                e,
                &format!("Disabled file '{path}' by renaming to '{to}' with mode {mode:04o}"),
            );
        }
        return false;
    }
    if let Some(n) = r.rotate {
        if n == 0 {
            if pr.warn_only {
                pr.should(e, &format!("truncate '{path}'"));
                return true;
            }
            let (v, b) = e.host.vfs_mut();
            let _ = v.write_file(b, path, Vec::new(), m.mode);
            // --simulate shows the truncation (the agent's report leaves rotations out)
            v.mark_changed(b, path);
            pr.change(e, &format!("Truncated '{path}'"));
            return true;
        }
        if pr.warn_only {
            pr.should(e, &format!("rotate file '{path}' in {n} fifo"));
            return true;
        }
        // the agent rotates a file once per run (its ROTATED list) but says so at every check
        let once = {
            use md5::{Digest, Md5};
            let key = format!("\u{2}rotated\u{1}{}", vfs::normalize(path));
            u128::from_le_bytes(Md5::digest(key.as_bytes()).into())
        };
        if e.done.insert(once) {
            let (v, b) = e.host.vfs_mut();
            for i in (1..n).rev() {
                for suffix in ["", ".gz", ".Z", ".bz", ".bz2"] {
                    let from = format!("{path}.{i}{suffix}");
                    if v.stat(b, &from, false).is_some() {
                        let _ = v.rename(b, &from, &format!("{path}.{}{suffix}", i + 1));
                    }
                }
            }
            // P.1 is a copy of P with its mode, owner and group; P is then truncated
            let content = v.read(b, path).map(|c| c.to_vec()).unwrap_or_default();
            let first = format!("{path}.1");
            let _ = v.write_file(b, &first, content, m.mode);
            let _ = v.set_meta(b, &first, false, "chmod", |mm| {
                mm.mode = m.mode;
                mm.uid = m.uid;
                mm.gid = m.gid;
            });
            let _ = v.write_file(b, path, Vec::new(), m.mode);
            // --simulate shows the rotation (the agent's report leaves it out)
            v.mark_changed(b, path);
            v.mark_changed(b, &format!("{path}.1"));
        }
        pr.change(e, &format!("Rotated file '{path}' in {n} fifo"));
    }
    true
}

/// The uid a name or number stands for on the host.
fn uid_of(e: &Engine<'_>, name: &str) -> Option<u32> {
    if let Ok(n) = name.parse() {
        return Some(n);
    }
    // the run's accounts: a user made by a users promise earlier in the run counts
    e.host.accounts.user(name).map(|u| u.uid)
}

fn gid_of(e: &Engine<'_>, name: &str) -> Option<u32> {
    if let Ok(n) = name.parse() {
        return Some(n);
    }
    e.host
        .accounts
        .groups
        .iter()
        .find(|g| g.name == name)
        .map(|g| g.gid)
}

/// Mode, owners and groups of one path (`VerifyFileAttributes`).
pub fn perms(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str, follow: bool) {
    let Some(perms) = &a.perms else {
        return;
    };
    let Some(m) = lstat(e, path) else {
        return;
    };
    // owners and groups
    let want_uid = if perms.owners.is_empty() {
        None
    } else {
        let ids: Vec<Option<u32>> = perms.owners.iter().map(|o| uid_of(e, o)).collect();
        if ids.iter().all(Option::is_none) {
            e.log(
                LogLevel::Error,
                &format!(
                    "None of the promised owners for '{path}' exist -- see INFO logs for more"
                ),
            );
            pr.fail(e);
            None
        } else if ids.contains(&Some(m.uid)) {
            // an explicitly promised owner already there is a kept record (recorded: real-deploy-tree)
            pr.kept(e);
            None
        } else {
            ids.into_iter().flatten().next()
        }
    };
    let want_gid = if perms.groups.is_empty() {
        None
    } else {
        let ids: Vec<Option<u32>> = perms.groups.iter().map(|g| gid_of(e, g)).collect();
        if ids.iter().all(Option::is_none) {
            e.log(
                LogLevel::Error,
                &format!(
                    "None of the promised groups for '{path}' exist -- see INFO logs for more"
                ),
            );
            pr.fail(e);
            None
        } else if ids.contains(&Some(m.gid)) {
            pr.kept(e);
            None
        } else {
            ids.into_iter().flatten().next()
        }
    };
    if want_uid.is_some() || want_gid.is_some() {
        if pr.warn_only {
            match (want_uid, want_gid) {
                (Some(u), Some(g)) => pr.should(
                    e,
                    &format!("change owner and group of '{path}' to '{u}:{g}'"),
                ),
                (Some(u), None) => pr.should(e, &format!("change owner of '{path}' to '{u}'")),
                (None, Some(g)) => pr.should(e, &format!("change group of '{path}' to '{g}'")),
                (None, None) => {}
            }
        } else {
            let link = if m.kind == Kind::Symlink { "link " } else { "" };
            {
                let (v, b) = e.host.vfs_mut();
                if v.set_meta(b, path, false, "chown", |mm| {
                    if let Some(u) = want_uid {
                        mm.uid = u;
                    }
                    if let Some(g) = want_gid {
                        mm.gid = g;
                    }
                })
                .is_ok()
                {
                    v.mark_changed(b, path);
                }
            }
            if let Some(u) = want_uid {
                pr.change(
                    e,
                    &format!("Owner of {link}'{path}' was {}, set to {u}", m.uid),
                );
            }
            if let Some(g) = want_gid {
                pr.change(
                    e,
                    &format!("Group of {link}'{path}' was {}, set to {g}", m.gid),
                );
            }
        }
    }
    // a symlink's mode is not checked in the first pass over the path; the final check sees the
    // file it points to (chmod follows links) (recorded: perms-symlink)
    let m = match m.kind {
        Kind::Symlink if !follow => return,
        Kind::Symlink => match super::stat(e, path) {
            Some(t) => t,
            None => return,
        },
        _ => m,
    };
    let Some((plus, minus)) = perms.mode else {
        pr.kept(e);
        return;
    };
    let (mut plus, mut minus) = (plus, minus);
    if m.kind == Kind::Dir && perms.rxdirs {
        let x = (plus & 0o444) >> 2;
        plus |= x;
        minus &= !x;
    }
    let old = m.mode & 0o7777;
    let new = (old | plus) & !minus & 0o7777;
    if new == old {
        pr.kept(e);
        return;
    }
    if pr.warn_only {
        pr.should(
            e,
            &format!("change permissions of '{path}' from {old:04o} to {new:04o}"),
        );
        return;
    }
    {
        let (v, b) = e.host.vfs_mut();
        if v.set_meta(b, path, true, "chmod", |mm| mm.mode = new)
            .is_ok()
        {
            // the promise's path, a symbolic link's own too
            v.mark_changed(b, path);
        }
    }
    pr.change(
        e,
        &format!("Object '{path}' had permissions {old:04o}, changed it to {new:04o}"),
    );
    // (the agent's "NEW SETUID root PROGRAM" notice depends on its setuid log of earlier runs, which a
    // simulated host does not have: recorded once, absent when re-recorded; not printed)
}

/// `content =>`: the file holds exactly the string.
pub fn content(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str, c: &str) {
    let exists = super::stat(e, path);
    if exists.is_none() {
        if a.create_false {
            pr.noop();
            return;
        }
        if !a.create && !create(e, a, pr, path) {
            return;
        }
    }
    let cur = {
        let base = e.host.base();
        e.host.vfs.read(base, path).map(|c| c.to_vec()).ok()
    };
    if cur.as_deref() == Some(c.as_bytes()) {
        // the digests match: no record (recorded: content-equal, content-multiline-nonl)
        pr.noop();
        return;
    }
    if pr.warn_only {
        pr.should(e, &format!("update file '{path}' with content '{c}'"));
        return;
    }
    let res = {
        let (v, b) = e.host.vfs_mut();
        v.write_file(b, path, c.as_bytes().to_vec(), 0o600)
    };
    match res {
        Ok(()) => pr.change(e, &format!("Updated file '{path}' with content '{c}'")),
        Err(FsError::IsDir) | Err(_) => {
            e.log(
                LogLevel::Error,
                &format!("Failed to update file '{path}' with content '{c}'"),
            );
            pr.fail(e);
        }
    }
}

/// `VerifyFileIntegrity` of a regular file with a `changes` body reporting content (`content`, `all`):
/// each hash is compared with the run's change database. A new entry is stored (`Stored md5 hash …`,
/// repaired); a different one is reported (`Hash 'md5' for 'P' changed!`, class `checksum_alerts`)
/// and replaced with `update_hashes`. The database is written only in a normal run (the agent's
/// `MakingInternalChanges`): a dry run or simulation says what it should record, a new entry counting
/// as a change to record (recorded: files/changes-detect-content). The agent checks each path twice
/// (the first and the final leaf check), so a dry run says it twice.
pub fn integrity(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str) {
    if !matches!(a.change.report.as_str(), "content" | "all") {
        return;
    }
    if lstat(e, path).is_none_or(|m| m.kind != Kind::File) {
        return;
    }
    let content = {
        let (v, b) = e.host.vfs_mut();
        match v.read(b, path) {
            Ok(c) => c,
            Err(_) => return,
        }
    };
    let algos: &[&str] = if a.change.hash == "best" {
        &["md5", "sha1"]
    } else {
        &[a.change.hash.as_str()]
    };
    let internal = !e.opts.dry_run && !pr.warn_only;
    let mut changed = false;
    for algo in algos {
        let digest = crate::functions::strings::digest_hex(algo, &content);
        let shown = format!("{}={digest}", hash_label(algo));
        let stored = {
            let (v, b) = e.host.vfs_mut();
            crate::host::changedb::get(v, b, algo, path)
        };
        match stored {
            None if internal => {
                let (v, b) = e.host.vfs_mut();
                crate::host::changedb::put(v, b, algo, path, &digest);
                pr.change(e, &format!("Stored {algo} hash for '{path}' ({shown})"));
            }
            None => {
                pr.should(e, &format!("record change of hash for file '{path}'"));
                changed = true;
            }
            Some(old) if old != digest => {
                e.log(
                    LogLevel::Info,
                    &format!("Hash '{algo}' for '{path}' changed!"),
                );
                e.ctx
                    .define_global("default", "checksum_alerts", Vec::new());
                if a.change.update {
                    if internal {
                        let (v, b) = e.host.vfs_mut();
                        crate::host::changedb::put(v, b, algo, path, &digest);
                        pr.change(e, &format!("Updated {algo} hash for '{path}' ({shown})"));
                    } else {
                        pr.should(e, &format!("update hash for file '{path}'"));
                    }
                }
                changed = true;
            }
            // `File hash for P is correct`: a kept record (recorded: changes-detect-content)
            Some(_) => pr.kept(e),
        }
    }
    if changed {
        if internal {
            pr.change(e, &format!("Recorded integrity changes in '{path}'"));
        } else {
            pr.should(e, &format!("record integrity changes in '{path}'"));
        }
    }
    // the attribute check itself is kept whatever the hashes said (recorded: kept with repaired in
    // the first run, with failed in a dry run)
    pr.kept(e);
}

/// The digest's name as the agent prints it before `=` (`HashPrintSafe`).
fn hash_label(algo: &str) -> &'static str {
    match algo {
        "md5" => "MD5",
        "sha1" => "SHA",
        "sha224" => "SHA224",
        "sha384" => "SHA384",
        "sha512" => "SHA512",
        _ => "SHA256",
    }
}
