//! `--simulate=diff|manifest|manifest-full`: the report cf-agent prints after such a run, built from
//! the run's virtual host: the paths files promises looked at, their state before and after, the
//! renames. cfsim shows what the real run would do (the agent's chroot gets some of it wrong: see the
//! README); the text is [`crate::host::simreport`]'s.

use crate::eval::Engine;
use crate::host::simreport::{self, Entry, Mode, Report};
use crate::host::vfs::{BaseFs, Kind, Node, Vfs};

fn kind(k: Kind) -> simreport::Kind {
    match k {
        Kind::File => simreport::Kind::File,
        Kind::Dir => simreport::Kind::Dir,
        Kind::Symlink => simreport::Kind::Symlink,
        Kind::Fifo => simreport::Kind::Fifo,
        Kind::Socket => simreport::Kind::Socket,
        Kind::Other => simreport::Kind::Other,
    }
}

/// The report's view of `node` at `path`; `before`: list a directory as the base has it.
fn entry(
    e: &Engine<'_>,
    vfs: &Vfs,
    base: &dyn BaseFs,
    path: &str,
    node: &Node,
    before: bool,
) -> Entry {
    let user = e
        .host
        .accounts
        .users
        .iter()
        .find(|u| u.uid == node.meta.uid)
        .map(|u| u.name.clone())
        .unwrap_or_default();
    let group = e
        .host
        .accounts
        .groups
        .iter()
        .find(|g| g.gid == node.meta.gid)
        .map(|g| g.name.clone())
        .unwrap_or_default();
    let children = if node.meta.kind == Kind::Dir {
        let names = if before {
            let mut n = base.list(path).unwrap_or_default();
            n.sort();
            n
        } else {
            vfs.list(base, path).unwrap_or_default()
        };
        names
            .into_iter()
            .map(|n| {
                let child = format!("{}/{n}", path.trim_end_matches('/'));
                let k = if before {
                    base.lstat(&child).map(|m| m.kind)
                } else {
                    vfs.stat(base, &child, false).map(|m| m.kind)
                };
                (n, kind(k.unwrap_or(Kind::Other)))
            })
            .collect()
    } else {
        Vec::new()
    };
    Entry {
        kind: kind(node.meta.kind),
        mode: node.meta.mode,
        uid: node.meta.uid,
        gid: node.meta.gid,
        user,
        group,
        size: node
            .content
            .as_ref()
            .map_or(node.meta.size, |c| c.len() as u64),
        content: node.content.clone(),
        target: node.target.clone(),
        children,
        atime: node.meta.atime,
        mtime: node.meta.mtime,
        ctime: node.meta.ctime,
    }
}

/// The report printed after a `--simulate` run; `info`: the INFO lines too (`-I`, `-v`).
pub fn report(e: &Engine<'_>, mode: Mode, info: bool) -> String {
    with_report(e, mode, info, simreport::render)
}

/// [`report`] written to `w` as it is made (file contents are read one path at a time).
pub fn report_to(
    e: &Engine<'_>,
    mode: Mode,
    info: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    with_report(e, mode, info, |r| simreport::render_to(r, w))
}

fn with_report<T>(e: &Engine<'_>, mode: Mode, info: bool, f: impl FnOnce(&Report) -> T) -> T {
    let vfs = &e.host.vfs;
    let base = e.host.base();
    let mut changed = Vec::new();
    let mut unmodified = Vec::new();
    // the agent's list of changed files, in the order the run recorded them
    for path in vfs.reported() {
        let before = vfs
            .original(base, path)
            .map(|n| entry(e, vfs, base, path, &n, true));
        let after = vfs
            .node(base, path)
            .map(|n| entry(e, vfs, base, path, &n, false));
        changed.push((path.to_string(), before, after));
    }
    if mode == Mode::ManifestFull {
        // the agent's list of evaluated files, as written (those already shown are skipped by the
        // renderer, but they make the list non-empty)
        for path in vfs.kept() {
            let norm = crate::host::vfs::normalize(path);
            let now = vfs
                .node(base, &norm)
                .map(|n| entry(e, vfs, base, &norm, &n, false));
            unmodified.push((path.clone(), now));
        }
    }
    let r = Report {
        mode,
        chroot: super::run::SIM_CHROOT,
        renames: vfs.renames(),
        changed: &changed,
        unmodified: &unmodified,
        packages: &e.host.packages.ops,
        info,
    };
    f(&r)
}
