//! CFEngine's own JSON dialect: the parser (trailing text ignored, `\u` escapes kept literally, the
//! agent's error messages quoting the unparsed rest) and the writers (`format("%S")` compact form and
//! `storejson` pretty form: keys sorted, reals printed `%.4f`, integers as C `int`).

use serde_json::{Map, Number, Value as Json};

/// A parse error: the agent's message and the unparsed text it quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub message: String,
    pub rest: String,
}

impl JsonError {
    /// `Error parsing JSON expression '<rest>': <message>` as the agent logs it.
    pub fn agent_message(&self) -> String {
        format!(
            "Error parsing JSON expression '{}': {}",
            self.rest, self.message
        )
    }
}

/// Maximum nesting depth accepted.
pub const MAX_DEPTH: usize = 512;

/// Parses one JSON value; text after it is ignored.
pub fn parse(text: &str) -> Result<Json, JsonError> {
    parse_end(text).map(|(j, _)| j)
}

/// [`parse`], also giving the byte offset of the value's last character (where the agent's parser
/// stops: `Non-container from parsing JSON expression` quotes the text from there).
pub fn parse_end(text: &str) -> Result<(Json, usize), JsonError> {
    parse_end_with(text, None)
}

/// A bare word inside inline JSON names a variable (`JsonParseWithLookup`): its value, if any.
pub type Lookup<'l> = &'l mut dyn FnMut(&str) -> Option<Json>;

/// [`parse`] where a bare word inside a container is a variable reference resolved by `lookup`
/// (`mergedata('[ d1, d2 ]')`, `'{ "k": d }'`); an unknown name is a parse error.
pub fn parse_with(text: &str, lookup: Lookup<'_>) -> Result<Json, JsonError> {
    parse_end_with(text, Some(lookup)).map(|(j, _)| j)
}

fn parse_end_with(text: &str, lookup: Option<Lookup<'_>>) -> Result<(Json, usize), JsonError> {
    let mut p = P {
        s: text,
        i: 0,
        lookup,
    };
    p.ws();
    if p.i >= p.s.len() {
        return Err(p.err("No data"));
    }
    let j = p.value(0)?;
    Ok((j, p.i.saturating_sub(1)))
}

/// Characters that end a number or a bare token inside JSON text.
fn delimiter(c: u8) -> bool {
    c.is_ascii_whitespace() || matches!(c, b',' | b']' | b'}' | b':')
}

struct P<'a, 'l> {
    s: &'a str,
    i: usize,
    lookup: Option<Lookup<'l>>,
}

impl P<'_, '_> {
    fn err(&self, m: &str) -> JsonError {
        JsonError {
            message: m.to_string(),
            rest: self.s.get(self.i..).unwrap_or("").to_string(),
        }
    }
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }
    fn ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err("Unable to parse json data, nested too deeply"));
        }
        self.ws();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b'0'..=b'9' | b'-') => self.number(),
            Some(_) => self.primitive(depth == 0),
            None => Err(self.err("No data")),
        }
    }
    fn object(&mut self, depth: usize) -> Result<Json, JsonError> {
        self.i += 1;
        let mut m = Map::new();
        loop {
            self.ws();
            match self.peek() {
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Json::Object(m));
                }
                Some(b',') if !m.is_empty() => {
                    self.i += 1;
                    continue;
                }
                Some(b'"') => {}
                None => {
                    return Err(
                        self.err("Unable to parse json data as object, did not end with '}'")
                    )
                }
                Some(_) => {
                    return Err(self.err(
                        "Unable to parse json data as object, unrecognized token beginning entry",
                    ))
                }
            }
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(self.err("Unable to parse json data as object, ':' seperator expected"));
            }
            self.i += 1;
            let v = self.value(depth + 1)?;
            m.insert(key, v);
        }
    }
    fn array(&mut self, depth: usize) -> Result<Json, JsonError> {
        self.i += 1;
        let mut a = Vec::new();
        loop {
            self.ws();
            match self.peek() {
                Some(b']') => {
                    self.i += 1;
                    return Ok(Json::Array(a));
                }
                Some(b',') if !a.is_empty() => {
                    self.i += 1;
                    continue;
                }
                None => {
                    return Err(self.err("Unable to parse json data as array, did not end with ']'"))
                }
                Some(_) => a.push(self.value(depth + 1)?),
            }
        }
    }
    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out = String::new();
        let b = self.s.as_bytes();
        let start = self.i;
        let mut seg = start;
        while let Some(&c) = b.get(self.i) {
            match c {
                b'"' => {
                    out.push_str(&self.s[seg..self.i]);
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(&self.s[seg..self.i]);
                    let e = b.get(self.i + 1).copied();
                    let rep = match e {
                        Some(b'"') => Some('"'),
                        Some(b'\\') => Some('\\'),
                        Some(b'/') => Some('/'),
                        Some(b'b') => Some('\u{8}'),
                        Some(b'f') => Some('\u{c}'),
                        Some(b'n') => Some('\n'),
                        Some(b'r') => Some('\r'),
                        Some(b't') => Some('\t'),
                        _ => None,
                    };
                    match rep {
                        Some(r) => {
                            out.push(r);
                            self.i += 2;
                        }
                        None => {
                            out.push('\\');
                            self.i += 1;
                        }
                    }
                    seg = self.i;
                }
                _ => self.i += 1,
            }
        }
        self.i = start - 1;
        Err(self.err("Unable to parse json data as string, did not end with doublequote"))
    }
    /// `true`, `false` or `null`. At the top level the text must start with one of them (else the error
    /// quotes it from its start); inside a container the whole bare token is read first and the error
    /// quotes the text from its last character (recorded: `[tru]` → `u]`).
    fn primitive(&mut self, top: bool) -> Result<Json, JsonError> {
        const LITERALS: [(&str, Json); 3] = [
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
            ("null", Json::Null),
        ];
        let start = self.i;
        let bad = "Unable to parse json data as object, unrecognized token beginning entry";
        if top {
            let rest = self.s.get(start..).unwrap_or("");
            for (lit, v) in LITERALS {
                if rest.starts_with(lit) {
                    self.i = start + lit.len();
                    return Ok(v);
                }
            }
            return Err(self.err(bad));
        }
        while self.peek().is_some_and(|c| !delimiter(c)) {
            self.i += 1;
        }
        let tok = self.s.get(start..self.i).unwrap_or("");
        if let Some((_, v)) = LITERALS.into_iter().find(|(l, _)| *l == tok) {
            return Ok(v);
        }
        // an empty token (a delimiter where a value belongs, `[}`) names no variable: looking it up
        // would accept an array named "" without consuming anything, and loop
        if let Some(v) = self
            .lookup
            .as_mut()
            .filter(|_| !tok.is_empty())
            .and_then(|f| f(tok))
        {
            return Ok(v);
        }
        self.i = self.i.saturating_sub(1).max(start);
        Err(self.err(bad))
    }

    /// A number: its characters must be followed by a delimiter or the end (else the error quotes the
    /// text from the offending character) and end with a digit.
    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            self.i += 1;
        }
        if self.peek().is_some_and(|c| !delimiter(c)) {
            return Err(self.err("Unable to parse json data as number, invalid symbol"));
        }
        let tok = self.s.get(start..self.i).unwrap_or("");
        if !tok.ends_with(|c: char| c.is_ascii_digit()) {
            return Err(self.err("Unable to parse json data as string, did not end with digit"));
        }
        match serde_json::from_str::<Number>(tok) {
            Ok(n) => Ok(Json::Number(stored_number(n))),
            Err(_) => {
                self.i = start;
                Err(self.err("Unable to parse json data as number, invalid symbol"))
            }
        }
    }
}

/// A parsed number as the agent stores it: integers as written, reals as their `%.4f` text (the agent
/// keeps that text, so `1.5` reads back as `1.5000` in every JSON output and as `%.2f` of `1.5000` when
/// used as a scalar; recorded: `0.00499` → `0.0050` → `0.01`).
pub fn stored_number(n: Number) -> Number {
    let t = n.to_string();
    if !t.contains(['.', 'e', 'E']) {
        return n;
    }
    let f = crate::value::json_number_f64(&n).unwrap_or(0.0);
    let f = if f.is_finite() { f } else { 0.0 };
    serde_json::from_str::<Number>(&format!("{f:.4}")).unwrap_or(n)
}

/// Applies [`stored_number`] to every number of `j` (containers parsed by other means than [`parse`]).
pub fn store_numbers(j: &mut Json) {
    match j {
        Json::Number(n) => *n = stored_number(n.clone()),
        Json::Array(a) => a.iter_mut().for_each(store_numbers),
        Json::Object(m) => m.values_mut().for_each(store_numbers),
        _ => {}
    }
}

/// How the agent prints a number: integers as C `int`, reals with four decimals.
pub fn number_text(n: &Number) -> String {
    let t = n.to_string();
    if t.contains(['.', 'e', 'E']) {
        let f = crate::value::json_number_f64(n).unwrap_or(0.0);
        format!("{f:.4}")
    } else {
        match t.parse::<i64>() {
            Ok(i) => (i as i32).to_string(),
            Err(_) => t,
        }
    }
}

/// A scalar as `nth()` returns it (reals `%.4f`, `null` → `null`).
pub fn primitive_text(j: &Json) -> Option<String> {
    match j {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(number_text(n)),
        Json::Bool(b) => Some(b.to_string()),
        Json::Null => Some("null".into()),
        _ => None,
    }
}

fn escape(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn sorted(m: &Map<String, Json>) -> Vec<(&String, &Json)> {
    let mut v: Vec<_> = m.iter().collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

/// Compact form (`format("%S")`, `string()`).
pub fn write_compact(j: &Json) -> String {
    let mut out = String::new();
    compact(j, &mut out);
    out
}

fn compact(j: &Json, out: &mut String) {
    match j {
        Json::Object(m) => {
            out.push('{');
            for (i, (k, v)) in sorted(m).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                escape(k, out);
                out.push(':');
                compact(v, out);
            }
            out.push('}');
        }
        Json::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                compact(v, out);
            }
            out.push(']');
        }
        Json::String(s) => escape(s, out),
        Json::Number(n) => out.push_str(&number_text(n)),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Null => out.push_str("null"),
    }
}

/// Pretty form (`storejson`): two-space indent, empty objects as `{` newline `}`, empty arrays `[]`.
pub fn write_pretty(j: &Json) -> String {
    let mut out = String::new();
    pretty(j, 0, &mut out);
    out
}

fn pretty(j: &Json, ind: usize, out: &mut String) {
    let pad = |n: usize| "  ".repeat(n);
    match j {
        Json::Object(m) => {
            out.push_str("{\n");
            let items = sorted(m);
            for (i, (k, v)) in items.iter().enumerate() {
                out.push_str(&pad(ind + 1));
                escape(k, out);
                out.push_str(": ");
                pretty(v, ind + 1, out);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(ind));
            out.push('}');
        }
        Json::Array(a) if a.is_empty() => out.push_str("[]"),
        Json::Array(a) => {
            out.push_str("[\n");
            for (i, v) in a.iter().enumerate() {
                out.push_str(&pad(ind + 1));
                pretty(v, ind + 1, out);
                if i + 1 < a.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(ind));
            out.push(']');
        }
        other => compact(other, out),
    }
}
