//! The `this.*` scope of the promise being evaluated: a handful of entries in insertion order, kept in
//! one vector whose tail holds the buffers of earlier entries for reuse. Every promise evaluation
//! rewrites the same five or seven keys, so a linear scan over short keys beats hashing, and the
//! values' buffers are rewritten in place instead of being freed and allocated again.

/// Most entries kept past the live ones (keys used once, such as a map function's `this.k`, must not
/// pile up).
const SPARE_MAX: usize = 16;

/// The scope: `entries[..live]` are its entries in insertion order; `entries[live..]` are spare
/// buffers (earlier entries, keys kept) that [`ThisScope::put`] and [`ThisScope::reset`] reuse.
#[derive(Debug, Clone, Default)]
pub struct ThisScope {
    entries: Vec<(String, String)>,
    live: usize,
    /// The caller's token of the last [`ThisScope::reset_owned`] (`None` after any other reset).
    owner: Option<(usize, usize)>,
    /// How many leading entries are untouched since that reset (a `put`/`clear` lowers it).
    clean: usize,
}

impl ThisScope {
    /// Empties the scope (the buffers stay for reuse).
    pub fn clear(&mut self) {
        // the entries' texts stay (a later `put` lowers `clean` where it writes)
        self.live = 0;
    }

    /// `this.<key>`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries[..self.live]
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether the scope has no entry.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Sets `this.<key>` (a new key goes after the others).
    pub fn put(&mut self, key: &str, value: &str) {
        if let Some(i) = self.entries[..self.live].iter().position(|(k, _)| k == key) {
            self.clean = self.clean.min(i);
            let v = &mut self.entries[i].1;
            v.clear();
            v.push_str(value);
            return;
        }
        self.clean = self.clean.min(self.live);
        // after a reset the next spare entry is usually the key asked (promiser, then promiser_pid)
        match self.entries[self.live..].iter().position(|(k, _)| k == key) {
            Some(i) => {
                self.entries.swap(self.live, self.live + i);
                let v = &mut self.entries[self.live].1;
                v.clear();
                v.push_str(value);
            }
            None => {
                if self.entries.len() - self.live >= SPARE_MAX {
                    self.entries.truncate(self.live + SPARE_MAX - 1);
                }
                self.entries.push((key.to_string(), value.to_string()));
                let last = self.entries.len() - 1;
                self.entries.swap(self.live, last);
            }
        }
        self.live += 1;
    }

    /// Makes the scope hold exactly `entries`, in their order (as [`ThisScope::clear`] followed by
    /// [`ThisScope::put`] for each would). When the vector already starts with these keys (the usual
    /// case: every promise sets the same ones first), only the values are rewritten.
    pub fn reset(&mut self, entries: &[(&str, &str)]) {
        self.owner = None;
        self.clean = entries.len();
        let same_keys = self.entries.len() >= entries.len()
            && entries
                .iter()
                .zip(&self.entries)
                .all(|((k, _), (have, _))| have == k);
        if same_keys {
            for ((_, v), (_, have)) in entries.iter().zip(self.entries.iter_mut()) {
                have.clear();
                have.push_str(v);
            }
            self.live = entries.len();
        } else {
            self.live = 0;
            for (k, v) in entries {
                self.put(k, v);
            }
            self.clean = entries.len();
        }
    }

    /// [`ThisScope::reset`] for a caller whose first `fixed` values are decided by `owner` (a token
    /// the caller never gives to different values: the promise's bundle and file). When the last reset
    /// was this owner's and nothing has rewritten those entries since, only the others are rewritten
    /// (every promise of a bundle sets the same bundle, namespace and file; only its line differs).
    pub fn reset_owned(&mut self, owner: (usize, usize), fixed: usize, entries: &[(&str, &str)]) {
        let fixed = fixed.min(entries.len());
        let keep = self.owner == Some(owner)
            && self.clean >= fixed
            && self.entries.len() >= entries.len()
            && entries[fixed..]
                .iter()
                .zip(&self.entries[fixed..])
                .all(|((k, _), (have, _))| have == k);
        if keep {
            for ((_, v), (_, have)) in entries[fixed..]
                .iter()
                .zip(self.entries[fixed..].iter_mut())
            {
                have.clear();
                have.push_str(v);
            }
            self.live = entries.len();
            self.clean = entries.len();
        } else {
            self.reset(entries);
            self.owner = Some(owner);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn keys(s: &ThisScope) -> Vec<&str> {
        s.entries[..s.live]
            .iter()
            .map(|(k, _)| k.as_str())
            .collect()
    }

    #[test]
    fn put_get_clear_and_reuse() {
        let mut s = ThisScope::default();
        s.put("bundle", "main");
        s.put("promiser", "x");
        s.put("bundle", "other");
        assert_eq!(s.get("bundle"), Some("other"));
        assert_eq!(s.get("promiser"), Some("x"));
        assert_eq!(keys(&s), ["bundle", "promiser"]);
        s.clear();
        assert_eq!(s.get("bundle"), None);
        assert!(s.is_empty());
        // a key from the spare tail goes after the live ones, in insertion order
        s.put("promiser", "y");
        s.put("k", "1");
        s.put("bundle", "b");
        assert_eq!(keys(&s), ["promiser", "k", "bundle"]);
        assert_eq!(s.get("promiser"), Some("y"));
        assert_eq!(s.get("bundle"), Some("b"));
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn reset_rewrites_in_place_or_rebuilds() {
        let mut s = ThisScope::default();
        s.reset(&[("bundle", "a"), ("namespace", "default")]);
        s.put("promiser", "p");
        s.reset(&[("bundle", "b"), ("namespace", "ns")]);
        assert_eq!(keys(&s), ["bundle", "namespace"]);
        assert_eq!(s.get("promiser"), None);
        assert_eq!(s.get("bundle"), Some("b"));
        // other keys first: rebuilt, same result as clear + put
        s.clear();
        s.put("k", "v");
        s.reset(&[("bundle", "c"), ("namespace", "d")]);
        assert_eq!(keys(&s), ["bundle", "namespace"]);
        assert_eq!(s.get("k"), None);
        assert_eq!(s.get("namespace"), Some("d"));
    }

    #[test]
    fn spare_keys_do_not_pile_up() {
        let mut s = ThisScope::default();
        for i in 0..1000 {
            s.clear();
            s.put(&format!("k{i}"), "v");
        }
        assert!(s.entries.len() <= SPARE_MAX + 1);
        assert_eq!(s.get("k999"), Some("v"));
        assert_eq!(s.get("k998"), None);
    }
}
