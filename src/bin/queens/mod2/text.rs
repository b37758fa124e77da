//! The mod-2 game's answers as text for people.

use std::io::{self, Write};

use queens::games::mod2::questions::{Optimum, Question};
use queens::ops::mod2::{
    self as op, Mod2CheckRequest, Mod2CheckResponse, Mod2OptimumRequest, Mod2ReplayRequest,
    Mod2SolveRequest, Mod2SolveResponse, ReplayAnswer, ReplayResponse,
};
use queens::ops::{Mod2Check, Mod2Optimum, Mod2Replay, Mod2Solve};

use crate::print::{Style, Text};

impl Text for Mod2Check {
    fn text(
        out: &mut impl Write,
        _: &Mod2CheckRequest,
        r: &Mod2CheckResponse,
        _: &Style,
    ) -> io::Result<()> {
        print_check(out, r)
    }
}

impl Text for Mod2Replay {
    fn text(
        out: &mut impl Write,
        _: &Mod2ReplayRequest,
        r: &ReplayAnswer,
        _: &Style,
    ) -> io::Result<()> {
        match r {
            ReplayAnswer::Strategy(r) => match &r.problem {
                Some(p) => writeln!(out, "{}: {p}", r.status),
                None => writeln!(
                    out,
                    "legal: the strategy answers every reply ({} game, n = {}): {} lines of up \
                     to {} moves, {} of them won within the strategy (that its positions are \
                     won is the solver's claim, not checked here)",
                    r.variant, r.n, r.lines, r.plies, r.won
                ),
            },
            ReplayAnswer::Moves(r) => print_replay(out, r),
        }
    }
}

impl Text for Mod2Solve {
    fn text(
        out: &mut impl Write,
        _: &Mod2SolveRequest,
        r: &Mod2SolveResponse,
        _: &Style,
    ) -> io::Result<()> {
        print_solve(out, r)
    }
}

impl Text for Mod2Optimum {
    fn text(
        out: &mut impl Write,
        _: &Mod2OptimumRequest,
        r: &Optimum,
        _: &Style,
    ) -> io::Result<()> {
        print_optimum(out, r)
    }
}

fn cells(list: &[(usize, usize)]) -> String {
    let v: Vec<String> = list.iter().map(|(r, c)| format!("({r},{c})")).collect();
    v.join(" ")
}

fn print_check(out: &mut impl Write, r: &Mod2CheckResponse) -> std::io::Result<()> {
    let mut grid = vec![vec!["Q".to_string(); r.n]; r.n];
    for s in &r.empty {
        grid[s.square.0][s.square.1] = s.value.to_string();
    }
    let width = grid.iter().flatten().map(String::len).max().unwrap_or(1);
    for row in grid {
        let cells: Vec<String> = row.iter().map(|c| format!("{c:>width$}")).collect();
        writeln!(out, "{}", cells.join(" "))?;
    }
    writeln!(
        out,
        "{}: {} queens, {} empty squares, {} open (empty squares show their value)",
        r.state.name(),
        r.queens,
        r.empty.len(),
        r.open.len()
    )?;
    if !r.open.is_empty() {
        writeln!(out, "open: {}", cells(&r.open))?;
    }
    Ok(())
}

fn print_replay(out: &mut impl Write, r: &ReplayResponse) -> std::io::Result<()> {
    match (&r.illegal, &r.false_claim) {
        (Some(i), _) => writeln!(
            out,
            "illegal: move {} ({},{}): {} (the moves before it are legal: {} queen{}, {})",
            i.index + 1,
            i.square.0,
            i.square.1,
            i.reason,
            r.queens,
            if r.queens == 1 { "" } else { "s" },
            r.state.name()
        ),
        (None, Some(claim)) => writeln!(
            out,
            "legal moves, false claim: {claim} ({} moves, {} queens, {})",
            r.moves,
            r.queens,
            r.state.name()
        ),
        (None, None) => writeln!(
            out,
            "legal: {} moves ({} game), final board {} with {} queens, {} open squares",
            r.moves,
            r.variant,
            r.state.name(),
            r.queens,
            r.open.len()
        ),
    }
}

/// One progress line of a retrograde sweep on stderr.
pub(super) fn print_progress(p: &queens::games::mod2::retro::Progress) {
    let rate = p.done_here as f64 / p.secs.max(1e-9);
    let left = (p.total - p.done) as f64 / rate.max(1.0);
    eprintln!(
        "mod2 {}: level {} of 0..{} done up to {:.2}% ({} of {} sets), {:.1} M sets/s, \
         about {} left",
        match p.pass {
            queens::games::mod2::retro::Pass::Solve => "solve",
            queens::games::mod2::retro::Pass::Reach => "reachable",
        },
        p.level,
        p.levels - 1,
        100.0 * p.done as f64 / p.total as f64,
        p.done,
        p.total,
        rate / 1e6,
        duration(left)
    );
}

fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..=99 => format!("{s} s"),
        100..=5999 => format!("{} min", s / 60),
        _ => format!("{:.1} h", s as f64 / 3600.0),
    }
}

fn print_solve(out: &mut impl Write, r: &Mod2SolveResponse) -> std::io::Result<()> {
    match r.winner {
        Some(w) => {
            write!(
                out,
                "winner: {} player ({} game, n = {})",
                w.name(),
                r.variant,
                r.n
            )?;
            if let Some((row, col)) = r.first_move {
                write!(
                    out,
                    "; winning first move ({row},{col}), {} winning first moves in all",
                    r.winning_moves.len()
                )?;
            }
            writeln!(out)?;
            if let Some(w) = &r.retrograde {
                if !r.winning_moves.is_empty() {
                    writeln!(out, "winning first moves: {}", cells(&r.winning_moves))?;
                }
                writeln!(
                    out,
                    "retrograde: {} sets of queens, {} + {} levels computed here, {} threads, \
                     {:.3} ms, peak memory {} MB (estimate {} MB)",
                    w.sets,
                    w.levels_computed[0],
                    w.levels_computed[1],
                    w.threads,
                    r.time_ms,
                    w.peak_memory.unwrap_or(0) >> 20,
                    w.memory_estimate >> 20
                )?;
                match &r.strategy {
                    Some(s) if s.mv.is_some() => {
                        let (row, col) = s.mv.expect("checked");
                        writeln!(
                            out,
                            "strategy: first move ({row},{col}), answers to {} replies",
                            s.replies.len()
                        )?;
                    }
                    Some(s) => writeln!(
                        out,
                        "strategy: the second player's answer to each of {} first moves",
                        s.replies.len()
                    )?,
                    None => {}
                }
            } else {
                writeln!(
                    out,
                    "search: {} positions up to symmetry, {:.3} ms",
                    r.positions.unwrap_or(0),
                    r.time_ms
                )?;
            }
        }
        None => {
            writeln!(
                out,
                "unknown: the search stopped ({}) after {:.3} ms",
                r.status, r.time_ms
            )?;
            if r.method == op::SolveMethod::Retrograde {
                writeln!(
                    out,
                    "the finished levels are in the checkpoint folder, if one was given: run \
                     again with --resume to continue"
                )?;
            }
        }
    }
    if let Some(q) = &r.reachable {
        match (q.classes, q.positions) {
            (Some(c), Some(p)) => {
                writeln!(
                    out,
                    "reachable positions: {c} up to symmetry, {p} in all ({:.3} ms)",
                    q.time_ms
                )?;
                let opt = |v: Option<u128>| v.map_or("over 2^128".to_string(), |v| v.to_string());
                if r.retrograde.is_none() {
                    writeln!(
                        out,
                        "game tree: {} nodes, {} finished games",
                        opt(q.game_tree_nodes),
                        opt(q.games)
                    )?;
                }
                writeln!(out, "moves  queens  classes  positions  terminal")?;
                for l in &q.layers {
                    writeln!(
                        out,
                        "{:>5}  {:>6}  {:>7}  {:>9}  {:>8}",
                        l.moves, l.queens, l.classes, l.positions, l.terminal
                    )?;
                }
            }
            _ => writeln!(
                out,
                "reachable positions: unknown, the count stopped ({}) after {:.3} ms",
                q.status, q.time_ms
            )?,
        }
    }
    Ok(())
}

fn print_optimum(out: &mut impl Write, r: &Optimum) -> std::io::Result<()> {
    let what = match r.question {
        Question::Max => "most queens on a reachable board",
        Question::MinLock => "fewest queens on a reachable locked board",
    };
    match (r.queens, &r.moves) {
        (Some(k), Some(moves)) => {
            let board = queens::games::mod2::Board::with_queens(r.n, moves);
            for row in 0..r.n {
                let line: String = (0..r.n)
                    .map(|c| if board.has_queen((row, c)) { 'Q' } else { '.' })
                    .collect();
                writeln!(out, "{line}")?;
            }
            writeln!(
                out,
                "{what}: {k}{} (n = {})",
                if r.optimal {
                    ""
                } else {
                    " or better (not proven)"
                },
                r.n
            )?;
            writeln!(out, "moves: {}", cells(moves))?;
        }
        _ if r.optimal => writeln!(out, "{what}: none exists (n = {})", r.n)?,
        _ => writeln!(out, "{what}: unknown, none found yet (n = {})", r.n)?,
    }
    writeln!(out, "bound: {}", r.bound)?;
    for c in &r.calls {
        if c.by == "pair-parity" {
            writeln!(
                out,
                "  {} {}: {} by the parity of attacking pairs ({:.1} ms)",
                c.goal, c.k, c.result, c.time_ms
            )?;
            continue;
        }
        writeln!(
            out,
            "  {} {}: {}{} ({} vars, {} clauses, {:.1} ms{})",
            c.goal,
            c.k,
            c.result,
            c.found.map_or(String::new(), |f| format!(", {f} queens")),
            c.vars,
            c.clauses,
            c.time_ms,
            c.lemmas
                .map_or(String::new(), |l| format!(", proof {l} lemmas checked")),
        )?;
    }
    if r.status != queens::ops::Status::Ok {
        writeln!(out, "stopped: {}", r.status)?;
    }
    writeln!(out, "time: {:.3} ms ({})", r.time_ms, r.method)
}
