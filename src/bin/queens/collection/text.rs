//! The Queen's Collection's answers as text for people.

use std::io::Write;

use queens::games::collection::{Deal, Rules, Status};
use queens::ops::collection::{PlayResponse, SimulateResponse, StudyResponse};
use queens::Error;

use crate::output::Failure;

pub(super) fn print_study(out: &mut impl Write, r: &StudyResponse) -> std::io::Result<()> {
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

pub(super) fn print_deal(out: &mut impl Write, d: &Deal) -> std::io::Result<()> {
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

pub(super) fn print_play(
    out: &mut impl Write,
    deal: &Deal,
    rules: Rules,
    r: &PlayResponse,
) -> Result<(), Failure> {
    let start = deal
        .to_state(rules)
        .map_err(|e| Error::internal_from("a checked deal no longer reads", e))?;
    let mut state = start;
    for (i, mv) in r.moves.iter().enumerate() {
        let before = state.score();
        state
            .apply(mv)
            .map_err(|e| Error::internal_from("a checked move no longer plays", e))?;
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
    writeln!(out, "score {} after {} turns: {how}", r.score, r.turns)?;
    Ok(())
}

pub(super) fn print_simulate(out: &mut impl Write, r: &SimulateResponse) -> std::io::Result<()> {
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
