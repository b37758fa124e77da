//! Instance generators (completion, excluded diagonals, region puzzles) and CSPLib prob079 files.
//!
//! Every generator is driven by [`Rng`], a SplitMix64 stream, so one seed gives the same
//! instance on every platform and every release that keeps this file's algorithms.

use std::collections::HashMap;

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

/// The pair `[k, t]` CSPLib prob079 writes for a diagonal (inverse of
/// [`Diagonal::from_csplib`]).
pub fn to_csplib(n: usize, d: Diagonal) -> (usize, u8) {
    match d {
        Diagonal::Sum(k) => (k, 1),
        Diagonal::Diff(k) => (2 * (n - 1) - k, 0),
    }
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

/// Parses a CSPLib prob079 parameter file (Essence' `letting` statements; `$` starts a comment).
///
/// Completion files give `n` and `init = [[r, c], …]`; Excluded Diagonals files give `n` and
/// `diags = [[k, t], …]` (the [`Diagonal::from_csplib`] convention). The `letting` keyword is
/// optional, since `queens-diag-gen.py` prints `n = 10` and `diags = …` without it, and `be`
/// may stand for `=`; `given_queens` and `numdiags`, when present, must match the list lengths.
///
/// Coordinates are 0-based: the prob079 models declare rows and columns as `int(0..n-1)`, the
/// generator draws them from `range(n)`, and the data notes say "the boards are assumed to be
/// indexed from 0". `[r, c]` is taken as row `r`, column `c` of this crate's model.
///
/// `first` keeps only the first that many queens and diagonals, since prob079 defines an
/// instance as a prefix of the generated list.
pub fn parse_csplib(origin: &str, text: &str, first: Option<usize>) -> Result<Problem, Error> {
    let err = |line: usize, msg: String| Error::input(origin, format!("line {line}: {msg}"));
    let tokens = tokenize(text).map_err(|(line, m)| err(line, m))?;
    let mut lettings: HashMap<String, (usize, Value)> = HashMap::new();
    let mut p = Parser {
        tokens,
        at: 0,
        depth: 0,
    };
    while let Some(&(line, ref tok)) = p.peek() {
        let name = match tok {
            Tok::Word(w) if w == "letting" => {
                p.at += 1;
                match p.next() {
                    Some((_, Tok::Word(w))) => w,
                    Some((l, t)) => {
                        return Err(err(
                            l,
                            format!("expected a name after `letting`, found {t}"),
                        ))
                    }
                    None => return Err(err(line, "expected a name after `letting`".into())),
                }
            }
            Tok::Word(w) => {
                let w = w.clone();
                p.at += 1;
                w
            }
            other => {
                return Err(err(
                    line,
                    format!("expected `letting name = value`, found {other}"),
                ))
            }
        };
        match p.next() {
            Some((_, Tok::Eq)) => {}
            Some((_, Tok::Word(w))) if w == "be" => {}
            Some((l, t)) => return Err(err(l, format!("expected `=` after `{name}`, found {t}"))),
            None => return Err(err(line, format!("expected `=` after `{name}`"))),
        }
        let value = p.value(line).map_err(|(l, m)| err(l, m))?;
        if !["n", "init", "diags", "given_queens", "numdiags"].contains(&name.as_str()) {
            return Err(err(
                line,
                format!(
                    "unknown parameter `{name}` (known: n, init, diags, given_queens, numdiags)"
                ),
            ));
        }
        if let Some((before, _)) = lettings.get(&name) {
            return Err(err(
                line,
                format!("`{name}` is already given on line {before}"),
            ));
        }
        lettings.insert(name, (line, value));
    }
    let (n_line, n) = match lettings.get("n") {
        Some((l, Value::Int(n, _))) if *n >= 1 => (*l, *n as usize),
        Some((l, _)) => return Err(err(*l, "`n` must be a positive whole number".into())),
        None => {
            return Err(Error::input(
                origin,
                "line 1: no `letting n = …` in the file",
            ))
        }
    };
    let mut problem = Problem::new(n).map_err(|e| err(n_line, e.to_string()))?;
    let pairs = |name: &str| -> Result<Option<Vec<Pair>>, Error> {
        let Some((line, v)) = lettings.get(name) else {
            return Ok(None);
        };
        let Value::List(items, _) = v else {
            return Err(err(
                *line,
                format!("`{name}` must be a list of pairs like [[1, 2], [3, 4]]"),
            ));
        };
        let mut out = Vec::new();
        for item in items {
            match item {
                Value::List(xy, l) if xy.len() == 2 => match (&xy[0], &xy[1]) {
                    (Value::Int(a, _), Value::Int(b, _)) => out.push((*l, *a, *b)),
                    _ => {
                        return Err(err(
                            *l,
                            format!("`{name}`: expected a pair of whole numbers"),
                        ))
                    }
                },
                Value::List(_, l) | Value::Int(_, l) => {
                    return Err(err(*l, format!("`{name}`: expected a pair like [1, 2]")))
                }
            }
        }
        let keep = first.unwrap_or(out.len());
        if keep > out.len() {
            return Err(err(
                *line,
                format!(
                    "asked for the first {keep} of `{name}` but the file lists {}",
                    out.len()
                ),
            ));
        }
        out.truncate(keep);
        Ok(Some(out))
    };
    let count_matches = |name: &str, list: &str, len: Option<usize>| -> Result<(), Error> {
        if let (Some((l, v)), Some(len)) = (lettings.get(name), len) {
            match v {
                Value::Int(k, _) if first.is_some() || *k as usize == len => {}
                _ => {
                    return Err(err(
                        *l,
                        format!("`{name}` does not match the {len} entries of `{list}`"),
                    ))
                }
            }
        }
        Ok(())
    };
    let init = pairs("init")?;
    let diags = pairs("diags")?;
    count_matches("given_queens", "init", init.as_ref().map(Vec::len))?;
    count_matches("numdiags", "diags", diags.as_ref().map(Vec::len))?;
    if init.is_none() && diags.is_none() && first.is_some() {
        return Err(err(
            n_line,
            "a prefix was asked for but the file has no `init` or `diags` list".into(),
        ));
    }
    if let Some(cells) = init {
        let mut fixed = Vec::new();
        let mut lines = Vec::new();
        for (l, r, c) in cells {
            if r >= n as u64 || c >= n as u64 {
                return Err(err(
                    l,
                    format!(
                        "queen [{r}, {c}] is off the {n}×{n} board (coordinates are 0..{})",
                        n - 1
                    ),
                ));
            }
            fixed.push((r as usize, c as usize));
            lines.push(l);
        }
        if let Some((first, again)) = crate::model::find_duplicate(n, &fixed) {
            let (r, c) = fixed[again];
            return Err(err(
                lines[again],
                format!(
                    "init: queen [{r}, {c}] is given twice (also on line {})",
                    lines[first]
                ),
            ));
        }
        problem = problem
            .with_fixed(&fixed)
            .map_err(|e| err(n_line, e.to_string()))?;
    }
    if let Some(kts) = diags {
        let mut list = Vec::new();
        for (l, k, t) in kts {
            let d = (t <= 1)
                .then(|| Diagonal::from_csplib(n, k as usize, t as u8))
                .flatten()
                .ok_or_else(|| {
                    err(
                        l,
                        format!(
                            "diagonal [{k}, {t}]: expected [k, t] with k in 0..={} and t 0 or 1",
                            2 * n - 2
                        ),
                    )
                })?;
            list.push(d);
        }
        problem = problem
            .with_excluded(&list)
            .map_err(|e| err(n_line, e.to_string()))?;
    }
    Ok(problem)
}

/// One `[a, b]` entry of a parameter list, with the line it starts on.
type Pair = (usize, u64, u64);

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Int(u64),
    Open,
    Close,
    Comma,
    Eq,
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "`{w}`"),
            Tok::Int(i) => write!(f, "`{i}`"),
            Tok::Open => f.write_str("`[`"),
            Tok::Close => f.write_str("`]`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Eq => f.write_str("`=`"),
        }
    }
}

/// A parameter value; the `usize` is the line it starts on.
#[derive(Clone, Debug)]
enum Value {
    Int(u64, usize),
    List(Vec<Value>, usize),
}

fn tokenize(text: &str) -> Result<Vec<(usize, Tok)>, (usize, String)> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let code = raw.split('$').next().unwrap_or("");
        let mut chars = code.char_indices().peekable();
        while let Some(&(start, ch)) = chars.peek() {
            match ch {
                c if c.is_whitespace() => {
                    chars.next();
                }
                '[' | ']' | ',' | '=' => {
                    chars.next();
                    out.push((
                        line,
                        match ch {
                            '[' => Tok::Open,
                            ']' => Tok::Close,
                            ',' => Tok::Comma,
                            _ => Tok::Eq,
                        },
                    ));
                }
                c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => {
                    let mut end = start;
                    while let Some(&(j, c)) = chars.peek() {
                        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                            end = j + c.len_utf8();
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    let word = &code[start..end];
                    if word.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                        let v = word.parse::<u64>().map_err(|_| {
                            (line, format!("`{word}` is not a whole number (0 or more)"))
                        })?;
                        out.push((line, Tok::Int(v)));
                    } else {
                        out.push((line, Tok::Word(word.to_string())));
                    }
                }
                c => return Err((line, format!("unexpected character {c:?}"))),
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(usize, Tok)>,
    at: usize,
    /// Lists open around the current value.
    depth: usize,
}

/// Deepest list nesting a parameter file may have: prob079 files nest two deep; a deeper
/// file is refused before the recursive parser could run out of stack (fuzzing found a
/// 10,000-deep `init` that aborted the process).
const MAX_NESTING: usize = 32;

impl Parser {
    fn peek(&self) -> Option<&(usize, Tok)> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<(usize, Tok)> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    /// `int` or `[value, …]`; `line` is where the statement began, for errors at end of file.
    fn value(&mut self, line: usize) -> Result<Value, (usize, String)> {
        match self.next() {
            Some((l, Tok::Int(v))) => Ok(Value::Int(v, l)),
            Some((l, Tok::Open)) if self.depth >= MAX_NESTING => Err((
                l,
                format!("lists nested more than {MAX_NESTING} deep (prob079 files nest two)"),
            )),
            Some((l, Tok::Open)) => {
                self.depth += 1;
                let result = self.list(l);
                self.depth -= 1;
                result
            }
            Some((l, t)) => Err((l, format!("expected a number or a list, found {t}"))),
            None => Err((line, "missing value at end of file".into())),
        }
    }

    /// The rest of a list whose `[` was on line `l`.
    fn list(&mut self, l: usize) -> Result<Value, (usize, String)> {
        {
            {
                let mut items = Vec::new();
                if matches!(self.peek(), Some((_, Tok::Close))) {
                    self.at += 1;
                    return Ok(Value::List(items, l));
                }
                loop {
                    items.push(self.value(l)?);
                    match self.next() {
                        Some((_, Tok::Comma)) => {}
                        Some((_, Tok::Close)) => return Ok(Value::List(items, l)),
                        Some((l2, t)) => {
                            return Err((l2, format!("expected `,` or `]` in a list, found {t}")))
                        }
                        None => return Err((l, "list opened here is never closed".into())),
                    }
                }
            }
        }
    }
}

/// Writes a problem in the project's JSON instance format, so that [`crate::parse::parse`]
/// reads back an equal problem. Regions are row strings when every name is one character,
/// arrays of names otherwise; excluded diagonals are CSPLib `[k, t]` pairs.
pub fn write_json(problem: &Problem, id: &str) -> String {
    let n = problem.n();
    let q = |s: &str| serde_json::to_string(s).expect("strings serialize");
    let cells = |cells: &[Pos]| {
        let items: Vec<String> = cells.iter().map(|&(r, c)| format!("[{r}, {c}]")).collect();
        format!("[{}]", items.join(", "))
    };
    let mut fields = vec![
        format!("  \"id\": {}", q(id)),
        format!("  \"n\": {n}"),
        format!("  \"diagonals\": {}", q(&problem.rule().to_string())),
    ];
    if let Some(g) = problem.regions() {
        let one_char = g.names().iter().all(|s| s.chars().count() == 1);
        let rows: Vec<String> = (0..n)
            .map(|r| {
                let names = (0..n).map(|c| g.name(g.id((r, c))));
                if one_char {
                    format!("    {}", q(&names.collect::<String>()))
                } else {
                    let items: Vec<String> = names.map(q).collect();
                    format!("    [{}]", items.join(", "))
                }
            })
            .collect();
        fields.push(format!("  \"regions\": [\n{}\n  ]", rows.join(",\n")));
    }
    if !problem.fixed().is_empty() {
        fields.push(format!("  \"queens\": {}", cells(problem.fixed())));
    }
    if !problem.blocked().is_empty() {
        fields.push(format!("  \"blocked\": {}", cells(problem.blocked())));
    }
    if !problem.excluded().is_empty() {
        let items: Vec<String> = problem
            .excluded()
            .iter()
            .map(|&d| {
                let (k, t) = to_csplib(n, d);
                format!("[{k}, {t}]")
            })
            .collect();
        fields.push(format!("  \"diags\": [{}]", items.join(", ")));
    }
    format!("{{\n{}\n}}\n", fields.join(",\n"))
}

/// Writes an Excluded Diagonals instance as JSON keeping the list's order, so that `--first`
/// on the written file still takes a prefix of the generated list (the prob079 convention).
pub fn write_diagonals_json(n: usize, list: &[Diagonal], id: &str) -> String {
    let pairs: Vec<String> = list
        .iter()
        .map(|&d| {
            let (k, t) = to_csplib(n, d);
            format!("[{k}, {t}]")
        })
        .collect();
    format!(
        "{{\n  \"id\": {},\n  \"n\": {n},\n  \"diags\": [{}]\n}}\n",
        serde_json::to_string(id).expect("strings serialize"),
        pairs.join(", ")
    )
}

/// Writes a JSON instance object (one that went through [`serde_json::Value`], like the
/// instances of [`crate::ops::GenerateResponse`]) in the layout of [`write_json`] and
/// [`write_diagonals_json`]: one field per line in their order (`id`, `n`, `diagonals`,
/// `regions`, `queens`, `blocked`, `diags`, then any other), one region row per line, lists
/// of cells on one line. A value that is not an object is written as compact JSON.
pub fn write_value(value: &serde_json::Value) -> String {
    use serde_json::Value;
    fn inline(v: &Value) -> String {
        match v {
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(inline).collect();
                format!("[{}]", items.join(", "))
            }
            v => v.to_string(),
        }
    }
    let Value::Object(map) = value else {
        return format!("{value}\n");
    };
    const ORDER: [&str; 7] = [
        "id",
        "n",
        "diagonals",
        "regions",
        "queens",
        "blocked",
        "diags",
    ];
    let rank = |k: &str| ORDER.iter().position(|&o| o == k).unwrap_or(ORDER.len());
    let mut keys: Vec<&String> = map.keys().collect();
    // Stable: keys outside ORDER keep the map's (alphabetical) order after the known ones.
    keys.sort_by_key(|k| rank(k));
    let fields: Vec<String> = keys
        .into_iter()
        .map(|k| {
            let name = Value::String(k.clone());
            match (k.as_str(), &map[k]) {
                ("regions", Value::Array(rows)) if !rows.is_empty() => {
                    let rows: Vec<String> =
                        rows.iter().map(|r| format!("    {}", inline(r))).collect();
                    format!("  {name}: [\n{}\n  ]", rows.join(",\n"))
                }
                (_, v) => format!("  {name}: {}", inline(v)),
            }
        })
        .collect();
    format!("{{\n{}\n}}\n", fields.join(",\n"))
}
