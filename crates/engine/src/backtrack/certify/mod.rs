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
//! The tree is searched on all cores as [`super::first_solution`] searches it: split into subtrees at
//! one depth, each subtree refuted into its own buffer, and the nodes above that depth
//! refuted last from the subtrees' sets, so every lemma comes after those it relies on.
//!
//! This file holds the entry points ([`refute`], [`refute_lrat`]); `search.rs` is the
//! refutation of one tree, `chain.rs` its LRAT hints, `parallel.rs` the split over the cores,
//! `shared.rs` what every thread reads and the types those three hand each other, `ids.rs` the
//! CNF's clause ids, `masks.rs` and `depths.rs` the bit sets the search works on; the proof
//! lines go through [`queens_proof::write`].

mod chain;
mod depths;
mod ids;
mod masks;
mod parallel;
mod search;
mod shared;

use std::io;
use std::sync::atomic::AtomicU64;

use super::board::{place_fixed, Board, LargeBoard, SmallBoard};
use super::config::{Config, Stats};
use super::search::{threads, use_small};
use depths::DepthSet;
pub use ids::ClauseIds;
use parallel::refute_parallel;
use queens_model::model::Problem;
use queens_proof::lrat::{put_varint, ChunkSink};
pub use queens_proof::write::DratStyle;
use queens_proof::write::{empty_clause, Style};
use search::Search;
use shared::{proof_buffer, Outcome, Shared};
pub use shared::{DratProof, Refutation};

/// Refutes `problem` by search, writing a DRAT proof for a CNF in which cell `(r, c)` is
/// variable `vars[r * n + c]` (0: no variable; such a cell must be closed from the start, e.g.
/// by a fixed queen, or false by a unit clause of the CNF). The CNF must state the rules with
/// one at-least-one clause per open row, column and region and fully propagating at-most-one
/// constraints, as [`crate::cnf::encode`] writes it.
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
        refute_on::<SmallBoard, u64>(problem, vars, style, max_bytes, config)
    } else {
        refute_on::<LargeBoard, Vec<u64>>(problem, vars, style, max_bytes, config)
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
    let mut probe = Search::<S>::new(&shared, config, None);
    let alone = threads(config) == 1;
    if alone {
        // One thread: the lemmas stream to the sink as they are written.
        probe.w.sink = shared.sink;
    } else {
        // Several: a probe in memory first, written out only if it answers.
        probe.limit = PROBE_NODES;
    }
    let outcome = probe.node(&mut board, true);
    let nodes = probe.nodes;
    if alone || !matches!(outcome, Outcome::Cut) {
        let stats = probe_stats(nodes, &outcome);
        probe.w.sink = shared.sink;
        probe.w.flush();
        let written = probe.w.flushed;
        if let Some(e) = probe.w.error.take() {
            return io_error(e);
        }
        return (probe.finish(outcome, written), stats);
    }
    drop(probe);
    refute_after_probe::<B, S>(&shared, &mut board, config, nodes)
}

/// The work of a probe that answered alone after `nodes` nodes.
fn probe_stats(nodes: u64, outcome: &Outcome) -> Stats {
    Stats {
        nodes,
        interrupted: matches!(outcome, Outcome::Interrupted),
    }
}

/// Refutes on all threads after a probe of `probe_nodes` nodes that did not answer; the
/// stats count the probe's nodes too.
fn refute_after_probe<B: Board, S: DepthSet>(
    shared: &Shared,
    board: &mut B,
    config: &Config,
    probe_nodes: u64,
) -> (Refutation, Stats) {
    let (refutation, stats) = refute_parallel::<B, S>(shared, board, config);
    let nodes = stats.nodes + probe_nodes;
    (refutation, Stats { nodes, ..stats })
}

/// Nodes a refutation searches alone before it splits the tree over the cores: easy instances
/// finish sooner than threads start (as [`super::first_solution`]'s probe).
const PROBE_NODES: u64 = 16_384;

fn refute_on<B: Board, S: DepthSet>(
    problem: &Problem,
    vars: &[u32],
    style: DratStyle,
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
    let shared = Shared::new(problem, &board, vars, style.into(), max_bytes);
    let mut probe = Search::<S>::new(&shared, config, None);
    if threads(config) > 1 {
        probe.limit = PROBE_NODES;
    } else {
        probe.w.out = proof_buffer(max_bytes);
    }
    let outcome = probe.node(&mut board, true);
    let nodes = probe.nodes;
    if !matches!(outcome, Outcome::Cut) {
        let stats = probe_stats(nodes, &outcome);
        return (probe.finish(outcome, 0), stats);
    }
    drop(probe);
    refute_after_probe::<B, S>(&shared, &mut board, config, nodes)
}

fn empty_clause_only(style: DratStyle) -> DratProof {
    DratProof {
        bytes: empty_clause(style),
        lemmas: 1,
        ..DratProof::default()
    }
}
