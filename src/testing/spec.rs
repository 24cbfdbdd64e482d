//! Test specs (`*.cfsim.yaml`): which policy, on which hosts, with which defines, and what the run must
//! give. Read into [`Case`]s (one per test and host); every mistake in a spec is a [`SpecError`] with
//! its file, line and column. The format is documented in `docs/test-spec.md`.

use std::path::{Path, PathBuf};

use super::yaml_tree::{self, Kind, Node};

/// A spec mistake: where, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct SpecError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// How a variable must look.
#[derive(Debug, Clone, PartialEq)]
pub enum VarExpect {
    /// The scalar value, or the list's elements.
    Equals(Vec<String>, bool),
    /// A regex that must match the whole scalar (or each element of a list).
    Matches(String),
    /// The variable must not exist.
    Unset,
}

/// One expectation, with the line that states it.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    Class(String),
    NotClass(String),
    Var(String, VarExpect),
    /// A regex matching a whole R: text.
    Report(String),
    NotReport(String),
    /// Handle → outcome (`kept`, `repaired`, `not_kept`, `not_simulated`, `skipped`).
    Outcome(String, String),
    ExitCode(u8),
    /// A path on the virtual host after the run.
    File(String, FileExpect),
    /// A package after the run: `installed`, `absent`, or the version installed.
    Package(String, String),
    /// A service of the profile's inventory after the run.
    Service(String, ServiceExpect),
    /// A local account after the run.
    User(String, UserExpect),
}

/// What a service should be after the run (each given part is checked).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServiceExpect {
    pub running: Option<bool>,
    pub enabled: Option<bool>,
}

/// What a local account should be after the run (each given part is checked).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UserExpect {
    pub present: Option<bool>,
    pub locked: Option<bool>,
    pub uid: Option<u32>,
    /// Primary group, by name or gid.
    pub group: Option<String>,
    /// Secondary groups, exactly (order does not matter).
    pub groups: Option<Vec<String>>,
    pub home: Option<String>,
    pub shell: Option<String>,
    pub description: Option<String>,
}

/// What a file should be after the run (each given part is checked).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileExpect {
    pub exists: Option<bool>,
    /// Exact contents.
    pub content: Option<String>,
    /// A regex the contents must contain.
    pub contains: Option<String>,
    /// Octal permission bits, e.g. `0644`.
    pub mode: Option<String>,
    /// `file`, `directory`, `symlink`, `fifo`.
    pub kind: Option<String>,
    /// Symlink target.
    pub target: Option<String>,
}

/// A host of a case: a profile (or `local`), optionally with top-level keys replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct HostSpec {
    pub profile: String,
    /// Label shown in reports (default: the profile's file name).
    pub label: String,
    /// Profile keys replaced (a JSON object), e.g. `{"hostname": "web2"}`.
    pub set: Option<serde_json::Value>,
}

/// One test of a spec run on one host.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub spec: String,
    pub line: usize,
    pub name: String,
    pub policy: PathBuf,
    pub host: HostSpec,
    pub define: Vec<String>,
    pub bundlesequence: Option<String>,
    /// Expectations with the spec line of each.
    pub expect: Vec<(usize, Expect)>,
    /// An acceptance-style policy (`$(this.promise_filename) Pass|FAIL` reports) rather than a spec.
    pub acceptance: bool,
    /// The spec asks for a snapshot of this case (`snapshot: true`), with or without `--snapshot`.
    pub snapshot: bool,
    /// Run the policy a second time on the state the first run left; anything repaired then fails
    /// (`converge: true`, or `cfsim test --converge`).
    pub converge: bool,
    /// What a command the host profile has no result for returns (`assume_commands: succeed|fail`);
    /// without it such a command is not simulated, as in `cfsim agent`.
    pub assume_commands: Option<crate::expr::host::Assume>,
}

/// Outcomes a promise can end with in a run's result.
pub const OUTCOMES: &[&str] = &["kept", "repaired", "not_kept", "not_simulated", "skipped"];

struct Reader<'a> {
    file: &'a str,
    dir: PathBuf,
}

impl Reader<'_> {
    fn err<T>(&self, n: &Node, message: impl Into<String>) -> Result<T, SpecError> {
        Err(SpecError {
            file: self.file.to_string(),
            line: n.line,
            col: n.col,
            message: message.into(),
        })
    }

    fn keys(&self, n: &Node, what: &str, allowed: &[&str]) -> Result<(), SpecError> {
        let Some(m) = n.map() else {
            return self.err(n, format!("{what} must be a mapping"));
        };
        for (k, _) in m {
            let name = k.scalar().unwrap_or("");
            if !allowed.contains(&name) {
                return self.err(
                    k,
                    format!(
                        "unknown key '{name}' in {what} (known: {})",
                        allowed.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }

    fn boolean(&self, n: &Node, what: &str) -> Result<bool, SpecError> {
        match n.scalar() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => self.err(n, format!("{what} must be true or false")),
        }
    }

    fn assume(&self, n: &Node) -> Result<crate::expr::host::Assume, SpecError> {
        match n.scalar().and_then(crate::expr::host::Assume::parse) {
            Some(a) => Ok(a),
            None => self.err(n, "assume_commands must be succeed or fail"),
        }
    }

    fn string(&self, n: &Node, what: &str) -> Result<String, SpecError> {
        match n.scalar() {
            Some(s) => Ok(s.to_string()),
            None => self.err(n, format!("{what} must be a string")),
        }
    }

    fn strings(&self, n: &Node, what: &str) -> Result<Vec<String>, SpecError> {
        match n.strings() {
            Some(v) => Ok(v),
            None => self.err(n, format!("{what} must be a string or a list of strings")),
        }
    }

    fn path(&self, p: &str) -> PathBuf {
        if p == "local" || Path::new(p).is_absolute() {
            PathBuf::from(p)
        } else {
            self.dir.join(p)
        }
    }

    fn regex(&self, n: &Node, what: &str) -> Result<String, SpecError> {
        let r = self.string(n, what)?;
        // a test spec's own regex (cfsim syntax, the `regex` crate; not the agent's PCRE)
        if let Err(e) = regex::Regex::new(&format!("^(?:{r})$")) {
            return self.err(n, format!("{what}: invalid regular expression: {e}"));
        }
        Ok(r)
    }

    fn hosts(&self, n: &Node) -> Result<Vec<HostSpec>, SpecError> {
        let items: Vec<&Node> = match &n.kind {
            Kind::Seq(items) => items.iter().collect(),
            _ => vec![n],
        };
        let mut out = Vec::new();
        for item in items {
            if let Some(p) = item.scalar() {
                out.push(self.host(item, p, None, None)?);
                continue;
            }
            self.keys(item, "a host", &["profile", "name", "set"])?;
            let Some(p) = item.get("profile") else {
                return self.err(item, "a host needs 'profile'");
            };
            let p = self.string(p, "profile")?;
            let label = item
                .get("name")
                .map(|l| self.string(l, "name"))
                .transpose()?;
            let set = match item.get("set") {
                None => None,
                Some(s) => Some(self.json(s)?),
            };
            out.push(self.host(item, &p, label, set)?);
        }
        if out.is_empty() {
            return self.err(n, "hosts: at least one host");
        }
        Ok(out)
    }

    fn host(
        &self,
        n: &Node,
        p: &str,
        label: Option<String>,
        set: Option<serde_json::Value>,
    ) -> Result<HostSpec, SpecError> {
        let path = self.path(p);
        if p != "local" && !path.is_file() {
            return self.err(n, format!("host profile '{p}' not found"));
        }
        if set.as_ref().is_some_and(|s| !s.is_object()) {
            return self.err(n, "set: must be a mapping of profile keys");
        }
        let label = label.unwrap_or_else(|| {
            Path::new(p)
                .file_name()
                .map_or_else(|| p.to_string(), |f| f.to_string_lossy().into_owned())
        });
        Ok(HostSpec {
            profile: path.to_string_lossy().into_owned(),
            label,
            set,
        })
    }

    /// A YAML node as JSON (scalars that read as integers or booleans become those).
    fn json(&self, n: &Node) -> Result<serde_json::Value, SpecError> {
        Ok(match &n.kind {
            Kind::Scalar(s) => {
                if let Ok(i) = s.parse::<i64>() {
                    serde_json::Value::from(i)
                } else if s == "true" || s == "false" {
                    serde_json::Value::Bool(s == "true")
                } else {
                    serde_json::Value::String(s.clone())
                }
            }
            Kind::Seq(items) => serde_json::Value::Array(
                items
                    .iter()
                    .map(|i| self.json(i))
                    .collect::<Result<_, _>>()?,
            ),
            Kind::Map(m) => {
                let mut o = serde_json::Map::new();
                for (k, v) in m {
                    o.insert(self.string(k, "a key")?, self.json(v)?);
                }
                serde_json::Value::Object(o)
            }
        })
    }

    fn expectations(&self, n: &Node) -> Result<Vec<(usize, Expect)>, SpecError> {
        self.keys(
            n,
            "expect",
            &[
                "classes",
                "not_classes",
                "vars",
                "reports",
                "not_reports",
                "outcomes",
                "exit_code",
                "files",
                "packages",
                "services",
                "users",
            ],
        )?;
        let mut out = Vec::new();
        let m = n.map().unwrap_or(&[]);
        for (k, v) in m {
            match k.scalar().unwrap_or("") {
                "classes" | "not_classes" => {
                    let neg = k.scalar() == Some("not_classes");
                    for c in self.strings(v, "classes")? {
                        out.push((
                            v.line,
                            if neg {
                                Expect::NotClass(c)
                            } else {
                                Expect::Class(c)
                            },
                        ));
                    }
                }
                "reports" | "not_reports" => {
                    let neg = k.scalar() == Some("not_reports");
                    let items: Vec<&Node> = match &v.kind {
                        Kind::Seq(items) => items.iter().collect(),
                        _ => vec![v],
                    };
                    for i in items {
                        let r = self.regex(i, "reports")?;
                        out.push((
                            i.line,
                            if neg {
                                Expect::NotReport(r)
                            } else {
                                Expect::Report(r)
                            },
                        ));
                    }
                }
                "vars" => {
                    let Some(vm) = v.map() else {
                        return self.err(v, "vars must map variable names to values");
                    };
                    for (name, want) in vm {
                        let name = self.string(name, "a variable name")?;
                        let e = match &want.kind {
                            Kind::Scalar(s) => VarExpect::Equals(vec![s.clone()], false),
                            Kind::Seq(_) => VarExpect::Equals(self.strings(want, "a list")?, true),
                            Kind::Map(_) => {
                                self.keys(
                                    want,
                                    "a variable expectation",
                                    &["equals", "matches", "unset"],
                                )?;
                                if let Some(r) = want.get("matches") {
                                    VarExpect::Matches(self.regex(r, "matches")?)
                                } else if let Some(eq) = want.get("equals") {
                                    let list = matches!(eq.kind, Kind::Seq(_));
                                    VarExpect::Equals(self.strings(eq, "equals")?, list)
                                } else if want.get("unset").is_some() {
                                    VarExpect::Unset
                                } else {
                                    return self.err(want, "use equals, matches or unset");
                                }
                            }
                        };
                        out.push((want.line, Expect::Var(name, e)));
                    }
                }
                "outcomes" => {
                    let Some(om) = v.map() else {
                        return self.err(v, "outcomes must map handles to outcomes");
                    };
                    for (h, o) in om {
                        let outcome = self.string(o, "an outcome")?;
                        if !OUTCOMES.contains(&outcome.as_str()) {
                            return self.err(
                                o,
                                format!(
                                    "unknown outcome '{outcome}' (one of {})",
                                    OUTCOMES.join(", ")
                                ),
                            );
                        }
                        out.push((
                            o.line,
                            Expect::Outcome(self.string(h, "a handle")?, outcome),
                        ));
                    }
                }
                "packages" => {
                    let Some(pm) = v.map() else {
                        return self.err(
                            v,
                            "packages must map package names to installed, absent or a version",
                        );
                    };
                    for (name, want) in pm {
                        let name = self.string(name, "a package name")?;
                        let want_s = self.string(want, "installed, absent or a version")?;
                        if want_s.is_empty() {
                            return self.err(want, "use installed, absent or a version");
                        }
                        out.push((want.line, Expect::Package(name, want_s)));
                    }
                }
                "files" => {
                    let Some(fm) = v.map() else {
                        return self.err(v, "files must map absolute paths to expectations");
                    };
                    for (path, want) in fm {
                        let path = self.string(path, "a path")?;
                        if !path.starts_with('/') {
                            return self.err(want, format!("'{path}' is not an absolute path"));
                        }
                        let fe = match &want.kind {
                            Kind::Scalar(s) if s == "present" => FileExpect {
                                exists: Some(true),
                                ..FileExpect::default()
                            },
                            Kind::Scalar(s) if s == "absent" => FileExpect {
                                exists: Some(false),
                                ..FileExpect::default()
                            },
                            Kind::Map(_) => {
                                self.keys(
                                    want,
                                    "a file expectation",
                                    &["exists", "content", "contains", "mode", "type", "target"],
                                )?;
                                let s = |k: &str| want.get(k).map(|n| self.string(n, k)).transpose();
                                let mode = s("mode")?;
                                if let Some(m) = &mode {
                                    if m.is_empty() || !m.chars().all(|c| c.is_digit(8)) || m.len() > 4 {
                                        return self.err(want, format!("mode '{m}' is not octal"));
                                    }
                                }
                                let contains = match want.get("contains") {
                                    Some(n) => Some(self.regex(n, "contains")?),
                                    None => None,
                                };
                                FileExpect {
                                    exists: want.get("exists").map(|b| self.boolean(b, "exists")).transpose()?,
                                    content: s("content")?,
                                    contains,
                                    mode,
                                    kind: s("type")?,
                                    target: s("target")?,
                                }
                            }
                            _ => return self.err(want, "use present, absent or a map (exists, content, contains, mode, type, target)"),
                        };
                        out.push((want.line, Expect::File(path, fe)));
                    }
                }
                "services" => {
                    let Some(sm) = v.map() else {
                        return self.err(v, "services must map service names to expectations");
                    };
                    for (name, want) in sm {
                        let name = self.string(name, "a service name")?;
                        out.push((want.line, Expect::Service(name, self.service(want)?)));
                    }
                }
                "users" => {
                    let Some(um) = v.map() else {
                        return self.err(v, "users must map user names to expectations");
                    };
                    for (name, want) in um {
                        let name = self.string(name, "a user name")?;
                        out.push((want.line, Expect::User(name, self.user(want)?)));
                    }
                }
                "exit_code" => {
                    let s = self.string(v, "exit_code")?;
                    let Ok(c) = s.parse::<u8>() else {
                        return self.err(v, "exit_code must be a number 0-255");
                    };
                    out.push((v.line, Expect::ExitCode(c)));
                }
                _ => {}
            }
        }
        Ok(out)
    }
}

impl Reader<'_> {
    /// A service expectation: `running`, `stopped`, `enabled`, `disabled`, or a map of `running` and
    /// `enabled` booleans.
    fn service(&self, want: &Node) -> Result<ServiceExpect, SpecError> {
        const WORDS: &str = "running, stopped, enabled, disabled or a map (running, enabled)";
        match &want.kind {
            Kind::Scalar(s) => {
                let mut e = ServiceExpect::default();
                match s.as_str() {
                    "running" => e.running = Some(true),
                    "stopped" => e.running = Some(false),
                    "enabled" => e.enabled = Some(true),
                    "disabled" => e.enabled = Some(false),
                    _ => return self.err(want, format!("use {WORDS}")),
                }
                Ok(e)
            }
            Kind::Map(_) => {
                self.keys(want, "a service expectation", &["running", "enabled"])?;
                let b = |k: &str| want.get(k).map(|n| self.boolean(n, k)).transpose();
                Ok(ServiceExpect {
                    running: b("running")?,
                    enabled: b("enabled")?,
                })
            }
            _ => self.err(want, format!("use {WORDS}")),
        }
    }

    /// A user expectation: `present`, `absent`, `locked`, or a map of `present`, `locked`, `uid`,
    /// `group`, `groups`, `home`, `shell`, `description`.
    fn user(&self, want: &Node) -> Result<UserExpect, SpecError> {
        const WORDS: &str =
            "present, absent, locked or a map (present, locked, uid, group, groups, home, shell, description)";
        match &want.kind {
            Kind::Scalar(s) => {
                let mut e = UserExpect::default();
                match s.as_str() {
                    "present" => e.present = Some(true),
                    "absent" => e.present = Some(false),
                    "locked" => {
                        e.present = Some(true);
                        e.locked = Some(true);
                    }
                    _ => return self.err(want, format!("use {WORDS}")),
                }
                Ok(e)
            }
            Kind::Map(_) => {
                self.keys(
                    want,
                    "a user expectation",
                    &[
                        "present",
                        "locked",
                        "uid",
                        "group",
                        "groups",
                        "home",
                        "shell",
                        "description",
                    ],
                )?;
                let b = |k: &str| want.get(k).map(|n| self.boolean(n, k)).transpose();
                let s = |k: &str| want.get(k).map(|n| self.string(n, k)).transpose();
                let uid = match want.get("uid") {
                    None => None,
                    Some(n) => match self.string(n, "uid")?.parse::<u32>() {
                        Ok(u) => Some(u),
                        Err(_) => return self.err(n, "uid must be a number"),
                    },
                };
                Ok(UserExpect {
                    present: b("present")?,
                    locked: b("locked")?,
                    uid,
                    group: s("group")?,
                    groups: want
                        .get("groups")
                        .map(|n| self.strings(n, "groups"))
                        .transpose()?,
                    home: s("home")?,
                    shell: s("shell")?,
                    description: s("description")?,
                })
            }
            _ => self.err(want, format!("use {WORDS}")),
        }
    }
}

/// Reads the cases of spec `file` (text `text`).
pub fn read(file: &str, text: &str) -> Result<Vec<Case>, SpecError> {
    let r = Reader {
        file,
        dir: Path::new(file)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    let root = yaml_tree::parse(text).map_err(|(line, col, message)| SpecError {
        file: file.to_string(),
        line,
        col,
        message: format!("invalid YAML: {message}"),
    })?;
    r.keys(
        &root,
        "a spec",
        &[
            "policy",
            "hosts",
            "define",
            "snapshot",
            "converge",
            "assume_commands",
            "tests",
        ],
    )?;
    let default_assume = root
        .get("assume_commands")
        .map(|n| r.assume(n))
        .transpose()?;
    let default_converge = root
        .get("converge")
        .map(|b| r.boolean(b, "converge"))
        .transpose()?
        .unwrap_or(false);
    let default_snapshot = root
        .get("snapshot")
        .map(|b| r.boolean(b, "snapshot"))
        .transpose()?
        .unwrap_or(false);
    let default_policy = root
        .get("policy")
        .map(|p| r.string(p, "policy"))
        .transpose()?;
    let default_hosts = root.get("hosts").map(|h| r.hosts(h)).transpose()?;
    let default_define = root
        .get("define")
        .map(|d| r.strings(d, "define"))
        .transpose()?
        .unwrap_or_default();
    let Some(tests) = root.get("tests") else {
        return r.err(&root, "a spec needs 'tests'");
    };
    let Kind::Seq(items) = &tests.kind else {
        return r.err(tests, "tests must be a list");
    };
    let mut cases = Vec::new();
    for t in items {
        r.keys(
            t,
            "a test",
            &[
                "name",
                "policy",
                "hosts",
                "define",
                "bundlesequence",
                "snapshot",
                "converge",
                "assume_commands",
                "expect",
            ],
        )?;
        let assume_commands = match t.get("assume_commands") {
            Some(n) => Some(r.assume(n)?),
            None => default_assume,
        };
        let converge = t
            .get("converge")
            .map(|b| r.boolean(b, "converge"))
            .transpose()?
            .unwrap_or(default_converge);
        let Some(name) = t.get("name") else {
            return r.err(t, "a test needs 'name'");
        };
        let name = r.string(name, "name")?;
        let policy = match t.get("policy").map(|p| r.string(p, "policy")).transpose()? {
            Some(p) => p,
            None => match &default_policy {
                Some(p) => p.clone(),
                None => return r.err(t, "no policy: give 'policy' in the test or the spec"),
            },
        };
        let policy_path = r.path(&policy);
        if !policy_path.is_file() {
            let at = t.get("policy").or(root.get("policy")).unwrap_or(t);
            return r.err(at, format!("policy '{policy}' not found"));
        }
        let hosts = match t.get("hosts") {
            Some(h) => r.hosts(h)?,
            None => match &default_hosts {
                Some(h) => h.clone(),
                None => return r.err(t, "no hosts: give 'hosts' in the test or the spec"),
            },
        };
        let mut define = default_define.clone();
        if let Some(d) = t.get("define") {
            define.extend(r.strings(d, "define")?);
        }
        let bundlesequence = t
            .get("bundlesequence")
            .map(|b| r.strings(b, "bundlesequence").map(|v| v.join(",")))
            .transpose()?;
        let snapshot = t
            .get("snapshot")
            .map(|b| r.boolean(b, "snapshot"))
            .transpose()?
            .unwrap_or(default_snapshot);
        let expect = match t.get("expect") {
            Some(e) => r.expectations(e)?,
            None if snapshot => Vec::new(),
            None => return r.err(t, "a test needs 'expect' (or 'snapshot: true')"),
        };
        for host in hosts {
            cases.push(Case {
                spec: file.to_string(),
                line: t.line,
                name: name.clone(),
                policy: policy_path.clone(),
                host,
                define: define.clone(),
                bundlesequence: bundlesequence.clone(),
                expect: expect.clone(),
                acceptance: false,
                snapshot,
                converge,
                assume_commands,
            });
        }
    }
    Ok(cases)
}

/// An acceptance-style policy run as one case on `host`.
pub fn acceptance(file: &str, host: &str) -> Case {
    Case {
        spec: file.to_string(),
        line: 1,
        name: Path::new(file)
            .file_name()
            .map_or_else(|| file.to_string(), |f| f.to_string_lossy().into_owned()),
        policy: PathBuf::from(file),
        host: HostSpec {
            profile: host.to_string(),
            label: if host == "local" {
                "local".to_string()
            } else {
                Path::new(host)
                    .file_name()
                    .map_or_else(|| host.to_string(), |f| f.to_string_lossy().into_owned())
            },
            set: None,
        },
        define: Vec::new(),
        bundlesequence: None,
        expect: Vec::new(),
        acceptance: true,
        snapshot: false,
        converge: false,
        assume_commands: None,
    }
}
