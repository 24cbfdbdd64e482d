//! Parsing input files ahead on a second thread while the loader resolves the files before them.
//! Loading stays sequential and in the agent's order (`super::loading` decides what is loaded when);
//! the worker only parses and checks files the loader is expected to ask for next, and the loader takes
//! each result (or parses the file itself when it was not queued). Output is the same either way.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::load::{check_all, load_one, CheckReport, LoadError, Loaded};

/// A parsed and checked file.
pub type Parsed = (Result<Loaded, LoadError>, Option<CheckReport>);

/// How long a thread that expects news soon polls before it sleeps on the condition variable: waking a
/// sleeping thread can take milliseconds (seen on gVisor), longer than parsing a file, so the loader
/// would parse the next file itself while the worker is still waking up.
const SPIN: Duration = Duration::from_millis(10);

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
    /// Bumped on every change of `state` (queued, finished, closed): what the spinning side watches.
    changes: AtomicUsize,
}

impl Shared {
    /// Records a change of the state; called with the lock held (`_st`), so that a waiter that checked
    /// `changes` under the lock cannot miss the notification.
    fn changed(&self, _st: &MutexGuard<'_, State>) {
        self.changes.fetch_add(1, Ordering::Release);
        self.cv.notify_all();
    }

    /// Waits for the next change after `seen` (taken while `st` was held): polls for [`SPIN`], then
    /// sleeps on the condition variable. Returns the lock again, or `None` if it is poisoned.
    fn wait<'a>(&'a self, st: MutexGuard<'a, State>, seen: usize) -> Option<MutexGuard<'a, State>> {
        drop(st);
        let start = Instant::now();
        let mut spins = 0u32;
        while self.changes.load(Ordering::Acquire) == seen && start.elapsed() < SPIN {
            spins += 1;
            if spins.is_multiple_of(64) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        let mut st = self.state.lock().ok()?;
        while self.changes.load(Ordering::Acquire) == seen {
            st = self.cv.wait(st).ok()?;
        }
        Some(st)
    }
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
                let seen = shared.changes.load(Ordering::Acquire);
                st = match shared.wait(st, seen) {
                    Some(s) => s,
                    None => return,
                };
            }
        };
        let parsed = parse(&path);
        let Ok(mut st) = shared.state.lock() else {
            return;
        };
        st.busy = None;
        st.done.insert(path, parsed);
        shared.changed(&st);
    }
}

impl Prefetcher {
    /// Starts the worker (idle until paths are queued). `None` on a single CPU (the worker would only
    /// take turns with the loader) or when no thread can be started: the loader then parses everything
    /// itself.
    pub fn start() -> Option<Prefetcher> {
        if std::thread::available_parallelism().map_or(1, usize::from) < 2 {
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
        self.shared.changed(&st);
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
                let seen = self.shared.changes.load(Ordering::Acquire);
                st = match self.shared.wait(st, seen) {
                    Some(s) => s,
                    None => return parse(path),
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
            self.shared.changed(&st);
        }
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
