//! Reading the real file system safely, for every layer that must: paths under a root resolved with
//! chroot semantics ([`resolve_in_root`]: symlinks and `..` never leave the root), and bounded reads of
//! regular files only ([`read_regular`]: a FIFO, `/dev/zero` or a device is never opened, a file over
//! the bound is refused, not read).

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most symlinks followed while resolving one path (Linux's ELOOP bound).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// Largest file read from the host (a profile's `files_root`, or this machine with `--host local`):
/// 64 MiB, the default of `--max-value-bytes`. The agent reads any size; a larger file is refused here
/// and the reading function fails as for an unreadable file.
pub const MAX_READ_BYTES: u64 = 64 << 20;

/// Why a file was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// Missing, unreadable, a directory, or not a regular file (FIFO, device, socket).
    Unreadable,
    /// Larger than the bound.
    TooLarge,
}

/// Reads `path` if it is a regular file (symlinks followed) of at most `max` bytes.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(|_| ReadError::Unreadable)?;
    if !meta.is_file() {
        return Err(ReadError::Unreadable);
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge);
    }
    let mut buf = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    std::fs::File::open(path)
        .map_err(|_| ReadError::Unreadable)?
        .take(max.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|_| ReadError::Unreadable)?;
    // the file grew between the stat and the read
    if buf.len() as u64 > max {
        return Err(ReadError::TooLarge);
    }
    Ok(buf)
}

/// Reads at most `max` bytes of standard input; more is [`ReadError::TooLarge`].
pub fn read_stdin(max: u64) -> Result<Vec<u8>, ReadError> {
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .take(max.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|_| ReadError::Unreadable)?;
    if buf.len() as u64 > max {
        return Err(ReadError::TooLarge);
    }
    Ok(buf)
}

/// The real path of the host path `path` (absolute, as the simulated host sees it) under `root`, with
/// chroot semantics: `..` stops at the root, an absolute symlink target starts again at the root, a
/// relative one continues from the link's directory, at most [`MAX_SYMLINK_HOPS`] links (then `None`,
/// as ELOOP). The result has no symlink in it, so opening it cannot leave the root. Components that
/// do not exist are kept (the result then does not exist either).
pub fn resolve_in_root(root: &Path, path: &str) -> Option<PathBuf> {
    if root == Path::new("/") {
        // chroot semantics with `/` as the root are the kernel's own (`..` stops at `/`, links
        // followed up to the same ELOOP bound): the path is given to the kernel as it is, without a
        // `lstat` per component. Callers follow symlinks (`metadata`, `open`), as they do on a
        // resolved path, which has none left.
        let mut out = PathBuf::from("/");
        out.extend(components(path));
        return Some(out);
    }
    let mut todo: VecDeque<String> = components(path).map(str::to_string).collect();
    let mut done: Vec<String> = Vec::new();
    let mut hops = 0;
    while let Some(c) = todo.pop_front() {
        if c == ".." {
            done.pop();
            continue;
        }
        let mut here = root.to_path_buf();
        here.extend(&done);
        here.push(&c);
        match std::fs::symlink_metadata(&here) {
            Ok(m) if m.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return None;
                }
                let target = std::fs::read_link(&here).ok()?;
                let target = target.to_string_lossy();
                if target.starts_with('/') {
                    done.clear();
                }
                let mut next: VecDeque<String> = components(&target).map(str::to_string).collect();
                next.extend(todo);
                todo = next;
            }
            _ => done.push(c),
        }
    }
    let mut out = root.to_path_buf();
    out.extend(&done);
    Some(out)
}

/// Splits an absolute or relative path into its components, without empty ones and `.` (shared with
/// [`super::vfs`]).
pub(super) fn components(p: &str) -> impl Iterator<Item = &str> {
    p.split('/').filter(|c| !c.is_empty() && *c != ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotdot_stops_at_the_root() {
        let root = Path::new("/nonexistent-root-cfsim");
        assert_eq!(
            resolve_in_root(root, "/../../etc/shadow"),
            Some(root.join("etc/shadow"))
        );
        assert_eq!(resolve_in_root(root, "/a/./b/../c"), Some(root.join("a/c")));
        assert_eq!(resolve_in_root(root, "/"), Some(root.to_path_buf()));
    }

    #[test]
    fn the_real_root_leaves_resolving_to_the_kernel() {
        let root = Path::new("/");
        assert_eq!(
            resolve_in_root(root, "/etc/./hosts"),
            Some("/etc/hosts".into())
        );
        assert_eq!(resolve_in_root(root, "/../etc"), Some("/../etc".into()));
        assert_eq!(resolve_in_root(root, "/"), Some("/".into()));
    }
}
