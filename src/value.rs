//! Runtime values of the CFEngine evaluator: scalars (string/int/real), lists (slist/ilist/rlist), data
//! containers, plus CFEngine's number parsing (`k`/`m`/`g` suffixes, `%`, `inf`) and `%f` real formatting.

use serde_json::Value as Json;

/// The type of a scalar value, as the agent reports it (`type()`), kept because `int`/`real` variables
/// are normalised when they are defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    String,
    Int,
    Real,
}

/// The type of a list value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Slist,
    Ilist,
    Rlist,
}

/// One value as stored in a variable or returned by a function.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A scalar; its text is what `$(x)` expands to.
    Scalar(ScalarKind, String),
    /// An ordered list of scalar elements.
    List(ListKind, Vec<String>),
    /// A data container (JSON).
    Data(Json),
}

impl Value {
    /// How many values this holds (a scalar 1, a list its length, a data container its JSON nodes),
    /// counting no further than just past `stop`: the value limits and table copies ask whether a
    /// value fits without walking all of it.
    pub fn count_values(&self, stop: usize) -> usize {
        match self {
            Value::Data(d) => json_nodes(d, stop),
            Value::List(_, items) => items.len(),
            _ => 1,
        }
    }

    /// The value's size in the units of `--max-total-values`: a scalar's bytes, a list's bytes plus
    /// one per element, a data container's JSON values (its strings' bytes not counted).
    pub fn work_units(&self) -> u64 {
        let n = match self {
            Value::Scalar(_, s) => s.len(),
            Value::List(_, items) => items.iter().map(|i| i.len() + 1).sum(),
            Value::Data(d) => json_nodes(d, usize::MAX),
        };
        u64::try_from(n).unwrap_or(u64::MAX)
    }

    /// A string scalar.
    pub fn str(s: impl Into<String>) -> Value {
        Value::Scalar(ScalarKind::String, s.into())
    }

    /// An slist.
    pub fn slist(items: Vec<String>) -> Value {
        Value::List(ListKind::Slist, items)
    }

    /// The context result of a class-returning function: `any` or `!any`.
    pub fn context(b: bool) -> Value {
        Value::str(if b { "any" } else { "!any" })
    }

    /// An int scalar from an i64.
    pub fn int(i: i64) -> Value {
        Value::Scalar(ScalarKind::Int, i.to_string())
    }

    /// A real scalar formatted like C `%f`.
    pub fn real(f: f64) -> Value {
        Value::Scalar(ScalarKind::Real, format_real(f))
    }

    /// The scalar text, if this is a scalar.
    pub fn as_scalar(&self) -> Option<&str> {
        match self {
            Value::Scalar(_, s) => Some(s),
            _ => None,
        }
    }

    /// The name the agent's `type()` function gives this value.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Scalar(ScalarKind::String, _) => "string",
            Value::Scalar(ScalarKind::Int, _) => "int",
            Value::Scalar(ScalarKind::Real, _) => "real",
            Value::List(ListKind::Slist, _) => "slist",
            Value::List(ListKind::Ilist, _) => "ilist",
            Value::List(ListKind::Rlist, _) => "rlist",
            Value::Data(_) => "data",
        }
    }

    /// Converts to JSON as `mergedata`/`storejson` see a variable: lists become arrays of strings.
    pub fn to_json(&self) -> Json {
        match self {
            Value::Scalar(_, s) => Json::String(s.clone()),
            Value::List(_, items) => Json::Array(items.iter().cloned().map(Json::String).collect()),
            Value::Data(d) => d.clone(),
        }
    }
}

/// Formats a real like C's `printf("%f")`.
pub fn format_real(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    format!("{f:.6}")
}

/// How a JSON leaf reads as a scalar string (`$(d[k])`): strings as is, integers as written, reals
/// `%.2f` (recorded: `1.5` → `1.50`), booleans `true`/`false`; `null`, arrays and objects are not
/// scalars.
pub fn json_leaf_string(j: &Json) -> Option<String> {
    match j {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => {
            let t = n.to_string();
            if t.contains(['.', 'e', 'E']) {
                let f = json_number_f64(n).unwrap_or(0.0);
                Some(format!("{f:.2}"))
            } else {
                Some(t)
            }
        }
        Json::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Scalar elements of a JSON array or object (values in order), as iteration over a container sees them.
pub fn json_scalar_values(j: &Json) -> Vec<String> {
    match j {
        Json::Array(a) => a.iter().filter_map(json_leaf_string).collect(),
        Json::Object(o) => o.values().filter_map(json_leaf_string).collect(),
        other => json_leaf_string(other).into_iter().collect(),
    }
}

/// Parses a CFEngine integer: optional sign, digits, optional unit suffix (`k`=1000, `K`=1024, `m`, `M`,
/// `g`, `G`), `%` (stored negated), or `inf` (999999999). Returns `None` when not an integer.
pub fn parse_int(s: &str) -> Option<i64> {
    let t = s.trim();
    if t == "inf" {
        return Some(999_999_999);
    }
    if t == "now" {
        return None;
    }
    let (num, mult, percent) = split_suffix(t);
    let n: i64 = num.parse().ok()?;
    let v = n.checked_mul(mult)?;
    Some(if percent { -v } else { v })
}

/// Parses a CFEngine real: a float with the same unit suffixes as [`parse_int`].
pub fn parse_real(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let (num, mult, percent) = split_suffix(t);
    if num.is_empty() || num.eq_ignore_ascii_case("nan") || num.contains("inf") {
        return None;
    }
    let f: f64 = num.parse().ok()?;
    let v = f * mult as f64;
    Some(if percent { -v } else { v })
}

fn split_suffix(t: &str) -> (&str, i64, bool) {
    let Some(last) = t.chars().last() else {
        return (t, 1, false);
    };
    let mult = match last {
        'k' => 1000,
        'K' => 1024,
        'm' => 1_000_000,
        'M' => 1024 * 1024,
        'g' => 1_000_000_000,
        'G' => 1024 * 1024 * 1024,
        '%' => return (&t[..t.len() - 1], 1, true),
        _ => return (t, 1, false),
    };
    (&t[..t.len() - 1], mult, false)
}

/// Parses a JSON number text as f64 (works with and without serde_json's arbitrary precision).
pub fn json_number_f64(n: &serde_json::Number) -> Option<f64> {
    n.as_f64().or_else(|| n.to_string().parse().ok())
}

/// The nodes of `d`, counted no further than just past `stop`.
pub fn json_nodes(d: &serde_json::Value, stop: usize) -> usize {
    let mut n = 0usize;
    let mut todo = vec![d];
    while let Some(v) = todo.pop() {
        n += 1;
        if n > stop {
            break;
        }
        match v {
            serde_json::Value::Array(a) => todo.extend(a.iter()),
            serde_json::Value::Object(o) => todo.extend(o.values()),
            _ => {}
        }
    }
    n
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn int_suffixes_match_the_agent() {
        // recorded: int => "10k" -> 10000, "2M" -> 2097152, "3K" -> 3072, "3g" -> 3000000000,
        // "3G" -> 3221225472, "50%" -> -50, "inf" -> 999999999, "-3m" -> -3000000
        assert_eq!(parse_int("10k"), Some(10000));
        assert_eq!(parse_int("2M"), Some(2_097_152));
        assert_eq!(parse_int("3K"), Some(3072));
        assert_eq!(parse_int("3g"), Some(3_000_000_000));
        assert_eq!(parse_int("3G"), Some(3_221_225_472));
        assert_eq!(parse_int("50%"), Some(-50));
        assert_eq!(parse_int("inf"), Some(999_999_999));
        assert_eq!(parse_int("-3m"), Some(-3_000_000));
        assert_eq!(parse_int("x"), None);
    }

    #[test]
    fn reals_print_like_percent_f() {
        // recorded: real => "1.5" -> 1.500000, "2e3" -> 2000.000000, "0.1234567890" -> 0.123457,
        // "3k" -> 3000.000000, "1e-7" -> 0.000000
        let f = |s: &str| format_real(parse_real(s).unwrap());
        assert_eq!(f("1.5"), "1.500000");
        assert_eq!(f("2e3"), "2000.000000");
        assert_eq!(f("0.1234567890"), "0.123457");
        assert_eq!(f("3k"), "3000.000000");
        assert_eq!(f("1e-7"), "0.000000");
    }
}
