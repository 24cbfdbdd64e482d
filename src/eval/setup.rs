//! Setting up a run's context before any policy is evaluated: hard classes and `sys.*` from the host,
//! the mode classes (`inform_mode`, `verbose_mode`, `opt_dry_run`), `-D` classes (`source=environment`),
//! the `const.*` scope, `def.jq`, and `control_common.*` from `body common control`.

use super::rval::RvalResult;
use super::Engine;
use crate::host::hard_classes::{component_class, host_classes_with, ClassSet, Component};
use crate::host::sysvars::sys_vars_with;
use crate::host::{Host, SysValue, SysVar};
use crate::value::Value;

/// Command-line class options.
#[derive(Debug, Clone, Default)]
pub struct ClassOptions {
    pub define: Vec<String>,
    pub negate: Vec<String>,
    pub inform: bool,
    pub verbose: bool,
    pub dry_run: bool,
}

/// The `def.jq` value cf-agent defines.
pub const DEF_JQ: &str =
    "jq --compact-output --monochrome-output --ascii-output --unbuffered --sort-keys";

/// What the setup takes from the host and the entry file alone: the hard classes but the component's,
/// and `sys.*`. The same for every engine of one run (cf-promises' validation, then the agent), so it
/// is computed once per run.
#[derive(Debug, Clone)]
pub struct HostFacts {
    classes: ClassSet,
    /// The `sys` variables, each with its tags split (once for every engine).
    sys: Vec<(SysVar, Vec<String>)>,
}

impl HostFacts {
    /// The facts of `host` for the policy whose entry file is `entry`.
    pub fn new(host: &Host, entry: &str) -> HostFacts {
        let abs = std::path::absolute(entry).unwrap_or_else(|_| entry.into());
        // the OS discovery reads the distribution's marker files: once for both
        let os = crate::host::os_classes::derive_os(host);
        HostFacts {
            classes: host_classes_with(host, &os),
            sys: sys_vars_with(host, Some(&abs), &os)
                .into_iter()
                .map(|v| {
                    let tags = v.tags.split(',').map(str::to_string).collect();
                    (v, tags)
                })
                .collect(),
        }
    }
}

/// A list item that is a call (`greet("hello")` in a bundlesequence) as its text.
fn call_as_text(rv: &crate::syntax::ast::Rval) -> crate::syntax::ast::Rval {
    use crate::syntax::ast::{Quote, Rval, Scalar};
    match rv {
        Rval::Call(c) => {
            let args: Vec<String> = c
                .args
                .iter()
                .map(|a| match a {
                    Rval::Scalar(s) => format!("\"{}\"", s.value),
                    _ => String::new(),
                })
                .collect();
            Rval::Scalar(Scalar {
                value: format!("{}{}({})", super::render::RAW_ITEM, c.name, args.join(",")),
                quote: Quote::Double,
                span: c.span,
            })
        }
        other => other.clone(),
    }
}

impl Engine<'_> {
    /// Installs hard classes, mode classes, `-D` classes and the agent's variables.
    pub fn setup(&mut self, component: Component, entry: &str, opts: &ClassOptions) {
        let facts = HostFacts::new(self.host.host, entry);
        self.setup_with(&facts, component, entry, opts);
    }

    /// [`Self::setup`] with the host's facts computed already (they must be this engine's host's).
    pub fn setup_with(
        &mut self,
        facts: &HostFacts,
        component: Component,
        entry: &str,
        opts: &ClassOptions,
    ) {
        self.ctx.net_watch = self.host.host.net_watch.clone();
        if self.ctx.hard.is_empty() {
            // a copy of the map as it is (no name hashed again)
            self.ctx.hard.clone_from(facts.classes.as_map());
        } else {
            for (name, tags) in facts.classes.as_map() {
                self.ctx
                    .hard
                    .entry(name.clone())
                    .or_insert_with(|| tags.clone());
            }
        }
        // last, as `hard_classes` puts it (a class of that name defined already keeps its place)
        let (name, tags) = component_class(component);
        if !facts.classes.contains(name) {
            self.ctx
                .hard
                .entry(name.to_string())
                .or_insert(tags.to_string());
        }
        let mode = "cfe_internal,source=agent";
        if opts.inform || opts.verbose {
            self.ctx.hard.insert("inform_mode".into(), mode.into());
        }
        if opts.verbose {
            self.ctx.hard.insert("verbose_mode".into(), mode.into());
        }
        if opts.dry_run {
            self.ctx.hard.insert("opt_dry_run".into(), mode.into());
        }
        for d in &opts.define {
            let c = crate::expr::canonify(d.trim());
            if !c.is_empty() {
                self.ctx
                    .define_global("default", &c, vec!["source=environment".into()]);
            }
        }
        for (v, tags) in &facts.sys {
            let value = match &v.value {
                SysValue::Str(s) => Value::str(s.clone()),
                SysValue::List(l) => Value::slist(l.clone()),
                SysValue::Data(d) => Value::Data(d.clone()),
            };
            self.ctx.set_var(
                ("default".into(), "sys".into(), v.name.clone()),
                value,
                tags.clone(),
            );
        }
        for (k, v) in crate::expr::CONST_VARS {
            self.ctx.set_var(
                ("default".into(), "const".into(), k.to_string()),
                Value::str(*v),
                vec!["source=agent".into()],
            );
        }
        self.load_augments(entry);
        self.ctx.set_var(
            ("default".into(), "def".into(), "jq".into()),
            Value::str(DEF_JQ),
            vec![
                "invocation".into(),
                "source=agent".into(),
                "command_name=jq".into(),
            ],
        );
    }

    /// Defines `control_<component>.<attr>` (`control_common`, `control_agent`, …) for every attribute of
    /// a `body <component> control` whose guard holds.
    pub fn control_common_vars(&mut self, files: Option<&[usize]>) {
        let bodies: Vec<_> = match files {
            None => self
                .bodies
                .iter()
                .filter(|b| b.name == "control")
                .cloned()
                .collect(),
            Some(fs) => fs
                .iter()
                .flat_map(|&f| {
                    self.file_defs(f)
                        .bodies
                        .iter()
                        .filter(|b| b.name == "control")
                        .cloned()
                })
                .collect(),
        };
        for b in bodies {
            let scope = format!("control_{}", b.body.body_type);
            self.cur_file = b.file;
            for a in &b.body.attrs {
                if self.eval_class_str(&a.guard.expr) != Ok(true) {
                    continue;
                }
                let rv = match &a.constraint.rval {
                    // bundle calls in a bundlesequence are names with arguments, not functions
                    crate::syntax::ast::Rval::List(items, sp) => crate::syntax::ast::Rval::List(
                        items.iter().map(call_as_text).collect(),
                        *sp,
                    ),
                    other => other.clone(),
                };
                if let RvalResult::Value { value, .. } = self.eval_rval(&rv) {
                    if scope == "control_common" && a.constraint.lval == "domain" {
                        self.apply_domain(&value);
                    }
                    self.ctx.set_var(
                        ("default".into(), scope.clone(), a.constraint.lval.clone()),
                        value,
                        vec!["source=promise".into()],
                    );
                }
            }
        }
    }

    /// `domain =>` of `body common control`: the agent's `sys.domain` becomes it and the canonified
    /// domain is a hard class (recorded: eval/thirdparty/common_control_domain). `sys.fqhost` is not
    /// changed: the agent's value is the host name padded with the bytes of its buffer.
    fn apply_domain(&mut self, value: &crate::value::Value) {
        let Some(d) = value.as_scalar().filter(|d| !d.is_empty()) else {
            return;
        };
        let d = d.to_string();
        self.ctx.set_var(
            ("default".into(), "sys".into(), "domain".into()),
            crate::value::Value::str(d.clone()),
            vec!["source=agent".into()],
        );
        self.ctx
            .hard
            .insert(crate::expr::canonify(&d), "source=agent".into());
    }
}
