//! `queens collection …`: The Queen's Collection, solo, as glue over
//! [`queens::ops::collection`].

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Subcommand;

use queens::games::collection::policy::{Lookahead, PolicyName};
use queens::games::collection::Difficulty;
use queens::games::collection::{parse_deal, parse_moves, Deal, DrawRule, Rules, Status};
use queens::ops::collection::{
    self as op, CollectionSolveRequest, DealRequest, PlayRequest, PlayResponse, SimulateRequest,
    SimulateResponse, SolveMethod, StudyRequest, StudyResponse,
};
use queens::ops::Context;
use queens::{formats, Error};

use super::output::{to_json, Failure};
use super::progress;

#[derive(Subcommand)]
pub(crate) enum CollectionCommand {
    /// A seeded solo deal: the 8 boxes in circle order with their pawns, the hand and the
    /// pile (top first).
    Deal {
        /// The deal's seed (the same seed gives the same deal everywhere).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The beginner side: boxes of 2 spaces, 2 pawns of each colour (12 in solo).
        #[arg(long)]
        beginner: bool,
        /// Take one card of each colour out of the game.
        #[arg(long)]
        remove_colour_cards: bool,
        /// Take K wilds out of the game (0..=3).
        #[arg(long, value_name = "K", default_value_t = 0)]
        remove_wilds: u8,
        /// Print the deal as JSON (what `play` reads) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play a deal to the end: replay a move list (the first illegal move exits 2, naming
    /// its index and the rule it breaks), or let a policy play.
    Play {
        /// The deal (JSON, as `deal --json` prints it), or - for stdin.
        deal: PathBuf,
        /// The moves: a JSON list, or the JSON `play` prints.
        #[arg(
            long,
            value_name = "MOVES.json",
            conflicts_with = "policy",
            required_unless_present = "policy"
        )]
        moves: Option<PathBuf>,
        /// random, greedy or lookahead.
        #[arg(long, value_parser = parse_policy)]
        policy: Option<PolicyName>,
        /// The policy's seed (default: the seed `simulate` gives deal 0's policy).
        #[arg(long, requires = "policy")]
        seed: Option<u64>,
        #[command(flatten)]
        game: GameArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Play N seeded deals with a policy on all cores: mean score, distribution, win rate.
    Simulate {
        /// random, greedy or lookahead.
        #[arg(long, value_parser = parse_policy)]
        policy: PolicyName,
        /// Deals to play.
        #[arg(long, value_name = "N")]
        deals: u64,
        /// normal, or beginner, colour-cards and wilds-K (K = 1..3) joined by +, e.g.
        /// colour-cards+wilds-3.
        #[arg(long, default_value = "normal", value_parser = parse_difficulty)]
        difficulty: Difficulty,
        /// Deal i has seed SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Threads (default: every core).
        #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..=64))]
        jobs: Option<u64>,
        /// Write the score histogram as SVG.
        #[arg(long, value_name = "F.svg")]
        plot: Option<PathBuf>,
        /// Stop after SECS seconds and report the deals played (exit 4).
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        #[command(flatten)]
        game: GameArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The clairvoyant optimum: the best score with the whole pile order known, the moves
    /// that reach it, and whether no game scores more (exit 0 proven, 4 when the time limit
    /// ends the search first: the best game found and an upper bound).
    Solve {
        /// The deal (JSON, as `deal --json` prints it), or - for stdin.
        deal: PathBuf,
        /// Stop after SECS seconds with the best game found.
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        /// Positions the search may remember (up to about 64 bytes each: the hash table doubles).
        #[arg(long, value_name = "N", default_value_t = op::DEFAULT_TABLE_ENTRIES)]
        max_entries: usize,
        /// The widest beam searched for a first game (64, 512, … ×8 up to N; 0 for none).
        #[arg(long, value_name = "N", default_value_t = op::DEFAULT_BEAM)]
        beam: usize,
        /// search (branch and bound) or sat (bounded planning with checked proofs; for
        /// small positions).
        #[arg(long, default_value = "search", value_parser = parse_method)]
        method: SolveMethod,
        /// A move must be able to draw all its cards.
        #[arg(long)]
        full_draws: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Solve N seeded deals for their optimum (a time limit each) and play them with the
    /// greedy and lookahead policies: how much of a player's loss is luck, how much play.
    Study {
        /// Deals.
        #[arg(long, value_name = "N")]
        deals: u64,
        /// normal, or beginner, colour-cards and wilds-K joined by +.
        #[arg(long, default_value = "normal", value_parser = parse_difficulty)]
        difficulty: Difficulty,
        /// Deal i has seed SEED + i.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Seconds for each deal's optimum.
        #[arg(long, value_name = "SECS", default_value_t = 10.0)]
        timeout_each: f64,
        /// Positions each search may remember.
        #[arg(long, value_name = "N", default_value_t = op::DEFAULT_TABLE_ENTRIES)]
        max_entries: usize,
        /// Threads (default: every core).
        #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..=64))]
        jobs: Option<u64>,
        /// Stop the whole study after SECS seconds (exit 4).
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        #[command(flatten)]
        game: GameArgs,
        /// Print one JSON object (with every deal's numbers) instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn seconds(flag: &str, secs: f64) -> Result<Duration, Error> {
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| {
            Error::unsupported(format!(
                "{flag}: `{secs}` is not a positive number of seconds"
            ))
        })
}

/// The rules' readings and the lookahead budget, shared by `play` and `simulate`.
#[derive(clap::Args)]
pub(crate) struct GameArgs {
    /// A move must be able to draw all its cards (default: the draw comes up short when the
    /// pile runs out, and the game ends).
    #[arg(long)]
    full_draws: bool,
    /// Lookahead: moves tried per turn (the best by the greedy key).
    #[arg(long, value_name = "K", default_value_t = Lookahead::default().candidates)]
    candidates: usize,
    /// Lookahead: determinisations of the unseen cards per turn.
    #[arg(long, value_name = "S", default_value_t = Lookahead::default().samples)]
    samples: usize,
}

impl GameArgs {
    fn rules(&self) -> Rules {
        Rules {
            draw: if self.full_draws {
                DrawRule::Full
            } else {
                DrawRule::Short
            },
        }
    }

    fn lookahead(&self) -> Lookahead {
        Lookahead {
            candidates: self.candidates,
            samples: self.samples,
        }
    }
}

fn parse_policy(s: &str) -> Result<PolicyName, String> {
    s.parse()
}

fn parse_method(s: &str) -> Result<SolveMethod, String> {
    s.parse()
}

fn parse_difficulty(s: &str) -> Result<Difficulty, String> {
    s.parse()
}

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

fn print_play(
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
