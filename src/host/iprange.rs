//! `iprange(range [, iface…])` over the host's addresses, with cf-agent 3.21's matching rules and
//! quirks (spec §6.1): CIDR (`/0` matches all, any mask 0–32, trailing junk after the mask ignored),
//! octet ranges (`a.b.c.x-y`, fewer octets = prefix), plain prefixes ending at an octet boundary,
//! IPv6 CIDR with masks in multiples of 8 only (error otherwise), the IPv6 hextet-range scan with its
//! C `sscanf` leftovers, and the errors cf-agent logs. Pure: the host is only read.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::canon::canonify;
use super::Host;

/// Result of one `iprange()` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IpRangeResult {
    pub matched: bool,
    /// Error lines cf-agent logs for this call (`error: ` prefix not included).
    pub errors: Vec<String>,
}

/// Evaluate `iprange(range, ifaces…)` on `host`.
pub fn iprange(host: &Host, range: &str, ifaces: &[String]) -> IpRangeResult {
    let wanted: Vec<String> = ifaces.iter().map(|i| canonify(i)).collect();
    let mut errors = Vec::new();
    for (iface, addr) in host.agent_addresses() {
        if !wanted.is_empty() && !wanted.contains(&canonify(&iface)) {
            continue;
        }
        let m = fuzzy_set_match(range, &addr.to_string(), &mut errors);
        if m {
            return IpRangeResult {
                matched: true,
                errors,
            };
        }
    }
    IpRangeResult {
        matched: false,
        errors,
    }
}

/// C `sscanf(s, "%63[^<stop>]")`: `None` when no character matches (the buffer keeps its old value).
fn scan_set(s: &str, stop: char) -> Option<&str> {
    let end = s.find(stop).unwrap_or(s.len()).min(63);
    if end == 0 {
        None
    } else {
        s.get(..end)
    }
}

/// C `sscanf("%ld")` / `"%lx"` on the start of `s` (whitespace skipped).
fn scan_long(s: &str, radix: u32) -> Option<(i64, &str)> {
    let t = s.trim_start();
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let body = if radix == 16 {
        body.strip_prefix("0x")
            .or_else(|| body.strip_prefix("0X"))
            .unwrap_or(body)
    } else {
        body
    };
    let n = body.chars().take_while(|c| c.is_digit(radix)).count();
    if n == 0 {
        return None;
    }
    let v = i64::from_str_radix(body.get(..n)?, radix).unwrap_or(i64::MAX);
    Some((if neg { -v } else { v }, body.get(n..).unwrap_or("")))
}

/// `%ld-%ld`: updates `from`/`to` only for the fields converted.
fn scan_range(s: &str, radix: u32, from: &mut i64, to: &mut i64) {
    if let Some((a, rest)) = scan_long(s, radix) {
        *from = a;
        if let Some(r) = rest.strip_prefix('-') {
            if let Some((b, _)) = scan_long(r, radix) {
                *to = b;
            }
        }
    }
}

/// cf-agent's `FuzzySetMatch(range, address) == 0`.
pub fn fuzzy_set_match(s1: &str, s2: &str, errors: &mut Vec<String>) -> bool {
    if s1 == s2 {
        return true;
    }
    let cidr = s1.contains('/');
    let range = s1.contains('-');
    let v4 = s1.contains('.') || s2.contains('.');
    let v6 = s1.contains(':') || s2.contains(':');
    if v4 && v6 {
        return false;
    }
    if cidr && range {
        errors.push(format!(
            "Cannot mix CIDR notation with xxx-yyy range notation '{s1}'"
        ));
        return false;
    }
    if !(v4 || v6) {
        errors.push(format!(
            "Not a valid address range - or not a fully qualified name '{s1}'"
        ));
        return false;
    }
    if !(range || cidr) {
        if s2.len() > s1.len() && s2.as_bytes().get(s1.len()) != Some(&b'.') {
            return false;
        }
        return s2.as_bytes().starts_with(s1.as_bytes());
    }
    if v4 {
        if cidr {
            return v4_cidr(s1, s2, errors);
        }
        return v4_octets(s1, s2);
    }
    if cidr {
        return v6_cidr(s1, s2, errors);
    }
    v6_hextets(s1, s2)
}

fn cidr_parts(s1: &str, max_addr: usize) -> Option<(&str, u64)> {
    let addr = scan_set(s1, '/')?;
    if addr.len() > max_addr {
        return None;
    }
    let rest = s1.get(addr.len()..)?.strip_prefix('/')?;
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let mask = digits.parse::<u64>().ok()?;
    Some((addr, mask))
}

fn v4_cidr(s1: &str, s2: &str, errors: &mut Vec<String>) -> bool {
    let Some((addr, mask)) = cidr_parts(s1, 16).filter(|(_, m)| *m <= 32) else {
        errors.push(format!("Invalid IPv4 CIDR: {s1}"));
        return false;
    };
    if mask == 0 {
        return true;
    }
    let a1 = addr.parse::<Ipv4Addr>().map(u32::from).unwrap_or(0);
    let a2 = s2.parse::<Ipv4Addr>().map(u32::from).unwrap_or(0);
    let Ok(net) = ipnetwork::Ipv4Network::new(Ipv4Addr::from(a1), mask as u8) else {
        return false;
    };
    net.contains(Ipv4Addr::from(a2))
}

fn v4_octets(s1: &str, s2: &str) -> bool {
    let (mut from, mut to, mut cmp) = (-1_i64, -1_i64, -1_i64);
    let (mut p1, mut p2) = (0usize, 0usize);
    let mut buf2 = String::new();
    for _ in 0..4 {
        let rest1 = s1.get(p1.min(s1.len())..).unwrap_or("");
        let Some(b1) = scan_set(rest1, '.') else {
            break;
        };
        p1 += b1.len() + 1;
        let rest2 = s2.get(p2.min(s2.len())..).unwrap_or("");
        if let Some(b2) = scan_set(rest2, '.') {
            buf2 = b2.to_string();
        }
        p2 += buf2.len() + 1;
        if b1.contains('-') {
            scan_range(b1, 10, &mut from, &mut to);
            if let Some((c, _)) = scan_long(&buf2, 10) {
                cmp = c;
            }
            if from < 0 || to < 0 || from > cmp || cmp > to {
                return false;
            }
        } else {
            if let Some((f, _)) = scan_long(b1, 10) {
                from = f;
            }
            if let Some((c, _)) = scan_long(&buf2, 10) {
                cmp = c;
            }
            if from != cmp {
                return false;
            }
        }
    }
    true
}

fn v6_cidr(s1: &str, s2: &str, errors: &mut Vec<String>) -> bool {
    let Some((addr, mask)) = cidr_parts(s1, 40).filter(|(_, m)| *m <= 128) else {
        errors.push(format!("Invalid IPv6 CIDR: {s1}"));
        return false;
    };
    if mask % 8 != 0 {
        errors.push("Cannot handle ipv6 masks which are not 8 bit multiples (fix me)".to_string());
        return false;
    }
    let a1 = addr
        .parse::<Ipv6Addr>()
        .map(|a| a.octets())
        .unwrap_or([0; 16]);
    let a2 = s2
        .parse::<Ipv6Addr>()
        .map(|a| a.octets())
        .unwrap_or([0; 16]);
    let blocks = (mask / 8) as usize;
    a1.iter().zip(a2.iter()).take(blocks).all(|(x, y)| x == y)
}

/// The agent's 8-field hextet scan. Its pointer moves past the end of a string with fewer fields
/// (`fd00::1-3`), where the agent reads whatever memory follows (its answer then varies from run to
/// run: 3 in 100 here); cfsim reads nothing there, which keeps the previous field — the agent's usual
/// answer, and deterministic.
fn v6_hextets(s1: &str, s2: &str) -> bool {
    let (mut from, mut to, mut cmp) = (-1_i64, -1_i64, -1_i64);
    let (mut p1, mut p2) = (0usize, 0usize);
    let (mut b1, mut b2) = (String::new(), String::new());
    for _ in 0..8 {
        if let Some(x) = scan_set(s1.get(p1.min(s1.len())..).unwrap_or(""), ':') {
            b1 = x.to_string();
        }
        p1 += b1.len() + 1;
        if let Some(x) = scan_set(s2.get(p2.min(s2.len())..).unwrap_or(""), ':') {
            b2 = x.to_string();
        }
        p2 += b2.len() + 1;
        if b1.contains('-') {
            scan_range(&b1, 16, &mut from, &mut to);
            if let Some((c, _)) = scan_long(&b2, 16) {
                cmp = c;
            }
            if from < 0 || to < 0 || from >= cmp || cmp > to {
                return false;
            }
        } else {
            if let Some((f, _)) = scan_long(&b1, 10) {
                from = f;
            }
            if let Some((c, _)) = scan_long(&b2, 10) {
                cmp = c;
            }
            if from != cmp {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(r: &str, a: &str) -> bool {
        fuzzy_set_match(r, a, &mut Vec::new())
    }

    #[test]
    fn spec_table_v4() {
        assert!(m("192.0.2.0/24", "192.0.2.2"));
        assert!(m("0.0.0.0/0", "192.0.2.2"));
        assert!(m("128.0.0.0/1", "192.0.2.2"));
        assert!(!m("192.0.2.0/31", "192.0.2.2"));
        assert!(m("192.0.2.0/24/3", "192.0.2.2"));
        assert!(m("192.0.2.1-10", "192.0.2.2"));
        assert!(!m("192.0.2.3-10", "192.0.2.2"));
        assert!(m("192.0.1-3.2", "192.0.2.2"));
        assert!(m("192.0.2-3", "192.0.2.2"));
        assert!(m("192.0", "192.0.2.2"));
        assert!(!m("192.0.2.", "192.0.2.2"));
        assert!(!m("192.0.2.22", "192.0.2.2"));
        assert!(!m("nonsense", "192.0.2.2"));
    }

    #[test]
    fn spec_table_v6() {
        assert!(m("fd00::/64", "fd00::2"));
        assert!(m("fd00::/16", "fd00::2"));
        let mut e = Vec::new();
        assert!(!fuzzy_set_match("fd00::/12", "fd00::2", &mut e));
        assert_eq!(e.len(), 1);
        assert!(m("fd00::1-3", "fd00::2"));
    }
}
