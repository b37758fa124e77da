//! `queens solve`: a solution (or all, or up to --limit), or a region puzzle's logical path
//! (`--steps`, the `grade` operation with its steps).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use queens::ops::{self, Artifacts, EngineName, GradeRequest, SolveRequest, SolveResponse, Status};
use queens::{formats, report, Error, Pos};

use crate::args::{EngineArgs, ProofArgs, SolverArgs, Timeout};
use crate::input::Input;
use crate::output::{write_atomically, Failure};
use crate::print::{cross_checked, interrupted, no_answer, proof, Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct SolveArgs {
    #[command(flatten)]
    pub(crate) input: Input,
    /// Print every solution.
    #[arg(long)]
    pub(crate) all: bool,
    /// Print at most K solutions (implies --all).
    #[arg(long, value_name = "K")]
    pub(crate) limit: Option<u64>,
    /// Solve a region puzzle as a player would: print the whole logical path, each step
    /// with its technique and reason (see `hint`), and the grade.
    #[arg(long, conflicts_with_all = ["all", "limit", "proof"])]
    pub(crate) steps: bool,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) solvers: SolverArgs,
    #[command(flatten)]
    pub(crate) proof: ProofArgs,
    #[command(flatten)]
    pub(crate) timeout: Timeout,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Seed of the local search (engines local and auto): the same seed gives the same
    /// solution.
    #[arg(long, value_name = "S")]
    pub(crate) seed: Option<u64>,
    /// Write the solution to OUT as one column per row (line r + 1 holds the column of
    /// row r, 0-based) instead of drawing the board; `check FILE --board OUT` reads it
    /// back. Boards past 100,000 rows are only written this way.
    #[arg(short, long, value_name = "OUT", conflicts_with_all = ["all", "limit"])]
    pub(crate) output: Option<PathBuf>,
    /// Print the plan (the steps that would run: which engines, in what order or side by
    /// side, on what estimates) without running it.
    #[arg(long, conflicts_with_all = ["steps", "output", "trace"])]
    pub(crate) plan: bool,
    /// After the answer, print the plan as it ran: each step's times and how it ended.
    #[arg(long)]
    pub(crate) trace: bool,
}

impl Run for SolveArgs {
    type Op = ops::Solve;
    const PROGRESS: Option<(&'static str, &'static str)> =
        Some(("solving", "rows without a conflict"));

    fn common(&self) -> Common<'_> {
        Common {
            timeout: self.timeout,
            json: self.json,
            solvers: Some(&self.solvers),
            proof: Some(&self.proof),
        }
    }

    fn request(&self) -> Result<SolveRequest, Error> {
        TRACE.store(self.trace, std::sync::atomic::Ordering::Relaxed);
        let (engine, encoding, solver, rings) = self.engine.request(EngineName::Auto);
        let instance = self.input.load()?;
        if self.plan {
            if let Ok(mut board) = BOARD.lock() {
                *board = report::summary(&instance.0);
            }
        }
        Ok(SolveRequest {
            instance,
            engine,
            encoding,
            all: self.all,
            limit: self.limit,
            cross_check: self.engine.cross_check,
            timeout_ms: None,
            proof: self
                .proof
                .proof
                .is_some()
                .then_some(self.proof.proof_format),
            threads: None,
            solver,
            rings,
            seed: self.seed,
            learned: false,
            plan_only: self.plan,
        })
    }

    fn finish(
        &self,
        resp: &mut SolveResponse,
        artifacts: &Artifacts,
    ) -> Result<Option<u8>, Failure> {
        write_solution(resp, artifacts, self.output.as_deref())?;
        if !self.plan {
            return Ok(None);
        }
        // The plan was asked for, and given: nothing ran, and nothing failed (exit 0, not the
        // 4 of an answer that did not come).
        let mut out = io::stdout().lock();
        if self.json {
            let json = serde_json::to_string(&*resp).map_err(|e| Error::internal(e.to_string()))?;
            writeln!(out, "{json}")?;
        } else {
            let board = BOARD.lock().map(|b| b.clone()).unwrap_or_default();
            write_plan(&mut out, &board, resp)?;
        }
        Ok(Some(0))
    }
}

/// `solve --steps`: the puzzle's whole logical path, as `grade` finds it.
pub(crate) struct Steps<'a>(pub(crate) &'a SolveArgs);

impl Run for Steps<'_> {
    type Op = ops::Grade;

    fn common(&self) -> Common<'_> {
        Common {
            timeout: self.0.timeout,
            json: self.0.json,
            ..Common::default()
        }
    }

    fn request(&self) -> Result<GradeRequest, Error> {
        Ok(GradeRequest {
            instance: self.0.input.load()?,
            steps: true,
        })
    }
}

impl Text for ops::Solve {
    fn text(
        out: &mut impl Write,
        q: &SolveRequest,
        r: &SolveResponse,
        s: &Style,
    ) -> io::Result<()> {
        if q.plan_only {
            return write_plan(out, &report::summary(&q.instance.0), r);
        }
        write_answer(out, q, r, s)?;
        if TRACE.load(std::sync::atomic::Ordering::Relaxed) {
            if let Some(plan) = &r.plan {
                writeln!(out, "plan:")?;
                write!(out, "{}", plan.text())?;
            }
        }
        Ok(())
    }
}

/// `--plan`: the board, and the plan's steps as a tree.
fn write_plan(out: &mut impl Write, board: &str, r: &SolveResponse) -> io::Result<()> {
    writeln!(out, "plan: {board}")?;
    if let Some(plan) = &r.plan {
        write!(out, "{}", plan.text())?;
    }
    Ok(())
}

/// `--plan`: the board's summary, for the plan's text.
static BOARD: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

/// `--trace`: the text of the answer ends with the plan as it ran.
pub(crate) static TRACE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn write_answer(
    out: &mut impl Write,
    req: &SolveRequest,
    r: &SolveResponse,
    style: &Style,
) -> io::Result<()> {
    let problem = &req.instance.0;
    let many = req.all || req.limit.is_some();
    let solutions: &[Vec<Pos>] = match (&r.solutions, &r.queens) {
        (Some(list), _) => list,
        (None, Some(q)) => std::slice::from_ref(q),
        (None, None) => &[],
    };
    // A board past the complete engines' size is never drawn (n² characters).
    let draw = !problem.is_sparse() && r.solution_path.is_none();
    for (i, s) in solutions.iter().enumerate().filter(|_| draw) {
        if many {
            writeln!(out, "solution {}:", i + 1)?;
        }
        write!(out, "{}", report::board(problem, s, style.color))?;
        if many {
            writeln!(out)?;
        }
    }
    let summary = report::summary(problem);
    match r.status {
        Status::Unsat => {
            let reason = r.reason.as_deref().unwrap_or("proven");
            writeln!(out, "no solution: {reason}")?;
            if let Some(p) = &r.proof {
                proof(out, p, "")?;
            }
        }
        status if interrupted(status) || status == Status::Unknown => {
            let so_far = match many {
                true => format!(" ({} solutions so far)", solutions.len()),
                false => String::new(),
            };
            // What happened: the engine's own reason (local search gave up), a solver's
            // "unknown", or the limit or cancel.
            let what = match (status, &r.reason, r.work.solver) {
                (Status::Timeout, Some(reason), _) => format!("no answer: {reason}"),
                (Status::Unknown, _, Some(s)) => {
                    format!("unknown: solver `{s}` gave up without an answer (s UNKNOWN)")
                }
                _ => no_answer(status, style.timeout),
            };
            writeln!(out, "{what}{so_far}")?;
        }
        _ if many => {
            let more = if r.limited == Some(true) {
                " (limit reached)"
            } else {
                ""
            };
            let work = describe(r);
            let k = solutions.len();
            writeln!(out, "{k} solutions{more}: {summary} ({work})")?;
        }
        _ if req.proof.is_some() => writeln!(
            out,
            "solved: {summary} (no proof written: the answer is SAT)"
        )?,
        _ => writeln!(out, "solved: {summary} ({})", describe(r))?,
    }
    if let Some(path) = &r.solution_path {
        writeln!(out, "solution written to {path} (one column per row)")?;
    } else if r.status == Status::Sat && !draw {
        writeln!(
            out,
            "the board has {} rows: give -o FILE to write it (one column per row)",
            r.n
        )?;
    }
    // What ran and why, where `auto` or the race chose. The backtracker answering a board
    // that is no completion for the portfolio is what it always did: said in JSON only.
    if let (Some(e), Some(why)) = (r.answered_by, &r.why) {
        let plain = r.engine == EngineName::Auto
            && e == EngineName::Backtrack
            && !queens::engine::plan::is_portfolio_board(problem);
        if !plain {
            writeln!(out, "engine: {} ({why})", e.name())?;
        }
    }
    cross_checked(out, r.cross_checked)
}

/// Writes a solve's solution as one column per row: to `output` when given (from the
/// `solution` artifact of a big board, or the inline queens), naming the file in the answer.
/// A big board's solution without `-o` is not printed: the answer says how to get it.
fn write_solution(
    r: &mut SolveResponse,
    artifacts: &Artifacts,
    output: Option<&Path>,
) -> Result<(), Error> {
    let Some(path) = output else {
        return Ok(());
    };
    let text = match (artifacts.get("solution"), &r.queens) {
        (Some(bytes), _) => std::borrow::Cow::Borrowed(bytes),
        (None, Some(q)) => {
            let mut cols = vec![0u32; q.len()];
            for &(row, c) in q {
                cols[row] = c as u32;
            }
            std::borrow::Cow::Owned(formats::columns::write(&cols))
        }
        (None, None) => return Ok(()),
    };
    write_atomically(path, &text)?;
    r.solution_path = Some(path.display().to_string());
    Ok(())
}

/// The work of the answer in one line, named after the engine that searched.
fn describe(r: &SolveResponse) -> String {
    r.work
        .describe(r.answered_by.unwrap_or(r.engine).searcher(), r.time_ms)
}
