//! A small non-cryptographic hasher (multiply-rotate over 8-byte words, in the manner of rustc's
//! FxHash) for the maps of every layer (syntax tables, host, evaluation context), whose keys are
//! policy names and text lines: lookups there dominate pre-evaluation
//! and the standard SipHash costs several times more. Iteration order is unaffected (the maps are
//! `IndexMap`s, ordered by insertion).

use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The hasher state.
#[derive(Debug, Default, Clone, Copy)]
pub struct FastHasher {
    hash: u64,
}

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // the 1 to 7 bytes little-endian in a word, read in at most three loads (a copy of a
            // variable length would call memcpy for every key)
            let mut w = 0u64;
            let mut shift = 0;
            let mut r = rest;
            if let Some((a, tail)) = r.split_first_chunk::<4>() {
                w = u64::from(u32::from_le_bytes(*a));
                shift = 32;
                r = tail;
            }
            if let Some((a, tail)) = r.split_first_chunk::<2>() {
                w |= u64::from(u16::from_le_bytes(*a)) << shift;
                shift += 16;
                r = tail;
            }
            if let Some(&b) = r.first() {
                w |= u64::from(b) << shift;
            }
            self.add(w ^ ((rest.len() as u64) << 56));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // the multiply carries every input bit upwards only: the low bits, which pick the bucket of
        // a hashbrown table, would depend on the first bytes of the last word alone (40,000 bundles
        // `b0`…`b39999` met a few hundred buckets). Rotating brings the well-mixed high bits down,
        // as rustc-hash 2 does.
        self.hash.rotate_left(26)
    }
}

/// `BuildHasher` for maps keyed by policy names.
pub type FastState = BuildHasherDefault<FastHasher>;

/// An `IndexMap` with [`FastHasher`].
pub type FastIndexMap<K, V> = indexmap::IndexMap<K, V, FastState>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn h<T: Hash>(t: &T) -> u64 {
        let mut s = FastHasher::default();
        t.hash(&mut s);
        s.finish()
    }

    #[test]
    fn tail_bytes_pack_as_a_little_endian_word() {
        // the word the tail loads make is the zero-padded little-endian copy of the tail
        let data: Vec<u8> = (1..=23u8).collect();
        for len in 0..data.len() {
            let bytes = &data[..len];
            let mut want = FastHasher::default();
            let mut chunks = bytes.chunks_exact(8);
            for c in &mut chunks {
                let mut w = [0u8; 8];
                w.copy_from_slice(c);
                want.add(u64::from_le_bytes(w));
            }
            let rest = chunks.remainder();
            if !rest.is_empty() {
                let mut w = [0u8; 8];
                w[..rest.len()].copy_from_slice(rest);
                want.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
            }
            let mut got = FastHasher::default();
            got.write(bytes);
            assert_eq!(got.finish(), want.finish(), "{len} bytes");
        }
    }

    #[test]
    fn distinct_keys_hash_apart_and_equal_keys_alike() {
        let a = ("default".to_string(), "main".to_string(), "x".to_string());
        let b = ("default".to_string(), "main".to_string(), "y".to_string());
        assert_eq!(h(&a), h(&a.clone()));
        assert_ne!(h(&a), h(&b));
        assert_ne!(h(&"ab"), h(&"ba"));
    }

    /// Names that differ only after their first bytes spread over a table's buckets: the low 12 bits
    /// of the hashes of `b0`…`b39999` (and of the u64 keys hashed from them) take nearly every value.
    #[test]
    fn low_bits_spread_over_names_sharing_a_prefix() {
        let mut names = std::collections::HashSet::new();
        let mut words = std::collections::HashSet::new();
        for i in 0..40_000 {
            let k = h(&format!("b{i}"));
            names.insert(k & 0xfff);
            words.insert(h(&k) & 0xfff);
        }
        assert!(names.len() > 4000, "{} of 4096 low-bit values", names.len());
        assert!(words.len() > 4000, "{} of 4096 low-bit values", words.len());
    }
}
