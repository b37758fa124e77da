//! The core of a completion: the free rows and columns, their open cells and the lines
//! through them, searched by the complete core engines and lifted back onto the board.

use crate::work::CoreSize;
use queens_model::model::Problem;

/// No cell / no line.
pub(crate) const NONE: u32 = u32::MAX;

/// Lists of cell indices, one list per line, in one array.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lines {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Lines {
    /// Groups `0..keys.len()` by `keys[x]` (values below `count`; [`NONE`] is left out).
    pub(super) fn group(keys: &[u32], count: usize) -> Lines {
        let mut start = vec![0u32; count + 1];
        for &k in keys.iter().filter(|&&k| k != NONE) {
            start[k as usize + 1] += 1;
        }
        for i in 0..count {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; start[count] as usize];
        for (x, &k) in keys.iter().enumerate() {
            if k != NONE {
                items[fill[k as usize] as usize] = x as u32;
                fill[k as usize] += 1;
            }
        }
        Lines { start, items }
    }

    #[inline]
    pub(crate) fn get(&self, line: u32) -> &[u32] {
        &self.items[self.start[line as usize] as usize..self.start[line as usize + 1] as usize]
    }

    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }
}

/// The core of a classic completion (see the module documentation).
#[derive(Clone, Debug)]
pub struct Core {
    pub(super) n: usize,
    /// Original row of each core row, increasing.
    pub(super) rows: Vec<u32>,
    /// Original column of each core column, increasing.
    pub(super) cols: Vec<u32>,
    /// Core row and column of each open cell, row-major.
    pub(crate) cell_row: Vec<u32>,
    pub(crate) cell_col: Vec<u32>,
    /// Diagonal line (sum, then difference) of each cell, [`NONE`] when no other open cell
    /// shares it.
    pub(crate) cell_sum: Vec<u32>,
    pub(crate) cell_diff: Vec<u32>,
    /// Cells of each core row (a range: cells are row-major), column and shared diagonal.
    pub(crate) row_start: Vec<u32>,
    pub(crate) col_cells: Lines,
    pub(crate) sum_cells: Lines,
    pub(crate) diff_cells: Lines,
}

impl Core {
    /// The first free row, else column, without an open cell, as a reason.
    pub(super) fn empty_line(&self) -> Option<String> {
        if let Some(i) = (0..self.rows() as u32).find(|&i| self.row_cells(i).is_empty()) {
            return Some(empty_line_reason("row", self.original_row(i)));
        }
        let j = (0..self.rows() as u32).find(|&j| self.col_cells.get(j).is_empty())?;
        Some(empty_line_reason("column", self.original_col(j)))
    }

    /// Free rows (= free columns).
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Open cells.
    pub fn cells(&self) -> usize {
        self.cell_row.len()
    }

    /// Bytes the core's arrays hold (their capacities): what [`super::memory_estimate`]
    /// bounds, beside the bitmaps.
    pub fn heap_bytes(&self) -> u64 {
        let lines = |l: &Lines| l.start.capacity() + l.items.capacity();
        let u32s = self.rows.capacity()
            + self.cols.capacity()
            + self.cell_row.capacity()
            + self.cell_col.capacity()
            + self.cell_sum.capacity()
            + self.cell_diff.capacity()
            + self.row_start.capacity()
            + lines(&self.col_cells)
            + lines(&self.sum_cells)
            + lines(&self.diff_cells);
        4 * u32s as u64
    }

    /// The size as answers report it.
    pub fn size(&self) -> CoreSize {
        CoreSize {
            rows: self.rows(),
            cells: self.cells(),
        }
    }

    /// The cells of core row `i`.
    #[inline]
    pub(crate) fn row_cells(&self, i: u32) -> std::ops::Range<u32> {
        self.row_start[i as usize]..self.row_start[i as usize + 1]
    }

    /// The board cell `(row, col)` of a core cell.
    pub fn position(&self, x: u32) -> (usize, usize) {
        (
            self.rows[self.cell_row[x as usize] as usize] as usize,
            self.cols[self.cell_col[x as usize] as usize] as usize,
        )
    }

    /// Original row of core row `i`, original column of core column `j`.
    pub(crate) fn original_row(&self, i: u32) -> u32 {
        self.rows[i as usize]
    }
    pub(crate) fn original_col(&self, j: u32) -> u32 {
        self.cols[j as usize]
    }

    /// The whole board, one column per row, from the fixed queens and one core cell per
    /// free row (not verified: callers verify on the n×n board).
    pub fn lift(&self, problem: &Problem, cells: &[u32]) -> Vec<u32> {
        let mut columns = vec![u32::MAX; self.n];
        for &(r, c) in problem.fixed() {
            columns[r] = c as u32;
        }
        for &x in cells {
            let (r, c) = self.position(x);
            columns[r] = c as u32;
        }
        columns
    }
}

/// Why a free line without an open cell leaves no solution.
pub(super) fn empty_line_reason(line: &str, index: u32) -> String {
    format!(
        "{line} {index} has no usable cell (each is blocked, on an excluded diagonal, or in the \
         line of a fixed queen)"
    )
}
