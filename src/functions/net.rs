//! Network functions: iprange (against the host's addresses, optionally per interface), isipinsubnet,
//! hostrange. Range matching is the agent's `FuzzySetMatch`, implemented once in `host::iprange` (IPv4 CIDR
//! with any mask, IPv6 CIDR in 8-bit steps, octet ranges, prefixes, and its error messages); like the agent,
//! every address tried logs its own error.

use super::{def, CallCtx, FnArg, FnDef, FnResult};
use crate::expr::canonify;
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("iprange", false, iprange),
    def("isipinsubnet", true, isipinsubnet),
    def("hostrange", false, hostrange),
];

fn iprange(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let range = a.first().map_or("", FnArg::text);
    let ifaces: Vec<String> = a.iter().skip(1).map(|x| canonify(x.text())).collect();
    for (iface, ip) in ctx.host.addresses() {
        if !ifaces.is_empty() && !ifaces.contains(&canonify(&iface)) {
            continue;
        }
        if matches_logging(ctx, range, &ip) {
            return Ok(Value::context(true));
        }
    }
    Ok(Value::context(false))
}

fn isipinsubnet(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let range = a.first().map_or("", FnArg::text);
    for ip in a.iter().skip(1).map(FnArg::text) {
        if matches_logging(ctx, range, ip) {
            return Ok(Value::context(true));
        }
    }
    Ok(Value::context(false))
}

/// `FuzzySetMatch(range, ip)`, logging its errors as the agent does.
fn matches_logging(ctx: &mut CallCtx<'_>, range: &str, ip: &str) -> bool {
    let mut errors = Vec::new();
    let m = crate::host::iprange::fuzzy_set_match(range, ip, &mut errors);
    for e in errors {
        ctx.error(e);
    }
    m
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
