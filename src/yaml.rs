//! YAML text → JSON value, converting plain scalars the way CFEngine 3.21 (libyaml) does: `y`/`yes`/`on`/
//! `true` are booleans, `~`/`null` null, integers and reals numbers; quoted scalars stay strings. Only the
//! first document is read. Used by the parse-time `data => '---…'` rewrite and the YAML functions.
//!
//! yaml-rust2 is used for the YAML grammar itself (its event parser keeps the scalar style, which the
//! conversion needs); writing a conforming YAML parser by hand is not worth it.

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, EventReceiver, Parser};
use yaml_rust2::scanner::TScalarStyle;

/// Deepest nesting accepted; deeper documents are rejected instead of recursing without bound.
pub const MAX_DEPTH: usize = 512;

/// Most values that aliases (`*a`) may copy into one document: ten nested anchors of ten aliases each
/// would otherwise expand to 10^10 values ("billion laughs").
pub const MAX_ALIAS_VALUES: usize = 1_000_000;

/// Longest text of a mapping key that is itself a collection (`? [a, b]`): the key is written as
/// JSON, and keys nested in keys would otherwise double their escapes at every level.
pub const MAX_COMPLEX_KEY_BYTES: usize = 64 * 1024;

/// Parse `text`; `Err` carries the parser's message.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut b = Builder {
        stack: Vec::new(),
        root: None,
        anchors: Vec::new(),
        error: None,
        alias_values: 0,
    };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut b, false) {
        // CFEngine keeps what libyaml delivered before the error, open collections closed (recorded:
        // `[unclosed` → ["unclosed"], `a: b: c` → {"a":"b"}, `[a, b]]` → ["a","b"]); only a text that
        // produced nothing is an error
        if b.stack.is_empty() && b.root.is_none() {
            return Err(e.to_string());
        }
        // (a document refused for a limit stays refused: the builder ignores events then)
        while !b.stack.is_empty() && b.error.is_none() {
            b.on_event(Event::SequenceEnd);
        }
    }
    if let Some(e) = b.error {
        return Err(e);
    }
    let mut root = b.root.unwrap_or(Value::Null);
    // reals kept as their %.4f text, as the agent stores every parsed real (recorded: show/data_reals)
    crate::functions::json::store_numbers(&mut root);
    Ok(root)
}

enum Frame {
    Seq(Vec<Value>, usize),
    Map(Map<String, Value>, Option<String>, usize),
}

struct Builder {
    stack: Vec<Frame>,
    root: Option<Value>,
    anchors: Vec<(usize, Value)>,
    /// Why the document is refused (a limit); later events are ignored.
    error: Option<String>,
    /// Values copied by aliases so far.
    alias_values: usize,
}

/// Number of values in `v` (itself and everything inside).
fn count_values(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(count_values).sum::<usize>(),
        Value::Object(m) => 1 + m.values().map(count_values).sum::<usize>(),
        _ => 1,
    }
}

impl Builder {
    fn push_value(&mut self, v: Value, anchor: usize) {
        if anchor > 0 {
            self.anchors.push((anchor, v.clone()));
        }
        match self.stack.last_mut() {
            Some(Frame::Seq(items, _)) => items.push(v),
            Some(Frame::Map(m, key, _)) => match key.take() {
                Some(k) => {
                    m.insert(k, v);
                }
                None => {
                    let k = match v {
                        Value::String(s) => s,
                        other => {
                            let k = other.to_string();
                            if k.len() > MAX_COMPLEX_KEY_BYTES {
                                self.error = Some(format!(
                                    "YAML mapping key longer than {MAX_COMPLEX_KEY_BYTES} bytes"
                                ));
                            }
                            k
                        }
                    };
                    *key = Some(k);
                }
            },
            None => {
                if self.root.is_none() {
                    self.root = Some(v);
                }
            }
        }
    }
}

impl EventReceiver for Builder {
    fn on_event(&mut self, ev: Event) {
        if self.error.is_some() {
            return;
        }
        match ev {
            Event::Scalar(s, style, anchor, tag) => {
                // A mapping key stays the text written, whatever it looks like (`n:` is the key "n").
                let is_key = matches!(self.stack.last(), Some(Frame::Map(_, None, _)));
                let v = if is_key {
                    Value::String(s)
                } else if style == TScalarStyle::Plain && tag.is_none() {
                    plain_scalar(&s)
                } else {
                    Value::String(s)
                };
                self.push_value(v, anchor);
            }
            Event::SequenceStart(anchor, _) => {
                if self.stack.len() >= MAX_DEPTH {
                    self.error = Some(format!("YAML nesting deeper than {MAX_DEPTH}"));
                    return;
                }
                self.stack.push(Frame::Seq(Vec::new(), anchor));
            }
            Event::MappingStart(anchor, _) => {
                if self.stack.len() >= MAX_DEPTH {
                    self.error = Some(format!("YAML nesting deeper than {MAX_DEPTH}"));
                    return;
                }
                self.stack.push(Frame::Map(Map::new(), None, anchor));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (v, anchor) = match self.stack.pop() {
                    Some(Frame::Seq(items, a)) => (Value::Array(items), a),
                    Some(Frame::Map(m, _, a)) => (Value::Object(m), a),
                    None => return,
                };
                self.push_value(v, anchor);
            }
            Event::Alias(id) => {
                let v = self
                    .anchors
                    .iter()
                    .rev()
                    .find(|(a, _)| *a == id)
                    .map(|(_, v)| v)
                    .unwrap_or(&Value::Null);
                self.alias_values = self.alias_values.saturating_add(count_values(v));
                if self.alias_values > MAX_ALIAS_VALUES {
                    self.error = Some(format!(
                        "YAML aliases copy more than {MAX_ALIAS_VALUES} values"
                    ));
                    return;
                }
                let v = v.clone();
                self.push_value(v, 0);
            }
            _ => {}
        }
    }
}

/// YAML 1.1 resolution of an untagged plain scalar.
fn plain_scalar(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        _ => {}
    }
    if is_int(s) {
        if let Ok(i) = s.parse::<i64>() {
            return Value::Number(i.into());
        }
    }
    if is_float(s) {
        if let Some(n) = s.parse::<f64>().ok().and_then(Number::from_f64) {
            return Value::Number(n);
        }
    }
    Value::String(s.to_string())
}

fn is_int(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

fn is_float(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mant, exp) = match d.find(['e', 'E']) {
        Some(i) => (d.get(..i).unwrap_or(""), d.get(i + 1..)),
        None => (d, None),
    };
    let mant_ok = {
        let mut parts = mant.splitn(2, '.');
        let a = parts.next().unwrap_or("");
        let b = parts.next();
        let digits = |x: &str| x.bytes().all(|c| c.is_ascii_digit());
        digits(a) && b.map(digits).unwrap_or(true) && (a.len() + b.map(str::len).unwrap_or(0)) > 0
    };
    let exp_ok = exp.map(|e| is_int(e) && !e.is_empty()).unwrap_or(true);
    mant_ok && exp_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converts_like_cf_promises() {
        // Recorded: policies/parse/ok/data_yaml.json.
        let v = parse("---\na: 1\nb:\n  - x\n  - y\nc: { d: e }").unwrap_or_default();
        assert_eq!(v, json!({"a": 1, "b": ["x", true], "c": {"d": "e"}}));
        let v = parse("--- [1, 2, three]").unwrap_or_default();
        assert_eq!(v, json!([1, 2, "three"]));
        // reals are stored as their %.4f text (recorded: policies/eval/show/data_reals)
        let v = parse("--- [\"y\", 1.5, ~]").unwrap_or_default();
        let want: Value = serde_json::from_str("[\"y\", 1.5000, null]").unwrap_or_default();
        assert_eq!(v, want);
    }

    #[test]
    fn yaml_that_yields_nothing_is_an_error() {
        assert!(parse("@").is_err());
    }

    #[test]
    fn broken_yaml_keeps_what_was_parsed() {
        // Recorded with parseyaml(): policies/functions/yaml.cases
        assert_eq!(parse("a: [1, 2").unwrap_or_default(), json!({"a": [1, 2]}));
        assert_eq!(parse("a: b: c").unwrap_or_default(), json!({"a": "b"}));
        assert_eq!(parse("[a, b]]").unwrap_or_default(), json!(["a", "b"]));
    }

    /// Found by the `data` fuzz target (docs/fuzzing.md): mapping keys that are mappings, nested 36
    /// deep (`? ? ? … ${s}`), took 93 s and 500 MB (each level escaped the JSON of the one inside).
    #[test]
    fn nested_complex_keys_are_bounded() {
        let text = format!("{}${{s}}", "? ".repeat(40));
        let t = std::time::Instant::now();
        let r = parse(&text);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
        assert!(r.is_err_and(|e| e.contains("mapping key longer")));
        // a collection key of normal size is kept as its JSON text
        assert_eq!(
            parse("? [a, b]\n: c").unwrap_or_default(),
            json!({"[\"a\",\"b\"]": "c"})
        );
    }

    /// "Billion laughs": nine levels of ten aliases would copy 10^9 values (the `data` fuzz target's
    /// memory limit); aliases may copy at most MAX_ALIAS_VALUES.
    #[test]
    fn alias_expansion_is_bounded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let r = parse(&text);
        assert!(r.is_err_and(|e| e.contains("aliases copy more than")));
        assert_eq!(
            parse("a: &x [1, 2]\nb: *x").unwrap_or_default(),
            json!({"a": [1, 2], "b": [1, 2]})
        );
    }

    /// A limit hit, then a syntax error: the closing of open collections must not wait for a builder
    /// that ignores events (found by the `data` fuzz target: it never returned).
    #[test]
    fn limit_then_syntax_error_ends() {
        let text = format!("? ---\n{}---\n ? ? é=a=b\n", "? ".repeat(20));
        assert!(parse(&text).is_err_and(|e| e.contains("mapping key longer")));
    }
}
