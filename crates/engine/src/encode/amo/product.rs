//! Two-product at-most-one (Chen 2010), applied recursively.
//!
//! J. Chen, "A new SAT encoding of the at-most-one constraint", ModRef 2010. The `n` inputs
//! are laid out on a `p × q` grid with `p = ⌈√n⌉`, `q = ⌈n/p⌉`; input `k` at `(k / q, k % q)`
//! implies its row variable `uᵢ` and its column variable `vⱼ`, and at-most-one is then imposed
//! on the `u`s and on the `v`s, recursively. Two true inputs differ in row or column, so one
//! of those two smaller constraints fails. Below [`PAIRWISE_UP_TO`] + 1 inputs the recursion
//! uses pairwise clauses. About `2n + 4√n` clauses and `2√n` auxiliary variables: the fewest
//! clauses of the encodings here for large `n`.

use varisat::Lit;

use crate::encode::amo::pairwise;
use crate::encode::ClauseSink;

/// At or below this many literals pairwise clauses are used: up to 6 inputs the grid saves
/// no clause over `n(n-1)/2`.
pub const PAIRWISE_UP_TO: usize = 6;

/// Adds the recursive two-product encoding of "at most one of `lits`".
pub fn at_most_one(sink: &mut impl ClauseSink, lits: &[Lit]) {
    let n = lits.len();
    if n <= PAIRWISE_UP_TO {
        pairwise::at_most_one(sink, lits);
        return;
    }
    let p = n.isqrt() + usize::from(n.isqrt() * n.isqrt() < n);
    let q = n.div_ceil(p);
    let rows: Vec<Lit> = (0..p).map(|_| sink.new_var()).collect();
    let cols: Vec<Lit> = (0..q).map(|_| sink.new_var()).collect();
    for (k, &x) in lits.iter().enumerate() {
        sink.add_clause(&[!x, rows[k / q]]);
        sink.add_clause(&[!x, cols[k % q]]);
    }
    at_most_one(sink, &rows);
    at_most_one(sink, &cols);
}
