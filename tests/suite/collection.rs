//! The Queen's Collection, solo: the rules engine held to its invariants on
//! random games, each illegal move refused with its rule, deals valid and deterministic for
//! every difficulty, and the CLI as a user runs it.

use proptest::prelude::*;
use queens::games::collection::deal::{deal, Difficulty};
use queens::games::collection::policy::{greedy_moves, GreedyKey};
use queens::games::collection::rules::{card_counts, CardCounts};
use queens::games::collection::{
    parse_deal, parse_moves, replay, Card, Colour, Deal, DrawRule, Move, Pawn, Rule, Rules, State,
    Status,
};
use queens::rng::Rng;

/// Every difficulty a deal can have.
fn difficulties() -> Vec<Difficulty> {
    let mut all = Vec::new();
    for beginner in [false, true] {
        for remove_colour_cards in [false, true] {
            for remove_wilds in 0..=3 {
                all.push(Difficulty {
                    beginner,
                    remove_colour_cards,
                    remove_wilds,
                });
            }
        }
    }
    all
}

fn difficulty() -> impl Strategy<Value = Difficulty> {
    (any::<bool>(), any::<bool>(), 0u8..=3).prop_map(
        |(beginner, remove_colour_cards, remove_wilds)| Difficulty {
            beginner,
            remove_colour_cards,
            remove_wilds,
        },
    )
}

fn rules() -> impl Strategy<Value = Rules> {
    any::<bool>().prop_map(|full| Rules {
        draw: if full {
            DrawRule::Full
        } else {
            DrawRule::Short
        },
    })
}

/// Every card of the game: hand, pile left and discards.
fn all_cards(s: &State) -> CardCounts {
    let cards: Vec<Card> = s
        .hand()
        .cards()
        .iter()
        .chain(s.pile())
        .chain(s.discards())
        .copied()
        .collect();
    card_counts(&cards)
}

fn pawn_counts(s: &State) -> [u8; 8] {
    Colour::ALL.map(|c| s.board().count(c))
}

/// A legal move of `s` picked by `rng`, or `None` when the game is over.
fn random_move(s: &State, rng: &mut Rng) -> Option<Move> {
    let moves = s.legal_moves();
    (!moves.is_empty()).then(|| moves[rng.below(moves.len())].clone())
}

fn swap(cards: [usize; 2], a: (Colour, usize), b: (Colour, usize)) -> Move {
    Move::Swap {
        cards,
        pawns: [
            Pawn {
                colour: a.0,
                at: a.1,
            },
            Pawn {
                colour: b.0,
                at: b.1,
            },
        ],
    }
}

/// A small position written by hand: boxes red, orange, … white in circle order.
fn position(boxes: [&[Colour]; 8], hand: &[Card], pile: &[Card]) -> State {
    position_under(Rules::default(), boxes, hand, pile)
}

fn position_under(rules: Rules, boxes: [&[Colour]; 8], hand: &[Card], pile: &[Card]) -> State {
    let deal = Deal {
        boxes: Colour::ALL
            .iter()
            .zip(boxes)
            .map(
                |(&colour, pawns)| queens::games::collection::format::BoxSpec {
                    colour,
                    capacity: 3,
                    pawns: pawns.to_vec(),
                },
            )
            .collect(),
        hand: hand.to_vec(),
        pile: pile.to_vec(),
    };
    deal.to_state(rules).unwrap()
}

use Colour::{Black, Blue, Green, Orange, Purple, Red, White, Yellow};
const W: Card = Card::Wild;
fn c(colour: Colour) -> Card {
    Card::Colour(colour)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_the_pawns_and_the_cards(seed in any::<u64>(), d in difficulty(), r in rules(), play in any::<u64>()) {
        let start = deal(seed, &d).to_state(r).unwrap();
        let pawns = pawn_counts(&start);
        let cards = all_cards(&start);
        let mut rng = Rng::new(play);
        let mut s = start.clone();
        let mut moves = Vec::new();
        while let Some(mv) = random_move(&s, &mut rng) {
            prop_assert!(s.check(&mv).is_ok(), "{mv}: {:?}", s.check(&mv));
            s.apply(&mv).unwrap();
            moves.push(mv);
            prop_assert_eq!(pawn_counts(&s), pawns);
            prop_assert_eq!(all_cards(&s), cards);
            for b in 0..8 {
                prop_assert!(s.board().len(b) <= s.board().capacity());
            }
            prop_assert!(s.hand().len() <= 3);
        }
        prop_assert!(s.is_over());
        prop_assert!(s.status() == Status::Sorted || s.pile_len() == 0);
        prop_assert!(s.score() <= d.max_score());
        prop_assert_eq!(s.status() == Status::Sorted, s.score() == d.max_score());
        // The replay of the list reaches the same state.
        prop_assert_eq!(replay(&start, &moves).unwrap(), s);
    }

    #[test]
    fn apply_then_undo_restores_the_state(seed in any::<u64>(), d in difficulty(), r in rules(), play in any::<u64>(), depth in 0usize..20) {
        let mut s = deal(seed, &d).to_state(r).unwrap();
        let mut rng = Rng::new(play);
        for _ in 0..depth {
            match random_move(&s, &mut rng) {
                Some(mv) => { s.apply(&mv).unwrap(); }
                None => break,
            }
        }
        // Every legal move here, applied and undone, leaves the state as it was.
        for mv in s.legal_moves() {
            let before = s.clone();
            let undo = s.apply(&mv).unwrap();
            prop_assert_eq!(s.turns(), before.turns() + 1);
            s.undo(undo);
            prop_assert_eq!(&s, &before, "{}", mv);
        }
        // A whole sequence undone in reverse, too.
        let before = s.clone();
        let mut undos = Vec::new();
        while let Some(mv) = random_move(&s, &mut rng) {
            undos.push(s.apply(&mv).unwrap());
        }
        while let Some(u) = undos.pop() {
            s.undo(u);
        }
        prop_assert_eq!(s, before);
    }

    #[test]
    fn legal_moves_are_exactly_the_moves_check_accepts(seed in any::<u64>(), r in rules(), play in any::<u64>(), depth in 0usize..25) {
        let mut s = deal(seed, &Difficulty::default()).to_state(r).unwrap();
        let mut rng = Rng::new(play);
        for _ in 0..depth {
            match random_move(&s, &mut rng) {
                Some(mv) => { s.apply(&mv).unwrap(); }
                None => break,
            }
        }
        let legal = s.legal_moves();
        // Every move over the hand, the pawns and the boxes: check accepts the listed ones
        // and no other (a swap is listed with its pawns in box order).
        let h = s.hand().len();
        let mut accepted = 0;
        for i in 0..h {
            for j in i + 1..h {
                for (k, p) in s.groups().iter().enumerate() {
                    for q in &s.groups()[k + 1..] {
                        let mv = Move::Swap { cards: [i, j], pawns: [*p, *q] };
                        prop_assert_eq!(s.check(&mv).is_ok(), legal.contains(&mv), "{}", mv);
                        accepted += usize::from(s.check(&mv).is_ok());
                    }
                }
            }
            for p in s.groups() {
                for to in 0..8 {
                    let mv = Move::Wild { card: i, colour: p.colour, from: p.at, to };
                    prop_assert_eq!(s.check(&mv).is_ok(), legal.contains(&mv), "{}", mv);
                    accepted += usize::from(s.check(&mv).is_ok());
                }
            }
        }
        for mask in 1u32..(1 << h) {
            let mv = Move::Discard((0..h).filter(|&i| mask >> i & 1 == 1).collect());
            prop_assert_eq!(s.check(&mv).is_ok(), legal.contains(&mv), "{}", mv);
            accepted += usize::from(s.check(&mv).is_ok());
        }
        prop_assert_eq!(accepted, legal.len());
    }
}

/// The greedy keys by their definition, over every legal move: the reference
/// [`greedy_moves`]'s pruned scan is held to.
fn greedy_reference(s: &State) -> Vec<(Move, GreedyKey)> {
    let b = s.board();
    let misplaced = |c: Colour| i64::from(b.count(c) - b.pawns(b.home(c), c));
    let total: i64 = Colour::ALL.iter().map(|&c| misplaced(c)).sum();
    let value = |card: Card| match card {
        Card::Colour(c) => misplaced(c) * 1000,
        Card::Wild => total * 1000,
    };
    let pile = s.pile_len() as i64;
    let drawn = if pile == 0 {
        0
    } else {
        s.pile().iter().map(|&c| value(c)).sum::<i64>() / pile
    };
    s.legal_moves()
        .into_iter()
        .filter_map(|mv| {
            let delta = b.score_delta(&mv);
            if delta <= 0 && !matches!(mv, Move::Discard(_)) {
                return None;
            }
            let played = mv.cards();
            let kept: i64 = (0..s.hand().len())
                .filter(|i| !played.contains(i))
                .map(|i| value(s.hand().cards()[i]))
                .sum();
            let hand = kept + (played.len() as i64).min(pile) * drawn;
            Some((mv, GreedyKey { delta, hand }))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn greedy_scan_lists_exactly_the_score_raising_moves_and_discards(seed in any::<u64>(), d in difficulty(), r in rules(), play in any::<u64>(), depth in 0usize..25) {
        let mut s = deal(seed, &d).to_state(r).unwrap();
        let mut rng = Rng::new(play);
        for _ in 0..depth {
            match random_move(&s, &mut rng) {
                Some(mv) => { s.apply(&mv).unwrap(); }
                None => break,
            }
        }
        let mut fast = greedy_moves(&s);
        let mut slow = greedy_reference(&s);
        let key = |m: &(Move, GreedyKey)| format!("{:?}", m);
        fast.sort_by_key(key);
        slow.sort_by_key(key);
        prop_assert_eq!(fast, slow);
    }
}

#[test]
fn deals_are_deterministic_and_valid_for_every_difficulty() {
    for d in difficulties() {
        for seed in 0..300 {
            let deal_json = deal(seed, &d);
            assert_eq!(deal_json, deal(seed, &d), "{d}, seed {seed}");
            let s = deal_json.to_state(Rules::default()).unwrap();
            let b = s.board();
            let per_colour = if d.beginner { 2 } else { 3 };
            // 4 pawns of 4 different colours out.
            let counts = Colour::ALL.map(|c| b.count(c));
            assert_eq!(
                counts.iter().filter(|&&n| n == per_colour - 1).count(),
                4,
                "{d}, seed {seed}: {counts:?}"
            );
            assert_eq!(b.total(), if d.beginner { 12 } else { 20 });
            // No pawn starts on its own box; no box over its spaces.
            assert_eq!(b.misplaced(), b.total(), "{d}, seed {seed}");
            assert!((0..8).all(|x| b.len(x) <= d.capacity()));
            // Every card of the difficulty is in hand or pile.
            let expected = card_counts(&d.cards());
            let got = card_counts(
                &s.hand()
                    .cards()
                    .iter()
                    .chain(s.pile())
                    .copied()
                    .collect::<Vec<_>>(),
            );
            assert_eq!(got, expected, "{d}, seed {seed}");
            assert_eq!(s.hand().len(), 3);
            assert_eq!(s.status(), Status::Playing);
            // The JSON round trip keeps the deal.
            let text = serde_json::to_string(&deal_json).unwrap();
            let (back, state) = parse_deal("deal", &text, Rules::default()).unwrap();
            assert_eq!(back, deal_json);
            assert_eq!(state, s);
        }
    }
    assert_ne!(
        deal(1, &Difficulty::default()),
        deal(2, &Difficulty::default())
    );
}

#[test]
fn the_json_contracts_read_as_the_issue_writes_them() {
    let moves = parse_moves(
        "moves",
        r#"[{"swap": {"cards": [0, 2], "pawns": [{"color": "red", "box": 1}, {"color": "blue", "box": 4}]}},
            {"wild": {"card": 1, "color": "red", "from": 2, "to": 0}},
            {"discard": [0, 1]}]"#,
    )
    .unwrap();
    assert_eq!(
        moves,
        vec![
            swap([0, 2], (Red, 1), (Blue, 4)),
            Move::Wild {
                card: 1,
                colour: Red,
                from: 2,
                to: 0
            },
            Move::Discard(vec![0, 1]),
        ]
    );
    assert_eq!(
        serde_json::to_string(&moves[1]).unwrap(),
        r#"{"wild":{"card":1,"color":"red","from":2,"to":0}}"#
    );
    // The play output, read back as it is.
    let again = parse_moves(
        "play",
        r#"{"moves": [{"discard": [2]}], "score": -20, "turns": 1, "status": "pile-empty"}"#,
    )
    .unwrap();
    assert_eq!(again, vec![Move::Discard(vec![2])]);
}

#[test]
fn bad_json_and_impossible_deals_name_the_field() {
    let good = serde_json::to_value(deal(3, &Difficulty::default())).unwrap();
    let err = |v: &serde_json::Value| {
        parse_deal("d.json", &v.to_string(), Rules::default())
            .unwrap_err()
            .to_string()
    };
    let mut v = good.clone();
    v["boxes"][2]["color"] = "teal".into();
    assert!(
        err(&v).contains("field `boxes[2].color`: unknown variant `teal`"),
        "{}",
        err(&v)
    );
    let mut v = good.clone();
    v["hand"][1] = "joker".into();
    assert!(
        err(&v).contains("field `hand[1]`: unknown card `joker`"),
        "{}",
        err(&v)
    );
    let mut v = good.clone();
    v["boxes"][3]["color"] = v["boxes"][0]["color"].clone();
    assert!(
        err(&v).contains("field `boxes[3].color`: boxes[0] is"),
        "{}",
        err(&v)
    );
    let mut v = good.clone();
    v["boxes"][1]["pawns"] = serde_json::json!(["red", "red", "blue", "green"]);
    assert!(
        err(&v).contains("field `boxes[1].pawns`: 4 pawns on a box of 3 spaces"),
        "{}",
        err(&v)
    );
    let mut v = good.clone();
    v["boxes"][5]["capacity"] = 2.into();
    assert!(err(&v).contains("field `boxes[5].capacity`"), "{}", err(&v));
    let mut v = good.clone();
    v["pile"].as_array_mut().unwrap().push("wild".into());
    assert!(
        err(&v).contains("field `pile`: 7 wild cards in hand and pile: the game has 6"),
        "{}",
        err(&v)
    );
    let mut v = good.clone();
    v["hand"].as_array_mut().unwrap().push("red".into());
    assert!(err(&v).contains("field `hand`: 4 cards"), "{}", err(&v));
    let mut v = good.clone();
    v["boxes"].as_array_mut().unwrap().pop();
    assert!(
        err(&v).contains("field `boxes`: expected 8 boxes"),
        "{}",
        err(&v)
    );
    let mut v = good.clone();
    v["extra"] = 1.into();
    assert!(err(&v).contains("unknown field `extra`"), "{}", err(&v));
    let e = parse_deal("d.json", "{\"boxes\": [", Rules::default()).unwrap_err();
    assert!(e.to_string().starts_with("d.json: invalid JSON"), "{e}");
    let e = parse_moves("m.json", r#"[{"discard": [0]}, {"swap": {"cards": [0]}}]"#).unwrap_err();
    assert!(e.to_string().contains("field `[1].swap.cards`"), "{e}");
}

/// Boxes in circle order red, orange, yellow, green, blue, purple, black, white.
fn small() -> State {
    position(
        [
            &[Blue, Green],          // 0 red box
            &[Red, Red, Yellow],     // 1 orange box (full)
            &[Orange],               // 2 yellow box
            &[Red],                  // 3 green box
            &[Green, Yellow, White], // 4 blue box (full)
            &[],                     // 5 purple box
            &[White],                // 6 black box
            &[Black],                // 7 white box
        ],
        &[c(Red), W, c(Green)],
        &[c(Blue), c(Blue), c(Purple), W, c(Red)],
    )
}

fn rule_of(s: &State, mv: &Move) -> Rule {
    s.check(mv).unwrap_err().rule
}

#[test]
fn illegal_moves_are_refused_with_the_rule_they_break() {
    let s = small();
    // Same-colour pair in solo: a wild (with red) used to swap two red pawns.
    assert_eq!(
        rule_of(&s, &swap([0, 1], (Red, 1), (Red, 3))),
        Rule::SameColour
    );
    // Two pawns from one box.
    assert_eq!(
        rule_of(&s, &swap([0, 2], (Blue, 0), (Green, 0))),
        Rule::SameBox
    );
    // A pawn that is not there.
    assert_eq!(
        rule_of(&s, &swap([0, 2], (Red, 0), (Green, 4))),
        Rule::NoSuchPawn
    );
    // Over capacity: a wild move into a full box.
    let full = Move::Wild {
        card: 1,
        colour: Red,
        from: 3,
        to: 1,
    };
    assert_eq!(rule_of(&s, &full), Rule::BoxFull);
    // A wild move with a colour card.
    let not_wild = Move::Wild {
        card: 0,
        colour: Red,
        from: 3,
        to: 0,
    };
    assert_eq!(rule_of(&s, &not_wild), Rule::NotAWild);
    let nowhere = Move::Wild {
        card: 1,
        colour: Red,
        from: 3,
        to: 3,
    };
    assert_eq!(rule_of(&s, &nowhere), Rule::NoMove);
    // Card numbers out of the hand, and a card paid twice.
    assert_eq!(
        rule_of(&s, &swap([0, 3], (Red, 1), (Blue, 0))),
        Rule::CardIndex
    );
    assert_eq!(rule_of(&s, &Move::Discard(vec![5])), Rule::CardIndex);
    assert_eq!(
        rule_of(&s, &swap([1, 1], (Red, 1), (Blue, 0))),
        Rule::CardTwice
    );
    assert_eq!(rule_of(&s, &Move::Discard(vec![0, 0])), Rule::CardTwice);
    assert_eq!(rule_of(&s, &Move::Discard(vec![])), Rule::DiscardCount);
    assert_eq!(
        rule_of(&s, &Move::Discard(vec![0, 1, 2, 0])),
        Rule::DiscardCount
    );
    assert_eq!(
        rule_of(&s, &swap([0, 2], (Red, 9), (Blue, 0))),
        Rule::BoxIndex
    );
    // Red and green pay for red and green, not for red and blue.
    assert!(s.check(&swap([0, 2], (Red, 1), (Green, 0))).is_ok());
    assert_eq!(
        rule_of(&s, &swap([0, 2], (Red, 1), (Blue, 0))),
        Rule::CardsDoNotPay
    );
    // The wild stands for any colour.
    assert!(s.check(&swap([0, 1], (Red, 1), (Blue, 0))).is_ok());
    assert!(s.check(&swap([1, 2], (Yellow, 1), (Green, 0))).is_ok());
}

#[test]
fn two_cards_of_one_colour_are_not_a_wild_in_solo() {
    let s = position(
        [&[Blue], &[Red], &[Green], &[], &[], &[], &[], &[]],
        &[c(Red), c(Red), c(Green)],
        &[c(Blue)],
    );
    // Red and red pay only for two red pawns, which no swap may exchange.
    let e = s.check(&swap([0, 1], (Red, 1), (Blue, 0))).unwrap_err();
    assert_eq!(e.rule, Rule::CardsDoNotPay);
    assert!(e.message.contains("two red cards are not a wild"), "{e}");
    assert_eq!(
        rule_of(&s, &swap([0, 1], (Red, 1), (Green, 2))),
        Rule::CardsDoNotPay
    );
    assert!(s.check(&swap([0, 2], (Red, 1), (Green, 2))).is_ok());
}

#[test]
fn cards_leave_in_order_and_draws_are_appended() {
    let mut s = small();
    s.apply(&swap([0, 2], (Red, 1), (Green, 0))).unwrap();
    // Red and green leave; the wild stays first; blue, blue drawn.
    assert_eq!(s.hand().cards(), &[W, c(Blue), c(Blue)]);
    assert_eq!(s.discards(), &[c(Red), c(Green)]);
    assert_eq!(s.board().pawns(0, Red), 1);
    assert_eq!(s.board().pawns(1, Green), 1);
    assert_eq!(s.pile_len(), 3);
    s.apply(&Move::Discard(vec![1])).unwrap();
    assert_eq!(s.hand().cards(), &[W, c(Blue), c(Purple)]);
}

#[test]
fn the_score_counts_pure_boxes_and_misplaced_pawns() {
    let s = small();
    // 12 pawns, none on its own box, no box pure.
    assert_eq!(s.board().misplaced(), 12);
    assert_eq!(s.score(), -12);
    let sorted = position(
        [&[Red, Red], &[Orange], &[], &[], &[], &[], &[], &[Black]],
        &[W],
        &[W],
    );
    // Red and orange boxes pure (+3 each), an empty box 0, black on white −1.
    assert_eq!(sorted.score(), 3 + 3 - 1);
    assert_eq!(sorted.board().max_score(), 9);
}

#[test]
fn the_game_ends_sorted_or_with_an_empty_pile() {
    // One wild move sorts the board: sorted, even with cards left.
    let mut s = position(
        [&[Red, Red], &[Red], &[], &[], &[], &[], &[], &[]],
        &[W, c(Blue), c(Blue)],
        &[c(Green), c(Green)],
    );
    s.apply(&Move::Wild {
        card: 0,
        colour: Red,
        from: 1,
        to: 0,
    })
    .unwrap();
    assert_eq!(s.status(), Status::Sorted);
    assert_eq!(s.score(), 3);
    assert_eq!(rule_of(&s, &Move::Discard(vec![0])), Rule::GameOver);
    assert!(s.legal_moves().is_empty());

    // A short draw empties the pile: the game ends with a short hand.
    let mut s = position(
        [&[Blue], &[], &[], &[], &[Red], &[], &[], &[]],
        &[c(Red), c(Blue), W],
        &[c(Green)],
    );
    s.apply(&Move::Discard(vec![0, 2])).unwrap();
    assert_eq!(s.hand().cards(), &[c(Blue), c(Green)]);
    assert_eq!(s.status(), Status::PileEmpty);

    // Under the full-draw reading the same discard is illegal; one card is fine.
    let full = position_under(
        Rules {
            draw: DrawRule::Full,
        },
        [&[Blue], &[], &[], &[], &[Red], &[], &[], &[]],
        &[c(Red), c(Blue), W],
        &[c(Green)],
    );
    assert_eq!(rule_of(&full, &Move::Discard(vec![0, 2])), Rule::PileShort);
    assert_eq!(
        rule_of(&full, &swap([0, 1], (Red, 4), (Blue, 0))),
        Rule::PileShort
    );
    assert!(full.check(&Move::Discard(vec![2])).is_ok());
    // Under the short reading that swap sorts the board with the last card: a win.
    let mut s = position(
        [&[Blue], &[], &[], &[], &[Red], &[], &[], &[]],
        &[c(Red), c(Blue), W],
        &[c(Green)],
    );
    s.apply(&swap([0, 1], (Red, 4), (Blue, 0))).unwrap();
    assert_eq!(s.status(), Status::Sorted);
    assert_eq!(s.score(), 6);
}

#[test]
fn replay_names_the_first_illegal_move() {
    let s = small();
    let moves = vec![Move::Discard(vec![2]), swap([0, 1], (Red, 1), (Red, 3))];
    let e = replay(&s, &moves).unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!(e.illegal.rule, Rule::SameColour);
    assert!(e.to_string().starts_with("move 1 ("), "{e}");
}

mod cli {
    use super::super::cli::{json, queens, stdout};
    use crate::temp;

    #[test]
    fn deal_play_and_replay_agree() {
        for (seed, flags) in [
            (11, vec![]),
            (12, vec!["--beginner", "--remove-wilds", "2"]),
        ] {
            let mut args = vec!["collection", "deal", "--json"];
            let s = seed.to_string();
            args.extend(["--seed", &s]);
            args.extend(flags.iter().copied());
            let o = queens(&args, None);
            assert_eq!(o.status.code(), Some(0));
            let deal = temp::file(&format!("deal-{seed}.json"), stdout(&o));
            let deal = deal.to_str().unwrap();
            for policy in ["random", "greedy", "lookahead"] {
                let o = queens(
                    &[
                        "collection",
                        "play",
                        deal,
                        "--policy",
                        policy,
                        "--seed",
                        "3",
                        "--json",
                    ],
                    None,
                );
                super::super::cli::exited(&o, 0);
                let played = json(&o);
                let status = played["status"].as_str().unwrap();
                assert!(status == "sorted" || status == "pile-empty", "{status}");
                assert_eq!(
                    played["turns"].as_u64().unwrap() as usize,
                    played["moves"].as_array().unwrap().len()
                );
                // The printed moves, read back as they are, replay to the same end.
                let moves = temp::file(&format!("moves-{seed}-{policy}.json"), stdout(&o));
                let r = queens(
                    &[
                        "collection",
                        "play",
                        deal,
                        "--moves",
                        moves.to_str().unwrap(),
                        "--json",
                    ],
                    None,
                );
                assert_eq!(r.status.code(), Some(0));
                assert_eq!(json(&r), played, "{policy}");
                // Same seed, same game.
                let again = queens(
                    &[
                        "collection",
                        "play",
                        deal,
                        "--policy",
                        policy,
                        "--seed",
                        "3",
                        "--json",
                    ],
                    None,
                );
                assert_eq!(json(&again), played, "{policy}");
            }
        }
    }

    #[test]
    fn an_illegal_move_exits_2_naming_its_index_and_rule() {
        let o = queens(&["collection", "deal", "--seed", "5", "--json"], None);
        let deal: serde_json::Value = json(&o);
        let path = temp::file("deal-5.json", stdout(&o));
        // Move 1 swaps two pawns on one box: the first box's first two pawns (of different
        // colours, so the rule broken is the box one).
        let b = &deal["boxes"][0]["pawns"];
        assert_ne!(b[0], b[1], "deal 5's box 0 holds two colours");
        let moves = serde_json::json!([
            {"discard": [0]},
            {"swap": {"cards": [0, 1], "pawns": [{"color": b[0], "box": 0}, {"color": b[1], "box": 0}]}}
        ]);
        let m = temp::file("bad-moves.json", moves.to_string());
        let o = queens(
            &[
                "collection",
                "play",
                path.to_str().unwrap(),
                "--moves",
                m.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("field `moves[1]`: move 1"), "{err}");
        assert!(err.contains("(same-box)"), "{err}");
        // A card number out of the hand.
        let m = temp::file("bad-card.json", r#"[{"discard": [3]}]"#);
        let o = queens(
            &[
                "collection",
                "play",
                path.to_str().unwrap(),
                "--moves",
                m.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("move 0") && err.contains("(card-index)"),
            "{err}"
        );
    }

    #[test]
    fn bad_input_exits_2_naming_the_field() {
        let deal = temp::file(
            "bad-deal.json",
            r#"{"boxes": [], "hand": ["red"], "pile": []}"#,
        );
        let o = queens(
            &[
                "collection",
                "play",
                deal.to_str().unwrap(),
                "--policy",
                "greedy",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("field `boxes`"));
        let o = queens(&["collection", "deal", "--remove-wilds", "4"], None);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("remove_wilds"));
        let o = queens(
            &[
                "collection",
                "simulate",
                "--policy",
                "greedy",
                "--deals",
                "5",
                "--difficulty",
                "wilds-9",
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2));
    }

    #[test]
    fn simulate_reports_the_same_numbers_on_any_number_of_threads() {
        let run = |jobs: &str| {
            let o = queens(
                &[
                    "collection",
                    "simulate",
                    "--policy",
                    "greedy",
                    "--deals",
                    "300",
                    "--difficulty",
                    "colour-cards+wilds-1",
                    "--jobs",
                    jobs,
                    "--json",
                ],
                None,
            );
            assert_eq!(o.status.code(), Some(0));
            json(&o)
        };
        let (one, two) = (run("1"), run("2"));
        for field in [
            "deals",
            "mean",
            "win_rate",
            "histogram",
            "min",
            "max",
            "mean_turns",
        ] {
            assert_eq!(one[field], two[field], "{field}");
        }
        assert_eq!(one["policy"], "greedy");
        assert_eq!(one["difficulty"], "colour-cards+wilds-1");
        assert_eq!(one["deals"], 300);
        assert_eq!(one["max_score"], 24);
        let total: u64 = one["histogram"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(total, 300);
        // The win rate is the share of 24s.
        let wins = one["histogram"]
            .get("24")
            .and_then(|v| v.as_u64())
            .unwrap_or(0);
        assert_eq!(one["wins"].as_u64().unwrap(), wins);
    }

    #[test]
    fn simulate_writes_a_histogram_plot() {
        let dir = temp::dir("collection-plot");
        let svg = dir.join("plot.svg");
        let o = queens(
            &[
                "collection",
                "simulate",
                "--policy",
                "random",
                "--deals",
                "50",
                "--difficulty",
                "beginner",
                "--plot",
                svg.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(0));
        let out = stdout(&o);
        assert!(out.starts_with("random, beginner: 50 deals"), "{out}");
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.starts_with("<svg") && text.contains("random, beginner"));
    }
}
