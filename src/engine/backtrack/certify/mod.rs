//! Refutations from the search tree: every failed node becomes a RUP lemma over the CNF's cell
//! variables, so the backtracker's "no solution" can be checked like the SAT engine's.
//!
//! A node is the set of queens the search placed on its path (fixed queens are part of the
//! CNF: simplified away, or unit clauses). It fails when some line (row, column, region) has
//! no open cell: every cell of that line with a variable is attacked by a path queen. Its
//! lemma is "not all of these queens", over only the queens needed to empty the line, as in
//! conflict-directed backjumping (Prosser 1993): for each cell, a queen already in the set
//! if one attacks it, else the earliest one that does.
//!
//! An inner node branched on line `L`; each child `c` failed with a set `S_c`. If some `S_c`
//! does not contain `c`, it refutes the node itself: the node returns `S_c` and skips its
//! other children (the backjump). Otherwise the node's set is the union of `S_c \ {c}` plus,
//! for cells of `L` that were no candidates, a queen that attacks each. Why the lemma is RUP:
//! assume the set's queens; each child lemma then propagates `¬c`, each other cell of `L` is
//! propagated false by the at-most-one clause of a line it shares with a queen (every
//! encoding in [`crate::encode::amo`] propagates an at-most-one fully), and `L`'s
//! at-least-one clause is falsified. The root's set is empty: the empty clause.
//!
//! After a node's lemma is written its children's lemmas are deleted (DRAT `d` lines): a
//! checker's clause database then holds one path's worth of lemmas, not the whole tree's.
//!
//! The tree is searched on all cores as [`super::solve`] searches it: split into subtrees at
//! one depth, each subtree refuted into its own buffer, and the nodes above that depth
//! refuted last from the subtrees' sets, so every lemma comes after those it relies on.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::board::{place_fixed, Board, LargeBoard, Line, SmallBoard};
use super::{search_stack, split, threads, use_small, Config, Stats, SUBTREES_PER_THREAD};
use crate::model::{Pos, Problem};
use crate::proof::lrat::{put_varint, ChunkSink};
use crate::proof::{FALSE, OPEN, TRUE};
use varisat::CnfFormula;

/// How a refutation is written: text DRAT, or binary DRAT (`a`/`d`, LEB128 literals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DratStyle {
    /// `-3 -17 0` lines, `d -3 -17 0` deletions.
    Text,
    /// The binary DRAT format drat-trim reads.
    Binary,
}

/// How the search writes its lemmas (the public [`DratStyle`]s, and LRAT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Text,
    Binary,
    Lrat,
}

impl From<DratStyle> for Style {
    fn from(style: DratStyle) -> Style {
        match style {
            DratStyle::Text => Style::Text,
            DratStyle::Binary => Style::Binary,
        }
    }
}

/// What [`refute`] found.
#[derive(Debug)]
pub enum Refutation {
    /// A solution (sorted by row; not yet verified: callers verify).
    Sat(Vec<Pos>),
    /// No solution, and a DRAT proof of it for the CNF whose cell variables were given.
    Unsat(DratProof),
    /// The deadline or stop flag ended the search.
    Interrupted,
    /// The proof grew past the byte limit (so much, after this many bytes).
    TooLarge(u64),
    /// Writing the proof failed.
    Failed(String),
}

/// A DRAT refutation.
#[derive(Debug, Default)]
pub struct DratProof {
    /// The proof, ending with the empty clause.
    pub bytes: Vec<u8>,
    /// Lemmas added, the empty clause included.
    pub lemmas: u64,
    /// Lemmas deleted.
    pub deletions: u64,
    /// LRAT: the bytes written to the output (the proof is there, not in `bytes`).
    pub written: u64,
}

/// Refutes `problem` by search, writing a DRAT proof for a CNF in which cell `(r, c)` is
/// variable `vars[r * n + c]` (0: no variable; such a cell must be closed from the start, e.g.
/// by a fixed queen, or false by a unit clause of the CNF). The CNF must state the rules with
/// one at-least-one clause per open row, column and region and fully propagating at-most-one
/// constraints, as [`crate::encode::cnf::encode`] writes it.
///
/// `max_bytes` bounds the proof in memory; past it the search stops with
/// [`Refutation::TooLarge`].
pub fn refute(
    problem: &Problem,
    vars: &[u32],
    style: DratStyle,
    max_bytes: u64,
    config: &Config,
) -> (Refutation, Stats) {
    if use_small(problem, config.board) {
        refute_on::<SmallBoard, u64>(problem, vars, style.into(), max_bytes, config)
    } else {
        refute_on::<LargeBoard, Vec<u64>>(problem, vars, style.into(), max_bytes, config)
    }
}

/// The clause ids an LRAT refutation names as hints, found in the CNF: per pair of cells,
/// the binary at-most-one clause `¬a ∨ ¬b` they share (rows, columns, diagonals, regions, or
/// the touch rule's corner clauses), and per row, column and region its at-least-one clause.
///
/// Every attack must have its own binary clause, so the CNF's at-most-one constraints are
/// pairwise ([`crate::encode::amo::Encoding::Pairwise`]): then the search can name, for each
/// cell of a failing line, the one clause that makes it false.
pub struct ClauseIds {
    n: usize,
    /// Clauses in the formula: lemma ids start above.
    formula_clauses: u64,
    /// Binary clause per pair of cells `a * n² + b` (0: none), when `n² · n²` ids fit in
    /// 64 MB; else `pairs_map`.
    pairs: Vec<u32>,
    pairs_map: HashMap<(u32, u32), u32>,
    /// At-least-one clause of each row, column and region (0: the line has none, e.g. a
    /// fixed queen's).
    rows: Vec<u64>,
    cols: Vec<u64>,
    regions: Vec<u64>,
    /// An empty clause of the formula (0: none).
    empty: u64,
}

impl ClauseIds {
    /// Finds the ids in `formula` (cell `(r, c)` is variable `vars[r * n + c]`, 0: none).
    /// `None` when some attack between two cells with variables has no binary clause of
    /// its own (an at-most-one encoding other than pairwise).
    pub fn new(problem: &Problem, formula: &CnfFormula, vars: &[u32]) -> Option<ClauseIds> {
        let n = problem.n();
        let cells = n * n;
        let mut cell_of: HashMap<u32, u32> = HashMap::new();
        for (i, &v) in vars.iter().enumerate() {
            if v != 0 {
                cell_of.insert(v, i as u32);
            }
        }
        let dense = cells * cells <= 16 << 20;
        let mut ids = ClauseIds {
            n,
            formula_clauses: formula.len() as u64,
            pairs: if dense {
                vec![0; cells * cells]
            } else {
                Vec::new()
            },
            pairs_map: HashMap::new(),
            rows: vec![0; n],
            cols: vec![0; n],
            regions: Vec::new(),
            empty: 0,
        };
        let mut positive: HashMap<Vec<u32>, u64> = HashMap::new();
        for (k, clause) in formula.iter().enumerate() {
            let id = k as u64 + 1;
            let all = |negative: bool| clause.iter().all(|l| l.is_negative() == negative);
            if clause.is_empty() && ids.empty == 0 {
                ids.empty = id;
            }
            if clause.len() == 2 && all(true) {
                let a = cell_of.get(&(clause[0].to_dimacs().unsigned_abs() as u32));
                let b = cell_of.get(&(clause[1].to_dimacs().unsigned_abs() as u32));
                if let (Some(&a), Some(&b)) = (a, b) {
                    for (x, y) in [(a, b), (b, a)] {
                        if dense {
                            let slot = &mut ids.pairs[x as usize * cells + y as usize];
                            if *slot == 0 {
                                *slot = id as u32;
                            }
                        } else {
                            ids.pairs_map.entry((x, y)).or_insert(id as u32);
                        }
                    }
                }
            } else if all(false) {
                let mut key: Vec<u32> = clause.iter().map(|l| l.to_dimacs() as u32).collect();
                key.sort_unstable();
                positive.entry(key).or_insert(id);
            }
        }
        let alo = |line: &mut dyn Iterator<Item = Pos>| -> u64 {
            let mut key: Vec<u32> = line
                .map(|(r, c)| vars[r * n + c])
                .filter(|&v| v != 0)
                .collect();
            key.sort_unstable();
            positive.get(&key).copied().unwrap_or(0)
        };
        for r in 0..n {
            ids.rows[r] = alo(&mut (0..n).map(|c| (r, c)));
        }
        for c in 0..n {
            ids.cols[c] = alo(&mut (0..n).map(|r| (r, c)));
        }
        if let Some(g) = problem.regions() {
            ids.regions = g
                .cells()
                .into_iter()
                .map(|cells| alo(&mut cells.into_iter()))
                .collect();
        }
        // Every attack between cells with variables needs its clause (checked up to 64
        // wide; above, a missing clause is an id 0 the proof's check rejects).
        for a in 0..if n <= 64 { cells } else { 0 } {
            for b in a + 1..cells {
                let (pa, pb) = ((a / n, a % n), (b / n, b % n));
                if vars[a] != 0 && vars[b] != 0 && problem.attacks(pa, pb) && ids.pair(pa, pb) == 0
                {
                    return None;
                }
            }
        }
        Some(ids)
    }

    /// The binary clause of two cells that attack each other (0: none).
    #[inline]
    fn pair(&self, (ar, ac): Pos, (br, bc): Pos) -> u64 {
        let (a, b) = (ar * self.n + ac, br * self.n + bc);
        if self.pairs.is_empty() {
            u64::from(
                self.pairs_map
                    .get(&(a as u32, b as u32))
                    .copied()
                    .unwrap_or(0),
            )
        } else {
            u64::from(self.pairs[a * self.n * self.n + b])
        }
    }

    /// The at-least-one clause of a line (0: none).
    fn line(&self, line: Line) -> u64 {
        match line {
            Line::Row(r) => self.rows[r],
            Line::Col(c) => self.cols[c],
            Line::Region(g) => self.regions.get(g).copied().unwrap_or(0),
        }
    }
}

/// Where [`refute_lrat`] writes: the sink every search thread hands its chunks of binary
/// LRAT to (whole steps, each thread's in its own order).
pub struct LratOut<'a> {
    /// The proof's consumer (a checker, a file).
    pub sink: &'a dyn ChunkSink,
}

/// Refutes `problem` by search like [`refute`], writing binary LRAT to `lrat.sink`: each
/// lemma's hints are the clauses that make every cell of its failing line false (the binary
/// clause shared with a queen of the lemma, or a child's lemma), then the line's
/// at-least-one clause, with the lemmas of forced nodes inlined as the unit propagation
/// through them.
///
/// Threads write their chunks as they fill, so the steps of different subtrees interleave;
/// lemma ids are unique among live clauses (each thread takes fresh ids in blocks from one
/// counter and reuses the ids of the lemmas it deleted), so no step needs renumbering and
/// ids stay small. [`DratProof::bytes`] stays empty; [`DratProof::written`] counts the
/// bytes handed to the sink.
pub fn refute_lrat(
    problem: &Problem,
    vars: &[u32],
    ids: &ClauseIds,
    lrat: LratOut,
    max_bytes: u64,
    config: &Config,
) -> (Refutation, Stats) {
    if use_small(problem, config.board) {
        refute_lrat_on::<SmallBoard, u64>(problem, vars, ids, lrat, max_bytes, config)
    } else {
        refute_lrat_on::<LargeBoard, Vec<u64>>(problem, vars, ids, lrat, max_bytes, config)
    }
}

fn refute_lrat_on<B: Board, S: DepthSet>(
    problem: &Problem,
    vars: &[u32],
    ids: &ClauseIds,
    lrat: LratOut,
    max_bytes: u64,
    config: &Config,
) -> (Refutation, Stats) {
    let io_error = |e: io::Error| {
        (
            Refutation::Failed(format!("writing the proof: {e}")),
            Stats::default(),
        )
    };
    let mut board = B::new(problem);
    if !place_fixed(&mut board, problem) {
        // The CNF holds the empty clause (the fixed queens break a rule): name it.
        let mut step = vec![b'a'];
        put_varint(&mut step, 2 * (ids.formula_clauses + 1));
        step.push(0);
        put_varint(&mut step, 2 * ids.empty);
        step.push(0);
        let written = step.len() as u64;
        return match lrat.sink.send(&mut step) {
            Ok(()) => (
                Refutation::Unsat(DratProof {
                    lemmas: 1,
                    written,
                    ..DratProof::default()
                }),
                Stats::default(),
            ),
            Err(e) => io_error(e),
        };
    }
    let mut shared = Shared::new(problem, &board, vars, Style::Lrat, max_bytes);
    shared.ids = Some(ids);
    shared.next_id = AtomicU64::new(ids.formula_clauses + 1);
    shared.sink = Some(lrat.sink);
    if threads(config) == 1 {
        // One thread: the lemmas stream to the sink as they are written.
        let mut probe = Search::<S>::new(&shared, config, None);
        probe.w.sink = shared.sink;
        let outcome = probe.node(&mut board, true);
        let stats = Stats {
            nodes: probe.nodes,
            interrupted: matches!(outcome, Outcome::Interrupted),
        };
        probe.w.flush();
        let written = probe.w.flushed;
        if let Some(e) = probe.w.error.take() {
            return io_error(e);
        }
        return (probe.finish(outcome, written), stats);
    }
    // Several: a probe in memory first, written out only if it answers.
    let mut probe = Search::<S>::new(&shared, config, None);
    probe.limit = PROBE_NODES;
    let outcome = probe.node(&mut board, true);
    let nodes = probe.nodes;
    if !matches!(outcome, Outcome::Cut) {
        let stats = Stats {
            nodes,
            interrupted: matches!(outcome, Outcome::Interrupted),
        };
        probe.w.sink = shared.sink;
        probe.w.flush();
        let written = probe.w.flushed;
        if let Some(e) = probe.w.error.take() {
            return io_error(e);
        }
        return (probe.finish(outcome, written), stats);
    }
    drop(probe);
    let (refutation, stats) = refute_parallel::<B, S>(&shared, &mut board, config);
    (
        refutation,
        Stats {
            nodes: stats.nodes + nodes,
            ..stats
        },
    )
}

/// Nodes a refutation searches alone before it splits the tree over the cores: easy instances
/// finish sooner than threads start (as [`super::solve`]'s probe).
const PROBE_NODES: u64 = 16_384;

fn refute_on<B: Board, S: DepthSet>(
    problem: &Problem,
    vars: &[u32],
    style: Style,
    max_bytes: u64,
    config: &Config,
) -> (Refutation, Stats) {
    let mut board = B::new(problem);
    if !place_fixed(&mut board, problem) {
        // The CNF already holds the empty clause (the fixed queens break a rule).
        return (
            Refutation::Unsat(empty_clause_only(style)),
            Stats::default(),
        );
    }
    let shared = Shared::new(problem, &board, vars, style, max_bytes);
    let mut probe = Search::<S>::new(&shared, config, None);
    if threads(config) > 1 {
        probe.limit = PROBE_NODES;
    } else {
        probe.w.out = proof_buffer(max_bytes);
    }
    let outcome = probe.node(&mut board, true);
    let nodes = probe.nodes;
    if !matches!(outcome, Outcome::Cut) {
        let stats = Stats {
            nodes,
            interrupted: matches!(outcome, Outcome::Interrupted),
        };
        return (probe.finish(outcome, 0), stats);
    }
    drop(probe);
    let (refutation, stats) = refute_parallel::<B, S>(&shared, &mut board, config);
    (
        refutation,
        Stats {
            nodes: stats.nodes + nodes,
            ..stats
        },
    )
}

/// An empty proof buffer with address space for up to `max_bytes`, which the kernel backs
/// only as it is written, so the buffer never moves (a large proof was spending a third of
/// its time copying itself as it grew). Where the system refuses that much address space,
/// less, down to none.
fn proof_buffer(max_bytes: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut want = max_bytes.min(16 << 30) as usize;
    while want >= 1 << 20 && buf.try_reserve_exact(want).is_err() {
        want /= 2;
    }
    buf
}

fn empty_clause_only(style: Style) -> DratProof {
    let mut w = Writer::new(style);
    let start = w.begin_lemma();
    w.end_lemma(start, &[]);
    DratProof {
        bytes: w.out,
        lemmas: 1,
        ..DratProof::default()
    }
}

/// What every search thread reads.
struct Shared<'p> {
    problem: &'p Problem,
    n: usize,
    /// Queens placed before the search (the fixed ones).
    base: usize,
    /// Cells open after the fixed queens: the cells whose falsity a lemma must derive.
    root: Vec<bool>,
    vars: &'p [u32],
    /// Cells of each region, for region lines.
    regions: Vec<Vec<Pos>>,
    /// Rows and columns as words, for boards up to 64 wide.
    masks: Option<Masks>,
    /// Each cell's literal as proof bytes, for boards up to 256 wide (empty above).
    lits: Vec<CachedLit>,
    style: Style,
    max_bytes: u64,
    /// Proof bytes written by all threads so far.
    bytes: AtomicU64,
    /// LRAT: the CNF's clause ids (`None`: DRAT).
    ids: Option<&'p ClauseIds>,
    /// LRAT: where every thread's chunks go.
    sink: Option<&'p dyn ChunkSink>,
    /// LRAT: the first lemma id no thread has taken yet.
    next_id: AtomicU64,
}

impl<'p> Shared<'p> {
    fn new<B: Board>(
        problem: &'p Problem,
        board: &B,
        vars: &'p [u32],
        style: Style,
        max_bytes: u64,
    ) -> Shared<'p> {
        let n = problem.n();
        let root: Vec<bool> = (0..n * n)
            .map(|i| board.available((i / n, i % n)))
            .collect();
        let masks = (n <= 64).then(|| Masks::new(problem, &root));
        let lits = if n <= 256 {
            (0..n * n)
                .map(|i| CachedLit::new((i / n, i % n), vars[i], style != Style::Text))
                .collect()
        } else {
            Vec::new()
        };
        Shared {
            problem,
            n,
            base: board.queens().len(),
            root,
            vars,
            regions: problem.regions().map(|g| g.cells()).unwrap_or_default(),
            masks,
            lits,
            style,
            max_bytes,
            bytes: AtomicU64::new(0),
            ids: None,
            sink: None,
            next_id: AtomicU64::new(0),
        }
    }

    /// Calls `f` with each cell of `line`.
    #[inline]
    fn line_cells(&self, line: Line, mut f: impl FnMut(Pos)) {
        match line {
            Line::Row(r) => (0..self.n).for_each(|c| f((r, c))),
            Line::Col(c) => (0..self.n).for_each(|r| f((r, c))),
            Line::Region(g) => self.regions[g].iter().for_each(|&p| f(p)),
        }
    }
}

/// Rows and columns of a board up to 64 wide as bit masks: which cells of a line were open at
/// the root, and which a queen attacks.
struct Masks {
    n: usize,
    full: bool,
    touch: bool,
    /// Open cells at the root: per row (bit = column), per column (bit = row).
    root_row: Vec<u64>,
    root_col: Vec<u64>,
    /// Region of each cell, and each region's cells per row and per column (empty without
    /// regions).
    region_of: Vec<usize>,
    region_row: Vec<u64>,
    region_col: Vec<u64>,
    /// `row_attack[(q.row * n + q.col) * n + r]`: the cells of row `r` queen `q` attacks
    /// (`col_attack` likewise for columns): the cover's inner loop is one load a queen.
    row_attack: Vec<u64>,
    col_attack: Vec<u64>,
}

impl Masks {
    fn new(problem: &Problem, root: &[bool]) -> Masks {
        let n = problem.n();
        let mut m = Masks {
            n,
            full: problem.rule() == crate::model::DiagonalRule::Full,
            touch: problem.rule() == crate::model::DiagonalRule::Touch,
            root_row: vec![0; n],
            root_col: vec![0; n],
            region_of: Vec::new(),
            region_row: Vec::new(),
            region_col: Vec::new(),
            row_attack: Vec::new(),
            col_attack: Vec::new(),
        };
        for r in 0..n {
            for c in 0..n {
                if root[r * n + c] {
                    m.root_row[r] |= 1 << c;
                    m.root_col[c] |= 1 << r;
                }
            }
        }
        if let Some(g) = problem.regions() {
            m.region_row = vec![0; n * n];
            m.region_col = vec![0; n * n];
            for r in 0..n {
                for c in 0..n {
                    let id = g.id((r, c));
                    m.region_of.push(id);
                    m.region_row[id * n + r] |= 1 << c;
                    m.region_col[id * n + c] |= 1 << r;
                }
            }
        }
        let tables = |line: fn(usize) -> Line| -> Vec<u64> {
            (0..n * n * n)
                .map(|i| m.compute_attack((i / n / n, i / n % n), line(i % n)))
                .collect()
        };
        let (rows, cols) = (tables(Line::Row), tables(Line::Col));
        m.row_attack = rows;
        m.col_attack = cols;
        m
    }

    /// The cells of a row or column that were open at the root and are closed now, given
    /// the line's open cells, as a mask; `None` for a region.
    #[inline]
    fn closed(&self, line: Line, open: &[Pos]) -> Option<u64> {
        let (root, along): (u64, fn(Pos) -> usize) = match line {
            Line::Row(r) => (self.root_row[r], |p| p.1),
            Line::Col(c) => (self.root_col[c], |p| p.0),
            Line::Region(_) => return None,
        };
        Some(open.iter().fold(root, |m, &p| m & !(1 << along(p))))
    }

    /// The cells of a row or column (not a region) that a queen off that line attacks.
    #[inline(always)]
    fn attack(&self, (qr, qc): Pos, line: Line) -> u64 {
        let n = self.n;
        match line {
            Line::Row(r) => self.row_attack[(qr * n + qc) * n + r],
            Line::Col(c) => self.col_attack[(qr * n + qc) * n + c],
            Line::Region(_) => unreachable!("region lines have no masks"),
        }
    }

    /// [`Masks::attack`] computed: a queen's cells on a row (`Row`) or column.
    fn compute_attack(&self, (qr, qc): Pos, line: Line) -> u64 {
        // A column is a row of the transposed board: rules and regions are symmetric.
        let (q_along, q_across, at, regions) = match line {
            Line::Row(r) => (qc, qr, r, &self.region_row),
            Line::Col(c) => (qr, qc, c, &self.region_col),
            Line::Region(_) => unreachable!("region lines have no masks"),
        };
        let n = self.n;
        let d = q_across.abs_diff(at);
        let mut m = 1u64 << q_along;
        if self.full {
            if q_along + d < n {
                m |= 1 << (q_along + d);
            }
            if q_along >= d {
                m |= 1 << (q_along - d);
            }
        } else if self.touch && d == 1 {
            m |= (m << 1 | m >> 1) & low_mask(n);
        }
        if !self.region_of.is_empty() {
            m |= regions[self.region_of[qr * n + qc] * n + at];
        }
        m
    }
}

fn low_mask(n: usize) -> u64 {
    if n == 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// A set of path depths (0 = the first queen the search placed), one bit each: one word
/// when the path cannot be longer than 64 (every board the single-word board searches),
/// else as many words as needed.
trait DepthSet: Clone + Send {
    fn empty(n: usize) -> Self;
    fn has(&self, d: usize) -> bool;
    fn insert(&mut self, d: usize);
    fn remove(&mut self, d: usize);
    fn union(&mut self, other: &Self);
    fn is_empty(&self) -> bool;
    /// Calls `f` with each depth, smallest first.
    fn each(&self, f: impl FnMut(usize));
}

impl DepthSet for u64 {
    fn empty(_: usize) -> u64 {
        0
    }
    #[inline(always)]
    fn has(&self, d: usize) -> bool {
        *self >> d & 1 == 1
    }
    #[inline(always)]
    fn insert(&mut self, d: usize) {
        *self |= 1 << d;
    }
    #[inline(always)]
    fn remove(&mut self, d: usize) {
        *self &= !(1 << d);
    }
    #[inline(always)]
    fn union(&mut self, other: &u64) {
        *self |= other;
    }
    #[inline(always)]
    fn is_empty(&self) -> bool {
        *self == 0
    }
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(usize)) {
        let mut m = *self;
        while m != 0 {
            f(m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }
}

impl DepthSet for Vec<u64> {
    fn empty(n: usize) -> Vec<u64> {
        vec![0; n.div_ceil(64).max(1)]
    }
    fn has(&self, d: usize) -> bool {
        self[d / 64].has(d % 64)
    }
    fn insert(&mut self, d: usize) {
        self[d / 64].insert(d % 64);
    }
    fn remove(&mut self, d: usize) {
        self[d / 64].remove(d % 64);
    }
    fn union(&mut self, other: &Vec<u64>) {
        for (a, b) in self.iter_mut().zip(other) {
            *a |= b;
        }
    }
    fn is_empty(&self) -> bool {
        self.iter().all(|&w| w == 0)
    }
    fn each(&self, mut f: impl FnMut(usize)) {
        for (w, word) in self.iter().enumerate() {
            word.each(|b| f(w * 64 + b));
        }
    }
}

enum Outcome {
    /// Refuted: the set is in `Search::ret`, and its lemma is in the proof.
    Refuted,
    Sat(Vec<Pos>),
    Interrupted,
    /// The node limit (the probe) or another thread's answer ended the search.
    Cut,
    TooLarge,
}

/// Proof lines for lemmas that are all negative cell literals: DRAT (text or binary) kept
/// in memory, or binary LRAT, which streams to a [`ChunkSink`] as it is written.
struct Writer<'w> {
    out: Vec<u8>,
    style: Style,
    lemmas: u64,
    deletions: u64,
    /// Where the last lemma added is in `out` (LRAT: its id, 0).
    last: (usize, usize),
    /// LRAT: where `out` goes once it holds [`FLUSH_BYTES`] (`None`: it stays in memory).
    sink: Option<&'w dyn ChunkSink>,
    /// LRAT: bytes already handed to `sink`.
    flushed: u64,
    /// LRAT: lemma ids.
    ids: IdPool<'w>,
    /// LRAT: an error from `sink`.
    error: Option<io::Error>,
}

/// LRAT bytes kept in memory before they go to the sink.
const FLUSH_BYTES: usize = 1 << 20;

/// Fresh lemma ids a thread takes from the shared counter at a time.
const ID_BLOCK: u64 = 64;

/// One thread's lemma ids: those of lemmas it deleted first (last deleted, first reused),
/// else fresh ones from a block taken from the counter all threads share. An id is thus
/// never the id of a live clause, and ids stay about as large as the number of live
/// lemmas (one path's worth per thread), not the number of lemmas.
#[derive(Default)]
struct IdPool<'w> {
    fresh: Option<&'w AtomicU64>,
    next: u64,
    end: u64,
    free: Vec<u64>,
}

impl IdPool<'_> {
    #[inline]
    fn take(&mut self) -> u64 {
        if let Some(id) = self.free.pop() {
            return id;
        }
        if self.next == self.end {
            let start = self
                .fresh
                .map_or(self.end, |f| f.fetch_add(ID_BLOCK, Ordering::Relaxed));
            self.next = start;
            self.end = start + ID_BLOCK;
        }
        self.next += 1;
        self.next - 1
    }
}

impl<'w> Writer<'w> {
    /// This writer with LRAT ids from the shared counter.
    fn numbered(mut self, shared: &'w Shared) -> Self {
        self.ids.fresh = Some(&shared.next_id);
        self
    }

    fn new(style: Style) -> Self {
        Writer {
            out: Vec::new(),
            style,
            lemmas: 0,
            deletions: 0,
            last: (0, 0),
            sink: None,
            flushed: 0,
            ids: IdPool::default(),
            error: None,
        }
    }

    /// Deletes a lemma written before, at `start..end` of the proof: the same literals
    /// after a `d`, copied. (LRAT deletes by id: [`Writer::delete_ids`].)
    fn delete(&mut self, (start, end): (usize, usize)) {
        self.deletions += 1;
        match self.style {
            Style::Text => self.out.extend_from_slice(b"d "),
            // Past the lemma's `a`.
            Style::Binary => self.out.push(b'd'),
            Style::Lrat => unreachable!("LRAT deletes by id"),
        }
        let from = if self.style == Style::Binary {
            start + 1
        } else {
            start
        };
        self.out.extend_from_within(from..end);
    }

    /// LRAT: one deletion step for these lemma ids, which become free for reuse.
    fn delete_ids(&mut self, ids: impl Iterator<Item = u64>) {
        let start = self.out.len();
        self.out.push(b'd');
        for id in ids {
            put_varint(&mut self.out, 2 * id);
            self.ids.free.push(id);
            self.deletions += 1;
        }
        if self.out.len() > start + 1 {
            self.out.push(0);
        } else {
            self.out.truncate(start);
        }
    }

    /// Starts a lemma (binary DRAT's `a`, binary LRAT's `a` and id); returns where it
    /// starts. Its literals are written into `out` directly, then [`Writer::end_lemma`]
    /// closes it.
    fn begin_lemma(&mut self) -> usize {
        let start = self.out.len();
        match self.style {
            Style::Binary => self.out.push(b'a'),
            Style::Lrat => {
                let id = self.ids.take();
                self.out.push(b'a');
                put_varint(&mut self.out, 2 * id);
                self.last = (id as usize, 0);
            }
            Style::Text => {}
        }
        start
    }

    /// Closes the lemma begun at `start` (its terminating 0; LRAT: and its hints) and
    /// remembers where it is.
    fn end_lemma(&mut self, start: usize, hints: &[u64]) {
        match self.style {
            Style::Text => self.out.extend_from_slice(b"0\n"),
            Style::Binary => self.out.push(0),
            Style::Lrat => {
                self.out.push(0);
                for &h in hints {
                    put_varint(&mut self.out, 2 * h);
                }
                self.out.push(0);
                self.lemmas += 1;
                return;
            }
        }
        self.lemmas += 1;
        self.last = (start, self.out.len());
    }

    /// LRAT: bytes written so far, flushed or not.
    fn position(&self) -> u64 {
        self.flushed + self.out.len() as u64
    }

    /// LRAT: moves `out` to the sink once it is large; false after a write error.
    fn maybe_flush(&mut self) -> bool {
        if self.out.len() >= FLUSH_BYTES {
            self.flush();
        }
        self.error.is_none()
    }

    fn flush(&mut self) {
        let Some(sink) = self.sink else {
            return;
        };
        let len = self.out.len() as u64;
        if self.error.is_none() && len > 0 {
            if let Err(e) = sink.send(&mut self.out) {
                self.error = Some(e);
            }
        }
        self.flushed += len;
        self.out.clear();
    }
}

/// A queen's negative literal as proof bytes: `-v ` in text, LEB128 of `2v + 1` in binary
/// (DRAT and LRAT).
#[derive(Clone, Copy, Default)]
struct CachedLit {
    cell: Pos,
    bytes: [u8; 16],
    len: u8,
}

impl CachedLit {
    fn new(cell: Pos, var: u32, binary: bool) -> CachedLit {
        let mut lit = CachedLit {
            cell,
            ..CachedLit::default()
        };
        let mut out = Vec::with_capacity(16);
        if binary {
            let mut x = 2 * u64::from(var) + 1;
            while x >= 0x80 {
                out.push((x as u8 & 0x7f) | 0x80);
                x >>= 7;
            }
            out.push(x as u8);
        } else {
            out.extend_from_slice(format!("-{var} ").as_bytes());
        }
        lit.bytes[..out.len()].copy_from_slice(&out);
        lit.len = out.len() as u8;
        lit
    }
}

/// One depth-first refutation of a subtree, into its own proof buffer.
struct Search<'s, 'p, S> {
    shared: &'s Shared<'p>,
    nodes: u64,
    limit: u64,
    deadline: Option<Instant>,
    stop: Option<&'s AtomicBool>,
    /// Set by another thread when this search is no longer needed.
    cancel: Option<&'s AtomicBool>,
    /// The set a refuted node returns.
    ret: S,
    /// Per depth: the node's set so far.
    acc: Vec<S>,
    /// Where the lemmas still needed are in the proof, deepest last: a node that writes its
    /// lemma deletes those its children left.
    pending: Vec<(usize, usize)>,
    /// Whether the lemma of `ret` is in the proof (a forced node's is not: the check of
    /// the first lemma above it propagates through it).
    written: bool,
    cells: Vec<Vec<Pos>>,
    w: Writer<'s>,
    /// LRAT: how the set in `ret` is justified.
    kind: Kind,
    /// LRAT: the chain of a node refuted without a lemma of its own (see [`Kind`]).
    chain: Vec<Entry>,
    /// LRAT, per depth: the children's parts of the node's chain so far.
    acc_chain: Vec<Vec<Entry>>,
    /// LRAT scratch: per-cell values, the hints written.
    marks: Vec<u8>,
    touched: Vec<usize>,
    hints: Vec<u64>,
    /// The literal of each path depth's queen, as last written.
    lits: Vec<CachedLit>,
    /// Bytes of `w.out` already counted in `shared.bytes`.
    counted: u64,
    /// Above this depth a [`Split`] answers instead of searching (the parallel top part).
    split: Option<Split<'s, S>>,
}

/// LRAT: why a refuted node's set `S` has no completion, when the node has no lemma.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Lemma `¬S` with this id is in the proof.
    Lemma(u64),
    /// `Search::chain` derives a conflict from `S` by unit propagation.
    Conflict,
    /// `Search::chain` derives the negation of the node's own queen `c` from `S \ {c}`
    /// (and so, with `c` assumed, a conflict).
    Neg,
}

/// LRAT: one step of unit propagation: a clause id and what it propagates.
#[derive(Clone, Copy, Debug)]
struct Entry {
    id: u64,
    /// `cell + 1` set true, `-(cell + 1)` set false, 0 a conflict.
    eff: i32,
}

/// The subtrees at depth `depth`, already refuted (or answered) by other threads, found by
/// their queens.
struct Split<'s, S> {
    depth: usize,
    results: &'s [Mutex<Option<TaskResult<S>>>],
    index: std::collections::HashMap<Vec<Pos>, usize>,
}

struct TaskResult<S> {
    outcome: TaskOutcome<S>,
    /// LRAT: the id of the lemma that refutes the task's node.
    lemma: u64,
    nodes: u64,
    lemmas: u64,
    deletions: u64,
    /// The thread whose buffer holds the task's lemmas, and where they end in it.
    thread: usize,
    end: usize,
}

enum TaskOutcome<S> {
    Refuted(S),
    Sat(Vec<Pos>),
    Interrupted,
    Cut,
    TooLarge,
}

impl<'s, 'p, S: DepthSet> Search<'s, 'p, S> {
    fn new(shared: &'s Shared<'p>, config: &'s Config, cancel: Option<&'s AtomicBool>) -> Self {
        Search {
            shared,
            nodes: 0,
            limit: u64::MAX,
            deadline: config.deadline,
            stop: config.stop.as_deref(),
            cancel,
            ret: S::empty(shared.n),
            acc: Vec::new(),
            pending: Vec::new(),
            written: false,
            cells: Vec::new(),
            w: Writer::new(shared.style).numbered(shared),
            kind: Kind::Conflict,
            chain: Vec::new(),
            acc_chain: Vec::new(),
            marks: Vec::new(),
            touched: Vec::new(),
            hints: Vec::new(),
            lits: Vec::new(),
            counted: 0,
            split: None,
        }
    }

    /// The answer once the root's outcome is known (`written`: LRAT bytes written out).
    fn finish(self, outcome: Outcome, written: u64) -> Refutation {
        match outcome {
            Outcome::Refuted => {
                debug_assert!(self.ret.is_empty(), "the root's set is empty");
                let lrat = self.shared.style == Style::Lrat;
                Refutation::Unsat(DratProof {
                    bytes: if lrat { Vec::new() } else { self.w.out },
                    lemmas: self.w.lemmas,
                    deletions: self.w.deletions,
                    written,
                })
            }
            Outcome::Sat(q) => Refutation::Sat(q),
            Outcome::Interrupted | Outcome::Cut => Refutation::Interrupted,
            Outcome::TooLarge => Refutation::TooLarge(proof_bytes(self.shared)),
        }
    }

    fn stopped(&self) -> Option<Outcome> {
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Some(Outcome::Cut);
        }
        if self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            return Some(Outcome::Interrupted);
        }
        None
    }

    /// Searches below the board's current node. On [`Outcome::Refuted`] the node's set is in
    /// `ret` and its lemma has been written.
    fn node<B: Board>(&mut self, board: &mut B, write: bool) -> Outcome {
        let sh = self.shared;
        let queens = board.queens().len();
        if queens == sh.n {
            let mut q = board.queens().to_vec();
            q.sort_unstable();
            return Outcome::Sat(q);
        }
        let d = queens - sh.base;
        if let Some(split) = &self.split {
            if d == split.depth {
                let taken = split
                    .index
                    .get(board.queens())
                    .and_then(|&i| split.results[i].lock().expect("no thread panics").take());
                return self.take_task(taken);
            }
        }
        if self.nodes & 0xfff == 0 {
            if let Some(out) = self.stopped() {
                return out;
            }
        }
        if self.nodes >= self.limit {
            return Outcome::Cut;
        }
        while self.acc.len() <= d {
            self.acc.push(S::empty(sh.n));
            self.cells.push(Vec::new());
        }
        let mut cells = std::mem::take(&mut self.cells[d]);
        let outcome = match board.branch_line(&mut cells) {
            Err(line) => {
                let mut set = S::empty(sh.n);
                let only_last = self.cover(board, line, &[], &mut set);
                self.ret = set;
                // A dead line with one cell open before the last queen needs no lemma: the
                // parent's check propagates that cell true, and the last queen false.
                self.written = false;
                let skip = only_last == 1;
                if sh.ids.is_some() {
                    self.leaf_chain(board, line, write && skip);
                    if write && !skip {
                        self.emit_chain(board)
                    } else {
                        Outcome::Refuted
                    }
                } else if write && !skip {
                    self.emit_ret(board)
                } else {
                    Outcome::Refuted
                }
            }
            Ok(line) => self.inner(board, line, &mut cells, d, write),
        };
        self.cells[d] = cells;
        outcome
    }

    /// A node that branches on `line`'s `cells`. Children write lemmas only when there are
    /// two or more: a single candidate is forced, and the check of the first lemma above
    /// propagates through it.
    fn inner<B: Board>(
        &mut self,
        board: &mut B,
        line: Line,
        cells: &mut [Pos],
        d: usize,
        write: bool,
    ) -> Outcome {
        self.acc[d] = S::empty(self.shared.n);
        let lrat = self.shared.ids.is_some();
        if lrat {
            while self.acc_chain.len() <= d {
                self.acc_chain.push(Vec::new());
            }
            self.acc_chain[d].clear();
        }
        let mut forced = false;
        let entry = self.pending.len();
        let children_write = cells.len() > 1;
        let mut outcome = None;
        for i in 0..cells.len() {
            board.order(cells, i);
            self.nodes += 1;
            board.place(cells[i]);
            let out = self.node(board, children_write);
            board.undo();
            match out {
                Outcome::Refuted if self.ret.has(d) => {
                    self.acc[d].union(&self.ret);
                    if lrat {
                        // The child's part of this node's chain: its lemma propagates its
                        // queen false, or its chain is inlined.
                        let (r, c) = cells[i];
                        let cell = (r * self.shared.n + c) as i32;
                        match self.kind {
                            Kind::Lemma(id) => self.acc_chain[d].push(Entry {
                                id,
                                eff: -(cell + 1),
                            }),
                            kind => {
                                forced = kind == Kind::Conflict;
                                let chain = std::mem::take(&mut self.chain);
                                self.acc_chain[d].extend_from_slice(&chain);
                                self.chain = chain;
                            }
                        }
                    }
                }
                // The child's set refutes this node too: hand it up, skip the rest (its
                // lemma is written now if the child was forced and wrote none). Lemmas
                // pending deletion stay for the node that uses it.
                Outcome::Refuted => {
                    outcome = Some(if write && !self.written {
                        if lrat {
                            self.emit_chain(board)
                        } else {
                            self.emit_ret(board)
                        }
                    } else {
                        Outcome::Refuted
                    });
                    break;
                }
                other => {
                    outcome = Some(other);
                    break;
                }
            }
        }
        if let Some(out) = outcome {
            return out;
        }
        let mut set = self.acc[d].clone();
        set.remove(d);
        self.cover(board, line, cells, &mut set);
        self.ret = set;
        if lrat {
            self.inner_chain(board, line, cells, d, forced);
        }
        if !write {
            self.written = false;
            return Outcome::Refuted;
        }
        let out = if lrat {
            self.emit_chain(board)
        } else {
            self.emit_ret(board)
        };
        if self.ret.is_empty() {
            // The empty clause: the proof is complete.
            return out;
        }
        // The lemmas below this node served only to check its own: delete them.
        let lemma = self.pending.pop();
        if lrat {
            let ids = self.pending[entry..].iter().map(|p| p.0 as u64);
            self.w.delete_ids(ids);
        }
        for i in entry..self.pending.len() {
            if lrat {
                break;
            }
            let range = self.pending[i];
            self.w.delete(range);
        }
        self.pending.truncate(entry);
        self.pending.extend(lemma);
        out
    }

    /// Adds to `set`, for every cell of `line` that was open at the root and is closed now,
    /// a path queen that attacks it (one in `set` already if there is one, else the
    /// earliest).
    ///
    /// Returns how many of those cells only the last queen closes, when that is known
    /// cheaply (rows and columns of boards up to 64 wide), else `u32::MAX`.
    fn cover<B: Board>(&self, board: &B, line: Line, open_cells: &[Pos], set: &mut S) -> u32 {
        let sh = self.shared;
        let path = &board.queens()[sh.base..];
        if let (Some(masks), Some((&last, before))) = (&sh.masks, path.split_last()) {
            if let Some(mut open) = masks.closed(line, open_cells) {
                // Word-sized lines: one mask per queen. Queens in the set first, then the
                // earliest that closes something still open; the last queen last.
                set.each(|k| open &= !masks.attack(path[k], line));
                for (k, &q) in before.iter().enumerate() {
                    if open == 0 {
                        break;
                    }
                    let m = masks.attack(q, line);
                    if open & m != 0 {
                        open &= !m;
                        set.insert(k);
                    }
                }
                if open != 0 {
                    debug_assert_eq!(
                        open & !masks.attack(last, line),
                        0,
                        "a closed cell is attacked"
                    );
                    set.insert(before.len());
                }
                return open.count_ones();
            }
        }
        let problem = sh.problem;
        sh.line_cells(line, |x| {
            if !sh.root[x.0 * sh.n + x.1] || board.available(x) {
                return;
            }
            let mut covered = false;
            set.each(|k| covered |= problem.attacks(path[k], x));
            if covered {
                return;
            }
            let k = path
                .iter()
                .position(|&q| problem.attacks(q, x))
                .expect("a cell closed since the root is attacked by a queen on the path");
            set.insert(k);
        });
        u32::MAX
    }

    /// LRAT: the chain of a dead `line` (a leaf): each closed cell made false by the binary
    /// clause it shares with a queen of `ret`, then the line's at-least-one clause falsified.
    /// With `neg` (exactly one cell `x` closed only by the last queen `c`): the chain
    /// derives `¬c` instead: the other cells false, the at-least-one clause makes `x` true,
    /// and `x`'s clause with `c` makes `c` false.
    fn leaf_chain<B: Board>(&mut self, board: &B, line: Line, neg: bool) {
        let sh = self.shared;
        let ids = sh.ids.expect("LRAT");
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        let path = &board.queens()[sh.base..];
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        let last = path.len().wrapping_sub(1);
        let only = self.close_entries(board, line, &[], &set, neg.then_some(last), &mut chain);
        self.ret = set;
        let alo = ids.line(line);
        match (neg, only) {
            (true, Some(x)) => {
                let c = path[last];
                chain.push(Entry {
                    id: alo,
                    eff: cell_eff(sh.n, x, true),
                });
                chain.push(Entry {
                    id: ids.pair(c, x),
                    eff: cell_eff(sh.n, c, false),
                });
                self.kind = Kind::Neg;
            }
            _ => {
                chain.push(Entry { id: alo, eff: 0 });
                self.kind = Kind::Conflict;
            }
        }
        self.chain = chain;
    }

    /// LRAT: the chain of an inner node that branched on `line` with candidates `cells`,
    /// all refuted: the children's parts (from `acc_chain[d]`), each other closed cell of
    /// the line false by a binary clause with a queen of `ret`, the at-least-one clause
    /// falsified. A `forced` node (one candidate `c`, whose child has only a chain): the
    /// other cells false, the at-least-one clause makes `c` true, then the child's chain.
    fn inner_chain<B: Board>(
        &mut self,
        board: &B,
        line: Line,
        cells: &[Pos],
        d: usize,
        forced: bool,
    ) {
        let sh = self.shared;
        let ids = sh.ids.expect("LRAT");
        let mut chain = std::mem::take(&mut self.chain);
        chain.clear();
        let children = std::mem::take(&mut self.acc_chain[d]);
        if !forced {
            chain.extend_from_slice(&children);
        }
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        self.close_entries(board, line, cells, &set, None, &mut chain);
        self.ret = set;
        let alo = ids.line(line);
        if forced {
            chain.push(Entry {
                id: alo,
                eff: cell_eff(sh.n, cells[0], true),
            });
            chain.extend_from_slice(&children);
        } else {
            chain.push(Entry { id: alo, eff: 0 });
        }
        self.acc_chain[d] = children;
        self.chain = chain;
        self.kind = Kind::Conflict;
    }

    /// LRAT: for each cell of `line` open at the root, closed now and not a candidate, the
    /// binary clause with a queen of `set` that attacks it (not the queen at depth `avoid`
    /// if another does). Returns a cell only the `avoid` queen attacks, if there is one
    /// (then it gets no entry).
    fn close_entries<B: Board>(
        &self,
        board: &B,
        line: Line,
        open_cells: &[Pos],
        set: &S,
        avoid: Option<usize>,
        chain: &mut Vec<Entry>,
    ) -> Option<Pos> {
        let sh = self.shared;
        let ids = sh.ids.expect("LRAT");
        let n = sh.n;
        let path = &board.queens()[sh.base..];
        if let Some(masks) = &sh.masks {
            if let Some(mut open) = masks.closed(line, open_cells) {
                let at = |b: usize| match line {
                    Line::Row(r) => (r, b),
                    Line::Col(c) => (b, c),
                    Line::Region(_) => unreachable!("rows and columns only"),
                };
                set.each(|k| {
                    if Some(k) == avoid || open == 0 {
                        return;
                    }
                    let q = path[k];
                    let mut m = masks.attack(q, line) & open;
                    open &= !m;
                    while m != 0 {
                        let x = at(m.trailing_zeros() as usize);
                        m &= m - 1;
                        chain.push(Entry {
                            id: ids.pair(q, x),
                            eff: cell_eff(n, x, false),
                        });
                    }
                });
                return (open != 0).then(|| at(open.trailing_zeros() as usize));
            }
        }
        let problem = sh.problem;
        let mut only = None;
        sh.line_cells(line, |x| {
            if !sh.root[x.0 * n + x.1] || board.available(x) {
                return;
            }
            let mut by = None;
            set.each(|k| {
                if by.is_none() && Some(k) != avoid && problem.attacks(path[k], x) {
                    by = Some(path[k]);
                }
            });
            match by {
                Some(q) => chain.push(Entry {
                    id: ids.pair(q, x),
                    eff: cell_eff(n, x, false),
                }),
                None => only = Some(x),
            }
        });
        only
    }

    /// LRAT: writes the lemma of `ret` with `chain` as its hints (steps that propagate
    /// nothing new are left out; a step that conflicts ends the hints).
    fn emit_chain<B: Board>(&mut self, board: &B) -> Outcome {
        let sh = self.shared;
        let n = sh.n;
        let path = &board.queens()[sh.base..];
        if self.marks.len() < n * n {
            self.marks.resize(n * n, OPEN);
        }
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        set.each(|k| {
            let (r, c) = path[k];
            self.marks[r * n + c] = TRUE;
            self.touched.push(r * n + c);
        });
        self.hints.clear();
        let mut conflict = false;
        for e in &self.chain {
            if e.eff == 0 {
                self.hints.push(e.id);
                conflict = true;
                break;
            }
            let cell = (e.eff.unsigned_abs() - 1) as usize;
            let want = if e.eff > 0 { TRUE } else { FALSE };
            match self.marks[cell] {
                OPEN => {
                    self.marks[cell] = want;
                    self.touched.push(cell);
                    self.hints.push(e.id);
                }
                v if v == want => {}
                _ => {
                    self.hints.push(e.id);
                    conflict = true;
                    break;
                }
            }
        }
        debug_assert!(conflict, "a chain ends in a conflict");
        for &cell in &self.touched {
            self.marks[cell] = OPEN;
        }
        self.touched.clear();
        self.ret = set;
        self.emit_ret(board)
    }

    /// Writes the lemma of `ret`, or the answer if it is over the byte limit.
    fn emit_ret<B: Board>(&mut self, board: &B) -> Outcome {
        let set = std::mem::replace(&mut self.ret, S::empty(0));
        let ok = self.write_set(board, &set);
        self.ret = set;
        self.written = true;
        if self.shared.style == Style::Lrat {
            self.kind = Kind::Lemma(self.w.last.0 as u64);
        }
        self.pending.push(self.w.last);
        if ok {
            Outcome::Refuted
        } else {
            Outcome::TooLarge
        }
    }

    /// Writes the clause "not all queens of `set`"; false once the proof is over its byte
    /// limit.
    fn write_set<B: Board>(&mut self, board: &B, set: &S) -> bool {
        let sh = self.shared;
        let path = &board.queens()[sh.base..];
        // Each literal's bytes come from a table (or a per-depth cache on huge boards) and
        // are copied as fixed 16-byte moves into a stack buffer: a lemma is a few moves.
        let mut buf = [0u8; 256];
        let mut len = 0;
        let start = self.w.begin_lemma();
        let binary = sh.style != Style::Text;
        if sh.lits.is_empty() && self.lits.len() < path.len() {
            self.lits.resize(path.len(), CachedLit::default());
        }
        let mut lits = std::mem::take(&mut self.lits);
        set.each(|k| {
            let (r, c) = path[k];
            let lit = if sh.lits.is_empty() {
                let lit = &mut lits[k];
                if lit.cell != path[k] || lit.len == 0 {
                    *lit = CachedLit::new(path[k], sh.vars[r * sh.n + c], binary);
                }
                &*lit
            } else {
                &sh.lits[r * sh.n + c]
            };
            if len > buf.len() - 16 {
                self.w.out.extend_from_slice(&buf[..len]);
                len = 0;
            }
            buf[len..len + 16].copy_from_slice(&lit.bytes);
            len += lit.len as usize;
        });
        self.lits = lits;
        self.w.out.extend_from_slice(&buf[..len]);
        let hints = std::mem::take(&mut self.hints);
        self.w.end_lemma(start, &hints);
        self.hints = hints;
        if !self.w.maybe_flush() {
            return false;
        }
        let total_len = self.w.position();
        if total_len - self.counted >= 1 << 16 {
            let total = sh
                .bytes
                .fetch_add(total_len - self.counted, Ordering::Relaxed)
                + total_len
                - self.counted;
            self.counted = total_len;
            return total <= sh.max_bytes;
        }
        true
    }

    fn take_task(&mut self, taken: Option<TaskResult<S>>) -> Outcome {
        let Some(result) = taken else {
            return Outcome::Cut;
        };
        match result.outcome {
            TaskOutcome::Refuted(set) => {
                self.ret = set;
                self.written = true;
                self.kind = Kind::Lemma(result.lemma);
                Outcome::Refuted
            }
            TaskOutcome::Sat(q) => Outcome::Sat(q),
            TaskOutcome::Interrupted => Outcome::Interrupted,
            TaskOutcome::Cut => Outcome::Cut,
            TaskOutcome::TooLarge => Outcome::TooLarge,
        }
    }
}

/// LRAT: an [`Entry::eff`] that sets a cell true or false.
fn cell_eff(n: usize, (r, c): Pos, value: bool) -> i32 {
    let e = (r * n + c) as i32 + 1;
    if value {
        e
    } else {
        -e
    }
}

fn proof_bytes(shared: &Shared) -> u64 {
    shared.bytes.load(Ordering::Relaxed)
}

/// The tree split at one depth: every live node there is a task searched by some thread
/// into its own buffer (LRAT: streamed to the sink in chunks); then the nodes above are
/// refuted from the tasks' sets. DRAT comes back in memory; LRAT goes to the sink, the
/// top's lemmas last.
fn refute_parallel<B: Board, S: DepthSet>(
    shared: &Shared,
    board: &mut B,
    config: &Config,
) -> (Refutation, Stats) {
    let threads = threads(config);
    // The same split as solve's: live prefixes all of one length, and complete ones (a
    // solution: its task answers at once). The top search hands the nodes of that length to
    // the tasks; with no task at all it refutes the whole (small) tree itself. (Its nodes
    // are counted by the top search, which visits them again.)
    let (tasks, _) = split(
        &mut B::new(shared.problem),
        shared.problem,
        threads * SUBTREES_PER_THREAD,
    );
    let depth = tasks
        .iter()
        .map(|t| t.len() - shared.base)
        .min()
        .unwrap_or(usize::MAX);
    let results: Vec<Mutex<Option<TaskResult<S>>>> =
        tasks.iter().map(|_| Mutex::new(None)).collect();
    // One buffer per thread, its tasks' lemmas one after the other: lemmas of different
    // subtrees do not depend on each other, so any order of subtrees is a valid proof, and
    // one growing buffer per thread copies less than one per task.
    let threads = threads.min(tasks.len());
    let parts: Vec<Mutex<Part>> = (0..threads).map(|_| Mutex::new(Part::default())).collect();
    let next = AtomicUsize::new(0);
    // Set when a task finds a solution, refutes the whole problem, or cannot go on: the
    // others then stop.
    let done = AtomicBool::new(false);
    let winner = AtomicUsize::new(usize::MAX);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (tasks, results, parts, next, done, winner) =
                (&tasks, &results, &parts, &next, &done, &winner);
            std::thread::Builder::new()
                .stack_size(search_stack(shared.problem.n()))
                .spawn_scoped(s, move || {
                    let mut w = Writer::new(shared.style).numbered(shared);
                    if shared.style == Style::Lrat {
                        w.sink = shared.sink;
                    } else {
                        w.out = proof_buffer(shared.max_bytes);
                    }
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= tasks.len() || done.load(Ordering::Relaxed) {
                            break;
                        }
                        let mut b = B::new(shared.problem);
                        for &p in &tasks[i] {
                            b.place(p);
                        }
                        let mut search = Search::<S>::new(shared, config, Some(done));
                        search.w = std::mem::replace(&mut w, Writer::new(shared.style));
                        let (lemmas_before, deletions_before) =
                            (search.w.lemmas, search.w.deletions);
                        search.counted = search.w.position();
                        let mut out = search.node(&mut b, true);
                        if matches!(out, Outcome::Refuted)
                            && shared.style == Style::Lrat
                            && !matches!(search.kind, Kind::Lemma(_))
                        {
                            // The top search names the task by a lemma.
                            out = search.emit_chain(&b);
                        }
                        let lemma = match search.kind {
                            Kind::Lemma(id) => id,
                            _ => 0,
                        };
                        let outcome = match out {
                            Outcome::Refuted if search.ret.is_empty() => {
                                // This subtree alone refutes the problem.
                                winner.fetch_min(i, Ordering::Relaxed);
                                done.store(true, Ordering::Relaxed);
                                TaskOutcome::Refuted(search.ret.clone())
                            }
                            Outcome::Refuted => TaskOutcome::Refuted(search.ret.clone()),
                            Outcome::Sat(q) => {
                                done.store(true, Ordering::Relaxed);
                                TaskOutcome::Sat(q)
                            }
                            Outcome::Interrupted => {
                                done.store(true, Ordering::Relaxed);
                                TaskOutcome::Interrupted
                            }
                            Outcome::TooLarge => {
                                done.store(true, Ordering::Relaxed);
                                TaskOutcome::TooLarge
                            }
                            Outcome::Cut => TaskOutcome::Cut,
                        };
                        w = std::mem::replace(&mut search.w, Writer::new(shared.style));
                        let result = TaskResult {
                            outcome,
                            lemma,
                            nodes: search.nodes,
                            lemmas: w.lemmas - lemmas_before,
                            deletions: w.deletions - deletions_before,
                            thread: t,
                            end: w.position() as usize,
                        };
                        *results[i].lock().expect("no thread panics") = Some(result);
                    }
                    w.flush();
                    *parts[t].lock().expect("no thread panics") = Part {
                        bytes: std::mem::take(&mut w.out),
                        error: w.error.take(),
                    };
                })
                .expect("spawning a search thread");
        }
    });
    let mut parts: Vec<Part> = parts
        .into_iter()
        .map(|b| b.into_inner().expect("no thread panics"))
        .collect();
    finish_parallel::<B, S>(
        shared,
        board,
        config,
        &results,
        &mut parts,
        &tasks,
        depth,
        winner.load(Ordering::Relaxed),
    )
}

/// A thread's share of a parallel refutation: its DRAT lemmas in memory (LRAT went to the
/// sink), or the error the sink gave it.
#[derive(Default)]
struct Part {
    bytes: Vec<u8>,
    error: Option<io::Error>,
}

/// The answer of a parallel refutation once its threads are done.
#[allow(clippy::too_many_arguments)]
fn finish_parallel<B: Board, S: DepthSet>(
    shared: &Shared,
    board: &mut B,
    config: &Config,
    results: &[Mutex<Option<TaskResult<S>>>],
    parts: &mut [Part],
    tasks: &[Vec<Pos>],
    depth: usize,
    w: usize,
) -> (Refutation, Stats) {
    let sum = |f: fn(&TaskResult<S>) -> u64| -> u64 {
        results
            .iter()
            .map(|r| r.lock().expect("no thread panics").as_ref().map_or(0, f))
            .sum()
    };
    let (task_nodes, lemmas, deletions) =
        (sum(|t| t.nodes), sum(|t| t.lemmas), sum(|t| t.deletions));
    if let Some(e) = parts.iter_mut().find_map(|p| p.error.take()) {
        let stats = Stats {
            nodes: task_nodes,
            interrupted: false,
        };
        return (Refutation::Failed(format!("writing the proof: {e}")), stats);
    }
    let interrupted = results.iter().any(|r| {
        matches!(
            r.lock()
                .expect("no thread panics")
                .as_ref()
                .map(|t| &t.outcome),
            Some(TaskOutcome::Interrupted)
        )
    });
    // A solution anywhere answers; so does a subtree that refuted the problem alone.
    for r in results {
        if let Some(TaskResult {
            outcome: TaskOutcome::Sat(q),
            ..
        }) = &*r.lock().expect("no thread panics")
        {
            let stats = Stats {
                nodes: task_nodes,
                interrupted: false,
            };
            return (Refutation::Sat(q.clone()), stats);
        }
    }
    if w != usize::MAX {
        // The winner's thread buffer up to the winner's end: earlier subtrees' lemmas come
        // along, which is harmless.
        let (thread, end) = results[w]
            .lock()
            .expect("no thread panics")
            .as_ref()
            .map_or((0, 0), |t| (t.thread, t.end));
        let (mut lemmas, mut deletions) = (0, 0);
        for r in results {
            if let Some(t) = &*r.lock().expect("no thread panics") {
                if t.thread == thread && t.end <= end {
                    lemmas += t.lemmas;
                    deletions += t.deletions;
                }
            }
        }
        let stats = Stats {
            nodes: task_nodes,
            interrupted: false,
        };
        let mut proof = DratProof {
            lemmas,
            deletions,
            ..DratProof::default()
        };
        if shared.style == Style::Lrat {
            // Every thread's chunks are in the sink already, the winner's empty clause
            // among them.
            proof.written = shared.sink.map_or(0, |_| proof_bytes(shared));
        } else {
            let mut bytes = std::mem::take(&mut parts[thread].bytes);
            bytes.truncate(end);
            proof.bytes = bytes;
        }
        return (Refutation::Unsat(proof), stats);
    }
    let stats = Stats {
        nodes: task_nodes,
        interrupted,
    };
    if interrupted {
        return (Refutation::Interrupted, stats);
    }
    if results.iter().any(|r| {
        matches!(
            r.lock()
                .expect("no thread panics")
                .as_ref()
                .map(|t| &t.outcome),
            Some(TaskOutcome::TooLarge)
        )
    }) {
        return (Refutation::TooLarge(proof_bytes(shared)), stats);
    }
    // Every task is refuted: the top of the tree, from their sets (LRAT: after every
    // task's lemmas, which are in the sink).
    let mut top = Search::<S>::new(shared, config, None);
    top.w.sink = shared.sink;
    top.split = Some(Split {
        depth,
        results,
        index: tasks.iter().cloned().zip(0..).collect(),
    });
    let outcome = top.node(board, true);
    let top_nodes = top.nodes;
    top.w.flush();
    if let Some(e) = top.w.error.take() {
        let stats = Stats {
            nodes: task_nodes + top_nodes,
            interrupted: false,
        };
        return (Refutation::Failed(format!("writing the proof: {e}")), stats);
    }
    let tail_bytes = std::mem::take(&mut top.w.out);
    let (tail_lemmas, tail_deletions, top_flushed) = (top.w.lemmas, top.w.deletions, top.w.flushed);
    let stats_done = Stats {
        nodes: task_nodes + top_nodes,
        interrupted: false,
    };
    match top.finish(outcome, 0) {
        Refutation::Unsat(_) => {
            let mut proof = DratProof {
                lemmas: lemmas + tail_lemmas,
                deletions: deletions + tail_deletions,
                ..DratProof::default()
            };
            match shared.sink {
                Some(_) => proof.written = proof_bytes(shared) + top_flushed,
                None => {
                    // The largest buffer grows by the others: the least copying.
                    let largest = (0..parts.len())
                        .max_by_key(|&t| parts[t].bytes.len())
                        .unwrap_or(0);
                    let mut bytes = std::mem::take(&mut parts[largest].bytes);
                    bytes.reserve(
                        parts.iter().map(|p| p.bytes.len()).sum::<usize>() + tail_bytes.len(),
                    );
                    for p in parts.iter() {
                        bytes.extend_from_slice(&p.bytes);
                    }
                    bytes.extend_from_slice(&tail_bytes);
                    proof.bytes = bytes;
                }
            }
            (Refutation::Unsat(proof), stats_done)
        }
        other => (other, stats),
    }
}
