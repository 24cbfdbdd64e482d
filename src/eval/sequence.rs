//! The bundlesequence (spec §2.3): `-b a,b` (names only), else `body common control` `bundlesequence`
//! (names, `ns:name`, `@(list)`, `name(args)`), else `main`; each name an agent bundle first, then common;
//! an unknown name is fatal (exit 1) with the agent's messages.

use super::output::LogLevel;
use super::rval::RvalResult;
use super::{split_ns, Engine};
use crate::syntax::ast::Rval;
use crate::value::Value;

/// One entry of the sequence: the written name and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct SeqItem {
    pub name: String,
    pub args: Vec<Value>,
}

impl Engine<'_> {
    /// The bundlesequence to run.
    pub fn bundlesequence(&mut self, override_b: Option<&str>) -> Vec<SeqItem> {
        if let Some(b) = override_b {
            return b
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| SeqItem {
                    name: s.to_string(),
                    args: Vec::new(),
                })
                .collect();
        }
        let found = self.common_control_rval("bundlesequence");
        let Some(rv) = found else {
            return vec![SeqItem {
                name: "main".into(),
                args: Vec::new(),
            }];
        };
        let items = match rv {
            Rval::List(items, _) => items,
            other => vec![other],
        };
        let mut out = Vec::new();
        for it in items {
            match it {
                Rval::Call(c) => {
                    let mut args = Vec::new();
                    for a in &c.args {
                        if let RvalResult::Value { value, .. } = self.eval_rval(a) {
                            args.push(value);
                        }
                    }
                    out.push(SeqItem { name: c.name, args });
                }
                other => {
                    let sp = other.span();
                    for name in self.list_of(&Rval::List(vec![other], sp)) {
                        out.push(SeqItem {
                            name,
                            args: Vec::new(),
                        });
                    }
                }
            }
        }
        out
    }

    /// `cf-promises -c`'s verification of the evaluated bundlesequence (skipped when `body common control`
    /// says `ignore_missing_bundles`); false, fatal, after logging the missing names.
    pub fn verify_bundlesequence(&mut self) -> bool {
        if self.ignore_missing_bundles() {
            return true;
        }
        let names: Vec<String> = self
            .bundlesequence(None)
            .into_iter()
            .map(|s| s.name)
            .collect();
        let bundles: Vec<&str> = self
            .bundles
            .iter()
            .map(|b| match b.bundle.name.as_str() {
                "__main__" => b.name.as_str(),
                written => written,
            })
            .collect();
        let lines = crate::syntax::runnable::verify_bundlesequence(&bundles, &names);
        if lines.is_empty() {
            return true;
        }
        for l in &lines {
            self.log(LogLevel::Error, l);
        }
        self.fatal = true;
        false
    }

    /// The rval of attribute `lval` of `body common control` (its last setting whose guard holds).
    pub fn common_control_rval(&mut self, lval: &str) -> Option<Rval> {
        let control: Vec<(usize, Rval, String)> = self
            .bodies
            .iter()
            .filter(|b| b.body.body_type == "common" && b.name == "control")
            .flat_map(|b| {
                b.body
                    .attrs
                    .iter()
                    .filter(|a| a.constraint.lval == lval)
                    .map(|a| (b.file, a.constraint.rval.clone(), a.guard.expr.clone()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut found = None;
        for (file, rv, guard) in control {
            self.cur_file = file;
            if self.eval_class_str(&guard) == Ok(true) {
                found = Some(rv);
            }
        }
        found
    }

    /// `ignore_missing_bundles` of `body common control` (`control_common.ignore_missing_bundles`) is
    /// `true`, `yes` or `on` (recorded: policies/parse/runnable/ignore_missing_bundles_*).
    pub fn ignore_missing_bundles(&self) -> bool {
        use crate::eval::context::VarKeyRef;
        matches!(
            self.ctx.vars.get(&VarKeyRef("default", "control_common", "ignore_missing_bundles")),
            Some(v) if matches!(v.value.as_scalar(), Some("true" | "yes" | "on"))
        )
    }

    /// Runs the sequence; returns false after a fatal error (already logged).
    pub fn run_sequence(&mut self, seq: &[SeqItem]) -> bool {
        let names: Vec<String> = seq.iter().map(|s| s.name.clone()).collect();
        self.verbose_sequence(&names);
        let mut idx = Vec::new();
        for it in seq {
            let (ns, name) = split_ns(&it.name, "default");
            match self.find_bundle(ns, name) {
                Some(i) => idx.push(i),
                None => {
                    self.log(
                        LogLevel::Error,
                        &format!(
                            "Bundle '{}' listed in the bundlesequence was not found",
                            it.name
                        ),
                    );
                    self.log(
                        LogLevel::Error,
                        "Fatal CFEngine error: Errors in agent bundles",
                    );
                    return false;
                }
            }
        }
        for (it, i) in seq.iter().zip(idx) {
            let args: Vec<Option<Value>> = it.args.iter().cloned().map(Some).collect();
            if !it.args.is_empty() {
                let shown: Vec<String> = it
                    .args
                    .iter()
                    .map(|a| format!("\"{}\"", a.as_scalar().unwrap_or("")))
                    .collect();
                self.pending_call = Some((
                    String::new(),
                    format!("{}( {{{}}})", it.name, shown.join(",")),
                ));
            }
            self.run_bundle(i, &args, false, false, "");
            if self.fatal {
                crate::promise::custom::terminate_all(self);
                return false;
            }
        }
        crate::promise::custom::terminate_all(self);
        true
    }
}
