//! The host's file system as cfsim sees it: [`Host::file`], [`Host::file_exists`], [`Host::is_dir`],
//! [`Host::list_dir`] over the profile's file map and the optional `files_root` directory (read-only;
//! `..` refused; files over [`MAX_HOST_FILE_BYTES`] are not read).

use super::{Host, HostFile};

/// Upper bound on a file read through [`Host::file`] from `files_root` (bytes).
pub const MAX_HOST_FILE_BYTES: u64 = 16 * 1024 * 1024;

impl Host {
    /// The host's file at absolute `path`: the profile map first, then `files_root`.
    pub fn file(&self, path: &str) -> Option<HostFile> {
        if let Some(f) = self.files.map.get(path) {
            return Some(f.clone());
        }
        let root = self.files.root.as_ref()?;
        let rel = path.trim_start_matches('/');
        if rel.split('/').any(|c| c == "..") {
            return None;
        }
        let full = root.join(rel);
        let meta = std::fs::metadata(&full).ok()?;
        if !meta.is_file() || meta.len() > MAX_HOST_FILE_BYTES {
            return None;
        }
        let content = std::fs::read_to_string(&full).ok()?;
        #[cfg(unix)]
        let mode = {
            use std::os::unix::fs::PermissionsExt;
            meta.permissions().mode() & 0o7777
        };
        #[cfg(not(unix))]
        let mode = 0o644;
        Some(HostFile { content, mode })
    }

    /// Whether `path` exists on the host (file in the map, or any entry under `files_root`).
    pub fn file_exists(&self, path: &str) -> bool {
        if self.files.map.contains_key(path) {
            return true;
        }
        match &self.files.root {
            Some(root) => {
                let rel = path.trim_start_matches('/');
                !rel.split('/').any(|c| c == "..") && root.join(rel).exists()
            }
            None => false,
        }
    }

    /// Whether `path` is a directory on the host: a prefix of a mapped file, or a directory under
    /// `files_root`.
    pub fn is_dir(&self, path: &str) -> bool {
        let p = path.trim_end_matches('/');
        let prefix = format!("{p}/");
        if p.is_empty() || self.files.map.keys().any(|k| k.starts_with(&prefix)) {
            return true;
        }
        match &self.files.root {
            Some(root) => {
                let rel = p.trim_start_matches('/');
                !rel.split('/').any(|c| c == "..") && root.join(rel).is_dir()
            }
            None => false,
        }
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
        if let Some(root) = &self.files.root {
            let rel = p.trim_start_matches('/');
            if !rel.split('/').any(|c| c == "..") {
                if let Ok(rd) = std::fs::read_dir(root.join(rel)) {
                    names.extend(
                        rd.filter_map(|e| e.ok())
                            .map(|e| e.file_name().to_string_lossy().to_string()),
                    );
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }
}
