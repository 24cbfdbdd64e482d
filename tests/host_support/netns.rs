//! Namespace scaffolding for `tests/host_namespace.rs`: the hybrid host cfsim evaluates, the veth
//! network script, the fake `/etc`, shell quoting and the unshared run itself.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::Ipv6Addr;
use std::path::Path;
use std::process::Command;

use cfsim::host::local::hosts_lookup;
use cfsim::host::os_classes::DISTRO_FILES;
use cfsim::host::{load_host, FileSystem, Host, Interface};

pub fn hybrid(profile: &Host, hosts_line: &str) -> Host {
    let mut h = load_host("local").unwrap();
    h.hostname = profile.hostname.clone();
    h.domain = profile.domain.clone();
    h.os.os_release = profile.os.os_release.clone();
    let mut fs = FileSystem::default();
    for p in DISTRO_FILES {
        if let Some(f) = profile.file(p) {
            fs.map.insert(p.to_string(), f);
        }
    }
    h.files = fs;
    h.interfaces = netns_interfaces(profile);
    h.default_gateway = profile.default_gateway;
    let (fq, _, _) = h.names();
    h.host_aliases = hosts_lookup(hosts_line, &fq)
        .map(|(_, a)| a)
        .unwrap_or_default();
    h
}

/// EUI-64 link-local address the kernel gives an interface with this MAC when it comes up.
pub fn auto_link_local(mac: &str) -> Option<Ipv6Addr> {
    let b: Vec<u8> = mac
        .split(':')
        .map(|x| u8::from_str_radix(x, 16).ok())
        .collect::<Option<_>>()?;
    let segs = [
        0xfe80,
        0,
        0,
        0,
        u16::from_be_bytes([b[0] ^ 2, b[1]]),
        u16::from_be_bytes([b[2], 0xff]),
        u16::from_be_bytes([0xfe, b[3]]),
        u16::from_be_bytes([b[4], b[5]]),
    ];
    Some(Ipv6Addr::new(
        segs[0], segs[1], segs[2], segs[3], segs[4], segs[5], segs[6], segs[7],
    ))
}

/// The profile's interfaces as the namespace will hold them: `lo` first, then per interface its
/// veth peer `pN` (created first, so one index lower) and the interface itself.
pub fn netns_interfaces(profile: &Host) -> Vec<Interface> {
    let mut out = Vec::new();
    let mut next = 2;
    for i in &profile.interfaces {
        if i.name == "lo" {
            let mut lo = i.clone();
            lo.index = 1;
            out.push(lo);
            continue;
        }
        let k = out
            .iter()
            .filter(|x: &&Interface| x.name.starts_with('p'))
            .count();
        let up = i.has_flag("up");
        let flags: Vec<String> = if up {
            vec!["up", "broadcast", "running", "multicast"]
        } else {
            vec!["broadcast", "multicast"]
        }
        .into_iter()
        .map(String::from)
        .collect();
        out.push(Interface {
            name: format!("p{k}"),
            index: next,
            mac: Some(format!("02:00:00:00:00:{:02x}", 0x10 + k)),
            flags,
            ipv4: vec![],
            ipv6: vec![],
        });
        let mut me = i.clone();
        me.index = next + 1;
        out.push(me);
        next += 2;
    }
    out
}

pub fn net_script(profile: &Host) -> String {
    let mut sc = String::from("set -e\nip link set lo up\n");
    for (k, i) in profile
        .interfaces
        .iter()
        .filter(|i| i.name != "lo")
        .enumerate()
    {
        let (n, p) = (sh_quote(&i.name), format!("p{k}"));
        sc.push_str(&format!("ip link add {n} type veth peer name {p}\n"));
        if let Some(mac) = &i.mac {
            sc.push_str(&format!("ip link set {n} address {mac}\n"));
        }
        sc.push_str(&format!(
            "ip link set {p} address 02:00:00:00:00:{:02x}\n",
            0x10 + k
        ));
        sc.push_str(&format!("sysctl -q -w net.ipv6.conf.{p}.disable_ipv6=1\n"));
        for a in &i.ipv4 {
            sc.push_str(&format!("ip addr add {}/{} dev {n}\n", a.address, a.prefix));
        }
        let auto = i.mac.as_deref().and_then(auto_link_local);
        for a in &i.ipv6 {
            if Some(a.address) != auto || !i.has_flag("up") {
                sc.push_str(&format!(
                    "ip -6 addr add {}/{} dev {n} nodad\n",
                    a.address, a.prefix
                ));
            }
        }
        if i.has_flag("up") {
            sc.push_str(&format!("ip link set {n} up\nip link set {p} up\n"));
        }
    }
    if let Some(gw) = profile.default_gateway {
        sc.push_str(&format!("ip route add default via {gw}\n"));
    }
    sc.push_str("sleep 1\n");
    sc
}

/// Runs `script` with `sh -c` in fresh network, mount and UTS namespaces (120 s limit); its stdout, or `None`
/// (with a note naming the failure) when it could not run or failed.
pub fn run_unshared(script: &str) -> Option<String> {
    let out = Command::new("timeout")
        .args([
            "120", "unshare", "--net", "--mount", "--uts", "sh", "-c", script,
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "note: namespace run failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether this process may create network, mount and UTS namespaces; prints a skip note for `test` if not.
pub fn namespaces_permitted(test: &str) -> bool {
    let ok = Command::new("unshare")
        .args(["--net", "--mount", "--uts", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("note: {test}: skipped, namespaces not permitted here (needs root and unshare)");
    }
    ok
}

pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Build the fake `/etc` for `profile` under `dir`; returns the `/etc/hosts` line added.
pub fn fake_etc(profile: &Host, dir: &Path) -> String {
    let etc = dir.join("etc");
    let _ = std::fs::remove_dir_all(&etc);
    let st = Command::new("cp")
        .args(["-a", "/etc"])
        .arg(&etc)
        .status()
        .unwrap();
    assert!(st.success());
    for p in DISTRO_FILES.iter().chain(["/etc/os-release"].iter()) {
        if let Some(rel) = p.strip_prefix("/etc/") {
            let _ = std::fs::remove_file(etc.join(rel));
        }
    }
    let mut osr = String::new();
    for (k, v) in &profile.os.os_release {
        osr.push_str(&format!("{k}=\"{v}\"\n"));
    }
    std::fs::write(etc.join("os-release"), osr).unwrap();
    for p in DISTRO_FILES {
        if let (Some(rel), Some(f)) = (p.strip_prefix("/etc/"), profile.file(p)) {
            std::fs::write(etc.join(rel), f.content).unwrap();
        }
    }
    let nodename = profile.hostname.to_lowercase();
    let line = if profile.domain.is_empty() {
        format!("127.0.1.1 {nodename}\n")
    } else {
        format!(
            "127.0.1.1 {nodename}.{} {nodename}\n",
            profile.domain.to_lowercase()
        )
    };
    let mut hosts = std::fs::read_to_string(etc.join("hosts")).unwrap_or_default();
    hosts.push_str(&line);
    std::fs::write(etc.join("hosts"), hosts).unwrap();
    line
}
