//! The clairvoyant optimum: the best final score a player reaches who knows the whole pile
//! order, the moves that reach it, and whether no better score exists.
//!
//! An exact depth-first branch and bound over the game's positions:
//!
//! - A position is the board, the hand as a multiset and the cards drawn. Cards of one kind
//!   are interchangeable, so of the moves that play equal cards one is searched.
//! - The bound ([`upper_bound`]) is admissible: every pawn move is paid by one card of the
//!   pawn's colour or a wild, and no card after the last one played can be, and the last card
//!   of the pile never is (the game ends when it is drawn). So at most `F` of the `M`
//!   misplaced pawns can still get home, where `F` matches the misplaced pawns of each colour
//!   with the playable cards of that colour, then with the wilds; the `M − F` left fill at
//!   least `⌈(M − F) / spaces⌉` boxes, which cannot score, and cost a point each.
//! - A transposition table keeps each searched position's value, or an upper bound of it when
//!   the search below it was cut; it is keyed by a 96-bit packing of the position.
//! - The first incumbent is the greedy policy's game; every finished game that beats the
//!   incumbent replaces it, so a run stopped by its deadline still answers with the best game
//!   found, and with the bound it could prove.
//!
//! Every reported move list is replayed by [`super::rules::replay`] to its claimed score before
//! it leaves this module. [`super::plan`] answers the same question by SAT; tests hold the two
//! to each other.

use std::time::Instant;

use serde::Serialize;

use super::policy::{self, Greedy};
use super::rules::{replay, Board, Card, Colour, DrawRule, Move, Pawn, State, Status, COLOURS};
use queens_model::error::Error;
use queens_model::hash::FastMap;

/// Limits of one search.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Stop at this instant with the best game found.
    pub deadline: Option<Instant>,
    /// Positions the transposition table may hold (up to about 64 bytes each: the hash table doubles); past it, new
    /// positions are searched but not remembered.
    pub max_entries: usize,
    /// The widest beam searched for incumbents before the exact search: widths 64, 512,
    /// 4,096, … (×8) up to this one; 0 for none.
    pub beam: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            deadline: None,
            max_entries: 4_000_000,
            beam: 4096,
        }
    }
}

/// The best game found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Optimum {
    /// The final score `moves` reach.
    pub score: i32,
    /// The moves, legal from the start and replayed to `score`.
    pub moves: Vec<Move>,
    /// How the game ends.
    pub status: Status,
    /// True when no game scores more: the search finished, or `score` is the board's
    /// maximum.
    pub proven: bool,
    /// No game scores more than this (`score` when proven).
    pub upper_bound: i32,
    /// Positions searched.
    pub nodes: u64,
    /// Positions the transposition table held at the end.
    pub entries: usize,
}

/// The best final score from `start` with the whole pile known (see the module doc). `stop`
/// is asked now and then and ends the search like the deadline does.
pub fn optimum(start: &State, limits: Limits, stop: &dyn Fn() -> bool) -> Result<Optimum, Error> {
    let first = policy::play(start, &mut Greedy::new(0))
        .map_err(|e| Error::internal_from("the greedy game is illegal", e))?;
    let mut search = Search {
        pile: start.pile().to_vec(),
        rules_full: start.rules().draw == DrawRule::Full,
        best: first.end.score(),
        best_moves: first.moves,
        path: Vec::new(),
        table: FastMap::default(),
        limits,
        stop,
        nodes: 0,
        stopped: false,
    };
    let root = Node::of(start);
    if !start.is_over() {
        let mut width = 64;
        while width <= limits.beam && !search.stopped {
            search.beam(&root, width);
            width *= 8;
        }
    }
    let (value, exact) = if start.is_over() {
        (start.score(), true)
    } else {
        search.search(&root)
    };
    let proven = (!search.stopped && (exact || value <= search.best))
        || search.best >= root.upper_bound(&search);
    let upper_bound = if proven {
        search.best
    } else {
        value.max(search.best).min(root.upper_bound(&search))
    };
    let end = replay(start, &search.best_moves)
        .map_err(|e| Error::internal_from("the optimum's moves do not replay", e))?;
    if end.score() != search.best || !end.is_over() {
        return Err(Error::internal(format!(
            "the optimum's moves end at score {} ({:?}), not the {} claimed",
            end.score(),
            end.status(),
            search.best
        )));
    }
    Ok(Optimum {
        score: search.best,
        moves: search.best_moves,
        status: end.status(),
        proven,
        upper_bound,
        nodes: search.nodes,
        entries: search.table.len(),
    })
}

/// The upper bound of [`optimum`] for the position `state` (see the module doc).
pub fn upper_bound(state: &State) -> i32 {
    let node = Node::of(state);
    let pile = state.pile();
    bound(
        &node.board,
        node.hand(),
        &pile[..pile.len().saturating_sub(1)],
    )
}

fn bound(board: &Board, hand: &[Card], playable_pile: &[Card]) -> i32 {
    let mut cards = [0i32; COLOURS + 1];
    for c in hand.iter().chain(playable_pile) {
        cards[c.index()] += 1;
    }
    let wilds = cards[COLOURS];
    let mut fixable = 0;
    let mut short = 0;
    let mut misplaced_total = 0;
    let mut excess = [0i32; COLOURS];
    for c in Colour::ALL {
        let home = board.home(c);
        let misplaced = i32::from(board.count(c)) - i32::from(board.pawns(home, c));
        misplaced_total += misplaced;
        fixable += misplaced.min(cards[c.index()]);
        short += (misplaced - cards[c.index()]).max(0);
        excess[home] = (i32::from(board.len(home)) - i32::from(board.count(c))).max(0);
    }
    fixable += short.min(wilds);
    // Swaps never change how many pawns a box holds, and only wild moves do, one pawn each:
    // a box holding more pawns than its colour has keeps a foreign pawn until wilds move the
    // excess out.
    let mut excesses: Vec<i32> = excess.into_iter().filter(|&e| e > 0).collect();
    excesses.sort_unstable();
    let total_excess: i32 = excesses.iter().sum();
    let mut budget = wilds;
    let mut stuck = excesses.len() as i32;
    for e in &excesses {
        if *e <= budget {
            budget -= e;
            stuck -= 1;
        } else {
            break;
        }
    }
    let left = (misplaced_total - fixable).max(total_excess - wilds).max(0);
    let spaces = i32::from(board.capacity());
    let colours = Colour::ALL.iter().filter(|&&c| board.count(c) > 0).count() as i32;
    let impure = ((left + spaces - 1) / spaces).max(stuck);
    spaces * colours.min(COLOURS as i32 - impure) - left
}

/// A beam's candidate: its rank (score, bound, useful cards, a hash to spread ties), the
/// position, its parent's index in the level before and the move from there.
type Candidate = ((i32, i32, i32, u64), Node, usize, Move);

/// A beam level's position, its parent's index and the move from there.
type Step = (Node, usize, Move);

/// The moves to position `i` of `level`, whose parents are in `levels` (the last one first).
fn moves_to(levels: &[Vec<Step>], level: &[Step], i: usize) -> Vec<Move> {
    let mut moves = Vec::new();
    let mut step = &level[i];
    for earlier in levels.iter().rev() {
        if step.1 == usize::MAX {
            break;
        }
        moves.push(step.2.clone());
        step = &earlier[step.1];
    }
    moves.reverse();
    moves
}

/// A position: the board, the hand in the rules' order, and the pile cards drawn.
#[derive(Clone, Copy, Debug)]
struct Node {
    board: Board,
    hand: [Card; 3],
    len: u8,
    drawn: u8,
}

impl Node {
    fn of(state: &State) -> Node {
        let mut hand = [Card::Wild; 3];
        let cards = state.hand().cards();
        hand[..cards.len()].copy_from_slice(cards);
        Node {
            board: *state.board(),
            hand,
            len: cards.len() as u8,
            drawn: 0,
        }
    }

    fn hand(&self) -> &[Card] {
        &self.hand[..usize::from(self.len)]
    }

    fn upper_bound(&self, s: &Search<'_>) -> i32 {
        let rest = &s.pile[usize::from(self.drawn)..];
        bound(
            &self.board,
            self.hand(),
            &rest[..rest.len().saturating_sub(1)],
        )
    }

    fn over(&self, s: &Search<'_>) -> bool {
        usize::from(self.drawn) >= s.pile.len() || self.board.is_sorted()
    }

    /// The position after `mv` (legal), as [`State::apply`] plays it.
    fn after(&self, mv: &Move, pile: &[Card]) -> Node {
        let mut next = *self;
        next.board.move_pawns(mv);
        let played = mv.cards();
        let mut len = 0;
        for (i, &c) in self.hand().iter().enumerate() {
            if !played.contains(&i) {
                next.hand[len] = c;
                len += 1;
            }
        }
        let draw = played.len().min(pile.len() - usize::from(self.drawn));
        for k in 0..draw {
            next.hand[len] = pile[usize::from(self.drawn) + k];
            len += 1;
        }
        next.len = len as u8;
        next.drawn += draw as u8;
        next
    }

    /// 10 bits per box (its pawns as a sorted triple of colours + 1, base 9), 10 bits for the
    /// hand (sorted kinds + 1, base 10), 8 bits for the cards drawn.
    fn key(&self) -> u128 {
        let mut key: u128 = 0;
        for b in 0..COLOURS {
            let mut code = 0u128;
            for c in Colour::ALL {
                for _ in 0..self.board.pawns(b, c) {
                    code = code * 9 + c.index() as u128 + 1;
                }
            }
            key = key << 10 | code;
        }
        let mut kinds: Vec<usize> = self.hand().iter().map(|c| c.index() + 1).collect();
        kinds.sort_unstable();
        let mut hand = 0u128;
        for k in kinds {
            hand = hand * 10 + k as u128;
        }
        key << 18 | hand << 8 | u128::from(self.drawn)
    }
}

#[derive(Clone, Copy)]
struct Entry {
    value: i8,
    exact: bool,
}

struct Search<'a> {
    pile: Vec<Card>,
    rules_full: bool,
    best: i32,
    best_moves: Vec<Move>,
    path: Vec<Move>,
    table: FastMap<u128, Entry>,
    limits: Limits,
    stop: &'a dyn Fn() -> bool,
    nodes: u64,
    stopped: bool,
}

impl Search<'_> {
    /// A beam search for a good first incumbent: level by level (a level is a turn), the
    /// `width` positions with the best score, then bound, then cards in hand that pay for a
    /// misplaced pawn. Finished games replace the incumbent when better.
    fn beam(&mut self, root: &Node, width: usize) {
        // Each level's positions, with their parent's index in the level before and the move
        // from it: the moves to a position are read back along the parents, so a level costs
        // a position and a move each, not a path each.
        let mut levels: Vec<Vec<Step>> = Vec::new();
        let mut level: Vec<Step> = vec![(*root, usize::MAX, Move::Discard(Vec::new()))];
        while !level.is_empty() && !self.stopped {
            let mut seen = std::collections::HashSet::new();
            let mut next: Vec<Candidate> = Vec::new();
            for (i, (node, _, _)) in level.iter().enumerate() {
                self.nodes += 1;
                if self.nodes % 256 == 0
                    && (self.limits.deadline.is_some_and(|d| Instant::now() >= d) || (self.stop)())
                {
                    self.stopped = true;
                    break;
                }
                let mut children = Vec::new();
                self.moves(node, |mv, child| children.push((mv, child)));
                for (mv, child) in children {
                    let score = child.board.score();
                    if child.over(self) {
                        if score > self.best {
                            self.best = score;
                            let mut moves = moves_to(&levels, &level, i);
                            moves.push(mv);
                            self.best_moves = moves;
                        }
                        continue;
                    }
                    let ub = child.upper_bound(self);
                    let key = child.key();
                    if ub <= self.best || !seen.insert(key) {
                        continue;
                    }
                    let useful = child
                        .hand()
                        .iter()
                        .filter(|card| {
                            Colour::ALL.iter().any(|&c| {
                                card.pays(c)
                                    && child.board.count(c)
                                        > child.board.pawns(child.board.home(c), c)
                            })
                        })
                        .count() as i32;
                    let spread =
                        (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    next.push(((score, ub, useful, spread), child, i, mv));
                    // Keep at most twice the width in memory: the best `width` survive.
                    if next.len() >= 2 * width {
                        next.select_nth_unstable_by(width - 1, |a, b| b.0.cmp(&a.0));
                        next.truncate(width);
                    }
                }
            }
            if next.len() > width {
                next.select_nth_unstable_by(width - 1, |a, b| b.0.cmp(&a.0));
                next.truncate(width);
            }
            let next: Vec<Step> = next.into_iter().map(|(_, n, p, m)| (n, p, m)).collect();
            levels.push(std::mem::replace(&mut level, next));
        }
    }

    /// The value of `node` (not over): exact, or an upper bound when `exact` is false.
    fn search(&mut self, node: &Node) -> (i32, bool) {
        self.nodes += 1;
        if self.nodes % 4096 == 0 && !self.stopped {
            let late = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
            if late || (self.stop)() {
                self.stopped = true;
            }
        }
        let mut ub = node.upper_bound(self);
        if ub <= self.best || self.stopped {
            return (ub, false);
        }
        let key = node.key();
        if let Some(e) = self.table.get(&key) {
            let v = i32::from(e.value);
            if e.exact || v <= self.best {
                return (v, e.exact);
            }
            ub = ub.min(v);
        }
        let mut children: Vec<(i32, i32, Move, Node)> = Vec::new();
        self.moves(node, |mv, child| children.push((0, 0, mv, child)));
        for (order, score, _, child) in &mut children {
            *score = child.board.score();
            *order = if child.over(self) {
                *score
            } else {
                child.upper_bound(self)
            };
        }
        children.sort_by_key(|c| std::cmp::Reverse((c.0, c.1)));
        let mut best_exact = i32::MIN;
        let mut best_bound = i32::MIN;
        for (order, score, mv, child) in children {
            if order <= self.best || self.stopped {
                best_bound = best_bound.max(order);
                continue;
            }
            self.path.push(mv);
            let (v, exact) = if child.over(self) {
                if score > self.best {
                    self.best = score;
                    self.best_moves = self.path.clone();
                }
                (score, true)
            } else {
                self.search(&child)
            };
            self.path.pop();
            if exact {
                best_exact = best_exact.max(v);
            } else {
                best_bound = best_bound.max(v);
            }
            if best_exact >= ub {
                break;
            }
        }
        let (value, exact) = if best_exact >= best_bound {
            (best_exact, !self.stopped || best_exact >= ub)
        } else {
            (best_bound.min(ub), false)
        };
        let value = value.min(ub);
        if !self.stopped && self.table.len() < self.limits.max_entries {
            self.table.insert(
                key,
                Entry {
                    value: value.clamp(-128, 127) as i8,
                    exact,
                },
            );
        }
        (value, exact)
    }

    /// Calls `visit` with one move of each kind the position allows (moves that play equal
    /// cards the same way lead to the same position) and the position after it.
    fn moves(&self, node: &Node, mut visit: impl FnMut(Move, Node)) {
        let hand = node.hand();
        let left = self.pile.len() - usize::from(node.drawn);
        let draws = |n: usize| !self.rules_full || left >= n;
        let board = &node.board;
        let mut groups: Vec<Pawn> = Vec::with_capacity(2 * COLOURS);
        for at in 0..COLOURS {
            for colour in Colour::ALL {
                if board.pawns(at, colour) > 0 {
                    groups.push(Pawn { colour, at });
                }
            }
        }
        let mut seen: Vec<[usize; 3]> = Vec::with_capacity(8);
        let mut once = |cards: &[usize]| {
            let mut kinds = [usize::MAX; 3];
            for (k, &i) in cards.iter().enumerate() {
                kinds[k] = hand[i].index();
            }
            kinds.sort_unstable();
            if seen.contains(&kinds) {
                false
            } else {
                seen.push(kinds);
                true
            }
        };
        let mut pairs: Vec<[usize; 2]> = Vec::new();
        for i in 0..hand.len() {
            for j in i + 1..hand.len() {
                if once(&[i, j]) {
                    pairs.push([i, j]);
                }
            }
        }
        if draws(2) {
            for &[i, j] in &pairs {
                let (ci, cj) = (hand[i], hand[j]);
                for (k, p) in groups.iter().enumerate() {
                    for q in &groups[k + 1..] {
                        if p.colour == q.colour || p.at == q.at {
                            continue;
                        }
                        let pays = (ci.pays(p.colour) && cj.pays(q.colour))
                            || (ci.pays(q.colour) && cj.pays(p.colour));
                        if pays {
                            let mv = Move::Swap {
                                cards: [i, j],
                                pawns: [*p, *q],
                            };
                            let child = node.after(&mv, &self.pile);
                            visit(mv, child);
                        }
                    }
                }
            }
        }
        if draws(1) {
            if let Some(card) = hand.iter().position(|&c| c == Card::Wild) {
                for p in &groups {
                    for to in (0..COLOURS).filter(|&b| b != p.at && board.has_room(b)) {
                        let mv = Move::Wild {
                            card,
                            colour: p.colour,
                            from: p.at,
                            to,
                        };
                        let child = node.after(&mv, &self.pile);
                        visit(mv, child);
                    }
                }
            }
        }
        let mut seen_discards: Vec<[usize; 3]> = Vec::with_capacity(8);
        for mask in 1u8..(1 << hand.len()) {
            let cards: Vec<usize> = (0..hand.len()).filter(|&i| mask >> i & 1 == 1).collect();
            let mut kinds = [usize::MAX; 3];
            for (k, &i) in cards.iter().enumerate() {
                kinds[k] = hand[i].index();
            }
            kinds.sort_unstable();
            if seen_discards.contains(&kinds) || !draws(cards.len()) {
                continue;
            }
            seen_discards.push(kinds);
            let mv = Move::Discard(cards);
            let child = node.after(&mv, &self.pile);
            visit(mv, child);
        }
    }
}
