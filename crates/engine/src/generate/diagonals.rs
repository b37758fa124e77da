//! Excluded Diagonals instances (CSPLib prob079): a random maximal list of diagonals, its
//! prefixes, and the instance a prefix makes.

use queens_model::error::Error;
use queens_model::model::{Diagonal, Pos, Problem, MAX_N};
use queens_model::rng::Rng;

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

/// The first `first` diagonals of [`diagonals`]'s list (the whole list when `first` is
/// `None`), for any board the model accepts, in memory linear in n.
///
/// While fewer than n − `min_free` diagonals are in the list, every row and column still has
/// more than `min_free` open cells (each diagonal closes at most one cell of a line), so the
/// generator keeps every diagonal it visits: a prefix of up to n − `min_free` diagonals is the
/// first diagonals of the shuffled order itself, found in time and memory linear in n (4 or 8
/// bytes per diagonal) with the same draws, so the same seed gives the same prefix as the full
/// list. A longer prefix, or the whole list, needs the cell-by-cell greedy pass (n² bits and
/// time): that works up to [`MAX_N`] and is refused past it, naming the longest prefix there.
pub fn diagonals_prefix(
    n: usize,
    min_free: usize,
    seed: u64,
    first: Option<usize>,
) -> Result<Vec<Diagonal>, Error> {
    Problem::sized(n)?;
    let quick = n.saturating_sub(min_free);
    match first {
        Some(d) if d <= quick => return Ok(shuffled_prefix(n, d, seed)),
        _ if n <= MAX_N => {}
        Some(d) => {
            return Err(Error::unsupported_at_field(
                "first",
                format!(
                    "{d}: past {MAX_N} rows the list is made only up to its first \
                     n − K = {quick} diagonals (n = {n}, K = {min_free}); a longer list needs the \
                     n² greedy pass"
                ),
            ))
        }
        None => {
            return Err(Error::unsupported_at_field(
                "first",
                format!(
                    "past {MAX_N} rows give the prefix length (up to n − K = {quick} \
                     for n = {n}, K = {min_free}; prob079's hard ratio is about 0.9 n): the whole \
                     maximal list needs the n² greedy pass"
                ),
            ))
        }
    }
    let list = diagonals(n, min_free, seed);
    let d = first.unwrap_or(list.len());
    if d > list.len() {
        return Err(Error::unsupported_at_field(
            "first",
            format!(
                "{d}: seed {seed} gives a maximal list of only {} diagonals for n = \
                 {n}, K = {min_free}",
                list.len()
            ),
        ));
    }
    let mut list = list;
    list.truncate(d);
    Ok(list)
}

/// The first `d` diagonals of [`diagonals`]'s shuffled visiting order (its draws exactly),
/// holding one index per diagonal: `u32` where 4n − 2 of them fit, `u64` otherwise.
fn shuffled_prefix(n: usize, d: usize, seed: u64) -> Vec<Diagonal> {
    let len = 4 * n - 2;
    // Index 2k is `Sum(k)`, 2k + 1 is `Diff(k)`: the order `diagonals` lists them in.
    let diagonal = |i: usize| {
        if i % 2 == 0 {
            Diagonal::Sum(i / 2)
        } else {
            Diagonal::Diff(i / 2)
        }
    };
    let mut rng = Rng::new(seed);
    if u32::try_from(len).is_ok() {
        let mut order: Vec<u32> = (0..len as u32).collect();
        rng.shuffle(&mut order);
        order[..d].iter().map(|&i| diagonal(i as usize)).collect()
    } else {
        let mut order: Vec<u64> = (0..len as u64).collect();
        rng.shuffle(&mut order);
        order[..d].iter().map(|&i| diagonal(i as usize)).collect()
    }
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
        return Err(Error::model(format!(
            "asked for the first {d} diagonals but the list has only {}",
            list.len()
        )));
    }
    Problem::sized(n)?.with_excluded(&list[..d])
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
