//! `queens count`: how many solutions (on all cores), or one shard's share of them.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use queens::ops::shard::Shard;
use queens::ops::{self, Artifacts, CountRequest, CountResponse, EngineName, Status, WorkReport};
use queens::{report, Error};

use crate::args::{EngineArgs, SolverArgs, Timeout};
use crate::input::Input;
use crate::output::{to_json, write_atomically, Failure};
use crate::print::{cross_checked, interrupted, no_answer, Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct CountArgs {
    #[command(flatten)]
    pub(crate) input: Input,
    /// Stop counting at K (`--limit 2` asks "is the solution unique?"); a count that
    /// reaches K is a lower bound (exit 4).
    #[arg(long, value_name = "K")]
    pub(crate) limit: Option<u64>,
    /// Also count solutions distinct up to rotation and reflection (empty classic board).
    #[arg(long)]
    pub(crate) unique: bool,
    /// Count only shard I of N (0-based) of the search tree's subproblems; `queens merge`
    /// sums the N answers (saved with --json or -o) into the count.
    #[arg(long, value_name = "I/N", conflicts_with_all = ["limit", "cross_check"])]
    pub(crate) shard: Option<Shard>,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) solvers: SolverArgs,
    #[command(flatten)]
    pub(crate) timeout: Timeout,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the JSON answer to OUT instead of printing it (written in full, then renamed
    /// into place, so a killed run leaves no half-written shard).
    #[arg(short, long, value_name = "OUT")]
    pub(crate) output: Option<PathBuf>,
}

impl Run for CountArgs {
    type Op = ops::Count;
    const PROGRESS: Option<(&'static str, &'static str)> = Some(("counting", "subtrees"));

    fn common(&self) -> Common<'_> {
        Common {
            timeout: self.timeout,
            json: self.json,
            solvers: Some(&self.solvers),
            proof: None,
        }
    }

    fn request(&self) -> Result<CountRequest, Error> {
        let (engine, encoding, solver, rings) = self.engine.request(EngineName::Backtrack);
        Ok(CountRequest {
            instance: self.input.load()?,
            engine,
            encoding,
            limit: self.limit,
            unique: self.unique,
            cross_check: self.engine.cross_check,
            timeout_ms: None,
            shard: self.shard,
            solver,
            rings,
        })
    }

    /// A shard stopped by Ctrl-C or SIGTERM still gives the count of its subproblems
    /// finished, marked `cancelled`.
    fn on_interrupt(&self) -> Option<String> {
        self.shard?;
        let to = self
            .output
            .as_ref()
            .map_or_else(|| "above".to_string(), |p| format!("in {}", p.display()));
        Some(format!(
            "the shard's count of the subproblems it finished is {to}, status `cancelled` (a \
             lower bound, which `queens merge` refuses: run the shard again)"
        ))
    }

    /// `-o`: the JSON answer goes to the file, whole or not at all.
    fn finish(&self, resp: &mut CountResponse, _: &Artifacts) -> Result<Option<u8>, Failure> {
        let Some(path) = &self.output else {
            return Ok(None);
        };
        write_atomically(path, format!("{}\n", to_json(resp)?).as_bytes())?;
        Ok(Some(<ops::Count as ops::Declared>::exit_code(resp)))
    }
}

impl Text for ops::Count {
    fn text(
        out: &mut impl Write,
        q: &CountRequest,
        r: &CountResponse,
        s: &Style,
    ) -> io::Result<()> {
        count(out, q, r, s)
    }
}

fn count(
    out: &mut impl Write,
    req: &CountRequest,
    r: &CountResponse,
    style: &Style,
) -> io::Result<()> {
    let problem = &req.instance.0;
    match r.status {
        status if interrupted(status) => match &r.shard {
            Some(s) => writeln!(
                out,
                "{} (count so far of shard {}/{}: {}, a lower bound; {} of its {} subproblems \
                 finished)",
                no_answer(status, style.timeout),
                s.index,
                s.of,
                r.count,
                s.finished,
                s.tasks
            )?,
            None => writeln!(
                out,
                "{} (count so far: {}, a lower bound)",
                no_answer(status, style.timeout),
                r.count
            )?,
        },
        Status::Limited => writeln!(out, "count: {} (limit reached; there may be more)", r.count)?,
        _ => match &r.shard {
            Some(s) => writeln!(
                out,
                "count of shard {}/{}: {} ({} of {} subproblems, cut by {}; `queens merge` \
                 sums the shards saved with --json or -o)",
                s.index, s.of, r.count, s.tasks, s.all_tasks, s.scheme
            )?,
            None => writeln!(out, "count: {}", r.count)?,
        },
    }
    if req.unique {
        match r.unique {
            Some(u) => writeln!(out, "unique: {u} (up to rotation and reflection)")?,
            None if interrupted(r.status) => {
                writeln!(out, "unique: unknown (the count was cut short)")?
            }
            None => writeln!(
                out,
                "unique: not defined here (only for the empty classic board, backtrack engine, no --limit)"
            )?,
        }
    }
    // A run killed at its deadline (in a child process) reports no work.
    if r.work != WorkReport::default() {
        let work = r.work.describe(r.engine.searcher(), r.time_ms);
        writeln!(out, "{} ({work})", report::summary(problem))?;
    }
    cross_checked(out, r.cross_checked)
}
