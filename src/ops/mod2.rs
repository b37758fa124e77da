//! The mod-2 game's operations ([`crate::games::mod2`]): check a board, replay a move list,
//! solve the game, and the two optimisation questions. The CLI prints these responses; the
//! service could serve them as they are.

use std::time::Instant;

use serde::Serialize;

use super::{ms, Context};
use crate::error::Error;
use crate::games::mod2::format::MoveList;
use crate::games::mod2::questions::{self, Method, Optimum, Question};
use crate::games::mod2::rules::{self, Board, State, Variant};
use crate::games::mod2::search::{self, Geometry, Layer, Limits, Stop};
use crate::model::Pos;

/// Bytes one stored position takes in a search table, as a rough measure (key, value, and
/// the hash table's slack).
const BYTES_PER_POSITION: u64 = 64;

fn max_positions(ctx: &Context) -> Option<u64> {
    ctx.budget.max_memory.map(|m| m / BYTES_PER_POSITION)
}

/// An empty square's value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SquareValue {
    /// The square.
    pub square: Pos,
    /// The queens attacking it.
    pub value: usize,
    /// True when the value is even.
    pub open: bool,
}

/// [`check`]'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckResponse {
    /// Complete, locked or unlocked.
    pub state: State,
    /// The open squares.
    pub open: Vec<Pos>,
    /// Board side.
    pub n: usize,
    /// Queens on the board.
    pub queens: usize,
    /// Every empty square with its value.
    pub empty: Vec<SquareValue>,
}

/// The state of the board holding `queens`, and every empty square's value.
pub fn check(n: usize, queens: &[Pos]) -> CheckResponse {
    let board = Board::with_queens(n, queens);
    let empty = board
        .empty_values()
        .into_iter()
        .map(|(square, value)| SquareValue {
            square,
            value,
            open: value % 2 == 0,
        })
        .collect();
    CheckResponse {
        state: board.state(),
        open: board.open_squares(),
        n,
        queens: board.count(),
        empty,
    }
}

/// The first illegal move, in a replay's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Illegal {
    /// Its index in the list (0-based).
    pub index: usize,
    /// The square.
    #[serde(rename = "move")]
    pub square: Pos,
    /// The rule it breaks.
    pub reason: String,
}

/// [`replay`]'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayResponse {
    /// `legal` (every move legal, every claim true), `illegal` (see `illegal`) or
    /// `false_claim` (the moves are legal but the file's `queens` or `state` is wrong).
    pub status: &'static str,
    /// Board side.
    pub n: usize,
    /// The game.
    pub variant: Variant,
    /// Moves in the list.
    pub moves: usize,
    /// Queens on the final board (of the legal prefix, when a move is illegal).
    pub queens: usize,
    /// The final board's state.
    pub state: State,
    /// Its open squares.
    pub open: Vec<Pos>,
    /// The first illegal move.
    pub illegal: Option<Illegal>,
    /// What is wrong with the file's claims.
    pub false_claim: Option<String>,
}

impl ReplayResponse {
    /// 0 when every move is legal and every claim true, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.status != "legal")
    }
}

/// Replays a move list, naming the first illegal move, and re-checks the file's claims.
pub fn replay(list: &MoveList) -> ReplayResponse {
    let (board, illegal) = match rules::replay(list.n, list.variant, &list.moves) {
        Ok(b) => (b, None),
        Err(e) => {
            let prefix = rules::replay(list.n, list.variant, &list.moves[..e.index])
                .expect("the moves before the first illegal one are legal");
            (prefix, Some(e))
        }
    };
    let mut false_claim = None;
    if illegal.is_none() {
        if let Some(q) = list.queens.filter(|&q| q != board.count()) {
            false_claim = Some(format!(
                "field `queens`: the file says {q}, the final board holds {}",
                board.count()
            ));
        } else if let Some(s) = list.state.filter(|&s| s != board.state()) {
            false_claim = Some(format!(
                "field `state`: the file says {}, the final board is {}",
                s.name(),
                board.state().name()
            ));
        }
    }
    ReplayResponse {
        status: match (&illegal, &false_claim) {
            (Some(_), _) => "illegal",
            (None, Some(_)) => "false_claim",
            (None, None) => "legal",
        },
        n: list.n,
        variant: list.variant,
        moves: list.moves.len(),
        queens: board.count(),
        state: board.state(),
        open: board.open_squares(),
        illegal: illegal.map(|e| Illegal {
            index: e.index,
            square: e.square,
            reason: e.reason,
        }),
        false_claim,
    }
}

/// [`solve`]'s request.
#[derive(Clone, Debug)]
pub struct SolveRequest {
    /// Board side (1..=11).
    pub n: usize,
    /// The game.
    pub variant: Variant,
    /// Also count the reachable positions and the game tree (Q11).
    pub reachable: bool,
}

/// The reachable positions of a game (Q11).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReachableReport {
    /// `ok`, `timeout` or `memory` (then the counts below are absent).
    pub status: &'static str,
    /// Positions up to symmetry.
    pub classes: Option<u64>,
    /// Positions.
    pub positions: Option<u64>,
    /// Nodes of the game tree: legal move sequences from the start, the empty one included.
    pub game_tree_nodes: Option<u128>,
    /// Finished games: move sequences ending where no move is left.
    pub games: Option<u128>,
    /// Per number of moves made.
    pub layers: Vec<Layer>,
    /// Milliseconds.
    pub time_ms: f64,
}

/// [`solve`]'s answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolveResponse {
    /// `first` or `second` (None when the search stopped early).
    pub winner: Option<&'static str>,
    /// A winning first move (the first player wins).
    #[serde(rename = "move")]
    pub first_move: Option<Pos>,
    /// Every winning first move.
    pub winning_moves: Vec<Pos>,
    /// Board side.
    pub n: usize,
    /// The game.
    pub variant: Variant,
    /// Positions (up to symmetry) the search stored.
    pub positions: Option<u64>,
    /// `ok`, `timeout` or `memory`.
    pub status: &'static str,
    /// Milliseconds for the winner.
    pub time_ms: f64,
    /// Q11, when asked for.
    pub reachable: Option<ReachableReport>,
}

impl SolveResponse {
    /// 0 with a winner, 4 when the search stopped early.
    pub fn exit_code(&self) -> u8 {
        if self.status == "ok" && self.reachable.as_ref().is_none_or(|r| r.status == "ok") {
            0
        } else {
            4
        }
    }
}

fn stop_name(s: Stop) -> &'static str {
    match s {
        Stop::Timeout => "timeout",
        Stop::Memory => "memory",
    }
}

/// Who wins with perfect play, and (optionally) how many positions are reachable.
pub fn solve(req: &SolveRequest, ctx: &Context) -> Result<SolveResponse, Error> {
    if !(1..=search::MAX_N).contains(&req.n) {
        return Err(Error::Unsupported(format!(
            "field `n`: the game search holds boards of 1..={} squares a side, not {}",
            search::MAX_N,
            req.n
        )));
    }
    let geo = Geometry::new(req.n);
    let limits = Limits {
        deadline: ctx.budget.deadline,
        max_positions: max_positions(ctx),
    };
    let start = Instant::now();
    let mut resp = SolveResponse {
        winner: None,
        first_move: None,
        winning_moves: Vec::new(),
        n: req.n,
        variant: req.variant,
        positions: None,
        status: "ok",
        time_ms: 0.0,
        reachable: None,
    };
    match search::solve(&geo, req.variant, &limits) {
        Ok(s) => {
            resp.winner = Some(if s.first_wins { "first" } else { "second" });
            resp.first_move = s.winning_move;
            resp.winning_moves = s.winning_moves;
            resp.positions = Some(s.positions);
        }
        Err(stop) => resp.status = stop_name(stop),
    }
    resp.time_ms = ms(start);
    if req.reachable {
        let start = Instant::now();
        resp.reachable = Some(match search::reachable(&geo, req.variant, &limits) {
            Ok(r) => ReachableReport {
                status: "ok",
                classes: Some(r.classes()),
                positions: Some(r.positions()),
                game_tree_nodes: r.game_tree_nodes(),
                games: r.games(&geo, req.variant),
                layers: r.layers.clone(),
                time_ms: ms(start),
            },
            Err(stop) => ReachableReport {
                status: stop_name(stop),
                classes: None,
                positions: None,
                game_tree_nodes: None,
                games: None,
                layers: Vec::new(),
                time_ms: ms(start),
            },
        });
    }
    Ok(resp)
}

/// [`optimum`]'s request.
#[derive(Clone, Debug)]
pub struct OptimumRequest {
    /// Board side.
    pub n: usize,
    /// Which question.
    pub question: Question,
    /// SAT (with an encoding) or exhaustive search.
    pub method: Method,
    /// Write each UNSAT call's CNF and proof here.
    pub proof_dir: Option<std::path::PathBuf>,
}

/// Largest board the SAT questions take (the encodings grow as n⁴ and beyond).
pub const MAX_OPTIMUM_N: usize = 32;

/// The most queens on a reachable board, or the fewest on a reachable locked one.
pub fn optimum(req: &OptimumRequest, ctx: &Context) -> Result<Optimum, Error> {
    if !(1..=MAX_OPTIMUM_N).contains(&req.n) {
        return Err(Error::Unsupported(format!(
            "field `n`: boards of 1..={MAX_OPTIMUM_N} squares a side, not {}",
            req.n
        )));
    }
    let budget = questions::Budget {
        deadline: ctx.budget.deadline,
        exe: ctx.isolate.clone(),
        max_positions: max_positions(ctx),
        proof_dir: req.proof_dir.clone(),
    };
    questions::answer(req.n, req.question, req.method, &budget)
}

/// The exit code of an optimum: 0 when proven, 4 when the limits stopped the search.
pub fn optimum_exit_code(o: &Optimum) -> u8 {
    if o.optimal {
        0
    } else {
        4
    }
}
