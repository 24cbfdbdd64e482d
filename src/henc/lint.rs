//! `cfsim henc --lint`: the hENC pitfalls, reported as `file:line: warning: message` in input order.
//! Checks: CRLF line ends, trailing blanks in names, inline `#` comments, commas in class names, indented
//! variable lines (CFEngine drops them), variable lines without `=`, lists and data CFEngine will reject,
//! unknown `!` commands, `^` lines (hENC drops them), ignored `,`/`.`/junk lines, a variable changing type.

use indexmap::IndexMap;

use super::explain::show;
use super::merge::{self, Origin, Source};
use crate::module::rlist;

/// One lint finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl Finding {
    pub fn render(&self) -> String {
        format!("{}:{}: warning: {}", self.file, self.line, self.message)
    }
}

const COMMANDS: [&[u8]; 3] = [
    b"RESET_ALL_CLASSES",
    b"RESET_ACTIVE_CLASSES",
    b"RESET_CANCELLED_CLASSES",
];

fn ends_blank(b: &[u8]) -> bool {
    matches!(b.last(), Some(b' ' | b'\t'))
}

fn class_checks(sigil: u8, id: &[u8], out: &mut Vec<String>) {
    let id = id.strip_suffix(b"\r").unwrap_or(id);
    if ends_blank(id) {
        out.push(format!(
            "trailing blanks in name `{}`: hENC keeps them",
            show(id)
        ));
    }
    if id.contains(&b'#') {
        out.push(format!(
            "inline `#` comment: hENC takes `{}` as the whole name",
            show(id)
        ));
    }
    if id.contains(&b',') && sigil == b'+' {
        out.push(format!(
            "comma in class name `{}`: CFEngine canonifies it into one class `{}`",
            show(id),
            show(&crate::module::protocol::canonify(id))
        ));
    }
    if id.contains(&b',') && sigil == b'-' {
        out.push(format!(
            "comma in class name `{}`: hENC cancels one class, CFEngine 3.21 undefines each comma-separated name",
            show(id)
        ));
    }
}

fn var_checks(p: &merge::HencLine<'_>, out: &mut Vec<String>) {
    if p.indent > 0 {
        out.push(
            "indented variable line: hENC re-emits the indent and CFEngine 3.21 ignores the line"
                .into(),
        );
    }
    let name = merge::var_name(p.id);
    if name.is_empty() {
        out.push("variable line without `=`: hENC stores it under the empty name".into());
        return;
    }
    if ends_blank(name) {
        out.push(format!(
            "trailing blanks in variable name `{}`: they are part of the name",
            show(name)
        ));
    }
    let value = p.id.get(name.len() + 1..).unwrap_or_default();
    let value = value.strip_suffix(b"\r").unwrap_or(value);
    if value
        .windows(2)
        .any(|w| w[1] == b'#' && (w[0] == b' ' || w[0] == b'\t'))
    {
        out.push("possible inline `#` comment: hENC and CFEngine keep it in the value".into());
    }
    let text = String::from_utf8_lossy(value);
    if p.sigil == b'@' {
        if let Err(e) = rlist::parse(&text) {
            out.push(format!(
                "CFEngine 3.21 will reject this list ({}): `{}`",
                e.message(),
                show(value)
            ));
        }
    }
    if p.sigil == b'%'
        && !matches!(serde_json::from_str::<serde_json::Value>(&text), Ok(v) if v.is_object() || v.is_array())
    {
        out.push(format!(
            "CFEngine 3.21 will reject this data container (not a JSON object or array): `{}`",
            show(value)
        ));
    }
}

/// Lint every source, in order.
pub fn lint(sources: &[Source]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut types: IndexMap<Vec<u8>, (u8, Origin)> = IndexMap::new();
    for (fi, src) in sources.iter().enumerate() {
        let Some(text) = &src.text else {
            findings.push(Finding {
                file: src.name.clone(),
                line: 0,
                message: "file missing or unreadable: hENC skips it silently".into(),
            });
            continue;
        };
        for (li, line) in merge::lines(text).enumerate() {
            let origin = Origin {
                file: u32::try_from(fi).unwrap_or(u32::MAX),
                line: u32::try_from(li + 1).unwrap_or(u32::MAX),
            };
            let mut msgs = Vec::new();
            if line.ends_with(b"\r") {
                msgs.push("CRLF line end: hENC keeps the `\\r` in the name or value".to_string());
            }
            match merge::parse_line(line) {
                None => {
                    let t: &[u8] = line.trim_ascii_start();
                    if t.starts_with(b"^") {
                        msgs.push(format!(
                            "`^` line dropped by hENC (no ^context/^meta/^persistence pass-through): `{}`",
                            show(t)
                        ));
                    } else if !t.is_empty() && !t.starts_with(b"#") && t != b"\r" {
                        msgs.push(format!("line ignored by hENC: `{}`", show(t)));
                    }
                }
                Some(p) => match p.sigil {
                    b',' | b'.' => msgs.push(format!(
                        "line starting with `{}` is ignored by hENC",
                        p.sigil as char
                    )),
                    b'!' if !COMMANDS.contains(&p.id) => msgs.push(format!(
                        "unknown `!` command `{}`: ignored (only exact !RESET_ALL_CLASSES, !RESET_ACTIVE_CLASSES, !RESET_CANCELLED_CLASSES)",
                        show(p.id)
                    )),
                    b'+' | b'-' | b'_' | b'/' => class_checks(p.sigil, p.id, &mut msgs),
                    b'=' | b'@' | b'%' => {
                        var_checks(&p, &mut msgs);
                        let name = merge::var_name(p.id).to_vec();
                        match types.get(&name) {
                            Some(&(sigil, first)) if sigil != p.sigil => msgs.push(format!(
                                "`{}` changes type from `{}` ({}:{}) to `{}`: the last line wins",
                                show(&name),
                                sigil as char,
                                sources.get(first.file as usize).map_or("?", |s| s.name.as_str()),
                                first.line,
                                p.sigil as char
                            )),
                            _ => {}
                        }
                        types.insert(name, (p.sigil, origin));
                    }
                    _ => {}
                },
            }
            findings.extend(msgs.into_iter().map(|message| Finding {
                file: src.name.clone(),
                line: origin.line,
                message,
            }));
        }
    }
    findings
}
