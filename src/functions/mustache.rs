//! `string_mustache`: Mustache rendering as CFEngine 3.21 does it — HTML escaping, sections over
//! arrays/objects/booleans, inverted sections, comments, set-delimiter, standalone-line removal, and the
//! CFEngine extensions `{{@}}` (current key), `{{$x}}` (compact JSON), `{{%x}}` (pretty JSON), `-top-`
//! (the whole data). An object section iterates its entries only when its body uses `{{@}}`.

use serde_json::Value as Json;

use super::args::collect_or_fail;
use super::json::{number_text, write_compact, write_pretty};
use super::vars::datastate_json;
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::value::Value;

pub const FUNCTIONS: &[FnDef] = &[def("string_mustache", true, string_mustache)];

/// Deepest section nesting accepted.
pub const MAX_SECTION_DEPTH: usize = 128;

/// Most nodes one rendering visits: nested sections over lists multiply (`{{#l}}{{#l}}…` is
/// `len(l)^depth`), so the depth limit alone does not bound the work.
pub const MAX_RENDER_STEPS: usize = 10_000_000;

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    Var {
        name: String,
        escape: bool,
    },
    Section {
        name: String,
        inverted: bool,
        body: Vec<Node>,
        raw: String,
    },
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
    open: String,
    close: String,
    /// Sections opened and not yet closed, outermost first.
    open_sections: Vec<String>,
}

/// Why a template could not be rendered (each with the agent's message, see [`string_mustache`]).
#[derive(Debug)]
pub(crate) enum TemplateError {
    /// A tag without its end delimiter; the template text from the current position.
    Broken(String),
    /// The template ended inside these sections (outermost first).
    UnexpectedEnd(Vec<String>),
    /// A closing tag that closes nothing open; the sections open then.
    UnknownClose(String, Vec<String>),
    /// A section over a value that is neither a boolean nor a container.
    NotContainer(String),
    TooDeep,
    /// The rendering would visit more than [`MAX_RENDER_STEPS`] nodes or write more than
    /// [`super::MAX_RESULT_BYTES`].
    TooLarge,
}

impl Parser<'_> {
    /// Parses until the closing tag of `section` (or the end for the top level).
    fn parse(
        &mut self,
        section: Option<&str>,
        depth: usize,
    ) -> Result<(Vec<Node>, usize), TemplateError> {
        if depth > MAX_SECTION_DEPTH {
            return Err(TemplateError::TooDeep);
        }
        let mut nodes: Vec<Node> = Vec::new();
        loop {
            let Some(off) = self.s[self.i..].find(&self.open) else {
                if section.is_some() {
                    return Err(TemplateError::UnexpectedEnd(self.open_sections.clone()));
                }
                nodes.push(Node::Text(self.s[self.i..].to_string()));
                self.i = self.s.len();
                return Ok((nodes, self.s.len()));
            };
            let tag_start = self.i + off;
            let mut text = self.s[self.i..tag_start].to_string();
            let mut p = tag_start + self.open.len();
            let triple = self.open == "{{" && self.s[p..].starts_with('{');
            let close = if triple {
                format!("}}{}", self.close)
            } else {
                self.close.clone()
            };
            let Some(cl) = self.s[p..].find(&close) else {
                return Err(TemplateError::Broken(self.s[self.i..].to_string()));
            };
            let inner = self.s[p..p + cl].to_string();
            p += cl + close.len();
            let kind = if triple {
                '{'
            } else {
                inner.trim_start().chars().next().unwrap_or(' ')
            };
            let body = match kind {
                '{' => inner.trim_start_matches('{').trim().to_string(),
                '#' | '^' | '/' | '!' | '=' | '&' => inner.trim()[1..].trim().to_string(),
                _ => inner.trim().to_string(),
            };
            let standalone_kind = matches!(kind, '#' | '^' | '/' | '!' | '=');
            if standalone_kind {
                let line_start = text.rfind('\n').map_or(0, |n| n + 1);
                let before_ws = text[line_start..].chars().all(|c| c == ' ' || c == '\t');
                let at_line_start = line_start > 0 || self.i == 0 || ends_line(&nodes, self.i == 0);
                let rest = &self.s[p..];
                let eol = rest.find('\n');
                let after_ws = rest[..eol.unwrap_or(rest.len())]
                    .chars()
                    .all(|c| c == ' ' || c == '\t' || c == '\r');
                if before_ws && after_ws && at_line_start {
                    text.truncate(line_start);
                    p += eol.map_or(rest.len(), |e| e + 1);
                }
            }
            if !text.is_empty() {
                nodes.push(Node::Text(text));
            }
            self.i = p;
            match kind {
                '!' => {}
                '=' => {
                    let d = body.trim_end_matches('=').trim();
                    let mut parts = d.split_whitespace();
                    if let (Some(o), Some(c)) = (parts.next(), parts.next()) {
                        self.open = o.to_string();
                        self.close = c.to_string();
                    }
                }
                '#' | '^' => {
                    let body_start = self.i;
                    self.open_sections.push(body.clone());
                    let (children, body_end) = self.parse(Some(&body), depth + 1)?;
                    self.open_sections.pop();
                    nodes.push(Node::Section {
                        name: body,
                        inverted: kind == '^',
                        body: children,
                        raw: self.s[body_start..body_end].to_string(),
                    });
                }
                '/' => {
                    return if section == Some(body.as_str()) {
                        Ok((nodes, tag_start))
                    } else {
                        Err(TemplateError::UnknownClose(
                            body,
                            self.open_sections.clone(),
                        ))
                    };
                }
                '{' | '&' => nodes.push(Node::Var {
                    name: body,
                    escape: false,
                }),
                _ => nodes.push(Node::Var {
                    name: body,
                    escape: true,
                }),
            }
        }
    }
}

fn ends_line(nodes: &[Node], at_start: bool) -> bool {
    match nodes.last() {
        Some(Node::Text(t)) => t.ends_with('\n'),
        None => at_start,
        _ => false,
    }
}

fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

struct Frame<'a> {
    value: &'a Json,
    key: Option<String>,
}

fn lookup<'a>(name: &str, stack: &[Frame<'a>], top: &'a Json) -> Option<&'a Json> {
    if name == "." {
        return stack.last().map(|f| f.value);
    }
    if name == "-top-" {
        return Some(top);
    }
    let mut parts = name.split('.');
    let first = parts.next()?;
    let mut cur = stack
        .iter()
        .rev()
        .find_map(|f| f.value.as_object().and_then(|o| o.get(first)))?;
    for p in parts {
        cur = match cur {
            Json::Object(o) => o.get(p)?,
            Json::Array(a) => a.get(p.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn scalar_text(j: &Json) -> String {
    match j {
        Json::String(s) => s.clone(),
        // a real reads as a scalar, `%.2f` (recorded: `{{z}}` of `1.5` → `1.50`)
        Json::Number(n) if n.to_string().contains(['.', 'e', 'E']) => {
            crate::value::json_leaf_string(j).unwrap_or_default()
        }
        Json::Number(n) => number_text(n),
        Json::Bool(b) => b.to_string(),
        Json::Null => String::new(),
        other => write_compact(other),
    }
}

fn render<'a>(
    nodes: &[Node],
    stack: &mut Vec<Frame<'a>>,
    top: &'a Json,
    out: &mut String,
    steps: &mut usize,
) -> Result<(), TemplateError> {
    for n in nodes {
        *steps += 1;
        if *steps > MAX_RENDER_STEPS || out.len() > super::MAX_RESULT_BYTES {
            return Err(TemplateError::TooLarge);
        }
        match n {
            Node::Text(t) => out.push_str(t),
            Node::Var { name, escape } => {
                if name == "@" {
                    if let Some(k) = stack.iter().rev().find_map(|f| f.key.clone()) {
                        out.push_str(&k);
                    }
                    continue;
                }
                let (json_mode, name) = match name.chars().next() {
                    Some('$') => (Some(false), &name[1..]),
                    Some('%') => (Some(true), &name[1..]),
                    _ => (None, name.as_str()),
                };
                let Some(v) = lookup(name, stack, top) else {
                    continue;
                };
                let text = match json_mode {
                    Some(true) => write_pretty(v),
                    Some(false) => write_compact(v),
                    None => scalar_text(v),
                };
                out.push_str(&if *escape && json_mode.is_none() {
                    html_escape(&text)
                } else {
                    text
                });
            }
            Node::Section {
                name,
                inverted,
                body,
                raw,
            } => {
                let v = lookup(name, stack, top);
                let truthy = match v {
                    None | Some(Json::Null) | Some(Json::Bool(false)) => false,
                    Some(Json::Array(a)) => !a.is_empty(),
                    _ => true,
                };
                // a scalar fails an inverted section too (recorded: functions/corners)
                if matches!(v, Some(Json::String(_) | Json::Number(_))) {
                    return Err(TemplateError::NotContainer(name.clone()));
                }
                if *inverted {
                    if !truthy {
                        render(body, stack, top, out, steps)?;
                    }
                    continue;
                }
                let Some(v) = v.filter(|_| truthy) else {
                    continue;
                };
                match v {
                    Json::Array(a) => {
                        for (i, e) in a.iter().enumerate() {
                            stack.push(Frame {
                                value: e,
                                key: Some(i.to_string()),
                            });
                            render(body, stack, top, out, steps)?;
                            stack.pop();
                        }
                    }
                    Json::Object(o) if raw.contains("{{@}}") => {
                        for (k, e) in o {
                            stack.push(Frame {
                                value: e,
                                key: Some(k.clone()),
                            });
                            render(body, stack, top, out, steps)?;
                            stack.pop();
                        }
                    }
                    Json::Bool(true) => render(body, stack, top, out, steps)?,
                    other => {
                        stack.push(Frame {
                            value: other,
                            key: None,
                        });
                        render(body, stack, top, out, steps)?;
                        stack.pop();
                    }
                }
            }
        }
    }
    Ok(())
}

/// The agent's message for a rendering error: (an error rather than a warning, the text). Used by
/// `string_mustache` and by files promises' mustache templates.
pub(crate) fn describe(err: TemplateError, data: &Json) -> (bool, String) {
    let not_container = |name: &str| {
        (false, format!(
            "Mustache sections can only take a boolean or a container (array or map) value, but section '{name}' isn't getting one of those."
        ))
    };
    match err {
        TemplateError::Broken(rest) => {
            // C's `%20s`: right-aligned in 20 bytes, never cut
            let pad = 20usize.saturating_sub(rest.len());
            (true, format!(
                "Broken Mustache template, could not find end delimiter after reading start delimiter at '{}{rest}'...",
                " ".repeat(pad)
            ))
        }
        TemplateError::NotContainer(name) => not_container(&name),
        TemplateError::UnexpectedEnd(open) => match first_scalar_section(&open, data) {
            Some(name) => not_container(&name),
            None => (true, "Unexpected end to Mustache template".to_string()),
        },
        TemplateError::UnknownClose(close, open) => match first_scalar_section(&open, data) {
            Some(name) => not_container(&name),
            None => (
                false,
                format!("Unknown section close in mustache template '{close}'"),
            ),
        },
        TemplateError::TooDeep => (
            true,
            format!("cfsim: Mustache sections nested deeper than {MAX_SECTION_DEPTH}"),
        ),
        TemplateError::TooLarge => (
            true,
            format!(
                "cfsim: Mustache rendering larger than {MAX_RENDER_STEPS} steps or {} bytes",
                super::MAX_RESULT_BYTES
            ),
        ),
    }
}

/// Renders `template` against `data`.
pub(crate) fn render_template(template: &str, data: &Json) -> Result<String, TemplateError> {
    let mut p = Parser {
        s: template,
        i: 0,
        open: "{{".into(),
        close: "}}".into(),
        open_sections: Vec::new(),
    };
    let (nodes, _) = p.parse(None, 0)?;
    let mut out = String::new();
    let mut stack = vec![Frame {
        value: data,
        key: None,
    }];
    render(&nodes, &mut stack, data, &mut out, &mut 0)?;
    Ok(out)
}

/// The agent renders while it reads: a section over a scalar fails when it is opened, before the
/// structural error found later in the template (recorded: `{{#x}}{{/y}}` with `x` a number).
fn first_scalar_section(open: &[String], data: &Json) -> Option<String> {
    open.iter()
        .find(|n| {
            matches!(
                data.as_object().and_then(|o| o.get(n.as_str())),
                Some(Json::String(_) | Json::Number(_))
            )
        })
        .cloned()
}

fn string_mustache(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let template = a.first().map_or("", FnArg::text).to_string();
    let data = match a.get(1) {
        Some(x) => collect_or_fail(ctx, "string_mustache", x)?.to_json(),
        None => match datastate_json(ctx) {
            Some(j) => j,
            None => return Err(super::vars::too_many_values(ctx, "string_mustache")),
        },
    };
    match render_template(&template, &data) {
        Ok(s) => Ok(Value::str(s)),
        Err(err) => {
            match describe(err, &data) {
                (true, msg) => {
                    let _ = ctx.fail(msg);
                }
                (false, msg) => ctx.warning(msg),
            }
            Err(FnFail)
        }
    }
}
