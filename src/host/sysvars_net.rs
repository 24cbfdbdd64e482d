//! Network `sys.*` variables (interfaces, addresses, MACs, flags, `sys.inet` routes) as cf-agent
//! 3.21 derives them; called by [`super::sysvars::sys_vars`].

use serde_json::{json, Map, Value};

use super::canon::canonify;
use super::sysvars::{Out, SysValue, SRC};
use super::{Host, Interface};

/// A list holding each value once, in the order first pushed (a set beside it keeps pushes linear).
#[derive(Default)]
struct UniqueList {
    items: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl UniqueList {
    fn push(&mut self, v: &str) {
        if self.seen.insert(v.to_string()) {
            self.items.push(v.to_string());
        }
    }
}

pub(super) fn interface_vars(host: &Host, o: &mut Out) {
    let (mut ifaces, mut macs, mut flags, mut ips) = (
        UniqueList::default(),
        UniqueList::default(),
        Vec::new(),
        Vec::new(),
    );
    let mut ipv4_set = false;
    for iface in &host.interfaces {
        let cname = canonify(&iface.name);
        for a in &iface.ipv4 {
            o.s("interface", iface.name.clone(), SRC);
            if !iface.flags.is_empty() {
                let f = iface.flags.join(" ");
                o.s(&format!("interface_flags[{}]", iface.name), f.clone(), SRC);
                flags.push(f);
            }
            if iface.has_flag("up") {
                let txt = a.address.to_string();
                if !ipv4_set && !iface.has_flag("loopback") {
                    o.s(
                        "ipv4",
                        txt.clone(),
                        "inventory,source=agent,attribute_name=none",
                    );
                    ipv4_set = true;
                }
                ips.push(txt.clone());
                o.s(&format!("ipv4[{cname}]"), txt.clone(), SRC);
                let octets: Vec<&str> = txt.split('.').collect();
                for n in 1..=3 {
                    o.s(&format!("ipv4_{n}[{cname}]"), octets[..n].join("."), SRC);
                }
                o.s(&format!("ip2iface[{txt}]"), iface.name.clone(), SRC);
            }
            if !iface.has_flag("loopback") {
                if let Some(mac) = &iface.mac {
                    o.s(&format!("hardware_mac[{cname}]"), mac.clone(), SRC);
                    // Verified (netns, two addresses on one interface): these lists hold each value
                    // once, while `hardware_flags` gets one entry per address.
                    macs.push(mac);
                    ifaces.push(&iface.name);
                }
            }
        }
    }
    for iface in host.interfaces_by_name() {
        for a in &iface.ipv6 {
            if a.address != std::net::Ipv6Addr::LOCALHOST {
                ips.push(a.address.to_string());
            }
        }
    }
    // Verified (netns, IPv6-only `wlp2s0`): a non-loopback interface with IPv6 addresses but no
    // IPv4 joins `sys.interfaces` (after the IPv4 ones; kernel order assumed when there are several).
    for iface in host
        .interfaces
        .iter()
        .filter(|i| !i.has_flag("loopback") && i.ipv4.is_empty())
    {
        if iface
            .ipv6
            .iter()
            .any(|a| a.address != std::net::Ipv6Addr::LOCALHOST)
        {
            ifaces.push(&iface.name);
        }
    }
    for iface in extra_mac_interfaces(host) {
        if let Some(mac) = &iface.mac {
            o.s(
                &format!("hardware_mac[{}]", canonify(&iface.name)),
                mac.clone(),
                "source=agent,derived-from=ifconfig",
            );
            macs.push(mac);
        }
    }
    if !ifaces.items.is_empty() {
        o.put(
            "interfaces",
            SysValue::List(ifaces.items),
            "inventory,source=agent,attribute_name=Interfaces",
        );
    }
    if !macs.items.is_empty() {
        o.put(
            "hardware_addresses",
            SysValue::List(macs.items),
            "inventory,source=agent,attribute_name=MAC addresses",
        );
    }
    if !flags.is_empty() {
        o.put("hardware_flags", SysValue::List(flags), SRC);
    }
    if !ips.is_empty() {
        o.put("ip_addresses", SysValue::List(ips), SRC);
    }
}

/// Interfaces without an IPv4 address whose MAC cf-agent still reports (`derived-from=ifconfig`):
/// not loopback, with a non-zero MAC, in kernel order.
fn extra_mac_interfaces(host: &Host) -> Vec<&Interface> {
    host.interfaces
        .iter()
        .filter(|i| i.ipv4.is_empty() && !i.has_flag("loopback"))
        .filter(|i| i.mac.as_deref().is_some_and(|m| m != "00:00:00:00:00:00"))
        .collect()
}

fn mask(prefix: u8) -> std::net::Ipv4Addr {
    let bits = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(prefix.min(32)))
    };
    std::net::Ipv4Addr::from(bits)
}

fn route(dest: String, gw: String, iface: &str, mask: String, default: bool) -> Value {
    let flags = if default {
        vec!["up", "net", "default", "gateway"]
    } else {
        vec!["up", "net", "not_default", "local"]
    };
    json!({"active_default_gateway": default, "dest": dest, "flags": flags, "gateway": gw,
           "interface": iface, "irtt": 0, "mask": mask, "metric": 0, "mtu": 0, "refcnt": 0,
           "use": 0, "window": 0})
}

/// `sys.inet` without `stats`: default route via the gateway, then one route per subnet of each
/// up, non-loopback interface (the shape of a plain `/proc/net/route`).
pub(super) fn inet(host: &Host, o: &mut Out) {
    let mut routes = Vec::new();
    let mut m = Map::new();
    if let Some(gw) = host.default_gateway {
        let via = host
            .interfaces
            .iter()
            .filter(|i| i.has_flag("up") && !i.has_flag("loopback"))
            .find(|i| {
                i.ipv4.iter().any(|a| {
                    ipnetwork::Ipv4Network::new(a.address, a.prefix).is_ok_and(|n| n.contains(gw))
                })
            })
            .or_else(|| {
                host.interfaces
                    .iter()
                    .find(|i| i.has_flag("up") && !i.has_flag("loopback"))
            });
        if let Some(i) = via {
            let r = route(
                "0.0.0.0".into(),
                gw.to_string(),
                &i.name,
                "0.0.0.0".into(),
                true,
            );
            m.insert("default_gateway".into(), Value::String(gw.to_string()));
            m.insert("default_route".into(), r.clone());
            routes.push(r);
        }
    }
    // Connected routes in `/proc/net/route` (FIB trie) order: by destination, one per subnet.
    let mut connected: Vec<(u32, u8, &str)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for i in host
        .interfaces
        .iter()
        .filter(|i| i.has_flag("up") && !i.has_flag("loopback"))
    {
        for a in &i.ipv4 {
            let key = (
                u32::from(a.address) & u32::from(mask(a.prefix)),
                a.prefix,
                i.name.as_str(),
            );
            if seen.insert(key) {
                connected.push(key);
            }
        }
    }
    connected.sort_by_key(|(dest, prefix, _)| (*dest, std::cmp::Reverse(*prefix)));
    for (dest, prefix, name) in connected {
        let d = std::net::Ipv4Addr::from(dest).to_string();
        routes.push(route(
            d,
            "0.0.0.0".into(),
            name,
            mask(prefix).to_string(),
            false,
        ));
    }
    m.insert("routes".into(), Value::Array(routes));
    o.put(
        "inet",
        SysValue::Data(Value::Object(m)),
        "networking,/proc,source=agent,procfs",
    );
}
