//! A loaded file split into what an [`super::Engine`] keeps of it (source text, bundles, bodies, custom
//! promise types), built once and shared by every engine of one policy (`Arc`): a fleet evaluates the
//! same files for thousands of hosts, and copying (then freeing) their syntax trees per engine was a
//! measured share of each node's time. An engine that loads the file at another position (another file
//! index) gets its own copy, so what it sees is always what loading the file itself would give.

use std::sync::Arc;

use super::{split_ns, BodyDef, BundleDef};
use crate::load::Loaded;
use crate::source::SourceFile;
use crate::syntax::ast::Constraint;

/// One file as the engine holds it.
#[derive(Debug)]
pub struct Lowered {
    pub file: Arc<SourceFile>,
    /// The file index its bundles and bodies carry.
    pub index: usize,
    pub bundles: Vec<Arc<BundleDef>>,
    pub bodies: Vec<Arc<BodyDef>>,
    /// `promise agent NAME` blocks: name and attributes.
    pub promise_types: Vec<(String, Vec<Constraint>)>,
}

impl Lowered {
    /// Splits `l`, which the engine adds as file `index`.
    pub fn new(l: Loaded, index: usize) -> Lowered {
        let mut bundles = Vec::new();
        for b in l.policy.bundles {
            let (ns, name) = split_ns(&b.name, &b.namespace);
            let (ns, mut name) = (ns.to_string(), name.to_string());
            if name == "__main__" {
                // `__main__` in the entry file is `main`; elsewhere it is dropped.
                if index != 0 {
                    continue;
                }
                name = "main".into();
            }
            bundles.push(Arc::new(BundleDef {
                ns,
                name,
                bundle: b,
                file: index,
                refs: Default::default(),
            }));
        }
        let promise_types = l
            .policy
            .promise_blocks
            .iter()
            .map(|pb| (pb.name.clone(), pb.attrs.clone()))
            .collect();
        let bodies = l
            .policy
            .bodies
            .into_iter()
            .map(|b| {
                let (ns, name) = split_ns(&b.name, &b.namespace);
                let (ns, name) = (ns.to_string(), name.to_string());
                Arc::new(BodyDef {
                    ns,
                    name,
                    body: b,
                    file: index,
                })
            })
            .collect();
        Lowered {
            file: Arc::new(l.file),
            index,
            bundles,
            bodies,
            promise_types,
        }
    }

    /// The same file as file `index`: shared when that is its index, a copy otherwise; `None` when
    /// it cannot be made from this one (a `__main__` bundle dropped here would be kept as file 0).
    pub fn at(self: &Arc<Self>, index: usize) -> Option<Arc<Lowered>> {
        if index == self.index {
            return Some(Arc::clone(self));
        }
        if index == 0 {
            return None;
        }
        let bundles = self
            .bundles
            .iter()
            // `main` (from `__main__`) exists only in the entry file
            .filter(|b| split_ns(&b.bundle.name, &b.bundle.namespace).1 != "__main__")
            .map(|b| {
                Arc::new(BundleDef {
                    file: index,
                    ..BundleDef::clone(b)
                })
            })
            .collect();
        Some(Arc::new(Lowered {
            file: Arc::clone(&self.file),
            index,
            bundles,
            bodies: self
                .bodies
                .iter()
                .map(|b| {
                    Arc::new(BodyDef {
                        file: index,
                        ..BodyDef::clone(b)
                    })
                })
                .collect(),
            promise_types: self.promise_types.clone(),
        }))
    }
}
