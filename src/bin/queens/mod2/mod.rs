//! `queens mod2 …`: the mod-2 game's commands, each one question to one of
//! [`queens::ops::mod2`]'s operations, run by the runner ([`crate::runner::run`]).

use std::io::Write;
use std::time::Instant;

use queens::formats::sources::{self, Selection};
use queens::games::mod2::format::{parse_moves, parse_strategy};
use queens::games::mod2::questions::Question;
use queens::ops::mod2::{
    self as op, Mod2CheckRequest, Mod2OptimumRequest, Mod2ReplayRequest, Mod2SolveRequest,
    Mod2SolveResponse,
};
use queens::ops::{self, Artifacts, Context, Instance};
use queens::{formats, Error};

use crate::budget::Isolate;
use crate::commands::question::common;
use crate::output::Failure;
use crate::runner::{run as ask, Common, Run};

pub(crate) use args::Mod2Command;
use args::{CheckArgs, MethodArg, OptimumArgs, ReplayArgs, SolveArgs, SolveMethodArg};
use text::print_progress;

mod args;
mod text;

pub(crate) fn run(
    out: &mut impl Write,
    command: Mod2Command,
    started: Instant,
) -> Result<u8, Failure> {
    match command {
        Mod2Command::Check(a) => ask(out, &a, started),
        Mod2Command::Replay(a) => ask(out, &a, started),
        Mod2Command::Solve(a) => ask(out, &a, started),
        Mod2Command::Max(a) => ask(out, &Optimum(Question::Max, &a), started),
        Mod2Command::MinLock(a) => ask(out, &Optimum(Question::MinLock, &a), started),
    }
}

impl Run for CheckArgs {
    type Op = ops::Mod2Check;

    fn common(&self) -> Common<'_> {
        common(Default::default(), self.json)
    }

    /// The board, refused here (naming FILE) when the game is not played on it.
    fn request(&self) -> Result<Mod2CheckRequest, Error> {
        let problem = sources::load_one(&self.file, &Selection::default())?.problem;
        let req = Mod2CheckRequest {
            instance: Instance(problem),
        };
        op::validate_check(&req, Some(&self.file.display().to_string()))?;
        Ok(req)
    }
}

impl Run for ReplayArgs {
    type Op = ops::Mod2Replay;

    fn common(&self) -> Common<'_> {
        common(Default::default(), self.json)
    }

    /// The move list or strategy FILE holds, read here first so that an error names the
    /// file and its line.
    fn request(&self) -> Result<Mod2ReplayRequest, Error> {
        let (origin, text) = formats::read_text(&self.file)?;
        if parse_strategy(&origin, None, &text)?.is_none() {
            parse_moves(&origin, None, &text)?;
        }
        let game = serde_json::from_str(&text)
            .map_err(|e| Error::internal_from("a move list that reads is no JSON value", e))?;
        Ok(Mod2ReplayRequest { game })
    }
}

impl Run for SolveArgs {
    type Op = ops::Mod2Solve;

    fn common(&self) -> Common<'_> {
        self.answer.common()
    }

    /// The search looks at the deadline itself: it runs here, as the sweep must to report
    /// its levels.
    fn isolate(&self) -> Isolate {
        Isolate::Never
    }

    fn request(&self) -> Result<Mod2SolveRequest, Error> {
        Ok(Mod2SolveRequest {
            n: self.n,
            variant: self.variant,
            reachable: self.reachable,
            method: match self.method {
                SolveMethodArg::Auto => op::SolveMethod::Auto,
                SolveMethodArg::Memo => op::SolveMethod::Memo,
                SolveMethodArg::Retrograde => op::SolveMethod::Retrograde,
            },
            threads: self.threads,
            strategy_plies: self.strategy_plies,
            checkpoint: self.checkpoint.clone(),
            resume: self.resume,
        })
    }

    /// A retrograde sweep prints a line on stderr as each level finishes.
    fn call(
        &self,
        req: &Mod2SolveRequest,
        ctx: &Context,
    ) -> Option<Result<Mod2SolveResponse, Error>> {
        Some(op::solve_with_progress(req, ctx, Some(&print_progress)))
    }

    /// `--strategy`: the winner's strategy, as a file `mod2 replay` checks.
    fn finish(&self, resp: &mut Mod2SolveResponse, _: &Artifacts) -> Result<Option<u8>, Failure> {
        let Some(path) = &self.strategy else {
            return Ok(None);
        };
        let Some(s) = &resp.strategy else {
            return Err(Error::unsupported(
                "--strategy: no strategy to write (the run stopped, --strategy-plies is 0, or \
                 the method is not retrograde)"
                    .into(),
            )
            .into());
        };
        let file = serde_json::json!({
            "n": resp.n,
            "variant": resp.variant,
            "strategy": s,
        });
        std::fs::write(path, format!("{file:#}\n")).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
        Ok(None)
    }
}

/// `mod2 max` and `mod2 min-lock`: the question and its arguments.
struct Optimum<'a>(Question, &'a OptimumArgs);

impl Run for Optimum<'_> {
    type Op = ops::Mod2Optimum;

    fn common(&self) -> Common<'_> {
        self.1.answer.common()
    }

    /// The question runs here; under a deadline its SAT calls run in children, killed at
    /// the deadline.
    fn isolate(&self) -> Isolate {
        match self.1.method {
            MethodArg::Sat => Isolate::Calls,
            MethodArg::Exhaustive => Isolate::Never,
        }
    }

    fn request(&self) -> Result<Mod2OptimumRequest, Error> {
        let args = self.1;
        Ok(Mod2OptimumRequest {
            n: args.n,
            question: self.0,
            method: match args.method {
                MethodArg::Sat => op::OptimumMethod::Sat,
                MethodArg::Exhaustive => op::OptimumMethod::Exhaustive,
            },
            encoding: args.encoding,
            symmetry: !args.no_symmetry,
            proof_dir: args.proof_dir.clone(),
        })
    }
}
