//! The host's file system as cfsim sees it: [`Host::file`], [`Host::file_exists`], [`Host::is_dir`],
//! [`Host::list_dir`] over the profile's file map and the optional `files_root` directory: read-only,
//! every path resolved inside the root with chroot semantics (symlinks and `..` never leave it, see
//! [`super::read::resolve_in_root`]), regular files of at most [`MAX_HOST_FILE_BYTES`] read.

use super::read::{read_regular, resolve_in_root};
use super::{Host, HostFile};

/// Upper bound on a file read through [`Host::file`] from `files_root` (bytes).
pub const MAX_HOST_FILE_BYTES: u64 = super::read::MAX_READ_BYTES;

impl Host {
    /// The real path of host path `path` under `files_root`, if the host has a root.
    fn under_root(&self, path: &str) -> Option<std::path::PathBuf> {
        let root = self.files.root.as_ref()?;
        resolve_in_root(root, path)
    }

    /// The host's file at absolute `path`: the profile map first, then `files_root`.
    pub fn file(&self, path: &str) -> Option<HostFile> {
        if let Some(f) = self.files.map.get(path) {
            return Some(f.clone());
        }
        let full = self.under_root(path)?;
        let bytes = read_regular(&full, MAX_HOST_FILE_BYTES).ok()?;
        let content = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(&full).ok()?.permissions().mode() & 0o7777
        };
        #[cfg(not(unix))]
        let mode = 0o644;
        Some(HostFile { content, mode })
    }

    /// Whether `path` exists on the host (file in the map, or any entry under `files_root`).
    pub fn file_exists(&self, path: &str) -> bool {
        self.files.map.contains_key(path)
            || self
                .under_root(path)
                .is_some_and(|p| std::fs::metadata(p).is_ok())
    }

    /// Whether `path` is a directory on the host: a prefix of a mapped file, or a directory under
    /// `files_root`.
    pub fn is_dir(&self, path: &str) -> bool {
        let p = path.trim_end_matches('/');
        let prefix = format!("{p}/");
        if p.is_empty() || self.files.map.keys().any(|k| k.starts_with(&prefix)) {
            return true;
        }
        self.under_root(p)
            .is_some_and(|full| std::fs::metadata(full).is_ok_and(|m| m.is_dir()))
    }

    /// Names directly inside directory `path` (mapped files and `files_root` entries), sorted.
    pub fn list_dir(&self, path: &str) -> Vec<String> {
        let p = path.trim_end_matches('/');
        let prefix = format!("{p}/");
        let mut names: Vec<String> = self
            .files
            .map
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .filter_map(|rest| rest.split('/').next())
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        if let Some(full) = self.under_root(p) {
            if let Ok(rd) = std::fs::read_dir(full) {
                names.extend(
                    rd.filter_map(|e| e.ok())
                        .map(|e| e.file_name().to_string_lossy().to_string()),
                );
            }
        }
        names.sort();
        names.dedup();
        names
    }
}

/// Directories of the agent's work directory every simulated host has unless its files say
/// otherwise, so policy that expects an installed agent (the masterfiles) finds them.
pub const WORKDIR_LAYOUT: &[&str] = &[
    "/var",
    "/var/lib",
    "/var/lib/cfengine3",
    "/var/lib/cfengine3/bin",
    "/var/lib/cfengine3/inputs",
    "/var/lib/cfengine3/masterfiles",
    "/var/lib/cfengine3/modules",
    "/var/lib/cfengine3/outputs",
    "/var/lib/cfengine3/plugins",
    "/var/lib/cfengine3/ppkeys",
    "/var/lib/cfengine3/state",
];

/// Whether cfsim runs as root (the owner of `/proc/self` is the effective user).
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    static ROOT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ROOT.get_or_init(|| std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0))
}

/// The profile's files as the read-only base of the run's [`super::vfs::Vfs`]: the file map first
/// (its parents are directories 0755), then `files_root` (real modes and modification times; the
/// change time is the modification time, so a profile directory gives the same answers wherever it is
/// checked out; objects count as owned by root unless cfsim runs as root, which may own files to
/// others and then sees their real owners), then the work directory layout.
impl super::vfs::BaseFs for Host {
    fn lstat(&self, path: &str) -> Option<super::vfs::Meta> {
        use super::vfs::{Kind, Meta};
        let now = self.time.epoch;
        if path == "/" {
            return Some(Meta::new(Kind::Dir, 0o755, now));
        }
        if let Some(f) = self.files.map.get(path) {
            let mut m = Meta::new(Kind::File, f.mode, now);
            m.size = f.content.len() as u64;
            return Some(m);
        }
        let prefix = format!("{path}/");
        if self.files.map.keys().any(|k| k.starts_with(&prefix)) {
            return Some(Meta::new(Kind::Dir, 0o755, now));
        }
        if let Some(root) = &self.files.root {
            let full = root.join(path.trim_start_matches('/'));
            if let Ok(md) = std::fs::symlink_metadata(&full) {
                let mut m = meta_of(&md);
                if running_as_root() {
                    use std::os::unix::fs::MetadataExt;
                    m.uid = md.uid();
                    m.gid = md.gid();
                }
                return Some(m);
            }
        }
        WORKDIR_LAYOUT
            .contains(&path)
            .then(|| Meta::new(Kind::Dir, 0o700, now))
    }
    fn read(&self, path: &str, max: u64) -> Result<Vec<u8>, super::read::ReadError> {
        if let Some(f) = self.files.map.get(path) {
            return Ok(f.content.clone().into_bytes());
        }
        let root = self
            .files
            .root
            .as_ref()
            .ok_or(super::read::ReadError::Unreadable)?;
        read_regular(&root.join(path.trim_start_matches('/')), max)
    }
    fn readlink(&self, path: &str) -> Option<String> {
        if self.files.map.contains_key(path) {
            return None;
        }
        let root = self.files.root.as_ref()?;
        std::fs::read_link(root.join(path.trim_start_matches('/')))
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }
    fn list(&self, path: &str) -> Option<Vec<String>> {
        let mut names = self.list_dir(path);
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        for d in WORKDIR_LAYOUT {
            if let Some(rest) = d.strip_prefix(&prefix) {
                if !rest.is_empty() && !rest.contains('/') {
                    names.push(rest.to_string());
                }
            }
        }
        names.sort();
        names.dedup();
        Some(names)
    }
}

/// The [`super::vfs::Meta`] of real metadata (owner root, change time = modification time).
pub(super) fn meta_of(md: &std::fs::Metadata) -> super::vfs::Meta {
    use super::vfs::{Kind, Meta};
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let ft = md.file_type();
    let kind = if ft.is_symlink() {
        Kind::Symlink
    } else if ft.is_dir() {
        Kind::Dir
    } else if ft.is_file() {
        Kind::File
    } else if ft.is_fifo() {
        Kind::Fifo
    } else if ft.is_socket() {
        Kind::Socket
    } else {
        Kind::Other
    };
    Meta {
        kind,
        mode: md.mode() & 0o7777,
        uid: 0,
        gid: 0,
        size: md.size(),
        atime: md.mtime(),
        mtime: md.mtime(),
        ctime: md.mtime(),
        nlink: md.nlink(),
        ino: md.ino(),
    }
}

/// This machine as a base (`--host local`): real metadata, owners and times.
pub struct LocalBase;

impl super::vfs::BaseFs for LocalBase {
    fn lstat(&self, path: &str) -> Option<super::vfs::Meta> {
        use std::os::unix::fs::MetadataExt;
        let md = std::fs::symlink_metadata(path).ok()?;
        let mut m = meta_of(&md);
        m.uid = md.uid();
        m.gid = md.gid();
        m.atime = md.atime();
        m.ctime = md.ctime();
        Some(m)
    }
    fn read(&self, path: &str, max: u64) -> Result<Vec<u8>, super::read::ReadError> {
        read_regular(std::path::Path::new(path), max)
    }
    fn readlink(&self, path: &str) -> Option<String> {
        std::fs::read_link(path)
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }
    fn list(&self, path: &str) -> Option<Vec<String>> {
        Some(
            std::fs::read_dir(path)
                .ok()?
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
        )
    }
}
