//! Where a `copy_from` source lives ([`Origin`]: this host, or a server of the profile's
//! `remote_files`, read through [`crate::host::remote::ServedTree`], never the network) and the
//! agent's connection step (`ScheduleCopyOperation`): the servers in order, `localhost` meaning a local
//! copy; a server that does not answer, or whose key is not trusted, is skipped with the agent's lines;
//! none left: `No suitable server found`. A server the profile does not describe is reported as not
//! simulated (a warning; the promise gets no outcome and no classes, counted as not simulated).

use std::path::PathBuf;

use super::attrs::{Attrs, Copy};
use super::{stat, Pr};
use crate::eval::output::LogLevel;
use crate::eval::Engine;
use crate::host::remote::{admitted, ServedTree, DEFAULT_PORT};
use crate::host::vfs::{Meta, Vfs};

/// The side a copy reads from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// This host's (virtual) files.
    Local,
    /// A server: its name as the policy gives it, the directory standing for its `/`, and the
    /// paths its access rules admit (empty: everything; a path not admitted is answered as missing).
    Remote {
        name: String,
        root: PathBuf,
        admit: Vec<String>,
    },
}

impl Origin {
    /// The name the agent prints for the source's host.
    pub fn name(&self) -> &str {
        match self {
            Origin::Local => "localhost",
            Origin::Remote { name, .. } => name,
        }
    }

    pub fn is_remote(&self) -> bool {
        matches!(self, Origin::Remote { .. })
    }

    /// A served path the server's access rules do not admit.
    fn denied(&self, path: &str) -> bool {
        match self {
            Origin::Local => false,
            Origin::Remote { admit, .. } => !admitted(admit, path),
        }
    }

    /// `stat` of a source path (links followed; on a server inside its served tree).
    pub fn stat(&self, e: &Engine<'_>, path: &str) -> Option<Meta> {
        if self.denied(path) {
            return None;
        }
        match self {
            Origin::Local => stat(e, path),
            Origin::Remote { root, .. } => {
                Vfs::new(e.host.vfs.now).stat(&ServedTree { root }, path, true)
            }
        }
    }

    /// The content of a source file.
    pub fn read(&self, e: &Engine<'_>, path: &str) -> Option<Vec<u8>> {
        if self.denied(path) {
            return None;
        }
        match self {
            Origin::Local => {
                let b = e.host.base();
                e.host.vfs.read(b, path).ok().map(|c| c.to_vec())
            }
            Origin::Remote { root, .. } => Vfs::new(e.host.vfs.now)
                .read(&ServedTree { root }, path)
                .ok()
                .map(|c| c.to_vec()),
        }
    }

    /// The entries of a source directory, sorted.
    pub fn list(&self, e: &Engine<'_>, path: &str) -> Option<Vec<String>> {
        if self.denied(path) {
            return None;
        }
        match self {
            Origin::Local => {
                let b = e.host.base();
                e.host.vfs.list(b, path)
            }
            Origin::Remote { root, .. } => {
                Vfs::new(e.host.vfs.now).list(&ServedTree { root }, path)
            }
        }
    }
}

/// The file in the agent's `ppkeys` that says the host trusts a server's key.
fn trusted_key_file(e: &Engine<'_>, digest: &str) -> String {
    format!(
        "/var/lib/cfengine3/ppkeys/{}-{digest}.pub",
        e.host.host.current_user
    )
}

/// The connection step for `dst`: `Some(origin)` to copy from, or `None` when the promise ended here
/// (no server answered: failed; a server the profile does not describe: not simulated).
pub fn connect(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, dst: &str) -> Option<Origin> {
    let c: &Copy = a.copy.as_ref()?;
    if c.servers.is_empty() {
        return Some(Origin::Local);
    }
    let port = if c.port.is_empty() {
        DEFAULT_PORT.to_string()
    } else {
        c.port.clone()
    };
    for name in &c.servers {
        if name == "localhost" || name.is_empty() {
            return Some(Origin::Local);
        }
        let host = e.host.host;
        let Some(s) = host.remote.lookup(name, &port) else {
            e.log(
                LogLevel::Warning,
                &format!(
                    "cfsim: copy_from '{}' from server '{name}' (port {port}) is not simulated: the host profile's remote_files has no entry '{name}' or '{name}:{port}'",
                    c.source
                ),
            );
            pr.not_simulated = true;
            return None;
        };
        if s.unreachable {
            e.log(
                LogLevel::Info,
                "Failed to connect to server: Connection refused",
            );
            e.log(
                LogLevel::Info,
                &format!("No server is responding on port: {port}"),
            );
            e.log(
                LogLevel::Info,
                &format!("Unable to establish connection to '{name}'"),
            );
            continue;
        }
        let keyfile = trusted_key_file(e, &s.key_digest);
        let trusted = s.trusted || stat(e, &keyfile).is_some();
        if !trusted {
            if !c.trustkey {
                e.log(
                    LogLevel::Error,
                    &format!(
                        "TRUST FAILED, server presented untrusted key: {}",
                        s.key_digest
                    ),
                );
                e.log(
                    LogLevel::Info,
                    &format!("Unable to establish connection to '{name}'"),
                );
                continue;
            }
            e.log(
                LogLevel::Notice,
                &format!("Trusting new key: {}", s.key_digest),
            );
            // the agent saves the key: later connections (this run and the next) trust it
            let text = format!(
                "cfsim: the public key of server '{name}' ({})\n",
                s.key_digest
            );
            let (v, b) = e.host.vfs_mut();
            let _ = v.write_file(b, &keyfile, text.into_bytes(), 0o600);
        }
        if let Some(root) = &s.root {
            return Some(Origin::Remote {
                name: name.clone(),
                root: root.clone(),
                admit: s.admit.clone(),
            });
        }
    }
    e.log(
        LogLevel::Error,
        &format!("No suitable server found for '{dst}'"),
    );
    let belongs = pr.belongs(e);
    e.log(LogLevel::Error, &belongs);
    pr.fail(e);
    None
}
