//! Counting the empty classic board with the square's eight symmetries, by constellations.
//!
//! Every placement has exactly one queen on each border line (row 0, the last row, column 0,
//! the last column; a queen in a corner is on two of them). The symmetries of the square map
//! these border queens, the placement's *constellation*, along with the placement, so the
//! borders of one class have equally many placements: the count searches one border per
//! class and multiplies by the class size (8, 4 or 2), and never compares a placement with its
//! images. This is the decomposition of the Q27 project (Preußer and Engelhardt, TU Dresden,
//! "Putting Queens in Carry Chains, №27", 2017; explained at nqueens.de, "Search algorithm
//! using symmetry") as NQueensFAF (Pöschl and Lehmann) runs it on CPUs: the border queens
//! attack cells in every row from the start, which prunes the search of the middle from both
//! ends. Each class is searched in the orientation that puts its border queens nearest the
//! bottom-right corner, which measured best (about 40% fewer nodes than the opposite corner).
//!
//! The middle is searched row by row on bitboards (Richards 1997; Somers), skipping the
//! border queens' rows and looking two rows ahead. Its branches are hard to predict and each
//! step waits on the one before, so a thread runs two searches side by side as explicit
//! stacks advanced one queen per step without branches (see `constellation.rs`).
//!
//! The count up to rotation and reflection (A002562) follows from Burnside's lemma per class:
//! only a symmetry that fixes the border can fix one of its placements, and a reflection never
//! does (n ≥ 2), so a class's P placements fall into (P + F180 + 2·F90) / |stabiliser|
//! classes, where F180 and F90 count the placements the half and quarter turns fix. A small
//! search that places queens in pairs finds those, for the few borders the half turn fixes.
//!
//! The tasks are the classes in a fixed order that depends only on n and this code
//! ([`SCHEME`]): [`count_shard`] runs every `of`-th of them, so shards counted on different
//! machines add up to [`count`]. Within a run, threads take tasks by an atomic index.

mod constellation;
mod halt;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::config::{Config, Count, Stats};
use halt::Halt;

pub use constellation::MAX_N;

/// The name of the way the count is split into tasks: shards made by different schemes (or
/// for a different n) must not be added together.
pub const SCHEME: &str = "constellations-v1";

/// Counts the empty classic `n`×`n` board; `None` when n is outside the range this counter is
/// written for (the caller then falls back to the general search).
pub fn count(n: usize, config: &Config) -> Option<Count> {
    let s = count_shard(n, 0, 1, config)?;
    Some(Count {
        total: s.total,
        unique: (!s.stats.interrupted).then_some(s.unique),
        limited: false,
        stats: s.stats,
    })
}

/// One shard's part of the classic count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardCount {
    /// This shard's contribution to the total (A000170), class sizes applied. A lower bound
    /// if interrupted.
    pub total: u64,
    /// This shard's contribution to the count up to rotation and reflection (A002562);
    /// meaningless if interrupted.
    pub unique: u64,
    /// Tasks in this shard.
    pub tasks: u64,
    /// Tasks in the whole count.
    pub all_tasks: u64,
    /// Work done, and whether the deadline or stop flag cut it short.
    pub stats: Stats,
}

/// One shard of the classic count: shard `index` of `of` (0-based), taking every task t
/// with t % of == index (round-robin, so shards get similar work). Runs the shard's tasks on
/// `config.threads` like [`count`], which is the one shard of one. `None` when n is outside
/// 5..=[`MAX_N`] or `index >= of`.
pub fn count_shard(n: usize, index: usize, of: usize, config: &Config) -> Option<ShardCount> {
    if !(5..=MAX_N).contains(&n) || index >= of {
        return None;
    }
    let all = constellation::all(n);
    let all_tasks = all.len() as u64;
    let tasks: Vec<_> = all.into_iter().skip(index).step_by(of).collect();
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    };
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let interrupted = AtomicBool::new(false);
    let (total, unique, nodes) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    let report = |d: u64| {
        if let Some(p) = &config.progress {
            p(d, tasks.len() as u64);
        }
    };
    report(0);
    let halt = Halt {
        deadline: config.deadline,
        stop: config.stop.clone(),
    };
    std::thread::scope(|s| {
        for _ in 0..threads.min(tasks.len()) {
            s.spawn(|| {
                constellation::search(n, &tasks, &next, &halt, |_, t| {
                    if t.interrupted {
                        interrupted.store(true, Ordering::Relaxed);
                    }
                    total.fetch_add(t.total, Ordering::Relaxed);
                    unique.fetch_add(t.unique, Ordering::Relaxed);
                    nodes.fetch_add(t.nodes, Ordering::Relaxed);
                    if !t.interrupted {
                        report(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                })
            });
        }
    });
    Some(ShardCount {
        total: total.into_inner(),
        unique: unique.into_inner(),
        tasks: tasks.len() as u64,
        all_tasks,
        stats: Stats {
            nodes: nodes.into_inner(),
            interrupted: interrupted.into_inner(),
        },
    })
}

/// The number of placements distinct up to rotation and reflection, by comparing canonical
/// forms: slow but obviously right, used for n < 5 and as a test oracle for [`count`].
pub fn unique_by_canonical_form(n: usize, solutions: &[Vec<queens_model::model::Pos>]) -> u64 {
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

    #[test]
    fn shards_past_the_task_count_are_empty() {
        let tasks = count_shard(5, 0, 1, &Config::default()).unwrap().all_tasks;
        let of = 64;
        assert!(tasks < of as u64);
        let shards: Vec<_> = (0..of)
            .map(|i| count_shard(5, i, of, &Config::default()).unwrap())
            .collect();
        assert!(shards[tasks as usize..]
            .iter()
            .all(|s| s.tasks == 0 && s.total == 0 && s.unique == 0));
        assert_eq!(shards.iter().map(|s| s.total).sum::<u64>(), 10);
        assert_eq!(count_shard(5, of, of, &Config::default()), None);
    }

    /// 64 shards of a long count (n = 19) each get many tasks, so their work is alike.
    #[test]
    fn a_long_count_has_many_tasks() {
        assert!(constellation::all(19).len() > 64 * 50);
    }

    #[test]
    fn one_thread_and_two_count_the_same() {
        for n in [9, 12] {
            let one = count(
                n,
                &Config {
                    threads: 1,
                    ..Config::default()
                },
            )
            .unwrap();
            let two = count(
                n,
                &Config {
                    threads: 2,
                    ..Config::default()
                },
            )
            .unwrap();
            assert_eq!(one, two, "n = {n}");
        }
    }

    #[test]
    fn stop_flag_interrupts_every_thread() {
        let stop = std::sync::Arc::new(AtomicBool::new(true));
        let config = Config {
            stop: Some(stop),
            threads: 2,
            ..Config::default()
        };
        let start = std::time::Instant::now();
        let c = count(20, &config).unwrap();
        assert!(c.stats.interrupted && c.unique.is_none());
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
