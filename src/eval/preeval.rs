//! Pre-evaluation as cf-agent 3.21 does it (spec §2.1): PolicyResolve = per common bundle vars, classes,
//! vars; then vars of every other bundle with parameters unexpanded; then the control bodies. The rounds
//! (per file while loading, then over the merged policy) are driven by `super::loading`. Also stage 7's
//! visible effects (meta promises, class expression checks).

use super::output::LogLevel;
use super::Engine;

impl Engine<'_> {
    /// One PolicyResolve round over the whole policy (pass 0 in the trace).
    pub fn policy_resolve(&mut self) {
        self.policy_resolve_files(None);
    }

    /// One PolicyResolve round over the bundles and control bodies of `files` (in that order; all
    /// files in policy order when `None`): common bundles (vars, classes, vars), then the vars of the
    /// other bundles, then the control bodies.
    pub fn policy_resolve_files(&mut self, files: Option<&[usize]>) {
        self.pass = 0;
        self.stage = "preeval";
        let picked = self.bundles_of(files);
        for common in [true, false] {
            for def in &picked {
                if (def.bundle.bundle_type == "common") != common {
                    continue;
                }
                self.ctx.frames.push(super::context::Frame {
                    ns: def.ns.clone(),
                    bundle: def.name.clone(),
                    ..Default::default()
                });
                self.resolve_type(def, "vars");
                if common {
                    self.resolve_type(def, "classes");
                    self.resolve_type(def, "vars");
                }
                self.ctx.frames.pop();
            }
        }
        // control bodies come last, after every bundle (PolicyResolve in expand.c)
        self.control_common_vars(files);
    }

    /// Bundles of `files` in the order of `files` (all bundles when `None`).
    fn bundles_of(&self, files: Option<&[usize]>) -> Vec<std::rc::Rc<super::BundleDef>> {
        match files {
            None => self.bundles.clone(),
            Some(fs) => fs
                .iter()
                .flat_map(|f| self.bundles.iter().filter(move |b| b.file == *f).cloned())
                .collect(),
        }
    }

    /// Stage 7 of the agent evaluates the `meta:` promises of every bundle (`<bundle>_meta.*`).
    pub fn preliminary_meta(&mut self) {
        for i in 0..self.bundles.len() {
            let Some(def) = self.bundles.get(i).cloned() else {
                continue;
            };
            if !def.bundle.sections.iter().any(|s| s.promise_type == "meta") {
                continue;
            }
            self.ctx.frames.push(super::context::Frame {
                ns: def.ns.clone(),
                bundle: def.name.clone(),
                ..Default::default()
            });
            self.resolve_type(&def, "meta");
            self.ctx.frames.pop();
        }
    }

    /// Stage 7 of the agent ("preliminary convergence": every promise of every bundle expanded once, in
    /// written order, nothing actuated), reduced to its visible effects: a quoted class guard with
    /// blank-separated names is an error (recorded: guards/whitespace_in_guard); under a guard that holds,
    /// unquoted words naming no body or bundle (methods/unquoted_bundle_name), then per iteration the
    /// conditions and the constraints' function calls with their errors (passes/function_errors_per_expansion).
    pub fn preliminary_checks(&mut self) {
        // no trace events come from here; the stage only tells expansion that this is not PolicyResolve
        let saved = self.stage;
        self.stage = "preliminary";
        for i in 0..self.bundles.len() {
            let Some(def) = self.bundles.get(i).cloned() else {
                continue;
            };
            self.cur_file = def.file;
            self.ctx.frames.push(super::context::Frame {
                ns: def.ns.clone(),
                bundle: def.name.clone(),
                ..Default::default()
            });
            for s in &def.bundle.sections {
                for p in &s.promises {
                    self.preliminary_promise(&def, &s.promise_type, p);
                }
            }
            self.ctx.frames.pop();
        }
        self.ctx.this.clear();
        self.ctx.overlay.clear();
        self.stage = saved;
    }

    fn preliminary_promise(
        &mut self,
        def: &super::BundleDef,
        t: &str,
        p: &crate::syntax::ast::Promise,
    ) {
        use crate::expr::classexpr::{parse, ClassExprError};
        let guard = match &p.var_guard {
            Some(g) if !g.value.contains('$') => g.value.as_str(),
            _ => p.guard.expr.as_str(),
        };
        if let Err(e @ ClassExprError::Whitespace(_)) = parse(guard) {
            self.log(LogLevel::Error, &e.to_string());
            return;
        }
        if self.eval_class_str(&p.guard.expr) != Ok(true) {
            return;
        }
        self.bare_reference_errors(def, p);
        let mut strings: Vec<&str> = vec![&p.promiser.value];
        if let Some(pe) = &p.promisee {
            super::rval::rval_strings(pe, &mut strings);
        }
        for c in &p.constraints {
            super::rval::rval_strings(&c.rval, &mut strings);
        }
        let Ok(bindings) = crate::expr::iterate::bindings(&strings, &self.ctx) else {
            return;
        };
        for b in bindings.iter().take(self.opts.limits.max_iterations) {
            self.ctx.bind(b);
            let promiser = self.expand(&p.promiser.value);
            if promiser.dropped {
                continue;
            }
            self.expand_constraints(t, p, &promiser.text);
            self.cond_cache = None;
        }
    }

    /// The whole pre-evaluation: loading with its per-file rounds, then the round over the merged
    /// policy (see [`super::loading`]). Returns false when loading failed.
    pub fn pre_evaluate(&mut self, entry: &str) -> bool {
        self.load_policy(entry)
    }
}
