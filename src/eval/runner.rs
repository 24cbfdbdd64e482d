//! The bundle runner (cf-agent's `ScheduleAgentOperations`): the normal-order table, exactly three
//! passes per activation, BundleResolve after the classes section, iteration over list references,
//! the per-promise skip rules (`if`/`unless`/`ifvarclass`, `depends_on`), the "already done" digest and
//! the trace event of every evaluation.

use super::output::LogLevel;
use super::trace::TraceEvent;
use super::{Agg, BundleDef, Engine};
use crate::expr::iterate;
use crate::syntax::ast::{Promise, Rval};
use crate::value::Value;

/// Normal order of promise types in agent and common bundles (custom types run after, in declaration
/// order).
pub const NORMAL_ORDER: &[&str] = &[
    "meta",
    "vars",
    "defaults",
    "classes",
    "users",
    "files",
    "packages",
    "guest_environments",
    "methods",
    "processes",
    "services",
    "commands",
    "storage",
    "databases",
    "reports",
];

/// Normal order in edit_line bundles.
pub const EDIT_LINE_ORDER: &[&str] = &[
    "vars",
    "classes",
    "delete_lines",
    "field_edits",
    "insert_lines",
    "replace_patterns",
    "reports",
];

/// `path` made absolute against the working directory without normalising (`./x.cf` → `/cwd/./x.cf`),
/// as the agent forms `this.promise_filename`.
pub fn absolute_keep_dots(path: &str) -> String {
    if path.starts_with('/') {
        return path.to_string();
    }
    // the working directory of a run does not change: ask the system once per thread
    thread_local! {
        static CWD: Option<String> = std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string());
    }
    CWD.with(|cwd| match cwd {
        Some(d) => format!("{d}/{path}"),
        None => path.to_string(),
    })
}

/// `n` in decimal, written into `buf` (no allocation).
fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("0")
}

/// Why a promise was skipped by its conditions.
pub type Skip = &'static str;

/// `$(this.promiser_pid)`: the agent's process id, defined in every promise (recorded:
/// eval/thirdparty/promiser_pid). A simulation has no agent process; a fixed number keeps runs
/// reproducible.
pub const SIMULATED_AGENT_PID: &str = "4242";

impl Engine<'_> {
    /// Runs bundle `bi` with `args`: frame, parameters, (BundleResolve when called by methods), three
    /// passes, then the frame and parameters are removed. Returns the aggregated outcome.
    pub fn run_bundle(
        &mut self,
        bi: usize,
        args: &[Option<Value>],
        via_methods: bool,
        inherit: bool,
        caller_promiser: &str,
    ) -> Agg {
        let Some(def) = self.bundles.get(bi).cloned() else {
            return Agg::default();
        };
        if self.bundle_calls >= self.opts.limits.max_bundle_calls {
            // said once: every later call is refused the same way
            if self.bundle_calls == self.opts.limits.max_bundle_calls {
                self.log(
                    LogLevel::Error,
                    &format!(
                        "cfsim: more than {} bundle calls in this run (--max-bundle-calls); not calling '{}' nor any bundle after it",
                        self.opts.limits.max_bundle_calls, def.name
                    ),
                );
                self.bundle_calls += 1;
            }
            self.limit_hit = true;
            return Agg {
                repaired: false,
                failed: true,
            };
        }
        self.bundle_calls += 1;
        if self.ctx.frames.len() >= self.opts.limits.max_call_depth {
            self.limit_hit = true;
            self.log(
                LogLevel::Error,
                &format!(
                    "cfsim: methods nested deeper than {} bundles; not calling '{}'",
                    self.opts.limits.max_call_depth, def.name
                ),
            );
            return Agg {
                repaired: false,
                failed: true,
            };
        }
        let saved_pass = self.pass;
        let saved_overlay = std::mem::take(&mut self.ctx.overlay);
        let saved_this = self.ctx.take_this();
        let saved_file = self.cur_file;
        let (stack, call_text) = self.pending_call.take().unwrap_or_default();
        self.ctx.frames.push(super::context::Frame {
            ns: def.ns.clone(),
            bundle: def.name.clone(),
            inherit,
            caller_promiser: caller_promiser.to_string(),
            stack,
            call_text,
            ..Default::default()
        });
        let params: Vec<String> = def.bundle.params.clone();
        for (p, v) in params.iter().zip(args) {
            let Some(v) = v else {
                continue;
            };
            self.ctx.set_var(
                (def.ns.clone(), def.name.clone(), p.clone()),
                v.clone(),
                vec!["source=promise".into()],
            );
        }
        self.aggs.push(Agg::default());
        self.counts.push(super::verbose::Counts::default());
        self.results.push(Vec::new());
        // an edit_line bundle runs inside its files promise: -v shows its promises only (no bundle
        // banner, no accounting; recorded: files/*/verbose.out)
        let edit = def.is_edit_line();
        if !edit {
            self.verbose_bundle_begin(&def);
        }
        // an edit_line bundle's promises show the calling bundle's arguments (recorded:
        // files/std-file-make-bundles/verbose.out)
        if !edit {
            self.bundle_args = self
                .ctx
                .frames
                .last()
                .map(|f| f.call_text.clone())
                .unwrap_or_default();
        }
        // per parameter: the agent's note with the argument's kind (`s` scalar, `f` function call), then
        // the error of a call argument that gave no scalar (recorded: policies/agent/methods_args)
        let kinds = std::mem::take(&mut self.pending_arg_kinds);
        for (i, p) in params.iter().enumerate() {
            let kind = kinds.get(i).copied().unwrap_or('s');
            if self.verbose_on() {
                // a lone `@(x)` naming no list is a scalar parameter, after an error (below)
                let shown = if kind == 'l' { 's' } else { kind };
                self.log(
                    super::output::LogLevel::Verbose,
                    &format!(
                        "V:     +  Private parameter: '{p}' in scope '{}' (type: {shown}) in pass {}",
                        def.name, self.agent_pass
                    ),
                );
            }
            if kind == 'l' {
                if let Some(msg) = crate::promise::methods::naked_arg_error(args.get(i), &def.name)
                {
                    self.log(LogLevel::Error, &msg);
                }
            }
            if kind == 'f' && matches!(args.get(i), Some(None)) {
                self.log(
                    LogLevel::Error,
                    "Only functions returning scalars can be used as arguments",
                );
            }
        }
        if via_methods {
            self.ctx.clear_arrays(&def.ns, &def.name);
            self.bundle_resolve(&def);
        }
        let saved_stage = self.stage;
        for pass in 1..=3u8 {
            self.pass = pass;
            self.stage = "pass";
            self.run_pass(&def);
            if self.fatal || self.bundle_aborted {
                break;
            }
        }
        self.bundle_aborted = false;
        // whatever a pass cut short left in the legacy package schedule
        crate::promise::packages::legacy::execute(self);
        let counts = self.counts.pop().unwrap_or_default();
        // a fatal error exits the agent at once: no summary, no end banner (recorded)
        if !self.fatal && !edit {
            self.verbose_bundle_end(&def, counts);
            if !via_methods {
                self.verbose_bundle_end_banner(&def.name);
            }
        }
        // the agent's counters run on: a caller's summary includes its callees' promises (recorded)
        // (an edit bundle's promises are not counted in its caller's summary)
        if let Some(parent) = self.counts.last_mut().filter(|_| !edit) {
            parent.kept += counts.kept;
            parent.repaired += counts.repaired;
            parent.notkept += counts.notkept;
        }
        self.ctx.frames.pop();
        // the caller's later promises show no arguments (recorded: methods/bundle_args_banner),
        // but those of a files promise's caller after its edit bundle keep theirs
        if !edit {
            self.bundle_args.clear();
        }
        // Parameters of a methods call are removed; those of a bundlesequence entry stay (recorded).
        if via_methods {
            let keys: Vec<_> = params
                .iter()
                .map(|p| (def.ns.clone(), def.name.clone(), p.clone()))
                .collect();
            self.ctx.remove_vars(&keys);
        }
        self.pass = saved_pass;
        self.stage = saved_stage;
        self.ctx.overlay = saved_overlay;
        self.ctx.restore_this(saved_this);
        self.cur_file = saved_file;
        self.last_results = self.results.pop().unwrap_or_default();
        self.aggs.pop().unwrap_or_default()
    }

    /// The order of sections for `def`: normal order, then custom types in declaration order.
    fn section_order(def: &BundleDef) -> Vec<String> {
        let table = if def.is_edit_line() {
            EDIT_LINE_ORDER
        } else {
            NORMAL_ORDER
        };
        let mut order: Vec<String> = table.iter().map(|s| s.to_string()).collect();
        for s in &def.bundle.sections {
            if !order.contains(&s.promise_type) {
                order.push(s.promise_type.clone());
            }
        }
        order
    }

    fn run_pass(&mut self, def: &BundleDef) {
        // an edit bundle's three passes are the edit passes of its files promise: -v shows the pass
        // of the bundle that holds that promise
        let edit = def.is_edit_line();
        for t in Self::section_order(def) {
            if !edit && def.bundle.sections.iter().any(|s| s.promise_type == t) {
                self.verbose_section(&t);
            }
            for s in def.bundle.sections.iter().filter(|s| s.promise_type == t) {
                for p in &s.promises {
                    if !edit {
                        self.agent_pass = self.pass;
                    }
                    self.eval_promise(def, &t, p);
                    if self.fatal || self.bundle_aborted {
                        return;
                    }
                }
            }
            // the legacy package schedule runs at the end of the packages section of every pass
            // (the agent's DeleteTypeContext; recorded: packages/lg-*/verbose.out)
            if t == "packages" {
                crate::promise::packages::legacy::execute(self);
            }
            // like ScheduleAgentOperations, only a bundle that has classes promises re-resolves here
            // (after the classes section it ran)
            let has_classes = def
                .bundle
                .sections
                .iter()
                .any(|s| s.promise_type == "classes" && !s.promises.is_empty());
            // edit_line bundles do not re-resolve (spec: a var guarded by a class of the bundle
            // appears in pass 2)
            if t == "classes" && has_classes && !def.is_edit_line() {
                self.bundle_resolve(def);
                let saved = self.stage;
                if saved == "pass" {
                    self.stage = "resolve";
                }
                self.resolve_type(def, "defaults");
                self.stage = saved;
            }
        }
    }

    /// BundleResolve: vars (and for common bundles classes, vars) evaluated once, in the current frame.
    pub fn bundle_resolve(&mut self, def: &BundleDef) {
        let saved = self.stage;
        if saved != "preeval" {
            self.stage = "resolve";
        }
        self.ignore_remote_vars(&def.name);
        self.resolve_type(def, "vars");
        if def.bundle.bundle_type == "common" {
            self.resolve_type(def, "classes");
            self.resolve_type(def, "vars");
        }
        self.stage = saved;
    }

    /// Evaluates every promise of one type of `def` once.
    pub fn resolve_type(&mut self, def: &BundleDef, t: &str) {
        for s in def.bundle.sections.iter().filter(|s| s.promise_type == t) {
            for p in &s.promises {
                self.eval_promise(def, t, p);
            }
        }
    }

    /// Evaluates one promise in the current pass: guard, iteration, then each binding.
    pub fn eval_promise(&mut self, def: &BundleDef, t: &str, p: &Promise) {
        // a run that asked for the deferred network facts is thrown away and run again on the fully
        // discovered host (`crate::host::netwatch`): it stops here, as at a fatal error
        if self.ctx.net_watch.tripped() {
            self.fatal = true;
        }
        if self.fatal {
            return;
        }
        self.cur_file = def.file;
        self.ctx.clear_this();
        if self.stage == "prelim" {
            // stage 7 reports a quoted class guard with blank-separated names once and goes on
            // (recorded: guards/whitespace_in_guard)
            // (parsed through the per-thread cache: stage 7 sees every guard of the policy, the same
            // texts for every host)
            use crate::expr::classexpr::{parse_cached, ClassExprError};
            let guard = match &p.var_guard {
                Some(g) if !g.value.contains('$') => g.value.as_str(),
                _ => p.guard.expr.as_str(),
            };
            if let Err(e @ ClassExprError::Whitespace(_)) = parse_cached(guard) {
                self.log(LogLevel::Error, &e.to_string());
                return;
            }
        }
        let guard_ok = self.eval_class_str(&p.guard.expr).unwrap_or(false);
        if !guard_ok {
            self.begin_event(def, t, p, &p.promiser.value, false);
            self.end_event(Some("guard"), None);
            return;
        }
        self.bare_reference_errors(def, p);
        let limit = self.opts.limits.max_iterations;
        let bindings = match def.iteration_refs(p) {
            Some(refs) => iterate::bindings(refs, &self.ctx, limit),
            None => iterate::bindings(
                &iterate::references_of(&super::iteration_refs::promise_strings(p)),
                &self.ctx,
                limit,
            ),
        };
        let bindings = match bindings {
            Ok(b) => b,
            Err(_) => {
                self.limit_hit = true;
                self.log(
                    LogLevel::Error,
                    &format!(
                        "cfsim: promise '{}' would iterate more than {} times; skipped",
                        p.promiser.value, self.opts.limits.max_iterations
                    ),
                );
                return;
            }
        };
        // the agent's DeRefCopyPromise evaluates calls given as body arguments once per promise
        let saved_memo = self.fn_memo.replace(super::expansion::FnMemo::default());
        self.expand_body_arguments(p);
        let body_memo = self.fn_memo.take().unwrap_or_default();
        for (i, b) in bindings.iter().enumerate() {
            self.iteration = i + 1;
            self.ctx.bind(b);
            self.set_this(def, p);
            if let Some(rv) = Self::constraint(p, "with") {
                // `with` is evaluated on its own before the expansion evaluates it again
                if let Some(w) = self.scalar_of(rv) {
                    self.ctx
                        .overlay
                        .push(((def.ns.clone(), def.name.clone(), "with".into()), w));
                }
            }
            self.fn_memo = Some(body_memo.clone());
            // a promiser without a reference is itself (not copied)
            let expanded;
            let (text, dropped, unresolved) = if p.promiser.value.contains('$') {
                expanded = self.expand(&p.promiser.value);
                (
                    expanded.text.as_str(),
                    expanded.dropped,
                    expanded.unresolved,
                )
            } else {
                (p.promiser.value.as_str(), false, false)
            };
            self.ctx.put_this("promiser", text);
            self.ctx.put_this("promiser_pid", SIMULATED_AGENT_PID);
            self.begin_event(def, t, p, text, true);
            if dropped {
                self.end_event(Some("unresolved"), None);
                self.fn_memo = None;
                continue;
            }
            self.expand_promise_calls(t, p, text);
            if self.fatal {
                self.fn_memo = None;
                self.cond_cache = None;
                break;
            }
            if self.stage == "prelim" {
                crate::promise::preliminary(self, def, t, p, text);
            } else {
                crate::promise::evaluate(self, def, t, p, text, unresolved);
            }
            self.cond_cache = None;
            self.fn_memo = None;
            if self.fatal {
                break;
            }
        }
        self.fn_memo = saved_memo;
        self.ctx.overlay.clear();
    }

    fn set_this(&mut self, def: &BundleDef, p: &Promise) {
        let line = self.line_of(p);
        // the absolute path of the promise's file, computed once per file
        if self.this_path.as_ref().map(|(f, _, _)| *f) != Some(def.file) {
            let path = self
                .files
                .get(def.file)
                .map(|f| absolute_keep_dots(&f.path))
                .unwrap_or_default();
            // and where its directory ends
            let dir_len = path.rfind('/').unwrap_or(0);
            self.this_path = Some((def.file, path, dir_len));
        }
        let (path, dir) = self.this_path.as_ref().map_or(("", ""), |(_, p, d)| {
            (p.as_str(), p.get(..*d).unwrap_or(""))
        });
        let mut digits = [0u8; 20];
        let line = decimal(line, &mut digits);
        // `this` holds exactly these keys afterwards; the first four are the bundle's and its file's
        // (the bundle definition is held by the engine for its whole life: its address is not reused)
        let owner = (std::ptr::from_ref(def) as usize, def.file);
        self.ctx.reset_this_owned(
            owner,
            4,
            &[
                ("bundle", &def.name),
                ("namespace", &def.ns),
                ("promise_dirname", dir),
                ("promise_filename", path),
                ("promise_linenumber", line),
            ],
        );
    }

    /// Starts the trace event of one evaluation.
    pub fn begin_event(&mut self, def: &BundleDef, t: &str, p: &Promise, promiser: &str, g: bool) {
        // the preliminary convergence (every promise of every bundle) is not traced: `end_event`
        // drops its events, so they are not built either
        if !self.opts.trace || self.stage == "prelim" {
            return;
        }
        if self.opts.trace_counts_only {
            let key = super::counts::CountKey {
                bundle: std::ptr::from_ref(def) as usize,
                file: self.cur_file,
                offset: p.promiser.span.start as usize,
                type_at: t.as_ptr() as usize,
                type_len: t.len(),
                preeval: self.stage == "preeval",
            };
            if !self.tallies.begin(&key, g) {
                let names = super::counts::Names {
                    bundle: def.qualified_name(),
                    file: self.file_path(self.cur_file),
                    line: self.line_of(p),
                    promise_type: t.to_string(),
                };
                self.tallies.begin_new(key, names, g);
            }
            return;
        }
        self.cur = TraceEvent {
            seq: 0,
            call_path: if self.opts.trace_calls {
                self.ctx
                    .frames
                    .iter()
                    .map(|f| format!("{}:{}", f.ns, f.bundle))
                    .collect()
            } else {
                Vec::new()
            },
            bundle: def.qualified_name(),
            stage: self.stage.to_string(),
            pass: self.pass,
            promise_type: t.to_string(),
            file: self.file_path(self.cur_file),
            line: self.line_of(p),
            iteration: if g { self.iteration } else { 0 },
            guard_value: g,
            ..TraceEvent::default()
        };
        if !self.opts.trace_counts_only {
            self.cur.promiser = promiser.to_string();
            self.cur.written = p.promiser.value.clone();
            self.cur.handle = match Self::constraint(p, "handle") {
                Some(Rval::Scalar(h)) => Some(h.value.clone()),
                _ => None,
            };
            self.cur.guard = p.guard.expr.clone();
        }
    }

    /// Runs `f` (a bundle called from within a promise: an edit bundle, a home bundle) with the
    /// promise's trace event (or count) put aside, so that it ends after the bundle's own events.
    pub fn event_aside<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let event = std::mem::take(&mut self.cur);
        let counting = self.tallies.suspend();
        let r = f(self);
        self.tallies.resume(counting);
        self.cur = event;
        r
    }

    /// Finishes the current trace event.
    pub fn end_event(&mut self, skip: Option<&str>, outcome: Option<super::Outcome>) {
        if !self.opts.trace || self.stage == "prelim" {
            self.cur.classes_set.clear();
            self.cur.classes_cancelled.clear();
            self.cur.vars_set.clear();
            return;
        }
        if self.opts.trace_counts_only {
            self.cur.classes_set.clear();
            self.cur.classes_cancelled.clear();
            self.cur.vars_set.clear();
            self.tallies.end(skip, outcome.map(|o| o.name()));
            return;
        }
        let mut e = std::mem::take(&mut self.cur);
        e.skip = skip.map(str::to_string);
        e.outcome = outcome.map(|o| o.name().to_string());
        e.seq = self.trace.len() + 1;
        self.trace.push(e);
    }

    /// The constraint `lval` of `p`, if present.
    pub fn constraint<'p>(p: &'p Promise, lval: &str) -> Option<&'p Rval> {
        p.constraints
            .iter()
            .find(|c| c.lval == lval)
            .map(|c| &c.rval)
    }

    /// The skip rules of §1.9: `ifvarclass` (and a quoted guard) and `if` must be true, `unless` false
    /// (ERROR runs in pass 3), all `depends_on` handles recorded.
    pub fn conditions(&mut self, p: &Promise) -> Option<Skip> {
        if let Some(c) = self.cond_cache.take() {
            return c;
        }
        if let Some(vg) = &p.var_guard {
            if self.eval_class_str(&vg.value) != Ok(true) {
                return Some("if");
            }
        }
        for lval in ["ifvarclass", "if"] {
            if let Some(rv) = Self::constraint(p, lval) {
                if self.eval_condition(rv) != Ok(true) {
                    return Some("if");
                }
            }
        }
        if let Some(rv) = Self::constraint(p, "unless") {
            match self.eval_condition(rv) {
                Ok(true) => return Some("unless"),
                Ok(false) => {}
                Err(_) if self.pass < 3 => return Some("unless"),
                Err(_) => {}
            }
        }
        if let Some(rv) = Self::constraint(p, "depends_on") {
            let needed = self.list_of(rv);
            if needed
                .iter()
                .any(|h| !self.handles.contains(&crate::expr::canonify(h)))
            {
                return Some("depends_on");
            }
        }
        None
    }

    /// The promise identity digest (§3.3): the MD5 of the expanded promiser, bundle, promise type and
    /// every constraint with its expanded value. Only the 16-byte digest is kept in `done` (as the agent
    /// keeps promise hashes): keeping the text made memory grow with every call of a bundle whose
    /// arguments grow (found by the `agent` fuzz target: gigabytes for 10,000 calls).
    pub fn digest(&mut self, def: &BundleDef, t: &str, p: &Promise, promiser: &str) -> u128 {
        use md5::{Digest, Md5};
        let mut s = format!("{promiser}\u{1}{}:{}\u{1}{t}", def.ns, def.name);
        for c in &p.constraints {
            s.push('\u{1}');
            s.push_str(&c.lval);
            s.push('=');
            self.flatten(&c.rval, &mut s);
        }
        u128::from_le_bytes(Md5::digest(s.as_bytes()).into())
    }

    fn flatten(&self, rv: &Rval, s: &mut String) {
        match rv {
            Rval::Scalar(x) => s.push_str(&self.expand(&x.value).text),
            Rval::List(items, _) => {
                s.push('{');
                for i in items {
                    self.flatten(i, s);
                    s.push(',');
                }
                s.push('}');
            }
            Rval::Call(c) => {
                s.push_str(&c.name);
                s.push('(');
                for a in &c.args {
                    self.flatten(a, s);
                    s.push(',');
                }
                s.push(')');
            }
            Rval::Data(d, _) => s.push_str(&d.to_string()),
        }
    }

    /// Records `outcome` for the frame aggregate, the handle, and the `classes` body.
    pub fn record_outcome(&mut self, def: &BundleDef, p: &Promise, outcome: super::Outcome) {
        self.record_counts(def, p, outcome);
        self.apply_classes_body(def, p, outcome);
    }

    /// Records `outcome` for the frame aggregate and the handle (no classes).
    pub fn record_counts(&mut self, _def: &BundleDef, p: &Promise, outcome: super::Outcome) {
        if let Some(c) = self.counts.last_mut() {
            match outcome {
                super::Outcome::Kept => c.kept += 1,
                super::Outcome::Repaired => c.repaired += 1,
                super::Outcome::Failed => c.notkept += 1,
            }
        }
        if let Some(a) = self.aggs.last_mut() {
            match outcome {
                super::Outcome::Repaired => a.repaired = true,
                super::Outcome::Failed => a.failed = true,
                super::Outcome::Kept => {}
            }
        }
        if outcome != super::Outcome::Failed {
            let h = match Self::constraint(p, "handle") {
                Some(rv) => self.scalar_of(rv).map(|h| crate::expr::canonify(&h)),
                None => None,
            };
            if let Some(h) = h {
                self.handles.insert(h);
            }
        }
    }
}
