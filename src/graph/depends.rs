//! The `depends` graph: an edge from each promise with `depends_on` to every handle it names (the
//! promise that must be kept or repaired first). A promise is its handle's node when it has a literal
//! `handle`, else a node of its own; a handle no promise has is `missing`, a name with variables
//! `dynamic`. Only promises taking part in some `depends_on` are shown.

use std::collections::BTreeMap;

use petgraph::graph::NodeIndex;

use super::calls::constraint;
use super::model::{display_name, is_dynamic, scalars, Model, Pos};
use super::{Edge, Kind, Node, PolicyGraph};
use crate::syntax::ast::Rval;

/// A promise with its place and what it says about handles.
struct Entry {
    pos: Pos,
    label: String,
    bundle: String,
    handle: Option<String>,
    depends: Vec<(String, Pos)>,
}

fn entries(m: &Model<'_>) -> Vec<Entry> {
    let mut out = Vec::new();
    for b in &m.bundles {
        let bname = display_name(b.ns, b.name);
        for s in &b.bundle.sections {
            for p in &s.promises {
                let handle = match constraint(p, "handle") {
                    Some(Rval::Scalar(h)) if !is_dynamic(&h.value) => Some(h.value.clone()),
                    _ => None,
                };
                let depends: Vec<(String, Pos)> = constraint(p, "depends_on")
                    .map(|rv| {
                        scalars(rv)
                            .into_iter()
                            .map(|s| {
                                (
                                    s.value.clone(),
                                    Pos {
                                        file: b.file,
                                        offset: s.span.start,
                                    },
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if handle.is_none() && depends.is_empty() {
                    continue;
                }
                out.push(Entry {
                    pos: Pos {
                        file: b.file,
                        offset: p.promiser.span.start,
                    },
                    label: format!("{bname}: {} \"{}\"", s.promise_type, p.promiser.value),
                    bundle: bname.clone(),
                    handle,
                    depends,
                });
            }
        }
    }
    out
}

fn handle_id(h: &str) -> String {
    format!("handle:{h}")
}

pub fn build(m: &Model<'_>) -> PolicyGraph {
    let mut g = PolicyGraph::new(Kind::Depends);
    let all = entries(m);
    // the first promise with a handle owns it (duplicates are a policy error caught by the checks)
    let mut owners: BTreeMap<&str, &Entry> = BTreeMap::new();
    for e in &all {
        if let Some(h) = &e.handle {
            owners.entry(h.as_str()).or_insert(e);
        }
    }
    let node_of = |g: &mut PolicyGraph, e: &Entry| -> NodeIndex {
        let (id, label, name) = match &e.handle {
            Some(h) => (handle_id(h), format!("{h}\n{}", e.label), h.clone()),
            None => (m.site(e.pos).to_string(), e.label.clone(), String::new()),
        };
        let mut n = Node::new(id, label, "promise");
        n.name = name;
        n.bundle = e.bundle.clone();
        g.node(n.at(m, e.pos))
    };
    for e in all.iter().filter(|e| !e.depends.is_empty()) {
        let from = node_of(&mut g, e);
        for (h, pos) in &e.depends {
            let (to, dynamic) = if is_dynamic(h) {
                let id = format!("{} -> {h}", m.site(e.pos));
                let mut n = Node::new(id, h.clone(), "dynamic");
                n.name = h.clone();
                (g.node(n), true)
            } else if let Some(owner) = owners.get(h.as_str()) {
                (node_of(&mut g, owner), false)
            } else {
                let mut n = Node::new(handle_id(h), format!("{h} (undefined)"), "missing");
                n.name = h.clone();
                (g.node(n), false)
            };
            g.edge(
                from,
                to,
                Edge::new("depends_on", "", dynamic, m, Some(*pos)),
            );
        }
    }
    g
}
