//! `--from NODE` and `--depth N`: the part of a graph reachable from some nodes along its edges (at
//! most N edges away), as a graph of its own with the edges between the nodes kept.

use std::collections::{BTreeSet, VecDeque};

use petgraph::graph::NodeIndex;
use petgraph::Direction;

use super::PolicyGraph;

/// The nodes `from` names: by id, by name or label (`main`, `ns:b`), or, for promise nodes, by the
/// bundle they belong to.
pub fn start_nodes(g: &PolicyGraph, from: &str) -> Vec<NodeIndex> {
    let qualified = from.strip_prefix("default:").unwrap_or(from);
    g.sorted_nodes()
        .into_iter()
        .filter(|i| {
            g.g.node_weight(*i).is_some_and(|n| {
                n.id == from
                    || n.label == qualified
                    || (!n.name.is_empty()
                        && (n.name == qualified || format!("{}:{}", n.namespace, n.name) == from))
                    || (n.ty == "promise" && n.bundle == qualified)
            })
        })
        .collect()
}

/// The subgraph reachable from `starts` in at most `depth` edges (all of it with `None`).
pub fn focus(g: &PolicyGraph, starts: &[NodeIndex], depth: Option<usize>) -> PolicyGraph {
    let mut keep: BTreeSet<NodeIndex> = BTreeSet::new();
    let mut queue: VecDeque<(NodeIndex, usize)> = VecDeque::new();
    for s in starts {
        if keep.insert(*s) {
            queue.push_back((*s, 0));
        }
    }
    while let Some((n, d)) = queue.pop_front() {
        if depth.is_some_and(|max| d >= max) {
            continue;
        }
        for next in g.g.neighbors_directed(n, Direction::Outgoing) {
            if keep.insert(next) {
                queue.push_back((next, d + 1));
            }
        }
    }
    let mut out = PolicyGraph::new(g.kind);
    for i in g.sorted_nodes() {
        if keep.contains(&i) {
            if let Some(n) = g.g.node_weight(i) {
                out.node(n.clone());
            }
        }
    }
    for (a, b, e) in g.sorted_edges() {
        if !keep.contains(&a) || !keep.contains(&b) {
            continue;
        }
        let ids = (
            g.g.node_weight(a).map(|n| n.id.as_str()),
            g.g.node_weight(b).map(|n| n.id.as_str()),
        );
        if let (Some(x), Some(y)) = ids {
            if let (Some(na), Some(nb)) = (out.find(x), out.find(y)) {
                out.edge(na, nb, e.clone());
            }
        }
    }
    out
}
