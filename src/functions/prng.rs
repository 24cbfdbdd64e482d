//! The agent's pseudo-random pieces: its string hash (`StringHash`, Jenkins one-at-a-time) and glibc's
//! `srand`/`rand` (the TYPE_3 additive feedback generator), which `shuffle()` seeds with the hash of its
//! seed string (libntech `SeqShuffle`).

pub use crate::libmap::string_hash;

/// glibc `rand()` after `srand(seed)`.
pub struct GlibcRand {
    r: Vec<u32>,
}

impl GlibcRand {
    /// `srand(seed)`.
    pub fn new(seed: u32) -> GlibcRand {
        let seed = if seed == 0 { 1 } else { seed };
        let mut r: Vec<i64> = vec![0; 34];
        r[0] = i64::from(seed as i32);
        for i in 1..31 {
            let prev = r[i - 1];
            let hi = prev / 127_773;
            let lo = prev % 127_773;
            let mut word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            r[i] = word;
        }
        for i in 31..34 {
            r[i] = r[i - 31];
        }
        let mut g = GlibcRand {
            r: r.into_iter().map(|x| x as u32).collect(),
        };
        for _ in 34..344 {
            g.step();
        }
        g
    }

    fn step(&mut self) -> u32 {
        let n = self.r.len();
        let v = self.r[n - 31].wrapping_add(self.r[n - 3]);
        self.r.push(v);
        if self.r.len() > 4096 {
            self.r.drain(..self.r.len() - 64);
        }
        v
    }

    /// `rand()`.
    pub fn next_rand(&mut self) -> u32 {
        self.step() >> 1
    }
}

/// `shuffle(list, seed)`: Fisher–Yates with glibc `rand()` seeded by the string hash of `seed`; the
/// agent then prepends each element to the result, so the shuffled order comes out reversed.
pub fn shuffle(items: &[String], seed: &str) -> Vec<String> {
    let mut seq = items.to_vec();
    let mut g = GlibcRand::new(string_hash(seed, 0));
    for i in (1..seq.len()).rev() {
        let j = g.next_rand() as usize % (i + 1);
        seq.swap(i, j);
    }
    seq.reverse();
    seq
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glibc_rand_sequence() {
        let mut g = GlibcRand::new(1);
        assert_eq!(
            [g.next_rand(), g.next_rand(), g.next_rand()],
            [1_804_289_383, 846_930_886, 1_681_692_777]
        );
    }
}
