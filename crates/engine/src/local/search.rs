//! The repair itself: a greedy random start, then conflict-directed swaps, then restarts.
//!
//! A start places the free rows in order, each on a random remaining free column, trying a
//! few columns for one whose two diagonals are still empty (Sosič & Gu's QS4 start: most
//! queens land without a conflict, so the repair has only a few dozen rows to fix). The
//! repair picks a row in conflict and swaps its column with a random free row's, keeping the
//! swap only when the number of collisions (over every diagonal, a count of k ≥ 1 queens is
//! k − 1 collisions) falls. Swaps keep every free row on a free column, so rows and columns
//! never conflict. Diagonal counts are a bit per diagonal plus a map of the crowded ones
//! (see [`Board`]), so the start's checks hit the cache.

use super::config::Config;
use super::outcome::Outcome;
use crate::work::LocalStats as Stats;
use queens_model::hash::FastMap;
use queens_model::model::{Diagonal, Problem};
use queens_model::Budget;

/// wyrand (Wang Yi's public-domain generator): one multiply per draw, which matters when
/// the inner loop draws a row per swap. Seeded from the configuration's seed through
/// SplitMix64 so nearby seeds give unrelated streams.
struct Rand(u64);

impl Rand {
    fn new(seed: u64) -> Rand {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rand(z ^ (z >> 31))
    }

    #[inline]
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// A number in `0..bound` by Lemire's multiply-shift (a bias below 2⁻³² per value, which
    /// a search does not notice).
    #[inline]
    fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next()) * bound as u128) >> 64) as usize
    }
}

/// Columns tried per row by the greedy start before a row is placed in conflict.
const START_TRIES: usize = 1000;

/// Swaps tried for one row in conflict before another row is picked.
const REPAIR_TRIES: usize = 64;

/// Keyed by diagonal index: [`FastMap`] (SipHash would be most of a repair step's time).
type Crowded = FastMap<u64, u32>;

/// The diagonal counts: a bit per diagonal for "at least one queen" (2n bits per direction,
/// 2.5 MB at n = 10⁷, which stays in the cache), and a small map from the few diagonals
/// with more to their count minus one. Almost every diagonal holds 0 or 1 queens, so the
/// map holds only the collisions.
struct Board<'a> {
    n: usize,
    col: Vec<u32>,
    /// Diagonal k of the `r + c` direction is bit k; the `c − r + n − 1` direction follows
    /// at bit 2n − 1 + k.
    used: Vec<u64>,
    /// Queens past the first on a diagonal (the key is its bit index).
    extra: Crowded,
    /// One bit per row holding a fixed queen (empty without fixed queens).
    pinned: Vec<u64>,
    blocked: &'a [(usize, usize)],
    collisions: u64,
}

impl Board<'_> {
    #[inline]
    fn pinned(&self, r: usize) -> bool {
        !self.pinned.is_empty() && self.pinned[r / 64] >> (r % 64) & 1 == 1
    }

    #[inline]
    fn blocked(&self, r: usize, c: usize) -> bool {
        !self.blocked.is_empty() && self.blocked.binary_search(&(r, c)).is_ok()
    }

    /// The bit indices of the cell's two diagonals.
    #[inline]
    fn lines(&self, r: usize, c: usize) -> (usize, usize) {
        (r + c, 2 * self.n - 1 + c + self.n - 1 - r)
    }

    #[inline]
    fn used(&self, i: usize) -> bool {
        (self.used[i / 64] >> (i % 64)) & 1 == 1
    }

    #[inline]
    fn free_cell(&self, r: usize, c: usize) -> bool {
        let (s, d) = self.lines(r, c);
        !self.used(s) && !self.used(d)
    }

    #[inline]
    fn crowded(&self, i: usize) -> bool {
        !self.extra.is_empty() && self.extra.contains_key(&(i as u64))
    }

    #[inline]
    fn attacked(&self, r: usize) -> bool {
        let (s, d) = self.lines(r, self.col[r] as usize);
        self.crowded(s) || self.crowded(d)
    }

    /// One more queen on line `i`; returns the collisions it adds (0 or 1).
    #[inline]
    fn inc(&mut self, i: usize) -> i64 {
        let bit = 1u64 << (i % 64);
        if self.used[i / 64] & bit == 0 {
            self.used[i / 64] |= bit;
            0
        } else {
            *self.extra.entry(i as u64).or_insert(0) += 1;
            1
        }
    }

    /// One queen fewer on line `i`; returns the collisions it removes (0 or −1).
    #[inline]
    fn dec(&mut self, i: usize) -> i64 {
        if !self.extra.is_empty() {
            if let Some(x) = self.extra.get_mut(&(i as u64)) {
                *x -= 1;
                if *x == 0 {
                    self.extra.remove(&(i as u64));
                }
                return -1;
            }
        }
        self.used[i / 64] &= !(1u64 << (i % 64));
        0
    }

    /// Adds a queen's two diagonals; returns the collisions it adds.
    #[inline]
    fn add(&mut self, r: usize, c: usize) -> i64 {
        let (s, d) = self.lines(r, c);
        self.inc(s) + self.inc(d)
    }

    /// Removes a queen's two diagonals; returns the collisions it removes (as a negative).
    #[inline]
    fn remove(&mut self, r: usize, c: usize) -> i64 {
        let (s, d) = self.lines(r, c);
        self.dec(s) + self.dec(d)
    }

    /// Swaps the columns of rows `i` and `j` in the counts and returns the change in
    /// collisions.
    #[inline]
    fn swap(&mut self, i: usize, j: usize) -> i64 {
        let (ci, cj) = (self.col[i] as usize, self.col[j] as usize);
        let mut delta = self.remove(i, ci) + self.remove(j, cj);
        delta += self.add(i, cj) + self.add(j, ci);
        self.col.swap(i, j);
        delta
    }

    /// Counts with only the presets: an excluded diagonal counts one, a fixed queen one.
    fn reset(&mut self, problem: &Problem) {
        let n = self.n;
        self.used.iter_mut().for_each(|x| *x = 0);
        self.extra.clear();
        for &d in problem.excluded() {
            let i = match d {
                Diagonal::Sum(k) => k,
                Diagonal::Diff(k) => 2 * n - 1 + k,
            };
            self.inc(i);
        }
        self.collisions = 0;
        for &(r, c) in problem.fixed() {
            self.col[r] = c as u32;
            let added = self.add(r, c);
            self.collisions += added as u64;
        }
    }
}

/// How one start ended.
enum Start {
    Solved,
    Stuck,
    Interrupted,
}

/// Runs starts until one solves the problem, the budget runs out, or `config.restarts` are
/// spent.
pub(super) fn run(problem: &Problem, config: Config, budget: &Budget) -> (Outcome, Stats) {
    let n = problem.n();
    let mut stats = Stats::default();
    let mut pinned = Vec::new();
    let mut free_col = vec![true; n];
    if !problem.fixed().is_empty() {
        pinned = vec![0u64; n.div_ceil(64)];
        for &(r, c) in problem.fixed() {
            pinned[r / 64] |= 1 << (r % 64);
            free_col[c] = false;
        }
    }
    let pool_len = n - problem.fixed().len();
    let mut board = Board {
        n,
        col: vec![0; n],
        used: vec![0; (4 * n - 2).div_ceil(64)],
        extra: Crowded::default(),
        pinned,
        blocked: problem.blocked(),
        collisions: 0,
    };
    // The free columns, in order; each start shuffles them as it places rows.
    let mut free_cols: Vec<u32> = Vec::with_capacity(pool_len);
    free_cols.extend((0..n as u32).filter(|&c| free_col[c as usize]));
    drop(free_col);
    debug_assert_eq!(free_cols.len(), pool_len);
    let mut rng = Rand::new(config.seed);
    let mut pool = free_cols;
    for attempt in 0..=config.restarts {
        if attempt > 0 {
            // A start on a small board ends (stuck) long before its first poll of the budget
            // (every 4096 repair steps, every 65,536 rows placed), so a cancelled race or a
            // deadline is looked at between starts too: without it a losing local search
            // ran all its starts before the race could answer.
            if budget.exhausted() {
                return (Outcome::Interrupted, stats);
            }
            stats.restarts += 1;
        }
        match one_start(problem, &mut board, &mut pool, &mut rng, budget, &mut stats) {
            Start::Solved => return (Outcome::Solved(board.col), stats),
            Start::Interrupted => return (Outcome::Interrupted, stats),
            Start::Stuck => {}
        }
    }
    (Outcome::GaveUp, stats)
}

fn one_start(
    problem: &Problem,
    b: &mut Board,
    pool: &mut [u32],
    rng: &mut Rand,
    budget: &Budget,
    stats: &mut Stats,
) -> Start {
    let n = b.n;
    let m = pool.len();
    b.reset(problem);
    let mut conflicted: Vec<u32> = Vec::new();
    let progress = |done: usize, all: usize| {
        if let Some(p) = &budget.progress {
            p(done as u64, all as u64);
        }
    };
    // The greedy start: row by row, a random remaining column with empty diagonals if one
    // of a few tries finds it, else a random remaining column that is not blocked.
    // The columns tried are drawn RING tries ahead and read at once, so the pool's cache
    // misses of many tries overlap instead of coming one at a time. A drawn position that a
    // later row has since taken (below k) is skipped; the others are uniform over the rest.
    const RING: usize = 64;
    let mut ring = [0usize; RING];
    let mut head = 0;
    let mut touched = 0u32;
    if m > 0 {
        for slot in ring.iter_mut() {
            *slot = rng.below(m);
            touched = touched.wrapping_add(pool[*slot]);
        }
    }
    let mut k = 0;
    for r in 0..n {
        if b.pinned(r) {
            continue;
        }
        if r % 65_536 == 65_535 {
            if budget.exhausted() {
                return Start::Interrupted;
            }
            progress(k, 2 * m);
        }
        let left = m - k;
        let mut pick = None;
        for _ in 0..START_TRIES {
            let t = ring[head];
            let next = k + rng.below(left);
            ring[head] = next;
            touched = touched.wrapping_add(pool[next]);
            head = (head + 1) % RING;
            if t < k {
                continue;
            }
            let c = pool[t] as usize;
            if b.free_cell(r, c) && !b.blocked(r, c) {
                pick = Some(t);
                break;
            }
        }
        let t = match pick {
            Some(t) => t,
            None => {
                let t = k + rng.below(left);
                if !b.blocked(r, pool[t] as usize) {
                    t
                } else {
                    match (k..m).find(|&t| !b.blocked(r, pool[t] as usize)) {
                        Some(t) => t,
                        // Every remaining column is blocked in this row: start again.
                        None => return Start::Stuck,
                    }
                }
            }
        };
        pool.swap(k, t);
        let c = pool[k] as usize;
        b.col[r] = c as u32;
        let added = b.add(r, c);
        if added > 0 {
            b.collisions += added as u64;
            conflicted.push(r as u32);
        }
        k += 1;
    }
    std::hint::black_box(touched);
    // A queen placed without a conflict was first on both its lines, so every line with a
    // collision has all its queens but one in `conflicted` (fixed queens and exclusions
    // were there first): repairing the listed rows is enough.
    stats.start_conflicts = b.collisions;
    repair(b, conflicted, rng, budget, stats, m)
}

fn repair(
    b: &mut Board,
    mut conflicted: Vec<u32>,
    rng: &mut Rand,
    budget: &Budget,
    stats: &mut Stats,
    m: usize,
) -> Start {
    let n = b.n;
    // Picks without a kept swap before the start is abandoned: enough for the repair to
    // wander off a plateau, small enough that a dead end costs little next to a start.
    let patience = 4 * n as u64 + 200;
    let mut since_gain = 0u64;
    let mut step = 0u64;
    while b.collisions > 0 {
        step += 1;
        if step % 4096 == 0 {
            if budget.exhausted() {
                return Start::Interrupted;
            }
            if let Some(p) = &budget.progress {
                let left = (b.collisions as usize).min(m);
                p((2 * m - left) as u64, 2 * m as u64);
            }
        }
        if since_gain > patience {
            return Start::Stuck;
        }
        if conflicted.is_empty() {
            conflicted = (0..n)
                .filter(|&r| b.attacked(r))
                .map(|r| r as u32)
                .collect();
            if conflicted.is_empty() {
                // Collisions among presets only: cannot happen after the refutation.
                return Start::Stuck;
            }
        }
        let at = rng.below(conflicted.len());
        let i = conflicted[at] as usize;
        if b.pinned(i) || !b.attacked(i) {
            conflicted.swap_remove(at);
            continue;
        }
        since_gain += 1;
        for _ in 0..REPAIR_TRIES {
            let j = rng.below(n);
            if j == i || b.pinned(j) {
                continue;
            }
            let (ci, cj) = (b.col[i] as usize, b.col[j] as usize);
            if b.blocked(i, cj) || b.blocked(j, ci) {
                continue;
            }
            stats.tries += 1;
            let delta = b.swap(i, j);
            if delta < 0 {
                b.collisions = (b.collisions as i64 + delta) as u64;
                stats.swaps += 1;
                since_gain = 0;
                if b.attacked(j) {
                    conflicted.push(j as u32);
                }
                break;
            }
            b.swap(i, j);
        }
    }
    Start::Solved
}
