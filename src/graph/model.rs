//! The policy as the graphs read it: every bundle and body with its file and namespace, looked up by
//! name the way the agent resolves a written `ns:name` (or `name` in the caller's namespace), and
//! source positions rendered as `FILE:LINE:COL`.

use std::collections::BTreeMap;

use crate::source::SourceFile;
use crate::syntax::ast::{Body, Bundle, Quote, Rval};

/// One bundle of the merged policy.
#[derive(Debug, Clone, Copy)]
pub struct BundleRef<'a> {
    pub ns: &'a str,
    pub name: &'a str,
    pub bundle: &'a Bundle,
    pub file: usize,
}

/// One body of the merged policy.
#[derive(Debug, Clone, Copy)]
pub struct BodyRef<'a> {
    pub ns: &'a str,
    pub name: &'a str,
    pub body: &'a Body,
    pub file: usize,
}

/// A place in a policy file: file index and byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub file: usize,
    pub offset: u32,
}

/// A place rendered for output: the file as given, cf-promises' line and a 1-based column.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Site {
    pub file: String,
    pub line: usize,
    pub col: usize,
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Every bundle and body of a policy, with name indexes.
#[derive(Debug, Default)]
pub struct Model<'a> {
    pub files: Vec<&'a SourceFile>,
    pub bundles: Vec<BundleRef<'a>>,
    pub bodies: Vec<BodyRef<'a>>,
    bundle_index: BTreeMap<(&'a str, &'a str), Vec<usize>>,
    body_index: BTreeMap<(&'a str, &'a str, &'a str), usize>,
}

/// Splits a written name `ns:name` (or `name` in `default_ns`).
pub fn split_ns<'a>(written: &'a str, default_ns: &'a str) -> (&'a str, &'a str) {
    match written.split_once(':') {
        Some((ns, n)) => (ns, n),
        None => (default_ns, written),
    }
}

/// A name as people write it: without the `default:` namespace.
pub fn display_name(ns: &str, name: &str) -> String {
    if ns == "default" || ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}:{name}")
    }
}

/// Whether a written name refers to variables (`$(x)`, `${x}`, `@(x)`): known only at run time.
pub fn is_dynamic(s: &str) -> bool {
    s.contains("$(") || s.contains("${") || s.contains("@(") || s.contains("@{")
}

impl<'a> Model<'a> {
    /// The files, bundles and bodies a loaded policy holds (files in load order, the entry first).
    pub fn from_loaded(files: &'a [crate::load::Loaded]) -> Model<'a> {
        let mut m = Model::default();
        for (i, l) in files.iter().enumerate() {
            m.files.push(&l.file);
            for b in &l.policy.bundles {
                let (ns, name) = split_ns(&b.name, &b.namespace);
                // `__main__` is `main` in the entry file and dropped elsewhere, as the agent does
                let name = match (name, i) {
                    ("__main__", 0) => "main",
                    ("__main__", _) => continue,
                    (n, _) => n,
                };
                m.push_bundle(BundleRef {
                    ns,
                    name,
                    bundle: b,
                    file: i,
                });
            }
            for b in &l.policy.bodies {
                let (ns, name) = split_ns(&b.name, &b.namespace);
                m.push_body(BodyRef {
                    ns,
                    name,
                    body: b,
                    file: i,
                });
            }
        }
        m
    }

    /// The policy an engine holds after pre-evaluation (inputs given by variables included).
    pub fn from_engine(e: &'a crate::eval::Engine<'_>) -> Model<'a> {
        let mut m = Model {
            files: e.files.iter().map(|f| &**f).collect(),
            ..Model::default()
        };
        for b in &e.bundles {
            m.push_bundle(BundleRef {
                ns: &b.ns,
                name: &b.name,
                bundle: &b.bundle,
                file: b.file,
            });
        }
        for b in &e.bodies {
            m.push_body(BodyRef {
                ns: &b.ns,
                name: &b.name,
                body: &b.body,
                file: b.file,
            });
        }
        m
    }

    fn push_bundle(&mut self, b: BundleRef<'a>) {
        self.bundle_index
            .entry((b.ns, b.name))
            .or_default()
            .push(self.bundles.len());
        self.bundles.push(b);
    }

    fn push_body(&mut self, b: BodyRef<'a>) {
        self.body_index
            .entry((b.body.body_type.as_str(), b.ns, b.name))
            .or_insert(self.bodies.len());
        self.bodies.push(b);
    }

    /// The bundle a call names, preferring the bundle types in `prefer` (in order), then any type.
    pub fn find_bundle(&self, ns: &str, name: &str, prefer: &[&str]) -> Option<usize> {
        let hits = self.bundle_index.get(&(ns, name))?;
        for t in prefer {
            if let Some(i) = hits.iter().copied().find(|i| {
                self.bundles
                    .get(*i)
                    .is_some_and(|b| b.bundle.bundle_type == *t)
            }) {
                return Some(i);
            }
        }
        hits.first().copied()
    }

    /// How many bundles (of any type) are called `ns:name`.
    pub fn bundles_named(&self, ns: &str, name: &str) -> usize {
        self.bundle_index.get(&(ns, name)).map_or(0, Vec::len)
    }

    /// The body of `body_type` a written name refers to from namespace `ns`.
    pub fn find_body(&self, body_type: &str, written: &str, ns: &str) -> Option<usize> {
        let (ns, name) = split_ns(written, ns);
        self.body_index.get(&(body_type, ns, name)).copied()
    }

    /// Whether some body of this type exists (so an attribute of that name refers to bodies).
    pub fn has_body_type(&self, body_type: &str) -> bool {
        self.body_index
            .range((body_type, "", "")..)
            .next()
            .is_some_and(|((t, _, _), _)| *t == body_type)
    }

    /// `FILE:LINE:COL` of a position.
    pub fn site(&self, pos: Pos) -> Site {
        match self.files.get(pos.file) {
            Some(f) => {
                let (line, col) = f.lines.line_col(pos.offset);
                Site {
                    file: f.path.clone(),
                    line,
                    col,
                }
            }
            None => Site {
                file: String::new(),
                line: 0,
                col: 0,
            },
        }
    }

    /// The `bundlesequence` constraints of every `body common control` (file order), with their
    /// file index: the agent takes the last whose guard holds, so a static graph shows all of them.
    pub fn bundlesequences(&self) -> Vec<(usize, &'a Rval)> {
        let mut out = Vec::new();
        for b in &self.bodies {
            if b.body.body_type != "common" || b.name != "control" {
                continue;
            }
            for a in &b.body.attrs {
                if a.constraint.lval == "bundlesequence" {
                    out.push((b.file, &a.constraint.rval));
                }
            }
        }
        out
    }
}

/// An rval as written in policy: `"text"`, `name(args)`, `{ a, b }`.
pub fn written(rv: &Rval) -> String {
    match rv {
        Rval::Scalar(s) => match s.quote {
            Quote::Bare | Quote::NakedVar => s.value.clone(),
            Quote::Single => format!("'{}'", escaped(&s.value, '\'')),
            Quote::Double => format!("\"{}\"", escaped(&s.value, '"')),
            Quote::Back => format!("`{}`", s.value),
        },
        Rval::Call(c) => format!("{}({})", c.name, written_args(&c.args)),
        Rval::List(items, _) => {
            let v: Vec<String> = items.iter().map(written).collect();
            format!("{{ {} }}", v.join(", "))
        }
        Rval::Data(v, _) => v.to_string(),
    }
}

/// A string's text with `\\` and its quote character escaped again.
fn escaped(s: &str, quote: char) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\\' || c == quote {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Call arguments as written, comma separated.
pub fn written_args(args: &[Rval]) -> String {
    let v: Vec<String> = args.iter().map(written).collect();
    v.join(", ")
}

/// The literal strings of a scalar or list rval (nested lists flattened; calls skipped).
pub fn scalars(rv: &Rval) -> Vec<&crate::syntax::ast::Scalar> {
    match rv {
        Rval::Scalar(s) => vec![s],
        Rval::List(items, _) => items.iter().flat_map(scalars).collect(),
        _ => Vec::new(),
    }
}
