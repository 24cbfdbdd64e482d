//! The class and variable tables of `cf-promises --show-classes/--show-vars` and `cf-agent
//! --show-evaluated-classes/--show-evaluated-vars`: header, rows sorted by name, columns padded exactly
//! as the real tools pad them (trailing blanks included), optional regex filter on the name.

/// `--show-classes=RE` / `--show-vars=RE` filter with the agent's PCRE (crate::pcre).
pub type Regex = std::sync::Arc<crate::pcre::Regex>;

use super::context::Context;
use crate::value::Value;

/// Marks a list item that the tables print without quotes (a bundle call in `control_common.bundlesequence`
/// is shown as `greet("hello")`, recorded).
pub const RAW_ITEM: char = '\u{1}';

/// Header of the classes table.
pub const CLASSES_HEADER: &str = "Class name                                                   Meta tags                                Comment                                 ";
/// Header of the variables table.
pub const VARS_HEADER: &str = "Variable name                            Variable value                                               Meta tags                                Comment                                 ";

/// Compiles the `=REGEX` filter: an unanchored search, as the agent does it (`=linu` lists `linux` and
/// `compiled_on_linux_gnu`; `=g.x` lists `default:g.x`); `None` means every row.
pub fn filter(re: Option<&str>) -> Result<Option<Regex>, String> {
    match re {
        None | Some("") => Ok(None),
        Some(r) => crate::pcre::compile(r)
            .map(Some)
            .map_err(|e| format!("invalid regular expression '{r}': {}", e.message)),
    }
}

/// Appends `v` left-aligned in a column of `width` characters (`format!("{v:<width$}")` without the
/// formatter's character-by-character fill).
fn padded(out: &mut String, v: &str, width: usize) {
    const SPACES: &str = "                                                                ";
    out.push_str(v);
    let mut missing = width.saturating_sub(v.chars().count());
    while missing > 0 {
        let n = missing.min(SPACES.len());
        out.push_str(&SPACES[..n]);
        missing -= n;
    }
}

/// Appends one table row: the columns padded to their widths, separated by one blank.
fn row(out: &mut String, columns: &[(&str, usize)]) {
    for (i, (v, width)) in columns.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        padded(out, v, *width);
    }
    out.push('\n');
}

/// The classes table.
pub fn classes_table(ctx: &Context, re: Option<&Regex>) -> String {
    let mut s = String::from(CLASSES_HEADER);
    s.push('\n');
    for (name, tags) in ctx.global_class_rows() {
        if re.is_some_and(|r| !r.is_match(name.as_bytes())) {
            continue;
        }
        let comment = ctx.comments.get(&name).map_or("", String::as_str);
        row(&mut s, &[(&name, 60), (&tags, 40), (comment, 40)]);
    }
    s
}

/// How a value appears in the variables table: the agent's isprint() in the C locale over the text
/// it shows, so a byte outside ' '..='~' anywhere in it (a newline in a list item, a non-ASCII
/// character in any value) shows the whole value as `<non-printable>` (recorded:
/// iteration/format_edges).
pub fn render_value(v: &Value) -> String {
    let text = match v {
        Value::Scalar(_, s) => s.replace('"', "\\\""),
        Value::List(_, items) if items.is_empty() => String::new(),
        Value::List(_, items) => {
            let inner: Vec<String> = items
                .iter()
                .map(|i| match i.strip_prefix(RAW_ITEM) {
                    Some(raw) => raw.to_string(),
                    None => format!("\"{}\"", i.replace('"', "\\\"")),
                })
                .collect();
            format!(" {{{}}}", inner.join(","))
        }
        Value::Data(d) => crate::host::sysvars::sorted_json(d).to_string(),
    };
    if text.bytes().any(|b| !(b' '..=b'~').contains(&b)) {
        "<non-printable>".to_string()
    } else {
        text
    }
}

/// The variables table.
pub fn vars_table(ctx: &Context, re: Option<&Regex>) -> String {
    let mut rows: Vec<(String, String, String)> = ctx
        .vars
        .iter()
        .map(|((ns, scope, lval), e)| {
            (
                format!("{ns}:{scope}.{lval}"),
                render_value(&e.value),
                e.tags.join(","),
            )
        })
        .collect();
    rows.sort_unstable();
    let mut s = String::with_capacity(VARS_HEADER.len() + 1 + rows.len() * 190);
    s.push_str(VARS_HEADER);
    s.push('\n');
    for (name, value, tags) in rows {
        if re.is_some_and(|r| !r.is_match(name.as_bytes())) {
            continue;
        }
        let comment = ctx.comments.get(&name).map_or("", String::as_str);
        row(
            &mut s,
            &[(&name, 40), (&value, 60), (&tags, 40), (comment, 40)],
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_equals_the_formatter() {
        for v in ["", "abc", "é€x", &"z".repeat(70), &"y".repeat(200)] {
            for w in [0, 3, 40, 60, 150] {
                let mut s = String::new();
                padded(&mut s, v, w);
                assert_eq!(s, format!("{v:<w$}"), "{v} {w}");
            }
        }
    }

    #[test]
    fn values_render_like_show_vars() {
        // recorded in policies/eval/show and the spec §8.1
        assert_eq!(render_value(&Value::str("a\"b")), "a\\\"b");
        assert_eq!(render_value(&Value::str("x\ny")), "<non-printable>");
        assert_eq!(
            render_value(&Value::slist(vec!["a".into(), "b".into()])),
            " {\"a\",\"b\"}"
        );
        assert_eq!(render_value(&Value::slist(vec![])), "");
    }

    #[test]
    fn filter_is_a_search() {
        // recorded: cf-promises --show-classes=linu lists compiled_on_linux_gnu and linux
        let re = filter(Some("linu")).ok().flatten();
        assert!(re
            .as_ref()
            .is_some_and(|r| r.is_match(b"compiled_on_linux_gnu")));
        assert!(re.as_ref().is_some_and(|r| r.is_match(b"linux")));
        assert!(!re.as_ref().is_some_and(|r| r.is_match(b"debian")));
        assert!(filter(Some("(")).is_err());
    }
}
