//! `queens mod2 …`'s arguments: the commands and their methods.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use queens::games::mod2::encode::Encoding;
use queens::games::mod2::rules::Variant;

use crate::commands::question::AnswerArgs;

#[derive(Subcommand)]
pub(crate) enum Mod2Command {
    /// A board's state (complete, locked, unlocked) and every empty square's value.
    Check(CheckArgs),
    /// Replay a move list ({"n": N, "moves": [[r,c], …]}, or the JSON of max/min-lock) and
    /// name its first illegal move; exit 1 if there is one or a claim in the file is false.
    Replay(ReplayArgs),
    /// Who wins with perfect play, with a winning first move; --reachable also counts the
    /// reachable positions and the game tree.
    Solve(SolveArgs),
    /// The most queens on a reachable board, with its move order and a proof that no
    /// reachable board holds more.
    Max(OptimumArgs),
    /// The fewest queens on a reachable locked board, with its move order and a proof that
    /// none has fewer.
    MinLock(OptimumArgs),
}

/// `mod2 check`'s arguments.
#[derive(Args)]
pub(crate) struct CheckArgs {
    /// A board (text grid or JSON instance; queens are `Q`), or - for stdin.
    pub(crate) file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `mod2 replay`'s arguments.
#[derive(Args)]
pub(crate) struct ReplayArgs {
    /// The move list, or - for stdin.
    pub(crate) file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `mod2 solve`'s arguments.
#[derive(Args)]
pub(crate) struct SolveArgs {
    /// Board size (1..=11; n ≤ 5 in seconds).
    #[arg(long)]
    pub(crate) n: usize,
    /// standard, alternate or complementary.
    #[arg(long, default_value = "standard", value_parser = parse_variant)]
    pub(crate) variant: Variant,
    /// Also count every reachable position (up to symmetry and in all) and the game tree.
    #[arg(long)]
    pub(crate) reachable: bool,
    /// auto (memo, retrograde for n = 6), memo, or retrograde (n ≤ 6: every set of
    /// queens, level by level, bitmaps; see docs/mod2-solver.md).
    #[arg(long, value_enum, default_value_t = SolveMethodArg::Auto)]
    pub(crate) method: SolveMethodArg,
    /// Retrograde: write each finished level into this folder (a run stopped or killed
    /// loses at most the level in progress).
    #[arg(long, value_name = "DIR")]
    pub(crate) checkpoint: Option<PathBuf>,
    /// Retrograde: continue the run whose checkpoints --checkpoint holds.
    #[arg(long, requires = "checkpoint")]
    pub(crate) resume: bool,
    /// Retrograde: worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub(crate) threads: usize,
    /// Retrograde: plies of the winner's strategy to report (0..=5), rounded to end with
    /// the winner's move (odd for the first player, even for the second).
    #[arg(long, default_value_t = 3)]
    pub(crate) strategy_plies: usize,
    /// Retrograde: write the strategy as a file `mod2 replay` checks against every reply.
    #[arg(long, value_name = "FILE")]
    pub(crate) strategy: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
}

/// `mod2 max`'s and `mod2 min-lock`'s arguments (the variant names the question).
#[derive(Args)]
pub(crate) struct OptimumArgs {
    /// Board size.
    #[arg(long)]
    pub(crate) n: usize,
    /// sat (proofs of the bound) or exhaustive (every reachable position; n ≤ 5 in practice).
    #[arg(long, value_enum, default_value_t = MethodArg::Sat)]
    pub(crate) method: MethodArg,
    /// SAT encoding of reachability: rank (a layer per square) or plan (a board per step).
    #[arg(long, default_value = "rank", value_parser = parse_encoding)]
    pub(crate) encoding: Encoding,
    /// Leave out the lex-leader constraints of the board's 8 symmetries.
    #[arg(long)]
    pub(crate) no_symmetry: bool,
    /// Write every UNSAT call's CNF and LRAT proof into this folder.
    #[arg(long, value_name = "DIR")]
    pub(crate) proof_dir: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
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
