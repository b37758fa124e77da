//! The `queens` command line: parses arguments, asks the operations layer ([`queens::ops`]),
//! prints the answer and exits with its code. Each question is a command of its own file in
//! `commands/` (the games' in `mod2/` and `collection/`), run by the one runner
//! ([`runner::run`]), or a command made from its operation's declaration ([`derived`]); this
//! file lists the written commands.
//!
//! Exit codes: 0 yes (a solution, a positive count, a board without conflict); 1 proven no
//! (or a board that breaks a rule); 2 bad input or usage; 3 an internal check failed; 4 no
//! answer within the limits (`--timeout`, a count stopped by `--limit`, `s UNKNOWN`).

mod args;
mod batch;
mod budget;
mod collection;
mod commands;
mod compare;
mod derived;
mod input;
mod interrupt;
mod mod2;
mod output;
mod print;
mod progress;
mod runner;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches, Subcommand};

use queens::ops;
use queens::Error;

use args::{CompareArgs, SolverArgs};
use commands::{check, count, decode, encode, explain, generate, rings, solve, threshold};
use output::Failure;
use runner::run as ask;

// See Cargo.toml: the service allocates from many threads at once.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(clap::Parser)]
#[command(
    name = "queens",
    version,
    about = "Solve, count and check n-queens, completion and region Queens puzzles"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Find a solution (or all, or up to --limit) and print it.
    Solve(solve::SolveArgs),
    /// Count solutions (on all cores).
    Count(count::CountArgs),
    /// Write the SAT encoding as DIMACS CNF, with comment lines mapping cell variables.
    Encode(encode::EncodeArgs),
    /// How many queens each concentric ring of an n-queens solution can hold (ring 0 is the
    /// border), with the 2021 subpanel paper's table for n = 8 beside ours.
    Rings {
        /// Board size.
        #[arg(long)]
        n: usize,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Read an external solver's model for FILE's encoding, verify it and print the board.
    Decode(decode::DecodeArgs),
    /// Explain why a completion has no solution: a minimal set of presets (fixed queens,
    /// blocked cells, excluded diagonals) that already has none, optionally certified.
    Explain(explain::ExplainArgs),
    /// Generate an instance (deterministic for a seed), or a JSON-lines corpus with --count.
    Generate {
        #[command(subcommand)]
        kind: generate::GenerateKind,
    },
    /// Run instances on several engines, each attempt in a child process with a hard time
    /// limit; every answer is verified, and a disagreement between engines exits with 3.
    Compare(CompareArgs),
    /// Solve shard I/N of a corpus (instances dealt by content hash), one verified result
    /// line per instance; for Slurm arrays and Kubernetes Indexed Jobs
    /// (docs/batch-and-clusters.md, "Batch runs and shards").
    Batch(batch::BatchArgs),
    /// Merge batch shard files (missing and conflicting answers reported), or sum count
    /// shards (refused unless all are there).
    Merge(batch::MergeArgs),
    /// Internal: run the operations request (JSON) on stdin and print its reply (what an
    /// operation under a deadline runs in a child process, killed at the deadline).
    #[command(hide = true)]
    Op {
        /// Write the reply's files (a proof and its CNF) into this folder.
        #[arg(long, value_name = "DIR")]
        artifacts: Option<PathBuf>,
        /// The parent's memory limit, in bytes.
        #[arg(long, value_name = "BYTES")]
        max_memory: Option<u64>,
        /// Milliseconds left before the parent's deadline.
        #[arg(long, value_name = "MS")]
        timeout_ms: Option<u64>,
        #[command(flatten)]
        solvers: SolverArgs,
    },
    /// Run the HTTP service: JSON endpoints, jobs, health and metrics (docs/service.md).
    Serve(queens::server::ServeArgs),
    /// The mod-2 n-queens game: check a board, replay moves, solve the game, and
    /// the most queens / fewest locked queens with proofs.
    Mod2 {
        #[command(subcommand)]
        command: mod2::Mod2Command,
    },
    /// The n-queens completion threshold (OEIS A374013) with a certificate, or its check.
    Threshold(threshold::ThresholdArgs),
    /// The Queen's Collection card game, solo: seeded deals, play a deal with a
    /// move list or a policy, and simulate policies over many deals.
    Collection {
        #[command(subcommand)]
        command: collection::CollectionCommand,
    },
    /// Check the queens given in FILE against the rules and name every conflict.
    Check(check::CheckArgs),
}

fn main() -> ExitCode {
    let started = Instant::now();
    let written = Cli::command();
    let made = derived::made(&written);
    let matches = derived::with_made(written, &made).get_matches();
    let asked = derived::asked(&made, &matches);
    let cli = match asked {
        Some(_) => None,
        None => Some(Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())),
    };
    // Ctrl-C, SIGTERM and SIGHUP take this process's children (solvers, workers) with it;
    // the service stops its own through its shutdown, which hands jobs back first.
    if !matches!(
        &cli,
        Some(Cli {
            command: Command::Serve(_)
        })
    ) {
        queens::child::stop_children_on_signals();
    }
    let ran = match (cli, asked) {
        (Some(cli), _) => run(cli, started),
        (None, Some((made, matches))) => {
            derived::run(&mut std::io::stdout().lock(), made, matches, started)
        }
        (None, None) => Err(Error::internal("no command was asked").into()),
    };
    match ran {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Error(e)) => {
            match &e {
                Error::Internal { .. } => eprintln!("queens: internal check failed: {e}"),
                _ => eprintln!("queens: error: {e}"),
            }
            ExitCode::from(e.exit_code())
        }
        // Output closed early (e.g. piped into `head`): not an error.
        Err(Failure::BrokenPipe) => ExitCode::SUCCESS,
    }
}

fn run(cli: Cli, started: Instant) -> Result<u8, Failure> {
    let out = &mut std::io::stdout().lock();
    match cli.command {
        Command::Solve(a) if a.steps => ask(out, &solve::Steps(&a), started),
        Command::Solve(a) => ask(out, &a, started),
        Command::Count(a) => ask(out, &a, started),
        Command::Encode(a) => ask(out, &a, started),
        Command::Decode(a) => ask(out, &a, started),
        Command::Explain(a) => ask(out, &a, started),
        Command::Check(a) => ask(out, &a, started),
        Command::Generate { kind } => generate::run(out, kind, started),
        Command::Mod2 { command } => mod2::run(out, command, started),
        Command::Threshold(args) => threshold::run(out, args, started),
        Command::Collection { command } => collection::run(out, command, started),
        Command::Compare(args) => {
            args.solvers.configure()?;
            compare::run(out, args)
        }
        Command::Rings { n, json } => rings::run(out, n, json),
        Command::Batch(args) => batch::run_batch(out, args),
        Command::Merge(args) => batch::run_merge(out, args),
        Command::Serve(args) => {
            let config = args.config()?;
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| "queens=info,tower_http=warn".into()),
                )
                .with_writer(std::io::stderr)
                .init();
            queens::server::serve(config)?;
            Ok(0)
        }
        // The child's side of ops::Request::run (stdout's lock is reentrant).
        Command::Op {
            artifacts,
            max_memory,
            timeout_ms,
            solvers,
        } => {
            solvers.configure()?;
            Ok(ops::child_main(
                artifacts.as_deref(),
                max_memory,
                timeout_ms,
            ))
        }
    }
}
