//! The `calls` graph: the bundlesequence and each bundle → the bundles it calls (`methods` with
//! `usebundle` or by promiser, `edit_line`/`edit_xml` bundles of files promises, the `service_bundle`
//! of a services promise's `service_method` body, `standard_services` by default), with the
//! arguments as written. Names built from variables become dynamic nodes; unknown names `missing`.

use petgraph::graph::NodeIndex;

use super::model::{display_name, is_dynamic, split_ns, written_args, BundleRef, Model, Pos};
use super::{Edge, Kind, Node, PolicyGraph};
use crate::syntax::ast::{Promise, Rval};

/// Id of the bundlesequence node.
pub const SEQUENCE: &str = "bundlesequence";

/// Bundle types a methods call (or the bundlesequence) can run, in the agent's preference.
const CALLABLE: &[&str] = &["agent", "common"];

/// Stable id of bundle `i`: `ns:name`, or `ns:name/type` when bundles of several types share it.
pub fn bundle_id(m: &Model<'_>, b: &BundleRef<'_>) -> String {
    if m.bundles_named(b.ns, b.name) > 1 {
        format!("{}:{}/{}", b.ns, b.name, b.bundle.bundle_type)
    } else {
        format!("{}:{}", b.ns, b.name)
    }
}

/// The node of bundle `b`.
pub fn bundle_node(g: &mut PolicyGraph, m: &Model<'_>, b: &BundleRef<'_>) -> NodeIndex {
    let mut n = Node::new(bundle_id(m, b), display_name(b.ns, b.name), "bundle");
    n.subtype = b.bundle.bundle_type.clone();
    n.namespace = b.ns.to_string();
    n.name = b.name.to_string();
    let n = n.at(
        m,
        Pos {
            file: b.file,
            offset: b.bundle.name_span.start,
        },
    );
    g.node(n)
}

/// A call target: the bundle a written name resolves to from namespace `ns`, a dynamic node (the
/// name has variables) or a missing one. Returns the node and whether it is dynamic.
fn target(
    g: &mut PolicyGraph,
    m: &Model<'_>,
    caller: &str,
    written: &str,
    ns: &str,
    prefer: &[&str],
) -> (NodeIndex, bool) {
    if is_dynamic(written) {
        let mut n = Node::new(format!("{caller} -> {written}"), written, "dynamic");
        n.name = written.to_string();
        return (g.node(n), true);
    }
    let (tns, tname) = split_ns(written, ns);
    if let Some(i) = m.find_bundle(tns, tname, prefer) {
        if let Some(b) = m.bundles.get(i) {
            return (bundle_node(g, m, b), false);
        }
    }
    let mut n = Node::new(
        format!("{tns}:{tname}"),
        format!("{} (undefined)", display_name(tns, tname)),
        "missing",
    );
    n.namespace = tns.to_string();
    n.name = tname.to_string();
    (g.node(n), false)
}

/// Name and argument label of a bundle reference: `name(args)` or `"name"`.
fn reference(rv: &Rval) -> Option<(String, String)> {
    match rv {
        Rval::Call(c) => Some((c.name.clone(), format!("({})", written_args(&c.args)))),
        Rval::Scalar(s) => Some((s.value.clone(), String::new())),
        _ => None,
    }
}

pub fn build(m: &Model<'_>) -> PolicyGraph {
    let mut g = PolicyGraph::new(Kind::Calls);
    for b in &m.bundles {
        bundle_node(&mut g, m, b);
    }
    sequence(&mut g, m);
    for b in &m.bundles {
        let from = bundle_node(&mut g, m, b);
        let caller = bundle_id(m, b);
        for s in &b.bundle.sections {
            for p in &s.promises {
                let pos = Pos {
                    file: b.file,
                    offset: p.promiser.span.start,
                };
                let add = |g: &mut PolicyGraph, rv: &Rval, kind: &'static str, ns: &str| {
                    let Some((name, label)) = reference(rv) else {
                        return;
                    };
                    let prefer: &[&str] = match kind {
                        "edit_line" => &["edit_line"],
                        "edit_xml" => &["edit_xml"],
                        _ => CALLABLE,
                    };
                    let (to, dynamic) = target(g, m, &caller, &name, ns, prefer);
                    g.edge(from, to, Edge::new(kind, label, dynamic, m, Some(pos)));
                };
                match s.promise_type.as_str() {
                    "methods" => match constraint(p, "usebundle") {
                        Some(rv) => add(&mut g, rv, "usebundle", b.ns),
                        None => add(&mut g, &Rval::Scalar(p.promiser.clone()), "methods", b.ns),
                    },
                    "files" => {
                        for lval in ["edit_line", "edit_xml"] {
                            if let Some(rv) = constraint(p, lval) {
                                add(
                                    &mut g,
                                    rv,
                                    if lval == "edit_line" {
                                        "edit_line"
                                    } else {
                                        "edit_xml"
                                    },
                                    b.ns,
                                );
                            }
                        }
                    }
                    "services" => match constraint(p, "service_method") {
                        Some(rv) => {
                            for (sb, ns) in service_bundles(m, rv, b.ns) {
                                add(&mut g, sb, "service_bundle", ns);
                            }
                        }
                        None => {
                            if m.find_bundle("default", "standard_services", CALLABLE)
                                .is_some()
                            {
                                let rv = Rval::Scalar(crate::syntax::ast::Scalar {
                                    value: "default:standard_services".into(),
                                    quote: crate::syntax::ast::Quote::Bare,
                                    span: p.promiser.span,
                                });
                                add(&mut g, &rv, "service_bundle", b.ns);
                            }
                        }
                    },
                    _ => {}
                }
            }
        }
    }
    g
}

/// The last constraint `lval` of a promise (the one in force).
pub fn constraint<'p>(p: &'p Promise, lval: &str) -> Option<&'p Rval> {
    p.constraints
        .iter()
        .rev()
        .find(|c| c.lval == lval)
        .map(|c| &c.rval)
}

/// The `service_bundle` references of the `service_method` body a services promise names (with the
/// body's namespace, where its names resolve).
fn service_bundles<'a>(m: &Model<'a>, rv: &Rval, ns: &str) -> Vec<(&'a Rval, &'a str)> {
    let Some((name, _)) = reference(rv) else {
        return Vec::new();
    };
    if is_dynamic(&name) {
        return Vec::new();
    }
    let Some(body) = m
        .find_body("service_method", &name, ns)
        .and_then(|i| m.bodies.get(i))
    else {
        return Vec::new();
    };
    body.body
        .attrs
        .iter()
        .filter(|a| a.constraint.lval == "service_bundle")
        .map(|a| (&a.constraint.rval, body.ns))
        .collect()
}

/// Edges from the bundlesequence node: each `bundlesequence` item of `body common control`, or
/// `main` when there is none (as the agent runs it).
fn sequence(g: &mut PolicyGraph, m: &Model<'_>) {
    let seqs = m.bundlesequences();
    let mut node = Node::new(SEQUENCE, SEQUENCE, "bundlesequence");
    node.name = SEQUENCE.to_string();
    if let Some((file, rv)) = seqs.first() {
        node = node.at(
            m,
            Pos {
                file: *file,
                offset: rv.span().start,
            },
        );
    }
    let from = g.node(node);
    if seqs.is_empty() {
        if let Some(b) = m
            .find_bundle("default", "main", CALLABLE)
            .and_then(|i| m.bundles.get(i))
        {
            let to = bundle_node(g, m, b);
            g.edge(
                from,
                to,
                Edge::new("bundlesequence", "(default)", false, m, None),
            );
        }
        return;
    }
    for (file, rv) in seqs {
        let items: Vec<&Rval> = match rv {
            Rval::List(items, _) => items.iter().collect(),
            other => vec![other],
        };
        for it in items {
            let Some((name, label)) = reference(it) else {
                continue;
            };
            let (to, dynamic) = target(g, m, SEQUENCE, &name, "default", CALLABLE);
            let pos = Pos {
                file,
                offset: it.span().start,
            };
            g.edge(
                from,
                to,
                Edge::new("bundlesequence", label, dynamic, m, Some(pos)),
            );
        }
    }
}
