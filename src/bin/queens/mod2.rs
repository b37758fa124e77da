//! `queens mod2 …`: the mod-2 game's commands, as glue over [`queens::ops::mod2`].

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Subcommand, ValueEnum};

use queens::formats::sources::{self, Selection};
use queens::games::mod2::encode::{self, Encoding};
use queens::games::mod2::format::parse_moves;
use queens::games::mod2::questions::{Method, Optimum, Question};
use queens::games::mod2::rules::Variant;
use queens::ops::mod2::{self as op, CheckResponse, ReplayResponse, SolveResponse};
use queens::ops::Context;
use queens::{formats, Error};

use super::{to_json, Failure, Limits, Timeout};

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
    /// Internal: solve the DIMACS CNF on stdin, print `SAT lits…` or `UNSAT` and write the
    /// LRAT proof (what a SAT call under a deadline runs in a child process).
    #[command(hide = true)]
    SatChild {
        /// Where the proof goes.
        #[arg(long)]
        proof: PathBuf,
    },
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
            if problem.regions().is_some()
                || !problem.blocked().is_empty()
                || !problem.excluded().is_empty()
            {
                return Err(Error::Unsupported(format!(
                    "{}: the mod-2 game is played on a plain board: no regions, blocked cells \
                     or excluded diagonals",
                    file.display()
                ))
                .into());
            }
            let resp = op::check(problem.n(), problem.fixed());
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_check(out, &resp)?;
            }
            Ok(0)
        }
        Mod2Command::Replay { file, json } => {
            let (origin, text) = formats::read_text(&file)?;
            let list = parse_moves(&origin, &text)?;
            let resp = op::replay(&list);
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_replay(out, &resp)?;
            }
            Ok(resp.exit_code())
        }
        Mod2Command::Solve {
            n,
            variant,
            reachable,
            timeout,
            json,
        } => {
            let ctx = context(started, timeout, false)?;
            let resp = op::solve(
                &op::SolveRequest {
                    n,
                    variant,
                    reachable,
                },
                &ctx,
            )?;
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_solve(out, &resp)?;
            }
            Ok(resp.exit_code())
        }
        Mod2Command::Max(args) => optimum(out, Question::Max, args, started),
        Mod2Command::MinLock(args) => optimum(out, Question::MinLock, args, started),
        Mod2Command::SatChild { proof } => Ok(queens::games::mod2::solver::child_main(
            std::io::stdin().lock(),
            out,
            &proof,
        )),
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
        MethodArg::Sat => Method::Sat(encode::Options {
            encoding: args.encoding,
            symmetry: !args.no_symmetry,
        }),
        MethodArg::Exhaustive => Method::Exhaustive,
    };
    let resp = op::optimum(
        &op::OptimumRequest {
            n: args.n,
            question,
            method,
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

fn print_check(out: &mut impl Write, r: &CheckResponse) -> std::io::Result<()> {
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

fn print_solve(out: &mut impl Write, r: &SolveResponse) -> std::io::Result<()> {
    match r.winner {
        Some(w) => {
            write!(out, "winner: {w} player ({} game, n = {})", r.variant, r.n)?;
            if let Some((row, col)) = r.first_move {
                write!(
                    out,
                    "; winning first move ({row},{col}), {} winning first moves in all",
                    r.winning_moves.len()
                )?;
            }
            writeln!(
                out,
                "\nsearch: {} positions up to symmetry, {:.3} ms",
                r.positions.unwrap_or(0),
                r.time_ms
            )?;
        }
        None => writeln!(
            out,
            "unknown: the search stopped ({}) after {:.3} ms",
            r.status, r.time_ms
        )?,
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
                writeln!(
                    out,
                    "game tree: {} nodes, {} finished games",
                    opt(q.game_tree_nodes),
                    opt(q.games)
                )?;
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
    if r.status != "ok" {
        writeln!(out, "stopped: {}", r.status)?;
    }
    writeln!(out, "time: {:.3} ms ({})", r.time_ms, r.method)
}
