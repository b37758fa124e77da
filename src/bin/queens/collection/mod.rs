//! `queens collection …`: The Queen's Collection, solo, as glue over
//! [`queens::ops::collection`].

use std::io::Write;
use std::time::{Duration, Instant};

use queens::games::collection::Difficulty;
use queens::games::collection::{parse_deal, parse_moves, DrawRule, Rules};
use queens::ops::collection::{
    self as op, CollectionSolveRequest, DealRequest, PlayRequest, PlayResponse, SimulateRequest,
    SolveMethod, StudyRequest,
};
use queens::ops::Context;
use queens::{formats, Error};

use crate::output::{to_json, Failure};
use crate::progress;

use args::seconds;
pub(crate) use args::CollectionCommand;
use text::{print_deal, print_play, print_simulate, print_study};

mod args;
mod text;

pub(crate) fn run(
    out: &mut impl Write,
    command: CollectionCommand,
    started: Instant,
) -> Result<u8, Failure> {
    match command {
        CollectionCommand::Deal {
            seed,
            beginner,
            remove_colour_cards,
            remove_wilds,
            json,
        } => {
            let req = DealRequest {
                seed,
                difficulty: Difficulty {
                    beginner,
                    remove_colour_cards,
                    remove_wilds,
                },
            };
            let deal = op::deal(&req, &Context::default())?;
            if json {
                writeln!(out, "{}", to_json(&deal)?)?;
            } else {
                print_deal(out, &deal)?;
            }
            Ok(0)
        }
        CollectionCommand::Play {
            deal,
            moves,
            policy,
            seed,
            game,
            json,
        } => {
            let (origin, text) = formats::read_text(&deal)?;
            let (deal, _) = parse_deal(&origin, &text, game.rules())?;
            let (moves, moves_origin) = match &moves {
                Some(path) => {
                    let (origin, text) = formats::read_text(path)?;
                    (Some(parse_moves(&origin, &text)?), Some(origin))
                }
                None => (None, None),
            };
            let req = PlayRequest {
                deal: deal.clone(),
                moves,
                policy,
                seed,
                lookahead: game.lookahead(),
                rules: game.rules(),
                moves_origin,
            };
            let resp = op::play(&req, &Context::default())?;
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_play(out, &deal, req.rules, &resp)?;
            }
            Ok(0)
        }
        CollectionCommand::Simulate {
            policy,
            deals,
            difficulty,
            seed,
            jobs,
            plot,
            timeout,
            game,
            json,
        } => {
            let mut ctx = Context::default();
            if let Some(secs) = timeout {
                let d = Duration::try_from_secs_f64(secs)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| {
                        Error::unsupported(format!(
                            "--timeout: `{secs}` is not a positive number of seconds"
                        ))
                    })?;
                ctx.budget.deadline = started.checked_add(d);
            }
            let bar = progress::bar(&format!("{policy}, {difficulty}"), "deals");
            if let Some(bar) = &bar {
                let bar = bar.clone();
                ctx = ctx.with_progress(move |done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                });
            }
            let req = SimulateRequest {
                policy,
                deals,
                difficulty,
                seed,
                jobs: Some(jobs.map_or_else(
                    || std::thread::available_parallelism().map_or(1, |n| n.get()),
                    |j| j as usize,
                )),
                lookahead: game.lookahead(),
                rules: game.rules(),
            };
            let ran = op::simulate(&req, &ctx);
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let resp = ran?;
            if let Some(path) = &plot {
                let bars: Vec<(i32, u64)> = resp.histogram.iter().map(|(&k, &v)| (k, v)).collect();
                queens::plot::histogram_svg(
                    path,
                    &format!(
                        "{}, {}: {} deals, mean {:.2}, win rate {:.2}%",
                        resp.policy,
                        resp.difficulty,
                        resp.deals,
                        resp.mean,
                        100.0 * resp.win_rate
                    ),
                    "final score",
                    "deals",
                    &bars,
                )?;
            }
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_simulate(out, &resp)?;
            }
            Ok(resp.exit_code())
        }
        CollectionCommand::Solve {
            deal,
            timeout,
            max_entries,
            beam,
            method,
            full_draws,
            json,
        } => {
            let rules = Rules {
                draw: if full_draws {
                    DrawRule::Full
                } else {
                    DrawRule::Short
                },
            };
            let (origin, text) = formats::read_text(&deal)?;
            let (deal, _) = parse_deal(&origin, &text, rules)?;
            let mut ctx = Context::default();
            ctx.budget.max_memory = Some(queens::engine::default_max_memory());
            if let Some(secs) = timeout {
                ctx.budget.deadline = started.checked_add(seconds("--timeout", secs)?);
                if method == SolveMethod::Sat {
                    // varisat cannot be interrupted: each call runs in a child, killed at
                    // the deadline.
                    ctx.isolate = Some(std::env::current_exe().map_err(|e| Error::Io {
                        path: "queens".into(),
                        source: e,
                    })?);
                }
            }
            let bar = progress::spinner("solving");
            let req = CollectionSolveRequest {
                deal: deal.clone(),
                rules,
                max_entries: Some(max_entries),
                beam: Some(beam),
                method,
            };
            let ran = op::solve(&req, &ctx);
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let resp = ran?;
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                let play = PlayResponse {
                    moves: resp.moves.clone(),
                    score: resp.score,
                    turns: resp.turns,
                    status: resp.status,
                };
                print_play(out, &deal, rules, &play)?;
                writeln!(
                    out,
                    "{} ({} positions, {:.1} s)",
                    if resp.proven {
                        format!("optimum {}: no game scores more", resp.score)
                    } else {
                        format!(
                            "best found {}, not proven: no game scores more than {} ({})",
                            resp.score, resp.upper_bound, resp.budget
                        )
                    },
                    resp.nodes,
                    resp.time_ms / 1000.0
                )?;
            }
            Ok(resp.exit_code())
        }
        CollectionCommand::Study {
            deals,
            difficulty,
            seed,
            timeout_each,
            max_entries,
            jobs,
            timeout,
            game,
            json,
        } => {
            let mut ctx = Context::default();
            ctx.budget.max_memory = Some(queens::engine::default_max_memory());
            if let Some(secs) = timeout {
                ctx.budget.deadline = started.checked_add(seconds("--timeout", secs)?);
            }
            let each = seconds("--timeout-each", timeout_each)?;
            let bar = progress::bar(&format!("optimum, {difficulty}"), "deals");
            if let Some(bar) = &bar {
                let bar = bar.clone();
                ctx = ctx.with_progress(move |done, total| {
                    bar.set_length(total);
                    bar.set_position(done);
                });
            }
            let req = StudyRequest {
                deals,
                difficulty,
                seed,
                timeout_each_ms: each.as_millis().max(1) as u64,
                max_entries: Some(max_entries),
                jobs: Some(jobs.map_or_else(
                    || std::thread::available_parallelism().map_or(1, |n| n.get()),
                    |j| j as usize,
                )),
                lookahead: game.lookahead(),
                rules: game.rules(),
            };
            let ran = op::study(&req, &ctx);
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            let resp = ran?;
            if json {
                writeln!(out, "{}", to_json(&resp)?)?;
            } else {
                print_study(out, &resp)?;
            }
            Ok(resp.exit_code())
        }
    }
}
