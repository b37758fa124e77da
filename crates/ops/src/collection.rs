//! The Queen's Collection's operations ([`queens_games::collection`]): deal, play a deal
//! (a move list or a policy), simulate a policy over many deals, solve a deal for its
//! clairvoyant optimum, and study optima against the policies over many deals. The CLI prints these
//! responses; the service sends them as they are.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Artifacts, Context};
use crate::operation::Bound;
use queens_games::collection::deal::{deal as deal_of, Difficulty};
use queens_games::collection::policy::{self, Lookahead, PolicyName};
use queens_games::collection::simulate::{self, policy_seed};
use queens_games::collection::{plan, solve, study};
use queens_games::collection::{Deal, Move, Rules, State, Status};
use queens_model::error::Error;
use queens_model::status::Status as Outcome;

/// Most deals one simulation request may ask for.
pub const MAX_SIMULATE_DEALS: u64 = 10_000_000;

/// Most deals a synchronous simulation may ask for (the service's `/v1/collection/simulate`;
/// a job may ask for more). 10,000 greedy deals take about 0.5 s on one core; lookahead ones
/// about 500 times as long, so the deadline may end the run first (`status: timeout`).
pub const MAX_SYNC_SIMULATE_DEALS: u64 = 10_000;

/// Most threads one simulation may use.
pub const MAX_JOBS: usize = 64;

/// Largest lookahead budget a request may ask for, per move.
pub const MAX_LOOKAHEAD: Lookahead = Lookahead {
    candidates: 64,
    samples: 1024,
};

/// `collection_deal`'s request.
#[derive(Clone, Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DealRequest {
    /// The deal's seed (default 0): the same seed gives the same deal everywhere.
    #[serde(default)]
    pub seed: u64,
    /// The difficulty (default normal).
    #[serde(default)]
    pub difficulty: Difficulty,
}

/// A seeded solo deal.
pub fn deal(req: &DealRequest, _ctx: &Context) -> Result<Deal, Error> {
    req.difficulty
        .validate()
        .map_err(|e| Error::unsupported_at_field("difficulty.remove_wilds", e))?;
    Ok(deal_of(req.seed, &req.difficulty))
}

/// `collection_play`'s request: a deal and either its moves or a policy to play it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    /// The deal (or any position) to play from.
    pub deal: Deal,
    /// The moves to replay; the first illegal one is an error naming its index and rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<Move>>,
    /// The policy to play with, when no moves are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyName>,
    /// The policy's seed (default: the one `simulate` gives a deal of seed 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The lookahead policy's budget per move.
    #[serde(default)]
    pub lookahead: Lookahead,
    /// The readings of the rules the game is played under.
    #[serde(default)]
    pub rules: Rules,
    /// Where the moves came from, for error messages (default `moves`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves_origin: Option<String>,
}

/// `collection_play`'s answer: the moves made, the final score, the turns played and how the game
/// stands (`sorted`, `pile-empty`, or `playing` when a replayed list stops early or the
/// deadline stopped a policy).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct PlayResponse {
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// The final score.
    pub score: i32,
    /// Turns played.
    pub turns: usize,
    /// `sorted`, `pile-empty`, or `playing`.
    pub status: Status,
}

fn validate_lookahead(l: &Lookahead) -> Result<(), Error> {
    if l.candidates == 0 || l.candidates > MAX_LOOKAHEAD.candidates {
        return Err(Error::unsupported_at_field(
            "lookahead.candidates",
            format!(
                "1 to {} moves, not {}",
                MAX_LOOKAHEAD.candidates, l.candidates
            ),
        ));
    }
    if l.samples > MAX_LOOKAHEAD.samples {
        return Err(Error::unsupported_at_field(
            "lookahead.samples",
            format!(
                "0 to {} determinisations, not {}",
                MAX_LOOKAHEAD.samples, l.samples
            ),
        ));
    }
    Ok(())
}

impl PlayRequest {
    /// Checks the options against each other before any work.
    pub fn validate(&self) -> Result<(), Error> {
        match (&self.moves, &self.policy) {
            (Some(_), Some(_)) => Err(Error::unsupported_at_field(
                "policy",
                "give moves or a policy, not both",
            )),
            (None, None) => Err(Error::unsupported_at_field(
                "moves",
                "give the moves to replay, or a policy to play",
            )),
            _ => validate_lookahead(&self.lookahead),
        }?;
        // The deal itself, so that a bad one is refused before the request waits for a worker.
        self.start().map(|_| ())
    }

    fn start(&self) -> Result<State, Error> {
        self.deal
            .to_state(self.rules)
            .map_err(|e| Error::input_at_field("request", format!("deal.{}", e.field), e.message))
    }
}

/// Plays a deal: replays the given moves (every one checked; the first illegal one is an
/// [`Error::Input`] naming its index and the rule it breaks), or plays it to the end with a
/// policy (whose every move is checked the same way). A policy stopped by the context's
/// deadline or cancel flag leaves the game `playing`, with the moves it made.
pub fn play(req: &PlayRequest, ctx: &Context) -> Result<PlayResponse, Error> {
    req.validate()?;
    let start = req.start()?;
    let (moves, end) = match (&req.moves, req.policy) {
        (Some(moves), _) => {
            let end = queens_games::collection::replay(&start, moves).map_err(|e| {
                let origin = req.moves_origin.as_deref().unwrap_or("moves");
                Error::input_at_field(origin, format!("moves[{}]", e.index), &e)
            })?;
            (moves.clone(), end)
        }
        (None, Some(name)) => {
            let mut p = name.build(req.seed.unwrap_or(policy_seed(0)), req.lookahead);
            let game = policy::play_until(&start, p.as_mut(), &|| ctx.budget.exhausted()).map_err(
                |e| Error::internal(format!("the {name} policy made an illegal move: {e}")),
            )?;
            (game.moves, game.end)
        }
        (None, None) => unreachable!("validated"),
    };
    Ok(PlayResponse {
        score: end.score(),
        turns: moves.len(),
        status: end.status(),
        moves,
    })
}

/// `collection_simulate`'s request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SimulateRequest {
    /// The policy.
    pub policy: PolicyName,
    /// Deals to play, 1..=10,000,000 (10,000 on the synchronous endpoint).
    pub deals: u64,
    /// The difficulty of every deal (default normal).
    #[serde(default)]
    pub difficulty: Difficulty,
    /// Deal `i` has seed `seed + i` (default 0).
    #[serde(default)]
    pub seed: u64,
    /// Threads, 1..=64 (default 1: a service worker is one thread; the CLI asks for every
    /// core).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<usize>,
    /// The lookahead policy's budget per move.
    #[serde(default)]
    pub lookahead: Lookahead,
    /// The readings of the rules the games are played under.
    #[serde(default)]
    pub rules: Rules,
}

impl SimulateRequest {
    /// Checks the request against the limits before any work.
    pub fn validate(&self) -> Result<(), Error> {
        if !(1..=MAX_SIMULATE_DEALS).contains(&self.deals) {
            return Err(Error::too_large_at_field(
                "deals",
                format!("1 to {MAX_SIMULATE_DEALS} deals, not {}", self.deals),
            ));
        }
        if let Some(j) = self.jobs.filter(|j| !(1..=MAX_JOBS).contains(j)) {
            return Err(Error::unsupported_at_field(
                "jobs",
                format!("1 to {MAX_JOBS} threads, not {j}"),
            ));
        }
        self.difficulty
            .validate()
            .map_err(|e| Error::unsupported_at_field("difficulty.remove_wilds", e))?;
        validate_lookahead(&self.lookahead)
    }
}

/// `ok` when the work ran to its end, else why it stopped (`cancelled`, `timeout`).
fn finished(done: bool, ctx: &Context) -> Outcome {
    if done {
        Outcome::Ok
    } else {
        Outcome::interrupted(&ctx.budget)
    }
}

/// `collection_simulate`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct SimulateResponse {
    /// The policy.
    pub policy: PolicyName,
    /// The difficulty's name (`normal`, `beginner`, `colour-cards`, `wilds-2`, joined by `+`).
    pub difficulty: String,
    /// Deals played (fewer than `requested` when the run was stopped).
    pub deals: u64,
    /// Deals asked for.
    pub requested: u64,
    /// Mean final score.
    pub mean: f64,
    /// Share of deals won: every pawn home, the difficulty's highest score.
    pub win_rate: f64,
    /// Deals won.
    pub wins: u64,
    /// The difficulty's highest score (24; 16 on the beginner side): a win.
    pub max_score: i32,
    /// Lowest final score.
    pub min: Option<i32>,
    /// Highest final score.
    pub max: Option<i32>,
    /// Mean turns per game.
    pub mean_turns: f64,
    /// Deals by final score (`{"<score>": count}`).
    pub histogram: BTreeMap<i32, u64>,
    /// The first deal's seed.
    pub seed: u64,
    /// Threads used.
    pub jobs: usize,
    /// The lookahead budget (lookahead only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lookahead: Option<Lookahead>,
    /// `ok`, or `timeout` / `cancelled` when the budget ended the run early.
    pub status: Outcome,
    /// Milliseconds.
    pub time_ms: f64,
}

impl SimulateResponse {
    /// 0 when every deal was played, 4 when the budget ended the run early.
    pub fn exit_code(&self) -> u8 {
        self.status.exit_code()
    }
}

/// Plays `deals` seeded deals with a policy on `jobs` threads (default 1), reporting progress
/// through the context and stopping between deals at its deadline or cancel flag.
pub fn simulate(req: &SimulateRequest, ctx: &Context) -> Result<SimulateResponse, Error> {
    req.validate()?;
    let start = Instant::now();
    let jobs = req.jobs.unwrap_or(1);
    let cfg = simulate::Config {
        policy: req.policy,
        lookahead: req.lookahead,
        difficulty: req.difficulty,
        rules: req.rules,
        deals: req.deals,
        seed: req.seed,
        jobs,
    };
    let progress = |done: u64, total: u64| {
        if let Some(p) = &ctx.budget.progress {
            p(done, total);
        }
    };
    let tally = simulate::simulate(&cfg, &progress, &|| ctx.budget.exhausted()).map_err(|e| {
        Error::internal(format!(
            "the {} policy made an illegal move: {e}",
            req.policy
        ))
    })?;
    Ok(SimulateResponse {
        policy: req.policy,
        difficulty: req.difficulty.name(),
        deals: tally.deals,
        requested: req.deals,
        mean: tally.mean(),
        win_rate: tally.win_rate(),
        wins: tally.wins,
        max_score: req.difficulty.max_score(),
        min: tally.min(),
        max: tally.max(),
        mean_turns: tally.mean_turns(),
        histogram: tally.histogram,
        seed: req.seed,
        jobs,
        lookahead: (req.policy == PolicyName::Lookahead).then_some(req.lookahead),
        status: finished(tally.deals == req.deals, ctx),
        time_ms: ms(start),
    })
}

/// Most positions one optimum search may remember (up to about 64 bytes each: the hash table doubles).
pub const MAX_TABLE_ENTRIES: usize = 50_000_000;

/// Default positions an optimum search may remember: up to about 256 MB.
pub const DEFAULT_TABLE_ENTRIES: usize = 4_000_000;

/// Default widest beam of an optimum search.
pub const DEFAULT_BEAM: usize = 4096;

/// Widest beam a request may ask for (about 380 MB of beam levels).
pub const MAX_BEAM: usize = 65_536;

/// Bytes a beam keeps per position a turn: a position, a move and a parent index on each of
/// up to 36 levels, and the candidates of the level being built.
pub const BEAM_BYTES: u64 = 6_000;

/// Most deals one study may ask for.
pub const MAX_STUDY_DEALS: u64 = 1_000_000;

/// Most deals a synchronous study may ask for (the service's `/v1/collection/study`; a job
/// may ask for more).
pub const MAX_SYNC_STUDY_DEALS: u64 = 100;

/// Bytes a transposition-table entry takes, with the hash table's overhead (for the memory
/// estimate).
pub const TABLE_ENTRY_BYTES: u64 = 64;

/// `collection_solve`'s request: a deal (or any position) whose whole pile is known.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
// Named apart from the puzzle operations' `CollectionSolveRequest` in the OpenAPI document.
#[schema(as = CollectionSolveRequest)]
pub struct CollectionSolveRequest {
    /// The deal, pile included.
    pub deal: Deal,
    /// The readings of the rules.
    #[serde(default)]
    pub rules: Rules,
    /// Positions the search may remember (default 4,000,000; at most 50,000,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<usize>,
    /// The widest beam searched for a first game before the exact search (64, 512, 4,096, …
    /// ×8 up to this; default 4,096, at most 65,536, 0 for none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beam: Option<usize>,
    /// `search` (branch and bound, the default) or `sat` (bounded planning, every refuted
    /// bound with a checked proof; for small positions).
    #[serde(default)]
    pub method: SolveMethod,
}

/// How `collection_solve` finds the optimum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SolveMethod {
    /// Branch and bound ([`queens_games::collection::solve`]).
    #[default]
    Search,
    /// Bounded planning by SAT ([`queens_games::collection::plan`]).
    Sat,
}

impl SolveMethod {
    /// The name the CLI and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            SolveMethod::Search => "search",
            SolveMethod::Sat => "sat",
        }
    }
}

impl std::str::FromStr for SolveMethod {
    type Err = String;

    fn from_str(s: &str) -> Result<SolveMethod, String> {
        match s {
            "search" => Ok(SolveMethod::Search),
            "sat" => Ok(SolveMethod::Sat),
            _ => Err(format!("unknown method `{s}`, expected search or sat")),
        }
    }
}

/// `collection_solve`'s answer: the best game with the pile known, and whether it is proven best.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(as = CollectionSolveResponse)]
pub struct CollectionSolveResponse {
    /// The moves of the best game found, replayed to `score`.
    pub moves: Vec<Move>,
    /// Its final score.
    pub score: i32,
    /// Turns it lasts.
    pub turns: usize,
    /// How it ends: `sorted` or `pile-empty`.
    pub status: Status,
    /// True when no game scores more.
    pub proven: bool,
    /// No game scores more than this (`score` when proven).
    pub upper_bound: i32,
    /// The highest score of a board with these pawns (24 in the normal solo game).
    pub max_score: i32,
    /// `search` or `sat`.
    pub method: &'static str,
    /// Positions searched (`search`).
    pub nodes: u64,
    /// SAT calls made (`sat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sat_calls: Option<usize>,
    /// Variables and clauses of the last formula (`sat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub formula: Option<[usize; 2]>,
    /// `ok`, or `timeout` / `cancelled` when the budget ended the search (the answer is then
    /// the best game found, not proven).
    pub budget: Outcome,
    /// Milliseconds.
    pub time_ms: f64,
}

impl CollectionSolveResponse {
    /// 0 for a proven optimum, 4 when the budget ended the search first.
    pub fn exit_code(&self) -> u8 {
        if self.proven {
            0
        } else {
            4
        }
    }
}

fn validate_entries(field: &str, n: Option<usize>) -> Result<usize, Error> {
    let n = n.unwrap_or(DEFAULT_TABLE_ENTRIES);
    if n == 0 {
        return Err(Error::unsupported_at_field(
            field,
            "the search remembers at least 1 position",
        ));
    }
    if n > MAX_TABLE_ENTRIES {
        return Err(Error::too_large_at_field(
            field,
            format!("1 to {MAX_TABLE_ENTRIES} positions, not {n}"),
        ));
    }
    Ok(n)
}

/// Refuses a table (times `searches` at once) whose estimate is over the budget's memory.
fn check_memory(
    ctx: &Context,
    field: &str,
    entries: usize,
    beam: usize,
    searches: usize,
) -> Result<(), Error> {
    let need = (entries as u64 * TABLE_ENTRY_BYTES + beam as u64 * BEAM_BYTES) * searches as u64;
    match ctx.budget.max_memory {
        Some(max) if need > max => Err(Error::too_large_at_field(
            field,
            format!(
                "{entries} positions and a beam of {beam} need about {} MB ({searches} \
                 search{} at once), over the memory limit of {} MB",
                need / 1_000_000,
                if searches == 1 { "" } else { "es" },
                max / 1_000_000
            ),
        )),
        _ => Ok(()),
    }
}

fn validate_beam(beam: Option<usize>) -> Result<(), Error> {
    match beam {
        Some(b) if b > MAX_BEAM => Err(Error::too_large_at_field(
            "beam",
            format!("at most {MAX_BEAM} positions a turn, not {b}"),
        )),
        _ => Ok(()),
    }
}

impl CollectionSolveRequest {
    /// Checks the request against the limits before any work.
    pub fn validate(&self) -> Result<(), Error> {
        validate_entries("max_entries", self.max_entries)?;
        validate_beam(self.beam)?;
        // The deal itself, so that a bad one is refused before the request waits for a worker.
        self.deal
            .to_state(self.rules)
            .map(|_| ())
            .map_err(|e| Error::input_at_field("request", format!("deal.{}", e.field), e.message))
    }
}

/// The clairvoyant optimum of a deal ([`queens_games::collection::solve`]): the best score
/// with the whole pile known, its moves (replayed before they are returned), and whether it
/// is proven. The context's deadline or cancel flag ends the search with the best game found.
pub fn optimum(
    req: &CollectionSolveRequest,
    ctx: &Context,
) -> Result<CollectionSolveResponse, Error> {
    let max_entries = validate_entries("max_entries", req.max_entries)?;
    validate_beam(req.beam)?;
    check_memory(
        ctx,
        "max_entries",
        max_entries,
        req.beam.unwrap_or(DEFAULT_BEAM),
        1,
    )?;
    let start = req
        .deal
        .to_state(req.rules)
        .map_err(|e| Error::input_at_field("request", format!("deal.{}", e.field), e.message))?;
    let began = Instant::now();
    if req.method == SolveMethod::Sat {
        let runner = super::solve_cnf::runner(ctx);
        let sat = runner.as_ref().map(|r| r as queens_engine::formula::Runner);
        let best = plan::optimum(&start, ctx.budget.deadline, sat)?;
        let end = queens_games::collection::replay(&start, &best.moves)
            .map_err(|e| Error::internal_from("the SAT plan does not replay", e))?;
        let max_score = start.board().max_score();
        return Ok(CollectionSolveResponse {
            turns: best.moves.len(),
            moves: best.moves,
            score: best.score,
            status: end.status(),
            proven: best.proven,
            upper_bound: if best.proven { best.score } else { max_score },
            max_score,
            method: "sat",
            nodes: 0,
            sat_calls: Some(best.calls),
            formula: Some([best.vars, best.clauses]),
            budget: finished(best.proven, ctx),
            time_ms: ms(began),
        });
    }
    let limits = solve::Limits {
        deadline: ctx.budget.deadline,
        max_entries,
        beam: req.beam.unwrap_or(DEFAULT_BEAM),
    };
    let best = solve::optimum(&start, limits, &|| ctx.budget.cancelled())?;
    let budget = finished(best.proven, ctx);
    Ok(CollectionSolveResponse {
        turns: best.moves.len(),
        moves: best.moves,
        score: best.score,
        status: best.status,
        proven: best.proven,
        upper_bound: best.upper_bound,
        max_score: start.board().max_score(),
        method: "search",
        nodes: best.nodes,
        sat_calls: None,
        formula: None,
        budget,
        time_ms: ms(began),
    })
}

/// `collection_study`'s request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StudyRequest {
    /// Deals, 1..=1,000,000.
    pub deals: u64,
    /// The difficulty of every deal (default normal).
    #[serde(default)]
    pub difficulty: Difficulty,
    /// Deal `i` has seed `seed + i` (default 0).
    #[serde(default)]
    pub seed: u64,
    /// Milliseconds for each deal's optimum (default 10,000).
    #[serde(default = "default_study_ms")]
    pub timeout_each_ms: u64,
    /// Positions each search may remember (default 4,000,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_entries: Option<usize>,
    /// Threads, 1..=64 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jobs: Option<usize>,
    /// The lookahead policy's budget per move.
    #[serde(default)]
    pub lookahead: Lookahead,
    /// The readings of the rules.
    #[serde(default)]
    pub rules: Rules,
}

fn default_study_ms() -> u64 {
    10_000
}

/// `collection_study`'s answer: the summary and every deal's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct StudyResponse {
    /// The difficulty's name.
    pub difficulty: String,
    /// Deals asked for.
    pub requested: u64,
    /// The first deal's seed.
    pub seed: u64,
    /// Milliseconds each optimum had.
    pub timeout_each_ms: u64,
    /// Threads used.
    pub jobs: usize,
    /// The summary.
    pub summary: study::Summary,
    /// Each deal, in seed order.
    pub results: Vec<study::DealResult>,
    /// `ok`, or `timeout` / `cancelled` when the budget ended the study early.
    pub status: Outcome,
    /// Milliseconds.
    pub time_ms: f64,
}

impl StudyResponse {
    /// 0 when every deal was studied, 4 when the budget ended the study early.
    pub fn exit_code(&self) -> u8 {
        self.status.exit_code()
    }
}

impl StudyRequest {
    /// Checks the request against the limits before any work.
    pub fn validate(&self) -> Result<(), Error> {
        self.checked().map(|_| ())
    }

    /// The threads and table size, checked.
    fn checked(&self) -> Result<(usize, usize), Error> {
        let req = self;
        if !(1..=MAX_STUDY_DEALS).contains(&req.deals) {
            return Err(Error::too_large_at_field(
                "deals",
                format!("1 to {MAX_STUDY_DEALS} deals, not {}", req.deals),
            ));
        }
        if !(1..=MAX_TIMEOUT_EACH_MS).contains(&req.timeout_each_ms) {
            return Err(Error::unsupported_at_field(
                "timeout_each_ms",
                format!("1 to 3600000 milliseconds, not {}", req.timeout_each_ms),
            ));
        }
        let jobs = req.jobs.unwrap_or(1);
        if !(1..=MAX_JOBS).contains(&jobs) {
            return Err(Error::unsupported_at_field(
                "jobs",
                format!("1 to {MAX_JOBS} threads, not {jobs}"),
            ));
        }
        let max_entries = validate_entries("max_entries", req.max_entries)?;
        req.difficulty
            .validate()
            .map_err(|e| Error::unsupported_at_field("difficulty.remove_wilds", e))?;
        validate_lookahead(&req.lookahead)?;
        Ok((jobs, max_entries))
    }
}

/// Solves and plays `deals` seeded deals ([`queens_games::collection::study`]) on `jobs`
/// threads (default 1), reporting progress through the context.
pub fn study(req: &StudyRequest, ctx: &Context) -> Result<StudyResponse, Error> {
    let (jobs, max_entries) = req.checked()?;
    check_memory(ctx, "max_entries", max_entries, DEFAULT_BEAM, jobs)?;
    let began = Instant::now();
    let cfg = study::Config {
        difficulty: req.difficulty,
        rules: req.rules,
        deals: req.deals,
        seed: req.seed,
        timeout: std::time::Duration::from_millis(req.timeout_each_ms),
        max_entries,
        lookahead: req.lookahead,
        jobs,
    };
    let progress = |done: u64, total: u64| {
        if let Some(p) = &ctx.budget.progress {
            p(done, total);
        }
    };
    let results = study::study(&cfg, &progress, &|| ctx.budget.exhausted())?;
    let status = finished(results.len() as u64 == req.deals, ctx);
    Ok(StudyResponse {
        difficulty: req.difficulty.name(),
        requested: req.deals,
        seed: req.seed,
        timeout_each_ms: req.timeout_each_ms,
        jobs,
        summary: study::summarise(&results, req.difficulty.max_score()),
        results,
        status,
        time_ms: ms(began),
    })
}

/// An operation's answer, with no artifacts beside it.
fn alone<T>(answer: Result<T, Error>) -> Result<(T, Artifacts), Error> {
    answer.map(|a| (a, Artifacts::default()))
}

/// The bounds of an operation that plays many seeded deals: its deals (at most `sync_max`
/// on the synchronous endpoint), its threads and its lookahead budget.
const fn many_deals(max: u64, sync_max: u64) -> [Bound; 4] {
    [
        Bound::new("deals", 1, max).sync_max(sync_max),
        Bound::new("jobs", 1, MAX_JOBS as u64),
        LOOKAHEAD_BOUNDS[0],
        LOOKAHEAD_BOUNDS[1],
    ]
}

/// Why `deals` is too many for operation `O`'s synchronous endpoint (`what`: what that
/// endpoint does with them), if it is.
fn over_sync<O: crate::operation::Bounded>(deals: u64, what: &str) -> Option<String> {
    let max = O::BOUNDS
        .iter()
        .find(|b| b.field == "deals")
        .and_then(|b| b.sync_max)?;
    (deals > max).then(|| {
        format!(
            "{deals} deals is over the {max} {what}: submit it as a job (POST /v1/jobs with \
             \"op\": \"{}\")",
            O::NAME
        )
    })
}

/// The operation `$op` that plays many seeded deals: `$run` answers its request with a
/// response that has a `status`; the request's `deals` over the synchronous endpoint's bound
/// make it a job (`$what`: what that endpoint does with them); then its name, endpoint,
/// summary and bounds.
macro_rules! many_deals_operation {
    ($op:ident($req:ty) -> $resp:ty = $run:ident, $what:literal;
     $name:literal, $path:literal, $summary:expr, $bounds:expr) => {
        impl crate::operation::Operation for $op {
            const NAME: &'static str = $name;
            type Request = $req;
            type Response = $resp;

            fn run(req: &$req, ctx: &Context) -> Result<($resp, Artifacts), Error> {
                alone($run(req, ctx))
            }
            fn validate(req: &$req) -> Result<(), Error> {
                req.validate()
            }
        }

        impl crate::operation::Served for $op {
            const PATH: &'static str = $path;
            const SUMMARY: &'static str = $summary;
        }

        impl crate::operation::Bounded for $op {
            const BOUNDS: &'static [Bound] = $bounds;
            const BOUND_FIELD: &'static str = "deals";
            fn unbounded(req: &$req, _n: usize) -> Option<String> {
                over_sync::<Self>(req.deals, $what)
            }
        }

        impl crate::operation::Budgeted for $op {
            fn status(resp: &$resp) -> Outcome {
                resp.status
            }
        }

        impl crate::operation::Library for $op {}
    };
}

/// `collection_deal`.
pub struct CollectionDeal;

impl crate::operation::Operation for CollectionDeal {
    const NAME: &'static str = "collection_deal";
    type Request = DealRequest;
    type Response = Deal;

    fn run(req: &DealRequest, ctx: &Context) -> Result<(Deal, Artifacts), Error> {
        alone(deal(req, ctx))
    }
    fn validate(req: &DealRequest) -> Result<(), Error> {
        req.difficulty
            .validate()
            .map_err(|e| Error::unsupported_at_field("difficulty.remove_wilds", e))
    }
}

impl crate::operation::Served for CollectionDeal {
    const PATH: &'static str = "/v1/collection/deal";
    const SUMMARY: &'static str =
        "A seeded solo deal of The Queen's Collection (`{\"seed\", \"difficulty\"}`).";
}

impl crate::operation::Library for CollectionDeal {}

/// `collection_play`. Play checks no deadline but is bounded (35 turns).
pub struct CollectionPlay;

impl crate::operation::Operation for CollectionPlay {
    const NAME: &'static str = "collection_play";
    type Request = PlayRequest;
    type Response = PlayResponse;

    fn run(req: &PlayRequest, ctx: &Context) -> Result<(PlayResponse, Artifacts), Error> {
        alone(play(req, ctx))
    }
    fn validate(req: &PlayRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for CollectionPlay {
    const PATH: &'static str = "/v1/collection/play";
    const SUMMARY: &'static str = "Play a deal with a move list (the first illegal move is a \
                                   422 naming its index and rule)\nor a policy.";
}

impl crate::operation::Library for CollectionPlay {}

impl crate::operation::Bounded for CollectionPlay {
    const BOUNDS: &'static [Bound] = &LOOKAHEAD_BOUNDS;
}

/// The longest time a study may give each deal's optimum: an hour, in milliseconds.
pub const MAX_TIMEOUT_EACH_MS: u64 = 3_600_000;

/// The lookahead budget's bounds, in every request that plays with a policy.
const LOOKAHEAD_BOUNDS: [Bound; 2] = [
    Bound::new("lookahead.candidates", 1, MAX_LOOKAHEAD.candidates as u64),
    Bound::new("lookahead.samples", 0, MAX_LOOKAHEAD.samples as u64),
];

/// `collection_simulate`: stops between deals.
pub struct CollectionSimulate;

many_deals_operation! {
    CollectionSimulate(SimulateRequest) -> SimulateResponse = simulate,
    "a synchronous simulation plays";
    "collection_simulate",
    "/v1/collection/simulate",
    "Play seeded deals with a policy: mean, win rate, histogram. At most 10,000 deals \
     here\n(more as a job); the server's time limit may end the run first (`status: timeout`).",
    &many_deals(MAX_SIMULATE_DEALS, MAX_SYNC_SIMULATE_DEALS)
}

/// `collection_solve`. The optimum's search looks at the deadline every 4096 positions; its
/// SAT method runs each solver call in a child of the context's executable itself.
pub struct CollectionSolve;

impl crate::operation::Operation for CollectionSolve {
    const NAME: &'static str = "collection_solve";
    type Request = CollectionSolveRequest;
    type Response = CollectionSolveResponse;

    fn run(
        req: &CollectionSolveRequest,
        ctx: &Context,
    ) -> Result<(CollectionSolveResponse, Artifacts), Error> {
        alone(optimum(req, ctx))
    }
    fn validate(req: &CollectionSolveRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for CollectionSolve {
    const PATH: &'static str = "/v1/collection/solve";
    const SUMMARY: &'static str = "The clairvoyant optimum of a deal whose whole pile is known: \
                                   the best game, its score,\nand whether no game scores more \
                                   (`proven`); the server's time limit may end the search\nfirst \
                                   (`budget: timeout`, the best game found and an upper bound).";
}

impl crate::operation::Library for CollectionSolve {}

impl crate::operation::Bounded for CollectionSolve {
    const BOUNDS: &'static [Bound] = &[
        Bound::new("max_entries", 1, MAX_TABLE_ENTRIES as u64),
        Bound::new("beam", 0, MAX_BEAM as u64),
    ];
}

impl crate::operation::Budgeted for CollectionSolve {
    // `budget` is `ok` exactly when the optimum is proven: its exit code is the answer's.
    fn status(resp: &CollectionSolveResponse) -> Outcome {
        resp.budget
    }
}

/// `collection_study`.
pub struct CollectionStudy;

many_deals_operation! {
    CollectionStudy(StudyRequest) -> StudyResponse = study,
    "a synchronous study solves";
    "collection_study",
    "/v1/collection/study",
    "Optima against the policies' scores on seeded deals: how much of a player's loss is \
     luck\nand how much play. At most 100 deals here (more as a job).",
    &{
        let [deals, jobs, candidates, samples] = many_deals(MAX_STUDY_DEALS, MAX_SYNC_STUDY_DEALS);
        [
            deals,
            jobs,
            candidates,
            samples,
            Bound::new("timeout_each_ms", 1, MAX_TIMEOUT_EACH_MS),
            Bound::new("max_entries", 1, MAX_TABLE_ENTRIES as u64),
        ]
    }
}
