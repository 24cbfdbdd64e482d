//! The agent's result lattice for one files promise (`SKIPPED < NOOP < CHANGE < WARN < FAIL`), with
//! outcome classes set at every recorded step (one promise may define kept and repaired classes in
//! one run) and the end-of-promise lines.

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::Promise;

/// A result in the lattice's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Res {
    Skipped,
    Noop,
    Change,
    Warn,
    Fail,
}

impl Res {
    /// The outcome whose classes a step of this result sets (`cfPS`); none for a skipped step.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            Res::Skipped => None,
            Res::Noop => Some(Outcome::Kept),
            Res::Change => Some(Outcome::Repaired),
            Res::Warn | Res::Fail => Some(Outcome::Failed),
        }
    }
}

/// The promise under evaluation and its aggregated result.
pub struct Pr<'a> {
    pub def: &'a BundleDef,
    pub p: &'a Promise,
    pub promiser: String,
    pub res: Res,
    /// `-n` or `action_policy => "warn"`: nothing is changed, "Should …" is said instead.
    pub warn_only: bool,
    /// Warn-only by the promise's action body (messages get ", but only warning promised").
    pub action_warn: bool,
    /// Part of the promise could not be simulated (a copy from a server the profile does not
    /// describe): the promise ends without an outcome or classes, counted as not simulated.
    pub not_simulated: bool,
}

impl<'a> Pr<'a> {
    /// A promise with nothing recorded yet.
    pub fn new(def: &'a BundleDef, p: &'a Promise, promiser: &str) -> Pr<'a> {
        Pr {
            def,
            p,
            promiser: promiser.to_string(),
            res: Res::Skipped,
            warn_only: false,
            action_warn: false,
            not_simulated: false,
        }
    }

    fn apply(&mut self, e: &mut Engine<'_>, r: Res) {
        if r > self.res {
            self.res = r;
        }
        if let Some(o) = r.outcome() {
            e.apply_classes_body(self.def, self.p, o);
        }
    }

    /// `RecordNoChange`.
    pub fn kept(&mut self, e: &mut Engine<'_>) {
        self.apply(e, Res::Noop);
    }

    /// `RecordChange` with its INFO line.
    pub fn change(&mut self, e: &mut Engine<'_>, msg: &str) {
        e.log(LogLevel::Info, msg);
        self.apply(e, Res::Change);
    }

    /// A change the run may not make: `Should …` (WARNING), the failed classes.
    pub fn should(&mut self, e: &mut Engine<'_>, msg: &str) {
        let suffix = if self.action_warn {
            ", but only warning promised"
        } else {
            ""
        };
        e.log(LogLevel::Warning, &format!("Should {msg}{suffix}"));
        self.apply(e, Res::Warn);
    }

    /// `RecordWarning`.
    pub fn warn(&mut self, e: &mut Engine<'_>) {
        self.apply(e, Res::Warn);
    }

    /// `RecordFailure` (the message is logged by the caller).
    pub fn fail(&mut self, e: &mut Engine<'_>) {
        self.apply(e, Res::Fail);
    }

    /// `Promise belongs to bundle 'B' in file 'F' near line L`.
    pub fn belongs(&self, e: &Engine<'_>) -> String {
        format!(
            "Promise belongs to bundle '{}' in file '{}' near line {}",
            self.def.name,
            e.file_path(self.def.file),
            e.line_of(self.p)
        )
    }

    /// The end line of the result so far (a path of a regex promiser).
    pub fn end_line(&self, e: &mut Engine<'_>, shown: &str) {
        match self.res {
            Res::Warn => e.log(
                LogLevel::Warning,
                &format!("Warnings encountered when actuating files promise '{shown}'"),
            ),
            Res::Fail => e.log(
                LogLevel::Error,
                &format!("Errors encountered when actuating files promise '{shown}'"),
            ),
            _ => {}
        }
    }

    /// The end of a promise whose paths printed their own end lines: counts and the aggregated
    /// classes (none when no path matched).
    pub fn finish_quiet(&mut self, e: &mut Engine<'_>) {
        if self.res == Res::Skipped {
            e.end_event(None, Some(Outcome::Kept));
            return;
        }
        let o = self.outcome();
        e.record_outcome(self.def, self.p, o);
        e.verbose_promise_end("files", &self.promiser, o);
        e.end_event(None, Some(o));
    }

    /// The end of the promise: the end line of its aggregated result, counts and classes.
    pub fn finish(&mut self, e: &mut Engine<'_>, shown: &str) {
        if self.not_simulated {
            e.end_event(Some("not_simulated"), None);
            return;
        }
        self.end_line(e, shown);
        let o = self.outcome();
        e.record_outcome(self.def, self.p, o);
        e.verbose_promise_end("files", shown, o);
        e.end_event(None, Some(o));
    }

    /// A promise rejected by its sanity checks: kept classes only (the agent's aggregated re-set).
    pub fn finish_silent(&mut self, e: &mut Engine<'_>) {
        e.apply_classes_body(self.def, self.p, Outcome::Kept);
    }

    /// The outcome counted for the promise.
    pub fn outcome(&self) -> Outcome {
        match self.res {
            Res::Skipped | Res::Noop => Outcome::Kept,
            Res::Change => Outcome::Repaired,
            Res::Warn | Res::Fail => Outcome::Failed,
        }
    }
}
