//! The two board representations the search runs on: one `u64` per row for n ≤ 64, and
//! multi-word rows with incremental line counts for larger boards.
//!
//! Both answer the same three questions for the search: place a queen, undo the last one, and
//! name the most constrained open line (row, column or region with the fewest open cells)
//! together with its candidate cells, or report a dead end (an open line with no cell left).

use queens_model::model::{DiagonalRule, Pos, Problem};

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
    /// Fills `out` with the candidates of the most constrained open line, for
    /// [`Board::order`] to order, and names that line; on a dead end, names an open line
    /// with no cell left instead. Must not be called when all `n` queens are placed.
    fn branch_line(&self, out: &mut Vec<Pos>) -> Result<Line, Line>;
    /// [`Board::branch_line`] for a search that need not know the line: false on a dead end.
    #[inline(always)]
    fn branch(&self, out: &mut Vec<Pos>) -> bool {
        self.branch_line(out).is_ok()
    }
    /// Moves the candidate to try `i`-th into `out[i]`, where `out` came from [`Board::branch`]
    /// and `out[..i]` holds the ones tried so far, on the board `branch` saw. Called with
    /// i = 0, 1, … in turn, so a board can order lazily: most nodes of a large board's search
    /// try one candidate and never come back. The default keeps `branch`'s order.
    fn order(&self, _out: &mut [Pos], _i: usize) {}
}

/// A line that must hold one queen: the unit the search branches on, and the one that is
/// empty at a dead end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    Row(usize),
    Col(usize),
    Region(usize),
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

    fn branch_line(&self, out: &mut Vec<Pos>) -> Result<Line, Line> {
        let s = self.stack.last().expect("board stack is never empty");
        out.clear();
        let mut best = (u32::MAX, Line::Row(0));
        let mut rows = s.rows_free;
        while rows != 0 {
            let r = rows.trailing_zeros() as usize;
            rows &= rows - 1;
            let k = s.avail[r].count_ones();
            if k == 0 {
                return Err(Line::Row(r));
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
        let empty = s.cols_free & !ge[0];
        if empty != 0 {
            return Err(Line::Col(empty.trailing_zeros() as usize));
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
                return Err(Line::Region(g));
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
        Ok(best.1)
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
    /// Rows and columns without a queen: a taken row's cells are all removed, so placing
    /// need not look at it, and deep in a search most rows are taken.
    free_rows: FreeList,
    free_cols: FreeList,
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
    /// How [`Board::branch`] breaks ties between equally constrained lines and equally
    /// constraining cells: by index (`None`), or by a hash keyed by this (a restart's order).
    ties: Option<u64>,
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

    /// Breaks ties in [`Board::branch`] by index (`None`, the default) or by a hash of
    /// `seed`: each seed is another deterministic order, for the restarts in
    /// [`super::restart`].
    pub(crate) fn break_ties(&mut self, seed: Option<u64>) {
        self.ties = seed.map(mix);
    }

    /// The rank of item `i` among equals under the current tie order (0 when ties go by
    /// index, so the first of equals wins).
    #[inline]
    fn tie(&self, i: usize) -> u64 {
        self.ties.map_or(0, |key| mix(key ^ i as u64))
    }

    /// A candidate's place in the order: fewest open cells on its lines first (rule `full`,
    /// see [`Board::order`]), then the tie order.
    #[inline]
    fn cell_key(&self, (r, c): Pos) -> (u32, u64) {
        let n = self.n;
        // Least constraining value first (Kalé 1990, "An almost perfect heuristic for the
        // N nonattacking queens problem"): the cell whose lines hold the fewest open cells
        // takes the fewest options from the rest. Without it, plain most-constrained search
        // stalls on the empty board from n ≈ 100.
        let open = if self.full {
            self.row_count[r]
                + self.col_count[c]
                + self.sum_count[r + c]
                + self.diff_count[c + n - 1 - r]
        } else {
            0
        };
        // Cells hash apart from lines (indices from 3n on): another stream of the same seed.
        (open, self.tie(3 * n + r * n + c))
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
            free_rows: FreeList::new(n),
            free_cols: FreeList::new(n),
            region_free: Vec::new(),
            sum_count: vec![0; 2 * n - 1],
            diff_count: vec![0; 2 * n - 1],
            region_of: Vec::new(),
            region_cells: Vec::new(),
            trail: Vec::new(),
            marks: Vec::new(),
            queens: Vec::with_capacity(n),
            ties: None,
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
        // A search path removes each open cell at most once, so the trail never outgrows
        // this: a descent of the empty board fills it, and growing it by doubling copied
        // it and touched twice the memory (a fifth of a 2000×2000 descent in page faults).
        let open: u32 = b.row_count.iter().sum();
        b.trail.reserve_exact(open as usize);
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
        self.free_rows.take(r);
        self.free_cols.take(c);
        if !self.region_of.is_empty() {
            self.region_free[self.region_of[r * n + c] as usize] = false;
        }
        for w in 0..self.words {
            let mut m = self.avail[r * self.words + w];
            while m != 0 {
                self.remove(r, w * 64 + m.trailing_zeros() as usize);
                m &= m - 1;
            }
        }
        // Column and diagonals, in the rows still free (row r is taken by now).
        for i in 0..self.free_rows.len {
            let r2 = self.free_rows.items[i] as usize;
            self.remove(r2, c);
            if self.full {
                let d = r2.abs_diff(r);
                if c + d < n {
                    self.remove(r2, c + d);
                }
                if c >= d {
                    self.remove(r2, c - d);
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
        self.free_cols.restore(c);
        self.free_rows.restore(r);
        if !self.region_of.is_empty() {
            self.region_free[self.region_of[r * self.n + c] as usize] = true;
        }
    }

    fn branch_line(&self, out: &mut Vec<Pos>) -> Result<Line, Line> {
        out.clear();
        // The least (count, tie rank, kind, index), kind 0 = row, 1 = column, 2 = region: by
        // index, the first row, else column, else region of fewest cells. The free lists
        // are in no particular order, so the index is part of the key.
        let mut best = (u32::MAX, 0u64, 0u8, 0usize);
        let mut consider = |kind: u8, i: usize, k: u32| {
            if k <= best.0 {
                let key = (k, self.tie(kind as usize * self.n + i), kind, i);
                if key < best {
                    best = key;
                }
            }
        };
        for (kind, free, count) in [
            (0, &self.free_rows, &self.row_count),
            (1, &self.free_cols, &self.col_count),
        ] {
            for &i in free.items() {
                let k = count[i as usize];
                if k == 0 {
                    let i = i as usize;
                    return Err(if kind == 0 {
                        Line::Row(i)
                    } else {
                        Line::Col(i)
                    });
                }
                consider(kind, i as usize, k);
            }
        }
        for (g, (&f, &k)) in self.region_free.iter().zip(&self.region_count).enumerate() {
            if f {
                if k == 0 {
                    return Err(Line::Region(g));
                }
                consider(2, g, k);
            }
        }
        Ok(match best.2 {
            0 => {
                self.row_cells(best.3, out);
                Line::Row(best.3)
            }
            1 => {
                out.extend(
                    (0..self.n)
                        .map(|r| (r, best.3))
                        .filter(|&p| self.available(p)),
                );
                Line::Col(best.3)
            }
            _ => {
                out.extend(
                    self.region_cells[best.3]
                        .iter()
                        .copied()
                        .filter(|&p| self.available(p)),
                );
                Line::Region(best.3)
            }
        })
    }

    fn order(&self, out: &mut [Pos], i: usize) {
        if out.len() < 2 || !self.full && self.ties.is_none() {
            return;
        }
        // The same order as a stable sort by key, built lazily: the first candidate by one
        // scan (rotated to the front so the rest keep their relative order), the rest sorted
        // only when the search comes back for a second. A full sort at every node was a
        // third of a descent's time on the empty 2000×2000 board.
        match i {
            0 => {
                let mut best = 0;
                let mut best_key = self.cell_key(out[0]);
                for (j, &p) in out.iter().enumerate().skip(1) {
                    let k = self.cell_key(p);
                    if k < best_key {
                        (best, best_key) = (j, k);
                    }
                }
                out[..=best].rotate_right(1);
            }
            1 => out[1..].sort_by_cached_key(|&p| self.cell_key(p)),
            _ => {}
        }
    }
}

/// The SplitMix64 finalizer (Steele, Lea & Flood, OOPSLA 2014; Vigna's `splitmix64.c`): a
/// well-mixed 64-bit hash, so a seed's tie order looks random without a generator's state.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A set of line indices that shrinks and grows in stack order: `items[..len]` are in the
/// set, `pos` finds an index in `items`. Taking swaps the index past the end; restoring the
/// last one taken just moves the end back over it.
struct FreeList {
    items: Vec<u32>,
    pos: Vec<u32>,
    len: usize,
}

impl FreeList {
    fn new(n: usize) -> FreeList {
        FreeList {
            items: (0..n as u32).collect(),
            pos: (0..n as u32).collect(),
            len: n,
        }
    }

    fn items(&self) -> &[u32] {
        &self.items[..self.len]
    }

    fn take(&mut self, i: usize) {
        let (p, last) = (self.pos[i] as usize, self.len - 1);
        let j = self.items[last];
        self.items.swap(p, last);
        self.pos[j as usize] = p as u32;
        self.pos[i] = last as u32;
        self.len = last;
    }

    /// Puts back `i`, which must be the last index taken and not yet restored.
    fn restore(&mut self, i: usize) {
        debug_assert_eq!(self.items[self.len] as usize, i);
        self.len += 1;
    }
}
