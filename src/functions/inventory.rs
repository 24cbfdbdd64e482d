//! Inventory-style functions: packagesmatching, packageupdatesmatching, hostsseen, hostswithclass
//! (Enterprise-only: the community agent's error), registryvalue (Windows-only: fails here), diskfree,
//! ip2host, network_connections (from /proc/net via the host), data_sysctlvalues (/proc/sys).

use serde_json::{json, Map, Value as Json};

use super::args::{full_match, int_arg, regex};
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::value::Value;

/// Deepest /proc/sys directory level `data_sysctlvalues` descends into.
pub const SYSCTL_MAX_DEPTH: usize = 8;

pub const FUNCTIONS: &[FnDef] = &[
    def("packagesmatching", false, packagesmatching),
    def("packageupdatesmatching", false, packageupdatesmatching),
    def("hostsseen", false, hostsseen),
    def("hostswithclass", false, hostswithclass),
    def("registryvalue", false, registryvalue),
    def("diskfree", false, diskfree),
    def("ip2host", false, ip2host),
    def("network_connections", false, network_connections),
    def("data_sysctlvalues", false, data_sysctlvalues),
];

/// With `package_inventory` in `body common control` the agent reads the package modules' inventory
/// databases (`<statedir>/packages_installed_<module>.lmdb`, `packages_updates_…`) and fails when none
/// of them exists; the legacy CSV inventory is used only without it.
fn module_inventory_missing(ctx: &CallCtx<'_>, updates: bool) -> bool {
    let Some(Value::List(_, modules)) =
        ctx.env
            .get_var("default", "control_common", "package_inventory")
    else {
        return false;
    };
    let modules: Vec<&String> = modules
        .iter()
        .filter(|m| !m.is_empty() && *m != "cf_null")
        .collect();
    if modules.is_empty() {
        return false;
    }
    let statedir = match ctx.env.get_var("default", "sys", "statedir") {
        Some(Value::Scalar(_, d)) => d,
        _ => return true,
    };
    let kind = if updates { "updates" } else { "installed" };
    !modules.iter().any(|m| {
        ctx.host
            .stat(&format!("{statedir}/packages_{kind}_{m}.lmdb"), true)
            .is_some()
    })
}

/// The modules named by `package_inventory` in `body common control` (empty when it is not set).
fn inventory_modules(ctx: &CallCtx<'_>) -> Vec<String> {
    match ctx
        .env
        .get_var("default", "control_common", "package_inventory")
    {
        Some(Value::List(_, m)) => m
            .into_iter()
            .filter(|m| !m.is_empty() && m != "cf_null")
            .collect(),
        _ => Vec::new(),
    }
}

fn packages(ctx: &mut CallCtx<'_>, a: &[FnArg], updates: bool) -> FnResult {
    // a simulated host answers from its run's module caches (recorded: empty before the first package
    // promise of a run with cold caches, the module's list after it)
    let modules = inventory_modules(ctx);
    let simulated = if modules.is_empty() {
        None
    } else {
        ctx.host.module_packages(&modules, updates)
    };
    if simulated.is_none() && module_inventory_missing(ctx, updates) {
        return Err(FnFail);
    }
    let res = a
        .iter()
        .take(4)
        .map(|x| regex(ctx, x.text()))
        .collect::<Result<Vec<_>, _>>()?;
    let list = match simulated {
        Some(l) => l,
        None => ctx.host.packages(updates),
    };
    let out: Vec<Json> = list
        .into_iter()
        .filter(|p| {
            let fields = [&p.name, &p.version, &p.arch, &p.method];
            res.iter().zip(fields).all(|(re, f)| full_match(re, f))
        })
        .map(|p| json!({"arch": p.arch, "method": p.method, "name": p.name, "version": p.version}))
        .collect();
    Ok(Value::Data(Json::Array(out)))
}

fn packagesmatching(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    packages(ctx, a, false)
}

fn packageupdatesmatching(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    packages(ctx, a, true)
}

fn hostsseen(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let Some(seen) = ctx.host.lastseen() else {
        return Err(FnFail);
    };
    let horizon = if a[0].text() == "inf" {
        i64::MAX / 4
    } else {
        int_arg(&a[0]) * 3600
    };
    let now = ctx.host.now();
    let want_seen = a[1].text() == "lastseen";
    let out = seen
        .into_iter()
        .filter(|h| (now - h.last <= horizon) == want_seen)
        .map(|h| match a[2].text() {
            "address" => h.address,
            "hostkey" => h.hostkey,
            _ => h.name,
        })
        .collect();
    Ok(Value::slist(out))
}

fn hostswithclass(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Err(ctx.fail("Host class counting is only available in CFEngine Enterprise"))
}

fn registryvalue(_: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    Err(FnFail)
}

fn diskfree(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let path = a[0].text();
    match ctx.host.disk_free(path) {
        Some(kb) => Ok(Value::int(kb)),
        None => {
            ctx.error(format!(
                "Couldn't get filesystem info for '{path}'. (statfs: No such file or directory)"
            ));
            Ok(Value::int(0))
        }
    }
}

/// The host name of an address; the address itself when there is none (the agent's legacy rule).
fn ip2host(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let ip = a[0].text();
    Ok(Value::str(
        ctx.host
            .reverse_lookup(ip)
            .unwrap_or_else(|| ip.to_string()),
    ))
}

/// TCP state names indexed as the agent reads the state field (decimal digits of the hex code, so
/// LISTEN `0A` reads as 0 = `UNKNOWN`).
const TCP_STATES: [&str; 12] = [
    "UNKNOWN",
    "ESTABLISHED",
    "SYN_SENT",
    "SYN_RECV",
    "FIN_WAIT1",
    "FIN_WAIT2",
    "TIME_WAIT",
    "CLOSE",
    "CLOSE_WAIT",
    "LAST_ACK",
    "LISTEN",
    "CLOSING",
];

fn decode_addr(hex: &str) -> (String, String) {
    let (addr, port) = hex.split_once(':').unwrap_or((hex, "0"));
    let port = u32::from_str_radix(port, 16).unwrap_or(0).to_string();
    let words: Vec<u32> = (0..addr.len() / 8)
        .filter_map(|i| addr.get(i * 8..i * 8 + 8))
        .map(|w| u32::from_str_radix(w, 16).unwrap_or(0))
        .collect();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let text = if bytes.len() == 4 {
        bytes
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(".")
    } else {
        bytes
            .chunks(2)
            .map(|c| format!("{:x}", u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
            .collect::<Vec<_>>()
            .join(":")
    };
    (text, port)
}

fn connections(ctx: &CallCtx<'_>, proto: &str) -> Json {
    let Some(b) = ctx.host.read_file(&format!("/proc/net/{proto}")) else {
        return Json::Array(Vec::new());
    };
    let text = String::from_utf8_lossy(&b).into_owned();
    let rows = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (la, lp) = decode_addr(f.get(1)?);
            let (ra, rp) = decode_addr(f.get(2)?);
            let digits: String = f.get(3)?.chars().take_while(char::is_ascii_digit).collect();
            let st = digits.parse::<usize>().unwrap_or(0);
            let state = TCP_STATES.get(st).copied().unwrap_or("UNKNOWN");
            Some(json!({
                "local": {"address": la, "port": lp},
                "remote": {"address": ra, "port": rp},
                "state": state,
            }))
        })
        .collect();
    Json::Array(rows)
}

fn network_connections(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    let mut m = Map::new();
    for proto in ["tcp", "tcp6", "udp", "udp6"] {
        m.insert(proto.to_string(), connections(ctx, proto));
    }
    Ok(Value::Data(Json::Object(m)))
}

fn sysctl_walk(ctx: &CallCtx<'_>, dir: &str, key: &str, depth: usize, out: &mut Map<String, Json>) {
    if depth > SYSCTL_MAX_DEPTH {
        return;
    }
    let Some(entries) = ctx.host.list_dir(dir) else {
        return;
    };
    for e in entries {
        let path = format!("{dir}/{e}");
        let k = if key.is_empty() {
            e.clone()
        } else {
            format!("{key}.{e}")
        };
        match ctx.host.stat(&path, false) {
            Some(s) if s.is_dir => sysctl_walk(ctx, &path, &k, depth + 1, out),
            Some(_) => {
                if let Some(b) = ctx.host.read_file(&path) {
                    let v = String::from_utf8_lossy(&b).trim_end().to_string();
                    out.insert(k, Json::String(v));
                }
            }
            None => {}
        }
    }
}

fn data_sysctlvalues(ctx: &mut CallCtx<'_>, _: &[FnArg]) -> FnResult {
    let mut m = Map::new();
    sysctl_walk(ctx, "/proc/sys", "", 0, &mut m);
    Ok(Value::Data(Json::Object(m)))
}
