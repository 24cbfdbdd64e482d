//! The policy servers a host copies from (`copy_from` with `servers`): the profile's `remote_files`
//! (server name, optionally `:PORT`, → the directory that stands for that server's `/`, jailed like
//! `files_root`; or an object saying the server does not answer or that its key is not trusted yet),
//! parsed here, and the read-only [`BaseFs`] of a served tree. The network is never used.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::profile::{describe, Reader, R};
use super::read::{read_regular, ReadError};
use super::vfs::{BaseFs, Kind, Meta};

/// cf-serverd's default port.
pub const DEFAULT_PORT: &str = "5308";

const SERVER_FIELDS: &[&str] = &["root", "unreachable", "trusted", "key_digest", "admit"];

/// One server of `remote_files`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteServer {
    /// The directory standing for the server's `/` (what its access rules admit); `None` for a
    /// server that does not answer.
    pub root: Option<PathBuf>,
    /// Nothing listens there: the connection is refused.
    pub unreachable: bool,
    /// Whether the host trusts the server's key already (default: yes, as after bootstrapping).
    pub trusted: bool,
    /// The digest of the server's key as the agent prints it (`MD5=…`).
    pub key_digest: String,
    /// The paths cf-serverd's access rules admit this host to (each with everything below it);
    /// empty: everything. A source elsewhere is answered as missing (`Can't stat file`).
    pub admit: Vec<String>,
}

impl RemoteServer {
    /// Whether the server's access rules admit `path`.
    pub fn admits(&self, path: &str) -> bool {
        admitted(&self.admit, path)
    }
}

/// Whether `path` (absolute; `..` and `.` resolved by name, as the request names it) is one of the
/// `admit` paths or below one; an empty list admits everything.
pub fn admitted(admit: &[String], path: &str) -> bool {
    let p = super::vfs::normalize(path);
    admit.is_empty()
        || admit.iter().any(|a| {
            let a = a.trim_end_matches('/');
            a.is_empty() || p == a || p.starts_with(&format!("{a}/"))
        })
}

/// The profile's `remote_files`, by key (`HOST` or `HOST:PORT`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteServers {
    pub servers: BTreeMap<String, RemoteServer>,
}

impl RemoteServers {
    /// The server `name` on `port`: an entry `name:port` first, then `name`.
    pub fn lookup(&self, name: &str, port: &str) -> Option<&RemoteServer> {
        self.servers
            .get(&format!("{name}:{port}"))
            .or_else(|| self.servers.get(name))
    }
}

/// A stand-in digest for a server whose profile entry names none: `MD5=` and the MD5 of its name.
fn default_digest(name: &str) -> String {
    let d = super::keydigest::md5(name.as_bytes());
    format!(
        "MD5={}",
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

impl Reader<'_> {
    /// `remote_files`: an object of server → directory (string) or server → object
    /// (`root`, `unreachable`, `trusted`, `key_digest`).
    pub(super) fn remote_files(&self, v: Option<&Value>, base: &Path) -> R<RemoteServers> {
        let Some(v) = v else {
            return Ok(RemoteServers::default());
        };
        let Some(m) = v.as_object() else {
            return self.err(
                "remote_files",
                "an object of server name → served directory",
                describe(v),
            );
        };
        let mut out = RemoteServers::default();
        for (name, val) in m {
            let f = format!("remote_files.{name}");
            if name.is_empty() || name == "localhost" {
                return self.err(
                    &f,
                    "a server name other than \"\" and \"localhost\" (localhost copies are local)",
                    "that name",
                );
            }
            let mut s = RemoteServer {
                root: None,
                unreachable: false,
                trusted: true,
                key_digest: String::new(),
                admit: Vec::new(),
            };
            let root = match val {
                Value::String(r) => Some(r.clone()),
                Value::Object(_) => {
                    let o = self.object(val, &f, SERVER_FIELDS)?;
                    s.unreachable = self.flag(o.get("unreachable"), &format!("{f}.unreachable"))?;
                    s.trusted = !matches!(o.get("trusted"), Some(Value::Bool(false)));
                    self.flag(o.get("trusted"), &format!("{f}.trusted"))?;
                    if let Some(k) = self.string(o, "key_digest", &format!("{f}.key_digest"))? {
                        let ok = k.strip_prefix("MD5=").is_some_and(|h| {
                            h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit())
                        }) || k.strip_prefix("SHA=").is_some_and(|h| {
                            h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())
                        });
                        if !ok {
                            return self.err(
                                &format!("{f}.key_digest"),
                                "`MD5=` and 32 hex digits (or `SHA=` and 64)",
                                format!("string \"{k}\""),
                            );
                        }
                        s.key_digest = k;
                    }
                    s.admit = self.strings(o, "admit", &format!("{f}.admit"))?;
                    if let Some((i, a)) = s
                        .admit
                        .iter()
                        .enumerate()
                        .find(|(_, a)| !a.starts_with('/'))
                    {
                        return self.err(
                            &format!("{f}.admit[{i}]"),
                            "an absolute path",
                            format!("string \"{a}\""),
                        );
                    }
                    self.string(o, "root", &format!("{f}.root"))?
                }
                other => return self.err(
                    &f,
                    "a directory (string) or an object (root, unreachable, trusted, key_digest)",
                    describe(other),
                ),
            };
            let field = if matches!(val, Value::String(_)) {
                f.clone()
            } else {
                format!("{f}.root")
            };
            match root {
                Some(r) => s.root = Some(self.served_dir(&r, base, &field)?),
                None if !s.unreachable => {
                    return self.err(
                        &field,
                        "the served directory (or `unreachable: true`)",
                        "nothing",
                    )
                }
                None => {}
            }
            if s.key_digest.is_empty() {
                let host = name.rsplit_once(':').map_or(name.as_str(), |(h, _)| h);
                s.key_digest = default_digest(host);
            }
            out.servers.insert(name.clone(), s);
        }
        Ok(out)
    }

    fn flag(&self, v: Option<&Value>, field: &str) -> R<bool> {
        match v {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => self.err(field, "a boolean", describe(other)),
        }
    }

    /// A served directory: below the profile's directory (no `..`) or absolute, and existing.
    fn served_dir(&self, r: &str, base: &Path, field: &str) -> R<PathBuf> {
        let rel = Path::new(r);
        if rel.is_relative()
            && rel
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return self.err(
                field,
                "a directory below the profile's directory (no `..`), or an absolute path",
                format!("string \"{r}\""),
            );
        }
        let full = base.join(rel);
        if !full.is_dir() {
            return self.err(
                field,
                "an existing directory",
                format!("string \"{r}\" ({} is not a directory)", full.display()),
            );
        }
        Ok(full)
    }
}

/// `remote_files` as the profile writes it (a plain directory where nothing else is said; a stand-in
/// key digest is left out).
pub fn to_json(r: &RemoteServers) -> Value {
    let m: serde_json::Map<String, Value> = r
        .servers
        .iter()
        .map(|(name, s)| {
            let host = name.rsplit_once(':').map_or(name.as_str(), |(h, _)| h);
            let root = s.root.as_ref().map(|p| p.to_string_lossy().into_owned());
            let plain = !s.unreachable
                && s.trusted
                && s.admit.is_empty()
                && s.key_digest == default_digest(host);
            let v = match (plain, root) {
                (true, Some(root)) => Value::String(root),
                (_, root) => {
                    let mut o = serde_json::Map::new();
                    if let Some(root) = root {
                        o.insert("root".into(), Value::String(root));
                    }
                    if s.unreachable {
                        o.insert("unreachable".into(), Value::Bool(true));
                    }
                    if !s.trusted {
                        o.insert("trusted".into(), Value::Bool(false));
                    }
                    if !s.admit.is_empty() {
                        o.insert("admit".into(), serde_json::json!(s.admit));
                    }
                    if s.key_digest != default_digest(host) {
                        o.insert("key_digest".into(), Value::String(s.key_digest.clone()));
                    }
                    Value::Object(o)
                }
            };
            (name.clone(), v)
        })
        .collect();
    Value::Object(m)
}

/// Makes the relative served directories of a profile's `remote_files` (JSON) absolute, from `dir`
/// (the directory of the profile they were written for).
pub fn rebase_json(remote: &mut Value, dir: &Path) {
    let Some(m) = remote.as_object_mut() else {
        return;
    };
    for v in m.values_mut() {
        let slot = match v {
            Value::String(_) => Some(v),
            Value::Object(o) => o.get_mut("root"),
            _ => None,
        };
        if let Some(slot) = slot {
            if let Some(r) = slot.as_str() {
                *slot = Value::String(dir.join(r).to_string_lossy().into_owned());
            }
        }
    }
}

/// A served tree as a read-only file system: the server's `/` is the entry's `root` (paths never
/// leave it: the [`super::vfs::Vfs`] over it resolves links and `..` inside). Objects count as owned
/// by root, their change time is their modification time (as for `files_root`).
pub struct ServedTree<'a> {
    pub root: &'a Path,
}

impl ServedTree<'_> {
    fn real(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }
}

impl BaseFs for ServedTree<'_> {
    fn lstat(&self, path: &str) -> Option<Meta> {
        if path == "/" {
            return Some(Meta::new(Kind::Dir, 0o755, 0));
        }
        let md = std::fs::symlink_metadata(self.real(path)).ok()?;
        Some(super::files::meta_of(&md))
    }
    fn read(&self, path: &str, max: u64) -> Result<Vec<u8>, ReadError> {
        read_regular(&self.real(path), max)
    }
    fn readlink(&self, path: &str) -> Option<String> {
        std::fs::read_link(self.real(path))
            .ok()
            .map(|p| p.to_string_lossy().into_owned())
    }
    fn list(&self, path: &str) -> Option<Vec<String>> {
        let mut v: Vec<String> = std::fs::read_dir(self.real(path))
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &str, base: &Path) -> Result<RemoteServers, String> {
        let r = Reader { file: "p.json" };
        let v: Value = serde_json::from_str(v).map_err(|e| e.to_string())?;
        r.remote_files(Some(&v), base).map_err(|e| e.to_string())
    }

    #[test]
    fn shapes() -> Result<(), String> {
        let dir = std::env::temp_dir().join(format!("cfsim-remote-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("hub")).map_err(|e| e.to_string())?;
        let s = parse(
            r#"{"hub": "hub", "10.0.0.9:5310": {"unreachable": true},
                "new": {"root": "hub", "trusted": false, "key_digest": "MD5=0123456789abcdef0123456789abcdef",
                        "admit": ["/var/cfengine/masterfiles/"]}}"#,
            &dir,
        )?;
        let get =
            |name: &str, port: &str| s.lookup(name, port).cloned().ok_or(format!("no {name}"));
        assert_eq!(get("hub", "5308")?.root, Some(dir.join("hub")));
        assert!(get("10.0.0.9", "5310")?.unreachable);
        assert!(s.lookup("10.0.0.9", "5308").is_none());
        let n = get("new", "1")?;
        assert!(!n.trusted);
        assert_eq!(n.key_digest, "MD5=0123456789abcdef0123456789abcdef");
        assert!(n.admits("/var/cfengine/masterfiles"));
        assert!(n.admits("/var/cfengine/masterfiles/lib/../promises.cf"));
        assert!(!n.admits("/var/cfengine/masterfiles2/x"));
        assert!(!n.admits("/var/cfengine/masterfiles/../inputs/x"));
        assert!(get("hub", "1")?.admits("/etc/shadow"));
        let back = to_json(&s);
        let again = Reader { file: "p.json" }
            .remote_files(Some(&back), &dir)
            .map_err(|e| e.to_string())?;
        assert_eq!(again, s);
        let mut rel =
            serde_json::json!({"a": "hub", "b": {"root": "hub"}, "c": {"unreachable": true}});
        rebase_json(&mut rel, Path::new("/x"));
        assert_eq!(
            rel,
            serde_json::json!({"a": "/x/hub", "b": {"root": "/x/hub"}, "c": {"unreachable": true}})
        );
        for bad in [
            r#"{"hub": "../x"}"#,
            r#"{"hub": "missing"}"#,
            r#"{"hub": 3}"#,
            r#"{"hub": {}}"#,
            r#"{"hub": {"root": "hub", "port": 1}}"#,
            r#"{"localhost": "hub"}"#,
            r#"{"hub": {"root": "hub", "key_digest": "x"}}"#,
            r#"{"hub": {"root": "hub", "admit": ["var"]}}"#,
            r#"[]"#,
        ] {
            match parse(bad, &dir) {
                Ok(_) => return Err(format!("{bad}: accepted")),
                Err(e) => assert!(e.contains("remote_files"), "{bad}: {e}"),
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
