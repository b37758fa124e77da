//! N-queens completion instances: Gent, Jefferson & Nightingale's random presets, and presets
//! taken from a random solution (always completable).

use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::rng::Rng;

/// A random n-queens completion instance with up to `queens` fixed queens (rule `full`).
///
/// The generator of Gent, Jefferson & Nightingale, "Complexity of n-Queens Completion"
/// (JAIR 59, 2017; CSPLib prob079 `queens-gen-fast.py`): pick a random free row and a random
/// free column, accept the cell when neither of its diagonals holds a queen yet, and stop after
/// `queens` acceptances or n² attempts. The fixed queens never attack each other; fewer than
/// `queens` are placed when the attempts run out (always when `queens > n`).
///
/// Past [`queens_model::model::MAX_N`] (a sparse board) the attempts stop at 64 (n + `queens`)
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
        return Err(Error::unsupported_at_field(
            "queens",
            format!("{queens} fixed queens do not fit on a {n}×{n} board"),
        ));
    }
    if (2..=3).contains(&n) && queens > 0 {
        return Err(Error::unsupported_at_field(
            "n",
            format!("the {n}×{n} board has no solution to take presets from"),
        ));
    }
    if queens == 0 {
        return Ok(problem);
    }
    let config = crate::local::Config {
        seed,
        restarts: 10_000,
    };
    let (outcome, _) = crate::local::search(&problem, config, &crate::Budget::default())?;
    let crate::local::Outcome::Solved(cols) = outcome else {
        return Err(Error::internal(format!(
            "local search found no solution of the empty {n}×{n} board to take presets from"
        )));
    };
    queens_model::verify::verify_columns(&problem, &cols)
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
