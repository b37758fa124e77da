//! The mod-2 game's operations ([`queens_games::mod2`]): check a board, replay a move list,
//! solve the game, and the two optimisation questions. The CLI prints these responses; the
//! service serves them as they are (`/v1/mod2/...` and jobs `mod2_*`).

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Context};
use crate::instance::Instance;
use crate::operation::Bound;
use queens_games::mod2::encode::Encoding;
use queens_games::mod2::format::{
    parse_moves, parse_strategy, MoveList, StrategyFile, StrategyNode,
};
use queens_games::mod2::questions::{self, Method, Optimum, Question};
use queens_games::mod2::retro;
use queens_games::mod2::rules::{self, Board, State, Variant};
use queens_games::mod2::search::{self, Geometry, Layer, Limits, Stop};
use queens_model::error::Error;
use queens_model::model::Pos;
use queens_model::status::Status;

/// Bytes one stored position takes in a search table, as a rough measure (key, value, and
/// the hash table's slack).
const BYTES_PER_POSITION: u64 = 64;

fn max_positions(ctx: &Context) -> Option<u64> {
    ctx.budget.max_memory.map(|m| m / BYTES_PER_POSITION)
}

/// An empty square's value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2SquareValue)]
pub struct SquareValue {
    /// The square.
    #[schema(value_type = Vec<usize>)]
    pub square: Pos,
    /// The queens attacking it.
    pub value: usize,
    /// True when the value is even.
    pub open: bool,
}

/// `mod2_check`'s answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2CheckResponse)]
pub struct Mod2CheckResponse {
    /// Complete, locked or unlocked.
    pub state: State,
    /// The open squares.
    #[schema(value_type = Vec<Vec<usize>>)]
    pub open: Vec<Pos>,
    /// Board side.
    pub n: usize,
    /// Queens on the board.
    pub queens: usize,
    /// Every empty square with its value.
    pub empty: Vec<SquareValue>,
}

/// The state of the board holding `queens`, and every empty square's value.
pub fn check(n: usize, queens: &[Pos]) -> Mod2CheckResponse {
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
    Mod2CheckResponse {
        state: board.state(),
        open: board.open_squares(),
        n,
        queens: board.count(),
        empty,
    }
}

/// The first illegal move, in a replay's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2Illegal)]
pub struct Illegal {
    /// Its index in the list (0-based).
    pub index: usize,
    /// The square.
    #[serde(rename = "move")]
    #[schema(value_type = Vec<usize>)]
    pub square: Pos,
    /// The rule it breaks.
    pub reason: String,
}

/// `mod2_replay`'s answer to a move list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2ReplayResponse)]
pub struct ReplayResponse {
    /// `legal` (every move legal, every claim true), `illegal` (see `illegal`) or
    /// `false_claim` (the moves are legal but the file's `queens` or `state` is wrong).
    pub status: Status,
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
    #[schema(value_type = Vec<Vec<usize>>)]
    pub open: Vec<Pos>,
    /// The first illegal move.
    pub illegal: Option<Illegal>,
    /// What is wrong with the file's claims.
    pub false_claim: Option<String>,
}

impl ReplayResponse {
    /// 0 when every move is legal and every claim true, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.status != Status::Legal)
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
            (Some(_), _) => Status::Illegal,
            (None, Some(_)) => Status::FalseClaim,
            (None, None) => Status::Legal,
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

/// How `mod2_solve` finds the winner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = Mod2SolveMethod)]
pub enum SolveMethod {
    /// The memoised search up to n = 5 and past 6, the retrograde sweep for n = 6.
    #[default]
    Auto,
    /// Memoised negamax over positions up to symmetry ([`search::play_out`]).
    Memo,
    /// Retrograde sweep over every set of queens, n ≤ 6 ([`retro::sweep`]).
    Retrograde,
}

/// `mod2_replay`'s answer to a strategy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2StrategyReplay)]
pub struct StrategyReplay {
    /// `legal` (every move legal, every legal reply answered) or `illegal` / `incomplete`
    /// (see `problem`).
    pub status: Status,
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
        u8::from(self.status != Status::Legal)
    }
}

/// Plays a strategy against every reply with [`rules::replay`]: each of the first player's
/// moves must be legal, and at every node with replies the file must answer exactly the
/// legal replies (a node without replies ends the strategy there, or the game when the
/// opponent has none).
pub fn replay_strategy(file: &StrategyFile) -> StrategyReplay {
    replay_strategy_until(file, &|| false).unwrap_or_else(|out| out)
}

/// [`replay_strategy`], checking `stop` at every node: `Err` with the lines replayed so
/// far when it says stop.
fn replay_strategy_until(
    file: &StrategyFile,
    stop: &dyn Fn() -> bool,
) -> Result<StrategyReplay, StrategyReplay> {
    let mut out = StrategyReplay {
        status: Status::Legal,
        n: file.n,
        variant: file.variant,
        lines: 0,
        won: 0,
        plies: 0,
        problem: None,
    };
    let mut moves = Vec::new();
    let stopped = std::cell::Cell::new(false);
    let stop = || {
        let now = stop();
        stopped.set(now);
        now
    };
    if let Err((status, problem)) = walk_strategy(file, &file.root, &mut moves, &mut out, &stop) {
        out.status = status;
        out.problem = Some(problem);
    }
    if stopped.get() {
        Err(out)
    } else {
        Ok(out)
    }
}

fn walk_strategy(
    file: &StrategyFile,
    node: &StrategyNode,
    moves: &mut Vec<Pos>,
    out: &mut StrategyReplay,
    stop: &dyn Fn() -> bool,
) -> Result<(), (Status, String)> {
    if stop() {
        return Err((Status::Incomplete, "stopped".into()));
    }
    let line = |moves: &[Pos]| {
        let v: Vec<String> = moves.iter().map(|(r, c)| format!("({r},{c})")).collect();
        v.join(" ")
    };
    if let Some(mv) = node.mv {
        moves.push(mv);
    }
    let board = rules::replay(file.n, file.variant, moves).map_err(|e| {
        (
            Status::Illegal,
            format!("after {}: {e}", line(&moves[..e.index])),
        )
    })?;
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
                return Err((
                    Status::Illegal,
                    format!("after {}: {e}", line(&moves[..e.index])),
                ));
            }
        }
        if let Some(m) = legal
            .iter()
            .find(|m| !node.replies.iter().any(|r| r.0 == **m))
        {
            return Err((
                Status::Incomplete,
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
                Some(t) => walk_strategy(file, t, moves, out, stop)?,
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

/// `mod2_solve`'s request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Mod2SolveRequest)]
pub struct Mod2SolveRequest {
    /// Board side (1..=11; the memoised search answers n ≤ 5 in seconds, the retrograde
    /// sweep n = 6 in hours and 3.5 GB).
    pub n: usize,
    /// The game (default `standard`).
    #[serde(default)]
    pub variant: Variant,
    /// Also count the reachable positions and the game tree (Q11).
    #[serde(default)]
    pub reachable: bool,
    /// `auto` (default: the memoised search, the retrograde sweep for n = 6), `memo` or
    /// `retrograde` (n ≤ 6).
    #[serde(default)]
    pub method: SolveMethod,
    /// Retrograde sweep: worker threads, 0 to 256 (0, the default: one per core).
    #[serde(default)]
    pub threads: usize,
    /// Retrograde sweep: plies of the winner's strategy to report (0..=5, default 3),
    /// rounded to end with the winner's move.
    #[serde(default = "default_strategy_plies")]
    pub strategy_plies: usize,
    /// Retrograde sweep (command line only): checkpoint folder, each finished level is
    /// written there.
    #[serde(skip)]
    pub checkpoint: Option<std::path::PathBuf>,
    /// Retrograde sweep (command line only): continue the run whose checkpoints the folder
    /// holds.
    #[serde(skip)]
    pub resume: bool,
}

fn default_strategy_plies() -> usize {
    3
}

impl Mod2SolveRequest {
    /// A solve of the `variant` game on an n×n board, with the defaults.
    pub fn new(n: usize, variant: Variant) -> Mod2SolveRequest {
        Mod2SolveRequest {
            n,
            variant,
            reachable: false,
            method: SolveMethod::Auto,
            threads: 0,
            strategy_plies: default_strategy_plies(),
            checkpoint: None,
            resume: false,
        }
    }

    /// True when the request runs the retrograde sweep.
    pub fn retrograde(&self) -> bool {
        match self.method {
            SolveMethod::Auto => self.n == retro::MAX_N,
            SolveMethod::Memo => false,
            SolveMethod::Retrograde => true,
        }
    }

    /// Checks the options before any work.
    pub fn validate(&self) -> Result<(), Error> {
        let n = self.n;
        if self.retrograde() && !(1..=retro::MAX_N).contains(&n) {
            return Err(Error::unsupported_at_field(
                "n",
                format!(
                    "the retrograde sweep holds boards of 1..={} squares a side (2^(n²) \
                     sets), not {n}",
                    retro::MAX_N
                ),
            ));
        }
        if !self.retrograde() && !(1..=search::MAX_N).contains(&n) {
            return Err(Error::unsupported_at_field(
                "n",
                format!(
                    "the game search holds boards of 1..={} squares a side, not {n}",
                    search::MAX_N
                ),
            ));
        }
        if self.strategy_plies > STRATEGY_MAX_PLIES {
            return Err(Error::unsupported_at_field(
                "strategy_plies",
                format!("at most {STRATEGY_MAX_PLIES}, not {}", self.strategy_plies),
            ));
        }
        if self.threads > MAX_THREADS {
            return Err(Error::unsupported_at_field(
                "threads",
                "between 0 (one per core) and 256",
            ));
        }
        Ok(())
    }
}

/// Levels kept for the strategy (positions of at most this many queens can be looked up).
pub const STRATEGY_MAX_PLIES: usize = 5;

/// The most worker threads a retrograde sweep takes.
pub const MAX_THREADS: usize = 256;

/// What the retrograde sweep reports beside the winner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2RetroReport)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2ReachableReport)]
pub struct ReachableReport {
    /// `ok`, `timeout` or `memory` (then the counts below are absent).
    pub status: Status,
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

/// `mod2_solve`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(as = Mod2SolveResponse)]
pub struct Mod2SolveResponse {
    /// `first` or `second` (None when the search stopped early).
    pub winner: Option<Player>,
    /// A winning first move (the first player wins).
    #[serde(rename = "move")]
    #[schema(value_type = Option<Vec<usize>>)]
    pub first_move: Option<Pos>,
    /// Every winning first move.
    #[schema(value_type = Vec<Vec<usize>>)]
    pub winning_moves: Vec<Pos>,
    /// Board side.
    pub n: usize,
    /// The game.
    pub variant: Variant,
    /// Positions (up to symmetry) the search stored.
    pub positions: Option<u64>,
    /// `ok`, `timeout` or `memory`.
    pub status: Status,
    /// Milliseconds for the winner.
    pub time_ms: f64,
    /// Q11, when asked for.
    pub reachable: Option<ReachableReport>,
    /// `memo` or `retrograde`.
    pub method: SolveMethod,
    /// The retrograde sweep's figures.
    pub retrograde: Option<RetroReport>,
    /// The winner's strategy for the first plies (retrograde sweep): `{"move": [r,c],
    /// "replies": [{"reply": [r,c], "move": [r,c], "replies": […]}, …]}`.
    #[schema(value_type = Option<Object>)]
    pub strategy: Option<retro::Strategy>,
}

/// A player of the mod-2 game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = Mod2Player)]
pub enum Player {
    /// The player who moves first.
    First,
    /// The other.
    Second,
}

impl Player {
    /// The winner, by whether the first player wins.
    fn winner(first_wins: bool) -> Player {
        if first_wins {
            Player::First
        } else {
            Player::Second
        }
    }

    /// `first` or `second`, as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Player::First => "first",
            Player::Second => "second",
        }
    }
}

impl Mod2SolveResponse {
    /// The answer to `req` before `method` has found anything: no winner yet, status "ok".
    fn unanswered(req: &Mod2SolveRequest, method: SolveMethod) -> Mod2SolveResponse {
        Mod2SolveResponse {
            winner: None,
            first_move: None,
            winning_moves: Vec::new(),
            n: req.n,
            variant: req.variant,
            positions: None,
            status: Status::Ok,
            time_ms: 0.0,
            reachable: None,
            method,
            retrograde: None,
            strategy: None,
        }
    }

    /// The answer of a search stopped (`status`) before it found anything.
    pub fn stopped(req: &Mod2SolveRequest, status: Status) -> Mod2SolveResponse {
        let method = if req.retrograde() {
            SolveMethod::Retrograde
        } else {
            SolveMethod::Memo
        };
        Mod2SolveResponse {
            status,
            ..Mod2SolveResponse::unanswered(req, method)
        }
    }

    /// 0 with a winner, 4 when the search stopped early.
    pub fn exit_code(&self) -> u8 {
        if self.status == Status::Ok
            && self
                .reachable
                .as_ref()
                .is_none_or(|r| r.status == Status::Ok)
        {
            0
        } else {
            4
        }
    }
}

fn stop_name(s: Stop) -> Status {
    match s {
        Stop::Timeout => Status::Timeout,
        Stop::Memory => Status::Memory,
    }
}

/// Who wins with perfect play, and (optionally) how many positions are reachable.
pub fn who_wins(req: &Mod2SolveRequest, ctx: &Context) -> Result<Mod2SolveResponse, Error> {
    solve_with_progress(req, ctx, None)
}

/// [`who_wins`], calling `progress` during a retrograde sweep.
pub fn solve_with_progress(
    req: &Mod2SolveRequest,
    ctx: &Context,
    progress: Option<&(dyn Fn(&retro::Progress) + Sync)>,
) -> Result<Mod2SolveResponse, Error> {
    req.validate()?;
    if req.retrograde() {
        return solve_retro(req, ctx, progress);
    }
    let geo = Geometry::new(req.n);
    let limits = Limits {
        deadline: ctx.budget.deadline,
        max_positions: max_positions(ctx),
    };
    let start = Instant::now();
    let mut resp = Mod2SolveResponse::unanswered(req, SolveMethod::Memo);
    match search::play_out(&geo, req.variant, &limits) {
        Ok(s) => {
            resp.winner = Some(Player::winner(s.first_wins));
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
                status: Status::Ok,
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
    req: &Mod2SolveRequest,
    ctx: &Context,
    progress: Option<&(dyn Fn(&retro::Progress) + Sync)>,
) -> Result<Mod2SolveResponse, Error> {
    let plies = req.strategy_plies;
    let threads = match req.threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    };
    let opts = retro::Options {
        threads,
        checkpoint: req.checkpoint.clone(),
        resume: req.resume,
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
    let mut resp = Mod2SolveResponse::unanswered(req, SolveMethod::Retrograde);
    match retro::sweep(req.n, req.variant, &opts) {
        Ok(sol) => {
            resp.winner = Some(Player::winner(sol.first_wins));
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
                    status: Status::Ok,
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
                checkpoint: req.checkpoint.as_ref().map(|p| p.display().to_string()),
                threads,
                memory_estimate: estimate,
                peak_memory: retro::peak_memory(),
            });
        }
        Err(retro::RetroError::Stopped) => resp.status = Status::Timeout,
        Err(retro::RetroError::Error(e)) => return Err(e),
    }
    resp.time_ms = ms(start);
    if let Some(r) = resp.reachable.as_mut() {
        r.time_ms = resp.time_ms;
    }
    Ok(resp)
}

/// `mod2_optimum`'s request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Mod2OptimumRequest)]
pub struct Mod2OptimumRequest {
    /// Board side (1..=32 with `sat`; the exhaustive search holds up to 11, small n in
    /// practice).
    pub n: usize,
    /// `max` (the most queens on a reachable board) or `min-lock` (the fewest queens on a
    /// reachable locked board).
    pub question: Question,
    /// `sat` (default: SAT calls, every UNSAT with a checked LRAT proof) or `exhaustive`
    /// (every reachable position).
    #[serde(default)]
    pub method: OptimumMethod,
    /// With `sat`: the encoding of reachability, `rank` (default) or `plan`.
    #[serde(default)]
    pub encoding: Encoding,
    /// With `sat`: add the lex-leader constraints of the board's 8 symmetries (default
    /// true).
    #[serde(default = "yes")]
    pub symmetry: bool,
    /// Command line only: write each UNSAT call's CNF and proof into this folder.
    #[serde(skip)]
    pub proof_dir: Option<std::path::PathBuf>,
}

fn yes() -> bool {
    true
}

/// How `mod2_optimum` answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = Mod2OptimumMethod)]
pub enum OptimumMethod {
    /// SAT calls, every UNSAT with a checked LRAT proof.
    #[default]
    Sat,
    /// Breadth first over every reachable position, up to symmetry.
    Exhaustive,
}

impl Mod2OptimumRequest {
    /// The question's method as the games module takes it.
    pub fn method(&self) -> Method {
        match self.method {
            OptimumMethod::Sat => Method::Sat(queens_games::mod2::encode::Options {
                encoding: self.encoding,
                symmetry: self.symmetry,
            }),
            OptimumMethod::Exhaustive => Method::Exhaustive,
        }
    }

    /// Checks the board size before any work.
    pub fn validate(&self) -> Result<(), Error> {
        if !(1..=MAX_OPTIMUM_N).contains(&self.n) {
            return Err(Error::unsupported_at_field(
                "n",
                format!(
                    "boards of 1..={MAX_OPTIMUM_N} squares a side, not {}",
                    self.n
                ),
            ));
        }
        Ok(())
    }
}

/// Largest board the SAT questions take (the encodings grow as n⁴ and beyond).
pub const MAX_OPTIMUM_N: usize = 32;

/// The most queens on a reachable board, or the fewest on a reachable locked one.
pub fn optimum(req: &Mod2OptimumRequest, ctx: &Context) -> Result<Optimum, Error> {
    req.validate()?;
    let runner = super::solve_cnf::runner(ctx);
    let budget = questions::Budget {
        deadline: ctx.budget.deadline,
        sat: runner.as_ref().map(|r| r as queens_engine::formula::Runner),
        max_positions: max_positions(ctx),
        proof_dir: req.proof_dir.clone(),
    };
    questions::answer(req.n, req.question, req.method(), &budget)
}

/// `mod2_check`'s request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Mod2CheckRequest)]
pub struct Mod2CheckRequest {
    /// The board: an instance (`n` and `queens`) or `{"text": "<grid>"}`; no regions,
    /// blocked cells or excluded diagonals.
    #[schema(value_type = Object)]
    pub instance: Instance,
}

/// [`check`] on an instance, refusing what the game does not have (regions, blocked cells,
/// excluded diagonals); errors name the `file` it was read from, or the request field
/// `instance` when there is none.
pub fn check_instance(
    req: &Mod2CheckRequest,
    file: Option<&str>,
) -> Result<Mod2CheckResponse, Error> {
    validate_check(req, file)?;
    let p = &req.instance.0;
    Ok(check(p.n(), p.fixed()))
}

/// Whether [`check_instance`] can answer `req`, before any work: a plain board of at most
/// [`queens_games::mod2::format::MAX_N`] rows (the game keeps the whole board; the instance
/// format itself reaches big boards).
pub fn validate_check(req: &Mod2CheckRequest, file: Option<&str>) -> Result<(), Error> {
    let refuse = |why: String| match file {
        Some(file) => Error::unsupported(format!("{file}: {why}")),
        None => Error::unsupported_at_field("instance", why),
    };
    let p = &req.instance.0;
    if p.regions().is_some() || !p.blocked().is_empty() || !p.excluded().is_empty() {
        return Err(refuse(
            "the mod-2 game is played on a plain board: no regions, blocked cells or \
             excluded diagonals"
                .into(),
        ));
    }
    let max = queens_games::mod2::format::MAX_N;
    if p.n() > max {
        return Err(refuse(format!(
            "the mod-2 game is played on boards up to {max}×{max}, not {n}×{n}",
            n = p.n()
        )));
    }
    Ok(())
}

/// `mod2_replay`'s request.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Mod2ReplayRequest)]
pub struct Mod2ReplayRequest {
    /// What `queens mod2 replay` reads from a file: a move list `{"n": N, "moves": [[r,c],
    /// …], "variant"?, "queens"?, "state"?}` (the JSON of `max`/`min-lock` too), or a
    /// strategy `{"n": N, "variant"?, "strategy": {…}}`.
    #[schema(schema_with = game_schema)]
    pub game: serde_json::Value,
}

/// The schema of [`Mod2ReplayRequest::game`]: what the move list's and the strategy's
/// readers take (`n` from 1 to 1,024, squares as `[row, column]`, the variant and state by
/// name; other fields, such as the rest of an optimum's answer, are ignored). That a square
/// is on the board is not in it: the bound is `n`, another field.
fn game_schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use serde_json::Value;
    use utoipa::openapi::schema::{AnyOfBuilder, ArrayBuilder, ObjectBuilder, SchemaType, Type};
    let n = || {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(1))
            .maximum(Some(queens_games::mod2::format::MAX_N as u64))
            .description(Some("The board size."))
    };
    let named = |names: &[&str], what: &str| {
        ObjectBuilder::new()
            .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
            .enum_values(Some(
                names.iter().map(|&s| Value::from(s)).chain([Value::Null]),
            ))
            .description(Some(what))
    };
    let variant = || {
        named(
            &["standard", "alternate", "complementary"],
            "The game (default standard).",
        )
    };
    let square = ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::Integer)
                .minimum(Some(0)),
        )
        .min_items(Some(2))
        .max_items(Some(2));
    let moves = ObjectBuilder::new()
        .title(Some("MoveList"))
        .schema_type(Type::Object)
        .property("n", n())
        .property("variant", variant())
        .property(
            "moves",
            ArrayBuilder::new()
                .items(square)
                .description(Some("The moves in order, each a square `[row, column]`.")),
        )
        .property(
            "queens",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                .minimum(Some(0))
                .description(Some("A claim: how many queens the final board holds.")),
        )
        .property(
            "state",
            named(
                &["complete", "locked", "unlocked"],
                "A claim: the final board's state.",
            ),
        )
        .required("n")
        .required("moves");
    let strategy = ObjectBuilder::new()
        .title(Some("Strategy"))
        .schema_type(Type::Object)
        .property("n", n())
        .property("variant", variant())
        .property(
            "strategy",
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .description(Some(
                    "The winner's strategy, as `mod2 solve --strategy` writes it.",
                )),
        )
        .required("n")
        .required("strategy");
    AnyOfBuilder::new()
        .item(moves)
        .item(strategy)
        .description(Some(
            "A move list (the JSON of `max`/`min-lock` too; its other fields are ignored) or a \
             strategy.",
        ))
        .into()
}

/// `mod2_replay`'s answer: to a move list or to a strategy, whichever the file was.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
#[schema(as = Mod2ReplayAnswer)]
pub enum ReplayAnswer {
    /// A strategy's replay.
    Strategy(StrategyReplay),
    /// A move list's replay.
    Moves(ReplayResponse),
}

impl ReplayAnswer {
    /// 0 when every move is legal and every claim true (every reply answered), 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            ReplayAnswer::Strategy(r) => r.exit_code(),
            ReplayAnswer::Moves(r) => r.exit_code(),
        }
    }
}

/// Replays a move list or a strategy given as text (a file's contents; errors name
/// `origin`).
pub fn replay_text(origin: &str, text: &str) -> Result<ReplayAnswer, Error> {
    replay_in(origin, None, text, &|| false)
}

/// [`replay_text`] on a request: errors name the field inside `game` (`game.moves[3]`).
pub fn replay_request(req: &Mod2ReplayRequest) -> Result<ReplayAnswer, Error> {
    replay_request_until(req, &|| false)
}

/// [`replay_request`], stopped when `stop` says so (a strategy is checked at every node; a
/// move list replays in time linear in its moves and the board): then an error saying
/// how far it came.
pub fn replay_request_until(
    req: &Mod2ReplayRequest,
    stop: &dyn Fn() -> bool,
) -> Result<ReplayAnswer, Error> {
    let text =
        serde_json::to_string(&req.game).map_err(|e| Error::internal_from("the move list", e))?;
    replay_in("request", Some("game"), &text, stop)
}

/// Reads the request's game (a move list or a strategy) without replaying it: what the
/// service checks before the request waits for a worker.
pub fn validate_replay(req: &Mod2ReplayRequest) -> Result<(), Error> {
    let text =
        serde_json::to_string(&req.game).map_err(|e| Error::internal_from("the move list", e))?;
    if parse_strategy("request", Some("game"), &text)?.is_none() {
        parse_moves("request", Some("game"), &text)?;
    }
    Ok(())
}

/// Reads `text` (the request field `root`, if it is one) and replays it.
fn replay_in(
    origin: &str,
    root: Option<&str>,
    text: &str,
    stop: &dyn Fn() -> bool,
) -> Result<ReplayAnswer, Error> {
    if let Some(strategy) = parse_strategy(origin, root, text)? {
        return match replay_strategy_until(&strategy, stop) {
            Ok(out) => Ok(ReplayAnswer::Strategy(out)),
            Err(out) => Err(Error::too_large_at_field(
                "game.strategy",
                format!(
                    "the strategy's replay did not finish within the time limit ({} lines \
                     replayed): submit it as a job (POST /v1/jobs with \"op\": \"mod2_replay\")",
                    out.lines
                ),
            )),
        };
    }
    Ok(ReplayAnswer::Moves(replay(&parse_moves(
        origin, root, text,
    )?)))
}

/// The exit code of an optimum: 0 when proven, 4 when the limits stopped the search.
pub fn optimum_exit_code(o: &Optimum) -> u8 {
    if o.optimal {
        0
    } else {
        4
    }
}

/// `mod2_check`.
pub struct Mod2Check;

impl crate::operation::Operation for Mod2Check {
    const NAME: &'static str = "mod2_check";
    type Request = Mod2CheckRequest;
    type Response = Mod2CheckResponse;

    fn run(
        req: &Mod2CheckRequest,
        _ctx: &Context,
    ) -> Result<(Mod2CheckResponse, crate::context::Artifacts), Error> {
        Ok((
            check_instance(req, None)?,
            crate::context::Artifacts::default(),
        ))
    }
    fn validate(req: &Mod2CheckRequest) -> Result<(), Error> {
        validate_check(req, None)
    }
}

impl crate::operation::Served for Mod2Check {
    const PATH: &'static str = "/v1/mod2/check";
    const SUMMARY: &'static str = "The mod-2 game: a board's state (complete, locked, unlocked) \
                                   and every empty square's\nvalue (the queens attacking it; a \
                                   square is open when the value is even).";
}

impl crate::operation::Library for Mod2Check {}

impl crate::operation::OnInstance for Mod2Check {
    fn instance(req: &Mod2CheckRequest) -> &crate::instance::Instance {
        &req.instance
    }
    fn instance_mut(req: &mut Mod2CheckRequest) -> &mut crate::instance::Instance {
        &mut req.instance
    }
}

/// `mod2_replay`.
pub struct Mod2Replay;

impl crate::operation::Operation for Mod2Replay {
    const NAME: &'static str = "mod2_replay";
    type Request = Mod2ReplayRequest;
    type Response = ReplayAnswer;

    fn run(
        req: &Mod2ReplayRequest,
        ctx: &Context,
    ) -> Result<(ReplayAnswer, crate::context::Artifacts), Error> {
        let answer = replay_request_until(req, &|| ctx.budget.exhausted())?;
        Ok((answer, crate::context::Artifacts::default()))
    }
    fn validate(req: &Mod2ReplayRequest) -> Result<(), Error> {
        validate_replay(req)
    }
}

impl crate::operation::Served for Mod2Replay {
    const PATH: &'static str = "/v1/mod2/replay";
    const SUMMARY: &'static str = "The mod-2 game: replay a move list (naming its first illegal \
                                   move, re-checking its claims)\nor a strategy against every \
                                   reply; `status` is `legal`, `illegal`, `false_claim` \
                                   or\n`incomplete`.";
}

impl crate::operation::Library for Mod2Replay {}

impl crate::operation::Verdict for Mod2Replay {
    fn exit_code(resp: &ReplayAnswer) -> u8 {
        resp.exit_code()
    }
}

/// `mod2_solve`. The memoised search looks at the deadline, not at a cancel flag (so it
/// runs in a child); the retrograde sweep looks at both, and keeps its progress in this
/// process.
pub struct Mod2Solve;

impl crate::operation::Operation for Mod2Solve {
    const NAME: &'static str = "mod2_solve";
    type Request = Mod2SolveRequest;
    type Response = Mod2SolveResponse;

    fn run(
        req: &Mod2SolveRequest,
        ctx: &Context,
    ) -> Result<(Mod2SolveResponse, crate::context::Artifacts), Error> {
        Ok((who_wins(req, ctx)?, crate::context::Artifacts::default()))
    }
    fn validate(req: &Mod2SolveRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for Mod2Solve {
    const PATH: &'static str = "/v1/mod2/solve";
    const SUMMARY: &'static str = "The mod-2 game: who wins with perfect play, with the winning \
                                   first moves; `reachable`\nalso counts the reachable \
                                   positions. The retrograde sweep (n = 6) runs as a job \
                                   only;\n`status` is `ok`, `timeout` or `memory`.";
}

impl crate::operation::Library for Mod2Solve {}

impl crate::operation::OwnSize for Mod2Solve {
    const N_FIELD: &'static str = "n";
    fn n(req: &Mod2SolveRequest) -> usize {
        req.n
    }
}

impl crate::operation::Bounded for Mod2Solve {
    const BOUNDS: &'static [Bound] = &[
        Bound::new("n", 1, search::MAX_N as u64),
        Bound::new("threads", 0, MAX_THREADS as u64),
        Bound::new("strategy_plies", 0, STRATEGY_MAX_PLIES as u64),
    ];
    const BOUND_FIELD: &'static str = "n";
    fn unbounded(req: &Mod2SolveRequest, n: usize) -> Option<String> {
        // n ≤ 5 sweeps 2^25 sets at most, in well under a second; n = 6 takes hours.
        (req.retrograde() && n >= 6).then(|| {
            format!(
                "the retrograde sweep of a {n}×{n} board takes hours (3.5 GB): submit it as a \
                 job (POST /v1/jobs with \"op\": \"mod2_solve\")"
            )
        })
    }
}

impl crate::operation::Budgeted for Mod2Solve {
    fn status(resp: &Mod2SolveResponse) -> Status {
        resp.status
    }
    fn stopped(req: &Mod2SolveRequest, status: Status, time_ms: f64) -> Option<Mod2SolveResponse> {
        Some(Mod2SolveResponse {
            time_ms,
            ..Mod2SolveResponse::stopped(req, status)
        })
    }
}

impl crate::operation::Verdict for Mod2Solve {
    fn exit_code(resp: &Mod2SolveResponse) -> u8 {
        resp.exit_code()
    }
}

impl crate::operation::Isolated for Mod2Solve {
    fn uninterruptible(req: &Mod2SolveRequest) -> bool {
        !req.retrograde()
    }
    fn reply(stdout: &str) -> Result<Mod2SolveResponse, Error> {
        crate::operation::reply(stdout)
    }
}

/// `mod2_optimum`. The exhaustive search looks at the deadline. The SAT method builds
/// encodings of millions of clauses and checks proofs, which look at the deadline only
/// between steps: under one, the whole question runs in a child (its solver calls in
/// grandchildren, `solve_cnf::runner`, each killed at the deadline), so it ends
/// when the child is killed, whatever it was doing.
pub struct Mod2Optimum;

impl crate::operation::Operation for Mod2Optimum {
    const NAME: &'static str = "mod2_optimum";
    type Request = Mod2OptimumRequest;
    type Response = Optimum;

    fn run(
        req: &Mod2OptimumRequest,
        ctx: &Context,
    ) -> Result<(Optimum, crate::context::Artifacts), Error> {
        Ok((optimum(req, ctx)?, crate::context::Artifacts::default()))
    }
    fn validate(req: &Mod2OptimumRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for Mod2Optimum {
    const PATH: &'static str = "/v1/mod2/optimum";
    const SUMMARY: &'static str = "The mod-2 game: the most queens on a reachable board (`max`) \
                                   or the fewest on a reachable\nlocked one (`min-lock`), with a \
                                   move order and, by SAT, checked LRAT proofs of the \
                                   bound;\n`optimal` is false when the server's time limit came \
                                   first.";
}

impl crate::operation::Library for Mod2Optimum {}

impl crate::operation::OwnSize for Mod2Optimum {
    const N_FIELD: &'static str = "n";
    fn n(req: &Mod2OptimumRequest) -> usize {
        req.n
    }
}

impl crate::operation::Bounded for Mod2Optimum {
    const BOUNDS: &'static [Bound] = &[Bound::new("n", 1, MAX_OPTIMUM_N as u64)];
}

impl crate::operation::Budgeted for Mod2Optimum {
    fn status(resp: &Optimum) -> Status {
        resp.status
    }
    fn stopped(req: &Mod2OptimumRequest, status: Status, time_ms: f64) -> Option<Optimum> {
        Some(Optimum {
            time_ms,
            ..Optimum::stopped(req.n, req.question, req.method(), status)
        })
    }
}

impl crate::operation::Verdict for Mod2Optimum {
    fn exit_code(resp: &Optimum) -> u8 {
        optimum_exit_code(resp)
    }
}

impl crate::operation::Isolated for Mod2Optimum {
    fn uninterruptible(req: &Mod2OptimumRequest) -> bool {
        req.method == OptimumMethod::Sat
    }
    fn reply(stdout: &str) -> Result<Optimum, Error> {
        let o: Optimum = crate::operation::reply(stdout)?;
        // The board is replayed here too: a move order a child reports is not trusted.
        o.check_board()?;
        Ok(o)
    }
}
