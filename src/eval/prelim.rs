//! cf-agent's stage 7, "Preliminary variable/class-context convergence": between loading the policy and
//! the last PolicyResolve, every promise of every bundle is expanded once with a no-op actuator.

use super::Engine;

impl Engine<'_> {
    /// Every promise of every bundle, bundles in policy order and sections in textual order, is expanded
    /// (its function calls evaluated and logged, guards and `if`/`unless` honoured); `vars` and `meta`
    /// promises also define their variables (the agent samples them a second time). Bundle parameters
    /// are not set, so promises using them stay unresolved.
    pub fn preliminary_convergence(&mut self) {
        let saved = self.stage;
        self.stage = "prelim";
        if self.verbose_on() {
            let rule = "-".repeat(64);
            self.log(super::LogLevel::Verbose, &rule);
            self.log(
                super::LogLevel::Verbose,
                " Preliminary variable/class-context convergence ",
            );
            self.log(super::LogLevel::Verbose, &rule);
        }
        for i in 0..self.bundles.len() {
            let Some(def) = self.bundles.get(i).cloned() else {
                continue;
            };
            self.ctx.frames.push(super::context::Frame {
                ns: def.ns.clone(),
                bundle: def.name.clone(),
                ..Default::default()
            });
            for s in &def.bundle.sections {
                for p in &s.promises {
                    // a FatalError stops the agent where it is (recorded: eval/scope/string_from_list_fatal)
                    if self.fatal {
                        break;
                    }
                    self.eval_promise(&def, &s.promise_type, p);
                }
            }
            self.ctx.frames.pop();
        }
        self.ctx.clear_this();
        self.stage = saved;
    }
}
