//! [`Host`] → JSON host profile (the inverse of [`super::profile`]), used to write a profile from the
//! local machine's facts (`to_profile(&local::discover()?)`) and to round-trip test the schema.

use serde_json::{json, Map, Value};

use super::time::format_rfc3339;
use super::Host;

/// The profile JSON for `host`. Loading it back gives an equal host (except `origin`, and a
/// `files_root` that is written as given, absolute when discovered locally).
pub fn to_profile(host: &Host) -> Value {
    let mut m = Map::new();
    m.insert("hostname".into(), json!(host.hostname));
    m.insert("domain".into(), json!(host.domain));
    if !host.host_aliases.is_empty() {
        m.insert("host_aliases".into(), json!(host.host_aliases));
    }
    let os_release: Map<String, Value> = host
        .os
        .os_release
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    m.insert(
        "os".into(),
        json!({
            "kernel": host.os.sysname,
            "arch": host.os.machine,
            "kernel_release": host.os.release,
            "kernel_version": host.os.version,
            "release_id": host.os.os_release.get("ID").cloned().unwrap_or_else(|| "unknown".into()),
            "version": host.os.os_release.get("VERSION_ID").cloned().unwrap_or_else(|| "unknown".into()),
            "os_release": Value::Object(os_release),
            "systemd": host.systemd,
        }),
    );
    m.insert("cpus".into(), json!(host.cpus));
    let ifaces: Vec<Value> = host
        .interfaces
        .iter()
        .map(|i| {
            let mut o = Map::new();
            o.insert("name".into(), json!(i.name));
            o.insert("index".into(), json!(i.index));
            if let Some(mac) = &i.mac {
                o.insert("mac".into(), json!(mac));
            }
            o.insert("flags".into(), json!(i.flags));
            let v4: Vec<String> = i
                .ipv4
                .iter()
                .map(|a| format!("{}/{}", a.address, a.prefix))
                .collect();
            let v6: Vec<String> = i
                .ipv6
                .iter()
                .map(|a| format!("{}/{}", a.address, a.prefix))
                .collect();
            o.insert("ipv4".into(), json!(v4));
            o.insert("ipv6".into(), json!(v6));
            Value::Object(o)
        })
        .collect();
    m.insert("interfaces".into(), Value::Array(ifaces));
    m.insert(
        "default_gateway".into(),
        host.default_gateway
            .map_or(Value::Null, |g| json!(g.to_string())),
    );
    m.insert(
        "time".into(),
        json!(format_rfc3339(host.time.epoch, host.time.utc_offset)),
    );
    m.insert("timezone".into(), json!(host.time.zone));
    if let Some(u) = host.uptime_minutes {
        m.insert("uptime_minutes".into(), json!(u));
    }
    if let Some(k) = &host.key_digest {
        m.insert("key_digest".into(), json!(k));
    }
    if !host.extra_classes.is_empty() {
        m.insert("classes".into(), json!(host.extra_classes));
    }
    if !host.env.is_empty() {
        let env: Map<String, Value> = host
            .env
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        m.insert("env".into(), Value::Object(env));
    }
    if let Some(root) = &host.files.root {
        m.insert("files_root".into(), json!(root.to_string_lossy()));
    }
    if !host.remote.servers.is_empty() {
        m.insert("remote_files".into(), super::remote::to_json(&host.remote));
    }
    if !host.files.map.is_empty() {
        let files: Map<String, Value> = host
            .files
            .map
            .iter()
            .map(|(p, f)| {
                let v = if f.mode == 0o644 {
                    json!(f.content)
                } else {
                    json!({"content": f.content, "mode": format!("{:04o}", f.mode)})
                };
                (p.clone(), v)
            })
            .collect();
        m.insert("files".into(), Value::Object(files));
    }
    if !host.commands.is_empty() {
        let cmds: Map<String, Value> = host
            .commands
            .iter()
            .map(|(c, r)| {
                (
                    c.clone(),
                    json!({"exit_code": r.exit_code, "output": r.output}),
                )
            })
            .collect();
        m.insert("commands".into(), Value::Object(cmds));
    }
    let users: Vec<Value> = host
        .users
        .iter()
        .map(|u| {
            let mut v = json!({"name": u.name, "uid": u.uid, "gid": u.gid, "gecos": u.gecos, "home": u.home, "shell": u.shell});
            // the shadow fields (local discovery keeps no hash: see host::local)
            if let Some(m) = v.as_object_mut() {
                if let Some(p) = &u.password {
                    m.insert("password".into(), json!(p));
                }
                if let Some(e) = &u.expire {
                    m.insert("expire".into(), json!(e));
                }
            }
            v
        })
        .collect();
    if !users.is_empty() {
        m.insert("users".into(), Value::Array(users));
    }
    let groups: Vec<Value> = host
        .groups
        .iter()
        .map(|g| json!({"name": g.name, "gid": g.gid, "members": g.members}))
        .collect();
    if !groups.is_empty() {
        m.insert("groups".into(), Value::Array(groups));
    }
    m.insert("current_user".into(), json!(host.current_user));
    m.insert("cf_components".into(), json!(host.cf_components));
    Value::Object(m)
}
