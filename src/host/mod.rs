//! The simulated host: one [`Host`] value per run holding every machine fact cfsim may use.
//!
//! A host comes from a JSON profile ([`profile`]) or from the local machine ([`local`], the only code
//! in cfsim that reads the machine). Everything machine-dependent is derived from it: hard classes
//! ([`hard_classes`](mod@hard_classes)), `sys.*` variables ([`sysvars`]), `iprange()` ([`iprange`]), and the file,
//! command, environment and user lookups used by functions and promise types.
//! This module owns the data model and the lookups; it does not derive classes or variables.

pub mod canon;
pub mod capture;
pub mod capture_services;
pub mod changedb;
mod files;
pub mod generate;
pub mod hard_classes;
pub mod iprange;
pub mod keydigest;
pub mod local;
pub mod names;
mod netlink;
pub mod netwatch;
pub mod os_classes;
pub mod packages;
pub mod policy_server;
pub mod processes;
pub mod profile;
pub mod profile_out;
mod profile_parts;
pub mod read;
pub mod remote;
pub mod services;
pub mod simreport;
pub mod spill;
pub mod sysvars;
mod sysvars_net;
pub mod time;
pub mod users;
pub mod vfs;
pub mod writeroot;

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

pub use files::{LocalBase, MAX_HOST_FILE_BYTES, WORKDIR_LAYOUT};
pub use hard_classes::{hard_classes, ClassSet, HardClass};
pub use sysvars::{sys_vars, SysValue, SysVar};

/// Every fact about one host that cfsim may use.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// Where the facts came from: `local` or the profile path (for diagnostics).
    pub origin: String,
    /// Node name as `uname -n` returns it (may be qualified).
    pub hostname: String,
    /// DNS domain; empty when unknown. `hostname.domain` plays the resolver's canonical name.
    pub domain: String,
    /// Extra names the resolver returns for the fully qualified name (`/etc/hosts` aliases).
    pub host_aliases: Vec<String>,
    pub os: OsInfo,
    /// Online logical CPUs.
    pub cpus: u32,
    /// Interfaces in kernel (ifindex) order.
    pub interfaces: Vec<Interface>,
    /// IPv4 default gateway, if any.
    pub default_gateway: Option<Ipv4Addr>,
    pub time: HostTime,
    /// Minutes since boot (`sys.uptime`), if known.
    pub uptime_minutes: Option<u64>,
    /// Public key digest as cf-agent prints it (`MD5=` + 32 hex digits), if the host has a key.
    pub key_digest: Option<String>,
    /// Whether PID 1 is systemd (`systemd` hard class).
    pub systemd: bool,
    /// Extra hard classes, tagged `source=agent` like other discovered classes.
    pub extra_classes: Vec<String>,
    /// Environment variables of the agent process.
    pub env: IndexMap<String, String>,
    pub files: FileSystem,
    /// Command results keyed by the exact command line.
    pub commands: IndexMap<String, CommandResult>,
    pub users: Vec<User>,
    pub groups: Vec<Group>,
    /// Name of the user the agent runs as (`sys.user_data`).
    pub current_user: String,
    /// Which cf-* binaries exist in `/usr/bin` (`sys.cf_agent` …); default: all of a Debian package.
    pub cf_components: Vec<String>,
    /// The package database (profile field `packages`; empty for the local machine, whose
    /// functions read the agent's own inventory files).
    pub packages: packages::PackageDb,
    /// The virtual service inventory (profile `services`); `None`: service commands are not answered.
    pub services: Option<services::Inventory>,
    /// The process table (profile `processes`); `None`: the host has none to show (no `ps`).
    pub processes: Option<Vec<processes::Process>>,
    /// The policy servers `copy_from` may copy from (profile `remote_files`).
    pub remote: remote::RemoteServers,
    /// Armed when the network facts were left out of this host (`local::discover_deferred`).
    pub net_watch: netwatch::NetWatch,
}

/// Kernel and distribution facts.
#[derive(Debug, Clone, PartialEq)]
pub struct OsInfo {
    /// `uname -s`, e.g. `Linux` (lower-cased by the derivations).
    pub sysname: String,
    /// `uname -m`, e.g. `x86_64`.
    pub machine: String,
    /// `uname -r`, the kernel release.
    pub release: String,
    /// `uname -v`, the kernel version string.
    pub version: String,
    /// Parsed `/etc/os-release` (`ID`, `VERSION_ID`, `NAME`, …) in file order; empty when absent.
    /// Distribution marker files (`/etc/debian_version`, `/etc/issue`, …) are host files
    /// ([`Host::file`]); [`os_classes::DISTRO_FILES`] lists the ones that matter.
    pub os_release: IndexMap<String, String>,
}

/// One network interface.
#[derive(Debug, Clone, PartialEq)]
pub struct Interface {
    pub name: String,
    /// Kernel interface index (1 = first).
    pub index: u32,
    /// Hardware address `aa:bb:cc:dd:ee:ff`, if the interface has one.
    pub mac: Option<String>,
    /// Flags as cf-agent names them: `up broadcast debug loopback pointopoint notrailers running noarp
    /// promisc allmulti multicast`.
    pub flags: Vec<String>,
    pub ipv4: Vec<Ipv4Net>,
    pub ipv6: Vec<Ipv6Net>,
}

impl Interface {
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

/// An IPv4 address with its prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Net {
    pub address: Ipv4Addr,
    pub prefix: u8,
}

/// An IPv6 address with its prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv6Net {
    pub address: Ipv6Addr,
    pub prefix: u8,
}

/// The host clock: seconds since the epoch and the local UTC offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostTime {
    pub epoch: i64,
    /// Local offset from UTC in seconds (east positive).
    pub utc_offset: i32,
    /// Time zone name, informational only (e.g. `Europe/Oslo`, `UTC`).
    pub zone: String,
}

/// A simulated file: content and mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFile {
    pub content: String,
    pub mode: u32,
}

/// The host's file system: a map of files, optionally backed by a directory standing for `/`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileSystem {
    /// Directory whose contents stand for the host's `/` (profile `files_root`).
    pub root: Option<PathBuf>,
    /// Absolute path → file. Wins over `root`.
    pub map: IndexMap<String, HostFile>,
}

/// The recorded result of running one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandResult {
    pub exit_code: i32,
    /// stdout and stderr merged, as cf-agent reads it.
    pub output: String,
}

/// A passwd entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub gecos: String,
    pub home: String,
    pub shell: String,
    /// The `/etc/shadow` password field (`*`, `!`, a crypt hash, `!hash` when locked), if known.
    pub password: Option<String>,
    /// The `/etc/shadow` account expiry field (days since the epoch; empty: none), if known.
    pub expire: Option<String>,
}

/// A group entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    pub gid: u32,
    pub members: Vec<String>,
}

/// Why a host could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The profile file could not be read.
    Io { file: String, message: String },
    /// The profile is not JSON.
    Json { file: String, message: String },
    /// A field is missing or has the wrong shape: `FILE: field `x.y`: expected ..., got ...`.
    Field {
        file: String,
        field: String,
        expected: String,
        got: String,
    },
    /// Local discovery failed.
    Local { message: String },
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Io { file, message } => {
                write!(f, "{file}: cannot read host profile: {message}")
            }
            HostError::Json { file, message } => {
                write!(f, "{file}: host profile is not valid JSON: {message}")
            }
            HostError::Field {
                file,
                field,
                expected,
                got,
            } => {
                write!(f, "{file}: field `{field}`: expected {expected}, got {got}")
            }
            HostError::Local { message } => write!(f, "local host discovery failed: {message}"),
        }
    }
}

impl std::error::Error for HostError {}

/// Load the host for a run: `"local"` discovers this machine, anything else is a profile path.
pub fn load_host(spec: &str) -> Result<Host, HostError> {
    if spec == "local" {
        local::discover()
    } else {
        profile::load_profile(Path::new(spec))
    }
}

impl Host {
    /// The recorded result of `cmdline`, if the host knows it.
    pub fn command(&self, cmdline: &str) -> Option<&CommandResult> {
        self.commands.get(cmdline)
    }

    /// An environment variable of the agent process.
    pub fn env(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    pub fn users(&self) -> &[User] {
        &self.users
    }

    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    pub fn user(&self, name: &str) -> Option<&User> {
        self.users.iter().find(|u| u.name == name)
    }

    pub fn user_by_uid(&self, uid: u32) -> Option<&User> {
        self.users.iter().find(|u| u.uid == uid)
    }

    pub fn group(&self, name: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// Every address the agent discovers, as `iprange()` sees them: IPv4 of interfaces that are up
    /// (kernel order), then IPv6 except `::1` (interfaces sorted by name, as `ifconfig -a` lists them).
    pub fn agent_addresses(&self) -> Vec<(String, std::net::IpAddr)> {
        self.net_watch.trip();
        let mut out = Vec::new();
        for iface in &self.interfaces {
            if iface.ipv4.is_empty() || !iface.has_flag("up") {
                continue;
            }
            for a in &iface.ipv4 {
                out.push((iface.name.clone(), std::net::IpAddr::V4(a.address)));
            }
        }
        for iface in self.interfaces_by_name() {
            for a in &iface.ipv6 {
                if a.address != Ipv6Addr::LOCALHOST {
                    out.push((iface.name.clone(), std::net::IpAddr::V6(a.address)));
                }
            }
        }
        out
    }

    /// Interfaces sorted by name (the order `ifconfig -a` prints them).
    pub fn interfaces_by_name(&self) -> Vec<&Interface> {
        let mut v: Vec<&Interface> = self.interfaces.iter().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    /// `(fqhost, uqhost, domain)` exactly as cf-agent's `CalculateDomainName` computes them.
    pub fn names(&self) -> (String, String, String) {
        let nodename = self.hostname.to_lowercase();
        let domain = self.domain.to_lowercase();
        let dnsname = if domain.is_empty() {
            String::new()
        } else if nodename.ends_with(&format!(".{domain}")) {
            nodename.clone()
        } else {
            format!("{nodename}.{domain}")
        };
        calculate_domain_name(&nodename, &dnsname)
    }
}

/// cf-agent's `CalculateDomainName(nodename, dnsname)` → `(fqname, uqname, domain)`.
pub fn calculate_domain_name(nodename: &str, dnsname: &str) -> (String, String, String) {
    let fq = if dnsname.contains('.') {
        dnsname.to_string()
    } else {
        nodename.to_string()
    };
    let qualified_by_dns = fq.len() > nodename.len()
        && fq.starts_with(nodename)
        && fq.as_bytes().get(nodename.len()) == Some(&b'.');
    if qualified_by_dns {
        let domain = fq[nodename.len() + 1..].to_string();
        (fq, nodename.to_string(), domain)
    } else if let Some(p) = nodename.find('.') {
        (fq, nodename[..p].to_string(), nodename[p + 1..].to_string())
    } else {
        (fq, nodename.to_string(), String::new())
    }
}

/// The cf-* binaries of the Debian cfengine3 3.21.0 package that set `sys.<name>` variables.
pub const DEFAULT_CF_COMPONENTS: &[&str] = &[
    "cf-agent",
    "cf-serverd",
    "cf-monitord",
    "cf-key",
    "cf-runagent",
    "cf-execd",
    "cf-promises",
    "cf-upgrade",
    "cf-net",
    "cf-check",
    "cf-secret",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn host_with_files(paths: &[&str]) -> Host {
        let mut h = profile::parse_profile(
            r#"{"hostname":"h","cpus":1,"time":"2026-01-01T00:00:00Z","os":{"arch":"x86_64","kernel_release":"6","kernel_version":"v","release_id":"debian","version":"12"}}"#,
            "t.json",
            Path::new("/nonexistent"),
        )
        .unwrap_or_else(|e| unreachable!("{e}"));
        for p in paths {
            h.files.map.insert(
                p.to_string(),
                HostFile {
                    content: String::new(),
                    mode: 0o644,
                },
            );
        }
        h
    }

    #[test]
    fn file_lookups_over_the_map() {
        let h = host_with_files(&["/etc/a.conf", "/etc/app/b.conf", "/var/x"]);
        assert!(h.file("/etc/a.conf").is_some());
        assert!(h.file("/etc/nope").is_none());
        assert!(h.file_exists("/var/x"));
        assert!(h.is_dir("/etc") && h.is_dir("/etc/app/") && h.is_dir("/"));
        assert!(!h.is_dir("/etc/a.conf"));
        assert_eq!(
            h.list_dir("/etc"),
            vec!["a.conf".to_string(), "app".to_string()]
        );
        assert_eq!(h.list_dir("/"), vec!["etc".to_string(), "var".to_string()]);
        assert!(h.command("/bin/true").is_none());
        assert!(h.env("PATH").is_none());
    }

    #[test]
    fn qualified_hostname_with_domain_is_not_doubled() {
        let mut h = host_with_files(&[]);
        h.hostname = "db1.dc1.example.net".into();
        h.domain = "dc1.example.net".into();
        assert_eq!(
            h.names(),
            (
                "db1.dc1.example.net".into(),
                "db1".into(),
                "dc1.example.net".into()
            )
        );
        h.hostname = "Web1".into();
        h.domain = "Oslo.Example.com".into();
        assert_eq!(
            h.names(),
            (
                "web1.oslo.example.com".into(),
                "web1".into(),
                "oslo.example.com".into()
            )
        );
    }

    #[test]
    fn domain_name_rules() {
        assert_eq!(
            calculate_domain_name("vm", "vm"),
            ("vm".into(), "vm".into(), "".into())
        );
        assert_eq!(
            calculate_domain_name("web1", "web1.oslo.example.com"),
            (
                "web1.oslo.example.com".into(),
                "web1".into(),
                "oslo.example.com".into()
            )
        );
        assert_eq!(
            calculate_domain_name("db1.example.net", ""),
            ("db1.example.net".into(), "db1".into(), "example.net".into())
        );
    }
}
