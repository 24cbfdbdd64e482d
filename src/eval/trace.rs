//! The structured trace of a run: one [`TraceEvent`] per evaluation of a promise (per pass and per
//! iteration binding), printed as JSON lines (`--trace=json`) or readable text (`--trace`).
//!
//! JSON schema (one object per line, keys in this order, stable; machine-checkable form in
//! `docs/trace.schema.json`, checked against real traces by tests/trace_schema.rs):
//! - `version` (int): [`TRACE_VERSION`], raised when a key changes meaning or disappears.
//! - `seq` (int): 1-based order of the event in the run.
//! - `call_path` (list of strings): the bundle activations from the bundlesequence entry to the current one,
//!   each `ns:bundle`.
//! - `bundle` (string): `ns:bundle` evaluating the promise.
//! - `stage` (string): `preeval` (PolicyResolve before the run), `pass` (the bundle's pass loop) or
//!   `resolve` (BundleResolve: on a methods call and after the classes section).
//! - `pass` (int): 1, 2 or 3 (0 for pre-evaluation).
//! - `promise_type` (string): `vars`, `classes`, `reports`, `methods`, `commands`, ….
//! - `promiser` (string): the promiser after expansion with this iteration's values.
//! - `file` (string): the policy file of the promise, as loaded (the path as given to `-f`, or as the
//!   inputs named it); `line` (int): line of the promiser in that file.
//! - `iteration` (int): 1-based index of the iteration binding (list values) being evaluated; 0 when
//!   the class guard was false (no binding is evaluated then).
//! - `handle` (string|null): the promise's `handle` as written (unexpanded), if it has one.
//! - `guard` (string): the class guard (`any` if none); `guard_value` (bool): its value.
//! - `skip` (string|null): why the promise did nothing: `guard`, `if`, `unless`, `depends_on`,
//!   `already_defined`, `already_done`, `unresolved`, `deferred`, `not_simulated`, `undefined_type`,
//!   `failed_function`, `constant` (a `policy => "constant"` variable kept its existing value),
//!   `missing_bundle`, `no_value`, `illegal_identifier`, `type_mismatch`, `irreconcilable`,
//!   `preliminary`, `too_large` (meanings in docs/trace.schema.json; with outcome `failed` they say why it failed). A
//!   custom promise whose module fails to start or rejects it is `failed`, not skipped.
//! - `outcome` (string|null): `kept`, `repaired`, `failed` when the promise was actuated.
//! - `classes_set`, `classes_cancelled` (list of strings): classes this evaluation defined / removed.
//! - `vars_set` (list of strings): variables (`ns:scope.lval`) whose value this evaluation changed.

use serde_json::json;

/// Version of the JSON trace format (`version` of every event).
pub const TRACE_VERSION: u32 = 1;

/// One evaluation of one promise.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceEvent {
    pub seq: usize,
    pub call_path: Vec<String>,
    pub bundle: String,
    pub stage: String,
    pub pass: u8,
    pub promise_type: String,
    pub promiser: String,
    /// The promiser as written (not part of the JSON trace; the run's result uses it).
    pub written: String,
    pub file: String,
    pub line: usize,
    pub iteration: usize,
    pub handle: Option<String>,
    pub guard: String,
    pub guard_value: bool,
    pub skip: Option<String>,
    pub outcome: Option<String>,
    pub classes_set: Vec<String>,
    pub classes_cancelled: Vec<String>,
    pub vars_set: Vec<String>,
}

impl TraceEvent {
    /// The event as one JSON object (keys in schema order).
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "version": TRACE_VERSION,
            "seq": self.seq,
            "call_path": self.call_path,
            "bundle": self.bundle,
            "stage": self.stage,
            "pass": self.pass,
            "promise_type": self.promise_type,
            "promiser": self.promiser,
            "file": self.file,
            "line": self.line,
            "iteration": self.iteration,
            "handle": self.handle,
            "guard": self.guard,
            "guard_value": self.guard_value,
            "skip": self.skip,
            "outcome": self.outcome,
            "classes_set": self.classes_set,
            "classes_cancelled": self.classes_cancelled,
            "vars_set": self.vars_set,
        })
    }

    /// One readable line: `#seq pass N bundle type 'promiser' (line L) guard=... -> outcome [changes]`.
    pub fn to_text(&self) -> String {
        let when = match self.stage.as_str() {
            "preeval" => "pre-eval".to_string(),
            "resolve" => format!("pass {} resolve", self.pass),
            _ => format!("pass {}", self.pass),
        };
        let mut s = format!(
            "#{} {when} {} {} '{}' (line {})",
            self.seq, self.bundle, self.promise_type, self.promiser, self.line
        );
        if self.guard != "any" {
            s.push_str(&format!(" [{}={}]", self.guard, self.guard_value));
        }
        match (&self.skip, &self.outcome) {
            (Some(r), _) => s.push_str(&format!(" skipped: {r}")),
            (None, Some(o)) => s.push_str(&format!(" -> {o}")),
            (None, None) => {}
        }
        if !self.classes_set.is_empty() {
            s.push_str(&format!(" +classes {}", self.classes_set.join(",")));
        }
        if !self.classes_cancelled.is_empty() {
            s.push_str(&format!(" -classes {}", self.classes_cancelled.join(",")));
        }
        if !self.vars_set.is_empty() {
            s.push_str(&format!(" vars {}", self.vars_set.join(",")));
        }
        if self.call_path.len() > 1 {
            s.push_str(&format!(" via {}", self.call_path.join(" > ")));
        }
        s
    }
}

/// Renders the trace as JSON lines.
pub fn render_json(events: &[TraceEvent]) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&e.to_json().to_string());
        s.push('\n');
    }
    s
}

/// Renders the trace as text lines.
pub fn render_text(events: &[TraceEvent]) -> String {
    let mut s = String::new();
    for e in events {
        s.push_str(&e.to_text());
        s.push('\n');
    }
    s
}
