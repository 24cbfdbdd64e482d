//! Local host discovery: the ONLY code in cfsim that reads the machine. Read-only, no processes:
//! `uname(2)`, `/etc/hosts` (canonical name and aliases, as the `files` resolver answers; DNS is not
//! asked), `/sys/devices/system/cpu/online`, the network links (index, MAC, flags; `running` = up
//! with carrier) from one rtnetlink dump (`super::netlink`; `/sys/class/net/*` where that is not
//! available), `/proc/net/fib_trie` + `/proc/net/route` (IPv4 addresses, prefixes and owning
//! interface; loopback addresses go to the loopback interface), `/proc/net/if_inet6`, the clock,
//! `/etc/localtime` (TZif offset), `/proc/uptime`, `/etc/os-release`, `/proc/1/exe` (systemd), the
//! host key `ppkeys/localhost.pub`, `/etc/passwd`, `/etc/shadow` (when readable), `/etc/group`,
//! `getuid(2)`, the process environment and `/usr/bin/cf-*`. Files and commands are served from the
//! real `/` (`files_root = "/"`); no command results are known in advance.

use std::fs;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::PathBuf;

use indexmap::IndexMap;

use super::keydigest::key_digest_from_pem;
use super::time::tzif_offset;
use super::{
    calculate_domain_name, FileSystem, Group, Host, HostError, HostTime, Interface, Ipv4Net,
    Ipv6Net, OsInfo, User,
};

/// The text of `path`, without `fs::read_to_string`'s
/// `statx` for a size hint (the `/proc` and `/sys` files report none; discovery reads ~30 files).
fn read(path: &str) -> Option<String> {
    String::from_utf8(read_bytes(path)?).ok()
}

/// The bytes of `path` (see [`read`]): read through `Take`, which asks the file for no size (the
/// `File` specialisation of `read_to_end` does, with `statx` and `lseek`) into a page reserved up
/// front (no probing reads of 32 bytes), at most [`super::read::MAX_READ_BYTES`].
fn read_bytes(path: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    let max = super::read::MAX_READ_BYTES;
    let mut buf = Vec::with_capacity(4096);
    fs::File::open(path)
        .ok()?
        .take(max.saturating_add(1))
        .read_to_end(&mut buf)
        .ok()?;
    // kept at its length: a page-sized block per file read would each take a fresh page of memory
    buf.shrink_to_fit();
    (buf.len() as u64 <= max).then_some(buf)
}

fn read_trim(path: &str) -> Option<String> {
    read(path).map(|s| s.trim_end_matches('\n').to_string())
}

/// Discover the machine cfsim runs on.
pub fn discover() -> Result<Host, HostError> {
    discover_with(true)
}

/// [`discover`] without the network (no interfaces, addresses or default gateway) and with an armed
/// [`super::netwatch::NetWatch`]: a run on it that asks for a network fact must be run again on the
/// host [`discover`] gives (see `super::netwatch`).
pub fn discover_deferred() -> Result<Host, HostError> {
    discover_with(false)
}

fn discover_with(network: bool) -> Result<Host, HostError> {
    // the kernel's names in one system call (what /proc/sys/kernel/{hostname,ostype,osrelease,version,
    // arch} hold, five files to open and read)
    let uts = rustix::system::uname();
    let text = |c: &std::ffi::CStr| c.to_string_lossy().into_owned();
    let hostname = text(uts.nodename());
    if hostname.is_empty() {
        return Err(HostError::Local {
            message: "the kernel has no host name (uname)".into(),
        });
    }
    let os = OsInfo {
        sysname: text(uts.sysname()),
        machine: text(uts.machine()),
        release: text(uts.release()),
        version: text(uts.version()),
        os_release: read("/etc/os-release")
            .or_else(|| read("/usr/lib/os-release"))
            .map(|t| parse_env_file(&t))
            .unwrap_or_default(),
    };
    let hosts = read("/etc/hosts").unwrap_or_default();
    let nodename = hostname.to_lowercase();
    let dnsname = hosts_lookup(&hosts, &nodename)
        .map(|(c, _)| c.to_lowercase())
        .unwrap_or_default();
    let (fq, _, domain) = calculate_domain_name(&nodename, &dnsname);
    let host_aliases = hosts_lookup(&hosts, &fq)
        .map(|(_, a)| a)
        .unwrap_or_default();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| HostError::Local {
            message: format!("clock before 1970: {e}"),
        })?
        .as_secs() as i64;
    let utc_offset = read_bytes("/etc/localtime")
        .and_then(|d| tzif_offset(&d, now))
        .unwrap_or(0);
    let zone = read_trim("/etc/timezone").unwrap_or_else(|| {
        if utc_offset == 0 {
            "UTC".into()
        } else {
            "local".into()
        }
    });
    let mut users = parse_passwd(&read("/etc/passwd").unwrap_or_default());
    // the shadow password field and expiry, when readable (root): users promises compare them
    if let Some(text) = read("/etc/shadow") {
        for (name, password, expire) in super::users::parse_shadow(&text) {
            if let Some(u) = users.iter_mut().find(|u| u.name == name) {
                u.password = Some(redact_hash(&password));
                u.expire = Some(expire);
            }
        }
    }
    // the real user id (the first `Uid:` of /proc/self/status)
    let uid = rustix::process::getuid().as_raw();
    let current_user = users
        .iter()
        .find(|x| x.uid == uid)
        .map_or_else(|| "root".to_string(), |u| u.name.clone());
    let systemd = fs::read_link("/proc/1/exe")
        .map(|p| p.ends_with("systemd"))
        .unwrap_or(false);
    let cf_components = super::DEFAULT_CF_COMPONENTS
        .iter()
        .chain(["cf-twin", "cf-know", "cf-report", "cf-hub", "cf-reactor"].iter())
        .filter(|c| fs::metadata(format!("/usr/bin/{c}")).is_ok())
        .map(|c| c.to_string())
        .collect();
    let (interfaces, default_gateway) = if network {
        interfaces()
    } else {
        (Vec::new(), None)
    };
    Ok(Host {
        origin: "local".into(),
        hostname,
        domain,
        host_aliases,
        os,
        cpus: cpu_count(&read_trim("/sys/devices/system/cpu/online").unwrap_or_default()),
        interfaces,
        default_gateway,
        time: HostTime {
            epoch: now,
            utc_offset,
            zone,
        },
        uptime_minutes: read("/proc/uptime")
            .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
            .map(|secs| (secs as u64) / 60),
        key_digest: read("/var/lib/cfengine3/ppkeys/localhost.pub")
            .and_then(|p| key_digest_from_pem(&p)),
        systemd,
        extra_classes: Vec::new(),
        env: std::env::vars().collect(),
        files: FileSystem {
            root: Some(PathBuf::from("/")),
            map: IndexMap::new(),
        },
        commands: IndexMap::new(),
        users,
        groups: parse_group(&read("/etc/group").unwrap_or_default()),
        current_user,
        cf_components,
        packages: super::packages::PackageDb::default(),
        services: None,
        processes: None,
        remote: Default::default(),
        net_watch: if network {
            super::netwatch::NetWatch::default()
        } else {
            super::netwatch::NetWatch::armed()
        },
    })
}

/// `KEY=value` lines (os-release syntax: optional quotes, `#` comments).
pub fn parse_env_file(text: &str) -> IndexMap<String, String> {
    let mut m = IndexMap::new();
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some((k, v)) = l.split_once('=') {
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
                .unwrap_or(v);
            m.insert(k.trim().to_string(), v.to_string());
        }
    }
    m
}

/// The `files` resolver: first `/etc/hosts` line naming `name` → (canonical name, aliases).
pub fn hosts_lookup(hosts: &str, name: &str) -> Option<(String, Vec<String>)> {
    for line in hosts.lines() {
        let l = line.split('#').next().unwrap_or("");
        let mut it = l.split_whitespace();
        let Some(addr) = it.next() else { continue };
        if addr.parse::<Ipv4Addr>().is_err() {
            continue;
        }
        let names: Vec<&str> = it.collect();
        if names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            let canonical = names.first()?.to_string();
            return Some((
                canonical,
                names.iter().skip(1).map(|s| s.to_string()).collect(),
            ));
        }
    }
    None
}

/// Count CPUs in a `/sys/devices/system/cpu/online` list like `0-3,6`.
pub fn cpu_count(list: &str) -> u32 {
    list.trim()
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('-') {
            Some((a, b)) => match (a.parse::<u32>(), b.parse::<u32>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => u32::from(p.parse::<u32>().is_ok()),
        })
        .sum()
}

/// A shadow password field with any crypt hash replaced by `$cfsim-redacted$` (its `!` lock prefix
/// kept): the lock state is what users promises need, and a profile written from these facts must not
/// carry the machine's hashes. `*`, `!`, `!*`, `x` and empty fields stay as they are.
fn redact_hash(field: &str) -> String {
    let rest = field.trim_start_matches('!');
    let bangs = &field[..field.len() - rest.len()];
    if rest.starts_with('$') {
        format!("{bangs}$cfsim-redacted$")
    } else {
        field.to_string()
    }
}

fn parse_passwd(text: &str) -> Vec<User> {
    text.lines()
        .filter_map(|l| {
            let ([name, _, uid, gid, gecos, home, shell], 7) = colon_fields::<7>(l) else {
                return None;
            };
            Some(User {
                name: name.to_string(),
                uid: uid.parse().ok()?,
                gid: gid.parse().ok()?,
                gecos: gecos.to_string(),
                home: home.to_string(),
                shell: shell.to_string(),
                password: None,
                expire: None,
            })
        })
        .collect()
}

fn parse_group(text: &str) -> Vec<Group> {
    text.lines()
        .filter_map(|l| {
            let ([name, _, gid, members], 4) = colon_fields::<4>(l) else {
                return None;
            };
            Some(Group {
                name: name.to_string(),
                gid: gid.parse().ok()?,
                members: members
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            })
        })
        .collect()
}

/// The first `N` `:`-separated fields of an `/etc/passwd`-style line (each without the colons; a field
/// ends at the next colon) and how many of them the line has (at most `N`); the rest are `""`. A byte
/// scan: `str::split(':')` collected into a `Vec` cost ~1,400 instructions a line, a tenth of a small
/// `cfsim agent` run for the account files.
pub(super) fn colon_fields<const N: usize>(line: &str) -> ([&str; N], usize) {
    let mut out = [""; N];
    let mut n = 0;
    let mut rest = line;
    while let Some(slot) = out.get_mut(n) {
        n += 1;
        match rest.bytes().position(|b| b == b':') {
            Some(i) => {
                *slot = rest.get(..i).unwrap_or("");
                rest = rest.get(i + 1..).unwrap_or("");
            }
            None => {
                *slot = rest;
                break;
            }
        }
    }
    (out, n)
}

const FLAG_BITS: &[(u32, &str)] = &[
    (0x1, "up"),
    (0x2, "broadcast"),
    (0x4, "debug"),
    (0x8, "loopback"),
    (0x10, "pointopoint"),
    (0x20, "notrailers"),
    (0x40, "running"),
    (0x80, "noarp"),
    (0x100, "promisc"),
    (0x200, "allmulti"),
    (0x1000, "multicast"),
];

/// Interfaces from sysfs and procfs, plus the IPv4 default gateway.
fn interfaces() -> (Vec<Interface>, Option<Ipv4Addr>) {
    let mut out = match super::netlink::links() {
        Some(links) => links.iter().map(link_interface).collect(),
        None => sysfs_links(),
    };
    out.sort_by_key(|i| i.index);
    let routes = parse_routes(&read("/proc/net/route").unwrap_or_default());
    for (addr, prefix) in fib_local_addresses(&read("/proc/net/fib_trie").unwrap_or_default()) {
        let owner = if addr.is_loopback() {
            out.iter().position(|i| i.has_flag("loopback"))
        } else {
            routes
                .iter()
                .filter(|r| {
                    r.gateway.is_unspecified() && r.mask != 0 && u32::from(addr) & r.mask == r.dest
                })
                .max_by_key(|r| r.mask.count_ones())
                .and_then(|r| out.iter().position(|i| i.name == r.iface))
        };
        if let Some(i) = owner.and_then(|p| out.get_mut(p)) {
            i.ipv4.push(Ipv4Net {
                address: addr,
                prefix,
            });
        }
    }
    for (iface, net) in parse_if_inet6(&read("/proc/net/if_inet6").unwrap_or_default()) {
        if let Some(i) = out.iter_mut().find(|i| i.name == iface) {
            i.ipv6.push(net);
        }
    }
    let gw = routes
        .iter()
        .find(|r| r.dest == 0 && r.mask == 0 && !r.gateway.is_unspecified())
        .map(|r| r.gateway);
    (out, gw)
}

/// An interface from its rtnetlink link: the flags as `/sys/class/net/<name>/flags` has them with
/// `running` = up with carrier (what [`sysfs_links`] reads), the hardware address if it has six bytes.
fn link_interface(l: &super::netlink::Link) -> Interface {
    // `aa:bb:…` written digit by digit (a `format!` per byte cost ~400 instructions each)
    let mac = (l.address.len() == 6).then(|| {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut m = String::with_capacity(17);
        for (i, b) in l.address.iter().enumerate() {
            if i > 0 {
                m.push(':');
            }
            m.push(char::from(HEX[usize::from(b >> 4)]));
            m.push(char::from(HEX[usize::from(b & 0xf)]));
        }
        m
    });
    interface(
        l.name.clone(),
        l.index,
        l.flags,
        || l.carrier == Some(true),
        mac,
    )
}

const RUNNING: u32 = 0x40;

/// An interface without addresses from its device flags; `running` is up with a carrier (`carrier` is
/// asked only for an interface that is up), whatever the flags said.
fn interface(
    name: String,
    index: u32,
    flags: u32,
    carrier: impl FnOnce() -> bool,
    mac: Option<String>,
) -> Interface {
    let mut bits = flags & !RUNNING;
    if bits & 1 != 0 && carrier() {
        bits |= RUNNING;
    }
    Interface {
        name,
        index,
        mac,
        flags: FLAG_BITS
            .iter()
            .filter(|(b, _)| bits & b != 0)
            .map(|(_, n)| n.to_string())
            .collect(),
        ipv4: Vec::new(),
        ipv6: Vec::new(),
    }
}

/// The interfaces from sysfs (where netlink is not available): four files per interface.
fn sysfs_links() -> Vec<Interface> {
    let mut out = Vec::new();
    let mut names: Vec<String> = fs::read_dir("/sys/class/net")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for name in names {
        let base = format!("/sys/class/net/{name}");
        let index = read_trim(&format!("{base}/ifindex"))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let flags = read_trim(&format!("{base}/flags"))
            .and_then(|s| u32::from_str_radix(s.trim_start_matches("0x"), 16).ok())
            .unwrap_or(0);
        let carrier = || read_trim(&format!("{base}/carrier")).as_deref() == Some("1");
        let mac = read_trim(&format!("{base}/address")).filter(|m| m.len() == 17);
        out.push(interface(name, index, flags, carrier, mac));
    }
    out
}

struct Route {
    iface: String,
    dest: u32,
    gateway: Ipv4Addr,
    mask: u32,
}

/// A `/proc/net/route` hex field (network-order bytes printed as a little-endian word).
fn le_hex(s: &str) -> Option<Ipv4Addr> {
    u32::from_str_radix(s, 16)
        .ok()
        .map(|v| Ipv4Addr::from(v.to_le_bytes()))
}

fn parse_routes(text: &str) -> Vec<Route> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Some(Route {
                iface: f.first()?.to_string(),
                dest: u32::from(le_hex(f.get(1)?)?),
                gateway: le_hex(f.get(2)?)?,
                mask: u32::from(le_hex(f.get(7)?)?),
            })
        })
        .collect()
}

/// Host addresses (`/32 host LOCAL`) from the Main/Local tries, each with the prefix of the
/// narrowest enclosing non-host entry seen (default 32).
pub fn fib_local_addresses(text: &str) -> Vec<(Ipv4Addr, u8)> {
    let mut nets: Vec<(u32, u8)> = Vec::new();
    let mut addrs: Vec<Ipv4Addr> = Vec::new();
    let mut last: Option<Ipv4Addr> = None;
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(a) = t.strip_prefix("|-- ") {
            last = a.trim().parse().ok();
        } else if let (Some(rest), Some(a)) = (t.strip_prefix('/'), last) {
            let mut it = rest.split_whitespace();
            let plen: u8 = it.next().and_then(|p| p.parse().ok()).unwrap_or(32);
            let kind = it.last().unwrap_or("");
            if plen == 32 && kind == "LOCAL" {
                if !addrs.contains(&a) {
                    addrs.push(a);
                }
            } else if plen < 32 && plen > 0 {
                nets.push((u32::from(a), plen));
            }
        }
    }
    addrs
        .into_iter()
        .map(|a| {
            let p = nets
                .iter()
                .filter(|(n, p)| {
                    let mask = u32::MAX << (32 - u32::from(*p));
                    u32::from(a) & mask == *n & mask
                })
                .map(|(_, p)| *p)
                .max()
                .unwrap_or(32);
            (a, p)
        })
        .collect()
}

/// `/proc/net/if_inet6` → (interface, address/prefix) in file order.
pub fn parse_if_inet6(text: &str) -> Vec<(String, Ipv6Net)> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let hex = f.first()?;
            if hex.len() != 32 {
                return None;
            }
            let v = u128::from_str_radix(hex, 16).ok()?;
            let prefix = u8::from_str_radix(f.get(2)?, 16).ok()?;
            Some((
                f.get(5)?.to_string(),
                Ipv6Net {
                    address: Ipv6Addr::from(v),
                    prefix,
                },
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The links netlink lists are the interfaces sysfs has, row for row (this machine's: both are
    /// read live). `promisc`/`allmulti` are left out: sysfs shows the device's own flags, netlink (as
    /// the agent's `SIOCGIFFLAGS`) the ones a user asked for.
    #[test]
    fn netlink_links_are_the_sysfs_interfaces() {
        let Some(links) = super::super::netlink::links() else {
            eprintln!("note: no rtnetlink socket here; discovery reads sysfs");
            return;
        };
        let strip = |mut i: Interface| {
            i.flags.retain(|f| f != "promisc" && f != "allmulti");
            i
        };
        let mut from_netlink: Vec<Interface> =
            links.iter().map(link_interface).map(strip).collect();
        let mut from_sysfs: Vec<Interface> = sysfs_links().into_iter().map(strip).collect();
        from_netlink.sort_by_key(|i| i.index);
        from_sysfs.sort_by_key(|i| i.index);
        assert!(!from_sysfs.is_empty());
        assert_eq!(from_netlink, from_sysfs);
    }

    #[test]
    fn account_lines_split_at_colons() {
        assert_eq!(colon_fields::<4>("a:b::d:e"), (["a", "b", "", "d"], 4));
        assert_eq!(colon_fields::<4>("a:b"), (["a", "b", "", ""], 2));
        assert_eq!(colon_fields::<2>(""), (["", ""], 1));
        let users =
            parse_passwd("root:x:0:0:root:/root:/bin/bash\nbad:x:1\nu:x:7:8::/h:/s:extra\n");
        assert_eq!(
            users
                .iter()
                .map(|u| (
                    u.name.as_str(),
                    u.uid,
                    u.gid,
                    u.home.as_str(),
                    u.shell.as_str()
                ))
                .collect::<Vec<_>>(),
            [
                ("root", 0, 0, "/root", "/bin/bash"),
                ("u", 7, 8, "/h", "/s")
            ]
        );
        let groups = parse_group("adm:x:4:syslog,bob\nx:y\nz:x:9:\n");
        assert_eq!(
            groups
                .iter()
                .map(|g| (g.name.as_str(), g.gid, g.members.clone()))
                .collect::<Vec<_>>(),
            [
                ("adm", 4, vec!["syslog".to_string(), "bob".to_string()]),
                ("z", 9, vec![])
            ]
        );
    }

    #[test]
    fn shadow_hashes_are_redacted_lock_state_kept() {
        assert_eq!(redact_hash("$6$salt$hash"), "$cfsim-redacted$");
        assert_eq!(redact_hash("!$y$j9T$s$h"), "!$cfsim-redacted$");
        for kept in ["*", "!", "!*", "x", ""] {
            assert_eq!(redact_hash(kept), kept);
        }
    }

    #[test]
    fn fib_trie_addresses_and_prefixes() {
        // /proc/net/fib_trie of the CI machine (lo 127.0.0.1/8, eth0 192.0.2.2/24).
        let trie = "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\n     +-- 127.0.0.0/8 2 0 2\n        +-- 127.0.0.0/31 1 0 0\n           |-- 127.0.0.0\n              /8 host LOCAL\n           |-- 127.0.0.1\n              /32 host LOCAL\n        |-- 127.255.255.255\n           /32 link BROADCAST\n     +-- 192.0.2.0/24 2 0 2\n        +-- 192.0.2.0/30 2 0 2\n           |-- 192.0.2.0\n              /24 link UNICAST\n           |-- 192.0.2.2\n              /32 host LOCAL\n        |-- 192.0.2.255\n           /32 link BROADCAST\nLocal:\n     |-- 127.0.0.1\n        /32 host LOCAL\n";
        assert_eq!(
            fib_local_addresses(trie),
            vec![
                (Ipv4Addr::new(127, 0, 0, 1), 8),
                (Ipv4Addr::new(192, 0, 2, 2), 24)
            ]
        );
        let v6 = parse_if_inet6("fd000000000000000000000000000002 04 40 00 82     eth0\n00000000000000000000000000000001 01 80 10 80       lo\n");
        assert_eq!(v6.len(), 2);
        assert_eq!(v6[0].0, "eth0");
        assert_eq!(v6[0].1.address.to_string(), "fd00::2");
        assert_eq!(v6[0].1.prefix, 64);
        assert_eq!(v6[1].1.prefix, 128);
    }

    #[test]
    fn parsers() {
        assert_eq!(cpu_count("0-1"), 2);
        assert_eq!(cpu_count("0-3,6"), 5);
        let h = hosts_lookup(
            "127.0.0.1 localhost\n127.0.1.1 web1.example.com web1 www\n",
            "web1",
        );
        assert_eq!(
            h,
            Some(("web1.example.com".into(), vec!["web1".into(), "www".into()]))
        );
        let r = parse_routes("Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\nsth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n");
        assert_eq!(r.len(), 1);
        assert_eq!(Ipv4Addr::from(r[0].dest), Ipv4Addr::new(192, 0, 2, 0));
        assert_eq!(Ipv4Addr::from(r[0].mask), Ipv4Addr::new(255, 255, 255, 0));
        let g = parse_routes("h\neth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\n");
        assert_eq!(g[0].gateway, Ipv4Addr::new(192, 0, 2, 1));
    }
}
