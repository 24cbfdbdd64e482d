//! Host → `sys.*` variables with the meta tags cf-agent 3.21 gives them (`--show-evaluated-vars`).
//! Not simulated (machine counters that change between two reads): `sys.interfaces_data`,
//! `sys.inet6`, and the `stats` member of `sys.inet` (routes and default gateway are simulated).

use std::path::Path;

use serde_json::{json, Map, Value};

use super::canon::canonify;
use super::hard_classes::{long_arch, CF_VERSION};
use super::os_classes::{derive_os, os_name_human, os_version_major, OsDerived};
use super::time::{civil, ctime};
use super::{sysvars_net, Host};

/// A `sys.*` value.
#[derive(Debug, Clone, PartialEq)]
pub enum SysValue {
    Str(String),
    List(Vec<String>),
    Data(Value),
}

/// One `sys.*` variable: `name` is the part after `sys.` (`ipv4[eth0]` for array entries).
#[derive(Debug, Clone, PartialEq)]
pub struct SysVar {
    pub name: String,
    pub value: SysValue,
    pub tags: String,
}

pub(super) const SRC: &str = "source=agent";
/// cf-agent's work directory layout on Debian (compiled-in paths).
pub const WORKDIR: &str = "/var/lib/cfengine3";

/// The variables in the order first set; setting a name again replaces its value in place (an index
/// by name keeps that linear in the number of interfaces and addresses).
#[derive(Default)]
pub(super) struct Out {
    vars: Vec<SysVar>,
    index: std::collections::HashMap<String, usize, crate::fasthash::FastState>,
}

impl Out {
    pub(super) fn put(&mut self, name: &str, value: SysValue, tags: &str) {
        let v = SysVar {
            name: name.to_string(),
            value,
            tags: tags.to_string(),
        };
        match self.index.get(name).and_then(|&i| self.vars.get_mut(i)) {
            Some(slot) => *slot = v,
            None => {
                self.index.insert(name.to_string(), self.vars.len());
                self.vars.push(v);
            }
        }
    }
    pub(super) fn s(&mut self, name: &str, value: impl Into<String>, tags: &str) {
        self.put(name, SysValue::Str(value.into()), tags);
    }
}

/// All `sys.*` variables for `host`; `entry` is the policy entry file (`sys.policy_entry_*`).
pub fn sys_vars(host: &Host, entry: Option<&Path>) -> Vec<SysVar> {
    sys_vars_with(host, entry, &derive_os(host))
}

/// [`sys_vars`] with the OS discovery of `host` ([`derive_os`]) done already: it reads the
/// distribution's marker files, which the hard classes read too.
pub fn sys_vars_with(host: &Host, entry: Option<&Path>, os: &OsDerived) -> Vec<SysVar> {
    let mut o = Out::default();
    let (fq, uq, domain) = host.names();
    o.s(
        "host",
        host.hostname.to_lowercase(),
        "inventory,source=agent,attribute_name=none",
    );
    o.s("uqhost", uq, "inventory,source=agent,attribute_name=none");
    o.s(
        "fqhost",
        fq,
        "inventory,source=agent,attribute_name=Host name",
    );
    o.s("domain", domain, SRC);
    time_vars(host, &mut o);
    let sysname = host.os.sysname.to_lowercase();
    let machine = host.os.machine.to_lowercase();
    if sysname == "linux" {
        o.s(
            "class",
            "linux",
            "inventory,source=agent,attribute_name=Kernel",
        );
    }
    o.s("os", sysname.clone(), SRC);
    o.s(
        "release",
        host.os.release.clone(),
        "inventory,source=agent,attribute_name=Kernel Release",
    );
    o.s("version", host.os.version.clone(), SRC);
    o.s(
        "arch",
        machine.clone(),
        "inventory,source=agent,attribute_name=Architecture",
    );
    // the agent's test hook: CFENGINE_TEST_OVERRIDE_WORKDIR replaces the work directory (modules, state)
    let workdir = host
        .env("CFENGINE_TEST_OVERRIDE_WORKDIR")
        .unwrap_or(WORKDIR)
        .to_string();
    for (k, v) in [
        ("workdir", workdir),
        ("fstab", "/etc/fstab".into()),
        ("resolv", "/etc/resolv.conf".into()),
        ("maildir", "/var/spool/mail".into()),
        ("exports", "/etc/exports".into()),
        ("logdir", "/var/log/cfengine3".into()),
        ("piddir", "/var/run/cfengine3".into()),
        ("statedir", format!("{WORKDIR}/state")),
        ("masterdir", format!("{WORKDIR}/masterfiles")),
        ("inputdir", format!("{WORKDIR}/inputs")),
        ("bindir", "/usr/bin".into()),
        (
            "default_policy_path",
            format!("{WORKDIR}/inputs/promises.cf"),
        ),
        (
            "failsafe_policy_path",
            format!("{WORKDIR}/inputs/failsafe.cf"),
        ),
        ("update_policy_path", format!("{WORKDIR}/inputs/update.cf")),
    ] {
        o.s(k, v, SRC);
    }
    o.s(
        "cf_version",
        CF_VERSION,
        "inventory,source=agent,attribute_name=CFEngine version",
    );
    let mut parts = CF_VERSION.split('.');
    for k in ["cf_version_major", "cf_version_minor", "cf_version_patch"] {
        o.s(k, parts.next().unwrap_or(""), SRC);
    }
    o.s("cf_version_release", "1", SRC);
    o.s("local_libdir", "lib", SRC);
    o.s("libdir", format!("{WORKDIR}/inputs/lib"), SRC);
    if let Some(d) = &host.key_digest {
        o.s(
            "key_digest",
            d.clone(),
            "inventory,source=agent,attribute_name=CFEngine ID",
        );
    }
    components(host, &mut o);
    o.s("long_arch", long_arch(host), SRC);
    o.s("ostype", canonify(&format!("{sysname}_{machine}")), SRC);
    sysvars_net::interface_vars(host, &mut o);
    sysvars_net::inet(host, &mut o);
    os_vars(host, os, &mut o);
    if let Some(u) = host.user(&host.current_user) {
        let data = json!({"description": u.gecos, "gid": u.gid, "home_dir": u.home,
                          "shell": u.shell, "uid": u.uid, "username": u.name});
        o.put("user_data", SysValue::Data(data), "source=agent,user_info");
    }
    if let Some(path) = entry {
        let full = path.to_string_lossy().to_string();
        let dir = path
            .parent()
            .map(|p| p.to_string_lossy().to_string())
            .unwrap_or_default();
        let base = path
            .file_name()
            .map(|p| p.to_string_lossy().to_string())
            .unwrap_or_default();
        o.s("policy_entry_filename", full, SRC);
        o.s("policy_entry_dirname", dir, SRC);
        o.s("policy_entry_basename", base, SRC);
    }
    // what the host is bootstrapped to (its policy_server.dat)
    if let Some(ps) = super::policy_server::policy_server(host) {
        if let Some(a) = ps.address {
            o.s("policy_hub", a, "source=bootstrap");
        }
        o.s("policy_hub_port", ps.port, "source=bootstrap");
    }
    o.vars
}

fn time_vars(host: &Host, o: &mut Out) {
    let t = &host.time;
    o.s("systime", t.epoch.to_string(), "time_based,source=agent");
    o.s(
        "sysday",
        t.epoch.div_euclid(86_400).to_string(),
        "time_based,source=agent",
    );
    if let Some(up) = host.uptime_minutes {
        o.s(
            "uptime",
            up.to_string(),
            "inventory,time_based,source=agent,attribute_name=Uptime minutes",
        );
    }
    let date = ctime(&civil(t.epoch, t.utc_offset));
    o.s("cdate", canonify(&date), "time_based,source=agent");
    o.s("date", date, "time_based,source=agent");
}

const COMPONENTS: &[&str] = &[
    "cf-twin",
    "cf-agent",
    "cf-serverd",
    "cf-monitord",
    "cf-know",
    "cf-report",
    "cf-key",
    "cf-runagent",
    "cf-execd",
    "cf-hub",
    "cf-reactor",
    "cf-promises",
    "cf-upgrade",
    "cf-net",
    "cf-check",
    "cf-secret",
];

fn components(host: &Host, o: &mut Out) {
    let has = |c: &str| host.cf_components.iter().any(|x| x == c);
    for c in COMPONENTS {
        if has(c) {
            o.s(
                &canonify(c),
                format!("\"/usr/bin/{c}\""),
                "cfe_internal,source=agent",
            );
        }
    }
    if !has("cf-twin") && has("cf-agent") {
        o.s(
            "cf_twin",
            "\"/usr/bin/cf-agent\"",
            "cfe_internal,source=agent",
        );
    }
}

fn os_vars(host: &Host, d: &OsDerived, o: &mut Out) {
    if let Some(tags) = &d.os_release_tags {
        let map: Map<String, Value> = host
            .os
            .os_release
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        o.put("os_release", SysValue::Data(Value::Object(map)), tags);
    }
    if let Some(f) = &d.flavor {
        o.s("flavour", f.clone(), SRC);
        o.s(
            "flavor",
            f.clone(),
            "inventory,source=agent,attribute_name=none",
        );
    }
    let cpus = host.cpus.max(1);
    if host.cpus > 0 {
        o.s(
            "cpus",
            cpus.to_string(),
            "inventory,source=agent,attribute_name=CPU logical cores",
        );
    }
    let user = &host.current_user;
    let crontab = if d.defines("SUSE") {
        format!("/var/spool/cron/tabs/{user}")
    } else if d.defines("redhat") {
        format!("/var/spool/cron/{user}")
    } else {
        format!("/var/spool/cron/crontabs/{user}")
    };
    o.s("crontab", crontab, SRC);
    for (class, root) in [
        ("redhat", "/var/www/html"),
        ("SUSE", "/srv/www/htdocs"),
        ("debian", "/var/www"),
    ] {
        if d.defines(class) {
            o.s("doc_root", root, SRC);
        }
    }
    let (human, tags) = os_name_human(&|c| d.defines(c));
    o.s("os_name_human", human, &tags);
    let (major, tags) = os_version_major(d.flavor.as_deref());
    o.s("os_version_major", major, &tags);
}

/// Render a value the way `--show-evaluated-vars` prints it (lists ` {"a","b"}`, data as compact
/// JSON with sorted keys, quotes in strings backslash-escaped).
pub fn render_value(v: &SysValue) -> String {
    match v {
        SysValue::Str(s) => s.replace('"', "\\\""),
        SysValue::List(items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|i| format!("\"{}\"", i.replace('"', "\\\"")))
                .collect();
            format!(" {{{}}}", inner.join(","))
        }
        SysValue::Data(d) => sorted_json(d).to_string(),
    }
}

/// A copy of `v` with object keys sorted (cf-agent prints containers that way).
pub fn sorted_json(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                if let Some(x) = m.get(k) {
                    out.insert(k.clone(), sorted_json(x));
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted_json).collect()),
        other => other.clone(),
    }
}

/// `--show-evaluated-vars` body lines for `vars` (sorted by name, `default:sys.` prefix,
/// `%-40s %-60s %-40s %-40s`, trailing blanks trimmed).
pub fn render_vars(vars: &[SysVar]) -> String {
    let mut v: Vec<&SysVar> = vars.iter().collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = String::new();
    for var in v {
        let line = format!(
            "{:<40} {:<60} {:<40} {:<40}",
            format!("default:sys.{}", var.name),
            render_value(&var.value),
            var.tags,
            ""
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
