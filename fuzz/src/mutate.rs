//! Byte- and token-level mutations: bit and byte flips, insertions of the target's dictionary tokens
//! and of interesting numbers, deletions, splices and crossovers with another corpus entry, truncation
//! and repetition of a chunk. Inputs never grow past [`MAX_LEN`].

use crate::rng::Rng;

/// Largest input the mutator makes (bytes).
pub const MAX_LEN: usize = 64 * 1024;

/// Tokens every target's dictionary has: numbers at the edges of the integer and float ranges,
/// separators, and bytes that are not UTF-8.
pub const COMMON: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "256",
    "65536",
    "2147483647",
    "-2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e308",
    "1e999",
    "-0.0",
    "NaN",
    "inf",
    "\n",
    "\r\n",
    "\t",
    " ",
    "\0",
    "\\",
    "\u{FFFD}",
    "é",
    "\u{202E}",
];

/// Apply 1 to `max_ops` mutations to `base`; `other` is a second input to splice from.
pub fn mutate(rng: &mut Rng, base: &[u8], other: &[u8], dict: &[&str], max_ops: usize) -> Vec<u8> {
    let mut b = base.to_vec();
    let ops = 1 + rng.below(max_ops.max(1));
    for _ in 0..ops {
        one(rng, &mut b, other, dict);
        if b.len() > MAX_LEN {
            b.truncate(MAX_LEN);
        }
    }
    b
}

fn token<'a>(rng: &mut Rng, dict: &[&'a str]) -> &'a str {
    if dict.is_empty() || rng.one_in(4) {
        rng.pick(COMMON)
    } else {
        rng.pick(dict)
    }
}

/// A range `start..end` inside `len`, at most `max` long.
fn range(rng: &mut Rng, len: usize, max: usize) -> (usize, usize) {
    let start = rng.below(len + 1);
    let end = (start + 1 + rng.below(max)).min(len);
    (start, end.max(start))
}

fn one(rng: &mut Rng, b: &mut Vec<u8>, other: &[u8], dict: &[&str]) {
    let at = rng.below(b.len() + 1);
    match rng.below(11) {
        0 => {
            if let Some(x) = b.get_mut(at) {
                *x ^= 1 << rng.below(8);
            }
        }
        1 => {
            if let Some(x) = b.get_mut(at) {
                *x = rng.next() as u8;
            }
        }
        2..=4 => {
            let t = token(rng, dict);
            b.splice(at..at, t.bytes());
        }
        5 => {
            // replace a short range by a token
            let (s, e) = range(rng, b.len(), 16);
            let t = token(rng, dict);
            b.splice(s..e, t.bytes());
        }
        6 => {
            let (s, e) = range(rng, b.len(), 64);
            b.drain(s..e);
        }
        7 => {
            let (s, e) = range(rng, other.len(), 256);
            let chunk = other.get(s..e).unwrap_or(&[]).to_vec();
            b.splice(at..at, chunk);
        }
        8 => {
            // crossover: our prefix, the other's suffix
            let from = rng.below(other.len() + 1);
            b.truncate(at);
            b.extend_from_slice(other.get(from..).unwrap_or(&[]));
        }
        9 => {
            // repeat a chunk 2-64 times
            let (s, e) = range(rng, b.len(), 32);
            let chunk = b.get(s..e).unwrap_or(&[]).to_vec();
            let times = 1 + rng.below(63);
            let mut rep = Vec::with_capacity(chunk.len() * times);
            for _ in 0..times {
                rep.extend_from_slice(&chunk);
                if rep.len() > MAX_LEN {
                    break;
                }
            }
            b.splice(e..e, rep);
        }
        _ => {
            if rng.one_in(2) {
                b.truncate(at);
            } else {
                b.drain(..at);
            }
        }
    }
}
