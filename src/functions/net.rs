//! Network functions: iprange (against the host's addresses, optionally per interface), isipinsubnet,
//! hostrange. Range forms as 3.21 matches them: IPv4 CIDR (any mask, tail ignored), IPv6 CIDR (masks in
//! 8-bit steps), octet ranges `a.b.c.x-y`, and octet-aligned prefixes.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{def, CallCtx, FnArg, FnDef, FnResult};
use crate::expr::canonify;
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("iprange", false, iprange),
    def("isipinsubnet", true, isipinsubnet),
    def("hostrange", false, hostrange),
];

/// Whether `ip` is inside `range`; `Err` carries the agent's error message (the answer is then false).
pub fn ip_in_range(range: &str, ip: &str) -> Result<bool, String> {
    let range = range.trim();
    if range.contains('/') && range.contains('-') {
        return Err(format!(
            "Cannot mix CIDR notation with xxx-yyy range notation '{range}'"
        ));
    }
    if let Some((net, bits)) = range.split_once('/') {
        let digits: String = bits.chars().take_while(char::is_ascii_digit).collect();
        let Ok(bits) = digits.parse::<u32>() else {
            return Ok(false);
        };
        return Ok(match (net.parse::<IpAddr>(), ip.parse::<IpAddr>()) {
            (Ok(IpAddr::V4(n)), Ok(IpAddr::V4(a))) => v4_prefix(n, a, bits),
            (Ok(IpAddr::V6(n)), Ok(IpAddr::V6(a))) => {
                if bits % 8 != 0 {
                    return Err(
                        "Cannot handle ipv6 masks which are not 8 bit multiples (fix me)".into(),
                    );
                }
                v6_prefix(n, a, bits)
            }
            _ => false,
        });
    }
    if range.contains('-') && !range.contains(':') {
        return Ok(octet_range(range, ip));
    }
    if range.contains(':') {
        return Ok(range
            .parse::<Ipv6Addr>()
            .ok()
            .zip(ip.parse::<Ipv6Addr>().ok())
            .is_some_and(|(r, a)| r == a));
    }
    Ok(ip == range || (ip.starts_with(range) && ip.as_bytes().get(range.len()) == Some(&b'.')))
}

fn v4_prefix(n: Ipv4Addr, a: Ipv4Addr, bits: u32) -> bool {
    if bits == 0 {
        return true;
    }
    let bits = bits.min(32);
    let mask = u32::MAX << (32 - bits);
    u32::from(n) & mask == u32::from(a) & mask
}

fn v6_prefix(n: Ipv6Addr, a: Ipv6Addr, bits: u32) -> bool {
    let bytes = (bits / 8).min(16) as usize;
    n.octets()[..bytes] == a.octets()[..bytes]
}

fn octet_range(range: &str, ip: &str) -> bool {
    let r: Vec<&str> = range.split('.').collect();
    let a: Vec<&str> = ip.split('.').collect();
    if a.len() != 4 || r.len() > 4 {
        return false;
    }
    r.iter().zip(&a).all(|(rp, ap)| {
        let Ok(av) = ap.parse::<u32>() else {
            return false;
        };
        match rp.split_once('-') {
            Some((lo, hi)) => match (lo.parse::<u32>(), hi.parse::<u32>()) {
                (Ok(lo), Ok(hi)) => av >= lo && av <= hi,
                _ => false,
            },
            None => rp.parse::<u32>().is_ok_and(|v| v == av),
        }
    })
}

fn iprange(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let range = a.first().map_or("", FnArg::text);
    let ifaces: Vec<String> = a.iter().skip(1).map(|x| canonify(x.text())).collect();
    for (iface, ip) in ctx.host.addresses() {
        if !ifaces.is_empty() && !ifaces.contains(&canonify(&iface)) {
            continue;
        }
        match ip_in_range(range, &ip) {
            Ok(true) => return Ok(Value::context(true)),
            Ok(false) => {}
            Err(e) => {
                ctx.error(e);
                return Ok(Value::context(false));
            }
        }
    }
    Ok(Value::context(false))
}

fn isipinsubnet(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let range = a.first().map_or("", FnArg::text);
    for ip in a.iter().skip(1).map(FnArg::text) {
        match ip_in_range(range, ip) {
            Ok(true) => return Ok(Value::context(true)),
            Ok(false) => {}
            Err(e) => {
                ctx.error(e);
                return Ok(Value::context(false));
            }
        }
    }
    Ok(Value::context(false))
}

fn hostrange(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let prefix = a[0].text();
    let host = ctx.host.hostname();
    let Some((lo, hi)) = a[1].text().split_once('-') else {
        return Ok(Value::context(false));
    };
    let (Ok(lo), Ok(hi)) = (lo.trim().parse::<i64>(), hi.trim().parse::<i64>()) else {
        return Ok(Value::context(false));
    };
    let ok = host
        .strip_prefix(prefix)
        .and_then(|rest| rest.parse::<i64>().ok())
        .is_some_and(|n| n >= lo && n <= hi);
    Ok(Value::context(ok))
}
