//! Profile sections read by [`super::profile`]: interfaces, files, commands, users and groups.

use std::net::Ipv6Addr;

use indexmap::IndexMap;
use serde_json::Value;

use super::profile::{describe, Reader, FLAG_NAMES, R};
use super::{CommandResult, Group, HostFile, Interface, Ipv4Net, Ipv6Net, User};

const IFACE_FIELDS: &[&str] = &["name", "index", "mac", "flags", "ipv4", "ipv6"];
const USER_FIELDS: &[&str] = &[
    "name", "uid", "gid", "gecos", "home", "shell", "password", "expire",
];
const GROUP_FIELDS: &[&str] = &["name", "gid", "members"];

impl Reader<'_> {
    pub(super) fn interfaces(&self, v: Option<&Value>) -> R<Vec<Interface>> {
        let items = match v {
            None => return Ok(Vec::new()),
            Some(Value::Array(a)) => a,
            Some(other) => {
                return self.err(
                    "interfaces",
                    "an array of interface objects",
                    describe(other),
                )
            }
        };
        let mut out: Vec<Interface> = Vec::new();
        let mut names = std::collections::HashSet::new();
        for (i, item) in items.iter().enumerate() {
            let f = format!("interfaces[{i}]");
            let m = self.object(item, &f, IFACE_FIELDS)?;
            let name = self.req_string(m, "name", &format!("{f}.name"))?;
            if !names.insert(name.clone()) {
                return self.err(
                    &format!("{f}.name"),
                    "a name not used by another interface",
                    format!("duplicate \"{name}\""),
                );
            }
            let index = self
                .uint(m, "index", &format!("{f}.index"), u64::from(u32::MAX))?
                .map_or(i as u32 + 1, |n| n as u32);
            let mac = match self.string(m, "mac", &format!("{f}.mac"))? {
                Some(mac) => {
                    let ok = mac.len() == 17
                        && mac.split(':').count() == 6
                        && mac
                            .split(':')
                            .all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_hexdigit()));
                    if !ok {
                        return self.err(
                            &format!("{f}.mac"),
                            "a MAC address like 02:fc:00:00:00:01",
                            format!("string \"{mac}\""),
                        );
                    }
                    Some(mac.to_lowercase())
                }
                None => None,
            };
            let mut flags = self.strings(m, "flags", &format!("{f}.flags"))?;
            for (j, fl) in flags.iter().enumerate() {
                if !FLAG_NAMES.contains(&fl.as_str()) {
                    return self.err(
                        &format!("{f}.flags[{j}]"),
                        &format!("one of {}", FLAG_NAMES.join(", ")),
                        format!("string \"{fl}\""),
                    );
                }
            }
            flags.sort_by_key(|fl| FLAG_NAMES.iter().position(|n| n == fl));
            flags.dedup();
            let mut ipv4 = Vec::new();
            for (j, a) in self
                .strings(m, "ipv4", &format!("{f}.ipv4"))?
                .iter()
                .enumerate()
            {
                match parse_net(a, 32).and_then(|(ad, p)| {
                    Some(Ipv4Net {
                        address: ad.parse().ok()?,
                        prefix: p,
                    })
                }) {
                    Some(n) => ipv4.push(n),
                    None => {
                        return self.err(
                            &format!("{f}.ipv4[{j}]"),
                            "an IPv4 address with prefix like 192.0.2.2/24",
                            format!("string \"{a}\""),
                        )
                    }
                }
            }
            let mut ipv6 = Vec::new();
            for (j, a) in self
                .strings(m, "ipv6", &format!("{f}.ipv6"))?
                .iter()
                .enumerate()
            {
                match parse_net(a, 128).and_then(|(ad, p)| {
                    Some(Ipv6Net {
                        address: ad.parse::<Ipv6Addr>().ok()?,
                        prefix: p,
                    })
                }) {
                    Some(n) => ipv6.push(n),
                    None => {
                        return self.err(
                            &format!("{f}.ipv6[{j}]"),
                            "an IPv6 address with prefix like fd00::2/64",
                            format!("string \"{a}\""),
                        )
                    }
                }
            }
            out.push(Interface {
                name,
                index,
                mac,
                flags,
                ipv4,
                ipv6,
            });
        }
        out.sort_by_key(|i| i.index);
        Ok(out)
    }

    pub(super) fn files(&self, v: Option<&Value>) -> R<IndexMap<String, HostFile>> {
        let m = match v {
            None => return Ok(IndexMap::new()),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return self.err(
                    "files",
                    "an object mapping absolute paths to contents",
                    describe(other),
                )
            }
        };
        let mut out = IndexMap::new();
        for (path, x) in m {
            let f = format!("files.{path}");
            if !path.starts_with('/') {
                return self.err(&f, "an absolute path as the key", format!("\"{path}\""));
            }
            let file = match x {
                Value::String(s) => HostFile {
                    content: s.clone(),
                    mode: 0o644,
                },
                Value::Object(_) => {
                    let o = self.object(x, &f, &["content", "mode"])?;
                    let content = self
                        .string(o, "content", &format!("{f}.content"))?
                        .unwrap_or_default();
                    let mode = match self.string(o, "mode", &format!("{f}.mode"))? {
                        None => 0o644,
                        Some(ms) => match u32::from_str_radix(&ms, 8) {
                            Ok(n) if n <= 0o7777 => n,
                            _ => {
                                return self.err(
                                    &format!("{f}.mode"),
                                    "an octal mode string like \"0644\"",
                                    format!("string \"{ms}\""),
                                )
                            }
                        },
                    };
                    HostFile { content, mode }
                }
                other => {
                    return self.err(&f, "a string or {\"content\", \"mode\"}", describe(other))
                }
            };
            out.insert(path.clone(), file);
        }
        Ok(out)
    }

    pub(super) fn commands(&self, v: Option<&Value>) -> R<IndexMap<String, CommandResult>> {
        let m = match v {
            None => return Ok(IndexMap::new()),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return self.err(
                    "commands",
                    "an object mapping command lines to results",
                    describe(other),
                )
            }
        };
        let mut out = IndexMap::new();
        for (cmd, x) in m {
            let f = format!("commands.{cmd}");
            let o = self.object(x, &f, &["exit_code", "output"])?;
            let exit_code = match o.get("exit_code") {
                None => 0,
                Some(n) => match n.as_i64().and_then(|n| i32::try_from(n).ok()) {
                    Some(c) => c,
                    None => return self.err(&format!("{f}.exit_code"), "an integer", describe(n)),
                },
            };
            let output = self
                .string(o, "output", &format!("{f}.output"))?
                .unwrap_or_default();
            out.insert(cmd.clone(), CommandResult { exit_code, output });
        }
        Ok(out)
    }

    pub(super) fn users(&self, v: Option<&Value>) -> R<Vec<User>> {
        let items = match v {
            None => return Ok(Vec::new()),
            Some(Value::Array(a)) => a,
            Some(other) => return self.err("users", "an array of user objects", describe(other)),
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let f = format!("users[{i}]");
            let m = self.object(item, &f, USER_FIELDS)?;
            let id = |k: &str| -> R<u32> {
                match self.uint(m, k, &format!("{f}.{k}"), u64::from(u32::MAX))? {
                    Some(n) => Ok(n as u32),
                    None => self.err(
                        &format!("{f}.{k}"),
                        "an integer",
                        "nothing (the field is required)",
                    ),
                }
            };
            out.push(User {
                name: self.req_string(m, "name", &format!("{f}.name"))?,
                uid: id("uid")?,
                gid: id("gid")?,
                gecos: self
                    .string(m, "gecos", &format!("{f}.gecos"))?
                    .unwrap_or_default(),
                home: self
                    .string(m, "home", &format!("{f}.home"))?
                    .unwrap_or_else(|| "/".into()),
                shell: self
                    .string(m, "shell", &format!("{f}.shell"))?
                    .unwrap_or_else(|| "/bin/sh".into()),
                password: self.string(m, "password", &format!("{f}.password"))?,
                expire: self.string(m, "expire", &format!("{f}.expire"))?,
            });
        }
        Ok(out)
    }

    pub(super) fn groups(&self, v: Option<&Value>) -> R<Vec<Group>> {
        let items = match v {
            None => return Ok(Vec::new()),
            Some(Value::Array(a)) => a,
            Some(other) => return self.err("groups", "an array of group objects", describe(other)),
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let f = format!("groups[{i}]");
            let m = self.object(item, &f, GROUP_FIELDS)?;
            let gid = match self.uint(m, "gid", &format!("{f}.gid"), u64::from(u32::MAX))? {
                Some(n) => n as u32,
                None => {
                    return self.err(
                        &format!("{f}.gid"),
                        "an integer",
                        "nothing (the field is required)",
                    )
                }
            };
            out.push(Group {
                name: self.req_string(m, "name", &format!("{f}.name"))?,
                gid,
                members: self.strings(m, "members", &format!("{f}.members"))?,
            });
        }
        Ok(out)
    }
}

/// Split `addr/prefix`, checking the prefix is at most `max`.
fn parse_net(s: &str, max: u8) -> Option<(&str, u8)> {
    let (a, p) = s.split_once('/')?;
    let p: u8 = p.parse().ok()?;
    (p <= max).then_some((a, p))
}
