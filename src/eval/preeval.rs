//! Pre-evaluation as cf-agent 3.21 does it (spec §2.1): PolicyResolve = per common bundle vars, classes,
//! vars; then vars of every other bundle with parameters unexpanded; then the control bodies. The rounds
//! (per file while loading, then over the merged policy) are driven by `super::loading`. Stage 7 (the
//! agent's preliminary convergence) is `super::prelim`.

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
                self.ignore_remote_vars(&def.name);
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

    /// BundleResolve of `bundle` first drops the vars promises other bundles injected into it while the
    /// policy was loading, each with an error (recorded: eval/thirdparty/remote_injection_order).
    pub fn ignore_remote_vars(&mut self, bundle: &str) {
        if self.remote_vars.is_empty() {
            return;
        }
        let mut kept = Vec::new();
        for (target, lval) in std::mem::take(&mut self.remote_vars) {
            if target == bundle {
                self.log(
                    super::output::LogLevel::Error,
                    &format!("Ignoring remotely-injected variable '{lval}'"),
                );
            } else {
                kept.push((target, lval));
            }
        }
        self.remote_vars = kept;
    }

    /// Bundles of `files` in the order of `files` (all bundles when `None`).
    fn bundles_of(&self, files: Option<&[usize]>) -> Vec<std::sync::Arc<super::BundleDef>> {
        match files {
            None => self.bundles.clone(),
            Some(fs) => fs
                .iter()
                .flat_map(|&f| self.file_defs(f).bundles.iter().cloned())
                .collect(),
        }
    }

    /// The whole pre-evaluation: loading with its per-file rounds, then the round over the merged
    /// policy (see [`super::loading`]). Returns false when loading failed.
    pub fn pre_evaluate(&mut self, entry: &str) -> bool {
        self.load_policy(entry)
    }
}
