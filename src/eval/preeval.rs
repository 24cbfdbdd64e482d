//! Pre-evaluation as cf-agent 3.21 does it (spec §2.1): PolicyResolve = per common bundle vars, classes,
//! vars; then vars of every other bundle with parameters unexpanded. Two rounds for the policy, plus one
//! extra round each time `inputs` containing variables bring in new files (evaluated with the context of
//! the previous round, `body common control` and `body file control` alike).

use std::path::{Component, Path, PathBuf};

use super::output::LogLevel;
use super::rval::RvalResult;
use super::Engine;
use crate::value::Value;

/// Most rounds of input expansion (each may load more files).
pub const MAX_INPUT_ROUNDS: usize = 16;

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

impl Engine<'_> {
    /// One PolicyResolve round over the whole policy (pass 0 in the trace).
    pub fn policy_resolve(&mut self) {
        self.pass = 0;
        self.stage = "preeval";
        for common in [true, false] {
            for i in 0..self.bundles.len() {
                let Some(def) = self.bundles.get(i).cloned() else {
                    continue;
                };
                if (def.bundle.bundle_type == "common") != common {
                    continue;
                }
                self.ctx.frames.push(super::context::Frame {
                    ns: def.ns.clone(),
                    bundle: def.name.clone(),
                    ..Default::default()
                });
                self.resolve_type(&def, "vars");
                if common {
                    self.resolve_type(&def, "classes");
                    self.resolve_type(&def, "vars");
                }
                self.ctx.frames.pop();
            }
        }
    }

    /// Input paths named by control bodies after expansion, resolved against the entry's directory.
    fn expanded_inputs(&mut self, entry_dir: &Path) -> Vec<String> {
        let bodies: Vec<_> = self
            .bodies
            .iter()
            .filter(|b| {
                (b.body.body_type == "common" || b.body.body_type == "file") && b.name == "control"
            })
            .cloned()
            .collect();
        let mut out = Vec::new();
        for b in bodies {
            self.cur_file = b.file;
            let path = self
                .files
                .get(b.file)
                .map(|f| f.path.clone())
                .unwrap_or_default();
            let dir = Path::new(&path)
                .parent()
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default();
            self.ctx.this.clear();
            self.ctx.this.insert("promise_filename".into(), path);
            self.ctx.this.insert("promise_dirname".into(), dir);
            self.ctx.frames.push(super::context::Frame {
                ns: b.ns.clone(),
                bundle: "control".into(),
                ..Default::default()
            });
            for a in &b.body.attrs {
                if a.constraint.lval != "inputs" || self.eval_class_str(&a.guard.expr) != Ok(true) {
                    continue;
                }
                let items = match self.eval_rval(&a.constraint.rval) {
                    RvalResult::Value {
                        value: Value::List(_, v),
                        ..
                    } => v,
                    RvalResult::Value {
                        value: Value::Scalar(_, s),
                        ..
                    } => vec![s],
                    _ => Vec::new(),
                };
                for it in items {
                    if it.contains("$(") || it.contains("${") || it.starts_with('@') {
                        continue;
                    }
                    let p = if Path::new(&it).is_absolute() {
                        PathBuf::from(&it)
                    } else if entry_dir.as_os_str().is_empty() {
                        PathBuf::from(format!("./{it}"))
                    } else {
                        entry_dir.join(&it)
                    };
                    out.push(p.to_string_lossy().into_owned());
                }
            }
            self.ctx.frames.pop();
        }
        self.ctx.this.clear();
        out
    }

    /// Loads the inputs that need expansion. Returns false (after logging) when a file cannot be loaded
    /// or has errors.
    pub fn load_expanded_inputs(&mut self, entry: &str) -> bool {
        let entry_dir = Path::new(entry)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        for _ in 0..MAX_INPUT_ROUNDS {
            let known: Vec<PathBuf> = self
                .files
                .iter()
                .map(|f| normalize(Path::new(&f.path)))
                .collect();
            let mut new_files = Vec::new();
            for p in self.expanded_inputs(&entry_dir) {
                let key = normalize(Path::new(&p));
                if known.contains(&key) || new_files.iter().any(|(k, _)| k == &key) {
                    continue;
                }
                new_files.push((key, p));
            }
            if new_files.is_empty() {
                return true;
            }
            for (_, p) in new_files {
                let mut loaded = match crate::load::load_with_inputs(&p) {
                    Ok(l) => l,
                    Err(err) => {
                        self.log(LogLevel::Error, &err.to_string());
                        return false;
                    }
                };
                let known: Vec<PathBuf> = self
                    .files
                    .iter()
                    .map(|f| normalize(Path::new(&f.path)))
                    .collect();
                loaded.retain(|l| !known.contains(&normalize(Path::new(&l.file.path))));
                let report = crate::load::check_all(&loaded);
                if report.has_errors() {
                    for (i, d) in &report.diags {
                        if let Some(l) = loaded.get(*i) {
                            self.out.raw(d.render(&l.file).trim_end().to_string());
                        }
                    }
                    return false;
                }
                self.add_loaded(loaded);
            }
            self.control_common_vars();
            self.policy_resolve();
        }
        true
    }

    /// The whole pre-evaluation: `control_common.*`, round 1, inputs needing expansion (extra rounds),
    /// (for cf-agent) stage 7, round 2. Returns false when loading failed.
    pub fn pre_evaluate(&mut self, entry: &str) -> bool {
        self.control_common_vars();
        self.policy_resolve();
        if !self.load_expanded_inputs(entry) {
            return false;
        }
        // cf-agent's stage 7 runs between the loading rounds and the last PolicyResolve (eval::prelim)
        if self.agent_component {
            self.preliminary_convergence();
        }
        self.control_common_vars();
        self.policy_resolve();
        true
    }
}
