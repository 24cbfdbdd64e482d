//! The library API under every front end: load and check a policy once into a [`Policy`] (plain data,
//! `Send + Sync`, so threads can share one), then make an [`Engine`] for a [`Host`] with
//! [`Policy::engine`] — the one path from a loaded policy to a pre-evaluated engine, as cf-promises
//! (component `Promises`) or cf-agent (`Agent`) would have it — and run it.
//!
//! The usual way in: load once, run for as many hosts as needed, read the result document
//! (`docs/result.schema.json`, the same as `cfsim agent --result-json`):
//!
//! ```
//! use cfsim::sim::{simulate_policy, Options, Policy};
//!
//! let policy = Policy::load("policies/henc/demo/promises.cf").map_err(|f| f.stdout)?;
//! for profile in ["web1-oslo-debian.json", "db1-rhel-private.json"] {
//!     let host = cfsim::host::load_host(&format!("policies/hosts/{profile}")).map_err(|e| e.to_string())?;
//!     // the flags of `cfsim agent`; `result_json: Some(..)` asks for the result document
//!     let run = simulate_policy(&policy, &host, &Options { result_json: Some(String::new()), ..Options::default() });
//!     assert_eq!(run.code, 0, "{}", run.stdout);
//!     let result = run.result.ok_or("no result")?;
//!     let defined = |c: &str| result["classes"].as_array().into_iter().flatten().any(|x| x["name"] == c);
//!     assert!(defined("oslo"));
//!     assert_eq!(defined("web_server"), profile.starts_with("web1"));
//!     // what cf-agent would print: the R: lines among them
//!     assert!(run.stdout.lines().any(|l| l.starts_with("R: summary: location=oslo")));
//! }
//! # Ok::<(), String>(())
//! ```
//!
//! One level down, [`Policy::engine`] gives the pre-evaluated [`Engine`] itself (its class and
//! variable tables, its trace), for tools that inspect a run rather than its result:
//!
//! ```
//! use cfsim::eval::{output::LogLevel, setup::ClassOptions, RunOptions};
//! use cfsim::host::hard_classes::Component;
//!
//! let policy = cfsim::sim::Policy::load("policies/henc/demo/promises.cf").map_err(|f| f.stdout)?;
//! let host = cfsim::host::load_host("policies/hosts/web1-oslo-debian.json").map_err(|e| e.to_string())?;
//! let mut engine = policy
//!     .engine(&host, Component::Agent, &ClassOptions::default(), LogLevel::Notice, RunOptions::default())
//!     .map_err(|f| f.stdout)?;
//! let seq = engine.bundlesequence(None);
//! assert!(engine.run_sequence(&seq));
//! assert!(engine.out.text().contains("R: summary: location=oslo"));
//! # Ok::<(), String>(())
//! ```

use crate::eval::output::LogLevel;
use crate::eval::setup::{ClassOptions, HostFacts};
use crate::eval::{Engine, RunOptions};
use crate::host::hard_classes::Component;
use crate::host::Host;
use crate::load::Loaded;

pub mod run;
pub mod simulate;

pub use run::{
    on_eval_thread, run_engine, simulate, simulate_policy, Finished, Options, RunResult,
    TraceFormat,
};

/// Why a policy could not be loaded or pre-evaluated: what the tool prints, and its exit code.
#[derive(Debug, Clone, Default)]
pub struct Failure {
    pub stdout: String,
    /// What went to standard error first: the messages of cf-promises' checks of the whole policy.
    pub stderr: String,
    pub code: u8,
    /// The pre-evaluation stopped on a fatal function error (`Fatal CFEngine error`): cf-agent would
    /// fall back to its failsafe policy.
    pub fatal: bool,
    /// What the engine traced up to the failure (with `RunOptions::trace`), for `--trace-file`.
    pub trace: Vec<crate::eval::trace::TraceEvent>,
}

/// A policy loaded from its entry file with its literal `inputs`, and checked (no error).
#[derive(Debug, Clone)]
pub struct Policy {
    entry: String,
    files: Vec<Loaded>,
    /// The same files lowered once, shared by every engine (see [`crate::eval::lowered`]).
    lowered: Vec<std::sync::Arc<crate::eval::lowered::Lowered>>,
    /// Files its engines loaded through evaluated `inputs`, parsed once for every host.
    cache: std::sync::Arc<crate::eval::prefetch::FileCache>,
    /// The most promise groups an engine of this policy counted for a brief result (see
    /// [`Policy::count_groups_hint`]).
    count_groups: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Policy {
    /// Loads `entry` and its literal inputs and runs every check; a failure carries cf-promises'
    /// messages (exit 1 for an invalid policy, 2 for a file that cannot be read).
    pub fn load(entry: &str) -> Result<Policy, Failure> {
        let files = crate::load::load_with_inputs(entry).map_err(|e| Failure {
            stdout: format!("   error: {e}\n"),
            code: 2,
            ..Failure::default()
        })?;
        let report = crate::load::check_all(&files);
        if report.has_errors() {
            return Err(Failure {
                stdout: report.render(&files),
                code: 1,
                ..Failure::default()
            });
        }
        Ok(Policy::checked(entry, files))
    }

    /// A policy from files the caller loaded and checked already (the entry file first).
    pub fn checked(entry: &str, files: Vec<Loaded>) -> Policy {
        let lowered = files
            .iter()
            .enumerate()
            .map(|(i, l)| std::sync::Arc::new(crate::eval::lowered::Lowered::new(l.clone(), i)))
            .collect();
        Policy {
            entry: entry.to_string(),
            files,
            lowered,
            cache: Default::default(),
            count_groups: Default::default(),
        }
    }

    /// How many promise groups the brief results of this policy's engines counted at most so far:
    /// the room the next one starts with.
    pub fn count_groups_hint(&self) -> usize {
        self.count_groups.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Remembers that an engine of this policy counted `n` promise groups.
    pub fn keep_count_groups(&self, n: usize) {
        self.count_groups
            .fetch_max(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// The entry file as given.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// The loaded files (the entry file first).
    pub fn files(&self) -> &[Loaded] {
        &self.files
    }

    /// An engine for `host`, set up for `component` and pre-evaluated (PolicyResolve; inputs that need
    /// evaluation are loaded then). With `Component::Agent` the meta tags are applied, ready to run.
    /// The engine shares the policy's syntax trees (no copy).
    pub fn engine<'h>(
        &self,
        host: &'h Host,
        component: Component,
        classes: &ClassOptions,
        level: LogLevel,
        opts: RunOptions,
    ) -> Result<Engine<'h>, Failure> {
        let facts = HostFacts::new(host, &self.entry);
        self.engine_with_facts(host, &facts, component, classes, level, opts)
    }

    /// [`Policy::engine`] with the facts of `host` computed already ([`HostFacts::new`] of this
    /// host and [`Policy::entry`]): a run that makes two engines for one host computes them once.
    pub fn engine_with_facts<'h>(
        &self,
        host: &'h Host,
        facts: &HostFacts,
        component: Component,
        classes: &ClassOptions,
        level: LogLevel,
        opts: RunOptions,
    ) -> Result<Engine<'h>, Failure> {
        let agent = component == Component::Agent;
        let mut e = Engine::from_lowered(&self.lowered, host, level, opts);
        e.file_cache = Some(std::sync::Arc::clone(&self.cache));
        e.agent_component = agent;
        e.setup_with(facts, component, &self.entry, classes);
        if !e.pre_evaluate(&self.entry) || e.fatal {
            return Err(Failure {
                stdout: e.out.text(),
                stderr: std::mem::take(&mut e.check_stderr),
                code: 1,
                fatal: e.fatal,
                trace: std::mem::take(&mut e.trace),
            });
        }
        if agent {
            e.apply_meta_tags();
        }
        Ok(e)
    }

    /// [`Policy::engine`] (kept for callers that hand the policy over).
    pub fn into_engine<'h>(
        self,
        host: &'h Host,
        component: Component,
        classes: &ClassOptions,
        level: LogLevel,
        opts: RunOptions,
    ) -> Result<Engine<'h>, Failure> {
        self.engine(host, component, classes, level, opts)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn policy_is_shareable_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<super::Policy>();
    }
}
