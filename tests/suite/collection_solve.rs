//! The Queen's Collection's clairvoyant optimum: the branch and bound
//! held to a plain exhaustive search on short games, its bound held to be admissible, its
//! games replayed and never below a policy's, and the CLI's `collection solve` / `study`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use queens::games::collection::deal::{deal, Difficulty};
use queens::games::collection::plan;
use queens::games::collection::policy::{play, Lookahead, PolicyName};
use queens::games::collection::rules::{card_counts, CardCounts};
use queens::games::collection::solve::{optimum, upper_bound, Limits};
use queens::games::collection::{replay, Board, DrawRule, Rules, State};

type Key = (Board, CardCounts, usize);
use queens::rng::Rng;

/// The best final score from `s` by trying every legal move, remembering positions by board,
/// hand (as a multiset) and pile length: nothing clever, so nothing to share a bug with.
fn exhaustive(s: &mut State, memo: &mut HashMap<Key, i32>) -> i32 {
    if s.is_over() {
        return s.score();
    }
    let key = (*s.board(), card_counts(s.hand().cards()), s.pile_len());
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut best = i32::MIN;
    for mv in s.legal_moves() {
        let undo = s.apply(&mv).unwrap();
        best = best.max(exhaustive(s, memo));
        s.undo(undo);
    }
    memo.insert(key, best);
    best
}

/// Deal `seed` of `difficulty` with its pile cut to `pile` cards.
fn short_game(seed: u64, difficulty: &Difficulty, pile: usize, rules: Rules) -> State {
    let mut d = deal(seed, difficulty);
    d.pile.truncate(pile);
    d.to_state(rules).unwrap()
}

fn no_stop() -> bool {
    false
}

#[test]
fn the_optimum_matches_exhaustive_search_on_short_games() {
    let mut checked = 0;
    let mut setups = 0;
    for seed in 0..40u64 {
        let difficulty = Difficulty {
            beginner: seed % 2 == 1,
            ..Difficulty::default()
        };
        let rules = Rules {
            draw: if seed % 3 == 0 {
                DrawRule::Full
            } else {
                DrawRule::Short
            },
        };
        let start = short_game(seed, &difficulty, 4 + (seed % 4) as usize, rules);
        let want = exhaustive(&mut start.clone(), &mut HashMap::new());
        let got = optimum(&start, Limits::default(), &no_stop).unwrap();
        assert!(got.proven, "seed {seed}");
        assert_eq!(got.score, want, "seed {seed}");
        assert_eq!(got.upper_bound, want, "seed {seed}");
        assert!(
            upper_bound(&start) >= want,
            "seed {seed}: the bound is below the optimum"
        );
        let end = replay(&start, &got.moves).unwrap();
        assert!(end.is_over());
        assert_eq!(end.score(), got.score);
        // Does the best game pass through a move that lowers the score?
        let mut s = start.clone();
        for mv in &got.moves {
            let before = s.score();
            s.apply(mv).unwrap();
            if s.score() < before {
                setups += 1;
                break;
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 40);
    eprintln!("{setups} of 40 optimal games lower the score on the way");
}

/// The SAT planning encoding and the branch and bound are independent answers to one
/// question: on short normal and beginner games, under both draw rules, they agree, both
/// prove it, and the SAT plan replays to its score.
#[test]
fn sat_planning_and_branch_and_bound_agree_on_short_games() {
    let mut cases = Vec::new();
    for seed in 0..5u64 {
        cases.push((seed, Difficulty::default(), 3, DrawRule::Short));
        cases.push((seed, Difficulty::default(), 3, DrawRule::Full));
        cases.push((
            seed,
            Difficulty {
                beginner: true,
                ..Difficulty::default()
            },
            4,
            DrawRule::Short,
        ));
    }
    for seed in 10..12u64 {
        cases.push((seed, Difficulty::default(), 4, DrawRule::Short));
    }
    for (seed, difficulty, pile, draw) in cases {
        let start = short_game(seed, &difficulty, pile, Rules { draw });
        let sat = plan::optimum(&start, None, None).unwrap();
        let search = optimum(&start, Limits::default(), &no_stop).unwrap();
        let what = format!("seed {seed}, {}, pile {pile}, {draw:?}", difficulty.name());
        assert!(sat.proven && search.proven, "{what}");
        assert_eq!(sat.score, search.score, "{what}");
        assert!(sat.calls >= 1, "{what}");
        let end = replay(&start, &sat.moves).unwrap();
        assert!(end.is_over(), "{what}");
        assert_eq!(end.score(), sat.score, "{what}");
    }
}

#[test]
fn the_bound_never_falls_below_the_optimum_along_random_games() {
    let mut rng = Rng::new(16);
    for seed in 100..130u64 {
        let difficulty = Difficulty {
            beginner: seed % 2 == 0,
            remove_wilds: (seed % 4) as u8,
            ..Difficulty::default()
        };
        let mut s = short_game(seed, &difficulty, 6, Rules::default());
        let mut memo = HashMap::new();
        while !s.is_over() {
            let value = exhaustive(&mut s.clone(), &mut memo);
            assert!(
                upper_bound(&s) >= value,
                "seed {seed}: bound {} < optimum {value} at {:?}",
                upper_bound(&s),
                s.board()
            );
            let moves = s.legal_moves();
            let mv = moves[rng.below(moves.len())].clone();
            s.apply(&mv).unwrap();
        }
    }
}

#[test]
fn the_optimum_is_never_below_a_policy_and_replays() {
    for seed in 0..6u64 {
        let difficulty = Difficulty {
            beginner: true,
            ..Difficulty::default()
        };
        let start = deal(seed, &difficulty).to_state(Rules::default()).unwrap();
        let limits = Limits {
            deadline: Instant::now().checked_add(Duration::from_secs(5)),
            ..Limits::default()
        };
        let best = optimum(&start, limits, &no_stop).unwrap();
        assert_eq!(replay(&start, &best.moves).unwrap().score(), best.score);
        assert!(best.upper_bound >= best.score);
        for policy in [
            PolicyName::Random,
            PolicyName::Greedy,
            PolicyName::Lookahead,
        ] {
            for policy_seed in 0..3 {
                let mut p = policy.build(policy_seed, Lookahead::default());
                let game = play(&start, p.as_mut()).unwrap();
                assert!(
                    game.end.score() <= best.score.max(best.upper_bound),
                    "seed {seed}: {policy} scored {} above the upper bound {}",
                    game.end.score(),
                    best.upper_bound
                );
                if best.proven {
                    assert!(
                        game.end.score() <= best.score,
                        "seed {seed}: {policy} scored {} above the optimum {}",
                        game.end.score(),
                        best.score
                    );
                }
            }
        }
    }
}

#[test]
fn a_stopped_search_answers_with_its_best_game_unproven() {
    // A normal deal that is not won at once: stop the search immediately.
    let start = deal(3, &Difficulty::default())
        .to_state(Rules::default())
        .unwrap();
    let best = optimum(&start, Limits::default(), &|| true).unwrap();
    assert_eq!(replay(&start, &best.moves).unwrap().score(), best.score);
    assert!(best.upper_bound >= best.score);
    if !best.proven {
        assert!(best.upper_bound > best.score);
    }
}

mod cli {
    use super::super::cli::{json, queens, stdout};
    use crate::temp;

    #[test]
    fn solve_reads_a_deal_from_stdin_and_proves_its_optimum() {
        let deal = stdout(&queens(
            &["collection", "deal", "--seed", "5", "--json"],
            None,
        ));
        let o = queens(&["collection", "solve", "-", "--json"], Some(&deal));
        super::super::cli::exited(&o, 0);
        let best = json(&o);
        assert_eq!(best["proven"], true);
        assert_eq!(best["method"], "search");
        assert_eq!(
            best["turns"].as_u64().unwrap() as usize,
            best["moves"].as_array().unwrap().len()
        );
        // `play --moves` reads the printed answer back and agrees on the score.
        let path = temp::file("moves.json", stdout(&o));
        let played = queens(
            &[
                "collection",
                "play",
                "-",
                "--moves",
                path.to_str().unwrap(),
                "--json",
            ],
            Some(&deal),
        );
        assert_eq!(played.status.code(), Some(0));
        assert_eq!(json(&played)["score"], best["score"]);
        // The text form ends with the verdict.
        let o = queens(&["collection", "solve", "-"], Some(&deal));
        assert!(stdout(&o).contains("no game scores more"), "{}", stdout(&o));
    }

    #[test]
    fn the_sat_method_answers_as_the_search_does() {
        let mut deal: serde_json::Value = serde_json::from_str(&stdout(&queens(
            &["collection", "deal", "--seed", "2", "--json"],
            None,
        )))
        .unwrap();
        deal["pile"].as_array_mut().unwrap().truncate(3);
        let deal = deal.to_string();
        let search = json(&queens(
            &["collection", "solve", "-", "--json"],
            Some(&deal),
        ));
        // With a time limit each SAT call runs in a child process.
        let o = queens(
            &[
                "collection",
                "solve",
                "-",
                "--method",
                "sat",
                "--timeout",
                "120",
                "--json",
            ],
            Some(&deal),
        );
        super::super::cli::exited(&o, 0);
        let sat = json(&o);
        assert_eq!(sat["method"], "sat");
        assert_eq!(sat["proven"], true);
        assert_eq!(sat["score"], search["score"]);
        assert!(sat["sat_calls"].as_u64().unwrap() >= 1);
        let o = queens(
            &["collection", "solve", "-", "--method", "guess"],
            Some(&deal),
        );
        assert_eq!(o.status.code(), Some(2));
    }

    #[test]
    fn bad_options_and_bad_deals_exit_2() {
        let o = queens(
            &["collection", "solve", "-", "--json"],
            Some("{\"boxes\": []}"),
        );
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("`hand`"));
        let deal = stdout(&queens(&["collection", "deal", "--json"], None));
        let o = queens(&["collection", "solve", "-", "--timeout=0"], Some(&deal));
        assert_eq!(o.status.code(), Some(2));
        let o = queens(&["collection", "study", "--deals", "0"], None);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("deals"));
    }

    #[test]
    fn study_reports_the_same_optimum_as_solve_and_splits_the_loss() {
        let o = queens(
            &[
                "collection",
                "study",
                "--deals",
                "3",
                "--seed",
                "5",
                "--timeout-each",
                "5",
                "--jobs",
                "2",
                "--json",
            ],
            None,
        );
        super::super::cli::exited(&o, 0);
        let study = json(&o);
        let results = study["results"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        let seeds: Vec<u64> = results
            .iter()
            .map(|r| r["seed"].as_u64().unwrap())
            .collect();
        assert_eq!(seeds, [5, 6, 7]);
        for r in results {
            assert!(r["optimum"].as_i64() <= r["upper_bound"].as_i64());
            assert!(r["greedy"].as_i64() <= r["upper_bound"].as_i64());
            if r["proven"] == true {
                assert!(r["lookahead"].as_i64() <= r["optimum"].as_i64());
            }
        }
        let loss = &study["summary"]["loss"];
        let get = |k: &str| loss[k].as_f64().unwrap();
        assert!(
            (get("total") - get("luck_high") - get("play_low")).abs() < 1e-9,
            "{loss}"
        );
        assert!(
            (get("total") - get("luck_low") - get("play_high")).abs() < 1e-9,
            "{loss}"
        );
        assert!(get("luck_low") <= get("luck_high"), "{loss}");
    }
}
