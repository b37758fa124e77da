//! Commander at-most-one (Klieber & Kwon 2007), groups of three, applied recursively.
//!
//! W. Klieber and G. Kwon, "Efficient CNF encoding for selecting 1 from N objects",
//! CFV 2007. The inputs are split into groups of [`GROUP`]; each group gets a commander `c`
//! with `xᵢ → c` for its members and pairwise at-most-one inside the group, and the commanders
//! are then constrained the same way, recursively, until at most [`PAIRWISE_UP_TO`] remain,
//! which get the pairwise encoding.
//!
//! The paper also adds `c → x₁ ∨ x₂ ∨ x₃` because its *exactly*-one puts the at-least-one
//! clause on the top-level commanders. Our [`exactly_one`](super::exactly_one) puts it on the
//! inputs instead, so that clause is not needed for correctness and is left out (one clause
//! per group fewer). A group of one input needs no commander: the input itself stands in.
//! About `n/2` auxiliary variables and `3n` clauses (`2n` on the first level).

use varisat::Lit;

use crate::encode::amo::pairwise;
use crate::encode::ClauseSink;

/// Inputs per group, the size the paper recommends.
pub const GROUP: usize = 3;

/// At or below this many literals the recursion stops and uses pairwise clauses: up to 5
/// inputs the commander level saves no clause over `n(n-1)/2`.
pub const PAIRWISE_UP_TO: usize = 5;

/// Adds the recursive commander encoding of "at most one of `lits`".
pub fn at_most_one(sink: &mut impl ClauseSink, lits: &[Lit]) {
    let mut level = lits.to_vec();
    while level.len() > PAIRWISE_UP_TO {
        let mut commanders = Vec::with_capacity(level.len().div_ceil(GROUP));
        for group in level.chunks(GROUP) {
            if let [single] = group {
                commanders.push(*single);
                continue;
            }
            pairwise::at_most_one(sink, group);
            let c = sink.new_var();
            for &x in group {
                sink.add_clause(&[!x, c]);
            }
            commanders.push(c);
        }
        level = commanders;
    }
    pairwise::at_most_one(sink, &level);
}
