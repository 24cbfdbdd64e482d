//! Host → hard classes with their meta tags, in cf-agent 3.21's discovery order (`GetNameInfo3`,
//! `GetInterfacesInfo`, IPv6 discovery, `GetNetworkingInfo`, `BuiltinClasses`, `OSClasses`, time
//! classes, component class). The first definition of a name keeps its tags, as in cf-agent.
//! Rendering matches `cf-agent --show-evaluated-classes` (names sorted, `hardclass` tag appended).

use super::canon::canonify;
use super::os_classes::{derive_os, OsDerived};
use super::time::{time_classes, TIME_CLASS_TAGS};
use super::Host;

/// CFEngine version whose classes (`cfengine_3_21_0` …) and variables are simulated.
pub const CF_VERSION: &str = "3.21.0";

/// Features compiled into the Debian 3.21.0 package (`feature_*` classes).
pub const FEATURES: &[&str] = &[
    "xml",
    "yaml",
    "tls_1_0",
    "tls_1_1",
    "tls_1_2",
    "tls_1_3",
    "def_json_preparse",
    "host_specific_data_load",
    "copyfrom_restrict_keys",
];

/// Which binary is being simulated: it defines `agent` or `common`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    /// cf-agent (class `agent`).
    Agent,
    /// cf-promises (class `common`).
    Promises,
}

/// One hard class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HardClass {
    pub name: String,
    /// Tags without the trailing `hardclass` that cf-agent adds when printing.
    pub tags: String,
}

/// Hard classes in definition order.
///
/// Redefinition follows cf-agent 3.21 (verified in namespaces with hostnames `x.y`, `a-b`,
/// `a-b.c-d.example.com`, `db1.dc1.example.net`): the "already defined?" lookup uses the name as
/// given, so a name that is already canonical keeps its first definition, while a name that needs
/// canonifying (`dc1.example.net`, `a-b`) is never found and replaces the tags of the canonical class.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassSet {
    map: crate::fasthash::FastIndexMap<String, String>,
}

impl ClassSet {
    /// Define `name` (canonified) with `tags`; see the type docs for redefinition.
    pub fn put(&mut self, name: &str, tags: &str) {
        let n = canonify(name);
        if n.is_empty() || (n == name && self.map.contains_key(&n)) {
            return;
        }
        self.map.insert(n, tags.to_string());
    }

    pub fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    pub fn tags(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The classes as a map, name → tags, in definition order.
    pub fn as_map(&self) -> &crate::fasthash::FastIndexMap<String, String> {
        &self.map
    }

    /// Classes in definition order.
    pub fn iter(&self) -> impl Iterator<Item = HardClass> + '_ {
        self.map.iter().map(|(n, t)| HardClass {
            name: n.clone(),
            tags: t.clone(),
        })
    }

    /// Classes sorted by name (byte order), as cf-agent prints them.
    pub fn sorted(&self) -> Vec<HardClass> {
        let mut v: Vec<HardClass> = self.iter().collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    }

    /// `--show-evaluated-classes` body lines (no header): `%-60s %-40s %-40s`, trailing blanks trimmed.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for c in self.sorted() {
            let line = format!(
                "{:<60} {:<40} {:<40}",
                c.name,
                format!("{},hardclass", c.tags),
                ""
            );
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

const INV: &str = "inventory,attribute_name=none,source=agent";

/// All hard classes cf-agent (or cf-promises) defines on `host`, in definition order.
pub fn hard_classes(host: &Host, component: Component) -> ClassSet {
    let mut s = host_classes(host);
    add_component_class(&mut s, component);
    s
}

/// The class naming the component (`agent`, or `common` for cf-promises), defined last.
pub fn component_class(component: Component) -> (&'static str, &'static str) {
    match component {
        Component::Agent => ("agent", "cfe_internal,source=agent"),
        Component::Promises => ("common", "cfe_internal,source=agent"),
    }
}

/// Adds [`component_class`] to the hard classes of the host.
pub fn add_component_class(s: &mut ClassSet, component: Component) {
    let (name, tags) = component_class(component);
    s.put(name, tags);
}

/// The hard classes of `host` but the component's ([`hard_classes`] without [`component_class`]):
/// the same for every tool run on the host.
pub fn host_classes(host: &Host) -> ClassSet {
    host_classes_with(host, &derive_os(host))
}

/// [`host_classes`] with the OS discovery of `host` ([`derive_os`]) done already.
pub fn host_classes_with(host: &Host, os: &OsDerived) -> ClassSet {
    let mut s = ClassSet::default();
    name_info(host, &mut s);
    interfaces(host, &mut s);
    if let Some(gw) = host.default_gateway {
        s.put(
            &format!("ipv4_gw_{gw}"),
            "inventory,networking,/proc,source=agent,attribute_name=none,procfs",
        );
    }
    s.put("any", "source=agent");
    let version = format!("cfengine_{}", canonify(CF_VERSION));
    let mut v = version.as_str();
    loop {
        s.put(v, INV);
        match v.rfind('_') {
            Some(p) => v = &v[..p],
            None => break,
        }
    }
    for f in FEATURES {
        let full = format!("feature_{f}");
        let mut v = full.as_str();
        loop {
            s.put(v, "source=agent");
            match v.rfind('_') {
                Some(p) => v = &v[..p],
                None => break,
            }
        }
    }
    for (name, tags) in &os.classes {
        s.put(name, tags);
    }
    for c in &host.extra_classes {
        s.put(c, "source=agent");
    }
    for c in time_classes(&host.time) {
        s.put(&c, TIME_CLASS_TAGS);
    }
    s
}

/// Pointer width of the agent build: 64 for 64-bit machines, else 32.
pub fn word_bits(machine: &str) -> u32 {
    let m = machine.to_lowercase();
    if m.contains("64") || m == "s390x" {
        64
    } else {
        32
    }
}

fn name_info(host: &Host, s: &mut ClassSet) {
    let (fq, uq, domain) = host.names();
    let mut rest = fq.as_str();
    loop {
        s.put(
            rest,
            "inventory,attribute_name=none,source=agent,derived-from=sys.fqhost",
        );
        match rest.find('.') {
            Some(p) => rest = &rest[p + 1..],
            None => break,
        }
    }
    s.put(&uq, "source=agent,derived-from=sys.uqhost");
    s.put(&domain, "source=agent,derived-from=sys.domain");
    let sysname = host.os.sysname.to_lowercase();
    let machine = host.os.machine.to_lowercase();
    let release = &host.os.release;
    if sysname == "linux" {
        s.put(
            "linux",
            "inventory,attribute_name=none,source=agent,derived-from=sys.class",
        );
    }
    if let Some(d) = &host.key_digest {
        s.put(
            &format!("PK_{d}"),
            "inventory,attribute_name=none,source=agent,derived-from=sys.key_digest",
        );
    }
    s.put("community_edition", INV);
    s.put(&format!("{}_bit", word_bits(&machine)), "source=agent");
    s.put(
        &format!("{sysname}_{release}"),
        "inventory,attribute_name=none,source=agent,derived-from=sys.sysname,derived-from=sys.release",
    );
    s.put(&machine, "source=agent,derived-from=sys.machine");
    s.put(
        &format!("{sysname}_{machine}"),
        "source=agent,derived-from=sys.sysname,derived-from=sys.machine",
    );
    s.put(
        &format!("{sysname}_{machine}_{release}"),
        "source=agent,derived-from=sys.sysname,derived-from=sys.machine,derived-from=sys.release",
    );
    s.put(&long_arch(host), "source=agent,derived-from=sys.long_arch");
    s.put(
        &format!("{sysname}_{machine}"),
        "inventory,attribute_name=none,source=agent,derived-from=sys.ostype",
    );
    s.put("compiled_on_linux_gnu", "source=agent");
    for a in &host.host_aliases {
        s.put(
            a,
            "inventory,attribute_name=none,source=agent,based-on=sys.fqhost",
        );
    }
}

/// `sys.long_arch`: canonified `sysname_machine_release_version`.
pub fn long_arch(host: &Host) -> String {
    canonify(&format!(
        "{}_{}_{}_{}",
        host.os.sysname.to_lowercase(),
        host.os.machine.to_lowercase(),
        host.os.release,
        host.os.version
    ))
}

fn interfaces(host: &Host, s: &mut ClassSet) {
    for iface in &host.interfaces {
        if iface.ipv4.is_empty() {
            continue;
        }
        for a in &iface.ipv4 {
            s.put(&format!("net_iface_{}", iface.name), "source=agent");
            if iface.has_flag("up") {
                let txt = a.address.to_string();
                s.put(&txt, INV);
                let mut ip = format!("ipv4_{txt}");
                s.put(&ip, INV);
                while let Some(p) = ip.rfind('.') {
                    ip.truncate(p);
                    s.put(&ip, INV);
                }
            }
            if !iface.has_flag("loopback") {
                if let Some(mac) = &iface.mac {
                    s.put(&format!("mac_{mac}"), INV);
                }
            }
        }
    }
    for iface in host.interfaces_by_name() {
        for a in &iface.ipv6 {
            if a.address == std::net::Ipv6Addr::LOCALHOST {
                continue;
            }
            let txt = a.address.to_string();
            s.put(&txt, INV);
            s.put(&format!("ipv6_{txt}"), INV);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redefinition_rules() {
        let mut s = ClassSet::default();
        s.put("vm", "derived-from=sys.fqhost");
        s.put("vm", "derived-from=sys.uqhost");
        s.put("", "ignored");
        assert_eq!(s.tags("vm"), Some("derived-from=sys.fqhost"));
        assert_eq!(s.len(), 1);
        s.put("a-b", "derived-from=sys.fqhost");
        s.put("a-b", "derived-from=sys.uqhost");
        assert_eq!(s.tags("a_b"), Some("derived-from=sys.uqhost"));
    }

    #[test]
    fn word_size_from_machine() {
        assert_eq!(word_bits("x86_64"), 64);
        assert_eq!(word_bits("aarch64"), 64);
        assert_eq!(word_bits("armv7l"), 32);
        assert_eq!(word_bits("i686"), 32);
    }
}
