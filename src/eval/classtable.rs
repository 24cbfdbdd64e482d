//! The iteration order of cf-agent 3.21's class tables and string sets, simulated. Both are libutils'
//! `Map` with string keys: a plain array (insertion order, removal closes the gap) up to [`TINY_LIMIT`]
//! entries, then a chained hash table of [`INITIAL_BUCKETS`] buckets (new entries at the head of their
//! bucket; doubling when the load passes 3/4, walking the old buckets in order and pushing each entry
//! to the head of its new bucket; halving under 0.35 while bigger than its first size). The bucket of
//! a key is the one-at-a-time `StringHash` of its bytes (unsigned, seed 0) masked by the bucket count.
//! The class tables (the global one of hard and soft classes, one per bundle frame for its local
//! classes) are keyed `ns:name` (`default:name` in the default namespace); the set `classesmatching()`
//! collects its matches in is keyed by the reported name (`name` or `ns:name`). [`super::vartable`]
//! models the variable table, which is the same `Map` with another hash.

/// Entries kept as a plain array before the map turns into a hash table.
pub const TINY_LIMIT: usize = 14;
/// Bucket count when the hash table is created.
pub const INITIAL_BUCKETS: usize = 128;

/// libutils' `StringHash(str, 0)`: Jenkins one-at-a-time over the unsigned bytes.
pub fn string_hash(s: &str) -> u32 {
    let mut h: u32 = 0;
    for &b in s.as_bytes() {
        h = h.wrapping_add(u32::from(b));
        h = h.wrapping_add(h << 10);
        h ^= h >> 6;
    }
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

/// The simulated order of one map of string keys.
#[derive(Debug, Clone, Default)]
pub struct MapOrder {
    /// Array mode: keys in insertion order. Unused once `buckets` is non-empty.
    array: Vec<String>,
    /// Hash mode: each bucket's `(hash, key)` entries, head last (a head insert is a push).
    buckets: Vec<Vec<(u32, String)>>,
    load: usize,
}

impl MapOrder {
    fn hashed(&self) -> bool {
        !self.buckets.is_empty()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        if self.hashed() {
            self.load
        } else {
            self.array.len()
        }
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Inserts `key`; a key already present keeps its place (the agent replaces the value in place).
    pub fn insert(&mut self, key: &str) {
        if !self.hashed() {
            if self.array.iter().any(|k| k == key) {
                return;
            }
            if self.array.len() < TINY_LIMIT {
                self.array.push(key.to_string());
                return;
            }
            self.buckets = vec![Vec::new(); INITIAL_BUCKETS];
            for k in std::mem::take(&mut self.array) {
                self.push_hashed(string_hash(&k), k);
            }
        }
        let h = string_hash(key);
        let n = self.buckets.len();
        if self
            .buckets
            .get(h as usize & (n - 1))
            .is_some_and(|b| b.iter().any(|(_, k)| k == key))
        {
            return;
        }
        self.push_hashed(h, key.to_string());
    }

    fn push_hashed(&mut self, h: u32, key: String) {
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

    /// Removes `key` if present.
    pub fn remove(&mut self, key: &str) {
        if !self.hashed() {
            self.array.retain(|k| k != key);
            return;
        }
        let n = self.buckets.len();
        let Some(b) = self.buckets.get_mut(string_hash(key) as usize & (n - 1)) else {
            return;
        };
        let Some(i) = b.iter().position(|(_, k)| k == key) else {
            return;
        };
        b.remove(i);
        self.load -= 1;
        // the threshold is truncated to an integer, as the agent stores it
        if self.load < n * 35 / 100 && n > INITIAL_BUCKETS {
            self.resize(n / 2);
        }
    }

    /// Every key in the agent's iteration order.
    pub fn visit(&self, f: &mut dyn FnMut(&str)) {
        if !self.hashed() {
            self.array.iter().for_each(|k| f(k));
            return;
        }
        for b in &self.buckets {
            for (_, k) in b.iter().rev() {
                f(k);
            }
        }
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
        assert_eq!(m.buckets.len(), 512);
        for i in 0..150 {
            m.remove(&format!("x{i}"));
        }
        assert_eq!(m.len(), 50);
        assert_eq!(m.buckets.len(), 128);
        let keys = m.keys();
        assert!(keys
            .windows(2)
            .all(|w| string_hash(&w[0]) & 127 <= string_hash(&w[1]) & 127));
    }
}
