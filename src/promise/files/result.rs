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
    /// The agent's `FindFilePromiserObjects` took its literal branch (`copy_from`, `pathtype =>
    /// "literal"`): the promise's outcome classes are not set once more after the last path.
    pub literal: bool,
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
            literal: false,
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

    /// Nothing to do, said with a plain log line (no `cfPS`, no classes).
    pub fn noop(&mut self) {
        if Res::Noop > self.res {
            self.res = Res::Noop;
        }
    }

    /// `RecordChange` with its INFO line.
    pub fn change(&mut self, e: &mut Engine<'_>, msg: &str) {
        e.log(LogLevel::Info, msg);
        self.apply(e, Res::Change);
    }

    /// A change whose classes were set already: its INFO line and the result.
    pub fn change_quiet(&mut self, e: &mut Engine<'_>, msg: &str) {
        e.log(LogLevel::Info, msg);
        if Res::Change > self.res {
            self.res = Res::Change;
        }
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

    /// The agent's `cfPS` with the files promise: the line, the result's classes, and (unlike
    /// `Record*`/`MakingChanges`, which only set classes) its `ClassAuditLog` counts the result in the
    /// bundle's accounting (`UpdatePromiseCounters` for every promise type but vars, classes and the
    /// edit_line types), so one files promise can count several times: e.g. each difference a warn-only
    /// edit lists, then the end line (recorded: files/warn-only-edit-lines/verbose.out).
    pub fn cfps(&mut self, e: &mut Engine<'_>, level: LogLevel, msg: &str, r: Res) {
        e.log(level, msg);
        self.apply(e, r);
        if let Some(o) = r.outcome() {
            e.record_counts(self.def, self.p, o);
        }
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

    /// The end of the agent's `VerifyFilePromise` for one path (its `exit:` label): the end line of
    /// the path's result (`No changes done …` and `files promise … repaired` are verbose lines, not
    /// simulated), and that result's outcome classes once more (`cfPS`; a path that recorded
    /// nothing ends kept).
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
        e.apply_classes_body(self.def, self.p, self.outcome());
    }

    /// The end of one path ([`Pr::end_line`]), which the agent counts for the bundle's accounting
    /// (a regex promiser counts once per path; a path `file_select` skipped is not counted).
    pub fn end_path(&self, e: &mut Engine<'_>, shown: &str) {
        self.end_line(e, shown);
        e.record_counts(self.def, self.p, self.outcome());
    }

    /// The end of a promise whose paths printed their own end lines: the aggregated classes (none
    /// when no path matched).
    pub fn finish_quiet(&mut self, e: &mut Engine<'_>) {
        if self.res == Res::Skipped {
            e.end_event(None, Some(Outcome::Kept));
            return;
        }
        let o = self.outcome();
        self.final_classes(e, o);
        e.verbose_promise_end("files", &self.promiser, o);
        e.end_event(None, Some(o));
    }

    /// The promise's classes once more after its last path, unless the promise was literal.
    fn final_classes(&self, e: &mut Engine<'_>, o: Outcome) {
        if !self.literal {
            e.apply_classes_body(self.def, self.p, o);
        }
    }

    /// The end of the promise: the end of its one path ([`Pr::end_path`]; none for a path that
    /// `file_select` skipped), and the classes once more.
    pub fn finish(&mut self, e: &mut Engine<'_>, shown: &str, path_end: bool) {
        if self.not_simulated {
            e.end_event(Some("not_simulated"), None);
            return;
        }
        if path_end {
            self.end_path(e, shown);
        }
        let o = self.outcome();
        self.final_classes(e, o);
        e.verbose_promise_end("files", shown, o);
        e.end_event(None, Some(o));
    }

    /// A promise rejected by its sanity checks: not counted, kept classes once (unless literal) and
    /// the kept end of the promise.
    pub fn finish_silent(&mut self, e: &mut Engine<'_>) {
        if !self.literal {
            e.apply_classes_body(self.def, self.p, Outcome::Kept);
        }
        e.verbose_promise_end("files", &self.promiser, Outcome::Kept);
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
