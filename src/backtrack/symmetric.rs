//! Counting the empty classic board with the square's eight symmetries.
//!
//! This is Takaken's algorithm (Kenji Takahashi's N-Queens program, 2000s, widely reproduced):
//! the search only builds placements that are the smallest of their symmetry class, split in
//! two phases by whether a queen stands in the corner, and classifies each found placement as
//! invariant under 90° rotation (class of 2), 180° rotation (class of 4) or neither (class of 8).
//! That gives the total (A000170) and the count up to rotation and reflection (A002562) in
//! one pass that visits about one eighth of the tree. Subtrees are shared among the cores.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::{Config, Count, Stats};

/// Largest n the symmetric counter handles (its masks are `u64` and shift left by up to 2n).
pub const MAX_N: usize = 31;

/// Counts the empty classic `n`×`n` board; `None` when n is outside the range this counter is
/// written for (the caller then falls back to the general search).
pub fn count(n: usize, config: &Config) -> Option<Count> {
    if !(5..=MAX_N).contains(&n) {
        return None;
    }
    Some(count_split(n, config, extra_rows(n)))
}

/// [`count`] over tasks that fix `extra` rows below the first free one.
fn count_split(n: usize, config: &Config, extra: usize) -> Count {
    let (tasks, split_nodes) = tasks(n, extra);
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    };
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let interrupted = AtomicBool::new(false);
    let (c8, c4, c2, nodes) = (
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(split_nodes),
    );
    let report = |d: u64| {
        if let Some(p) = &config.progress {
            p(d, tasks.len() as u64);
        }
    };
    report(0);
    std::thread::scope(|s| {
        for _ in 0..threads.min(tasks.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&task) = tasks.get(i) else { break };
                if interrupted.load(Ordering::Relaxed) {
                    break;
                }
                let mut st = State::new(n, task);
                st.halt = Halt {
                    deadline: config.deadline,
                    stop: config.stop.clone(),
                };
                st.run(task);
                if st.interrupted {
                    interrupted.store(true, Ordering::Relaxed);
                }
                c8.fetch_add(st.count8, Ordering::Relaxed);
                c4.fetch_add(st.count4, Ordering::Relaxed);
                c2.fetch_add(st.count2, Ordering::Relaxed);
                nodes.fetch_add(st.nodes, Ordering::Relaxed);
                report(done.fetch_add(1, Ordering::Relaxed) + 1);
            });
        }
    });
    let (c8, c4, c2) = (c8.into_inner(), c4.into_inner(), c2.into_inner());
    // Cut short, the classes counted so far are a lower bound for the total; the unique
    // count of a partial run means nothing.
    let interrupted = interrupted.into_inner();
    Count {
        total: 8 * c8 + 4 * c4 + 2 * c2,
        unique: (!interrupted).then_some(c8 + c4 + c2),
        limited: false,
        stats: Stats {
            nodes: nodes.into_inner(),
            interrupted,
        },
    }
}

/// One unit of work: a phase, its `bound1`, the queen of the first free row and those of
/// the `extra` rows after it.
#[derive(Clone, Copy, Debug)]
struct Task {
    /// Phase 1: a queen in the top-left corner. Phase 2: none in any corner of row 0.
    corner: bool,
    bound1: usize,
    /// The queen (as a bit) of row 2 in phase 1, of row 1 in phase 2.
    bit: u64,
    /// The queens (as bits) of the rows after it, `extra` of them; the search places the rest.
    next: [u64; MAX_EXTRA],
    extra: usize,
}

/// Most rows a task fixes below its first free row.
const MAX_EXTRA: usize = 2;

/// Rows the tasks fix below the first free one on an n×n board. One task per queen of the
/// first free row leaves subtrees of minutes from n = 19 (progress, counted in tasks done,
/// stood at 0 for minutes, and one core idled at the end); each extra row makes about n
/// times as many tasks, a few thousand from n = 12 and tens of thousands from n = 17.
fn extra_rows(n: usize) -> usize {
    match n {
        ..12 => 0,
        12..17 => 1,
        _ => MAX_EXTRA,
    }
}

/// All tasks, the large phase-2 ones first so the cores finish together, and the nodes
/// placed in making them (the queens they fix, each counted once for all its subtrees).
fn tasks(n: usize, extra: usize) -> (Vec<Task>, u64) {
    let mut tasks = shallow_tasks(n);
    let mut nodes = 0;
    for _ in 0..extra.min(MAX_EXTRA) {
        nodes += tasks.len() as u64;
        let mut deeper = Vec::new();
        for task in tasks {
            let mut st = State::new(n, task);
            let (y, left, down, right) = st.start(task);
            // Row y is not the last (n ≥ 8 here), so these are the cells the search would
            // branch on, and nothing is counted yet.
            let free = if task.corner {
                st.corner_free(y, left, down, right)
            } else {
                st.side_free(y, left, down, right)
            };
            push_bits(&mut deeper, free.unwrap_or(0), |bit| {
                let mut t = task;
                t.next[t.extra] = bit;
                t.extra += 1;
                t
            });
        }
        tasks = deeper;
    }
    (tasks, nodes)
}

/// One task per queen of the first free row.
fn shallow_tasks(n: usize) -> Vec<Task> {
    let mut out = Vec::new();
    let st = State::new(
        n,
        Task {
            corner: false,
            bound1: 1,
            bit: 0,
            next: [0; MAX_EXTRA],
            extra: 0,
        },
    );
    for bound1 in 1..n {
        let bound2 = n - 1 - bound1;
        if bound1 >= bound2 {
            break;
        }
        let bit = 1u64 << bound1;
        let mut free = st.mask & !((bit << 1) | bit | (bit >> 1));
        if 1 < bound1 {
            free &= !st.sidemask;
        }
        push_bits(&mut out, free, |bit| Task {
            corner: false,
            bound1,
            bit,
            next: [0; MAX_EXTRA],
            extra: 0,
        });
    }
    for bound1 in 2..n - 1 {
        let bit = 1u64 << bound1;
        let (left, down, right) = ((2 | bit) << 1, 1 | bit, bit >> 1);
        let mut free = st.mask & !(left | down | right);
        if 2 < bound1 {
            free &= !2;
        }
        push_bits(&mut out, free, |bit| Task {
            corner: true,
            bound1,
            bit,
            next: [0; MAX_EXTRA],
            extra: 0,
        });
    }
    out
}

fn push_bits(out: &mut Vec<Task>, mut m: u64, make: impl Fn(u64) -> Task) {
    while m != 0 {
        let bit = m & m.wrapping_neg();
        m ^= bit;
        out.push(make(bit));
    }
}

/// When a count must stop early: the caller's deadline and stop flag.
#[derive(Default)]
struct Halt {
    deadline: Option<std::time::Instant>,
    stop: Option<std::sync::Arc<AtomicBool>>,
}

impl Halt {
    fn now(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
            || self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
    }
}

/// Nodes between two looks at the deadline and stop flag: about a millisecond of search.
const HALT_POLL: u64 = 1 << 16;

struct State {
    halt: Halt,
    interrupted: bool,
    last: usize,
    mask: u64,
    topbit: u64,
    endbit: u64,
    sidemask: u64,
    lastmask: u64,
    bound1: usize,
    bound2: usize,
    board: [u64; MAX_N + 1],
    count8: u64,
    count4: u64,
    count2: u64,
    nodes: u64,
}

impl State {
    fn new(n: usize, task: Task) -> State {
        let topbit = 1u64 << (n - 1);
        let mut st = State {
            halt: Halt::default(),
            interrupted: false,
            last: n - 1,
            mask: (1u64 << n) - 1,
            topbit,
            endbit: topbit >> 1,
            sidemask: topbit | 1,
            lastmask: topbit | 1,
            bound1: task.bound1,
            bound2: n - 1 - task.bound1,
            board: [0; MAX_N + 1],
            count8: 0,
            count4: 0,
            count2: 0,
            nodes: 0,
        };
        if !task.corner {
            // The masks widen by one column on each side for every step of bound1.
            for _ in 1..task.bound1 {
                st.lastmask |= st.lastmask >> 1 | st.lastmask << 1;
                st.endbit >>= 1;
            }
        }
        st
    }

    /// Places the task's queens; returns the first row left to place and its attack masks
    /// (left diagonals, columns, right diagonals). Counts no node.
    fn start(&mut self, task: Task) -> (usize, u64, u64, u64) {
        let (mut y, mut left, mut down, mut right) = if task.corner {
            let b1 = 1u64 << self.bound1;
            self.board[0] = 1;
            self.board[1] = b1;
            (2, (2 | b1) << 1, 1 | b1, b1 >> 1)
        } else {
            let b0 = 1u64 << self.bound1;
            self.board[0] = b0;
            (1, b0 << 1, b0, b0 >> 1)
        };
        for &bit in std::iter::once(&task.bit).chain(&task.next[..task.extra]) {
            self.board[y] = bit;
            (y, left, down, right) = (y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
        }
        (y, left, down, right)
    }

    fn run(&mut self, task: Task) {
        let (y, left, down, right) = self.start(task);
        // One node for the task's last queen: the others were counted when the tasks were
        // made, once for all the subtrees below them.
        self.nodes += 1;
        if task.corner {
            self.walk::<true>(y, left, down, right);
        } else {
            self.walk::<false>(y, left, down, right);
        }
    }

    /// Depth-first search below row `y0`, iterative with explicit per-row stacks (a fifth
    /// faster than recursion here). `CORNER` selects the phase: 1 (Takaken's Backtrack1, a
    /// queen in the corner, see [`State::corner_free`]) or 2 (Backtrack2, see
    /// [`State::side_free`]).
    fn walk<const CORNER: bool>(&mut self, y0: usize, left0: u64, down0: u64, right0: u64) {
        let free_at = |st: &mut State, y, l, d, r| {
            if CORNER {
                st.corner_free(y, l, d, r)
            } else {
                st.side_free(y, l, d, r)
            }
        };
        let mut stack = [(0u64, 0u64, 0u64, 0u64); MAX_N + 1];
        let Some(free0) = free_at(self, y0, left0, down0, right0) else {
            return;
        };
        stack[y0] = (free0, left0, down0, right0);
        let mut y = y0;
        let mut nodes = 0;
        loop {
            let (free, left, down, right) = stack[y];
            if free == 0 {
                if y == y0 {
                    self.nodes += nodes;
                    return;
                }
                y -= 1;
                continue;
            }
            let bit = free & free.wrapping_neg();
            stack[y].0 = free ^ bit;
            self.board[y] = bit;
            nodes += 1;
            if nodes % HALT_POLL == 0 && self.halt.now() {
                self.interrupted = true;
                self.nodes += nodes;
                return;
            }
            let (l, d, r) = ((left | bit) << 1, down | bit, (right | bit) >> 1);
            if let Some(f) = free_at(self, y + 1, l, d, r) {
                y += 1;
                stack[y] = (f, l, d, r);
            }
        }
    }

    /// The open cells of row `y` in phase 1 (queen in the corner, so only the diagonal
    /// reflection can map a placement to itself; `bound1` bans column 1 above row `bound1`);
    /// `None` when the row needs no branching (the last row, counted here, or no cell).
    #[inline(always)]
    fn corner_free(&mut self, y: usize, left: u64, down: u64, right: u64) -> Option<u64> {
        let mut free = self.mask & !(left | down | right);
        if y == self.last {
            if free != 0 {
                self.count8 += 1;
            }
            return None;
        }
        if y < self.bound1 {
            free &= !2;
        }
        (free != 0).then_some(free)
    }

    /// The open cells of row `y` in phase 2 (no corner queen; the side masks keep the
    /// placement the smallest of its class); `None` when there is nothing to branch on (the
    /// last row is classified here by [`State::classify`]).
    #[inline(always)]
    fn side_free(&mut self, y: usize, left: u64, down: u64, right: u64) -> Option<u64> {
        let mut free = self.mask & !(left | down | right);
        if y == self.last {
            if free != 0 && free & self.lastmask == 0 {
                self.board[y] = free;
                self.classify();
            }
            return None;
        }
        if y < self.bound1 {
            free &= !self.sidemask;
        } else if y == self.bound2 {
            if down & self.sidemask == 0 {
                return None;
            }
            if down & self.sidemask != self.sidemask {
                free &= self.sidemask;
            }
        }
        (free != 0).then_some(free)
    }

    /// Compares the placement with its 90°, 180° and 270° rotations: counts it in the class
    /// of 2, 4 or 8 if it is the smallest, and drops it if a rotation is smaller.
    fn classify(&mut self) {
        let b = &self.board;
        let e = self.last;
        if b[self.bound2] == 1 {
            let (mut own, mut ptn) = (1, 2u64);
            while own <= e {
                let (mut bit, mut you) = (1u64, e);
                while b[you] != ptn && b[own] >= bit {
                    bit <<= 1;
                    you -= 1;
                }
                if b[own] > bit {
                    return;
                }
                if b[own] < bit {
                    break;
                }
                own += 1;
                ptn <<= 1;
            }
            if own > e {
                self.count2 += 1;
                return;
            }
        }
        if b[e] == self.endbit {
            let mut own = 1;
            while own <= e {
                let you = e - own;
                let (mut bit, mut ptn) = (1u64, self.topbit);
                while ptn != b[you] && b[own] >= bit {
                    bit <<= 1;
                    ptn >>= 1;
                }
                if b[own] > bit {
                    return;
                }
                if b[own] < bit {
                    break;
                }
                own += 1;
            }
            if own > e {
                self.count4 += 1;
                return;
            }
        }
        if b[self.bound1] == self.topbit {
            let (mut own, mut ptn) = (1, self.topbit >> 1);
            while own <= e {
                let (mut bit, mut you) = (1u64, 0);
                while b[you] != ptn && b[own] >= bit {
                    bit <<= 1;
                    you += 1;
                }
                if b[own] > bit {
                    return;
                }
                if b[own] < bit {
                    break;
                }
                own += 1;
                ptn >>= 1;
            }
        }
        self.count8 += 1;
    }
}

/// The number of placements distinct up to rotation and reflection, by comparing canonical
/// forms: slow but obviously right, used for n < 5 and as a test oracle for [`count`].
pub fn unique_by_canonical_form(n: usize, solutions: &[Vec<crate::model::Pos>]) -> u64 {
    let mut seen = std::collections::HashSet::new();
    for s in solutions {
        let forms = (0..8).map(|k| {
            let mut t: Vec<_> = s
                .iter()
                .map(|&(r, c)| {
                    let (r, c) = if k & 4 != 0 { (c, r) } else { (r, c) };
                    let r = if k & 1 != 0 { n - 1 - r } else { r };
                    let c = if k & 2 != 0 { n - 1 - c } else { c };
                    (r, c)
                })
                .collect();
            t.sort_unstable();
            t
        });
        seen.insert(forms.min().expect("eight forms"));
    }
    seen.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deeper tasks split the same tree: the same counts and the same nodes at every depth.
    #[test]
    fn every_split_depth_counts_the_same() {
        for n in 8..=13 {
            let shallow = count_split(n, &Config::default(), 0);
            for extra in 1..=MAX_EXTRA {
                let deep = count_split(n, &Config::default(), extra);
                assert_eq!(
                    (deep.total, deep.unique, deep.stats.nodes),
                    (shallow.total, shallow.unique, shallow.stats.nodes),
                    "n = {n}, {extra} extra rows"
                );
            }
        }
    }
}
