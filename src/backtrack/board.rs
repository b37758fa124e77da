//! The two board representations the search runs on: one `u64` per row for n ≤ 64, and
//! multi-word rows with incremental line counts for larger boards.
//!
//! Both answer the same three questions for the search: place a queen, undo the last one, and
//! name the most constrained open line (row, column or region with the fewest open cells)
//! together with its candidate cells, or report a dead end (an open line with no cell left).

use crate::model::{DiagonalRule, Pos, Problem};

/// What the search needs from a board.
pub(crate) trait Board: Sized {
    /// A board with the problem's open cells and no queen.
    fn new(problem: &Problem) -> Self;
    /// Board size.
    fn n(&self) -> usize;
    /// Queens placed so far (fixed ones first).
    fn queens(&self) -> &[Pos];
    /// Places a queen on an available cell.
    fn place(&mut self, p: Pos);
    /// Removes the most recently placed queen.
    fn undo(&mut self);
    /// Whether the cell can still take a queen.
    fn available(&self, p: Pos) -> bool;
    /// Fills `out` with the candidates of the most constrained open line; false on a dead end.
    /// Must not be called when all `n` queens are placed.
    fn branch(&self, out: &mut Vec<Pos>) -> bool;
}

/// Places the problem's fixed queens; false if they cannot all stand (conflict or blocked).
pub(crate) fn place_fixed<B: Board>(board: &mut B, problem: &Problem) -> bool {
    for &p in problem.fixed() {
        if !board.available(p) {
            return false;
        }
        board.place(p);
    }
    true
}

/// Board for n ≤ 64: every row's open columns in one word; placing copies the whole state
/// (at most 64 words), so undo is a pop.
pub(crate) struct SmallBoard {
    n: usize,
    full: bool,
    touch: bool,
    /// Region of each cell, row-major (empty without regions).
    region_of: Vec<u8>,
    /// For each region, the rows it meets and its cells in that row as a column mask.
    region_rows: Vec<Vec<(usize, u64)>>,
    stack: Vec<SmallState>,
    queens: Vec<Pos>,
}

#[derive(Clone, Copy)]
struct SmallState {
    avail: [u64; 64],
    rows_free: u64,
    cols_free: u64,
    regions_free: u64,
}

/// Saturating per-column counters, bit-sliced: `ge[k]` has bit `c` set when column `c` has at
/// least `k + 1` open cells. Eight levels are enough to find columns with fewer than nine.
const LEVELS: usize = 8;

fn low_mask(n: usize) -> u64 {
    if n == 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

impl Board for SmallBoard {
    fn new(problem: &Problem) -> SmallBoard {
        let n = problem.n();
        assert!(n <= 64, "SmallBoard needs n <= 64");
        let mut st = SmallState {
            avail: [0; 64],
            rows_free: low_mask(n),
            cols_free: low_mask(n),
            regions_free: 0,
        };
        for (r, row) in st.avail.iter_mut().enumerate().take(n) {
            for c in 0..n {
                if problem.is_open((r, c)) {
                    *row |= 1 << c;
                }
            }
        }
        let (mut region_of, mut region_rows) = (Vec::new(), Vec::new());
        if let Some(g) = problem.regions() {
            st.regions_free = low_mask(n);
            region_rows = vec![Vec::<(usize, u64)>::new(); n];
            for r in 0..n {
                for c in 0..n {
                    let id = g.id((r, c));
                    region_of.push(id as u8);
                    let rows = &mut region_rows[id];
                    match rows.last_mut() {
                        Some((row, mask)) if *row == r => *mask |= 1 << c,
                        _ => rows.push((r, 1 << c)),
                    }
                }
            }
        }
        SmallBoard {
            n,
            full: problem.rule() == DiagonalRule::Full,
            touch: problem.rule() == DiagonalRule::Touch,
            region_of,
            region_rows,
            stack: vec![st],
            queens: Vec::with_capacity(n),
        }
    }

    fn n(&self) -> usize {
        self.n
    }

    fn queens(&self) -> &[Pos] {
        &self.queens
    }

    fn available(&self, (r, c): Pos) -> bool {
        self.stack.last().expect("board stack is never empty").avail[r] >> c & 1 == 1
    }

    fn place(&mut self, (r, c): Pos) {
        let mut s = *self.stack.last().expect("board stack is never empty");
        let n = self.n;
        let bit = 1u64 << c;
        s.avail[r] = 0;
        s.rows_free &= !(1 << r);
        s.cols_free &= !bit;
        let mut rows = s.rows_free;
        while rows != 0 {
            let r2 = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            let mut m = bit;
            if self.full {
                let d = r2.abs_diff(r);
                if c + d < n {
                    m |= 1 << (c + d);
                }
                if c >= d {
                    m |= 1 << (c - d);
                }
            }
            s.avail[r2] &= !m;
        }
        if self.touch {
            let near = (bit | bit << 1 | bit >> 1) & low_mask(n);
            if r > 0 {
                s.avail[r - 1] &= !near;
            }
            if r + 1 < n {
                s.avail[r + 1] &= !near;
            }
        }
        if !self.region_of.is_empty() {
            let g = self.region_of[r * n + c] as usize;
            s.regions_free &= !(1 << g);
            for &(r2, m) in &self.region_rows[g] {
                s.avail[r2] &= !m;
            }
        }
        self.stack.push(s);
        self.queens.push((r, c));
    }

    fn undo(&mut self) {
        self.stack.pop();
        self.queens.pop();
    }

    fn branch(&self, out: &mut Vec<Pos>) -> bool {
        enum Line {
            Row(usize),
            Col(usize),
            Region(usize),
        }
        let s = self.stack.last().expect("board stack is never empty");
        out.clear();
        let mut best = (u32::MAX, Line::Row(0));
        let mut rows = s.rows_free;
        while rows != 0 {
            let r = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            let k = s.avail[r].count_ones();
            if k == 0 {
                return false;
            }
            if k < best.0 {
                best = (k, Line::Row(r));
            }
        }
        // Columns: bit-sliced counters, only as deep as needed to beat the best row.
        let levels = (best.0 as usize).min(LEVELS);
        let mut ge = [0u64; LEVELS + 1];
        let mut rows = s.rows_free;
        while rows != 0 {
            let r = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            let x = s.avail[r];
            for k in (1..levels).rev() {
                ge[k] |= ge[k - 1] & x;
            }
            ge[0] |= x;
        }
        if s.cols_free & !ge[0] != 0 {
            return false;
        }
        for k in 1..levels {
            // columns with exactly k open cells
            let m = s.cols_free & ge[k - 1] & !ge[k];
            if m != 0 {
                best = (k as u32, Line::Col(m.trailing_zeros() as usize));
                break;
            }
        }
        let mut regions = s.regions_free;
        while regions != 0 {
            let g = regions.trailing_zeros() as usize;
            regions &= regions - 1;
            let k: u32 = self.region_rows[g]
                .iter()
                .map(|&(r, m)| (s.avail[r] & m).count_ones())
                .sum();
            if k == 0 {
                return false;
            }
            if k < best.0 {
                best = (k, Line::Region(g));
            }
        }
        let mut push_bits = |r: usize, mut m: u64| {
            while m != 0 {
                out.push((r, m.trailing_zeros() as usize));
                m &= m - 1;
            }
        };
        match best.1 {
            Line::Row(r) => push_bits(r, s.avail[r]),
            Line::Col(c) => {
                let mut rows = s.rows_free;
                while rows != 0 {
                    let r = rows.trailing_zeros() as usize;
                    rows &= rows - 1;
                    push_bits(r, s.avail[r] & 1 << c);
                }
            }
            Line::Region(g) => {
                for &(r, m) in &self.region_rows[g] {
                    push_bits(r, s.avail[r] & m);
                }
            }
        }
        true
    }
}

/// Board for any n: multi-word rows plus a count of open cells per row, column and region,
/// kept up to date on every removal; undo replays a trail of removed cells.
pub(crate) struct LargeBoard {
    n: usize,
    words: usize,
    full: bool,
    touch: bool,
    avail: Vec<u64>,
    row_count: Vec<u32>,
    col_count: Vec<u32>,
    region_count: Vec<u32>,
    row_free: Vec<bool>,
    col_free: Vec<bool>,
    region_free: Vec<bool>,
    /// Open cells on each diagonal (`r + c` and `c - r + n - 1`), for value ordering.
    sum_count: Vec<u32>,
    diff_count: Vec<u32>,
    region_of: Vec<u32>,
    region_cells: Vec<Vec<Pos>>,
    /// Removed cells as `r * n + c`.
    trail: Vec<u32>,
    /// Trail length before each placement.
    marks: Vec<usize>,
    queens: Vec<Pos>,
}

impl LargeBoard {
    #[inline]
    fn remove(&mut self, r: usize, c: usize) {
        let (w, bit) = (r * self.words + c / 64, 1u64 << (c % 64));
        if self.avail[w] & bit != 0 {
            self.avail[w] &= !bit;
            self.row_count[r] -= 1;
            self.col_count[c] -= 1;
            self.sum_count[r + c] -= 1;
            self.diff_count[c + self.n - 1 - r] -= 1;
            if !self.region_of.is_empty() {
                self.region_count[self.region_of[r * self.n + c] as usize] -= 1;
            }
            self.trail.push((r * self.n + c) as u32);
        }
    }

    fn row_cells(&self, r: usize, out: &mut Vec<Pos>) {
        for w in 0..self.words {
            let mut m = self.avail[r * self.words + w];
            while m != 0 {
                out.push((r, w * 64 + m.trailing_zeros() as usize));
                m &= m - 1;
            }
        }
    }
}

impl Board for LargeBoard {
    fn new(problem: &Problem) -> LargeBoard {
        let n = problem.n();
        let words = n.div_ceil(64);
        let mut b = LargeBoard {
            n,
            words,
            full: problem.rule() == DiagonalRule::Full,
            touch: problem.rule() == DiagonalRule::Touch,
            avail: vec![0; n * words],
            row_count: vec![0; n],
            col_count: vec![0; n],
            region_count: Vec::new(),
            row_free: vec![true; n],
            col_free: vec![true; n],
            region_free: Vec::new(),
            sum_count: vec![0; 2 * n - 1],
            diff_count: vec![0; 2 * n - 1],
            region_of: Vec::new(),
            region_cells: Vec::new(),
            trail: Vec::new(),
            marks: Vec::new(),
            queens: Vec::with_capacity(n),
        };
        if let Some(g) = problem.regions() {
            b.region_cells = g.cells();
            b.region_count = vec![0; n];
            b.region_free = vec![true; n];
            b.region_of = (0..n * n).map(|i| g.id((i / n, i % n)) as u32).collect();
        }
        for r in 0..n {
            for c in 0..n {
                if problem.is_open((r, c)) {
                    b.avail[r * words + c / 64] |= 1 << (c % 64);
                    b.row_count[r] += 1;
                    b.col_count[c] += 1;
                    b.sum_count[r + c] += 1;
                    b.diff_count[c + n - 1 - r] += 1;
                    if !b.region_of.is_empty() {
                        b.region_count[b.region_of[r * n + c] as usize] += 1;
                    }
                }
            }
        }
        b
    }

    fn n(&self) -> usize {
        self.n
    }

    fn queens(&self) -> &[Pos] {
        &self.queens
    }

    fn available(&self, (r, c): Pos) -> bool {
        self.avail[r * self.words + c / 64] >> (c % 64) & 1 == 1
    }

    fn place(&mut self, (r, c): Pos) {
        let n = self.n;
        self.marks.push(self.trail.len());
        self.queens.push((r, c));
        self.row_free[r] = false;
        self.col_free[c] = false;
        if !self.region_of.is_empty() {
            self.region_free[self.region_of[r * n + c] as usize] = false;
        }
        let mut cells = Vec::new();
        self.row_cells(r, &mut cells);
        for (r2, c2) in cells {
            self.remove(r2, c2);
        }
        for r2 in 0..n {
            self.remove(r2, c);
        }
        if self.full {
            for r2 in 0..n {
                let d = r2.abs_diff(r);
                if d != 0 {
                    if c + d < n {
                        self.remove(r2, c + d);
                    }
                    if c >= d {
                        self.remove(r2, c - d);
                    }
                }
            }
        }
        if self.touch {
            for r2 in r.saturating_sub(1)..=(r + 1).min(n - 1) {
                for c2 in c.saturating_sub(1)..=(c + 1).min(n - 1) {
                    self.remove(r2, c2);
                }
            }
        }
        if !self.region_of.is_empty() {
            let g = self.region_of[r * n + c] as usize;
            for i in 0..self.region_cells[g].len() {
                let (r2, c2) = self.region_cells[g][i];
                self.remove(r2, c2);
            }
        }
    }

    fn undo(&mut self) {
        let mark = self.marks.pop().expect("undo without place");
        let (r, c) = self.queens.pop().expect("undo without place");
        for i in self.trail.drain(mark..) {
            let (r2, c2) = (i as usize / self.n, i as usize % self.n);
            self.avail[r2 * self.words + c2 / 64] |= 1 << (c2 % 64);
            self.row_count[r2] += 1;
            self.col_count[c2] += 1;
            self.sum_count[r2 + c2] += 1;
            self.diff_count[c2 + self.n - 1 - r2] += 1;
            if !self.region_of.is_empty() {
                self.region_count[self.region_of[i as usize] as usize] += 1;
            }
        }
        self.row_free[r] = true;
        self.col_free[c] = true;
        if !self.region_of.is_empty() {
            self.region_free[self.region_of[r * self.n + c] as usize] = true;
        }
    }

    fn branch(&self, out: &mut Vec<Pos>) -> bool {
        out.clear();
        // (count, kind, index): kind 0 = row, 1 = column, 2 = region.
        let mut best = (u32::MAX, 0u8, 0usize);
        let lines: [(&[bool], &[u32]); 3] = [
            (&self.row_free, &self.row_count),
            (&self.col_free, &self.col_count),
            (&self.region_free, &self.region_count),
        ];
        for (kind, (free, count)) in lines.iter().enumerate() {
            for (i, (&f, &k)) in free.iter().zip(count.iter()).enumerate() {
                if f {
                    if k == 0 {
                        return false;
                    }
                    if k < best.0 {
                        best = (k, kind as u8, i);
                    }
                }
            }
        }
        match best.1 {
            0 => self.row_cells(best.2, out),
            1 => out.extend(
                (0..self.n)
                    .map(|r| (r, best.2))
                    .filter(|&p| self.available(p)),
            ),
            _ => out.extend(
                self.region_cells[best.2]
                    .iter()
                    .copied()
                    .filter(|&p| self.available(p)),
            ),
        }
        if self.full {
            // Least constraining value first (Kalé 1990, "An almost perfect heuristic for the
            // N nonattacking queens problem"): the cell whose lines hold the fewest open
            // cells takes the fewest options from the rest. Without it, plain most-constrained
            // search stalls on the empty board from n ≈ 100.
            out.sort_by_key(|&(r, c)| {
                self.row_count[r]
                    + self.col_count[c]
                    + self.sum_count[r + c]
                    + self.diff_count[c + self.n - 1 - r]
            });
        }
        true
    }
}
