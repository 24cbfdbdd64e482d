//! Functions that read and parse files or strings: readfile, readjson, readdata, readcsv, readenvfile,
//! readstringlist/intlist/reallist, read*array(idx), parse*array(idx), data_readstringarray(idx),
//! regline, countlinesmatching, getfields.

use serde_json::{Map, Value as Json};

use super::args::{full_match, int_arg, regex, Re};
use super::json;
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::value::{ListKind, Value};

pub const FUNCTIONS: &[FnDef] = &[
    def("readfile", false, readfile),
    def("readjson", false, readjson),
    def("readyaml", false, readyaml),
    def("readdata", false, readdata),
    def("readcsv", false, readcsv),
    def("readenvfile", false, readenvfile),
    def("readstringlist", false, readstringlist),
    def("readintlist", false, readintlist),
    def("readreallist", false, readreallist),
    def("readstringarray", false, readstringarray),
    def("readstringarrayidx", false, readstringarrayidx),
    def("readintarray", false, readintarray),
    def("readrealarray", false, readrealarray),
    def("parsestringarray", true, parsestringarray),
    def("parsestringarrayidx", true, parsestringarrayidx),
    def("parseintarray", true, parseintarray),
    def("parserealarray", true, parserealarray),
    def("data_readstringarray", false, data_readstringarray),
    def("data_readstringarrayidx", false, data_readstringarrayidx),
    def("regline", false, regline),
    def("countlinesmatching", false, countlinesmatching),
    def("getfields", false, getfields),
];

/// Reads a file (at most `max` bytes when `max > 0`) with readfile's error messages. The agent keeps
/// the text as a C string: it ends at the first NUL byte (`/proc/1/cmdline` gives argv[0]).
fn read(ctx: &mut CallCtx<'_>, path: &str, max: i64) -> Result<String, FnFail> {
    match ctx.host.read_file(path) {
        Some(mut b) => {
            if max > 0 && (b.len() as i64) > max {
                b.truncate(max as usize);
            }
            if let Some(nul) = b.iter().position(|&c| c == 0) {
                b.truncate(nul);
            }
            Ok(String::from_utf8_lossy(&b).into_owned())
        }
        // the tools word it differently (recorded: cf-promises and cf-agent on the same policy)
        None if ctx.agent => Err(ctx.fail(format!(
            "CfReadFile: Could not examine file '{path}' (stat: No such file or directory)"
        ))),
        None => Err(ctx.fail(format!("Could not examine file '{path}'"))),
    }
}

fn readfile(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let max = a.get(1).map_or(0, int_arg);
    Ok(Value::str(read(ctx, a[0].text(), max)?))
}

fn read_json(ctx: &mut CallCtx<'_>, fname: &str, path: &str) -> Result<Json, FnFail> {
    let Some(b) = ctx.host.read_file(path) else {
        return Err(ctx.fail(format!(
            "{fname}: data error parsing JSON file '{path}': No such file or directory"
        )));
    };
    let text = String::from_utf8_lossy(&b).into_owned();
    match json::parse(&text) {
        Ok(j) => Ok(j),
        Err(e) => Err(ctx.fail(format!(
            "{fname}: error parsing JSON file '{path}': {}",
            e.message
        ))),
    }
}

fn read_yaml(ctx: &mut CallCtx<'_>, fname: &str, path: &str) -> Result<Json, FnFail> {
    let Some(b) = ctx.host.read_file(path) else {
        return Err(ctx.fail(format!(
            "{fname}: data error parsing YAML file '{path}': No such file or directory"
        )));
    };
    let text = String::from_utf8_lossy(&b).into_owned();
    super::data::parse_yaml_container(ctx, &text)
}

fn readyaml(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::Data(read_yaml(ctx, "readyaml", a[0].text())?))
}

fn readjson(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::Data(read_json(ctx, "readjson", a[0].text())?))
}

/// RFC 4180 CSV as the agent parses it: records end at CRLF only; quotes group and `""` escapes.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {
                chars.next();
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            c => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

fn csv_json(rows: Vec<Vec<String>>) -> Json {
    Json::Array(
        rows.into_iter()
            .map(|r| Json::Array(r.into_iter().map(Json::String).collect()))
            .collect(),
    )
}

fn read_silent(ctx: &CallCtx<'_>, path: &str) -> Result<String, FnFail> {
    ctx.host
        .read_file(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .ok_or(FnFail)
}

fn readcsv(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let text = read_silent(ctx, a[0].text())?;
    Ok(Value::Data(csv_json(parse_csv(&text))))
}

/// `KEY=value` lines (quotes removed, comments and lines without `=` skipped) into an object.
pub fn parse_env(text: &str) -> Json {
    let mut m = Map::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let Some((k, v)) = t.split_once('=') else {
            continue;
        };
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|x| x.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
            .unwrap_or(v);
        m.insert(k.trim().to_string(), Json::String(v.to_string()));
    }
    Json::Object(m)
}

fn readenvfile(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let text = read_silent(ctx, a[0].text())?;
    Ok(Value::Data(parse_env(&text)))
}

fn readdata(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let path = a[0].text();
    let mut kind = a[1].text().to_string();
    if kind == "auto" {
        kind = if path.ends_with(".csv") {
            "CSV"
        } else if path.ends_with(".env") {
            "ENV"
        } else if path.ends_with(".yaml") || path.ends_with(".yml") {
            "YAML"
        } else {
            "JSON"
        }
        .into();
    }
    match kind.as_str() {
        "CSV" => Ok(Value::Data(csv_json(parse_csv(&read_silent(ctx, path)?)))),
        "ENV" => Ok(Value::Data(parse_env(&read_silent(ctx, path)?))),
        "JSON" => Ok(Value::Data(read_json(ctx, "readdata", path)?)),
        "YAML" => Ok(Value::Data(read_yaml(ctx, "readdata", path)?)),
        _ => Err(ctx.fail(format!(
            "readdata: data format '{kind}' is not supported by cfsim"
        ))),
    }
}

/// Removes every match of the comment regex.
fn strip_comments(re: Option<&Re>, text: &str) -> String {
    match re {
        Some(re) => {
            String::from_utf8_lossy(&re.plain().replace_all(text.as_bytes(), &b""[..])).into_owned()
        }
        None => text.to_string(),
    }
}

fn comment_re(ctx: &mut CallCtx<'_>, s: &str) -> Result<Option<Re>, FnFail> {
    if s.is_empty() {
        Ok(None)
    } else {
        regex(ctx, s).map(Some)
    }
}

/// Tokens of a file for the read*list functions.
fn tokens(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> Result<Vec<String>, FnFail> {
    let text = read(ctx, a[0].text(), int_arg(&a[4]))?;
    let comment = comment_re(ctx, a[1].text())?;
    let split = regex(ctx, a[2].text())?;
    let text = strip_comments(comment.as_ref(), &text);
    let max = int_arg(&a[3]).max(0) as usize;
    Ok(split
        .plain()
        .split(text.as_bytes())
        .map(|t| String::from_utf8_lossy(t).into_owned())
        .filter(|t| !t.is_empty())
        .take(max)
        .collect())
}

fn readstringlist(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::slist(tokens(ctx, a)?))
}

fn numeric_list(ctx: &mut CallCtx<'_>, a: &[FnArg], kind: ListKind) -> FnResult {
    let toks = tokens(ctx, a)?;
    // as the agent's ReadList: every item is read with IntFromString / DoubleFromString (their own
    // error lines: "Anomalous ending 'ab' while parsing integer number: 12abc", …), each unreadable one
    // is named, and the call fails when any was (recorded: eval/iteration/read_number_lists)
    let what = if kind == ListKind::Ilist {
        "int"
    } else {
        "real"
    };
    let mut ok = true;
    for t in &toks {
        let mut log = Vec::new();
        let readable = if kind == ListKind::Ilist {
            crate::syntax::check::numbers::int_from_string(t, &mut log).is_some()
        } else {
            crate::syntax::check::numbers::double_from_string(t, &mut log).is_some()
        };
        for line in log {
            ctx.error(line);
        }
        if !readable {
            ok = false;
            ctx.error(format!(
                "Presumed {what} value '{t}' read from file '{}' has no recognizable value",
                a[0].text()
            ));
        }
    }
    if !ok {
        return Err(FnFail);
    }
    Ok(Value::List(kind, toks))
}

fn readintlist(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    numeric_list(ctx, a, ListKind::Ilist)
}

fn readreallist(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    numeric_list(ctx, a, ListKind::Rlist)
}

/// Rows of fields after comment removal: blank lines skipped, at most `max` rows.
fn rows(
    ctx: &mut CallCtx<'_>,
    text: &str,
    comment: &str,
    split: &str,
    max: i64,
) -> Result<Vec<Vec<String>>, FnFail> {
    let comment = comment_re(ctx, comment)?;
    let split = regex(ctx, split)?;
    let text = strip_comments(comment.as_ref(), text);
    Ok(text
        .split('\n')
        .filter(|l| !l.is_empty())
        .take(max.max(0) as usize)
        .map(|l| split_fields(split.plain(), l.as_bytes()))
        .collect())
}

/// A line split into fields as the agent's `RlistFromSplitRegex` (blanks allowed) splits it: the
/// regex is matched from the rest of the line; a match ending where the rest starts (an empty match,
/// as `""` or `x*` give before anything else) ends the splitting, and the rest is the last field (so
/// `"abc"` split by `""` is one field `abc`, where a plain regex split gives `""`, `a`, `b`, `c`, `""`).
fn split_fields(re: &crate::pcre::Regex, line: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(m) = re.find_at(rest, 0) {
        if m.end() == 0 {
            break;
        }
        out.push(String::from_utf8_lossy(rest.get(..m.start()).unwrap_or(b"")).into_owned());
        rest = rest.get(m.end()..).unwrap_or(b"");
    }
    // the rest, unless the line was empty and never split
    if !rest.is_empty() || rest.len() != line.len() {
        out.push(String::from_utf8_lossy(rest).into_owned());
    }
    out
}

/// Defines `arr[key][i]` for every row (key = first field, or the row index) and returns the count.
fn define_array(
    ctx: &mut CallCtx<'_>,
    name: &str,
    rows: Vec<Vec<String>>,
    idx: bool,
    kind: ListKind,
) -> FnResult {
    let r = crate::expr::VarRef::parse(name);
    let (ns, scope) = r.resolve_scope(&*ctx.env);
    let n = rows.len();
    for (i, row) in rows.into_iter().enumerate() {
        // as the agent's BuildLineArray: an int field is read with IntFromString and stored as the
        // number it reads ("10k" is 10000, "50%" -50, "12x" 12; the key too), a real field is read with
        // DoubleFromString and kept as written; a field either cannot read is fatal, after the
        // reader's own line (recorded: eval/iteration/read_number_arrays, functions/fatal/*array_bad)
        let mut fields = Vec::with_capacity(row.len());
        for f in row {
            let mut log = Vec::new();
            let field = match kind {
                ListKind::Ilist => crate::syntax::check::numbers::int_from_string(&f, &mut log)
                    .map(|v| v.to_string()),
                ListKind::Rlist => {
                    crate::syntax::check::numbers::double_from_string(&f, &mut log).map(|_| f)
                }
                _ => Some(f),
            };
            for line in log {
                ctx.error(line);
            }
            match field {
                Some(f) => fields.push(f),
                None => {
                    let what = if kind == ListKind::Ilist {
                        "int"
                    } else {
                        "double"
                    };
                    return Err(ctx.fail(format!(
                        "Fatal CFEngine error: Could not convert token to {what}"
                    )));
                }
            }
        }
        let key = if idx {
            i.to_string()
        } else {
            fields.first().cloned().unwrap_or_default()
        };
        for (j, f) in fields.into_iter().enumerate() {
            let lval = format!("{}[{key}][{j}]", r.lval());
            ctx.env
                .define_function_var(&ns, &scope, &lval, Value::str(f), "buildlinearray");
        }
    }
    Ok(Value::int(n as i64))
}

fn read_array(ctx: &mut CallCtx<'_>, a: &[FnArg], idx: bool, kind: ListKind) -> FnResult {
    // an unreadable file is logged and gives 0 entries: the call succeeds (recorded)
    let Ok(text) = read(ctx, a[1].text(), int_arg(&a[5])) else {
        return Ok(Value::int(0));
    };
    let rows = rows(ctx, &text, a[2].text(), a[3].text(), int_arg(&a[4]))?;
    define_array(ctx, a[0].text(), rows, idx, kind)
}

fn parse_array(ctx: &mut CallCtx<'_>, a: &[FnArg], idx: bool, kind: ListKind) -> FnResult {
    let max_bytes = int_arg(&a[5]).max(0) as usize;
    let text: String = a[1]
        .text()
        .bytes()
        .take(max_bytes)
        .map(char::from)
        .collect();
    let text = if a[1].text().is_ascii() {
        text
    } else {
        a[1].text().to_string()
    };
    let rows = rows(ctx, &text, a[2].text(), a[3].text(), int_arg(&a[4]))?;
    define_array(ctx, a[0].text(), rows, idx, kind)
}

fn readstringarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    read_array(ctx, a, false, ListKind::Slist)
}
fn readstringarrayidx(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    read_array(ctx, a, true, ListKind::Slist)
}
fn readintarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    read_array(ctx, a, false, ListKind::Ilist)
}
fn readrealarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    read_array(ctx, a, false, ListKind::Rlist)
}
fn parsestringarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    parse_array(ctx, a, false, ListKind::Slist)
}
fn parsestringarrayidx(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    parse_array(ctx, a, true, ListKind::Slist)
}
fn parseintarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    parse_array(ctx, a, false, ListKind::Ilist)
}
fn parserealarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    parse_array(ctx, a, false, ListKind::Rlist)
}

fn data_rows(ctx: &mut CallCtx<'_>, fname: &str, a: &[FnArg]) -> Result<Vec<Vec<String>>, FnFail> {
    let Ok(text) = read(ctx, a[0].text(), int_arg(&a[4])) else {
        return Err(ctx.fail(format!(
            "{fname}: error reading from file '{}'",
            a[0].text()
        )));
    };
    rows(ctx, &text, a[1].text(), a[2].text(), int_arg(&a[3]))
}

fn data_readstringarray(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mut m = Map::new();
    for row in data_rows(ctx, "data_readstringarray", a)? {
        let mut it = row.into_iter();
        let Some(key) = it.next() else { continue };
        m.insert(key, Json::Array(it.map(Json::String).collect()));
    }
    Ok(Value::Data(Json::Object(m)))
}

fn data_readstringarrayidx(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let rows = data_rows(ctx, "data_readstringarrayidx", a)?;
    Ok(Value::Data(csv_json(rows)))
}

fn lines_of(ctx: &CallCtx<'_>, path: &str) -> Option<Vec<String>> {
    let b = ctx.host.read_file(path)?;
    let text = String::from_utf8_lossy(&b).into_owned();
    Some(text.lines().map(str::to_string).collect())
}

fn regline(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[0].text())?;
    let lines = lines_of(ctx, a[1].text()).unwrap_or_default();
    Ok(Value::context(lines.iter().any(|l| full_match(&re, l))))
}

fn countlinesmatching(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[0].text())?;
    let path = a[1].text();
    let Some(lines) = lines_of(ctx, path) else {
        ctx.error(format!(
            "File '{path}' could not be read in countlinesmatching(). (fopen: No such file or directory)"
        ));
        return Ok(Value::int(0));
    };
    Ok(Value::int(
        lines.iter().filter(|l| full_match(&re, l)).count() as i64,
    ))
}

fn getfields(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let re = regex(ctx, a[0].text())?;
    let lines = lines_of(ctx, a[1].text()).unwrap_or_default();
    let sep = a[2].text();
    let r = crate::expr::VarRef::parse(a[3].text());
    let (ns, scope) = r.resolve_scope(&*ctx.env);
    let mut count = 0;
    for l in &lines {
        if !full_match(&re, l) {
            continue;
        }
        if count == 0 {
            for (i, f) in l.split(sep).enumerate() {
                let lval = format!("{}[{}]", r.lval(), i + 1);
                ctx.env
                    .define_function_var(&ns, &scope, &lval, Value::str(f), "getfields");
            }
        }
        count += 1;
    }
    Ok(Value::int(count))
}
