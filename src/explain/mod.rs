//! `cfsim explain`: why a class is defined or not, why a variable has its value or none, and what
//! became of a promise, after a simulated run on a host. The run goes through the library API
//! ([`crate::sim::Policy::load`], [`crate::sim::run_engine`] with the trace kept); the answers are
//! read from the trace (`facts`), with the policy's AST for the promises that could have set a name
//! (`candidates`), their conditions (`cond`), the chain of classes behind them (`steps`) and why a
//! promise was never reached (`reach`). `class`, `var` and `promise` build the three kinds of
//! answer, `render` prints them as text or JSON (shape: docs/explain.md).

pub mod candidates;
pub mod class;
pub mod cond;
pub mod facts;
pub mod promise;
pub mod reach;
pub mod render;
pub mod steps;
pub mod var;

use facts::{Facts, RunInfo};

/// What is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Question {
    /// `--class NAME` (`ns:name` or `name`).
    Class(String),
    /// `--var [NS:][BUNDLE.]NAME`.
    Var(String),
    /// `--promise HANDLE|FILE:LINE`.
    Promise(String),
}

impl Question {
    pub fn kind(&self) -> &'static str {
        match self {
            Question::Class(_) => "class",
            Question::Var(_) => "var",
            Question::Promise(_) => "promise",
        }
    }

    pub fn asked(&self) -> &str {
        match self {
            Question::Class(s) | Question::Var(s) | Question::Promise(s) => s,
        }
    }
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// A request: the run (policy, host, the agent's flags) and the question.
#[derive(Debug, Clone)]
pub struct Request {
    pub question: Question,
    pub format: Format,
    /// The flags of `cfsim agent` for the run (file, host, `-D`, `-N`, `-b`, `--henc-module`).
    pub run: crate::sim::Options,
}

/// What to print and the exit code: 0 answered; 1 invalid policy or failed run start (as `cfsim
/// agent`); 2 usage error (unknown class, variable or promise, bad name, host profile).
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

impl Output {
    fn usage(msg: &str) -> Output {
        Output {
            stdout: String::new(),
            stderr: format!("   error: {msg}\n"),
            code: 2,
        }
    }
}

/// The answers to one question.
#[derive(Debug, Clone)]
pub enum Answers<'a> {
    Class(Vec<class::ClassAnswer<'a>>),
    Var(Vec<var::VarAnswer<'a>>),
    Promise(Vec<promise::PromiseAnswer<'a>>),
}

/// Loads the policy and the host, runs, and answers (on the evaluation thread of `cfsim agent`).
pub fn explain(req: &Request) -> Output {
    let depth = req.run.limits.unwrap_or_default().max_call_depth;
    crate::sim::on_eval_thread(depth, || explain_here(req)).unwrap_or_else(|(stdout, code)| {
        Output {
            stdout,
            stderr: String::new(),
            code,
        }
    })
}

fn explain_here(req: &Request) -> Output {
    // a name that cannot be a class or a variable is a usage error before anything runs
    match &req.question {
        Question::Class(c) if !valid_class(c) => {
            return Output::usage(&format!(
                "'{c}' is not a class name (letters, digits and _, with an optional namespace: ns:name)"
            ))
        }
        Question::Var(v) if candidates::VarName::parse(v).is_none() => {
            return Output::usage(&format!(
                "'{v}' is not a variable name ([NS:][BUNDLE.]NAME, e.g. main.x or ns:b.x[k])"
            ))
        }
        Question::Promise(p) if p.trim().is_empty() => {
            return Output::usage("--promise needs a handle or FILE:LINE")
        }
        _ => {}
    }
    let host = match crate::host::load_host(&req.run.host) {
        Ok(h) => h,
        Err(e) => {
            return Output {
                stdout: format!("   error: {e}\n"),
                stderr: String::new(),
                code: 2,
            }
        }
    };
    let policy = match crate::sim::run::load_for_agent(&req.run.file) {
        Ok(p) => p,
        Err(r) => {
            return Output {
                stdout: r.stdout,
                stderr: String::new(),
                code: r.code,
            }
        }
    };
    let opts = crate::sim::Options {
        keep_trace: true,
        ..req.run.clone()
    };
    let finished = match crate::sim::run_engine(&policy, &host, &opts) {
        Ok(f) => f,
        Err(r) => {
            return Output {
                stdout: r.stdout,
                stderr: String::new(),
                code: r.code,
            }
        }
    };
    let info = RunInfo {
        sequence: finished.sequence.iter().map(|s| s.name.clone()).collect(),
        profile: req.run.host.clone(),
        hostname: host.hostname.clone(),
        policy: req.run.file.clone(),
        defines: req
            .run
            .define
            .iter()
            .map(|d| crate::expr::canonify(d.trim()))
            .filter(|d| !d.is_empty())
            .collect(),
        code: finished.code,
    };
    let engine = &finished.engine;
    let facts = Facts::new(engine, info);
    let answers = match answer(&facts, &req.question) {
        Ok(a) => a,
        Err(msg) => return Output::usage(&msg),
    };
    let mut stderr = String::new();
    if !finished.ok {
        stderr.push_str(&format!(
            "   warning: the run stopped with a fatal error (exit {}): the answer covers what ran\n",
            finished.code
        ));
    }
    let stdout = match req.format {
        Format::Text => render::text(&facts, &req.question, &answers),
        Format::Json => format!("{:#}\n", render::json(&facts, &req.question, &answers)),
    };
    Output {
        stdout,
        stderr,
        code: 0,
    }
}

/// Whether a class name is well formed (`[ns:]name`, canonical characters).
fn valid_class(c: &str) -> bool {
    let ok = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    match c.split_once(':') {
        Some((ns, n)) => ok(ns) && ok(n),
        None => ok(c),
    }
}

/// Answers a question on an indexed run; `Err` is a usage error (unknown name or promise).
pub fn answer<'a>(facts: &Facts<'a>, q: &Question) -> Result<Answers<'a>, String> {
    match q {
        Question::Class(asked) => {
            let any_ns = !asked.contains(':');
            let keys = facts.class_keys(asked);
            let answers: Vec<class::ClassAnswer<'a>> = keys
                .iter()
                .map(|k| class::explain(facts, k, any_ns))
                .collect();
            if !answers.iter().any(class::known) {
                let near = class::suggestions(facts, asked);
                return Err(unknown("class", asked, &facts.hostname, &near));
            }
            Ok(Answers::Class(answers))
        }
        Question::Var(asked) => {
            let name = candidates::VarName::parse(asked)
                .ok_or_else(|| format!("'{asked}' is not a variable name"))?;
            let keys = var::keys(facts, &name);
            let answers: Vec<var::VarAnswer<'a>> = if keys.is_empty() {
                vec![var::explain_unset(facts, &name)]
            } else {
                keys.iter().map(|k| var::explain(facts, k)).collect()
            };
            let known = answers.iter().any(|a| {
                a.source != "none"
                    || !a.candidates.is_empty()
                    || a.parameter_of.is_some()
                    || !a.used_by.is_empty()
            });
            if !known {
                let near = var::suggestions(facts, &name);
                return Err(unknown("variable", asked, &facts.hostname, &near));
            }
            Ok(Answers::Var(answers))
        }
        Question::Promise(asked) => {
            let sel = promise::Selector::parse(facts, asked);
            let found = promise::find(facts, &sel);
            if found.is_empty() {
                return Err(match &sel {
                    promise::Selector::Handle(h) => {
                        let mut handles: Vec<String> = facts
                            .promises
                            .iter()
                            .filter_map(|p| p.scalar("handle").map(str::to_string))
                            .collect();
                        handles.sort();
                        handles.dedup();
                        let near = class::close(h, handles);
                        let mut m = format!(
                            "no promise has the handle '{h}' (give a handle, or FILE:LINE of a promise)"
                        );
                        if !near.is_empty() {
                            m.push_str(&format!("; did you mean: {}", near.join(", ")));
                        }
                        m
                    }
                    promise::Selector::Site { file, line } => {
                        if !facts
                            .engine
                            .files
                            .iter()
                            .any(|f| promise::same_file(&f.path, file))
                        {
                            let files: Vec<&str> =
                                facts.engine.files.iter().map(|f| f.path.as_str()).collect();
                            format!(
                                "'{file}' is not a file of this policy (its files: {})",
                                files.join(", ")
                            )
                        } else {
                            let near = promise::nearest_lines(facts, file, *line);
                            let near: Vec<String> =
                                near.iter().map(|l| format!("{file}:{l}")).collect();
                            format!(
                                "no promise at {file}:{line} (the nearest promises start at {})",
                                if near.is_empty() {
                                    "no line: the file holds no promise".to_string()
                                } else {
                                    near.join(", ")
                                }
                            )
                        }
                    }
                });
            }
            Ok(Answers::Promise(
                found
                    .into_iter()
                    .map(|p| promise::explain(facts, p))
                    .collect(),
            ))
        }
    }
}

fn unknown(what: &str, asked: &str, host: &str, near: &[String]) -> String {
    let mut m = format!(
        "unknown {what} '{asked}': not set on host {host}, and no promise of the policy sets or uses it"
    );
    if !near.is_empty() {
        m.push_str(&format!("; did you mean: {}", near.join(", ")));
    }
    m
}
