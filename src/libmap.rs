//! libutils' `Map` (the container of cf-agent 3.21's variable table, class tables and string sets),
//! reduced to what decides its iteration order: a plain array (insertion order, removal closes the gap)
//! up to [`TINY_LIMIT`] entries, then a chained hash table of [`INITIAL_BUCKETS`] buckets (new entries at
//! the head of their bucket; doubling when the load passes 3/4, walking the old buckets in order and
//! pushing each entry to the head of its new bucket; halving under 0.35 while bigger than its first
//! size). The hash is the caller's: [`crate::eval::classtable`] and the simulate report's package maps
//! key strings by [`string_hash`], [`crate::eval::vartable`] keys variable-map positions by the variable
//! table's hash.

/// libntech's `StringHash(str, seed)`: Jenkins one-at-a-time over the unsigned bytes (the hash of its
/// string maps and sets, of `shuffle()`'s seed, of `select_class` and `splayclass`).
pub fn string_hash(s: &str, seed: u32) -> u32 {
    let mut h = seed;
    for &b in s.as_bytes() {
        h = h.wrapping_add(u32::from(b));
        h = h.wrapping_add(h << 10);
        h ^= h >> 6;
    }
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

/// Entries kept as a plain array before the map turns into a hash table.
pub const TINY_LIMIT: usize = 14;
/// Bucket count when the hash table is created.
pub const INITIAL_BUCKETS: usize = 128;

/// The simulated order of one map; entries are `(hash, item)`.
#[derive(Debug, Clone)]
pub struct LibMap<T> {
    /// Array mode: entries in insertion order. Unused once `buckets` is non-empty.
    array: Vec<(u32, T)>,
    /// Hash mode: each bucket's entries, head last (a head insert is a push).
    buckets: Vec<Vec<(u32, T)>>,
    load: usize,
}

impl<T> Default for LibMap<T> {
    fn default() -> Self {
        LibMap {
            array: Vec::new(),
            buckets: Vec::new(),
            load: 0,
        }
    }
}

impl<T> LibMap<T> {
    fn hashed(&self) -> bool {
        !self.buckets.is_empty()
    }

    /// Number of entries.
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

    /// Bucket count (0 in array mode).
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// Whether an entry of hash `h` satisfies `is`.
    pub fn contains(&self, h: u32, is: impl Fn(&T) -> bool) -> bool {
        if !self.hashed() {
            return self.array.iter().any(|(_, t)| is(t));
        }
        let n = self.buckets.len();
        self.buckets
            .get(h as usize & (n - 1))
            .is_some_and(|b| b.iter().any(|(_, t)| is(t)))
    }

    /// The entry of hash `h` satisfying `is`.
    pub fn get(&self, h: u32, is: impl Fn(&T) -> bool) -> Option<&T> {
        if !self.hashed() {
            return self.array.iter().map(|(_, t)| t).find(|t| is(t));
        }
        let n = self.buckets.len();
        self.buckets
            .get(h as usize & (n - 1))?
            .iter()
            .map(|(_, t)| t)
            .find(|t| is(t))
    }

    /// The entry of hash `h` satisfying `is`, to change in place.
    pub fn get_mut(&mut self, h: u32, is: impl Fn(&T) -> bool) -> Option<&mut T> {
        if !self.hashed() {
            return self.array.iter_mut().map(|(_, t)| t).find(|t| is(t));
        }
        let n = self.buckets.len();
        self.buckets
            .get_mut(h as usize & (n - 1))?
            .iter_mut()
            .map(|(_, t)| t)
            .find(|t| is(t))
    }

    /// Appends an entry of hash `h` (callers check for duplicates first: the agent replaces a value in
    /// place).
    pub fn insert(&mut self, h: u32, item: T) {
        if !self.hashed() {
            if self.array.len() < TINY_LIMIT {
                self.array.push((h, item));
                return;
            }
            self.buckets = (0..INITIAL_BUCKETS).map(|_| Vec::new()).collect();
            for (oh, o) in std::mem::take(&mut self.array) {
                self.push_hashed(oh, o);
            }
        }
        self.push_hashed(h, item);
    }

    fn push_hashed(&mut self, h: u32, item: T) {
        let n = self.buckets.len();
        if let Some(b) = self.buckets.get_mut(h as usize & (n - 1)) {
            b.push((h, item));
        }
        self.load += 1;
        if self.load * 4 > n * 3 {
            self.resize(n * 2);
        }
    }

    fn resize(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.buckets, (0..size).map(|_| Vec::new()).collect());
        for bucket in old {
            for (h, t) in bucket.into_iter().rev() {
                if let Some(b) = self.buckets.get_mut(h as usize & (size - 1)) {
                    b.push((h, t));
                }
            }
        }
    }

    /// One removal's bookkeeping in hash mode: the load drops, and the table halves under 0.35 (the
    /// threshold truncated to an integer, as the agent stores it) while bigger than its first size.
    fn removed_one(&mut self) {
        self.load -= 1;
        let n = self.buckets.len();
        if self.load < n * 35 / 100 && n > INITIAL_BUCKETS {
            self.resize(n / 2);
        }
    }

    /// Removes the first entry of hash `h` satisfying `is`; returns whether one was found.
    pub fn remove(&mut self, h: u32, is: impl Fn(&T) -> bool) -> bool {
        if !self.hashed() {
            let Some(i) = self.array.iter().position(|(_, t)| is(t)) else {
                return false;
            };
            self.array.remove(i);
            return true;
        }
        let n = self.buckets.len();
        let Some(b) = self.buckets.get_mut(h as usize & (n - 1)) else {
            return false;
        };
        let Some(i) = b.iter().position(|(_, t)| is(t)) else {
            return false;
        };
        b.remove(i);
        self.removed_one();
        true
    }

    /// Removes every entry satisfying `gone` in one pass: what as many calls of [`LibMap::remove`] do,
    /// in linear time (the table halves as often as the removals one by one would make it; the
    /// survivors' order does not depend on when a removal happens relative to a resize).
    pub fn remove_all(&mut self, gone: impl Fn(&T) -> bool) {
        if !self.hashed() {
            self.array.retain(|(_, t)| !gone(t));
            return;
        }
        let mut found = 0;
        for b in &mut self.buckets {
            let before = b.len();
            b.retain(|(_, t)| !gone(t));
            found += before - b.len();
        }
        for _ in 0..found {
            self.removed_one();
        }
    }

    /// Changes every entry in place (not its hash).
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut T)) {
        self.array.iter_mut().for_each(|(_, t)| f(t));
        for b in &mut self.buckets {
            b.iter_mut().for_each(|(_, t)| f(t));
        }
    }

    /// Every entry in the agent's iteration order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.array
            .iter()
            .chain(self.buckets.iter().flat_map(|b| b.iter().rev()))
            .map(|(_, t)| t)
    }

    /// Where the entry of hash `h` satisfying `is` comes in [`LibMap::iter`]'s order, as a sortable key
    /// (bucket, place in its chain); `None` when there is no such entry.
    pub fn rank(&self, h: u32, is: impl Fn(&T) -> bool) -> Option<(usize, usize)> {
        if !self.hashed() {
            return self.array.iter().position(|(_, t)| is(t)).map(|i| (0, i));
        }
        let b = h as usize & (self.buckets.len() - 1);
        let chain = self.buckets.get(b)?;
        // a chain is iterated from its head, the last element
        let i = chain.iter().position(|(_, t)| is(t))?;
        Some((b, chain.len() - 1 - i))
    }

    /// [`LibMap::iter`] through a callback.
    pub fn visit(&self, f: &mut dyn FnMut(&T)) {
        self.iter().for_each(f);
    }
}
