//! The refutation on all cores: the tree split into subtrees at one depth, each refuted by
//! some thread, then the nodes above refuted from the subtrees' sets and the parts joined.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::depths::DepthSet;
use super::search::Search;
use super::shared::{
    proof_buffer, proof_bytes, DratProof, Kind, Outcome, Refutation, Shared, Split, TaskOutcome,
    TaskResult,
};
use crate::backtrack::board::Board;
use crate::backtrack::config::{Config, Stats};
use crate::backtrack::search::{search_stack, split, threads, SUBTREES_PER_THREAD};
use queens_model::model::Pos;
use queens_proof::write::{Style, Writer};

/// The tree split at one depth: every live node there is a task searched by some thread
/// into its own buffer (LRAT: streamed to the sink in chunks); then the nodes above are
/// refuted from the tasks' sets. DRAT comes back in memory; LRAT goes to the sink, the
/// top's lemmas last.
pub(super) fn refute_parallel<B: Board, S: DepthSet>(
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
                    let mut w = Writer::new(shared.style).numbered(&shared.next_id);
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
    pub(super) bytes: Vec<u8>,
    pub(super) error: Option<io::Error>,
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
