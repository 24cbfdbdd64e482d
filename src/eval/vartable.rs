//! The iteration order of cf-agent 3.21's global variable table, simulated: the table is a map that
//! stays a small array (insertion order) up to [`TINY_LIMIT`] entries and then becomes a chained hash
//! table of [`INITIAL_BUCKETS`] buckets, doubling when the load passes 3/4 (new entries go to the head of
//! their bucket; a resize walks the old buckets in order and pushes each entry to the head of its new
//! bucket) and halving when removals bring it under 0.35 while bigger than its first size. The bucket
//! of a variable is a one-at-a-time hash over namespace, scope, lval and `]`-prefixed indices, masked
//! by the bucket count. Functions that walk classic arrays (`getindices`, `getvalues`, `maparray`,
//! `mergedata` of an array…) see the variables in this order.

use super::context::VarKey;

/// Entries kept as a plain array before the table turns into a hash table.
pub const TINY_LIMIT: usize = 14;
/// Bucket count when the hash table is created.
pub const INITIAL_BUCKETS: usize = 128;

/// One-at-a-time step over `bytes` (bytes are signed chars, as the agent's C code adds them).
fn mix(mut h: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        h = h.wrapping_add(b as i8 as i32 as u32);
        h = h.wrapping_add(h << 10);
        h ^= h >> 6;
    }
    h
}

/// The agent's hash of a qualified variable reference. `lval` may carry `[index]` parts.
pub fn var_hash(ns: &str, scope: &str, lval: &str) -> u32 {
    let mut h = mix(0, ns.as_bytes());
    h = mix(h, scope.as_bytes());
    let (name, indices) = match lval.find('[') {
        Some(i) => lval.split_at(i),
        None => (lval, ""),
    };
    h = mix(h, name.as_bytes());
    for idx in split_indices(indices) {
        h = mix(h, b"]");
        h = mix(h, idx.as_bytes());
    }
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

/// `[a][b[c]]` → `a`, `b[c]` (brackets nest, as the agent's index parser counts them).
fn split_indices(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '[' => {
                if depth == 0 {
                    start = i + 1;
                }
                depth += 1;
            }
            ']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(s.get(start..i).unwrap_or(""));
                }
            }
            _ => {}
        }
    }
    out
}

/// The simulated table: keys only (values stay in the context's map).
#[derive(Debug, Clone, Default)]
pub struct AgentTable {
    /// Array mode: keys in insertion order. Unused once `buckets` is non-empty.
    array: Vec<VarKey>,
    /// Hash mode: each bucket's entries, head last (so a head insert is a push).
    buckets: Vec<Vec<(u32, VarKey)>>,
    load: usize,
}

impl AgentTable {
    fn hashed(&self) -> bool {
        !self.buckets.is_empty()
    }

    /// Records a new key (callers insert each key once; replacing a value keeps its place).
    pub fn insert(&mut self, key: &VarKey) {
        if !self.hashed() {
            if self.array.len() < TINY_LIMIT {
                self.array.push(key.clone());
                return;
            }
            self.buckets = vec![Vec::new(); INITIAL_BUCKETS];
            for k in std::mem::take(&mut self.array) {
                self.push_hashed(k);
            }
        }
        self.push_hashed(key.clone());
    }

    fn push_hashed(&mut self, key: VarKey) {
        let h = var_hash(&key.0, &key.1, &key.2);
        let n = self.buckets.len();
        if let Some(b) = self.buckets.get_mut(h as usize & (n - 1)) {
            b.push((h, key));
        }
        self.load += 1;
        if self.load * 4 > n * 3 {
            self.resize(n * 2);
        }
    }

    fn resize(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.buckets, vec![Vec::new(); size]);
        for bucket in old {
            for (h, k) in bucket.into_iter().rev() {
                if let Some(b) = self.buckets.get_mut(h as usize & (size - 1)) {
                    b.push((h, k));
                }
            }
        }
    }

    /// Forgets a key.
    pub fn remove(&mut self, key: &VarKey) {
        if !self.hashed() {
            self.array.retain(|k| k != key);
            return;
        }
        let h = var_hash(&key.0, &key.1, &key.2);
        let n = self.buckets.len();
        let Some(b) = self.buckets.get_mut(h as usize & (n - 1)) else {
            return;
        };
        let before = b.len();
        b.retain(|(_, k)| k != key);
        if b.len() == before {
            return;
        }
        self.load -= 1;
        // the threshold is truncated to an integer, as the agent stores it
        if self.load < n * 35 / 100 && n > INITIAL_BUCKETS {
            self.resize(n / 2);
        }
    }

    /// Every key in the agent's iteration order.
    pub fn visit(&self, f: &mut dyn FnMut(&VarKey)) {
        if !self.hashed() {
            self.array.iter().for_each(f);
            return;
        }
        for b in &self.buckets {
            for (_, k) in b.iter().rev() {
                f(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn key(scope: &str, lval: &str) -> VarKey {
        ("default".into(), scope.into(), lval.into())
    }

    #[test]
    fn hash_of_default_namespace_matches_the_agents_constant() {
        // the agent uses 1195645448 for a reference without namespace: the hash of "default"
        assert_eq!(mix(0, b"default"), 1_195_645_448);
    }

    #[test]
    fn small_tables_keep_insertion_order_then_order_by_bucket() {
        let mut t = AgentTable::default();
        for i in 0..TINY_LIMIT {
            t.insert(&key("b", &format!("v{i}")));
        }
        let mut seen = Vec::new();
        t.visit(&mut |k| seen.push(k.2.clone()));
        assert_eq!(seen[0], "v0");
        assert_eq!(seen[TINY_LIMIT - 1], format!("v{}", TINY_LIMIT - 1));
        for i in TINY_LIMIT..200 {
            t.insert(&key("b", &format!("v{i}")));
        }
        let mut buckets = Vec::new();
        t.visit(&mut |k| buckets.push(var_hash(&k.0, &k.1, &k.2) as usize & 255));
        assert_eq!(buckets.len(), 200);
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "256 buckets in order");
        t.remove(&key("b", "v3"));
        let mut n = 0;
        t.visit(&mut |_| n += 1);
        assert_eq!(n, 199);
    }

    #[test]
    fn indices_are_hashed_after_a_separator() {
        assert_ne!(
            var_hash("default", "b", "a[te][st]"),
            var_hash("default", "b", "a[t][e][s][t]")
        );
        assert_ne!(var_hash("default", "b", "a[x]"), var_hash("default", "b", "ax"));
    }
}
