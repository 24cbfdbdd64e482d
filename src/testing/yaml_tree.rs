//! A YAML document as a small tree that remembers the line and column of every node, so a bad test
//! spec is reported as `spec.cfsim.yaml:LINE:COL: error: …`. Plain YAML (yaml-rust2's event parser):
//! scalars stay text; anchors and aliases are refused (a spec has no need for them).

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// Deepest nesting accepted in a spec.
pub const MAX_DEPTH: usize = 64;

/// One node with its position (1-based line and column).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub line: usize,
    pub col: usize,
    pub kind: Kind,
}

/// What a node holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Scalar(String),
    Seq(Vec<Node>),
    /// Keys in document order with their positions.
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The scalar text, if a scalar.
    pub fn scalar(&self) -> Option<&str> {
        match &self.kind {
            Kind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, if a mapping.
    pub fn map(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            Kind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The value of key `k`, if a mapping holding it.
    pub fn get(&self, k: &str) -> Option<&Node> {
        self.map()?
            .iter()
            .find(|(key, _)| key.scalar() == Some(k))
            .map(|(_, v)| v)
    }

    /// A scalar, or each scalar of a sequence.
    pub fn strings(&self) -> Option<Vec<String>> {
        match &self.kind {
            Kind::Scalar(s) => Some(vec![s.clone()]),
            Kind::Seq(items) => items
                .iter()
                .map(|i| i.scalar().map(str::to_string))
                .collect(),
            Kind::Map(_) => None,
        }
    }
}

#[derive(Default)]
struct Builder {
    stack: Vec<(Node, Option<Node>)>,
    root: Option<Node>,
    error: Option<(usize, usize, String)>,
}

impl Builder {
    fn push_value(&mut self, n: Node) {
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(n);
                }
            }
            Some((parent, pending_key)) => match &mut parent.kind {
                Kind::Seq(items) => items.push(n),
                Kind::Map(entries) => match pending_key.take() {
                    None => *pending_key = Some(n),
                    Some(k) => entries.push((k, n)),
                },
                Kind::Scalar(_) => {}
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let (line, col) = (mark.line(), mark.col() + 1);
        match ev {
            Event::Scalar(s, ..) => self.push_value(Node {
                line,
                col,
                kind: Kind::Scalar(s),
            }),
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if self.stack.len() >= MAX_DEPTH {
                    self.error = Some((line, col, format!("nested deeper than {MAX_DEPTH}")));
                    return;
                }
                let kind = if matches!(ev, Event::SequenceStart(..)) {
                    Kind::Seq(Vec::new())
                } else {
                    Kind::Map(Vec::new())
                };
                self.stack.push((Node { line, col, kind }, None));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((n, _)) = self.stack.pop() {
                    self.push_value(n);
                }
            }
            Event::Alias(_) => {
                self.error = Some((line, col, "aliases are not supported in test specs".into()));
            }
            _ => {}
        }
    }
}

/// Parses the first document of `text`; `Err((line, col, message))`.
pub fn parse(text: &str) -> Result<Node, (usize, usize, String)> {
    let mut b = Builder::default();
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut b, false) {
        let m = e.marker();
        return Err((m.line(), m.col() + 1, e.info().to_string()));
    }
    if let Some(e) = b.error {
        return Err(e);
    }
    b.root.ok_or((1, 1, "empty document".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_shapes() {
        let n = parse("a: 1\nb:\n  - x\n  - y\n").unwrap_or_else(|_| Node {
            line: 0,
            col: 0,
            kind: Kind::Scalar(String::new()),
        });
        assert_eq!(n.get("a").and_then(Node::scalar), Some("1"));
        let b = n.get("b").cloned().unwrap_or(n.clone());
        assert_eq!(b.strings(), Some(vec!["x".to_string(), "y".to_string()]));
        assert_eq!(b.line, 3);
        assert!(parse("a: [1\n").is_err());
        assert!(parse("a: &x 1\nb: *x\n").is_err());
    }
}
