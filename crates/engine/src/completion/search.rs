//! Complete search on the core: one queen per free row and column, at most one per shared
//! diagonal.
//!
//! The state is the set of open cells still *alive* (no placed queen attacks them) with a
//! count per row, column and shared diagonal. Placing a queen kills the alive cells of its
//! row, column and two diagonals (each diagonal meets each other row in at most one cell);
//! a row or column left with one alive cell places it (unit propagation), one left with none
//! is a dead end. The search branches on the row or column with the fewest alive cells, and
//! tries first the cell that kills the fewest others. For one solution or a proof it restarts
//! on a Luby schedule of dead ends with shuffled ties (random completions are heavy-tailed,
//! on both sides); counting never restarts.
//!
//! Every propagation step is one of unit propagation on the core CNF ([`super::cnf`]), so the
//! search can log a DRAT proof: for each dead end and each exhausted branch, the negation of
//! the decisions above it, in the order the search leaves them, then the empty clause.

use std::io::Write;

use super::core::{Core, Lines, NONE};
use queens_model::rng::Rng;
use queens_model::Budget;

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A solution: one core cell per row (not yet lifted or verified).
    Solution(Vec<u32>),
    /// The search is exhausted: no solution.
    None,
    /// The budget ran out.
    Interrupted,
}

/// Work done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Queens placed by a decision (not by propagation).
    pub nodes: u64,
    /// Dead ends.
    pub failures: u64,
    /// Restarts.
    pub restarts: u64,
}

/// [`count`]'s result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreCount {
    /// Solutions found (all of them unless `limited` or `interrupted`).
    pub count: u64,
    /// The limit stopped the count.
    pub limited: bool,
    /// The budget stopped the count.
    pub interrupted: bool,
    /// Work done.
    pub stats: Stats,
}

/// Restarts: the Luby sequence times this many dead ends.
const RESTART_UNIT: u64 = 256;

/// The search state over one core.
struct State<'a> {
    core: &'a Core,
    alive: Vec<bool>,
    row_cnt: Vec<u32>,
    col_cnt: Vec<u32>,
    sum_cnt: Vec<u32>,
    diff_cnt: Vec<u32>,
    /// The queen of each row and column, or [`NONE`].
    row_q: Vec<u32>,
    col_q: Vec<u32>,
    /// Cells killed, in order, for undo.
    trail: Vec<u32>,
    /// Queens placed, in order, for undo and the answer.
    placed: Vec<u32>,
    /// Lines (rows `0..δ`, columns `δ..2δ`) that reached one alive cell.
    units: Vec<u32>,
    /// Queens to place, in [`State::place`] (kept to reuse its memory).
    queue: Vec<u32>,
    dead: bool,
}

impl<'a> State<'a> {
    fn new(core: &'a Core) -> State<'a> {
        let rows = core.rows();
        let cells = core.cells();
        let row_cnt = (0..rows as u32)
            .map(|i| core.row_cells(i).len() as u32)
            .collect();
        let col_cnt = (0..rows as u32)
            .map(|j| core.col_cells.get(j).len() as u32)
            .collect();
        let count = |lines: &Lines| {
            (0..lines.len() as u32)
                .map(|d| lines.get(d).len() as u32)
                .collect()
        };
        State {
            core,
            alive: vec![true; cells],
            row_cnt,
            col_cnt,
            sum_cnt: count(&core.sum_cells),
            diff_cnt: count(&core.diff_cells),
            row_q: vec![NONE; rows],
            col_q: vec![NONE; rows],
            trail: Vec::with_capacity(cells),
            placed: Vec::with_capacity(rows),
            units: Vec::new(),
            queue: Vec::new(),
            dead: false,
        }
    }

    #[inline]
    fn kill(&mut self, y: u32) {
        let yi = y as usize;
        if !self.alive[yi] {
            return;
        }
        self.alive[yi] = false;
        self.trail.push(y);
        let core = self.core;
        let (i, j) = (core.cell_row[yi], core.cell_col[yi]);
        self.row_cnt[i as usize] -= 1;
        self.col_cnt[j as usize] -= 1;
        if core.cell_sum[yi] != NONE {
            self.sum_cnt[core.cell_sum[yi] as usize] -= 1;
        }
        if core.cell_diff[yi] != NONE {
            self.diff_cnt[core.cell_diff[yi] as usize] -= 1;
        }
        if self.row_q[i as usize] == NONE {
            match self.row_cnt[i as usize] {
                0 => self.dead = true,
                1 => self.units.push(i),
                _ => {}
            }
        }
        if self.col_q[j as usize] == NONE {
            match self.col_cnt[j as usize] {
                0 => self.dead = true,
                1 => self.units.push(core.rows() as u32 + j),
                _ => {}
            }
        }
    }

    /// Places a queen on `x` and propagates; false at a dead end (the state must then be
    /// undone by the caller).
    fn place(&mut self, x: u32) -> bool {
        let mut queue = std::mem::take(&mut self.queue);
        queue.clear();
        queue.push(x);
        let ok = self.propagate(&mut queue);
        self.queue = queue;
        ok
    }

    /// Places the queens of `queue` and those the lines left with one cell force.
    fn propagate(&mut self, queue: &mut Vec<u32>) -> bool {
        let core = self.core;
        while let Some(x) = queue.pop() {
            let xi = x as usize;
            let (i, j) = (core.cell_row[xi], core.cell_col[xi]);
            if self.row_q[i as usize] == x {
                // Forced twice: the last cell of its row and of its column.
                continue;
            }
            if !self.alive[xi] {
                return false;
            }
            self.row_q[i as usize] = x;
            self.col_q[j as usize] = x;
            self.placed.push(x);
            self.kill(x);
            for y in core.row_cells(i) {
                self.kill(y);
            }
            for &y in core.col_cells.get(j) {
                self.kill(y);
            }
            if core.cell_sum[xi] != NONE {
                for &y in core.sum_cells.get(core.cell_sum[xi]) {
                    self.kill(y);
                }
            }
            if core.cell_diff[xi] != NONE {
                for &y in core.diff_cells.get(core.cell_diff[xi]) {
                    self.kill(y);
                }
            }
            if self.dead {
                return false;
            }
            while let Some(line) = self.units.pop() {
                if let Some(y) = self.only_cell(line) {
                    queue.push(y);
                }
            }
        }
        true
    }

    /// The one alive cell of a line still without a queen, if it has exactly one.
    fn only_cell(&self, line: u32) -> Option<u32> {
        let rows = self.core.rows() as u32;
        if line < rows {
            if self.row_q[line as usize] != NONE || self.row_cnt[line as usize] != 1 {
                return None;
            }
            self.core.row_cells(line).find(|&y| self.alive[y as usize])
        } else {
            let j = line - rows;
            if self.col_q[j as usize] != NONE || self.col_cnt[j as usize] != 1 {
                return None;
            }
            self.core
                .col_cells
                .get(j)
                .iter()
                .copied()
                .find(|&y| self.alive[y as usize])
        }
    }

    fn undo(&mut self, trail: usize, placed: usize) {
        let core = self.core;
        while self.trail.len() > trail {
            let y = self.trail.pop().unwrap_or(0) as usize;
            self.alive[y] = true;
            self.row_cnt[core.cell_row[y] as usize] += 1;
            self.col_cnt[core.cell_col[y] as usize] += 1;
            if core.cell_sum[y] != NONE {
                self.sum_cnt[core.cell_sum[y] as usize] += 1;
            }
            if core.cell_diff[y] != NONE {
                self.diff_cnt[core.cell_diff[y] as usize] += 1;
            }
        }
        while self.placed.len() > placed {
            let x = self.placed.pop().unwrap_or(0) as usize;
            self.row_q[core.cell_row[x] as usize] = NONE;
            self.col_q[core.cell_col[x] as usize] = NONE;
        }
        self.units.clear();
        self.dead = false;
    }

    /// The line without a queen with the fewest alive cells (ties: the first, or a random one
    /// of them with `rng`), or `None` when every line has its queen.
    fn choose(&self, rng: Option<&mut Rng>) -> Option<u32> {
        let rows = self.core.rows();
        let mut best = u32::MAX;
        let mut at = NONE;
        let mut ties = 0u64;
        let mut rng = rng;
        let lines = self
            .row_cnt
            .iter()
            .zip(&self.row_q)
            .chain(self.col_cnt.iter().zip(&self.col_q));
        for (line, (&cnt, &q)) in lines.enumerate() {
            if q != NONE || cnt > best {
                continue;
            }
            if cnt < best {
                best = cnt;
                at = line as u32;
                ties = 1;
            } else if let Some(r) = rng.as_deref_mut() {
                ties += 1;
                if r.below(ties as usize) == 0 {
                    at = line as u32;
                }
            }
        }
        debug_assert!(at == NONE || (at as usize) < 2 * rows);
        (at != NONE).then_some(at)
    }

    /// The alive cells of `line`, the one that kills the fewest others first.
    fn candidates(&self, line: u32, rng: Option<&mut Rng>) -> Vec<u32> {
        let core = self.core;
        let rows = core.rows() as u32;
        let mut cells: Vec<u32> = if line < rows {
            core.row_cells(line)
                .filter(|&y| self.alive[y as usize])
                .collect()
        } else {
            core.col_cells
                .get(line - rows)
                .iter()
                .copied()
                .filter(|&y| self.alive[y as usize])
                .collect()
        };
        let diag = |d: u32, cnt: &[u32]| if d == NONE { 0 } else { cnt[d as usize] };
        let mut keyed: Vec<(u64, u32)> = cells
            .iter()
            .map(|&y| {
                let yi = y as usize;
                let across = if line < rows {
                    self.col_cnt[core.cell_col[yi] as usize]
                } else {
                    self.row_cnt[core.cell_row[yi] as usize]
                };
                let kills = across
                    + diag(core.cell_sum[yi], &self.sum_cnt)
                    + diag(core.cell_diff[yi], &self.diff_cnt);
                (kills as u64, y)
            })
            .collect();
        if let Some(r) = rng {
            for k in &mut keyed {
                k.0 = (k.0 << 32) | (r.below(1 << 30) as u64);
            }
        }
        keyed.sort_unstable();
        cells.clear();
        cells.extend(keyed.into_iter().map(|(_, y)| y));
        cells
    }
}

/// One branching point: the line's candidates and the next to try.
struct Frame {
    cands: Vec<u32>,
    next: usize,
    trail: usize,
    placed: usize,
}

/// Where a proof's lemmas go: DRAT text, one clause a line, cell `x` as variable `x + 1`.
pub struct DratLog<'w> {
    out: &'w mut dyn Write,
    line: Vec<u8>,
}

impl<'w> DratLog<'w> {
    /// A log writing to `out`.
    pub fn new(out: &'w mut dyn Write) -> DratLog<'w> {
        DratLog {
            out,
            line: Vec::new(),
        }
    }

    /// The lemma "not all of `decisions`".
    fn lemma(&mut self, decisions: impl Iterator<Item = u32>) -> std::io::Result<()> {
        self.line.clear();
        for x in decisions {
            write!(self.line, "-{} ", x as u64 + 1)?;
        }
        self.line.extend_from_slice(b"0\n");
        self.out.write_all(&self.line)
    }
}

/// What a search is for.
enum Goal<'p, 'w> {
    First { restarts: bool },
    Count { limit: Option<u64>, found: u64 },
    Prove(&'p mut DratLog<'w>),
}

/// Depth-first search over `core`; see the module documentation.
fn run(
    core: &Core,
    goal: &mut Goal,
    seed: u64,
    budget: &Budget,
    stats: &mut Stats,
) -> std::io::Result<Found> {
    let mut st = State::new(core);
    let mut rng = Rng::new(seed);
    // A proof keeps its lemmas across restarts: each stays a RUP step.
    let restarts = matches!(goal, Goal::First { restarts: true } | Goal::Prove(_));
    let mut luby = Luby::default();
    let mut fail_limit = if restarts {
        luby.next() * RESTART_UNIT
    } else {
        u64::MAX
    };
    let mut fails_here = 0u64;
    'restart: loop {
        st.undo(0, 0);
        // Root propagation: the lines that start with one cell.
        let rows = core.rows() as u32;
        let mut ok = true;
        for line in 0..2 * rows {
            if let Some(y) = st.only_cell(line) {
                if !st.place(y) {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            if let Goal::Prove(log) = goal {
                log.lemma(std::iter::empty())?;
            }
            return Ok(Found::None);
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut descend = true;
        loop {
            if descend {
                let use_rng = if restarts { Some(&mut rng) } else { None };
                match st.choose(use_rng) {
                    None => {
                        if let Goal::Count { limit, found } = goal {
                            *found += 1;
                            if limit.is_some_and(|l| *found >= l) {
                                return Ok(Found::Solution(st.placed.clone()));
                            }
                        } else {
                            let mut cells = st.placed.clone();
                            cells.sort_unstable();
                            return Ok(Found::Solution(cells));
                        }
                    }
                    Some(line) => {
                        let use_rng = if restarts { Some(&mut rng) } else { None };
                        let cands = st.candidates(line, use_rng);
                        stack.push(Frame {
                            cands,
                            next: 0,
                            trail: st.trail.len(),
                            placed: st.placed.len(),
                        });
                    }
                }
            }
            // Try the next candidate of the deepest frame that has one.
            descend = false;
            while let Some(top) = stack.last_mut() {
                let (trail, placed) = (top.trail, top.placed);
                if top.next < top.cands.len() {
                    let x = top.cands[top.next];
                    top.next += 1;
                    st.undo(trail, placed);
                    stats.nodes += 1;
                    if stats.nodes % 1024 == 0 {
                        if budget.exhausted() {
                            return Ok(Found::Interrupted);
                        }
                        // Progress of a solve: the queens on the board now, of the core's
                        // rows (a count's would go back and forth as it enumerates).
                        let counting = matches!(goal, Goal::Count { .. });
                        if let Some(progress) = budget.progress.as_ref().filter(|_| !counting) {
                            progress(st.placed.len() as u64, core.rows() as u64);
                        }
                    }
                    if st.place(x) {
                        descend = true;
                        break;
                    }
                    stats.failures += 1;
                    fails_here += 1;
                    if let Goal::Prove(log) = goal {
                        log.lemma(decisions(&stack))?;
                    }
                    if fails_here >= fail_limit {
                        fails_here = 0;
                        fail_limit = luby.next() * RESTART_UNIT;
                        stats.restarts += 1;
                        continue 'restart;
                    }
                } else {
                    stack.pop();
                    st.undo(trail, placed);
                    if let Goal::Prove(log) = goal {
                        log.lemma(decisions(&stack))?;
                    }
                }
            }
            if !descend {
                return Ok(Found::None);
            }
        }
    }
}

/// The decisions of the frames on the stack (each frame's last candidate tried).
fn decisions(stack: &[Frame]) -> impl Iterator<Item = u32> + '_ {
    stack.iter().map(|f| f.cands[f.next - 1])
}

/// The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, …
#[derive(Default)]
struct Luby {
    i: u64,
}

impl Luby {
    fn next(&mut self) -> u64 {
        self.i += 1;
        let mut i = self.i;
        loop {
            let mut k = 1u32;
            while (1u64 << k) - 1 < i {
                k += 1;
            }
            if i == (1u64 << k) - 1 {
                return 1 << (k - 1);
            }
            i -= (1u64 << (k - 1)) - 1;
        }
    }
}

/// One solution, or none: with restarts and shuffled ties from `seed`.
pub fn find(core: &Core, seed: u64, budget: &Budget) -> (Found, Stats) {
    let mut stats = Stats::default();
    let found = run(
        core,
        &mut Goal::First { restarts: true },
        seed,
        budget,
        &mut stats,
    )
    .unwrap_or(Found::Interrupted);
    (found, stats)
}

/// The number of solutions, up to `limit`.
pub fn count(core: &Core, limit: Option<u64>, budget: &Budget) -> CoreCount {
    let mut stats = Stats::default();
    let mut goal = Goal::Count { limit, found: 0 };
    let found = run(core, &mut goal, 1, budget, &mut stats).unwrap_or(Found::Interrupted);
    let Goal::Count { found: count, .. } = goal else {
        unreachable!("the goal stays a count")
    };
    CoreCount {
        count,
        limited: matches!(found, Found::Solution(_)),
        interrupted: found == Found::Interrupted,
        stats,
    }
}

/// Searches with restarts, logging a DRAT refutation of the core CNF to `log` when there
/// is no solution (when there is one, the log holds valid lemmas but no empty clause).
pub fn prove(core: &Core, log: &mut DratLog, budget: &Budget) -> std::io::Result<(Found, Stats)> {
    let mut stats = Stats::default();
    let found = run(core, &mut Goal::Prove(log), 1, budget, &mut stats)?;
    Ok((found, stats))
}

#[cfg(test)]
mod tests {
    use super::Luby;

    #[test]
    fn luby_sequence() {
        let mut l = Luby::default();
        let got: Vec<u64> = (0..15).map(|_| l.next()).collect();
        assert_eq!(got, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }
}
