//! Predicting the post-parse policy-check lines of a fixture (`path:LINE:0: error: ...`) from its `# check:`
//! headers, in cf-promises' order: bundle duplicates; per bundle its reserved name and its promises; body
//! duplicates; control bodies with arguments; duplicate handles. `1:1` parser errors raised during the check
//! come first.

use cfsim::syntax::check::{self, Definition, DefinitionKind, PostParseLine, RvalShape};

use crate::check_rval::Rval;

/// One promise: where it is, and its constraints with the line where each ends.
pub struct Group {
    pub bundle_type: String,
    pub promise_type: String,
    pub promiser: String,
    pub promiser_line: usize,
    /// `None` for promises made of a single `promise` header (no `promise-start`).
    pub guard_line: Option<usize>,
    pub constraints: Vec<(String, Rval, usize)>,
}

struct Def {
    namespace: String,
    def_type: String,
    name: String,
    line: usize,
    has_args: bool,
}

pub struct PostState {
    base: String,
    first: Vec<String>,
    /// Promise lines per bundle; bucket 0 holds promises before any `bundle-def`.
    buckets: Vec<Vec<String>>,
    namespace: String,
    bundles: Vec<Def>,
    bodies: Vec<Def>,
    handles: Vec<(String, usize)>,
    pub group: Option<Group>,
}

impl PostState {
    pub fn new(base: &str) -> PostState {
        PostState {
            base: base.to_string(),
            first: Vec::new(),
            buckets: vec![Vec::new()],
            namespace: "default".to_string(),
            bundles: Vec::new(),
            bodies: Vec::new(),
            handles: Vec::new(),
            group: None,
        }
    }

    fn line(&self, line: usize, message: &str) -> String {
        format!("./{}.cf:{line}:0: error: {message}", self.base)
    }

    fn push(&mut self, line: String) {
        if let Some(bucket) = self.buckets.last_mut() {
            bucket.push(line);
        }
    }

    /// Whether a `promise-start` group is open (its `promise` headers must not close it).
    pub fn in_explicit_group(&self) -> bool {
        self.group.as_ref().is_some_and(|g| g.guard_line.is_some())
    }

    /// Check the open promise, if any.
    pub fn flush(&mut self) {
        let Some(g) = self.group.take() else {
            return;
        };
        let shapes: Vec<(&str, RvalShape<'_>)> = g
            .constraints
            .iter()
            .map(|(l, r, _)| (l.as_str(), r.shape()))
            .collect();
        for e in check::post_parse_promise(&g.bundle_type, &g.promise_type, &g.promiser, &shapes) {
            let line = match e.line {
                PostParseLine::FileStart => {
                    self.first
                        .push(format!("./{}.cf:1:1: error: {}", self.base, e.message));
                    continue;
                }
                // Sections of unsupported promise types are declared with `# check: section`.
                PostParseLine::Guard => match g.guard_line {
                    Some(line) => line,
                    None => continue,
                },
                PostParseLine::Promiser => g.promiser_line,
                PostParseLine::Constraint(i) => g.constraints[i].2,
            };
            let text = self.line(line, &e.message);
            self.push(text);
        }
    }

    pub fn set_namespace(&mut self, ns: &str) {
        self.namespace = ns.to_string();
    }

    pub fn bundle_def(&mut self, def_type: &str, name: &str, line: usize) {
        self.bundles.push(Def {
            namespace: self.namespace.clone(),
            def_type: def_type.to_string(),
            name: name.to_string(),
            line,
            has_args: false,
        });
        let bucket = check::reserved_bundle_name(name).map(|m| self.line(line, &m));
        self.buckets.push(bucket.into_iter().collect());
    }

    pub fn body_def(&mut self, def_type: &str, name: &str, line: usize, has_args: bool) {
        self.bodies.push(Def {
            namespace: self.namespace.clone(),
            def_type: def_type.to_string(),
            name: name.to_string(),
            line,
            has_args,
        });
    }

    pub fn handle(&mut self, handle: &str, line: usize) {
        self.handles.push((handle.to_string(), line));
    }

    /// `count` promises in a section of an unsupported promise type at `line`.
    pub fn section(&mut self, bundle_type: &str, promise_type: &str, line: usize, count: usize) {
        for e in check::post_parse_promise(bundle_type, promise_type, "p", &[]) {
            for _ in 0..count {
                let text = self.line(line, &e.message);
                self.push(text);
            }
        }
    }

    fn duplicates(&self, defs: &[Def], kind: DefinitionKind) -> Vec<String> {
        let view: Vec<Definition<'_>> = defs
            .iter()
            .map(|d| Definition {
                namespace: &d.namespace,
                def_type: &d.def_type,
                name: &d.name,
            })
            .collect();
        check::duplicate_definitions(&view, kind)
            .into_iter()
            .map(|(i, m)| self.line(defs[i].line, &m))
            .collect()
    }

    /// All post-parse lines, in print order.
    pub fn finish(mut self) -> Vec<String> {
        self.flush();
        let mut out = std::mem::take(&mut self.first);
        out.extend(self.duplicates(&self.bundles, DefinitionKind::Bundle));
        out.extend(std::mem::take(&mut self.buckets).into_iter().flatten());
        out.extend(self.duplicates(&self.bodies, DefinitionKind::Body));
        for d in &self.bodies {
            if let Some(m) = check::control_body_args(&d.def_type, &d.name, d.has_args) {
                out.push(self.line(d.line, &m));
            }
        }
        let handles: Vec<(&str, &str)> = self
            .handles
            .iter()
            .map(|(h, _)| (h.as_str(), "any"))
            .collect();
        for (i, m) in check::duplicate_handles(&handles) {
            out.push(self.line(self.handles[i].1, &m));
        }
        out
    }
}
