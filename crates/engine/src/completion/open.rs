//! The open cells of a completion read from bitmaps, without building the core: which
//! cells of the free rows × free columns no fixed queen attacks and no blocked cell or
//! excluded diagonal closes. [`super::presolve`] builds the core from it; the portfolio
//! asks it, before any core exists, how large the core would be (so how much memory it
//! would take) and whether Hall's condition fails on a board whose core is too large to
//! build while a cheaper engine is still in play.

use queens_model::model::{Diagonal, Pos, Problem};

/// A bitmap over the board's rows, columns, or 2n − 1 diagonals of one direction.
pub(super) struct Bits(Vec<u64>);

impl Bits {
    pub(super) fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }
    #[inline]
    pub(super) fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    #[inline]
    pub(super) fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    /// The indices below `len` whose bit is clear, increasing.
    pub(super) fn zeros(&self, len: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for (w, &word) in self.0.iter().enumerate() {
            let mut free = !word;
            while free != 0 {
                let i = w * 64 + free.trailing_zeros() as usize;
                if i >= len {
                    break;
                }
                out.push(i as u32);
                free &= free - 1;
            }
        }
        out
    }
}

/// Rows sampled by [`Open::estimate_cells`]: enough for a few per cent of error on random
/// completions, whose open cells spread evenly over the rows.
const SAMPLE_ROWS: usize = 48;

/// Columns looked at in each sampled row, evenly spread, on a core wider than this.
const SAMPLE_COLS: usize = 4096;

/// The free lines of a classic problem and the closed diagonals, in 6n bits (0.75 n bytes)
/// plus 8 bytes a free row.
pub struct Open<'p> {
    pub(super) n: usize,
    /// The free rows, increasing.
    pub(super) rows: Vec<u32>,
    /// The free columns, increasing.
    pub(super) cols: Vec<u32>,
    sum: Bits,
    diff: Bits,
    blocked: &'p [Pos],
}

impl<'p> Open<'p> {
    /// The bitmaps of `problem` (a classic one), and whether two fixed queens share a line
    /// (then the free lines mean nothing: the caller refutes the presets).
    pub fn new(problem: &'p Problem) -> (Open<'p>, bool) {
        let n = problem.n();
        let (mut row_taken, mut col_taken) = (Bits::new(n), Bits::new(n));
        let (mut sum, mut diff) = (Bits::new(2 * n - 1), Bits::new(2 * n - 1));
        let mut clash = false;
        for &(r, c) in problem.fixed() {
            let (s, d) = (r + c, c + n - 1 - r);
            clash |= row_taken.get(r) || col_taken.get(c) || sum.get(s) || diff.get(d);
            row_taken.set(r);
            col_taken.set(c);
            sum.set(s);
            diff.set(d);
        }
        for &d in problem.excluded() {
            match d {
                Diagonal::Sum(k) => sum.set(k),
                Diagonal::Diff(k) => diff.set(k),
            }
        }
        let open = Open {
            n,
            rows: row_taken.zeros(n),
            cols: col_taken.zeros(n),
            sum,
            diff,
            blocked: problem.blocked(),
        };
        (open, clash)
    }

    /// Free rows (= free columns on a board without clashes).
    pub fn free_rows(&self) -> usize {
        self.rows.len()
    }

    /// Whether board cell (r, c) of a free row and a free column is open.
    #[inline]
    pub fn open(&self, r: usize, c: usize) -> bool {
        !self.sum.get(r + c)
            && !self.diff.get(c + self.n - 1 - r)
            && (self.blocked.is_empty() || self.blocked.binary_search(&(r, c)).is_err())
    }

    /// The core's open cells, estimated before it is built: every free row's when there are
    /// at most `SAMPLE_ROWS` of them, else the mean of `SAMPLE_ROWS` rows spread evenly
    /// over them times the free rows; in each row every free column, or `SAMPLE_COLS`
    /// spread evenly over them on a wider core (at most SAMPLE_ROWS · SAMPLE_COLS looks).
    pub fn estimate_cells(&self) -> u64 {
        let delta = self.rows.len();
        if delta == 0 {
            return 0;
        }
        let sample: Vec<usize> = if delta <= SAMPLE_ROWS {
            (0..delta).collect()
        } else {
            (0..SAMPLE_ROWS).map(|k| k * delta / SAMPLE_ROWS).collect()
        };
        let width = delta.min(SAMPLE_COLS);
        let counted: u64 = sample
            .iter()
            .map(|&i| {
                let r = self.rows[i] as usize;
                (0..width)
                    .map(|k| self.cols[k * delta / width] as usize)
                    .filter(|&c| self.open(r, c))
                    .count() as u64
            })
            .sum();
        let looked = (sample.len() * width) as u64;
        let cells = (counted as u128 * delta as u128 * delta as u128).div_ceil(looked as u128);
        cells.min(u64::MAX as u128) as u64
    }
}
