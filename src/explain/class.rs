//! `--class NAME`: where a class came from (hard class of the host, `-D`, augments, or the promise
//! that defined it with the chain of classes behind its conditions), or, when the run never defined
//! it, every promise that could have and why each did not.

use super::candidates::{self, Candidate};
use super::facts::{display, ClassKey, Facts, State};
use super::reach::{self, Reach};
use super::steps::{self, Attempt, Chain, Step, Target};

/// Where a class came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    Hard(Vec<String>),
    CommandLine,
    Augments,
    /// Set by the policy (a promise of the trace).
    Policy,
    /// Never defined in the run.
    None,
}

impl Source {
    pub fn code(&self) -> &'static str {
        match self {
            Source::Hard(_) => "hard",
            Source::CommandLine => "command_line",
            Source::Augments => "augments",
            Source::Policy => "policy",
            Source::None => "none",
        }
    }
}

/// The answer for one class.
#[derive(Debug, Clone)]
pub struct ClassAnswer<'a> {
    pub key: ClassKey,
    pub source: Source,
    /// Still defined when the run ended (hard, `-D` or a namespace class not cancelled).
    pub at_end: bool,
    /// `hard`, `namespace` (still defined at the end), `bundle` (local to the bundle that defined
    /// it: gone when the bundle ended), `cancelled`, or empty (never defined).
    pub scope: String,
    /// The first evaluation that defined it, explained.
    pub defined_by: Option<Step>,
    /// Later evaluations that defined it again (another activation of a bundle-local class, after a
    /// cancellation), as trace events.
    pub again: Vec<usize>,
    /// Evaluations that cancelled it.
    pub cancelled_by: Vec<usize>,
    /// When never defined: every promise that could have, and why it did not.
    pub candidates: Vec<CandidateReport<'a>>,
    /// When no promise could: the promises whose conditions use it (`FILE:LINE`).
    pub used_by: Vec<String>,
}

/// One candidate and why it did not set the name.
#[derive(Debug, Clone)]
pub struct CandidateReport<'a> {
    pub cand: Candidate<'a>,
    /// Number of evaluations in the trace.
    pub evaluations: usize,
    pub attempts: Vec<Attempt>,
    /// Why it was never evaluated (no evaluation in the trace).
    pub reach: Option<Reach>,
}

impl CandidateReport<'_> {
    /// One word for all its attempts: the common verdict, `mixed`, or `never_evaluated`.
    pub fn verdict(&self) -> String {
        if self.reach.is_some() {
            return "never_evaluated".into();
        }
        let mut v = self.attempts.iter().map(|a| a.verdict.as_str());
        match v.next() {
            Some(first) if v.all(|x| x == first) => first.to_string(),
            Some(_) => "mixed".into(),
            None => "never_evaluated".into(),
        }
    }
}

/// Why each candidate did not set `target`.
pub fn reports<'a>(
    facts: &Facts<'a>,
    cands: Vec<Candidate<'a>>,
    target: &Target,
) -> Vec<CandidateReport<'a>> {
    cands
        .into_iter()
        .map(|c| {
            let evs = facts.evaluations(&c.promise);
            if evs.is_empty() {
                let r = reach::reach(facts, &c.promise);
                CandidateReport {
                    cand: c,
                    evaluations: 0,
                    attempts: Vec::new(),
                    reach: Some(r),
                }
            } else {
                let attempts = steps::attempts(facts, &c.promise, &evs, target);
                CandidateReport {
                    cand: c,
                    evaluations: evs.len(),
                    attempts,
                    reach: None,
                }
            }
        })
        .collect()
}

/// The promises whose conditions name class `key`.
fn used_by(facts: &Facts<'_>, key: &ClassKey) -> Vec<String> {
    let mut out = Vec::new();
    for p in &facts.promises {
        let uses = super::cond::conditions(p).iter().any(|w| {
            let names: Vec<String> = match w.rval {
                None => crate::graph::classes::expression_names(&w.text),
                Some(rv) => crate::graph::model::scalars(rv)
                    .iter()
                    .flat_map(|s| crate::graph::classes::expression_names(&s.value))
                    .collect(),
            };
            names
                .iter()
                .any(|n| super::cond::resolve(facts, n, &p.bundle.ns) == *key)
        });
        if uses {
            let site = p.site();
            if !out.contains(&site) {
                out.push(site);
            }
        }
    }
    out
}

/// Explains class `key` (`any_ns`: the name was asked without a namespace).
pub fn explain<'a>(facts: &Facts<'a>, key: &ClassKey, any_ns: bool) -> ClassAnswer<'a> {
    let mut a = ClassAnswer {
        key: key.clone(),
        source: Source::None,
        at_end: false,
        scope: String::new(),
        defined_by: None,
        again: Vec::new(),
        cancelled_by: Vec::new(),
        candidates: Vec::new(),
        used_by: Vec::new(),
    };
    let changes = facts.changes(key);
    let sets: Vec<usize> = changes.iter().filter(|c| c.set).map(|c| c.event).collect();
    a.cancelled_by = changes.iter().filter(|c| !c.set).map(|c| c.event).collect();
    match facts.state(key, Some(0)) {
        State::Hard(t) => {
            a.source = Source::Hard(t);
            a.at_end = true;
            a.scope = "hard".into();
            return a;
        }
        State::CommandLine => a.source = Source::CommandLine,
        State::Augments => a.source = Source::Augments,
        _ => {}
    }
    let end = facts.state(key, None);
    let global = facts.soft_at_end(key).is_some();
    a.at_end = global && end.defined();
    if a.source == Source::None && !sets.is_empty() {
        a.source = Source::Policy;
    }
    a.scope = if global {
        "namespace".into()
    } else if matches!(end, State::Cancelled(_)) {
        "cancelled".into()
    } else if a.source == Source::Policy {
        "bundle".into()
    } else {
        String::new()
    };
    if let Some((first, rest)) = sets.split_first() {
        let mut chain = Chain::new();
        chain.mark(key);
        a.defined_by = Some(steps::step(
            facts,
            *first,
            &Target::Class(key.clone()),
            &mut chain,
        ));
        a.again = rest.to_vec();
        return a;
    }
    if a.source != Source::None {
        return a;
    }
    let cands = candidates::for_class(facts, key, any_ns);
    a.candidates = reports(facts, cands, &Target::Class(key.clone()));
    if a.candidates.is_empty() {
        a.used_by = used_by(facts, key);
    }
    a
}

/// Whether the policy or the run knows anything of class `key` (for "unknown class" errors).
pub fn known(a: &ClassAnswer<'_>) -> bool {
    a.source != Source::None || !a.candidates.is_empty() || !a.used_by.is_empty()
}

/// Names close to `asked` among the classes the run and the policy know (for an unknown class).
pub fn suggestions(facts: &Facts<'_>, asked: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for k in facts.engine.ctx.hard.keys() {
        names.push(k.clone());
    }
    for (ns, n) in facts.engine.ctx.soft.keys() {
        names.push(display(ns, n));
    }
    for (ns, n) in facts.traced_classes() {
        names.push(display(ns, n));
    }
    for p in facts
        .promises
        .iter()
        .filter(|p| p.promise_type == "classes")
    {
        let w = &p.promise.promiser.value;
        if !crate::graph::model::is_dynamic(w) {
            names.push(display(&p.bundle.ns, &crate::expr::canonify(w)));
        }
    }
    close(asked, names)
}

/// The names within a small edit distance of `asked` (or containing it), at most five, sorted.
pub fn close(asked: &str, mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names.dedup();
    let a = asked.to_ascii_lowercase();
    let mut scored: Vec<(usize, String)> = names
        .into_iter()
        .filter_map(|n| {
            let l = n.to_ascii_lowercase();
            let d = distance(&a, &l);
            let limit = (a.len() / 4).clamp(1, 3);
            if d <= limit || (a.len() >= 3 && l.contains(&a)) {
                Some((d, n))
            } else {
                None
            }
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, n)| n).collect()
}

/// Levenshtein distance (bytes).
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn close_names() {
        let names = vec!["linux".to_string(), "linux_x86_64".into(), "debian".into()];
        assert_eq!(super::close("linx", names.clone()), ["linux"]);
        assert_eq!(super::close("x86", names), ["linux_x86_64"]);
    }
}
