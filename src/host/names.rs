//! Name resolution for a simulated host: its own `/etc/hosts` (from the profile's files, or this
//! machine's with `--host local`) answers `host2ip()`/`ip2host()`; the system resolver (DNS) is asked
//! only when the run allows the network (`--exec` or `--allow-network`), through [`resolve_dns`],
//! which counts its calls so tests can prove a simulation made none.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Calls of the system resolver made by this process ([`resolve_dns`]).
pub static DNS_QUERIES: AtomicUsize = AtomicUsize::new(0);

/// The addresses of `name` in an `/etc/hosts` text, in file order.
pub fn hosts_forward(text: &str, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.split('#').next().unwrap_or("");
        let mut f = l.split_whitespace();
        let Some(addr) = f.next() else { continue };
        if f.any(|n| n.eq_ignore_ascii_case(name)) && !out.iter().any(|a| a == addr) {
            out.push(addr.to_string());
        }
    }
    out
}

/// The first name of `ip` in an `/etc/hosts` text.
pub fn hosts_reverse(text: &str, ip: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let l = line.split('#').next().unwrap_or("");
        let mut f = l.split_whitespace();
        (f.next()? == ip).then(|| f.next().map(str::to_string))?
    })
}

/// Asks the system resolver (getaddrinfo: `/etc/hosts`, then DNS) for `name`'s addresses.
pub fn resolve_dns(name: &str) -> Option<Vec<String>> {
    use std::net::ToSocketAddrs;
    DNS_QUERIES.fetch_add(1, Ordering::Relaxed);
    let addrs = (name, 0).to_socket_addrs().ok()?;
    let mut out: Vec<String> = addrs.map(|a| a.ip().to_string()).collect();
    out.dedup();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_file_lookups() {
        let t = "127.0.0.1 localhost\n# 10.0.0.1 commented\n192.0.2.5 web1.example web1 # x\n::1 localhost ip6-localhost\n";
        assert_eq!(hosts_forward(t, "localhost"), vec!["127.0.0.1", "::1"]);
        assert_eq!(hosts_forward(t, "WEB1"), vec!["192.0.2.5"]);
        assert!(hosts_forward(t, "commented").is_empty());
        assert_eq!(
            hosts_reverse(t, "192.0.2.5").as_deref(),
            Some("web1.example")
        );
        assert_eq!(hosts_reverse(t, "10.0.0.1"), None);
    }
}
