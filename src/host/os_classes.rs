//! Linux distribution discovery as cf-agent 3.21's `OSClasses` does it: `systemd`, `/etc/os-release`
//! (flavor + versioned classes), `/etc/redhat-release`, `/etc/system-release` (Amazon),
//! `/etc/debian_version` + `/etc/issue`, `/usr/bin/aptitude`, Alpine, Gentoo and Arch markers, and the
//! CPU count classes. The inputs are the host's os-release map and distro marker files; this module
//! returns classes (in derivation order, with tags) and the `sys.*` values that depend on them.
//! Not modelled: Mandrake/Mandriva, Fedora-, Oracle-, SuSE- and Slackware-release files, Cumulus
//! `lsb-release`, VMware/Xen/OpenVZ detection, BIG-IP `/etc/issue`.

use super::canon::canonify;
use super::Host;

/// Distribution marker files consulted (path → only the first line matters, except os-release).
pub const DISTRO_FILES: &[&str] = &[
    "/etc/redhat-release",
    "/etc/system-release",
    "/etc/debian_version",
    "/etc/issue",
    "/usr/bin/aptitude",
    "/etc/alpine-release",
    "/etc/gentoo-release",
    "/etc/arch-release",
];

/// What OS discovery produces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OsDerived {
    /// Classes in the order cf-agent puts them (first put of a name wins).
    pub classes: Vec<(String, String)>,
    /// `sys.flavor` (last `SetFlavor` wins).
    pub flavor: Option<String>,
    /// Tags of `sys.os_release` when `/etc/os-release` was parsed.
    pub os_release_tags: Option<String>,
}

impl OsDerived {
    fn put(&mut self, name: &str, tags: &str) {
        self.classes.push((canonify(name), tags.to_string()));
    }

    fn set_flavor(&mut self, flavor: &str) {
        self.put(
            flavor,
            "inventory,attribute_name=none,source=agent,derived-from=sys.flavor",
        );
        self.flavor = Some(flavor.to_string());
    }

    fn has(&self, name: &str) -> bool {
        self.classes.iter().any(|(n, _)| n == name)
    }
}

fn first_line(host: &Host, path: &str) -> Option<String> {
    host.file(path)
        .map(|f| f.content.split('\n').next().unwrap_or("").to_string())
}

/// Leading integer as C `sscanf("%d")` reads it (whitespace skipped, optional sign).
fn scan_int(s: &str) -> Option<(i64, &str)> {
    let t = s.trim_start();
    let bytes = t.as_bytes();
    let mut i = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let start_digits = i;
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    if i == start_digits {
        return None;
    }
    let v = t.get(..i)?.parse::<i64>().ok()?;
    Some((v, t.get(i..).unwrap_or("")))
}

/// `sscanf(s, "%d.%d", …)`: the number of fields converted and their values.
fn scan_major_minor(s: &str) -> (usize, i64, i64) {
    match scan_int(s) {
        None => (0, -1, -1),
        Some((major, rest)) => match rest.strip_prefix('.').and_then(scan_int) {
            Some((minor, _)) => (2, major, minor),
            None => (1, major, -1),
        },
    }
}

/// Drop `\x` and `@x` escape pairs and trailing whitespace from an `/etc/issue` line.
fn sanitize_issue(s: &str) -> String {
    let mut out = String::new();
    let mut escaped = false;
    for ch in s.chars() {
        if ch == '\\' || ch == '@' || escaped {
            escaped = !escaped;
        } else {
            out.push(ch);
        }
    }
    out.trim_end().to_string()
}

/// Run the OS part of cf-agent's environment discovery on `host`.
pub fn derive_os(host: &Host) -> OsDerived {
    let mut d = OsDerived::default();
    if host.systemd {
        d.put("systemd", "inventory,attribute_name=none,source=agent");
    }
    if !host.os.os_release.is_empty() {
        os_release(host, &mut d);
    }
    if host.file_exists("/etc/redhat-release") {
        redhat(host, &mut d);
    }
    if host.file_exists("/etc/system-release") {
        amazon(host, &mut d);
    }
    if host.file_exists("/etc/debian_version") {
        debian(host, &mut d);
    }
    if host.file_exists("/usr/bin/aptitude") {
        d.put(
            "have_aptitude",
            "inventory,attribute_name=none,source=agent",
        );
    }
    if host.file_exists("/etc/alpine-release") {
        alpine(host, &mut d);
    }
    if host.file_exists("/etc/gentoo-release") {
        d.set_flavor("gentoo");
    }
    if host.file_exists("/etc/arch-release") {
        d.set_flavor("archlinux");
    }
    let cpu_tags = "source=agent,derived-from=sys.cpus";
    match host.cpus {
        0 => {}
        1 => d.put("1_cpu", cpu_tags),
        n => d.put(&format!("{n}_cpus"), cpu_tags),
    }
    d
}

fn versioned(d: &mut OsDerived, tags: &str, id: &str, version: &str) {
    let mut class = format!("{id}_{version}");
    while let Some(p) = class.rfind('_') {
        d.put(&class, tags);
        class.truncate(p);
    }
    d.put(&class, tags);
}

fn os_release(host: &Host, d: &mut OsDerived) {
    let tags = "inventory,attribute_name=none,source=agent,derived-from-file=/etc/os-release";
    d.os_release_tags = Some(tags.to_string());
    let Some(id) = host.os.os_release.get("ID").map(|s| canonify(s)) else {
        return;
    };
    let alias = match id.as_str() {
        "rhel" => Some("redhat"),
        "opensuse" | "sles" => Some("suse"),
        _ => None,
    };
    match host.os.os_release.get("VERSION_ID").map(|s| canonify(s)) {
        None => {
            d.put(&id, tags);
            if let Some(a) = alias {
                d.put(a, tags);
            }
        }
        Some(ver) => {
            let major = ver.split('_').next().unwrap_or("");
            d.set_flavor(&format!("{id}_{major}"));
            versioned(d, tags, &id, &ver);
            if let Some(a) = alias {
                versioned(d, tags, a, &ver);
            }
        }
    }
}

const REDHAT_VENDORS: &[(&str, &str, &str)] = &[
    ("Red Hat Enterprise Linux ES", "redhat", "es"),
    ("Red Hat Enterprise Linux WS", "redhat", "ws"),
    ("Red Hat Enterprise Linux AS", "redhat", "as"),
    ("Red Hat Linux Advanced Server", "redhat", "as"),
    ("Red Hat Enterprise Linux Server", "redhat", "s"),
    ("Red Hat Enterprise Linux Client", "redhat", "c"),
    ("Red Hat Enterprise Linux Workstation", "redhat", "c"),
    ("Red Hat Enterprise Linux ComputeNode", "redhat", "cn"),
    ("Red Hat Linux", "redhat", ""),
    ("Red Hat Enterprise Linux", "redhat", ""),
    ("Linux Mandrake", "mandrake", ""),
    ("Mandrakelinux", "mandrake", ""),
    ("White Box Enterprise Linux", "whitebox", ""),
    ("Scientific Linux SL", "scientific", "sl"),
    ("Scientific Linux CERN", "scientific", "cern"),
    ("Scientific Linux", "scientific", "sl"),
    ("CentOS", "centos", ""),
    ("Enterprise Linux Enterprise Linux Server", "oracle", "s"),
];

fn redhat(host: &Host, d: &mut OsDerived) {
    let tags = "inventory,attribute_name=none,source=agent,derived-from-file=/etc/redhat-release";
    d.put("redhat", tags);
    let Some(line) = first_line(host, "/etc/redhat-release") else {
        return;
    };
    let Some(&(_, vendor, edition)) = REDHAT_VENDORS.iter().find(|(p, _, _)| line.starts_with(p))
    else {
        return;
    };
    let lower = line.to_lowercase();
    let Some(pos) = lower.find("release ") else {
        return;
    };
    let (n, major, minor) = scan_major_minor(&lower[pos + "release ".len()..]);
    if n == 0 {
        return;
    }
    let minor = if n == 1 { None } else { Some(minor) };
    let mut class = vendor.to_string();
    d.put(&class, tags);
    class.push('_');
    if !edition.is_empty() {
        class.push_str(edition);
        d.put(&class, tags);
        class.push('_');
    }
    class.push_str(&major.to_string());
    d.put(&class, tags);
    if let Some(m) = minor {
        d.put(&format!("{class}_{m}"), tags);
    }
    let plain = format!("{vendor}_{major}");
    d.put(vendor, tags);
    d.set_flavor(&plain);
    if let Some(m) = minor {
        d.put(&format!("{plain}_{m}"), tags);
    }
}

fn amazon(host: &Host, d: &mut OsDerived) {
    let Some(line) = first_line(host, "/etc/system-release") else {
        return;
    };
    if !line.contains("Amazon") {
        return;
    }
    let tags = "inventory,attribute_name=none,source=agent,derived-from-file=/etc/system-release";
    d.put("amazon_linux", tags);
    match line.split_whitespace().nth(3) {
        Some(v) => {
            let class = format!("amazon_linux_{}", canonify(v));
            d.put(&class, tags);
            d.set_flavor(&class);
        }
        None => d.set_flavor("amazon_linux"),
    }
    d.put(
        "AmazonLinux",
        "inventory,attribute_name=none,source=agent,derived-from=sys.flavor",
    );
}

fn debian(host: &Host, d: &mut OsDerived) {
    let tags = "inventory,attribute_name=none,source=agent,derived-from-file=/etc/debian_version";
    d.put("debian", tags);
    let Some(line) = first_line(host, "/etc/debian_version") else {
        return;
    };
    let (n, major, release) = scan_major_minor(&line);
    match n {
        2 => {
            d.put(&format!("debian_{major}_{release}"), tags);
            d.set_flavor(&format!("debian_{major}"));
        }
        1 => d.set_flavor(&format!("debian_{major}")),
        _ => {
            let v: String = line.chars().take_while(|&c| c != '/').take(25).collect();
            if !v.is_empty() {
                d.put(&format!("debian_{v}"), tags);
            }
        }
    }
    let Some(issue) = first_line(host, "/etc/issue") else {
        return;
    };
    let issue_tags = "inventory,attribute_name=none,source=agent,derived-from-file=/etc/issue";
    match issue.split_whitespace().next() {
        Some("Debian") => {
            let clean = sanitize_issue(&issue);
            let third = clean.split_whitespace().nth(2).unwrap_or("");
            let v: String = third
                .chars()
                .take_while(|&c| c != '.' && c != '/')
                .collect();
            d.put("debian", issue_tags);
            if !v.is_empty() {
                d.set_flavor(&format!("debian_{v}"));
            }
        }
        Some("Ubuntu") => {
            let clean = sanitize_issue(&issue);
            let second = clean.split_whitespace().nth(1).unwrap_or("");
            let (v, minor) = match second.split_once('.') {
                Some((a, b)) => (a.to_string(), b.to_string()),
                None => (second.to_string(), String::new()),
            };
            d.set_flavor(&format!("ubuntu_{v}"));
            d.put("ubuntu", issue_tags);
            if n == 2 && release >= 0 {
                d.put(&format!("ubuntu_{v}_{minor}"), issue_tags);
            }
        }
        _ => {}
    }
}

fn alpine(host: &Host, d: &mut OsDerived) {
    let tags = "inventory,attribute_name=none,source=agent,derived-from-file=/etc/alpine-release";
    d.put("alpine_linux", tags);
    let line = first_line(host, "/etc/alpine-release").unwrap_or_default();
    if let Some(v) = line.split_whitespace().next() {
        d.put(&format!("alpine_linux_{}", canonify(v)), tags);
    }
    d.set_flavor("alpinelinux");
}

/// `sys.os_name_human` and its tags from the defined classes (first match wins, as in cf-agent).
pub fn os_name_human(has: &dyn Fn(&str) -> bool) -> (String, String) {
    const TABLE: &[(&str, &str)] = &[
        ("ubuntu", "Ubuntu"),
        ("debian", "Debian"),
        ("centos", "CentOS"),
        ("fedora", "Fedora"),
        ("redhat", "RHEL"),
        ("aix", "AIX"),
        ("hpux", "HP-UX"),
        ("opensuse", "OpenSUSE"),
        ("suse", "SUSE"),
        ("macos", "macOS"),
        ("windows", "Windows"),
        ("freebsd", "FreeBSD"),
        ("solaris", "Solaris"),
        ("amazon_linux", "Amazon"),
    ];
    for (class, name) in TABLE {
        if has(class) {
            return (
                name.to_string(),
                format!("source=agent,derived-from={class}"),
            );
        }
    }
    ("Unknown".to_string(), "source=agent".to_string())
}

/// `sys.os_version_major`: the first integer in the flavor (`Unknown` without one).
pub fn os_version_major(flavor: Option<&str>) -> (String, String) {
    let digits: Option<String> = flavor.and_then(|f| {
        let start = f.find(|c: char| c.is_ascii_digit())?;
        Some(
            f[start..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect(),
        )
    });
    match digits {
        Some(m) if !m.is_empty() => (m, "source=agent,derived-from=flavor".to_string()),
        _ => ("Unknown".to_string(), "source=agent".to_string()),
    }
}

impl OsDerived {
    /// Whether discovery defined `name` (used for `doc_root`, `crontab`, `os_name_human`).
    pub fn defines(&self, name: &str) -> bool {
        self.has(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanf_like_parsing() {
        assert_eq!(scan_major_minor("12.11"), (2, 12, 11));
        assert_eq!(scan_major_minor("12"), (1, 12, -1));
        assert_eq!(scan_major_minor("bookworm/sid"), (0, -1, -1));
        assert_eq!(
            sanitize_issue("Debian GNU/Linux 12 \\n \\l"),
            "Debian GNU/Linux 12"
        );
        assert_eq!(os_version_major(Some("debian_12")).0, "12");
        assert_eq!(os_version_major(Some("gentoo")).0, "Unknown");
    }
}
