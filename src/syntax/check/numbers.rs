//! Number parsing exactly as cf-promises does it at parse time: `IntFromString` / `DoubleFromString` (C `sscanf`
//! with `%lld%c%1s` / `%lf%c%1s`, quantifier suffixes, their log lines) and the int/real/irange/rrange checks.

use super::strings::is_var_string;
use super::{Match, Outcome};

/// `CF_NOINT`: the value `IntFromString` returns on failure; a literal `-678` is therefore rejected too.
const CF_NOINT: i64 = -678;
/// `CF_INFINITY`: the value of the keyword `inf` in integer contexts.
const CF_INFINITY: i64 = 999_999_999;
/// Value used for the keyword `now` (the agent start time in CFEngine; here 2026-01-01). Only range checks see
/// it, and no range bound in the 3.21 tables lies between 1e9 (2001) and 2^31 (2038), so any start time in that
/// span gives the same verdict.
const NOW_FOR_RANGE_CHECKS: i64 = 1_767_225_600;

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// What `sscanf(s, "<number>%c%1s")` leaves after the number: the `%c` character and the first non-space
/// character after it.
fn tail(rest: &str) -> (Option<char>, Option<char>) {
    let mut chars = rest.chars();
    let quantifier = chars.next();
    let remainder = chars
        .as_str()
        .trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    (quantifier, remainder.chars().next())
}

/// `%lld`: leading C whitespace, optional sign, at least one digit; saturates like glibc on overflow.
fn scan_long(s: &str) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let negative = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits_start = i;
    let mut value: i64 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        let d = i64::from(b[i] - b'0');
        match value.checked_mul(10).and_then(|v| {
            if negative {
                v.checked_sub(d)
            } else {
                v.checked_add(d)
            }
        }) {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == digits_start {
        return None;
    }
    if overflow {
        value = if negative { i64::MIN } else { i64::MAX };
    }
    Some((value, s.get(i..).unwrap_or("")))
}

/// `%lf` as glibc's `scanf` does it: it consumes the longest text shaped like a float (a dangling exponent
/// such as `1e` or `1e+` included), fails when that text has no digit (`.`, `-`, `0x`, `e5`), and converts the
/// consumed text with `strtod`. `inf`/`infinity`/`nan` in any case; `nan(...)`.
pub(crate) fn scan_double(s: &str) -> Option<(f64, &str)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let start = i;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let lower = |k: usize| b.get(k).map(u8::to_ascii_lowercase);
    match lower(i) {
        Some(b'n') => {
            if lower(i + 1) != Some(b'a') || lower(i + 2) != Some(b'n') {
                return None;
            }
            i += 3;
            if b.get(i) == Some(&b'(') {
                let close = s.get(i..)?.find(')')?;
                i += close + 1;
            }
            return Some((f64::NAN, s.get(i..)?));
        }
        Some(b'i') => {
            if lower(i + 1) != Some(b'n') || lower(i + 2) != Some(b'f') {
                return None;
            }
            i += 3;
            if lower(i) == Some(b'i') {
                if (1..5).any(|k| lower(i + k) != b"inity".get(k).copied()) {
                    return None;
                }
                i += 5;
            }
            let negative = b[start] == b'-';
            return Some((
                if negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
                s.get(i..)?,
            ));
        }
        _ => {}
    }
    let hex = b.get(i) == Some(&b'0') && lower(i + 1) == Some(b'x');
    let (is_digit, exp_char): (fn(&u8) -> bool, u8) = if hex {
        // glibc gives up unless a hex digit or the decimal point follows `0x`.
        if !b
            .get(i + 2)
            .is_some_and(|c| c.is_ascii_hexdigit() || *c == b'.')
        {
            return None;
        }
        i += 2;
        (u8::is_ascii_hexdigit, b'p')
    } else {
        (u8::is_ascii_digit, b'e')
    };
    let mut got_digit = hex;
    let mut got_dot = false;
    while let Some(c) = b.get(i) {
        if is_digit(c) {
            got_digit = true;
        } else if *c == b'.' && !got_dot {
            got_dot = true;
        } else {
            break;
        }
        i += 1;
    }
    if !got_digit {
        return None;
    }
    if lower(i) == Some(exp_char) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    let (v, _) = strtod(s.get(start..i)?)?;
    Some((v, s.get(i..)?))
}

/// `strtod` on a text `scan_double` accepted: decimal or hexadecimal, trailing partial exponent ignored.
pub(crate) fn strtod(text: &str) -> Option<(f64, usize)> {
    let (sign, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (-1.0, text.get(1..)?),
        Some(b'+') => (1.0, text.get(1..)?),
        _ => (1.0, text),
    };
    let b = unsigned.as_bytes();
    if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        // Without hex digits strtod reads just the `0`.
        return Some(match scan_hex_float(b.get(2..)?) {
            Some((v, len)) => (sign * v, len + 2),
            None => (0.0, 1),
        });
    }
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i < b.len() && (b[i] | 0x20) == b'e' {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let mantissa = unsigned.get(..i)?;
    let text = if mantissa.starts_with('.') {
        format!("0{mantissa}")
    } else {
        mantissa.to_string()
    };
    let text = text.strip_suffix('.').map(str::to_string).unwrap_or(text);
    let text = text.replace(".e", ".0e").replace(".E", ".0E");
    let v: f64 = text.parse().ok()?;
    Some((sign * v, i))
}

/// Hex mantissa `h[.h][p[+-]d]` after `0x`; returns the value and bytes consumed.
fn scan_hex_float(b: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let mut value = 0.0f64;
    let mut digits = 0;
    let mut scale = 0i32;
    while i < b.len() && b[i].is_ascii_hexdigit() {
        value = value * 16.0 + f64::from(char::from(b[i]).to_digit(16)?);
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            value = value * 16.0 + f64::from(char::from(b[i]).to_digit(16)?);
            scale -= 4;
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] | 0x20) == b'p' {
        let mut j = i + 1;
        let negative = j < b.len() && b[j] == b'-';
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        let mut exp = 0i32;
        while j < b.len() && b[j].is_ascii_digit() {
            exp = exp
                .saturating_mul(10)
                .saturating_add(i32::from(b[j] - b'0'));
            j += 1;
        }
        if j > exp_start {
            scale = scale.saturating_add(if negative { -exp } else { exp });
            i = j;
        }
    }
    Some((value * 2f64.powi(scale), i))
}

/// `IntFromString`: the value, or `None` (CF_NOINT) with the lines cf-promises logs at level error. Nothing is
/// logged for a string containing `$(` or `${` (measured: `"a$(x"`, `"12$(x"` fail silently; `"@(x"` logs).
pub(crate) fn int_from_string(s: &str, log: &mut Vec<String>) -> Option<i64> {
    if s.contains("$(") || s.contains("${") {
        return int_from_string_logged(s, &mut Vec::new());
    }
    int_from_string_logged(s, log)
}

fn int_from_string_logged(s: &str, log: &mut Vec<String>) -> Option<i64> {
    if s == "inf" {
        return Some(CF_INFINITY);
    }
    if s == "now" {
        return Some(NOW_FOR_RANGE_CHECKS);
    }
    let Some((a, rest)) = scan_long(s).filter(|(a, _)| *a != CF_NOINT) else {
        log.push(format!("Failed to parse integer number: {s}"));
        return None;
    };
    match tail(rest) {
        (None, _) => Some(a),
        (Some(q), Some(r)) => {
            log.push(format!(
                "Anomalous ending '{q}{r}' while parsing integer number: {s}"
            ));
            None
        }
        (Some(q), None) => {
            let v = match q {
                'k' => a.wrapping_mul(1000),
                'K' => a.wrapping_mul(1024),
                'm' => a.wrapping_mul(1000 * 1000),
                'M' => a.wrapping_mul(1024 * 1024),
                'g' => a.wrapping_mul(1000 * 1000 * 1000),
                'G' => a.wrapping_mul(1024 * 1024 * 1024),
                '%' if !(0..=100).contains(&a) => {
                    log.push(format!("Percentage out of range: {a}"));
                    return None;
                }
                '%' => -a,
                _ => a,
            };
            (v != CF_NOINT).then_some(v)
        }
    }
}

/// `DoubleFromString`: the value, or `None` with the lines cf-promises logs at level error.
#[allow(clippy::manual_range_contains)] // NaN must pass the percentage check, as in C
pub(crate) fn double_from_string(s: &str, log: &mut Vec<String>) -> Option<f64> {
    let Some((a, rest)) = scan_double(s) else {
        log.push(format!("Failed to parse real number: {s}"));
        return None;
    };
    match tail(rest) {
        (None, _) => Some(a),
        (Some(q), Some(r)) => {
            log.push(format!(
                "Anomalous ending '{q}{r}' while parsing real number: {s}"
            ));
            None
        }
        (Some(q), None) => Some(match q {
            'k' => a * 1000.0,
            'K' => a * 1024.0,
            'm' => a * 1000.0 * 1000.0,
            'M' => a * 1024.0 * 1024.0,
            'g' => a * 1000.0 * 1000.0 * 1000.0,
            'G' => a * 1024.0 * 1024.0 * 1024.0,
            '%' if a < 0.0 || a > 100.0 => {
                log.push(format!("Percentage out of range: {a:.2}"));
                return None;
            }
            '%' => -a,
            _ => a,
        }),
    }
}

/// Bounds of an int range `min,max` from the tables (`max` may be `inf`).
fn int_bounds(range: &str) -> (i64, i64) {
    let mut parts = range.splitn(2, ',');
    let min = parts
        .next()
        .and_then(scan_long)
        .map_or(i64::MIN, |(v, _)| v);
    let max = match parts.next() {
        Some("inf") => CF_INFINITY,
        Some(m) => scan_long(m).map_or(i64::MAX, |(v, _)| v),
        None => i64::MAX,
    };
    (min, max)
}

fn real_bounds(range: &str) -> (f64, f64) {
    let mut parts = range.splitn(2, ',');
    let min = parts
        .next()
        .and_then(scan_double)
        .map_or(f64::MIN, |(v, _)| v);
    let max = parts
        .next()
        .and_then(scan_double)
        .map_or(f64::MAX, |(v, _)| v);
    (min, max)
}

/// The type check of the agent's expanded promise (its `CheckParseInt` / `CheckParseReal`) for one item
/// of an `int`/`ilist` (`real`/`rlist`) value: the message when the item reads as a number outside
/// `range`, the attribute's range in the syntax table. An unreadable item, a reference and a real "inf"
/// are left alone (the reading functions and the value's type checks answer for those).
pub(crate) fn expanded_number_out_of_range(
    s: &str,
    real: bool,
    range: &str,
) -> Option<&'static str> {
    if real {
        if s == "inf" {
            return None;
        }
        let (min, max) = real_bounds(range);
        let v = double_from_string(s, &mut Vec::new())?;
        (v > max || v < min).then_some("Real value is out of range")
    } else {
        let (min, max) = int_bounds(range);
        let v = int_from_string(s, &mut Vec::new())?;
        (v > max || v < min).then_some("Integer is out of range")
    }
}

/// `CheckParseInt`.
pub(super) fn check_int(s: &str, range: &str, out: &mut Outcome) -> Match {
    let (min, max) = int_bounds(range);
    if is_var_string(s, out) {
        return Match::Unexpanded;
    }
    match int_from_string(s, &mut out.log) {
        None => Match::IntParse,
        Some(v) if v > max || v < min => Match::IntOutOfRange,
        Some(_) => Match::Ok,
    }
}

/// `CheckParseReal`.
pub(super) fn check_real(s: &str, range: &str, out: &mut Outcome) -> Match {
    if s == "inf" {
        return Match::RealInf;
    }
    if is_var_string(s, out) {
        return Match::Unexpanded;
    }
    let (min, max) = real_bounds(range);
    match double_from_string(s, &mut out.log) {
        None => Match::RealOutOfRange,
        Some(v) if v > max || v < min => Match::RealOutOfRange,
        Some(_) => Match::Ok,
    }
}

/// `CheckParseIntRange` (irange values written as a string `"a,b"`).
pub(super) fn check_int_range(s: &str, range: &str, out: &mut Outcome) -> Match {
    if s.starts_with('[') || s.starts_with('(') {
        return Match::RangeBracketed;
    }
    let (min, max) = int_bounds(range);
    if is_var_string(s, out) {
        return Match::Unexpanded;
    }
    let items: Vec<&str> = s.split(',').collect();
    if items.len() != 2 {
        return Match::RangeMultipleItems;
    }
    for item in items {
        let v = int_from_string(item, &mut out.log).unwrap_or(CF_NOINT);
        if v > max || v < min {
            return Match::IntOutOfRange;
        }
    }
    Match::Ok
}

/// `CheckParseRealRange` (rrange values written as a string `"a,b"`).
pub(super) fn check_real_range(s: &str, range: &str, out: &mut Outcome) -> Match {
    if s.starts_with('[') || s.starts_with('(') {
        return Match::RangeBracketed;
    }
    if s == "inf" {
        return Match::RealInf;
    }
    if is_var_string(s, out) {
        return Match::Unexpanded;
    }
    let (min, max) = real_bounds(range);
    let items: Vec<&str> = s.split(',').collect();
    if items.len() != 2 {
        return Match::RangeMultipleItems;
    }
    for item in items {
        match double_from_string(item, &mut out.log) {
            Some(v) if v <= max && v >= min => {}
            _ => return Match::RealOutOfRange,
        }
    }
    Match::Ok
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scanf_shapes() {
        assert_eq!(scan_long(" -12k"), Some((-12, "k")));
        assert_eq!(scan_long("x"), None);
        assert_eq!(scan_long("99999999999999999999"), Some((i64::MAX, "")));
        assert_eq!(tail("kk"), (Some('k'), Some('k')));
        assert_eq!(tail(" "), (Some(' '), None));
        assert_eq!(tail(" x"), (Some(' '), Some('x')));
        assert_eq!(scan_double("0x10"), Some((16.0, "")));
        assert_eq!(scan_double(".5x"), Some((0.5, "x")));
        assert_eq!(scan_double("1e3"), Some((1000.0, "")));
        assert_eq!(scan_double("1e"), Some((1.0, "")));
        assert_eq!(scan_double("1e+ k"), Some((1.0, " k")));
        assert_eq!(scan_double("0x"), None);
        assert_eq!(scan_double("."), None);
        assert!(scan_double("nan").unwrap().0.is_nan());
        assert_eq!(scan_double("-INF"), Some((f64::NEG_INFINITY, "")));
    }
}
