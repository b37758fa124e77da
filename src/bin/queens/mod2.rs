//! `queens mod2 …`: the mod-2 game's commands, as glue over [`queens::ops::mod2`].

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Subcommand, ValueEnum};

use queens::formats::sources::{self, Selection};
use queens::games::mod2::encode::Encoding;
use queens::games::mod2::questions::{Optimum, Question};
use queens::games::mod2::rules::Variant;
use queens::ops::mod2::{self as op, Mod2CheckResponse, Mod2SolveResponse, ReplayResponse};
use queens::ops::Context;
use queens::{formats, Error};

use super::args::Timeout;
use super::limits::Limits;
use super::output::{to_json, Failure};

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

fn cells(list: &[(usize, usize)]) -> String {
    let v: Vec<String> = list.iter().map(|(r, c)| format!("({r},{c})")).collect();
    v.join(" ")
}

fn print_check(out: &mut impl Write, r: &Mod2CheckResponse) -> std::io::Result<()> {
    let mut grid = vec![vec!["Q".to_string(); r.n]; r.n];
    for s in &r.empty {
        grid[s.square.0][s.square.1] = s.value.to_string();
    }
    let width = grid.iter().flatten().map(String::len).max().unwrap_or(1);
    for row in grid {
        let cells: Vec<String> = row.iter().map(|c| format!("{c:>width$}")).collect();
        writeln!(out, "{}", cells.join(" "))?;
    }
    writeln!(
        out,
        "{}: {} queens, {} empty squares, {} open (empty squares show their value)",
        r.state.name(),
        r.queens,
        r.empty.len(),
        r.open.len()
    )?;
    if !r.open.is_empty() {
        writeln!(out, "open: {}", cells(&r.open))?;
    }
    Ok(())
}

fn print_replay(out: &mut impl Write, r: &ReplayResponse) -> std::io::Result<()> {
    match (&r.illegal, &r.false_claim) {
        (Some(i), _) => writeln!(
            out,
            "illegal: move {} ({},{}): {} (the moves before it are legal: {} queen{}, {})",
            i.index + 1,
            i.square.0,
            i.square.1,
            i.reason,
            r.queens,
            if r.queens == 1 { "" } else { "s" },
            r.state.name()
        ),
        (None, Some(claim)) => writeln!(
            out,
            "legal moves, false claim: {claim} ({} moves, {} queens, {})",
            r.moves,
            r.queens,
            r.state.name()
        ),
        (None, None) => writeln!(
            out,
            "legal: {} moves ({} game), final board {} with {} queens, {} open squares",
            r.moves,
            r.variant,
            r.state.name(),
            r.queens,
            r.open.len()
        ),
    }
}

/// One progress line of a retrograde sweep on stderr.
fn print_progress(p: &queens::games::mod2::retro::Progress) {
    let rate = p.done_here as f64 / p.secs.max(1e-9);
    let left = (p.total - p.done) as f64 / rate.max(1.0);
    eprintln!(
        "mod2 {}: level {} of 0..{} done up to {:.2}% ({} of {} sets), {:.1} M sets/s, \
         about {} left",
        match p.pass {
            queens::games::mod2::retro::Pass::Solve => "solve",
            queens::games::mod2::retro::Pass::Reach => "reachable",
        },
        p.level,
        p.levels - 1,
        100.0 * p.done as f64 / p.total as f64,
        p.done,
        p.total,
        rate / 1e6,
        duration(left)
    );
}

fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=99 => format!("{s} s"),
        100..=5999 => format!("{} min", s / 60),
        _ => format!("{:.1} h", s as f64 / 3600.0),
    }
}

fn print_solve(out: &mut impl Write, r: &Mod2SolveResponse) -> std::io::Result<()> {
    match r.winner {
        Some(w) => {
            write!(
                out,
                "winner: {} player ({} game, n = {})",
                w.name(),
                r.variant,
                r.n
            )?;
            if let Some((row, col)) = r.first_move {
                write!(
                    out,
                    "; winning first move ({row},{col}), {} winning first moves in all",
                    r.winning_moves.len()
                )?;
            }
            writeln!(out)?;
            if let Some(w) = &r.retrograde {
                if !r.winning_moves.is_empty() {
                    writeln!(out, "winning first moves: {}", cells(&r.winning_moves))?;
                }
                writeln!(
                    out,
                    "retrograde: {} sets of queens, {} + {} levels computed here, {} threads, \
                     {:.3} ms, peak memory {} MB (estimate {} MB)",
                    w.sets,
                    w.levels_computed[0],
                    w.levels_computed[1],
                    w.threads,
                    r.time_ms,
                    w.peak_memory.unwrap_or(0) >> 20,
                    w.memory_estimate >> 20
                )?;
                match &r.strategy {
                    Some(s) if s.mv.is_some() => {
                        let (row, col) = s.mv.expect("checked");
                        writeln!(
                            out,
                            "strategy: first move ({row},{col}), answers to {} replies",
                            s.replies.len()
                        )?;
                    }
                    Some(s) => writeln!(
                        out,
                        "strategy: the second player's answer to each of {} first moves",
                        s.replies.len()
                    )?,
                    None => {}
                }
            } else {
                writeln!(
                    out,
                    "search: {} positions up to symmetry, {:.3} ms",
                    r.positions.unwrap_or(0),
                    r.time_ms
                )?;
            }
        }
        None => {
            writeln!(
                out,
                "unknown: the search stopped ({}) after {:.3} ms",
                r.status, r.time_ms
            )?;
            if r.method == op::SolveMethod::Retrograde {
                writeln!(
                    out,
                    "the finished levels are in the checkpoint folder, if one was given: run \
                     again with --resume to continue"
                )?;
            }
        }
    }
    if let Some(q) = &r.reachable {
        match (q.classes, q.positions) {
            (Some(c), Some(p)) => {
                writeln!(
                    out,
                    "reachable positions: {c} up to symmetry, {p} in all ({:.3} ms)",
                    q.time_ms
                )?;
                let opt = |v: Option<u128>| v.map_or("over 2^128".to_string(), |v| v.to_string());
                if r.retrograde.is_none() {
                    writeln!(
                        out,
                        "game tree: {} nodes, {} finished games",
                        opt(q.game_tree_nodes),
                        opt(q.games)
                    )?;
                }
                writeln!(out, "moves  queens  classes  positions  terminal")?;
                for l in &q.layers {
                    writeln!(
                        out,
                        "{:>5}  {:>6}  {:>7}  {:>9}  {:>8}",
                        l.moves, l.queens, l.classes, l.positions, l.terminal
                    )?;
                }
            }
            _ => writeln!(
                out,
                "reachable positions: unknown, the count stopped ({}) after {:.3} ms",
                q.status, q.time_ms
            )?,
        }
    }
    Ok(())
}

fn print_optimum(out: &mut impl Write, r: &Optimum) -> std::io::Result<()> {
    let what = match r.question {
        Question::Max => "most queens on a reachable board",
        Question::MinLock => "fewest queens on a reachable locked board",
    };
    match (r.queens, &r.moves) {
        (Some(k), Some(moves)) => {
            let board = queens::games::mod2::Board::with_queens(r.n, moves);
            for row in 0..r.n {
                let line: String = (0..r.n)
                    .map(|c| if board.has_queen((row, c)) { 'Q' } else { '.' })
                    .collect();
                writeln!(out, "{line}")?;
            }
            writeln!(
                out,
                "{what}: {k}{} (n = {})",
                if r.optimal {
                    ""
                } else {
                    " or better (not proven)"
                },
                r.n
            )?;
            writeln!(out, "moves: {}", cells(moves))?;
        }
        _ if r.optimal => writeln!(out, "{what}: none exists (n = {})", r.n)?,
        _ => writeln!(out, "{what}: unknown, none found yet (n = {})", r.n)?,
    }
    writeln!(out, "bound: {}", r.bound)?;
    for c in &r.calls {
        if c.by == "pair-parity" {
            writeln!(
                out,
                "  {} {}: {} by the parity of attacking pairs ({:.1} ms)",
                c.goal, c.k, c.result, c.time_ms
            )?;
            continue;
        }
        writeln!(
            out,
            "  {} {}: {}{} ({} vars, {} clauses, {:.1} ms{})",
            c.goal,
            c.k,
            c.result,
            c.found.map_or(String::new(), |f| format!(", {f} queens")),
            c.vars,
            c.clauses,
            c.time_ms,
            c.lemmas
                .map_or(String::new(), |l| format!(", proof {l} lemmas checked")),
        )?;
    }
    if r.status != queens::ops::Status::Ok {
        writeln!(out, "stopped: {}", r.status)?;
    }
    writeln!(out, "time: {:.3} ms ({})", r.time_ms, r.method)
}
