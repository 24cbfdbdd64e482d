//! Host-table functions: processexists, findprocesses, randomint, host2ip, sysctlvalue, and the peer
//! functions (peers, peerleader, peerleaders) that partition a host list file into groups.

use serde_json::{json, Value as Json};

use super::args::{full_match, int_arg, regex};
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[
    def("processexists", false, processexists),
    def("findprocesses", false, findprocesses),
    def("randomint", false, randomint),
    def("host2ip", false, host2ip),
    def("sysctlvalue", false, sysctlvalue),
    def("peers", false, peers),
    def("peerleader", false, peerleader),
    def("peerleaders", false, peerleaders),
];

fn processexists(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[0].text())?;
    let found = ctx
        .host
        .processes()
        .iter()
        .any(|p| re.plain().is_match(p.command.as_bytes()));
    Ok(Value::context(found))
}

fn findprocesses(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[0].text())?;
    let out: Vec<Json> = ctx
        .host
        .processes()
        .into_iter()
        .filter(|p| re.plain().is_match(p.command.as_bytes()))
        .map(|p| json!({"line": p.line, "pid": p.pid}))
        .collect();
    Ok(Value::Data(Json::Array(out)))
}

fn randomint(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (x, y) = (int_arg(&a[0]), int_arg(&a[1]));
    let (lo, hi) = if x <= y { (x, y) } else { (y, x) };
    if lo == hi {
        return Ok(Value::int(lo));
    }
    Ok(Value::int(ctx.host.random(lo, hi)))
}

/// The address of a host name; the name itself when it does not resolve (the agent's legacy rule).
fn host2ip(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let name = a[0].text();
    let ip = ctx
        .host
        .resolve_host(name)
        .and_then(|v| v.into_iter().next())
        .unwrap_or_else(|| name.to_string());
    Ok(Value::str(ip))
}

fn sysctlvalue(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let key = a[0].text();
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    match ctx.host.read_file(&path) {
        Some(b) => Ok(Value::str(String::from_utf8_lossy(&b).trim_end())),
        None => Err(FnFail),
    }
}

/// Host names of a peer file: comments removed, blank lines skipped, split into groups.
fn groups(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> Result<Vec<Vec<String>>, FnFail> {
    let path = a[0].text();
    let Some(b) = ctx.host.read_file(path) else {
        return Err(FnFail);
    };
    let text = String::from_utf8_lossy(&b).into_owned();
    let comment = if a[1].text().is_empty() {
        None
    } else {
        Some(regex(ctx, a[1].text())?)
    };
    let size = int_arg(&a[2]).max(1) as usize;
    let hosts: Vec<String> = text
        .lines()
        .map(|l| match &comment {
            Some(re) => String::from_utf8_lossy(&re.plain().replace_all(l.as_bytes(), &b""[..]))
                .into_owned(),
            None => l.to_string(),
        })
        .filter(|l| !l.trim().is_empty())
        .collect();
    Ok(hosts.chunks(size).map(<[String]>::to_vec).collect())
}

fn is_me(ctx: &CallCtx<'_>, h: &str) -> bool {
    let me = ctx.host.hostname();
    h == me || h.split('.').next() == Some(me.as_str())
}

fn peers(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let gs = groups(ctx, a)?;
    let mine = gs.into_iter().find(|g| g.iter().any(|h| is_me(ctx, h)));
    let out = mine
        .map(|g| g.into_iter().filter(|h| !is_me(ctx, h)).collect())
        .unwrap_or_default();
    Ok(Value::slist(out))
}

fn peerleader(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let gs = groups(ctx, a)?;
    let mine = gs.into_iter().find(|g| g.iter().any(|h| is_me(ctx, h)));
    match mine.and_then(|g| g.first().cloned()) {
        Some(l) if is_me(ctx, &l) => Ok(Value::str("localhost")),
        Some(l) => Ok(Value::str(l)),
        None => Err(FnFail),
    }
}

fn peerleaders(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let gs = groups(ctx, a)?;
    let out = gs
        .into_iter()
        .filter_map(|g| g.first().cloned())
        .map(|l| {
            if is_me(ctx, &l) {
                "localhost".to_string()
            } else {
                l
            }
        })
        .collect();
    Ok(Value::slist(out))
}

/// Whether a process line matches (exposed for the evaluator's `processes:` promises).
pub fn line_matches(re: &super::args::Re, line: &str) -> bool {
    full_match(re, line) || re.plain().is_match(line.as_bytes())
}
