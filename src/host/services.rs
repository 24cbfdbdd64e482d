//! The host's virtual service inventory (profile field `services`) and the service-management command
//! lines answered from it. A profile maps service names to their state:
//! `"services": {"sshd": {"running": true, "enabled": true}}` (both default to false). A host whose
//! profile has the field answers, instead of running anything, these command shapes (argv\[0\] compared by
//! its last path component, so `/bin/systemctl` and a fake `/srv/x/systemctl` are the same tool; shell
//! redirections `>F`, `> F`, `2>&1`, `2>F`, `&>F` are dropped; a line with a pipe, `;`, `&&`, `||` or a
//! substitution is not answered):
//!
//! * `systemctl [--opts] [-q] [-pA,B …] VERB UNIT` (a `.service` suffix is dropped), VERB `is-active`,
//!   `is-enabled`, `start`, `stop`, `restart`, `reload`, `enable`, `disable`, `show`, `status`;
//! * `service NAME VERB` and `…/init.d/NAME VERB` (init.d only for inventory services), VERB `status`,
//!   `start`, `stop`, `restart`, `reload`;
//! * `chkconfig NAME`, `chkconfig NAME on|off`, `chkconfig --list NAME`.
//!
//! Exit codes and output are those of the corpus's fake tools (`policies/services/fake/`), which follow
//! the real tools' conventions (`is-active` 0/3, unknown unit 5 on start, `NAME: unrecognized service`).
//! Start/stop/restart/enable/disable change the run's copy of the inventory, so a later query sees it.

use indexmap::IndexMap;
use serde_json::Value;

use super::profile::{describe, Reader, R};

/// One service of the inventory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Service {
    pub running: bool,
    pub enabled: bool,
}

/// Service name → state, in profile order.
pub type Inventory = IndexMap<String, Service>;

const SERVICE_FIELDS: &[&str] = &["running", "enabled"];

impl Reader<'_> {
    /// The `services` field: `None` when absent (service commands are then not answered).
    pub(super) fn services(&self, v: Option<&Value>) -> R<Option<Inventory>> {
        let Some(v) = v else { return Ok(None) };
        let Some(m) = v.as_object() else {
            return self.err(
                "services",
                "an object mapping service names to {\"running\": bool, \"enabled\": bool}",
                describe(v),
            );
        };
        let mut out = Inventory::new();
        for (name, s) in m {
            let field = format!("services.{name}");
            if name.is_empty() || name.chars().any(|c| c.is_whitespace() || c == '/') {
                return self.err(
                    &field,
                    "a service name without spaces or '/'",
                    format!("string \"{name}\""),
                );
            }
            let o = self.object(s, &field, SERVICE_FIELDS)?;
            let flag = |k: &str| match o.get(k) {
                None => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(other) => self.err(&format!("{field}.{k}"), "a boolean", describe(other)),
            };
            out.insert(
                name.clone(),
                Service {
                    running: flag("running")?,
                    enabled: flag("enabled")?,
                },
            );
        }
        Ok(Some(out))
    }
}

/// The services whose state the run changed, in inventory order, for the result document:
/// `[{"name", "before": {"running", "enabled"}, "after": {…}}]`.
pub fn changes_json(before: &Inventory, after: &Inventory) -> serde_json::Value {
    let state = |s: &Service| serde_json::json!({"running": s.running, "enabled": s.enabled});
    let changed: Vec<serde_json::Value> = after
        .iter()
        .filter_map(|(name, a)| {
            let b = before.get(name)?;
            (b != a)
                .then(|| serde_json::json!({"name": name, "before": state(b), "after": state(a)}))
        })
        .collect();
    serde_json::Value::Array(changed)
}

/// The words of `cmd` without shell redirections, and whether its standard output is redirected away
/// (`>F`, `1>F`, `&>F`: the fake tools, like cfsim, print everything on standard output); `None` when it
/// uses other shell syntax.
fn words(cmd: &str) -> Option<(Vec<&str>, bool)> {
    if ["|", ";", "&&", "`", "$("].iter().any(|m| cmd.contains(m)) {
        return None;
    }
    let mut out = Vec::new();
    let mut skip_next = false;
    let mut discard = false;
    for w in cmd.split_whitespace() {
        if skip_next {
            skip_next = false;
            continue;
        }
        let fd = &w[..w.len() - w.trim_start_matches(['0', '1', '2', '&']).len()];
        let redirect = &w[fd.len()..];
        if let Some(target) = redirect.strip_prefix('>') {
            let target = target.trim_start_matches('>');
            if target.is_empty() {
                skip_next = true;
            }
            // `2>&1` joins stderr to stdout; a redirection of fd 1 (or both) sends the output away
            if fd != "2" {
                discard = true;
            }
            continue;
        }
        if w.starts_with('<') {
            return None;
        }
        out.push(w);
    }
    Some((out, discard))
}

/// Answers a service-management command line from `inv` (updating it); `None` when `cmd` is not one.
pub fn answer(inv: &mut Inventory, cmd: &str) -> Option<(i32, String)> {
    let (w, discard) = words(cmd)?;
    let (a0, args) = w.split_first()?;
    let tool = a0.rsplit('/').next().unwrap_or(a0);
    let parent = a0.rsplit('/').nth(1).unwrap_or("");
    let (code, output) = match tool {
        "systemctl" => systemctl(inv, args),
        "service" => service(inv, args.first()?, args.get(1).copied().unwrap_or("")),
        "chkconfig" => chkconfig(inv, args),
        name if parent == "init.d" && inv.contains_key(name) => {
            service(inv, name, args.first().copied().unwrap_or(""))
        }
        _ => return None,
    };
    Some((code, if discard { String::new() } else { output }))
}

fn line(s: String) -> String {
    s + "\n"
}

fn systemctl(inv: &mut Inventory, args: &[&str]) -> (i32, String) {
    let mut quiet = false;
    let mut props: Vec<String> = Vec::new();
    let mut pos = Vec::new();
    for a in args {
        if *a == "-q" || *a == "--quiet" {
            quiet = true;
        } else if let Some(p) = a.strip_prefix("-p") {
            props.extend(p.split(',').filter(|x| !x.is_empty()).map(String::from));
        } else if !a.starts_with("--") {
            pos.push(*a);
        }
    }
    let verb = pos.first().copied().unwrap_or("");
    let unit = pos.get(1).copied().unwrap_or("");
    let unit = unit.strip_suffix(".service").unwrap_or(unit);
    let known = inv.get(unit).copied();
    let st = known.unwrap_or_default();
    let say = |s: &str| {
        if quiet {
            String::new()
        } else {
            line(s.to_string())
        }
    };
    match verb {
        "is-active" if st.running => (0, say("active")),
        "is-active" => (3, say("inactive")),
        "is-enabled" => match known {
            None => (
                1,
                line(format!(
                    "Failed to get unit file state for {unit}.service: No such file or directory"
                )),
            ),
            Some(s) if s.enabled => (0, say("enabled")),
            Some(_) => (1, say("disabled")),
        },
        "start" | "stop" | "restart" | "reload" => {
            let Some(s) = inv.get_mut(unit) else {
                return (
                    5,
                    line(format!(
                        "Failed to {verb} {unit}.service: Unit {unit}.service not found."
                    )),
                );
            };
            match verb {
                "start" | "restart" => s.running = true,
                "stop" => s.running = false,
                _ if !s.running => {
                    return (
                        1,
                        line(format!(
                            "Failed to reload {unit}.service: Unit {unit}.service is not active."
                        )),
                    )
                }
                _ => {}
            }
            (0, String::new())
        }
        "enable" | "disable" => match inv.get_mut(unit) {
            None => (
                1,
                line(format!(
                    "Failed to {verb} unit: Unit file {unit}.service does not exist."
                )),
            ),
            Some(s) => {
                s.enabled = verb == "enable";
                (0, String::new())
            }
        },
        "show" => {
            if props.is_empty() {
                props = [
                    "LoadState",
                    "ActiveState",
                    "UnitFileState",
                    "CanStart",
                    "CanStop",
                    "CanReload",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
            }
            let mut seen = Vec::new();
            let mut out = String::new();
            for p in props {
                if seen.contains(&p) {
                    continue;
                }
                let v = match (p.as_str(), known) {
                    ("LoadState", Some(_)) => "loaded",
                    ("LoadState", None) => "not-found",
                    ("ActiveState", _) if st.running => "active",
                    ("ActiveState", _) => "inactive",
                    ("UnitFileState", Some(s)) if s.enabled => "enabled",
                    ("UnitFileState", Some(_)) => "disabled",
                    ("CanStart" | "CanStop" | "CanReload", Some(_)) => "yes",
                    ("CanStart" | "CanStop" | "CanReload", None) => "no",
                    _ => "",
                };
                out.push_str(&line(format!("{p}={v}")));
                seen.push(p);
            }
            (0, out)
        }
        "status" => match known {
            None => (4, line(format!("Unit {unit}.service could not be found."))),
            Some(s) if s.running => (0, line(format!("{unit}.service - active (running)"))),
            Some(_) => (3, line(format!("{unit}.service - inactive (dead)"))),
        },
        _ => (1, line(format!("Unknown command verb {verb}."))),
    }
}

fn service(inv: &mut Inventory, name: &str, verb: &str) -> (i32, String) {
    let Some(s) = inv.get_mut(name) else {
        return (1, line(format!("{name}: unrecognized service")));
    };
    match verb {
        "status" if s.running => (0, line(format!("{name} is running."))),
        "status" => (3, line(format!("{name} is not running."))),
        "start" => {
            s.running = true;
            (0, line(format!("Starting {name}.")))
        }
        "stop" => {
            s.running = false;
            (0, line(format!("Stopping {name}.")))
        }
        "restart" => {
            s.running = true;
            (0, line(format!("Restarting {name}.")))
        }
        "reload" if s.running => (0, line(format!("Reloading {name}."))),
        "reload" => (7, line(format!("{name} is not running."))),
        _ => (
            1,
            line(format!(
                "Usage: /etc/init.d/{name} {{start|stop|restart|reload|status}}"
            )),
        ),
    }
}

fn chkconfig(inv: &mut Inventory, args: &[&str]) -> (i32, String) {
    let (list, name, mode) = match args {
        ["--list", n] => (true, *n, ""),
        [n] => (false, *n, ""),
        [n, m] => (false, *n, *m),
        _ => {
            return (
                1,
                line("usage: chkconfig [--list] [name] [on|off]".to_string()),
            )
        }
    };
    let Some(s) = inv.get_mut(name) else {
        return (
            1,
            line(format!(
                "error reading information on service {name}: No such file or directory"
            )),
        );
    };
    if list {
        let lv = if s.enabled { "on" } else { "off" };
        return (
            0,
            line(format!(
                "{name}\t0:off\t1:off\t2:{lv}\t3:{lv}\t4:{lv}\t5:{lv}\t6:off"
            )),
        );
    }
    match mode {
        "" => (i32::from(!s.enabled), String::new()),
        "on" | "off" => {
            s.enabled = mode == "on";
            (0, String::new())
        }
        _ => (
            1,
            line("usage: chkconfig [--list] [name] [on|off]".to_string()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv() -> Inventory {
        let mut i = Inventory::new();
        i.insert(
            "web".into(),
            Service {
                running: true,
                enabled: false,
            },
        );
        i
    }

    #[test]
    fn systemctl_queries_and_changes() {
        let mut i = inv();
        assert_eq!(
            answer(&mut i, "/bin/systemctl is-active web > /dev/null 2>&1"),
            Some((0, String::new()))
        );
        assert_eq!(
            answer(&mut i, "/bin/systemctl --system -q stop web.service"),
            Some((0, String::new()))
        );
        assert_eq!(
            answer(&mut i, "systemctl is-active web"),
            Some((3, "inactive\n".into()))
        );
        assert_eq!(
            answer(
                &mut i,
                "systemctl -pLoadState,ActiveState,LoadState show nope"
            ),
            Some((0, "LoadState=not-found\nActiveState=inactive\n".into()))
        );
        assert_eq!(answer(&mut i, "systemctl is-active web | grep x"), None);
        assert_eq!(
            answer(&mut i, "systemctl is-active web 2>/dev/null"),
            Some((3, "inactive\n".into()))
        );
        assert_eq!(answer(&mut i, "/bin/echo hi"), None);
    }

    #[test]
    fn changes_list_only_changed_services() {
        let before = inv();
        let mut after = inv();
        assert_eq!(changes_json(&before, &after), serde_json::json!([]));
        let _ = answer(&mut after, "systemctl stop web");
        assert_eq!(
            changes_json(&before, &after),
            serde_json::json!([{"name": "web", "before": {"running": true, "enabled": false},
                "after": {"running": false, "enabled": false}}])
        );
    }

    #[test]
    fn service_and_init_scripts() {
        let mut i = inv();
        assert_eq!(
            answer(&mut i, "/usr/sbin/service nope start"),
            Some((1, "nope: unrecognized service\n".into()))
        );
        assert_eq!(
            answer(&mut i, "/etc/init.d/web stop"),
            Some((0, "Stopping web.\n".into()))
        );
        assert_eq!(answer(&mut i, "/etc/init.d/other stop"), None);
        assert_eq!(
            answer(&mut i, "/usr/sbin/service web status >/dev/null"),
            Some((3, String::new()))
        );
        assert_eq!(
            answer(&mut i, "/sbin/chkconfig web on"),
            Some((0, String::new()))
        );
        assert_eq!(
            answer(&mut i, "/sbin/chkconfig web"),
            Some((0, String::new()))
        );
    }
}
