//! `cfsim graph`: graphs of a policy built from its AST with petgraph — the bundle call graph
//! (`calls`), class definitions and uses (`classes`), `depends_on` → handle ordering (`depends`) and
//! body use and inheritance (`bodies`) — their output as DOT, mermaid or JSON (`render`), the
//! `--from`/`--depth` focus, and the lints computed with graph algorithms (`lint`).
//!
//! Everything is static: names written with variables (`$(x)`, `@(x)`) are shown as dynamic nodes and
//! never followed. Output is sorted (nodes by id, edges by ends, kind and label), never in hash order.

pub mod bodies;
pub mod calls;
pub mod classes;
pub mod depends;
pub mod focus;
pub mod known;
pub mod lint;
pub mod model;
pub mod render;

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::{DiGraph, NodeIndex};

pub use model::{Model, Pos, Site};

/// Which graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Calls,
    Classes,
    Depends,
    Bodies,
}

impl Kind {
    pub const ALL: [Kind; 4] = [Kind::Calls, Kind::Classes, Kind::Depends, Kind::Bodies];

    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "calls" => Kind::Calls,
            "classes" => Kind::Classes,
            "depends" => Kind::Depends,
            "bodies" => Kind::Bodies,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Calls => "calls",
            Kind::Classes => "classes",
            Kind::Depends => "depends",
            Kind::Bodies => "bodies",
        }
    }
}

/// One node: `id` is unique in its graph and stable between runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub id: String,
    pub label: String,
    /// `bundlesequence`, `bundle`, `body`, `class`, `promise`, `handle`, `dynamic` or `missing`.
    pub ty: &'static str,
    /// Bundle or body type (`agent`, `edit_line`, `perms` …), empty otherwise.
    pub subtype: String,
    pub namespace: String,
    /// The bare name (bundle, body, class or handle), empty for promises and dynamic nodes.
    pub name: String,
    /// The bundle a promise node belongs to (display name), empty otherwise.
    pub bundle: String,
    /// Where it is defined (for lints, ordered by load order of files), and that place rendered.
    pub pos: Option<Pos>,
    pub site: Option<Site>,
}

impl Node {
    pub fn new(id: impl Into<String>, label: impl Into<String>, ty: &'static str) -> Node {
        Node {
            id: id.into(),
            label: label.into(),
            ty,
            subtype: String::new(),
            namespace: String::new(),
            name: String::new(),
            bundle: String::new(),
            pos: None,
            site: None,
        }
    }

    /// The node, placed at `pos`.
    pub fn at(mut self, m: &Model<'_>, pos: Pos) -> Node {
        self.site = Some(m.site(pos));
        self.pos = Some(pos);
        self
    }
}

/// One edge: what relation (`kind`), how it is written (`label`: call arguments, attribute), and
/// whether it leads to a name known only at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub kind: &'static str,
    pub label: String,
    pub dynamic: bool,
    /// The promise or constraint the edge comes from, and that place rendered.
    pub pos: Option<Pos>,
    pub site: Option<Site>,
}

impl Edge {
    /// An edge written at `pos` (`None`: implied, e.g. the default bundlesequence).
    pub fn new(
        kind: &'static str,
        label: impl Into<String>,
        dynamic: bool,
        m: &Model<'_>,
        pos: Option<Pos>,
    ) -> Edge {
        Edge {
            kind,
            label: label.into(),
            dynamic,
            pos,
            site: pos.map(|p| m.site(p)),
        }
    }
}

/// A policy graph: petgraph's `DiGraph`, nodes looked up by id, parallel edges merged when they
/// have the same ends, kind and label (the first site is kept).
#[derive(Debug)]
pub struct PolicyGraph {
    pub kind: Kind,
    pub g: DiGraph<Node, Edge>,
    index: BTreeMap<String, NodeIndex>,
    seen_edges: BTreeSet<(NodeIndex, NodeIndex, &'static str, String)>,
}

impl PolicyGraph {
    pub fn new(kind: Kind) -> PolicyGraph {
        PolicyGraph {
            kind,
            g: DiGraph::new(),
            index: BTreeMap::new(),
            seen_edges: BTreeSet::new(),
        }
    }

    /// The node with `node.id`, added if new (an existing node is kept as it is).
    pub fn node(&mut self, node: Node) -> NodeIndex {
        if let Some(i) = self.index.get(&node.id) {
            return *i;
        }
        let id = node.id.clone();
        let i = self.g.add_node(node);
        self.index.insert(id, i);
        i
    }

    /// The node with this id, if any.
    pub fn find(&self, id: &str) -> Option<NodeIndex> {
        self.index.get(id).copied()
    }

    /// Adds an edge unless one with the same ends, kind and label exists.
    pub fn edge(&mut self, from: NodeIndex, to: NodeIndex, edge: Edge) {
        let key = (from, to, edge.kind, edge.label.clone());
        if self.seen_edges.insert(key) {
            self.g.add_edge(from, to, edge);
        }
    }

    /// Node indexes sorted by id.
    pub fn sorted_nodes(&self) -> Vec<NodeIndex> {
        self.index.values().copied().collect()
    }

    /// Edges as (from, to, edge), sorted by from id, to id, kind, label and site.
    pub fn sorted_edges(&self) -> Vec<(NodeIndex, NodeIndex, &Edge)> {
        use petgraph::visit::EdgeRef;
        let mut v: Vec<(NodeIndex, NodeIndex, &Edge)> = self
            .g
            .edge_references()
            .map(|e| (e.source(), e.target(), e.weight()))
            .collect();
        let id = |i: NodeIndex| self.g.node_weight(i).map(|n| n.id.as_str()).unwrap_or("");
        v.sort_by(|a, b| {
            (id(a.0), id(a.1), a.2.kind, &a.2.label, &a.2.site).cmp(&(
                id(b.0),
                id(b.1),
                b.2.kind,
                &b.2.label,
                &b.2.site,
            ))
        });
        v
    }
}

/// Builds the graph of `kind` for a policy.
pub fn build(kind: Kind, m: &Model<'_>) -> PolicyGraph {
    match kind {
        Kind::Calls => calls::build(m),
        Kind::Classes => classes::build(m),
        Kind::Depends => depends::build(m),
        Kind::Bodies => bodies::build(m),
    }
}
