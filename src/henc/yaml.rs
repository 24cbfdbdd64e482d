//! A small YAML emitter for the Puppet ENC answer: block mappings and sequences, scalars left plain only when
//! no YAML 1.1 reader (Puppet's Psych) could misread them, double-quoted with escapes otherwise.

use serde_json::Value;

/// Words YAML 1.1 reads as booleans or null when left plain.
const SPECIAL_WORDS: [&str; 22] = [
    "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~", "Y", "YES", "N", "NO",
    "TRUE", "FALSE", "ON", "OFF", "NULL", "Yes", "No", "Null",
];

/// True when `s` can be written as a plain scalar and read back as the same string.
pub fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let lower = s.to_ascii_lowercase();
    let special = SPECIAL_WORDS.contains(&s)
        || ["true", "false", "yes", "no", "on", "off", "null"].contains(&lower.as_str());
    (first.is_ascii_alphabetic() || first == '_' || first == '/')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-' | ' '))
        && !s.ends_with(' ')
        && !special
}

/// Write `s` as a YAML scalar (plain or double-quoted).
pub fn scalar(s: &str) -> String {
    if plain_ok(s) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Inline form of a value, when it has one (scalars and empty containers).
fn inline(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("null".into()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(scalar(s)),
        Value::Array(a) if a.is_empty() => Some("[]".into()),
        Value::Object(o) if o.is_empty() => Some("{}".into()),
        _ => None,
    }
}

/// Emit `v` as block YAML at `indent` spaces (for a mapping value or a sequence item).
pub fn emit(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                out.push_str(&pad);
                out.push_str(&scalar(k));
                out.push(':');
                child(val, indent, out);
            }
        }
        Value::Array(items) => {
            for val in items {
                out.push_str(&pad);
                out.push('-');
                child(val, indent, out);
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&inline(other).unwrap_or_default());
            out.push('\n');
        }
    }
}

fn child(val: &Value, indent: usize, out: &mut String) {
    match inline(val) {
        Some(s) => {
            out.push(' ');
            out.push_str(&s);
            out.push('\n');
        }
        None => {
            out.push('\n');
            emit(val, indent + 2, out);
        }
    }
}

/// A whole YAML document (`---` first) for a top-level mapping.
pub fn document(v: &Value) -> String {
    let mut out = String::from("---\n");
    match inline(v) {
        Some(s) => {
            out.push_str(&s);
            out.push('\n');
        }
        None => emit(v, 0, &mut out),
    }
    out
}
