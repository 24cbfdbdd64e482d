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
                .is_some_and(|p| std::fs::symlink_metadata(p).is_ok())
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
            .is_some_and(|full| std::fs::symlink_metadata(full).is_ok_and(|m| m.is_dir()))
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
