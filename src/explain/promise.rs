//! `--promise HANDLE|FILE:LINE`: the promise (by its handle as written or expanded, or by a line of
//! it in a policy file) and each of its evaluations — stage, pass, iteration, expanded promiser,
//! guard, skip reason or outcome, classes and variables changed — or why it was never evaluated.

use super::facts::{Facts, PromiseAt};
use super::reach::{self, Reach};
use super::steps::{self, Attempt, Target};

/// The answer for one promise.
#[derive(Debug, Clone)]
pub struct PromiseAnswer<'a> {
    pub promise: PromiseAt<'a>,
    /// Each evaluation (index into the trace) and what came of it.
    pub evaluations: Vec<(usize, Attempt)>,
    /// Why it was never evaluated.
    pub reach: Option<Reach>,
}

/// How a promise was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Handle(String),
    Site { file: String, line: usize },
}

impl Selector {
    /// `FILE:LINE` when the part before the last `:` names a loaded policy file (or an existing
    /// file) and the rest is a line number; a handle otherwise.
    pub fn parse(facts: &Facts<'_>, text: &str) -> Selector {
        if let Some((f, l)) = text.rsplit_once(':') {
            if let Ok(line) = l.parse::<usize>() {
                let loaded = facts.engine.files.iter().any(|x| same_file(&x.path, f));
                if loaded || std::path::Path::new(f).is_file() || f.ends_with(".cf") {
                    return Selector::Site {
                        file: f.to_string(),
                        line,
                    };
                }
            }
        }
        Selector::Handle(text.to_string())
    }
}

/// Whether two paths name the same file (as given, normalised, or one a suffix of the other).
pub fn same_file(loaded: &str, asked: &str) -> bool {
    if loaded == asked {
        return true;
    }
    let norm = |p: &str| -> std::path::PathBuf {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.into());
        let mut out = std::path::PathBuf::new();
        for c in abs.components() {
            match c {
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    };
    norm(loaded) == norm(asked)
}

/// The promises a selector names.
pub fn find<'a>(facts: &Facts<'a>, sel: &Selector) -> Vec<PromiseAt<'a>> {
    match sel {
        Selector::Handle(h) => {
            let mut out: Vec<PromiseAt<'a>> = facts
                .promises
                .iter()
                .filter(|p| p.scalar("handle") == Some(h.as_str()))
                .copied()
                .collect();
            if out.is_empty() {
                // a handle written with variables: the promises whose handle could expand to it
                for p in &facts.promises {
                    if let Some(w) = p.scalar("handle") {
                        if crate::graph::model::is_dynamic(w)
                            && super::candidates::names(w, h, false).is_some()
                        {
                            out.push(*p);
                        }
                    }
                }
            }
            out
        }
        Selector::Site { file, line } => {
            let in_file: Vec<&PromiseAt<'a>> = facts
                .promises
                .iter()
                .filter(|p| same_file(p.file, file))
                .collect();
            let exact: Vec<PromiseAt<'a>> = in_file
                .iter()
                .filter(|p| p.line == *line)
                .map(|p| **p)
                .collect();
            if !exact.is_empty() {
                return exact;
            }
            in_file
                .iter()
                .filter(|p| p.line <= *line && *line <= p.last_line)
                .map(|p| **p)
                .collect()
        }
    }
}

/// The lines where promises of `file` start, nearest to `line` first (for an error message).
pub fn nearest_lines(facts: &Facts<'_>, file: &str, line: usize) -> Vec<usize> {
    let mut lines: Vec<usize> = facts
        .promises
        .iter()
        .filter(|p| same_file(p.file, file))
        .map(|p| p.line)
        .collect();
    lines.sort_by_key(|l| (l.abs_diff(line), *l));
    lines.dedup();
    lines.truncate(3);
    lines.sort_unstable();
    lines
}

/// Explains one promise.
pub fn explain<'a>(facts: &Facts<'a>, p: PromiseAt<'a>) -> PromiseAnswer<'a> {
    let evs = facts.evaluations(&p);
    if evs.is_empty() {
        return PromiseAnswer {
            promise: p,
            evaluations: Vec::new(),
            reach: Some(reach::reach(facts, &p)),
        };
    }
    let evaluations = evs
        .iter()
        .map(|&ev| (ev, steps::attempt(facts, &p, ev, &Target::None)))
        .collect();
    PromiseAnswer {
        promise: p,
        evaluations,
        reach: None,
    }
}
