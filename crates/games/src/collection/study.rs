//! How much of a player's loss is bad luck and how much is play: seeded deals solved for
//! their clairvoyant optimum ([`super::solve`]) within a time limit each, and played by the
//! blind policies on the same deals.
//!
//! Deal `i` of a study with seed `s` is [`super::deal::deal`]`(s + i)` and each policy plays
//! it with the seed [`super::simulate::policy_seed`] gives, so the policies' games are the
//! ones `simulate` plays and any deal can be replayed with `collection deal --seed`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::deal::{deal, Difficulty};
use super::policy::{play_until, Lookahead, PolicyName};
use super::rules::Rules;
use super::simulate::{each_deal, policy_seed};
use super::solve::{optimum, Limits};
use queens_model::error::Error;

/// What to study.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The difficulty of every deal.
    pub difficulty: Difficulty,
    /// The readings the games are played under.
    pub rules: Rules,
    /// Deals.
    pub deals: u64,
    /// The first deal's seed.
    pub seed: u64,
    /// Time for each deal's optimum.
    pub timeout: Duration,
    /// Positions each search may remember.
    pub max_entries: usize,
    /// The lookahead policy's budget.
    pub lookahead: Lookahead,
    /// Threads.
    pub jobs: usize,
}

/// One deal's numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct DealResult {
    /// The deal's seed.
    pub seed: u64,
    /// The best score found with the pile known.
    pub optimum: i32,
    /// True when no game scores more.
    pub proven: bool,
    /// No game scores more than this.
    pub upper_bound: i32,
    /// The greedy policy's score.
    pub greedy: i32,
    /// The lookahead policy's score.
    pub lookahead: i32,
    /// Milliseconds the optimum took.
    pub solve_ms: u64,
    /// Positions searched.
    pub nodes: u64,
}

/// Plays and solves `cfg.deals` deals on `cfg.jobs` threads, in seed order in the answer.
/// `progress(done, total)` is called as deals finish; `stop()` ends the study between deals
/// (and the running searches, whose deals are then left out).
pub fn study(
    cfg: &Config,
    progress: &(dyn Fn(u64, u64) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<DealResult>, Error> {
    let mut all = each_deal(cfg.jobs, cfg.deals, progress, stop, |i| {
        one(cfg, cfg.seed.wrapping_add(i), stop)
    })?;
    all.sort_by_key(|r| r.seed);
    Ok(all)
}

fn one(
    cfg: &Config,
    seed: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<DealResult>, Error> {
    let start = deal(seed, &cfg.difficulty)
        .to_state(cfg.rules)
        .map_err(|e| Error::internal(format!("deal {seed} does not read back: {e}")))?;
    // Asked before each move: a lookahead move plays thousands of games.
    let score_of = |name: PolicyName| -> Result<Option<i32>, Error> {
        let mut p = name.build(policy_seed(seed), cfg.lookahead);
        let game = play_until(&start, p.as_mut(), stop)
            .map_err(|e| Error::internal(format!("the {name} policy broke a rule: {e}")))?;
        Ok(game.end.is_over().then(|| game.end.score()))
    };
    let (Some(greedy), Some(lookahead)) = (
        score_of(PolicyName::Greedy)?,
        score_of(PolicyName::Lookahead)?,
    ) else {
        return Ok(None);
    };
    let began = Instant::now();
    let limits = Limits {
        deadline: began.checked_add(cfg.timeout),
        max_entries: cfg.max_entries,
        ..Limits::default()
    };
    let best = optimum(&start, limits, stop)?;
    if stop() {
        return Ok(None);
    }
    Ok(Some(DealResult {
        seed,
        optimum: best.score,
        proven: best.proven,
        upper_bound: best.upper_bound,
        greedy,
        lookahead,
        solve_ms: began.elapsed().as_millis() as u64,
        nodes: best.nodes,
    }))
}

/// A study's summary.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Summary {
    /// Deals studied.
    pub deals: u64,
    /// Deals whose optimum is proven.
    pub proven: u64,
    /// The difficulty's highest score.
    pub max_score: i32,
    /// Deals whose optimum is the highest score (won with the pile known).
    pub winnable: u64,
    /// Proven optima by score (`{"<score>": deals}`).
    pub optimum_histogram: BTreeMap<i32, u64>,
    /// Deals not proven, by best score found.
    pub unproven_histogram: BTreeMap<i32, u64>,
    /// Mean of the best scores found (a lower bound of the mean optimum).
    pub mean_optimum: f64,
    /// Mean of the upper bounds (the mean optimum lies between the two).
    pub mean_upper_bound: f64,
    /// The greedy policy's mean on the same deals.
    pub mean_greedy: f64,
    /// The lookahead policy's mean on the same deals.
    pub mean_lookahead: f64,
    /// Deals the lookahead policy won.
    pub lookahead_wins: u64,
    /// The mean points the lookahead policy is short of the highest score, split into the part
    /// no player could have avoided (highest score − optimum: luck) and the part lost in play
    /// (optimum − lookahead). Where an optimum is not proven it lies between the best score
    /// found and the upper bound, so the split is a range.
    pub loss: Loss,
    /// Median and slowest solve, milliseconds.
    pub median_ms: u64,
    /// The slowest solve, milliseconds.
    pub max_ms: u64,
}

/// The lookahead policy's loss split into luck and play (means over every deal).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Loss {
    /// Mean highest score − lookahead's score.
    pub total: f64,
    /// Mean highest score − optimum: at least (with the upper bounds) …
    pub luck_low: f64,
    /// … and at most (with the best scores found).
    pub luck_high: f64,
    /// Mean optimum − lookahead's score: at least (with the best scores found) …
    pub play_low: f64,
    /// … and at most (with the upper bounds).
    pub play_high: f64,
}

/// The summary of `results`.
pub fn summarise(results: &[DealResult], max_score: i32) -> Summary {
    let n = results.len().max(1) as f64;
    let mean =
        |f: &dyn Fn(&DealResult) -> i32| results.iter().map(|r| f64::from(f(r))).sum::<f64>() / n;
    let proven = results.iter().filter(|r| r.proven).count();
    let mut optimum_histogram = BTreeMap::new();
    let mut unproven_histogram = BTreeMap::new();
    for r in results {
        let h = if r.proven {
            &mut optimum_histogram
        } else {
            &mut unproven_histogram
        };
        *h.entry(r.optimum).or_default() += 1;
    }
    let mut times: Vec<u64> = results.iter().map(|r| r.solve_ms).collect();
    times.sort_unstable();
    Summary {
        deals: results.len() as u64,
        proven: proven as u64,
        max_score,
        winnable: results.iter().filter(|r| r.optimum == max_score).count() as u64,
        optimum_histogram,
        unproven_histogram,
        mean_optimum: mean(&|r| r.optimum),
        mean_upper_bound: mean(&|r| r.upper_bound),
        mean_greedy: mean(&|r| r.greedy),
        mean_lookahead: mean(&|r| r.lookahead),
        lookahead_wins: results.iter().filter(|r| r.lookahead == max_score).count() as u64,
        loss: Loss {
            total: mean(&|r| max_score - r.lookahead),
            luck_low: mean(&|r| max_score - r.upper_bound),
            luck_high: mean(&|r| max_score - r.optimum),
            play_low: mean(&|r| r.optimum - r.lookahead),
            play_high: mean(&|r| r.upper_bound - r.lookahead),
        },
        median_ms: times.get(times.len() / 2).copied().unwrap_or(0),
        max_ms: times.last().copied().unwrap_or(0),
    }
}
