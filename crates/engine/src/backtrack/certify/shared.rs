//! What the parts of a refutation share: the answer ([`Refutation`], [`DratProof`]), what
//! every search thread reads ([`Shared`]), a node's outcome, and the types the one-tree search
//! (`search.rs`), its LRAT chains (`chain.rs`) and the split over the cores (`parallel.rs`)
//! hand each other. They live here, below those three files, so each of them uses this one
//! and none needs another's types.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::ids::ClauseIds;
use super::masks::Masks;
use crate::backtrack::board::{Board, Line};
use queens_model::model::{Pos, Problem};
use queens_proof::lrat::ChunkSink;
use queens_proof::write::{put_lit, Style};

/// What [`super::refute`] found.
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

/// What every search thread reads.
pub(super) struct Shared<'p> {
    pub(super) problem: &'p Problem,
    pub(super) n: usize,
    /// Queens placed before the search (the fixed ones).
    pub(super) base: usize,
    /// Cells open after the fixed queens: the cells whose falsity a lemma must derive.
    pub(super) root: Vec<bool>,
    pub(super) vars: &'p [u32],
    /// Cells of each region, for region lines.
    pub(super) regions: Vec<Vec<Pos>>,
    /// Rows and columns as words, for boards up to 64 wide.
    pub(super) masks: Option<Masks>,
    /// Each cell's literal as proof bytes, for boards up to 256 wide (empty above).
    pub(super) lits: Vec<CachedLit>,
    pub(super) style: Style,
    pub(super) max_bytes: u64,
    /// Proof bytes written by all threads so far.
    pub(super) bytes: AtomicU64,
    /// LRAT: the CNF's clause ids (`None`: DRAT).
    pub(super) ids: Option<&'p ClauseIds>,
    /// LRAT: where every thread's chunks go.
    pub(super) sink: Option<&'p dyn ChunkSink>,
    /// LRAT: the first lemma id no thread has taken yet.
    pub(super) next_id: AtomicU64,
}

impl<'p> Shared<'p> {
    pub(super) fn new<B: Board>(
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
    pub(super) fn line_cells(&self, line: Line, mut f: impl FnMut(Pos)) {
        match line {
            Line::Row(r) => (0..self.n).for_each(|c| f((r, c))),
            Line::Col(c) => (0..self.n).for_each(|r| f((r, c))),
            Line::Region(g) => self.regions[g].iter().for_each(|&p| f(p)),
        }
    }
}

pub(super) enum Outcome {
    /// Refuted: the set is in `Search::ret`, and its lemma is in the proof.
    Refuted,
    Sat(Vec<Pos>),
    Interrupted,
    /// The node limit (the probe) or another thread's answer ended the search.
    Cut,
    TooLarge,
}

pub(super) fn proof_bytes(shared: &Shared) -> u64 {
    shared.bytes.load(Ordering::Relaxed)
}

/// An empty proof buffer with address space for up to `max_bytes`, which the kernel backs
/// only as it is written, so the buffer never moves (a large proof was spending a third of
/// its time copying itself as it grew). Where the system refuses that much address space,
/// less, down to none.
pub(super) fn proof_buffer(max_bytes: u64) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut want = max_bytes.min(16 << 30) as usize;
    while want >= 1 << 20 && buf.try_reserve_exact(want).is_err() {
        want /= 2;
    }
    buf
}

/// A queen's negative literal as proof bytes ([`put_lit`]'s, made once a cell): a lemma is
/// then a few fixed-size copies.
#[derive(Clone, Copy, Default)]
pub(super) struct CachedLit {
    pub(super) cell: Pos,
    pub(super) bytes: [u8; 16],
    pub(super) len: u8,
}

impl CachedLit {
    pub(super) fn new(cell: Pos, var: u32, binary: bool) -> CachedLit {
        let mut lit = CachedLit {
            cell,
            ..CachedLit::default()
        };
        let mut out = Vec::with_capacity(16);
        put_lit(&mut out, u64::from(var), true, binary);
        lit.bytes[..out.len()].copy_from_slice(&out);
        lit.len = out.len() as u8;
        lit
    }
}

/// LRAT: why a refuted node's set `S` has no completion, when the node has no lemma.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
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
pub(super) struct Entry {
    pub(super) id: u64,
    /// `cell + 1` set true, `-(cell + 1)` set false, 0 a conflict.
    pub(super) eff: i32,
}

/// The subtrees at depth `depth`, already refuted (or answered) by other threads, found by
/// their queens.
pub(super) struct Split<'s, S> {
    pub(super) depth: usize,
    pub(super) results: &'s [Mutex<Option<TaskResult<S>>>],
    pub(super) index: std::collections::HashMap<Vec<Pos>, usize>,
}

pub(super) struct TaskResult<S> {
    pub(super) outcome: TaskOutcome<S>,
    /// LRAT: the id of the lemma that refutes the task's node.
    pub(super) lemma: u64,
    pub(super) nodes: u64,
    pub(super) lemmas: u64,
    pub(super) deletions: u64,
    /// The thread whose buffer holds the task's lemmas, and where they end in it.
    pub(super) thread: usize,
    pub(super) end: usize,
}

pub(super) enum TaskOutcome<S> {
    Refuted(S),
    Sat(Vec<Pos>),
    Interrupted,
    Cut,
    TooLarge,
}
