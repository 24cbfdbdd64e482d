//! `packages:` promises of the `package_module` style (`verify_new_packages.c`): `policy` present
//! (default) or absent, `version` (a version or `latest`), `architecture`, `package_module` body
//! (`module_path`, default `$(sys.workdir)/modules/packages/<name>`). The module's answers come from
//! the profile's package database; its `ErrorMessage=` for a package the repositories do not have is
//! `No package 'N' available` (the corpus's fake module says the same). Recorded behaviour:
//! `policies/packages/pm-*`.

use super::attr;
use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::expr::env::VarLookup;
use crate::host::simreport::{PackageChange, PackageOp};
use crate::syntax::ast::Promise;
use crate::value::Value;

/// The module the promise names (`package_module => NAME` or `NAME(args)`), else `body common
/// control`'s `package_module`.
fn module_name(e: &mut Engine<'_>, p: &Promise) -> Option<String> {
    match Engine::constraint(p, "package_module") {
        Some(crate::syntax::ast::Rval::Scalar(s)) => Some(e.expand(&s.value).text),
        Some(crate::syntax::ast::Rval::Call(c)) => Some(c.name.clone()),
        Some(_) => None,
        None => match e.ctx.get_var("default", "control_common", "package_module") {
            Some(Value::Scalar(_, s)) if !s.is_empty() => Some(s),
            _ => None,
        },
    }
}

/// Evaluates one package_module promise; returns its outcome.
pub fn evaluate(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    promiser: &str,
) -> Option<Outcome> {
    let policy = attr(e, p, "policy").unwrap_or_else(|| "present".to_string());
    let version = attr(e, p, "version").filter(|v| !v.is_empty());
    let arch = attr(e, p, "architecture").filter(|v| !v.is_empty());
    let absent = policy == "absent";
    if absent && version.as_deref() == Some("latest") {
        // recorded (the agent's missing space included)
        e.log(
            LogLevel::Error,
            "Package version 'latest' not supported forabsent package promise",
        );
        e.log(
            LogLevel::Error,
            &format!("Error removing package '{promiser}'"),
        );
        return Some(fail(e, def, p));
    }
    let Some(module) = module_name(e, p) else {
        e.log(
            LogLevel::Error,
            &format!("Package module not specified for promise '{promiser}'"),
        );
        return Some(fail(e, def, p));
    };
    let body = e.body_attrs(def, p, "package_module", "package_module");
    let mut path = None;
    for (l, rv) in &body {
        if l == "module_path" {
            path = e.scalar_of(rv);
        }
    }
    let path = path.unwrap_or_else(|| {
        let workdir = match e.ctx.get_var("default", "sys", "workdir") {
            Some(Value::Scalar(_, w)) => w,
            _ => "/var/lib/cfengine3".to_string(),
        };
        format!("{workdir}/modules/packages/{module}")
    });
    if crate::expr::host::HostEnv::stat(&e.host, &path, true).is_none() {
        e.log(
            LogLevel::Error,
            &format!("Cannot find package module at location '{path}' or access to file is restricted: No such file or directory"),
        );
        e.log(
            LogLevel::Error,
            &format!(
                "Some error occurred while contacting package module for promise '{promiser}'"
            ),
        );
        return Some(fail(e, def, p));
    }
    // the promise refreshes the module's inventory caches (query_*_ifelapsed taken as elapsed)
    e.host.packages.query(&module);
    let simulate = e.opts.simulate.is_some();
    let action_warn = e.action_warn(def, p);
    let warn_only = action_warn || (e.opts.dry_run && !simulate);
    let suffix = if action_warn {
        ", but only warning promised"
    } else {
        ""
    };
    let record = |op: PackageOp, v: Option<&str>, a: Option<&str>| PackageChange {
        op,
        name: promiser.to_string(),
        version: v.unwrap_or_default().to_string(),
        arch: a.unwrap_or_default().to_string(),
    };
    let st = &e.host.packages;
    if absent {
        let installed = st
            .find_installed(promiser, arch.as_deref())
            .iter()
            .any(|i| version.as_deref().is_none_or(|v| v == i.version));
        if !installed {
            if simulate {
                let r = record(PackageOp::Absent, version.as_deref(), arch.as_deref());
                e.host.packages.ops.push(r);
            }
            e.record_outcome(def, p, Outcome::Kept);
            return Some(Outcome::Kept);
        }
        if warn_only {
            e.log(
                LogLevel::Warning,
                &format!("Should remove package '{promiser}'{suffix}"),
            );
            return Some(warn_fail(e, def, p, action_warn));
        }
        if simulate {
            let r = record(PackageOp::Remove, version.as_deref(), arch.as_deref());
            e.host.packages.ops.push(r);
        } else {
            e.host.packages.remove(promiser, arch.as_deref());
            e.host.packages.query(&module);
        }
        e.log(
            LogLevel::Info,
            &format!("Successfully removed package '{promiser}'"),
        );
        e.record_outcome(def, p, Outcome::Repaired);
        return Some(Outcome::Repaired);
    }
    // present
    let latest = version.as_deref() == Some("latest");
    let pinned = version.as_deref().filter(|_| !latest);
    let installed: Vec<_> = st
        .find_installed(promiser, arch.as_deref())
        .into_iter()
        .cloned()
        .collect();
    let update = st.find_update(promiser, arch.as_deref()).cloned();
    let satisfied = match pinned {
        Some(v) => installed.iter().any(|i| i.version == v),
        None if latest => !installed.is_empty() && update.is_none(),
        None => !installed.is_empty(),
    };
    if satisfied {
        if simulate {
            let r = record(PackageOp::Present, version.as_deref(), arch.as_deref());
            e.host.packages.ops.push(r);
        }
        e.record_outcome(def, p, Outcome::Kept);
        return Some(Outcome::Kept);
    }
    if warn_only {
        e.log(
            LogLevel::Warning,
            &format!("Should install repo type package: {promiser}{suffix}"),
        );
        return Some(warn_fail(e, def, p, action_warn));
    }
    if simulate {
        // recorded: an update of an installed package under `latest` is recorded with the update's
        // version and architecture and the promise ends kept; every other install fails the agent's
        // post-install check (the module is not run in the chroot) and is recorded as asked
        if let (true, false, Some(u)) = (latest, installed.is_empty(), &update) {
            let r = record(PackageOp::Install, Some(&u.version), Some(&u.arch));
            e.host.packages.ops.push(r);
            e.record_outcome(def, p, Outcome::Kept);
            return Some(Outcome::Kept);
        }
        let r = record(PackageOp::Install, version.as_deref(), arch.as_deref());
        e.host.packages.ops.push(r);
        e.log(
            LogLevel::Error,
            &format!("Error installing package '{promiser}'"),
        );
        return Some(fail(e, def, p));
    }
    let candidate = e
        .host
        .packages
        .candidate(promiser, pinned, arch.as_deref())
        .cloned();
    let err = match &candidate {
        None => Some(format!("No package '{promiser}' available")),
        Some(c) => c.install_error.clone(),
    };
    if let Some(err) = err {
        e.log(
            LogLevel::Error,
            &format!("package module: ErrorMessage={err}"),
        );
        e.log(
            LogLevel::Error,
            &format!("Error installing package '{promiser}'"),
        );
        return Some(fail(e, def, p));
    }
    if let Some(c) = candidate {
        e.host.packages.install(&c);
    }
    e.host.packages.query(&module);
    e.log(
        LogLevel::Info,
        &format!("Successfully installed package '{promiser}'"),
    );
    e.record_outcome(def, p, Outcome::Repaired);
    Some(Outcome::Repaired)
}

/// The not-kept outcome of a change only warned about: with `action_policy => "warn"` the agent sets
/// the outcome's classes twice (-v shows two outcome class lines) and counts it once (recorded:
/// packages/pm-warn-absent/verbose.out).
fn warn_fail(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, action_warn: bool) -> Outcome {
    if action_warn {
        e.apply_classes_body(def, p, Outcome::Failed);
    }
    fail(e, def, p)
}

fn fail(e: &mut Engine<'_>, def: &BundleDef, p: &Promise) -> Outcome {
    e.record_outcome(def, p, Outcome::Failed);
    Outcome::Failed
}
