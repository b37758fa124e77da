//! Shards: how a run too big for one machine is cut into pieces that a scheduler (a Slurm
//! array, a Kubernetes Indexed Job, or N local processes) runs independently, and that
//! [`crate::merge`] puts back together.
//!
//! Two kinds of work are cut:
//! - a corpus of instances (`queens batch`): instance k goes to the shard its content hash
//!   names ([`content_hash`], [`Shard::owns`]), so a shard re-run, on any machine, gets the
//!   same set whatever the order or the other files given;
//! - one count (`queens count --shard`): the search tree is cut into subproblems, a fixed
//!   list that depends only on the instance ([`split`]), dealt round-robin to the shards.
//!   Each subproblem is the instance with a few more fixed queens, counted by the general
//!   engine, so the sum over shards is the instance's count by the same argument the
//!   property tests hold to brute force (every solution has exactly one queen in each row).
//!   The empty classic board is cut by the symmetric counter's own tasks instead
//!   ([`queens_engine::backtrack::symmetric::count_shard`]), which keeps its 8-fold speed.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use queens_engine::backtrack::symmetric;
use queens_engine::{Budget, EngineSpec, Work};
use queens_model::error::Error;
use queens_model::model::{Diagonal, Pos, Problem};

/// Shard `index` of `of` (0-based), written `i/N` on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Shard {
    /// Which shard, 0 ≤ index < of.
    pub index: usize,
    /// How many shards the work is cut into.
    pub of: usize,
}

impl Shard {
    /// The whole work as one shard.
    pub const ALL: Shard = Shard { index: 0, of: 1 };

    /// `index`/`of`, checked.
    pub fn new(index: usize, of: usize) -> Result<Shard, String> {
        if of == 0 {
            return Err("the number of shards must be at least 1".into());
        }
        if index >= of {
            return Err(format!(
                "shard {index} of {of} does not exist: shards are numbered 0 to {} \
                 (a Slurm array or Kubernetes index counts from 0 too)",
                of - 1
            ));
        }
        Ok(Shard { index, of })
    }

    /// Whether the instance with this content hash belongs to this shard.
    pub fn owns(self, hash: &str) -> bool {
        hash_number(hash) % self.of as u64 == self.index as u64
    }

    /// Whether subproblem `k` of a count belongs to this shard (round-robin, so the shards
    /// of one count get similar work).
    pub fn owns_part(self, k: usize) -> bool {
        k % self.of == self.index
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("expected INDEX/COUNT like 3/64 (0-based), got `{text}`");
        let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let i = i.trim().parse().map_err(|_| bad())?;
        let n = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n)
    }
}

/// What a count shard's answer carries so that `queens merge` can put the shards of one
/// count together, and refuse shards of different counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ShardInfo {
    /// Which shard, from 0.
    pub index: usize,
    /// Shards the count is cut into.
    pub of: usize,
    /// How the search tree was cut into subproblems: the split's scheme, so that shards cut
    /// differently are never summed.
    pub scheme: String,
    /// The content hash of the instance counted (128 bits of SHA-256, in hex).
    pub instance: String,
    /// Subproblems in this shard.
    pub tasks: u64,
    /// Subproblems in the whole count.
    pub all_tasks: u64,
    /// Subproblems of this shard counted to their end: all `tasks` of a finished shard,
    /// fewer in one stopped early (status `cancelled` or `timeout`).
    pub finished: u64,
}

/// Length, in hex digits, of [`content_hash`] (128 bits of SHA-256).
pub const HASH_HEX: usize = 32;

/// A stable hash of what an instance asks: board size, diagonal rule, the region partition
/// (by which cells share a region, not by the names), fixed queens, blocked cells and
/// excluded diagonals, as 32 hex digits of SHA-256. The id, the file it came from, the order
/// of its lists and a player's marks do not change it, so one instance read from two files,
/// or on two machines, has one hash.
pub fn content_hash(problem: &Problem) -> String {
    let n = problem.n();
    let mut text = format!("queens-instance-v1\nn {n}\nrule {}\n", problem.rule());
    if let Some(g) = problem.regions() {
        // Number regions by first appearance in row-major order: same partition, same text.
        let mut seen: Vec<Option<usize>> = vec![None; g.names().len()];
        let mut next = 0;
        text.push_str("regions");
        for r in 0..n {
            for c in 0..n {
                let id = g.id((r, c));
                let k = *seen[id].get_or_insert_with(|| {
                    next += 1;
                    next - 1
                });
                text.push_str(&format!(" {k}"));
            }
        }
        text.push('\n');
    }
    let cells = |name: &str, cells: &[Pos], text: &mut String| {
        text.push_str(name);
        for &(r, c) in cells {
            text.push_str(&format!(" {r},{c}"));
        }
        text.push('\n');
    };
    cells("fixed", problem.fixed(), &mut text);
    cells("blocked", problem.blocked(), &mut text);
    text.push_str("excluded");
    for &d in problem.excluded() {
        text.push_str(&match d {
            Diagonal::Sum(k) => format!(" s{k}"),
            Diagonal::Diff(k) => format!(" d{k}"),
        });
    }
    text.push('\n');
    hash_text(&text)
}

/// The first [`HASH_HEX`] hex digits of the SHA-256 of `text`.
pub fn hash_text(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest[..HASH_HEX / 2]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The number a hash stands for when it is dealt to shards: its first 16 hex digits. A
/// string that is not hex (an input error's id hash is still hex; this is a guard) maps
/// through its own SHA-256.
fn hash_number(hash: &str) -> u64 {
    match hash.get(..16).and_then(|h| u64::from_str_radix(h, 16).ok()) {
        Some(x) => x,
        None => hash_number(&hash_text(hash)),
    }
}

/// How a count was cut: the scheme's name and the subproblems, in their fixed order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Names the way of cutting; shards cut differently are never merged.
    pub scheme: String,
    /// Each subproblem's extra fixed queens.
    pub parts: Vec<Vec<Pos>>,
}

/// Subproblems the general split aims for (fewer when the rows run out): enough that 64
/// shards each get 16 or more, and that the cores of one shard finish together. Each costs
/// a search set-up (about 0.1 ms), nothing beside the hours a count worth sharding takes.
pub const TARGET_PARTS: usize = 1024;

/// Most cells the subproblems of the general split may hold together.
const MAX_SPLIT_CELLS: usize = 1 << 22;

/// Cuts an instance's solutions into subproblems: row by row from the top (rows with a
/// fixed queen are skipped), one subproblem per open cell of the row that no queen placed
/// so far attacks, until there are [`TARGET_PARTS`]. Every solution has exactly one queen in
/// each row, so it extends exactly one subproblem: the counts of the subproblems add up to
/// the instance's. Depends only on the instance.
pub fn split(problem: &Problem) -> Split {
    let n = problem.n();
    let fixed = problem.fixed();
    let mut parts: Vec<Vec<Pos>> = vec![Vec::new()];
    let mut rows = 0;
    for r in 0..n {
        if parts.len() >= TARGET_PARTS || parts.len() * (rows + 1) * n > MAX_SPLIT_CELLS {
            break;
        }
        if fixed.iter().any(|q| q.0 == r) {
            continue;
        }
        let mut next = Vec::new();
        for part in &parts {
            for c in 0..n {
                let cell = (r, c);
                if problem.is_open(cell)
                    && !fixed
                        .iter()
                        .chain(part)
                        .any(|&q| q == cell || problem.attacks(q, cell))
                {
                    let mut deeper = part.clone();
                    deeper.push(cell);
                    next.push(deeper);
                }
            }
        }
        parts = next;
        rows += 1;
        if parts.is_empty() {
            break;
        }
    }
    Split {
        scheme: format!("rows-v1:{rows}"),
        parts,
    }
}

/// What one shard of a count found.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardCounted {
    /// This shard's part of the count.
    pub count: u64,
    /// This shard's part of the count up to symmetry (the empty classic board's split).
    pub unique: Option<u64>,
    /// How the count was cut (see [`Split::scheme`]).
    pub scheme: String,
    /// Subproblems in this shard.
    pub tasks: u64,
    /// Subproblems in the whole count.
    pub all_tasks: u64,
    /// True when the budget ran out first: the count is then only a lower bound.
    pub interrupted: bool,
    /// Subproblems counted to their end.
    pub finished: u64,
    /// Work done.
    pub work: Work,
}

/// Counts shard `shard` of the instance's solutions with `spec` (no limit: a partial count
/// of a shard could not be merged). The empty classic board with the backtracker uses the
/// symmetric counter's tasks; anything else, and the SAT engine, the general [`split`],
/// whose subproblems run on all cores (one engine thread each).
pub fn count(
    problem: &Problem,
    shard: Shard,
    spec: EngineSpec,
    budget: &Budget,
) -> Result<ShardCounted, Error> {
    let start = std::time::Instant::now();
    if let Some(threads) = spec.plain_backtracker_threads() {
        if problem.is_empty_classic() {
            // The counter's progress reports are the tasks it finished.
            let finished = std::sync::Arc::new(AtomicU64::new(0));
            let seen = std::sync::Arc::clone(&finished);
            let outer = budget.progress.clone();
            let counted = Budget {
                progress: Some(std::sync::Arc::new(move |done, total| {
                    seen.fetch_max(done, Ordering::Relaxed);
                    if let Some(p) = &outer {
                        p(done, total);
                    }
                })),
                ..budget.clone()
            };
            let config = queens_engine::backtrack::Config::within(&counted, threads);
            if let Some(c) = symmetric::count_shard(problem.n(), shard.index, shard.of, &config) {
                return Ok(ShardCounted {
                    count: c.total,
                    unique: (!c.stats.interrupted).then_some(c.unique),
                    scheme: symmetric::SCHEME.to_string(),
                    tasks: c.tasks,
                    all_tasks: c.all_tasks,
                    interrupted: c.stats.interrupted,
                    finished: if c.stats.interrupted {
                        finished.load(Ordering::Relaxed)
                    } else {
                        c.tasks
                    },
                    work: Work {
                        nodes: Some(c.stats.nodes),
                        time_ms: queens_engine::ms(start),
                        ..Work::default()
                    },
                });
            }
        }
    }
    let split = split(problem);
    let mine: Vec<&Vec<Pos>> = split
        .parts
        .iter()
        .enumerate()
        .filter(|&(k, _)| shard.owns_part(k))
        .map(|(_, p)| p)
        .collect();
    let inner = spec.with_threads(1);
    let threads = match spec.fields().threads {
        Some(t @ 1..) => t,
        _ => std::thread::available_parallelism().map_or(1, |t| t.get()),
    };
    // The engine reports no progress of its own here: a subproblem is the unit.
    let quiet = Budget {
        progress: None,
        ..budget.clone()
    };
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    let total = AtomicU64::new(0);
    let nodes = AtomicU64::new(0);
    let interrupted = std::sync::atomic::AtomicBool::new(false);
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let report = |d: u64| {
        if let Some(p) = &budget.progress {
            p(d, mine.len() as u64);
        }
    };
    report(0);
    std::thread::scope(|s| {
        for _ in 0..threads.min(mine.len()).max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(part) = mine.get(k) else { break };
                if interrupted.load(Ordering::Relaxed) || quiet.exhausted() {
                    interrupted.store(true, Ordering::Relaxed);
                    break;
                }
                let counted = problem
                    .clone()
                    .with_fixed(part)
                    .and_then(|sub| queens_engine::count(&sub, inner, None, &quiet));
                match counted {
                    Ok(c) => {
                        total.fetch_add(c.count, Ordering::Relaxed);
                        nodes.fetch_add(c.work.nodes.unwrap_or(0), Ordering::Relaxed);
                        if c.interrupted {
                            interrupted.store(true, Ordering::Relaxed);
                            break;
                        }
                        report(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                    Err(e) => {
                        failure.lock().expect("no panic holds it").get_or_insert(e);
                        interrupted.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("no panic holds it") {
        return Err(e);
    }
    Ok(ShardCounted {
        count: total.into_inner(),
        unique: None,
        scheme: split.scheme,
        tasks: mine.len() as u64,
        all_tasks: split.parts.len() as u64,
        interrupted: interrupted.into_inner(),
        finished: done.into_inner(),
        work: Work {
            nodes: spec.counts_nodes().then(|| nodes.into_inner()),
            time_ms: queens_engine::ms(start),
            ..Work::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_text_round_trips_and_bad_ones_are_refused() {
        let s: Shard = "3/64".parse().unwrap();
        assert_eq!(s, Shard { index: 3, of: 64 });
        assert_eq!(s.to_string(), "3/64");
        for bad in ["64/64", "1/0", "3", "a/4", "-1/4", "1/4/5"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn hash_ignores_names_order_and_marks_but_not_content() {
        let a =
            queens_model::formats::parse("a", r#"{"n": 8, "queens": [[1, 3], [4, 3]]}"#).unwrap();
        let b = queens_model::formats::parse(
            "b",
            r#"{"id": "other", "n": 8, "queens": [[4, 3], [1, 3]], "marks": [[0, 0]]}"#,
        )
        .unwrap();
        let c =
            queens_model::formats::parse("c", r#"{"n": 8, "queens": [[1, 3], [4, 2]]}"#).unwrap();
        assert_eq!(content_hash(&a), content_hash(&b));
        assert_ne!(content_hash(&a), content_hash(&c));
        assert_eq!(content_hash(&a).len(), HASH_HEX);
        let r1 = queens_model::formats::parse("r", "AAB\nACB\nCCB\n").unwrap();
        let r2 = queens_model::formats::parse("r", "xxy\nxzy\nzzy\n").unwrap();
        assert_eq!(content_hash(&r1), content_hash(&r2));
        // Pinned: a change here moves instances between shards of runs already made.
        assert_eq!(
            content_hash(&Problem::new(8).unwrap()),
            hash_text("queens-instance-v1\nn 8\nrule full\nfixed\nblocked\nexcluded\n")
        );
    }

    #[test]
    fn every_instance_is_in_exactly_one_shard() {
        for of in [1, 2, 7, 64] {
            for k in 0..200 {
                let h = hash_text(&k.to_string());
                let owners = (0..of).filter(|&i| Shard::new(i, of).unwrap().owns(&h));
                assert_eq!(owners.count(), 1);
            }
        }
    }
}
