//! Many seeded deals played by one policy on all cores: the mean score, the distribution
//! and the win rate.
//!
//! Deal `i` of a run with seed `s` is [`super::deal::deal`]`(s + i)`, played by the policy
//! seeded from that deal's seed, so a run's numbers do not depend on the number of threads,
//! and any one game can be replayed with `queens collection deal --seed` and `play`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::deal::{deal, Difficulty};
use super::policy::{play_until, Lookahead, PolicyName};
use super::rules::{IllegalMove, Rules, Status};
use queens_model::rng::Rng;

/// What to simulate.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The policy.
    pub policy: PolicyName,
    /// The lookahead policy's budget (ignored by the others).
    pub lookahead: Lookahead,
    /// The difficulty of every deal.
    pub difficulty: Difficulty,
    /// The readings the games are played under.
    pub rules: Rules,
    /// Deals to play.
    pub deals: u64,
    /// The first deal's seed; deal `i` has seed `seed + i`.
    pub seed: u64,
    /// Threads (at least 1).
    pub jobs: usize,
}

/// The seed of the policy that plays the deal of seed `deal_seed` (a SplitMix64 step away
/// from it, so the policy's draws and the deal's are not the same stream).
pub fn policy_seed(deal_seed: u64) -> u64 {
    Rng::new(deal_seed ^ 0x5eed_c011_ec71_0000).next_u64()
}

/// A run's counts; the summary's numbers (mean, win rate, …) are its methods.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Deals played (fewer than asked when the run was stopped).
    pub deals: u64,
    /// Deals won: every pawn on its colour's box, which is the highest score the
    /// difficulty allows (24; 16 on the beginner side).
    pub wins: u64,
    /// The final scores added up.
    pub score_sum: i64,
    /// The turns of every game added up.
    pub turns_sum: u64,
    /// Deals by final score.
    pub histogram: BTreeMap<i32, u64>,
}

impl Tally {
    /// `x` per deal played (0 when none was).
    fn per_deal(&self, x: f64) -> f64 {
        if self.deals == 0 {
            0.0
        } else {
            x / self.deals as f64
        }
    }

    /// Mean final score.
    pub fn mean(&self) -> f64 {
        self.per_deal(self.score_sum as f64)
    }

    /// Share of deals won.
    pub fn win_rate(&self) -> f64 {
        self.per_deal(self.wins as f64)
    }

    /// Mean turns a game lasted.
    pub fn mean_turns(&self) -> f64 {
        self.per_deal(self.turns_sum as f64)
    }

    /// Lowest final score seen.
    pub fn min(&self) -> Option<i32> {
        self.histogram.keys().next().copied()
    }

    /// Highest final score seen.
    pub fn max(&self) -> Option<i32> {
        self.histogram.keys().next_back().copied()
    }
}

/// Plays one deal: its seed, final score, turns and whether every pawn got home.
pub fn play_one(cfg: &Config, deal_seed: u64) -> Result<(i32, usize, bool), IllegalMove> {
    Ok(play_one_until(cfg, deal_seed, &|| false)?.expect("never stopped"))
}

/// [`play_one`], asking `stop()` before each move (a lookahead move plays thousands of
/// games): `None` when it stopped the deal.
fn play_one_until(
    cfg: &Config,
    deal_seed: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Option<(i32, usize, bool)>, IllegalMove> {
    let start = deal(deal_seed, &cfg.difficulty)
        .to_state(cfg.rules)
        .expect("a generated deal is valid");
    let mut policy = cfg.policy.build(policy_seed(deal_seed), cfg.lookahead);
    let game = play_until(&start, policy.as_mut(), stop)?;
    if !game.end.is_over() {
        return Ok(None);
    }
    Ok(Some((
        game.end.score(),
        game.moves.len(),
        game.end.status() == Status::Sorted,
    )))
}

/// Plays `cfg.deals` deals on `cfg.jobs` threads. `progress(done, total)` is called as deals
/// finish; `stop()` is asked between deals and ends the run early (the tally then covers
/// the deals played). A policy's illegal move (a bug) ends the run with that move.
pub fn simulate(
    cfg: &Config,
    progress: &(dyn Fn(u64, u64) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Tally, IllegalMove> {
    let games = each_deal(cfg.jobs, cfg.deals, progress, stop, |i| {
        play_one_until(cfg, cfg.seed.wrapping_add(i), stop)
    })?;
    let mut t = Tally::default();
    for (score, turns, won) in games {
        t.deals += 1;
        t.wins += u64::from(won);
        t.score_sum += i64::from(score);
        t.turns_sum += turns as u64;
        *t.histogram.entry(score).or_default() += 1;
    }
    Ok(t)
}

/// Runs `play(i)` for the deals `i` in `0..deals` on `jobs` threads and returns the answers
/// of the deals played, in no particular order. `progress(done, deals)` is called as deals
/// finish; `stop()` is asked between deals; a deal that `play` leaves unfinished (`None`:
/// stopped within it) is left out and ends its thread; the first error ends the run.
pub(super) fn each_deal<T: Send, E: Send>(
    jobs: usize,
    deals: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    play: impl Fn(u64) -> Result<Option<T>, E> + Sync,
) -> Result<Vec<T>, E> {
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let answers: Mutex<Vec<T>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<E>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                if stop() || failure.lock().is_ok_and(|f| f.is_some()) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= deals {
                    break;
                }
                match play(i) {
                    Ok(Some(answer)) => {
                        if let Ok(mut all) = answers.lock() {
                            all.push(answer);
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        if let Ok(mut f) = failure.lock() {
                            f.get_or_insert(e);
                        }
                        break;
                    }
                }
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                progress(d, deals);
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    Ok(answers.into_inner().unwrap_or_default())
}
