//! The HTML timeline of a run (`cfsim agent --timeline PATH.html`): turns the trace events of one run
//! into one self-contained page (inline CSS and JavaScript, no network, works from `file://`) that
//! draws bundles in call order × stages and passes × promise types in normal order, one cell per
//! evaluation coloured by outcome; the page itself (layout, virtual scrolling, details, search, class
//! growth) is `page.js`/`page.css` beside this file.
//!
//! The embedded data is one JSON object, compact and deterministic for the same run (key order,
//! strings numbered by first appearance, no timestamps):
//! - `version` (int, [`TIMELINE_VERSION`]), `tool`, `policy`, `host`, `exit_code`, `trace_version`;
//! - `normal_order` (list of strings): the promise types in normal order;
//! - `strings` (list of strings): every string the events name, each once;
//! - `rows` (list of lists of string indices): the call paths (`ns:bundle` each) in order of first
//!   appearance; the bundle of a row is its last element;
//! - `events` (list): one array per trace event, in trace order (the event's `seq` is its index + 1):
//!   `[row, stage, pass, promise_type, promiser, file, line, iteration, handle, guard, guard_value,
//!   skip, outcome, classes_set, classes_cancelled, vars_set, written]` where strings are indices into
//!   `strings`, `-1` stands for null, `guard_value` is 0 or 1, the three lists are lists of indices and
//!   `written` (the promiser as written) is `-1` when equal to the expanded promiser. Trailing fields
//!   that are empty (`[]`) or null (`-1`) are left out.
//!
//! The JSON is embedded in a `<script type="application/json">` element with every `<` written as
//! `\u003c`, so neither `</script>` nor `<!--` can occur in it whatever the policy text says; the page
//! reads it with `JSON.parse` and puts policy text into the document only as text (`textContent`).

use crate::eval::runner::NORMAL_ORDER;
use crate::eval::trace::{TraceEvent, TRACE_VERSION};
use crate::fasthash::FastIndexMap;

/// Version of the embedded data format (`version` of the JSON object).
pub const TIMELINE_VERSION: u32 = 1;

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// What the page says about the run besides its events.
#[derive(Debug, Clone, Copy)]
pub struct RunInfo<'a> {
    /// The entry policy file, as given.
    pub policy: &'a str,
    /// The host's name.
    pub host: &'a str,
    /// The exit code of `cfsim agent`.
    pub exit_code: u8,
}

/// Strings numbered by first appearance.
#[derive(Default)]
struct Strings<'a> {
    map: FastIndexMap<&'a str, ()>,
}

impl<'a> Strings<'a> {
    fn id(&mut self, s: &'a str) -> usize {
        self.map.insert_full(s, ()).0
    }
}

/// Appends `s` as a JSON string with `<` written as `\u003c` (and the other characters JSON requires
/// escaped), so the text is safe inside a `<script>` element.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            '<' => Some("\\u003c"),
            '>' => Some("\\u003e"),
            '&' => Some("\\u0026"),
            '\u{2028}' => Some("\\u2028"),
            '\u{2029}' => Some("\\u2029"),
            c if (c as u32) < 0x20 => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
        start = i + c.len_utf8();
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The index of `x` in `s`.
fn s_id<'b>(s: &mut Strings<'b>, x: &'b str) -> i64 {
    i64::try_from(s.id(x)).unwrap_or(-1)
}

/// The index of `v` in `s`, or -1 for `None`.
fn s_opt<'b>(s: &mut Strings<'b>, v: &'b Option<String>) -> i64 {
    v.as_deref().map_or(-1, |x| s_id(s, x))
}

/// Appends `n` in decimal.
fn push_num(out: &mut String, n: i64) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}

/// Text for HTML element content and attribute values.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The embedded data (see the module docs) as JSON text, safe inside `<script>`.
pub fn data_json(events: &[TraceEvent], info: &RunInfo<'_>) -> String {
    let mut strings = Strings::default();
    let mut rows: FastIndexMap<Vec<usize>, ()> = FastIndexMap::default();
    let mut body = String::with_capacity(events.len() * 48);
    for (i, e) in events.iter().enumerate() {
        let mut path: Vec<usize> = e.call_path.iter().map(|b| strings.id(b)).collect();
        if e.call_path.last() != Some(&e.bundle) {
            path.push(strings.id(&e.bundle));
        }
        let row = rows.insert_full(path, ()).0;
        let mut f: Vec<i64> = vec![
            i64::try_from(row).unwrap_or(-1),
            s_id(&mut strings, &e.stage),
            i64::from(e.pass),
            s_id(&mut strings, &e.promise_type),
            s_id(&mut strings, &e.promiser),
            s_id(&mut strings, &e.file),
            i64::try_from(e.line).unwrap_or(0),
            i64::try_from(e.iteration).unwrap_or(0),
            s_opt(&mut strings, &e.handle),
            s_id(&mut strings, &e.guard),
            i64::from(e.guard_value),
            s_opt(&mut strings, &e.skip),
            s_opt(&mut strings, &e.outcome),
        ];
        let lists: [Vec<i64>; 3] = [
            e.classes_set
                .iter()
                .map(|c| s_id(&mut strings, c))
                .collect(),
            e.classes_cancelled
                .iter()
                .map(|c| s_id(&mut strings, c))
                .collect(),
            e.vars_set.iter().map(|v| s_id(&mut strings, v)).collect(),
        ];
        let written = if e.written == e.promiser || e.written.is_empty() {
            -1
        } else {
            s_id(&mut strings, &e.written)
        };
        // how many of the optional trailing fields (3 lists, written) to keep
        let keep = if written >= 0 {
            4
        } else {
            lists
                .iter()
                .rposition(|l| !l.is_empty())
                .map_or(0, |p| p + 1)
        };
        // nulls at the end of the fixed part go too when nothing follows
        if keep == 0 {
            while f.len() > 11 && f.last() == Some(&-1) {
                f.pop();
            }
        }
        if i > 0 {
            body.push(',');
        }
        body.push('[');
        for (k, n) in f.iter().enumerate() {
            if k > 0 {
                body.push(',');
            }
            push_num(&mut body, *n);
        }
        for l in lists.iter().take(keep.min(3)) {
            body.push_str(",[");
            for (k, n) in l.iter().enumerate() {
                if k > 0 {
                    body.push(',');
                }
                push_num(&mut body, *n);
            }
            body.push(']');
        }
        if keep == 4 {
            body.push(',');
            push_num(&mut body, written);
        }
        body.push(']');
    }
    let mut out = String::with_capacity(body.len() + strings.map.len() * 24 + 1024);
    out.push_str("{\"version\":");
    push_num(&mut out, i64::from(TIMELINE_VERSION));
    out.push_str(",\"tool\":");
    push_json_str(&mut out, concat!("cfsim ", env!("CARGO_PKG_VERSION")));
    out.push_str(",\"policy\":");
    push_json_str(&mut out, info.policy);
    out.push_str(",\"host\":");
    push_json_str(&mut out, info.host);
    out.push_str(",\"exit_code\":");
    push_num(&mut out, i64::from(info.exit_code));
    out.push_str(",\"trace_version\":");
    push_num(&mut out, i64::from(TRACE_VERSION));
    out.push_str(",\"normal_order\":[");
    for (k, t) in NORMAL_ORDER.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        push_json_str(&mut out, t);
    }
    out.push_str("],\"strings\":[");
    for (k, s) in strings.map.keys().enumerate() {
        if k > 0 {
            out.push(',');
        }
        push_json_str(&mut out, s);
    }
    out.push_str("],\"rows\":[");
    for (k, r) in rows.keys().enumerate() {
        if k > 0 {
            out.push(',');
        }
        out.push('[');
        for (j, n) in r.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            push_num(&mut out, i64::try_from(*n).unwrap_or(-1));
        }
        out.push(']');
    }
    out.push_str("],\"events\":[");
    out.push_str(&body);
    out.push_str("]}");
    out
}

/// The whole page for the trace `events` of one run.
pub fn render(events: &[TraceEvent], info: &RunInfo<'_>) -> String {
    let data = data_json(events, info);
    let title = html_escape(&format!("cfsim timeline: {} on {}", info.policy, info.host));
    let mut out = String::with_capacity(data.len() + CSS.len() + JS.len() + 4096);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // no network: the page may load nothing from anywhere (scripts and styles are inline)
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n",
    );
    out.push_str("<title>");
    out.push_str(&title);
    out.push_str("</title>\n<style>\n");
    out.push_str(CSS);
    out.push_str("</style>\n</head>\n<body>\n");
    out.push_str(BODY);
    out.push_str("<script type=\"application/json\" id=\"cfsim-data\">");
    out.push_str(&data);
    out.push_str("</script>\n<script>\n");
    out.push_str(JS);
    out.push_str("</script>\n</body>\n</html>\n");
    out
}

/// The page's static skeleton; `page.js` fills it from the data.
const BODY: &str = r#"<header id="top">
<div id="title-line"><h1 id="title">cfsim timeline</h1><span id="summary"></span></div>
<div id="controls">
<label for="search">Class or variable</label>
<input id="search" type="search" list="names" placeholder="e.g. debian, sys.fqhost, my_class" autocomplete="off" spellcheck="false">
<datalist id="names"></datalist>
<button id="prev" type="button" title="Previous match">&#9664;</button>
<button id="next" type="button" title="Next match">&#9654;</button>
<label><input id="only" type="checkbox"> only bundles with matches</label>
<span id="search-result" aria-live="polite"></span>
</div>
<div id="legend"></div>
<div id="growth"></div>
</header>
<main id="main">
<div id="scroller" tabindex="0"><div id="colhead"></div><div id="canvas"></div></div>
<aside id="side">
<section id="details"><h2>Evaluation</h2><p class="hint">Click a cell to see that evaluation of a promise.</p></section>
<section id="steps"></section>
</aside>
</main>
<noscript><p>The timeline needs JavaScript to draw its cells.</p></noscript>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn event(promiser: &str) -> TraceEvent {
        TraceEvent {
            seq: 1,
            call_path: vec!["default:main".into()],
            bundle: "default:main".into(),
            stage: "pass".into(),
            pass: 1,
            promise_type: "reports".into(),
            promiser: promiser.into(),
            written: promiser.into(),
            file: "./p.cf".into(),
            line: 3,
            iteration: 1,
            guard: "any".into(),
            guard_value: true,
            outcome: Some("kept".into()),
            ..TraceEvent::default()
        }
    }

    #[test]
    fn policy_text_cannot_close_the_script() {
        let info = RunInfo {
            policy: "</script><script>alert(1)</script>",
            host: "h<!--",
            exit_code: 0,
        };
        let page = render(&[event("</script><!-- <script>x")], &info);
        let start = page.find("id=\"cfsim-data\">").unwrap_or(0);
        let data = &page[start..];
        let end = data.find("</script>").unwrap_or(data.len());
        let json = &data["id=\"cfsim-data\">".len()..end];
        assert!(!json.contains('<'), "{json}");
        let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
        let strings = v["strings"].as_array().cloned().unwrap_or_default();
        assert!(
            strings.iter().any(|s| s == "</script><!-- <script>x"),
            "{strings:?}"
        );
        assert_eq!(v["policy"], "</script><script>alert(1)</script>");
        assert!(page.contains("<title>cfsim timeline: &lt;/script&gt;"));
    }

    #[test]
    fn compact_events_leave_out_empty_tails() {
        let info = RunInfo {
            policy: "p.cf",
            host: "h",
            exit_code: 0,
        };
        let mut skipped = event("x");
        skipped.outcome = None;
        skipped.skip = Some("guard".into());
        skipped.guard = "linux".into();
        skipped.guard_value = false;
        let mut set = event("y");
        set.classes_set = vec!["c".into()];
        set.written = "$(v)".into();
        let json = data_json(&[event("x"), skipped, set], &info);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        let ev = v["events"].as_array().cloned().unwrap_or_default();
        assert_eq!(ev.len(), 3);
        assert_eq!(ev[0].as_array().map(Vec::len), Some(13));
        assert_eq!(ev[1].as_array().map(Vec::len), Some(12));
        assert_eq!(ev[2].as_array().map(Vec::len), Some(17));
        assert_eq!(v["rows"], serde_json::json!([[0]]));
        assert_eq!(
            data_json(&[event("x")], &info),
            data_json(&[event("x")], &info)
        );
    }
}
