//! The answers as text (for people: one cited `FILE:LINE` per step, the chain indented under the
//! condition that needed it) and as JSON (for tools; shape in docs/explain.md, every evaluation as
//! the trace's own event object). Output order is the run's order or sorted, never a hash order.

use serde_json::{json, Value};

use super::candidates::Via;
use super::class::{CandidateReport, ClassAnswer, Source};
use super::cond::{Atom, Cond};
use super::facts::{display, display_qualified, Facts, State};
use super::promise::PromiseAnswer;
use super::reach::Reach;
use super::steps::{Attempt, Origin, Step};
use super::var::VarAnswer;
use super::{Answers, Question};

/// Version of the JSON document (`version`), raised when a key changes meaning or disappears.
pub const EXPLAIN_VERSION: u32 = 1;

/// Lines with indentation.
#[derive(Default)]
struct W {
    out: String,
}

impl W {
    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push(' ');
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn blank(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }
}

/// `pre-evaluation`, `pass 2`, `pass 1 resolve`, with the iteration when it is not the first.
fn when(e: &crate::eval::trace::TraceEvent) -> String {
    let mut s = match e.stage.as_str() {
        "preeval" => "pre-evaluation".to_string(),
        "resolve" => format!("pass {} resolve", e.pass),
        _ => format!("pass {}", e.pass),
    };
    if e.iteration > 1 {
        s.push_str(&format!(", iteration {}", e.iteration));
    }
    s
}

/// `#16 pass 1, #31 pass 2` (long lists shortened).
fn events_list(facts: &Facts<'_>, evs: &[usize]) -> String {
    let item = |i: &usize| {
        facts.event(*i).map_or_else(String::new, |e| {
            let mut s = format!("#{} {}", e.seq, when(e));
            if e.iteration > 1 {
                // no comma inside an item of a comma-separated list
                s = s.replace(", iteration ", " (iteration ") + ")";
            }
            s
        })
    };
    if evs.len() <= 6 {
        return evs.iter().map(item).collect::<Vec<_>>().join(", ");
    }
    let head: Vec<String> = evs.iter().take(3).map(item).collect();
    let last = evs.last().map(item).unwrap_or_default();
    format!(
        "{}, … {} ({} evaluations)",
        head.join(", "),
        last,
        evs.len()
    )
}

/// The run the answers are about, on one line.
fn run_line(facts: &Facts<'_>) -> String {
    let mut s = format!(
        "run: {} on host {} (profile {})",
        facts.policy, facts.hostname, facts.profile
    );
    if !facts.defines.is_empty() {
        s.push_str(&format!(", -D {}", facts.defines.join(",")));
    }
    s.push_str(&format!(
        ", bundlesequence {}, exit {}",
        if facts.sequence.is_empty() {
            "(empty)".to_string()
        } else {
            facts.sequence.join(", ")
        },
        facts.code
    ));
    s
}

/// `FILE:LINE  vars promise "x"  (bundle main, pass 1, #3)`.
fn event_head(facts: &Facts<'_>, ev: usize) -> String {
    let Some(e) = facts.event(ev) else {
        return String::new();
    };
    let mut s = format!(
        "{}:{}  {} promise \"{}\"  (bundle {}, {}, #{}",
        e.file,
        e.line,
        e.promise_type,
        super::steps::short(&super::steps::relative_in(&e.promiser)),
        display_qualified(&e.bundle),
        when(e),
        e.seq
    );
    if e.call_path.len() > 1 {
        let path: Vec<String> = e.call_path.iter().map(|c| display_qualified(c)).collect();
        s.push_str(&format!(", via {}", path.join(" > ")));
    }
    s.push(')');
    s
}

fn atom_name(a: &Atom) -> String {
    let n = display(&a.key.0, &a.key.1);
    if a.negated {
        format!("!{n}")
    } else {
        n
    }
}

fn value_word(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "true",
        Some(false) => "false",
        None => "not known",
    }
}

fn cond_head(c: &Cond) -> String {
    let attr = match c.attr.as_str() {
        "guard" => "class guard".to_string(),
        a => format!("{a} =>"),
    };
    let mut s = format!("{attr} {}: {}", shown_expr(c), value_word(c.value));
    if let Some(n) = &c.note {
        s.push_str(&format!(" ({n})"));
    }
    s
}

/// `FILE:LINE` sites, at most 10, then how many more.
fn sites_list(sites: &[String]) -> String {
    if sites.len() <= 10 {
        return sites.join(", ");
    }
    let head: Vec<&str> = sites.iter().take(10).map(String::as_str).collect();
    format!("{} and {} more", head.join(", "), sites.len() - 10)
}

/// A condition's text: a string in quotes, a list or call as written.
pub fn shown_expr(c: &Cond) -> String {
    if c.literal {
        format!("\"{}\"", c.expr)
    } else {
        c.expr.clone()
    }
}

fn hard_words(facts: &Facts<'_>, tags: &[String]) -> String {
    let derived: Vec<&str> = tags
        .iter()
        .filter(|t| t.starts_with("derived-from"))
        .map(String::as_str)
        .collect();
    let mut s = format!("hard class of the host (profile {})", facts.profile);
    if !derived.is_empty() {
        s.push_str(&format!(", {}", derived.join(", ")));
    }
    s
}

fn site_of(facts: &Facts<'_>, ev: usize) -> String {
    facts.event(ev).map_or_else(String::new, |e| {
        format!("#{} by {}:{}", e.seq, e.file, e.line)
    })
}

/// Where a class came from, in words (the nested step is written by the caller).
fn origin_words(facts: &Facts<'_>, a: &Atom, o: &Origin) -> String {
    match o {
        Origin::Hard(t) => hard_words(facts, t),
        Origin::CommandLine => format!("defined on the command line (-D {})", a.key.1),
        Origin::Augments => "defined by the augments file (def.json)".into(),
        Origin::Set(_) => "defined by".into(),
        Origin::SeeAbove(seq) => format!("defined at #{seq} (explained above)"),
        Origin::NotFollowed(seq) => {
            if a.negated {
                format!("defined at #{seq}")
            } else {
                format!("defined at #{seq} (the chain is not followed further)")
            }
        }
        Origin::NotYet(None) => "not defined: never defined in this run".into(),
        Origin::NotYet(Some(l)) => {
            format!("not defined yet (defined later, at {})", site_of(facts, *l))
        }
        Origin::Cancelled(e) => format!("not defined: cancelled at {}", site_of(facts, *e)),
    }
}

fn write_step(w: &mut W, facts: &Facts<'_>, s: &Step, indent: usize) {
    write_step_as(w, facts, s, indent, "", 0);
}

/// A step whose first line starts with `label` (`2. `); the rest is indented `body` more.
fn write_step_as(w: &mut W, facts: &Facts<'_>, s: &Step, indent: usize, label: &str, body: usize) {
    w.line(indent, &format!("{label}{}", event_head(facts, s.event)));
    let indent = indent + body;
    let plain = facts
        .event(s.event)
        .is_some_and(|e| s.how == format!("{} promise", e.promise_type));
    if !plain && !s.how.is_empty() {
        w.line(indent + 2, &format!("how: {}", s.how));
    }
    if let Some(d) = &s.detail {
        w.line(indent + 2, d);
    }
    if s.conds.is_empty() {
        w.line(
            indent + 2,
            "no condition: it applies whenever its bundle is evaluated",
        );
    }
    for c in &s.conds {
        w.line(indent + 2, &cond_head(&c.cond));
        for (a, o) in &c.atoms {
            w.line(
                indent + 4,
                &format!("{}: {}", atom_name(a), origin_words(facts, a, o)),
            );
            if let Origin::Set(inner) = o {
                write_step(w, facts, inner, indent + 6);
            }
        }
    }
    if !s.earlier.is_empty() {
        w.line(
            indent + 2,
            "earlier evaluations of this promise did not define it:",
        );
        write_attempts(w, facts, &s.earlier, indent + 4);
    }
}

fn write_attempts(w: &mut W, facts: &Facts<'_>, attempts: &[Attempt], indent: usize) {
    for a in attempts {
        w.line(
            indent,
            &format!("{}: {}", events_list(facts, &a.events), a.text),
        );
    }
}

fn write_reach(w: &mut W, facts: &Facts<'_>, r: &Reach, indent: usize) {
    w.line(indent, &format!("never evaluated: {}", r.text));
    for c in &r.callers {
        let maybe = if c.maybe {
            " (its bundle name holds variables)"
        } else {
            ""
        };
        w.line(
            indent + 2,
            &format!(
                "{}  methods promise in bundle {}{maybe} could call it:",
                c.site, c.bundle
            ),
        );
        write_attempts(w, facts, &c.attempts, indent + 4);
        if let Some(sub) = &c.reach {
            write_reach(w, facts, sub, indent + 4);
        }
    }
}

/// When the last evaluation was in pass 3 and a class it needed was defined only afterwards: the
/// promise is not evaluated again (there is no fourth pass).
fn too_late(facts: &Facts<'_>, attempts: &[Attempt]) -> Option<String> {
    let a = attempts.last()?;
    let last = facts.event(*a.events.last()?)?;
    if last.stage != "pass" || last.pass != 3 {
        return None;
    }
    let late: Vec<String> = a
        .conds
        .iter()
        .flat_map(|c| c.classes.iter())
        .filter(|x| !x.negated)
        .filter_map(|x| match x.state {
            State::NotYet(Some(l)) => facts
                .event(l)
                .map(|e| format!("{} (defined at #{})", display(&x.key.0, &x.key.1), e.seq)),
            _ => None,
        })
        .collect();
    if late.is_empty() {
        return None;
    }
    Some(format!(
        "there is no pass 4: {} came after this promise's last evaluation (#{}, pass 3)",
        late.join(", "),
        last.seq
    ))
}

/// Classes that decided the candidates' conditions and were never defined in the run: the next
/// questions to ask.
fn never_defined(cands: &[CandidateReport<'_>]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in cands {
        for a in &c.attempts {
            for cond in &a.conds {
                for x in &cond.classes {
                    if !x.negated && x.state == State::NotYet(None) {
                        let n = display(&x.key.0, &x.key.1);
                        if !out.contains(&n) {
                            out.push(n);
                        }
                    }
                }
            }
        }
    }
    out
}

fn write_candidates(w: &mut W, facts: &Facts<'_>, cands: &[CandidateReport<'_>], what: &str) {
    let n = cands.len();
    w.line(
        0,
        &format!(
            "{n} promise{} could have {what}; none did:",
            if n == 1 { "" } else { "s" }
        ),
    );
    for (i, c) in cands.iter().enumerate() {
        w.blank();
        let p = &c.cand.promise;
        let written = if c.cand.via == Via::Module {
            p.promise.promiser.value.clone()
        } else {
            c.cand.written.clone()
        };
        w.line(
            0,
            &format!(
                "{}. {}  {} promise \"{}\"  (bundle {})",
                i + 1,
                p.site(),
                p.promise_type,
                super::steps::short(&p.promise.promiser.value),
                p.bundle_name()
            ),
        );
        let how = c.cand.via.describe(p.promise_type);
        if !matches!(c.cand.via, Via::ClassesPromise | Via::Assign) {
            w.line(3, &format!("how: {how}"));
        }
        if !c.cand.exact && c.cand.via != Via::Module {
            w.line(
                3,
                &format!("maybe: written \"{written}\", which could expand to it"),
            );
        }
        match &c.reach {
            Some(r) => write_reach(w, facts, r, 3),
            None => {
                w.line(
                    3,
                    &format!(
                        "evaluated {} time{}; none {what}:",
                        c.evaluations,
                        if c.evaluations == 1 { "" } else { "s" }
                    ),
                );
                write_attempts(w, facts, &c.attempts, 5);
                if let Some(t) = too_late(facts, &c.attempts) {
                    w.line(5, &t);
                }
            }
        }
    }
    let next = never_defined(cands);
    if !next.is_empty() {
        w.blank();
        let asks: Vec<String> = next.iter().map(|n| format!("--class {n}")).collect();
        w.line(
            0,
            &format!(
                "Never defined in this run, so the next question is why: {}",
                asks.join(", ")
            ),
        );
    }
}

fn class_text(w: &mut W, facts: &Facts<'_>, a: &ClassAnswer<'_>) {
    let name = display(&a.key.0, &a.key.1);
    match &a.source {
        Source::Hard(t) => {
            w.line(
                0,
                &format!("class {name}: DEFINED, {}", hard_words(facts, t)),
            );
            w.line(2, &run_line(facts));
            w.line(2, &format!("tags: {}", t.join(", ")));
            return;
        }
        Source::CommandLine => w.line(
            0,
            &format!("class {name}: DEFINED on the command line (-D {})", a.key.1),
        ),
        Source::Augments => w.line(
            0,
            &format!("class {name}: DEFINED by the augments file (def.json)"),
        ),
        Source::Policy => {
            let scope = match a.scope.as_str() {
                "namespace" => "namespace class: still defined at the end of the run".to_string(),
                "cancelled" => "cancelled later: not defined at the end of the run".to_string(),
                _ => match a.defined_by.as_ref().and_then(|s| facts.event(s.event)) {
                    Some(e) => format!(
                        "bundle-local to {}: gone when the bundle ended",
                        display_qualified(&e.bundle)
                    ),
                    None => "bundle-local".to_string(),
                },
            };
            w.line(0, &format!("class {name}: DEFINED ({scope})"));
        }
        Source::None => w.line(
            0,
            &format!("class {name}: NOT DEFINED on host {}", facts.hostname),
        ),
    }
    w.line(2, &run_line(facts));
    if let Some(s) = &a.defined_by {
        w.blank();
        w.line(0, &format!("{name} was defined by:"));
        write_step(w, facts, s, 2);
    }
    if !a.cancelled_by.is_empty() {
        w.blank();
        w.line(0, &format!("{name} was cancelled by:"));
        // each cancelling promise once, with its evaluations
        let mut sites: Vec<(String, Vec<usize>)> = Vec::new();
        for ev in &a.cancelled_by {
            let Some(e) = facts.event(*ev) else { continue };
            let site = format!("{}:{}", e.file, e.line);
            match sites.iter_mut().find(|(s, _)| *s == site) {
                Some((_, v)) => v.push(*ev),
                None => sites.push((site, vec![*ev])),
            }
        }
        for (_, evs) in &sites {
            let Some(first) = evs.first() else { continue };
            w.line(2, &event_head(facts, *first));
            w.line(
                4,
                &format!("how: {}", super::steps::how_cancel(facts, *first, &a.key.1)),
            );
            if evs.len() > 1 {
                w.line(4, &format!("cancelled at {}", events_list(facts, evs)));
            }
        }
        w.blank();
        let changes = facts.changes(&a.key);
        let items: Vec<String> = changes
            .iter()
            .filter_map(|c| {
                facts.event(c.event).map(|e| {
                    format!(
                        "{} #{} {}",
                        if c.set { "set" } else { "cancelled" },
                        e.seq,
                        when(e)
                    )
                })
            })
            .collect();
        let shown = if items.len() > 8 {
            let mut v: Vec<String> = items.iter().take(4).cloned().collect();
            v.push("…".into());
            v.extend(items.iter().skip(items.len() - 3).cloned());
            v
        } else {
            items.clone()
        };
        w.line(
            0,
            &format!("history ({} changes): {}", items.len(), shown.join(", ")),
        );
    } else if !a.again.is_empty() {
        w.blank();
        w.line(
            0,
            &format!(
                "defined again at {} (another activation of its bundle)",
                events_list(facts, &a.again)
            ),
        );
    }
    if a.source == Source::None {
        w.blank();
        if crate::graph::known::is_known(&name) {
            w.line(
                0,
                &format!(
                    "{name} has the form of a class cf-agent defines itself on some hosts (a hard class: OS, architecture, time, address…, or an agent class such as am_policy_hub); the host of profile {} does not have it.",
                    facts.profile
                ),
            );
        }
        if a.candidates.is_empty() {
            w.line(
                0,
                "No promise of the policy could define it: no classes promise, classes body or module names it.",
            );
            if !a.used_by.is_empty() {
                w.line(
                    0,
                    &format!(
                        "It is used by the conditions of: {}",
                        sites_list(&a.used_by)
                    ),
                );
            }
        } else {
            write_candidates(w, facts, &a.candidates, "defined it");
        }
    }
}

fn var_text(w: &mut W, facts: &Facts<'_>, a: &VarAnswer<'_>) {
    let name = if a.scope.is_empty() {
        a.lval.clone()
    } else {
        super::candidates::var_display(&a.ns, &a.scope, &a.lval)
    };
    match (&a.value, a.source.as_str()) {
        (Some(v), src) => {
            let ty = a.value_type.as_deref().unwrap_or("");
            let whence = match src {
                "agent" => format!(
                    ", set by the agent from the host (profile {})",
                    facts.profile
                ),
                "control" => ", from a control body".to_string(),
                "parameter" => format!(
                    ", parameter of bundle {}",
                    a.parameter_of.as_deref().unwrap_or("?")
                ),
                _ => String::new(),
            };
            w.line(
                0,
                &format!(
                    "variable {name}: SET to \"{}\" ({ty}){whence}",
                    super::steps::short(v.trim_start())
                ),
            );
        }
        (None, "none") => w.line(
            0,
            &format!("variable {name}: NOT SET on host {}", facts.hostname),
        ),
        (None, _) => w.line(
            0,
            &format!("variable {name}: set during the run, not set at its end"),
        ),
    }
    w.line(2, &run_line(facts));
    if let Some(b) = &a.parameter_of {
        if a.value.is_none() {
            w.line(
                2,
                &format!(
                    "{} is a parameter of bundle {b}: set by each call of the bundle, removed when the call returns",
                    a.lval
                ),
            );
        }
    }
    let n = a.assignments.len();
    if n > 0 {
        w.blank();
        if n == 1 {
            w.line(0, &format!("{name} was set by:"));
        } else {
            w.line(
                0,
                &format!("{name} was changed {n} times, in this order (the last one wins):"),
            );
        }
        let mut shown: Vec<(String, usize)> = Vec::new();
        for (i, s) in a.assignments.iter().enumerate() {
            if n == 1 {
                write_step(w, facts, s, 2);
                continue;
            }
            let label = format!("{}. ", i + 1);
            let last = if i + 1 == n {
                "last, it gave the value: "
            } else {
                ""
            };
            let site = facts
                .event(s.event)
                .map(|e| format!("{}:{}", e.file, e.line))
                .unwrap_or_default();
            match shown.iter().find(|(x, _)| *x == site) {
                // the same promise again: its conditions are those shown the first time
                Some((_, k)) => {
                    w.line(2, &format!("{label}{last}{}", event_head(facts, s.event)));
                    w.line(
                        2 + label.len(),
                        &format!("(the same promise as {k}. above, conditions as there)"),
                    );
                }
                None => {
                    shown.push((site, i + 1));
                    write_step_as(w, facts, s, 2, &format!("{label}{last}"), label.len());
                }
            }
        }
        if !a.same_value.is_empty() {
            w.blank();
            w.line(
                0,
                &format!(
                    "re-evaluated without changing the value at {}",
                    events_list(facts, &a.same_value)
                ),
            );
        }
    }
    if a.source == "untraced" {
        w.blank();
        w.line(
            0,
            "No traced evaluation changed it: it was set before them, by the agent's preliminary evaluation of every bundle (which the trace does not record).",
        );
        if !a.candidates.is_empty() {
            w.line(
                0,
                "The promises that can set it, and their traced evaluations:",
            );
            for c in &a.candidates {
                let p = &c.cand.promise;
                w.line(
                    2,
                    &format!(
                        "{}  {} promise \"{}\"  (bundle {})",
                        p.site(),
                        p.promise_type,
                        super::steps::short(&p.promise.promiser.value),
                        p.bundle_name()
                    ),
                );
                match &c.reach {
                    Some(r) => write_reach(w, facts, r, 4),
                    None => write_attempts(w, facts, &c.attempts, 4),
                }
            }
        }
    }
    if a.source == "none" {
        w.blank();
        if a.candidates.is_empty() {
            w.line(
                0,
                "No promise of the policy could set it: no vars, defaults or meta promise, useresult or module names it.",
            );
            if !a.used_by.is_empty() {
                w.line(0, &format!("It is used by: {}", sites_list(&a.used_by)));
            }
        } else {
            write_candidates(w, facts, &a.candidates, "set it");
        }
    }
}

fn promise_text(w: &mut W, facts: &Facts<'_>, a: &PromiseAnswer<'_>) {
    let p = &a.promise;
    w.line(
        0,
        &format!(
            "promise {}  {} promise \"{}\"  (bundle {}, {} bundle)",
            p.site(),
            p.promise_type,
            super::steps::short(&p.promise.promiser.value),
            p.bundle_name(),
            p.bundle.bundle.bundle_type
        ),
    );
    w.line(2, &run_line(facts));
    if let Some(h) = p.scalar("handle") {
        w.line(2, &format!("handle: {h}"));
    }
    let conds = super::cond::conditions(p);
    if conds.is_empty() {
        w.line(2, "conditions: none");
    } else {
        let c: Vec<String> = conds
            .iter()
            .map(|c| match c.attr.as_str() {
                "guard" => format!("class guard \"{}\"", c.text),
                a => match c.rval {
                    Some(
                        crate::syntax::ast::Rval::List(..) | crate::syntax::ast::Rval::Call(_),
                    ) => {
                        format!("{a} => {}", c.text)
                    }
                    _ => format!("{a} => \"{}\"", c.text),
                },
            })
            .collect();
        w.line(2, &format!("conditions: {}", c.join("; ")));
    }
    if let Some(r) = &a.reach {
        w.blank();
        write_reach(w, facts, r, 0);
        return;
    }
    // a summary: outcomes and skip reasons with counts
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for (ev, _) in &a.evaluations {
        if let Some(e) = facts.event(*ev) {
            let k = match (&e.skip, &e.outcome) {
                (Some(s), Some(o)) => format!("{o} ({s})"),
                (Some(s), None) => format!("skipped: {s}"),
                (None, Some(o)) => o.clone(),
                (None, None) => "nothing".into(),
            };
            *counts.entry(k).or_insert(0) += 1;
        }
    }
    let summary: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let n = a.evaluations.len();
    w.line(
        2,
        &format!(
            "evaluated {n} time{}: {}",
            if n == 1 { "" } else { "s" },
            summary.join(", ")
        ),
    );
    w.blank();
    for (ev, at) in &a.evaluations {
        let Some(e) = facts.event(*ev) else { continue };
        let mut head = format!("#{} {}", e.seq, when(e));
        if e.call_path.len() > 1 {
            let path: Vec<String> = e.call_path.iter().map(|c| display_qualified(c)).collect();
            head.push_str(&format!(", via {}", path.join(" > ")));
        }
        let what = match (&e.skip, &e.outcome) {
            (None, Some(_)) => at.text.clone(),
            (None, None) => "no outcome".into(),
            (Some(_), Some(o)) => format!("{o}: {}", at.text),
            (Some(_), None) => format!("skipped: {}", at.text),
        };
        let shown = if e.guard_value {
            format!(
                " \"{}\"",
                super::steps::short(&super::steps::relative_in(&e.promiser))
            )
        } else {
            String::new()
        };
        w.line(0, &format!("{head}:{shown} {what}"));
        if !e.classes_set.is_empty() {
            w.line(4, &format!("+classes {}", e.classes_set.join(", ")));
        }
        if !e.classes_cancelled.is_empty() {
            w.line(4, &format!("-classes {}", e.classes_cancelled.join(", ")));
        }
        if !e.vars_set.is_empty() {
            let v: Vec<String> = e.vars_set.iter().map(|x| display_qualified(x)).collect();
            w.line(4, &format!("vars {}", v.join(", ")));
        }
    }
}

/// The answers as text.
pub fn text(facts: &Facts<'_>, _q: &Question, answers: &Answers<'_>) -> String {
    let mut w = W::default();
    let many = match answers {
        Answers::Class(v) => v.len(),
        Answers::Var(v) => v.len(),
        Answers::Promise(v) => v.len(),
    };
    if many > 1 {
        let what = match answers {
            Answers::Class(_) => "classes",
            Answers::Var(_) => "variables",
            Answers::Promise(_) => "promises",
        };
        w.line(
            0,
            &format!("{many} {what} answer to this name; each in turn."),
        );
        w.blank();
    }
    match answers {
        Answers::Class(v) => {
            for (i, a) in v.iter().enumerate() {
                if i > 0 {
                    w.blank();
                }
                class_text(&mut w, facts, a);
            }
        }
        Answers::Var(v) => {
            for (i, a) in v.iter().enumerate() {
                if i > 0 {
                    w.blank();
                }
                var_text(&mut w, facts, a);
            }
        }
        Answers::Promise(v) => {
            for (i, a) in v.iter().enumerate() {
                if i > 0 {
                    w.blank();
                }
                promise_text(&mut w, facts, a);
            }
        }
    }
    w.out
}

// ---- JSON ----

fn event_json(facts: &Facts<'_>, ev: usize) -> Value {
    facts.event(ev).map_or(Value::Null, |e| e.to_json())
}

fn atom_json(facts: &Facts<'_>, a: &Atom, origin: Option<&Origin>) -> Value {
    let seq_of = |ev: usize| facts.event(ev).map(|e| e.seq);
    let origin = match origin {
        Some(o) => origin_json(facts, o),
        // where it stood, without following the chain
        None => match &a.state {
            State::Hard(t) => json!({"kind": "hard", "profile": facts.profile, "tags": t}),
            State::CommandLine => json!({"kind": "command_line"}),
            State::Augments => json!({"kind": "augments"}),
            State::Set(e) => json!({"kind": "promise", "seq": seq_of(*e)}),
            State::NotYet(l) => {
                json!({"kind": "not_yet", "defined_later_at": l.and_then(seq_of)})
            }
            State::Cancelled(e) => json!({"kind": "cancelled", "seq": seq_of(*e)}),
        },
    };
    json!({
        "class": display(&a.key.0, &a.key.1),
        "written": a.written,
        "negated": a.negated,
        "defined": a.state.defined(),
        "origin": origin,
    })
}

fn origin_json(facts: &Facts<'_>, o: &Origin) -> Value {
    let seq_of = |ev: usize| facts.event(ev).map(|e| e.seq);
    match o {
        Origin::Hard(t) => json!({"kind": "hard", "profile": facts.profile, "tags": t}),
        Origin::CommandLine => json!({"kind": "command_line"}),
        Origin::Augments => json!({"kind": "augments"}),
        Origin::Set(s) => json!({"kind": "promise", "step": step_json(facts, s)}),
        Origin::SeeAbove(seq) => json!({"kind": "explained_above", "seq": seq}),
        Origin::NotFollowed(seq) => json!({"kind": "not_followed", "seq": seq}),
        Origin::NotYet(l) => json!({"kind": "not_yet", "defined_later_at": l.and_then(seq_of)}),
        Origin::Cancelled(e) => json!({"kind": "cancelled", "seq": seq_of(*e)}),
    }
}

fn cond_json(facts: &Facts<'_>, c: &Cond, origins: Option<&[(Atom, Origin)]>) -> Value {
    let classes: Vec<Value> = match origins {
        Some(o) => o
            .iter()
            .map(|(a, or)| atom_json(facts, a, Some(or)))
            .collect(),
        None => c
            .classes
            .iter()
            .map(|a| atom_json(facts, a, None))
            .collect(),
    };
    json!({
        "attribute": c.attr,
        "expression": c.expr,
        "value": c.value,
        "note": c.note,
        "classes": classes,
    })
}

fn attempt_json(facts: &Facts<'_>, a: &Attempt) -> Value {
    let seqs: Vec<usize> = a
        .events
        .iter()
        .filter_map(|i| facts.event(*i).map(|e| e.seq))
        .collect();
    json!({
        "seqs": seqs,
        "verdict": a.verdict,
        "text": a.text,
        "conditions": a.conds.iter().map(|c| cond_json(facts, c, None)).collect::<Vec<_>>(),
    })
}

fn step_json(facts: &Facts<'_>, s: &Step) -> Value {
    let site = facts
        .event(s.event)
        .map(|e| format!("{}:{}", e.file, e.line));
    json!({
        "site": site,
        "event": event_json(facts, s.event),
        "how": s.how,
        "detail": s.detail,
        "conditions": s
            .conds
            .iter()
            .map(|c| cond_json(facts, &c.cond, Some(&c.atoms)))
            .collect::<Vec<_>>(),
        "earlier": s.earlier.iter().map(|a| attempt_json(facts, a)).collect::<Vec<_>>(),
    })
}

fn reach_json(facts: &Facts<'_>, r: &Reach) -> Value {
    json!({
        "bundle": r.bundle,
        "bundle_type": r.bundle_type,
        "in_sequence": r.in_sequence,
        "ran": r.ran,
        "text": r.text,
        "callers": r.callers.iter().map(|c| json!({
            "site": c.site,
            "bundle": c.bundle,
            "maybe": c.maybe,
            "attempts": c.attempts.iter().map(|a| attempt_json(facts, a)).collect::<Vec<_>>(),
            "reach": c.reach.as_ref().map(|x| reach_json(facts, x)),
        })).collect::<Vec<_>>(),
    })
}

fn candidate_json(facts: &Facts<'_>, c: &CandidateReport<'_>) -> Value {
    let p = &c.cand.promise;
    json!({
        "site": p.site(),
        "file": p.file,
        "line": p.line,
        "bundle": p.bundle_name(),
        "promise_type": p.promise_type,
        "promiser": p.promise.promiser.value,
        "via": c.cand.via.code(),
        "how": c.cand.via.describe(p.promise_type),
        "written": c.cand.written,
        "exact": c.cand.exact,
        "evaluations": c.evaluations,
        "verdict": c.verdict(),
        "attempts": c.attempts.iter().map(|a| attempt_json(facts, a)).collect::<Vec<_>>(),
        "reach": c.reach.as_ref().map(|r| reach_json(facts, r)),
    })
}

fn class_json(facts: &Facts<'_>, a: &ClassAnswer<'_>) -> Value {
    let tags = match &a.source {
        Source::Hard(t) => Some(t.clone()),
        _ => None,
    };
    json!({
        "kind": "class",
        "class": display(&a.key.0, &a.key.1),
        "namespace": a.key.0,
        "name": a.key.1,
        "defined": a.source != Source::None,
        "source": a.source.code(),
        "hard_tags": tags,
        "at_end": a.at_end,
        "scope": a.scope,
        "defined_by": a.defined_by.as_ref().map(|s| step_json(facts, s)),
        "defined_again": a.again.iter().map(|e| event_json(facts, *e)).collect::<Vec<_>>(),
        "cancelled_by": a.cancelled_by.iter().map(|e| event_json(facts, *e)).collect::<Vec<_>>(),
        "candidates": a.candidates.iter().map(|c| candidate_json(facts, c)).collect::<Vec<_>>(),
        "used_by": a.used_by,
        "hard_class_form": a.source == Source::None && crate::graph::known::is_known(&display(&a.key.0, &a.key.1)),
    })
}

fn var_json(facts: &Facts<'_>, a: &VarAnswer<'_>) -> Value {
    json!({
        "kind": "var",
        "var": a.qualified,
        "namespace": a.ns,
        "bundle": a.scope,
        "name": a.lval,
        "set": a.source != "none",
        "source": a.source,
        "value": a.value,
        "type": a.value_type,
        "parameter_of": a.parameter_of,
        "assignments": a.assignments.iter().map(|s| step_json(facts, s)).collect::<Vec<_>>(),
        "same_value": a.same_value.iter().filter_map(|e| facts.event(*e).map(|x| x.seq)).collect::<Vec<_>>(),
        "candidates": a.candidates.iter().map(|c| candidate_json(facts, c)).collect::<Vec<_>>(),
        "used_by": a.used_by,
    })
}

fn promise_json(facts: &Facts<'_>, a: &PromiseAnswer<'_>) -> Value {
    let p = &a.promise;
    let conds: Vec<Value> = super::cond::conditions(p)
        .iter()
        .map(|c| json!({"attribute": c.attr, "expression": c.text}))
        .collect();
    json!({
        "kind": "promise",
        "site": p.site(),
        "file": p.file,
        "line": p.line,
        "bundle": p.bundle_name(),
        "bundle_type": p.bundle.bundle.bundle_type,
        "promise_type": p.promise_type,
        "promiser": p.promise.promiser.value,
        "handle": p.scalar("handle"),
        "conditions": conds,
        "evaluations": a.evaluations.iter().map(|(ev, at)| json!({
            "event": event_json(facts, *ev),
            "verdict": at.verdict,
            "text": at.text,
            "conditions": at.conds.iter().map(|c| cond_json(facts, c, None)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "reach": a.reach.as_ref().map(|r| reach_json(facts, r)),
    })
}

/// The answers as one JSON document.
pub fn json(facts: &Facts<'_>, q: &Question, answers: &Answers<'_>) -> Value {
    let list: Vec<Value> = match answers {
        Answers::Class(v) => v.iter().map(|a| class_json(facts, a)).collect(),
        Answers::Var(v) => v.iter().map(|a| var_json(facts, a)).collect(),
        Answers::Promise(v) => v.iter().map(|a| promise_json(facts, a)).collect(),
    };
    json!({
        "version": EXPLAIN_VERSION,
        "question": {"kind": q.kind(), "asked": q.asked()},
        "run": {
            "policy": facts.policy,
            "profile": facts.profile,
            "host": facts.hostname,
            "defines": facts.defines,
            "bundlesequence": facts.sequence,
            "exit_code": facts.code,
        },
        "answers": list,
    })
}
