//! `queens generate …`: instances (deterministic for a seed), or a JSON-lines corpus.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use queens::ops::{self, GenerateRequest, Member, Status};
use queens::Error;

use crate::args::Timeout;
use crate::budget::Limits;
use crate::output::Failure;
use crate::print;

#[derive(Subcommand)]
pub(crate) enum GenerateKind {
    /// Random n-queens completion (Gent, Jefferson & Nightingale's generator): up to M
    /// non-attacking fixed queens.
    Completion {
        /// Board size.
        #[arg(long)]
        n: usize,
        /// Fixed queens to place (fewer when n² attempts run out).
        #[arg(long, value_name = "M")]
        queens: usize,
        /// Where the fixed queens come from: random (non-attacking random cells, which may
        /// leave no completion) or solution (rows of a random solution: always completable).
        #[arg(long, value_enum, default_value_t = Presets::Random)]
        presets: Presets,
        #[command(flatten)]
        out: GenerateOut,
    },
    /// Random Excluded Diagonals (CSPLib prob079): a maximal random list of diagonals that
    /// leaves every row and column at least K open cells; any prefix is an instance.
    Diagonals {
        /// Board size.
        #[arg(long)]
        n: usize,
        /// Open cells every row and column keeps (prob079 uses 4).
        #[arg(long, value_name = "K", default_value_t = 4)]
        min_free: usize,
        /// Keep only the first D diagonals of the list (default: all, up to n = 4096; past
        /// 4096, D is needed and at most n − K).
        #[arg(long, value_name = "D")]
        first: Option<usize>,
        #[command(flatten)]
        out: GenerateOut,
    },
    /// A region Queens puzzle with exactly one solution (checked by the backtracker) and
    /// connected regions.
    Regions {
        /// Board size (1 and 4 to 32).
        #[arg(long)]
        n: usize,
        /// Only puzzles of this grade (as `queens grade` defines it).
        #[arg(long, value_enum)]
        difficulty: Option<Difficulty>,
        #[command(flatten)]
        out: GenerateOut,
    },
}

/// Where `generate completion` takes its fixed queens from.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Presets {
    /// Non-attacking random cells (Gent, Jefferson & Nightingale).
    Random,
    /// Random rows of a random solution.
    Solution,
}

/// A puzzle grade for `generate regions --difficulty`.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Difficulty {
    Easy,
    Medium,
    Hard,
    Expert,
}

impl Difficulty {
    fn grade(self) -> queens::puzzle::grade::Grade {
        use queens::puzzle::grade::Grade;
        match self {
            Difficulty::Easy => Grade::Easy,
            Difficulty::Medium => Grade::Medium,
            Difficulty::Hard => Grade::Hard,
            Difficulty::Expert => Grade::Expert,
        }
    }
}

#[derive(Args)]
pub(crate) struct GenerateOut {
    /// Random seed; the same seed gives the same instance.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generate C instances with seeds SEED, SEED+1, … as JSON lines (one per line).
    #[arg(long, value_name = "C", default_value_t = 1)]
    count: u64,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    #[command(flatten)]
    timeout: Timeout,
}

pub(crate) fn run(
    out: &mut impl Write,
    kind: GenerateKind,
    started: Instant,
) -> Result<u8, Failure> {
    let difficulty = match &kind {
        GenerateKind::Regions { difficulty, .. } => difficulty.map(Difficulty::grade),
        _ => None,
    };
    let presets = match &kind {
        GenerateKind::Completion {
            presets: Presets::Solution,
            ..
        } => Some(ops::PresetSource::Solution),
        _ => None,
    };
    let (kind, n, queens, min_free, first, opts) = match kind {
        GenerateKind::Completion { n, queens, out, .. } => (
            ops::GenerateKind::Completion,
            n,
            Some(queens),
            None,
            None,
            out,
        ),
        GenerateKind::Diagonals {
            n,
            min_free,
            first,
            out,
        } => (
            ops::GenerateKind::Diagonals,
            n,
            None,
            Some(min_free),
            first,
            out,
        ),
        GenerateKind::Regions { n, out, .. } => {
            (ops::GenerateKind::Regions, n, None, None, None, out)
        }
    };
    if opts.count == 0 {
        return Err(Error::unsupported("--count must be at least 1".into()).into());
    }
    let limits = Limits::new(started, opts.timeout);
    // One request makes at most MAX_GENERATE_COUNT instances (a limit for the service); a
    // corpus written here may be larger, so it is asked for in pieces.
    let mut instances = Vec::new();
    let (mut seed, mut left) = (opts.seed, opts.count);
    let mut status = Status::Sat;
    while left > 0 && status == Status::Sat {
        let count = left.min(ops::MAX_GENERATE_COUNT);
        let req = ops::Generate::wrap(GenerateRequest {
            kind,
            n,
            queens,
            min_free,
            first,
            seed,
            count,
            difficulty,
            presets,
        });
        let part = limits.run::<ops::Generate>(&req, None)?.0;
        instances.extend(part.instances);
        status = part.status;
        left -= count;
        if left > 0 {
            seed = seed
                .checked_add(count)
                .ok_or_else(|| Error::unsupported_at_field("seed", "seed + count overflows"))?;
        }
    }
    // Several instances, or a `.jsonl` file (which every reader takes line by line), get one
    // object per line; a single instance keeps the writer's readable layout.
    let json_lines = opts.count > 1
        || opts
            .output
            .as_ref()
            .is_some_and(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let text = print::instances(&instances, json_lines);
    match &opts.output {
        Some(path) => std::fs::write(path, text).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?,
        None => out.write_all(text.as_bytes())?,
    }
    if status != Status::Sat {
        eprintln!(
            "queens: {}: {} of {} instances made",
            print::no_answer(status, opts.timeout.timeout),
            instances.len(),
            opts.count
        );
    }
    Ok(status.exit_code())
}
