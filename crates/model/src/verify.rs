//! The independent verifier: the one place the rules are stated without search.
//!
//! Both engines are tested against it and every board the product prints passes through it.
//! It deliberately shares no code with the engines beyond the [`Problem`] accessors: lines are
//! grouped with hash maps, not bitsets, so a bug in the engines' bit tricks cannot hide here.

use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fmt;

use crate::model::{cell, DiagonalRule, Pos, Problem};

/// One broken rule, naming the cells involved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Violation {
    /// A queen off the board.
    OffBoard {
        /// The offending cell.
        cell: Pos,
    },
    /// The same cell listed twice.
    Duplicate {
        /// The repeated cell.
        cell: Pos,
    },
    /// A queen on a blocked cell or an excluded diagonal.
    Blocked {
        /// The offending cell.
        cell: Pos,
    },
    /// Two queens in one row.
    SameRow {
        /// First queen.
        a: Pos,
        /// Second queen.
        b: Pos,
    },
    /// Two queens in one column.
    SameColumn {
        /// First queen.
        a: Pos,
        /// Second queen.
        b: Pos,
    },
    /// Two queens in one region.
    SameRegion {
        /// First queen.
        a: Pos,
        /// Second queen.
        b: Pos,
        /// The region's name.
        region: String,
    },
    /// Two queens on one diagonal line (rule `full`).
    SameDiagonal {
        /// First queen.
        a: Pos,
        /// Second queen.
        b: Pos,
    },
    /// Two queens on corner-adjacent cells (rule `touch`).
    Touch {
        /// First queen.
        a: Pos,
        /// Second queen.
        b: Pos,
    },
    /// A fixed queen of the problem is not among the answer's queens.
    MissingFixed {
        /// The fixed queen.
        cell: Pos,
    },
    /// Fewer or more than `n` queens.
    WrongCount {
        /// `n`.
        expected: usize,
        /// Queens given.
        found: usize,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::OffBoard { cell: p } => write!(f, "queen {} is off the board", cell(*p)),
            Violation::Duplicate { cell: p } => write!(f, "queen {} is listed twice", cell(*p)),
            Violation::Blocked { cell: p } => {
                write!(f, "queen {} stands on a blocked cell", cell(*p))
            }
            Violation::SameRow { a, b } => {
                write!(f, "queens {} and {} share row {}", cell(*a), cell(*b), a.0)
            }
            Violation::SameColumn { a, b } => {
                write!(
                    f,
                    "queens {} and {} share column {}",
                    cell(*a),
                    cell(*b),
                    a.1
                )
            }
            Violation::SameRegion { a, b, region } => {
                write!(
                    f,
                    "queens {} and {} share region {region}",
                    cell(*a),
                    cell(*b)
                )
            }
            Violation::SameDiagonal { a, b } => {
                write!(f, "queens {} and {} share a diagonal", cell(*a), cell(*b))
            }
            Violation::Touch { a, b } => {
                write!(f, "queens {} and {} touch diagonally", cell(*a), cell(*b))
            }
            Violation::MissingFixed { cell: p } => {
                write!(f, "fixed queen {} is missing from the answer", cell(*p))
            }
            Violation::WrongCount { expected, found } => {
                write!(f, "{found} queens placed, a solution needs {expected}")
            }
        }
    }
}

/// Checks a complete answer: exactly `n` queens, every fixed queen among them, no conflict.
/// Returns the first violation found.
pub fn verify(problem: &Problem, queens: &[Pos]) -> Result<(), Violation> {
    if let Some(v) = first_conflict(problem, queens) {
        return Err(v);
    }
    let placed: HashSet<Pos> = queens.iter().copied().collect();
    if let Some(&p) = problem.fixed().iter().find(|p| !placed.contains(p)) {
        return Err(Violation::MissingFixed { cell: p });
    }
    if queens.len() != problem.n() {
        return Err(Violation::WrongCount {
            expected: problem.n(),
            found: queens.len(),
        });
    }
    Ok(())
}

/// The first conflict of [`conflicts`], without listing the others (a placement with many
/// queens in one line has quadratically many pairs).
pub fn first_conflict(problem: &Problem, queens: &[Pos]) -> Option<Violation> {
    conflicts_up_to(problem, queens, 1).0.into_iter().next()
}

/// Every conflict among a partial placement: cells off the board, duplicates, blocked cells,
/// and every pair of queens that share a line or touch. Does not require `n` queens.
pub fn conflicts(problem: &Problem, queens: &[Pos]) -> Vec<Violation> {
    conflicts_up_to(problem, queens, usize::MAX).0
}

/// [`conflicts`], listing at most `limit` of them, and how many there are in all: m queens
/// in one line are m(m − 1)/2 pairs, so a hostile placement must not be listed in full.
pub fn conflicts_up_to(problem: &Problem, queens: &[Pos], limit: usize) -> (Vec<Violation>, u64) {
    let n = problem.n();
    let mut found = Found {
        out: Vec::new(),
        total: 0,
        limit,
    };
    let mut seen = HashSet::new();
    let mut on_board = Vec::with_capacity(queens.len().min(n * n));
    for &p in queens {
        if p.0 >= n || p.1 >= n {
            found.push(Violation::OffBoard { cell: p });
        } else if !seen.insert(p) {
            found.push(Violation::Duplicate { cell: p });
        } else {
            if !problem.is_open(p) {
                found.push(Violation::Blocked { cell: p });
            }
            on_board.push(p);
        }
    }

    // Group queens by each line; every pair in a group is a conflict.
    for (a, b) in found.pairs(&on_board, |p| Some(p.0 as i64)) {
        found.push(Violation::SameRow { a, b });
    }
    for (a, b) in found.pairs(&on_board, |p| Some(p.1 as i64)) {
        found.push(Violation::SameColumn { a, b });
    }
    if let Some(g) = problem.regions() {
        for (a, b) in found.pairs(&on_board, |p| Some(g.id(p) as i64)) {
            let region = g.name(g.id(a)).to_string();
            found.push(Violation::SameRegion { a, b, region });
        }
    }
    match problem.rule() {
        DiagonalRule::Full => {
            for (a, b) in found.pairs(&on_board, |p| Some(p.0 as i64 + p.1 as i64)) {
                found.push(Violation::SameDiagonal { a, b });
            }
            for (a, b) in found.pairs(&on_board, |p| Some(p.0 as i64 - p.1 as i64)) {
                found.push(Violation::SameDiagonal { a, b });
            }
        }
        DiagonalRule::Touch => {
            for &(r, c) in &on_board {
                // Look only down-left and down-right so each pair is named once.
                for dc in [-1i64, 1] {
                    let nc = c as i64 + dc;
                    if nc >= 0 && seen.contains(&(r + 1, nc as usize)) {
                        let b = (r + 1, nc as usize);
                        found.push(Violation::Touch { a: (r, c), b });
                    }
                }
            }
        }
    }
    (found.out, found.total)
}

/// Violations listed so far (at most `limit`) and counted in all.
struct Found {
    out: Vec<Violation>,
    total: u64,
    limit: usize,
}

impl Found {
    fn push(&mut self, v: Violation) {
        self.total += 1;
        if self.out.len() < self.limit {
            self.out.push(v);
        }
    }

    /// The pairs sharing a key that still fit in the list; the others are only counted.
    fn pairs(&mut self, queens: &[Pos], key: impl Fn(Pos) -> Option<i64>) -> Vec<(Pos, Pos)> {
        let (pairs, more) = pairs_sharing(queens, self.limit - self.out.len(), key);
        self.total += more;
        pairs
    }
}

/// Pairs of queens with the same key (the same line), in key then cell order: at most
/// `limit` of them, and how many more there are.
fn pairs_sharing(
    queens: &[Pos],
    limit: usize,
    key: impl Fn(Pos) -> Option<i64>,
) -> (Vec<(Pos, Pos)>, u64) {
    // Sorted by line, then by cell: each run of equal keys is one line's queens.
    let mut keyed: Vec<(i64, Pos)> = queens
        .iter()
        .filter_map(|&p| key(p).map(|k| (k, p)))
        .collect();
    keyed.sort_unstable();
    let mut pairs = Vec::new();
    let mut more = 0u64;
    for run in keyed.chunk_by(|a, b| a.0 == b.0) {
        let m = run.len() as u64;
        let in_run = m * m.saturating_sub(1) / 2;
        let take = (limit - pairs.len()).min(in_run as usize);
        more += in_run - take as u64;
        'pairs: for (i, &(_, a)) in run.iter().enumerate() {
            for &(_, b) in &run[i + 1..] {
                if pairs.len() >= limit {
                    break 'pairs;
                }
                pairs.push((a, b));
            }
        }
    }
    (pairs, more)
}

/// Checks a complete answer given as one column per row (`cols[r]` is the column of row
/// `r`'s queen), in time O(n + presets) and n/8 · 6 bytes: the big-board verifier every
/// local-search answer passes before it is printed or served. Returns the first violation
/// [`columns_conflicts_up_to`] finds.
pub fn verify_columns(problem: &Problem, cols: &[u32]) -> Result<(), Violation> {
    match columns_conflicts_up_to(problem, cols, 1)
        .0
        .into_iter()
        .next()
    {
        Some(v) => Err(v),
        None => Ok(()),
    }
}

/// Every broken rule of a complete answer given as one column per row, as [`conflicts_up_to`]
/// counts them (a wrong number of rows, each queen off the board or on a closed cell, each
/// pair of queens sharing a line, each fixed queen missing): at most `limit` listed, and how
/// many in all. What `check FILE --board SOLUTION` reports.
///
/// One queen per row holds by construction; columns and both diagonal directions are marked
/// in bit sets written here (no engine code), so a valid board costs n/8 · 6 bytes and one
/// pass; only a line found holding a second queen gets a count, and a second pass names the
/// pairs, keeping rows only until the list is full. Region and `touch` problems go through
/// [`conflicts_up_to`].
pub fn columns_conflicts_up_to(
    problem: &Problem,
    cols: &[u32],
    limit: usize,
) -> (Vec<Violation>, u64) {
    let n = problem.n();
    let mut found = Found {
        out: Vec::new(),
        total: 0,
        limit,
    };
    if cols.len() != n {
        found.push(Violation::WrongCount {
            expected: n,
            found: cols.len(),
        });
    }
    let queen = |r: usize| (r, cols[r] as usize);
    if problem.regions().is_some() || problem.rule() != DiagonalRule::Full {
        let queens: Vec<Pos> = (0..cols.len()).map(queen).collect();
        let (list, total) =
            conflicts_up_to(problem, &queens, limit.saturating_sub(found.out.len()));
        found.out.extend(list);
        found.total += total;
    } else {
        // Lines by kind (0: column, 1: r + c, 2: c − r + n − 1) and index.
        let lines = |(r, c): Pos| [(0u8, c), (1, r + c), (2, c + n - 1 - r)];
        let mut marks = [Bits::new(n), Bits::new(2 * n - 1), Bits::new(2 * n - 1)];
        let mut crowded: HashMap<(u8, usize), u64> = HashMap::new();
        for r in 0..cols.len() {
            let p = queen(r);
            if p.0 >= n || p.1 >= n {
                found.push(Violation::OffBoard { cell: p });
                continue;
            }
            if !problem.is_open(p) {
                found.push(Violation::Blocked { cell: p });
            }
            for line in lines(p) {
                if marks[line.0 as usize].set(line.1) {
                    *crowded.entry(line).or_insert(1) += 1;
                }
            }
        }
        // m queens on one line are m(m − 1)/2 pairs; name them in the order of their
        // second queen's row.
        let pairs: u64 = crowded.values().map(|m| m * (m - 1) / 2).sum();
        found.total += pairs;
        let mut unnamed = pairs;
        if pairs > 0 {
            // The marks now say which lines are crowded: a bit test per line, not a lookup.
            for (kind, bits) in marks.iter_mut().enumerate() {
                bits.0.fill(0);
                for &(k, i) in crowded.keys() {
                    if k as usize == kind {
                        bits.set(i);
                    }
                }
            }
        }
        let mut earlier: HashMap<(u8, usize), Vec<usize>> = HashMap::new();
        'rows: for r in 0..cols.len().min(n) {
            let b = queen(r);
            if unnamed == 0 || found.out.len() >= limit {
                break;
            }
            if b.1 >= n {
                continue;
            }
            for line in lines(b) {
                if !marks[line.0 as usize].get(line.1) {
                    continue;
                }
                let rows = earlier.entry(line).or_default();
                for &a in rows.iter() {
                    if found.out.len() >= limit {
                        break 'rows;
                    }
                    let a = queen(a);
                    found.out.push(match line.0 {
                        0 => Violation::SameColumn { a, b },
                        _ => Violation::SameDiagonal { a, b },
                    });
                    unnamed -= 1;
                }
                rows.push(r);
            }
        }
    }
    for &(r, c) in problem.fixed() {
        if cols.get(r).map(|&x| x as usize) != Some(c) {
            found.push(Violation::MissingFixed { cell: (r, c) });
        }
    }
    (found.out, found.total)
}

/// A plain bit set for [`verify_columns`].
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// Sets bit `i`; true when it was already set.
    fn set(&mut self, i: usize) -> bool {
        let was = self.get(i);
        self.0[i / 64] |= 1 << (i % 64);
        was
    }
}
