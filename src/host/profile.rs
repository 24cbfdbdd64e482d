//! JSON host profile → [`Host`]. Strict: unknown fields and wrong shapes are errors of the form
//! `FILE: field `x.y`: expected ..., got ...` (see `docs-host.md` and `policies/hosts/schema.json`).
//! Limits: profile files up to [`MAX_PROFILE_BYTES`]; only Linux kernels are simulated.

use std::net::Ipv4Addr;
use std::path::Path;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::time::parse_rfc3339;
use super::{FileSystem, Host, HostError, HostTime, OsInfo, DEFAULT_CF_COMPONENTS};

/// Largest profile accepted (bytes).
pub const MAX_PROFILE_BYTES: u64 = 8 * 1024 * 1024;
/// Longest host or domain name a profile may give (RFC 1035).
pub const MAX_DNS_NAME: usize = 253;
/// Longest label of a host or domain name (RFC 1035).
pub const MAX_DNS_LABEL: usize = 63;

/// Interface flag names cf-agent prints (`sys.interface_flags`), in its order.
pub const FLAG_NAMES: &[&str] = &[
    "up",
    "broadcast",
    "debug",
    "loopback",
    "pointopoint",
    "notrailers",
    "running",
    "noarp",
    "promisc",
    "allmulti",
    "multicast",
];

const TOP_FIELDS: &[&str] = &[
    "$schema",
    "description",
    "hostname",
    "domain",
    "host_aliases",
    "os",
    "cpus",
    "interfaces",
    "default_gateway",
    "time",
    "timezone",
    "uptime_minutes",
    "key_digest",
    "classes",
    "env",
    "files_root",
    "files",
    "commands",
    "users",
    "groups",
    "current_user",
    "cf_components",
    "packages",
    "services",
    "processes",
    "remote_files",
];
const OS_FIELDS: &[&str] = &[
    "kernel",
    "arch",
    "kernel_release",
    "kernel_version",
    "release_id",
    "version",
    "os_release",
    "systemd",
];

/// Read and convert the profile at `path`.
pub fn load_profile(path: &Path) -> Result<Host, HostError> {
    let file = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| HostError::Io {
        file: file.clone(),
        message: e.to_string(),
    })?;
    if meta.len() > MAX_PROFILE_BYTES {
        return Err(HostError::Io {
            file,
            message: format!(
                "file is {} bytes, the limit is {MAX_PROFILE_BYTES}",
                meta.len()
            ),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|e| HostError::Io {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    parse_profile(&text, &file, base)
}

/// Convert profile text; `file` names it in errors, `base` resolves a relative `files_root`.
pub fn parse_profile(text: &str, file: &str, base: &Path) -> Result<Host, HostError> {
    let v: Value = serde_json::from_str(text).map_err(|e| HostError::Json {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    let r = Reader { file };
    r.host(&v, base)
}

/// Short description of a JSON value for "got ..." messages.
pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) if s.chars().count() > 40 => {
            format!("string \"{}…\"", s.chars().take(40).collect::<String>())
        }
        Value::String(s) => format!("string \"{s}\""),
        Value::Array(a) => format!("an array of {} items", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

pub(super) struct Reader<'a> {
    pub(super) file: &'a str,
}

pub(super) type R<T> = Result<T, HostError>;

impl Reader<'_> {
    pub(super) fn err<T>(&self, field: &str, expected: &str, got: impl Into<String>) -> R<T> {
        Err(HostError::Field {
            file: self.file.to_string(),
            field: field.to_string(),
            expected: expected.to_string(),
            got: got.into(),
        })
    }

    pub(super) fn object<'v>(
        &self,
        v: &'v Value,
        field: &str,
        known: &[&str],
    ) -> R<&'v Map<String, Value>> {
        let Some(m) = v.as_object() else {
            return self.err(field, "an object", describe(v));
        };
        for k in m.keys() {
            if !known.contains(&k.as_str()) {
                let f = if field.is_empty() {
                    k.clone()
                } else {
                    format!("{field}.{k}")
                };
                return self.err(
                    &f,
                    &format!("one of the known fields ({})", known.join(", ")),
                    "an unknown field",
                );
            }
        }
        Ok(m)
    }

    pub(super) fn string(
        &self,
        m: &Map<String, Value>,
        key: &str,
        field: &str,
    ) -> R<Option<String>> {
        match m.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => self.err(field, "a string", describe(other)),
        }
    }

    pub(super) fn req_string(&self, m: &Map<String, Value>, key: &str, field: &str) -> R<String> {
        match self.string(m, key, field)? {
            Some(s) if !s.is_empty() => Ok(s),
            Some(_) => self.err(field, "a non-empty string", "an empty string"),
            None => self.err(field, "a string", "nothing (the field is required)"),
        }
    }

    pub(super) fn uint(
        &self,
        m: &Map<String, Value>,
        key: &str,
        field: &str,
        max: u64,
    ) -> R<Option<u64>> {
        match m.get(key) {
            None => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if n <= max => Ok(Some(n)),
                _ => self.err(field, &format!("an integer from 0 to {max}"), describe(v)),
            },
        }
    }

    pub(super) fn strings(&self, m: &Map<String, Value>, key: &str, field: &str) -> R<Vec<String>> {
        match m.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(i, x)| match x {
                    Value::String(s) => Ok(s.clone()),
                    other => self.err(&format!("{field}[{i}]"), "a string", describe(other)),
                })
                .collect(),
            Some(other) => self.err(field, "an array of strings", describe(other)),
        }
    }

    pub(super) fn string_map(
        &self,
        m: &Map<String, Value>,
        key: &str,
        field: &str,
    ) -> R<IndexMap<String, String>> {
        match m.get(key) {
            None => Ok(IndexMap::new()),
            Some(Value::Object(o)) => o
                .iter()
                .map(|(k, x)| match x {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    other => self.err(&format!("{field}.{k}"), "a string", describe(other)),
                })
                .collect(),
            Some(other) => self.err(field, "an object of strings", describe(other)),
        }
    }

    /// A host or domain name within DNS's limits (RFC 1035: at most 253 characters, labels of at most
    /// 63): the agent derives a class per label and suffix, so an unbounded name would cost quadratic
    /// memory.
    fn dns_name(&self, field: &str, name: String) -> R<String> {
        if name.len() > MAX_DNS_NAME {
            return self.err(
                field,
                "a DNS name of at most 253 characters",
                format!("{} characters", name.len()),
            );
        }
        if let Some(l) = name.split('.').find(|l| l.len() > MAX_DNS_LABEL) {
            return self.err(
                field,
                "DNS labels of at most 63 characters",
                format!("a label of {} characters", l.len()),
            );
        }
        Ok(name)
    }

    fn host(&self, v: &Value, base: &Path) -> R<Host> {
        let m = self.object(v, "", TOP_FIELDS)?;
        let hostname = self.req_string(m, "hostname", "hostname")?;
        let hostname = self.dns_name("hostname", hostname)?;
        let os = self.os(m.get("os"))?;
        let cpus = match m.get("cpus") {
            Some(v) => match v.as_u64() {
                Some(n @ 1..=65_536) => n as u32,
                _ => return self.err("cpus", "an integer from 1 to 65536", describe(v)),
            },
            None => {
                return self.err(
                    "cpus",
                    "an integer from 1 to 65536",
                    "nothing (the field is required)",
                )
            }
        };
        let interfaces = self.interfaces(m.get("interfaces"))?;
        let default_gateway = match m.get("default_gateway") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => match s.parse::<Ipv4Addr>() {
                Ok(a) => Some(a),
                Err(_) => {
                    return self.err(
                        "default_gateway",
                        "an IPv4 address like 192.0.2.1",
                        describe(&Value::String(s.clone())),
                    )
                }
            },
            Some(other) => {
                return self.err(
                    "default_gateway",
                    "an IPv4 address string or null",
                    describe(other),
                )
            }
        };
        let time_s = self.req_string(m, "time", "time")?;
        let (epoch, utc_offset) = match parse_rfc3339(&time_s) {
            Ok(t) => t,
            Err(why) => {
                return self.err(
                    "time",
                    &format!("an RFC 3339 time like 2026-11-21T08:16:16+01:00 ({why})"),
                    format!("string \"{time_s}\""),
                )
            }
        };
        let zone = self
            .string(m, "timezone", "timezone")?
            .unwrap_or_else(|| "UTC".to_string());
        let uptime_minutes =
            self.uint(m, "uptime_minutes", "uptime_minutes", u64::from(u32::MAX))?;
        let key_digest = match self.string(m, "key_digest", "key_digest")? {
            Some(k) => {
                let ok = k
                    .strip_prefix("MD5=")
                    .is_some_and(|h| h.len() == 32 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                    || k.strip_prefix("SHA=")
                        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
                if !ok {
                    return self.err(
                        "key_digest",
                        "`MD5=` and 32 hex digits (or `SHA=` and 64)",
                        format!("string \"{k}\""),
                    );
                }
                Some(k)
            }
            None => None,
        };
        let files_root = match self.string(m, "files_root", "files_root")? {
            None => None,
            Some(r) => {
                let rel = Path::new(&r);
                // a relative root stays below the profile's directory: `..` would hand the host
                // whatever lies above it; an absolute root is the user's explicit choice
                if rel.is_relative()
                    && rel
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir))
                {
                    return self.err(
                        "files_root",
                        "a directory below the profile's directory (no `..`), or an absolute path",
                        format!("string \"{r}\""),
                    );
                }
                let full = base.join(rel);
                if !full.is_dir() {
                    return self.err(
                        "files_root",
                        "an existing directory",
                        format!("string \"{r}\" ({} is not a directory)", full.display()),
                    );
                }
                Some(full)
            }
        };
        let users = self.users(m.get("users"))?;
        let current_user = self
            .string(m, "current_user", "current_user")?
            .unwrap_or_else(|| "root".to_string());
        let cf_components = match m.get("cf_components") {
            None => DEFAULT_CF_COMPONENTS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            Some(_) => self.strings(m, "cf_components", "cf_components")?,
        };
        Ok(Host {
            origin: self.file.to_string(),
            hostname,
            domain: self.dns_name(
                "domain",
                self.string(m, "domain", "domain")?.unwrap_or_default(),
            )?,
            host_aliases: self.strings(m, "host_aliases", "host_aliases")?,
            os,
            cpus,
            interfaces,
            default_gateway,
            time: HostTime {
                epoch,
                utc_offset,
                zone,
            },
            uptime_minutes,
            key_digest,
            systemd: self.os_systemd(m.get("os"))?,
            extra_classes: self.strings(m, "classes", "classes")?,
            env: self.string_map(m, "env", "env")?,
            files: FileSystem {
                root: files_root,
                map: self.files(m.get("files"))?,
            },
            commands: self.commands(m.get("commands"))?,
            users,
            groups: self.groups(m.get("groups"))?,
            current_user,
            cf_components,
            packages: self.packages(m.get("packages"))?,
            services: self.services(m.get("services"))?,
            processes: self.processes(m.get("processes"))?,
            remote: self.remote_files(m.get("remote_files"), base)?,
            net_watch: Default::default(),
        })
    }

    fn os(&self, v: Option<&Value>) -> R<OsInfo> {
        let Some(v) = v else {
            return self.err("os", "an object", "nothing (the field is required)");
        };
        let m = self.object(v, "os", OS_FIELDS)?;
        let sysname = self
            .string(m, "kernel", "os.kernel")?
            .unwrap_or_else(|| "Linux".to_string());
        if sysname != "Linux" {
            return self.err(
                "os.kernel",
                "\"Linux\" (only Linux hosts are simulated)",
                format!("string \"{sysname}\""),
            );
        }
        let release_id = self.req_string(m, "release_id", "os.release_id")?;
        let version = self.req_string(m, "version", "os.version")?;
        let mut os_release = self.string_map(m, "os_release", "os.os_release")?;
        if os_release.is_empty() {
            os_release.insert("ID".into(), release_id);
            os_release.insert("VERSION_ID".into(), version);
        }
        Ok(OsInfo {
            sysname,
            machine: self.req_string(m, "arch", "os.arch")?,
            release: self.req_string(m, "kernel_release", "os.kernel_release")?,
            version: self.req_string(m, "kernel_version", "os.kernel_version")?,
            os_release,
        })
    }

    fn os_systemd(&self, v: Option<&Value>) -> R<bool> {
        match v.and_then(|o| o.get("systemd")) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => self.err("os.systemd", "a boolean", describe(other)),
        }
    }
}
