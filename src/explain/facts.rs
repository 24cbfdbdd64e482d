//! The finished run as explain reads it: the trace indexed by promise (file and line), by class
//! (every set and cancel in order) and by variable, every promise of the policy with its place, the
//! bundles that ran, and where a class stood at a given moment of the run.

use std::collections::{BTreeMap, BTreeSet};

use crate::eval::trace::TraceEvent;
use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::{Promise, Rval};

/// A class as the run knows it: namespace and name (`default` for hard classes).
pub type ClassKey = (String, String);

/// One change of a class in the trace: the event (index into the trace) and whether it set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub event: usize,
    pub set: bool,
}

/// Where a class stood just before an event (or at the end of the run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// A hard class of the host, with its tags.
    Hard(Vec<String>),
    /// Defined with `-D` (never set by the policy before).
    CommandLine,
    /// Defined by the augments file (`def.json`).
    Augments,
    /// Set by this event (the last change before the moment asked about).
    Set(usize),
    /// Cancelled by this event.
    Cancelled(usize),
    /// Not defined yet; the first event that sets it later, if any.
    NotYet(Option<usize>),
}

impl State {
    pub fn defined(&self) -> bool {
        matches!(
            self,
            State::Hard(_) | State::CommandLine | State::Augments | State::Set(_)
        )
    }
}

/// A promise of the policy with its place.
#[derive(Debug, Clone, Copy)]
pub struct PromiseAt<'a> {
    pub bundle: &'a BundleDef,
    pub promise_type: &'a str,
    pub promise: &'a Promise,
    /// The file as loaded (the path as given to `-f`, or as the inputs named it).
    pub file: &'a str,
    /// Line of the promiser (as the trace gives it).
    pub line: usize,
    /// Last line of the promise (for `FILE:LINE` inside a multi-line promise).
    pub last_line: usize,
}

impl<'a> PromiseAt<'a> {
    /// `FILE:LINE` of the promiser.
    pub fn site(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }

    /// The bundle as people write it (`main`, `ns:b`).
    pub fn bundle_name(&self) -> String {
        display(&self.bundle.ns, &self.bundle.name)
    }

    /// The literal value of a constraint, if it is a plain string.
    pub fn scalar(&self, lval: &str) -> Option<&'a str> {
        match self.constraint(lval) {
            Some(Rval::Scalar(s)) => Some(s.value.as_str()),
            _ => None,
        }
    }

    pub fn constraint(&self, lval: &str) -> Option<&'a Rval> {
        let p: &'a Promise = self.promise;
        p.constraints
            .iter()
            .find(|c| c.lval == lval)
            .map(|c| &c.rval)
    }
}

/// `name` in the default namespace, `ns:name` elsewhere.
pub fn display(ns: &str, name: &str) -> String {
    crate::graph::model::display_name(ns, name)
}

/// `ns:name` of a trace bundle (`default:main`) shown as people write it (`main`).
pub fn display_qualified(q: &str) -> String {
    match q.split_once(':') {
        Some((ns, n)) => display(ns, n),
        None => q.to_string(),
    }
}

/// A class name written in an event or an expression, in namespace `ns`.
pub fn class_key(written: &str, ns: &str) -> ClassKey {
    match written.split_once(':') {
        Some((n, c)) => (n.to_string(), c.to_string()),
        None => (ns.to_string(), written.to_string()),
    }
}

/// The namespace part of a trace bundle name (`ns:b`).
pub fn ns_of(bundle: &str) -> &str {
    bundle.split_once(':').map_or("default", |(n, _)| n)
}

/// The run, indexed.
pub struct Facts<'a> {
    pub engine: &'a Engine<'a>,
    pub events: &'a [TraceEvent],
    /// Every promise of the policy, in file and bundle order.
    pub promises: Vec<PromiseAt<'a>>,
    /// The bundlesequence that ran, as written (`main`, `ns:b`).
    pub sequence: Vec<String>,
    /// The host profile as given (`local` for this machine) and its host name.
    pub profile: String,
    pub hostname: String,
    /// The policy's entry file as given.
    pub policy: String,
    /// The `-D` classes, canonified.
    pub defines: Vec<String>,
    /// Exit code `cfsim agent` gives the run.
    pub code: u8,
    classes: BTreeMap<ClassKey, Vec<Change>>,
    vars: BTreeMap<String, Vec<usize>>,
    by_site: BTreeMap<(String, usize), Vec<usize>>,
    /// Bundles (`ns:name`) with an evaluation in a pass (not only in pre-evaluation).
    ran: BTreeSet<String>,
    /// Bundles with any evaluation.
    touched: BTreeSet<String>,
}

impl<'a> Facts<'a> {
    pub fn new(engine: &'a Engine<'a>, run: RunInfo) -> Facts<'a> {
        let events: &'a [TraceEvent] = &engine.trace;
        let mut classes: BTreeMap<ClassKey, Vec<Change>> = BTreeMap::new();
        let mut vars: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut by_site: BTreeMap<(String, usize), Vec<usize>> = BTreeMap::new();
        let mut ran = BTreeSet::new();
        let mut touched = BTreeSet::new();
        for (i, e) in events.iter().enumerate() {
            let ns = ns_of(&e.bundle);
            // an event may name a class twice (a vars promise is verified twice per pass)
            let mut change = |c: &String, set: bool| {
                let list = classes.entry(class_key(c, ns)).or_default();
                let ch = Change { event: i, set };
                if list.last() != Some(&ch) {
                    list.push(ch);
                }
            };
            for c in &e.classes_set {
                change(c, true);
            }
            for c in &e.classes_cancelled {
                change(c, false);
            }
            for v in &e.vars_set {
                let list = vars.entry(v.clone()).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
            by_site.entry((e.file.clone(), e.line)).or_default().push(i);
            if e.stage != "preeval" {
                ran.insert(e.bundle.clone());
            }
            touched.insert(e.bundle.clone());
        }
        let mut promises = Vec::new();
        for b in &engine.bundles {
            let Some(f) = engine.files.get(b.file) else {
                continue;
            };
            for s in &b.bundle.sections {
                for p in &s.promises {
                    promises.push(PromiseAt {
                        bundle: b,
                        promise_type: &s.promise_type,
                        promise: p,
                        file: &f.path,
                        line: f.lines.line(p.promiser.span.start),
                        last_line: f.lines.line(p.span.end.saturating_sub(1)),
                    });
                }
            }
        }
        Facts {
            engine,
            events,
            promises,
            sequence: run.sequence,
            profile: run.profile,
            hostname: run.hostname,
            policy: run.policy,
            defines: run.defines,
            code: run.code,
            classes,
            vars,
            by_site,
            ran,
            touched,
        }
    }

    pub fn event(&self, i: usize) -> Option<&'a TraceEvent> {
        self.events.get(i)
    }

    /// The bundle (`ns:name`) a class set by event `i` is local to (the run's scope rule,
    /// `crate::promise::classes::defines_global`).
    pub fn local_to(&self, i: usize) -> Option<String> {
        let e = self.event(i)?;
        if e.promise_type != "classes" {
            return None;
        }
        let p = self
            .promises
            .iter()
            .find(|p| p.file == e.file && p.line == e.line && p.promise_type == "classes")?;
        let global =
            crate::promise::classes::written_global(&p.bundle.bundle.bundle_type, p.promise);
        (!global).then(|| e.bundle.clone())
    }

    /// Every change of a class, in run order.
    pub fn changes(&self, key: &ClassKey) -> &[Change] {
        self.classes.get(key).map_or(&[], Vec::as_slice)
    }

    /// Classes (keys) the trace ever set or cancelled.
    pub fn traced_classes(&self) -> impl Iterator<Item = &ClassKey> {
        self.classes.keys()
    }

    /// The events that changed a variable (`ns:scope.lval`), in run order.
    pub fn assignments(&self, var: &str) -> &[usize] {
        self.vars.get(var).map_or(&[], Vec::as_slice)
    }

    /// Variables (`ns:scope.lval`) the trace ever changed.
    pub fn traced_vars(&self) -> impl Iterator<Item = &String> {
        self.vars.keys()
    }

    /// The evaluations of promise `p`, in run order.
    pub fn evaluations(&self, p: &PromiseAt<'_>) -> Vec<usize> {
        self.by_site
            .get(&(p.file.to_string(), p.line))
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|i| {
                        self.events.get(*i).is_some_and(|e| {
                            e.promise_type == p.promise_type
                                && e.written == p.promise.promiser.value
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The promise an event evaluated.
    pub fn promise_of(&self, e: &TraceEvent) -> Option<PromiseAt<'a>> {
        self.promises
            .iter()
            .find(|p| {
                p.file == e.file
                    && p.line == e.line
                    && p.promise_type == e.promise_type
                    && p.promise.promiser.value == e.written
            })
            .or_else(|| {
                self.promises
                    .iter()
                    .find(|p| p.file == e.file && p.line == e.line)
            })
            .copied()
    }

    /// Whether bundle `ns:name` ran (in a pass of the bundlesequence or of a methods call).
    pub fn bundle_ran(&self, qualified: &str) -> bool {
        self.ran.contains(qualified)
    }

    /// Whether bundle `ns:name` had any evaluation (pre-evaluation included).
    pub fn bundle_touched(&self, qualified: &str) -> bool {
        self.touched.contains(qualified)
    }

    /// A hard class of the host (in the default namespace): its tags.
    pub fn hard(&self, key: &ClassKey) -> Option<Vec<String>> {
        if key.0 != "default" {
            return None;
        }
        self.engine.ctx.hard.get(&key.1).map(|t| {
            t.split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        })
    }

    /// The tags of a soft class still defined at the end of the run (global classes only).
    pub fn soft_at_end(&self, key: &ClassKey) -> Option<&'a [String]> {
        self.engine
            .ctx
            .soft
            .get(&crate::eval::context::ClassKeyRef(&key.0, &key.1))
            .map(Vec::as_slice)
    }

    /// Where a soft class defined before the run came from (`-D`, augments), if it did.
    fn initial(&self, key: &ClassKey) -> Option<State> {
        if key.0 == "default" && self.defines.contains(&key.1) {
            return Some(State::CommandLine);
        }
        let tags = self.soft_at_end(key)?;
        if tags.iter().any(|t| t == "source=environment") {
            Some(State::CommandLine)
        } else if tags.iter().any(|t| t == "source=augments_file") {
            Some(State::Augments)
        } else {
            None
        }
    }

    /// Where class `key` stood just before event `before` (`None`: at the end of the run).
    pub fn state(&self, key: &ClassKey, before: Option<usize>) -> State {
        if let Some(tags) = self.hard(key) {
            return State::Hard(tags);
        }
        let changes = self.changes(key);
        let limit = before.unwrap_or(usize::MAX);
        let last = changes.iter().rev().find(|c| c.event < limit);
        match last {
            Some(c) if c.set => State::Set(c.event),
            Some(c) => State::Cancelled(c.event),
            None => match self.initial(key) {
                Some(s) => s,
                None => State::NotYet(changes.iter().find(|c| c.set).map(|c| c.event)),
            },
        }
    }

    /// The class keys a name written in a question may mean: `ns:name` exactly, else every
    /// namespace where the run knows `name` (the default namespace first), else `default:name`.
    pub fn class_keys(&self, asked: &str) -> Vec<ClassKey> {
        if let Some((ns, n)) = asked.split_once(':') {
            return vec![(ns.to_string(), n.to_string())];
        }
        let mut out: Vec<ClassKey> = Vec::new();
        let mut add = |k: ClassKey| {
            if !out.contains(&k) {
                out.push(k);
            }
        };
        let default = ("default".to_string(), asked.to_string());
        if self.hard(&default).is_some() || self.initial(&default).is_some() {
            add(default.clone());
        }
        for k in self.classes.keys().filter(|k| k.1 == asked) {
            add(k.clone());
        }
        for ((ns, n), _) in self.engine.ctx.soft.iter() {
            if n == asked {
                add((ns.clone(), n.clone()));
            }
        }
        out.sort_by_key(|k| k.0 != "default");
        if out.is_empty() {
            out.push(default);
        }
        out
    }
}

/// What explain knows of the run besides the engine.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    pub sequence: Vec<String>,
    pub profile: String,
    pub hostname: String,
    pub policy: String,
    pub defines: Vec<String>,
    pub code: u8,
}
