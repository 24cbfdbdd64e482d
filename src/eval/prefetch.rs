//! Parsing input files ahead on a second thread while the loader resolves the files before them.
//! Loading stays sequential and in the agent's order (`super::loading` decides what is loaded when);
//! the worker only parses and checks files the loader is expected to ask for next, and the loader takes
//! each result (or parses the file itself when it was not queued). Output is the same either way.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::load::{check_all, load_one, CheckReport, LoadError, Loaded};

/// A parsed and checked file.
pub type Parsed = (Result<Loaded, LoadError>, Option<CheckReport>);

#[derive(Default)]
struct State {
    queue: VecDeque<String>,
    busy: Option<String>,
    done: HashMap<String, Parsed>,
    closed: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    cv: Condvar,
}

/// The worker and its shared state.
pub struct Prefetcher {
    shared: Arc<Shared>,
    worker: Option<JoinHandle<()>>,
}

/// Parses and checks one file as the loader does.
pub fn parse(path: &str) -> Parsed {
    match load_one(path) {
        Ok(l) => {
            let report = check_all(std::slice::from_ref(&l));
            (Ok(l), Some(report))
        }
        Err(e) => (Err(e), None),
    }
}

fn work(shared: &Shared) {
    loop {
        let path = {
            let Ok(mut st) = shared.state.lock() else {
                return;
            };
            loop {
                if let Some(p) = st.queue.pop_front() {
                    st.busy = Some(p.clone());
                    break p;
                }
                if st.closed {
                    return;
                }
                st = match shared.cv.wait(st) {
                    Ok(s) => s,
                    Err(_) => return,
                };
            }
        };
        let parsed = parse(&path);
        let Ok(mut st) = shared.state.lock() else {
            return;
        };
        st.busy = None;
        st.done.insert(path, parsed);
        shared.cv.notify_all();
    }
}

impl Prefetcher {
    /// Whether a worker would help: more than one CPU.
    pub fn available() -> bool {
        // asked once per process (it reads the cgroup limits), not per engine
        static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from)) >= 2
    }

    /// Starts the worker (idle until paths are queued). `None` on a single CPU (the worker would only
    /// take turns with the loader) or when no thread can be started: the loader then parses everything
    /// itself.
    pub fn start() -> Option<Prefetcher> {
        if !Prefetcher::available() {
            return None;
        }
        let shared = Arc::new(Shared::default());
        let for_worker = Arc::clone(&shared);
        let worker = std::thread::Builder::new()
            .name("cfsim-prefetch".into())
            .spawn(move || work(&for_worker))
            .ok()?;
        Some(Prefetcher {
            shared,
            worker: Some(worker),
        })
    }

    /// Queues paths (already queued or parsed ones are skipped).
    pub fn queue(&self, paths: impl IntoIterator<Item = String>) {
        let Ok(mut st) = self.shared.state.lock() else {
            return;
        };
        for p in paths {
            if st.done.contains_key(&p) || st.busy.as_ref() == Some(&p) || st.queue.contains(&p) {
                continue;
            }
            st.queue.push_back(p);
        }
        self.shared.cv.notify_all();
    }

    /// The result for `path`: taken from the worker (while it parses that very file, the next queued
    /// files are parsed here, then it is waited for), or parsed here when the worker has not started on
    /// it.
    pub fn take(&self, path: &str) -> Parsed {
        let Ok(mut st) = self.shared.state.lock() else {
            return parse(path);
        };
        loop {
            if let Some(p) = st.done.remove(path) {
                return p;
            }
            if st.busy.as_deref() == Some(path) {
                // rather than wait idle, parse the next queued file (it is needed soon after)
                if let Some(next) = st.queue.pop_front() {
                    drop(st);
                    let parsed = parse(&next);
                    st = match self.shared.state.lock() {
                        Ok(s) => s,
                        Err(_) => return parse(path),
                    };
                    st.done.insert(next, parsed);
                    continue;
                }
                st = match self.shared.cv.wait(st) {
                    Ok(s) => s,
                    Err(_) => return parse(path),
                };
                continue;
            }
            st.queue.retain(|q| q != path);
            drop(st);
            return parse(path);
        }
    }
}

impl Drop for Prefetcher {
    fn drop(&mut self) {
        if let Ok(mut st) = self.shared.state.lock() {
            st.closed = true;
            st.queue.clear();
        }
        self.shared.cv.notify_all();
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn queued_and_unqueued_files_give_the_same_result() {
        let dir = std::env::temp_dir().join(format!("cfsim-prefetch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("a.cf");
        let b = dir.join("b.cf");
        std::fs::write(&a, "bundle agent a { vars: \"x\" string => \"1\"; }\n").unwrap();
        std::fs::write(&b, "bundle agent b { vars: \"y\" string => \"2\"; }\n").unwrap();
        let (a, b) = (a.display().to_string(), b.display().to_string());
        let pf = Prefetcher::start().unwrap();
        pf.queue([a.clone()]);
        let (la, _) = pf.take(&a);
        let (lb, _) = pf.take(&b);
        let (missing, _) = pf.take("/nonexistent/cfsim/x.cf");
        drop(pf);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(la.unwrap().policy.bundles[0].name, "a");
        assert_eq!(lb.unwrap().policy.bundles[0].name, "b");
        assert!(missing.is_err());
    }
}

/// Most files one [`FileCache`] keeps (explicit bound; past it files are parsed every time).
pub const MAX_CACHED_FILES: usize = 10_000;

/// Input files parsed while engines resolved `inputs`, shared by every engine made from one policy
/// (`crate::sim::Policy`): the masterfiles load most of their files through evaluated `inputs`, and a
/// fleet would otherwise parse them again for every host. Only files that parsed and checked without
/// error are kept, lowered once ([`super::lowered::Lowered`]) and shared by the engines that load them.
#[derive(Debug, Default)]
pub struct FileCache {
    files: Mutex<HashMap<String, Arc<super::lowered::Lowered>>>,
    /// Results of cf-promises' whole-policy checks ([`crate::syntax::runnable::check`]) by what they
    /// depend on (at most [`MAX_CACHED_CHECKS`]).
    checks: Mutex<HashMap<CheckKey, Vec<crate::syntax::runnable::Error>>>,
}

/// Most results of the whole-policy checks one [`FileCache`] keeps (hosts that load other files
/// past it are checked every time).
pub const MAX_CACHED_CHECKS: usize = 64;

/// What the whole-policy checks of a loaded policy depend on: its files (by path, in file-index
/// order: a path's text is the one of the cache), the merge order, the mode and `require_comments`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CheckKey {
    pub paths: Vec<String>,
    pub order: Vec<usize>,
    pub check_runnable: bool,
    pub dash_b: bool,
    pub require_comments: bool,
}

impl FileCache {
    /// The lowered file of `path`, if an engine loaded it before.
    pub fn get(&self, path: &str) -> Option<Arc<super::lowered::Lowered>> {
        self.files.lock().ok()?.get(path).cloned()
    }

    /// Whether `path` is cached.
    pub fn contains(&self, path: &str) -> bool {
        self.files.lock().is_ok_and(|m| m.contains_key(path))
    }

    /// The whole-policy checks' result for `key`, if an engine ran them before.
    pub fn checked(&self, key: &CheckKey) -> Option<Vec<crate::syntax::runnable::Error>> {
        self.checks.lock().ok()?.get(key).cloned()
    }

    /// Keeps the whole-policy checks' result for `key`.
    pub fn keep_checked(&self, key: CheckKey, errors: &[crate::syntax::runnable::Error]) {
        if let Ok(mut m) = self.checks.lock() {
            if m.len() < MAX_CACHED_CHECKS {
                m.entry(key).or_insert_with(|| errors.to_vec());
            }
        }
    }

    /// Keeps a file that loaded without error.
    pub fn put(&self, path: &str, lowered: &Arc<super::lowered::Lowered>) {
        if let Ok(mut m) = self.files.lock() {
            if m.len() < MAX_CACHED_FILES {
                m.entry(path.to_string())
                    .or_insert_with(|| Arc::clone(lowered));
            }
        }
    }
}
