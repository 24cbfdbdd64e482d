//! The `bodies` graph: bundle → body for each body a promise of the bundle uses (`perms => mog(…)`:
//! one edge per bundle, body and attribute), body → body for `inherit_from` (and a body attribute that
//! names a body), with every body of the policy as a node. Names with variables are dynamic nodes,
//! unknown bodies `missing`.

use petgraph::graph::NodeIndex;

use super::calls::bundle_node;
use super::model::{display_name, is_dynamic, split_ns, written_args, BodyRef, Model, Pos};
use super::{Edge, Kind, Node, PolicyGraph};
use crate::syntax::ast::Rval;

/// Stable id of a body: `body TYPE ns:name`.
pub fn body_id(body_type: &str, ns: &str, name: &str) -> String {
    format!("body {body_type} {ns}:{name}")
}

fn body_node(g: &mut PolicyGraph, m: &Model<'_>, b: &BodyRef<'_>) -> NodeIndex {
    let t = &b.body.body_type;
    let mut n = Node::new(
        body_id(t, b.ns, b.name),
        format!("{t} {}", display_name(b.ns, b.name)),
        "body",
    );
    n.subtype = t.clone();
    n.namespace = b.ns.to_string();
    n.name = b.name.to_string();
    let n = n.at(
        m,
        Pos {
            file: b.file,
            offset: b.body.name_span.start,
        },
    );
    g.node(n)
}

/// Whether a constraint `lval` names a body of that type.
pub fn is_body_attr(m: &Model<'_>, lval: &str) -> bool {
    lval != "inherit_from"
        && (m.has_body_type(lval)
            || (crate::syntax::tables::body_type(lval).is_some()
                && !crate::syntax::tables::is_control_body_type(lval)))
}

/// The node a body reference leads to (found, dynamic or missing), whether it is dynamic, and the
/// call's arguments as written.
fn target(
    g: &mut PolicyGraph,
    m: &Model<'_>,
    from_id: &str,
    body_type: &str,
    rv: &Rval,
    ns: &str,
) -> Option<(NodeIndex, bool, String)> {
    let (name, args) = match rv {
        Rval::Scalar(s) => (s.value.as_str(), String::new()),
        Rval::Call(c) => (c.name.as_str(), format!("({})", written_args(&c.args))),
        _ => return None,
    };
    if is_dynamic(name) {
        let mut n = Node::new(format!("{from_id} -> {body_type} {name}"), name, "dynamic");
        n.subtype = body_type.to_string();
        n.name = name.to_string();
        return Some((g.node(n), true, args));
    }
    if let Some(b) = m
        .find_body(body_type, name, ns)
        .and_then(|i| m.bodies.get(i))
    {
        return Some((body_node(g, m, b), false, args));
    }
    let (tns, tname) = split_ns(name, ns);
    let mut n = Node::new(
        body_id(body_type, tns, tname),
        format!("{body_type} {} (undefined)", display_name(tns, tname)),
        "missing",
    );
    n.subtype = body_type.to_string();
    n.namespace = tns.to_string();
    n.name = tname.to_string();
    Some((g.node(n), false, args))
}

pub fn build(m: &Model<'_>) -> PolicyGraph {
    let mut g = PolicyGraph::new(Kind::Bodies);
    for b in &m.bodies {
        body_node(&mut g, m, b);
    }
    for b in &m.bundles {
        let mut from: Option<NodeIndex> = None;
        let from_id = super::calls::bundle_id(m, b);
        for s in &b.bundle.sections {
            for p in &s.promises {
                for c in p.constraints.iter().filter(|c| is_body_attr(m, &c.lval)) {
                    let f = *from.get_or_insert_with(|| bundle_node(&mut g, m, b));
                    if let Some((to, dynamic, _)) =
                        target(&mut g, m, &from_id, &c.lval, &c.rval, b.ns)
                    {
                        let pos = Pos {
                            file: b.file,
                            offset: c.rval.span().start,
                        };
                        g.edge(
                            f,
                            to,
                            Edge::new("uses", c.lval.clone(), dynamic, m, Some(pos)),
                        );
                    }
                }
            }
        }
    }
    for b in &m.bodies {
        let from = body_node(&mut g, m, b);
        let from_id = body_id(&b.body.body_type, b.ns, b.name);
        for a in &b.body.attrs {
            let lval = a.constraint.lval.as_str();
            let (kind, body_type) = if lval == "inherit_from" {
                ("inherit_from", b.body.body_type.as_str())
            } else if is_body_attr(m, lval) {
                ("uses", lval)
            } else {
                continue;
            };
            if let Some((to, dynamic, args)) =
                target(&mut g, m, &from_id, body_type, &a.constraint.rval, b.ns)
            {
                let pos = Pos {
                    file: b.file,
                    offset: a.constraint.rval.span().start,
                };
                let label = if kind == "inherit_from" {
                    args
                } else {
                    lval.to_string()
                };
                g.edge(from, to, Edge::new(kind, label, dynamic, m, Some(pos)));
            }
        }
    }
    g
}
