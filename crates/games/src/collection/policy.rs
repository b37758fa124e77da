//! Policies that play without seeing the pile: `random`, `greedy` and `lookahead` (Monte
//! Carlo over determinisations of the unseen cards, with greedy play-outs).
//!
//! A policy sees a [`View`]: the board, the hand, the played cards, and how many cards of
//! each kind the pile holds (the box's contents minus what has been seen), never their
//! order. Every policy is seeded and deterministic given its seed.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::rules::{Card, Colour, DrawRule, IllegalMove, Move, Pawn, Rules, State, COLOURS};
use queens_model::rng::Rng;

/// What a player sees of a game: everything but the order of the pile.
#[derive(Clone, Copy)]
pub struct View<'a> {
    state: &'a State,
}

impl<'a> View<'a> {
    /// The player's view of `state`.
    pub fn new(state: &'a State) -> View<'a> {
        View { state }
    }

    /// The board.
    pub fn board(&self) -> &super::rules::Board {
        self.state.board()
    }

    /// The hand.
    pub fn hand(&self) -> &super::rules::Hand {
        self.state.hand()
    }

    /// Cards left in the pile.
    pub fn pile_len(&self) -> usize {
        self.state.pile_len()
    }

    /// The cards left in the pile, by kind ([`Card::index`]), not in order.
    pub fn unseen(&self) -> super::rules::CardCounts {
        self.state.unseen()
    }

    /// The rules the game is played under.
    pub fn rules(&self) -> Rules {
        self.state.rules()
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.state.legal_moves()
    }

    /// A game like this one whose pile is the unseen cards in an order drawn by `rng`: one
    /// determinisation of what the player does not know.
    pub fn determinise(&self, rng: &mut Rng) -> State {
        let counts = self.unseen();
        let mut pile = Vec::with_capacity(self.pile_len());
        for kind in Card::KINDS {
            pile.extend(std::iter::repeat_n(kind, usize::from(counts[kind.index()])));
        }
        rng.shuffle(&mut pile);
        self.state.with_pile(pile)
    }
}

/// A way to choose moves.
pub trait Policy {
    /// The move to make in a game that is not over (a legal one).
    fn choose(&mut self, view: &View<'_>) -> Move;
}

/// The policies by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PolicyName {
    /// A legal move drawn uniformly.
    Random,
    /// The best immediate score change, then the hand that fixes the most misplaced pawns.
    Greedy,
    /// Monte Carlo over determinisations of the unseen cards, greedy play-outs.
    Lookahead,
}

impl PolicyName {
    /// Every policy, weakest first.
    pub const ALL: [PolicyName; 3] = [
        PolicyName::Random,
        PolicyName::Greedy,
        PolicyName::Lookahead,
    ];

    /// The name as the CLI and JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            PolicyName::Random => "random",
            PolicyName::Greedy => "greedy",
            PolicyName::Lookahead => "lookahead",
        }
    }

    /// The policy, seeded.
    pub fn build(self, seed: u64, budget: Lookahead) -> Box<dyn Policy + Send> {
        match self {
            PolicyName::Random => Box::new(RandomPolicy::new(seed)),
            PolicyName::Greedy => Box::new(Greedy::new(seed)),
            PolicyName::Lookahead => Box::new(LookaheadPolicy::new(seed, budget)),
        }
    }
}

impl fmt::Display for PolicyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for PolicyName {
    type Err = String;

    fn from_str(s: &str) -> Result<PolicyName, String> {
        PolicyName::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("unknown policy `{s}`, expected random, greedy or lookahead"))
    }
}

/// A legal move drawn uniformly: the floor every other policy should clear.
pub struct RandomPolicy {
    rng: Rng,
}

impl RandomPolicy {
    /// Seeded.
    pub fn new(seed: u64) -> RandomPolicy {
        RandomPolicy {
            rng: Rng::new(seed),
        }
    }
}

impl Policy for RandomPolicy {
    fn choose(&mut self, view: &View<'_>) -> Move {
        let moves = view.legal_moves();
        moves[self.rng.below(moves.len())].clone()
    }
}

/// How good a move looks to the greedy rule: its score change, then the value of the hand
/// it leaves (in thousandths, so keys compare exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GreedyKey {
    /// The score change of the move's pawns.
    pub delta: i32,
    /// The misplaced pawns the cards kept can fix, plus the expected number for each card
    /// drawn, ×1000.
    pub hand: i64,
}

/// The greedy keys of the moves worth considering: every move that raises the score, and
/// every discard. A swap or wild move that does not raise the score is never better than
/// discarding the same cards (same hand after, same draw), so it is left out.
///
/// A card's value is the misplaced pawns it can pay for: a colour card its colour's, a
/// wild every one; a card drawn is worth the mean value of the unseen cards.
pub fn greedy_moves(state: &State) -> Vec<(Move, GreedyKey)> {
    let mut out = Vec::new();
    greedy_scan(state, |mv, key| out.push((mv, key)));
    out
}

/// Calls `visit` with each move [`greedy_moves`] lists and its key (swaps, wild moves,
/// discards), without collecting them and without looking at the moves that cannot raise
/// the score (the play-outs of [`LookaheadPolicy`] run this millions of times).
fn greedy_scan(state: &State, mut visit: impl FnMut(Move, GreedyKey)) {
    let board = state.board();
    let mut misplaced = [0i64; COLOURS];
    for c in Colour::ALL {
        misplaced[c.index()] = i64::from(board.count(c)) - i64::from(board.pawns(board.home(c), c));
    }
    let total: i64 = misplaced.iter().sum();
    let value = |card: Card| match card {
        Card::Colour(c) => misplaced[c.index()] * 1000,
        Card::Wild => total * 1000,
    };
    let unseen = state.unseen();
    let pile = state.pile_len() as i64;
    let drawn_value = if pile == 0 {
        0
    } else {
        Card::KINDS
            .iter()
            .map(|&k| i64::from(unseen[k.index()]) * value(k))
            .sum::<i64>()
            / pile
    };
    let hand = state.hand().cards();
    let hand_value: i64 = hand.iter().map(|&c| value(c)).sum();
    let key = |delta: i32, played: i64, count: i64| GreedyKey {
        delta,
        hand: hand_value - played + count.min(pile) * drawn_value,
    };
    let draws = |n: usize| state.rules().draw == DrawRule::Short || state.pile_len() >= n;
    if state.is_over() {
        return;
    }
    // Only moves that raise the score: one of their pawns goes home, or (a wild move) the
    // pawn leaving a box was the last one of another colour there. A box's score rises only
    // when it gains a pawn of its colour or becomes pure, so nothing else can.
    let groups = state.groups();
    let misplaced_groups = || groups.iter().filter(|p| board.colour(p.at) != p.colour);
    let order = |p: &Pawn| (p.at, p.colour);
    if draws(2) {
        for i in 0..hand.len() {
            for j in i + 1..hand.len() {
                let (ci, cj) = (hand[i], hand[j]);
                for p in misplaced_groups() {
                    let y = board.home(p.colour);
                    for b in Colour::ALL {
                        if b == p.colour || board.pawns(y, b) == 0 {
                            continue;
                        }
                        let q = Pawn { colour: b, at: y };
                        // A swap that sends both pawns home is listed once, from the first.
                        if board.home(b) == p.at && order(&q) < order(p) {
                            continue;
                        }
                        let pays =
                            (ci.pays(p.colour) && cj.pays(b)) || (ci.pays(b) && cj.pays(p.colour));
                        if !pays {
                            continue;
                        }
                        let pawns = if order(p) < order(&q) {
                            [*p, q]
                        } else {
                            [q, *p]
                        };
                        let mv = Move::Swap {
                            cards: [i, j],
                            pawns,
                        };
                        let delta = board.score_delta(&mv);
                        if delta > 0 {
                            visit(mv, key(delta, value(ci) + value(cj), 2));
                        }
                    }
                }
            }
        }
    }
    if draws(1) {
        for (i, _) in hand.iter().enumerate().filter(|(_, &c)| c == Card::Wild) {
            for p in misplaced_groups() {
                let home = board.home(p.colour);
                let purifies = board.pawns(p.at, p.colour) == 1
                    && board.misplaced_on(p.at) == 1
                    && board.len(p.at) >= 2;
                for to in 0..COLOURS {
                    if to == p.at || !board.has_room(to) || !(to == home || purifies) {
                        continue;
                    }
                    let mv = Move::Wild {
                        card: i,
                        colour: p.colour,
                        from: p.at,
                        to,
                    };
                    let delta = board.score_delta(&mv);
                    if delta > 0 {
                        visit(mv, key(delta, value(Card::Wild), 1));
                    }
                }
            }
        }
    }
    for mask in 1u8..(1 << hand.len()) {
        let cards: Vec<usize> = (0..hand.len()).filter(|&i| mask >> i & 1 == 1).collect();
        if draws(cards.len()) {
            let played = cards.iter().map(|&i| value(hand[i])).sum();
            let count = cards.len() as i64;
            visit(Move::Discard(cards), key(0, played, count));
        }
    }
}

/// The greedy move of `state`: the highest [`GreedyKey`], ties broken by `rng` (uniformly),
/// or by the first in [`greedy_moves`] order when `rng` is `None`.
pub fn greedy_move(state: &State, rng: Option<&mut Rng>) -> Move {
    match rng {
        None => {
            let mut best: Option<(Move, GreedyKey)> = None;
            greedy_scan(state, |mv, key| {
                if best.as_ref().is_none_or(|(_, b)| key > *b) {
                    best = Some((mv, key));
                }
            });
            best.expect("a game that is not over has a discard").0
        }
        Some(rng) => {
            let moves = greedy_moves(state);
            let best = moves
                .iter()
                .map(|(_, k)| *k)
                .max()
                .expect("a game that is not over has a discard");
            let mut ties: Vec<Move> = moves
                .into_iter()
                .filter(|(_, k)| *k == best)
                .map(|(m, _)| m)
                .collect();
            let i = rng.below(ties.len());
            ties.swap_remove(i)
        }
    }
}

/// Best immediate score change, then keep the cards that fix the most misplaced pawns
/// ([`greedy_moves`]); ties drawn by the seed.
pub struct Greedy {
    rng: Rng,
}

impl Greedy {
    /// Seeded.
    pub fn new(seed: u64) -> Greedy {
        Greedy {
            rng: Rng::new(seed),
        }
    }
}

impl Policy for Greedy {
    fn choose(&mut self, view: &View<'_>) -> Move {
        greedy_move(view.state, Some(&mut self.rng))
    }
}

/// The lookahead policy's budget per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Lookahead {
    /// Moves tried: the best this many by the greedy key.
    pub candidates: usize,
    /// Determinisations of the unseen cards, the same ones for every candidate.
    pub samples: usize,
}

impl Default for Lookahead {
    /// 6 candidates × 16 samples: 96 greedy play-outs a move. On 500 normal deals this
    /// scored 17.96 on average against 15.71 for 6 × 8, 16.99 for 4 × 16 and 17.12 for
    /// 3 × 32; those 500 deals took 11.8 s on two threads (BENCHMARKS.md, section 16).
    fn default() -> Lookahead {
        Lookahead {
            candidates: 6,
            samples: 16,
        }
    }
}

/// Monte Carlo over determinisations: the best few moves by the greedy key are each played
/// on the same sampled orders of the unseen cards and followed by greedy play to the end;
/// the move with the highest mean final score is made (ties to the greedy order).
pub struct LookaheadPolicy {
    rng: Rng,
    budget: Lookahead,
}

impl LookaheadPolicy {
    /// Seeded, with `budget` per move.
    pub fn new(seed: u64, budget: Lookahead) -> LookaheadPolicy {
        LookaheadPolicy {
            rng: Rng::new(seed),
            budget,
        }
    }
}

impl Policy for LookaheadPolicy {
    fn choose(&mut self, view: &View<'_>) -> Move {
        let mut moves = greedy_moves(view.state);
        // Stable: equal keys keep the greedy_moves order.
        moves.sort_by_key(|m| std::cmp::Reverse(m.1));
        moves.truncate(self.budget.candidates.max(1));
        if moves.len() == 1 || self.budget.samples == 0 {
            return moves.swap_remove(0).0;
        }
        let worlds: Vec<State> = (0..self.budget.samples)
            .map(|_| view.determinise(&mut self.rng))
            .collect();
        let mut best: Option<(i64, usize)> = None;
        for (i, (mv, _)) in moves.iter().enumerate() {
            let total: i64 = worlds
                .iter()
                .map(|w| {
                    let mut s = w.clone();
                    s.apply(mv).expect("a greedy candidate is legal");
                    while !s.is_over() {
                        let next = greedy_move(&s, None);
                        s.apply(&next).expect("the greedy move is legal");
                    }
                    i64::from(s.score())
                })
                .sum();
            if best.is_none_or(|(b, _)| total > b) {
                best = Some((total, i));
            }
        }
        let (_, i) = best.expect("at least one candidate");
        moves.swap_remove(i).0
    }
}

/// A finished game: the moves made and the final state.
#[derive(Clone, Debug)]
pub struct Game {
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// The state after the last one.
    pub end: State,
}

/// Plays `start` to the end with `policy`. A policy that makes an illegal move is a bug:
/// the move is returned as the error.
pub fn play(start: &State, policy: &mut dyn Policy) -> Result<Game, IllegalMove> {
    play_until(start, policy, &|| false)
}

/// [`play`], asking `stop()` before each move: when it says yes the game is returned as it
/// stands (not over).
pub fn play_until(
    start: &State,
    policy: &mut dyn Policy,
    stop: &dyn Fn() -> bool,
) -> Result<Game, IllegalMove> {
    let mut state = start.clone();
    let mut moves = Vec::new();
    while !state.is_over() && !stop() {
        let mv = policy.choose(&View::new(&state));
        if let Err(illegal) = state.apply(&mv) {
            return Err(IllegalMove {
                index: moves.len(),
                mv,
                illegal,
            });
        }
        moves.push(mv);
    }
    Ok(Game { moves, end: state })
}
