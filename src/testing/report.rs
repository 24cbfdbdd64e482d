//! Writing test results: a human summary (with expected/actual per failure and the spec line), TAP
//! version 13, JUnit XML (the schema CI servers read) and JSON.

use serde_json::json;

use super::run::{CaseResult, Directive};
use super::snapshot::Verdict;

/// Output format of `cfsim test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Tap,
    Junit,
    Json,
}

impl Format {
    /// Parses `human|tap|junit|json`.
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "human" => Format::Human,
            "tap" => Format::Tap,
            "junit" => Format::Junit,
            "json" => Format::Json,
            _ => return None,
        })
    }
}

fn title(r: &CaseResult) -> String {
    format!("{}: {} [{}]", r.case.spec, r.case.name, r.case.host.label)
}

/// The closing line: `N passed, N failed`.
pub fn totals(results: &[CaseResult]) -> String {
    let passed = results.iter().filter(|r| r.passed()).count();
    format!("{passed} passed, {} failed", results.len() - passed)
}

/// Human-readable report.
pub fn human(results: &[CaseResult]) -> String {
    let mut s = String::new();
    for r in results {
        match &r.directive {
            Some(Directive::Skip(m)) => {
                s.push_str(&format!("skip {}: {m}\n", title(r)));
                continue;
            }
            Some(Directive::Todo(m)) => {
                s.push_str(&format!("todo {}: {m}\n", title(r)));
                continue;
            }
            None => {}
        }
        if r.passed() {
            s.push_str(&format!("ok   {}\n", title(r)));
            continue;
        }
        s.push_str(&format!("FAIL {}\n", title(r)));
        if let Some(e) = &r.error {
            for l in e.lines() {
                s.push_str(&format!("       {l}\n"));
            }
        }
        for f in &r.failures {
            s.push_str(&format!("     {}:{}: {}\n", r.case.spec, f.line, f.message));
            s.push_str(&format!("       - expected: {}\n", f.expected));
            s.push_str(&format!("       + actual:   {}\n", f.actual));
            for l in f.detail.iter().flat_map(|d| d.lines()) {
                s.push_str(&format!("       {l}\n"));
            }
        }
    }
    s.push_str(&totals(results));
    let written = results
        .iter()
        .filter(|r| matches!(r.snapshot, Some(Verdict::Written(_))))
        .count();
    if written > 0 {
        s.push_str(&format!(", {written} snapshots written"));
    }
    s.push('\n');
    s
}

fn yaml_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// TAP version 13, with a YAML diagnostic block per failure.
pub fn tap(results: &[CaseResult]) -> String {
    let mut s = format!("TAP version 13\n1..{}\n", results.len());
    for (i, r) in results.iter().enumerate() {
        let name = title(r).replace('#', "\\#");
        let directive = match &r.directive {
            Some(Directive::Skip(m)) => format!(" # SKIP {m}"),
            Some(Directive::Todo(m)) => format!(" # TODO {m}"),
            None => String::new(),
        };
        if r.passed() {
            s.push_str(&format!("ok {} - {name}{directive}\n", i + 1));
            continue;
        }
        s.push_str(&format!("not ok {} - {name}\n  ---\n", i + 1));
        if let Some(e) = &r.error {
            s.push_str(&format!("  message: {}\n", yaml_str(e)));
        }
        if !r.failures.is_empty() {
            s.push_str("  failures:\n");
            for f in &r.failures {
                s.push_str(&format!(
                    "    - at: {}\n      message: {}\n      expected: {}\n      actual: {}\n",
                    yaml_str(&format!("{}:{}", r.case.spec, f.line)),
                    yaml_str(&f.message),
                    yaml_str(&f.expected),
                    yaml_str(&f.actual)
                ));
                if let Some(d) = &f.detail {
                    s.push_str(&format!("      diff: {}\n", yaml_str(d)));
                }
            }
        }
        s.push_str("  ...\n");
    }
    s
}

fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' && c != '\r' => {
                o.push_str(&format!("&#x{:x};", c as u32));
            }
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: one `testsuite` per spec file, one `testcase` per case.
pub fn junit(results: &[CaseResult]) -> String {
    let mut suites: Vec<(&str, Vec<&CaseResult>)> = Vec::new();
    for r in results {
        match suites.iter_mut().find(|(s, _)| *s == r.case.spec) {
            Some((_, v)) => v.push(r),
            None => suites.push((&r.case.spec, vec![r])),
        }
    }
    let failed = results
        .iter()
        .filter(|r| !r.passed() && r.error.is_none())
        .count();
    let errors = results.iter().filter(|r| r.error.is_some()).count();
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cfsim test\" tests=\"{}\" failures=\"{failed}\" errors=\"{errors}\">\n",
        results.len()
    );
    for (name, rs) in suites {
        let f = rs
            .iter()
            .filter(|r| !r.passed() && r.error.is_none())
            .count();
        let e = rs.iter().filter(|r| r.error.is_some()).count();
        s.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\" skipped=\"{}\">\n",
            xml(name),
            rs.len(),
            rs.iter().filter(|r| r.directive.is_some()).count()
        ));
        for r in rs {
            s.push_str(&format!(
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml(name),
                xml(&format!("{} [{}]", r.case.name, r.case.host.label))
            ));
            if let Some(Directive::Skip(m) | Directive::Todo(m)) = &r.directive {
                s.push_str(&format!(
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                    xml(m)
                ));
                continue;
            }
            if r.passed() {
                s.push_str("/>\n");
                continue;
            }
            s.push_str(">\n");
            if let Some(err) = &r.error {
                let first = err.lines().next().unwrap_or("");
                s.push_str(&format!(
                    "      <error message=\"{}\">{}</error>\n",
                    xml(first),
                    xml(err)
                ));
            } else {
                let msg = r
                    .failures
                    .iter()
                    .map(|f| f.message.as_str())
                    .collect::<Vec<_>>()
                    .join("; ");
                let body: String = r
                    .failures
                    .iter()
                    .map(|f| {
                        format!(
                            "{}:{}: {}\n  expected: {}\n  actual:   {}\n{}",
                            r.case.spec,
                            f.line,
                            f.message,
                            f.expected,
                            f.actual,
                            f.detail.as_deref().unwrap_or("")
                        )
                    })
                    .collect();
                s.push_str(&format!(
                    "      <failure message=\"{}\" type=\"expectation\">{}</failure>\n",
                    xml(&msg),
                    xml(&body)
                ));
            }
            s.push_str("    </testcase>\n");
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}

/// JSON: `{"version":1,"passed":N,"failed":N,"cases":[…]}`.
pub fn json_report(results: &[CaseResult]) -> String {
    let cases: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            json!({
                "spec": r.case.spec,
                "line": r.case.line,
                "name": r.case.name,
                "host": r.case.host.label,
                "profile": r.case.host.profile,
                "passed": r.passed(),
                "checked": r.checked,
                "error": r.error,
                "failures": r.failures.iter().map(|f| json!({
                    "line": f.line, "message": f.message, "expected": f.expected, "actual": f.actual,
                    "detail": f.detail,
                })).collect::<Vec<_>>(),
                "directive": match &r.directive {
                    Some(Directive::Skip(m)) => json!({"skip": m}),
                    Some(Directive::Todo(m)) => json!({"todo": m}),
                    None => json!(null),
                },
                "snapshot": r.snapshot.as_ref().map(|v| match v {
                    Verdict::Same => "same",
                    Verdict::Written(_) => "written",
                    Verdict::Missing { .. } => "missing",
                    Verdict::Differs { .. } => "differs",
                    Verdict::Error(_) => "error",
                }),
            })
        })
        .collect();
    let passed = results.iter().filter(|r| r.passed()).count();
    let v = json!({
        "version": 1,
        "passed": passed,
        "failed": results.len() - passed,
        "cases": cases,
    });
    format!("{v}\n")
}

/// The report in `format`.
pub fn render(results: &[CaseResult], format: Format) -> String {
    match format {
        Format::Human => human(results),
        Format::Tap => tap(results),
        Format::Junit => junit(results),
        Format::Json => json_report(results),
    }
}
