//! Region puzzles with exactly one solution, grown a cell at a time so that the planted
//! solution stays the only one at every step, and graded as they are made.
//!
//! Start from a random touch-rule placement, one region per queen, each region just its
//! queen's cell, every other cell unassigned (no queen may stand there). A puzzle in that
//! state has one solution. Then give cells to regions one at a time: an unassigned cell next to
//! some region joins one of its neighbouring regions, but only if no solution puts that
//! region's queen on it. Any new solution would have to use the new cell (the only cell that
//! opened), so the planted solution stays the only one. Solutions only grow as cells open, so
//! a cell that no neighbouring region can take now can only be taken later by a region that
//! reaches it later; when cells are left that no region can take, the attempt starts over.
//!
//! The search "does a solution put region g's queen on cell x" runs on [`Partial`], a small
//! bitboard search made for this (most-constrained line first over rows, columns and regions),
//! because it runs once per cell and region tried. The finished puzzle is checked again by the
//! project's backtracker (exactly one solution) before it is returned.

use crate::backtrack::{self, Config};
use crate::puzzle::grade::{grade, logical_path, Grade};
use queens_model::error::Error;
use queens_model::model::{DiagonalRule, Problem, Regions};
use queens_model::rng::Rng;
use queens_model::Budget;

/// Largest board the generator makes (the boards are rows of `u64` bits; grading a 32×32
/// puzzle already takes seconds).
pub const MAX_N: usize = 32;

/// Unique puzzles made for one request before it is refused: a grade that never came up in
/// so many is as good as absent for that size.
const MAX_TRIES: u64 = 20_000;

/// Growth attempts from one planted placement before a new placement is drawn.
const GROWTHS_PER_PLANT: usize = 4;

/// A generated puzzle.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The puzzle (rule `touch`, regions, no queens).
    pub problem: Problem,
    /// Its grade.
    pub grade: Grade,
    /// Unique puzzles made (and graded) to find one of the grade asked for.
    pub tries: u64,
}

/// A unique region puzzle for `n`, from `seed`, of the grade asked for (any grade when `None`).
///
/// Unique puzzles are made and graded until one has the grade. The budget's deadline and
/// cancel flag are looked at between them: `Ok(None)` when they ended the search first.
pub fn regions(
    n: usize,
    seed: u64,
    difficulty: Option<Grade>,
    budget: &Budget,
) -> Result<Option<Generated>, Error> {
    if n == 0 || n > MAX_N {
        return Err(Error::unsupported(format!(
            "region puzzles are generated for n from 1 to {MAX_N}, not {n}"
        ))
        .about("n"));
    }
    if n == 2 || n == 3 {
        return Err(Error::unsupported(format!(
            "no region puzzle exists for n = {n}: no {n}×{n} placement keeps queens in distinct \
             rows and columns without two of them touching"
        ))
        .about("n"));
    }
    let mut rng = Rng::new(seed);
    let growths = Growth::for_grade(difficulty);
    let mut tries = 0u64;
    loop {
        if budget.exhausted() {
            return Ok(None);
        }
        if tries == MAX_TRIES {
            let what = difficulty.map_or("", |g| g.name());
            return Err(Error::unsupported_at_field(
                "difficulty",
                format!(
                    "no {what} {n}×{n} puzzle in {MAX_TRIES} unique puzzles from \
                     seed {seed} (small boards have few puzzles of each grade)"
                ),
            ));
        }
        let growth = growths[tries as usize % growths.len()];
        let problem = unique(n, growth, &mut rng)?;
        tries += 1;
        let g = grade(&logical_path(&problem));
        if difficulty.is_none_or(|want| want == g) {
            return Ok(Some(Generated {
                problem,
                grade: g,
                tries,
            }));
        }
    }
}

/// A unique region puzzle of any grade: [`regions`] without a limit.
pub fn puzzle(n: usize, seed: u64) -> Result<Problem, Error> {
    regions(n, seed, None, &Budget::default())?
        .map(|g| g.problem)
        .ok_or_else(|| Error::internal("the region generator stopped without a limit"))
}

/// Which neighbouring region a cell joins first. Regions that grow where they are already
/// large leave other regions small, and small regions pin their queens early: the puzzles come
/// out easier. On 200 seeds each of 9×9 (easy/medium/hard/expert): `Largest` 28/61/106/5,
/// `Random` 4/29/131/36, `Smallest` 0/6/110/84.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Growth {
    Random,
    Largest,
    Smallest,
    /// `Largest`, with some regions left at one cell.
    Tiny,
}

/// One region in this many stays a single cell under [`Growth::Tiny`].
const TINY_EVERY: usize = 3;

impl Growth {
    /// The growths to take turns with when making puzzles of a grade. Medium takes turns
    /// between `Largest` and `Tiny`: from n = 17 `Largest` alone mostly makes hard puzzles.
    fn for_grade(grade: Option<Grade>) -> &'static [Growth] {
        match grade {
            None | Some(Grade::Hard) => &[Growth::Random],
            Some(Grade::Easy) => &[Growth::Tiny],
            Some(Grade::Medium) => &[Growth::Largest, Growth::Tiny],
            Some(Grade::Expert) => &[Growth::Smallest],
        }
    }
}

/// One unique puzzle from the stream: growth attempts until one gives every cell a region.
fn unique(n: usize, growth: Growth, rng: &mut Rng) -> Result<Problem, Error> {
    loop {
        let planted = touch_placement(n, rng);
        for _ in 0..GROWTHS_PER_PLANT {
            if let Some(owner) = grow(n, &planted, growth, rng) {
                let problem = region_problem(n, &owner)?;
                check_unique(&problem, &planted)?;
                return Ok(problem);
            }
        }
    }
}

/// The backtracker's word on the finished puzzle: exactly the planted solution.
fn check_unique(problem: &Problem, planted: &[usize]) -> Result<(), Error> {
    let config = Config {
        threads: 1,
        ..Config::default()
    };
    let mut solutions = Vec::new();
    backtrack::enumerate(problem, &config, Some(2), |q| {
        solutions.push(q.to_vec());
        true
    });
    let want: Vec<(usize, usize)> = planted.iter().copied().enumerate().collect();
    if solutions != [want] {
        return Err(Error::internal(format!(
            "the region generator made a puzzle with {} solutions",
            solutions.len()
        )));
    }
    Ok(())
}

/// Region names: `A`–`Z`, then `a`–`z`, then numbers, so small puzzles print as letter grids.
fn region_name(i: usize) -> String {
    match i {
        0..26 => char::from(b'A' + i as u8).to_string(),
        26..52 => char::from(b'a' + (i - 26) as u8).to_string(),
        _ => i.to_string(),
    }
}

fn region_problem(n: usize, owner: &[usize]) -> Result<Problem, Error> {
    let names: Vec<String> = owner.iter().map(|&g| region_name(g)).collect();
    Problem::new(n)?
        .with_regions(Regions::from_names(n, &names)?)
        .map(|p| p.with_rule(DiagonalRule::Touch))
}

/// A random placement, one queen per row and column, no two touching: the queen of row `r`
/// is `(r, cols[r])`. Randomized depth-first search; for n ≥ 4 one always exists.
fn touch_placement(n: usize, rng: &mut Rng) -> Vec<usize> {
    fn go(n: usize, cols: &mut Vec<usize>, used: &mut [bool], rng: &mut Rng) -> bool {
        if cols.len() == n {
            return true;
        }
        let mut order: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut order);
        for c in order {
            if used[c] || cols.last().is_some_and(|&p| p.abs_diff(c) <= 1) {
                continue;
            }
            used[c] = true;
            cols.push(c);
            if go(n, cols, used, rng) {
                return true;
            }
            cols.pop();
            used[c] = false;
        }
        false
    }
    let mut cols = Vec::with_capacity(n);
    let found = go(n, &mut cols, &mut vec![false; n], rng);
    debug_assert!(found || n == 1, "n ≥ 4 always has a touch-rule placement");
    cols
}

fn neighbours(n: usize, i: usize) -> impl Iterator<Item = usize> {
    let (r, c) = (i / n, i % n);
    [
        (r > 0).then(|| i - n),
        (r + 1 < n).then(|| i + n),
        (c > 0).then(|| i - 1),
        (c + 1 < n).then(|| i + 1),
    ]
    .into_iter()
    .flatten()
}

const NONE: usize = usize::MAX;

/// Steps (cells given or refused) one growth may take, per cell of the board.
const STEPS_PER_CELL: usize = 20;

/// Times one growth may take cells back before it gives up (growths that need more mostly
/// go round in circles).
const MAX_REPAIRS: usize = 40;

/// How far around a stuck cell a shake takes cells back.
const SHAKE: usize = 2;

/// One growth from the planted queens (region `r` is the queen of row `r`): the region of each
/// cell, row-major, or `None` when it gets stuck.
///
/// When every cell left is refused by every region next to it, one of them is unstuck: a
/// solution that puts region g's queen on cell x (the witness of g's refusal) is killed by
/// taking back another of its cells from its region (never a planted queen, and only where
/// that region stays connected). Taking a cell back only removes solutions, so the planted
/// solution stays the only one; the cell taken back waits for a region again.
fn grow(n: usize, planted: &[usize], growth: Growth, rng: &mut Rng) -> Option<Vec<usize>> {
    let mut partial = Partial::new(n);
    for (r, &c) in planted.iter().enumerate() {
        partial.assign(r * n + c, r);
    }
    let is_planted = |i: usize| planted[i / n] == i % n;
    // Growth::Tiny keeps one region in TINY_EVERY at its queen's cell.
    let tiny: Vec<bool> = (0..n)
        .map(|_| growth == Growth::Tiny && rng.below(TINY_EVERY) == 0)
        .collect();
    // The regions that refused each cell since the last cell was taken back.
    let mut refused: Vec<Vec<usize>> = vec![Vec::new(); n * n];
    let mut left = n * n - n;
    let mut repairs = 0;
    for _ in 0..STEPS_PER_CELL * n * n {
        if left == 0 {
            return Some(partial.owner);
        }
        // Unassigned cells next to a region, with the regions that have not refused them.
        let mut choices: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut stuck: Vec<(usize, Vec<usize>)> = Vec::new();
        for (i, refused) in refused.iter().enumerate() {
            if partial.owner[i] != NONE {
                continue;
            }
            let mut regions: Vec<usize> = neighbours(n, i)
                .map(|j| partial.owner[j])
                .filter(|&g| g != NONE && !tiny[g])
                .collect();
            regions.sort_unstable();
            regions.dedup();
            if regions.is_empty() {
                continue;
            }
            let open: Vec<usize> = regions
                .iter()
                .copied()
                .filter(|g| !refused.contains(g))
                .collect();
            if open.is_empty() {
                stuck.push((i, regions));
            } else {
                choices.push((i, open));
            }
        }
        if !choices.is_empty() {
            // The cell with the fewest regions left to take it goes first, before it is stuck.
            let fewest = choices.iter().map(|(_, r)| r.len()).min().unwrap_or(0);
            choices.retain(|(_, r)| r.len() == fewest);
            let (i, mut regions) = choices.swap_remove(rng.below(choices.len()));
            rng.shuffle(&mut regions);
            match growth {
                Growth::Random => {}
                Growth::Largest | Growth::Tiny => {
                    regions.sort_by_key(|&g| std::cmp::Reverse(partial.size[g]))
                }
                Growth::Smallest => regions.sort_by_key(|&g| partial.size[g]),
            }
            for g in regions {
                if partial.witness(i, g) != Fit::Fits {
                    refused[i].push(g);
                } else {
                    partial.assign(i, g);
                    left -= 1;
                    break;
                }
            }
            continue;
        }
        // Every cell left is stuck: take a refusal (cell x, region g) and take back cells of
        // its witnesses until x can join g. Refusals are tried in random order.
        repairs += 1;
        // No cell left next to a region that may grow (under `Growth::Tiny`, one-cell regions
        // can wall cells in): this growth is over.
        if repairs > MAX_REPAIRS || stuck.is_empty() {
            return None;
        }
        let mut refusals: Vec<(usize, usize)> = stuck
            .iter()
            .flat_map(|(x, regions)| regions.iter().map(move |&g| (*x, g)))
            .collect();
        rng.shuffle(&mut refusals);
        let mut joined = false;
        for (x, g) in refusals {
            let mut taken = Vec::new();
            for _ in 0..n {
                let witness = match partial.witness(x, g) {
                    Fit::Fits => {
                        joined = true;
                        break;
                    }
                    Fit::Witness(cells) => cells,
                    Fit::Unknown => break,
                };
                let takeable: Vec<usize> = witness
                    .into_iter()
                    .filter(|&y| y != x && !is_planted(y) && partial.connected_without(y))
                    .collect();
                if takeable.is_empty() {
                    break;
                }
                let y = takeable[rng.below(takeable.len())];
                taken.push((y, partial.owner[y]));
                partial.unassign(y);
            }
            if joined {
                partial.assign(x, g);
                left = left + taken.len() - 1;
                break;
            }
            // Put back what this refusal took: it did not help.
            for &(y, h) in taken.iter().rev() {
                partial.assign(y, h);
            }
        }
        if !joined {
            // No witness could be killed: shake the neighbourhood of a stuck cell instead,
            // taking back what can be taken within two steps of it, to grow it again another way.
            let (x, _) = stuck[rng.below(stuck.len())];
            let (xr, xc) = (x / n, x % n);
            let mut near: Vec<usize> = (0..n * n)
                .filter(|&y| (y / n).abs_diff(xr) <= SHAKE && (y % n).abs_diff(xc) <= SHAKE)
                .collect();
            rng.shuffle(&mut near);
            for y in near {
                if partial.owner[y] != NONE && !is_planted(y) && partial.connected_without(y) {
                    partial.unassign(y);
                    left += 1;
                }
            }
        }
        refused.iter_mut().for_each(Vec::clear);
    }
    None
}

/// Nodes one [`Partial::witness`] search may visit. Almost all end within a few hundred; the
/// rare search that would take seconds counts as a refusal instead (which is always safe).
const MAX_NODES: usize = 2_000;

/// A witness search that ran past [`MAX_NODES`].
struct TooLong;

/// The answer of [`Partial::witness`].
#[derive(Debug, PartialEq, Eq)]
enum Fit {
    /// No solution puts the region's queen on the cell: it may join.
    Fits,
    /// This solution would (its cells, one per row).
    Witness(Vec<usize>),
    /// The search ran too long to tell.
    Unknown,
}

/// A puzzle being grown: some cells in regions, the rest closed. Rows are `u64` bit sets.
struct Partial {
    n: usize,
    owner: Vec<usize>,
    /// `cells[g][r]`: the cells of region `g` in row `r`.
    cells: Vec<Vec<u64>>,
    /// Cells in each region.
    size: Vec<usize>,
}

/// The search state of [`Partial::queen_fits`]: what is still possible.
#[derive(Clone, Copy)]
struct State {
    /// Cells of row `r` that can still take a queen.
    open: [u64; MAX_N],
    /// The column of row `r`'s queen, once the row has one.
    queens: [u8; MAX_N],
    /// Rows, columns and regions that hold a queen.
    rows: u64,
    cols: u64,
    regions: u64,
}

impl Partial {
    fn new(n: usize) -> Partial {
        Partial {
            n,
            owner: vec![NONE; n * n],
            cells: vec![vec![0; n]; n],
            size: vec![0; n],
        }
    }

    fn assign(&mut self, i: usize, g: usize) {
        let n = self.n;
        debug_assert_eq!(self.owner[i], NONE);
        self.owner[i] = g;
        self.cells[g][i / n] |= 1 << (i % n);
        self.size[g] += 1;
    }

    fn unassign(&mut self, i: usize) {
        let n = self.n;
        self.cells[self.owner[i]][i / n] &= !(1 << (i % n));
        self.size[self.owner[i]] -= 1;
        self.owner[i] = NONE;
    }

    /// Whether region `owner[gone]` stays connected (4-neighbour) without cell `gone`.
    fn connected_without(&self, gone: usize) -> bool {
        let n = self.n;
        let g = self.owner[gone];
        let cells = self.owner.iter().filter(|&&o| o == g).count() - 1;
        let Some(start) = neighbours(n, gone).find(|&j| self.owner[j] == g) else {
            return cells == 0;
        };
        let mut seen = vec![false; n * n];
        seen[gone] = true;
        seen[start] = true;
        let mut stack = vec![start];
        let mut reached = 1;
        while let Some(i) = stack.pop() {
            for j in neighbours(n, i) {
                if !seen[j] && self.owner[j] == g {
                    seen[j] = true;
                    reached += 1;
                    stack.push(j);
                }
            }
        }
        reached == cells
    }

    /// Whether cell `i` (unassigned so far) can join region `g`: a solution that puts `g`'s
    /// queen on `i` if it did, or none.
    fn witness(&mut self, i: usize, g: usize) -> Fit {
        let n = self.n;
        self.assign(i, g);
        let mut state = State {
            open: [0; MAX_N],
            queens: [0; MAX_N],
            rows: 0,
            cols: 0,
            regions: 0,
        };
        for (k, &o) in self.owner.iter().enumerate() {
            if o != NONE {
                state.open[k / n] |= 1 << (k % n);
            }
        }
        self.place(&mut state, i / n, i % n, g);
        let mut nodes = 0;
        let found = self.search(&state, &mut nodes);
        self.unassign(i);
        match found {
            Ok(Some(s)) => Fit::Witness((0..n).map(|r| r * n + s.queens[r] as usize).collect()),
            Ok(None) => Fit::Fits,
            Err(TooLong) => Fit::Unknown,
        }
    }

    fn place(&self, s: &mut State, r: usize, c: usize, g: usize) {
        let n = self.n;
        s.rows |= 1 << r;
        s.cols |= 1 << c;
        s.queens[r] = c as u8;
        s.regions |= 1 << g;
        s.open[r] = 0;
        // The touch rule: the cells diagonally next to the queen (row and column are gone).
        let near = (0b111u64 << c) >> 1;
        if r > 0 {
            s.open[r - 1] &= !near;
        }
        if r + 1 < n {
            s.open[r + 1] &= !near;
        }
        for (row, open) in s.open[..n].iter_mut().enumerate() {
            *open &= !(1 << c) & !self.cells[g][row];
        }
    }

    /// A solution the state completes to: most-constrained line first, in at most
    /// [`MAX_NODES`] nodes.
    fn search(&self, s: &State, nodes: &mut usize) -> Result<Option<State>, TooLong> {
        *nodes += 1;
        if *nodes > MAX_NODES {
            return Err(TooLong);
        }
        let n = self.n;
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        if s.rows == all {
            return Ok(Some(*s));
        }
        let mut col_count = [0u32; MAX_N];
        let mut region_count = [0u32; MAX_N];
        // The line with fewest open cells: (count, kind 0 row / 1 column / 2 region, index).
        let mut best = (u32::MAX, 0, 0);
        for r in 0..n {
            if s.rows & (1 << r) != 0 {
                continue;
            }
            let k = s.open[r].count_ones();
            if k < best.0 {
                best = (k, 0, r);
            }
            let mut bits = s.open[r];
            while bits != 0 {
                let c = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                col_count[c] += 1;
                region_count[self.owner[r * n + c]] += 1;
            }
        }
        if best.0 == 0 {
            return Ok(None);
        }
        for (c, &k) in col_count[..n].iter().enumerate() {
            if s.cols & (1 << c) == 0 && k < best.0 {
                best = (k, 1, c);
            }
        }
        for (g, &k) in region_count[..n].iter().enumerate() {
            if s.regions & (1 << g) == 0 && k < best.0 {
                best = (k, 2, g);
            }
        }
        if best.0 == 0 {
            return Ok(None);
        }
        let (_, kind, line) = best;
        for r in 0..n {
            let mut bits = match kind {
                0 if r == line => s.open[r],
                0 => 0,
                1 => s.open[r] & (1 << line),
                _ => s.open[r] & self.cells[line][r],
            };
            while bits != 0 {
                let c = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let mut next = *s;
                self.place(&mut next, r, c, self.owner[r * n + c]);
                if let Some(done) = self.search(&next, nodes)? {
                    return Ok(Some(done));
                }
            }
        }
        Ok(None)
    }
}
