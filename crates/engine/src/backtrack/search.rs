//! The search itself: one depth-first run over a bitset board ([`Run`]), and the split of the
//! tree into subtrees searched on all cores, for one solution or a count.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use super::board::{place_fixed, Board};
use super::config::{BoardKind, Config, Count, Stats};
use queens_model::model::{Pos, Problem};

pub(super) fn use_small(problem: &Problem, kind: BoardKind) -> bool {
    match kind {
        BoardKind::Auto => problem.n() <= 64,
        BoardKind::Small => {
            assert!(problem.n() <= 64, "BoardKind::Small needs n <= 64");
            true
        }
        BoardKind::Large => false,
    }
}

pub(super) fn solve_on<B: Board>(problem: &Problem, config: &Config) -> (Option<Vec<Pos>>, Stats) {
    // Most searches end within a few thousand nodes, where starting threads costs more than
    // it saves (Nauck's 8×8 instance: 0.04 ms alone, 0.44 ms split over two threads). So a
    // parallel solve first searches alone for about PROBE_POLLS × 4096 nodes. The thread
    // count is asked for only then: available_parallelism reads cgroup files, about 60 µs,
    // which is a quarter of an easy prob079 instance's whole search.
    let parallel = std::cell::OnceCell::new();
    let polls = std::cell::Cell::new(0u32);
    let probe = || {
        polls.set(polls.get() + 1);
        polls.get() > PROBE_POLLS && *parallel.get_or_init(|| threads(config) > 1)
    };
    let mut found = None;
    let mut keep = |q: &[Pos]| {
        found = Some(q.to_vec());
        false
    };
    let probed = enumerate_on(
        &mut B::new(problem),
        problem,
        config,
        Some(&probe),
        &mut keep,
    );
    // Done unless the probe was cut short: then the split search starts over.
    if parallel.get() != Some(&true) || found.is_some() || probed.interrupted {
        return (found, probed);
    }
    let (found, stats) = solve_parallel::<B>(problem, config);
    let nodes = stats.nodes + probed.nodes;
    (found, Stats { nodes, ..stats })
}

/// How long a parallel [`solve`] searches alone first, in deadline polls (one per 4096 nodes).
const PROBE_POLLS: u32 = 4;

/// One sequential search; `visit` gets each solution sorted by row and returns false to stop.
/// `cancel` is polled every 4096 nodes and ends the search when true.
pub(super) fn enumerate_on<B: Board>(
    board: &mut B,
    problem: &Problem,
    config: &Config,
    cancel: Option<&dyn Fn() -> bool>,
    visit: &mut dyn FnMut(&[Pos]) -> bool,
) -> Stats {
    let mut run = Run::new(config, cancel);
    let mut sorted = Vec::new();
    if place_fixed(board, problem) {
        run.search(board, &mut |q: &[Pos]| {
            sorted.clear();
            sorted.extend_from_slice(q);
            sorted.sort_unstable();
            visit(&sorted)
        });
    }
    run.stats()
}

/// Subtrees per thread when the tree is split for parallel search; a shared counter hands
/// them out, so a lopsided tree still keeps every thread busy until the last few. Measured on
/// the prob079 race (n = 21, 19 diagonals, 100 instances, quiet 2-core machine): two threads
/// 1.78× faster than one with 16 per thread, 1.77× with 256, so the finer split buys nothing.
pub(super) const SUBTREES_PER_THREAD: usize = 16;

/// The stack of one search thread for an n×n board: the search recurses once a row, in
/// frames of under 256 bytes in a release build (`count --n 4096` runs in a 1 MiB stack), so
/// 8 KiB a row leaves room for a debug build's larger frames. Sized by the board, not fixed:
/// under an address-space limit (`ulimit -v`, a pod's limit) every thread's stack is
/// reserved in full, and 256 MiB a thread took most of a 1 GB limit.
pub(crate) fn search_stack(n: usize) -> usize {
    (8 << 20) + n.saturating_mul(8 << 10)
}

pub(super) fn threads(config: &Config) -> usize {
    match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    }
}

pub(super) fn count_on<B: Board>(problem: &Problem, config: &Config, limit: Option<u64>) -> Count {
    let total = AtomicU64::new(0);
    let stop = AtomicBool::new(limit == Some(0));
    let stats = on_subtrees::<B>(
        problem,
        config,
        &|_| stop.load(Ordering::Relaxed),
        &|_, _| {
            let t = total.fetch_add(1, Ordering::Relaxed) + 1;
            if limit.is_some_and(|k| t >= k) {
                stop.store(true, Ordering::Relaxed);
                return false;
            }
            true
        },
    );
    let total = total.into_inner();
    let limited = limit.is_some_and(|k| total >= k);
    Count {
        total: limit.map_or(total, |k| total.min(k)),
        unique: None,
        limited,
        stats: Stats {
            interrupted: stats.interrupted && !limited,
            ..stats
        },
    }
}

fn solve_parallel<B: Board>(problem: &Problem, config: &Config) -> (Option<Vec<Pos>>, Stats) {
    // The lowest subtree index with a solution so far, and that solution.
    let best = AtomicUsize::new(usize::MAX);
    let found = std::sync::Mutex::new(None::<(usize, Vec<Pos>)>);
    let stats = on_subtrees::<B>(
        problem,
        config,
        &|i| best.load(Ordering::Relaxed) < i,
        &|i, q| {
            let mut slot = found.lock().expect("no search thread panics");
            if slot.as_ref().is_none_or(|(j, _)| i < *j) {
                let mut q = q.to_vec();
                q.sort_unstable();
                *slot = Some((i, q));
                best.fetch_min(i, Ordering::Relaxed);
            }
            false
        },
    );
    let found = found.into_inner().expect("no search thread panics");
    // A solution settles the question even if a deadline cut off a later subtree; without
    // one, a cut-off search proved nothing.
    let interrupted = stats.interrupted && found.is_none();
    (
        found.map(|(_, q)| q),
        Stats {
            interrupted,
            ..stats
        },
    )
}

/// Splits the tree into subtrees (in depth-first order) and searches them on `config.threads`
/// threads. `cancelled(i)` is polled before and during subtree `i`; `on_solution(i, queens)`
/// is called for each solution in subtree `i` and returns false to end that subtree.
fn on_subtrees<B: Board>(
    problem: &Problem,
    config: &Config,
    cancelled: &(dyn Fn(usize) -> bool + Sync),
    on_solution: &(dyn Fn(usize, &[Pos]) -> bool + Sync),
) -> Stats {
    let threads = threads(config);
    let (tasks, split_nodes) = split(&mut B::new(problem), problem, threads * SUBTREES_PER_THREAD);
    let nodes = AtomicU64::new(split_nodes);
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let interrupted = AtomicBool::new(false);
    let report = |d: u64| {
        if let Some(p) = &config.progress {
            p(d, tasks.len() as u64);
        }
    };
    report(0);
    std::thread::scope(|s| {
        for _ in 0..threads.min(tasks.len()) {
            std::thread::Builder::new()
                .stack_size(search_stack(problem.n()))
                .spawn_scoped(s, || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= tasks.len() || interrupted.load(Ordering::Relaxed) {
                        break;
                    }
                    if !cancelled(i) {
                        let mut board = B::new(problem);
                        for &p in &tasks[i] {
                            board.place(p);
                        }
                        let cancel = || cancelled(i);
                        let mut run = Run::new(config, Some(&cancel));
                        run.search(&mut board, &mut |q| on_solution(i, q));
                        nodes.fetch_add(run.nodes, Ordering::Relaxed);
                        if run.interrupted {
                            interrupted.store(true, Ordering::Relaxed);
                        }
                    }
                    report(done.fetch_add(1, Ordering::Relaxed) + 1);
                })
                .expect("spawning a search thread");
        }
    });
    Stats {
        nodes: nodes.into_inner(),
        interrupted: interrupted.into_inner(),
    }
}

/// Expands the tree breadth-first until there are at least `want` subtrees (or every prefix
/// is a complete placement). Returns the subtrees as placement prefixes (fixed queens
/// included; a complete prefix is a solution) and the nodes visited. Expanding level by level
/// keeps the prefixes in depth-first order: subtree `i`'s solutions are the ones the
/// sequential search meets before those of subtree `i + 1`.
pub(super) fn split<B: Board>(
    board: &mut B,
    problem: &Problem,
    want: usize,
) -> (Vec<Vec<Pos>>, u64) {
    if !place_fixed(board, problem) {
        return (Vec::new(), 0);
    }
    let n = problem.n();
    let base = board.queens().len();
    let mut frontier = vec![board.queens().to_vec()];
    let mut nodes = 0u64;
    let mut cells = Vec::new();
    while frontier.len() < want && frontier.iter().any(|p| p.len() < n) {
        let mut next = Vec::new();
        for prefix in frontier {
            if prefix.len() == n {
                next.push(prefix);
                continue;
            }
            for &p in &prefix[base..] {
                board.place(p);
            }
            if board.branch(&mut cells) {
                for i in 0..cells.len() {
                    board.order(&mut cells, i);
                }
                for &p in &cells {
                    let mut child = prefix.clone();
                    child.push(p);
                    next.push(child);
                    nodes += 1;
                }
            }
            for _ in base..prefix.len() {
                board.undo();
            }
        }
        frontier = next;
    }
    (frontier, nodes)
}

/// One depth-first search: node counting, node limit, deadline and stop flag checks.
pub(super) struct Run<'a> {
    pub(super) nodes: u64,
    /// The search ends (with `cut` set, not an interruption) when `nodes` reaches this.
    pub(super) limit: u64,
    /// True when the node limit ended the search: it proved nothing.
    pub(super) cut: bool,
    deadline: Option<Instant>,
    /// The caller's stop flag (an interruption, like the deadline).
    stop: Option<&'a AtomicBool>,
    /// Polled every 4096 nodes: true ends the search (not an interruption).
    cancel: Option<&'a dyn Fn() -> bool>,
    pub(super) interrupted: bool,
    /// Candidate buffers, one per depth, reused across the run.
    buffers: Vec<Vec<Pos>>,
    /// Prune with the ring bounds (`Config::rings`); the tracker is made at the first node.
    rings: bool,
    tracker: Option<crate::cnf::rings::RingTracker>,
}

impl<'a> Run<'a> {
    pub(super) fn new(config: &'a Config, cancel: Option<&'a dyn Fn() -> bool>) -> Run<'a> {
        Run {
            nodes: 0,
            limit: u64::MAX,
            cut: false,
            deadline: config.deadline,
            stop: config.stop.as_deref(),
            cancel,
            interrupted: false,
            buffers: Vec::new(),
            rings: config.rings,
            tracker: None,
        }
    }

    pub(super) fn stats(&self) -> Stats {
        Stats {
            nodes: self.nodes,
            interrupted: self.interrupted,
        }
    }

    /// Returns false when the search must stop (visitor said so, deadline, stop flag).
    pub(super) fn search<B: Board>(
        &mut self,
        board: &mut B,
        visit: &mut dyn FnMut(&[Pos]) -> bool,
    ) -> bool {
        let depth = board.queens().len();
        if depth == board.n() {
            return visit(board.queens());
        }
        if self.nodes & 0xfff == 0 && self.should_stop() {
            return false;
        }
        if self.nodes >= self.limit {
            self.cut = true;
            return false;
        }
        let mut cells = if depth < self.buffers.len() {
            std::mem::take(&mut self.buffers[depth])
        } else {
            Vec::new()
        };
        let mut go_on = true;
        if self.rings && self.tracker.is_none() {
            self.tracker = Some(crate::cnf::rings::RingTracker::new(
                board.n(),
                board.queens(),
            ));
        }
        if board.branch(&mut cells) {
            for i in 0..cells.len() {
                board.order(&mut cells, i);
                let p = cells[i];
                self.nodes += 1;
                if let Some(t) = self.tracker.as_mut() {
                    let fits = t.place(p);
                    if !fits {
                        t.unplace(p);
                        continue;
                    }
                }
                board.place(p);
                go_on = self.search(board, visit);
                board.undo();
                if let Some(t) = self.tracker.as_mut() {
                    t.unplace(p);
                }
                if !go_on {
                    break;
                }
            }
        }
        if self.buffers.len() <= depth {
            self.buffers.resize_with(depth + 1, Vec::new);
        }
        self.buffers[depth] = cells;
        go_on
    }

    fn should_stop(&mut self) -> bool {
        if self.cancel.is_some_and(|c| c()) {
            return true;
        }
        if self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.interrupted = true;
            return true;
        }
        false
    }
}
