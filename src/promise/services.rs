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
    call.constraints.push(Constraint {
        lval: "usebundle".to_string(),
        lval_span: p.promiser.span,
        rval: bundle,
    });
    crate::promise::methods::evaluate(e, def, &call, promiser);
}
