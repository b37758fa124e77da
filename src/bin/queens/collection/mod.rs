//! `queens collection …`: The Queen's Collection, solo, each command one question to one of
//! [`queens::ops::collection`]'s operations, run by the runner ([`crate::runner::run`]).

use std::io::Write;
use std::time::Instant;

use queens::games::collection::{parse_deal, parse_moves, Difficulty};
use queens::ops::collection::{
    CollectionSolveRequest, DealRequest, PlayRequest, SimulateRequest, SimulateResponse,
    SolveMethod, StudyRequest,
};
use queens::ops::{self, Artifacts};
use queens::{formats, Error};

use crate::budget::Isolate;
use crate::commands::question::common;
use crate::output::Failure;
use crate::progress;
use crate::runner::{run as ask, Common, Run};

pub(crate) use args::CollectionCommand;
use args::{rules, seconds, timeout, DealArgs, PlayArgs, SimulateArgs, SolveArgs, StudyArgs};

mod args;
mod text;

pub(crate) fn run(
    out: &mut impl Write,
    command: CollectionCommand,
    started: Instant,
) -> Result<u8, Failure> {
    match command {
        CollectionCommand::Deal(a) => ask(out, &a, started),
        CollectionCommand::Play(a) => ask(out, &a, started),
        CollectionCommand::Simulate(a) => ask(out, &a, started),
        CollectionCommand::Solve(a) => ask(out, &a, started),
        CollectionCommand::Study(a) => ask(out, &a, started),
    }
}

impl Run for DealArgs {
    type Op = ops::CollectionDeal;

    fn common(&self) -> Common<'_> {
        common(Default::default(), self.json)
    }

    fn request(&self) -> Result<DealRequest, Error> {
        Ok(DealRequest {
            seed: self.seed,
            difficulty: Difficulty {
                beginner: self.beginner,
                remove_colour_cards: self.remove_colour_cards,
                remove_wilds: self.remove_wilds,
            },
        })
    }
}

impl Run for PlayArgs {
    type Op = ops::CollectionPlay;

    fn common(&self) -> Common<'_> {
        common(Default::default(), self.played.json)
    }

    fn request(&self) -> Result<PlayRequest, Error> {
        let game = &self.played.game;
        let (origin, text) = formats::read_text(&self.deal)?;
        let (deal, _) = parse_deal(&origin, &text, game.rules())?;
        let (moves, moves_origin) = match &self.moves {
            Some(path) => {
                let (origin, text) = formats::read_text(path)?;
                (Some(parse_moves(&origin, &text)?), Some(origin))
            }
            None => (None, None),
        };
        Ok(PlayRequest {
            deal,
            moves,
            policy: self.policy,
            seed: self.seed,
            lookahead: game.lookahead(),
            rules: game.rules(),
            moves_origin,
        })
    }
}

impl Run for SimulateArgs {
    type Op = ops::CollectionSimulate;

    fn common(&self) -> Common<'_> {
        common(timeout(self.timeout), self.played.json)
    }

    fn request(&self) -> Result<SimulateRequest, Error> {
        if let Some(secs) = self.timeout {
            seconds("--timeout", secs)?;
        }
        Ok(SimulateRequest {
            policy: self.policy,
            deals: self.deals.deals,
            difficulty: self.deals.difficulty,
            seed: self.deals.seed,
            jobs: Some(self.jobs.get()),
            lookahead: self.played.game.lookahead(),
            rules: self.played.game.rules(),
        })
    }

    fn progress(&self) -> Option<indicatif::ProgressBar> {
        let deals = &self.deals;
        progress::bar(&format!("{}, {}", self.policy, deals.difficulty), "deals")
    }

    /// `--plot`: the histogram of the final scores.
    fn finish(&self, resp: &mut SimulateResponse, _: &Artifacts) -> Result<Option<u8>, Failure> {
        let Some(path) = &self.plot else {
            return Ok(None);
        };
        let bars: Vec<(i32, u64)> = resp.histogram.iter().map(|(&k, &v)| (k, v)).collect();
        let title = format!(
            "{}, {}: {} deals, mean {:.2}, win rate {:.2}%",
            resp.policy,
            resp.difficulty,
            resp.deals,
            resp.mean,
            100.0 * resp.win_rate
        );
        queens::plot::histogram_svg(path, &title, "final score", "deals", &bars)?;
        Ok(None)
    }
}

impl Run for SolveArgs {
    type Op = ops::CollectionSolve;

    fn common(&self) -> Common<'_> {
        common(timeout(self.timeout), self.json)
    }

    /// The search looks at the deadline itself; varisat cannot be interrupted, so under a
    /// deadline each of sat's calls runs in a child, killed at the deadline.
    fn isolate(&self) -> Isolate {
        match self.method {
            SolveMethod::Sat => Isolate::Calls,
            _ => Isolate::Never,
        }
    }

    fn request(&self) -> Result<CollectionSolveRequest, Error> {
        let rules = rules(self.full_draws);
        let (origin, text) = formats::read_text(&self.deal)?;
        let (deal, _) = parse_deal(&origin, &text, rules)?;
        if let Some(secs) = self.timeout {
            seconds("--timeout", secs)?;
        }
        Ok(CollectionSolveRequest {
            deal,
            rules,
            max_entries: Some(self.max_entries),
            beam: Some(self.beam),
            method: self.method,
        })
    }

    fn progress(&self) -> Option<indicatif::ProgressBar> {
        progress::spinner("solving")
    }
}

impl Run for StudyArgs {
    type Op = ops::CollectionStudy;

    fn common(&self) -> Common<'_> {
        common(timeout(self.timeout), self.played.json)
    }

    fn request(&self) -> Result<StudyRequest, Error> {
        if let Some(secs) = self.timeout {
            seconds("--timeout", secs)?;
        }
        let each = seconds("--timeout-each", self.timeout_each)?;
        Ok(StudyRequest {
            deals: self.deals.deals,
            difficulty: self.deals.difficulty,
            seed: self.deals.seed,
            timeout_each_ms: each.as_millis().max(1) as u64,
            max_entries: Some(self.max_entries),
            jobs: Some(self.jobs.get()),
            lookahead: self.played.game.lookahead(),
            rules: self.played.game.rules(),
        })
    }

    fn progress(&self) -> Option<indicatif::ProgressBar> {
        progress::bar(&format!("optimum, {}", self.deals.difficulty), "deals")
    }
}
