//! The one problem model shared by every family: size, regions, fixed queens, blocked cells, rule.
//!
//! Classic n-queens, n-queens completion and region Queens are all a [`Problem`]: exactly one
//! queen per row and per column, optionally exactly one per region, with the [`DiagonalRule`]
//! deciding which diagonal neighbours conflict. Coordinates are `(row, col)`, 0-based, row 0 at
//! the top. Contradictions (two fixed queens attacking each other) are *not* rejected here: they
//! are a normal "no solution" result that the engines and the verifier report.

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::error::Error;

/// A cell `(row, col)`, 0-based, row 0 = top row.
pub type Pos = (usize, usize);

/// Largest board the complete engines (backtracker, SAT), region puzzles and text grids
/// accept: they keep n² bits. Larger classic boards are *sparse* (see [`Problem::sized`]).
pub const MAX_N: usize = 4096;

/// Largest board the model accepts at all: 2³¹ − 1, so a row or column fits in a `u32` and a
/// diagonal index (`r + c`) in a `u32` as well. Boards past [`MAX_N`] are held sparsely (no n²
/// structure): fixed queens, blocked cells and excluded diagonals as sorted lists, solved by
/// local search, or by the complete engines on the core of a completion
/// (`queens_engine::completion`).
pub const MAX_BIG_N: usize = (1 << 31) - 1;

/// Which pairs of queens on a diagonal conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiagonalRule {
    /// Chess queens: at most one queen on every diagonal line.
    Full,
    /// Region Queens: only queens on corner-adjacent cells conflict.
    Touch,
}

impl fmt::Display for DiagonalRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DiagonalRule::Full => "full",
            DiagonalRule::Touch => "touch",
        })
    }
}

/// One diagonal line of the board, as CSPLib prob079 names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Diagonal {
    /// The cells with `row + col == k` (`k` in `0..2n-1`).
    Sum(usize),
    /// The cells with `col - row + n - 1 == k` (`k` in `0..2n-1`); CSPLib's `[k, 0]` pairs
    /// name `row - col == k - (n - 1)`, i.e. this index mirrored: see [`Diagonal::from_csplib`].
    Diff(usize),
}

impl Diagonal {
    /// The diagonal CSPLib prob079 writes as the pair `[k, t]` on an `n`×`n` board:
    /// `t = 1` is `r + c = k`, `t = 0` is `r - c = k - (n - 1)`.
    pub fn from_csplib(n: usize, k: usize, t: u8) -> Option<Diagonal> {
        // k ≤ 2n − 2; a 2n that overflows is larger than any k.
        if n == 0 || n.checked_mul(2).is_some_and(|m| k > m - 2) {
            return None;
        }
        match t {
            1 => Some(Diagonal::Sum(k)),
            // r - c = k - (n-1)  <=>  c - r + n - 1 = 2(n-1) - k
            0 => Some(Diagonal::Diff(2 * (n - 1) - k)),
            _ => None,
        }
    }

    /// The cells of this diagonal on an `n`×`n` board, top row first.
    pub fn cells(self, n: usize) -> impl Iterator<Item = Pos> {
        (0..n).filter_map(move |r| {
            let c = match self {
                Diagonal::Sum(k) => k.checked_sub(r),
                Diagonal::Diff(k) => k.checked_add(r).and_then(|x| x.checked_sub(n - 1)),
            };
            c.filter(|&c| c < n).map(|c| (r, c))
        })
    }

    /// Whether the cell lies on this diagonal of an `n`×`n` board.
    pub fn contains(self, n: usize, (r, c): Pos) -> bool {
        match self {
            Diagonal::Sum(k) => r.checked_add(c) == Some(k),
            Diagonal::Diff(k) => (c + n).checked_sub(r + 1) == Some(k),
        }
    }
}

/// A partition of the board into exactly `n` named regions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regions {
    n: usize,
    /// Region index per cell, row-major; `u16` because `MAX_N` regions fit, so a 4096×4096
    /// map takes 32 MiB, twice the size of its text grid rather than many times.
    ids: Vec<u16>,
    names: Vec<String>,
}

const _: () = assert!(MAX_N <= u16::MAX as usize + 1, "region ids are u16");

impl Regions {
    /// Builds the partition from one name per cell (row-major). Region indices are given in
    /// order of first appearance, so the top-left cell is always in region 0.
    pub fn from_names<S: AsRef<str>>(n: usize, cells: &[S]) -> Result<Regions, Error> {
        Regions::from_cells(n, cells)
    }

    /// Like [`Regions::from_names`], from any sequence of names, so a parser can pass slices
    /// of its text instead of one `String` per cell. Memory stays proportional to the board
    /// whatever the sequence holds: cells past the `n²`-th are only counted, and at most a
    /// few more than `n` distinct names are kept before the map is refused.
    pub fn from_cells<S: AsRef<str>>(
        n: usize,
        cells: impl IntoIterator<Item = S>,
    ) -> Result<Regions, Error> {
        if n == 0 || n > MAX_N {
            return Err(Error::model(format!(
                "board size {n} is out of range (1..={MAX_N})"
            )));
        }
        // Enough names to show a useful preview of a map with too many regions.
        let keep_names = 2 * n + 12;
        let mut names: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<String, u16> = std::collections::HashMap::new();
        let mut ids = Vec::with_capacity(n * n);
        let mut count = 0usize;
        let mut more_names = false;
        for cell in cells {
            count += 1;
            if count > n * n {
                continue;
            }
            let name = cell.as_ref();
            let id = match index.get(name) {
                Some(&id) => id,
                None if names.len() < keep_names => {
                    names.push(name.to_string());
                    // Ids past n are never kept: the map is refused below.
                    let id = (names.len() - 1).min(MAX_N - 1) as u16;
                    index.insert(name.to_string(), id);
                    id
                }
                None => {
                    more_names = true;
                    0
                }
            };
            ids.push(id);
        }
        if count != n * n {
            return Err(Error::model(format!(
                "region map has {count} cells, expected {n}×{n}"
            )));
        }
        if names.len() != n {
            let many = if more_names { "more than " } else { "" };
            return Err(Error::model(format!(
                "region map has {many}{} regions ({}), expected exactly {} (one per row)",
                names.len(),
                preview(&names),
                n
            )));
        }
        Ok(Regions { n, ids, names })
    }

    /// The region index (`0..n`) of a cell.
    #[inline]
    pub fn id(&self, (r, c): Pos) -> usize {
        self.ids[r * self.n + c] as usize
    }

    /// The display name of a region.
    pub fn name(&self, id: usize) -> &str {
        &self.names[id]
    }

    /// All region names, by index.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The cells of every region, row-major within each region.
    pub fn cells(&self) -> Vec<Vec<Pos>> {
        let mut out = vec![Vec::new(); self.n];
        for r in 0..self.n {
            for c in 0..self.n {
                out[self.id((r, c))].push((r, c));
            }
        }
        out
    }
}

fn preview(names: &[String]) -> String {
    let shown: Vec<&str> = names.iter().take(12).map(String::as_str).collect();
    let mut s = shown.join(" ");
    if names.len() > shown.len() {
        s.push_str(" …");
    }
    s
}

/// One placement problem: an `n`×`n` board with its rules and preset cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    n: usize,
    rule: DiagonalRule,
    regions: Option<Regions>,
    fixed: Vec<Pos>,
    blocked: Vec<Pos>,
    excluded: Vec<Diagonal>,
    /// A player's marks ("no queen here") on a puzzle position: notes for deduction
    /// ([`crate::puzzle`]), not rules: the engines ignore them.
    marks: Vec<Pos>,
    /// One bit per cell, row-major: set when the cell is blocked or on an excluded diagonal.
    /// Empty on a sparse board (n > [`MAX_N`]), where [`Problem::is_open`] searches the
    /// sorted lists instead.
    closed: Vec<u64>,
}

impl Problem {
    /// The empty classic `n`×`n` board (rule [`DiagonalRule::Full`]).
    pub fn new(n: usize) -> Result<Problem, Error> {
        if n == 0 || n > MAX_N {
            return Err(Error::model(format!(
                "board size {n} is out of range (1..={MAX_N})"
            )));
        }
        Ok(Problem::empty(n, vec![0; (n * n).div_ceil(64)]))
    }

    /// The classic `n`×`n` board with no presets, its cells' bits `closed` (empty: sparse).
    fn empty(n: usize, closed: Vec<u64>) -> Problem {
        Problem {
            n,
            rule: DiagonalRule::Full,
            regions: None,
            fixed: Vec::new(),
            blocked: Vec::new(),
            excluded: Vec::new(),
            marks: Vec::new(),
            closed,
        }
    }

    /// The empty classic `n`×`n` board for any `n` in `1..=MAX_BIG_N`: as [`Problem::new`] up
    /// to [`MAX_N`], sparse above it (memory linear in the presets, nothing per cell). Only
    /// classic boards can be sparse: regions are refused there.
    pub fn sized(n: usize) -> Result<Problem, Error> {
        if n <= MAX_N {
            return Problem::new(n);
        }
        if n > MAX_BIG_N {
            return Err(Error::model(format!(
                "board size {n} is out of range (1..={MAX_BIG_N})"
            )));
        }
        Ok(Problem::empty(n, Vec::new()))
    }

    /// True for a board past [`MAX_N`], held sparsely: local search, the complete engines on
    /// the core of a completion, and the linear verifier work on it.
    pub fn is_sparse(&self) -> bool {
        self.n > MAX_N
    }

    /// Sets the diagonal rule.
    pub fn with_rule(mut self, rule: DiagonalRule) -> Problem {
        self.rule = rule;
        self
    }

    /// Adds a region partition (its size must match the board).
    pub fn with_regions(mut self, regions: Regions) -> Result<Problem, Error> {
        if self.is_sparse() || regions.n != self.n {
            return Err(Error::model(format!(
                "region map is {}×{} but the board is {}×{}",
                regions.n, regions.n, self.n, self.n
            )));
        }
        self.regions = Some(regions);
        Ok(self)
    }

    /// Adds fixed queens (duplicates are merged: parsers refuse a queen listed twice with
    /// [`find_duplicate`] first, since there it is a mistake in the input).
    pub fn with_fixed(mut self, queens: &[Pos]) -> Result<Problem, Error> {
        let fixed = std::mem::take(&mut self.fixed);
        self.fixed = self.merged(fixed, queens, "fixed queen")?;
        Ok(self)
    }

    /// Adds a player's marks (see [`Problem::marks`]).
    pub fn with_marks(mut self, cells: &[Pos]) -> Result<Problem, Error> {
        let marks = std::mem::take(&mut self.marks);
        self.marks = self.merged(marks, cells, "mark")?;
        Ok(self)
    }

    /// `list` with `cells` added, sorted, each cell once; an error names the first cell off
    /// the board (`what` says what it is).
    fn merged(&self, mut list: Vec<Pos>, cells: &[Pos], what: &str) -> Result<Vec<Pos>, Error> {
        for &p in cells {
            self.check_on_board(p, what)?;
        }
        list.extend_from_slice(cells);
        list.sort_unstable();
        list.dedup();
        Ok(list)
    }

    /// A player's marks: cells of a puzzle position noted "no queen here". They are not rules:
    /// solving ignores them; hints take them as the player's position.
    pub fn marks(&self) -> &[Pos] {
        &self.marks
    }

    /// Adds blocked cells, which may never hold a queen.
    pub fn with_blocked(mut self, cells: &[Pos]) -> Result<Problem, Error> {
        for &p in cells {
            self.check_on_board(p, "blocked cell")?;
        }
        self.blocked.extend_from_slice(cells);
        self.blocked.sort_unstable();
        self.blocked.dedup();
        self.rebuild_closed();
        Ok(self)
    }

    /// Excludes whole diagonals (CSPLib prob079's Excluded Diagonals problem).
    pub fn with_excluded(mut self, diagonals: &[Diagonal]) -> Result<Problem, Error> {
        for &d in diagonals {
            let k = match d {
                Diagonal::Sum(k) | Diagonal::Diff(k) => k,
            };
            if k > 2 * self.n - 2 {
                return Err(Error::model(format!(
                    "diagonal {d:?} is off the {}×{} board",
                    self.n, self.n
                )));
            }
        }
        self.excluded.extend_from_slice(diagonals);
        self.excluded.sort_unstable();
        self.excluded.dedup();
        self.rebuild_closed();
        Ok(self)
    }

    fn check_on_board(&self, (r, c): Pos, what: &str) -> Result<(), Error> {
        if r >= self.n || c >= self.n {
            return Err(Error::model(format!(
                "{what} ({r},{c}) is off the {}×{} board (rows and columns are 0..{})",
                self.n,
                self.n,
                self.n - 1
            )));
        }
        Ok(())
    }

    fn rebuild_closed(&mut self) {
        if self.is_sparse() {
            return;
        }
        let n = self.n;
        self.closed.iter_mut().for_each(|w| *w = 0);
        let mut set = |i: usize| self.closed[i / 64] |= 1 << (i % 64);
        for &(r, c) in &self.blocked {
            set(r * n + c);
        }
        for &d in &self.excluded {
            for (r, c) in d.cells(n) {
                set(r * n + c);
            }
        }
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The diagonal rule.
    pub fn rule(&self) -> DiagonalRule {
        self.rule
    }

    /// The region partition, if any.
    pub fn regions(&self) -> Option<&Regions> {
        self.regions.as_ref()
    }

    /// Fixed queens, sorted.
    pub fn fixed(&self) -> &[Pos] {
        &self.fixed
    }

    /// Explicitly blocked cells, sorted.
    pub fn blocked(&self) -> &[Pos] {
        &self.blocked
    }

    /// Excluded diagonals, sorted.
    pub fn excluded(&self) -> &[Diagonal] {
        &self.excluded
    }

    /// Whether a queen may ever stand on this cell (not blocked, not on an excluded diagonal).
    #[inline]
    pub fn is_open(&self, (r, c): Pos) -> bool {
        if self.is_sparse() {
            let n = self.n;
            return self.blocked.binary_search(&(r, c)).is_err()
                && self.excluded.binary_search(&Diagonal::Sum(r + c)).is_err()
                && self
                    .excluded
                    .binary_search(&Diagonal::Diff(c + n - 1 - r))
                    .is_err();
        }
        let i = r * self.n + c;
        self.closed[i / 64] & (1 << (i % 64)) == 0
    }

    /// True for the empty classic board: no regions, fixed queens, blocked cells or exclusions,
    /// rule `full`. Its solutions have the 8 symmetries of the square.
    pub fn is_empty_classic(&self) -> bool {
        self.rule == DiagonalRule::Full
            && self.regions.is_none()
            && self.fixed.is_empty()
            && self.blocked.is_empty()
            && self.excluded.is_empty()
    }

    /// Whether two distinct cells conflict under this problem's rules (same row, column,
    /// region, or diagonal as the rule defines it). The verifier states the same rules
    /// independently; this helper serves the engines.
    pub fn attacks(&self, a: Pos, b: Pos) -> bool {
        let (dr, dc) = (a.0.abs_diff(b.0), a.1.abs_diff(b.1));
        if a == b {
            return false;
        }
        dr == 0
            || dc == 0
            || self.regions.as_ref().is_some_and(|g| g.id(a) == g.id(b))
            || match self.rule {
                DiagonalRule::Full => dr == dc,
                DiagonalRule::Touch => dr == 1 && dc == 1,
            }
    }

    /// The same problem with a different set of fixed queens.
    pub fn replace_fixed(&self, queens: &[Pos]) -> Result<Problem, Error> {
        let mut p = self.clone();
        p.fixed.clear();
        p.with_fixed(queens)
    }

    /// The same problem with a different set of excluded diagonals.
    pub fn replace_excluded(&self, diagonals: &[Diagonal]) -> Result<Problem, Error> {
        let mut p = self.clone();
        p.excluded.clear();
        p.with_excluded(diagonals)
    }

    /// The same problem with a different set of blocked cells.
    pub fn replace_blocked(&self, cells: &[Pos]) -> Result<Problem, Error> {
        let mut p = self.clone();
        p.blocked.clear();
        p.with_blocked(cells)
    }
}

/// The first cell listed twice, as the indices `(first, again)` of its two entries, `again`
/// as small as possible. Long lists on a board the model accepts use one bit per cell of the
/// board, so memory never grows with the list.
pub fn find_duplicate(n: usize, cells: &[Pos]) -> Option<(usize, usize)> {
    let again = if n <= MAX_N && cells.len() > 1024 {
        let mut seen = vec![0u64; (n * n).div_ceil(64)];
        cells.iter().position(|&(r, c)| {
            if r >= n || c >= n {
                return false;
            }
            let i = r * n + c;
            let bit = 1u64 << (i % 64);
            let dup = seen[i / 64] & bit != 0;
            seen[i / 64] |= bit;
            dup
        })?
    } else if cells.len() > 1024 {
        // A big board: sort the indices by cell (linear memory), then the smallest second
        // index among equal neighbours is the first repeat.
        let mut order: Vec<u32> = (0..cells.len() as u32).collect();
        order.sort_unstable_by_key(|&i| (cells[i as usize], i));
        order
            .windows(2)
            .filter(|w| cells[w[0] as usize] == cells[w[1] as usize])
            .map(|w| w[1] as usize)
            .min()?
    } else {
        let mut seen = std::collections::HashSet::new();
        cells.iter().position(|&p| !seen.insert(p))?
    };
    let first = cells[..again].iter().position(|&p| p == cells[again])?;
    Some((first, again))
}

/// Formats a cell as `(r,c)`, the way every message in the product names cells.
pub fn cell(p: Pos) -> String {
    format!("({},{})", p.0, p.1)
}
