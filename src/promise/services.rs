//! `services:` promises (spec §5.3): a method call. The bundle is the `service_bundle` of the
//! `service_method` body, else `standard_services(promiser, policy)` of the stdlib; `service_policy`
//! defaults to `start` and is visible as `$(this.service_policy)`. The outcome, classes and messages are
//! those of the method call (recorded: policies/services). The service tools the bundle runs are answered
//! by the host's virtual service inventory ([`crate::eval::hostenv::HostAdapter::virtual_command`]).

use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::{Call, Constraint, Promise, Quote, Rval, Scalar};

/// The bundle a services promise without `service_bundle` calls.
pub const DEFAULT_SERVICE_BUNDLE: &str = "standard_services";

/// Evaluates one services promise binding as the methods promise it stands for.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    let policy = Engine::constraint(p, "service_policy")
        .and_then(|rv| e.scalar_of(rv))
        .unwrap_or_else(|| "start".to_string());
    e.ctx.put_this("service_policy", &policy);
    // what an earlier iteration of this promise in this pass left in `this.service_policy`
    let key = format!("{}:{}:{:?}:{}", def.ns, def.name, p.promiser.span, e.pass);
    let before = match &e.service_policy_left {
        // the agent clears `this` when a promise starts: the first iteration sees nothing
        Some((k, v)) if *k == key && e.iteration > 1 => Some(v.clone()),
        _ => None,
    };
    let method = e.body_attrs(def, p, "service_method", "service_method");
    let scalar = |v: &str| {
        Rval::Scalar(Scalar {
            value: v.to_string(),
            quote: Quote::Double,
            span: p.promiser.span,
        })
    };
    let bundle = method
        .iter()
        .find(|(l, _)| l == "service_bundle")
        .map(|(_, rv)| rv.clone())
        .unwrap_or_else(|| {
            Rval::Call(Call {
                name: DEFAULT_SERVICE_BUNDLE.to_string(),
                args: vec![scalar(promiser), scalar(&policy)],
                span: p.promiser.span,
            })
        });
    let mut call = p.clone();
    call.constraints.retain(|c| {
        !matches!(
            c.lval.as_str(),
            "service_policy" | "service_method" | "service_dependencies"
        )
    });
    // The agent expands the promise before it sets `this.service_policy`, which it sets only when it
    // evaluates an iteration (not one done already) and which every promise starts without, in every
    // pass: a service_bundle call that uses it is seen with the variable unexpanded until an iteration
    // of the promise ran in this pass, and after that with the value that iteration set (the call
    // gets that stale value). Each form is its own method-call identity, so a list-iterating promise
    // calls its bundle again in passes 2 and 3 (recorded: services/sd-list-iteration and
    // sd-list-per-state, -v).
    let uses_policy = format!("{bundle:?}").contains("this.service_policy");
    if uses_policy {
        let form = match &before {
            None => "unexpanded".to_string(),
            Some(v) => {
                e.ctx.put_this("service_policy", v);
                format!("expanded:{v}")
            }
        };
        call.constraints.push(Constraint {
            lval: "cfsim_service_policy_form".to_string(),
            lval_span: p.promiser.span,
            rval: scalar(&form),
        });
    }
    call.constraints.push(Constraint {
        lval: "usebundle".to_string(),
        lval_span: p.promiser.span,
        rval: bundle,
    });
    let done_before = e.done.len();
    crate::promise::methods::evaluate_as(e, def, &call, promiser, "services");
    if uses_policy && e.done.len() > done_before {
        // evaluated: the promise's own policy stays for its next iteration
        e.service_policy_left = Some((key, policy));
    }
}
