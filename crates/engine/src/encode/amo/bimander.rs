//! Bimander at-most-one (Nguyen & Mai 2015): pairwise in small groups, groups told apart by
//! binary commander bits.
//!
//! V.-H. Nguyen and S. T. Mai, "A new method to encode the at-most-one constraint into SAT"
//! (the bimander encoding), SoICT 2015. The inputs are split into `m` groups of [`GROUP`]
//! (so `m = ⌈n/2⌉` by default) with pairwise at-most-one inside each group; group `i` is then
//! named by the bits of `i` on `⌈log₂ m⌉` fresh variables `B_j`: every member `x` of group `i`
//! gets `¬x ∨ B_j` where bit `j` of `i` is 1 and `¬x ∨ ¬B_j` where it is 0. Two true inputs in
//! different groups force different bit patterns, a contradiction. With groups of two:
//! `⌈log₂ ⌈n/2⌉⌉` auxiliary variables and about `n/2 + n⌈log₂(n/2)⌉` clauses. With one group
//! it is the pairwise encoding, with groups of one the binary (bitwise) encoding.

use varisat::Lit;

use crate::encode::amo::pairwise;
use crate::encode::ClauseSink;

/// Default inputs per group.
pub const GROUP: usize = 2;

/// Adds the bimander encoding of "at most one of `lits`" with groups of [`GROUP`].
pub fn at_most_one(sink: &mut impl ClauseSink, lits: &[Lit]) {
    at_most_one_grouped(sink, lits, GROUP);
}

/// Adds the bimander encoding of "at most one of `lits`" with groups of `group_size`
/// (at least 1), i.e. `⌈n / group_size⌉` groups.
pub fn at_most_one_grouped(sink: &mut impl ClauseSink, lits: &[Lit], group_size: usize) {
    let group_size = group_size.max(1);
    let groups = lits.len().div_ceil(group_size);
    // Bits needed to number the groups 0..groups: ⌈log₂ groups⌉, 0 for a single group.
    let width = (usize::BITS - groups.saturating_sub(1).leading_zeros()) as usize;
    let bits: Vec<Lit> = (0..width).map(|_| sink.new_var()).collect();
    for (i, group) in lits.chunks(group_size).enumerate() {
        pairwise::at_most_one(sink, group);
        for &x in group {
            for (j, &b) in bits.iter().enumerate() {
                let bit = if (i >> j) & 1 == 1 { b } else { !b };
                sink.add_clause(&[!x, bit]);
            }
        }
    }
}
