//! `cfsim host capture`'s service inventory of this machine, read from systemd's files (no command is
//! run): every service unit file (`NAME.service`, templates `NAME@.service` left out) under the unit
//! directories; `enabled` when a `*.wants/` or `*.requires/` directory of `/etc/systemd/system` links
//! it (what `systemctl list-unit-files` calls `enabled`; static and masked units (a link to
//! `/dev/null`) are listed, not enabled; an alias, a link to another unit, is not a unit of its own);
//! `running` when systemd runs (`/run/systemd/system` exists) and has an invocation of the unit
//! (`/run/systemd/units/invocation:NAME.service`). Without a running systemd nothing runs.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use super::services::{Inventory, Service};

/// Where unit files are installed, in systemd's order of precedence.
const UNIT_DIRS: &[&str] = &[
    "/etc/systemd/system",
    "/run/systemd/system",
    "/lib/systemd/system",
    "/usr/lib/systemd/system",
];

/// The enablement links' directory.
const ENABLE_DIR: &str = "/etc/systemd/system";

/// The service inventory of the machine whose root is `root` (`/` for this machine), names sorted.
pub fn services(root: &Path) -> Inventory {
    let under = |p: &str| root.join(p.trim_start_matches('/'));
    let mut names = BTreeSet::new();
    let mut masked = BTreeSet::new();
    for d in UNIT_DIRS {
        let Ok(rd) = fs::read_dir(under(d)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".service") else {
                continue;
            };
            if stem.is_empty() || stem.ends_with('@') {
                continue;
            }
            // a symbolic link to /dev/null masks the unit (listed, never enabled); one to another
            // unit is an alias, not a unit of its own
            match fs::read_link(e.path()) {
                Ok(t) if t == Path::new("/dev/null") => {
                    masked.insert(stem.to_string());
                    names.insert(stem.to_string());
                }
                Ok(t)
                    if t.file_name()
                        .is_some_and(|f| f.to_string_lossy() != name.as_str()) => {}
                _ => {
                    names.insert(stem.to_string());
                }
            }
        }
    }
    let mut enabled = BTreeSet::new();
    if let Ok(rd) = fs::read_dir(under(ENABLE_DIR)) {
        for e in rd.flatten() {
            let dir = e.file_name().to_string_lossy().into_owned();
            if !(dir.ends_with(".wants") || dir.ends_with(".requires")) {
                continue;
            }
            for l in fs::read_dir(e.path()).into_iter().flatten().flatten() {
                let n = l.file_name().to_string_lossy().into_owned();
                if let Some(stem) = n.strip_suffix(".service") {
                    enabled.insert(stem.to_string());
                }
            }
        }
    }
    let systemd_runs = under("/run/systemd/system").is_dir();
    names
        .into_iter()
        .map(|n| {
            let running = systemd_runs
                && under(&format!("/run/systemd/units/invocation:{n}.service"))
                    .symlink_metadata()
                    .is_ok();
            let s = Service {
                running,
                enabled: enabled.contains(&n) && !masked.contains(&n),
            };
            (n, s)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn units_links_and_invocations() {
        let root = std::env::temp_dir().join(format!("cfsim-capture-svc-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let lib = root.join("lib/systemd/system");
        let etc = root.join("etc/systemd/system");
        fs::create_dir_all(&lib).unwrap();
        fs::create_dir_all(etc.join("multi-user.target.wants")).unwrap();
        for u in ["ssh.service", "cron.service", "getty@.service", "x.socket"] {
            fs::write(lib.join(u), "[Unit]\n").unwrap();
        }
        std::os::unix::fs::symlink(lib.join("ssh.service"), etc.join("sshd.service")).unwrap();
        std::os::unix::fs::symlink("/dev/null", lib.join("hwclock.service")).unwrap();
        std::os::unix::fs::symlink(
            lib.join("ssh.service"),
            etc.join("multi-user.target.wants/ssh.service"),
        )
        .unwrap();
        let inv = services(&root);
        let names: Vec<&String> = inv.keys().collect();
        assert_eq!(names, ["cron", "hwclock", "ssh"]);
        assert!(!inv["hwclock"].enabled);
        assert_eq!(
            inv["ssh"],
            Service {
                running: false,
                enabled: true
            }
        );
        assert!(!inv["cron"].enabled);
        // a running systemd with an invocation of cron
        fs::create_dir_all(root.join("run/systemd/system")).unwrap();
        fs::create_dir_all(root.join("run/systemd/units")).unwrap();
        std::os::unix::fs::symlink(
            "abc",
            root.join("run/systemd/units/invocation:cron.service"),
        )
        .unwrap();
        let inv = services(&root);
        assert!(inv["cron"].running && !inv["ssh"].running);
        let _ = fs::remove_dir_all(&root);
    }
}
