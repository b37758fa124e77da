//! `queens collection …`'s arguments: the commands, the seeded deals of `simulate` and
//! `study`, and the game's rules and lookahead.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use queens::games::collection::policy::{Lookahead, PolicyName};
use queens::games::collection::Difficulty;
use queens::games::collection::{DrawRule, Rules};
use queens::ops::collection::{self as op, SolveMethod};
use queens::Error;

use crate::args::Timeout;

#[derive(Subcommand)]
pub(crate) enum CollectionCommand {
    /// A seeded solo deal: the 8 boxes in circle order with their pawns, the hand and the
    /// pile (top first).
    Deal(DealArgs),
    /// Play a deal to the end: replay a move list (the first illegal move exits 2, naming
    /// its index and the rule it breaks), or let a policy play.
    Play(PlayArgs),
    /// Play N seeded deals with a policy on all cores: mean score, distribution, win rate.
    Simulate(SimulateArgs),
    /// The clairvoyant optimum: the best score with the whole pile order known, the moves
    /// that reach it, and whether no game scores more (exit 0 proven, 4 when the time limit
    /// ends the search first: the best game found and an upper bound).
    Solve(SolveArgs),
    /// Solve N seeded deals for their optimum (a time limit each) and play them with the
    /// greedy and lookahead policies: how much of a player's loss is luck, how much play.
    Study(StudyArgs),
}

/// `collection deal`'s arguments.
#[derive(Args)]
pub(crate) struct DealArgs {
    /// The deal's seed (the same seed gives the same deal everywhere).
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// The beginner side: boxes of 2 spaces, 2 pawns of each colour (12 in solo).
    #[arg(long)]
    pub(crate) beginner: bool,
    /// Take one card of each colour out of the game.
    #[arg(long)]
    pub(crate) remove_colour_cards: bool,
    /// Take K wilds out of the game (0..=3).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub(crate) remove_wilds: u8,
    /// Print the deal as JSON (what `play` reads) instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `collection play`'s arguments.
#[derive(Args)]
pub(crate) struct PlayArgs {
    /// The deal (JSON, as `deal --json` prints it), or - for stdin.
    pub(crate) deal: PathBuf,
    /// The moves: a JSON list, or the JSON `play` prints.
    #[arg(
        long,
        value_name = "MOVES.json",
        conflicts_with = "policy",
        required_unless_present = "policy"
    )]
    pub(crate) moves: Option<PathBuf>,
    /// random, greedy or lookahead.
    #[arg(long, value_parser = parse_policy)]
    pub(crate) policy: Option<PolicyName>,
    /// The policy's seed (default: the seed `simulate` gives deal 0's policy).
    #[arg(long, requires = "policy")]
    pub(crate) seed: Option<u64>,
    #[command(flatten)]
    pub(crate) played: PlayedArgs,
}

/// `collection simulate`'s arguments.
#[derive(Args)]
pub(crate) struct SimulateArgs {
    /// random, greedy or lookahead.
    #[arg(long, value_parser = parse_policy)]
    pub(crate) policy: PolicyName,
    #[command(flatten)]
    pub(crate) deals: DealsArgs,
    #[command(flatten)]
    pub(crate) jobs: JobsArg,
    /// Write the score histogram as SVG.
    #[arg(long, value_name = "F.svg")]
    pub(crate) plot: Option<PathBuf>,
    /// Stop after SECS seconds and report the deals played (exit 4).
    #[arg(long, value_name = "SECS")]
    pub(crate) timeout: Option<f64>,
    #[command(flatten)]
    pub(crate) played: PlayedArgs,
}

/// `collection solve`'s arguments.
#[derive(Args)]
pub(crate) struct SolveArgs {
    /// The deal (JSON, as `deal --json` prints it), or - for stdin.
    pub(crate) deal: PathBuf,
    /// Stop after SECS seconds with the best game found.
    #[arg(long, value_name = "SECS")]
    pub(crate) timeout: Option<f64>,
    /// Positions the search may remember (up to about 64 bytes each: the hash table doubles).
    #[arg(long, value_name = "N", default_value_t = op::DEFAULT_TABLE_ENTRIES)]
    pub(crate) max_entries: usize,
    /// The widest beam searched for a first game (64, 512, … ×8 up to N; 0 for none).
    #[arg(long, value_name = "N", default_value_t = op::DEFAULT_BEAM)]
    pub(crate) beam: usize,
    /// search (branch and bound) or sat (bounded planning with checked proofs; for
    /// small positions).
    #[arg(long, default_value = "search", value_parser = parse_method)]
    pub(crate) method: SolveMethod,
    /// A move must be able to draw all its cards.
    #[arg(long)]
    pub(crate) full_draws: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `collection study`'s arguments (the shared ones with `study`'s own words).
#[derive(Args)]
#[command(
    mut_arg("deals", |a| a.help("Deals")),
    mut_arg("difficulty", |a| a.help("normal, or beginner, colour-cards and wilds-K joined by +")),
    mut_arg("json", |a| a.help("Print one JSON object (with every deal's numbers) instead of text")),
)]
pub(crate) struct StudyArgs {
    #[command(flatten)]
    pub(crate) deals: DealsArgs,
    /// Seconds for each deal's optimum.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub(crate) timeout_each: f64,
    /// Positions each search may remember.
    #[arg(long, value_name = "N", default_value_t = op::DEFAULT_TABLE_ENTRIES)]
    pub(crate) max_entries: usize,
    #[command(flatten)]
    pub(crate) jobs: JobsArg,
    /// Stop the whole study after SECS seconds (exit 4).
    #[arg(long, value_name = "SECS")]
    pub(crate) timeout: Option<f64>,
    #[command(flatten)]
    pub(crate) played: PlayedArgs,
}

/// The seeded deals `simulate` and `study` play: how many, how hard, from which seed.
#[derive(Args)]
pub(crate) struct DealsArgs {
    /// Deals to play.
    #[arg(long, value_name = "N")]
    pub(crate) deals: u64,
    /// normal, or beginner, colour-cards and wilds-K (K = 1..3) joined by +, e.g.
    /// colour-cards+wilds-3.
    #[arg(long, default_value = "normal", value_parser = parse_difficulty)]
    pub(crate) difficulty: Difficulty,
    /// Deal i has seed SEED + i.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
}

/// `--jobs`: the threads that play the deals.
#[derive(Args)]
pub(crate) struct JobsArg {
    /// Threads (default: every core).
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..=64))]
    jobs: Option<u64>,
}

impl JobsArg {
    /// The threads asked for, or one per core.
    pub(super) fn get(&self) -> usize {
        self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |j| j as usize,
        )
    }
}

/// How the deals are played and the answer shown: the rules' readings, the lookahead's
/// budget and `--json` (`play`, `simulate` and `study`).
#[derive(Args)]
pub(crate) struct PlayedArgs {
    #[command(flatten)]
    pub(crate) game: GameArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `--timeout SECS` of a collection command, as the runner's limits (a value `seconds`
/// refuses is no limit here: the command's request refuses it first).
pub(super) fn timeout(secs: Option<f64>) -> Timeout {
    Timeout {
        timeout: secs.and_then(|s| seconds("--timeout", s).ok()),
        max_memory: None,
    }
}

/// A positive number of seconds given to `flag`.
pub(super) fn seconds(flag: &str, secs: f64) -> Result<Duration, Error> {
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            Error::unsupported(format!(
                "{flag}: `{secs}` is not a positive number of seconds"
            ))
        })
}

/// The rules: a move draws all its cards (`full_draws`), or the draw comes up short.
pub(super) fn rules(full_draws: bool) -> Rules {
    Rules {
        draw: if full_draws {
            DrawRule::Full
        } else {
            DrawRule::Short
        },
    }
}

/// The rules' readings and the lookahead budget, shared by `play`, `simulate` and `study`.
#[derive(Args)]
pub(crate) struct GameArgs {
    /// A move must be able to draw all its cards (default: the draw comes up short when the
    /// pile runs out, and the game ends).
    #[arg(long)]
    full_draws: bool,
    /// Lookahead: moves tried per turn (the best by the greedy key).
    #[arg(long, value_name = "K", default_value_t = Lookahead::default().candidates)]
    candidates: usize,
    /// Lookahead: determinisations of the unseen cards per turn.
    #[arg(long, value_name = "S", default_value_t = Lookahead::default().samples)]
    samples: usize,
}

impl GameArgs {
    pub(super) fn rules(&self) -> Rules {
        rules(self.full_draws)
    }

    pub(super) fn lookahead(&self) -> Lookahead {
        Lookahead {
            candidates: self.candidates,
            samples: self.samples,
        }
    }
}

fn parse_policy(s: &str) -> Result<PolicyName, String> {
    s.parse()
}

fn parse_method(s: &str) -> Result<SolveMethod, String> {
    s.parse()
}

fn parse_difficulty(s: &str) -> Result<Difficulty, String> {
    s.parse()
}
