//! The mod-2 game's operations ([`crate::games::mod2`]): check a board, replay a move list,
//! solve the game, and the two optimisation questions. The CLI prints these responses; the
//! service could serve them as they are.

use std::time::Instant;

use serde::Serialize;

use super::{ms, Context};
use crate::error::Error;
use crate::games::mod2::format::{MoveList, StrategyFile, StrategyNode};
use crate::games::mod2::questions::{self, Method, Optimum, Question};
use crate::games::mod2::retro;
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

/// How [`solve`] finds the winner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SolveMethod {
    /// The memoised search up to n = 5 and past 6, the retrograde sweep for n = 6.
    #[default]
    Auto,
    /// Memoised negamax over positions up to symmetry ([`search::solve`]).
    Memo,
    /// Retrograde sweep over every set of queens, n ≤ 6 ([`retro::solve`]).
    Retrograde,
}

/// The retrograde sweep's settings.
#[derive(Clone, Debug, Default)]
pub struct RetroSettings {
    /// Checkpoint folder: each finished level is written there.
    pub checkpoint: Option<std::path::PathBuf>,
    /// Continue the run whose checkpoints the folder holds.
    pub resume: bool,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Plies of the winner's strategy to report (0: none; at most 5; rounded to end with
    /// the winner's move).
    pub strategy_plies: usize,
}

/// [`replay_strategy`]'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StrategyReplay {
    /// `legal` (every move legal, every legal reply answered) or `illegal` / `incomplete`
    /// (see `problem`).
    pub status: &'static str,
    /// Board side.
    pub n: usize,
    /// The game.
    pub variant: Variant,
    /// Lines played (one per leaf of the strategy).
    pub lines: u64,
    /// Of them, lines where the opponent has no reply left (won within the strategy).
    pub won: u64,
    /// Most moves on one line.
    pub plies: usize,
    /// The first problem found.
    pub problem: Option<String>,
}

impl StrategyReplay {
    /// 0 when every line replays and every reply is answered, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.status != "legal")
    }
}

/// Plays a strategy against every reply with [`rules::replay`]: each of the first player's
/// moves must be legal, and at every node with replies the file must answer exactly the
/// legal replies (a node without replies ends the strategy there, or the game when the
/// opponent has none).
pub fn replay_strategy(file: &StrategyFile) -> StrategyReplay {
    let mut out = StrategyReplay {
        status: "legal",
        n: file.n,
        variant: file.variant,
        lines: 0,
        won: 0,
        plies: 0,
        problem: None,
    };
    let mut moves = Vec::new();
    if let Err((status, problem)) = walk_strategy(file, &file.root, &mut moves, &mut out) {
        out.status = status;
        out.problem = Some(problem);
    }
    out
}

fn walk_strategy(
    file: &StrategyFile,
    node: &StrategyNode,
    moves: &mut Vec<Pos>,
    out: &mut StrategyReplay,
) -> Result<(), (&'static str, String)> {
    let line = |moves: &[Pos]| {
        let v: Vec<String> = moves.iter().map(|(r, c)| format!("({r},{c})")).collect();
        v.join(" ")
    };
    if let Some(mv) = node.mv {
        moves.push(mv);
    }
    let board = rules::replay(file.n, file.variant, moves)
        .map_err(|e| ("illegal", format!("after {}: {e}", line(&moves[..e.index]))))?;
    let legal = rules::legal_moves(&board, file.variant, moves.len());
    if node.replies.is_empty() {
        out.lines += 1;
        out.won += u64::from(legal.is_empty());
        out.plies = out.plies.max(moves.len());
    } else {
        for (reply, _) in &node.replies {
            if !legal.contains(reply) {
                moves.push(*reply);
                let e = rules::replay(file.n, file.variant, moves).expect_err("not legal");
                return Err(("illegal", format!("after {}: {e}", line(&moves[..e.index]))));
            }
        }
        if let Some(m) = legal
            .iter()
            .find(|m| !node.replies.iter().any(|r| r.0 == **m))
        {
            return Err((
                "incomplete",
                format!(
                    "after {}: the reply ({},{}) is not answered",
                    line(moves),
                    m.0,
                    m.1
                ),
            ));
        }
        for (reply, then) in &node.replies {
            moves.push(*reply);
            match then {
                Some(t) => walk_strategy(file, t, moves, out)?,
                None => {
                    out.lines += 1;
                    out.plies = out.plies.max(moves.len());
                }
            }
            moves.pop();
        }
    }
    if node.mv.is_some() {
        moves.pop();
    }
    Ok(())
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
    /// Which solver.
    pub method: SolveMethod,
    /// Settings of the retrograde sweep.
    pub retro: RetroSettings,
}

/// Levels kept for the strategy (positions of at most this many queens can be looked up).
pub const STRATEGY_MAX_PLIES: usize = 5;

/// What the retrograde sweep reports beside the winner.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RetroReport {
    /// Levels (of the high squares' queen count) computed by this run, per sweep.
    pub levels_computed: [usize; 2],
    /// Levels in each sweep.
    pub levels: usize,
    /// Sets of queens solved (every subset of the board).
    pub sets: u64,
    /// Sets lost for the player to move, per number of queens (all sets, reachable or not).
    pub losing: Vec<u64>,
    /// The checkpoint folder.
    pub checkpoint: Option<String>,
    /// Worker threads.
    pub threads: usize,
    /// Estimated peak memory in bytes (what `--max-memory` is held to).
    pub memory_estimate: u64,
    /// Measured peak resident memory of the process in bytes (Linux).
    pub peak_memory: Option<u64>,
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
    /// `memo` or `retrograde`.
    pub method: &'static str,
    /// The retrograde sweep's figures.
    pub retrograde: Option<RetroReport>,
    /// The winner's strategy for the first plies (retrograde sweep).
    pub strategy: Option<retro::Strategy>,
}

impl SolveResponse {
    /// The answer to `req` before `method` has found anything: no winner yet, status "ok".
    fn unanswered(req: &SolveRequest, method: &'static str) -> SolveResponse {
        SolveResponse {
            winner: None,
            first_move: None,
            winning_moves: Vec::new(),
            n: req.n,
            variant: req.variant,
            positions: None,
            status: "ok",
            time_ms: 0.0,
            reachable: None,
            method,
            retrograde: None,
            strategy: None,
        }
    }

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
    solve_with_progress(req, ctx, None)
}

/// [`solve`], calling `progress` during a retrograde sweep.
pub fn solve_with_progress(
    req: &SolveRequest,
    ctx: &Context,
    progress: Option<&(dyn Fn(&retro::Progress) + Sync)>,
) -> Result<SolveResponse, Error> {
    let retrograde = match req.method {
        SolveMethod::Auto => req.n == retro::MAX_N,
        SolveMethod::Memo => false,
        SolveMethod::Retrograde => true,
    };
    if retrograde {
        return solve_retro(req, ctx, progress);
    }
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
    let mut resp = SolveResponse::unanswered(req, "memo");
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

fn solve_retro(
    req: &SolveRequest,
    ctx: &Context,
    progress: Option<&(dyn Fn(&retro::Progress) + Sync)>,
) -> Result<SolveResponse, Error> {
    if !(1..=retro::MAX_N).contains(&req.n) {
        return Err(Error::Unsupported(format!(
            "field `n`: the retrograde sweep holds boards of 1..={} squares a side (2^(n²) \
             sets), not {}",
            retro::MAX_N,
            req.n
        )));
    }
    let plies = req.retro.strategy_plies;
    if plies > STRATEGY_MAX_PLIES {
        return Err(Error::Unsupported(format!(
            "field `strategy_plies`: at most {STRATEGY_MAX_PLIES}, not {plies}"
        )));
    }
    let threads = match req.retro.threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    };
    let opts = retro::Options {
        threads,
        checkpoint: req.retro.checkpoint.clone(),
        resume: req.retro.resume,
        reachable: req.reachable,
        keep: STRATEGY_MAX_PLIES,
        max_memory: ctx.budget.max_memory,
        deadline: ctx.budget.deadline,
        cancel: ctx.budget.cancel.as_deref(),
        progress,
    };
    let estimate =
        retro::memory_estimate(&retro::Layout::new(req.n, req.variant), 5, req.reachable);
    let start = Instant::now();
    let mut resp = SolveResponse::unanswered(req, "retrograde");
    match retro::solve(req.n, req.variant, &opts) {
        Ok(sol) => {
            resp.winner = Some(if sol.first_wins { "first" } else { "second" });
            resp.first_move = sol.winning_moves.first().copied();
            resp.winning_moves = sol.winning_moves.clone();
            resp.positions = Some(1u64 << (req.n * req.n));
            resp.strategy = (plies > 0).then(|| sol.strategy(plies));
            resp.reachable = sol.reach.as_ref().map(|layers| {
                let layers: Vec<Layer> = layers
                    .iter()
                    .map(|l| Layer {
                        moves: l.moves,
                        queens: l.queens,
                        classes: l.classes,
                        positions: l.positions,
                        terminal: l.terminal,
                        sequences: None,
                    })
                    .collect();
                ReachableReport {
                    status: "ok",
                    classes: Some(layers.iter().map(|l| l.classes).sum()),
                    positions: Some(layers.iter().map(|l| l.positions).sum()),
                    game_tree_nodes: None,
                    games: None,
                    layers,
                    time_ms: 0.0,
                }
            });
            resp.retrograde = Some(RetroReport {
                levels_computed: [sol.computed.0, sol.computed.1],
                levels: sol.layout.hi_cells() + 1,
                sets: 1u64 << (req.n * req.n),
                losing: sol.losing.clone(),
                checkpoint: req
                    .retro
                    .checkpoint
                    .as_ref()
                    .map(|p| p.display().to_string()),
                threads,
                memory_estimate: estimate,
                peak_memory: retro::peak_memory(),
            });
        }
        Err(retro::RetroError::Stopped) => resp.status = "timeout",
        Err(retro::RetroError::Error(e)) => return Err(e),
    }
    resp.time_ms = ms(start);
    if let Some(r) = resp.reachable.as_mut() {
        r.time_ms = resp.time_ms;
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
