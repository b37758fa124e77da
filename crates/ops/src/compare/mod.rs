//! Engine comparison: every instance on every engine, each attempt in a child process.
//!
//! varisat cannot be interrupted, so a time limit that really stops the work (and frees the
//! CPU) needs a process boundary: each attempt is a `solve` request ([`SolveRequest::on_engine`])
//! run in a child `queens op` ([`Request::run_in_child`]), killed when the limit passes. A
//! killed run is a timeout, never an answer. Each attempt's time is the engine's (encoding
//! included for SAT, process start and parsing excluded), and every board the child reports
//! is verified with [`queens_model::verify()`] before it counts as solved. An input that cannot be
//! read or parsed is a row of its own, every engine an error, so the rest still runs.
//!
//! Times are milliseconds (`time_ms`), as in every command's JSON; the table prints them in
//! the unit that reads best.
//!
//! With proofs ([`Plan::proof`]), each UNSAT answer of an engine that proves (the
//! backtracker, the SAT engine) is asked again with `proof` in its solve request, under the
//! same limit: the proof streams to a file and is checked as it is written, and the attempt
//! reports that run's time and the proof's size beside the plain answer's time, so the price
//! of a certified "no" shows per engine.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::{
    Context, EngineName, ProofInfo, Request, Response, SolveRequest, SolveResponse, Status,
};
use queens_model::formats::sources::{Entry, Instance};
use queens_model::model::Problem;
use queens_proof::ProofFormat;

pub use queens_engine::EngineSpec;

mod growth;
mod report;

pub use growth::{growth, growth_plot, growth_text, GrowthFit, GrowthPoint};
pub use report::{
    check_plot, csv, fmt_attempt, fmt_bytes, fmt_count, fmt_ms, fmt_seconds, id_width, plan_csv,
    plot, problems, summary_text, table_header, table_line, to_json,
};

/// The id an entry is listed under, loaded or not.
pub fn entry_id(entry: &Entry) -> &str {
    match entry {
        Ok(inst) => &inst.id,
        Err(broken) => &broken.id,
    }
}

/// What an attempt that finished reports beside its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Engine milliseconds (encoding included for SAT).
    pub time_ms: f64,
    /// Backtracker: queens placed by the search.
    pub nodes: Option<u64>,
    /// SAT: clauses the solver learned (≈ conflicts).
    pub learned: Option<u64>,
    /// SAT: variables in the CNF.
    pub vars: Option<usize>,
    /// SAT: clauses in the CNF.
    pub clauses: Option<usize>,
    /// Race and auto: the engine that answered.
    pub answered_by: Option<EngineName>,
    /// Where the time went: each step of the plan that ran, with its engine, start and end
    /// (milliseconds) and how it ended, from the answer's `plan`.
    pub steps: Vec<serde_json::Value>,
}

impl Report {
    /// The figures of a `solve` answer.
    fn of(resp: &SolveResponse) -> Report {
        let w = &resp.work;
        // The SAT engine's own time: encoding and solving, without the request's parsing.
        let time_ms = match (resp.engine.sat_in_process(), w.encode_ms, w.solve_ms) {
            (true, Some(e), Some(s)) => e + s,
            _ => resp.time_ms,
        };
        Report {
            time_ms,
            nodes: w.nodes,
            learned: w.learned,
            vars: w.vars,
            clauses: w.clauses,
            answered_by: resp.answered_by,
            steps: resp.plan.as_deref().map_or_else(Vec::new, step_times),
        }
    }
}

/// The steps of an executed plan that ran, depth first.
fn step_times(plan: &queens_engine::plan::Step) -> Vec<serde_json::Value> {
    plan.all()
        .into_iter()
        .filter(|s| s.start_ms.is_some())
        .map(|s| {
            serde_json::json!({
                "step": s.step,
                "engine": s.engine.map(|e| e.to_string()),
                "start_ms": s.start_ms,
                "end_ms": s.end_ms,
                "ending": s.ending,
            })
        })
        .collect()
}

/// One engine's run on one instance.
#[derive(Clone, Debug)]
pub struct Attempt {
    /// The engine.
    pub engine: EngineSpec,
    /// How it ended: `sat` (a solution, verified by the parent), `unsat`, `timeout` (killed
    /// at the limit) or `error` (see `error`).
    pub outcome: Status,
    /// With `error`: the child failed (crash, bad output), refused the instance, or reported
    /// a board that does not verify.
    pub error: Option<String>,
    /// Why an attempt that is not a failure has no answer: with `timeout` before the limit,
    /// why the incomplete engine gave up (local search spent its starts); with
    /// `unsupported`, why the engine cannot run on this instance at all.
    pub note: Option<String>,
    /// Engine milliseconds as the child reported them; the limit for timeouts; wall time for
    /// errors (0 for an input that could not be read: nothing ran).
    pub time_ms: f64,
    /// The child's report, when it finished.
    pub report: Option<Report>,
    /// With proofs, on an UNSAT answer of an engine that proves: the certified run.
    pub proof: Option<ProofRun>,
}

/// The run that certified an UNSAT answer: the same solve with a proof, checked as written.
#[derive(Clone, Debug, PartialEq)]
pub struct ProofRun {
    /// Wall milliseconds of the whole certified answer (search, proof, check), or the limit.
    pub time_ms: f64,
    /// The proof, its check and its files; `None` when the limit passed first.
    pub info: Option<ProofInfo>,
}

/// True when `spec` can prove its UNSAT answers here.
pub fn proves(spec: EngineSpec) -> bool {
    spec.proves()
}

/// Where one attempt's proof goes: `proof` in `format`, and the CNF it refutes.
#[derive(Clone, Debug)]
pub struct ProofTarget {
    /// The format.
    pub format: ProofFormat,
    /// The proof file.
    pub proof: PathBuf,
    /// The CNF file.
    pub cnf: PathBuf,
}

/// Proves an UNSAT answer of `spec` on `problem` in a child, into `to`, under `limit`.
pub fn prove_in_child(
    exe: &Path,
    problem: &Problem,
    spec: EngineSpec,
    limit: Duration,
    stop: &Arc<AtomicBool>,
    to: &ProofTarget,
) -> Result<ProofRun, String> {
    let start = Instant::now();
    let mut req = SolveRequest::on_engine(problem.clone(), spec);
    req.proof = Some(to.format);
    let mut ctx = Context::default();
    ctx.budget.cancel = Some(Arc::clone(stop));
    ctx.budget.deadline = start.checked_add(limit);
    ctx.proof_file = Some(to.proof.clone());
    let (resp, artifacts) = match Request::Solve(req).run_in_child(exe, &ctx) {
        Ok((Response::Solve(r), a)) => (r, a),
        Ok(_) => return Err("the child answered another kind of request".into()),
        Err(e) => return Err(format!("proving: {e}")),
    };
    match resp.status {
        Status::Unsat => {}
        Status::Cancelled => return Err("stopped before it finished".into()),
        Status::Timeout => {
            let _ = std::fs::remove_file(&to.proof);
            return Ok(ProofRun {
                time_ms: limit.as_secs_f64() * 1e3,
                info: None,
            });
        }
        other => {
            return Err(format!(
                "proving: the certified run answered {} where the plain one said unsat",
                other.name()
            ))
        }
    }
    let mut info = resp
        .proof
        .ok_or("proving: the answer unsat came without its proof")?;
    let write = |path: &Path, name: &str| -> Result<(), String> {
        let bytes = artifacts
            .get(name)
            .ok_or(format!("proving: the answer unsat came without its {name}"))?;
        std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
    };
    if info.path.is_none() {
        write(&to.proof, "proof")?;
    }
    write(&to.cnf, "cnf")?;
    info.path = Some(to.proof.display().to_string());
    info.cnf = Some(to.cnf.display().to_string());
    Ok(ProofRun {
        time_ms: resp.time_ms,
        info: Some(info),
    })
}

impl Attempt {
    /// What the `error` column and field say: the failure, or why the engine cannot run here.
    pub fn error_text(&self) -> Option<&str> {
        self.error.as_deref().or(match self.outcome {
            Status::Unsupported => self.note.as_deref(),
            _ => None,
        })
    }

    /// Why an incomplete engine gave up before the limit, for a timeout that was not one.
    pub fn gave_up(&self) -> Option<&str> {
        match self.outcome {
            Status::Timeout => self.note.as_deref(),
            _ => None,
        }
    }
}

/// Runs one attempt of `spec` on the instance in a child `queens op` of `exe` with a hard
/// limit, and checks the answer.
pub fn run_child(exe: &Path, problem: &Problem, spec: EngineSpec, limit: Duration) -> Attempt {
    run_child_until(exe, problem, spec, limit, &Arc::new(AtomicBool::new(false)))
}

/// [`run_child`], also killing the child as soon as `stop` is set (the attempt is then an
/// error, "stopped": no answer was reached).
pub fn run_child_until(
    exe: &Path,
    problem: &Problem,
    spec: EngineSpec,
    limit: Duration,
    stop: &Arc<AtomicBool>,
) -> Attempt {
    let start = Instant::now();
    let fail = |msg: String| Attempt {
        engine: spec,
        outcome: Status::Error,
        error: Some(msg),
        note: None,
        time_ms: start.elapsed().as_secs_f64() * 1e3,
        report: None,
        proof: None,
    };
    let mut req = SolveRequest::on_engine(problem.clone(), spec);
    req.learned = spec.sat_encoding().is_some();
    let mut ctx = Context::default();
    ctx.budget.cancel = Some(Arc::clone(stop));
    // A limit too far off for the clock is no limit.
    ctx.budget.deadline = start.checked_add(limit);
    let resp = match Request::Solve(req).run_in_child(exe, &ctx) {
        Ok((Response::Solve(r), _)) => r,
        Ok(_) => return fail("the child answered another kind of request".into()),
        Err(e) => return fail(e.to_string()),
    };
    let outcome = match resp.status {
        Status::Sat | Status::Unsat => resp.status,
        Status::Cancelled => return fail("stopped before it finished".into()),
        // The limit passed: a timeout, whatever the engine had found.
        _ if start.elapsed() >= limit => {
            return Attempt {
                engine: spec,
                outcome: Status::Timeout,
                error: None,
                note: None,
                time_ms: limit.as_secs_f64() * 1e3,
                report: None,
                proof: None,
            }
        }
        // Within the limit, an incomplete engine gave up (local search spent its starts): no
        // answer within the limits, as `solve` exits 4; never "no solution", never a failure.
        Status::Timeout => {
            let report = Report::of(&resp);
            return Attempt {
                engine: spec,
                outcome: Status::Timeout,
                error: None,
                note: Some(
                    resp.reason
                        .clone()
                        .unwrap_or_else(|| format!("the {} engine gave up", spec.name())),
                ),
                time_ms: report.time_ms,
                report: Some(report),
                proof: None,
            };
        }
        // Within the limit but no answer: local search spent its restarts, an external
        // solver said `s UNKNOWN`. Saying "no solution" would be a lie.
        status => {
            let why = resp.reason.as_deref().unwrap_or("no reason given");
            return fail(format!(
                "the {} engine gave no answer ({}): {why}",
                spec.name(),
                status.name()
            ));
        }
    };
    let report = Report::of(&resp);
    Attempt {
        engine: spec,
        outcome,
        error: None,
        note: None,
        time_ms: report.time_ms,
        report: Some(report),
        proof: None,
    }
}

/// One instance across all engines.
#[derive(Clone, Debug)]
pub struct Row {
    /// Position in the input.
    pub index: usize,
    /// Instance id.
    pub id: String,
    /// Board size; `None` when the input could not be read.
    pub n: Option<usize>,
    /// One attempt per engine, in the order the engines were given.
    pub attempts: Vec<Attempt>,
    /// Why the input could not be run (naming the file and line); every attempt is then this
    /// error.
    pub error: Option<String>,
}

impl Row {
    /// The status the engines agree on: `Some(true)` SAT, `Some(false)` UNSAT, `None` when no
    /// engine answered.
    pub fn status(&self) -> Option<bool> {
        self.attempts.iter().find_map(|a| a.outcome.answer())
    }

    /// True when one engine says SAT and another UNSAT.
    pub fn disagreement(&self) -> bool {
        let answers: Vec<bool> = self
            .attempts
            .iter()
            .filter_map(|a| a.outcome.answer())
            .collect();
        answers.iter().any(|&a| a) && answers.iter().any(|&a| !a)
    }

    /// Status word for tables: `sat`, `unsat`, `DISAGREE`, `unknown` (no engine answered), or
    /// `error` (the input could not be run).
    pub fn status_name(&self) -> &'static str {
        if self.error.is_some() {
            Status::Error.name()
        } else if self.disagreement() {
            "DISAGREE"
        } else {
            match self.status() {
                Some(true) => Status::Sat.name(),
                Some(false) => Status::Unsat.name(),
                None => Status::Unknown.name(),
            }
        }
    }
}

/// How to run a comparison.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The `queens` binary to run children with.
    pub exe: std::path::PathBuf,
    /// Engines, the first being the reference for ratios.
    pub engines: Vec<EngineSpec>,
    /// Per-attempt limit.
    pub timeout: Duration,
    /// Instances run at the same time (1 gives the cleanest timings).
    pub jobs: usize,
    /// Prove the UNSAT answers of the engines that can ([`proves`]) in this format, into
    /// `proof_dir`.
    pub proof: Option<ProofFormat>,
    /// The folder of the proofs and their CNFs.
    pub proof_dir: Option<PathBuf>,
}

impl Plan {
    /// Where the proof of `spec`'s answer on the instance named `name` goes, if proofs are
    /// asked for and `spec` proves.
    fn proof_target(&self, name: &str, spec: EngineSpec) -> Option<ProofTarget> {
        let (format, dir) = (self.proof?, self.proof_dir.as_deref()?);
        if !proves(spec) {
            return None;
        }
        let engine: String = spec
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let base = format!("{name}.{engine}");
        Some(ProofTarget {
            format,
            proof: dir.join(format!("{base}.{format}")),
            cnf: dir.join(format!("{base}.cnf")),
        })
    }
}

/// Why `spec` cannot run on `problem` at all, if it cannot: the complete engines keep n² bits
/// and stop at [`queens_model::model::MAX_N`], past which backtrack, sat and ext search the core of
/// a completion that fits ([`queens_engine::completion::fits`]); local search solves classic
/// boards only.
pub fn unsupported(problem: &Problem, spec: EngineSpec) -> Option<String> {
    if let Err(e) = queens_engine::complete_only(problem, spec) {
        let n = problem.n();
        return Some(format!(
            "{} runs on boards up to {}×{}, not {n}×{n} ({e})",
            spec.name(),
            queens_model::model::MAX_N,
            queens_model::model::MAX_N
        ));
    }
    if spec.is_local_search() {
        if let Err(e) = queens_engine::local::supports(problem) {
            return Some(e.to_string());
        }
    }
    None
}

/// Runs every instance on every engine. `on_row` is called as each instance finishes (from
/// worker threads, in completion order); `on_attempt` after every attempt. Rows come back in
/// input order. An entry that could not be loaded runs nothing: its row has the error for
/// every engine. Setting `stop` (say, when the reader of the table has gone) kills the running
/// children and starts no more; only the instances finished by then come back.
pub fn run(
    plan: &Plan,
    instances: &[Entry],
    on_attempt: &(dyn Fn(&Instance, EngineSpec) + Sync),
    on_row: &(dyn Fn(&Row) + Sync),
    stop: &Arc<AtomicBool>,
) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let rows = std::sync::Mutex::new(Vec::with_capacity(instances.len()));
    let names = crate::batch_file::proof_names(
        &instances
            .iter()
            .enumerate()
            .map(|(index, e)| crate::batch_file::Member {
                index,
                id: entry_id(e).to_string(),
                hash: String::new(),
            })
            .collect::<Vec<_>>(),
    );
    std::thread::scope(|s| {
        for _ in 0..plan.jobs.clamp(1, instances.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = instances.get(i) else { break };
                let inst = match entry {
                    Ok(inst) => inst,
                    Err(broken) => {
                        let row = error_row(plan, i, broken);
                        on_row(&row);
                        rows.lock().expect("no worker panics").push(row);
                        continue;
                    }
                };
                let mut attempts = Vec::with_capacity(plan.engines.len());
                for &spec in &plan.engines {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    attempts.push(match unsupported(&inst.problem, spec) {
                        Some(why) => Attempt {
                            engine: spec,
                            outcome: Status::Unsupported,
                            error: None,
                            note: Some(why),
                            time_ms: 0.0,
                            report: None,
                            proof: None,
                        },
                        None => {
                            let mut a =
                                run_child_until(&plan.exe, &inst.problem, spec, plan.timeout, stop);
                            let target = plan.proof_target(&names[&i], spec);
                            if let (Status::Unsat, Some(to)) = (a.outcome, target) {
                                match prove_in_child(
                                    &plan.exe,
                                    &inst.problem,
                                    spec,
                                    plan.timeout,
                                    stop,
                                    &to,
                                ) {
                                    Ok(run) => a.proof = Some(run),
                                    // A "no" whose proof fails is no certified answer.
                                    Err(e) => {
                                        a.outcome = Status::Error;
                                        a.error = Some(e);
                                    }
                                }
                            }
                            a
                        }
                    });
                    on_attempt(inst, spec);
                }
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let row = Row {
                    index: i,
                    id: inst.id.clone(),
                    n: Some(inst.problem.n()),
                    attempts,
                    error: None,
                };
                on_row(&row);
                rows.lock().expect("no worker panics").push(row);
            });
        }
    });
    let mut rows = rows.into_inner().expect("no worker panics");
    rows.sort_by_key(|r| r.index);
    rows
}

/// The row of an input that could not be loaded: every engine an error, nothing run.
fn error_row(plan: &Plan, index: usize, broken: &queens_model::formats::sources::Broken) -> Row {
    let message = broken.error.to_string();
    Row {
        index,
        id: broken.id.clone(),
        n: None,
        attempts: plan
            .engines
            .iter()
            .map(|&engine| Attempt {
                engine,
                outcome: Status::Error,
                error: Some(message.clone()),
                note: None,
                time_ms: 0.0,
                report: None,
                proof: None,
            })
            .collect(),
        error: Some(message),
    }
}

/// Per-engine totals.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Engine name.
    pub engine: String,
    /// Instances answered (SAT + UNSAT), every board verified.
    pub solved: usize,
    /// Of which satisfiable.
    pub sat: usize,
    /// Of which proven unsatisfiable.
    pub unsat: usize,
    /// Attempts killed at the limit.
    pub timeouts: usize,
    /// Attempts that crashed or reported a board that does not verify.
    pub errors: usize,
    /// Instances this engine cannot run (a board too large for it): not run, not counted
    /// as timeouts or errors.
    pub unsupported: usize,
    /// Median milliseconds over solved instances.
    pub median_time_ms: Option<f64>,
    /// Total milliseconds over solved instances.
    pub total_time_ms: f64,
    /// Instances this engine and the reference (first) engine both solved.
    pub common: usize,
    /// This engine's total time over the reference's, on the instances both solved.
    pub ratio_to_reference: Option<f64>,
    /// With proofs: UNSAT answers proven and checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proofs: Option<usize>,
    /// With proofs: total milliseconds of the certified runs, and of the plain runs of the
    /// same answers (their ratio is the price of the proofs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_time_ms: Option<f64>,
    /// See `proof_time_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proven_plain_time_ms: Option<f64>,
    /// With proofs: their total size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_bytes: Option<u64>,
}

/// Summaries in engine order; ratios are against the first engine.
pub fn summarize(engines: &[EngineSpec], rows: &[Row]) -> Vec<Summary> {
    engines
        .iter()
        .enumerate()
        .map(|(e, spec)| {
            let mine: Vec<&Attempt> = rows.iter().map(|r| &r.attempts[e]).collect();
            let mut times: Vec<f64> = mine
                .iter()
                .filter(|a| a.outcome.answer().is_some())
                .map(|a| a.time_ms)
                .collect();
            times.sort_by(f64::total_cmp);
            let count = |o: &dyn Fn(&Status) -> bool| mine.iter().filter(|a| o(&a.outcome)).count();
            let both: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| {
                    r.attempts[e].outcome.answer().is_some()
                        && r.attempts[0].outcome.answer().is_some()
                })
                .map(|r| (r.attempts[e].time_ms, r.attempts[0].time_ms))
                .collect();
            let (mine_t, ref_t): (f64, f64) = both
                .iter()
                .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
            let proven: Vec<(&Attempt, &ProofInfo, f64)> = mine
                .iter()
                .filter_map(|a| {
                    let p = a.proof.as_ref()?;
                    Some((*a, p.info.as_ref()?, p.time_ms))
                })
                .collect();
            let any_proof = mine.iter().any(|a| a.proof.is_some());
            Summary {
                engine: spec.to_string(),
                solved: times.len(),
                sat: count(&|o| *o == Status::Sat),
                unsat: count(&|o| *o == Status::Unsat),
                timeouts: count(&|o| *o == Status::Timeout),
                errors: count(&|o| *o == Status::Error),
                unsupported: count(&|o| *o == Status::Unsupported),
                median_time_ms: median(&times),
                // fold, not sum: an empty f64 sum is -0.0, which would print as "-0µs".
                total_time_ms: times.iter().fold(0.0, |a, t| a + t),
                common: both.len(),
                ratio_to_reference: (!both.is_empty() && ref_t > 0.0).then(|| mine_t / ref_t),
                proofs: any_proof.then_some(proven.len()),
                proof_time_ms: any_proof.then(|| proven.iter().fold(0.0, |s, p| s + p.2)),
                proven_plain_time_ms: any_proof
                    .then(|| proven.iter().fold(0.0, |s, p| s + p.0.time_ms)),
                proof_bytes: any_proof.then(|| proven.iter().map(|p| p.1.bytes as u64).sum()),
            }
        })
        .collect()
}

fn median(sorted: &[f64]) -> Option<f64> {
    match sorted.len() {
        0 => None,
        k if k % 2 == 1 => Some(sorted[k / 2]),
        k => Some((sorted[k / 2 - 1] + sorted[k / 2]) / 2.0),
    }
}
