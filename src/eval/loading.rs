//! Loading the policy as cf-agent 3.21's `LoadPolicy` does it (libpromises/loading.c): the entry file is
//! resolved on its own (PolicyResolve over its bundles and control bodies), then the active `inputs` of
//! its `body common control` and `body file control` are loaded one by one, depth first: each file is
//! resolved on its own as soon as it is parsed, and an `inputs` entry containing `$(…)`/`${…}` first
//! re-resolves the files this list has loaded so far. The merged policy (each file followed by what it
//! loaded) is then resolved once more as a whole. Files already loaded (same normalised path) are
//! skipped. Variables enter the agent's table in this order, which decides classic array orders.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::fasthash::FastState;
use crate::load::normalize;

use super::output::LogLevel;
use super::Engine;
use crate::syntax::ast::Rval;

/// Deepest nesting of files loading files.
pub const MAX_LOAD_DEPTH: usize = 64;

/// An `inputs` entry joined to the entry file's directory (`./x.cf` when that is the working directory).
fn full_path(entry_dir: &Path, input: &str) -> PathBuf {
    if Path::new(input).is_absolute() {
        PathBuf::from(input)
    } else if entry_dir.as_os_str().is_empty() {
        PathBuf::from(format!("./{input}"))
    } else {
        entry_dir.join(input)
    }
}

/// Whether an `inputs` entry contains a variable reference (`IsExpandable`: `$(` or `${`, balanced).
fn expandable(s: &str) -> bool {
    let b = s.as_bytes();
    let mut depth = 0i32;
    let mut open = None;
    let mut vars = 0;
    let mut i = 0;
    while i < b.len() {
        match b.get(i) {
            Some(b'$') if matches!(b.get(i + 1), Some(b'(') | Some(b'{')) => {
                if depth == 0 {
                    open = b.get(i + 1).copied();
                }
                depth += 1;
                i += 1;
            }
            Some(b')') | Some(b'}') if depth > 0 => {
                depth -= 1;
                if depth == 0 && open.is_some() {
                    vars += 1;
                    open = None;
                }
            }
            _ => {}
        }
        i += 1;
    }
    depth == 0 && vars > 0
}

/// State of one load: which files were reached, in merge order.
struct LoadState {
    /// File indices in merge order (a file, then what it loaded).
    order: Vec<usize>,
    /// The files in `order` (asked for every input entry: a set, not a scan of `order`).
    ordered: HashSet<usize, FastState>,
    entry_dir: PathBuf,
    failed: bool,
    /// Parses the files an `inputs` list names ahead, on a second thread.
    /// Started when the first file is queued (a policy whose inputs are all cached needs none).
    prefetch: Option<super::prefetch::Prefetcher>,
    /// Whether a prefetcher may be started (more than one CPU; cleared when it could not start).
    can_prefetch: bool,
    /// Normalised path of every file in the engine → its file index (the first, for a path loaded
    /// twice): one lookup per input entry, not a scan of every file.
    known: HashMap<PathBuf, usize, FastState>,
    /// Input files that do not exist, skipped under `ignore_missing_inputs`.
    missing: Vec<String>,
}

impl Engine<'_> {
    /// Loads and pre-evaluates the policy of entry file `entry` (already file 0). Returns false (after
    /// logging) when a file cannot be loaded or has errors.
    pub fn load_policy(&mut self, entry: &str) -> bool {
        let mut st = LoadState {
            order: Vec::new(),
            ordered: HashSet::default(),
            entry_dir: Path::new(entry)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            failed: false,
            prefetch: None,
            // asked of `Prefetcher::start` when there is a file to prefetch: the CPU count reads the
            // cgroup limits, which a policy without literal inputs does not need
            can_prefetch: true,
            known: HashMap::default(),
            missing: Vec::new(),
        };
        for (i, f) in self.files.iter().enumerate() {
            st.known.entry(normalize(Path::new(&f.path))).or_insert(i);
        }
        self.load_file(0, &mut st, 0);
        st.prefetch = None;
        // the agent then hashes the policy files it was given, missing ones included
        for m in std::mem::take(&mut st.missing) {
            self.log(
                LogLevel::Info,
                &format!("Cannot open file for hashing '{m}'. (fopen: No such file or directory)"),
            );
        }
        if st.failed {
            return false;
        }
        // files loaded up front (literal inputs) that no active `inputs` reached stay at the end
        for i in 0..self.files.len() {
            if st.ordered.insert(i) {
                st.order.push(i);
            }
        }
        self.merge_order(&st.order);
        if let Some(mode) = self.opts.validation {
            let rc = self.common_control_rval("require_comments");
            let require_comments = crate::syntax::runnable::comments_required(rc.as_ref());
            // the checks read only the loaded files (the same text for the same path: the policy's
            // file cache) and their order, so engines of one policy that loaded the same files in the
            // same order share one result (a fleet validates the masterfiles once, not per host)
            let key = self.file_cache.as_ref().map(|_| super::prefetch::CheckKey {
                paths: self.files.iter().map(|f| f.path.clone()).collect(),
                order: st.order.clone(),
                check_runnable: mode.check_runnable,
                dash_b: mode.dash_b,
                require_comments,
            });
            let known = match (&self.file_cache, &key) {
                (Some(c), Some(k)) => c.checked(k),
                _ => None,
            };
            let errors = match known {
                Some(errors) => errors,
                None => {
                    let merged = crate::syntax::runnable::Merged {
                        bundles: self.bundles.iter().map(|b| (&b.bundle, b.file)).collect(),
                        bodies: self.bodies.iter().map(|b| &b.body).collect(),
                        files: &self.files,
                    };
                    let errors = crate::syntax::runnable::check(&merged, mode, require_comments);
                    if let (Some(c), Some(k)) = (&self.file_cache, key) {
                        c.keep_checked(k, &errors);
                    }
                    errors
                }
            };
            if !errors.is_empty() {
                self.check_stderr = errors.iter().map(|e| e.render(&self.files)).collect();
                return false;
            }
        }
        // from here on the agent knows the bundle names (a vars promise into another bundle is rejected)
        self.bundle_names_known = true;
        // cf-agent's stage 7 runs between the loading rounds and the last PolicyResolve (eval::prelim)
        if self.agent_component {
            self.preliminary_convergence();
            if self.fatal {
                return false;
            }
        }
        self.policy_resolve();
        match self.opts.validation {
            Some(m) if m.check_runnable && !m.dash_b => self.verify_bundlesequence(),
            _ => true,
        }
    }

    /// Puts bundles and bodies in the merged policy's order.
    fn merge_order(&mut self, order: &[usize]) {
        // each file's first place in `order`, looked up per bundle and body (not a scan of `order`)
        let mut ranks = vec![usize::MAX; self.files.len()];
        for (r, &f) in order.iter().enumerate().rev() {
            if let Some(slot) = ranks.get_mut(f) {
                *slot = r;
            }
        }
        let rank = |f: usize| ranks.get(f).copied().unwrap_or(usize::MAX);
        self.reorder_bundles(|b| rank(b.file));
        self.reorder_bodies(|b| rank(b.file));
    }

    /// Resolves file `file` (already in the engine), then loads its inputs.
    fn load_file(&mut self, file: usize, st: &mut LoadState, depth: usize) {
        st.order.push(file);
        st.ordered.insert(file);
        self.policy_resolve_files(Some(&[file]));
        if depth >= MAX_LOAD_DEPTH {
            self.log(
                LogLevel::Error,
                &format!("inputs nested deeper than {MAX_LOAD_DEPTH} files; not loading more"),
            );
            return;
        }
        for body_type in ["common", "file"] {
            let Some(items) = self.active_inputs(file, body_type) else {
                continue;
            };
            self.queue_prefetch(file, &items, st);
            let start = st.order.len();
            for item in &items {
                if st.failed {
                    return;
                }
                if let Rval::Scalar(s) = item {
                    if expandable(&s.value) {
                        let aux: Vec<usize> = st.order.get(start..).unwrap_or(&[]).to_vec();
                        if !aux.is_empty() {
                            self.policy_resolve_files(Some(&aux));
                        }
                    }
                }
                for path in self.input_paths(file, item) {
                    self.load_path(&path, st, depth);
                }
            }
        }
    }

    /// The `inputs` list of the first `body <body_type> control` of `file` whose class guard holds.
    fn active_inputs(&mut self, file: usize, body_type: &str) -> Option<Vec<Rval>> {
        let body = self
            .file_defs(file)
            .bodies
            .iter()
            .find(|b| b.name == "control" && b.body.body_type == body_type)
            .cloned()?;
        self.cur_file = file;
        for a in &body.body.attrs {
            if a.constraint.lval != "inputs" || self.eval_class_str(&a.guard.expr) != Ok(true) {
                continue;
            }
            return match &a.constraint.rval {
                Rval::List(items, _) => Some(items.clone()),
                other => Some(vec![other.clone()]),
            };
        }
        None
    }

    /// Hands the files of the entries that need no resolving (`"x.cf"`, `@(list)`) to the prefetcher.
    fn queue_prefetch(&mut self, file: usize, items: &[Rval], st: &mut LoadState) {
        if !st.can_prefetch {
            return;
        }
        let mut paths = Vec::new();
        for item in items {
            let Rval::Scalar(s) = item else { continue };
            if expandable(&s.value) {
                continue;
            }
            for input in self.input_paths_quiet(file, item) {
                let p = full_path(&st.entry_dir, &input);
                let path = p.to_string_lossy().into_owned();
                let cached = self.file_cache.as_ref().is_some_and(|c| c.contains(&path));
                if !cached && !st.known.contains_key(&normalize(&p)) {
                    paths.push(path);
                }
            }
        }
        // one file is needed at once: the worker could not run ahead of the loader, only add a thread
        // start and a hand-over (the masterfiles' lib/*.cf each load lib/common.cf so)
        if paths.is_empty() || (st.prefetch.is_none() && paths.len() < 2) {
            return;
        }
        if st.prefetch.is_none() {
            st.prefetch = super::prefetch::Prefetcher::start();
            st.can_prefetch = st.prefetch.is_some();
        }
        if let Some(pf) = &st.prefetch {
            pf.queue(paths);
        }
    }

    /// The file names one `inputs` entry stands for, resolved against the entry file's directory.
    fn input_paths(&mut self, file: usize, item: &Rval) -> Vec<String> {
        let (out, unresolved) = self.input_names(file, item);
        for it in unresolved {
            self.log(
                LogLevel::Error,
                &format!("Unresolved variable '{it}' in input list, cannot parse"),
            );
        }
        out
    }

    /// Like [`Self::input_paths`], without logging.
    fn input_paths_quiet(&mut self, file: usize, item: &Rval) -> Vec<String> {
        self.input_names(file, item).0
    }

    /// (file names, entries left with unresolved references) of one `inputs` entry.
    fn input_names(&mut self, file: usize, item: &Rval) -> (Vec<String>, Vec<String>) {
        let path = self.file_path(file);
        let dir = Path::new(&path)
            .parent()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.ctx.clear_this();
        self.ctx.put_this("promise_filename", &path);
        self.ctx.put_this("promise_dirname", &dir);
        self.ctx.frames.push(super::context::Frame {
            ns: "default".into(),
            bundle: "control".into(),
            ..Default::default()
        });
        let span = match item {
            Rval::Scalar(s) => s.span,
            _ => Default::default(),
        };
        let items = self.list_of(&Rval::List(vec![item.clone()], span));
        self.ctx.frames.pop();
        self.ctx.clear_this();
        items
            .into_iter()
            .partition(|it| !(it.contains("$(") || it.contains("${") || it.starts_with("@(")))
    }

    /// Loads one input file (unless already loaded) and what it loads.
    fn load_path(&mut self, input: &str, st: &mut LoadState, depth: usize) {
        let p = full_path(&st.entry_dir, input);
        let key = normalize(&p);
        let known = st.known.get(&key).copied();
        let index = match known {
            Some(i) if st.ordered.contains(&i) => return,
            Some(i) => i,
            None if std::fs::metadata(&p).is_err() && self.ignores_missing_inputs() => {
                st.missing.push(p.to_string_lossy().into_owned());
                return;
            }
            None => match self.load_new(&p.to_string_lossy(), st.prefetch.as_ref()) {
                Some(i) => {
                    st.known.entry(key).or_insert(i);
                    i
                }
                None => {
                    st.failed = true;
                    return;
                }
            },
        };
        self.load_file(index, st, depth + 1);
    }

    /// Whether an active `ignore_missing_inputs` of a `body common control` is true.
    fn ignores_missing_inputs(&mut self) -> bool {
        let bodies: Vec<_> = self
            .bodies
            .iter()
            .filter(|b| b.name == "control" && b.body.body_type == "common")
            .cloned()
            .collect();
        let saved = self.cur_file;
        let mut found = false;
        'bodies: for b in bodies {
            self.cur_file = b.file;
            for a in &b.body.attrs {
                if a.constraint.lval != "ignore_missing_inputs"
                    || self.eval_class_str(&a.guard.expr) != Ok(true)
                {
                    continue;
                }
                if let Rval::Scalar(v) = &a.constraint.rval {
                    found = matches!(v.value.as_str(), "true" | "yes" | "on");
                    break 'bodies;
                }
            }
        }
        self.cur_file = saved;
        found
    }

    /// Parses and checks a file not loaded yet; its index, or `None` after logging the errors.
    fn load_new(
        &mut self,
        path: &str,
        prefetch: Option<&super::prefetch::Prefetcher>,
    ) -> Option<usize> {
        let index = self.files.len();
        // checked without error when it was cached
        if let Some(l) = self
            .file_cache
            .as_ref()
            .and_then(|c| c.get(path))
            .and_then(|l| l.at(index))
        {
            self.add_lowered(&l);
            return Some(index);
        }
        let (parsed, report) = match prefetch {
            Some(pf) => pf.take(path),
            None => super::prefetch::parse(path),
        };
        let loaded = match parsed {
            Ok(l) => l,
            Err(err) => {
                self.log(LogLevel::Error, &err.to_string());
                return None;
            }
        };
        let report =
            report.unwrap_or_else(|| crate::load::check_all(std::slice::from_ref(&loaded)));
        if report.has_errors() {
            for (_, d) in &report.diags {
                self.out.raw(d.render(&loaded.file).trim_end().to_string());
            }
            return None;
        }
        let lowered = std::sync::Arc::new(super::lowered::Lowered::new(loaded, index));
        if let Some(c) = &self.file_cache {
            c.put(path, &lowered);
        }
        self.add_lowered(&lowered);
        Some(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expandable_needs_a_closed_dollar_reference() {
        assert!(expandable("$(sys.libdir)/x.cf"));
        assert!(expandable("${a}"));
        assert!(!expandable("@(x.inputs)"));
        assert!(!expandable("lib/x.cf"));
        assert!(!expandable("$(open"));
    }
}
