//! Deferred network discovery of the local host: which names its network facts would have, and the
//! flag a run raises when it looks at any of them.
//!
//! Reading the machine's links, addresses and routes (an rtnetlink dump, `/proc/net/{route,fib_trie,
//! if_inet6}`) and turning them into classes and `sys` variables was a seventh of a small `cfsim agent`
//! run, most of whose policies never ask. `cfsim agent` on the local host may therefore run first
//! without them ([`super::local::discover_deferred`]): the host's [`NetWatch`] is armed, and every
//! place that could show the policy a network fact (a class that could be an address, interface or MAC
//! class; a `sys` variable of the network; any listing of classes or variables; `iprange()`'s
//! addresses) raises it. A run that raised it is thrown away and run again on the fully discovered
//! host, so the output is the same as with discovery up front.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether the host's network facts were left out, and if so whether the run has asked for them.
/// Clones share the flag. Every watch compares equal (it is not a fact of the host).
#[derive(Debug, Clone, Default)]
pub struct NetWatch(Option<Arc<AtomicBool>>);

impl PartialEq for NetWatch {
    fn eq(&self, _: &NetWatch) -> bool {
        true
    }
}

impl NetWatch {
    /// A watch for a host discovered without its network facts.
    pub fn armed() -> NetWatch {
        NetWatch(Some(Arc::new(AtomicBool::new(false))))
    }

    /// Whether the network facts were left out.
    pub fn is_armed(&self) -> bool {
        self.0.is_some()
    }

    /// Records that the run asked for something the network facts could answer.
    pub fn trip(&self) {
        if let Some(f) = &self.0 {
            f.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the run asked (only ever for an armed watch).
    pub fn tripped(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// [`Self::trip`] when `name` could be a class the network facts define.
    pub fn class(&self, name: &str) {
        if self.is_armed() && is_net_class(name) {
            self.trip();
        }
    }

    /// [`Self::trip`] when `scope.lval` could be a `sys` variable the network facts define.
    pub fn var(&self, scope: &str, lval: &str) {
        if self.is_armed() && scope == "sys" && is_net_sys_var(lval) {
            self.trip();
        }
    }
}

/// Whether runs may start without the network facts at all: not when `CFSIM_NO_DEFERRED_NETWORK` is set
/// (to compare with discovery up front, or to time it).
pub fn deferral_allowed() -> bool {
    std::env::var_os("CFSIM_NO_DEFERRED_NETWORK").is_none()
}

/// Whether a class of this name could come from the network facts: `ipv4_*` (and `ipv4_gw_*`),
/// `ipv6_*`, `net_iface_*`, `mac_*`, and the canonified addresses themselves (`10_0_2_15`,
/// `fe80__1`: only hex digits and `_`).
pub fn is_net_class(name: &str) -> bool {
    ["ipv4_", "ipv6_", "net_iface_", "mac_"]
        .iter()
        .any(|p| name.starts_with(p))
        || (!name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'_'))
}

/// Whether `sys.<lval>` could come from the network facts: `interface*`, `ip*` (`ipv4*`, `ip2iface`,
/// `ip_addresses`), `inet*`, `hardware_*`.
pub fn is_net_sys_var(lval: &str) -> bool {
    ["interface", "ip", "inet", "hardware_"]
        .iter()
        .any(|p| lval.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_network_name_of_a_discovered_host_is_watched() {
        // the classes and sys variables the network facts of a profile give (policies/hosts)
        let host = crate::host::profile::load_profile(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/policies/hosts/web1-oslo-debian.json"
        )));
        let Ok(mut host) = host else {
            unreachable!("profile: {host:?}")
        };
        let full = crate::host::hard_classes::host_classes(&host);
        let full_vars = crate::host::sysvars::sys_vars(&host, None);
        host.interfaces.clear();
        host.default_gateway = None;
        let bare = crate::host::hard_classes::host_classes(&host);
        let bare_vars = crate::host::sysvars::sys_vars(&host, None);
        let mut checked = 0;
        for (name, _) in full.as_map() {
            if !bare.contains(name) {
                assert!(is_net_class(name), "{name}");
                checked += 1;
            }
        }
        for v in &full_vars {
            if !bare_vars
                .iter()
                .any(|b| b.name == v.name && b.value == v.value)
            {
                assert!(is_net_sys_var(&v.name), "sys.{}", v.name);
                checked += 1;
            }
        }
        assert!(checked > 10, "{checked}");
        assert!(!is_net_class("linux") && !is_net_class("debian_12") && !is_net_class("any"));
        assert!(!is_net_sys_var("fqhost") && !is_net_sys_var("workdir"));
    }

    #[test]
    fn a_watch_trips_once_armed_and_its_clones_share_it() {
        let w = NetWatch::default();
        w.class("ipv4_10");
        assert!(!w.tripped() && !w.is_armed());
        let w = NetWatch::armed();
        let c = w.clone();
        c.class("linux");
        c.var("sys", "fqhost");
        c.var("main", "ipv4");
        assert!(!w.tripped());
        c.var("sys", "ipv4[eth0]");
        assert!(w.tripped());
    }
}
