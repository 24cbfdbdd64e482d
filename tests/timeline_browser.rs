//! `cfsim agent --timeline PATH.html` in a real browser: headless Chromium (Debian's `chromium`, driven
//! over the DevTools protocol by the `headless_chrome` crate) loads the timeline of several runs (two
//! small policies of the eval corpus, the hENC demo on a profile, the masterfiles on a profile) from
//! `file://` and the test checks, against the same run's `--trace-file`:
//! - every trace event is one cell, with the outcome category the trace implies (the page draws rows
//!   lazily: the test scrolls through it and collects the cells drawn at each position), and the
//!   scroll handler draws the last rows when the page is scrolled to its end;
//! - clicking a cell shows that evaluation's details (promiser, file:line, guard, classes set);
//! - the search box finds where a class is defined (the trace's count) and highlights it;
//! - the page logs no console error and throws no exception (recorded by a hook the test installs in
//!   the page before its scripts run, and by the protocol's events; probes check both kinds are seen);
//! - Enter in the search box selects the first match, then the next;
//! - the file is byte-identical for two runs.
//!
//! It prints the cells checked, the file size and the load time (navigation start to the load event)
//! per run; benches/timeline.sh reads those lines. With `CFSIM_TIMELINE_SCREENSHOT=PATH` it also writes
//! a PNG of the small run (docs/timeline.png is made that way).
//!
//! Without Chromium the test is skipped with a note, unless CI=true (then it fails); the masterfiles
//! case likewise needs /usr/share/cfengine3/masterfiles (installed with cfengine3 by .ci/run).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::Page;
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;

const MASTERFILES: &str = "/usr/share/cfengine3/masterfiles/promises.cf";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The Chromium binary: the real one under /usr/lib (so the process the driver starts, and kills when
/// it is dropped, is the browser itself, not Debian's wrapper script), else `chromium` on PATH.
fn chromium() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("CFSIM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let real = PathBuf::from("/usr/lib/chromium/chromium");
    if real.is_file() {
        return Some(real);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
            .find(|p| p.is_file())
    })
}

struct Case {
    name: &'static str,
    /// working directory of the run
    dir: PathBuf,
    /// `-f` as given
    file: String,
    host: PathBuf,
}

fn cases() -> Vec<Case> {
    let hosts = root().join("policies/hosts");
    let mut v = vec![
        // the screenshot's run (docs/timeline.png): the lesson on vars evaluated again after classes
        Case {
            name: "lesson-vars-reevaluated",
            dir: root().join("policies/lessons"),
            file: "./03_vars_reevaluated.cf".into(),
            host: hosts.join("web1-oslo-debian.json"),
        },
        Case {
            name: "lesson-common-reevaluation",
            dir: root().join("policies/lessons"),
            file: "./09_common_reevaluation.cf".into(),
            host: hosts.join("web1-oslo-debian.json"),
        },
        // a common bundle re-evaluated through methods (the hENC pitfall's fix)
        Case {
            name: "eval-common-bundle-called",
            dir: root().join("policies/eval/methods"),
            file: "./common_bundle_called.cf".into(),
            host: hosts.join("web1-oslo-debian.json"),
        },
        Case {
            name: "eval-class-chain",
            dir: root().join("policies/eval/passes"),
            file: "./class_chain_three_passes.cf".into(),
            host: hosts.join("web1-oslo-debian.json"),
        },
        Case {
            name: "henc-demo",
            dir: root().join("policies/henc/demo"),
            file: "./promises.cf".into(),
            host: hosts.join("web1-oslo-debian.json"),
        },
    ];
    if Path::new(MASTERFILES).is_file() {
        v.push(Case {
            name: "masterfiles",
            dir: std::env::temp_dir(),
            file: MASTERFILES.into(),
            host: hosts.join("web1-oslo-debian.json"),
        });
    } else if ci() {
        panic!("{MASTERFILES} is required when CI=true (the cfengine3 package)");
    } else {
        eprintln!("note: {MASTERFILES} missing; the masterfiles timeline is not checked");
    }
    v
}

/// Runs `cfsim agent` with `--timeline` and `--trace-file`; returns the page and the trace.
fn run(case: &Case, tag: &str) -> (PathBuf, Vec<u8>, Vec<Value>) {
    let tmp = std::env::temp_dir();
    let base = format!("cfsim-timeline-{}-{}-{tag}", std::process::id(), case.name);
    let html = tmp.join(format!("{base}.html"));
    let jsonl = tmp.join(format!("{base}.jsonl"));
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .current_dir(&case.dir)
        .args(["agent", "-K", "-f", &case.file, "--host"])
        .arg(&case.host)
        .arg("--timeline")
        .arg(&html)
        .arg("--trace-file")
        .arg(&jsonl)
        .output()
        .unwrap();
    let page = std::fs::read(&html).unwrap_or_else(|e| {
        panic!(
            "{}: no timeline ({e}); exit {:?}, stdout: {}",
            case.name,
            out.status.code(),
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let trace: Vec<Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let _ = std::fs::remove_file(&jsonl);
    (html, page, trace)
}

/// The outcome category the page must show for a trace event (the legend's colours).
fn category(e: &Value) -> &'static str {
    let skip = e["skip"].as_str();
    match (e["outcome"].as_str(), skip) {
        (Some("failed"), _) => "failed",
        (_, Some("not_simulated")) => "not_simulated",
        (_, Some("guard")) => "guard",
        (_, Some(_)) => "skipped",
        (Some("repaired"), None) => "repaired",
        (Some("kept"), None) => "kept",
        _ => "none",
    }
}

fn eval(tab: &Tab, js: &str) -> Value {
    let r = tab
        .evaluate(js, false)
        .unwrap_or_else(|e| panic!("evaluate {js}: {e}"));
    r.value.unwrap_or(Value::Null)
}

/// Polls `js` until it is true (or panics after `secs`).
fn wait_true(tab: &Tab, js: &str, secs: u64) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(secs) {
        if eval(tab, js) == Value::Bool(true) {
            return;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("timed out waiting for {js}");
}

/// Scrolls the page from top to bottom, collecting every cell drawn (seq -> category).
const COLLECT: &str = r#"(() => {
  const s = document.getElementById('scroller');
  const seen = {};
  let y = 0;
  for (;;) {
    s.scrollTop = y;
    window.cfsimTimeline.render();
    for (const c of document.querySelectorAll('#canvas .cell')) seen[c.dataset.seq] = c.dataset.outcome;
    if (y >= s.scrollHeight) break;
    y += Math.max(100, Math.floor(s.clientHeight / 2));
  }
  s.scrollTop = 0;
  window.cfsimTimeline.render();
  return JSON.stringify(seen);
})()"#;

/// Class-expression tokens of a guard (what the page's search counts as a use of a class).
fn guard_tokens(g: &str) -> Vec<&str> {
    g.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|t| !t.is_empty())
        .collect()
}

fn bare(x: &str) -> &str {
    match x.split_once(':') {
        Some((ns, rest)) if ns.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => rest,
        _ => x,
    }
}

/// Installed in the page before its scripts: records uncaught errors (script errors included),
/// unhandled rejections, Content-Security-Policy violations (a blocked load) and console.error/assert.
const ERROR_HOOK: &str = r#"(() => {
  const errs = window.__cfsimErrors = [];
  const push = (m) => errs.push(String(m));
  window.addEventListener('error', (e) => push('error: ' + (e.message || e.type) + ' at ' + (e.filename || (e.target && e.target.src) || '') + ':' + (e.lineno || 0)), true);
  window.addEventListener('unhandledrejection', (e) => push('unhandled rejection: ' + e.reason));
  document.addEventListener('securitypolicyviolation', (e) => push('CSP: ' + e.violatedDirective + ' ' + e.blockedURI));
  const error = console.error.bind(console);
  console.error = (...a) => { push('console.error: ' + a.join(' ')); error(...a); };
  const assert = console.assert.bind(console);
  console.assert = (c, ...a) => { if (!c) push('console.assert: ' + a.join(' ')); assert(c, ...a); };
})()"#;

/// The errors seen so far: the protocol's events and the page's own record.
fn page_errors(tab: &Tab, events: &Mutex<Vec<String>>) -> Vec<String> {
    let mut all = events.lock().unwrap().clone();
    if let Some(v) = eval(
        tab,
        "JSON.stringify(window.__cfsimErrors || ['the error hook is missing'])",
    )
    .as_str()
    {
        let page: Vec<String> = serde_json::from_str(v).unwrap_or_default();
        all.extend(page);
    }
    all
}

fn check_case(browser: &Browser, case: &Case, screenshot: Option<&Path>) {
    let (html, page, trace) = run(case, "a");
    let (html2, page2, _) = run(case, "b");
    assert!(
        page == page2,
        "{}: two runs gave different timelines",
        case.name
    );
    let _ = std::fs::remove_file(&html2);
    assert!(!trace.is_empty(), "{}: empty trace", case.name);

    let tab = browser.new_tab().unwrap();
    let errors: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&errors);
    tab.add_event_listener(Arc::new(move |event: &Event| {
        let msg = match event {
            Event::RuntimeExceptionThrown(e) => Some(format!("exception: {:?}", e.params)),
            Event::RuntimeConsoleAPICalled(e) => {
                let t = format!("{:?}", e.params.Type).to_lowercase();
                (t.contains("error") || t.contains("assert"))
                    .then(|| format!("console: {:?}", e.params.args))
            }
            Event::LogEntryAdded(e) => {
                let l = format!("{:?}", e.params.entry.level).to_lowercase();
                l.contains("error")
                    .then(|| format!("log: {:?}", e.params.entry))
            }
            _ => None,
        };
        if let Some(m) = msg {
            sink.lock().unwrap().push(m);
        }
    }))
    .unwrap();
    tab.enable_runtime().unwrap();
    tab.enable_log().unwrap();
    // and in the page, before its own scripts run: the protocol events above depend on the driver
    // parsing what this Chromium sends (its console events were found not to arrive), this does not
    tab.call_method(Page::AddScriptToEvaluateOnNewDocument {
        source: ERROR_HOOK.to_string(),
        world_name: None,
        include_command_line_api: None,
        run_immediately: None,
    })
    .unwrap();
    let url = format!("file://{}", html.display());
    // (the driver's wait_until_navigated waits for network events a file:// page never sends: poll)
    tab.navigate_to(&url).unwrap();
    wait_true(
        &tab,
        "!!(window.cfsimTimeline && window.cfsimTimeline.ready) && document.readyState === 'complete'",
        30,
    );
    // the error collection sees what the page would log: an uncaught exception and a console.error
    eval(
        &tab,
        "setTimeout(() => { throw new Error('cfsim-probe-exception'); }, 0); console.error('cfsim-probe-console')",
    );
    let start = Instant::now();
    loop {
        let got = page_errors(&tab, &errors).join("\n");
        if got.contains("cfsim-probe-exception") && got.contains("cfsim-probe-console") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{}: the error listener missed the probes: {got}",
            case.name
        );
        std::thread::sleep(Duration::from_millis(25));
    }
    errors.lock().unwrap().clear();
    eval(&tab, "window.__cfsimErrors.length = 0");
    let load_ms = eval(
        &tab,
        "(() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; })()",
    )
    .as_f64()
    .unwrap_or(-1.0);

    // every event is one cell with its outcome
    assert_eq!(
        eval(&tab, "window.cfsimTimeline.events").as_u64(),
        Some(trace.len() as u64),
        "{}: events in the page",
        case.name
    );
    let seen: BTreeMap<String, String> =
        serde_json::from_str(eval(&tab, COLLECT).as_str().unwrap()).unwrap();
    assert_eq!(
        seen.len(),
        trace.len(),
        "{}: cells drawn vs trace events",
        case.name
    );
    let mut by_cat: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &trace {
        let seq = e["seq"].to_string();
        let want = category(e);
        assert_eq!(
            seen.get(&seq).map(String::as_str),
            Some(want),
            "{}: cell #{seq} ({} '{}' line {})",
            case.name,
            e["promise_type"],
            e["promiser"],
            e["line"]
        );
        *by_cat.entry(want).or_default() += 1;
    }
    // the legend's counts are the trace's
    for (cat, n) in &by_cat {
        let shown = eval(
            &tab,
            &format!("document.querySelector('#legend [data-cat=\"{cat}\"] small').textContent"),
        );
        assert_eq!(
            shown.as_str(),
            Some(n.to_string().as_str()),
            "{}: legend {cat}",
            case.name
        );
    }

    // scrolling (the page's own scroll handler) draws the last row: the call path seen last
    let mut first_of_path: BTreeMap<String, u64> = BTreeMap::new();
    for e in &trace {
        let mut key = e["call_path"].to_string();
        key.push_str(e["bundle"].as_str().unwrap_or(""));
        first_of_path
            .entry(key)
            .or_insert(e["seq"].as_u64().unwrap_or(0));
    }
    let last = first_of_path.values().copied().max().unwrap_or(1);
    eval(
        &tab,
        "(() => { const s = document.getElementById('scroller'); s.scrollTop = s.scrollHeight; })()",
    );
    wait_true(
        &tab,
        &format!("!!document.querySelector('#canvas .cell[data-seq=\"{last}\"]')"),
        10,
    );
    eval(&tab, "document.getElementById('scroller').scrollTop = 0");
    wait_true(
        &tab,
        "!!document.querySelector('#canvas .cell[data-seq=\"1\"]')",
        10,
    );

    // click a cell drawn at the top: one that set a class if there is one
    let drawn: Vec<u64> = serde_json::from_str(
        eval(
            &tab,
            "JSON.stringify(Array.from(document.querySelectorAll('#canvas .cell')).map(c => +c.dataset.seq))",
        )
        .as_str()
        .unwrap(),
    )
    .unwrap();
    let pick = drawn
        .iter()
        .copied()
        .find(|s| {
            trace[*s as usize - 1]["classes_set"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
        })
        .or_else(|| drawn.first().copied())
        .expect("a drawn cell");
    let e = &trace[pick as usize - 1];
    tab.find_element(&format!("#canvas .cell[data-seq=\"{pick}\"]"))
        .unwrap()
        .click()
        .unwrap();
    wait_true(
        &tab,
        &format!("document.getElementById('details').textContent.includes('Evaluation #{pick}')"),
        5,
    );
    let details = eval(&tab, "document.getElementById('details').textContent")
        .as_str()
        .unwrap()
        .to_string();
    let mut want = vec![
        e["promiser"].as_str().unwrap().to_string(),
        format!("{}:{}", e["file"].as_str().unwrap(), e["line"]),
        e["guard"].as_str().unwrap().to_string(),
        e["promise_type"].as_str().unwrap().to_string(),
    ];
    for k in ["classes_set", "vars_set"] {
        for n in e[k].as_array().unwrap() {
            want.push(n.as_str().unwrap().to_string());
        }
    }
    if let Some(s) = e["skip"].as_str() {
        want.push(s.to_string());
    }
    for w in &want {
        assert!(
            details.contains(w.as_str()),
            "{}: details of #{pick} lack {w:?}: {details}",
            case.name
        );
    }
    assert_eq!(
        eval(
            &tab,
            "document.querySelectorAll('#canvas .cell.sel').length"
        )
        .as_u64(),
        Some(1),
        "{}: the clicked cell is marked",
        case.name
    );

    // search a class (or a variable) the run defined: the page's count is the trace's
    let name = trace
        .iter()
        .find_map(|e| e["classes_set"].as_array().and_then(|a| a.first()).cloned())
        .or_else(|| {
            trace
                .iter()
                .find_map(|e| e["vars_set"].as_array().and_then(|a| a.first()).cloned())
        })
        .and_then(|v| v.as_str().map(str::to_string));
    if let Some(name) = name {
        let defined = trace
            .iter()
            .filter(|e| {
                ["classes_set", "classes_cancelled", "vars_set"]
                    .iter()
                    .flat_map(|k| e[*k].as_array().into_iter().flatten())
                    .filter_map(Value::as_str)
                    .any(|n| n == name || bare(n) == bare(&name))
            })
            .count();
        let guard_uses = trace
            .iter()
            .filter(|e| {
                guard_tokens(e["guard"].as_str().unwrap_or(""))
                    .iter()
                    .any(|t| bare(t) == bare(&name))
            })
            .count();
        tab.find_element("#search").unwrap().click().unwrap();
        tab.type_str(&name).unwrap();
        wait_true(
            &tab,
            &format!("document.getElementById('search-result').dataset.defined === '{defined}'"),
            10,
        );
        let used = eval(
            &tab,
            "+document.getElementById('search-result').dataset.used",
        )
        .as_u64()
        .unwrap_or(0) as usize;
        assert!(
            used + defined >= guard_uses,
            "{}: search {name}: {used} uses shown, the trace's guards use it {guard_uses} times",
            case.name
        );
        // Enter selects the first match (in evaluation order), then the next one
        let first_def = trace
            .iter()
            .find(|e| {
                ["classes_set", "classes_cancelled", "vars_set"]
                    .iter()
                    .flat_map(|k| e[*k].as_array().into_iter().flatten())
                    .filter_map(Value::as_str)
                    .any(|n| n == name || bare(n) == bare(&name))
            })
            .and_then(|e| e["seq"].as_u64())
            .unwrap_or(u64::MAX);
        let selected = |tab: &Tab| -> u64 {
            wait_true(
                tab,
                "document.querySelectorAll('#canvas .cell.hl-def.sel, #canvas .cell.hl-use.sel').length === 1",
                5,
            );
            let seq = eval(
                tab,
                "+document.querySelector('#canvas .cell.sel').dataset.seq",
            )
            .as_u64()
            .unwrap_or(0);
            wait_true(
                tab,
                &format!(
                    "document.querySelector('#details h2').textContent === 'Evaluation #{seq}'"
                ),
                5,
            );
            seq
        };
        tab.press_key("Enter").unwrap();
        let s1 = selected(&tab);
        assert!(
            s1 <= first_def,
            "{}: Enter selected #{s1}, not the first match (defined at #{first_def})",
            case.name
        );
        if used + defined >= 2 {
            tab.press_key("Enter").unwrap();
            wait_true(
                &tab,
                &format!("+document.querySelector('#canvas .cell.sel').dataset.seq > {s1}"),
                5,
            );
            selected(&tab);
        }
        assert!(
            eval(
                &tab,
                "document.querySelectorAll('#canvas .cell.hl-def').length"
            )
            .as_u64()
            .unwrap_or(0)
                >= 1,
            "{}: search {name}: no cell highlighted",
            case.name
        );
        println!(
            "timeline {}: search '{name}': defined by {defined}, used by {used}",
            case.name
        );
    }

    if let Some(path) = screenshot {
        std::thread::sleep(Duration::from_millis(200));
        let png = tab
            .capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true)
            .unwrap();
        std::fs::write(path, png).unwrap();
        println!("timeline {}: screenshot {}", case.name, path.display());
    }

    let errs = page_errors(&tab, &errors);
    assert!(errs.is_empty(), "{}: console errors: {errs:#?}", case.name);
    println!(
        "timeline {}: cells={} bytes={} load_ms={load_ms:.1}",
        case.name,
        seen.len(),
        page.len()
    );
    let _ = tab.close(false);
    let _ = std::fs::remove_file(&html);
}

#[test]
fn timeline_in_headless_chromium() {
    let Some(bin) = chromium() else {
        if ci() {
            panic!("chromium is required when CI=true (apt-get install chromium chromium-driver)");
        }
        eprintln!("note: chromium not found; the timeline browser test is skipped");
        return;
    };
    let screenshot = std::env::var_os("CFSIM_TIMELINE_SCREENSHOT").map(PathBuf::from);
    let opts = LaunchOptions::default_builder()
        .path(Some(bin))
        .headless(true)
        // root in CI containers: Chromium's sandbox needs user namespaces it may not get
        .sandbox(false)
        .window_size(Some((1500, 820)))
        .idle_browser_timeout(Duration::from_secs(300))
        .build()
        .unwrap();
    // the driver owns the browser process and kills that process (by its handle) when dropped
    let browser = Browser::new(opts).unwrap();
    for (i, case) in cases().iter().enumerate() {
        let shot = if i == 0 { screenshot.as_deref() } else { None };
        check_case(&browser, case, shot);
    }
}
