//! Class names the agent may define without any promise (hard classes, and the soft classes the agent
//! itself sets), recognised by name form so that the "used but never defined" lint stays quiet about
//! them. The rule is conservative: every form cf-agent 3.21's discovery produces on some host (what
//! `src/host/hard_classes.rs` derives: OS, distribution and version, architecture, CPU count, time,
//! network addresses and interfaces, CFEngine version and features, key digest) is known, whatever the
//! values. Host names and domains cannot be recognised by form: a guard naming a host warns unless
//! some promise defines the class.

use std::sync::OnceLock;

// cfsim's own lint patterns, not the agent's matching: the `regex` crate (agent matching is crate::pcre)
use regex::Regex;

/// Names defined on some host or by the agent itself.
const EXACT: &[&str] = &[
    "any",
    "true",
    "false",
    "agent",
    "common",
    "cfengine",
    "community_edition",
    "enterprise_edition",
    "enterprise",
    "nova",
    "systemd",
    "sysvinit",
    "linux",
    "windows",
    "solaris",
    "sunos",
    "aix",
    "hpux",
    "freebsd",
    "netbsd",
    "openbsd",
    "dragonfly",
    "darwin",
    "macos",
    "osx",
    "cygwin",
    "mingw",
    "qnx",
    "android",
    "termux",
    "unix",
    "debian",
    "ubuntu",
    "redhat",
    "rhel",
    "centos",
    "fedora",
    "rocky",
    "almalinux",
    "oracle",
    "suse",
    "sles",
    "sled",
    "opensuse",
    "SuSE",
    "amazon_linux",
    "alpine_linux",
    "alpine",
    "alpinelinux",
    "gentoo",
    "archlinux",
    "arch",
    "manjaro",
    "mandrake",
    "mandriva",
    "slackware",
    "coreos",
    "raspbian",
    "devuan",
    "kali",
    "linuxmint",
    "mint",
    "xen",
    "xen_dom0",
    "docker",
    "virt_guest",
    "vmware",
    "virtual",
    "Morning",
    "Afternoon",
    "Evening",
    "Night",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Q1",
    "Q2",
    "Q3",
    "Q4",
    "x86_64",
    "i386",
    "i486",
    "i586",
    "i686",
    "aarch64",
    "arm64",
    "amd64",
    "ppc",
    "ppc64",
    "ppc64le",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "ia64",
    "riscv64",
    "mips",
    "mips64",
    // soft classes the agent sets from its options and state
    "bootstrap_mode",
    "inform_mode",
    "verbose_mode",
    "debug_mode",
    "opt_dry_run",
    "policy_server",
    "am_policy_hub",
    "failsafe_fallback",
    "has_proc_1_cmdline",
    "localhost",
];

/// Name forms with values (versions, addresses, times…).
const PATTERNS: &[&str] = &[
    // CFEngine version and compiled features
    r"^cfengine_\d+(_\d+)*$",
    r"^feature(_[A-Za-z0-9]+)*$",
    r"^compiled_on_[A-Za-z0-9_]+$",
    // network: addresses, interfaces, MACs, gateway, key digest
    r"^ipv4_[0-9_]+$",
    r"^ipv4_gw_[0-9_]+$",
    r"^ipv6_[0-9a-fA-F_]+$",
    r"^[0-9]+(_[0-9]+){1,3}$",
    r"^mac_[0-9a-fA-F_]+$",
    // IPv6 addresses canonified (`fe80__fc_ff_fe00_1`, `2001_db8_0_0_0_0_0_1`)
    r"^[0-9a-fA-F_]*__[0-9a-fA-F_]*$",
    r"^[0-9a-fA-F]{1,4}(_[0-9a-fA-F]{1,4}){7}$",
    r"^net_iface_[A-Za-z0-9_]+$",
    r"^PK_[A-Za-z0-9_]+$",
    // word size and CPU count
    r"^\d+_bit$",
    r"^\d+_cpus?$",
    // OS, distribution and version (`debian_12`, `ubuntu_22_04`, `linux_x86_64_6_1_0`, `el9`)
    r"^(linux|windows|solaris|sunos|aix|hpux|freebsd|netbsd|openbsd|darwin|macos|debian|ubuntu|redhat|rhel|centos|fedora|rocky|almalinux|oracle|suse|sles|sled|opensuse|opensuse_leap|opensuse_tumbleweed|amazon_linux|alpine_linux|alpine|gentoo|archlinux|raspbian|devuan|kali|linuxmint|mint|coreos|slackware|mandriva|mandrake|SuSE|SUSE|xen|vmware|arm|armv\d+l?|ppc|s390|sparc|mips)_[A-Za-z0-9_]+$",
    r"^el\d+$",
    r"^armv\d+[a-z]*$",
    // time: `Yr2026`, `Day21`, `Hr07`, `Hr07_Q4`, `Min57`, `Min55_00`, `Lcycle_1`, and their GMT_ copies
    r"^(GMT_)?(Yr\d{4}|Day\d{1,2}|Hr\d{1,2}(_Q[1-4])?|Min\d{2}(_\d{2})?|Lcycle_\d|Q[1-4]|Morning|Afternoon|Evening|Night|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December)$",
];

fn patterns() -> &'static [Regex] {
    static P: OnceLock<Vec<Regex>> = OnceLock::new();
    P.get_or_init(|| PATTERNS.iter().filter_map(|p| Regex::new(p).ok()).collect())
}

/// Whether `name` (`ns:` prefix allowed for `default:`) is a hard or agent-set class form.
pub fn is_known(name: &str) -> bool {
    let name = name.strip_prefix("default:").unwrap_or(name);
    EXACT.contains(&name) || patterns().iter().any(|r| r.is_match(name))
}

#[cfg(test)]
mod tests {
    use super::is_known;

    #[test]
    fn hard_class_forms() {
        for n in [
            "linux",
            "debian_12",
            "ubuntu_22_04",
            "cfengine_3_21_0",
            "ipv4_192_168_1",
            "192_168_1_10",
            "Hr07_Q4",
            "GMT_Min55_00",
            "Yr2026",
            "64_bit",
            "4_cpus",
            "feature_xml",
            "mac_52_54_00_12_34_56",
            "net_iface_eth0",
            "default:windows",
        ] {
            assert!(is_known(n), "{n}");
        }
        for n in ["web_servers", "my_class", "Hour7", "webserver"] {
            assert!(!is_known(n), "{n}");
        }
    }

    #[test]
    fn every_host_profile_class_is_known_or_a_name() {
        // the hard classes of the committed profiles are known by form, except host and domain names
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/policies/hosts");
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        let mut missing = Vec::new();
        for p in paths {
            let s = p.to_string_lossy().to_string();
            if !s.ends_with(".json") || s.ends_with("schema.json") {
                continue;
            }
            let Ok(host) = crate::host::load_host(&s) else {
                continue;
            };
            let (fq, uq, domain) = host.names();
            let names: Vec<String> = [fq.clone(), uq, domain]
                .iter()
                .chain(host.host_aliases.iter())
                .flat_map(|n| {
                    let mut v = vec![crate::expr::canonify(n)];
                    let mut rest = n.as_str();
                    while let Some(i) = rest.find('.') {
                        rest = &rest[i + 1..];
                        v.push(crate::expr::canonify(rest));
                    }
                    v
                })
                .collect();
            let set = crate::host::hard_classes::hard_classes(
                &host,
                crate::host::hard_classes::Component::Agent,
            );
            for c in set.iter() {
                if names.contains(&c.name) || host.extra_classes.contains(&c.name) {
                    continue;
                }
                if !is_known(&c.name) {
                    missing.push(format!("{s}: {}", c.name));
                }
            }
        }
        assert!(missing.is_empty(), "hard classes not known: {missing:#?}");
    }
}
