//! `queens batch` (one shard of a corpus) and `queens merge` (shards back into one answer):
//! argument parsing and printing over [`queens::ops::batch`] and [`queens::ops::merge`].

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use queens::encode::amo::Encoding;
use queens::formats::sources;
use queens::ops::batch::{batch, BatchOptions};
use queens::ops::merge::{self, ShardFile};
use queens::ops::shard::Shard;
use queens::ops::Status;
use queens::ops::{Context, EngineName};
use queens::Error;

use super::args::{engine_choice, seconds, EngineChoice, SelectionArgs, SolverArgs};
use super::interrupt::{self, Interrupt};
use super::output::{to_json, write_atomically, Failure};
use super::progress;

#[derive(Args)]
pub struct BatchArgs {
    /// Instance files, folders (every file inside) or JSON-lines corpora: give every shard
    /// the same inputs, in the same order.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    selection: SelectionArgs,
    /// Use only the first K instances (before sharding).
    #[arg(long, value_name = "K")]
    take: Option<usize>,
    /// Run shard I of N (0-based): the instances whose content hash falls in it. A Slurm
    /// array passes $SLURM_ARRAY_TASK_ID, a Kubernetes Indexed Job $JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    shard: Shard,
    /// Which engine answers: backtrack, sat, race or ext:SOLVER.
    #[arg(long, default_value = "backtrack", value_parser = engine_choice, value_name = "ENGINE")]
    engine: EngineChoice,
    #[command(flatten)]
    solvers: SolverArgs,
    /// At-most-one encoding for the SAT engine.
    #[arg(long, default_value = "auto")]
    encoding: Encoding,
    /// Seconds each instance may run; past it the instance is `timeout` (SAT work runs in a
    /// child process, killed at the limit).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = seconds)]
    timeout: Duration,
    /// Instances solved at once (default: one per core, one engine thread each).
    #[arg(long, value_name = "J", default_value_t = 0)]
    jobs: usize,
    /// The shard's result file (JSON lines: a header, then one line per instance).
    /// Re-running the same shard into it keeps the answers it has.
    #[arg(short, long, value_name = "OUT.jsonl")]
    output: PathBuf,
    /// Prove every UNSAT answer: its proof (checked by the built-in checker as it is
    /// written) and the CNF it refutes go into this folder (created if missing), named by
    /// the instance's id; each result line names them.
    #[arg(long, value_name = "DIR")]
    proof: Option<PathBuf>,
    /// The proofs' format: lrat (the backtracker's own hints), binary-lrat, drat or
    /// binary-drat.
    #[arg(long, value_name = "F", default_value = "lrat", requires = "proof")]
    proof_format: queens::proof::ProofFormat,
    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run_batch(out: &mut impl Write, args: BatchArgs) -> Result<u8, Failure> {
    args.solvers.configure()?;
    let entries = sources::load_all(&args.inputs, &args.selection.get(args.take))?;
    let bar = progress::bar(&format!("batch {}", args.shard), "instances");
    let progress = bar.clone().map(|bar| {
        Arc::new(move |done: u64, total: u64| {
            bar.set_length(total);
            bar.set_position(done);
        }) as Arc<dyn Fn(u64, u64) + Send + Sync>
    });
    let opts = BatchOptions {
        shard: args.shard,
        engine: match args.engine.ext {
            Some(_) => EngineName::Ext,
            None => args.engine.engine,
        },
        encoding: args.engine.ext.map_or(args.encoding, |x| match x.encoding {
            Encoding::Auto => args.encoding,
            e => e,
        }),
        solver: args.engine.ext.map(|x| x.solver),
        timeout_ms: Some(args.timeout.as_millis().try_into().unwrap_or(u64::MAX)),
        jobs: args.jobs,
        progress,
        proof: args.proof.as_ref().map(|_| args.proof_format),
        proof_dir: args.proof.clone(),
    };
    let interrupt = Interrupt::watch(Arc::new(AtomicBool::new(false)));
    let mut ctx = Context::default();
    ctx.budget.cancel = Some(Arc::clone(interrupt.flag()));
    ctx.budget.max_memory = Some(queens::engine::default_max_memory());
    // The SAT engine stops only when its process is killed: every instance under a limit
    // runs it in a child of this executable.
    ctx.isolate = Some(std::env::current_exe().map_err(|e| Error::Io {
        path: "queens".into(),
        source: e,
    })?);
    let summary = batch(&entries, &opts, &args.output, &ctx);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let s = summary?;
    let interrupted = interrupt.signal().filter(|_| s.interrupted);
    if args.json {
        writeln!(out, "{}", to_json(&s)?)?;
    } else {
        let of = if s.interrupted {
            "answered before the interruption, of"
        } else {
            "of"
        };
        writeln!(
            out,
            "shard {}: {} {of} {} instances ({} kept from an earlier run): {} sat, {} unsat, {} \
             timeout, {} error, {:.1} s; results in {}",
            s.shard,
            s.instances,
            s.total,
            s.reused,
            s.sat,
            s.unsat,
            s.timeout,
            s.error,
            s.time_ms / 1e3,
            s.output
        )?;
        if let Some(dir) = &s.proofs {
            writeln!(
                out,
                "proofs of the {} unsat answers (each checked as written) and their CNFs in {dir}",
                s.unsat
            )?;
        }
    }
    if let Some(signal) = interrupted {
        eprintln!(
            "queens: interrupted by {signal}: the {} answers finished are in {}; the same \
             command run again keeps them and solves the rest",
            s.instances, s.output
        );
        return Ok(interrupt::EXIT);
    }
    // An input that could not be read is the user's to fix (2); an instance without an
    // answer is "no answer within the limits" (4).
    Ok(if s.error > 0 {
        2
    } else if s.timeout > 0 {
        4
    } else {
        0
    })
}

#[derive(Args)]
pub struct MergeArgs {
    /// Batch shard files (`queens batch -o`) or count shards (`queens count --shard … --json`
    /// or `-o`), all of one run.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Batch shards: write the merged results here (JSON lines, one per distinct instance,
    /// in input order).
    #[arg(short, long, value_name = "OUT.jsonl")]
    output: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run_merge(out: &mut impl Write, args: MergeArgs) -> Result<u8, Failure> {
    let files = args
        .files
        .iter()
        .map(|p| merge::read(p))
        .collect::<Result<Vec<_>, Error>>()?;
    if matches!(files[0], ShardFile::Count { .. }) {
        if args.output.is_some() {
            return Err(Error::unsupported(
                "-o writes merged batch results; a merged count is printed (use --json)".into(),
            )
            .into());
        }
        let m = merge::merge_counts(&files)?;
        if args.json {
            writeln!(out, "{}", to_json(&m)?)?;
        } else {
            writeln!(out, "count: {}", m.count)?;
            if let Some(u) = m.unique {
                writeln!(out, "unique: {u} (up to rotation and reflection)")?;
            }
            writeln!(
                out,
                "{} shards of {} subproblems ({}), instance {}, {:.1} s of shard time",
                m.shards,
                m.tasks,
                m.scheme,
                m.instance,
                m.shard_time_ms / 1e3
            )?;
        }
        return Ok(if m.count > 0 { 0 } else { 1 });
    }
    let m = merge::merge_batch(&files)?;
    if let Some(path) = &args.output {
        let mut text = String::new();
        for l in &m.lines {
            text.push_str(&to_json(l)?);
            text.push('\n');
        }
        write_atomically(path, text.as_bytes())?;
    }
    if args.json {
        writeln!(out, "{}", to_json(&m)?)?;
    } else {
        let n = |o| m.outcomes.get(&o).copied().unwrap_or(0);
        writeln!(
            out,
            "{} of {} instances merged from {} of {} shards: {} sat, {} unsat, {} timeout, {} \
             error; {} duplicate lines dropped",
            m.lines.len(),
            m.total,
            m.shards - m.missing_shards.len(),
            m.shards,
            n(Status::Sat),
            n(Status::Unsat),
            n(Status::Timeout),
            n(Status::Error),
            m.duplicates
        )?;
        if !m.missing_shards.is_empty() {
            let list: Vec<String> = m.missing_shards.iter().map(|i| i.to_string()).collect();
            writeln!(
                out,
                "missing shards: {} ({} instances)",
                list.join(", "),
                m.missing_in_absent_shards
            )?;
        }
        for miss in m.missing.iter().take(20) {
            writeln!(out, "missing: {} (no result line)", miss.id)?;
        }
        if m.missing.len() > 20 {
            writeln!(out, "… {} missing in all", m.missing.len())?;
        }
        for c in &m.conflicts {
            let said: Vec<String> = c
                .answers
                .iter()
                .map(|(id, o)| format!("{id}: {}", o.name()))
                .collect();
            writeln!(out, "CONFLICT {}: {}", c.hash, said.join(", "))?;
        }
    }
    Ok(if !m.conflicts.is_empty() {
        3
    } else if !m.complete() {
        4
    } else {
        0
    })
}
