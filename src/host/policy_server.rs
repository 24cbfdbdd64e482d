//! The policy server a host is bootstrapped to: `sys.policy_hub` and `sys.policy_hub_port` from the
//! first line of `WORKDIR/policy_server.dat` in the host's files (the profile's `files` / `files_root`,
//! or this machine's file read-only with `--host local`), as cf-agent 3.21.0 sets them (recorded:
//! policies/hosts/policy_hub/, by tests/oracle/record-policy-hub.sh with a scratch work directory):
//!  * the line is trimmed; an empty one sets nothing;
//!  * `host:port`, `[ipv6]:port`, `[ipv6]`, a bare IPv6 address (two or more colons: no port) or `host`;
//!    an empty port counts as none, and none gives the default `5308`; the port is not checked (`abc`);
//!  * `sys.policy_hub` is the host's address: an IP literal as written, a name resolved (here: the
//!    host's own `/etc/hosts`, first address; the simulation asks no DNS); a name that does not resolve
//!    leaves `sys.policy_hub` undefined (the port is still set) and the agent logs
//!    `Unable to resolve policy server host: NAME` as an error, twice.
//!
//! No `sys.policy_hub_ip` (3.21.0 does not define it).

use super::sysvars::WORKDIR;
use super::Host;

/// The port `sys.policy_hub_port` has when the file names none (`CFENGINE_PORT_STR`).
pub const DEFAULT_PORT: &str = "5308";

/// What the host's `policy_server.dat` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyServer {
    /// The host or address part as written (brackets of an IPv6 address removed).
    pub host: String,
    /// `sys.policy_hub`: the address, `None` when the name did not resolve.
    pub address: Option<String>,
    /// `sys.policy_hub_port`.
    pub port: String,
}

/// Splits a `policy_server.dat` line like the agent's `ParseHostPort`: (host, port if any).
pub fn parse_host_port(s: &str) -> (String, Option<String>) {
    let nonempty = |p: &str| (!p.is_empty()).then(|| p.to_string());
    if let Some(rest) = s.strip_prefix('[') {
        if let Some((host, after)) = rest.split_once(']') {
            let port = after.strip_prefix(':').and_then(nonempty);
            return (host.to_string(), port);
        }
        return (rest.to_string(), None);
    }
    match s.matches(':').count() {
        1 => {
            let (h, p) = s.split_once(':').unwrap_or((s, ""));
            (h.to_string(), nonempty(p))
        }
        _ => (s.to_string(), None),
    }
}

/// The path of the file for `host` (the work directory follows the agent's test override, as
/// `sys.workdir` does).
pub fn path(host: &Host) -> String {
    let workdir = host
        .env("CFENGINE_TEST_OVERRIDE_WORKDIR")
        .unwrap_or(WORKDIR);
    format!("{}/policy_server.dat", workdir.trim_end_matches('/'))
}

/// The host's policy server, `None` when it has no (or an empty) `policy_server.dat`.
pub fn policy_server(host: &Host) -> Option<PolicyServer> {
    let file = host.file(&path(host))?;
    let line = file.content.split('\n').next().unwrap_or("");
    let line = line.trim_matches(|c: char| c.is_ascii_whitespace());
    if line.is_empty() {
        return None;
    }
    let (name, port) = parse_host_port(line);
    let address = if name.parse::<std::net::IpAddr>().is_ok() {
        Some(name.clone())
    } else {
        host.file("/etc/hosts").and_then(|h| {
            super::names::hosts_forward(&h.content, &name)
                .into_iter()
                .next()
        })
    };
    Some(PolicyServer {
        host: name,
        address,
        port: port.unwrap_or_else(|| DEFAULT_PORT.to_string()),
    })
}

/// What the agent logs at its start for `ps` whose name does not resolve: an info line (the lookup) and
/// an error line; the agent and the cf-promises it validates with each log them once.
pub fn unresolved_messages(ps: &PolicyServer) -> Option<(String, String)> {
    if ps.address.is_some() {
        return None;
    }
    Some((
        format!(
            "Unable to lookup hostname '{}' or cfengine service. (getaddrinfo: Name or service not known)",
            ps.host
        ),
        format!("Unable to resolve policy server host: {}", ps.host),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_forms() {
        let p = |s: &str| parse_host_port(s);
        assert_eq!(p("10.0.0.1:5309"), ("10.0.0.1".into(), Some("5309".into())));
        assert_eq!(p("hub"), ("hub".into(), None));
        assert_eq!(p("10.0.0.1:"), ("10.0.0.1".into(), None));
        assert_eq!(p("[fe80::1]:5310"), ("fe80::1".into(), Some("5310".into())));
        assert_eq!(p("[::1]"), ("::1".into(), None));
        assert_eq!(p("fe80::1"), ("fe80::1".into(), None));
        assert_eq!(p("a b:1"), ("a b".into(), Some("1".into())));
    }
}
