//! `copy_from` from local sources (compare modes, backups, preserve, recursive copies with purge) and
//! `link_from` (symlink, relative, hardlink, obstructions) on the virtual file system. A remote copy
//! (`servers` other than localhost) is reported as not simulated.

use super::attrs::Attrs;
use super::{lstat, stat, Pr};
use crate::eval::output::LogLevel;
use crate::eval::Engine;
use crate::host::vfs::{self, Kind, Meta};

fn read(e: &Engine<'_>, path: &str) -> Option<Vec<u8>> {
    let b = e.host.base();
    e.host.vfs.read(b, path).ok().map(|c| c.to_vec())
}

/// Whether the destination must be updated from the source.
fn outdated(e: &Engine<'_>, compare: &str, src: &str, s: &Meta, dst: &str, d: &Meta) -> bool {
    let times = d.ctime < s.ctime || d.mtime < s.mtime;
    match compare {
        "mtime" => d.mtime < s.mtime,
        "atime" => times || read(e, src) != read(e, dst),
        "digest" | "hash" | "binary" => {
            if s.kind == Kind::File && d.kind == Kind::File {
                read(e, src) != read(e, dst)
            } else {
                times
            }
        }
        "exists" => false,
        _ => times,
    }
}

/// `copy_from` for one destination path.
pub fn copy(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, dst: &str) {
    let Some(c) = &a.copy else {
        return;
    };
    if c.servers.iter().any(|s| s != "localhost" && s != "127.0.0.1" && !s.is_empty()) {
        e.log(
            LogLevel::Warning,
            &format!(
                "cfsim: copy_from '{}' from server '{}' is not simulated (no remote_files in the host profile)",
                c.source,
                c.servers.join(",")
            ),
        );
        pr.warn(e);
        return;
    }
    let src = c.source.clone();
    let Some(s) = stat(e, &src) else {
        if c.missing_ok {
            pr.kept(e);
        } else {
            e.log(
                LogLevel::Error,
                &format!("Can't stat file '{src}' on 'localhost' in files.copy_from promise"),
            );
            pr.fail(e);
        }
        return;
    };
    if vfs::normalize(&src) == vfs::normalize(dst) {
        pr.kept(e);
        return;
    }
    if s.kind == Kind::Dir {
        if a.depth.is_none() {
            pr.kept(e);
            return;
        }
        copy_tree(e, a, pr, &src, dst, 0);
        return;
    }
    copy_file(e, a, pr, &src, &s, dst);
}

fn copy_file(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, src: &str, s: &Meta, dst: &str) {
    let Some(c) = &a.copy else {
        return;
    };
    let d = lstat(e, dst);
    if let Some(d) = &d {
        if c.compare == "exists" {
            pr.kept(e);
            return;
        }
        if c.type_check && d.kind != s.kind && d.kind != Kind::Symlink {
            e.log(
                LogLevel::Error,
                &format!("Promised file copy {dst} exists but type mismatch with source '{src}'"),
            );
            pr.fail(e);
            return;
        }
        if !c.force_update && !outdated(e, &c.compare, src, s, dst, d) {
            if c.preserve && d.mode != s.mode && !pr.warn_only {
                let mode = s.mode;
                let (v, b) = e.host.vfs_mut();
                let _ = v.set_meta(b, dst, true, "chmod", |m| m.mode = mode);
                pr.change(e, &format!("Object '{dst}' had permissions {:04o}, changed it to {mode:04o}", d.mode));
            } else {
                pr.kept(e);
            }
            return;
        }
    }
    if pr.warn_only {
        match d {
            None => pr.should(e, &format!("copy '{dst}' to '{src}'")),
            Some(_) => pr.should(e, &format!("update file '{dst}' from '{src}' on 'localhost'")),
        }
        return;
    }
    let content = read(e, src).unwrap_or_default();
    let mode = if c.preserve {
        s.mode
    } else {
        d.as_ref().map_or(0o600, |d| d.mode & 0o777)
    };
    if c.preserve {
        e.log(
            LogLevel::Info,
            &format!("Copied file '{src}' to '{dst}.cfnew' (permissions preserved)"),
        );
    } else {
        e.log(
            LogLevel::Info,
            &format!("Copied file '{src}' to '{dst}.cfnew' (mode '{:o}')", mode),
        );
    }
    let existed = d.is_some();
    if let Some(d) = &d {
        if d.kind == Kind::Symlink {
            let (v, b) = e.host.vfs_mut();
            let _ = v.remove(b, dst, false);
            e.log(
                LogLevel::Info,
                &format!("Removing old symbolic link '{dst}' to make way for copy"),
            );
        } else if c.backup != "false" {
            let old = read(e, dst).unwrap_or_default();
            let dmode = d.mode;
            let (v, b) = e.host.vfs_mut();
            let _ = v.write_file(b, &format!("{dst}.cfsaved"), old, dmode);
            e.log(LogLevel::Info, &format!("Backed up '{dst}' as '{dst}.cfsaved'"));
        }
    }
    {
        let (v, b) = e.host.vfs_mut();
        let _ = v.write_file(b, dst, content, mode);
        let _ = v.set_meta(b, dst, false, "chmod", |m| m.mode = mode);
        // --simulate lists every copied file (the agent's chroot cannot copy local sources)
        v.mark_changed(b, dst);
    }
    e.log(LogLevel::Info, &format!("Moved '{dst}.cfnew' to '{dst}'"));
    if existed {
        pr.change(e, &format!("Updated '{dst}' from source '{src}' on 'localhost'"));
    } else {
        pr.change(e, &format!("Updated file '{dst}' from 'localhost:{src}'"));
    }
}

fn copy_tree(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, src: &str, dst: &str, level: u64) {
    if level > 4096 {
        return;
    }
    let depth = a.depth.as_ref().map_or(0, |d| d.depth);
    if stat(e, dst).is_none() {
        // the agent makes missing directories of a recursive copy even in a dry run
        let (v, b) = e.host.vfs_mut();
        if v.mkdir(b, dst, 0o700).is_ok() {
            v.mark_changed(b, dst);
            pr.change(e, &format!("Created directory '{dst}'"));
        }
    }
    let names = {
        let b = e.host.base();
        e.host.vfs.list(b, src).unwrap_or_default()
    };
    for n in &names {
        let sp = format!("{}/{n}", src.trim_end_matches('/'));
        let dp = format!("{}/{n}", dst.trim_end_matches('/'));
        let Some(sm) = stat(e, &sp) else {
            continue;
        };
        if sm.kind == Kind::Dir {
            if depth > level + 1 || depth == u64::MAX {
                copy_tree(e, a, pr, &sp, &dp, level + 1);
            }
        } else {
            copy_file(e, a, pr, &sp, &sm, &dp);
        }
    }
    if a.copy.as_ref().is_some_and(|c| c.purge) {
        let dnames = {
            let b = e.host.base();
            e.host.vfs.list(b, dst).unwrap_or_default()
        };
        for n in dnames.iter().filter(|n| !names.contains(n)) {
            let dp = format!("{}/{n}", dst.trim_end_matches('/'));
            if pr.warn_only {
                pr.should(e, &format!("purge '{dp}' from copy dest directory"));
                continue;
            }
            let (v, b) = e.host.vfs_mut();
            if v.remove(b, &dp, true).is_ok() {
                v.mark_changed(b, &dp);
            }
            pr.change(e, &format!("Purged '{dp}' copy dest directory"));
        }
    }
}

/// `link_from` for one path.
pub fn link(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str) {
    let Some(k) = &a.link else {
        return;
    };
    let src = k.source.clone();
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
            let now = super::chroot::link_target(e, path, &now.unwrap_or_default());
            e.log(
                LogLevel::Error,
                &format!("Link '{path}' points to '{now}' not '{target}', but not moving obstructions"),
            );
            pr.fail(e);
            return;
        }
        Some(_) => {
            if !k.move_obstructions {
                if pr.warn_only {
                    pr.should(e, &format!("create link '{path}'"));
                    return;
                }
                e.log(
                    LogLevel::Error,
                    &format!("Object '{path}' is obstructing promise"),
                );
                e.log(
                    LogLevel::Error,
                    &format!("Unable to create link '{path}' -> '{src}', failed to move obstruction"),
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
                pr.change(e, &format!("Moved obstructing object '{path}' to '{shown}'"));
            }
        }
        None => {}
    }
    if pr.warn_only {
        pr.should(e, &format!("create link '{path}'"));
        return;
    }
    let (v, b) = e.host.vfs_mut();
    let _ = v.symlink(b, path, &target);
    pr.change(e, &format!("Linked files '{path}' -> '{target}'"));
}

/// `src` relative to the directory of `path` (`./x` when in the same directory).
fn relative(src: &str, path: &str) -> String {
    let s: Vec<&str> = src.split('/').filter(|c| !c.is_empty()).collect();
    let d: Vec<&str> = vfs::parent(path).split('/').filter(|c| !c.is_empty()).collect();
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
