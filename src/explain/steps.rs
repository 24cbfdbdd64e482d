//! One evaluation explained: how it set a class or a variable (classes promise, classes body,
//! module, hENC merge, assignment), its conditions with the classes they needed, and the chain back
//! (each of those classes explained in turn, down to hard classes and `-D`); and why an evaluation
//! did not set it (guard or `if` false and which class made it so, `unless`, unresolved promiser,
//! another outcome, …).

use std::collections::BTreeSet;

use super::candidates::{body_classes, is_module};
use super::cond::{self, Atom, Cond};
use super::facts::{ns_of, ClassKey, Facts, PromiseAt, State};
use crate::expr::canonify;

/// Deepest chain of classes followed back from the answer.
pub const MAX_DEPTH: usize = 12;

/// What an evaluation is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Class(ClassKey),
    /// `ns:scope.lval`, as the trace writes it.
    Var(String),
    /// Nothing in particular (a promise's own evaluations, a methods call).
    None,
}

/// An evaluation that set (or cancelled) what was asked about, with the reasons it could.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Index of the event in the trace.
    pub event: usize,
    /// How it set it: `classes promise`, `classes body … (promise_repaired)`, `module output`, ….
    pub how: String,
    /// More on how (the ENC file and line of an hENC class, the module's program).
    pub detail: Option<String>,
    /// Its conditions, with the classes they needed and where each came from.
    pub conds: Vec<CondWhy>,
    /// Earlier evaluations of the same promise that did not set it, and why.
    pub earlier: Vec<Attempt>,
}

/// A condition of an evaluation and where its classes came from.
#[derive(Debug, Clone, PartialEq)]
pub struct CondWhy {
    pub cond: Cond,
    pub atoms: Vec<(Atom, Origin)>,
}

/// Where a class a condition needed came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A hard class of the host: its tags.
    Hard(Vec<String>),
    CommandLine,
    Augments,
    /// Set by this evaluation (the chain goes on).
    Set(Box<Step>),
    /// Set by an evaluation already explained in this answer (trace seq).
    SeeAbove(usize),
    /// Set by an evaluation (trace seq); the chain is not followed further (too deep).
    NotFollowed(usize),
    /// Not defined at that moment; the event that defined it later, if any.
    NotYet(Option<usize>),
    /// Cancelled by that event before.
    Cancelled(usize),
}

/// Evaluations of a promise that did not do what was asked, grouped when consecutive ones failed
/// for the same reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// Indexes of the events in the trace.
    pub events: Vec<usize>,
    /// `guard_false`, `if_false`, `unless_true`, `condition_false`, `unresolved`, `depends_on`,
    /// `outcome`, `other_name`, `module_silent`, `same_value`, `set`, or the trace's skip reason.
    pub verdict: String,
    /// The reason in words.
    pub text: String,
    /// The conditions involved, at the first of the events.
    pub conds: Vec<Cond>,
}

/// State of a chain being built: the classes already explained and the depth.
#[derive(Debug, Default)]
pub struct Chain {
    seen: BTreeSet<ClassKey>,
    depth: usize,
}

impl Chain {
    pub fn new() -> Chain {
        Chain::default()
    }

    /// Marks a class as explained (by the answer's main part).
    pub fn mark(&mut self, key: &ClassKey) {
        self.seen.insert(key.clone());
    }
}

/// Trace skip reasons in words.
pub fn skip_words(skip: &str) -> &'static str {
    match skip {
        "guard" => "its class guard was false",
        "if" => "its if/ifvarclass condition was false",
        "unless" => "its unless condition was true (or could not be evaluated before pass 3)",
        "depends_on" => "a promise it depends_on had not been kept or repaired yet",
        "already_defined" => "the class was already defined",
        "already_done" => "an identical promise had been actuated already in this run",
        "unresolved" => "its promiser holds a variable that could not be resolved (yet)",
        "deferred" => "deferred to pass 3 (unresolved variables)",
        "not_simulated" => {
            "cfsim does not simulate it (its promise type, or a command the host profile has no result for)"
        }
        "undefined_type" => "its promise type is not defined",
        "failed_function" => "a function call in it failed",
        "constant" => "the variable is policy => \"constant\" and kept its existing value",
        "missing_bundle" => "the bundle it calls does not exist",
        "no_value" => "its value expanded to nothing",
        "illegal_identifier" => "the agent rejects the variable name",
        "type_mismatch" => "the agent rejects the value for its type",
        "irreconcilable" => "its class attributes are irreconcilable",
        "preliminary" => "not evaluated in pre-evaluation",
        "too_large" => "the value is over cfsim's size limits",
        _ => "skipped",
    }
}

/// `promise_repaired` etc. for a trace outcome.
fn outcome_attrs(outcome: &str) -> &'static [&'static str] {
    match outcome {
        "kept" => &["promise_kept"],
        "repaired" => &["promise_repaired"],
        "failed" => &["repair_failed", "repair_denied", "repair_timeout"],
        _ => &[],
    }
}

/// The value the trace gives a condition at an event, when it says.
fn known_value(
    attr: &str,
    class_guard: bool,
    skip: Option<&str>,
    guard_value: bool,
    classes_set: bool,
) -> Option<bool> {
    match (attr, skip) {
        ("guard", _) if class_guard => Some(guard_value),
        // a quoted guard with variables is checked with `if`
        ("guard", Some("guard" | "if")) => None,
        ("guard", _) => Some(true),
        (_, Some("guard")) => None,
        ("if" | "ifvarclass", Some("if")) => None,
        ("unless", Some("unless")) => Some(true),
        ("if" | "ifvarclass", None | Some("unless" | "depends_on" | "already_done")) => Some(true),
        ("unless", None | Some("depends_on" | "already_done")) => Some(false),
        ("expression" | "and" | "or" | "xor" | "not", None) => Some(classes_set),
        _ => None,
    }
}

/// The conditions of promise `p` at event `ev` (values as the trace says, else evaluated).
pub fn conds_at(facts: &Facts<'_>, p: &PromiseAt<'_>, ev: usize) -> Vec<Cond> {
    let Some(e) = facts.event(ev) else {
        return Vec::new();
    };
    let ns = ns_of(&e.bundle);
    let set_any = !e.classes_set.is_empty();
    cond::conditions(p)
        .iter()
        .map(|w| {
            let class_guard = w.attr == "guard" && w.rval.is_none() && w.text == e.guard;
            let known = known_value(
                &w.attr,
                class_guard,
                e.skip.as_deref(),
                e.guard_value,
                set_any,
            );
            cond::evaluate(facts, w, ns, Some(ev), known)
        })
        .collect()
}

/// How event `ev` of promise `p` set class `name` (not canonified away).
fn how_class(
    facts: &Facts<'_>,
    p: &PromiseAt<'_>,
    ev: usize,
    name: &str,
) -> (String, Option<String>) {
    let Some(e) = facts.event(ev) else {
        return (String::new(), None);
    };
    if p.promise_type == "classes" && canonify(&e.promiser) == name {
        return ("classes promise".into(), None);
    }
    if let Some(rv) = p.constraint("classes") {
        let attrs = e.outcome.as_deref().map_or(&[][..], outcome_attrs);
        for (attr, class) in body_classes(facts, rv, &p.bundle.ns) {
            let literal = !crate::graph::model::is_dynamic(&class);
            let hit = if literal {
                canonify(&class) == name
            } else {
                super::candidates::names(&class, name, true).is_some()
            };
            if hit && attrs.contains(&attr.as_str()) {
                return (
                    format!(
                        "classes body: {attr} => \"{class}\" of classes => {}",
                        crate::graph::model::written(rv)
                    ),
                    Some(format!(
                        "the promise's outcome was {}",
                        e.outcome.as_deref().unwrap_or("?")
                    )),
                );
            }
        }
    }
    if is_module(p) {
        return (
            "module output (commands with module => \"true\")".into(),
            henc_origin(facts, &e.promiser, name, false),
        );
    }
    if p.promise_type == "classes" {
        return ("classes promise (select_class / dist)".into(), None);
    }
    if p.promise_type == "methods" {
        return ("methods promise (the bundle it called)".into(), None);
    }
    (format!("{} promise", p.promise_type), None)
}

/// How event `ev` cancelled class `name`: a classes body's `cancel_*`, or a module's `-name`.
pub fn how_cancel(facts: &Facts<'_>, ev: usize, name: &str) -> String {
    let Some(e) = facts.event(ev) else {
        return String::new();
    };
    let Some(p) = facts.promise_of(e) else {
        return String::new();
    };
    if let Some(rv) = p.constraint("classes") {
        for (attr, class) in super::candidates::body_attr_classes(
            facts,
            rv,
            &p.bundle.ns,
            super::candidates::CANCEL_ATTRS,
        ) {
            if super::candidates::names(&class, name, true).is_some() {
                return format!(
                    "classes body: {attr} => \"{class}\" of classes => {} (the promise's outcome was {})",
                    crate::graph::model::written(rv),
                    e.outcome.as_deref().unwrap_or("?")
                );
            }
        }
    }
    if is_module(&p) {
        return format!("module output (-{name})");
    }
    format!("{} promise", p.promise_type)
}

/// How event `ev` of promise `p` set variable `var`.
fn how_var(facts: &Facts<'_>, p: &PromiseAt<'_>, ev: usize, var: &str) -> (String, Option<String>) {
    let Some(e) = facts.event(ev) else {
        return (String::new(), None);
    };
    if is_module(p) {
        let lval = var.rsplit_once('.').map_or(var, |(_, l)| l);
        return (
            "module output (commands with module => \"true\")".into(),
            henc_origin(facts, &e.promiser, lval, true),
        );
    }
    match p.promise_type {
        "methods" => ("useresult of a methods promise".into(), None),
        t => {
            let attr = p
                .promise
                .constraints
                .iter()
                .find(|c| {
                    matches!(
                        c.lval.as_str(),
                        "string" | "int" | "real" | "slist" | "ilist" | "rlist" | "data" | "policy"
                    )
                })
                .map(|c| {
                    format!(
                        " ({} => {})",
                        c.lval,
                        short(&crate::graph::model::written(&c.rval))
                    )
                });
            (format!("{t} promise{}", attr.unwrap_or_default()), None)
        }
    }
}

/// At most 80 characters of a text.
pub fn short(s: &str) -> String {
    let one = s.replace('\n', "\\n");
    if one.chars().count() <= 80 {
        one
    } else {
        let cut: String = one.chars().take(77).collect();
        format!("{cut}...")
    }
}

/// For a module run that is an hENC merge (a `cfsim henc` wrapper or a declared `--henc-module`):
/// the ENC file and line that decided a class or a variable.
fn henc_origin(facts: &Facts<'_>, command: &str, name: &str, var: bool) -> Option<String> {
    let args = henc_args(facts, command)?;
    let sources = crate::henc::load(&args, &crate::henc::FsReader);
    let merged = crate::henc::merge(&sources, true);
    let key = crate::henc::merge::NameKey::new(name.as_bytes());
    let origin = if var {
        merged.vars.get(&key).map(|v| v.origin)
    } else {
        match merged.classes.get(&key) {
            Some(c) => match c.origin {
                Some(o) => Some(o),
                None => return Some("hENC merge: set at the end of every merge".into()),
            },
            None => None,
        }
    }?;
    let src = sources.get(origin.file as usize)?;
    Some(format!(
        "hENC merge: decided by ENC file {}:{}",
        relative(&src.name),
        origin.line
    ))
}

/// The ENC files of a module command that is an hENC merge (a `cfsim henc` wrapper or a declared
/// `--henc-module`), as cfsim answers it natively.
fn henc_args(facts: &Facts<'_>, command: &str) -> Option<Vec<String>> {
    use crate::henc::EncReader;
    let (prog, args) = crate::henc::module_argv(command)?;
    let abs = |p: &str| std::path::absolute(p).unwrap_or_else(|_| p.into());
    let declared = facts
        .engine
        .opts
        .henc_modules
        .iter()
        .any(|m| abs(m) == abs(&prog));
    let wrapper = crate::henc::FsReader
        .read(&prog)
        .is_some_and(|t| crate::henc::is_henc_wrapper(&String::from_utf8_lossy(&t)));
    (declared || wrapper).then_some(args)
}

/// A text with the paths under the working directory made relative (for promisers holding
/// absolute paths built from `$(this.promise_dirname)`).
pub fn relative_in(text: &str) -> String {
    match std::env::current_dir() {
        Ok(cwd) if cwd.parent().is_some() => text.replace(&format!("{}/", cwd.display()), ""),
        _ => text.to_string(),
    }
}

/// A path relative to the working directory when it is under it.
pub fn relative(path: &str) -> String {
    let Ok(cwd) = std::env::current_dir() else {
        return path.to_string();
    };
    let cwd = cwd.display().to_string();
    path.strip_prefix(&format!("{cwd}/"))
        .map_or_else(|| path.to_string(), str::to_string)
}

/// Explains event `ev` as the one that set `target`, following the classes its conditions needed.
pub fn step(facts: &Facts<'_>, ev: usize, target: &Target, chain: &mut Chain) -> Step {
    let p = facts.event(ev).and_then(|e| facts.promise_of(e));
    let Some(p) = p else {
        return Step {
            event: ev,
            how: "an evaluation the policy no longer shows".into(),
            detail: None,
            conds: Vec::new(),
            earlier: Vec::new(),
        };
    };
    let (how, detail) = match target {
        Target::Class(k) => how_class(facts, &p, ev, &k.1),
        Target::Var(v) => how_var(facts, &p, ev, v),
        Target::None => (format!("{} promise", p.promise_type), None),
    };
    let conds = conds_at(facts, &p, ev);
    chain.depth += 1;
    let conds = conds
        .into_iter()
        .map(|c| {
            let atoms = c
                .classes
                .iter()
                .map(|a| (a.clone(), origin(facts, a, chain)))
                .collect();
            CondWhy { cond: c, atoms }
        })
        .collect();
    chain.depth -= 1;
    let earlier = match target {
        Target::Class(_) => {
            let before: Vec<usize> = facts
                .evaluations(&p)
                .iter()
                .copied()
                .filter(|i| *i < ev)
                .collect();
            attempts(facts, &p, &before, target)
        }
        _ => Vec::new(),
    };
    Step {
        event: ev,
        how,
        detail,
        conds,
        earlier,
    }
}

/// Where a class a condition needed came from, following the chain.
fn origin(facts: &Facts<'_>, a: &Atom, chain: &mut Chain) -> Origin {
    match &a.state {
        State::Hard(t) => Origin::Hard(t.clone()),
        State::CommandLine => Origin::CommandLine,
        State::Augments => Origin::Augments,
        State::Cancelled(e) => Origin::Cancelled(*e),
        State::NotYet(l) => Origin::NotYet(*l),
        State::Set(e) => {
            let seq = facts.event(*e).map_or(0, |x| x.seq);
            if a.negated {
                // `!c` with c defined: nothing more to follow here
                return Origin::NotFollowed(seq);
            }
            if chain.seen.contains(&a.key) {
                return Origin::SeeAbove(seq);
            }
            if chain.depth >= MAX_DEPTH {
                return Origin::NotFollowed(seq);
            }
            chain.seen.insert(a.key.clone());
            Origin::Set(Box::new(step(
                facts,
                *e,
                &Target::Class(a.key.clone()),
                chain,
            )))
        }
    }
}

/// Why each of `events` (evaluations of `p`) did not set `target`, consecutive ones with the same
/// reason grouped.
pub fn attempts(
    facts: &Facts<'_>,
    p: &PromiseAt<'_>,
    events: &[usize],
    target: &Target,
) -> Vec<Attempt> {
    let mut out: Vec<Attempt> = Vec::new();
    for &ev in events {
        let a = attempt(facts, p, ev, target);
        match out.last_mut() {
            Some(last) if last.verdict == a.verdict && last.text == a.text => last.events.push(ev),
            // evaluations that named other classes: one line listing the names
            Some(last) if last.verdict == "other_name" && a.verdict == "other_name" => {
                last.events.push(ev)
            }
            _ => out.push(a),
        }
    }
    if let Target::Class(k) = target {
        for a in out
            .iter_mut()
            .filter(|a| a.verdict == "other_name" && a.events.len() > 1)
        {
            let mut names: Vec<String> = Vec::new();
            let mut add = |n: String| {
                if !names.contains(&n) {
                    names.push(n);
                }
            };
            for e in a.events.iter().filter_map(|i| facts.event(*i)) {
                if p.promise_type == "classes" {
                    add(format!("\"{}\"", short(&relative_in(&e.promiser))));
                } else {
                    e.classes_set.iter().for_each(|c| add(c.clone()));
                }
            }
            a.text = if p.promise_type == "classes" {
                format!(
                    "its promiser expanded to {}, never to {}",
                    names.join(", "),
                    k.1
                )
            } else {
                format!("its classes body set {}, never {}", names.join(", "), k.1)
            };
        }
    }
    out
}

/// Classes a condition named that were not defined (or defined under `!`), in words.
pub fn blame_words(facts: &Facts<'_>, c: &Cond) -> String {
    let mut parts = Vec::new();
    for a in &c.classes {
        let defined = a.state.defined();
        // the classes that made it false: undefined ones, or defined ones written under `!`
        let name = super::facts::display(&a.key.0, &a.key.1);
        let text = match (&a.state, a.negated) {
            (State::NotYet(None), _) => format!("{name} was never defined in this run"),
            (State::NotYet(Some(l)), _) => match facts.event(*l) {
                Some(x) => format!(
                    "{name} was not defined yet (defined later, at #{} by {}:{})",
                    x.seq, x.file, x.line
                ),
                None => format!("{name} was not defined yet"),
            },
            (State::Cancelled(e), _) => match facts.event(*e) {
                Some(x) => format!(
                    "{name} had been cancelled at #{} by {}:{}",
                    x.seq, x.file, x.line
                ),
                None => format!("{name} had been cancelled"),
            },
            (State::Hard(_), true) => format!("{name} is a hard class of the host (negated here)"),
            (State::CommandLine, true) => {
                format!("{name} was defined on the command line (negated here)")
            }
            (State::Augments, true) => {
                format!("{name} was defined by the augments file (negated here)")
            }
            (State::Set(e), true) => match facts.event(*e) {
                Some(x) => format!(
                    "{name} was defined (at #{} by {}:{}) and is negated here",
                    x.seq, x.file, x.line
                ),
                None => format!("{name} was defined and is negated here"),
            },
            (State::Set(e), false) if facts.local_to(*e).is_some() => match facts.event(*e) {
                Some(x) => format!(
                    "{name} was defined at #{} by {}:{}, but as a class local to bundle {} (a classes promise of an agent bundle without scope => \"namespace\"): other bundles do not see it",
                    x.seq, x.file, x.line, x.bundle
                ),
                None => format!("{name} was defined as a bundle-local class elsewhere"),
            },
            _ if defined => format!("{name} was defined"),
            _ => format!("{name} was not defined"),
        };
        parts.push(text);
    }
    parts.join("; ")
}

/// One condition and its value in words: `class guard "c3" was false: c3 was …`; `value` is what
/// the evaluation needed to say (false: the condition did not hold).
pub fn cond_words(facts: &Facts<'_>, c: &Cond, value: bool) -> String {
    let attr = match c.attr.as_str() {
        "guard" => "class guard".to_string(),
        a => format!("{a} =>"),
    };
    let v = match c.value {
        Some(true) => "was true",
        Some(false) => "was false",
        None if value => "held",
        None => "did not hold",
    };
    let mut s = format!("{attr} {} {v}", super::render::shown_expr(c));
    let blame = blame_words(facts, c);
    if let Some(n) = &c.note {
        s.push_str(&format!(" ({n})"));
    }
    if !blame.is_empty() {
        s.push_str(": ");
        s.push_str(&blame);
    }
    s
}

/// Which handles of a `depends_on` were not kept or repaired before event `ev`, and when they were.
fn depends_words(facts: &Facts<'_>, p: &PromiseAt<'_>, ev: usize) -> String {
    let handles: Vec<String> = p
        .constraint("depends_on")
        .map(|rv| {
            crate::graph::model::scalars(rv)
                .iter()
                .map(|s| s.value.clone())
                .collect()
        })
        .unwrap_or_default();
    let mut missing = Vec::new();
    for h in &handles {
        let owners: Vec<PromiseAt<'_>> = facts
            .promises
            .iter()
            .filter(|x| {
                x.scalar("handle")
                    .is_some_and(|w| canonify(w) == canonify(h))
            })
            .copied()
            .collect();
        if owners.is_empty() {
            missing.push(format!("no promise has the handle {h}"));
            continue;
        }
        let done = owners
            .iter()
            .flat_map(|o| facts.evaluations(o))
            .filter(|i| {
                facts.event(*i).is_some_and(|e| {
                    e.skip.is_none() && matches!(e.outcome.as_deref(), Some("kept" | "repaired"))
                })
            })
            .min();
        let site = owners.first().map(|o| o.site()).unwrap_or_default();
        match done {
            Some(d) if d < ev => {}
            Some(d) => {
                let when = facts
                    .event(d)
                    .map(|e| format!("#{} pass {}", e.seq, e.pass))
                    .unwrap_or_default();
                missing.push(format!(
                    "{h} ({site}) was kept or repaired only later, at {when}"
                ));
            }
            None => missing.push(format!("{h} ({site}) was never kept or repaired")),
        }
    }
    let mut t = format!(
        "depends_on {{ {} }}: not every promise with those handles had been kept or repaired yet",
        handles.join(", ")
    );
    if !missing.is_empty() {
        t.push_str(": ");
        t.push_str(&missing.join("; "));
    }
    t
}

/// Why evaluation `ev` of promise `p` did not set `target`.
pub fn attempt(facts: &Facts<'_>, p: &PromiseAt<'_>, ev: usize, target: &Target) -> Attempt {
    let mut a = Attempt {
        events: vec![ev],
        verdict: String::new(),
        text: String::new(),
        conds: Vec::new(),
    };
    let Some(e) = facts.event(ev) else {
        return a;
    };
    let conds = conds_at(facts, p, ev);
    let pick = |attrs: &[&str], value: bool| -> Vec<Cond> {
        conds
            .iter()
            .filter(|c| attrs.contains(&c.attr.as_str()) && c.value != Some(!value))
            .cloned()
            .collect()
    };
    let say = |cs: &[Cond], value: bool| -> String {
        cs.iter()
            .map(|c| cond_words(facts, c, value))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match e.skip.as_deref() {
        Some("guard") => {
            let cs = pick(&["guard"], false);
            a.verdict = "guard_false".into();
            a.text = if cs.is_empty() {
                format!("class guard \"{}\" was false", e.guard)
            } else {
                say(&cs, false)
            };
            a.conds = cs;
        }
        Some("if") => {
            let cs: Vec<Cond> = pick(&["guard", "if", "ifvarclass"], false)
                .into_iter()
                .filter(|c| c.value == Some(false) || c.value.is_none())
                .filter(|c| !(c.attr == "guard" && c.expr == e.guard))
                .collect();
            a.verdict = "if_false".into();
            a.text = if cs.is_empty() {
                skip_words("if").to_string()
            } else {
                say(&cs, false)
            };
            a.conds = cs;
        }
        Some("unless") => {
            let cs = pick(&["unless"], true);
            a.verdict = "unless_true".into();
            a.text = if cs.is_empty() {
                skip_words("unless").to_string()
            } else {
                let mut t = say(&cs, true);
                if e.pass < 3 && cs.iter().any(|c| c.note.is_some()) {
                    t.push_str(
                        " (an unless that cannot be evaluated counts as true before pass 3)",
                    );
                }
                t
            };
            a.conds = cs;
        }
        Some("depends_on") => {
            a.verdict = "depends_on".into();
            a.text = depends_words(facts, p, ev);
        }
        Some("unresolved") => {
            a.verdict = "unresolved".into();
            a.text = format!(
                "its promiser \"{}\" holds a variable that could not be resolved",
                short(&relative_in(&e.promiser))
            );
        }
        Some("missing_bundle") => {
            a.verdict = "missing_bundle".into();
            a.text = skip_words("missing_bundle").to_string();
            if let Some(crate::syntax::ast::Rval::Scalar(u)) = p.constraint("usebundle") {
                a.text.push_str(&format!(": usebundle => \"{}\"", u.value));
                if crate::graph::model::is_dynamic(&u.value) {
                    if let Some(v) =
                        super::candidates::expansions(facts, &u.value, &p.bundle.ns, &p.bundle.name)
                    {
                        a.text.push_str(&format!(
                            ", which reads \"{}\" with the values at the end of the run",
                            v.join("\", \"")
                        ));
                    }
                }
            }
        }
        Some(other) => {
            a.verdict = other.to_string();
            a.text = skip_words(other).to_string();
            if other == "already_defined" {
                if let Target::Class(k) = target {
                    if canonify(&e.promiser) != k.1 {
                        a.verdict = "other_name".into();
                        a.text = format!(
                            "its promiser expanded to \"{}\" (already defined), not {}",
                            e.promiser, k.1
                        );
                    }
                }
            }
        }
        None => unskipped(facts, p, ev, target, &conds, &mut a),
    }
    a
}

/// Why a module's evaluation set nothing: it ran and its output did not name it, or cfsim did not
/// run it (no `--exec`, not an hENC merge, not a command of the host profile).
fn module_words(
    facts: &Facts<'_>,
    e: &crate::eval::trace::TraceEvent,
    (verb, past): (&str, &str),
) -> String {
    let outcome = e.outcome.as_deref().unwrap_or("none");
    let ran = facts.engine.opts.exec
        || henc_args(facts, &e.promiser).is_some()
        || facts
            .engine
            .host
            .host
            .commands
            .keys()
            .any(|c| *c == e.promiser);
    if ran {
        format!("the module ran (outcome {outcome}) but its output did not {verb} it")
    } else {
        format!(
            "cfsim did not run the module (without --exec it runs only hENC merges and the commands the host profile knows), so it {past} nothing (outcome {outcome})"
        )
    }
}

/// Why an evaluation that was not skipped did not set `target`.
fn unskipped(
    facts: &Facts<'_>,
    p: &PromiseAt<'_>,
    ev: usize,
    target: &Target,
    conds: &[Cond],
    a: &mut Attempt,
) {
    let Some(e) = facts.event(ev) else {
        return;
    };
    let outcome = e.outcome.as_deref().unwrap_or("none");
    match target {
        Target::Class(k) => {
            if e.classes_set.contains(&k.1) {
                a.verdict = "set".into();
                a.text = "it set the class".into();
                return;
            }
            if p.promise_type == "classes" {
                if canonify(&e.promiser) != k.1 {
                    a.verdict = "other_name".into();
                    a.text = format!("its promiser expanded to \"{}\", not {}", e.promiser, k.1);
                    return;
                }
                let cs: Vec<Cond> = conds
                    .iter()
                    .filter(|c| cond::DECIDERS.contains(&c.attr.as_str()))
                    .cloned()
                    .collect();
                a.verdict = "condition_false".into();
                a.text = if cs.is_empty() {
                    "it did not define the class".into()
                } else {
                    cs.iter()
                        .map(|c| cond_words(facts, c, c.attr == "not"))
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                a.conds = cs;
                return;
            }
            if let Some(rv) = p.constraint("classes") {
                let mine: Vec<String> = body_classes(facts, rv, &p.bundle.ns)
                    .into_iter()
                    .filter(|(_, c)| super::candidates::names(c, &k.1, true).is_some())
                    .map(|(attr, _)| attr)
                    .collect();
                if !mine.is_empty() {
                    let fired = outcome_attrs(outcome)
                        .iter()
                        .any(|x| mine.iter().any(|m| m == x));
                    if fired {
                        // the body did its work for this outcome: its class names expanded otherwise
                        a.verdict = "other_name".into();
                        a.text = if e.classes_set.is_empty() {
                            format!("its classes body named another class than {} here", k.1)
                        } else {
                            format!(
                                "its classes body set {} here, not {}",
                                e.classes_set.join(", "),
                                k.1
                            )
                        };
                    } else {
                        a.verdict = "outcome".into();
                        a.text = format!(
                            "its outcome was {outcome}; the class is set on {} only",
                            mine.join(", ")
                        );
                    }
                    return;
                }
            }
            if is_module(p) {
                a.verdict = "module_silent".into();
                a.text = module_words(facts, e, ("define", "defined"));
                return;
            }
            a.verdict = "no_effect".into();
            a.text = format!("evaluated (outcome {outcome}) without defining it");
        }
        Target::Var(v) => {
            if e.vars_set.iter().any(|x| x == v) {
                a.verdict = "set".into();
                a.text = "it changed the value".into();
            } else if is_module(p) {
                a.verdict = "module_silent".into();
                a.text = module_words(facts, e, ("set", "set"));
            } else if p.promise_type == "vars" && !e.vars_set.is_empty() {
                a.verdict = "other_name".into();
                a.text = format!("it set {} instead", e.vars_set.join(", "));
            } else {
                a.verdict = "same_value".into();
                a.text = format!("evaluated (outcome {outcome}) without changing the value");
            }
        }
        Target::None => {
            a.verdict = outcome.to_string();
            a.text = outcome.to_string();
            // why it was actuated: its conditions held
            let held: Vec<String> = conds
                .iter()
                .map(|c| cond_words(facts, c, c.attr != "unless"))
                .collect();
            if !held.is_empty() {
                a.text.push_str(", because ");
                a.text.push_str(&held.join("; "));
            }
            a.conds = conds.to_vec();
        }
    }
}
