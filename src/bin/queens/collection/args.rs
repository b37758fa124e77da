//! `queens collection …`'s arguments: the commands and the game's rules and lookahead.

use std::time::Duration;

use clap::Subcommand;

use queens::games::collection::policy::{Lookahead, PolicyName};
use queens::games::collection::Difficulty;
use queens::games::collection::{DrawRule, Rules};
use queens::ops::collection::{self as op, SolveMethod};
use queens::Error;
use std::path::PathBuf;

#[derive(Subcommand)]
pub(crate) enum CollectionCommand {
    /// A seeded solo deal: the 8 boxes in circle order with their pawns, the hand and the
    /// pile (top first).
    Deal {
        /// The deal's seed (the same seed gives the same deal everywhere).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The beginner side: boxes of 2 spaces, 2 pawns of each colour (12 in solo).
        #[arg(long)]
        beginner: bool,
        /// Take one card of each colour out of the game.
        #[arg(long)]
        remove_colour_cards: bool,
        /// Take K wilds out of the game (0..=3).
        #[arg(long, value_name = "K", default_value_t = 0)]
        remove_wilds: u8,
        /// Print the deal as JSON (what `play` reads) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play a deal to the end: replay a move list (the first illegal move exits 2, naming
    /// its index and the rule it breaks), or let a policy play.
    Play {
        /// The deal (JSON, as `deal --json` prints it), or - for stdin.
        deal: PathBuf,
        /// The moves: a JSON list, or the JSON `play` prints.
        #[arg(
            long,
            value_name = "MOVES.json",
            conflicts_with = "policy",
            required_unless_present = "policy"
        )]
        moves: Option<PathBuf>,
        /// random, greedy or lookahead.
        #[arg(long, value_parser = parse_policy)]
        policy: Option<PolicyName>,
        /// The policy's seed (default: the seed `simulate` gives deal 0's policy).
        #[arg(long, requires = "policy")]
        seed: Option<u64>,
        #[command(flatten)]
        game: GameArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play N seeded deals with a policy on all cores: mean score, distribution, win rate.
    Simulate {
        /// random, greedy or lookahead.
        #[arg(long, value_parser = parse_policy)]
        policy: PolicyName,
        /// Deals to play.
        #[arg(long, value_name = "N")]
        deals: u64,
        /// normal, or beginner, colour-cards and wilds-K (K = 1..3) joined by +, e.g.
        /// colour-cards+wilds-3.
        #[arg(long, default_value = "normal", value_parser = parse_difficulty)]
        difficulty: Difficulty,
        /// Deal i has seed SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Threads (default: every core).
        #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..=64))]
        jobs: Option<u64>,
        /// Write the score histogram as SVG.
        #[arg(long, value_name = "F.svg")]
        plot: Option<PathBuf>,
        /// Stop after SECS seconds and report the deals played (exit 4).
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        #[command(flatten)]
        game: GameArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The clairvoyant optimum: the best score with the whole pile order known, the moves
    /// that reach it, and whether no game scores more (exit 0 proven, 4 when the time limit
    /// ends the search first: the best game found and an upper bound).
    Solve {
        /// The deal (JSON, as `deal --json` prints it), or - for stdin.
        deal: PathBuf,
        /// Stop after SECS seconds with the best game found.
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        /// Positions the search may remember (up to about 64 bytes each: the hash table doubles).
        #[arg(long, value_name = "N", default_value_t = op::DEFAULT_TABLE_ENTRIES)]
        max_entries: usize,
        /// The widest beam searched for a first game (64, 512, … ×8 up to N; 0 for none).
        #[arg(long, value_name = "N", default_value_t = op::DEFAULT_BEAM)]
        beam: usize,
        /// search (branch and bound) or sat (bounded planning with checked proofs; for
        /// small positions).
        #[arg(long, default_value = "search", value_parser = parse_method)]
        method: SolveMethod,
        /// A move must be able to draw all its cards.
        #[arg(long)]
        full_draws: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Solve N seeded deals for their optimum (a time limit each) and play them with the
    /// greedy and lookahead policies: how much of a player's loss is luck, how much play.
    Study {
        /// Deals.
        #[arg(long, value_name = "N")]
        deals: u64,
        /// normal, or beginner, colour-cards and wilds-K joined by +.
        #[arg(long, default_value = "normal", value_parser = parse_difficulty)]
        difficulty: Difficulty,
        /// Deal i has seed SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Seconds for each deal's optimum.
        #[arg(long, value_name = "SECS", default_value_t = 10.0)]
        timeout_each: f64,
        /// Positions each search may remember.
        #[arg(long, value_name = "N", default_value_t = op::DEFAULT_TABLE_ENTRIES)]
        max_entries: usize,
        /// Threads (default: every core).
        #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..=64))]
        jobs: Option<u64>,
        /// Stop the whole study after SECS seconds (exit 4).
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        #[command(flatten)]
        game: GameArgs,
        /// Print one JSON object (with every deal's numbers) instead of text.
        #[arg(long)]
        json: bool,
    },
}

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

/// The rules' readings and the lookahead budget, shared by `play` and `simulate`.
#[derive(clap::Args)]
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
        Rules {
            draw: if self.full_draws {
                DrawRule::Full
            } else {
                DrawRule::Short
            },
        }
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
