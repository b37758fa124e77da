//! Rows and columns of boards up to 64 wide as words, so that the cover of a dead line is a
//! few loads and masks a queen.

use crate::backtrack::board::Line;
use queens_model::model::Pos;
use queens_model::model::Problem;

/// Rows and columns of a board up to 64 wide as bit masks: which cells of a line were open at
/// the root, and which a queen attacks.
pub(super) struct Masks {
    pub(super) n: usize,
    full: bool,
    touch: bool,
    /// Open cells at the root: per row (bit = column), per column (bit = row).
    root_row: Vec<u64>,
    root_col: Vec<u64>,
    /// Region of each cell, and each region's cells per row and per column (empty without
    /// regions).
    region_of: Vec<usize>,
    region_row: Vec<u64>,
    region_col: Vec<u64>,
    /// `row_attack[(q.row * n + q.col) * n + r]`: the cells of row `r` queen `q` attacks
    /// (`col_attack` likewise for columns): the cover's inner loop is one load a queen.
    row_attack: Vec<u64>,
    col_attack: Vec<u64>,
}

impl Masks {
    pub(super) fn new(problem: &Problem, root: &[bool]) -> Masks {
        let n = problem.n();
        let mut m = Masks {
            n,
            full: problem.rule() == queens_model::model::DiagonalRule::Full,
            touch: problem.rule() == queens_model::model::DiagonalRule::Touch,
            root_row: vec![0; n],
            root_col: vec![0; n],
            region_of: Vec::new(),
            region_row: Vec::new(),
            region_col: Vec::new(),
            row_attack: Vec::new(),
            col_attack: Vec::new(),
        };
        for r in 0..n {
            for c in 0..n {
                if root[r * n + c] {
                    m.root_row[r] |= 1 << c;
                    m.root_col[c] |= 1 << r;
                }
            }
        }
        if let Some(g) = problem.regions() {
            m.region_row = vec![0; n * n];
            m.region_col = vec![0; n * n];
            for r in 0..n {
                for c in 0..n {
                    let id = g.id((r, c));
                    m.region_of.push(id);
                    m.region_row[id * n + r] |= 1 << c;
                    m.region_col[id * n + c] |= 1 << r;
                }
            }
        }
        let tables = |line: fn(usize) -> Line| -> Vec<u64> {
            (0..n * n * n)
                .map(|i| m.compute_attack((i / n / n, i / n % n), line(i % n)))
                .collect()
        };
        let (rows, cols) = (tables(Line::Row), tables(Line::Col));
        m.row_attack = rows;
        m.col_attack = cols;
        m
    }

    /// The cells of a row or column that were open at the root and are closed now, given
    /// the line's open cells, as a mask; `None` for a region.
    #[inline]
    pub(super) fn closed(&self, line: Line, open: &[Pos]) -> Option<u64> {
        let (root, along): (u64, fn(Pos) -> usize) = match line {
            Line::Row(r) => (self.root_row[r], |p| p.1),
            Line::Col(c) => (self.root_col[c], |p| p.0),
            Line::Region(_) => return None,
        };
        Some(open.iter().fold(root, |m, &p| m & !(1 << along(p))))
    }

    /// The cells of a row or column (not a region) that a queen off that line attacks.
    #[inline(always)]
    pub(super) fn attack(&self, (qr, qc): Pos, line: Line) -> u64 {
        let n = self.n;
        match line {
            Line::Row(r) => self.row_attack[(qr * n + qc) * n + r],
            Line::Col(c) => self.col_attack[(qr * n + qc) * n + c],
            Line::Region(_) => unreachable!("region lines have no masks"),
        }
    }

    /// [`Masks::attack`] computed: a queen's cells on a row (`Row`) or column.
    fn compute_attack(&self, (qr, qc): Pos, line: Line) -> u64 {
        // A column is a row of the transposed board: rules and regions are symmetric.
        let (q_along, q_across, at, regions) = match line {
            Line::Row(r) => (qc, qr, r, &self.region_row),
            Line::Col(c) => (qr, qc, c, &self.region_col),
            Line::Region(_) => unreachable!("region lines have no masks"),
        };
        let n = self.n;
        let d = q_across.abs_diff(at);
        let mut m = 1u64 << q_along;
        if self.full {
            if q_along + d < n {
                m |= 1 << (q_along + d);
            }
            if q_along >= d {
                m |= 1 << (q_along - d);
            }
        } else if self.touch && d == 1 {
            m |= (m << 1 | m >> 1) & low_mask(n);
        }
        if !self.region_of.is_empty() {
            m |= regions[self.region_of[qr * n + qc] * n + at];
        }
        m
    }
}

fn low_mask(n: usize) -> u64 {
    if n == 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}
