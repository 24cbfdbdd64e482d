//! The report cf-agent prints after a `--simulate=diff|manifest|manifest-full` run, rendered byte for byte from a list of changes.
//!
//! This module owns the text only: the caller (the simulated run) says which paths changed, their state
//! before and after, the renames, the evaluated-but-unchanged paths and the package operations; [`render`]
//! prints what cf-agent 3.21.0 prints after the run (spec `cfengine-files-semantics.md` §4.2, A.3, B.2–B.4).
//! Diff mode's unified diffs are GNU `diff -u` 3.8's (`LC_ALL=C`), computed in-process: [`unified_diff`]
//! and [`dir_diff`]. Nothing here touches the machine.
//!
//! Where the agent's report is an artefact of its chroot rather than of the run (B.3: a replaced symlink's
//! target read from the old link, a FIFO copied as a regular file, a directory's simulated `chmod` undone by
//! a later promise), the report shows the state the caller gives; everything else is the agent's, including
//! its quirks (type changes print details of the old path as the new type, the package maps' merge rules).

use crate::libmap::{string_hash, LibMap};
use std::collections::{HashMap, HashSet};

use super::time::civil;

/// The 75-character delimiter (`COLUMNS` unset: `max(COLUMNS, 80) - 5`).
const DELIMITER: &str =
    "===========================================================================\n";

/// cf-agent's INFO prefix.
const INFO: &str = "    info: ";
/// cf-agent's ERROR prefix.
const ERROR: &str = "   error: ";

/// cf-agent reads files to manifest in `CF_BUFSIZE` chunks; the non-ASCII test is per chunk.
const CHUNK: usize = 4096;
/// GNU diff decides "binary" from its first buffer (`st_blksize`, 4096 on the agent's file systems).
const DIFF_BINARY_PROBE: usize = 4096;

/// What a path is (`st_mode & S_IFMT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    BlockDevice,
    CharDevice,
    /// Anything else (printed `unknown`).
    Other,
}

impl Kind {
    /// The agent's `GetFileTypeDescription()`.
    pub fn description(self) -> &'static str {
        match self {
            Kind::File => "regular file",
            Kind::Dir => "directory",
            Kind::Symlink => "symbolic link",
            Kind::Fifo => "FIFO/pipe",
            Kind::Socket => "socket",
            Kind::BlockDevice => "block device",
            Kind::CharDevice => "character device",
            Kind::Other => "unknown",
        }
    }
}

/// One path's state (before or after the run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    /// Permission bits including setuid/setgid/sticky (`07777`); ignored for symlinks (always `0777`).
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    /// User name of `uid`; empty = no such user (the agent then logs an error instead of `Uid: (…)`).
    pub user: String,
    /// Group name of `gid`; empty = no such group.
    pub group: String,
    /// `st_size` for directories and special files (4096 for a directory on ext4). Files print the length
    /// of `content` when it is given; symlinks print the length of the chroot's link (see [`render`]).
    pub size: u64,
    /// Files: the contents (read when the entry is rendered: they may be in the run's spill file).
    pub content: Option<crate::host::spill::Content>,
    /// Symlinks: the target as `readlink` returns it after a real run (relative or absolute).
    pub target: Option<String>,
    /// Directories: the entries (without `.`/`..`) in the order to print them (readdir order), with their
    /// kinds (diff mode needs them for `Common subdirectories`).
    pub children: Vec<(String, Kind)>,
    pub atime: i64,
    pub mtime: i64,
    pub ctime: i64,
}

impl Entry {
    /// The file's bytes (empty without contents).
    fn data(&self) -> std::sync::Arc<Vec<u8>> {
        self.content.as_ref().map(|c| c.bytes()).unwrap_or_default()
    }
}

/// Which `--simulate` report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Diff,
    Manifest,
    ManifestFull,
}

/// A package operation the agent recorded in the changes chroot, in the order it was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageOp {
    /// `present` promise that had to install (a newer version, or an absent package).
    Install,
    /// `absent` promise that had to remove.
    Remove,
    /// `present` promise already kept.
    Present,
    /// `absent` promise already kept.
    Absent,
}

/// One recorded package operation. Empty `version`/`arch` = not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageChange {
    pub op: PackageOp,
    pub name: String,
    pub version: String,
    pub arch: String,
}

/// Everything the report is made from.
#[derive(Debug, Clone)]
pub struct Report<'a> {
    pub mode: Mode,
    /// `/var/lib/cfengine3/state/<PID>.changes`, as printed (no trailing slash).
    pub chroot: &'a str,
    /// `(new, old)` names, in order.
    pub renames: &'a [(String, String)],
    /// `(path, before, after)` (`None` = absent), in first-change order; a repeated path is printed once.
    /// A symlink in `after` whose `before` is not the same link was created by the run.
    pub changed: &'a [(String, Option<Entry>, Option<Entry>)],
    /// manifest-full: evaluated but unchanged paths, in order (`None` = the path does not exist).
    pub unmodified: &'a [(String, Option<Entry>)],
    /// Package operations (may be empty).
    pub packages: &'a [PackageChange],
    /// `-I` or more: print the INFO lines.
    pub info: bool,
}

/// Everything the agent prints after the run, exactly (lossy only where file contents are not UTF-8: see
/// [`render_bytes`]).
pub fn render(r: &Report) -> String {
    String::from_utf8_lossy(&render_bytes(r)).into_owned()
}

/// Everything the agent prints after the run, as bytes (file contents and diff lines are printed raw).
pub fn render_bytes(r: &Report) -> Vec<u8> {
    let mut out = Out {
        buf: Vec::new(),
        info: r.info,
        sink: None,
    };
    render_into(&mut out, r);
    out.buf
}

/// [`render`] written to `w` as it is made (a large report is never held whole).
pub fn render_to(r: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = Out {
        buf: Vec::new(),
        info: r.info,
        sink: Some(w),
    };
    render_into(&mut out, r);
    out.flush(0)
}

fn render_into(out: &mut Out, r: &Report) {
    let mut audited: HashSet<&str> = HashSet::new();
    // The rename list is shown by diff and manifest; manifest-full shows it from its "changed" pass.
    if !r.renames.is_empty() {
        out.info("Manifesting renamed files (in the changes chroot)");
        for (new, old) in r.renames {
            out.str(DELIMITER);
            out.str(&format!("'{new}' is the new name of '{old}'\n"));
        }
    }
    let (action, action_ing) = match r.mode {
        Mode::Diff => ("show diff for", "Showing diff for"),
        Mode::Manifest | Mode::ManifestFull => ("manifest", "Manifesting"),
    };
    if r.changed.is_empty() {
        out.info(&format!("No changed files to {action}"));
    } else {
        out.info(&format!(
            "{action_ing} changed files (in the changes chroot)"
        ));
        for (path, before, after) in r.changed {
            if !audited.insert(path.as_str()) {
                continue;
            }
            match r.mode {
                Mode::Diff => diff_path(out, r, path, before.as_ref(), after.as_ref()),
                Mode::Manifest | Mode::ManifestFull => {
                    let created = created_link(before.as_ref(), after.as_ref());
                    manifest_path(out, r.chroot, path, after.as_ref(), created);
                }
            }
            // a write error shows when the end is flushed
            let _ = out.flush(FLUSH_AT);
        }
    }
    if r.mode == Mode::ManifestFull {
        if r.unmodified.is_empty() {
            out.info("No unmodified files to manifest");
        } else {
            out.info("Manifesting unmodified files (in the changes chroot)");
            for (path, entry) in r.unmodified {
                if audited.insert(path.as_str()) {
                    manifest_path(out, r.chroot, path, entry.as_ref(), false);
                    let _ = out.flush(FLUSH_AT);
                }
            }
        }
    }
    match r.mode {
        Mode::Diff => diff_packages(out, r.packages),
        Mode::Manifest | Mode::ManifestFull => manifest_packages(out, r.packages),
    }
}

/// Bytes of output kept before [`render_to`] writes them out.
const FLUSH_AT: usize = 64 << 10;

/// `rw-r--r--` for `mode` (9 characters, `s`/`S`/`t`/`T` for set-id and sticky). A symlink's mode is
/// always `0777` (as `lstat` reports it on Linux).
pub fn mode_string(kind: Kind, mode: u32) -> String {
    let m = effective_mode(kind, mode);
    let bit = |mask: u32, c: char| if m & mask != 0 { c } else { '-' };
    let special =
        |exec: u32, special: u32, set: char, unset: char| match (m & special != 0, m & exec != 0) {
            (true, true) => set,
            (true, false) => unset,
            (false, true) => 'x',
            (false, false) => '-',
        };
    [
        bit(0o400, 'r'),
        bit(0o200, 'w'),
        special(0o100, 0o4000, 's', 'S'),
        bit(0o040, 'r'),
        bit(0o020, 'w'),
        special(0o010, 0o2000, 's', 'S'),
        bit(0o004, 'r'),
        bit(0o002, 'w'),
        special(0o001, 0o1000, 't', 'T'),
    ]
    .iter()
    .collect()
}

fn effective_mode(kind: Kind, mode: u32) -> u32 {
    if kind == Kind::Symlink {
        0o777
    } else {
        mode & 0o7777
    }
}

/// The output being built.
struct Out<'w> {
    buf: Vec<u8>,
    info: bool,
    /// Where [`render_to`] writes (`None`: everything stays in `buf`).
    sink: Option<&'w mut dyn std::io::Write>,
}

impl Out<'_> {
    /// Writes the output made so far to the sink once it holds `at` bytes or more, converted as
    /// [`render`] converts (lossily where it is not UTF-8), and only where it ends with an ASCII byte
    /// (never inside a character).
    fn flush(&mut self, at: usize) -> std::io::Result<()> {
        let Some(w) = self.sink.as_mut() else {
            return Ok(());
        };
        let ready = !self.buf.is_empty()
            && self.buf.len() >= at
            && (at == 0 || self.buf.last().is_some_and(|b| b.is_ascii()));
        if !ready {
            return Ok(());
        }
        w.write_all(String::from_utf8_lossy(&self.buf).as_bytes())?;
        self.buf.clear();
        Ok(())
    }

    fn str(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    fn info(&mut self, msg: &str) {
        if self.info {
            self.str(INFO);
            self.str(msg);
            self.str("\n");
        }
    }
    fn error(&mut self, msg: &str) {
        self.str(ERROR);
        self.str(msg);
        self.str("\n");
    }
}

/// Whether the symlink in `after` was created by the run (its chroot link then carries the chroot
/// prefix even for a relative target) rather than mirrored from the host.
fn created_link(before: Option<&Entry>, after: Option<&Entry>) -> bool {
    match (before, after) {
        (Some(b), Some(a)) => !(b.kind == Kind::Symlink && b.target == a.target),
        _ => true,
    }
}

/// The agent's `ManifestFile(path, chrooted)`: delimiter, then the path's state in the chroot.
fn manifest_path(out: &mut Out, chroot: &str, path: &str, entry: Option<&Entry>, created: bool) {
    out.str(DELIMITER);
    let Some(e) = entry else {
        out.str(&format!("'{path}' no longer exists\n"));
        return;
    };
    out.str(&format!("'{path}' is a {}\n", e.kind.description()));
    stat_block(out, chroot, e, created);
    details(out, chroot, e, created);
}

/// `Size:` … `Change:` (the agent's `ManifestStatInfo`).
fn stat_block(out: &mut Out, chroot: &str, e: &Entry, created: bool) {
    let size = match e.kind {
        Kind::File => e.content.as_ref().map_or(e.size, |c| c.len() as u64),
        Kind::Symlink => match &e.target {
            Some(t) if !t.is_empty() => link_view(chroot, t, created).1,
            _ => e.size,
        },
        _ => e.size,
    };
    out.str(&format!("Size: {size}\n"));
    out.str(&format!(
        "Access: ({:04o}/{})  ",
        effective_mode(e.kind, e.mode),
        mode_string(e.kind, e.mode)
    ));
    if e.user.is_empty() {
        out.error(&format!(
            "Could not get user name for uid {}, (getpwuid: not found)",
            e.uid
        ));
    } else {
        out.str(&format!("Uid: ({}/{})   ", e.uid, e.user));
    }
    if e.group.is_empty() {
        out.error(&format!(
            "Could not get group name for gid {}, (getgrgid: not found)",
            e.gid
        ));
    } else {
        out.str(&format!("Gid: ({}/{})\n", e.gid, e.group));
    }
    out.str(&format!("Access: {}\n", timestamp(e.atime)));
    out.str(&format!("Modify: {}\n", timestamp(e.mtime)));
    out.str(&format!("Change: {}\n", timestamp(e.ctime)));
}

/// `%Y-%m-%d %H:%M:%S %z` in UTC.
fn timestamp(epoch: i64) -> String {
    let c = civil(epoch, 0);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02} +0000",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// How the agent shows a link's target and the chroot link's size: an absolute target is re-pointed
/// into the chroot (size = chroot + target) and shown without it; a relative target the run created is
/// stored as `CHROOT/target` and shown as `/target`; a mirrored relative link is copied as is.
fn link_view(chroot: &str, target: &str, created: bool) -> (String, u64) {
    if target.starts_with('/') {
        (target.to_string(), (chroot.len() + target.len()) as u64)
    } else if created {
        let shown = format!("/{target}");
        let size = (chroot.len() + shown.len()) as u64;
        (shown, size)
    } else {
        (target.to_string(), target.len() as u64)
    }
}

/// The agent's `ManifestFileDetails` for the entry itself.
fn details(out: &mut Out, chroot: &str, e: &Entry, created: bool) {
    match e.kind {
        Kind::File => {
            out.str("\n");
            file_contents(out, &e.data());
        }
        Kind::Symlink => {
            out.str("\n");
            link_target(out, chroot, e, created);
        }
        Kind::Dir => {
            out.str("\n");
            dir_listing(out, e);
        }
        _ => {}
    }
}

fn link_target(out: &mut Out, chroot: &str, e: &Entry, created: bool) {
    match &e.target {
        Some(t) if !t.is_empty() => {
            let shown = link_view(chroot, t, created).0;
            out.str(&format!("Target: '{shown}'\n"));
        }
        _ => out.str("Invalid target\n"),
    }
}

fn dir_listing(out: &mut Out, e: &Entry) {
    out.str("Directory contents:\n");
    for (name, _) in &e.children {
        out.str(name);
        out.str("\n");
    }
}

/// `Contents of the file:` and the file, 4 KiB at a time: a chunk with a byte ≥ 0x80 ends the listing
/// with `File contains non-ASCII data` (printed right after the previous chunk, even mid-line); a text
/// file without a final newline gets `\no newline at the end of file` on a line of its own.
fn file_contents(out: &mut Out, data: &[u8]) {
    out.str("Contents of the file:\n");
    let mut last = b'\n';
    for chunk in data.chunks(CHUNK) {
        if chunk.iter().any(|b| !b.is_ascii()) {
            out.str("File contains non-ASCII data\n");
            return;
        }
        out.bytes(chunk);
        if let Some(&b) = chunk.last() {
            last = b;
        }
    }
    if last != b'\n' {
        out.str("\n\\no newline at the end of file\n");
    }
}

/// The agent's `DiffFile(path)`.
fn diff_path(out: &mut Out, r: &Report, path: &str, before: Option<&Entry>, after: Option<&Entry>) {
    let Some(b) = before else {
        // A new path: manifested instead of diffed.
        manifest_path(out, r.chroot, path, after, true);
        return;
    };
    out.str(DELIMITER);
    let Some(a) = after else {
        out.str(&format!("'{path}' no longer exists\n"));
        return;
    };
    let created = created_link(before, after);
    if a.kind != b.kind {
        out.str(&format!(
            "'{path}' changed type from {} to {}\n",
            b.kind.description(),
            a.kind.description()
        ));
        stat_block(out, r.chroot, a, created);
        type_change_details(out, r.chroot, b, a, created);
        return;
    }
    match a.kind {
        Kind::File => {
            let (old, new) = (b.data(), a.data());
            out.bytes(&file_diff(
                &old,
                &new,
                &orig_label(path),
                &changed_label(path),
            ));
        }
        Kind::Dir => out.bytes(&dir_diff(r, path, b, a)),
        _ => {
            // The agent reads the details from the original path here (a replaced link shows a mangled
            // old target, B.4); the report shows the new state.
            out.str(&format!("'{path}' is a {}\n", a.kind.description()));
            stat_block(out, r.chroot, a, created);
            details(out, r.chroot, a, created);
        }
    }
}

/// After `changed type from X to Y` the agent prints the details of the *original* path read as a Y
/// (verified: a file replaced by a link gives `Invalid target`, a file replaced by a directory gives the
/// `Failed to open the directory` error). Where that would read unknown data (an old symlink's target,
/// a FIFO) the new state is shown instead.
fn type_change_details(out: &mut Out, chroot: &str, b: &Entry, a: &Entry, created: bool) {
    match a.kind {
        Kind::Symlink => {
            out.str("\n");
            out.str("Invalid target\n");
        }
        Kind::Dir => {
            out.str("\n");
            if b.kind == Kind::Symlink {
                dir_listing(out, a);
            } else {
                out.error("Failed to open the directory: Not a directory");
            }
        }
        Kind::File => {
            out.str("\n");
            match b.kind {
                Kind::Dir => {
                    out.str("Contents of the file:\n");
                    out.error("Failed to print contents of the file");
                }
                Kind::Socket => {
                    out.error("Failed to open file for reading: No such device or address");
                }
                _ => file_contents(out, &a.data()),
            }
        }
        _ => details(out, chroot, a, created),
    }
}

fn orig_label(path: &str) -> String {
    format!("original {path}")
}

fn changed_label(path: &str) -> String {
    format!("changed  {path}")
}

/// `diff -u --label L0 --label L1` of two regular files: nothing when equal, `Binary files L0 and L1
/// differ` when either has a NUL byte in its first 4 KiB, else the unified diff.
fn file_diff(old: &[u8], new: &[u8], l0: &str, l1: &str) -> Vec<u8> {
    if old == new {
        return Vec::new();
    }
    if is_binary(old) || is_binary(new) {
        return format!("Binary files {l0} and {l1} differ\n").into_bytes();
    }
    unified_diff(old, new, l0, l1)
}

fn is_binary(data: &[u8]) -> bool {
    data.iter().take(DIFF_BINARY_PROBE).any(|&b| b == 0)
}

fn join_path(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// What GNU diff (following symlinks) would call a directory child: `None` for a symlink (its target is
/// not modelled: such children print nothing).
fn gnu_file_type(kind: Kind, size: u64) -> Option<&'static str> {
    Some(match kind {
        Kind::File if size == 0 => "regular empty file",
        Kind::File => "regular file",
        Kind::Dir => "directory",
        Kind::Fifo => "fifo",
        Kind::Socket => "socket",
        Kind::BlockDevice => "block special file",
        Kind::CharDevice => "character special file",
        Kind::Symlink => return None,
        Kind::Other => "weird file",
    })
}

/// `diff -u --label 'original P' --label 'changed  P' P CHROOT/P` for two directories (B.2): one line per
/// name in either, in byte order — `Only in …`, `Common subdirectories: …`, a type clash, or, for a
/// regular file changed by the run, the file's diff (under the directory's labels).
pub fn dir_diff(r: &Report, path: &str, before: &Entry, after: &Entry) -> Vec<u8> {
    let chrooted = format!("{}{}", r.chroot, path);
    let l0 = orig_label(path);
    let l1 = changed_label(path);
    let old: HashMap<&str, Kind> = before
        .children
        .iter()
        .map(|(n, k)| (n.as_str(), *k))
        .collect();
    let new: HashMap<&str, Kind> = after
        .children
        .iter()
        .map(|(n, k)| (n.as_str(), *k))
        .collect();
    // The run's changes by path (the first entry of a repeated path); children not in it are unchanged.
    let mut changes: HashMap<&str, (Option<&Entry>, Option<&Entry>)> = HashMap::new();
    for (p, b, a) in r.changed {
        changes
            .entry(p.as_str())
            .or_insert((b.as_ref(), a.as_ref()));
    }
    let mut names: Vec<&str> = old.keys().chain(new.keys()).copied().collect();
    names.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        let (k0, k1) = match (old.get(name), new.get(name)) {
            (Some(k0), Some(k1)) => (*k0, *k1),
            (Some(_), None) => {
                out.extend_from_slice(format!("Only in {path}: {name}\n").as_bytes());
                continue;
            }
            (None, Some(_)) => {
                out.extend_from_slice(format!("Only in {chrooted}: {name}\n").as_bytes());
                continue;
            }
            (None, None) => continue,
        };
        let child = join_path(path, name);
        let (e0, e1) = changes.get(child.as_str()).copied().unwrap_or((None, None));
        let (k0, k1) = (e0.map_or(k0, |e| e.kind), e1.map_or(k1, |e| e.kind));
        if k0 == Kind::Dir && k1 == Kind::Dir {
            out.extend_from_slice(
                format!(
                    "Common subdirectories: {} and {}\n",
                    child,
                    join_path(&chrooted, name)
                )
                .as_bytes(),
            );
            continue;
        }
        if k0 == Kind::Dir || k1 == Kind::Dir {
            let size = |e: Option<&Entry>| {
                e.map_or(1, |e| e.content.as_ref().map_or(e.size, |c| c.len() as u64))
            };
            if let (Some(t0), Some(t1)) = (gnu_file_type(k0, size(e0)), gnu_file_type(k1, size(e1)))
            {
                out.extend_from_slice(
                    format!("File {l0} is a {t0} while file {l1} is a {t1}\n").as_bytes(),
                );
            }
            continue;
        }
        if k0 != Kind::File || k1 != Kind::File {
            continue;
        }
        let (Some(c0), Some(c1)) = (
            e0.and_then(|e| e.content.as_ref().map(|c| c.bytes())),
            e1.and_then(|e| e.content.as_ref().map(|c| c.bytes())),
        ) else {
            continue;
        };
        let (c0, c1) = (c0.as_slice(), c1.as_slice());
        if c0 == c1 {
            continue;
        }
        if is_binary(c0) || is_binary(c1) {
            out.extend_from_slice(format!("Binary files {l0} and {l1} differ\n").as_bytes());
            continue;
        }
        out.extend_from_slice(
            format!(
                "diff -u --label {} --label {} {} {}\n",
                shell_quote(&l0),
                shell_quote(&l1),
                c_quote(&l0),
                c_quote(&l1)
            )
            .as_bytes(),
        );
        out.extend_from_slice(&unified_diff(c0, c1, &l0, &l1));
    }
    out
}

/// gnulib's shell quoting as diff uses it for the options echoed before each file of a directory diff:
/// single quotes; with an embedded `'`, double quotes when every byte is safe in both C and shell
/// quoting, else `'\''` splicing.
fn shell_quote(s: &str) -> String {
    let safe_bare = |b: u8| b.is_ascii_alphanumeric() || b"%+,-./:]_@".contains(&b);
    if !s.is_empty() && s.bytes().all(safe_bare) {
        return s.to_string();
    }
    if !s.contains('\'') {
        return format!("'{s}'");
    }
    let compat = |b: u8| safe_bare(b) || b == b' ' || b == b'\'';
    if s.bytes().all(compat) {
        return format!("\"{s}\"");
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// gnulib's C quoting (`"…"` with C escapes; non-ASCII bytes as octal, as under `LC_ALL=C`).
fn c_quote(s: &str) -> String {
    let mut q = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => q.push_str("\\\""),
            b'\\' => q.push_str("\\\\"),
            0x07 => q.push_str("\\a"),
            0x08 => q.push_str("\\b"),
            0x0c => q.push_str("\\f"),
            b'\n' => q.push_str("\\n"),
            b'\r' => q.push_str("\\r"),
            b'\t' => q.push_str("\\t"),
            0x0b => q.push_str("\\v"),
            0x20..=0x7e => q.push(char::from(b)),
            _ => q.push_str(&format!("\\{b:03o}")),
        }
    }
    q.push('"');
    q
}

// ---------------------------------------------------------------------------------------------------
// Unified diff as GNU diff 3.8 prints it.

/// `diff -u --label l0 --label l1 OLD NEW` for two text files, as GNU diffutils 3.8 prints it (3 lines of
/// context, `\ No newline at end of file`); empty when the files are equal. Binary detection is the
/// caller's ([`render`] does it).
///
/// The alignment is GNU's own (horizon lines, `discard_confusing_lines`, `compareseq`,
/// `shift_boundaries`, all reimplemented here): among equally short edit scripts GNU picks one by its
/// particular search, which a generic Myers implementation (`similar`'s) does not reproduce — on random
/// small files `similar` chose a different script in about one case in eight.
pub fn unified_diff(old: &[u8], new: &[u8], l0: &str, l1: &str) -> Vec<u8> {
    let a = split_lines(old);
    let b = split_lines(new);
    let (c0, c1) = changed_flags(&a, &b);
    let changes = build_script(&c0, &c1);
    if changes.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    out.extend_from_slice(format!("--- {l0}\n+++ {l1}\n").as_bytes());
    let mut i = 0;
    while i < changes.len() {
        // Changes closer than 2 * CONTEXT + 1 unchanged lines share a hunk.
        let mut j = i;
        while let (Some(cur), Some(next)) = (changes.get(j), changes.get(j + 1)) {
            if next.line0.saturating_sub(cur.line0 + cur.deleted) < 2 * CONTEXT + 1 {
                j += 1;
            } else {
                break;
            }
        }
        print_hunk(&mut out, &a, &b, changes.get(i..=j).unwrap_or_default());
        i = j + 1;
    }
    out
}

const CONTEXT: usize = 3;

/// One change: `deleted` lines of the old file at `line0` replaced by `inserted` new lines at `line1`.
#[derive(Debug, Clone, Copy)]
struct Change {
    line0: usize,
    line1: usize,
    deleted: usize,
    inserted: usize,
}

/// Lines with their newline; the last one may lack it.
fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// GNU diff's `horizon_lines` (raised to the context size): identical lines kept around the analysed
/// middle so that `shift_boundaries` may slide changes into them.
const HORIZON: usize = 3;

/// Per-line "changed" flags for both files, as GNU diff computes them: identical leading and trailing
/// lines beyond the horizon are set aside (trailing ones only when both files end the same way, with or
/// without a final newline), lines of the rest that occur nowhere in the other file are discarded (GNU's
/// `discard_confusing_lines`), the remainder is aligned by GNU's middle-snake search (`compareseq`), and
/// runs of changes are slid by `shift_boundaries`.
fn changed_flags<'a>(a: &[&'a [u8]], b: &[&'a [u8]]) -> (Vec<bool>, Vec<bool>) {
    let mut c0 = vec![false; a.len()];
    let mut c1 = vec![false; b.len()];
    let full_prefix = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
    let pre = full_prefix.saturating_sub(HORIZON);
    let no_eol = |v: &[&[u8]]| v.last().is_some_and(|l| l.last() != Some(&b'\n'));
    let full_suffix = if no_eol(a) == no_eol(b) {
        a.iter()
            .rev()
            .zip(b.iter().rev())
            .take(a.len().min(b.len()) - pre)
            .take_while(|(x, y)| x == y)
            .count()
    } else {
        0
    };
    let suf = full_suffix.saturating_sub(HORIZON);
    let ma = a.get(pre..a.len() - suf).unwrap_or_default();
    let mb = b.get(pre..b.len() - suf).unwrap_or_default();
    // Equivalence classes, numbered from 1 in order of appearance (file 0 first).
    let mut ids: HashMap<&[u8], usize, crate::fasthash::FastState> =
        HashMap::with_capacity_and_hasher(ma.len() + mb.len(), Default::default());
    let mut class_ids = |lines: &[&'a [u8]]| -> Vec<usize> {
        lines
            .iter()
            .map(|l| {
                let n = ids.len() + 1;
                *ids.entry(*l).or_insert(n)
            })
            .collect()
    };
    let eq0 = class_ids(ma);
    let eq1 = class_ids(mb);
    let classes = ids.len() + 1;
    let mut f0 = Flags::new(&vec![false; eq0.len()]);
    let mut f1 = Flags::new(&vec![false; eq1.len()]);
    let (d0, d1) = discard_confusing_lines(&eq0, &eq1, classes);
    let (mut x, mut real0) = (Vec::new(), Vec::new());
    for (i, (&e, &d)) in eq0.iter().zip(d0.iter()).enumerate() {
        if d == 0 {
            x.push(e);
            real0.push(i);
        } else {
            f0.set(i as isize, true);
        }
    }
    let (mut y, mut real1) = (Vec::new(), Vec::new());
    for (i, (&e, &d)) in eq1.iter().zip(d1.iter()).enumerate() {
        if d == 0 {
            y.push(e);
            real1.push(i);
        } else {
            f1.set(i as isize, true);
        }
    }
    let (del, ins) = compareseq(&x, &y);
    for k in del {
        if let Some(&r) = real0.get(k) {
            f0.set(r as isize, true);
        }
    }
    for k in ins {
        if let Some(&r) = real1.get(k) {
            f1.set(r as isize, true);
        }
    }
    shift_boundaries(&mut f0, &f1, &eq0);
    shift_boundaries(&mut f1, &f0, &eq1);
    for (k, slot) in c0.iter_mut().skip(pre).take(eq0.len()).enumerate() {
        *slot = f0.get(k as isize);
    }
    for (k, slot) in c1.iter_mut().skip(pre).take(eq1.len()).enumerate() {
        *slot = f1.get(k as isize);
    }
    (c0, c1)
}

/// GNU diff's `discard_confusing_lines`: 1 = a line with no match in the other file (discarded), 2 = a
/// line with many matches (discarded only inside a run of discards), 0 = kept.
fn discard_confusing_lines(eq0: &[usize], eq1: &[usize], classes: usize) -> (Vec<u8>, Vec<u8>) {
    let mut count0 = vec![0usize; classes];
    let mut count1 = vec![0usize; classes];
    for &e in eq0 {
        if let Some(c) = count0.get_mut(e) {
            *c += 1;
        }
    }
    for &e in eq1 {
        if let Some(c) = count1.get_mut(e) {
            *c += 1;
        }
    }
    let mark = |eqs: &[usize], other: &[usize]| -> Vec<u8> {
        let mut many = 5usize;
        let mut tem = eqs.len() / 64;
        loop {
            tem >>= 2;
            if tem == 0 {
                break;
            }
            many *= 2;
        }
        eqs.iter()
            .map(|&e| match other.get(e).copied().unwrap_or(0) {
                0 => 1,
                n if n > many => 2,
                _ => 0,
            })
            .collect()
    };
    let mut d0 = mark(eq0, &count1);
    let mut d1 = mark(eq1, &count0);
    settle_provisional(&mut d0);
    settle_provisional(&mut d1);
    (d0, d1)
}

/// Keep provisional discards (2) only inside runs of discards that begin and end with a definite one,
/// and not in long subruns or near the ends of the run (GNU's rules, verbatim in effect).
fn settle_provisional(d: &mut [u8]) {
    let end = d.len() as isize;
    let get = |d: &[u8], i: isize| {
        usize::try_from(i)
            .ok()
            .and_then(|i| d.get(i))
            .copied()
            .unwrap_or(0)
    };
    let set = |d: &mut [u8], i: isize, v: u8| {
        if let Some(slot) = usize::try_from(i).ok().and_then(|i| d.get_mut(i)) {
            *slot = v;
        }
    };
    let mut i: isize = 0;
    while i < end {
        if get(d, i) == 2 {
            set(d, i, 0);
        } else if get(d, i) != 0 {
            let mut provisional = 0isize;
            let mut j = i;
            while j < end {
                if get(d, j) == 0 {
                    break;
                }
                if get(d, j) == 2 {
                    provisional += 1;
                }
                j += 1;
            }
            while j > i && get(d, j - 1) == 2 {
                j -= 1;
                set(d, j, 0);
                provisional -= 1;
            }
            let length = j - i;
            if (length >> 2) < provisional {
                while j > i {
                    j -= 1;
                    if get(d, j) == 2 {
                        set(d, j, 0);
                    }
                }
            } else {
                let mut minimum: isize = 1;
                let mut tem = length >> 2;
                loop {
                    tem >>= 2;
                    if tem <= 0 {
                        break;
                    }
                    minimum <<= 1;
                }
                minimum += 1;
                let mut consec: isize = 0;
                let mut j: isize = 0;
                while j < length {
                    if get(d, i + j) != 2 {
                        consec = 0;
                    } else {
                        consec += 1;
                        if minimum == consec {
                            j -= consec;
                        } else if minimum < consec {
                            set(d, i + j, 0);
                        }
                    }
                    j += 1;
                }
                let mut consec = 0;
                let mut j: isize = 0;
                while j < length {
                    if j >= 8 && get(d, i + j) == 1 {
                        break;
                    }
                    match get(d, i + j) {
                        2 => {
                            consec = 0;
                            set(d, i + j, 0);
                        }
                        0 => consec = 0,
                        _ => consec += 1,
                    }
                    if consec == 3 {
                        break;
                    }
                    j += 1;
                }
                i += length - 1;
                let mut consec = 0;
                let mut j: isize = 0;
                while j < length {
                    if j >= 8 && get(d, i - j) == 1 {
                        break;
                    }
                    match get(d, i - j) {
                        2 => {
                            consec = 0;
                            set(d, i - j, 0);
                        }
                        0 => consec = 0,
                        _ => consec += 1,
                    }
                    if consec == 3 {
                        break;
                    }
                    j += 1;
                }
            }
        }
        i += 1;
    }
}

/// GNU's `compareseq` over two sequences of class ids: the indexes deleted from `x` and inserted from
/// `y`. Each range is split at the middle snake found by [`middle_snake`] (an explicit stack instead of
/// recursion).
fn compareseq(x: &[usize], y: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let (mut del, mut ins) = (Vec::new(), Vec::new());
    let xn = x.len() as isize;
    let yn = y.len() as isize;
    let at = |v: &[usize], i: isize| usize::try_from(i).ok().and_then(|i| v.get(i)).copied();
    let same = |i: isize, j: isize| matches!((at(x, i), at(y, j)), (Some(p), Some(q)) if p == q);
    // Diagonals run from -(yn + 1) to xn + 1.
    let mut snake = Snake {
        fd: vec![0; (xn + yn + 3) as usize],
        bd: vec![0; (xn + yn + 3) as usize],
        off: yn + 1,
        too_expensive: too_expensive(xn + yn + 3),
    };
    let mut stack = vec![(0isize, xn, 0isize, yn, false)];
    while let Some((mut xoff, mut xlim, mut yoff, mut ylim, find_minimal)) = stack.pop() {
        while xoff < xlim && yoff < ylim && same(xoff, yoff) {
            xoff += 1;
            yoff += 1;
        }
        while xoff < xlim && yoff < ylim && same(xlim - 1, ylim - 1) {
            xlim -= 1;
            ylim -= 1;
        }
        if xoff == xlim {
            ins.extend((yoff..ylim).filter_map(|k| usize::try_from(k).ok()));
        } else if yoff == ylim {
            del.extend((xoff..xlim).filter_map(|k| usize::try_from(k).ok()));
        } else {
            let part = snake.middle(&same, xoff, xlim, yoff, ylim, find_minimal);
            // Guard against a split that does not shrink the problem (cannot happen for consistent
            // input): fall back to delete-all/insert-all.
            let corner =
                (part.xmid, part.ymid) == (xoff, yoff) || (part.xmid, part.ymid) == (xlim, ylim);
            if corner
                || part.xmid < xoff
                || part.xmid > xlim
                || part.ymid < yoff
                || part.ymid > ylim
            {
                del.extend((xoff..xlim).filter_map(|k| usize::try_from(k).ok()));
                ins.extend((yoff..ylim).filter_map(|k| usize::try_from(k).ok()));
                continue;
            }
            stack.push((part.xmid, xlim, part.ymid, ylim, part.hi_minimal));
            stack.push((xoff, part.xmid, yoff, part.ymid, part.lo_minimal));
        }
    }
    (del, ins)
}

/// GNU's cost limit: about the square root of the input size, at least 4096.
fn too_expensive(diags: isize) -> isize {
    let mut t: isize = 1;
    let mut d = diags;
    while d != 0 {
        d >>= 2;
        t <<= 1;
    }
    t.max(4096)
}

struct Partition {
    xmid: isize,
    ymid: isize,
    lo_minimal: bool,
    hi_minimal: bool,
}

/// The diagonal vectors of the middle-snake search.
struct Snake {
    fd: Vec<isize>,
    bd: Vec<isize>,
    off: isize,
    too_expensive: isize,
}

impl Snake {
    fn fget(&self, d: isize) -> isize {
        usize::try_from(d + self.off)
            .ok()
            .and_then(|i| self.fd.get(i))
            .copied()
            .unwrap_or(-1)
    }
    fn bget(&self, d: isize) -> isize {
        usize::try_from(d + self.off)
            .ok()
            .and_then(|i| self.bd.get(i))
            .copied()
            .unwrap_or(isize::MAX)
    }
    fn fset(&mut self, d: isize, v: isize) {
        if let Some(s) = usize::try_from(d + self.off)
            .ok()
            .and_then(|i| self.fd.get_mut(i))
        {
            *s = v;
        }
    }
    fn bset(&mut self, d: isize, v: isize) {
        if let Some(s) = usize::try_from(d + self.off)
            .ok()
            .and_then(|i| self.bd.get_mut(i))
        {
            *s = v;
        }
    }

    /// GNU's `diag`: extend a forward search from (xoff, yoff) and a backward search from (xlim, ylim)
    /// one edit at a time (forward first; diagonals from the highest down) until they overlap; the
    /// overlap point splits the problem. Past `too_expensive` edits, split at the furthest-reaching
    /// diagonal instead.
    fn middle(
        &mut self,
        same: &dyn Fn(isize, isize) -> bool,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        find_minimal: bool,
    ) -> Partition {
        let dmin = xoff - ylim;
        let dmax = xlim - yoff;
        let fmid = xoff - yoff;
        let bmid = xlim - ylim;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let odd = (fmid - bmid) & 1 != 0;
        self.fset(fmid, xoff);
        self.bset(bmid, xlim);
        let mut c: isize = 1;
        loop {
            if fmin > dmin {
                fmin -= 1;
                self.fset(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.fset(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let tlo = self.fget(d - 1);
                let thi = self.fget(d + 1);
                let x0 = if tlo < thi { thi } else { tlo + 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while x < xlim && y < ylim && same(x, y) {
                    x += 1;
                    y += 1;
                }
                self.fset(d, x);
                if odd && bmin <= d && d <= bmax && self.bget(d) <= x {
                    return Partition {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if bmin > dmin {
                bmin -= 1;
                self.bset(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.bset(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let tlo = self.bget(d - 1);
                let thi = self.bget(d + 1);
                let x0 = if tlo < thi { tlo } else { thi - 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while xoff < x && yoff < y && same(x - 1, y - 1) {
                    x -= 1;
                    y -= 1;
                }
                self.bset(d, x);
                if !odd && fmin <= d && d <= fmax && x <= self.fget(d) {
                    return Partition {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if !find_minimal && c >= self.too_expensive {
                return self.give_up(xoff, xlim, yoff, ylim, (fmin, fmax, bmin, bmax));
            }
            // A search can never need more edits than both sequences together.
            if c > (xlim - xoff) + (ylim - yoff) + 2 {
                return self.give_up(xoff, xlim, yoff, ylim, (fmin, fmax, bmin, bmax));
            }
            c += 1;
        }
    }

    /// The "too expensive" split: the better of the forward diagonal reaching furthest (max x + y) and
    /// the backward one reaching furthest (min x + y).
    fn give_up(
        &self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        (fmin, fmax, bmin, bmax): (isize, isize, isize, isize),
    ) -> Partition {
        let (mut fxybest, mut fxbest) = (-1isize, 0isize);
        let mut d = fmax;
        while d >= fmin {
            let mut x = self.fget(d).min(xlim);
            let mut y = x - d;
            if ylim < y {
                x = ylim + d;
                y = ylim;
            }
            if fxybest < x + y {
                fxybest = x + y;
                fxbest = x;
            }
            d -= 2;
        }
        let (mut bxybest, mut bxbest) = (isize::MAX, 0isize);
        let mut d = bmax;
        while d >= bmin {
            let mut x = self.bget(d).max(xoff);
            let mut y = x - d;
            if y < yoff {
                x = yoff + d;
                y = yoff;
            }
            if x + y < bxybest {
                bxybest = x + y;
                bxbest = x;
            }
            d -= 2;
        }
        if (xlim + ylim) - bxybest < fxybest - (xoff + yoff) {
            Partition {
                xmid: fxbest,
                ymid: fxybest - fxbest,
                lo_minimal: true,
                hi_minimal: false,
            }
        } else {
            Partition {
                xmid: bxbest,
                ymid: bxybest - bxbest,
                lo_minimal: false,
                hi_minimal: true,
            }
        }
    }
}

/// A change-flag array with GNU's sentinels: reading before the start or past the end gives `false`.
struct Flags {
    v: Vec<bool>,
}

impl Flags {
    fn new(v: &[bool]) -> Self {
        Flags { v: v.to_vec() }
    }
    fn len(&self) -> isize {
        self.v.len() as isize
    }
    fn get(&self, i: isize) -> bool {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.v.get(i))
            .copied()
            .unwrap_or(false)
    }
    fn set(&mut self, i: isize, val: bool) {
        if let Some(slot) = usize::try_from(i).ok().and_then(|i| self.v.get_mut(i)) {
            *slot = val;
        }
    }
}

/// GNU diff's `shift_boundaries` for one file: slide each run of changed lines over identical
/// neighbours — back while the line before equals the run's last line (merging with earlier runs), then
/// forward as far as possible (merging with later runs), repeated until the run stops growing; finally
/// back again to the last point where it lines up with a run of changes in the other file.
fn shift_boundaries(changed: &mut Flags, other: &Flags, equivs: &[usize]) {
    let eq = |x: isize, y: isize| {
        let get = |i: isize| usize::try_from(i).ok().and_then(|i| equivs.get(i));
        matches!((get(x), get(y)), (Some(p), Some(q)) if p == q)
    };
    let i_end = changed.len();
    let mut i: isize = 0;
    let mut j: isize = 0;
    // Reads past either end see GNU's sentinels (unchanged), so every inner loop stops at an array end.
    loop {
        while i < i_end && !changed.get(i) {
            while other.get(j) {
                j += 1;
            }
            j += 1;
            i += 1;
        }
        if i >= i_end {
            break;
        }
        let mut start = i;
        i += 1;
        while i < i_end && changed.get(i) {
            i += 1;
        }
        while other.get(j) {
            j += 1;
        }
        let mut corresponding;
        loop {
            let runlength = i - start;
            while start > 0 && eq(start - 1, i - 1) {
                start -= 1;
                changed.set(start, true);
                i -= 1;
                changed.set(i, false);
                while start > 0 && changed.get(start - 1) {
                    start -= 1;
                }
                j -= 1;
                while other.get(j) {
                    j -= 1;
                }
            }
            corresponding = if other.get(j - 1) { i } else { i_end };
            while i != i_end && eq(start, i) {
                changed.set(start, false);
                start += 1;
                changed.set(i, true);
                i += 1;
                while i < i_end && changed.get(i) {
                    i += 1;
                }
                j += 1;
                while other.get(j) {
                    j += 1;
                    corresponding = i;
                }
            }
            if runlength == i - start {
                break;
            }
        }
        while corresponding < i {
            start -= 1;
            changed.set(start, true);
            i -= 1;
            changed.set(i, false);
            j -= 1;
            while other.get(j) {
                j -= 1;
            }
        }
    }
}

/// The list of changes (GNU's edit script) from the two flag arrays.
fn build_script(c0: &[bool], c1: &[bool]) -> Vec<Change> {
    let mut out = Vec::new();
    let (mut i0, mut i1) = (0, 0);
    let at = |v: &[bool], i: usize| v.get(i).copied().unwrap_or(false);
    while i0 < c0.len() || i1 < c1.len() {
        if at(c0, i0) || at(c1, i1) {
            let (l0, l1) = (i0, i1);
            while at(c0, i0) {
                i0 += 1;
            }
            while at(c1, i1) {
                i1 += 1;
            }
            out.push(Change {
                line0: l0,
                line1: l1,
                deleted: i0 - l0,
                inserted: i1 - l1,
            });
        } else {
            i0 += 1;
            i1 += 1;
        }
    }
    out
}

/// `@@ -a,b +c,d @@` and the lines of one hunk.
fn print_hunk(out: &mut Vec<u8>, a: &[&[u8]], b: &[&[u8]], hunk: &[Change]) {
    let (Some(first), Some(last)) = (hunk.first(), hunk.last()) else {
        return;
    };
    let first0 = first.line0.saturating_sub(CONTEXT);
    let first1 = first.line1.saturating_sub(first.line0 - first0);
    let end0 = (last.line0 + last.deleted + CONTEXT).min(a.len());
    let end1 =
        (last.line1 + last.inserted + end0.saturating_sub(last.line0 + last.deleted)).min(b.len());
    out.extend_from_slice(
        format!(
            "@@ -{} +{} @@\n",
            hunk_range(first0, end0),
            hunk_range(first1, end1)
        )
        .as_bytes(),
    );
    let mut i = first0;
    for ch in hunk {
        while i < ch.line0 {
            print_line(out, b' ', a.get(i).copied().unwrap_or_default());
            i += 1;
        }
        for k in 0..ch.deleted {
            print_line(out, b'-', a.get(ch.line0 + k).copied().unwrap_or_default());
        }
        for k in 0..ch.inserted {
            print_line(out, b'+', b.get(ch.line1 + k).copied().unwrap_or_default());
        }
        i = ch.line0 + ch.deleted;
    }
    while i < end0 {
        print_line(out, b' ', a.get(i).copied().unwrap_or_default());
        i += 1;
    }
}

/// GNU's `print_unidiff_number_range` for lines `[lo, hi)` (0-based).
fn hunk_range(lo: usize, hi: usize) -> String {
    match hi.saturating_sub(lo) {
        0 => format!("{lo},0"),
        1 => format!("{}", lo + 1),
        n => format!("{},{}", lo + 1, n),
    }
}

fn print_line(out: &mut Vec<u8>, flag: u8, line: &[u8]) {
    out.push(flag);
    out.extend_from_slice(line);
    if line.last() != Some(&b'\n') {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

// ---------------------------------------------------------------------------------------------------
// Packages.

/// The agent's `GetPkgOperationMsg` (`puts` adds the second newline: a blank line follows each).
fn package_msg(name: &str, arch: &str, ver: &str, op: &str) -> String {
    match (arch.is_empty(), ver.is_empty()) {
        (false, false) => format!("Package '{name}-{arch} [{ver}]' would be {op}\n"),
        (false, true) => format!("Package '{name}-{arch}' would be {op}\n"),
        (true, false) => format!("Package '{name} [{ver}]' would be {op}\n"),
        (true, true) => format!("Package '{name}' would be {op}\n"),
    }
}

/// `PkgVersionIsGreater`: `latest` beats everything, else byte order.
fn version_greater(v1: &str, v2: &str) -> bool {
    v1 == "latest" || v1.as_bytes() > v2.as_bytes()
}

fn pkg_key(p: &PackageChange) -> String {
    format!("{}-_-{}", p.name, p.arch)
}

/// `--simulate=diff`'s package section (`DiffPkgOperations`).
fn diff_packages(out: &mut Out, ops: &[PackageChange]) {
    if ops.is_empty() {
        out.info("No package operations done by the agent run");
        return;
    }
    let mut installed = CfMap::new();
    let mut removed = CfMap::new();
    for p in ops {
        let key = pkg_key(p);
        match p.op {
            PackageOp::Present => removed.remove(Some(&key)),
            PackageOp::Absent => {
                let cancels =
                    p.version.is_empty() || installed.get(&key).is_some_and(|r| r.ver == p.version);
                if cancels {
                    installed.remove(Some(&key));
                }
            }
            PackageOp::Install => {
                let newer = installed
                    .get(&key)
                    .is_none_or(|prev| version_greater(&p.version, &prev.ver));
                if newer {
                    let msg = package_msg(&p.name, &p.arch, &p.version, "installed");
                    installed.insert(
                        key,
                        PkgRecord {
                            msg,
                            ver: p.version.clone(),
                        },
                    );
                    // The agent has handed the key to the map and removes NULL: no-op.
                    removed.remove(None);
                } else {
                    removed.remove(Some(&key));
                }
            }
            PackageOp::Remove => {
                let mut insert = removed.get(&key).is_none_or(|prev| prev.ver.is_empty());
                // No version, or the installed one: the removal cancels the install; another version:
                // the install stays and the removal would fail.
                if p.version.is_empty() || installed.get(&key).is_some_and(|r| r.ver == p.version) {
                    installed.remove(Some(&key));
                } else {
                    insert = false;
                }
                if insert {
                    let msg = package_msg(&p.name, &p.arch, &p.version, "removed");
                    removed.insert(
                        key,
                        PkgRecord {
                            msg,
                            ver: p.version.clone(),
                        },
                    );
                }
            }
        }
    }
    if installed.is_empty() && removed.is_empty() {
        out.info("No differences in installed packages to report");
        return;
    }
    out.info("Showing differences in installed packages");
    for rec in installed.iter().chain(removed.iter()) {
        out.str(&rec.msg);
        out.str("\n");
    }
}

/// `--simulate=manifest[-full]`'s package section (`ManifestPkgOperations`).
fn manifest_packages(out: &mut Out, ops: &[PackageChange]) {
    if ops.is_empty() {
        out.info("No package operations done by the agent run");
        return;
    }
    let mut present = CfMap::new();
    let mut absent = CfMap::new();
    for p in ops {
        let key = pkg_key(p);
        match p.op {
            PackageOp::Install | PackageOp::Present => {
                let better = match present.get(&key) {
                    None => true,
                    Some(prev) => {
                        (prev.ver.is_empty() && !p.version.is_empty())
                            || (!p.version.is_empty()
                                && !prev.ver.is_empty()
                                && version_greater(&p.version, &prev.ver))
                    }
                };
                if better {
                    let msg = package_msg(&p.name, &p.arch, &p.version, "present");
                    present.insert(
                        key,
                        PkgRecord {
                            msg,
                            ver: p.version.clone(),
                        },
                    );
                    // The key now belongs to the map; the agent removes NULL from `absent` (a no-op, so a
                    // later `present` does not cancel an earlier `absent`: verified).
                    absent.remove(None);
                } else {
                    absent.remove(Some(&key));
                }
            }
            PackageOp::Remove | PackageOp::Absent => {
                let removable = present
                    .get(&key)
                    .is_none_or(|r| r.ver.is_empty() || p.version.is_empty() || r.ver == p.version);
                if removable {
                    present.remove(Some(&key));
                    let replace = absent
                        .get(&key)
                        .is_none_or(|prev| !prev.ver.is_empty() && p.version.is_empty());
                    if replace {
                        let msg = package_msg(&p.name, &p.arch, &p.version, "absent");
                        absent.insert(
                            key,
                            PkgRecord {
                                msg,
                                ver: p.version.clone(),
                            },
                        );
                    }
                }
            }
        }
    }
    out.info("Manifesting present and absent packages");
    for rec in present.iter().chain(absent.iter()) {
        out.str(&rec.msg);
        out.str("\n");
    }
}

#[derive(Debug, Clone)]
struct PkgRecord {
    msg: String,
    ver: String,
}

/// libntech's `Map` of package records by key ([`LibMap`], for its iteration order); replacing a
/// record keeps its place.
struct CfMap(LibMap<(String, PkgRecord)>);

impl CfMap {
    fn new() -> Self {
        CfMap(LibMap::default())
    }
    fn get(&self, key: &str) -> Option<&PkgRecord> {
        self.0
            .get(string_hash(key, 0), |(k, _)| k == key)
            .map(|(_, v)| v)
    }
    fn insert(&mut self, key: String, value: PkgRecord) {
        let h = string_hash(&key, 0);
        match self.0.get_mut(h, |(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.insert(h, (key, value)),
        }
    }
    /// `None` is the agent's `MapRemove(map, NULL)`: nothing happens.
    fn remove(&mut self, key: Option<&str>) {
        if let Some(key) = key {
            self.0.remove(string_hash(key, 0), |(k, _)| k == key);
        }
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn iter(&self) -> impl Iterator<Item = &PkgRecord> {
        self.0.iter().map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::process::Command;

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
    }

    fn scratch_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cfsim-simreport-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let _ = std::fs::create_dir_all(&d);
        d
    }

    fn diff_available() -> bool {
        Command::new("diff").arg("--version").output().is_ok()
    }

    /// The real `diff -u` output, or `None` when diff cannot be run.
    fn gnu_diff(
        dir: &std::path::Path,
        old: &[u8],
        new: &[u8],
        l0: &str,
        l1: &str,
    ) -> Option<Vec<u8>> {
        let a = dir.join("a");
        let b = dir.join("b");
        std::fs::write(&a, old).ok()?;
        std::fs::write(&b, new).ok()?;
        let out = Command::new("diff")
            .env("LC_ALL", "C")
            .args(["-u", "--label", l0, "--label", l1])
            .arg(&a)
            .arg(&b)
            .output()
            .ok()?;
        Some(out.stdout)
    }

    fn random_text(rng: &mut Rng, alphabet: &[&str], max_lines: u64) -> Vec<u8> {
        let n = rng.below(max_lines + 1);
        let mut v = Vec::new();
        for _ in 0..n {
            let w = alphabet
                .get(rng.below(alphabet.len() as u64) as usize)
                .copied()
                .unwrap_or("x");
            v.extend_from_slice(w.as_bytes());
            v.push(b'\n');
        }
        if !v.is_empty() && rng.below(5) == 0 {
            v.pop();
        }
        v
    }

    /// Mutate `base` a little (so that pairs share most lines, as real edits do).
    fn mutate(rng: &mut Rng, base: &[u8], alphabet: &[&str]) -> Vec<u8> {
        let mut lines: Vec<Vec<u8>> = split_lines(base).iter().map(|l| l.to_vec()).collect();
        for _ in 0..=rng.below(4) {
            let pos = rng.below(lines.len() as u64 + 1) as usize;
            let w = alphabet
                .get(rng.below(alphabet.len() as u64) as usize)
                .copied()
                .unwrap_or("x");
            match rng.below(3) {
                0 if pos < lines.len() => {
                    lines.remove(pos);
                }
                1 if pos < lines.len() => {
                    if let Some(l) = lines.get_mut(pos) {
                        *l = format!("{w}\n").into_bytes();
                    }
                }
                _ => lines.insert(pos.min(lines.len()), format!("{w}\n").into_bytes()),
            }
        }
        let mut v: Vec<u8> = lines.concat();
        // Keep or flip the final newline now and then.
        if !v.is_empty() && rng.below(6) == 0 {
            if v.last() == Some(&b'\n') {
                v.pop();
            } else {
                v.push(b'\n');
            }
        }
        v
    }

    // ---------------------------------------------------------------------------------------------
    // Recorded output of the real agent. Policies (run as root from their directory, `cf-promises -c`
    // first, then `cf-agent -K -I --simulate=MODE -f ./x.cf`; the tree under /srv/cfsim-simreport/t was
    // rebuilt before each run):
    //
    // x.cf: newdir/. create; del.txt delete; old.txt rename to renamed.txt; nonl.txt content "no newline
    //   here"; empty.txt create; bin.dat perms 600; lnk link_from symlink to t/target; rlnk link_from
    //   relative to t/target; order.txt edit_line (delete "remove.*", insert "added line"); fifo perms
    //   640 (diff run only); sock perms 4750; suid perms 7644; olddir perms 701 (olddir holds sub/ and a).
    // y.cf: d perms 750; d/new create; d/gone delete; d/edit.txt insert "appended"; d/newsub/. create;
    //   tofile delete then tofile/. create; f2d depth_search delete (x inside); tolink and oldlink
    //   link_from with move_obstructions; bin.dat, nul.dat, big.dat, big2.dat perms 600.
    // p.cf: a fake package_module listing bash 5.2, curl 7.88, vim 9.0 (amd64) installed and vim 9.1 as an
    //   update; promises nginx present, bash absent, vim present latest, curl present, foo absent.
    // p2.cf: nginx present 1.2 then 1.4; zsh present 1.2 then 1.3 (amd64); bash absent then present.

    // recorded: cf-agent 3.21.0 --simulate, policy x.cf (below), --simulate=diff -I; times and PID normalised.
    const REC_X_DIFF: &str = r#"    info: Manifesting renamed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/renamed.txt' is the new name of '/srv/cfsim-simreport/t/old.txt'
    info: Showing diff for changed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/newdir' is a directory
Size: 4096
Access: (0700/rwx------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Directory contents:
===========================================================================
'/srv/cfsim-simreport/t/del.txt' no longer exists
===========================================================================
'/srv/cfsim-simreport/t/nonl.txt' is a regular file
Size: 15
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
no newline here
\no newline at the end of file
===========================================================================
'/srv/cfsim-simreport/t/empty.txt' is a regular file
Size: 0
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
===========================================================================
===========================================================================
'/srv/cfsim-simreport/t/lnk' is a symbolic link
Size: 67
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/srv/cfsim-simreport/t/target'
===========================================================================
'/srv/cfsim-simreport/t/rlnk' is a symbolic link
Size: 47
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/./target'
===========================================================================
--- original /srv/cfsim-simreport/t/order.txt
+++ changed  /srv/cfsim-simreport/t/order.txt
@@ -1,5 +1,5 @@
 keep1
-remove me
 foo=baz
 x:old:z
 keep2
+added line
===========================================================================
'/srv/cfsim-simreport/t/fifo' changed type from FIFO/pipe to regular file
Size: 0
Access: (0640/rw-r-----)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
===========================================================================
===========================================================================
Common subdirectories: /srv/cfsim-simreport/t/olddir/sub and /var/lib/cfengine3/state/12345.changes/srv/cfsim-simreport/t/olddir/sub
    info: No package operations done by the agent run
"#;

    // recorded: cf-agent 3.21.0 --simulate, policy x.cf, --simulate=manifest -I; times and PID normalised.
    const REC_X_MANIFEST: &str = r#"    info: Manifesting renamed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/renamed.txt' is the new name of '/srv/cfsim-simreport/t/old.txt'
    info: Manifesting changed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/newdir' is a directory
Size: 4096
Access: (0700/rwx------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Directory contents:
===========================================================================
'/srv/cfsim-simreport/t/del.txt' no longer exists
===========================================================================
'/srv/cfsim-simreport/t/nonl.txt' is a regular file
Size: 15
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
no newline here
\no newline at the end of file
===========================================================================
'/srv/cfsim-simreport/t/empty.txt' is a regular file
Size: 0
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
===========================================================================
'/srv/cfsim-simreport/t/bin.dat' is a regular file
Size: 15
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
bin\x00ary\xff
===========================================================================
'/srv/cfsim-simreport/t/lnk' is a symbolic link
Size: 67
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/srv/cfsim-simreport/t/target'
===========================================================================
'/srv/cfsim-simreport/t/rlnk' is a symbolic link
Size: 47
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/./target'
===========================================================================
'/srv/cfsim-simreport/t/order.txt' is a regular file
Size: 39
Access: (0644/rw-r--r--)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
keep1
foo=baz
x:old:z
keep2
added line
===========================================================================
'/srv/cfsim-simreport/t/suid' is a regular file
Size: 5
Access: (7644/rwSr-Sr-T)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
suid
===========================================================================
'/srv/cfsim-simreport/t/olddir' is a directory
Size: 4096
Access: (0701/rwx-----x)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Directory contents:
sub
a
    info: No package operations done by the agent run
"#;

    // recorded: cf-agent 3.21.0 --simulate, policy x.cf, --simulate=manifest-full -I; times and PID normalised.
    const REC_X_MANIFEST_FULL: &str = r#"    info: Manifesting renamed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/renamed.txt' is the new name of '/srv/cfsim-simreport/t/old.txt'
    info: Manifesting changed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/newdir' is a directory
Size: 4096
Access: (0700/rwx------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Directory contents:
===========================================================================
'/srv/cfsim-simreport/t/del.txt' no longer exists
===========================================================================
'/srv/cfsim-simreport/t/nonl.txt' is a regular file
Size: 15
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
no newline here
\no newline at the end of file
===========================================================================
'/srv/cfsim-simreport/t/empty.txt' is a regular file
Size: 0
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
===========================================================================
'/srv/cfsim-simreport/t/bin.dat' is a regular file
Size: 15
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
bin\x00ary\xff
===========================================================================
'/srv/cfsim-simreport/t/lnk' is a symbolic link
Size: 67
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/srv/cfsim-simreport/t/target'
===========================================================================
'/srv/cfsim-simreport/t/rlnk' is a symbolic link
Size: 47
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/./target'
===========================================================================
'/srv/cfsim-simreport/t/order.txt' is a regular file
Size: 39
Access: (0644/rw-r--r--)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
keep1
foo=baz
x:old:z
keep2
added line
===========================================================================
'/srv/cfsim-simreport/t/suid' is a regular file
Size: 5
Access: (7644/rwSr-Sr-T)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
suid
===========================================================================
'/srv/cfsim-simreport/t/olddir' is a directory
Size: 4096
Access: (0701/rwx-----x)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Directory contents:
sub
a
    info: Manifesting unmodified files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/sock' no longer exists
    info: No package operations done by the agent run
"#;

    // recorded: cf-agent 3.21.0 --simulate, policy y.cf (below), --simulate=diff -I; times and PID normalised.
    const REC_Y_DIFF: &str = r#"    info: Showing diff for changed files (in the changes chroot)
===========================================================================
Common subdirectories: /srv/cfsim-simreport/t/d/Asub and /var/lib/cfengine3/state/12345.changes/srv/cfsim-simreport/t/d/Asub
diff -u --label 'original /srv/cfsim-simreport/t/d' --label 'changed  /srv/cfsim-simreport/t/d' "original /srv/cfsim-simreport/t/d" "changed  /srv/cfsim-simreport/t/d"
--- original /srv/cfsim-simreport/t/d
+++ changed  /srv/cfsim-simreport/t/d
@@ -1 +1,2 @@
 edit
+appended
Only in /var/lib/cfengine3/state/12345.changes/srv/cfsim-simreport/t/d: edit.txt.cf-before-edit
Only in /srv/cfsim-simreport/t/d: gone
Only in /var/lib/cfengine3/state/12345.changes/srv/cfsim-simreport/t/d: new
Only in /var/lib/cfengine3/state/12345.changes/srv/cfsim-simreport/t/d: newsub
Common subdirectories: /srv/cfsim-simreport/t/d/sub and /var/lib/cfengine3/state/12345.changes/srv/cfsim-simreport/t/d/sub
Common subdirectories: /srv/cfsim-simreport/t/d/zsub and /var/lib/cfengine3/state/12345.changes/srv/cfsim-simreport/t/d/zsub
===========================================================================
'/srv/cfsim-simreport/t/d/new' is a regular file
Size: 0
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
===========================================================================
'/srv/cfsim-simreport/t/d/gone' no longer exists
===========================================================================
--- original /srv/cfsim-simreport/t/d/edit.txt
+++ changed  /srv/cfsim-simreport/t/d/edit.txt
@@ -1 +1,2 @@
 edit
+appended
===========================================================================
'/srv/cfsim-simreport/t/d/newsub' is a directory
Size: 4096
Access: (0700/rwx------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Directory contents:
===========================================================================
'/srv/cfsim-simreport/t/tofile' changed type from regular file to directory
Size: 4096
Access: (0700/rwx------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

   error: Failed to open the directory: Not a directory
===========================================================================
'/srv/cfsim-simreport/t/f2d/x' no longer exists
===========================================================================
Only in /srv/cfsim-simreport/t/f2d: x
===========================================================================
'/srv/cfsim-simreport/t/tolink' changed type from regular file to symbolic link
Size: 67
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Invalid target
===========================================================================
'/srv/cfsim-simreport/t/oldlink' is a symbolic link
Size: 68
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: ''
===========================================================================
===========================================================================
===========================================================================
===========================================================================
    info: No package operations done by the agent run
"#;

    // recorded: cf-agent 3.21.0 --simulate, policy p.cf (below), --simulate=diff -I; times and PID normalised.
    const REC_P_DIFF: &str = r#"    info: No changed files to show diff for
    info: Showing differences in installed packages
Package 'nginx' would be installed

Package 'vim-amd64 [9.1]' would be installed

Package 'bash' would be removed

"#;

    // recorded: cf-agent 3.21.0 --simulate, policy p.cf, --simulate=manifest -I; times and PID normalised.
    const REC_P_MANIFEST: &str = r#"    info: No changed files to manifest
    info: Manifesting present and absent packages
Package 'nginx' would be present

Package 'vim-amd64 [9.1]' would be present

Package 'curl' would be present

Package 'bash' would be absent

Package 'foo' would be absent

"#;

    // recorded: cf-agent 3.21.0 --simulate, policy p.cf, --simulate=manifest-full -I; times and PID normalised.
    const REC_P_MANIFEST_FULL: &str = r#"    info: No changed files to manifest
    info: No unmodified files to manifest
    info: Manifesting present and absent packages
Package 'nginx' would be present

Package 'vim-amd64 [9.1]' would be present

Package 'curl' would be present

Package 'bash' would be absent

Package 'foo' would be absent

"#;

    // recorded: cf-agent 3.21.0 --simulate, policy p2.cf (below), --simulate=diff -I; times and PID normalised.
    const REC_P2_DIFF: &str = r#"    info: No changed files to show diff for
    info: Showing differences in installed packages
Package 'nginx [1.4]' would be installed

Package 'zsh-amd64 [1.3]' would be installed

"#;

    // recorded: cf-agent 3.21.0 --simulate, policy p2.cf, --simulate=manifest -I; times and PID normalised.
    const REC_P2_MANIFEST: &str = r#"    info: No changed files to manifest
    info: Manifesting present and absent packages
Package 'nginx [1.4]' would be present

Package 'zsh-amd64 [1.3]' would be present

Package 'bash' would be present

Package 'bash' would be absent

"#;

    const CHROOT: &str = "/var/lib/cfengine3/state/12345.changes";
    /// 2026-11-26 09:46:15 UTC, the normalised time of the recordings.
    const T: i64 = 1_795_686_375;
    const D: &str = "/srv/cfsim-simreport/t";

    fn p(name: &str) -> String {
        format!("{D}/{name}")
    }

    fn base(kind: Kind, mode: u32) -> Entry {
        Entry {
            kind,
            mode,
            uid: 0,
            gid: 0,
            user: "root".into(),
            group: "root".into(),
            size: 0,
            content: None,
            target: None,
            children: Vec::new(),
            atime: T,
            mtime: T,
            ctime: T,
        }
    }

    fn file(mode: u32, content: &[u8]) -> Option<Entry> {
        Some(Entry {
            content: Some(content.to_vec().into()),
            ..base(Kind::File, mode)
        })
    }

    fn dir(mode: u32, children: &[(&str, Kind)]) -> Option<Entry> {
        Some(Entry {
            size: 4096,
            children: children.iter().map(|(n, k)| (n.to_string(), *k)).collect(),
            ..base(Kind::Dir, mode)
        })
    }

    fn link(target: &str) -> Option<Entry> {
        Some(Entry {
            target: Some(target.into()),
            ..base(Kind::Symlink, 0o777)
        })
    }

    fn report<'a>(
        mode: Mode,
        renames: &'a [(String, String)],
        changed: &'a [(String, Option<Entry>, Option<Entry>)],
        unmodified: &'a [(String, Option<Entry>)],
        packages: &'a [PackageChange],
    ) -> Report<'a> {
        Report {
            mode,
            chroot: CHROOT,
            renames,
            changed,
            unmodified,
            packages,
            info: true,
        }
    }

    fn x_renames() -> Vec<(String, String)> {
        vec![(p("renamed.txt"), p("old.txt"))]
    }

    /// The changes of x.cf (without the FIFO, which the agent's chroot turns into a regular file).
    fn x_changed(bin: &[u8]) -> Vec<(String, Option<Entry>, Option<Entry>)> {
        let dir_kids = [("sub", Kind::Dir), ("a", Kind::File)];
        vec![
            (p("newdir"), None, dir(0o700, &[])),
            (p("del.txt"), file(0o644, b"bye\n"), None),
            (p("nonl.txt"), None, file(0o600, b"no newline here")),
            (p("empty.txt"), None, file(0o600, b"")),
            (p("bin.dat"), file(0o644, bin), file(0o600, bin)),
            (p("lnk"), None, link(&p("target"))),
            (p("rlnk"), None, link("./target")),
            (
                p("order.txt"),
                file(0o644, b"keep1\nremove me\nfoo=baz\nx:old:z\nkeep2\n"),
                file(0o644, b"keep1\nfoo=baz\nx:old:z\nkeep2\nadded line\n"),
            ),
            (p("suid"), file(0o644, b"suid\n"), file(0o7644, b"suid\n")),
            (p("olddir"), dir(0o755, &dir_kids), dir(0o701, &dir_kids)),
        ]
    }

    fn assert_text(got: &str, want: &str) {
        if got != want {
            let diff = similar::TextDiff::from_lines(want, got)
                .unified_diff()
                .header("recorded", "rendered")
                .to_string();
            assert_eq!(got, want, "\n{diff}");
        }
    }

    /// Cut the block that starts with `marker` (a delimiter line and what follows up to the next one).
    fn without_block(text: &str, marker: &str) -> String {
        let delim = DELIMITER;
        let Some(at) = text.find(marker) else {
            return text.to_string();
        };
        let start = text[..at].rfind(delim).unwrap_or(at);
        let end = text[at..].find(delim).map_or(text.len(), |e| at + e);
        format!("{}{}", &text[..start], &text[end..])
    }

    #[test]
    fn recorded_diff_of_x() {
        // The agent copies the FIFO as a regular file ("changed type from FIFO/pipe to regular file",
        // then blocks reading it): an artefact of its chroot, left out here.
        let want = without_block(REC_X_DIFF, "'/srv/cfsim-simreport/t/fifo' changed type");
        let renames = x_renames();
        let changed = x_changed(b"bin\0ary\xff\n");
        let got = render(&report(Mode::Diff, &renames, &changed, &[], &[]));
        assert_text(&got, &want);
    }

    #[test]
    fn recorded_manifest_of_x() {
        // (This run's bin.dat held the 15 ASCII characters `bin\x00ary\xff` and a newline.)
        let renames = x_renames();
        let changed = x_changed(b"bin\\x00ary\\xff\n");
        let got = render(&report(Mode::Manifest, &renames, &changed, &[], &[]));
        assert_text(&got, REC_X_MANIFEST);
    }

    #[test]
    fn recorded_manifest_full_of_x() {
        // The agent could not mirror the socket, so it reports it as gone; given as absent here.
        let renames = x_renames();
        let changed = x_changed(b"bin\\x00ary\\xff\n");
        let unmodified = vec![(p("sock"), None), (p("suid"), file(0o7644, b"suid\n"))];
        let got = render(&report(
            Mode::ManifestFull,
            &renames,
            &changed,
            &unmodified,
            &[],
        ));
        assert_text(&got, REC_X_MANIFEST_FULL);
    }

    fn y_changed() -> Vec<(String, Option<Entry>, Option<Entry>)> {
        use Kind::{Dir as Dk, File as Fk};
        let d_before = [
            ("Asub", Dk),
            ("B", Fk),
            ("a", Fk),
            ("edit.txt", Fk),
            ("gone", Fk),
            ("sub", Dk),
            ("zsub", Dk),
        ];
        let d_after = [
            ("new", Fk),
            ("Asub", Dk),
            ("edit.txt.cf-before-edit", Fk),
            ("B", Fk),
            ("edit.txt", Fk),
            ("sub", Dk),
            ("a", Fk),
            ("newsub", Dk),
            ("zsub", Dk),
        ];
        let bin: &[u8] = b"bin\0ary\xff\n";
        let nul: &[u8] = b"nul\0only\n";
        vec![
            (p("d"), dir(0o755, &d_before), dir(0o750, &d_after)),
            (p("d/new"), None, file(0o600, b"")),
            (p("d/gone"), file(0o644, b"gone\n"), None),
            (
                p("d/edit.txt"),
                file(0o644, b"edit\n"),
                file(0o644, b"edit\nappended\n"),
            ),
            (p("d/newsub"), None, dir(0o700, &[])),
            (p("tofile"), file(0o644, b"f\n"), dir(0o700, &[])),
            (p("f2d/x"), file(0o644, b"f\n"), None),
            (p("f2d"), dir(0o755, &[("x", Fk)]), dir(0o755, &[])),
            (p("tolink"), file(0o644, b"l\n"), link(&p("target"))),
            (p("oldlink"), link(&p("target")), link(&p("target2"))),
            (p("bin.dat"), file(0o644, bin), file(0o600, bin)),
            (p("nul.dat"), file(0o644, nul), file(0o600, nul)),
            (
                p("big.dat"),
                file(0o644, &big_dat()),
                file(0o600, &big_dat()),
            ),
            (
                p("big2.dat"),
                file(0o644, &big2_dat()),
                file(0o600, &big2_dat()),
            ),
        ]
    }

    fn big_dat() -> Vec<u8> {
        let mut v = vec![b'a'; 4094];
        v.extend_from_slice(b"\nbline2\n\xc3\xa9t\xc3\xa9\n");
        v.extend_from_slice(&[b'c'; 5000]);
        v.push(b'\n');
        v
    }

    fn big2_dat() -> Vec<u8> {
        let mut v = vec![b'x'; 4000];
        v.push(b'\n');
        v.extend_from_slice(&[b'y'; 200]);
        v.push(b'\n');
        v.extend_from_slice(&[b'z'; 10]);
        v
    }

    #[test]
    fn recorded_diff_of_y() {
        // The agent reads a replaced symlink's target from the old link and cuts the chroot's length off
        // it (`Target: ''`); the report shows the new target.
        let want = REC_Y_DIFF.replace(
            "Size: 68\nAccess: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)\nAccess: 2026-11-26 09:46:15 +0000\nModify: 2026-11-26 09:46:15 +0000\nChange: 2026-11-26 09:46:15 +0000\n\nTarget: ''\n",
            "Size: 68\nAccess: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)\nAccess: 2026-11-26 09:46:15 +0000\nModify: 2026-11-26 09:46:15 +0000\nChange: 2026-11-26 09:46:15 +0000\n\nTarget: '/srv/cfsim-simreport/t/target2'\n",
        );
        assert_ne!(want, REC_Y_DIFF);
        let changed = y_changed();
        let got = render(&report(Mode::Diff, &[], &changed, &[], &[]));
        assert_text(&got, &want);
    }

    #[test]
    fn recorded_manifest_of_y() {
        // recorded: cf-agent 3.21.0 --simulate=manifest -I, policy y.cf; times and PID normalised; the
        // long lines of big.dat/big2.dat written with repeat().
        let stat = |size: u64, mode: &str| {
            format!(
                "Size: {size}\nAccess: ({mode})  Uid: (0/root)   Gid: (0/root)\nAccess: 2026-11-26 09:46:15 +0000\nModify: 2026-11-26 09:46:15 +0000\nChange: 2026-11-26 09:46:15 +0000\n\n"
            )
        };
        let dl = DELIMITER;
        let want = [
            "    info: Manifesting changed files (in the changes chroot)\n".to_string(),
            format!("{dl}'{D}/d' is a directory\n"),
            stat(4096, "0755/rwxr-xr-x"),
            "Directory contents:\nnew\nAsub\nedit.txt.cf-before-edit\nB\nedit.txt\nsub\na\nnewsub\nzsub\n".into(),
            format!("{dl}'{D}/d/new' is a regular file\n"),
            stat(0, "0600/rw-------"),
            "Contents of the file:\n".into(),
            format!("{dl}'{D}/d/gone' no longer exists\n"),
            format!("{dl}'{D}/d/edit.txt' is a regular file\n"),
            stat(14, "0644/rw-r--r--"),
            "Contents of the file:\nedit\nappended\n".into(),
            format!("{dl}'{D}/d/newsub' is a directory\n"),
            stat(4096, "0700/rwx------"),
            "Directory contents:\n".into(),
            format!("{dl}'{D}/tofile' is a directory\n"),
            stat(4096, "0700/rwx------"),
            "Directory contents:\n".into(),
            format!("{dl}'{D}/f2d/x' no longer exists\n"),
            format!("{dl}'{D}/f2d' is a directory\n"),
            stat(4096, "0755/rwxr-xr-x"),
            "Directory contents:\n".into(),
            format!("{dl}'{D}/tolink' is a symbolic link\n"),
            stat(67, "0777/rwxrwxrwx"),
            format!("Target: '{D}/target'\n"),
            format!("{dl}'{D}/oldlink' is a symbolic link\n"),
            stat(68, "0777/rwxrwxrwx"),
            format!("Target: '{D}/target2'\n"),
            format!("{dl}'{D}/bin.dat' is a regular file\n"),
            stat(9, "0600/rw-------"),
            "Contents of the file:\nFile contains non-ASCII data\n".into(),
            format!("{dl}'{D}/nul.dat' is a regular file\n"),
            stat(9, "0600/rw-------"),
            "Contents of the file:\nnul\0only\n".into(),
            format!("{dl}'{D}/big.dat' is a regular file\n"),
            stat(9109, "0600/rw-------"),
            format!("Contents of the file:\n{}\nbFile contains non-ASCII data\n", "a".repeat(4094)),
            format!("{dl}'{D}/big2.dat' is a regular file\n"),
            stat(4212, "0600/rw-------"),
            format!(
                "Contents of the file:\n{}\n{}\n{}\n\\no newline at the end of file\n",
                "x".repeat(4000),
                "y".repeat(200),
                "z".repeat(10)
            ),
            "    info: No package operations done by the agent run\n".into(),
        ]
        .concat();
        let mut changed = y_changed();
        // The agent reports d as 0755: a later promise's parent-directory mirroring copied the real
        // directory's mode over the simulated chmod (an artefact of its chroot); given as recorded.
        if let Some((_, _, Some(after))) = changed.first_mut() {
            after.mode = 0o755;
        }
        let got = render(&report(Mode::Manifest, &[], &changed, &[], &[]));
        assert_text(&got, &want);
    }

    #[test]
    fn recorded_manifest_full_of_mirrored_links() {
        // recorded: cf-agent 3.21.0 --simulate=manifest-full -I, policy z.cf (rl -> ./target and al ->
        // abs target kept by link_from, target perms 640 kept, never perms on a missing path); times and
        // PID normalised.
        let want = r#"    info: No changed files to manifest
    info: Manifesting unmodified files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/rl' is a symbolic link
Size: 8
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: './target'
===========================================================================
'/srv/cfsim-simreport/t/al' is a symbolic link
Size: 67
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/srv/cfsim-simreport/t/target'
===========================================================================
'/srv/cfsim-simreport/t/target' is a regular file
Size: 4
Access: (0640/rw-r-----)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
tgt
===========================================================================
'/srv/cfsim-simreport/t/never' no longer exists
    info: No package operations done by the agent run
"#;
        let unmodified = vec![
            (p("rl"), link("./target")),
            (p("al"), link(&p("target"))),
            (p("target"), file(0o640, b"tgt\n")),
            (p("never"), None),
        ];
        let got = render(&report(Mode::ManifestFull, &[], &[], &unmodified, &[]));
        assert_text(&got, want);
    }

    #[test]
    fn recorded_created_relative_link_and_unknown_owner() {
        // recorded: cf-agent 3.21.0 --simulate=manifest -I, policy w.cf (sub/rl2 link_from relative to
        // t/target: "Linked files '…/sub/rl2' -> './../target'"); times and PID normalised.
        let want_link = r#"    info: Manifesting changed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/sub/rl2' is a symbolic link
Size: 50
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/./../target'
    info: No package operations done by the agent run
"#;
        let changed = vec![(p("sub/rl2"), None, link("./../target"))];
        let got = render(&report(Mode::Manifest, &[], &changed, &[], &[]));
        assert_text(&got, want_link);

        // recorded: cf-agent 3.21.0 --simulate=manifest -I, policy u.cf (perms 600 on a file owned by
        // 12345:54321, neither in passwd/group; stdout a pipe); times and PID normalised.
        let want_owner = r#"    info: Manifesting changed files (in the changes chroot)
===========================================================================
'/srv/cfsim-simreport/t/f' is a regular file
Size: 2
Access: (0600/rw-------)     error: Could not get user name for uid 12345, (getpwuid: not found)
   error: Could not get group name for gid 54321, (getgrgid: not found)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
a
    info: No package operations done by the agent run
"#;
        let mut before = file(0o644, b"a\n");
        let mut after = file(0o600, b"a\n");
        for e in [&mut before, &mut after].into_iter().flatten() {
            e.uid = 12345;
            e.gid = 54321;
            e.user.clear();
            e.group.clear();
        }
        let changed = vec![(p("f"), before, after)];
        let got = render(&report(Mode::Manifest, &[], &changed, &[], &[]));
        assert_text(&got, want_owner);
    }

    #[test]
    fn recorded_diff_without_info() {
        // recorded: cf-agent 3.21.0 --simulate=diff (no -I), policy x.cf on a tree holding only target
        // (the edit and delete promises found nothing); times and PID normalised.
        let want = r#"===========================================================================
'/srv/cfsim-simreport/t/newdir' is a directory
Size: 4096
Access: (0700/rwx------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Directory contents:
===========================================================================
'/srv/cfsim-simreport/t/nonl.txt' is a regular file
Size: 15
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
no newline here
\no newline at the end of file
===========================================================================
'/srv/cfsim-simreport/t/empty.txt' is a regular file
Size: 0
Access: (0600/rw-------)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Contents of the file:
===========================================================================
'/srv/cfsim-simreport/t/lnk' is a symbolic link
Size: 67
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/srv/cfsim-simreport/t/target'
===========================================================================
'/srv/cfsim-simreport/t/rlnk' is a symbolic link
Size: 47
Access: (0777/rwxrwxrwx)  Uid: (0/root)   Gid: (0/root)
Access: 2026-11-26 09:46:15 +0000
Modify: 2026-11-26 09:46:15 +0000
Change: 2026-11-26 09:46:15 +0000

Target: '/./target'
"#;
        let changed = vec![
            (p("newdir"), None, dir(0o700, &[])),
            (p("nonl.txt"), None, file(0o600, b"no newline here")),
            (p("empty.txt"), None, file(0o600, b"")),
            (p("lnk"), None, link(&p("target"))),
            (p("rlnk"), None, link("./target")),
        ];
        let mut r = report(Mode::Diff, &[], &changed, &[], &[]);
        r.info = false;
        assert_text(&render(&r), want);
    }

    fn pkg(op: PackageOp, name: &str, version: &str, arch: &str) -> PackageChange {
        PackageChange {
            op,
            name: name.into(),
            version: version.into(),
            arch: arch.into(),
        }
    }

    #[test]
    fn recorded_package_sections() {
        use PackageOp::*;
        let p1 = [
            pkg(Install, "nginx", "", ""),
            pkg(Remove, "bash", "", ""),
            pkg(Install, "vim", "9.1", "amd64"),
            pkg(Present, "curl", "", ""),
            pkg(Absent, "foo", "", ""),
        ];
        let no_files = "    info: No changed files to show diff for\n";
        assert_text(&render(&report(Mode::Diff, &[], &[], &[], &p1)), REC_P_DIFF);
        assert!(REC_P_DIFF.starts_with(no_files));
        assert_text(
            &render(&report(Mode::Manifest, &[], &[], &[], &p1)),
            REC_P_MANIFEST,
        );
        assert_text(
            &render(&report(Mode::ManifestFull, &[], &[], &[], &p1)),
            REC_P_MANIFEST_FULL,
        );
        let p2 = [
            pkg(Install, "nginx", "1.2", ""),
            pkg(Install, "nginx", "1.4", ""),
            pkg(Install, "zsh", "1.2", "amd64"),
            pkg(Install, "zsh", "1.3", "amd64"),
            pkg(Remove, "bash", "", ""),
            pkg(Present, "bash", "", ""),
        ];
        assert_text(
            &render(&report(Mode::Diff, &[], &[], &[], &p2)),
            REC_P2_DIFF,
        );
        assert_text(
            &render(&report(Mode::Manifest, &[], &[], &[], &p2)),
            REC_P2_MANIFEST,
        );

        // recorded: cf-agent 3.21.0 --simulate=diff and =manifest (no -I), policy p3.cf: aa 1.2 then 1.1,
        // bb 2.0 then 2.5, cc 1.9 then 1.10, dd unversioned then 3, bash absent twice.
        let p3 = [
            pkg(Install, "aa", "1.2", ""),
            pkg(Install, "aa", "1.1", ""),
            pkg(Install, "bb", "2.0", ""),
            pkg(Install, "bb", "2.5", ""),
            pkg(Install, "cc", "1.9", ""),
            pkg(Install, "cc", "1.10", ""),
            pkg(Install, "dd", "", ""),
            pkg(Install, "dd", "3", ""),
            pkg(Remove, "bash", "", ""),
            pkg(Remove, "bash", "", ""),
        ];
        let mut r = report(Mode::Diff, &[], &[], &[], &p3);
        r.info = false;
        assert_text(
            &render(&r),
            "Package 'aa [1.2]' would be installed\n\nPackage 'bb [2.5]' would be installed\n\nPackage 'cc [1.9]' would be installed\n\nPackage 'dd [3]' would be installed\n\nPackage 'bash' would be removed\n\n",
        );
        r.mode = Mode::Manifest;
        assert_text(
            &render(&r),
            "Package 'aa [1.2]' would be present\n\nPackage 'bb [2.5]' would be present\n\nPackage 'cc [1.9]' would be present\n\nPackage 'dd [3]' would be present\n\nPackage 'bash' would be absent\n\n",
        );
    }

    #[test]
    fn recorded_package_order_past_the_array_map() {
        // recorded: cf-agent 3.21.0 --simulate=diff and =manifest (no -I), policy p4.cf: pkg1 … pkg20
        // present (none installed), then alpha, beta, gamma and pkg3 absent (none installed). Past 14
        // entries the agent's map is a hash table, and its bucket order is the print order.
        use PackageOp::*;
        let mut ops: Vec<PackageChange> = (1..=20)
            .map(|i| pkg(Install, &format!("pkg{i}"), "", ""))
            .collect();
        for n in ["alpha", "beta", "gamma", "pkg3"] {
            ops.push(pkg(Absent, n, "", ""));
        }
        let order = [
            6, 19, 12, 4, 7, 18, 17, 5, 8, 20, 10, 14, 1, 15, 9, 16, 2, 13, 11,
        ];
        let lines = |verb: &str| -> String {
            order
                .iter()
                .map(|i| format!("Package 'pkg{i}' would be {verb}\n\n"))
                .collect()
        };
        let mut r = report(Mode::Diff, &[], &[], &[], &ops);
        r.info = false;
        assert_text(&render(&r), &lines("installed"));
        r.mode = Mode::Manifest;
        let absent: String = ["alpha", "beta", "gamma", "pkg3"]
            .iter()
            .map(|n| format!("Package '{n}' would be absent\n\n"))
            .collect();
        assert_text(&render(&r), &format!("{}{absent}", lines("present")));
    }

    /// Build `dir` on disk with `(name, None = directory | Some(contents))` entries.
    fn populate(dir: &std::path::Path, entries: &[(&str, Option<&[u8]>)]) {
        let _ = std::fs::create_dir_all(dir);
        for (name, content) in entries {
            match content {
                None => {
                    let _ = std::fs::create_dir_all(dir.join(name));
                }
                Some(c) => {
                    let _ = std::fs::write(dir.join(name), c);
                }
            }
        }
    }

    fn kids(entries: &[(&str, Option<&[u8]>)]) -> Vec<(String, Kind)> {
        entries
            .iter()
            .map(|(n, c)| {
                (
                    n.to_string(),
                    if c.is_some() { Kind::File } else { Kind::Dir },
                )
            })
            .collect()
    }

    #[test]
    fn dir_diff_matches_gnu_diff() {
        if !diff_available() {
            return;
        }
        let before: &[(&str, Option<&[u8]>)] = &[
            ("Asub", None),
            ("B", Some(b"same\n")),
            ("a", Some(b"one\ntwo\n")),
            ("bin", Some(b"x\0y")),
            ("gone", Some(b"g\n")),
            ("clash", None),
            ("clash2", Some(b"")),
            ("sp ace", Some(b"old\n")),
            ("tab\there", None),
            ("_u", Some(b"keep")),
        ];
        let after: &[(&str, Option<&[u8]>)] = &[
            ("Asub", None),
            ("B", Some(b"same\n")),
            ("a", Some(b"one\n2\n")),
            ("bin", Some(b"x\0z")),
            ("new", Some(b"n\n")),
            ("newsub", None),
            ("clash", Some(b"now a file\n")),
            ("clash2", None),
            ("sp ace", Some(b"new")),
            ("tab\there", None),
            ("_u", Some(b"keep")),
        ];
        // Plain and hostile directory names (the labels are echoed in shell and C quoting).
        for (k, leaf) in [
            "orig",
            "or'ig \"q\"$x",
            "it's",
            "t\tab\u{e9}",
            "back\\slash",
            "h#sh'~",
        ]
        .iter()
        .enumerate()
        {
            let root = scratch_dir(&format!("dir{k}"));
            let path = format!("{}/{leaf}", root.display());
            let chroot = format!("{}/chroot", root.display());
            let chrooted = format!("{chroot}{path}");
            populate(std::path::Path::new(&path), before);
            populate(std::path::Path::new(&chrooted), after);
            let contents = |set: &[(&str, Option<&[u8]>)], name: &str| {
                set.iter()
                    .find(|(n, _)| *n == name)
                    .and_then(|(_, c)| c.map(|c| c.to_vec()))
            };
            // Children the run changed are in `changed` (a type clash included).
            let mut changed = Vec::new();
            let state = |c: Option<Vec<u8>>| match c {
                Some(c) => file(0o644, &c),
                None => dir(0o755, &[]),
            };
            for (name, c) in before {
                if !after.iter().any(|(n, _)| n == name) {
                    continue;
                }
                let c1 = contents(after, name);
                if c.is_none() && c1.is_none() {
                    continue;
                }
                changed.push((
                    join_path(&path, name),
                    state(c.map(|c| c.to_vec())),
                    state(c1),
                ));
            }
            let r = Report {
                chroot: &chroot,
                ..report(Mode::Diff, &[], &changed, &[], &[])
            };
            let b = dir(0o755, &[]).map(|mut e| {
                e.children = kids(before);
                e
            });
            let a = dir(0o750, &[]).map(|mut e| {
                e.children = kids(after);
                e
            });
            let (Some(b), Some(a)) = (b, a) else {
                continue;
            };
            let got = dir_diff(&r, &path, &b, &a);
            let want = Command::new("diff")
                .env("LC_ALL", "C")
                .args([
                    "-u",
                    "--label",
                    &orig_label(&path),
                    "--label",
                    &changed_label(&path),
                ])
                .arg(&path)
                .arg(&chrooted)
                .output()
                .map(|o| o.stdout)
                .unwrap_or_default();
            let _ = std::fs::remove_dir_all(&root);
            assert_text(
                &String::from_utf8_lossy(&got),
                &String::from_utf8_lossy(&want),
            );
        }
    }

    #[test]
    fn unified_diff_edge_cases_match_gnu_diff() {
        if !diff_available() {
            return;
        }
        let dir = scratch_dir("edges");
        let lines =
            |n: usize, tag: &str| -> String { (0..n).map(|i| format!("{tag}{i}\n")).collect() };
        let with = |base: &str, at: usize, line: &str| -> String {
            let mut v: Vec<&str> = base.split_inclusive('\n').collect();
            if at <= v.len() {
                v.insert(at, line);
            }
            v.concat()
        };
        let forty = lines(40, "l");
        let cases: Vec<(String, String)> = vec![
            ("".into(), "a\n".into()),
            ("a\n".into(), "".into()),
            ("a".into(), "".into()),
            ("".into(), "a".into()),
            ("a".into(), "a\n".into()),
            ("a\n".into(), "a".into()),
            ("a".into(), "b".into()),
            ("x\ny".into(), "x\nz".into()),
            ("\n".into(), "\n\n".into()),
            ("a\r\nb\r\n".into(), "a\nb\r\n".into()),
            (forty.clone(), with(&forty, 20, "new\n")),
            (forty.clone(), with(&with(&forty, 10, "p\n"), 17, "q\n")),
            (forty.clone(), with(&with(&forty, 10, "p\n"), 18, "q\n")),
            (forty.clone(), with(&with(&forty, 10, "p\n"), 19, "q\n")),
            (forty.clone(), with(&forty, 0, "top\n")),
            (forty.clone(), with(&forty, 40, "bottom\n")),
            (forty.clone(), forty.replacen("l3\n", "", 1)),
            (forty.clone(), forty.replacen("l39\n", "l39", 1)),
            (lines(200, "x"), lines(200, "y")),
            (lines(30, "s").repeat(3), lines(30, "s").repeat(2)),
            ("a\nb\na\nb\na\n".into(), "b\na\nb\n".into()),
        ];
        for (old, new) in cases {
            let Some(want) = gnu_diff(
                &dir,
                old.as_bytes(),
                new.as_bytes(),
                "original /e",
                "changed  /e",
            ) else {
                return;
            };
            let got = unified_diff(old.as_bytes(), new.as_bytes(), "original /e", "changed  /e");
            assert_text(
                &String::from_utf8_lossy(&got),
                &String::from_utf8_lossy(&want),
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Two long files with few common lines: GNU gives up on a minimal script past ~4096 edit steps
    /// (`too_expensive`); the split it then takes is reproduced too.
    #[test]
    fn unified_diff_matches_gnu_diff_when_too_expensive() {
        if !diff_available() {
            return;
        }
        let dir = scratch_dir("expensive");
        let mut rng = Rng(42);
        let mut text = |n: usize| -> Vec<u8> {
            (0..n)
                .flat_map(|_| format!("w{}\n", rng.below(300)).into_bytes())
                .collect()
        };
        let old = text(9000);
        let new = text(9000);
        if let Some(want) = gnu_diff(&dir, &old, &new, "o", "n") {
            let got = unified_diff(&old, &new, "o", "n");
            assert!(got == want, "too-expensive diff differs from GNU diff");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Why the alignment is GNU's own and not `similar`'s: on this pair (found by the random test)
    /// `similar`'s Myers diff keeps a different line than GNU diff, with the same number of edits.
    #[test]
    fn similar_aligns_differently_from_gnu() {
        let old: Vec<&str> = vec!["c\n", "b\n", "b\n", "c\n"];
        let new: Vec<&str> = vec!["c\n", "b\n", "c\n", "b\n", "d\n"];
        let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &old, &new);
        let kept_old: Vec<usize> = ops
            .iter()
            .filter(|op| op.tag() == similar::DiffTag::Equal)
            .flat_map(|op| op.old_range())
            .collect();
        let gnu = unified_diff(old.concat().as_bytes(), new.concat().as_bytes(), "o", "n");
        // GNU: c, b kept, b deleted, c kept, b and d added.
        assert_eq!(
            String::from_utf8_lossy(&gnu),
            "--- o\n+++ n\n@@ -1,4 +1,5 @@\n c\n b\n-b\n c\n+b\n+d\n"
        );
        // similar keeps lines 0, 1 and 2 (c, b, b), not c, b, c.
        assert_eq!(kept_old, vec![0, 1, 2]);
    }

    #[test]
    fn mode_strings() {
        assert_eq!(mode_string(Kind::File, 0o600), "rw-------");
        assert_eq!(mode_string(Kind::File, 0o7644), "rwSr-Sr-T");
        assert_eq!(mode_string(Kind::File, 0o7755), "rwsr-sr-t");
        assert_eq!(mode_string(Kind::Dir, 0o1777), "rwxrwxrwt");
        assert_eq!(mode_string(Kind::File, 0o4711), "rws--x--x");
        assert_eq!(mode_string(Kind::File, 0o2070), "---rws---");
        assert_eq!(mode_string(Kind::Symlink, 0), "rwxrwxrwx");
        assert_eq!(mode_string(Kind::File, 0o170644), "rw-r--r--");
    }

    /// Formats read from the agent's source (simulate_mode.c) that its chroot never lets it print:
    /// special files (mirrored as regular files, or not at all) and some type changes.
    #[test]
    fn special_files_and_type_changes() {
        let fifo = Some(Entry {
            size: 0,
            ..base(Kind::Fifo, 0o640)
        });
        let sock = Some(Entry {
            size: 0,
            ..base(Kind::Socket, 0o755)
        });
        let dev = Some(Entry {
            size: 0,
            ..base(Kind::CharDevice, 0o666)
        });
        let stat = |size: u64, mode: &str| {
            format!(
                "Size: {size}\nAccess: ({mode})  Uid: (0/root)   Gid: (0/root)\nAccess: 2026-11-26 09:46:15 +0000\nModify: 2026-11-26 09:46:15 +0000\nChange: 2026-11-26 09:46:15 +0000\n"
            )
        };
        let dl = DELIMITER;
        let unmodified = vec![
            (p("fifo"), fifo.clone()),
            (p("sock"), sock.clone()),
            (p("null"), dev),
        ];
        let got = render(&Report {
            info: false,
            ..report(Mode::ManifestFull, &[], &[], &unmodified, &[])
        });
        let want = format!(
            "{dl}'{D}/fifo' is a FIFO/pipe\n{}{dl}'{D}/sock' is a socket\n{}{dl}'{D}/null' is a character device\n{}",
            stat(0, "0640/rw-r-----"),
            stat(0, "0755/rwxr-xr-x"),
            stat(0, "0666/rw-rw-rw-")
        );
        assert_text(&got, &want);

        // diff: same type, not file/dir: the new state without a diff.
        let mut fifo_after = fifo.clone();
        if let Some(e) = fifo_after.as_mut() {
            e.mode = 0o600;
        }
        let changed = vec![
            (p("fifo"), fifo.clone(), fifo_after),
            (p("d2f"), dir(0o755, &[]), file(0o600, b"x\n")),
            (p("s2f"), sock, file(0o600, b"x\n")),
            (p("l2d"), link("/x"), dir(0o700, &[("k", Kind::File)])),
            (p("f2p"), file(0o644, b"x\n"), fifo),
        ];
        let got = render(&Report {
            info: false,
            ..report(Mode::Diff, &[], &changed, &[], &[])
        });
        let want = format!(
            "{dl}'{D}/fifo' is a FIFO/pipe\n{}\
             {dl}'{D}/d2f' changed type from directory to regular file\n{}\nContents of the file:\n   error: Failed to print contents of the file\n\
             {dl}'{D}/s2f' changed type from socket to regular file\n{}\n   error: Failed to open file for reading: No such device or address\n\
             {dl}'{D}/l2d' changed type from symbolic link to directory\n{}\nDirectory contents:\nk\n\
             {dl}'{D}/f2p' changed type from regular file to FIFO/pipe\n{}",
            stat(0, "0600/rw-------"),
            stat(2, "0600/rw-------"),
            stat(2, "0600/rw-------"),
            stat(4096, "0700/rwx------"),
            stat(0, "0640/rw-r-----"),
        );
        assert_text(&got, &want);
    }

    #[test]
    fn binary_and_empty_sections() {
        let changed = vec![(p("b"), file(0o644, b"a\0b\n"), file(0o644, b"a\0c\n"))];
        let got = render(&report(Mode::Diff, &[], &changed, &[], &[]));
        assert_text(
            &got,
            &format!(
                "    info: Showing diff for changed files (in the changes chroot)\n{DELIMITER}Binary files original {D}/b and changed  {D}/b differ\n    info: No package operations done by the agent run\n"
            ),
        );
        // A renamed file only; manifest-full with nothing evaluated; packages that cancel out.
        let renames = x_renames();
        let ops = [
            pkg(PackageOp::Remove, "bash", "", ""),
            pkg(PackageOp::Present, "bash", "", ""),
        ];
        let got = render(&report(Mode::Diff, &renames, &[], &[], &ops));
        assert_text(
            &got,
            &format!(
                "    info: Manifesting renamed files (in the changes chroot)\n{DELIMITER}'{D}/renamed.txt' is the new name of '{D}/old.txt'\n    info: No changed files to show diff for\n    info: No differences in installed packages to report\n"
            ),
        );
        let got = render(&report(Mode::ManifestFull, &renames, &[], &[], &[]));
        assert_text(
            &got,
            &format!(
                "    info: Manifesting renamed files (in the changes chroot)\n{DELIMITER}'{D}/renamed.txt' is the new name of '{D}/old.txt'\n    info: No changed files to manifest\n    info: No unmodified files to manifest\n    info: No package operations done by the agent run\n"
            ),
        );
    }

    /// Arbitrary input never panics (the lints forbid unwrap/expect/panic; this covers indexing and
    /// arithmetic).
    #[test]
    fn random_reports_do_not_panic() {
        let mut rng = Rng(7);
        let kinds = [
            Kind::File,
            Kind::Dir,
            Kind::Symlink,
            Kind::Fifo,
            Kind::Socket,
            Kind::BlockDevice,
            Kind::CharDevice,
            Kind::Other,
        ];
        for _ in 0..300 {
            let entry = |rng: &mut Rng| -> Option<Entry> {
                if rng.below(4) == 0 {
                    return None;
                }
                let kind = kinds
                    .get(rng.below(kinds.len() as u64) as usize)
                    .copied()
                    .unwrap_or(Kind::File);
                let bytes: Vec<u8> = (0..rng.below(9000))
                    .map(|_| (rng.next() % 256) as u8)
                    .collect();
                Some(Entry {
                    kind,
                    mode: rng.next() as u32,
                    uid: rng.next() as u32,
                    gid: rng.next() as u32,
                    user: if rng.below(2) == 0 {
                        String::new()
                    } else {
                        "u".into()
                    },
                    group: "g".into(),
                    size: rng.next(),
                    content: if rng.below(3) == 0 {
                        None
                    } else {
                        Some(bytes.into())
                    },
                    target: match rng.below(3) {
                        0 => None,
                        1 => Some(String::new()),
                        _ => Some("rel/x".into()),
                    },
                    children: vec![("a".into(), Kind::Dir), ("b".into(), Kind::File)],
                    atime: rng.next() as i64,
                    mtime: i64::MIN,
                    ctime: i64::MAX,
                })
            };
            let changed: Vec<(String, Option<Entry>, Option<Entry>)> = (0..4)
                .map(|i| {
                    (
                        if i == 3 {
                            "/".to_string()
                        } else {
                            format!("/p/{}", i % 2)
                        },
                        entry(&mut rng),
                        entry(&mut rng),
                    )
                })
                .collect();
            let unmodified: Vec<(String, Option<Entry>)> = vec![("/p/a".into(), entry(&mut rng))];
            let ops: Vec<PackageChange> = (0..rng.below(40))
                .map(|i| PackageChange {
                    op: [
                        PackageOp::Install,
                        PackageOp::Remove,
                        PackageOp::Present,
                        PackageOp::Absent,
                    ]
                    .get(rng.below(4) as usize)
                    .copied()
                    .unwrap_or(PackageOp::Install),
                    name: format!("n{}", i % 23),
                    version: if rng.below(2) == 0 {
                        String::new()
                    } else {
                        format!("{}", rng.below(5))
                    },
                    arch: String::new(),
                })
                .collect();
            for mode in [Mode::Diff, Mode::Manifest, Mode::ManifestFull] {
                let r = Report {
                    mode,
                    chroot: "",
                    renames: &[],
                    changed: &changed,
                    unmodified: &unmodified,
                    packages: &ops,
                    info: true,
                };
                let _ = render_bytes(&r);
            }
        }
    }

    #[test]
    fn recorded_binary_diff_and_cancelled_packages() {
        // recorded: cf-agent 3.21.0 --simulate=diff -I, policy q.cf (insert_lines "appended" into
        // nul.dat = "nul\0only\n"; bash absent, then bash present, with the fake package module).
        let want = r#"    info: Showing diff for changed files (in the changes chroot)
===========================================================================
Binary files original /srv/cfsim-simreport/t/nul.dat and changed  /srv/cfsim-simreport/t/nul.dat differ
    info: No differences in installed packages to report
"#;
        let changed = vec![(
            p("nul.dat"),
            file(0o644, b"nul\0only\n"),
            file(0o644, b"nul\0only\nappended\n"),
        )];
        let ops = [
            pkg(PackageOp::Remove, "bash", "", ""),
            pkg(PackageOp::Present, "bash", "", ""),
        ];
        let got = render(&report(Mode::Diff, &[], &changed, &[], &ops));
        assert_text(&got, want);
    }

    #[test]
    fn unified_diff_matches_gnu_diff_on_random_pairs() {
        if !diff_available() {
            return;
        }
        let dir = scratch_dir("random");
        let alphabets: [&[&str]; 3] = [
            &["a", "b"],
            &["a", "b", "c", "", "d"],
            &["x", "y", "z", "w", "v", "u", "t", "s", "r", "q"],
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut mismatches = Vec::new();
        let cases = 3000;
        for case in 0..cases {
            let alphabet = alphabets
                .get(case % alphabets.len())
                .copied()
                .unwrap_or(&["a"]);
            let size = match case % 10 {
                0 => 300,
                1 | 2 => 60,
                _ => 12,
            };
            let old = random_text(&mut rng, alphabet, size);
            let new = if rng.below(3) == 0 {
                random_text(&mut rng, alphabet, size)
            } else {
                mutate(&mut rng, &old, alphabet)
            };
            let Some(want) = gnu_diff(&dir, &old, &new, "original /p", "changed  /p") else {
                return;
            };
            let got = unified_diff(&old, &new, "original /p", "changed  /p");
            if got != want {
                mismatches.push((old, new, want, got));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        for (old, new, want, got) in mismatches.iter().take(5) {
            eprintln!(
                "OLD {:?}\nNEW {:?}\nWANT\n{}\nGOT\n{}",
                String::from_utf8_lossy(old),
                String::from_utf8_lossy(new),
                String::from_utf8_lossy(want),
                String::from_utf8_lossy(got)
            );
        }
        assert!(
            mismatches.is_empty(),
            "{} of {cases} differ",
            mismatches.len()
        );
    }
}
