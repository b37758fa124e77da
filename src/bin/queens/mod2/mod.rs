//! `queens mod2 …`: the mod-2 game's commands, as glue over [`queens::ops::mod2`].

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Subcommand, ValueEnum};

use queens::formats::sources::{self, Selection};
use queens::games::mod2::encode::Encoding;
use queens::games::mod2::questions::Question;
use queens::games::mod2::rules::Variant;
use queens::ops::mod2::{self as op};
use queens::ops::Context;
use queens::{formats, Error};

use crate::args::Timeout;
use crate::limits::Limits;
use crate::output::{to_json, Failure};

use text::{print_check, print_optimum, print_progress, print_replay, print_solve};

mod text;

#[derive(Subcommand)]
pub(crate) enum Mod2Command {
    /// A board's state (complete, locked, unlocked) and every empty square's value.
    Check {
        /// A board (text grid or JSON instance; queens are `Q`), or - for stdin.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Replay a move list ({"n": N, "moves": [[r,c], …]}, or the JSON of max/min-lock) and
    /// name its first illegal move; exit 1 if there is one or a claim in the file is false.
    Replay {
        /// The move list, or - for stdin.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Who wins with perfect play, with a winning first move; --reachable also counts the
    /// reachable positions and the game tree.
    Solve {
        /// Board size (1..=11; n ≤ 5 in seconds).
        #[arg(long)]
        n: usize,
        /// standard, alternate or complementary.
        #[arg(long, default_value = "standard", value_parser = parse_variant)]
        variant: Variant,
        /// Also count every reachable position (up to symmetry and in all) and the game tree.
        #[arg(long)]
        reachable: bool,
        /// auto (memo, retrograde for n = 6), memo, or retrograde (n ≤ 6: every set of
        /// queens, level by level, bitmaps; see docs/mod2-solver.md).
        #[arg(long, value_enum, default_value_t = SolveMethodArg::Auto)]
        method: SolveMethodArg,
        /// Retrograde: write each finished level into this folder (a run stopped or killed
        /// loses at most the level in progress).
        #[arg(long, value_name = "DIR")]
        checkpoint: Option<PathBuf>,
        /// Retrograde: continue the run whose checkpoints --checkpoint holds.
        #[arg(long, requires = "checkpoint")]
        resume: bool,
        /// Retrograde: worker threads (default: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Retrograde: plies of the winner's strategy to report (0..=5), rounded to end with
        /// the winner's move (odd for the first player, even for the second).
        #[arg(long, default_value_t = 3)]
        strategy_plies: usize,
        /// Retrograde: write the strategy as a file `mod2 replay` checks against every reply.
        #[arg(long, value_name = "FILE")]
        strategy: Option<PathBuf>,
        #[command(flatten)]
        timeout: Timeout,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The most queens on a reachable board, with its move order and a proof that no
    /// reachable board holds more.
    Max(OptimumArgs),
    /// The fewest queens on a reachable locked board, with its move order and a proof that
    /// none has fewer.
    MinLock(OptimumArgs),
}

#[derive(clap::Args)]
pub(crate) struct OptimumArgs {
    /// Board size.
    #[arg(long)]
    n: usize,
    /// sat (proofs of the bound) or exhaustive (every reachable position; n ≤ 5 in practice).
    #[arg(long, value_enum, default_value_t = MethodArg::Sat)]
    method: MethodArg,
    /// SAT encoding of reachability: rank (a layer per square) or plan (a board per step).
    #[arg(long, default_value = "rank", value_parser = parse_encoding)]
    encoding: Encoding,
    /// Leave out the lex-leader constraints of the board's 8 symmetries.
    #[arg(long)]
    no_symmetry: bool,
    /// Write every UNSAT call's CNF and LRAT proof into this folder.
    #[arg(long, value_name = "DIR")]
    proof_dir: Option<PathBuf>,
    #[command(flatten)]
    timeout: Timeout,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SolveMethodArg {
    /// Memoised search, the retrograde sweep for n = 6.
    Auto,
    /// Memoised search over positions up to symmetry.
    Memo,
    /// Retrograde sweep over every set of queens (n ≤ 6).
    Retrograde,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MethodArg {
    /// SAT calls, every UNSAT with a checked LRAT proof.
    Sat,
    /// Breadth-first over every reachable position, up to symmetry.
    Exhaustive,
}

fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse()
}

fn parse_encoding(s: &str) -> Result<Encoding, String> {
    s.parse()
}

pub(crate) fn run(
    out: &mut impl Write,
    command: Mod2Command,
    started: Instant,
) -> Result<u8, Failure> {
    match command {
        Mod2Command::Check { file, json } => {
            let problem = sources::load_one(&file, &Selection::default())?.problem;
            let req = op::Mod2CheckRequest {
                instance: queens::ops::Instance(problem),
            };
            let resp = op::check_instance(&req, Some(&file.display().to_string()))?;
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_check(out, &resp)?;
            }
            Ok(0)
        }
        Mod2Command::Replay { file, json } => {
            let (origin, text) = formats::read_text(&file)?;
            let resp = op::replay_text(&origin, &text)?;
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
                return Ok(resp.exit_code());
            }
            match &resp {
                op::ReplayAnswer::Strategy(r) => match &r.problem {
                    Some(p) => writeln!(out, "{}: {p}", r.status)?,
                    None => writeln!(
                        out,
                        "legal: the strategy answers every reply ({} game, n = {}): {} lines \
                         of up to {} moves, {} of them won within the strategy (that its \
                         positions are won is the solver's claim, not checked here)",
                        r.variant, r.n, r.lines, r.plies, r.won
                    )?,
                },
                op::ReplayAnswer::Moves(r) => print_replay(out, r)?,
            }
            Ok(resp.exit_code())
        }
        Mod2Command::Solve {
            n,
            variant,
            reachable,
            method,
            checkpoint,
            resume,
            threads,
            strategy_plies,
            strategy,
            timeout,
            json,
        } => {
            let ctx = context(started, timeout, false)?;
            let req = op::Mod2SolveRequest {
                n,
                variant,
                reachable,
                method: match method {
                    SolveMethodArg::Auto => op::SolveMethod::Auto,
                    SolveMethodArg::Memo => op::SolveMethod::Memo,
                    SolveMethodArg::Retrograde => op::SolveMethod::Retrograde,
                },
                threads,
                strategy_plies,
                checkpoint,
                resume,
            };
            let resp = op::solve_with_progress(&req, &ctx, Some(&print_progress))?;
            if let Some(path) = &strategy {
                let Some(s) = &resp.strategy else {
                    return Err(Error::unsupported(
                        "--strategy: no strategy to write (the run stopped, --strategy-plies \
                         is 0, or the method is not retrograde)"
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
            }
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_solve(out, &resp)?;
            }
            Ok(resp.exit_code())
        }
        Mod2Command::Max(args) => optimum(out, Question::Max, args, started),
        Mod2Command::MinLock(args) => optimum(out, Question::MinLock, args, started),
    }
}

/// The operations context of a mod2 command: its deadline and memory limit, and (for SAT
/// work under a deadline) this executable to run varisat in, killed at the deadline.
fn context(started: Instant, timeout: Timeout, sat: bool) -> Result<Context, Error> {
    let limits = Limits::new(started, timeout);
    let mut ctx = Context::default();
    ctx.budget.deadline = limits.deadline;
    ctx.budget.max_memory = Some(limits.max_memory);
    if sat && limits.deadline.is_some() {
        ctx.isolate = Some(std::env::current_exe().map_err(|e| Error::Io {
            path: "queens".into(),
            source: e,
        })?);
    }
    Ok(ctx)
}

fn optimum(
    out: &mut impl Write,
    question: Question,
    args: OptimumArgs,
    started: Instant,
) -> Result<u8, Failure> {
    let ctx = context(started, args.timeout, args.method == MethodArg::Sat)?;
    let method = match args.method {
        MethodArg::Sat => op::OptimumMethod::Sat,
        MethodArg::Exhaustive => op::OptimumMethod::Exhaustive,
    };
    let resp = op::optimum(
        &op::Mod2OptimumRequest {
            n: args.n,
            question,
            method,
            encoding: args.encoding,
            symmetry: !args.no_symmetry,
            proof_dir: args.proof_dir,
        },
        &ctx,
    )?;
    if args.json {
        writeln!(out, "{}", to_json(&resp)?)?;
    } else {
        print_optimum(out, &resp)?;
    }
    Ok(op::optimum_exit_code(&resp))
}
