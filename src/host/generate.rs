//! `cfsim host generate`: synthetic fleets for testing location and role classification — N host
//! profiles made from one or more base profiles (cycled: an OS mix), each with its own hostname, and
//! optionally its own domain and IPv4 address taken in turn from a list of ranges. Deterministic: the
//! same flags give the same files.

use std::net::Ipv4Addr;
use std::path::Path;

use serde_json::Value as Json;

/// Most profiles one call writes (explicit limit).
pub const MAX_COUNT: usize = 1_000_000;

/// What varies from one generated host to the next.
#[derive(Debug, Clone, Default)]
pub struct Vary {
    /// Hostname pattern; `{n}` is the 1-based host number, `{n:W}` zero-padded to W digits. Default
    /// `<base hostname>-{n:04}`.
    pub hostname: Option<String>,
    /// Domains, given in turn.
    pub domains: Vec<String>,
    /// IPv4 ranges (CIDR), given in turn: host k of a range gets the range's (k + 10)th address, the
    /// gateway is the range's first address.
    pub ipv4: Vec<ipnetwork::Ipv4Network>,
}

impl Vary {
    /// Parses one `--vary KEY=VALUE` (`hostname=PATTERN`, `domain=D1,D2`, `ipv4=CIDR1,CIDR2`).
    pub fn add(&mut self, spec: &str) -> Result<(), String> {
        let (k, v) = spec.split_once('=').ok_or_else(|| {
            format!("--vary '{spec}': expected KEY=VALUE (hostname=web{{n}}, domain=a,b, ipv4=CIDR,CIDR)")
        })?;
        match k {
            "hostname" => {
                if v.is_empty() || v.contains('/') {
                    return Err(format!("--vary '{spec}': a hostname pattern without '/'"));
                }
                self.hostname = Some(v.to_string());
            }
            "domain" => self.domains = v.split(',').map(str::to_string).collect(),
            "ipv4" => {
                for c in v.split(',') {
                    let net: ipnetwork::Ipv4Network = c
                        .parse()
                        .map_err(|e| format!("--vary '{spec}': '{c}': {e}"))?;
                    if net.size() < 16 {
                        return Err(format!(
                            "--vary '{spec}': '{c}' is too small (at least /28)"
                        ));
                    }
                    self.ipv4.push(net);
                }
            }
            _ => {
                return Err(format!(
                    "--vary '{spec}': unknown key '{k}' (hostname, domain, ipv4)"
                ))
            }
        }
        Ok(())
    }
}

/// Expands `{n}` / `{n:W}` in `pattern` with `n`.
fn expand_pattern(pattern: &str, n: usize) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(i) = rest.find("{n") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        if let Some(r) = after.strip_prefix('}') {
            out.push_str(&n.to_string());
            rest = r;
        } else if let Some((w, r)) = after
            .strip_prefix(':')
            .and_then(|a| a.split_once('}'))
            .and_then(|(w, r)| w.parse::<usize>().ok().map(|w| (w, r)))
        {
            out.push_str(&format!("{n:0w$}"));
            rest = r;
        } else {
            out.push_str("{n");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Host `n` (1-based) made from `base`.
pub fn make_host(base: &Json, n: usize, vary: &Vary) -> Result<Json, String> {
    let mut h = base.clone();
    let Some(m) = h.as_object_mut() else {
        return Err("a base profile must be a JSON object".into());
    };
    let base_name = m
        .get("hostname")
        .and_then(Json::as_str)
        .unwrap_or("host")
        .to_string();
    let pattern = vary
        .hostname
        .clone()
        .unwrap_or_else(|| format!("{base_name}-{{n:04}}"));
    let name = expand_pattern(&pattern, n);
    m.insert("hostname".into(), Json::String(name));
    if !vary.domains.is_empty() {
        let d = &vary.domains[(n - 1) % vary.domains.len()];
        m.insert("domain".into(), Json::String(d.clone()));
    }
    if !vary.ipv4.is_empty() {
        let ranges = vary.ipv4.len();
        let net = vary.ipv4[(n - 1) % ranges];
        let k = (n - 1) / ranges; // the k-th host given this range
        let offset = u32::try_from(k + 10).map_err(|_| "too many hosts".to_string())?;
        if offset >= net.size().saturating_sub(1) {
            return Err(format!("range {net} has no room for host {n}"));
        }
        let base_ip = u32::from(net.network());
        let addr = Ipv4Addr::from(base_ip + offset);
        let gw = Ipv4Addr::from(base_ip + 1);
        let ifaces = m
            .get_mut("interfaces")
            .and_then(Json::as_array_mut)
            .ok_or_else(|| "--vary ipv4: the base profile has no \"interfaces\"".to_string())?;
        let iface = ifaces
            .iter_mut()
            .find(|i| {
                !i["flags"]
                    .as_array()
                    .is_some_and(|f| f.iter().any(|x| x == "loopback"))
            })
            .ok_or_else(|| {
                "--vary ipv4: the base profile has no interface but loopback".to_string()
            })?;
        iface["ipv4"] = serde_json::json!([format!("{addr}/{}", net.prefix())]);
        // an IPv6 address of the base would place the host by the base's ranges too
        if let Some(v6) = iface.get_mut("ipv6").and_then(Json::as_array_mut) {
            v6.retain(|a| a.as_str().is_some_and(|s| s.starts_with("fe80:")));
        }
        m.insert("default_gateway".into(), Json::String(gw.to_string()));
    }
    if let Some(d) = m.get_mut("description") {
        *d = Json::String(format!("generated host {n} (cfsim host generate)"));
    }
    Ok(h)
}

/// Writes `count` profiles made from `bases` (cycled) into `out` as `<hostname>.json`; returns the
/// paths written. Base profiles are read as JSON and each result is checked by loading it back.
pub fn generate(
    bases: &[String],
    count: usize,
    vary: &Vary,
    out: &Path,
) -> Result<Vec<std::path::PathBuf>, String> {
    if count > MAX_COUNT {
        return Err(format!("--count {count}: at most {MAX_COUNT}"));
    }
    if bases.is_empty() {
        return Err("--from: at least one base profile".into());
    }
    // every range must hold the hosts it is given, before anything is written
    let ranges = vary.ipv4.len();
    for (r, net) in vary.ipv4.iter().enumerate() {
        let given = (count + ranges - 1 - r) / ranges;
        let room = net.size().saturating_sub(11) as usize;
        if given > room {
            return Err(format!(
                "range {net} would get {given} hosts but has room for {room} (addresses .10 up): give larger or more ranges"
            ));
        }
    }
    let mut docs = Vec::new();
    for b in bases {
        let text = crate::load::read_text(b).map_err(|e| e.to_string())?;
        let v: Json = serde_json::from_str(&text).map_err(|e| format!("{b}: {e}"))?;
        // a base must itself be a valid profile
        crate::host::profile::load_profile(Path::new(b)).map_err(|e| e.to_string())?;
        docs.push((b.clone(), v));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut written = Vec::new();
    let mut names = std::collections::HashSet::new();
    for n in 1..=count {
        let (b, base) = &docs[(n - 1) % docs.len()];
        let mut h = make_host(base, n, vary).map_err(|e| format!("{b}: {e}"))?;
        // a relative `$schema` / `files_root` of the base stays valid from its own directory only
        if let Some(m) = h.as_object_mut() {
            m.remove("$schema");
            if let Some(root) = m.get("files_root").and_then(Json::as_str) {
                let dir = Path::new(b).parent().unwrap_or(Path::new("."));
                let abs = dir.join(root);
                m.insert(
                    "files_root".into(),
                    Json::String(abs.to_string_lossy().into_owned()),
                );
            }
            if let Some(remote) = m.get_mut("remote_files") {
                let dir = Path::new(b).parent().unwrap_or(Path::new("."));
                crate::host::remote::rebase_json(remote, dir);
            }
        }
        let name = h["hostname"].as_str().unwrap_or("host").to_string();
        if !names.insert(name.clone()) {
            return Err(format!(
                "two generated hosts are named '{name}': put {{n}} in --vary hostname="
            ));
        }
        let path = out.join(format!("{name}.json"));
        let mut text = serde_json::to_string_pretty(&h).map_err(|e| e.to_string())?;
        text.push('\n');
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        crate::host::profile::load_profile(&path).map_err(|e| e.to_string())?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert_eq!(expand_pattern("web{n}", 7), "web7");
        assert_eq!(expand_pattern("web{n:03}.x", 7), "web007.x");
        assert_eq!(expand_pattern("a{n:x}b", 7), "a{n:x}b");
        assert_eq!(expand_pattern("plain", 7), "plain");
    }
}
