//! Outcome tallies of a run whose result only counts (`cfsim fleet`'s brief result): kept per promise
//! as the run goes, instead of one trace event (five strings) per evaluation and a pass over them all
//! at the end. [`Counts::tallies`] gives what `result::outcome_counts` gives for the same run's trace:
//! the run's promises, then those only pre-evaluated (`tests/brief_counts.rs` compares the two on every
//! runnable policy of the repository).

use super::result::Tally;
use crate::fasthash::FastState;

type HashMap<K, V> = std::collections::HashMap<K, V, FastState>;

/// Where one evaluation is counted while the run goes: the bundle definition's and promise type
/// text's addresses, the file index and the promiser's offset, and whether it is pre-evaluation. They
/// only group cheaply: [`Counts::tallies`] merges the groups by the names the trace would carry
/// (bundle, file path, line, type), so two keys for one promise count as one, as in the trace.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CountKey {
    pub bundle: usize,
    pub file: usize,
    pub offset: usize,
    pub type_at: usize,
    pub type_len: usize,
    pub preeval: bool,
}

/// The names of a new group, made only the first time its key is seen.
pub struct Names {
    pub bundle: String,
    pub file: String,
    pub line: usize,
    pub promise_type: String,
}

/// Tallies per [`CountKey`], in order of first evaluation.
#[derive(Default)]
pub struct Counts {
    index: HashMap<CountKey, usize>,
    groups: Vec<(bool, Tally)>,
    /// The group of the evaluation under way (set when it begins, counted when it ends).
    cur: Option<Pending>,
    /// The group of the evaluation counted last.
    last: Option<usize>,
}

/// An evaluation begun and not yet counted.
pub enum Pending {
    Known(usize, bool),
    New(CountKey, Box<Names>, bool),
}

impl Counts {
    /// Counts with room for `n` groups (`RunOptions::count_groups_hint`: a fleet's engines all count
    /// the same policy, and growing a vector of thousands of tallies by doubling copied each of them
    /// about twice per host).
    pub fn with_capacity(n: usize) -> Counts {
        Counts {
            index: HashMap::with_capacity_and_hasher(n, FastState::default()),
            groups: Vec::with_capacity(n),
            ..Counts::default()
        }
    }

    /// Number of groups counted.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Starts counting one evaluation (`guard_value`: its class guard held) in the group of `key`;
    /// false when there is none yet ([`Counts::begin_new`] then).
    pub fn begin(&mut self, key: &CountKey, guard_value: bool) -> bool {
        self.cur = self.index.get(key).map(|&i| Pending::Known(i, guard_value));
        self.cur.is_some()
    }

    /// Starts counting one evaluation in a new group, named `names`.
    pub fn begin_new(&mut self, key: CountKey, names: Names, guard_value: bool) {
        self.cur = Some(Pending::New(key, Box::new(names), guard_value));
    }

    /// The evaluation under way, put aside while another one (an edit bundle's) is counted.
    pub fn suspend(&mut self) -> Option<Pending> {
        self.cur.take()
    }

    /// Takes up an evaluation [`Counts::suspend`] put aside.
    pub fn resume(&mut self, p: Option<Pending>) {
        self.cur = p;
    }

    /// The group of the evaluation counted last, for [`Counts::amend`].
    pub fn last_counted(&self) -> Option<usize> {
        self.last
    }

    /// Gives an evaluation counted without outcome (a methods promise, counted before its bundle
    /// runs) its outcome: what the trace does by filling in the event's outcome afterwards.
    pub fn amend(&mut self, group: usize, outcome: &str) {
        let Some((_, t)) = self.groups.get_mut(group) else {
            return;
        };
        // counted as skipped (no skip reason, no outcome) when it began
        let was = t.outcome_count(None, None);
        *was = was.saturating_sub(1);
        *t.outcome_count(None, Some(outcome)) += 1;
    }

    /// Counts the evaluation begun last with why it was skipped and its outcome (trace names).
    pub fn end(&mut self, skip: Option<&str>, outcome: Option<&str>) {
        let (i, guard_value) = match self.cur.take() {
            Some(Pending::Known(i, g)) => (i, g),
            Some(Pending::New(key, names, g)) => {
                let i = *self.index.entry(key).or_insert_with(|| {
                    self.groups.push((
                        key.preeval,
                        Tally {
                            bundle: names.bundle,
                            file: names.file,
                            line: names.line,
                            promise_type: names.promise_type,
                            ..Tally::default()
                        },
                    ));
                    self.groups.len() - 1
                });
                (i, g)
            }
            None => return,
        };
        if let Some((_, t)) = self.groups.get_mut(i) {
            t.count(guard_value, skip, outcome);
        }
        self.last = Some(i);
    }

    /// The counts of the tallies the trace's counting gives (their names left empty): the promises
    /// the run evaluated, then those only pre-evaluated (the pre-evaluation of a promise the run
    /// evaluates again is not counted).
    pub(super) fn tallies(&self) -> Vec<Tally> {
        let mut out: Vec<Tally> = Vec::new();
        let mut at: HashMap<(&str, &str, usize, &str), usize> = HashMap::default();
        let mut run_len = 0;
        for pre in [false, true] {
            for (p, t) in self.groups.iter().filter(|(p, _)| *p == pre) {
                let name = (
                    t.bundle.as_str(),
                    t.file.as_str(),
                    t.line,
                    t.promise_type.as_str(),
                );
                match at.get(&name) {
                    // the pre-evaluation of a promise the run evaluated is not counted
                    Some(&i) if *p && i < run_len => {}
                    Some(&i) => {
                        if let Some(o) = out.get_mut(i) {
                            o.add(t);
                        }
                    }
                    None => {
                        at.insert(name, out.len());
                        // the counts alone (the summary reads nothing else): no text copied
                        let mut counts = Tally::default();
                        counts.add(t);
                        out.push(counts);
                    }
                }
            }
            run_len = out.len();
        }
        out
    }
}
