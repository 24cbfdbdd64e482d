//! cfsim: simulate CFEngine 3.21 agent runs.
//!
//! To use it from Rust, start at [`sim`]: [`sim::Policy::load`] reads and checks a policy once (the
//! value is `Send + Sync`), [`sim::simulate_policy`] runs it for one [`host::Host`] (a profile from
//! [`host::load_host`], or the local machine) and returns what cf-agent would print, its exit code and
//! the run's result document (classes, variables, every promise's outcome, reports). Its module docs
//! hold runnable examples; `cfsim agent`, `test`, `fleet` and `diff` are front ends over it.
//!
//! Pipeline: `source` (files, spans, line index) → `syntax` (macro pass, pest grammar, typed AST with
//! spans, `-p json`/`-p cf` output) → `load` (entry file and its `inputs`) → `sim` (the library API:
//! a checked [`sim::Policy`] made into a pre-evaluated engine for a host) → `eval` (the run) → `cli`
//! (the subcommands, each a front end over `sim`).
//! Diagnostics (`diag`) are rendered as cf-promises prints them. `module` is the module protocol
//! (`commands` promises with `module => "true"`), `henc` the hierarchical ENC merge built on it;
//! `explain` answers why a class, a variable or a promise is what it is after a run.

pub mod cli;
pub mod diag;
pub mod diff;
pub mod eval;
pub mod explain;
pub mod expr;
pub mod fasthash;
pub mod fleet;
pub mod functions;
pub mod graph;
pub mod henc;
pub mod host;
pub mod libmap;
pub mod load;
pub mod module;
pub mod pcre;
pub mod promise;
pub mod sim;
pub mod source;
pub mod syntax;
pub mod testing;
pub mod timeline;
pub mod value;
pub mod yaml;
