//! Answers as text for people: each operation's response, as the README shows it.

use std::io::{self, Write};
use std::time::Duration;

use queens::model::{cell, Diagonal};
use queens::ops::{
    self, CheckRequest, CheckResponse, CountRequest, CountResponse, DecodeRequest, DecodeResponse,
    EngineName, ExplainRequest, ExplainResponse, GradeRequest, GradeResponse, HintRequest,
    HintResponse, Member, ProofInfo, SolveRequest, SolveResponse, Status, WorkReport,
};
use queens::{report, Pos, Problem};

/// How text is shown.
pub struct Style {
    /// Colour region boards (stdout is a terminal and `NO_COLOR` is unset).
    pub color: bool,
    /// The command's `--timeout`, named when an answer ran out of time.
    pub timeout: Option<Duration>,
}

/// An operation whose answer the command line shows as text for people (the others print
/// their own output, or their JSON).
pub trait Text: Member {
    /// Writes `resp`, the answer to `req`, as text.
    fn text(
        out: &mut impl Write,
        req: &Self::Request,
        resp: &Self::Response,
        style: &Style,
    ) -> io::Result<()>;
}

impl Text for ops::Solve {
    fn text(
        out: &mut impl Write,
        q: &SolveRequest,
        r: &SolveResponse,
        s: &Style,
    ) -> io::Result<()> {
        solve(out, q, r, s)
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

impl Text for ops::Check {
    fn text(
        out: &mut impl Write,
        q: &CheckRequest,
        r: &CheckResponse,
        s: &Style,
    ) -> io::Result<()> {
        check(out, &q.instance.0, &q.queens, r, s)
    }
}

impl Text for ops::Explain {
    fn text(
        out: &mut impl Write,
        q: &ExplainRequest,
        r: &ExplainResponse,
        s: &Style,
    ) -> io::Result<()> {
        explain(out, &q.instance.0, r, s)
    }
}

impl Text for ops::Decode {
    fn text(
        out: &mut impl Write,
        q: &DecodeRequest,
        r: &DecodeResponse,
        s: &Style,
    ) -> io::Result<()> {
        decode(out, &q.instance.0, r, s)
    }
}

impl Text for ops::Hint {
    fn text(out: &mut impl Write, _: &HintRequest, r: &HintResponse, _: &Style) -> io::Result<()> {
        hint(out, r)
    }
}

impl Text for ops::Grade {
    fn text(
        out: &mut impl Write,
        q: &GradeRequest,
        r: &GradeResponse,
        s: &Style,
    ) -> io::Result<()> {
        grade(out, &q.instance.0, r, s)
    }
}

/// The line for an answer that ran out of time (or was cancelled):
/// `timeout: no answer within 2 s`.
pub fn no_answer(status: Status, timeout: Option<Duration>) -> String {
    match (status, timeout) {
        (Status::Cancelled, _) => "cancelled: no answer".to_string(),
        (Status::Unknown, _) => "unknown: the solver gave up without an answer".to_string(),
        (_, Some(t)) => format!("timeout: no answer within {} s", t.as_secs_f64()),
        (_, None) => "timeout: no answer within the time limit".to_string(),
    }
}

fn interrupted(status: Status) -> bool {
    matches!(status, Status::Timeout | Status::Cancelled)
}

fn cross_checked(out: &mut impl Write, other: Option<EngineName>) -> io::Result<()> {
    match other {
        Some(e) => writeln!(out, "cross-checked: the {} engine agrees", e.name()),
        None => Ok(()),
    }
}

fn solve(
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
            let work = r.work.describe(r.time_ms);
            let k = solutions.len();
            writeln!(out, "{k} solutions{more}: {summary} ({work})")?;
        }
        _ if req.proof.is_some() => writeln!(
            out,
            "solved: {summary} (no proof written: the answer is SAT)"
        )?,
        _ => writeln!(out, "solved: {summary} ({})", r.work.describe(r.time_ms))?,
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
    if let Some(e) = r.answered_by {
        match r.engine {
            // The backtracker answering a small board is what it always did: said in JSON only.
            EngineName::Auto if e == EngineName::Backtrack => {}
            EngineName::Auto => writeln!(out, "auto: the {} engine answered", e.name())?,
            _ => writeln!(out, "race: the {} engine answered first", e.name())?,
        }
    }
    cross_checked(out, r.cross_checked)
}

fn count(
    out: &mut impl Write,
    req: &CountRequest,
    r: &CountResponse,
    style: &Style,
) -> io::Result<()> {
    let problem = &req.instance.0;
    match r.status {
        status if interrupted(status) => writeln!(
            out,
            "{} (count so far: {}, a lower bound)",
            no_answer(status, style.timeout),
            r.count
        )?,
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
        let work = r.work.describe(r.time_ms);
        writeln!(out, "{} ({work})", report::summary(problem))?;
    }
    cross_checked(out, r.cross_checked)
}

fn check(
    out: &mut impl Write,
    problem: &Problem,
    more: &[Pos],
    r: &CheckResponse,
    style: &Style,
) -> io::Result<()> {
    let mut queens = problem.fixed().to_vec();
    queens.extend_from_slice(more);
    // Not drawn: a board past the complete engines' size (n² characters), or a full board
    // read with --board (its queens are not the instance's).
    if !problem.is_sparse() && r.placed == queens.len() {
        write!(out, "{}", report::board(problem, &queens, style.color))?;
    }
    match r.status {
        Status::Solved => writeln!(out, "solved: all {} queens placed, no conflict", r.n),
        Status::Consistent => {
            let completable = match r.completable {
                Some(true) => "can be completed".to_string(),
                Some(false) => "cannot be completed".to_string(),
                None => format!(
                    "can it be completed? {}",
                    no_answer(Status::Timeout, style.timeout)
                ),
            };
            writeln!(
                out,
                "consistent, {} of {} placed ({completable})",
                r.placed, r.n
            )?;
            if let Some(cells) = &r.attacked {
                let list: Vec<String> = cells.iter().map(|&c| cell(c)).collect();
                writeln!(
                    out,
                    "ruled out by the queens ({}): {}",
                    cells.len(),
                    list.join(" ")
                )?;
            }
            match &r.completions {
                Some(c) if c.limited => writeln!(out, "completions: at least {}", c.count),
                Some(c) => writeln!(out, "completions: {}", c.count),
                None => Ok(()),
            }
        }
        _ => {
            writeln!(out, "invalid: {} conflict(s)", r.violations_total)?;
            for v in &r.violations {
                writeln!(out, "  {}", v.message)?;
            }
            let rest = r.violations_total.saturating_sub(r.violations.len() as u64);
            if rest > 0 {
                writeln!(out, "  … and {rest} more, not listed")?;
            }
            Ok(())
        }
    }
}

fn explain(
    out: &mut impl Write,
    problem: &Problem,
    r: &ExplainResponse,
    style: &Style,
) -> io::Result<()> {
    match (r.status, &r.queens) {
        (Status::Sat, Some(q)) => {
            write!(out, "{}", report::board(problem, q, style.color))?;
            writeln!(out, "solvable: nothing to explain (a solution is shown)")
        }
        (Status::Unsat, _) => {
            let core = r.core.as_deref().unwrap_or_default();
            let blocked = r.blocked_core.as_deref().unwrap_or_default();
            let excluded = r.excluded_core.as_deref().unwrap_or_default();
            let n = problem.n();
            let diagonals: Vec<Diagonal> = excluded
                .iter()
                .filter_map(|&(k, t)| Diagonal::from_csplib(n, k, t))
                .collect();
            // The core on its own board: the problem with only these presets.
            let shown = queens::engine::explain::with_presets(problem, core, blocked, &diagonals)
                .map_err(io::Error::other)?;
            write!(out, "{}", report::board(&shown, core, style.color))?;
            match &r.reason {
                Some(reason) => writeln!(out, "unsolvable: {reason}")?,
                None => writeln!(out, "unsolvable: these presets alone have no completion")?,
            }
            let cells = |v: &[Pos]| v.iter().map(|&p| cell(p)).collect::<Vec<_>>().join(" ");
            if !core.is_empty() {
                writeln!(out, "minimal core: fixed queens {}", cells(core))?;
            }
            if !blocked.is_empty() {
                writeln!(out, "minimal core: blocked cells {}", cells(blocked))?;
            }
            if !excluded.is_empty() {
                let pairs: Vec<String> =
                    excluded.iter().map(|(k, t)| format!("[{k},{t}]")).collect();
                let what = match r.engine {
                    EngineName::Sat => {
                        "excluded diagonals (all of them: sat does not minimise these)"
                    }
                    _ => "minimal core: excluded diagonals",
                };
                writeln!(out, "{what} {}", pairs.join(" "))?;
            }
            let minimised = !core.is_empty()
                || !blocked.is_empty()
                || !excluded.is_empty() && r.engine != EngineName::Sat;
            if minimised {
                writeln!(out, "removing any one of them makes the rest completable")?;
            }
            if let Some(p) = &r.proof {
                proof(out, p, " (the board with only the core's presets)")?;
            }
            Ok(())
        }
        (status, _) => writeln!(out, "{}", no_answer(status, style.timeout)),
    }
}

fn grade(
    out: &mut impl Write,
    problem: &Problem,
    r: &GradeResponse,
    style: &Style,
) -> io::Result<()> {
    if let Some(steps) = &r.steps {
        let mut queens = problem.fixed().to_vec();
        for (i, s) in steps.iter().enumerate() {
            writeln!(out, "{:>3}. {}: {}", i + 1, s.technique, s.reason)?;
            queens.extend(&s.place);
        }
        queens.sort_unstable();
        if r.solved_by_logic {
            write!(out, "{}", report::board(problem, &queens, style.color))?;
        }
    }
    let techniques: Vec<String> = r
        .techniques
        .iter()
        .map(|(t, k)| format!("{t} {k}"))
        .collect();
    writeln!(
        out,
        "grade: {} ({} steps{}; {})",
        r.grade,
        r.step_count,
        r.hardest
            .as_deref()
            .map(|h| format!(", hardest {h}"))
            .unwrap_or_default(),
        if r.solved_by_logic {
            techniques.join(", ")
        } else {
            "the techniques do not solve it".to_string()
        }
    )
}

/// The line that names a checked proof and the CNF it refutes, `what` said after the CNF.
fn proof(out: &mut impl Write, p: &ProofInfo, what: &str) -> io::Result<()> {
    let plural = if p.lemmas == 1 { "" } else { "s" };
    writeln!(
        out,
        "proof: {} ({}, {} lemma{plural}, checked by {} in {} ms) refutes {}{what}",
        p.path.as_deref().unwrap_or("(not written)"),
        p.format,
        p.lemmas,
        p.checker
            .as_deref()
            .map_or("the built-in checker".to_string(), |c| c.to_string()),
        p.check_ms,
        p.cnf.as_deref().unwrap_or("(not written)")
    )
}

fn hint(out: &mut impl Write, r: &HintResponse) -> io::Result<()> {
    let cells = |v: &[Pos]| v.iter().map(|&p| cell(p)).collect::<Vec<_>>().join(" ");
    match (r.status, &r.technique) {
        (Status::Sat, Some(t)) => {
            writeln!(out, "hint ({t}): {}", r.reason.as_deref().unwrap_or(""))?;
            if !r.place.is_empty() {
                writeln!(out, "place: {}", cells(&r.place))?;
            }
            if !r.eliminate.is_empty() {
                writeln!(out, "eliminate: {}", cells(&r.eliminate))?;
            }
            Ok(())
        }
        (Status::Solved, _) => writeln!(out, "solved: nothing left to deduce"),
        (status, _) => writeln!(
            out,
            "{}: {}",
            match status {
                Status::Unsat => "no solution",
                Status::Unknown => "no hint",
                _ => "no answer",
            },
            r.reason.as_deref().unwrap_or("")
        ),
    }
}

fn decode(
    out: &mut impl Write,
    problem: &Problem,
    r: &DecodeResponse,
    style: &Style,
) -> io::Result<()> {
    match (r.status, &r.queens) {
        (Status::Sat, Some(q)) => {
            if problem.is_sparse() {
                // A board past MAX_N is never drawn (n² characters).
                return writeln!(
                    out,
                    "solved: the model decodes to a valid board ({} rows; --json lists the \
                     queens)",
                    problem.n()
                );
            }
            write!(out, "{}", report::board(problem, q, style.color))?;
            writeln!(out, "solved: the model decodes to a valid board")
        }
        (Status::Unsat, _) => writeln!(out, "no solution: the solver reports UNSATISFIABLE"),
        (Status::Unknown, _) => writeln!(out, "unknown: the solver gave no answer"),
        (status, _) => writeln!(out, "{}", no_answer(status, style.timeout)),
    }
}

/// Generated instances as a file: one in the writer's readable layout, or (`json_lines`)
/// one object per line.
pub fn instances(instances: &[serde_json::Value], json_lines: bool) -> String {
    let mut text = String::new();
    for value in instances {
        let one = queens::formats::json::write_value(value);
        if json_lines {
            // One object per line: the readable layout, joined.
            let line: Vec<&str> = one.lines().map(str::trim).collect();
            text += &line.join(" ");
            text.push('\n');
        } else {
            text += &one;
        }
    }
    text
}
