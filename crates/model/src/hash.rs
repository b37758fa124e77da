//! One fast hash map for keys the program makes itself: clause ids, diagonal indices, packed
//! positions and bitboards.
//!
//! std's SipHash resists keys chosen to collide, and costs most of a lookup in the hot loops
//! that use these maps (a local-search repair step, a memo probe, a lemma lookup). foldhash's
//! fast variant (the hasher hashbrown uses) mixes a word with one folded 64 × 64 → 128-bit
//! multiply, good in the high and the low bits alike, which the hand-written multiply hashers
//! it replaces were not. Its seed is fixed, so a map iterates in the same order on every run
//! and every machine: an answer that walks a map is reproducible. A key an adversary picks to
//! collide (a proof's clause ids) only makes the work slower, never wrong.

use std::collections::HashMap;

/// The hasher of [`FastMap`]: foldhash, fixed seed.
pub type FastHash = foldhash::fast::FixedState;

/// A `HashMap` with [`FastHash`]; make one with `FastMap::default()`.
pub type FastMap<K, V> = HashMap<K, V, FastHash>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Fixed seed: two maps built alike iterate alike (answers that walk a map are
    /// reproducible).
    #[test]
    fn the_order_is_the_same_for_two_maps_built_alike() {
        let build = || {
            (0u64..1000)
                .map(|k| (k * 7919, k))
                .collect::<FastMap<_, _>>()
        };
        let a: Vec<_> = build().into_iter().collect();
        let b: Vec<_> = build().into_iter().collect();
        assert_eq!(a, b);
    }

    /// Keys that differ only in high bits, or only in low bits, land on different hashes
    /// (the failure of a plain multiply whose low bits a table then masks).
    #[test]
    fn keys_apart_in_high_or_low_bits_hash_apart() {
        use std::hash::BuildHasher;
        let h = FastHash::default();
        let mut low: Vec<u64> = (0..64).map(|i| h.hash_one(1u64 << i) & 0xffff).collect();
        low.sort_unstable();
        low.dedup();
        assert_eq!(low.len(), 64);
    }
}
