//! Output of a policy graph: Graphviz DOT, mermaid `flowchart` and JSON (nodes and edges with their
//! places). Nodes come in id order and edges in (from, to, kind, label) order; DOT and mermaid name
//! nodes `n0`, `n1`, … in that order, so no policy text ever has to be an identifier.

use std::collections::BTreeMap;

use petgraph::graph::NodeIndex;
use serde_json::{json, Value};

use super::{Edge, Kind, Node, PolicyGraph};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Dot,
    Mermaid,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "dot" => Format::Dot,
            "mermaid" => Format::Mermaid,
            "json" => Format::Json,
            _ => return None,
        })
    }
}

/// Version of the JSON document's layout.
pub const JSON_VERSION: u32 = 1;

pub fn render(g: &PolicyGraph, format: Format) -> String {
    match format {
        Format::Dot => dot(g),
        Format::Mermaid => mermaid(g),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&json(g)).unwrap_or_default();
            s.push('\n');
            s
        }
    }
}

/// Edge kinds shown by their label alone (the graph's main relation).
fn main_kind(kind: Kind, edge: &str) -> bool {
    matches!(
        (kind, edge),
        (Kind::Calls, "usebundle" | "bundlesequence")
            | (Kind::Classes, "guard")
            | (Kind::Depends, "depends_on")
            | (Kind::Bodies, "uses")
    )
}

/// The text an edge is drawn with.
fn edge_text(kind: Kind, e: &Edge) -> String {
    if main_kind(kind, e.kind) {
        e.label.clone()
    } else if e.label.is_empty() {
        e.kind.to_string()
    } else if e.kind == "inherit_from" || e.kind == "usebundle" || e.kind == "methods" {
        format!("{}{}", e.kind, e.label)
    } else {
        format!("{} {}", e.kind, e.label)
    }
}

/// `n0`, `n1`, … for the nodes in id order.
fn short_ids(g: &PolicyGraph) -> BTreeMap<NodeIndex, String> {
    g.sorted_nodes()
        .into_iter()
        .enumerate()
        .map(|(k, i)| (i, format!("n{k}")))
        .collect()
}

/// A DOT quoted string: `"` and `\` escaped, line breaks as `\n`.
fn dot_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn dot_style(n: &Node) -> &'static str {
    match (n.ty, n.subtype.as_str()) {
        ("bundlesequence", _) => "shape=doubleoctagon",
        ("bundle", "agent") => "shape=box",
        ("bundle", "common") => "shape=box, style=rounded",
        ("bundle", _) => "shape=note",
        ("body", _) => "shape=component",
        ("class", "hard") => "shape=ellipse, style=filled, fillcolor=lightgrey",
        ("class", "undefined") => "shape=ellipse, color=red",
        ("class", _) => "shape=ellipse",
        ("promise", _) => "shape=box, fontsize=10",
        ("dynamic", _) => "shape=diamond, style=dashed",
        ("missing", _) => "shape=box, style=dashed, color=red",
        _ => "shape=box",
    }
}

pub fn dot(g: &PolicyGraph) -> String {
    let ids = short_ids(g);
    let mut s = format!("digraph {} {{\n", dot_str(g.kind.name()));
    s.push_str("  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for i in g.sorted_nodes() {
        let (Some(n), Some(id)) = (g.g.node_weight(i), ids.get(&i)) else {
            continue;
        };
        let tip = n
            .site
            .as_ref()
            .map(|x| x.to_string())
            .unwrap_or_else(|| n.id.clone());
        s.push_str(&format!(
            "  {id} [label={}, tooltip={}, {}];\n",
            dot_str(&n.label),
            dot_str(&tip),
            dot_style(n)
        ));
    }
    for (a, b, e) in g.sorted_edges() {
        let (Some(x), Some(y)) = (ids.get(&a), ids.get(&b)) else {
            continue;
        };
        let mut attrs = Vec::new();
        let text = edge_text(g.kind, e);
        if !text.is_empty() {
            attrs.push(format!("label={}", dot_str(&text)));
        }
        if e.dynamic {
            attrs.push("style=dashed".into());
        }
        if let Some(site) = &e.site {
            attrs.push(format!("tooltip={}", dot_str(&site.to_string())));
        }
        if attrs.is_empty() {
            s.push_str(&format!("  {x} -> {y};\n"));
        } else {
            s.push_str(&format!("  {x} -> {y} [{}];\n", attrs.join(", ")));
        }
    }
    s.push_str("}\n");
    s
}

/// Mermaid text in a quoted label: entity codes for the characters mermaid would read.
fn mermaid_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '|' => out.push_str("#124;"),
            '\n' => out.push_str("<br/>"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn mermaid(g: &PolicyGraph) -> String {
    let ids = short_ids(g);
    let mut s = String::from("flowchart LR\n");
    let mut styled: BTreeMap<&'static str, Vec<&str>> = BTreeMap::new();
    for i in g.sorted_nodes() {
        let (Some(n), Some(id)) = (g.g.node_weight(i), ids.get(&i)) else {
            continue;
        };
        let label = mermaid_str(&n.label);
        let shape = match n.ty {
            "class" => format!("{id}([{label}])"),
            "dynamic" => format!("{id}{{{{{label}}}}}"),
            "bundlesequence" => format!("{id}[[{label}]]"),
            "body" => format!("{id}[/{label}/]"),
            _ => format!("{id}[{label}]"),
        };
        s.push_str(&format!("  {shape}\n"));
        let class = match (n.ty, n.subtype.as_str()) {
            ("missing", _) | ("class", "undefined") => Some("missing"),
            ("dynamic", _) => Some("dynamic"),
            ("class", "hard") => Some("hard"),
            _ => None,
        };
        if let Some(c) = class {
            styled.entry(c).or_default().push(id);
        }
    }
    for (a, b, e) in g.sorted_edges() {
        let (Some(x), Some(y)) = (ids.get(&a), ids.get(&b)) else {
            continue;
        };
        let arrow = if e.dynamic { "-.->" } else { "-->" };
        let text = edge_text(g.kind, e);
        if text.is_empty() {
            s.push_str(&format!("  {x} {arrow} {y}\n"));
        } else {
            s.push_str(&format!("  {x} {arrow}|{}| {y}\n", mermaid_str(&text)));
        }
    }
    for (c, nodes) in &styled {
        let style = match *c {
            "missing" => "stroke:#c00,stroke-dasharray:5 5",
            "dynamic" => "stroke-dasharray:5 5",
            _ => "fill:#ddd",
        };
        s.push_str(&format!("  classDef {c} {style}\n"));
        s.push_str(&format!("  class {} {c}\n", nodes.join(",")));
    }
    s
}

fn site_fields(obj: &mut serde_json::Map<String, Value>, site: Option<&super::Site>) {
    match site {
        Some(x) => {
            obj.insert("file".into(), json!(x.file));
            obj.insert("line".into(), json!(x.line));
            obj.insert("col".into(), json!(x.col));
        }
        None => {
            obj.insert("file".into(), Value::Null);
            obj.insert("line".into(), Value::Null);
            obj.insert("col".into(), Value::Null);
        }
    }
}

/// The graph as a JSON document: `{"version", "kind", "nodes": […], "edges": […]}`.
pub fn json(g: &PolicyGraph) -> Value {
    let mut nodes = Vec::new();
    for i in g.sorted_nodes() {
        let Some(n) = g.g.node_weight(i) else {
            continue;
        };
        let mut o = serde_json::Map::new();
        o.insert("id".into(), json!(n.id));
        o.insert("label".into(), json!(n.label));
        o.insert("type".into(), json!(n.ty));
        o.insert("subtype".into(), json!(n.subtype));
        o.insert("namespace".into(), json!(n.namespace));
        o.insert("name".into(), json!(n.name));
        o.insert("bundle".into(), json!(n.bundle));
        site_fields(&mut o, n.site.as_ref());
        nodes.push(Value::Object(o));
    }
    let mut edges = Vec::new();
    for (a, b, e) in g.sorted_edges() {
        let (Some(x), Some(y)) = (g.g.node_weight(a), g.g.node_weight(b)) else {
            continue;
        };
        let mut o = serde_json::Map::new();
        o.insert("from".into(), json!(x.id));
        o.insert("to".into(), json!(y.id));
        o.insert("kind".into(), json!(e.kind));
        o.insert("label".into(), json!(e.label));
        o.insert("dynamic".into(), json!(e.dynamic));
        site_fields(&mut o, e.site.as_ref());
        edges.push(Value::Object(o));
    }
    json!({
        "version": JSON_VERSION,
        "kind": g.kind.name(),
        "nodes": nodes,
        "edges": edges,
    })
}
