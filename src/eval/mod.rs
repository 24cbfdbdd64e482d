//! The evaluator: one [`Engine`] per run holds the merged policy, the [`context::Context`] (classes,
//! variables, frames), the host, the output and the trace. `preeval` does cf-agent's PolicyResolve
//! rounds, `runner` the three-pass bundle evaluation, `crate::promise` one promise type per file.

pub mod abort;
pub mod augments;
pub mod bodies;
pub mod classtable;
pub mod context;
pub mod counts;
pub mod expansion;
pub mod hostenv;
pub mod iteration_refs;
pub mod loading;
pub mod lowered;
pub mod output;
pub mod preeval;
pub mod prefetch;
pub mod prelim;
pub mod render;
pub mod result;
pub mod runner;
pub mod rval;
pub mod sequence;
pub mod setup;
pub mod this_scope;
pub mod trace;
pub mod vartable;
pub mod verbose;

use std::collections::HashSet;

use crate::fasthash;
use crate::functions::cache::FnCache;
use crate::host::Host;
use crate::source::SourceFile;
use crate::syntax::ast::{Body, Bundle, Promise};
use crate::value::Value;
use context::Context;
use hostenv::HostAdapter;
use output::{LogLevel, Output};
use trace::TraceEvent;

/// Explicit limits of a run. Hitting one is reported where it happens and makes the run's exit code
/// [`EXIT_LIMIT`].
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest nesting of `methods` calls (at most [`MAX_CALL_DEPTH`]).
    pub max_call_depth: usize,
    /// Most iterations of one promise (at least 1).
    pub max_iterations: usize,
    /// Seconds cfsim waits for a line of a promise module's answer before killing it (`--exec`).
    pub module_timeout_secs: u64,
    /// Largest string a variable may hold, in bytes.
    pub max_value_bytes: usize,
    /// Most elements of a list, or values (nodes) of a data container, a variable may hold.
    pub max_list_length: usize,
    /// Most bundle runs (bundlesequence and `methods` calls) in one run: the depth limit alone lets a
    /// bundle that calls itself twice run 2^depth times.
    pub max_bundle_calls: usize,
    /// Most value units (string bytes, plus one per list element or data container value, see
    /// [`Value::work_units`]) the run's function results and variable assignments may add up to: each
    /// value is bounded by the limits above, but a promise iterated many times over a function that
    /// copies a large table would still cost time and memory far past what real policy needs. Past it,
    /// function calls and vars promises are refused.
    pub max_total_values: u64,
}

impl Limits {
    /// Why `v` exceeds the run's value limits (string bytes, list length, data container values), if it does.
    pub fn too_large(&self, v: &Value) -> Option<String> {
        match v {
            Value::Scalar(_, s) if s.len() > self.max_value_bytes => Some(format!(
                "is {} bytes, more than the limit of {} (--max-value-bytes)",
                s.len(),
                self.max_value_bytes
            )),
            Value::List(_, items) if items.len() > self.max_list_length => Some(format!(
                "has {} elements, more than the limit of {} (--max-list-length)",
                items.len(),
                self.max_list_length
            )),
            Value::List(_, items)
                if items.iter().map(String::len).sum::<usize>() > self.max_value_bytes =>
            {
                Some(format!(
                    "holds more than {} bytes of strings (--max-value-bytes)",
                    self.max_value_bytes
                ))
            }
            Value::Data(d)
                if crate::value::json_nodes(d, self.max_list_length + 1) > self.max_list_length =>
            {
                Some(format!(
                    "holds more than {} values (--max-list-length)",
                    self.max_list_length
                ))
            }
            _ => None,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_call_depth: 64,
            max_iterations: 100_000,
            module_timeout_secs: crate::module::promise_module::DEFAULT_TIMEOUT_SECS,
            max_value_bytes: 64 << 20,
            max_list_length: 1_000_000,
            max_bundle_calls: 100_000,
            max_total_values: DEFAULT_MAX_TOTAL_VALUES,
        }
    }
}

/// Default of [`Limits::max_total_values`]: 2^24 units (16,777,216), about a hundred times what a
/// masterfiles run on a bundled profile produces (measured: between 100,000 and 200,000).
pub const DEFAULT_MAX_TOTAL_VALUES: u64 = 1 << 24;

/// Highest `--max-call-depth` accepted: the evaluation thread's stack is sized from the limit
/// ([`stack_bytes`]), so the limit, not the stack, ends a deep recursion.
pub const MAX_CALL_DEPTH: usize = 10_000;

/// Exit code of a run that hit one of its [`Limits`] (the simulation is incomplete).
pub const EXIT_LIMIT: u8 = 3;

/// Stack for an evaluation thread that may nest `max_call_depth` methods calls: 8 MiB for everything
/// else plus 32 KiB a level (measured: about 3 KiB a level in a release build, 10–16 KiB in a debug
/// build, so the margin is at least 2x).
pub fn stack_bytes(max_call_depth: usize) -> usize {
    (8 << 20) + max_call_depth.min(MAX_CALL_DEPTH) * (32 << 10)
}

/// Options of a run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Run `commands` promises for real (`--exec`).
    pub exec: bool,
    /// `-n`: report what would be done, never execute.
    pub dry_run: bool,
    /// Collect the trace.
    pub trace: bool,
    /// Record each event's call path too (the printed traces need it; the run's result does not).
    pub trace_calls: bool,
    /// Record only what the brief result counts (bundle, file, line, type, guard value, outcome):
    /// events without their promiser, written promiser, handle and guard text (`cfsim fleet`'s table).
    pub trace_counts_only: bool,
    /// With `trace_counts_only`: how many promise groups to make room for (what an earlier engine of
    /// the same policy counted; a capacity only).
    pub count_groups_hint: usize,
    pub limits: Limits,
    /// Resolve names with this machine's resolver, DNS included (`--allow-network`; `--exec` implies it).
    pub allow_network: bool,
    /// Programs declared hENC modules (`--henc-module PATH`): merged natively by cfsim.
    pub henc_modules: Vec<String>,
    /// `--assume-commands=succeed|fail`: the answer for a command the host does not know (without it such
    /// a command is not simulated).
    pub assume_commands: Option<crate::expr::host::Assume>,
    /// `--simulate=MODE`: a dry run for reports and commands whose files promises act on the virtual
    /// host, followed by the agent's report.
    pub simulate: Option<crate::host::simreport::Mode>,
    /// The file system state to start from (a previous run's, for the convergence check).
    pub start_files: Option<crate::host::vfs::Vfs>,
    /// Run cf-promises' checks of the whole loaded policy (`syntax::runnable`) in this mode; `None` for
    /// an engine whose policy was validated already.
    pub validation: Option<crate::syntax::runnable::Mode>,
    /// Where file contents past the memory budget go (`--spill-dir`, `--spill-above`).
    pub spill: crate::host::spill::SpillConfig,
}

/// A bundle of the merged policy with its normalised namespace/name and its file.
#[derive(Debug, Clone)]
pub struct BundleDef {
    pub ns: String,
    pub name: String,
    pub bundle: Bundle,
    pub file: usize,
    /// The iteration references of each promise of `bundle`, found once (see
    /// [`BundleDef::iteration_refs`]).
    pub refs: iteration_refs::IterationRefs,
}

impl BundleDef {
    /// An `edit_line` bundle: it runs as the edit of its files promise, not as a bundle of its own —
    /// its normal order is the edit order, it has no `-v` banner, accounting or re-resolution after
    /// its classes, and its vars and classes (not its meta) show as promises of the edit (recorded:
    /// files/*/verbose.out). The one place that decides it.
    pub fn is_edit_line(&self) -> bool {
        self.bundle.bundle_type == "edit_line"
    }

    /// `namespace:name` (built without the formatting machinery: a fleet names every promise's
    /// bundle this way once per host).
    pub fn qualified_name(&self) -> String {
        let mut s = String::with_capacity(self.ns.len() + 1 + self.name.len());
        s.push_str(&self.ns);
        s.push(':');
        s.push_str(&self.name);
        s
    }
}

/// The key of a body in [`Engine::find_body`]'s index: a hash of its namespace and name.
fn body_key(ns: &str, name: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = fasthash::FastHasher::default();
    h.write(ns.as_bytes());
    h.write_u8(0xff);
    h.write(name.as_bytes());
    h.finish()
}

/// Positions by [`body_key`] of (namespace, name), ascending: the index of `bundles` and `bodies`.
fn name_index<'a>(
    names: impl Iterator<Item = (&'a String, &'a String)>,
) -> std::collections::HashMap<u64, Vec<usize>, fasthash::FastState> {
    let mut index = std::collections::HashMap::<u64, Vec<usize>, fasthash::FastState>::default();
    for (i, (ns, name)) in names.enumerate() {
        index.entry(body_key(ns, name)).or_default().push(i);
    }
    index
}

/// A body of the merged policy.
#[derive(Debug, Clone)]
pub struct BodyDef {
    pub ns: String,
    pub name: String,
    pub body: Body,
    pub file: usize,
}

/// Splits a written name `ns:name` (or `name` in `default_ns`).
pub fn split_ns<'a>(written: &'a str, default_ns: &'a str) -> (&'a str, &'a str) {
    match crate::expr::split_once_byte(written, b':') {
        Some((ns, n)) => (ns, n),
        None => (default_ns, written),
    }
}

/// The literal `meta: "tags" slist => { … }` of a bundle (what `bundlesmatching` filters on).
fn meta_tags(b: &Bundle) -> Vec<String> {
    let mut out = Vec::new();
    for s in b.sections.iter().filter(|s| s.promise_type == "meta") {
        for p in s.promises.iter().filter(|p| p.promiser.value == "tags") {
            for c in &p.constraints {
                if let crate::syntax::ast::Rval::List(items, _) = &c.rval {
                    for i in items {
                        if let crate::syntax::ast::Rval::Scalar(x) = i {
                            out.push(x.value.clone());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Aggregated outcome of a bundle activation (for methods).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agg {
    pub repaired: bool,
    pub failed: bool,
}

/// Outcome of one actuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Kept,
    Repaired,
    Failed,
}

impl Outcome {
    /// The trace name.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Kept => "kept",
            Outcome::Repaired => "repaired",
            Outcome::Failed => "failed",
        }
    }
}

/// One file's definitions (see [`Engine::file_defs`]).
#[derive(Debug, Default)]
pub struct FileDefs {
    pub bundles: Vec<std::sync::Arc<BundleDef>>,
    pub bodies: Vec<std::sync::Arc<BodyDef>>,
}

/// The whole state of one run.
pub struct Engine<'h> {
    pub ctx: Context,
    pub files: Vec<std::sync::Arc<SourceFile>>,
    /// Shared so that evaluation can hold a bundle while mutating the engine, and shared between the
    /// engines of one policy (see [`lowered`]): no AST copies. Change only through
    /// [`Engine::add_lowered`] and [`Engine::reorder_bundles`], which keep `bundle_index` in step.
    pub bundles: Vec<std::sync::Arc<BundleDef>>,
    /// Positions in `bundles` by a hash of (namespace, name), ascending (see [`Engine::find_bundle`]).
    bundle_index: std::collections::HashMap<u64, Vec<usize>, fasthash::FastState>,
    /// Change only through [`Engine::add_lowered`] and [`Engine::reorder_bodies`], which keep
    /// `body_index` in step.
    pub bodies: Vec<std::sync::Arc<BodyDef>>,
    /// Positions in `bodies` by a hash of (namespace, name), ascending (see [`Engine::find_body`]).
    body_index: std::collections::HashMap<u64, Vec<usize>, fasthash::FastState>,
    /// Each file's bundles and bodies in source order, by file index (not reordered by the merge):
    /// a loading round or an `inputs` lookup reads its file's definitions without scanning all.
    file_defs: Vec<FileDefs>,
    pub host: HostAdapter<'h>,
    pub cache: FnCache,
    pub out: Output,
    pub opts: RunOptions,
    /// Digests of actuated promises ("already done", §3.3).
    pub done: HashSet<u128, fasthash::FastState>,
    /// The agent's `EDIT_ANCHORS`: each `select_line_matching` anchor of an insert_lines promise seen
    /// in stage 7, with the bundle that first used it.
    pub edit_anchors: std::collections::HashMap<String, String, fasthash::FastState>,
    /// Handles of kept/repaired promises.
    pub handles: HashSet<String, fasthash::FastState>,
    pub trace: Vec<TraceEvent>,
    /// The event being built for the promise under evaluation.
    pub cur: TraceEvent,
    /// The outcome tallies, instead of the trace, when only they are asked for
    /// ([`RunOptions::trace_counts_only`]).
    pub tallies: counts::Counts,
    /// Outcome aggregation per frame.
    pub aggs: Vec<Agg>,
    /// `bundle_return_value_index` results per frame.
    pub results: Vec<Vec<(String, String)>>,
    /// The `bundle_return_value_index` results of the activation that just ended.
    pub last_results: Vec<(String, String)>,
    pub pass: u8,
    /// The agent's pass counter as `-v` shows it: one global, set before each promise of a pass and left
    /// at the last pass of a called bundle (so later iterations of a methods promise say pass 3).
    pub agent_pass: u8,
    /// The agent's global "bundle arguments" as `-v` banners show them (`name( {…})`, empty: none): set
    /// when a bundle starts, cleared when it returns, not restored for the caller.
    pub bundle_args: String,
    /// Set by `methods` just before a call: the kind of each argument (`s` scalar, `f` function call).
    pub pending_arg_kinds: Vec<char>,
    /// The conditions of the binding under evaluation, already evaluated during its expansion.
    pub cond_cache: Option<Option<runner::Skip>>,
    /// Trace stage of the evaluation under way: `preeval`, `pass` or `resolve`.
    pub stage: &'static str,
    /// 1-based index of the iteration binding under evaluation.
    pub iteration: usize,
    /// Promise counts per frame (for the verbose accounting summary).
    pub counts: Vec<verbose::Counts>,
    /// Set by `methods` just before a call: the caller's stack path and the call as written.
    pub pending_call: Option<(String, String)>,
    /// A fatal error stopped the run (printed already); exit code 1.
    pub fatal: bool,
    /// What the checks of the whole loaded policy printed on standard error (a failed load).
    pub check_stderr: String,
    /// A class matching `abortbundleclasses` was defined: the running bundle stops after this promise.
    pub bundle_aborted: bool,
    /// The `abortbundleclasses` regexes, once read (see [`abort`]).
    pub abort_bundle_classes: Option<Vec<String>>,
    /// A limit of [`Limits`] was hit (the run goes on; its exit code becomes [`EXIT_LIMIT`]).
    pub limit_hit: bool,
    /// Value units the run may still produce ([`Limits::max_total_values`]), and whether running out was
    /// reported (once).
    pub work_left: u64,
    pub work_said: bool,
    /// Bundle runs so far (see [`Limits::max_bundle_calls`]).
    pub bundle_calls: usize,
    /// Custom promise types declared with `promise agent NAME`: name, attributes, file.
    pub promise_types: Vec<(String, Vec<crate::syntax::ast::Constraint>, usize)>,
    /// Bundle (index) and file of the promise under evaluation.
    pub cur_file: usize,
    /// (file index, absolute path) of the last file `this.promise_filename` was computed for.
    this_path: Option<(usize, String, usize)>,
    /// Promise modules started for custom promise types (`--exec`), terminated at the end of the run.
    pub modules: crate::promise::custom::Modules,
    /// Function calls already evaluated for the promise binding under evaluation (the agent's expanded
    /// promise copy): later evaluations of the same call reuse the outcome silently.
    pub fn_memo: Option<expansion::FnMemo>,
    /// Messages of function calls say which tool runs them (`cf-promises` or `cf-agent`).
    pub agent_component: bool,
    /// Input files parsed by earlier engines of the same policy (see [`prefetch::FileCache`]).
    pub file_cache: Option<std::sync::Arc<prefetch::FileCache>>,
    /// The file an `edit_line` bundle is editing (set while it runs).
    pub edit: Option<crate::promise::files::EditState>,
    /// Legacy `package_method` actions scheduled in the bundle under evaluation (run at its end).
    pub package_schedule: Vec<crate::promise::packages::legacy::Scheduled>,
    /// The `this.service_policy` the last evaluated iteration of a services promise left, with the
    /// promise and pass it belongs to (see [`crate::promise::services`]).
    pub service_policy_left: Option<(String, String)>,
    /// Whether the agent knows the policy's bundle names yet: not while the files are loaded (their
    /// PolicyResolve rounds), from then on. Until then a vars promise into another existing bundle
    /// (`other.y`) is remembered in `remote_vars` instead of rejected.
    pub bundle_names_known: bool,
    /// `(target bundle, lval)` of vars promises remembered while loading; the target's next
    /// BundleResolve logs `Ignoring remotely-injected variable 'lval'` for each and forgets them.
    pub remote_vars: Vec<(String, String)>,
}

impl<'h> Engine<'h> {
    /// A fresh engine over loaded files for `host`.
    pub fn new(
        loaded: Vec<crate::load::Loaded>,
        host: &'h Host,
        level: LogLevel,
        opts: RunOptions,
    ) -> Engine<'h> {
        let mut e = Engine::empty(host, level, opts);
        e.add_loaded(loaded);
        e
    }

    /// A fresh engine over files lowered already (file `i` lowered as index `i`), sharing them.
    pub fn from_lowered(
        files: &[std::sync::Arc<lowered::Lowered>],
        host: &'h Host,
        level: LogLevel,
        opts: RunOptions,
    ) -> Engine<'h> {
        let mut e = Engine::empty(host, level, opts);
        for (i, f) in files.iter().enumerate() {
            match f.at(i) {
                Some(l) => e.add_lowered(&l),
                // lowered as another index: lowering it again here is not possible (no syntax
                // tree kept); never the case for a policy's own files, which are lowered in order
                None => e.add_lowered(f),
            }
        }
        e
    }

    /// An engine without files.
    fn empty(host: &'h Host, level: LogLevel, opts: RunOptions) -> Engine<'h> {
        let max_total_values = opts.limits.max_total_values;
        let mut adapter = HostAdapter::new(host);
        adapter.allow_exec = opts.exec && !opts.dry_run;
        adapter.allow_network = opts.exec || opts.allow_network;
        adapter.assume = opts.assume_commands;
        let count_room = if opts.trace_counts_only {
            opts.count_groups_hint
        } else {
            0
        };
        match &opts.start_files {
            Some(v) => adapter.vfs = v.carried(),
            None => adapter.vfs.set_spill(&opts.spill),
        }
        Engine {
            ctx: Context::for_host(),
            files: Vec::new(),
            bundles: Vec::new(),
            bodies: Vec::new(),
            body_index: Default::default(),
            bundle_index: Default::default(),
            file_defs: Vec::new(),
            host: adapter,
            cache: FnCache::default(),
            out: Output::new(level),
            opts,
            done: HashSet::default(),
            edit_anchors: std::collections::HashMap::default(),
            handles: HashSet::default(),
            trace: Vec::new(),
            cur: TraceEvent::default(),
            tallies: counts::Counts::with_capacity(count_room),
            aggs: Vec::new(),
            results: Vec::new(),
            last_results: Vec::new(),
            pass: 0,
            agent_pass: 0,
            bundle_args: String::new(),
            pending_arg_kinds: Vec::new(),
            cond_cache: None,
            stage: "preeval",
            iteration: 1,
            counts: Vec::new(),
            pending_call: None,
            fatal: false,
            check_stderr: String::new(),
            bundle_aborted: false,
            abort_bundle_classes: None,
            limit_hit: false,
            work_left: max_total_values,
            work_said: false,
            bundle_calls: 0,
            cur_file: 0,
            this_path: None,
            promise_types: Vec::new(),
            modules: Default::default(),
            fn_memo: None,
            agent_component: true,
            file_cache: None,
            edit: None,
            package_schedule: Vec::new(),
            service_policy_left: None,
            bundle_names_known: false,
            remote_vars: Vec::new(),
        }
    }

    /// Adds loaded files to the policy (bundles and bodies indexed by namespace and name).
    pub fn add_loaded(&mut self, loaded: Vec<crate::load::Loaded>) {
        for l in loaded {
            let lowered = lowered::Lowered::new(l, self.files.len());
            self.add_lowered(&lowered);
        }
    }

    /// Adds one lowered file, which must have been lowered as the next file index.
    pub fn add_lowered(&mut self, l: &lowered::Lowered) {
        let i = self.files.len();
        for b in &l.bundles {
            self.ctx.bundles.push(crate::expr::env::BundleInfo {
                ns: b.ns.clone(),
                name: b.name.clone(),
                tags: Vec::new(),
            });
            self.bundle_index
                .entry(body_key(&b.ns, &b.name))
                .or_default()
                .push(self.bundles.len());
            self.bundles.push(std::sync::Arc::clone(b));
        }
        for (name, attrs) in &l.promise_types {
            self.promise_types.push((name.clone(), attrs.clone(), i));
        }
        for b in &l.bodies {
            self.body_index
                .entry(body_key(&b.ns, &b.name))
                .or_default()
                .push(self.bodies.len());
            self.bodies.push(std::sync::Arc::clone(b));
        }
        self.file_defs.push(FileDefs {
            bundles: l.bundles.clone(),
            bodies: l.bodies.clone(),
        });
        self.files.push(std::sync::Arc::clone(&l.file));
    }

    /// The bundles and bodies of file `file`, in source order (empty for an unknown index).
    pub fn file_defs(&self, file: usize) -> &FileDefs {
        static NONE: FileDefs = FileDefs {
            bundles: Vec::new(),
            bodies: Vec::new(),
        };
        self.file_defs.get(file).unwrap_or(&NONE)
    }

    /// Sorts the bundles by `rank` (stable), the context's bundle list (what `bundlesmatching()`
    /// walks, with the tags) in the same order, and indexes their new positions.
    pub fn reorder_bundles(&mut self, rank: impl Fn(&BundleDef) -> usize) {
        let mut order: Vec<usize> = (0..self.bundles.len()).collect();
        order.sort_by_key(|&i| self.bundles.get(i).map_or(usize::MAX, |b| rank(b)));
        let defs = std::mem::take(&mut self.bundles);
        self.bundles = order.iter().filter_map(|&i| defs.get(i).cloned()).collect();
        // one entry per bundle, pushed together by `add_lowered`
        if self.ctx.bundles.len() == defs.len() {
            let infos = std::mem::take(&mut self.ctx.bundles);
            self.ctx.bundles = order
                .iter()
                .filter_map(|&i| infos.get(i).cloned())
                .collect();
        }
        self.bundle_index = name_index(self.bundles.iter().map(|b| (&b.ns, &b.name)));
    }

    /// Sorts the bodies by `rank` (stable) and indexes their new positions.
    pub fn reorder_bodies(&mut self, rank: impl Fn(&BodyDef) -> usize) {
        self.bodies.sort_by_key(|b| rank(b));
        self.body_index = name_index(self.bodies.iter().map(|b| (&b.ns, &b.name)));
    }

    /// Bundle tags from `meta: "tags"` promises, as the agent's preliminary evaluation (stage 7) makes
    /// them visible to `bundlesmatching` (cf-promises does not).
    pub fn apply_meta_tags(&mut self) {
        for (info, def) in self.ctx.bundles.iter_mut().zip(&self.bundles) {
            info.tags = meta_tags(&def.bundle);
        }
    }

    /// Finds a bundle by namespace and name, agent bundles before common ones.
    pub fn find_bundle(&self, ns: &str, name: &str) -> Option<usize> {
        // the first in policy order of each kind, as a scan of `bundles` finds it
        let same: &[usize] = self
            .bundle_index
            .get(&body_key(ns, name))
            .map_or(&[], Vec::as_slice);
        let named = |i: &&usize| {
            self.bundles
                .get(**i)
                .is_some_and(|b| b.ns == ns && b.name == name)
        };
        let hit = |t: &str| {
            same.iter()
                .filter(named)
                .find(|&&i| {
                    self.bundles
                        .get(i)
                        .is_some_and(|b| b.bundle.bundle_type == t)
                })
                .copied()
        };
        hit("agent")
            .or_else(|| hit("common"))
            .or_else(|| same.iter().find(named).copied())
    }

    /// Finds a body of `body_type` by its written name, from namespace `ns`.
    pub fn find_body(
        &self,
        body_type: &str,
        written: &str,
        ns: &str,
    ) -> Option<&std::sync::Arc<BodyDef>> {
        let (ns, name) = split_ns(written, ns);
        // the first in policy order, as a scan of `bodies` finds it
        self.body_index
            .get(&body_key(ns, name))?
            .iter()
            .filter_map(|&i| self.bodies.get(i))
            .find(|b| b.name == name && b.ns == ns && b.body.body_type == body_type)
    }

    /// The path of file `file` as loaded (empty if there is no such file).
    pub fn file_path(&self, file: usize) -> String {
        self.files
            .get(file)
            .map(|f| f.path.clone())
            .unwrap_or_default()
    }

    /// Line of a promise's promiser.
    pub fn line_of(&self, p: &Promise) -> usize {
        self.files
            .get(self.cur_file)
            .map_or(0, |f| f.lines.line(p.promiser.span.start))
    }

    /// The line the agent's parser was on when it had read the promiser: its last line (a
    /// promiser string may span lines); the line of `promise_<file>_<line>` handles (recorded:
    /// files/insert-multiline-literal/verbose.out).
    pub fn promiser_end_line_of(&self, p: &Promise) -> usize {
        let end = p
            .promiser
            .span
            .end
            .max(p.promiser.span.start.saturating_add(1))
            - 1;
        self.files
            .get(self.cur_file)
            .map_or(0, |f| f.lines.line(end))
    }

    /// Logs a message at `level`.
    pub fn log(&mut self, level: LogLevel, msg: &str) {
        self.out.log(level, msg);
    }
}
