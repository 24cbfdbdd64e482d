//! The edit_line engine's operations (spec §3), as pure functions over a line model: the shared types
//! (model, results, messages, the run/promise environment) and the message helpers every op uses.
//!
//! One op = one sub-promise actuation (`insert_lines`, `delete_lines`, `replace_patterns`, `field_edits`)
//! for one expanded promise in one pass. It returns its aggregated result and **every** message the agent
//! prints for it, in the agent's order and levels (INFO change lines, the per-sub-promise end line, errors,
//! `Should …` warnings, verbose kept lines). The files-promise driver (not here) runs the passes, keeps the
//! per-run locks (see [`EditEnv::already_ran`] and [`OpOut::ran`]), buffers INFO lines, sets outcome
//! classes from [`Msg::record`] and saves the file.
//!
//! The ops follow the agent's algorithms closely, including its pointer-based quirks: the agent edits a
//! linked list and keeps pointers to the region's first line and to the insertion point while it edits, so
//! the ops do the same on [`list::Lines`] (stable node ids) and write the result back to the [`Model`].

pub mod delete;
pub mod fields;
pub mod insert;
pub mod list;
pub mod matching;
pub mod region;
pub mod replace;

pub use crate::eval::output::LogLevel;

/// The file being edited: its lines (without '\n').
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Model {
    pub lines: Vec<String>,
}

impl Model {
    pub fn new<S: AsRef<str>>(lines: &[S]) -> Model {
        Model {
            lines: lines.iter().map(|l| l.as_ref().to_string()).collect(),
        }
    }
}

/// Result of one sub-promise, in the agent's lattice order (`PromiseResult`): `Skipped` (the per-run lock
/// was held, nothing done) < `Kept` (NOOP) < `Repaired` (CHANGE) < `Warn` < `Failed` / `Interrupted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EditResult {
    Skipped,
    Kept,
    Repaired,
    Warn,
    Failed,
    Interrupted,
}

impl EditResult {
    /// `PromiseResultUpdate(self, new)`: failures are sticky, a warning yields only to a failure, a change
    /// only to a warning or failure, kept to anything but skipped, skipped to anything.
    pub fn update(self, new: EditResult) -> EditResult {
        use EditResult::*;
        match (self, new) {
            (Failed | Interrupted, _) => self,
            (Warn, Failed | Interrupted) => new,
            (Warn, _) => Warn,
            (Repaired, Warn | Failed | Interrupted) => new,
            (Repaired, _) => Repaired,
            (Kept, Skipped) => Kept,
            (Kept, _) => new,
            (Skipped, _) => new,
        }
    }

    /// The outcome-class family the agent sets for it (`repaired`, `kept`, `failed` — a warning sets
    /// the failed classes); `None` for skipped.
    pub fn class_suffix(self) -> Option<&'static str> {
        match self {
            EditResult::Skipped => None,
            EditResult::Kept => Some("kept"),
            EditResult::Repaired => Some("repaired"),
            EditResult::Warn | EditResult::Failed | EditResult::Interrupted => Some("failed"),
        }
    }
}

/// One line the agent logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Msg {
    pub level: LogLevel,
    pub text: String,
    /// `Some(r)` when the agent logs it through a promise-outcome record (`RecordChange`,
    /// `RecordNoChange`, `RecordWarning`, `RecordFailure`, `cfPS`, the end line): it sets the promise's
    /// outcome classes for `r` at once, which is how one sub-promise can define kept **and** repaired
    /// classes. `None` for plain log lines.
    pub record: Option<EditResult>,
}

/// What an op did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpOut {
    pub result: EditResult,
    /// Every line, in order (the driver buffers the INFO ones, spec §3.1).
    pub msgs: Vec<Msg>,
    /// The model was modified (the driver still compares the whole file before saving).
    pub changed: bool,
    /// The op took its per-run lock (it ran its body): later passes must call it with
    /// [`EditEnv::already_ran`]. False when it stopped before the lock (a sanity or region error, printed
    /// again in every pass) or when the lock was already held.
    pub ran: bool,
}

/// What every op needs to know about the run and the promise.
#[derive(Debug, Clone, Copy)]
pub struct EditEnv<'a> {
    /// Absolute path as printed (`$(edit.filename)`).
    pub filename: &'a str,
    /// `-n`: never modify the model, print `Should …` (WARNING).
    pub dry_run: bool,
    /// `action_policy => "warn"` on the sub-promise: like `dry_run`, messages get `, but only warning
    /// promised`.
    pub warn_only: bool,
    /// For `Promise belongs to bundle 'B' in file 'F' near line L`.
    pub bundle: &'a str,
    pub policy_file: &'a str,
    pub line: usize,
    /// The promise's `comment`, printed as `Comment is '…'` after `Promise belongs to …`.
    pub comment: Option<&'a str>,
    /// `body agent control` `select_end_match_eof` (default false).
    pub select_end_match_eof: bool,
    /// The sub-promise already ran in an earlier pass of this run (its lock is held): the op redoes only
    /// what the agent does before taking the lock (sanity checks, region selection, with their errors)
    /// and then ends `Skipped`.
    pub already_ran: bool,
}

impl<'a> EditEnv<'a> {
    /// A normal run's environment for `filename` (tests and simple callers).
    pub fn new(filename: &'a str) -> EditEnv<'a> {
        EditEnv {
            filename,
            dry_run: false,
            warn_only: false,
            bundle: "",
            policy_file: "",
            line: 0,
            comment: None,
            select_end_match_eof: false,
            already_ran: false,
        }
    }
}

/// `select_region` body (already expanded).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Region {
    pub select_start: Option<String>,
    pub select_end: Option<String>,
    pub include_start: bool,
    pub include_end: bool,
    /// The promise's own `select_end_match_eof`; `None` falls back to [`EditEnv::select_end_match_eof`].
    pub select_end_match_eof: Option<bool>,
}

/// The six list attributes of `insert_select` / `delete_select` (an empty list is an absent attribute,
/// as in the agent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectLists {
    pub startwith: Vec<String>,
    pub not_startwith: Vec<String>,
    /// Full match (`*_match_from_list`).
    pub matching: Vec<String>,
    pub not_matching: Vec<String>,
    /// Unanchored (`*_contains_from_list`).
    pub contains: Vec<String>,
    pub not_contains: Vec<String>,
}

/// Why a file could not be read (`insert_type => "file"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// The promiser is a directory.
    IsDirectory,
    /// `fopen` failed with this `strerror` text (`No such file or directory`).
    Os(String),
}

/// Accumulates an op's messages and result.
#[derive(Debug)]
pub(crate) struct Out<'e> {
    pub env: &'e EditEnv<'e>,
    pub msgs: Vec<Msg>,
    pub result: EditResult,
    pub changed: bool,
    pub ran: bool,
}

impl<'e> Out<'e> {
    pub fn new(env: &'e EditEnv<'e>) -> Out<'e> {
        Out {
            env,
            msgs: Vec::new(),
            result: EditResult::Kept,
            changed: false,
            ran: false,
        }
    }

    /// A plain log line.
    pub fn log(&mut self, level: LogLevel, text: impl Into<String>) {
        self.msgs.push(Msg {
            level,
            text: text.into(),
            record: None,
        });
    }

    /// A promise-outcome record: the line, its classes, and the result update.
    pub fn record(&mut self, level: LogLevel, outcome: EditResult, text: impl Into<String>) {
        self.msgs.push(Msg {
            level,
            text: text.into(),
            record: Some(outcome),
        });
        self.result = self.result.update(outcome);
    }

    /// `RecordChange` (INFO).
    pub fn change(&mut self, text: impl Into<String>) {
        self.record(LogLevel::Info, EditResult::Repaired, text);
    }

    /// `RecordNoChange` (VERBOSE).
    pub fn no_change(&mut self, text: impl Into<String>) {
        self.record(LogLevel::Verbose, EditResult::Kept, text);
    }

    /// `MakingChanges`: true in a normal run; in a dry run or for a warn-only promise it records the
    /// `Should <desc>` warning (WARN) and returns false.
    pub fn making_changes(&mut self, desc: &str) -> bool {
        if self.env.warn_only {
            self.record(
                LogLevel::Warning,
                EditResult::Warn,
                format!("Should {desc}, but only warning promised"),
            );
            false
        } else if self.env.dry_run {
            self.record(
                LogLevel::Warning,
                EditResult::Warn,
                format!("Should {desc}"),
            );
            false
        } else {
            true
        }
    }

    /// `PromiseRef(level)`: where the promise is, and its comment.
    pub fn promise_ref(&mut self, level: LogLevel) {
        let e = self.env;
        self.log(
            level,
            format!(
                "Promise belongs to bundle '{}' in file '{}' near line {}",
                e.bundle, e.policy_file, e.line
            ),
        );
        if let Some(c) = e.comment {
            self.log(level, format!("Comment is '{c}'"));
        }
    }

    /// The per-sub-promise end line for the aggregated result (spec §3.2); nothing when skipped.
    pub fn end_line(&mut self, type_word: &str, promiser: &str) {
        let r = self.result;
        match r {
            EditResult::Skipped => {}
            EditResult::Kept => self.record(
                LogLevel::Verbose,
                r,
                format!("No changes done for the {type_word} promise '{promiser}'"),
            ),
            EditResult::Repaired => self.record(
                LogLevel::Info,
                r,
                format!("{type_word} promise '{promiser}' repaired"),
            ),
            EditResult::Warn => self.record(
                LogLevel::Warning,
                r,
                format!("Warnings encountered when actuating {type_word} promise '{promiser}'"),
            ),
            EditResult::Failed | EditResult::Interrupted => self.record(
                LogLevel::Error,
                r,
                format!("Errors encountered when actuating {type_word} promise '{promiser}'"),
            ),
        }
    }

    pub fn finish(self) -> OpOut {
        OpOut {
            result: self.result,
            msgs: self.msgs,
            changed: self.changed,
            ran: self.ran,
        }
    }
}

/// `select_end_match_eof` in force for a region.
pub(crate) fn end_match_eof(region: &Region, env: &EditEnv) -> bool {
    region
        .select_end_match_eof
        .unwrap_or(env.select_end_match_eof)
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;

    pub const F: &str = "/srv/t/f.txt";

    pub fn env() -> EditEnv<'static> {
        EditEnv {
            filename: F,
            dry_run: false,
            warn_only: false,
            bundle: "e",
            policy_file: "./t.cf",
            line: 10,
            comment: None,
            select_end_match_eof: false,
            already_ran: false,
        }
    }

    pub fn dry() -> EditEnv<'static> {
        EditEnv {
            dry_run: true,
            ..env()
        }
    }

    pub fn warn() -> EditEnv<'static> {
        EditEnv {
            warn_only: true,
            ..env()
        }
    }

    pub fn model(s: &str) -> Model {
        if s.is_empty() {
            return Model::default();
        }
        Model {
            lines: s.split('\n').map(str::to_string).collect(),
        }
    }

    pub fn text(m: &Model) -> String {
        m.lines.join("\n")
    }

    /// Messages as the agent prints them (`    info: …`), one per entry.
    pub fn lines(o: &OpOut) -> Vec<String> {
        o.msgs
            .iter()
            .map(|m| format!("{:>8}: {}", m.level.name(), m.text))
            .collect()
    }

    /// Only the lines a `-I` run shows (info and above).
    pub fn shown(o: &OpOut) -> Vec<String> {
        o.msgs
            .iter()
            .filter(|m| m.level <= LogLevel::Info)
            .map(|m| format!("{:>8}: {}", m.level.name(), m.text))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EditResult::*;

    #[test]
    fn result_lattice_follows_promise_result_update() {
        assert_eq!(Kept.update(Repaired), Repaired);
        assert_eq!(Repaired.update(Kept), Repaired);
        assert_eq!(Repaired.update(Warn), Warn);
        assert_eq!(Warn.update(Repaired), Warn);
        assert_eq!(Warn.update(Interrupted), Interrupted);
        assert_eq!(Interrupted.update(Repaired), Interrupted);
        assert_eq!(Failed.update(Interrupted), Failed);
        assert_eq!(Kept.update(Skipped), Kept);
        assert_eq!(Skipped.update(Kept), Kept);
        assert_eq!(Warn.class_suffix(), Some("failed"));
    }

    fn expand(s: &str, groups: &[Option<String>]) -> String {
        let mut r = s.to_string();
        for (i, g) in groups.iter().enumerate() {
            if let Some(g) = g {
                r = r.replace(&format!("$(match.{i})"), g);
            }
        }
        r
    }

    // recorded: cf-agent 3.21.0, Appendix A.1 (`p/e1.cf`): bundle `order` on
    // keep1/remove me/foo=baz/x:old:z/keep2, run in the agent's type order
    //     info: Deleted the promised line 1 'remove me' from /srv/demo/t/e1/order.txt
    //     info: delete_lines promise 'remove.*' repaired
    //     info: Set field sub-value 'NEW' in '/srv/demo/t/e1/order.txt'
    //     info: fields_edit promise '^x:.*' repaired
    //     info: Inserted the promised line 'added line' into '/srv/demo/t/e1/order.txt' after locator
    //     info: insert_lines promise 'added line' repaired
    //     info: Replaced pattern '^foo=(?!bar$).*$' in '/srv/demo/t/e1/order.txt'
    //     info: replace_patterns promise '^foo=(?!bar$).*$' repaired
    // → keep1/foo=bar/x:NEW:z/keep2/added line; the second run keeps all four
    #[test]
    fn appendix_a1_bundle_in_type_order() {
        let e = EditEnv {
            filename: "/srv/demo/t/e1/order.txt",
            ..testutil::env()
        };
        let mut m = testutil::model("keep1\nremove me\nfoo=baz\nx:old:z\nkeep2");
        let del = delete::DeleteLines {
            promiser: "remove.*".into(),
            ..Default::default()
        };
        let fld = fields::FieldEdits {
            promiser: "^x:.*".into(),
            field_separator: Some(":".into()),
            select_field: Some(2),
            value_separator: Some(",".into()),
            field_value: Some("NEW".into()),
            field_operation: Some("set".into()),
            extend_fields: true,
            allow_blank_fields: true,
            ..Default::default()
        };
        let ins = insert::InsertLines {
            promiser: "added line".into(),
            ..Default::default()
        };
        let rep = replace::ReplacePatterns {
            promiser: "^foo=(?!bar$).*$".into(),
            replace_value: Some("foo=bar".into()),
            ..Default::default()
        };
        let no_file = |_: &str| Err(ReadError::Os("No such file or directory".into()));
        let mut all = Vec::new();
        for pass in 0..2 {
            let mut shown = Vec::new();
            let outs = [
                delete::delete_lines(&mut m, &del, &e),
                fields::field_edits(&mut m, &fld, &e),
                insert::insert_lines(&mut m, &ins, &e, &no_file, &mut expand),
                replace::replace_patterns(&mut m, &rep, &e, &mut expand),
            ];
            for o in &outs {
                shown.extend(testutil::shown(o));
                if pass == 1 {
                    assert_eq!(o.result, EditResult::Kept);
                }
            }
            all.push(shown);
        }
        assert_eq!(
            testutil::text(&m),
            "keep1\nfoo=bar\nx:NEW:z\nkeep2\nadded line"
        );
        assert_eq!(
            all[0],
            [
                "    info: Deleted the promised line 1 'remove me' from /srv/demo/t/e1/order.txt",
                "    info: delete_lines promise 'remove.*' repaired",
                "    info: Set field sub-value 'NEW' in '/srv/demo/t/e1/order.txt'",
                "    info: fields_edit promise '^x:.*' repaired",
                "    info: Inserted the promised line 'added line' into '/srv/demo/t/e1/order.txt' after locator",
                "    info: insert_lines promise 'added line' repaired",
                "    info: Replaced pattern '^foo=(?!bar$).*$' in '/srv/demo/t/e1/order.txt'",
                "    info: replace_patterns promise '^foo=(?!bar$).*$' repaired",
            ]
        );
        assert!(all[1].is_empty());
    }

    // recorded: cf-agent 3.21.0, replace_patterns "^\s*(memory_limit\s*=\s*(?!512M$).*|memory_limit)$"
    // value("memory_limit = 512M") on `memory_limit = 512M`, every run:
    //    error: Promised replacement 'memory_limit = 512M' for pattern '…' is not properly convergent while
    //    editing '…' (pattern still matches the end-state replacement string 'memory_limit = 512M', consider use of a negative look ahead)
    // B.10: the stdlib's set_line_based look-ahead `^\s*(memory_limit\s*=\s*(?!512M$).*|memory_limit)$`
    // still matches a line that is already right (`\s*=\s*` can stop before the blank), so it is
    // "replaced" by itself and reported not properly convergent on every run
    #[test]
    fn b10_set_line_based_lookahead_errors_every_run() {
        let e = testutil::env();
        let mut m = testutil::model("memory_limit = 512M");
        let req = replace::ReplacePatterns {
            promiser: r"^\s*(memory_limit\s*=\s*(?!512M$).*|memory_limit)$".into(),
            replace_value: Some("memory_limit = 512M".into()),
            ..Default::default()
        };
        for _ in 0..2 {
            let o = replace::replace_patterns(&mut m, &req, &e, &mut expand);
            assert_eq!(o.result, EditResult::Interrupted);
            assert!(!o.changed);
            assert!(testutil::shown(&o)
                .iter()
                .any(|l| l.contains("is not properly convergent")));
        }
        assert_eq!(testutil::text(&m), "memory_limit = 512M");
    }

    // recorded: cf-agent 3.21.0, replace_patterns "^(.*foo.*)$" replace_with => comment("#") on foo:
    //    error: Promised replacement '# # # # # # # # # # # # # # # # # # # # foo' for pattern '^(.*foo.*)$' is not properly convergent …
    //     info: Replaced pattern '^(.*foo.*)$' in '…'
    //     info: Promise belongs to bundle 'e' in file './b10a.cf' near line 10
    // B.10: comment_lines_matching with a regex that also matches the commented line writes `# ` twenty
    // times (`^(.*foo.*)$` → `# $(match.1)`)
    #[test]
    fn b10_comment_lines_matching_twenty_times() {
        let e = testutil::env();
        let mut m = testutil::model("foo");
        let req = replace::ReplacePatterns {
            promiser: "^(.*foo.*)$".into(),
            replace_value: Some("# $(match.1)".into()),
            ..Default::default()
        };
        let o = replace::replace_patterns(&mut m, &req, &e, &mut expand);
        let want = format!("{}foo", "# ".repeat(20));
        assert_eq!(testutil::text(&m), want);
        assert_eq!(o.result, EditResult::Interrupted);
        assert_eq!(
            testutil::shown(&o),
            [
                "    info: Replaced pattern '^(.*foo.*)$' in '/srv/t/f.txt'".to_string(),
                format!("   error: Promised replacement '{want}' for pattern '^(.*foo.*)$' is not properly convergent while editing '/srv/t/f.txt' (pattern still matches the end-state replacement string '{want}', consider use of a negative look ahead)"),
                "    info: Promise belongs to bundle 'e' in file './t.cf' near line 10".to_string(),
                "   error: Errors encountered when actuating replace_patterns promise '^(.*foo.*)$'".to_string(),
            ]
        );
    }

    #[test]
    fn making_changes_words_dry_run_and_warn_only() {
        let e = testutil::dry();
        let mut o = Out::new(&e);
        assert!(!o.making_changes("edit file 'P'"));
        let w = testutil::warn();
        let mut o2 = Out::new(&w);
        assert!(!o2.making_changes("edit file 'P'"));
        assert_eq!(o.msgs[0].text, "Should edit file 'P'");
        assert_eq!(
            o2.msgs[0].text,
            "Should edit file 'P', but only warning promised"
        );
        assert_eq!(o.result, Warn);
    }
}
