//! The Queen's Collection's answers as text for people.

use std::io::{self, Write};

use queens::games::collection::{Deal, Rules, Status};
use queens::ops::collection::{
    CollectionSolveRequest, CollectionSolveResponse, DealRequest, PlayRequest, PlayResponse,
    SimulateRequest, SimulateResponse, StudyRequest, StudyResponse,
};
use queens::ops::{
    CollectionDeal, CollectionPlay, CollectionSimulate, CollectionSolve, CollectionStudy,
};
use queens::Error;

use crate::print::{Style, Text};

impl Text for CollectionDeal {
    fn text(out: &mut impl Write, _: &DealRequest, d: &Deal, _: &Style) -> io::Result<()> {
        print_deal(out, d)
    }
}

impl Text for CollectionPlay {
    fn text(out: &mut impl Write, q: &PlayRequest, r: &PlayResponse, _: &Style) -> io::Result<()> {
        print_play(out, &q.deal, q.rules, r)
    }
}

impl Text for CollectionSimulate {
    fn text(
        out: &mut impl Write,
        _: &SimulateRequest,
        r: &SimulateResponse,
        _: &Style,
    ) -> io::Result<()> {
        print_simulate(out, r)
    }
}

impl Text for CollectionStudy {
    fn text(
        out: &mut impl Write,
        _: &StudyRequest,
        r: &StudyResponse,
        _: &Style,
    ) -> io::Result<()> {
        print_study(out, r)
    }
}

/// The best game found, played out, and whether no game scores more.
impl Text for CollectionSolve {
    fn text(
        out: &mut impl Write,
        q: &CollectionSolveRequest,
        r: &CollectionSolveResponse,
        _: &Style,
    ) -> io::Result<()> {
        let play = PlayResponse {
            moves: r.moves.clone(),
            score: r.score,
            turns: r.turns,
            status: r.status,
        };
        print_play(out, &q.deal, q.rules, &play)?;
        writeln!(
            out,
            "{} ({} positions, {:.1} s)",
            if r.proven {
                format!("optimum {}: no game scores more", r.score)
            } else {
                format!(
                    "best found {}, not proven: no game scores more than {} ({})",
                    r.score, r.upper_bound, r.budget
                )
            },
            r.nodes,
            r.time_ms / 1000.0
        )
    }
}

fn print_study(out: &mut impl Write, r: &StudyResponse) -> std::io::Result<()> {
    let s = &r.summary;
    writeln!(
        out,
        "{}: {} deals{}, optimum proven on {} within {:.1} s each (median {} ms, slowest {} ms)",
        r.difficulty,
        s.deals,
        if r.status == queens::ops::Status::Ok {
            String::new()
        } else {
            format!(" of {} ({})", r.requested, r.status)
        },
        s.proven,
        r.timeout_each_ms as f64 / 1000.0,
        s.median_ms,
        s.max_ms
    )?;
    writeln!(
        out,
        "winnable with the pile known: {} ({:.1}%); lookahead won {}",
        s.winnable,
        100.0 * s.winnable as f64 / s.deals.max(1) as f64,
        s.lookahead_wins
    )?;
    writeln!(
        out,
        "mean optimum {:.2} (upper bound {:.2}), lookahead {:.2}, greedy {:.2}",
        s.mean_optimum, s.mean_upper_bound, s.mean_lookahead, s.mean_greedy
    )?;
    let range = |low: f64, high: f64| {
        if (high - low).abs() < 0.005 {
            format!("{low:.2}")
        } else {
            format!("{low:.2}..{high:.2}")
        }
    };
    writeln!(
        out,
        "lookahead's loss: {:.2} points = {} luck + {} play",
        s.loss.total,
        range(s.loss.luck_low, s.loss.luck_high),
        range(s.loss.play_low, s.loss.play_high)
    )?;
    writeln!(out, "optimum  deals (proven)  not proven (best found)")?;
    let scores: std::collections::BTreeSet<i32> = s
        .optimum_histogram
        .keys()
        .chain(s.unproven_histogram.keys())
        .copied()
        .collect();
    for score in scores {
        writeln!(
            out,
            "{score:>7} {:>15} {:>24}",
            s.optimum_histogram.get(&score).copied().unwrap_or(0),
            s.unproven_histogram.get(&score).copied().unwrap_or(0)
        )?;
    }
    Ok(())
}

fn print_deal(out: &mut impl Write, d: &Deal) -> std::io::Result<()> {
    for (i, b) in d.boxes.iter().enumerate() {
        let pawns: Vec<&str> = b.pawns.iter().map(|p| p.name()).collect();
        writeln!(
            out,
            "box {i} {:<7} ({} spaces): {}",
            b.colour.name(),
            b.capacity,
            if pawns.is_empty() {
                "-".to_string()
            } else {
                pawns.join(" ")
            }
        )?;
    }
    let hand: Vec<&str> = d.hand.iter().map(|c| c.name()).collect();
    writeln!(out, "hand: {}", hand.join(" "))?;
    writeln!(out, "pile: {} cards (face down)", d.pile.len())
}

/// The moves one by one with what each scored, and how the game ended (an internal check
/// that fails is an [`Error`] carried as an I/O error).
fn print_play(out: &mut impl Write, deal: &Deal, rules: Rules, r: &PlayResponse) -> io::Result<()> {
    let start = deal
        .to_state(rules)
        .map_err(|e| io::Error::other(Error::internal_from("a checked deal no longer reads", e)))?;
    let mut state = start;
    for (i, mv) in r.moves.iter().enumerate() {
        let before = state.score();
        state.apply(mv).map_err(|e| {
            io::Error::other(Error::internal_from("a checked move no longer plays", e))
        })?;
        writeln!(
            out,
            "{:>3}. {}{}",
            i,
            mv,
            match state.score() - before {
                0 => String::new(),
                d => format!("  (score {d:+} → {})", state.score()),
            }
        )?;
    }
    let how = match r.status {
        Status::Sorted => "every pawn home",
        Status::PileEmpty => "the pile is empty",
        Status::Playing => "the moves stop before the end",
    };
    writeln!(out, "score {} after {} turns: {how}", r.score, r.turns)
}

fn print_simulate(out: &mut impl Write, r: &SimulateResponse) -> std::io::Result<()> {
    writeln!(
        out,
        "{}, {}: {} deals{}, mean score {:.3}, win rate {:.3}% ({} reached {}), scores {}..{}, \
         {:.1} turns a game",
        r.policy,
        r.difficulty,
        r.deals,
        if r.status == queens::ops::Status::Ok {
            String::new()
        } else {
            format!(" of {} ({})", r.requested, r.status)
        },
        r.mean,
        100.0 * r.win_rate,
        r.wins,
        r.max_score,
        r.min.map_or("-".into(), |m| m.to_string()),
        r.max.map_or("-".into(), |m| m.to_string()),
        r.mean_turns,
    )?;
    let top = r.histogram.values().copied().max().unwrap_or(1).max(1);
    writeln!(out, "score    deals")?;
    for (score, &n) in &r.histogram {
        let bar = "#".repeat(((n * 50).div_ceil(top)) as usize);
        writeln!(out, "{score:>5} {n:>8} {bar}")?;
    }
    writeln!(
        out,
        "time: {:.1} s on {} thread{}",
        r.time_ms / 1000.0,
        r.jobs,
        if r.jobs == 1 { "" } else { "s" }
    )
}
