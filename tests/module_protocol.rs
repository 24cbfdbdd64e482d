//! Module-protocol fixtures (policies/modules/<name>/: module.sh, policy.cf, expected.txt).
//!
//! `expected.txt` is what the real cf-agent 3.21.0 printed for `cf-agent -K -I --show-evaluated-vars
//! --show-evaluated-classes -f ./policy.cf`, filtered to the module's own rows (tag column empty or
//! `source=module`) and log/report lines, with the fixture directory replaced by `$DIR`.
//! - `live_agent_matches_recordings` re-runs the real agent (skip note without cf-agent; FAIL when CI=true);
//!   `CFSIM_RECORD=1` rewrites the recordings instead.
//! - `parser_reproduces_recordings` runs each module with `module::process::run`, parses its output with
//!   `module::protocol`, applies the events to a minimal class/variable table and renders the same lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use cfsim::module::process;
use cfsim::module::protocol::{self, Event, Level, ModuleParser};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies/modules");
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("policy.cf").is_file())
        .collect();
    v.sort();
    v
}

fn keep(line: &str) -> bool {
    let t = line.trim_start();
    let is_log = ["error:", "warning:", "notice:", "info:", "verbose:"]
        .iter()
        .any(|p| t.starts_with(p));
    is_log || t.starts_with("R: ") || line.contains("source=module") || !line.contains("source=")
}

fn normalize(raw: &str, dir: &Path, exit: i32) -> String {
    let d = dir.to_str().unwrap();
    let mut out = format!("# exit: {exit}\n");
    for line in raw.lines().filter(|l| keep(l)) {
        out.push_str(line.replace(d, "$DIR").trim_end());
        out.push('\n');
    }
    out
}

fn have_agent() -> bool {
    let ok = Command::new("cf-agent")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "cf-agent is required when CI=true"
        );
        eprintln!("note: cf-agent not installed; module-protocol recordings not re-checked");
    }
    ok
}

#[test]
fn live_agent_matches_recordings() {
    if !have_agent() {
        return;
    }
    let record = std::env::var("CFSIM_RECORD").as_deref() == Ok("1");
    for dir in fixtures() {
        // Validate first: an invalid policy would make cf-agent fall back to failsafe.
        let check = Command::new("cf-promises")
            .args(["-c", "-f", "./policy.cf"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "cf-promises rejected {}",
            dir.display()
        );
        let run = Command::new("cf-agent")
            .args([
                "-K",
                "-I",
                "--show-evaluated-vars",
                "--show-evaluated-classes",
                "-f",
                "./policy.cf",
            ])
            .current_dir(&dir)
            .output()
            .unwrap();
        let raw = String::from_utf8_lossy(&run.stdout);
        let got = normalize(&raw, &dir, run.status.code().unwrap_or(-1));
        let path = dir.join("expected.txt");
        if record {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap();
        assert_eq!(got, want, "live cf-agent differs from {}", path.display());
    }
}

/// What the fixtures need of an agent: module classes and variables, logs, a fatal stop.
#[derive(Default)]
struct Table {
    classes: BTreeMap<String, Vec<String>>,
    vars: BTreeMap<String, (String, Vec<String>)>,
    logs: Vec<String>,
    fatal: bool,
}

const HARD: [&str; 4] = ["any", "linux", "cfengine", "x86_64"];

fn log_line(level: &str, msg: &str) -> String {
    format!("{level:>8}: {msg}")
}

fn show_list(items: &[String]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|i| format!("\"{}\"", i.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    format!(" {{{}}}", quoted.join(","))
}

impl Table {
    fn var(&mut self, ctx: &str, name: &str, value: String, tags: &[String]) {
        self.vars
            .insert(format!("default:{ctx}.{name}"), (value, tags.to_vec()));
    }

    fn apply(&mut self, ev: Event) {
        match ev {
            Event::DefineClass {
                namespace,
                name,
                tags,
                ..
            } => {
                let full = namespace.map_or(name.clone(), |ns| format!("{ns}:{name}"));
                self.classes.insert(full, tags);
            }
            Event::UndefineClass { name } => {
                if HARD.contains(&name.as_str()) {
                    self.logs.push(log_line(
                        "error",
                        &protocol::negate_hard_class_message(&name),
                    ));
                    self.fatal = true;
                } else {
                    self.classes.remove(&name);
                }
            }
            Event::Scalar {
                context,
                name,
                value,
                tags,
            } => self.var(&context, &name, value, &tags),
            Event::List {
                context,
                name,
                items,
                tags,
            } => self.var(&context, &name, show_list(&items), &tags),
            Event::Data {
                context,
                name,
                value,
                tags,
            } => self.var(&context, &name, value.to_string(), &tags),
            Event::DataFromFile {
                context,
                name,
                path,
                tags,
            } => {
                let text = std::fs::read_to_string(&path).ok();
                match protocol::load_data_file(&path, text.as_deref()) {
                    Ok(v) => self.var(&context, &name, v.to_string(), &tags),
                    Err(m) => self.logs.push(log_line("error", &m)),
                }
            }
            Event::Log { level, message } => {
                let l = if level == Level::Error {
                    "error"
                } else {
                    "info"
                };
                self.logs.push(log_line(l, &message));
            }
            Event::Ignored { .. } => {}
        }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for l in &self.logs {
            out.push_str(l);
            out.push('\n');
        }
        if self.fatal {
            return out;
        }
        let mut rows = vec![format!(
            "{:<60} {:<40} {:<40}",
            "Class name", "Meta tags", "Comment"
        )];
        for (name, tags) in &self.classes {
            rows.push(format!("{name:<60} {:<40} {:<40}", tags.join(","), ""));
        }
        rows.push(format!(
            "{:<40} {:<60} {:<40} {:<40}",
            "Variable name", "Variable value", "Meta tags", "Comment"
        ));
        for (name, (value, tags)) in &self.vars {
            // The agent's table shows values with control characters this way.
            let value = if value.chars().any(char::is_control) {
                "<non-printable>"
            } else {
                value
            };
            rows.push(format!(
                "{name:<40} {value:<60} {:<40} {:<40}",
                tags.join(","),
                ""
            ));
        }
        for r in rows {
            out.push_str(r.trim_end());
            out.push('\n');
        }
        out
    }
}

fn exec_timeout(dir: &Path) -> Option<u64> {
    let policy = std::fs::read_to_string(dir.join("policy.cf")).unwrap();
    let line = policy.lines().find(|l| l.contains("exec_timeout =>"))?;
    line.split('"').nth(1)?.parse().ok()
}

fn simulate(dir: &Path) -> String {
    let command = format!("{}/./module.sh", dir.display());
    let timeout = exec_timeout(dir);
    let run = process::run(&command, Duration::from_secs(timeout.unwrap_or(30))).unwrap();
    let mut table = Table::default();
    table.logs.push(log_line(
        "info",
        &process::executing_message(&command, timeout),
    ));
    let mut parser = ModuleParser::new(&command);
    for line in run
        .output
        .strip_suffix('\n')
        .unwrap_or(&run.output)
        .split('\n')
    {
        let mut events = Vec::new();
        parser.line(line, &mut events);
        for ev in events {
            if !table.fatal {
                table.apply(ev);
            }
        }
        if parser.died() || table.fatal {
            break;
        }
    }
    let exit = if table.fatal { 1 } else { 0 };
    if !table.fatal {
        if let (_, Some(msg)) = process::outcome(&command, &run.exit) {
            table.logs.push(log_line("error", &msg));
        }
        table
            .logs
            .push(log_line("info", &process::completed_message(&command)));
    }
    normalize(&table.render(), dir, exit)
}

#[test]
fn parser_reproduces_recordings() {
    let mut checked = 0;
    for dir in fixtures() {
        let want = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
        assert_eq!(simulate(&dir), want, "fixture {}", dir.display());
        checked += 1;
    }
    assert_eq!(checked, 11, "fixture count");
}

#[test]
fn default_context_is_the_canonified_basename_of_argv0() {
    assert_eq!(
        protocol::default_context("/srv/demo/mod/my-module.sh"),
        "my_module_sh"
    );
    assert_eq!(
        protocol::default_context("/srv/demo/mod/errmod arg1"),
        "errmod"
    );
    assert_eq!(protocol::default_context("\"/opt/my mod/x.y\" a"), "x_y");
}

#[test]
fn cfengine_die_stops_the_parse_before_its_own_line() {
    let events = protocol::parse_output("/m/mod", "+a\n+x_cfengine-die\n+b\n");
    assert_eq!(events.len(), 1);
    assert!(matches!(&events[0], Event::DefineClass { name, .. } if name == "a"));
}

#[test]
fn assignment_split_follows_the_agent_limits() {
    assert_eq!(
        protocol::split_assignment("a=b=c"),
        ("a".into(), "b=c".into())
    );
    assert_eq!(
        protocol::split_assignment("noeq"),
        ("noeq".into(), String::new())
    );
    assert_eq!(
        protocol::split_assignment("=x"),
        (String::new(), String::new())
    );
    let long = format!("{}=v", "n".repeat(300));
    assert_eq!(
        protocol::split_assignment(&long),
        ("n".repeat(256), String::new())
    );
    let exact = format!("{}=v", "m".repeat(256));
    assert_eq!(
        protocol::split_assignment(&exact),
        ("m".repeat(256), "v".into())
    );
}
