//! Bodies referenced by promises (`classes => name(args)`, `contain => …`): lookup in the promise's
//! namespace, argument substitution, `inherit_from`, class-guarded attributes; and the `classes` body
//! outcome rules (§3.8): outcome classes, `cancel_*`, `scope`, return-code lists.

use super::output::LogLevel;
use super::{BundleDef, Engine, Outcome};
use crate::expr::canonify;
use crate::syntax::ast::{Promise, Rval, Scalar};

/// Deepest `inherit_from` chain followed.
pub const MAX_INHERIT_DEPTH: usize = 16;

fn subst_rval(rv: &Rval, pairs: &[(String, String)]) -> Rval {
    match rv {
        Rval::Scalar(s) => {
            let mut v = s.value.clone();
            for (k, val) in pairs {
                v = v
                    .replace(&format!("$({k})"), val)
                    .replace(&format!("${{{k}}}"), val);
                // a list parameter given a scalar argument (`leaf_name => { @(names) }`)
                if v == format!("@({k})") || v == format!("@{{{k}}}") {
                    v = val.clone();
                }
            }
            Rval::Scalar(Scalar {
                value: v,
                quote: s.quote,
                span: s.span,
            })
        }
        Rval::List(items, sp) => {
            Rval::List(items.iter().map(|i| subst_rval(i, pairs)).collect(), *sp)
        }
        Rval::Call(c) => {
            let mut c = c.clone();
            c.args = c.args.iter().map(|a| subst_rval(a, pairs)).collect();
            Rval::Call(c)
        }
        other => other.clone(),
    }
}

/// Attributes of a `classes` body (never sent to a promise module).
pub const CLASSES_BODY_LVALS: &[&str] = &[
    "promise_kept",
    "promise_repaired",
    "repair_failed",
    "repair_denied",
    "repair_timeout",
    "cancel_kept",
    "cancel_repaired",
    "cancel_notkept",
    "kept_returncodes",
    "repaired_returncodes",
    "failed_returncodes",
    "persist_time",
    "scope",
    "timer_policy",
];

impl Engine<'_> {
    /// The attributes of the body `p` refers to with `lval` (body type `body_type`), arguments
    /// substituted, guards evaluated, inherited attributes first (overridden by the body's own).
    pub fn body_attrs(
        &mut self,
        def: &BundleDef,
        p: &Promise,
        lval: &str,
        body_type: &str,
    ) -> Vec<(String, Rval)> {
        // borrowed from the policy: calls in the arguments are remembered by their place in it
        let Some(rv) = Self::constraint(p, lval) else {
            return Vec::new();
        };
        let (name, args) = match rv {
            Rval::Scalar(s) => (self.expand(&s.value).text, Vec::new()),
            Rval::Call(c) => {
                let mut args = Vec::new();
                for a in &c.args {
                    args.push(self.scalar_of(a).unwrap_or_default());
                }
                (c.name.clone(), args)
            }
            _ => return Vec::new(),
        };
        self.resolve_body(body_type, &name, &args, &def.ns, 0)
    }

    /// Whether the promise may only warn: `-n` (dry run) or an action body with `action_policy` `warn` or
    /// `nop` (recorded: commands/action_warn).
    pub fn warn_only(&mut self, def: &BundleDef, p: &Promise) -> bool {
        if self.opts.dry_run {
            return true;
        }
        if Self::constraint(p, "action").is_none() {
            return false;
        }
        let attrs = self.body_attrs(def, p, "action", "action");
        attrs.iter().any(|(l, rv)| {
            l == "action_policy" && matches!(self.scalar_of(rv).as_deref(), Some("warn" | "nop"))
        })
    }

    /// Whether the promise's action body says `action_policy` `warn` or `nop` (not `-n`).
    pub fn action_warn(&mut self, def: &BundleDef, p: &Promise) -> bool {
        if Self::constraint(p, "action").is_none() {
            return false;
        }
        let attrs = self.body_attrs(def, p, "action", "action");
        attrs.iter().any(|(l, rv)| {
            l == "action_policy" && matches!(self.scalar_of(rv).as_deref(), Some("warn" | "nop"))
        })
    }

    fn resolve_body(
        &mut self,
        body_type: &str,
        name: &str,
        args: &[String],
        ns: &str,
        depth: usize,
    ) -> Vec<(String, Rval)> {
        if depth > MAX_INHERIT_DEPTH {
            return Vec::new();
        }
        let Some(b) = self.find_body(body_type, name, ns).cloned() else {
            return Vec::new();
        };
        let pairs: Vec<(String, String)> = b
            .body
            .params
            .iter()
            .cloned()
            .zip(args.iter().cloned())
            .collect();
        let mut own: Vec<(String, Rval)> = Vec::new();
        let mut parent: Vec<(String, Rval)> = Vec::new();
        for a in &b.body.attrs {
            if self.eval_class_str(&a.guard.expr) != Ok(true) {
                continue;
            }
            let rv = subst_rval(&a.constraint.rval, &pairs);
            if a.constraint.lval == "inherit_from" {
                let (pn, pargs) = match &rv {
                    Rval::Scalar(s) => (s.value.clone(), Vec::new()),
                    Rval::Call(c) => {
                        let mut v = Vec::new();
                        for x in &c.args {
                            v.push(self.scalar_of(x).unwrap_or_default());
                        }
                        (c.name.clone(), v)
                    }
                    _ => continue,
                };
                parent = self.resolve_body(body_type, &pn, &pargs, &b.ns, depth + 1);
                continue;
            }
            own.retain(|(l, _)| l != &a.constraint.lval);
            own.push((a.constraint.lval.clone(), rv));
        }
        parent.retain(|(l, _)| !own.iter().any(|(o, _)| o == l));
        parent.extend(own);
        parent
    }

    /// Applies the promise's `classes` body for `outcome`.
    pub fn apply_classes_body(&mut self, def: &BundleDef, p: &Promise, outcome: Outcome) {
        if Self::constraint(p, "classes").is_none() {
            return;
        }
        let attrs = self.body_attrs(def, p, "classes", "classes");
        let (set, cancel) = match outcome {
            Outcome::Kept => ("promise_kept", "cancel_kept"),
            Outcome::Repaired => ("promise_repaired", "cancel_repaired"),
            Outcome::Failed => ("repair_failed", "cancel_notkept"),
        };
        let mut local = false;
        for (l, rv) in &attrs {
            if l == "scope" {
                local = self.scalar_of(rv).as_deref() == Some("bundle");
            }
        }
        for (l, rv) in attrs {
            if l == set {
                for c in self.list_of(&rv) {
                    let c = canonify(&c);
                    if self.ctx.is_hard(&c) {
                        continue;
                    }
                    if self.out.shows(LogLevel::Verbose) {
                        self.log(
                            LogLevel::Verbose,
                            &format!("C:    + promise outcome class '{c}'"),
                        );
                    }
                    if local {
                        self.ctx.define_local(&c, Vec::new());
                    } else {
                        self.ctx.define_global(&def.ns, &c, Vec::new());
                    }
                    self.check_abort_class(&c);
                    self.cur.classes_set.push(c);
                }
            } else if l == cancel {
                for c in self.list_of(&rv) {
                    let c = canonify(&c);
                    if self.ctx.is_hard(&c) {
                        self.log(
                            LogLevel::Error,
                            &format!("You cannot cancel a reserved hard class '{c}' in post-condition classes"),
                        );
                        continue;
                    }
                    self.ctx.undefine(&def.ns, &c);
                    self.cur.classes_cancelled.push(c);
                }
            }
        }
    }

    /// The outcome a command exit code maps to under the `classes` body's return-code lists, with the
    /// agent's log line.
    pub fn returncode_outcome(
        &mut self,
        def: &BundleDef,
        p: &Promise,
        cmd: &str,
        code: i32,
    ) -> Outcome {
        let attrs = self.body_attrs(def, p, "classes", "classes");
        let mut any_list = false;
        for (l, o, name) in [
            ("kept_returncodes", Outcome::Kept, "kept"),
            ("repaired_returncodes", Outcome::Repaired, "repaired"),
            ("failed_returncodes", Outcome::Failed, "failed"),
        ] {
            if let Some((_, rv)) = attrs.iter().find(|(x, _)| x == l) {
                any_list = true;
                if self
                    .list_of(rv)
                    .iter()
                    .any(|c| c.trim() == code.to_string())
                {
                    let msg = format!(
                        "Command related to promiser '{cmd}' returned code '{code}' defined as promise {name}"
                    );
                    let level = if o == Outcome::Failed {
                        LogLevel::Error
                    } else {
                        LogLevel::Info
                    };
                    self.log(level, &msg);
                    return o;
                }
            }
        }
        if any_list {
            self.log(
                LogLevel::Info,
                &format!("Command related to promiser '{cmd}' returned code '{code}' not defined as promise kept, not kept or repaired; setting to failed"),
            );
            return Outcome::Failed;
        }
        if code == 0 {
            Outcome::Repaired
        } else {
            self.log(
                LogLevel::Error,
                &crate::module::protocol::exit_error_message(cmd, code),
            );
            Outcome::Failed
        }
    }
}
