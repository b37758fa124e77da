//! Ring bounds: how many queens each concentric square ring of an n-queens solution can hold,
//! and those bounds as redundant cardinality constraints for the SAT encoding.
//!
//! The subpanel method of "An alternative algorithm for the n-Queens puzzle" (Recreational
//! Mathematics Magazine, 2021) cuts the board into rings (ring 0 the border, inwards) and
//! searches only combinations of per-ring counts that sum to n; for n = 8 its table is 3–4
//! (border), 0–4, 0–4, 0–1 (the 2×2 centre). [`bounds`] generalises it with arguments that hold
//! for every n-queens solution, whatever its fixed queens, blocked cells or excluded diagonals
//! (those only remove solutions), under the full diagonal rule:
//!
//! 1. **Ring maximum.** Ring k lies on rows k and n−1−k and columns k and n−1−k, one queen
//!    each at most, so it holds at most 4; the exact maximum is the largest set of its cells
//!    no two of which attack each other ([`ring_max`], a small search: 1 for the 2×2 centre,
//!    2 for a 3×3 ring).
//! 2. **Border minimum.** Row 0, row n−1, column 0 and column n−1 each hold exactly one queen,
//!    all on the border; a queen covers two of these lines only in a corner, and two corners
//!    always attack each other (a row, a column or a long diagonal), so the border holds at
//!    least 4 − 1 = 3 queens (n ≥ 4).
//! 3. **Inner square.** The m×m square inside ring k holds at most q(m) queens (m for m ≥ 4;
//!    q(1) = q(2) = 1, q(3) = 2), so rings 0..=k hold at least n − q(n − 2k − 2).
//! 4. **Sums.** The counts sum to n: each ring holds at least n minus the others' maxima and at
//!    most n minus their minima; rules 3 and 4 are applied until nothing changes.
//!
//! The test suite checks every solution for n ≤ 12 against these bounds.

use varisat::Lit;

use crate::cnf::CellMap;
use crate::encode::ClauseSink;
use queens_model::error::Error;
use queens_model::model::{DiagonalRule, Problem};

/// One ring's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RingBound {
    /// 0 is the border; rings go inwards.
    pub ring: usize,
    /// Cells in the ring.
    pub cells: usize,
    /// Fewest queens any solution has in the ring.
    pub min: usize,
    /// Most queens any solution has in the ring.
    pub max: usize,
}

/// The ring of cell (r, c) on an n×n board.
pub fn ring_of(n: usize, (r, c): (usize, usize)) -> usize {
    r.min(c).min(n - 1 - r).min(n - 1 - c)
}

/// Number of rings of an n×n board.
pub fn ring_count(n: usize) -> usize {
    n.div_ceil(2)
}

/// The cells of ring k, in row-major order.
pub fn ring_cells(n: usize, k: usize) -> Vec<(usize, usize)> {
    (k..n - k)
        .flat_map(|r| (k..n - k).map(move |c| (r, c)))
        .filter(|&p| ring_of(n, p) == k)
        .collect()
}

/// Most non-attacking queens on an m×m board.
fn square_max(m: usize) -> usize {
    match m {
        0 => 0,
        1 | 2 => 1,
        3 => 2,
        m => m,
    }
}

fn attack(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 == b.0 || a.1 == b.1 || a.0 + b.1 == b.0 + a.1 || a.0 + a.1 == b.0 + b.1
}

/// Most queens of ring k no two of which attack each other (at most 4: two rows, two
/// columns), by a search that stops at 4.
pub fn ring_max(n: usize, k: usize) -> usize {
    fn grow(cells: &[(usize, usize)], from: usize, chosen: &mut Vec<(usize, usize)>) -> usize {
        let mut best = chosen.len();
        if best == 4 {
            return 4;
        }
        for i in from..cells.len() {
            if chosen.iter().all(|&q| !attack(q, cells[i])) {
                chosen.push(cells[i]);
                best = best.max(grow(cells, i + 1, chosen));
                chosen.pop();
                if best == 4 {
                    break;
                }
            }
        }
        best
    }
    grow(&ring_cells(n, k), 0, &mut Vec::new())
}

/// The bounds of every ring of an n×n board (ring 0 first), as the module docs derive them.
pub fn bounds(n: usize) -> Vec<RingBound> {
    let rings = ring_count(n);
    let mut b: Vec<RingBound> = (0..rings)
        .map(|k| RingBound {
            ring: k,
            cells: ring_cells(n, k).len(),
            min: 0,
            max: ring_max(n, k),
        })
        .collect();
    if n >= 4 {
        b[0].min = 3;
    } else if n == 1 {
        b[0].min = 1;
    }
    loop {
        let before = b.clone();
        let sum_max: usize = b.iter().map(|r| r.max).sum();
        let sum_min: usize = b.iter().map(|r| r.min).sum();
        for k in 0..rings {
            let others_max = sum_max - b[k].max;
            let others_min = sum_min - b[k].min;
            // Rule 4.
            b[k].min = b[k].min.max(n.saturating_sub(others_max));
            b[k].max = b[k].max.min(n.saturating_sub(others_min));
            // Rule 3: rings 0..=k hold at least n − q(inner side), so ring k at least that
            // minus the outer rings' maxima.
            let inner = n.saturating_sub(2 * k + 2);
            let outer_max: usize = b[..k].iter().map(|r| r.max).sum();
            let need = n.saturating_sub(square_max(inner));
            b[k].min = b[k].min.max(need.saturating_sub(outer_max));
        }
        if b == before {
            return b;
        }
    }
}

/// The paper's table for n = 8 (ring 0 first): border 3–4, then 0–4, 0–4, centre 0–1.
pub const PAPER_N8: [(usize, usize, usize); 4] = [(28, 3, 4), (20, 0, 4), (12, 0, 4), (4, 0, 1)];

/// Refuses ring constraints where the bounds do not hold: a board whose diagonal rule is not
/// the full one (region puzzles), where queens on a diagonal do not attack.
pub fn check_applies(problem: &Problem) -> Result<(), Error> {
    if problem.rule() != DiagonalRule::Full {
        return Err(Error::unsupported(
            "ring bounds hold for the n-queens rule (full diagonals), not for puzzles where \
             only touching queens attack: drop --rings"
                .into(),
        )
        .about("rings"));
    }
    Ok(())
}

/// Adds each ring's bounds as cardinality constraints over its cell variables (a sequential
/// counter, Sinz 2005, with both directions so it bounds from below too). Queens decided
/// before encoding count towards their ring. Redundant: every solution satisfies them.
pub fn add_rings(problem: &Problem, map: &CellMap, sink: &mut impl ClauseSink) {
    let n = problem.n();
    for b in bounds(n) {
        let cells = ring_cells(n, b.ring);
        let decided = problem
            .fixed()
            .iter()
            .filter(|&&p| ring_of(n, p) == b.ring)
            .count();
        let lits: Vec<Lit> = cells.iter().filter_map(|&p| map.lit(p)).collect();
        if decided > b.max || b.min > decided + lits.len() {
            sink.add_clause(&[]);
            continue;
        }
        cardinality(sink, &lits, b.min.saturating_sub(decided), b.max - decided);
    }
}

/// At least `lo` and at most `hi` of `lits` true: a unary counter `s[i][j]` ⇔ "at least j of
/// the first i literals", for j ≤ hi + 1.
pub fn cardinality(sink: &mut impl ClauseSink, lits: &[Lit], lo: usize, hi: usize) {
    let m = lits.len();
    if lo == 0 && hi >= m {
        return;
    }
    if hi == 0 {
        for &l in lits {
            sink.add_clause(&[!l]);
        }
        if lo > 0 {
            sink.add_clause(&[]);
        }
        return;
    }
    let top = (hi + 1).min(m);
    // prev[j - 1] is s[i - 1][j]; None for a value known false (j > i - 1).
    let mut prev: Vec<Option<Lit>> = vec![None; top];
    for (i, &x) in lits.iter().enumerate() {
        let mut cur: Vec<Option<Lit>> = vec![None; top];
        for j in 1..=top.min(i + 1) {
            let s = sink.new_var();
            cur[j - 1] = Some(s);
            let below = if j == 1 { None } else { prev[j - 2] };
            let same = prev[j - 1];
            // same → s; x ∧ below → s (below is true when j = 1).
            if let Some(p) = same {
                sink.add_clause(&[!p, s]);
            }
            match (j, below) {
                (1, _) => sink.add_clause(&[!x, s]),
                (_, Some(b)) => sink.add_clause(&[!x, !b, s]),
                _ => {}
            }
            // s → same ∨ x; s → same ∨ below.
            match same {
                Some(p) => sink.add_clause(&[!s, p, x]),
                None => sink.add_clause(&[!s, x]),
            }
            if j > 1 {
                match (same, below) {
                    (Some(p), Some(b)) => sink.add_clause(&[!s, p, b]),
                    (None, Some(b)) => sink.add_clause(&[!s, b]),
                    (Some(p), None) => sink.add_clause(&[!s, p]),
                    (None, None) => sink.add_clause(&[!s]),
                }
            }
        }
        prev = cur;
    }
    if hi < m {
        if let Some(s) = prev[hi] {
            sink.add_clause(&[!s]);
        }
    }
    if lo > 0 {
        match prev.get(lo - 1).copied().flatten() {
            Some(s) => sink.add_clause(&[s]),
            None => sink.add_clause(&[]),
        }
    }
}

/// The ring counts of a partial placement, for a search to prune with: after each queen,
/// [`RingTracker::place`] says whether every ring can still end within its bounds (no ring
/// over its maximum, and each ring able to reach its minimum with the rows and columns still
/// free). Only for the full diagonal rule, as [`bounds`].
#[derive(Clone, Debug)]
pub struct RingTracker {
    n: usize,
    bounds: Vec<RingBound>,
    count: Vec<usize>,
    /// Free rows (columns) in ring k's span k..=n−1−k.
    free_rows: Vec<usize>,
    free_cols: Vec<usize>,
    row_used: Vec<bool>,
    col_used: Vec<bool>,
}

impl RingTracker {
    /// A tracker with `queens` already placed.
    pub fn new(n: usize, queens: &[(usize, usize)]) -> RingTracker {
        let bounds = bounds(n);
        let rings = bounds.len();
        let mut t = RingTracker {
            n,
            count: vec![0; rings],
            free_rows: (0..rings).map(|k| n - 2 * k).collect(),
            free_cols: (0..rings).map(|k| n - 2 * k).collect(),
            bounds,
            row_used: vec![false; n],
            col_used: vec![false; n],
        };
        for &p in queens {
            t.place(p);
        }
        t
    }

    /// Adds a queen; false when some ring can no longer end within its bounds.
    pub fn place(&mut self, (r, c): (usize, usize)) -> bool {
        let n = self.n;
        self.count[ring_of(n, (r, c))] += 1;
        for k in 0..=r.min(n - 1 - r) {
            self.free_rows[k] -= 1;
        }
        for k in 0..=c.min(n - 1 - c) {
            self.free_cols[k] -= 1;
        }
        self.row_used[r] = true;
        self.col_used[c] = true;
        self.feasible()
    }

    /// Takes back the queen [`place`](RingTracker::place) added last at `(r, c)`.
    pub fn unplace(&mut self, (r, c): (usize, usize)) {
        let n = self.n;
        self.count[ring_of(n, (r, c))] -= 1;
        for k in 0..=r.min(n - 1 - r) {
            self.free_rows[k] += 1;
        }
        for k in 0..=c.min(n - 1 - c) {
            self.free_cols[k] += 1;
        }
        self.row_used[r] = false;
        self.col_used[c] = false;
    }

    fn feasible(&self) -> bool {
        let n = self.n;
        self.bounds.iter().enumerate().all(|(k, b)| {
            // A further queen in ring k stands on one of its four lines, in a free row and
            // a free column of its span.
            let far = n - 1 - k;
            let mut lines = usize::from(!self.row_used[k]) + usize::from(!self.col_used[k]);
            if far != k {
                lines += usize::from(!self.row_used[far]) + usize::from(!self.col_used[far]);
            }
            let room = lines.min(self.free_rows[k]).min(self.free_cols[k]);
            self.count[k] <= b.max && self.count[k] + room >= b.min
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use varisat::{CnfFormula, ExtendFormula, Solver};

    #[test]
    fn n8_matches_the_paper() {
        let ours: Vec<(usize, usize, usize)> =
            bounds(8).iter().map(|b| (b.cells, b.min, b.max)).collect();
        assert_eq!(ours, PAPER_N8);
    }

    #[test]
    fn cells_add_up_to_the_board() {
        for n in 1..=15 {
            assert_eq!(bounds(n).iter().map(|b| b.cells).sum::<usize>(), n * n);
        }
    }

    #[test]
    fn cardinality_counts_every_assignment() {
        for m in 0..=5usize {
            for lo in 0..=m + 1 {
                for hi in 0..=m + 1 {
                    for bits in 0..1u32 << m {
                        let mut f = CnfFormula::new();
                        let lits: Vec<Lit> = (0..m).map(|_| f.new_lit()).collect();
                        cardinality(&mut f, &lits, lo, hi);
                        let mut s = Solver::new();
                        s.add_formula(&f);
                        let assume: Vec<Lit> = (0..m)
                            .map(|i| {
                                if bits >> i & 1 == 1 {
                                    lits[i]
                                } else {
                                    !lits[i]
                                }
                            })
                            .collect();
                        s.assume(&assume);
                        let k = bits.count_ones() as usize;
                        assert_eq!(
                            s.solve().unwrap(),
                            lo <= k && k <= hi,
                            "m {m} lo {lo} hi {hi} bits {bits:b}"
                        );
                    }
                }
            }
        }
    }
}
