//! String functions: canonify, concat, escape, format, lastnode, dirname/basename, string_* family,
//! strcmp, string, int, hash, canonifyuniquely, translatepath. Byte semantics as in the C agent
//! (lengths and heads count bytes; case conversion is ASCII only).

use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha384, Sha512};

use super::args::{collect, elements, int_arg};
use super::{def, CallCtx, FnArg, FnDef, FnResult};
use crate::expr::canonify as canon;
use crate::value::Value;

/// Largest field width or precision `format` honours.
pub const MAX_FORMAT_WIDTH: usize = 65_536;

pub const FUNCTIONS: &[FnDef] = &[
    def("canonify", true, canonify),
    def("canonifyuniquely", true, canonifyuniquely),
    def("concat", true, concat),
    def("escape", true, escape),
    def("format", true, format),
    def("hash_to_int", true, hash_to_int),
    def("lastnode", true, lastnode),
    def("dirname", true, dirname),
    def("basename", true, basename),
    def("string_downcase", true, downcase),
    def("string_upcase", true, upcase),
    def("string_head", true, head),
    def("string_tail", true, tail),
    def("string_length", true, length),
    def("string_reverse", true, reverse),
    def("string_trim", true, trim),
    def("string_replace", true, replace),
    def("strcmp", true, strcmp),
    def("string", true, string),
    def("int", true, int),
    def("hash", true, hash),
    def("translatepath", true, translatepath),
];

fn canonify(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(canon(a[0].text())))
}

fn canonifyuniquely(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let s = a[0].text();
    Ok(Value::str(format!(
        "{}_{}",
        canon(s),
        digest_hex("sha1", s.as_bytes())
    )))
}

fn concat(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(a.iter().map(FnArg::text).collect::<String>()))
}

/// Regex-escapes every byte that is not alphanumeric or `_`.
pub fn escape_regex(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if !(c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii()) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn escape(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(escape_regex(a[0].text())))
}

/// `%S` rendering of a value: `{ "a", "b" }` for lists, compact JSON for data.
pub fn render_s(v: &Value) -> String {
    match v {
        Value::List(_, items) => {
            let inner: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
            format!("{{ {} }}", inner.join(", "))
        }
        Value::Data(d) => super::json::write_compact(d),
        Value::Scalar(_, s) => s.clone(),
    }
}

struct Spec {
    /// `#`: `0x` before a hexadecimal number, `0` before an octal one, a point after a whole real
    alt: bool,
    minus: bool,
    plus: bool,
    zero: bool,
    space: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

fn pad(s: String, sp: &Spec, numeric: bool) -> String {
    let Some(w) = sp.width else { return s };
    let len = s.chars().count();
    if len >= w {
        return s;
    }
    let fill = w - len;
    if sp.minus {
        format!("{s}{}", " ".repeat(fill))
    } else if sp.zero && numeric {
        let (sign, digits) = match s.strip_prefix('-').or_else(|| s.strip_prefix('+')) {
            Some(rest) => (&s[..1], rest.to_string()),
            None => ("", s.clone()),
        };
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

/// `digits` after `prefix` (`0x`, `0`), zeros padding between them as C's `%#0Nx` puts them.
fn pad_prefixed(prefix: &str, digits: String, sp: &Spec) -> String {
    let len = prefix.len() + digits.len();
    match sp.width {
        Some(w) if sp.zero && !sp.minus && w > len => {
            format!("{prefix}{}{digits}", "0".repeat(w - len))
        }
        _ => pad(format!("{prefix}{digits}"), sp, false),
    }
}

fn signed(n: String, sp: &Spec, negative: bool) -> String {
    if negative {
        n
    } else if sp.plus {
        format!("+{n}")
    } else if sp.space {
        format!(" {n}")
    } else {
        n
    }
}

fn format(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let fmt: Vec<char> = a[0].text().chars().collect();
    let mut out = String::new();
    let mut next = 1;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        if fmt.get(i + 1) == Some(&'%') {
            out.push('%');
            i += 2;
            continue;
        }
        // the agent cuts the format at each `%` with `%[^diouxXeEfFgGaAcsCSpnm%]*?[diouxX…m]`: a `%`
        // that reaches another `%` or the end before a conversion letter ends the formatting, the rest
        // of the format dropped (recorded: iteration/format_edges)
        const CONVERSIONS: &str = "diouxXeEfFgGaAcsCSpnm";
        let mut end = i + 1;
        while let Some(&ch) = fmt.get(end) {
            if ch == '%' || CONVERSIONS.contains(ch) {
                break;
            }
            end += 1;
        }
        if fmt.get(end).is_none_or(|&ch| ch == '%') {
            break;
        }
        let mut j = i + 1;
        let mut sp = Spec {
            alt: false,
            minus: false,
            plus: false,
            zero: false,
            space: false,
            width: None,
            prec: None,
        };
        while let Some(&f) = fmt.get(j) {
            match f {
                '-' => sp.minus = true,
                '+' => sp.plus = true,
                '0' => sp.zero = true,
                ' ' => sp.space = true,
                '#' => sp.alt = true,
                _ => break,
            }
            j += 1;
        }
        let mut w = String::new();
        while let Some(d) = fmt.get(j).filter(|d| d.is_ascii_digit()) {
            w.push(*d);
            j += 1;
        }
        sp.width = w.parse::<usize>().ok().map(|w| w.min(MAX_FORMAT_WIDTH));
        if fmt.get(j) == Some(&'.') {
            j += 1;
            let mut p = String::new();
            while let Some(d) = fmt.get(j).filter(|d| d.is_ascii_digit()) {
                p.push(*d);
                j += 1;
            }
            sp.prec = Some(p.parse::<usize>().unwrap_or(0).min(MAX_FORMAT_WIDTH));
        }
        while matches!(fmt.get(j), Some('l' | 'h' | 'z' | 'j' | 't' | 'L' | 'q')) {
            j += 1;
        }
        let Some(&conv) = fmt.get(j) else {
            out.extend(&fmt[i..]);
            break;
        };
        if j != end {
            // other characters before the conversion letter: a specification C does not know
            out.push_str("(unhandled format)");
            i = end + 1;
            continue;
        }
        i = j + 1;
        if !matches!(conv, 's' | 'd' | 'x' | 'o' | 'f' | 'S') {
            out.push_str("(unhandled format)");
            continue;
        }
        let Some(arg) = a.get(next) else {
            return Err(ctx.fail("format() didn't have enough parameters"));
        };
        next += 1;
        let text = arg.text();
        let piece = match conv {
            'S' => {
                // a variable holding a string, int or real is an error naming its type, also when it
                // has classic array entries (recorded: iteration/format_scalar_container)
                let name = arg.naked.as_deref().unwrap_or(text);
                if let Some(v @ Value::Scalar(..)) =
                    crate::expr::expand::lookup_name(&*ctx.env, name)
                {
                    return Err(ctx.fail(format!(
                        "Function 'format' expected a list variable, got variable of type '{}'",
                        v.type_name()
                    )));
                }
                let v = match &arg.value {
                    Value::Scalar(..) => match collect(ctx, arg) {
                        Some(v) => v,
                        None => {
                            ctx.verbose(format!(
                                "format() with %S specifier needs a data container or a list instead of '{text}'"
                            ));
                            return Err(super::FnFail);
                        }
                    },
                    other => other.clone(),
                };
                // the agent's writer sorts the printed container in place
                if let Some(name) = super::args::collected_name(ctx, arg) {
                    ctx.env.sort_container(&name);
                }
                render_s(&v)
            }
            's' => {
                let s: String = match sp.prec {
                    Some(p) => text.chars().take(p).collect(),
                    None => text.to_string(),
                };
                pad(s, &sp, false)
            }
            'd' => {
                let n = leading_int(text);
                pad(signed(n.to_string(), &sp, n < 0), &sp, true)
            }
            'x' => {
                let digits = format!("{:x}", leading_int(text) as i32 as u32);
                let prefix = if sp.alt && digits != "0" { "0x" } else { "" };
                pad_prefixed(prefix, digits, &sp)
            }
            'o' => {
                let digits = format!("{:o}", leading_int(text) as i32 as u32);
                let prefix = if sp.alt && !digits.starts_with('0') {
                    "0"
                } else {
                    ""
                };
                pad_prefixed(prefix, digits, &sp)
            }
            _ => {
                let f = leading_real(text);
                let mut s = format!("{:.*}", sp.prec.unwrap_or(6), f);
                if sp.alt && sp.prec == Some(0) {
                    s.push('.');
                }
                pad(signed(s, &sp, f.is_sign_negative()), &sp, true)
            }
        };
        out.push_str(&piece);
    }
    Ok(Value::str(out))
}

/// `atoll`-like: leading integer, 0 when none.
fn leading_int(s: &str) -> i64 {
    let t = s.trim_start();
    let end = t
        .char_indices()
        .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
        .count();
    t[..end].parse().unwrap_or(0)
}

/// `atof`-like: longest leading float, 0.0 when none.
fn leading_real(s: &str) -> f64 {
    let t = s.trim_start();
    (1..=t.len())
        .rev()
        .filter(|&n| t.is_char_boundary(n))
        .find_map(|n| t[..n].parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn lastnode(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (s, sep) = (a[0].text(), a[1].text());
    let out = match super::args::compile(sep) {
        Ok(re) => match re.plain().find_iter(s.as_bytes()).pop() {
            Some(m) => s.get(m.end()..).unwrap_or("").to_string(),
            None => s.to_string(),
        },
        Err(_) => s.rsplit(sep).next().unwrap_or("").to_string(),
    };
    Ok(Value::str(out))
}

/// `dirname` as the agent computes it: trailing slashes ignored, `.` without a slash.
pub fn dirname_of(p: &str) -> String {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return if p.starts_with('/') {
            "/".into()
        } else {
            ".".into()
        };
    }
    match t.rfind('/') {
        None => ".".into(),
        Some(i) => {
            let d = t[..i].trim_end_matches('/');
            if d.is_empty() {
                "/".into()
            } else {
                d.into()
            }
        }
    }
}

fn dirname(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(dirname_of(a[0].text())))
}

fn basename(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let p = a[0].text();
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return Ok(Value::str(if p.starts_with('/') { "/" } else { "" }));
    }
    let mut base = t.rsplit('/').next().unwrap_or(t).to_string();
    if let Some(suffix) = a.get(1).map(FnArg::text) {
        if !suffix.is_empty() && base.len() > suffix.len() && base.ends_with(suffix) {
            base.truncate(base.len() - suffix.len());
        }
    }
    Ok(Value::str(base))
}

fn downcase(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(a[0].text().to_ascii_lowercase()))
}

fn upcase(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(a[0].text().to_ascii_uppercase()))
}

fn bytes_str(b: &[u8]) -> Value {
    Value::str(String::from_utf8_lossy(b).into_owned())
}

fn head(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let b = a[0].text().as_bytes();
    let n = int_arg(&a[1]);
    let len = b.len() as i64;
    let take = if n < 0 { (len + n).max(0) } else { n.min(len) };
    Ok(bytes_str(&b[..take as usize]))
}

fn tail(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let b = a[0].text().as_bytes();
    let n = int_arg(&a[1]);
    let len = b.len() as i64;
    let take = if n < 0 { (len + n).max(0) } else { n.min(len) };
    Ok(bytes_str(&b[(len - take) as usize..]))
}

fn length(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::int(a[0].text().len() as i64))
}

fn reverse(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mut b = a[0].text().as_bytes().to_vec();
    b.reverse();
    Ok(bytes_str(&b))
}

fn trim(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(
        a[0].text().trim_matches(|c: char| c.is_ascii_whitespace()),
    ))
}

fn replace(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (s, from, to) = (a[0].text(), a[1].text(), a[2].text());
    if from.is_empty() {
        return Ok(Value::str(s));
    }
    if to.len() > from.len() {
        let grown = s
            .matches(from)
            .count()
            .saturating_mul(to.len() - from.len())
            .saturating_add(s.len());
        if grown > super::MAX_RESULT_BYTES {
            return Err(ctx.fail(format!(
                "cfsim: string_replace would build a string of {grown} bytes, more than {}",
                super::MAX_RESULT_BYTES
            )));
        }
    }
    Ok(Value::str(s.replace(from, to)))
}

fn strcmp(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(a[0].text() == a[1].text()))
}

fn string(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(match &a[0].value {
        Value::Scalar(_, s) => s.clone(),
        Value::Data(d) => super::json::write_compact(d),
        v @ Value::List(..) => elements(v).join(","),
    }))
}

/// `int()`: the agent's `DoubleFromString` (cf-promises' reader and its error lines), truncated
/// (recorded: iteration/int_readings).
fn int(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mut log = Vec::new();
    match crate::syntax::check::numbers::double_from_string(a[0].text(), &mut log) {
        Some(d) => Ok(Value::int(super::sorting::c_long(d))),
        None => {
            for line in log {
                ctx.error(line);
            }
            Err(super::FnFail)
        }
    }
}

/// Hex digest with one of the agent's algorithms (`md5 sha1 sha256 sha384 sha512`).
pub fn digest_hex(algo: &str, data: &[u8]) -> String {
    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
    match algo {
        "md5" => hex(&Md5::digest(data)),
        "sha1" => hex(&Sha1::digest(data)),
        "sha224" => hex(&sha2::Sha224::digest(data)),
        "sha384" => hex(&Sha384::digest(data)),
        "sha512" => hex(&Sha512::digest(data)),
        _ => hex(&Sha256::digest(data)),
    }
}

fn hash(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(digest_hex(a[1].text(), a[0].text().as_bytes())))
}

fn translatepath(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(a[0].text()))
}

/// `hash_to_int(lower, upper, string)`: the first 8 bytes of the string's SHA-256 read as a little-endian
/// unsigned 64-bit number, modulo `upper - lower` (bounds swapped when reversed, equal bounds give
/// `lower`), plus `lower`. Verified against the agent's recorded values (`policies/functions/strings`).
fn hash_to_int(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let (x, y) = (int_arg(&a[0]), int_arg(&a[1]));
    let (lo, hi) = if x <= y { (x, y) } else { (y, x) };
    let span = i128::from(hi) - i128::from(lo);
    if span == 0 {
        return Ok(Value::int(lo));
    }
    let digest = Sha256::digest(a[2].text().as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let h = i128::from(u64::from_le_bytes(first));
    let v = i128::from(lo) + h % span;
    Ok(Value::int(i64::try_from(v).unwrap_or(lo)))
}
