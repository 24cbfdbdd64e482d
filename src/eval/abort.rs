//! `abortbundleclasses` of `body agent control`: defining a class that one of its regexes matches
//! abandons the rest of the bundle being run (cf-agent's `EvalContextClassPut` check, then
//! `ScheduleAgentOperations` returning after that promise; recorded: eval/thirdparty/abortbundleclasses).

use super::output::LogLevel;
use super::Engine;

impl Engine<'_> {
    /// The regexes of `abortbundleclasses` (every active one of each `body agent control`), read once.
    fn abort_bundle_patterns(&mut self) -> Vec<String> {
        if let Some(p) = &self.abort_bundle_classes {
            return p.clone();
        }
        let bodies: Vec<_> = self
            .bodies
            .iter()
            .filter(|b| b.name == "control" && b.body.body_type == "agent")
            .cloned()
            .collect();
        let saved = self.cur_file;
        let mut out = Vec::new();
        for b in bodies {
            self.cur_file = b.file;
            for a in &b.body.attrs {
                if a.constraint.lval == "abortbundleclasses"
                    && self.eval_class_str(&a.guard.expr) == Ok(true)
                {
                    out = self.list_of(&a.constraint.rval);
                }
            }
        }
        self.cur_file = saved;
        self.abort_bundle_classes = Some(out.clone());
        out
    }

    /// Called when a promise defines class `name`: with a matching `abortbundleclasses` regex, logs
    /// the agent's error and marks the running bundle as aborted (see [`Engine::bundle_aborted`]).
    pub fn check_abort_class(&mut self, name: &str) {
        if matches!(self.stage, "preeval" | "prelim") {
            return;
        }
        let patterns = self.abort_bundle_patterns();
        if !patterns.iter().any(|p| crate::pcre::full_match(p, name)) {
            return;
        }
        let bundle = self
            .ctx
            .frames
            .last()
            .map(|f| f.bundle.clone())
            .unwrap_or_default();
        self.log(
            LogLevel::Error,
            &format!("Bundle '{bundle}' aborted on defined class '{name}'"),
        );
        self.bundle_aborted = true;
    }
}
