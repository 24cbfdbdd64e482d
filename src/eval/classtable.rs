//! The iteration order of cf-agent 3.21's class tables and string sets, simulated. Both are libutils'
//! `Map` ([`crate::libmap`]) with string keys. The bucket of a key is the one-at-a-time `StringHash` of
//! its bytes (unsigned, seed 0) masked by the bucket count.
//! The class tables (the global one of hard and soft classes, one per bundle frame for its local
//! classes) are keyed `ns:name` (`default:name` in the default namespace); the set `classesmatching()`
//! collects its matches in is keyed by the reported name (`name` or `ns:name`). [`super::vartable`]
//! models the variable table, which is the same `Map` with another hash.

use crate::libmap::LibMap;
pub use crate::libmap::{INITIAL_BUCKETS, TINY_LIMIT};

/// libutils' `StringHash(str, 0)`.
pub fn string_hash(s: &str) -> u32 {
    crate::libmap::string_hash(s, 0)
}

/// The simulated order of one map of string keys.
#[derive(Debug, Clone, Default)]
pub struct MapOrder {
    map: LibMap<String>,
}

impl MapOrder {
    /// Number of keys.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Inserts `key`; a key already present keeps its place (the agent replaces the value in place).
    pub fn insert(&mut self, key: &str) {
        let h = string_hash(key);
        if !self.map.contains(h, |k| k == key) {
            self.map.insert(h, key.to_string());
        }
    }

    /// Removes `key` if present.
    pub fn remove(&mut self, key: &str) {
        self.map.remove(string_hash(key), |k| k == key);
    }

    /// Every key in the agent's iteration order.
    pub fn visit(&self, f: &mut dyn FnMut(&str)) {
        self.map.visit(&mut |k| f(k));
    }

    /// The keys in iteration order.
    pub fn keys(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.len());
        self.visit(&mut |k| out.push(k.to_string()));
        out
    }
}

/// The iteration order of a `StringSet` filled with `items` in this order (duplicates keep the place
/// of their first insertion).
pub fn set_order<I, S>(items: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut m = MapOrder::default();
    for i in items {
        m.insert(i.as_ref());
    }
    m.keys()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_is_one_at_a_time() {
        // buckets of 128 computed by hand from the agent's StringHash
        assert_eq!(string_hash("default:g_beta") & 127, 8);
        assert_eq!(string_hash("default:g_zeta") & 127, 122);
        assert_eq!(string_hash("default:any") & 127, 37);
        assert_eq!(string_hash(""), 0);
    }

    #[test]
    fn small_maps_keep_insertion_order_and_close_gaps() {
        let mut m = MapOrder::default();
        for k in ["c", "a", "b", "a"] {
            m.insert(k);
        }
        assert_eq!(m.keys(), ["c", "a", "b"]);
        m.remove("a");
        assert_eq!(m.keys(), ["c", "b"]);
    }

    #[test]
    fn big_maps_iterate_by_bucket_newest_first() {
        let names: Vec<String> = (0..40).map(|i| format!("default:k{i}")).collect();
        let mut m = MapOrder::default();
        for n in &names {
            m.insert(n);
        }
        let keys = m.keys();
        assert_eq!(keys.len(), 40);
        let buckets: Vec<u32> = keys.iter().map(|k| string_hash(k) & 127).collect();
        assert!(buckets.windows(2).all(|w| w[0] <= w[1]));
        // two keys of one bucket: the later insertion comes first
        for w in keys.windows(2) {
            if string_hash(&w[0]) & 127 == string_hash(&w[1]) & 127 {
                let p0 = names.iter().position(|n| *n == w[0]);
                let p1 = names.iter().position(|n| *n == w[1]);
                assert!(p0 > p1);
            }
        }
    }

    #[test]
    fn growing_past_three_quarters_doubles_and_shrinking_halves() {
        let mut m = MapOrder::default();
        for i in 0..200 {
            m.insert(&format!("x{i}"));
        }
        assert_eq!(m.map.bucket_count(), 512);
        for i in 0..150 {
            m.remove(&format!("x{i}"));
        }
        assert_eq!(m.len(), 50);
        assert_eq!(m.map.bucket_count(), 128);
        let keys = m.keys();
        assert!(keys
            .windows(2)
            .all(|w| string_hash(&w[0]) & 127 <= string_hash(&w[1]) & 127));
    }
}
