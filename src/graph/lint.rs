//! Graph lints, each computed with a petgraph algorithm on the graph of its kind: agent bundles never
//! reached from the bundlesequence (depth-first search, `calls`), `depends_on` cycles (Tarjan's
//! strongly connected components, `depends`), classes used but never defined and classes defined but
//! never used (in and out edges of class nodes, `classes`), bodies never used (depth-first search from
//! the bundles and control bodies, `bodies`). Printed as `FILE:LINE:COL: warning: MESSAGE`.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use petgraph::graph::NodeIndex;
use petgraph::visit::{Dfs, EdgeRef};
use petgraph::Direction;

use super::classes::is_definition;
use super::model::{Pos, Site};
use super::{Kind, PolicyGraph};

/// One warning.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Warning {
    pub pos: Pos,
    pub site: Site,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: warning: {}", self.site, self.message)
    }
}

/// The warnings about the graph `g` (built for its kind), sorted by place.
pub fn lint(g: &PolicyGraph) -> Vec<Warning> {
    let mut out = match g.kind {
        Kind::Calls => unreached_bundles(g),
        Kind::Depends => depends_cycles(g),
        Kind::Classes => class_lints(g),
        Kind::Bodies => unused_bodies(g),
    };
    out.sort();
    out.dedup();
    out
}

fn warning(g: &PolicyGraph, n: NodeIndex, message: String) -> Option<Warning> {
    let node = g.g.node_weight(n)?;
    Some(Warning {
        pos: node.pos?,
        site: node.site.clone()?,
        message,
    })
}

/// Agent bundles no literal call path from the bundlesequence reaches.
fn unreached_bundles(g: &PolicyGraph) -> Vec<Warning> {
    let Some(start) = g.find(super::calls::SEQUENCE) else {
        return Vec::new();
    };
    let mut reached: BTreeSet<NodeIndex> = BTreeSet::new();
    let mut dfs = Dfs::new(&g.g, start);
    while let Some(n) = dfs.next(&g.g) {
        reached.insert(n);
    }
    let dynamic = reached
        .iter()
        .any(|n| g.g.node_weight(*n).is_some_and(|w| w.ty == "dynamic"));
    let note = if dynamic {
        " (calls by variable name are not followed)"
    } else {
        ""
    };
    g.sorted_nodes()
        .into_iter()
        .filter(|n| !reached.contains(n))
        .filter_map(|n| {
            let w = g.g.node_weight(n)?;
            if w.ty != "bundle" || w.subtype != "agent" {
                return None;
            }
            warning(
                g,
                n,
                format!(
                    "bundle agent '{}' is never reached from the bundlesequence{note}",
                    w.label
                ),
            )
        })
        .collect()
}

/// A node's name in messages: the handle, else its label.
fn short(g: &PolicyGraph, n: NodeIndex) -> String {
    g.g.node_weight(n)
        .map(|w| {
            if w.name.is_empty() {
                w.label.clone()
            } else {
                w.name.clone()
            }
        })
        .unwrap_or_default()
}

/// Each strongly connected component with a cycle, reported at its first promise as the path from
/// it back to itself.
fn depends_cycles(g: &PolicyGraph) -> Vec<Warning> {
    let mut out = Vec::new();
    for scc in petgraph::algo::tarjan_scc(&g.g) {
        let looped = scc.len() > 1 || scc.first().is_some_and(|n| g.g.find_edge(*n, *n).is_some());
        if !looped {
            continue;
        }
        let members: BTreeSet<NodeIndex> = scc.iter().copied().collect();
        let Some(start) = scc
            .iter()
            .copied()
            .min_by_key(|n| (g.g.node_weight(*n).and_then(|w| w.pos), short(g, *n)))
        else {
            continue;
        };
        let path = cycle_from(g, start, &members);
        let names: Vec<String> = path.iter().map(|n| short(g, *n)).collect();
        if let Some(w) = warning(
            g,
            start,
            format!("depends_on cycle: {}", names.join(" -> ")),
        ) {
            out.push(w);
        }
    }
    out
}

/// The shortest path `start → … → start` inside `members` (breadth first, successors in id order).
fn cycle_from(g: &PolicyGraph, start: NodeIndex, members: &BTreeSet<NodeIndex>) -> Vec<NodeIndex> {
    let id = |n: NodeIndex| g.g.node_weight(n).map(|w| w.id.clone()).unwrap_or_default();
    let succ = |n: NodeIndex| {
        let mut v: Vec<NodeIndex> =
            g.g.neighbors_directed(n, Direction::Outgoing)
                .filter(|x| members.contains(x))
                .collect();
        v.sort_by_key(|x| id(*x));
        v.dedup();
        v
    };
    let mut prev: HashMap<NodeIndex, NodeIndex> = HashMap::new();
    let mut queue: VecDeque<NodeIndex> = VecDeque::new();
    queue.push_back(start);
    while let Some(n) = queue.pop_front() {
        for s in succ(n) {
            if s == start {
                // walk back from `n` to the start, then put the middle in order
                let mut back = Vec::new();
                let mut cur = n;
                while cur != start {
                    back.push(cur);
                    match prev.get(&cur) {
                        Some(p) => cur = *p,
                        None => break,
                    }
                }
                back.reverse();
                let mut path = vec![start];
                path.extend(back);
                path.push(start);
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(s) {
                if s != start {
                    e.insert(n);
                    queue.push_back(s);
                }
            }
        }
    }
    vec![start, start]
}

/// The classes one promise defines through one classes promise or classes body: first place, the
/// classes, and whether any of them is used.
type Group = (Pos, Site, BTreeSet<String>, bool);

/// Classes used but never defined (and not hard), classes defined but never used.
fn class_lints(g: &PolicyGraph) -> Vec<Warning> {
    let mut out = Vec::new();
    // whether each node has an outgoing edge (a class node: some promise uses it), computed once
    let used: Vec<bool> =
        g.g.node_indices()
            .map(|n| {
                g.g.neighbors_directed(n, Direction::Outgoing)
                    .next()
                    .is_some()
            })
            .collect();
    let uses = |n: NodeIndex| used.get(n.index()).copied().unwrap_or(false);
    for n in g.sorted_nodes() {
        let Some(w) = g.g.node_weight(n) else {
            continue;
        };
        if w.ty != "class" || w.subtype != "undefined" {
            continue;
        }
        let first =
            g.g.edges_directed(n, Direction::Outgoing)
                .filter_map(|e| Some((e.weight().pos?, e.weight().site.clone()?)))
                .min();
        if let Some((pos, site)) = first {
            out.push(Warning {
                pos,
                site,
                message: format!(
                    "class '{}' is used but never defined (by no promise, and not a hard class)",
                    w.label
                ),
            });
        }
    }
    // definitions, per promise: a classes promise's class alone, a classes body's classes together
    for n in g.sorted_nodes() {
        if g.g.node_weight(n).is_none_or(|w| w.ty != "promise") {
            continue;
        }
        let mut groups: BTreeMap<(bool, String), Group> = BTreeMap::new();
        for e in g.g.edges_directed(n, Direction::Outgoing) {
            let ew = e.weight();
            let (Some(pos), Some(site)) = (ew.pos, ew.site.clone()) else {
                continue;
            };
            if !is_definition(ew.kind) {
                continue;
            }
            let by_body = ew.kind != "classes" && ew.kind != "select_class";
            let class =
                g.g.node_weight(e.target())
                    .map(|t| t.label.clone())
                    .unwrap_or_default();
            let group = if by_body {
                (true, ew.label.clone())
            } else {
                (false, class.clone())
            };
            let entry = groups
                .entry(group)
                .or_insert((pos, site, BTreeSet::new(), false));
            if pos < entry.0 {
                entry.0 = pos;
                entry.1 = ew.site.clone().unwrap_or(entry.1.clone());
            }
            entry.2.insert(class);
            entry.3 |= uses(e.target());
        }
        for ((by_body, label), (pos, site, classes, used)) in groups {
            if used {
                continue;
            }
            let names: Vec<String> = classes.into_iter().collect();
            let message = if by_body {
                format!(
                    "no class set by {label} is ever used ({})",
                    names.join(", ")
                )
            } else {
                format!("class '{}' is defined but never used", names.join(", "))
            };
            out.push(Warning { pos, site, message });
        }
    }
    out
}

/// Bodies no bundle, control body or `bodydefault` body leads to.
fn unused_bodies(g: &PolicyGraph) -> Vec<Warning> {
    let mut reached: BTreeSet<NodeIndex> = BTreeSet::new();
    let roots: Vec<NodeIndex> = g
        .sorted_nodes()
        .into_iter()
        .filter(|n| {
            g.g.node_weight(*n).is_some_and(|w| {
                w.ty == "bundle"
                    || (w.ty == "body" && (w.name == "control" || w.namespace == "bodydefault"))
            })
        })
        .collect();
    let mut dfs = Dfs::empty(&g.g);
    for r in roots {
        dfs.move_to(r);
        while let Some(n) = dfs.next(&g.g) {
            reached.insert(n);
        }
    }
    g.sorted_nodes()
        .into_iter()
        .filter(|n| !reached.contains(n))
        .filter_map(|n| {
            let w = g.g.node_weight(n)?;
            if w.ty != "body" {
                return None;
            }
            warning(
                g,
                n,
                format!(
                    "body {} '{}' is never used",
                    w.subtype,
                    super::model::display_name(&w.namespace, &w.name)
                ),
            )
        })
        .collect()
}
