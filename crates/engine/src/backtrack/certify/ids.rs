//! The CNF's clause ids an LRAT refutation names as hints.

use std::collections::HashMap;

use crate::backtrack::board::Line;
use queens_model::model::{Pos, Problem};
use varisat::CnfFormula;

/// The clause ids an LRAT refutation names as hints, found in the CNF: per pair of cells,
/// the binary at-most-one clause `¬a ∨ ¬b` they share (rows, columns, diagonals, regions, or
/// the touch rule's corner clauses), and per row, column and region its at-least-one clause.
///
/// Every attack must have its own binary clause, so the CNF's at-most-one constraints are
/// pairwise ([`crate::encode::amo::Encoding::Pairwise`]): then the search can name, for each
/// cell of a failing line, the one clause that makes it false.
pub struct ClauseIds {
    pub(super) n: usize,
    /// Clauses in the formula: lemma ids start above.
    pub(super) formula_clauses: u64,
    /// Binary clause per pair of cells `a * n² + b` (0: none), when `n² · n²` ids fit in
    /// 64 MB; else `pairs_map`.
    pairs: Vec<u32>,
    pairs_map: HashMap<(u32, u32), u32>,
    /// At-least-one clause of each row, column and region (0: the line has none, e.g. a
    /// fixed queen's).
    rows: Vec<u64>,
    cols: Vec<u64>,
    pub(super) regions: Vec<u64>,
    /// An empty clause of the formula (0: none).
    pub(super) empty: u64,
}

impl ClauseIds {
    /// Finds the ids in `formula` (cell `(r, c)` is variable `vars[r * n + c]`, 0: none).
    /// `None` when some attack between two cells with variables has no binary clause of
    /// its own (an at-most-one encoding other than pairwise).
    pub fn new(problem: &Problem, formula: &CnfFormula, vars: &[u32]) -> Option<ClauseIds> {
        let n = problem.n();
        let cells = n * n;
        let mut cell_of: HashMap<u32, u32> = HashMap::new();
        for (i, &v) in vars.iter().enumerate() {
            if v != 0 {
                cell_of.insert(v, i as u32);
            }
        }
        let dense = cells * cells <= 16 << 20;
        let mut ids = ClauseIds {
            n,
            formula_clauses: formula.len() as u64,
            pairs: if dense {
                vec![0; cells * cells]
            } else {
                Vec::new()
            },
            pairs_map: HashMap::new(),
            rows: vec![0; n],
            cols: vec![0; n],
            regions: Vec::new(),
            empty: 0,
        };
        let mut positive: HashMap<Vec<u32>, u64> = HashMap::new();
        for (k, clause) in formula.iter().enumerate() {
            let id = k as u64 + 1;
            let all = |negative: bool| clause.iter().all(|l| l.is_negative() == negative);
            if clause.is_empty() && ids.empty == 0 {
                ids.empty = id;
            }
            if clause.len() == 2 && all(true) {
                let a = cell_of.get(&(clause[0].to_dimacs().unsigned_abs() as u32));
                let b = cell_of.get(&(clause[1].to_dimacs().unsigned_abs() as u32));
                if let (Some(&a), Some(&b)) = (a, b) {
                    for (x, y) in [(a, b), (b, a)] {
                        if dense {
                            let slot = &mut ids.pairs[x as usize * cells + y as usize];
                            if *slot == 0 {
                                *slot = id as u32;
                            }
                        } else {
                            ids.pairs_map.entry((x, y)).or_insert(id as u32);
                        }
                    }
                }
            } else if all(false) {
                let mut key: Vec<u32> = clause.iter().map(|l| l.to_dimacs() as u32).collect();
                key.sort_unstable();
                positive.entry(key).or_insert(id);
            }
        }
        let alo = |line: &mut dyn Iterator<Item = Pos>| -> u64 {
            let mut key: Vec<u32> = line
                .map(|(r, c)| vars[r * n + c])
                .filter(|&v| v != 0)
                .collect();
            key.sort_unstable();
            positive.get(&key).copied().unwrap_or(0)
        };
        for r in 0..n {
            ids.rows[r] = alo(&mut (0..n).map(|c| (r, c)));
        }
        for c in 0..n {
            ids.cols[c] = alo(&mut (0..n).map(|r| (r, c)));
        }
        if let Some(g) = problem.regions() {
            ids.regions = g
                .cells()
                .into_iter()
                .map(|cells| alo(&mut cells.into_iter()))
                .collect();
        }
        // Every attack between cells with variables needs its clause (checked up to 64
        // wide; above, a missing clause is an id 0 the proof's check rejects).
        for a in 0..if n <= 64 { cells } else { 0 } {
            for b in a + 1..cells {
                let (pa, pb) = ((a / n, a % n), (b / n, b % n));
                if vars[a] != 0 && vars[b] != 0 && problem.attacks(pa, pb) && ids.pair(pa, pb) == 0
                {
                    return None;
                }
            }
        }
        Some(ids)
    }

    /// The binary clause of two cells that attack each other (0: none).
    #[inline]
    pub(super) fn pair(&self, (ar, ac): Pos, (br, bc): Pos) -> u64 {
        let (a, b) = (ar * self.n + ac, br * self.n + bc);
        if self.pairs.is_empty() {
            u64::from(
                self.pairs_map
                    .get(&(a as u32, b as u32))
                    .copied()
                    .unwrap_or(0),
            )
        } else {
            u64::from(self.pairs[a * self.n * self.n + b])
        }
    }

    /// The at-least-one clause of a line (0: none).
    #[inline]
    pub(super) fn line(&self, line: Line) -> u64 {
        match line {
            Line::Row(r) => self.rows[r],
            Line::Col(c) => self.cols[c],
            Line::Region(g) => self.regions.get(g).copied().unwrap_or(0),
        }
    }
}
