//! The agent's change database (`changes` bodies: file hashes), kept on the virtual host as the
//! agent keeps `cf_changes.lmdb` in its state directory: in memory for the run, written through to
//! [`PATH`] (JSON, cfsim's stand-in for the LMDB file) so that `--write-root` carries it to a later run
//! (and `cfsim test --converge` to the second run), which then finds the hashes the first stored.

use std::collections::BTreeMap;

use super::vfs::{BaseFs, Vfs};

/// Where the database lives on the virtual host.
pub const PATH: &str = "/var/lib/cfengine3/state/cfsim_changes.json";

/// The stored digest of `path` with `algo`, loading the database from the host on first use.
pub fn get(vfs: &mut Vfs, base: &dyn BaseFs, algo: &str, path: &str) -> Option<String> {
    load(vfs, base);
    vfs.change_db.get(&key(algo, path)).cloned()
}

/// Stores a digest and writes the database through (a host without the state directory keeps it
/// for this run only).
pub fn put(vfs: &mut Vfs, base: &dyn BaseFs, algo: &str, path: &str, digest: &str) {
    load(vfs, base);
    vfs.change_db.insert(key(algo, path), digest.to_string());
    let map: serde_json::Map<String, serde_json::Value> = vfs
        .change_db
        .iter()
        .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
        .collect();
    let text = serde_json::to_string_pretty(&serde_json::Value::Object(map)).unwrap_or_default();
    let _ = vfs.write_file(base, PATH, format!("{text}\n").into_bytes(), 0o600);
}

fn key(algo: &str, path: &str) -> String {
    format!("{algo}:{path}")
}

fn load(vfs: &mut Vfs, base: &dyn BaseFs) {
    if vfs.change_db_loaded {
        return;
    }
    vfs.change_db_loaded = true;
    let Ok(bytes) = vfs.read(base, PATH) else {
        return;
    };
    let parsed: BTreeMap<String, String> = serde_json::from_slice(&bytes).unwrap_or_default();
    vfs.change_db.extend(parsed);
}
