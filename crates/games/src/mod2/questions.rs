//! The paper's questions answered with certificates: the most queens on a reachable board
//! (Q4) and the fewest on a reachable locked board (Q7), by SAT with checked UNSAT proofs
//! for the bound, or by exhaustive search that says what it covered. Every board answered
//! comes with a move order that [`super::rules::replay`] accepts before it is returned.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use varisat::CnfFormula;

use super::encode::{self, Encoding, Goal};
use super::rules::{self, State, Variant};
use super::search::{self, Geometry, Limits, Stop};
use queens_engine::formula::{self, Outcome};
use queens_model::error::Error;
use queens_model::model::Pos;
use queens_model::status::Status;

/// Which question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Question {
    /// The most queens on a reachable board.
    Max,
    /// The fewest queens on a reachable locked board.
    MinLock,
}

impl Question {
    /// The name the CLI and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Question::Max => "max",
            Question::MinLock => "min-lock",
        }
    }
}

/// How the question is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// SAT calls on an encoding; every UNSAT with a checked proof.
    Sat(encode::Options),
    /// Every reachable position, breadth first, up to symmetry (n ≤ 11, small n in practice).
    Exhaustive,
}

/// What a question may spend.
#[derive(Clone, Default)]
pub struct Budget<'a> {
    /// Stop (with the best answer so far, `optimal: false`) once this passes.
    pub deadline: Option<Instant>,
    /// Where SAT calls run under a deadline (killed at it); here when `None`.
    pub sat: Option<formula::Runner<'a>>,
    /// The exhaustive search stops once it stores this many positions.
    pub max_positions: Option<u64>,
    /// Write each UNSAT call's CNF and LRAT proof into this folder.
    pub proof_dir: Option<PathBuf>,
}

/// One SAT call of the search for the optimum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Call {
    /// `queens` (a reachable board with exactly K queens) or `locked_at_most` (a reachable
    /// locked board with at most K).
    pub goal: String,
    /// K.
    pub k: usize,
    /// `sat`, `unsat` (proof checked) or `timeout`.
    pub result: Status,
    /// How the result was reached: `sat` (a SAT call), or `pair-parity` (every board with K
    /// queens has an odd number of attacking pairs, checked board by board, while a
    /// reachable board has an even number of them).
    pub by: String,
    /// Queens on the board found (SAT).
    pub found: Option<usize>,
    /// Variables of the CNF.
    pub vars: usize,
    /// Clauses of the CNF.
    pub clauses: usize,
    /// Milliseconds for this call (encoding, solving, proof conversion and check).
    pub time_ms: f64,
    /// Lemmas of the LRAT proof (UNSAT).
    pub lemmas: Option<u64>,
    /// Milliseconds the built-in checker took (UNSAT).
    pub check_ms: Option<f64>,
    /// Where the CNF and its proof were written (`--proof-dir`).
    #[schema(value_type = Option<Vec<String>>)]
    pub files: Option<[String; 2]>,
}

/// What an exhaustive search went through.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Covered {
    /// Reachable positions up to symmetry (all of them: the search ran to the end).
    pub classes: u64,
    /// Reachable positions.
    pub positions: u64,
}

/// The answer to `max` (the most queens on a reachable board) or `min-lock` (the fewest on
/// a reachable locked one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Optimum {
    /// Board side.
    pub n: usize,
    /// `max` or `min-lock`.
    pub question: Question,
    /// The best board found: its queens (None: none found, or none exists).
    pub queens: Option<usize>,
    /// The legal placement order that builds it, replayed before it was returned.
    #[schema(value_type = Option<Vec<Vec<usize>>>)]
    pub moves: Option<Vec<Pos>>,
    /// True when the bound is proven: no reachable board has more (max) or fewer (min-lock)
    /// queens; with `queens: null`, that no reachable locked board exists at all.
    pub optimal: bool,
    /// The board's state (`locked` for min-lock).
    pub state: Option<State>,
    /// What is proven beyond the board, in words.
    pub bound: String,
    /// `sat` or `exhaustive`.
    pub method: String,
    /// The SAT encoding (`plan` or `rank`).
    pub encoding: Option<Encoding>,
    /// The SAT calls made, in order.
    pub calls: Vec<Call>,
    /// What the exhaustive search covered.
    pub covered: Option<Covered>,
    /// `ok`, or why the search stopped early (`timeout`, `memory`).
    pub status: Status,
    /// Milliseconds in all.
    pub time_ms: f64,
}

impl Optimum {
    /// The answer of a question stopped before it found or proved anything (its worker
    /// killed at the deadline, say).
    pub fn stopped(n: usize, question: Question, method: Method, status: Status) -> Optimum {
        let (name, encoding) = match method {
            Method::Sat(o) => ("sat", Some(o.encoding)),
            Method::Exhaustive => ("exhaustive", None),
        };
        Optimum {
            n,
            question,
            queens: None,
            moves: None,
            optimal: false,
            state: None,
            bound: "no bound proven".into(),
            method: name.into(),
            encoding,
            calls: Vec::new(),
            covered: None,
            status,
            time_ms: 0.0,
        }
    }
}

impl Optimum {
    /// Replays the board's move order and checks what the answer says of it: its queens,
    /// its state when one is given, and for min-lock that it is locked. Returns the board's
    /// state (`None`: no board). Whoever hands an answer on (this module, or a parent that
    /// got it from a worker) calls this first.
    pub fn check_board(&self) -> Result<Option<State>, Error> {
        let (Some(moves), Some(k)) = (&self.moves, self.queens) else {
            return Ok(None);
        };
        let state = check_claims(self.n, moves, k, self.state)?;
        if self.question == Question::MinLock && state != State::Locked {
            return Err(Error::internal(format!(
                "a reported min-lock board is {}, not locked",
                state.name()
            )));
        }
        Ok(Some(state))
    }
}

/// Replays `moves` in the standard game and checks the claims about the final board.
pub fn check_claims(
    n: usize,
    moves: &[Pos],
    queens: usize,
    state: Option<State>,
) -> Result<State, Error> {
    let board = rules::replay(n, Variant::Standard, moves)
        .map_err(|e| Error::internal(format!("a reported move order does not replay: {e}")))?;
    if board.count() != queens {
        return Err(Error::internal(format!(
            "a reported board has {} queens, not the {queens} claimed",
            board.count()
        )));
    }
    let got = board.state();
    if state.is_some_and(|s| s != got) {
        return Err(Error::internal(format!(
            "a reported board is {}, not {}",
            got.name(),
            state.map_or("", State::name)
        )));
    }
    Ok(got)
}

/// Answers `question` on the n×n board (standard game).
pub fn answer(
    n: usize,
    question: Question,
    method: Method,
    budget: &Budget,
) -> Result<Optimum, Error> {
    if n == 0 {
        return Err(Error::unsupported_at_field(
            "n",
            "the board size must be at least 1",
        ));
    }
    let start = Instant::now();
    let mut out = match method {
        Method::Exhaustive => exhaustive(n, question, budget)?,
        Method::Sat(opts) => by_sat(n, question, opts, budget)?,
    };
    out.state = out.check_board()?;
    out.time_ms = queens_engine::ms(start);
    Ok(out)
}

fn exhaustive(n: usize, question: Question, budget: &Budget) -> Result<Optimum, Error> {
    if n > search::MAX_N {
        return Err(Error::unsupported_at_field(
            "n",
            format!(
                "the exhaustive search holds boards up to {0}×{0}",
                search::MAX_N
            ),
        ));
    }
    let geo = Geometry::new(n);
    let limits = Limits {
        deadline: budget.deadline,
        max_positions: budget.max_positions,
    };
    let mut out = Optimum::stopped(n, question, Method::Exhaustive, Status::Ok);
    let reach = match search::reachable(&geo, Variant::Standard, &limits) {
        Ok(r) => r,
        Err(stop) => {
            out.status = stop_name(stop);
            out.bound = "the search stopped before it covered every reachable position".into();
            return Ok(out);
        }
    };
    out.covered = Some(Covered {
        classes: reach.classes(),
        positions: reach.positions(),
    });
    out.optimal = true;
    let found = match question {
        Question::Max => Some(reach.deepest()),
        Question::MinLock => reach.first_locked(&geo, Variant::Standard),
    };
    if let Some((d, board)) = found {
        out.queens = Some(d);
        out.moves = Some(reach.move_order(&geo, Variant::Standard, d, board));
    }
    out.bound = format!(
        "every reachable position was visited ({} up to symmetry, {} in all)",
        reach.classes(),
        reach.positions()
    );
    Ok(out)
}

fn stop_name(stop: Stop) -> Status {
    match stop {
        Stop::Timeout => Status::Timeout,
        Stop::Memory => Status::Memory,
    }
}

/// One SAT call for `goal`: the move order found, or None when proven impossible; Err(())
/// when the deadline passed.
fn call(
    n: usize,
    goal: Goal,
    opts: encode::Options,
    budget: &Budget,
    calls: &mut Vec<Call>,
) -> Result<Result<Option<Vec<Pos>>, ()>, Error> {
    let start = Instant::now();
    let mut formula = CnfFormula::new();
    // Large boards' encodings take long to build (n = 21: more than ten seconds), before
    // the solver's own deadline applies: the deadline stops the building too.
    let mut sink = UntilDeadline {
        formula: &mut formula,
        deadline: budget.deadline,
        clauses: 0,
        expired: false,
    };
    let decoder = encode::encode(&mut sink, n, goal, opts);
    if sink.expired {
        return Ok(Err(()));
    }
    let (name, k) = match goal {
        Goal::Queens(k) => ("queens", k),
        Goal::LockedAtMost(k) => ("locked_at_most", k),
    };
    let mut record = Call {
        goal: name.into(),
        k,
        result: Status::Timeout,
        by: "sat".into(),
        found: None,
        vars: formula.var_count(),
        clauses: formula.len(),
        time_ms: 0.0,
        lemmas: None,
        check_ms: None,
        files: None,
    };
    let outcome = formula::decide(&formula, budget.deadline, budget.sat)?;
    let result = match outcome {
        Outcome::Timeout => Err(()),
        Outcome::Sat(model) => {
            let mut value = vec![false; formula.var_count()];
            for l in model {
                if l.index() < value.len() {
                    value[l.index()] = l.is_positive();
                }
            }
            let moves = decoder.moves(n, |l| value[l.index()] == l.is_positive());
            record.result = Status::Sat;
            record.found = Some(moves.len());
            Ok(Some(moves))
        }
        Outcome::Unsat(proof) => {
            record.result = Status::Unsat;
            record.lemmas = Some(proof.lemmas);
            record.check_ms = Some(proof.check_ms);
            if let Some(dir) = &budget.proof_dir {
                record.files = Some(write_proof(dir, n, name, k, &formula, &proof.lrat)?);
            }
            Ok(None)
        }
    };
    record.time_ms = queens_engine::ms(start);
    calls.push(record);
    Ok(result)
}

/// A formula that takes clauses until `deadline`: after it, it says it is full (encoders
/// stop between constraints) and drops the rest.
struct UntilDeadline<'a> {
    formula: &'a mut CnfFormula,
    deadline: Option<Instant>,
    clauses: u64,
    expired: bool,
}

impl queens_engine::encode::ClauseSink for UntilDeadline<'_> {
    fn new_var(&mut self) -> varisat::Lit {
        self.formula.new_var()
    }

    fn add_clause(&mut self, lits: &[varisat::Lit]) {
        if self.expired {
            return;
        }
        self.clauses += 1;
        if self.clauses % 4096 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.expired = true;
            return;
        }
        self.formula.add_clause(lits);
    }

    fn full(&self) -> bool {
        self.expired
    }
}

fn write_proof(
    dir: &std::path::Path,
    n: usize,
    goal: &str,
    k: usize,
    formula: &CnfFormula,
    lrat: &[u8],
) -> Result<[String; 2], Error> {
    let io = |path: PathBuf| move |e| Error::Io { path, source: e };
    std::fs::create_dir_all(dir).map_err(io(dir.to_path_buf()))?;
    let cnf_path = dir.join(format!("mod2-n{n}-{goal}-{k}.cnf"));
    let lrat_path = dir.join(format!("mod2-n{n}-{goal}-{k}.lrat"));
    let mut cnf = Vec::new();
    varisat::dimacs::write_dimacs(&mut cnf, formula).map_err(io(cnf_path.clone()))?;
    std::fs::write(&cnf_path, cnf).map_err(io(cnf_path.clone()))?;
    std::fs::write(&lrat_path, lrat).map_err(io(lrat_path.clone()))?;
    Ok([
        cnf_path.display().to_string(),
        lrat_path.display().to_string(),
    ])
}

/// For even n, no board with n² − 1 queens is reachable: a reachable board has an even
/// number of attacking pairs (each queen is placed with an even number of attackers already
/// there, and each pair is counted once, at its later queen); the full board has an even
/// number (every line contributes C(len, 2) twice over: rows with columns, diagonals with
/// anti-diagonals), and each square has an odd number of squares attacking it, so every
/// board with one empty square has an odd number. Checked here board by board with
/// [`rules::Board::attacking_pairs`] rather than trusted; SAT solvers cannot find this
/// parity argument (resolution proofs of such XOR sums are exponential), so it is the cut
/// that makes Q4 answerable. Returns the cut, or None when some board fails it.
/// Also None when `deadline` passes first (n = 32 takes a second).
fn pair_parity_cut(n: usize, deadline: Option<Instant>) -> Option<Call> {
    let start = Instant::now();
    let cells = n * n;
    if cells < 2 {
        return None;
    }
    let all: Vec<Pos> = (0..cells).map(|c| (c / n, c % n)).collect();
    let odd = all.iter().all(|&hole| {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        let rest: Vec<Pos> = all.iter().copied().filter(|&p| p != hole).collect();
        rules::Board::with_queens(n, &rest).attacking_pairs() % 2 == 1
    });
    odd.then(|| Call {
        goal: "queens".into(),
        k: cells - 1,
        result: Status::Unsat,
        by: "pair-parity".into(),
        found: None,
        vars: 0,
        clauses: 0,
        time_ms: queens_engine::ms(start),
        lemmas: None,
        check_ms: None,
        files: None,
    })
}

/// The known constructions, as first guesses: a complete board for odd n (Prop. 1), n² − 2
/// for even n (Prop. 3); a locked board of 2n − 1 queens for odd n (Prop. 5), 2n − 3 for
/// even n > 2 (Prop. 6). A guess only orders the SAT calls; every answer is proven.
fn guess(n: usize, question: Question) -> usize {
    let cells = n * n;
    match question {
        Question::Max if n % 2 == 1 => cells,
        Question::Max => cells.saturating_sub(2).max(1),
        Question::MinLock if n % 2 == 1 => (2 * n - 1).min(cells - 1),
        Question::MinLock if n > 2 => 2 * n - 3,
        Question::MinLock => cells - 1,
    }
}

fn by_sat(
    n: usize,
    question: Question,
    opts: encode::Options,
    budget: &Budget,
) -> Result<Optimum, Error> {
    let cells = n * n;
    let mut calls = Vec::new();
    let mut best: Option<Vec<Pos>> = None;
    let mut status = Status::Ok;
    let optimal;
    let bound;
    match question {
        Question::Max => {
            // Reachable boards are closed under taking prefixes of their move order, so
            // "none with K" proves "none with more than K".
            let mut none_with = cells + 1;
            if let Some(call) = pair_parity_cut(n, budget.deadline) {
                none_with = call.k;
                calls.push(call);
            }
            let g = guess(n, question);
            loop {
                let b = best.as_ref().map(Vec::len);
                if b == Some(cells) || b.is_some_and(|b| b + 1 == none_with) {
                    break;
                }
                let k = match b {
                    Some(b) => b + 1,
                    None if g < none_with => g,
                    None => none_with - 1,
                };
                match call(n, Goal::Queens(k), opts, budget, &mut calls)? {
                    Err(()) => {
                        status = Status::Timeout;
                        break;
                    }
                    Ok(Some(moves)) => best = Some(moves),
                    Ok(None) => none_with = k,
                }
            }
            let b = best.as_ref().map_or(0, Vec::len);
            optimal = status == Status::Ok;
            bound = if b == cells {
                "the board is complete: no board holds more".to_string()
            } else if none_with <= cells {
                let how = match calls
                    .iter()
                    .find(|c| c.k == none_with && c.result == Status::Unsat)
                {
                    Some(c) if c.by == "pair-parity" => {
                        "each of the boards with that many queens has an odd number of \
                         attacking pairs, a reachable board an even number"
                    }
                    _ => "UNSAT, proof checked",
                };
                format!(
                    "no reachable board has {none_with} queens ({how}), so none has more than {}",
                    none_with - 1
                )
            } else {
                "no bound proven".to_string()
            };
        }
        Question::MinLock => {
            // One call at the known construction's size gives a board quickly; then upwards
            // from 0, where refutations are cheap, until a call finds a board (the calls
            // below it refuted every smaller one) or reaches the board in hand. Measured:
            // going down from the construction instead spent the whole budget on 7×7 in
            // the call for 12 after finding 13.
            let mut none_at_most: Option<usize> = None;
            let mut next = Some(guess(n, question));
            while let Some(k) = next {
                match call(n, Goal::LockedAtMost(k), opts, budget, &mut calls)? {
                    Err(()) => {
                        status = Status::Timeout;
                        break;
                    }
                    Ok(Some(moves)) => {
                        if best.as_ref().is_none_or(|b| moves.len() < b.len()) {
                            best = Some(moves);
                        }
                    }
                    Ok(None) => none_at_most = Some(none_at_most.map_or(k, |p| p.max(k))),
                }
                let up = none_at_most.map_or(0, |p| p + 1);
                next = match best.as_ref().map(Vec::len) {
                    Some(b) if up >= b => None,
                    Some(_) => Some(up),
                    None if up < cells => Some(up),
                    None => None,
                };
            }
            optimal = status == Status::Ok;
            bound = match (best.as_ref().map(Vec::len), none_at_most) {
                (None, Some(p)) if optimal => format!(
                    "no reachable board with at most {p} queens is locked (UNSAT, proof \
                     checked): no reachable locked board exists"
                ),
                (_, Some(p)) => format!(
                    "no reachable locked board has at most {p} queens (UNSAT, proof checked)"
                ),
                (_, None) => "no bound proven".to_string(),
            };
        }
    }
    Ok(Optimum {
        n,
        question,
        queens: best.as_ref().map(Vec::len),
        moves: best,
        optimal,
        state: None,
        bound,
        method: "sat".into(),
        encoding: Some(opts.encoding),
        calls,
        covered: None,
        status,
        time_ms: 0.0,
    })
}
