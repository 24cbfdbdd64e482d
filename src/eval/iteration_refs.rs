//! The references a promise's strings iterate over (`expr::iterate`), found once per bundle definition
//! and shared by every engine of a policy, instead of rescanning every string at each evaluation.

use super::{rval, BundleDef};
use crate::fasthash;
use crate::syntax::ast::Promise;

/// Per promise of one bundle (by its address: the promises of a bundle are never moved or changed
/// once it is defined), the references its strings iterate over (`expr::iterate`), in binding order;
/// made on first use and shared by every engine of the policy (a fleet finds them once, not per host
/// and evaluation). A copy of the bundle starts empty: its promises are elsewhere.
#[derive(Default)]
pub struct IterationRefs(std::sync::OnceLock<RefsByPromise>);

type RefsByPromise = std::collections::HashMap<usize, Vec<String>, fasthash::FastState>;

impl Clone for IterationRefs {
    fn clone(&self) -> Self {
        IterationRefs::default()
    }
}

impl std::fmt::Debug for IterationRefs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IterationRefs")
    }
}

impl BundleDef {
    /// The references promise `p` of this bundle iterates over (`None` for a promise of another
    /// bundle).
    pub fn iteration_refs(&self, p: &Promise) -> Option<&[String]> {
        let map = self.refs.0.get_or_init(|| {
            let mut map = RefsByPromise::default();
            for s in &self.bundle.sections {
                for q in &s.promises {
                    let refs = crate::expr::iterate::references_of(&promise_strings(q));
                    map.insert(std::ptr::from_ref(q) as usize, refs);
                }
            }
            map
        });
        map.get(&(std::ptr::from_ref(p) as usize))
            .map(Vec::as_slice)
    }
}

/// The strings of a promise whose references iterate: the promiser, the promisee and every constraint
/// value, in that order.
pub fn promise_strings(p: &Promise) -> Vec<&str> {
    let mut strings: Vec<&str> = vec![&p.promiser.value];
    if let Some(pe) = &p.promisee {
        rval::rval_strings(pe, &mut strings);
    }
    for c in &p.constraints {
        rval::rval_strings(&c.rval, &mut strings);
    }
    strings
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn bundle(text: &str) -> BundleDef {
        let parsed = crate::syntax::parse_file_recovering("t.cf", text);
        let b = parsed.policy.bundles.into_iter().next().expect("a bundle");
        BundleDef {
            ns: "default".into(),
            name: b.name.clone(),
            bundle: b,
            file: 0,
            refs: IterationRefs::default(),
        }
    }

    #[test]
    fn found_once_as_a_scan_finds_them() {
        let def = bundle(
            "bundle agent b { vars: \"x_$(l)\" string => \"$(m[$(k)]) $(l)\", comment => \"$(c)\"; \
             reports: \"$(r)\" if => \"$(g)\"; }",
        );
        for s in &def.bundle.sections {
            for p in &s.promises {
                let want = crate::expr::iterate::references_of(&promise_strings(p));
                assert_eq!(def.iteration_refs(p), Some(want.as_slice()));
            }
        }
        let p = &def.bundle.sections[0].promises[0];
        assert_eq!(
            def.iteration_refs(p).unwrap(),
            ["l", "k", "m[$(k)]", "c"].map(String::from)
        );
        // a copy's promises are other values: not answered from the original's addresses
        let copy = def.clone();
        assert_eq!(copy.iteration_refs(p), None);
        let q = &copy.bundle.sections[0].promises[0];
        assert_eq!(copy.iteration_refs(q), def.iteration_refs(p));
    }
}
