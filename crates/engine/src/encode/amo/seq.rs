//! Sequential counter at-most-one (Sinz 2005).
//!
//! C. Sinz, "Towards an optimal CNF encoding of Boolean cardinality constraints", CP 2005,
//! encoding `LTSEQ(n, 1)`. Auxiliary `sᵢ` reads "one of `x₁..xᵢ` is true" (it may be true
//! spuriously, never falsely false) and the clauses
//!
//! ```text
//! ¬x₁ ∨ s₁
//! ¬xᵢ ∨ sᵢ,  ¬sᵢ₋₁ ∨ sᵢ,  ¬xᵢ ∨ ¬sᵢ₋₁     for 1 < i < n
//! ¬xₙ ∨ ¬sₙ₋₁
//! ```
//!
//! carry that bit along the inputs: `n - 1` auxiliary variables, `3n - 4` binary clauses.
//! Unit propagation still detects every violation (the encoding is arc-consistent).

use varisat::Lit;

use crate::encode::ClauseSink;

/// Adds Sinz's sequential counter for "at most one of `lits`"; nothing for fewer than two.
pub fn at_most_one(sink: &mut impl ClauseSink, lits: &[Lit]) {
    let n = lits.len();
    if n < 2 {
        return;
    }
    let mut prev = sink.new_var();
    sink.add_clause(&[!lits[0], prev]);
    for &x in &lits[1..n - 1] {
        let s = sink.new_var();
        sink.add_clause(&[!x, s]);
        sink.add_clause(&[!prev, s]);
        sink.add_clause(&[!x, !prev]);
        prev = s;
    }
    sink.add_clause(&[!lits[n - 1], !prev]);
}
