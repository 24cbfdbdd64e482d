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

/// The simulated table. Entries are positions in the context's variable map, kept in step by the
/// caller: a removal there moves the map's last entry into the hole (`IndexMap::swap_remove`), which
/// the caller reports with [`AgentTable::forget`] and [`AgentTable::moved`] — one bucket each, so
/// removing k variables costs k, not the size of the table.
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

    /// Forgets the entry of hash `h` at map position `pos`; the other positions stay as they are.
    pub fn forget(&mut self, h: u32, pos: usize) {
        self.map.remove(h, |&p| p == pos);
    }

    /// The entry of hash `h` moved from map position `from` to `to` (the caller's map filled a hole
    /// with its last entry): same place in the iteration order.
    pub fn moved(&mut self, h: u32, from: usize, to: usize) {
        if let Some(p) = self.map.get_mut(h, |&p| p == from) {
            *p = to;
        }
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
        // the map's last entry (179) fills the hole at 3
        t.forget(hash_of(3), 3);
        t.moved(hash_of(179), 179, 3);
        let mut all = Vec::new();
        t.visit(&mut |p| all.push(p));
        assert_eq!(all.len(), 179);
        assert_eq!(all.iter().max(), Some(&178), "the last position moved");
        assert!(all.contains(&3), "into the hole");
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
    fn swap_removals_keep_the_agents_order() {
        // the reference: removing position p shifts the later positions down (a `Vec` of names and
        // the table renumbered); the swap form must give the same names in the same order, with the
        // same bucket count, after every removal (array mode, hashed, shrinking)
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for size in [5usize, 14, 15, 100, 400, 1000] {
            for _ in 0..10 {
                let names: Vec<String> = (0..size)
                    .map(|i| format!("v{i}_{}", rnd() % 1000))
                    .collect();
                let mut shifted = AgentTable::default();
                for (i, n) in names.iter().enumerate() {
                    shifted.insert(h(n), i);
                }
                let mut swapped = shifted.clone();
                let (mut by_shift, mut by_swap) = (names.clone(), names.clone());
                while !by_shift.is_empty() && rnd() % 8 != 0 {
                    let name = by_shift[(rnd() % by_shift.len() as u64) as usize].clone();
                    let p = by_shift.iter().position(|n| *n == name).unwrap();
                    by_shift.remove(p);
                    shifted.map.remove(h(&name), |&q| q == p);
                    shifted.map.for_each_mut(|q| {
                        if *q > p {
                            *q -= 1;
                        }
                    });
                    let q = by_swap.iter().position(|n| *n == name).unwrap();
                    let last = by_swap.len() - 1;
                    by_swap.swap_remove(q);
                    swapped.forget(h(&name), q);
                    if q != last {
                        swapped.moved(h(&by_swap[q]), last, q);
                    }
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    shifted.visit(&mut |p| a.push(by_shift[p].clone()));
                    swapped.visit(&mut |p| b.push(by_swap[p].clone()));
                    assert_eq!(a, b, "size {size}, removed {name}");
                    assert_eq!(shifted.map.bucket_count(), swapped.map.bucket_count());
                }
            }
        }
    }
}
