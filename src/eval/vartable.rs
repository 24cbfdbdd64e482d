//! The iteration order of cf-agent 3.21's global variable table, simulated: the table is a map that
//! stays a small array (insertion order) up to [`TINY_LIMIT`] entries and then becomes a chained hash
//! table of [`INITIAL_BUCKETS`] buckets, doubling when the load passes 3/4 (new entries go to the head of
//! their bucket; a resize walks the old buckets in order and pushes each entry to the head of its new
//! bucket) and halving when removals bring it under 0.35 while bigger than its first size. The bucket
//! of a variable is a one-at-a-time hash over namespace, scope, lval and `]`-prefixed indices, masked
//! by the bucket count. Functions that walk classic arrays (`getindices`, `getvalues`, `maparray`,
//! `mergedata` of an array…) see the variables in this order.

use crate::libmap::LibMap;
pub use crate::libmap::{INITIAL_BUCKETS, TINY_LIMIT};

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
    let (name, indices) = match crate::expr::find_byte(lval, 0, b'[') {
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

/// The simulated table. Entries are positions in the context's variable map (kept in step by the
/// caller: removing position `i` shifts the later ones down, as `IndexMap::shift_remove` does).
#[derive(Debug, Clone, Default)]
pub struct AgentTable {
    map: LibMap<usize>,
}

impl AgentTable {
    /// Records a new entry of hash `h` (see [`var_hash`]) at map position `pos`; replacing a value keeps
    /// its place, so callers insert each key once.
    pub fn insert(&mut self, h: u32, pos: usize) {
        self.map.insert(h, pos);
    }

    /// Forgets the entry of hash `h` at position `pos`; later positions move down by one.
    pub fn remove(&mut self, h: u32, pos: usize) {
        self.map.remove(h, |&p| p == pos);
        self.map.for_each_mut(|p| {
            if *p > pos {
                *p -= 1;
            }
        });
    }

    /// Forgets the entries at the positions `gone` (sorted, distinct) in one pass: what as many calls
    /// of [`AgentTable::remove`] do, in linear time. Later positions move down by the number of removed
    /// positions before them.
    pub fn remove_many(&mut self, gone: &[usize]) {
        if gone.is_empty() {
            return;
        }
        self.map.remove_all(|p| gone.binary_search(p).is_ok());
        self.map
            .for_each_mut(|p| *p -= gone.partition_point(|&g| g < *p));
    }

    /// Where the entry of hash `h` at map position `pos` comes in the iteration order (a sortable key).
    pub fn rank(&self, h: u32, pos: usize) -> Option<(usize, usize)> {
        self.map.rank(h, |&p| p == pos)
    }

    /// Every position in the agent's iteration order.
    pub fn visit(&self, f: &mut dyn FnMut(usize)) {
        self.map.visit(&mut |&p| f(p));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn h(lval: &str) -> u32 {
        var_hash("default", "b", lval)
    }

    #[test]
    fn hash_of_default_namespace_matches_the_agents_constant() {
        // the agent uses 1195645448 for a reference without namespace: the hash of "default"
        assert_eq!(mix(0, b"default"), 1_195_645_448);
    }

    #[test]
    fn small_tables_keep_insertion_order_then_order_by_bucket() {
        // 180 entries: more than 3/4 of 128 buckets, at most 3/4 of 256
        let names: Vec<String> = (0..180).map(|i| format!("v{i}")).collect();
        let hash_of = |p: usize| h(&names[p]);
        let mut t = AgentTable::default();
        for i in 0..TINY_LIMIT {
            t.insert(hash_of(i), i);
        }
        let mut seen = Vec::new();
        t.visit(&mut |p| seen.push(p));
        assert_eq!(seen, (0..TINY_LIMIT).collect::<Vec<_>>());
        for i in TINY_LIMIT..180 {
            t.insert(hash_of(i), i);
        }
        let mut buckets = Vec::new();
        t.visit(&mut |p| buckets.push(hash_of(p) as usize & 255));
        assert_eq!(buckets.len(), 180);
        assert!(
            buckets.windows(2).all(|w| w[0] <= w[1]),
            "256 buckets in order"
        );
        t.remove(hash_of(3), 3);
        let mut all = Vec::new();
        t.visit(&mut |p| all.push(p));
        assert_eq!(all.len(), 179);
        assert_eq!(
            all.iter().max(),
            Some(&178),
            "positions after the removed one move down"
        );
    }

    #[test]
    fn indices_are_hashed_after_a_separator() {
        assert_ne!(
            var_hash("default", "b", "a[te][st]"),
            var_hash("default", "b", "a[t][e][s][t]")
        );
        assert_ne!(
            var_hash("default", "b", "a[x]"),
            var_hash("default", "b", "ax")
        );
    }

    #[test]
    fn removing_many_at_once_equals_removing_one_by_one() {
        // tables of several sizes (array mode, hashed, with shrinking), random removal sets
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for size in [5usize, 14, 15, 100, 400, 1000] {
            for _ in 0..20 {
                let names: Vec<String> = (0..size)
                    .map(|i| format!("v{i}_{}", rnd() % 1000))
                    .collect();
                let hash_of = |p: usize| h(&names[p]);
                let mut a = AgentTable::default();
                for i in 0..size {
                    a.insert(hash_of(i), i);
                }
                let mut b = a.clone();
                let mut gone: Vec<usize> = (0..size).filter(|_| rnd() % 3 == 0).collect();
                gone.dedup();
                // one by one, highest position first so the others keep their numbers
                for &p in gone.iter().rev() {
                    a.remove(hash_of(p), p);
                }
                b.remove_many(&gone);
                let (mut sa, mut sb) = (Vec::new(), Vec::new());
                a.visit(&mut |p| sa.push(p));
                b.visit(&mut |p| sb.push(p));
                assert_eq!(sa, sb, "size {size}, removed {gone:?}");
                assert_eq!(a.map.len(), b.map.len());
                assert_eq!(a.map.bucket_count(), b.map.bucket_count());
            }
        }
    }
}
