//! Instance generators: completions, excluded diagonals, region puzzles (their files are
//! written by [`crate::formats`]).
//!
//! Every generator is driven by [`Rng`], a SplitMix64 stream, so one seed gives the same
//! instance on every platform and every release that keeps this file's algorithms.

use crate::backtrack::{self, Config};
use crate::error::Error;
use crate::model::{Diagonal, DiagonalRule, Pos, Problem, Regions};

/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014), as in Sebastiano Vigna's public-domain reference `splitmix64.c`
/// (<https://prng.di.unimi.it/splitmix64.c>). Not cryptographic: it only has to be
/// reproducible and well mixed, and it needs no dependency.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A stream starting from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..bound` (`bound > 0`), by rejection so there is no modulo bias.
    pub fn below(&mut self, bound: usize) -> usize {
        assert!(bound > 0, "Rng::below needs a positive bound");
        let bound = bound as u64;
        // Largest multiple of `bound` that fits; draws at or above it are redrawn.
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % bound) as usize;
            }
        }
    }

    /// Shuffles a slice in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// A random n-queens completion instance with up to `queens` fixed queens (rule `full`).
///
/// The generator of Gent, Jefferson & Nightingale, "Complexity of n-Queens Completion"
/// (JAIR 59, 2017; CSPLib prob079 `queens-gen-fast.py`): pick a random free row and a random
/// free column, accept the cell when neither of its diagonals holds a queen yet, and stop after
/// `queens` acceptances or n² attempts. The fixed queens never attack each other; fewer than
/// `queens` are placed when the attempts run out (always when `queens > n`).
pub fn completion(n: usize, queens: usize, seed: u64) -> Result<Problem, Error> {
    let problem = Problem::new(n)?;
    let mut rng = Rng::new(seed);
    let mut rows: Vec<usize> = (0..n).collect();
    let mut cols: Vec<usize> = (0..n).collect();
    let mut sum_used = vec![false; 2 * n - 1];
    let mut diff_used = vec![false; 2 * n - 1];
    let mut placed: Vec<Pos> = Vec::new();
    let mut left = n;
    for _ in 0..n * n {
        if placed.len() >= queens || left == 0 {
            break;
        }
        let (i, j) = (rng.below(left), rng.below(left));
        let (r, c) = (rows[i], cols[j]);
        let (s, d) = (r + c, c + n - 1 - r);
        if sum_used[s] || diff_used[d] {
            continue;
        }
        sum_used[s] = true;
        diff_used[d] = true;
        placed.push((r, c));
        // Swap-remove keeps the free lists dense, as the reference generator does.
        rows[i] = rows[left - 1];
        cols[j] = cols[left - 1];
        left -= 1;
    }
    problem.with_fixed(&placed)
}

/// A random Excluded Diagonals list (CSPLib prob079, `queens-diag-gen.py`).
///
/// All 2(2n−1) diagonals are visited in random order; a diagonal is appended when closing its
/// still-open cells leaves every row and every column at least `min_free` open cells. So any
/// prefix of the list is a valid instance (build it with [`diagonals_problem`]).
pub fn diagonals(n: usize, min_free: usize, seed: u64) -> Vec<Diagonal> {
    if n == 0 {
        return Vec::new();
    }
    let mut rng = Rng::new(seed);
    let mut order: Vec<Diagonal> = (0..2 * n - 1)
        .flat_map(|k| [Diagonal::Sum(k), Diagonal::Diff(k)])
        .collect();
    rng.shuffle(&mut order);
    let mut open = vec![true; n * n];
    let mut in_row = vec![n; n];
    let mut in_col = vec![n; n];
    let mut out = Vec::new();
    for d in order {
        let cells: Vec<Pos> = diagonal_cells(n, d)
            .into_iter()
            .filter(|&(r, c)| open[r * n + c])
            .collect();
        // A diagonal meets each row and each column at most once, so one check per cell suffices.
        if cells
            .iter()
            .any(|&(r, c)| in_row[r] <= min_free || in_col[c] <= min_free)
        {
            continue;
        }
        for &(r, c) in &cells {
            open[r * n + c] = false;
            in_row[r] -= 1;
            in_col[c] -= 1;
        }
        out.push(d);
    }
    out
}

/// The Excluded Diagonals instance made of the first `first` diagonals of `list` (all of them
/// when `first` is `None`; a `first` beyond the list is an error).
pub fn diagonals_problem(
    n: usize,
    list: &[Diagonal],
    first: Option<usize>,
) -> Result<Problem, Error> {
    let d = first.unwrap_or(list.len());
    if d > list.len() {
        return Err(Error::Model(format!(
            "asked for the first {d} diagonals but the list has only {}",
            list.len()
        )));
    }
    Problem::new(n)?.with_excluded(&list[..d])
}

fn diagonal_cells(n: usize, d: Diagonal) -> Vec<Pos> {
    (0..n)
        .filter_map(|r| {
            let c = match d {
                Diagonal::Sum(k) => k.checked_sub(r),
                Diagonal::Diff(k) => (k + r).checked_sub(n - 1),
            }?;
            (c < n).then_some((r, c))
        })
        .collect()
}

/// Restarts (each with a fresh placement and region growth) before [`regions`] gives up.
const REGION_RESTARTS: usize = 200;

/// A region Queens puzzle (rule `touch`) with exactly one solution.
///
/// Plants a random touch-rule placement (randomized backtracking), grows one connected region
/// from each queen by random frontier growth, then repairs: while a second solution exists, a
/// cell holding one of its queens (not a planted queen) moves to a neighbouring region, which
/// kills that solution and keeps the planted one and every region connected. After a bounded
/// number of repairs it restarts; after 200 restarts it returns an error rather
/// than a puzzle that is not unique. n = 2 and 3 have no touch-rule placement at all.
///
/// Tested for n = 4..=12 over many seeds (n = 12 takes about a quarter of a second in a release
/// build); from n = 13 some seeds exhaust the attempts and return the error.
pub fn regions(n: usize, seed: u64) -> Result<Problem, Error> {
    if n == 0 || n > 64 {
        return Err(Error::Unsupported(format!(
            "region puzzles are generated for n from 1 to 64, not {n}"
        )));
    }
    if n == 2 || n == 3 {
        return Err(Error::Unsupported(format!(
            "no region puzzle exists for n = {n}: no {n}×{n} placement keeps queens in distinct \
             rows and columns without two of them touching"
        )));
    }
    let mut rng = Rng::new(seed);
    let config = Config {
        threads: 1,
        ..Config::default()
    };
    for _ in 0..REGION_RESTARTS {
        let planted = touch_placement(n, &mut rng);
        let mut owner = grow_regions(n, &planted, &mut rng);
        for _ in 0..8 * n * n {
            let problem = region_problem(n, &owner)?;
            let Some(other) = other_solution(&problem, &planted, &config) else {
                return Ok(problem);
            };
            if !repair(n, &mut owner, &planted, &other, &mut rng) {
                break;
            }
        }
    }
    Err(Error::Unsupported(format!(
        "no unique {n}×{n} region puzzle found in {REGION_RESTARTS} attempts from seed {seed}"
    )))
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

/// Region of each cell (row-major), region `r` seeded at the queen of row `r`; each step gives
/// a random unassigned cell next to the assigned area to a random neighbouring region.
fn grow_regions(n: usize, planted: &[usize], rng: &mut Rng) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut owner = vec![NONE; n * n];
    for (r, &c) in planted.iter().enumerate() {
        owner[r * n + c] = r;
    }
    loop {
        let frontier: Vec<usize> = (0..n * n)
            .filter(|&i| owner[i] == NONE && neighbours(n, i).any(|j| owner[j] != NONE))
            .collect();
        if frontier.is_empty() {
            return owner;
        }
        let i = frontier[rng.below(frontier.len())];
        let regions: Vec<usize> = neighbours(n, i)
            .map(|j| owner[j])
            .filter(|&g| g != NONE)
            .collect();
        owner[i] = regions[rng.below(regions.len())];
    }
}

/// A solution other than the planted one, if there is one.
fn other_solution(problem: &Problem, planted: &[usize], config: &Config) -> Option<Vec<Pos>> {
    let mut other = None;
    backtrack::enumerate(problem, config, Some(2), |q| {
        if q.iter().any(|&(r, c)| planted[r] != c) {
            other = Some(q.to_vec());
            false
        } else {
            true
        }
    });
    other
}

/// Moves one cell holding a queen of `other` (never a planted queen) into a neighbouring
/// region, keeping the region it leaves connected. Its new region then holds two of `other`'s
/// queens, so `other` stops being a solution, while the planted solution is untouched.
fn repair(n: usize, owner: &mut [usize], planted: &[usize], other: &[Pos], rng: &mut Rng) -> bool {
    let mut moves: Vec<(usize, usize)> = Vec::new();
    for &(r, c) in other {
        if planted[r] == c {
            continue;
        }
        let i = r * n + c;
        let from = owner[i];
        let mut targets: Vec<usize> = neighbours(n, i)
            .map(|j| owner[j])
            .filter(|&g| g != from)
            .collect();
        targets.sort_unstable();
        targets.dedup();
        if targets.is_empty() || !connected_without(n, owner, from, i) {
            continue;
        }
        moves.extend(targets.into_iter().map(|g| (i, g)));
    }
    if moves.is_empty() {
        return false;
    }
    let (i, g) = moves[rng.below(moves.len())];
    owner[i] = g;
    true
}

/// Whether region `g` stays connected (4-neighbour) once cell `gone` leaves it.
fn connected_without(n: usize, owner: &[usize], g: usize, gone: usize) -> bool {
    let cells: Vec<usize> = (0..n * n).filter(|&i| owner[i] == g && i != gone).collect();
    let Some(&start) = cells.first() else {
        return false;
    };
    let mut seen = vec![false; n * n];
    let mut stack = vec![start];
    seen[start] = true;
    let mut reached = 1;
    while let Some(i) = stack.pop() {
        for j in neighbours(n, i) {
            if !seen[j] && j != gone && owner[j] == g {
                seen[j] = true;
                reached += 1;
                stack.push(j);
            }
        }
    }
    reached == cells.len()
}
