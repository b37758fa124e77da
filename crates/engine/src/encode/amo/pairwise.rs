//! Pairwise (naive, binomial) at-most-one: one binary clause per pair of inputs.
//!
//! `¬xᵢ ∨ ¬xⱼ` for every `i < j`: no auxiliary variables, `n(n-1)/2` clauses. It is the
//! textbook encoding (see e.g. Chen 2010 or Nguyen & Mai 2015 for comparisons) and has the
//! strongest propagation possible, so it is the best choice for small groups and the base case
//! of the recursive encodings.

use varisat::Lit;

use crate::encode::ClauseSink;

/// Adds `¬a ∨ ¬b` for every pair of `lits`.
pub fn at_most_one(sink: &mut impl ClauseSink, lits: &[Lit]) {
    for (i, &a) in lits.iter().enumerate() {
        for &b in &lits[i + 1..] {
            sink.add_clause(&[!a, !b]);
        }
    }
}
