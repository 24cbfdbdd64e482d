//! The machine-readable result of a run (`cfsim agent --result-json PATH`): final classes with their
//! tags, variables, every promise's outcome (aggregated from the trace), the report lines, a summary and
//! the exit code. Schema: `docs/result.schema.json` (`version` [`RESULT_VERSION`]); keys are written in
//! a fixed order and every list is sorted or in evaluation order, so the same run gives the same bytes.

use serde_json::{json, Map, Value as Json};

use super::context::Context;
use super::trace::TraceEvent;
use crate::value::{ListKind, ScalarKind, Value};

/// Version of the result format, raised when a key changes meaning or disappears.
pub const RESULT_VERSION: u32 = 1;

/// What the result is built from, besides the engine's context and trace.
pub struct RunFacts<'a> {
    pub policy: &'a str,
    pub host: &'a str,
    pub exit_code: u8,
    /// The run's printed lines (reports are those starting with `R: `).
    pub lines: &'a [String],
    /// Leave out `variables` and the per-promise list (`cfsim fleet`'s table needs only the summary and
    /// the classes); the document then has `"variables": null, "promises": null`.
    pub brief: bool,
    /// With `brief`: leave out the classes too (`"classes": null`), for a table that shows none
    /// (`cfsim fleet` without `--classes`): building their list was a tenth of an hENC demo node.
    pub brief_without_classes: bool,
    /// With `brief`: the tallies the run kept instead of a trace (`RunOptions::trace_counts_only`).
    pub counts: Option<&'a super::counts::Counts>,
}

/// Per-promise tally of the trace events of one promise (one `file:line` in one bundle).
#[derive(Default)]
pub(super) struct Tally {
    pub(super) bundle: String,
    pub(super) promise_type: String,
    pub(super) file: String,
    pub(super) line: usize,
    pub(super) handle: Option<String>,
    pub(super) written: String,
    pub(super) promisers: Vec<String>,
    pub(super) evaluations: usize,
    pub(super) kept: usize,
    pub(super) repaired: usize,
    pub(super) not_kept: usize,
    pub(super) not_simulated: usize,
    pub(super) skipped: usize,
    /// The class guard of the promise (of its first evaluation), and how many evaluations found it
    /// and the promise's `if`/`unless` conditions true.
    pub(super) guard: String,
    pub(super) guard_true: usize,
}

impl Tally {
    /// The promise's overall outcome: the worst actuation, else why nothing was actuated.
    fn outcome(&self) -> &'static str {
        if self.not_kept > 0 {
            "not_kept"
        } else if self.repaired > 0 {
            "repaired"
        } else if self.kept > 0 {
            "kept"
        } else if self.not_simulated > 0 {
            "not_simulated"
        } else {
            "skipped"
        }
    }
}

/// Most distinct expanded promisers listed for one promise (the count is always exact).
const MAX_PROMISERS: usize = 100;

/// Which trace events count for the promises of the result, in counting order: the events of the
/// run, then the pre-evaluation events of promises the run never evaluated (common bundles outside
/// the sequence). The pre-evaluation of a promise the run evaluates again is not counted (the agent
/// does not count it).
fn counted(trace: &[TraceEvent]) -> impl Iterator<Item = &TraceEvent> {
    let mut seen_in_run: HashSet<Key<'_>> = HashSet::default();
    for e in trace.iter().filter(|e| e.stage != "preeval") {
        seen_in_run.insert(key(e));
    }
    let pre_only: Vec<&TraceEvent> = trace
        .iter()
        .filter(|e| e.stage == "preeval" && !seen_in_run.contains(&key(e)))
        .collect();
    trace
        .iter()
        .filter(|e| e.stage != "preeval")
        .chain(pre_only)
}

/// A promise of the result: its bundle, file, line and type.
type Key<'a> = (&'a str, &'a str, usize, &'a str);
type HashMap<K, V> = std::collections::HashMap<K, V, crate::fasthash::FastState>;
type HashSet<K> = std::collections::HashSet<K, crate::fasthash::FastState>;

fn key(e: &TraceEvent) -> Key<'_> {
    (
        e.bundle.as_str(),
        e.file.as_str(),
        e.line,
        e.promise_type.as_str(),
    )
}

/// Adds one evaluation's outcome to a tally's counts.
fn count_outcome(t: &mut Tally, e: &TraceEvent) {
    t.count(e.guard_value, e.skip.as_deref(), e.outcome.as_deref());
}

impl Tally {
    /// Adds one evaluation: its guard value, why it was skipped, its outcome (trace names).
    pub(super) fn count(&mut self, guard_value: bool, skip: Option<&str>, outcome: Option<&str>) {
        self.evaluations += 1;
        // the class guard and the promise's if/unless conditions all held
        self.guard_true += usize::from(guard_value && !matches!(skip, Some("if") | Some("unless")));
        *self.outcome_count(skip, outcome) += 1;
    }

    /// The counter one evaluation's skip reason and outcome (trace names) go to.
    pub(super) fn outcome_count(
        &mut self,
        skip: Option<&str>,
        outcome: Option<&str>,
    ) -> &mut usize {
        match (skip, outcome) {
            (_, Some("failed")) => &mut self.not_kept,
            (_, Some("repaired")) => &mut self.repaired,
            (_, Some("kept")) => &mut self.kept,
            (Some("not_simulated"), _) => &mut self.not_simulated,
            _ => &mut self.skipped,
        }
    }

    /// Adds the counts of `o` (the same promise counted under another grouping key).
    pub(super) fn add(&mut self, o: &Tally) {
        self.evaluations += o.evaluations;
        self.guard_true += o.guard_true;
        self.kept += o.kept;
        self.repaired += o.repaired;
        self.not_kept += o.not_kept;
        self.not_simulated += o.not_simulated;
        self.skipped += o.skipped;
    }
}

/// The promises of the run in the order of their first evaluation by the bundlesequence; then those
/// only pre-evaluated (see [`counted`]).
fn promises(trace: &[TraceEvent]) -> Vec<Tally> {
    let mut index: HashMap<Key<'_>, usize> = HashMap::default();
    let mut out: Vec<Tally> = Vec::new();
    for e in counted(trace) {
        let i = *index.entry(key(e)).or_insert_with(|| {
            out.push(Tally {
                bundle: e.bundle.clone(),
                promise_type: e.promise_type.clone(),
                file: e.file.clone(),
                line: e.line,
                handle: e.handle.clone(),
                written: e.written.clone(),
                guard: e.guard.clone(),
                ..Tally::default()
            });
            out.len() - 1
        });
        let Some(t) = out.get_mut(i) else { continue };
        count_outcome(t, e);
        if t.promisers.len() < MAX_PROMISERS && !t.promisers.contains(&e.promiser) {
            t.promisers.push(e.promiser.clone());
        }
    }
    out
}

/// The counts of [`promises`] alone (what the summary needs), without copying any text.
fn outcome_counts(trace: &[TraceEvent]) -> Vec<Tally> {
    let mut index: HashMap<Key<'_>, usize> = HashMap::default();
    let mut out: Vec<Tally> = Vec::new();
    for e in counted(trace) {
        let i = *index.entry(key(e)).or_insert_with(|| {
            out.push(Tally::default());
            out.len() - 1
        });
        if let Some(t) = out.get_mut(i) {
            count_outcome(t, e);
        }
    }
    out
}

/// A variable's value as JSON: scalars as strings, lists as arrays, data as itself.
fn value_json(v: &Value) -> (&'static str, Json) {
    match v {
        Value::Scalar(ScalarKind::String, s) => ("string", json!(s)),
        Value::Scalar(ScalarKind::Int, s) => ("int", json!(s)),
        Value::Scalar(ScalarKind::Real, s) => ("real", json!(s)),
        Value::List(ListKind::Slist, l) => ("slist", json!(l)),
        Value::List(ListKind::Ilist, l) => ("ilist", json!(l)),
        Value::List(ListKind::Rlist, l) => ("rlist", json!(l)),
        Value::Data(d) => ("data", d.clone()),
    }
}

fn tags(t: &str) -> Vec<&str> {
    t.split(',').filter(|s| !s.is_empty()).collect()
}

/// Builds the result document.
pub fn build(ctx: &Context, trace: &[TraceEvent], facts: &RunFacts<'_>) -> Json {
    let classes: Json = if facts.brief && facts.brief_without_classes {
        Json::Null
    } else {
        Json::Array(
            ctx.global_class_rows()
                .into_iter()
                .map(|(name, t)| json!({"name": name, "tags": tags(&t)}))
                .collect(),
        )
    };
    let tallies = if facts.brief {
        match facts.counts {
            Some(c) => c.tallies(),
            None => outcome_counts(trace),
        }
    } else {
        promises(trace)
    };
    let mut summary = Map::new();
    for k in ["kept", "repaired", "not_kept", "not_simulated", "skipped"] {
        summary.insert(
            k.to_string(),
            json!(tallies.iter().filter(|t| t.outcome() == k).count()),
        );
    }
    let reports: Vec<&str> = facts
        .lines
        .iter()
        .filter_map(|l| l.strip_prefix("R: "))
        .collect();
    if facts.brief {
        return json!({
            "version": RESULT_VERSION,
            "tool": concat!("cfsim ", env!("CARGO_PKG_VERSION")),
            "policy": facts.policy,
            "host": facts.host,
            "exit_code": facts.exit_code,
            "summary": summary,
            "classes": classes,
            "variables": null,
            "promises": null,
            "reports": reports,
        });
    }
    let mut vars: Vec<(String, &super::context::VarEntry)> = ctx
        .vars
        .iter()
        .map(|((ns, scope, lval), e)| (format!("{ns}:{scope}.{lval}"), e))
        .collect();
    vars.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let variables: Vec<Json> = vars
        .into_iter()
        .map(|(name, e)| {
            let (ty, value) = value_json(&e.value);
            json!({"name": name, "type": ty, "value": value, "tags": e.tags})
        })
        .collect();
    let promises: Vec<Json> = tallies
        .iter()
        .map(|t| {
            json!({
                "bundle": t.bundle,
                "promise_type": t.promise_type,
                "file": t.file,
                "line": t.line,
                "handle": t.handle,
                "promiser": t.written,
                "promisers": t.promisers,
                "outcome": t.outcome(),
                "evaluations": t.evaluations,
                "kept": t.kept,
                "repaired": t.repaired,
                "not_kept": t.not_kept,
                "not_simulated": t.not_simulated,
                "skipped": t.skipped,
                "guard": t.guard,
                "guard_true": t.guard_true,
            })
        })
        .collect();
    json!({
        "version": RESULT_VERSION,
        "tool": concat!("cfsim ", env!("CARGO_PKG_VERSION")),
        "policy": facts.policy,
        "host": facts.host,
        "exit_code": facts.exit_code,
        "summary": summary,
        "classes": classes,
        "variables": variables,
        "promises": promises,
        "reports": reports,
    })
}
