//! Local search for classic boards of any size: iterative repair with per-diagonal counters.
//!
//! The board is one column per row (`u32`) and two arrays of diagonal counts, so memory is
//! linear in n and a move is O(1) (Sosič & Gu, "Efficient local search with conflict
//! minimization: a case study of the n-queens problem", IEEE TKDE 6(5), 1994). Fixed queens
//! are pinned rows whose diagonals start counted; an excluded diagonal starts with a count of
//! one, as if a queen stood on it, so any queen there is a conflict the repair removes;
//! blocked cells are never moved onto. The engine is incomplete: when it gives up the answer
//! is [`Outcome::GaveUp`], never "no solution"; only [`refute`]'s cheap checks say "no".

mod config;
mod outcome;
mod search;

use std::time::Instant;

use queens_model::error::Error;
use queens_model::model::{cell, Diagonal, DiagonalRule, Problem};
use queens_model::Budget;

pub use crate::work::LocalStats as Stats;
pub use config::Config;
pub use outcome::Outcome;

/// Bytes the engine holds at its peak on this problem: a column and a pool slot per row
/// (4 + 4), a bit per diagonal of each direction and a pinned-row bit (about 0.6), rounded
/// up to 10 bytes a row; 32 bytes per preset for sorted copies; and a fixed 8 MiB. (The
/// refutation's scan, before the search, holds 6 bytes a row, and 8 bytes a free row where at
/// most half the rows are free: at most 10 bytes a row.) The answer's column-per-row
/// text, written after the search, is counted by the operations layer.
pub fn memory_estimate(problem: &Problem) -> u64 {
    let n = problem.n() as u64;
    let presets =
        (problem.fixed().len() + problem.blocked().len() + problem.excluded().len()) as u64;
    (8u64 << 20) + 10 * n + 32 * presets
}

/// Whether the engine can work on this problem at all: classic rule, no regions.
pub fn supports(problem: &Problem) -> Result<(), Error> {
    if problem.regions().is_some() {
        return Err(Error::unsupported(
            "the local engine solves classic boards (fixed queens, blocked cells, excluded \
             diagonals); region puzzles go to backtrack or sat"
                .into(),
        ));
    }
    if problem.rule() != DiagonalRule::Full {
        return Err(Error::unsupported(
            "the local engine solves the `full` diagonal rule only; use backtrack or sat".into(),
        ));
    }
    Ok(())
}

/// Searches for a solution within the budget: [`refute`] first, then the repair with up to
/// `config.restarts` fresh starts. Progress goes to the budget's callback as (rows without a
/// conflict, rows).
pub fn search(
    problem: &Problem,
    config: Config,
    budget: &Budget,
) -> Result<(Outcome, Stats), Error> {
    supports(problem)?;
    let start = Instant::now();
    if let Some(why) = refute(problem) {
        let stats = Stats {
            time_ms: crate::work::ms(start),
            ..Stats::default()
        };
        return Ok((Outcome::Refuted(why), stats));
    }
    let (outcome, mut stats) = search::run(problem, config, budget);
    stats.time_ms = crate::work::ms(start);
    Ok((outcome, stats))
}

/// Cheap, sound reasons why a classic problem has no solution: two fixed queens on one line,
/// a fixed queen on a blocked cell or an excluded diagonal, or a free row or column with no
/// cell left (every cell blocked, on an excluded diagonal, or attacked by a fixed queen).
/// The row and column scans stop at each line's first usable cell and give up (saying
/// nothing) past a work limit linear in n, so they cost little on a board that has room.
pub fn refute(problem: &Problem) -> Option<String> {
    refute_presets(problem).or_else(|| empty_line(problem))
}

/// The part of [`refute`] about the fixed queens alone: two on one line, or one on a blocked
/// cell or an excluded diagonal.
pub fn refute_presets(problem: &Problem) -> Option<String> {
    let n = problem.n();
    let fixed = problem.fixed();
    // One pass over bitmaps finds whether two fixed queens share a line; only then are the
    // lines sorted to name them (four sorts of the presets: a third of a second at 10⁶).
    if problem.blocked().is_empty() && problem.excluded().is_empty() && !any_clash(problem) {
        return None;
    }
    // Two fixed queens on one line: sort each line's key and look at neighbours.
    type Key = fn(usize, usize, usize) -> usize;
    let lines: [(&str, Key); 4] = [
        ("row", |r, _, _| r),
        ("column", |_, c, _| c),
        ("diagonal", |r, c, _| r + c),
        ("anti-diagonal", |r, c, n| c + n - 1 - r),
    ];
    for (name, key) in lines {
        let mut keyed: Vec<(usize, usize)> = fixed
            .iter()
            .enumerate()
            .map(|(i, &(r, c))| (key(r, c, n), i))
            .collect();
        keyed.sort_unstable();
        if let Some(w) = keyed.windows(2).find(|w| w[0].0 == w[1].0) {
            let (a, b) = (fixed[w[0].1], fixed[w[1].1]);
            let line = if name == "row" || name == "column" {
                format!("share a {name}")
            } else {
                "share a diagonal".to_string()
            };
            return Some(format!("fixed queens {} and {} {line}", cell(a), cell(b)));
        }
    }
    let blocked = problem.blocked();
    let excluded = problem.excluded();
    for &q in fixed {
        if blocked.binary_search(&q).is_ok() {
            return Some(format!("fixed queen {} stands on a blocked cell", cell(q)));
        }
        let (r, c) = q;
        if excluded.binary_search(&Diagonal::Sum(r + c)).is_ok()
            || excluded
                .binary_search(&Diagonal::Diff(c + n - 1 - r))
                .is_ok()
        {
            return Some(format!(
                "fixed queen {} stands on an excluded diagonal",
                cell(q)
            ));
        }
    }
    None
}

/// Whether two fixed queens share a row, a column or a diagonal, in O(presets + n / 64).
fn any_clash(problem: &Problem) -> bool {
    let n = problem.n();
    let mut seen = [
        vec![0u64; n.div_ceil(64)],
        vec![0u64; n.div_ceil(64)],
        vec![0u64; (2 * n).div_ceil(64)],
        vec![0u64; (2 * n).div_ceil(64)],
    ];
    for &(r, c) in problem.fixed() {
        for (bits, i) in seen.iter_mut().zip([r, c, r + c, c + n - 1 - r]) {
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            if bits[word] & bit != 0 {
                return true;
            }
            bits[word] |= bit;
        }
    }
    false
}

/// The free lines (rows or columns), from their list when `listed`, else from `taken`.
fn free_lines<'a>(
    n: usize,
    listed: bool,
    taken: &'a [bool],
    list: &'a [u32],
) -> Box<dyn Iterator<Item = usize> + 'a> {
    if listed {
        Box::new(list.iter().map(|&i| i as usize))
    } else {
        Box::new((0..n).filter(|&i| !taken[i]))
    }
}

/// A free row or column without a usable cell, within a work limit of 64 n + 10⁶ looks.
fn empty_line(problem: &Problem) -> Option<String> {
    let n = problem.n();
    if problem.blocked().is_empty() && problem.excluded().is_empty() && problem.fixed().is_empty() {
        return None;
    }
    let mut taken_row = vec![false; n];
    let mut taken_col = vec![false; n];
    // Diagonals closed by a fixed queen or an exclusion.
    let mut sum = vec![false; 2 * n - 1];
    let mut diff = vec![false; 2 * n - 1];
    for &(r, c) in problem.fixed() {
        taken_row[r] = true;
        taken_col[c] = true;
        sum[r + c] = true;
        diff[c + n - 1 - r] = true;
    }
    for &d in problem.excluded() {
        match d {
            Diagonal::Sum(k) => sum[k] = true,
            Diagonal::Diff(k) => diff[k] = true,
        }
    }
    let blocked = problem.blocked();
    let mut by_col: Vec<(usize, usize)> = blocked.iter().map(|&(r, c)| (c, r)).collect();
    by_col.sort_unstable();
    let mut budget = 64 * n as u64 + 1_000_000;
    let open = |r: usize, c: usize| !sum[r + c] && !diff[c + n - 1 - r];
    // Each line's scan walks the free lines across it. Where most lines are taken (a
    // completion near its crossing) they are listed once, 8 bytes a free row, so a scan
    // does not step over the taken ones again (δ · n steps, seconds at n = 10⁶); where
    // most are free, skipping the few taken costs little and the lists would cost memory.
    let free = (0..n).filter(|&r| !taken_row[r]).count();
    let listed = 2 * free <= n;
    let list = |taken: &[bool]| -> Vec<u32> {
        match listed {
            true => (0..n as u32).filter(|&i| !taken[i as usize]).collect(),
            false => Vec::new(),
        }
    };
    let (rows, cols) = (list(&taken_row), list(&taken_col));
    let lines = |taken, list| free_lines(n, listed, taken, list);
    for r in lines(&taken_row, &rows) {
        let mut found = false;
        for c in lines(&taken_col, &cols) {
            if budget == 0 {
                return None;
            }
            budget -= 1;
            if open(r, c) && blocked.binary_search(&(r, c)).is_err() {
                found = true;
                break;
            }
        }
        if !found {
            return Some(format!(
                "row {r} has no usable cell (each is blocked, on an excluded diagonal, or in \
                 the line of a fixed queen)"
            ));
        }
    }
    for c in lines(&taken_col, &cols) {
        let mut found = false;
        for r in lines(&taken_row, &rows) {
            if budget == 0 {
                return None;
            }
            budget -= 1;
            if open(r, c) && by_col.binary_search(&(c, r)).is_err() {
                found = true;
                break;
            }
        }
        if !found {
            return Some(format!(
                "column {c} has no usable cell (each is blocked, on an excluded diagonal, or \
                 in the line of a fixed queen)"
            ));
        }
    }
    None
}
