//! Per-run cache of the functions the agent caches (`cached: true` in the syntax tables: execresult,
//! returnszero, host2ip, …). Quirk of 3.21 reproduced on purpose: the key is the **argument list only**,
//! not the function name, so `returnszero("/bin/echo x", "noshell")` after
//! `execresult("/bin/echo x", "noshell")` returns the cached output `x` (recorded in
//! `policies/functions/system.expected`). Promises with `ifelapsed => "0"` bypass it (call `call`).

use indexmap::IndexMap;

use super::{call, CallCtx, CallOutcome, FnArg};
use crate::syntax::tables;

/// Results of cached calls made during one run.
#[derive(Debug, Default, Clone)]
pub struct FnCache {
    entries: IndexMap<Vec<String>, CallOutcome, crate::fasthash::FastState>,
}

impl FnCache {
    /// Calls through the cache.
    pub fn call(&mut self, ctx: &mut CallCtx<'_>, name: &str, args: &[FnArg]) -> CallOutcome {
        if !tables::function(name).is_some_and(|s| s.cached) {
            return call(ctx, name, args);
        }
        let key: Vec<String> = args.iter().map(|a| format!("{:?}", a.value)).collect();
        if let Some(v) = self.entries.get(&key) {
            return v.clone();
        }
        let out = call(ctx, name, args);
        if let CallOutcome::Value(_) = out {
            self.entries.insert(key, out.clone());
        }
        out
    }

    /// Number of cached results.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
