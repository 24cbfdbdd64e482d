//! What the agent does when it expands a promise before actuating it (ExpandPromise, DeRefCopyPromise,
//! ExpandDeRefPromise), reduced to what shows: errors for unquoted words naming no body or bundle, the
//! conditions evaluated once per binding, and the constraints' function calls evaluated once more than
//! the promise type itself does (a failing call logs again).

use super::output::LogLevel;
use super::{BundleDef, Engine};
use crate::syntax::ast::{Promise, Rval};

/// The namespace of the bundle under evaluation.
fn p_ns(e: &Engine<'_>) -> String {
    e.ctx
        .frames
        .last()
        .map_or_else(|| "default".to_string(), |f| f.ns.clone())
}

impl Engine<'_> {
    /// ExpandDeRefPromise for one binding: a classes promise whose class is defined stops here; then the
    /// conditions (kept for the actuator, which does not evaluate them again); when they hold, every
    /// other constraint's function call is evaluated once. A call that fails stays a call the actuator
    /// makes again, so its errors show once more (recorded: passes/function_errors_per_expansion).
    pub fn expand_constraints(&mut self, t: &str, p: &Promise, promiser: &str) {
        use crate::expr::env::EvalEnv;
        if t == "classes"
            && self
                .ctx
                .class_defined(None, &crate::expr::canonify(promiser))
        {
            return;
        }
        let skip = self.conditions(p);
        // pre-evaluation keeps one evaluation per promise: its rounds are modelled, not its repetitions
        // (cf-promises agrees: tests/host_location.rs)
        if skip.is_none() && self.stage != "preeval" {
            for c in &p.constraints {
                let Rval::Call(call) = &c.rval else {
                    continue;
                };
                if matches!(
                    c.lval.as_str(),
                    "if" | "ifvarclass" | "unless" | "depends_on" | "usebundle"
                ) || crate::syntax::tables::function(&call.name).is_none()
                    || self.find_body(&c.lval, &call.name, &p_ns(self)).is_some()
                {
                    continue;
                }
                let _ = self.call_function(call);
            }
        }
        self.cond_cache = Some(skip);
    }

    /// The agent's DeRefCopyPromise check, made every time a promise whose guard holds is expanded: an
    /// unquoted word as a constraint value (other than `if`/`ifvarclass`) that names neither a body of
    /// that type nor a bundle is an error (recorded: methods/unquoted_bundle_name).
    pub fn bare_reference_errors(&mut self, def: &BundleDef, p: &Promise) {
        for c in &p.constraints {
            let Rval::Scalar(x) = &c.rval else {
                continue;
            };
            if x.quote != crate::syntax::ast::Quote::Bare
                || matches!(c.lval.as_str(), "if" | "ifvarclass")
            {
                continue;
            }
            if self.find_body(&c.lval, &x.value, &def.ns).is_some() {
                continue;
            }
            let (ns, name) = super::split_ns(&x.value, &def.ns);
            if self.find_bundle(ns, name).is_some() {
                continue;
            }
            let file = self
                .files
                .get(def.file)
                .map(|f| f.path.clone())
                .unwrap_or_default();
            let line = self
                .files
                .get(def.file)
                .map_or(0, |f| f.lines.line(p.promiser.span.start));
            self.log(
                LogLevel::Error,
                &format!(
                    "Apparent bundle '{}' was undeclared, but used in a promise near line {line} of {file} (possible unquoted literal value)",
                    x.value
                ),
            );
        }
    }
}
