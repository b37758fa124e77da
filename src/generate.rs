//! Instance generators: completions and excluded diagonals (their files are written by
//! [`crate::formats`]; region puzzles are made in [`crate::puzzle::generate`]).
//!
//! Every generator is driven by [`Rng`], a SplitMix64 stream, so one seed gives the same
//! instance on every platform and every release that keeps this file's algorithms.

use crate::error::Error;
use crate::model::{Diagonal, Pos, Problem};

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
///
/// Past [`crate::model::MAX_N`] (a sparse board) the attempts stop at 64 (n + `queens`)
/// instead of n², so the time stays linear; below half the board's rows the acceptance rate
/// stays high enough that `queens` are placed long before that.
pub fn completion(n: usize, queens: usize, seed: u64) -> Result<Problem, Error> {
    let problem = Problem::sized(n)?;
    let mut rng = Rng::new(seed);
    // u32 rows and columns (n < 2³¹): 8 bytes a row, the same draws as usize lists.
    let mut rows: Vec<u32> = (0..n as u32).collect();
    let mut cols: Vec<u32> = (0..n as u32).collect();
    let attempts = if problem.is_sparse() {
        64 * (n + queens)
    } else {
        n * n
    };
    let mut sum_used = vec![false; 2 * n - 1];
    let mut diff_used = vec![false; 2 * n - 1];
    let mut placed: Vec<Pos> = Vec::new();
    let mut left = n;
    for _ in 0..attempts {
        if placed.len() >= queens || left == 0 {
            break;
        }
        let (i, j) = (rng.below(left), rng.below(left));
        let (r, c) = (rows[i] as usize, cols[j] as usize);
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

/// A completion instance that always has a solution: `queens` rows of a random solution of
/// the empty n×n board (found by local search with this seed), chosen at random, become the
/// fixed queens. Time and memory are linear in n; for any n ≥ 4 (smaller boards with
/// `queens` > 0 have no or only trivial solutions and are refused).
pub fn completion_from_solution(n: usize, queens: usize, seed: u64) -> Result<Problem, Error> {
    let problem = Problem::sized(n)?;
    if queens > n {
        return Err(Error::Unsupported(format!(
            "field `queens`: {queens} fixed queens do not fit on a {n}×{n} board"
        )));
    }
    if (2..=3).contains(&n) && queens > 0 {
        return Err(Error::Unsupported(format!(
            "field `n`: the {n}×{n} board has no solution to take presets from"
        )));
    }
    if queens == 0 {
        return Ok(problem);
    }
    let config = crate::engine::local::Config {
        seed,
        restarts: 10_000,
    };
    let (outcome, _) =
        crate::engine::local::solve(&problem, config, &crate::engine::Budget::default())?;
    let crate::engine::local::Outcome::Solved(cols) = outcome else {
        return Err(Error::internal(format!(
            "local search found no solution of the empty {n}×{n} board to take presets from"
        )));
    };
    crate::verify::verify_columns(&problem, &cols)
        .map_err(|v| Error::internal(format!("a preset source broke a rule: {v}")))?;
    // The first `queens` places of a partial Fisher–Yates shuffle of the rows.
    let mut rng = Rng::new(seed ^ 0x5eed_0f5e_1ec7);
    let mut rows: Vec<u32> = (0..n as u32).collect();
    for i in 0..queens {
        let j = i + rng.below(n - i);
        rows.swap(i, j);
    }
    let mut placed: Vec<Pos> = rows[..queens]
        .iter()
        .map(|&r| (r as usize, cols[r as usize] as usize))
        .collect();
    drop(rows);
    placed.sort_unstable();
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
