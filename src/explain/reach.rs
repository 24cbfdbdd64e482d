//! Why a promise was never evaluated: its bundle never ran because it is not in the
//! bundlesequence and no methods promise called it (or those that name it never did, and why), or
//! its bundle is of a type that runs only inside promises cfsim does not simulate.

use super::facts::{display, Facts, PromiseAt};
use super::steps::{self, Target};

/// Deepest chain of callers followed.
const MAX_CALLER_DEPTH: usize = 4;

/// Why a promise has no evaluation in the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Reach {
    /// The bundle (`main`, `ns:b`) and its type.
    pub bundle: String,
    pub bundle_type: String,
    /// The bundle is listed in the bundlesequence.
    pub in_sequence: bool,
    /// The bundle ran (its other promises were evaluated).
    pub ran: bool,
    /// Methods promises that name the bundle, and why none of them called it.
    pub callers: Vec<Caller>,
    /// The reason in words.
    pub text: String,
}

/// A methods promise that could call the bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    pub site: String,
    pub bundle: String,
    /// Written with variables that could name the bundle.
    pub maybe: bool,
    /// Why it did not call: its attempts, or why it was never evaluated itself.
    pub attempts: Vec<steps::Attempt>,
    pub reach: Option<Box<Reach>>,
}

/// The bundle a methods promise calls, as written: `usebundle`'s name, or the promiser.
fn called(p: &PromiseAt<'_>) -> String {
    match p.constraint("usebundle") {
        Some(crate::syntax::ast::Rval::Scalar(s)) => s.value.clone(),
        Some(crate::syntax::ast::Rval::Call(c)) => c.name.clone(),
        Some(_) => String::new(),
        None => p.promise.promiser.value.clone(),
    }
}

/// Why promise `p` (without evaluations) was never reached.
pub fn reach(facts: &Facts<'_>, p: &PromiseAt<'_>) -> Reach {
    reach_bundle(facts, p, 0)
}

fn reach_bundle(facts: &Facts<'_>, p: &PromiseAt<'_>, depth: usize) -> Reach {
    let b = p.bundle;
    let q = format!("{}:{}", b.ns, b.name);
    let name = display(&b.ns, &b.name);
    let in_sequence = facts.sequence.iter().any(|s| {
        let (ns, n) = crate::eval::split_ns(s, "default");
        ns == b.ns && n == b.name
    });
    let ran = facts.bundle_ran(&q);
    let mut r = Reach {
        bundle: name.clone(),
        bundle_type: b.bundle.bundle_type.clone(),
        in_sequence,
        ran,
        callers: Vec::new(),
        text: String::new(),
    };
    if ran {
        r.text = format!(
            "its bundle {name} ran, but the trace has no evaluation of this promise (a list it iterates over may have been empty)"
        );
        return r;
    }
    if !matches!(b.bundle.bundle_type.as_str(), "agent" | "common") {
        r.text = format!(
            "bundle {name} is a {} bundle: it runs only inside the promises that use it, which cfsim does not evaluate",
            b.bundle.bundle_type
        );
        return r;
    }
    if in_sequence {
        r.text = format!(
            "bundle {name} is in the bundlesequence but never ran (the run stopped before it)"
        );
        return r;
    }
    for c in facts
        .promises
        .iter()
        .filter(|c| c.promise_type == "methods")
    {
        let w = called(c);
        let (ns, n) = crate::eval::split_ns(&w, &c.bundle.ns);
        let exact = ns == b.ns && n == b.name;
        // a name with variables counts when its values at the end of the run include the bundle,
        // or (unknown values) when its literal text matched
        let maybe = !exact
            && crate::graph::model::is_dynamic(&w)
            && super::candidates::names(n, &b.name, false).is_some()
            && match super::candidates::expansions(facts, &w, &c.bundle.ns, &c.bundle.name) {
                Some(values) => values.iter().any(|v| {
                    let (vns, vn) = crate::eval::split_ns(v, &c.bundle.ns);
                    vns == b.ns && vn == b.name
                }),
                None => !super::candidates::literal_text(n).trim().is_empty(),
            };
        if !exact && !maybe {
            continue;
        }
        let evs = facts.evaluations(c);
        let (attempts, sub) = if evs.is_empty() {
            let sub =
                (depth < MAX_CALLER_DEPTH).then(|| Box::new(reach_bundle(facts, c, depth + 1)));
            (Vec::new(), sub)
        } else {
            let mut attempts = steps::attempts(facts, c, &evs, &Target::None);
            if maybe {
                // it ran and called a bundle: another one, since this one never ran
                for a in attempts
                    .iter_mut()
                    .filter(|a| matches!(a.verdict.as_str(), "kept" | "repaired" | "failed"))
                {
                    a.verdict = "other_bundle".into();
                    a.text =
                        "it called a bundle, not this one (its name expanded to another)".into();
                }
            }
            (attempts, None)
        };
        r.callers.push(Caller {
            site: c.site(),
            bundle: c.bundle_name(),
            maybe,
            attempts,
            reach: sub,
        });
    }
    let seq = if facts.sequence.is_empty() {
        "empty".to_string()
    } else {
        facts.sequence.join(", ")
    };
    r.text = if r.callers.is_empty() {
        format!(
            "bundle {name} never ran: it is not in the bundlesequence ({seq}) and no methods promise calls it"
        )
    } else {
        format!(
            "bundle {name} never ran: it is not in the bundlesequence ({seq}), and the methods promises that name it never called it"
        )
    };
    r
}
