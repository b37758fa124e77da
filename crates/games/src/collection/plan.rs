//! The clairvoyant optimum by SAT: the game as bounded planning (Kautz & Selman, "Planning as
//! satisfiability", ECAI 1992), solved by varisat with a score bound raised after every
//! answer. It answers the question [`super::solve`] answers by search, independently, so the
//! two can be held to each other.
//!
//! The formula for "some game from `start` ends with a score of at least `S`":
//!
//! - **Horizon.** Every turn plays at least one card and draws while the pile lasts, and the
//!   game ends when the pile is empty at the start of a turn, so `T` = the pile's length turns
//!   suffice. A turn may be *idle* (no card, no move), and idle turns come last. Idling is as
//!   good as discarding until the pile is empty (discards never move a pawn and are always
//!   legal), so a plan that idles stands for that game.
//! - **State.** Pawns of one colour are interchangeable, so the state is a count per box and
//!   colour, in unary: `count[t][b][c][j]` ⟺ box `b` holds at least `j + 1` pawns of colour
//!   `c` after `t` turns. (A first version gave each pawn its own box variables; the 2–3
//!   identical pawns of each colour made its UNSAT answers about ten times slower.) A box
//!   holds at most its spaces: its cells' unary literals, whose true ones are its pawns, go
//!   through a sequential counter (Sinz, CP 2005).
//! - **Actions.** Exactly one of swap, wild move, discard, idle a turn. A swap is one-hot
//!   boxes `x < y` and colours `a ≠ b`: an `a` pawn goes from `x` to `y` and a `b` pawn from
//!   `y` to `x`; a wild move is one-hot from-box, to-box and colour. Each cell's count goes
//!   down by one, up by one, or stays (explanatory frame axioms), by which of these the
//!   action picked; a pawn leaves only a cell that has one.
//! - **Cards.** `u[t][k]`: card `k` of the sequence (hand, then pile) is played at turn `t`.
//!   The hand is always the drawn cards not yet played, so card `k` is in hand at turn `t`
//!   iff it was drawn (at least `k − h + 1` cards played before, for a hand of `h`) and not
//!   played; a unary counter of the cards played so far carries this from turn to turn. A
//!   swap plays exactly 2 cards, and they pay iff no colour card is of a third colour and no
//!   two are of one colour; a wild move plays one wild; a discard 1 to 3; idle none. No card
//!   is played once the pile is empty at the start of a turn, and under the full-draw rule no
//!   turn draws more than the pile holds.
//! - **Score.** `spaces × pure boxes − misplaced pawns ≥ S`, written as `spaces × pure +
//!   home ≥ S + pawns` where `home` counts the pawns on their colour's box (the home cells'
//!   true unary literals): two small exact counters and one selector per number of pure
//!   boxes. (Counting the misplaced pawns over every foreign cell instead was about ten
//!   times slower to refute.)
//!
//! Each call goes to [`queens_engine::formula::decide`]: under a deadline in a child
//! process that is killed when it passes, and every UNSAT answer with an LRAT proof checked
//! before it is believed. A model is decoded to moves (cards by their place in the hand as
//! [`super::rules`] keeps it) and replayed by [`super::rules::replay`] before its score counts.

use std::time::Instant;

use serde::Serialize;
use varisat::{CnfFormula, ExtendFormula, Lit};

use super::policy::{self, Greedy};
use super::rules::{replay, Card, Colour, DrawRule, Move, Pawn, State, COLOURS};
use queens_engine::formula::{self, Outcome, Runner};
use queens_model::error::Error;

/// What the SAT method found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlanOptimum {
    /// The best score reached by `moves`.
    pub score: i32,
    /// The moves, legal from the start, replayed to `score` at the game's end.
    pub moves: Vec<Move>,
    /// True when "a score of `score + 1` or more" was refuted with a checked proof (or
    /// `score` is the board's highest).
    pub proven: bool,
    /// SAT calls made.
    pub calls: usize,
    /// Variables of the last formula.
    pub vars: usize,
    /// Clauses of the last formula.
    pub clauses: usize,
    /// Lemmas in the proof of the last UNSAT answer.
    pub lemmas: u64,
}

/// The best final score from `start` by SAT (see the module doc), starting from the greedy
/// policy's game and raising the bound after every answer. `sat` runs each call where it can
/// be killed at `deadline` (a child process); without it calls run here.
pub fn optimum(
    start: &State,
    deadline: Option<Instant>,
    sat: Option<Runner>,
) -> Result<PlanOptimum, Error> {
    let first = policy::play(start, &mut Greedy::new(0))
        .map_err(|e| Error::internal_from("the greedy game is illegal", e))?;
    let max = start.board().max_score();
    let mut best = PlanOptimum {
        score: first.end.score(),
        moves: first.moves,
        proven: start.is_over(),
        calls: 0,
        vars: 0,
        clauses: 0,
        lemmas: 0,
    };
    while !best.proven && best.score < max {
        let plan = Plan::new(start, best.score + 1);
        best.vars = plan.vars;
        best.clauses = plan.formula.len();
        best.calls += 1;
        match formula::decide(&plan.formula, deadline, sat)? {
            Outcome::Sat(model) => {
                let moves = plan.decode(start, &model)?;
                let end = replay(start, &moves)
                    .map_err(|e| Error::internal_from("the SAT plan does not replay", e))?;
                if !end.is_over() || end.score() <= best.score {
                    return Err(Error::internal(format!(
                        "the SAT plan ends at score {} ({:?}), not above {}",
                        end.score(),
                        end.status(),
                        best.score
                    )));
                }
                best.score = end.score();
                best.moves = moves;
            }
            Outcome::Unsat(proof) => {
                best.lemmas = proof.lemmas;
                best.proven = true;
            }
            Outcome::Timeout => break,
        }
    }
    if best.score == max {
        best.proven = true;
    }
    Ok(best)
}

/// The formula "a game from `start` ends with a score of at least `bound`" alone, and its
/// size (for measuring the encoding).
pub fn formula(start: &State, bound: i32) -> CnfFormula {
    Plan::new(start, bound).formula
}

/// One formula and the variables the decoder reads.
struct Plan {
    formula: CnfFormula,
    vars: usize,
    turns: usize,
    seq: Vec<Card>,
    hand: usize,
    /// `act[t] = [swap, wild, discard, idle]`.
    act: Vec<[Lit; 4]>,
    /// The swap of turn `t`: one-hot boxes `x < y` and colours `a ≠ b` (an `a` pawn goes from
    /// `x` to `y`, a `b` pawn from `y` to `x`).
    swap: Vec<[[Lit; COLOURS]; 4]>,
    /// The wild move of turn `t`: one-hot from-box, to-box and colour.
    wild: Vec<[[Lit; COLOURS]; 3]>,
    /// `(k, var)` per turn: card `k` played.
    played: Vec<Vec<(usize, Lit)>>,
}

struct Builder {
    formula: CnfFormula,
    vars: usize,
}

impl Builder {
    fn var(&mut self) -> Lit {
        self.vars += 1;
        self.formula.new_lit()
    }

    fn clause(&mut self, lits: &[Lit]) {
        self.formula.add_clause(lits);
    }

    /// At most one of `lits` (pairwise up to 6, a sequential counter above).
    fn at_most_one(&mut self, lits: &[Lit]) {
        if lits.len() <= 6 {
            for i in 0..lits.len() {
                for j in i + 1..lits.len() {
                    self.clause(&[!lits[i], !lits[j]]);
                }
            }
            return;
        }
        let mut prev: Option<Lit> = None;
        for (i, &x) in lits.iter().enumerate() {
            let s = if i + 1 < lits.len() {
                Some(self.var())
            } else {
                None
            };
            if let Some(s) = s {
                self.clause(&[!x, s]);
            }
            if let Some(p) = prev {
                self.clause(&[!x, !p]);
                if let Some(s) = s {
                    self.clause(&[!p, s]);
                }
            }
            prev = s;
        }
    }

    fn exactly_one(&mut self, lits: &[Lit]) {
        self.clause(lits);
        self.at_most_one(lits);
    }

    /// `out[j]` ⟺ at least `j + 1` of `lits` are true, for `j < upto` (an exact sequential
    /// counter: both directions).
    fn counter(&mut self, lits: &[Lit], upto: usize) -> Vec<Lit> {
        let f = self.var();
        self.clause(&[!f]);
        let mut prev: Vec<Lit> = vec![f; upto];
        for &x in lits {
            let cur: Vec<Lit> = (0..upto).map(|_| self.var()).collect();
            for j in 0..upto {
                let below = if j == 0 { None } else { Some(prev[j - 1]) };
                // cur[j] ⟸ prev[j]; cur[j] ⟸ below ∧ x (below = true for j = 0).
                self.clause(&[!prev[j], cur[j]]);
                match below {
                    Some(b) => self.clause(&[!b, !x, cur[j]]),
                    None => self.clause(&[!x, cur[j]]),
                }
                // cur[j] ⟹ prev[j] ∨ x; cur[j] ⟹ prev[j] ∨ below.
                self.clause(&[!cur[j], prev[j], x]);
                if let Some(b) = below {
                    self.clause(&[!cur[j], prev[j], b]);
                }
            }
            prev = cur;
        }
        prev
    }
}

impl Plan {
    /// The formula "a game from `start` ends with a score of at least `bound`".
    fn new(start: &State, bound: i32) -> Plan {
        let board = start.board();
        let cap = usize::from(board.capacity());
        let hand = start.hand().len();
        let seq: Vec<Card> = start
            .hand()
            .cards()
            .iter()
            .chain(start.pile())
            .copied()
            .collect();
        let pile = start.pile_len();
        let turns = pile;
        let full = start.rules().draw == DrawRule::Full;
        let mut g = Builder {
            formula: CnfFormula::new(),
            vars: 0,
        };
        let n = board.total();
        // Unary length per colour: a box holds at most min(spaces, pawns of the colour).
        let len: [usize; COLOURS] =
            std::array::from_fn(|c| cap.min(usize::from(board.count(Colour::from_index(c)))));

        // counts[t][b][c][j] ⟺ box b holds at least j + 1 pawns of colour c after t turns.
        let mut counts: Vec<Vec<Vec<Vec<Lit>>>> = Vec::with_capacity(turns + 1);
        for t in 0..=turns {
            let mut layer = Vec::with_capacity(COLOURS);
            for b in 0..COLOURS {
                let mut row = Vec::with_capacity(COLOURS);
                for (c, &l) in len.iter().enumerate() {
                    let unary: Vec<Lit> = (0..l).map(|_| g.var()).collect();
                    if t == 0 {
                        let have = usize::from(board.pawns(b, Colour::from_index(c)));
                        for (j, &u) in unary.iter().enumerate() {
                            g.clause(&[if j < have { u } else { !u }]);
                        }
                    } else {
                        for j in 1..unary.len() {
                            g.clause(&[!unary[j], unary[j - 1]]);
                        }
                    }
                    row.push(unary);
                }
                if t > 0 {
                    let all: Vec<Lit> = row.iter().flatten().copied().collect();
                    if all.len() > cap {
                        let over = g.counter(&all, cap + 1);
                        g.clause(&[!over[cap]]);
                    }
                }
                layer.push(row);
            }
            counts.push(layer);
        }

        // Cards played before each turn, in unary: before[t][m] ⟺ at least m + 1 played.
        let width = pile + 3;
        let mut before: Vec<Vec<Lit>> = Vec::with_capacity(turns + 1);
        let zero: Vec<Lit> = (0..width).map(|_| g.var()).collect();
        for &l in &zero {
            g.clause(&[!l]);
        }
        before.push(zero);

        let mut swaps = Vec::with_capacity(turns);
        let mut wild = Vec::with_capacity(turns);
        let mut act = Vec::with_capacity(turns);
        let mut played = Vec::with_capacity(turns);
        let mut uses: Vec<Vec<Lit>> = vec![Vec::new(); seq.len()];
        for t in 0..turns {
            let a: [Lit; 4] = std::array::from_fn(|_| g.var());
            g.exactly_one(&a);
            let [a_swap, a_wild, a_discard, a_idle] = a;
            if let Some(prev) = act.last() {
                let prev: &[Lit; 4] = prev;
                g.clause(&[!prev[3], a_idle]);
            }
            // The pile is empty at the start of the turn: only idle.
            g.clause(&[!before[t][pile - 1], a_idle]);

            // Cards.
            let mut u: Vec<(usize, Lit)> = Vec::new();
            for (k, uses_k) in uses.iter_mut().enumerate() {
                // Card k can be in hand at turn t only if it was drawn by then.
                if k >= hand && k - hand + 1 > 3 * t {
                    continue;
                }
                let v = g.var();
                if k >= hand {
                    g.clause(&[!v, before[t][k - hand]]);
                }
                uses_k.push(v);
                u.push((k, v));
            }
            let lits: Vec<Lit> = u.iter().map(|&(_, v)| v).collect();
            let count = g.counter(&lits, 4);
            // swap: exactly 2; wild: exactly 1, a wild; discard: 1..=3; idle: none.
            g.clause(&[!a_swap, count[1]]);
            g.clause(&[!a_swap, !count[2]]);
            g.clause(&[!a_wild, count[0]]);
            g.clause(&[!a_wild, !count[1]]);
            g.clause(&[!a_discard, count[0]]);
            g.clause(&[!a_discard, !count[3]]);
            g.clause(&[!a_idle, !count[0]]);
            let mut colour_played: [Option<Lit>; COLOURS] = [None; COLOURS];
            let mut by_colour: Vec<Vec<Lit>> = vec![Vec::new(); COLOURS];
            for &(k, v) in &u {
                match seq[k] {
                    Card::Wild => {}
                    Card::Colour(c) => {
                        g.clause(&[!a_wild, !v]);
                        by_colour[c.index()].push(v);
                        let cp = *colour_played[c.index()].get_or_insert_with(|| g.var());
                        g.clause(&[!v, cp]);
                    }
                }
            }
            for same in &by_colour {
                for i in 0..same.len() {
                    for j in i + 1..same.len() {
                        g.clause(&[!a_swap, !same[i], !same[j]]);
                    }
                }
            }
            // The count after the turn: after[m] ⟺ ∃ j: before[m − j] ∧ exactly j played.
            let after: Vec<Lit> = (0..width).map(|_| g.var()).collect();
            for m in 0..width {
                if m + 1 < width {
                    g.clause(&[!after[m + 1], after[m]]);
                }
                // Upward: before[m − j] ∧ at least j → after[m].
                g.clause(&[!before[t][m], after[m]]);
                for j in 1..=3usize {
                    if m >= j {
                        g.clause(&[!before[t][m - j], !count[j - 1], after[m]]);
                    } else {
                        g.clause(&[!count[j - 1], after[m]]);
                    }
                }
                // Downward: after[m] ∧ at most j played → before[m − j].
                for j in 0..=3usize {
                    if m >= j {
                        let mut c = vec![!after[m], before[t][m - j]];
                        if j < 3 {
                            c.push(count[j]);
                        }
                        g.clause(&c);
                    }
                }
            }
            if full {
                // No turn draws more than the pile holds: at most `pile` played in all.
                g.clause(&[!after[pile]]);
            }
            before.push(after);

            // Pawns: the swap's boxes and colours, the wild move's.
            let sw: [[Lit; COLOURS]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| g.var()));
            let [x, y, ca, cb] = sw;
            for one in &sw {
                let mut some = one.to_vec();
                some.push(!a_swap);
                g.clause(&some);
                g.at_most_one(one);
                for &l in one {
                    g.clause(&[!l, a_swap]);
                }
            }
            for i in 0..COLOURS {
                for &yj in &y[..=i] {
                    g.clause(&[!x[i], !yj]);
                }
                g.clause(&[!ca[i], !cb[i]]);
                if len[i] == 0 {
                    g.clause(&[!ca[i]]);
                    g.clause(&[!cb[i]]);
                }
            }
            for c in Colour::ALL {
                if let Some(cp) = colour_played[c.index()] {
                    g.clause(&[!a_swap, !cp, ca[c.index()], cb[c.index()]]);
                }
            }
            let wl: [[Lit; COLOURS]; 3] = std::array::from_fn(|_| std::array::from_fn(|_| g.var()));
            let [from, to, colour] = wl;
            for one in &wl {
                let mut some = one.to_vec();
                some.push(!a_wild);
                g.clause(&some);
                g.at_most_one(one);
                for &l in one {
                    g.clause(&[!l, a_wild]);
                }
            }
            for b in 0..COLOURS {
                g.clause(&[!from[b], !to[b]]);
                if len[b] == 0 {
                    g.clause(&[!colour[b]]);
                }
            }
            // Each cell's change: and3(action, box, colour) terms.
            for b in 0..COLOURS {
                for c in 0..COLOURS {
                    if len[c] == 0 {
                        continue;
                    }
                    let and3 = |g: &mut Builder, p: Lit, q: Lit, r: Lit| {
                        let v = g.var();
                        g.clause(&[!v, p]);
                        g.clause(&[!v, q]);
                        g.clause(&[!v, r]);
                        g.clause(&[!p, !q, !r, v]);
                        v
                    };
                    let leaves = [
                        and3(&mut g, a_swap, x[b], ca[c]),
                        and3(&mut g, a_swap, y[b], cb[c]),
                        and3(&mut g, a_wild, from[b], colour[c]),
                    ];
                    let arrives = [
                        and3(&mut g, a_swap, y[b], ca[c]),
                        and3(&mut g, a_swap, x[b], cb[c]),
                        and3(&mut g, a_wild, to[b], colour[c]),
                    ];
                    let dec = g.var();
                    let inc = g.var();
                    for (d, terms) in [(dec, &leaves), (inc, &arrives)] {
                        let mut some = terms.to_vec();
                        some.push(!d);
                        g.clause(&some);
                        for &term in terms {
                            g.clause(&[!term, d]);
                        }
                    }
                    let now = counts[t][b][c].clone();
                    let next = counts[t + 1][b][c].clone();
                    let l = len[c];
                    // A pawn can leave only if one is there, arrive only if the colour has one
                    // to spare.
                    g.clause(&[!dec, now[0]]);
                    g.clause(&[!inc, !now[l - 1]]);
                    for j in 0..l {
                        // Unchanged.
                        g.clause(&[dec, inc, !now[j], next[j]]);
                        g.clause(&[dec, inc, now[j], !next[j]]);
                        // One fewer: next[j] ⟺ now[j + 1].
                        match now.get(j + 1) {
                            Some(&up) => {
                                g.clause(&[!dec, !up, next[j]]);
                                g.clause(&[!dec, up, !next[j]]);
                            }
                            None => g.clause(&[!dec, !next[j]]),
                        }
                        // One more: next[j] ⟺ now[j − 1] (true for j = 0).
                        if j == 0 {
                            g.clause(&[!inc, next[0]]);
                        } else {
                            g.clause(&[!inc, !now[j - 1], next[j]]);
                            g.clause(&[!inc, now[j - 1], !next[j]]);
                        }
                    }
                }
            }
            swaps.push(sw);
            wild.push(wl);
            act.push(a);
            played.push(u);
        }
        for uses_k in &uses {
            g.at_most_one(uses_k);
        }

        // The score at the end: cap × pure − misplaced = cap × pure + home − n, where `home`
        // counts the pawns on their colour's box (the true literals of the home cells'
        // unary counts): two small counters.
        let last = &counts[turns];
        let mut pure = Vec::with_capacity(COLOURS);
        let mut home_lits = Vec::new();
        for (b, row) in last.iter().enumerate() {
            let home = board.colour(b).index();
            let v = g.var();
            match row[home].first() {
                Some(&own) => g.clause(&[!v, own]),
                None => g.clause(&[!v]),
            }
            for (c, unary) in row.iter().enumerate() {
                if c != home {
                    if let Some(&any) = unary.first() {
                        g.clause(&[!v, !any]);
                    }
                }
            }
            home_lits.extend(row[home].iter().copied());
            pure.push(v);
        }
        let pure_at_least = g.counter(&pure, COLOURS);
        let home_at_least = g.counter(&home_lits, home_lits.len().max(1));
        let mut choices = Vec::new();
        for i in 0..=COLOURS {
            // i pure boxes and at least bound + n − cap·i pawns home.
            let need = bound + n as i32 - cap as i32 * i as i32;
            if need > home_lits.len() as i32 {
                continue;
            }
            let s = g.var();
            if i > 0 {
                g.clause(&[!s, pure_at_least[i - 1]]);
            }
            if need > 0 {
                g.clause(&[!s, home_at_least[need as usize - 1]]);
            }
            choices.push(s);
        }
        g.clause(&choices);

        Plan {
            formula: g.formula,
            vars: g.vars,
            turns,
            seq,
            hand,
            act,
            swap: swaps,
            wild,
            played,
        }
    }

    /// The moves of a model: each turn's action with the cards by their place in the hand,
    /// then discards until the game ends (an idle turn stands for them).
    fn decode(&self, start: &State, model: &[Lit]) -> Result<Vec<Move>, Error> {
        let mut truth = vec![false; self.vars + 1];
        for l in model {
            if l.is_positive() && l.index() < truth.len() {
                truth[l.index()] = true;
            }
        }
        let on = |l: Lit| truth.get(l.index()).copied().unwrap_or(false) == l.is_positive();
        let which = |one: &[Lit; COLOURS], what: &str| -> Result<usize, Error> {
            (0..COLOURS)
                .find(|&i| on(one[i]))
                .ok_or_else(|| Error::internal(format!("the SAT plan has no {what}")))
        };
        // The hand as places in the card sequence, kept as the rules keep it.
        let mut hand: Vec<usize> = (0..self.hand).collect();
        let mut next = self.hand;
        let mut state = start.clone();
        let mut moves = Vec::new();
        let index_of = |hand: &[usize], k: usize| -> Result<usize, Error> {
            hand.iter().position(|&h| h == k).ok_or_else(|| {
                Error::internal(format!("the SAT plan plays card {k}, which is not in hand"))
            })
        };
        for t in 0..self.turns {
            if state.is_over() || on(self.act[t][3]) {
                break;
            }
            let cards: Vec<usize> = self.played[t]
                .iter()
                .filter(|&&(_, v)| on(v))
                .map(|&(k, _)| k)
                .collect();
            let idx: Vec<usize> = cards
                .iter()
                .map(|&k| index_of(&hand, k))
                .collect::<Result<_, _>>()?;
            let mv = if on(self.act[t][0]) {
                let [x, y, a, b] = &self.swap[t];
                if idx.len() != 2 {
                    return Err(Error::internal("a swap that plays no two cards"));
                }
                Move::Swap {
                    cards: [idx[0], idx[1]],
                    pawns: [
                        Pawn {
                            colour: Colour::from_index(which(a, "swap colour")?),
                            at: which(x, "swap box")?,
                        },
                        Pawn {
                            colour: Colour::from_index(which(b, "swap colour")?),
                            at: which(y, "swap box")?,
                        },
                    ],
                }
            } else if on(self.act[t][1]) {
                let [from, to, colour] = &self.wild[t];
                Move::Wild {
                    card: *idx
                        .first()
                        .ok_or_else(|| Error::internal("a wild move that plays no card"))?,
                    colour: Colour::from_index(which(colour, "wild colour")?),
                    from: which(from, "wild box")?,
                    to: which(to, "wild box")?,
                }
            } else {
                let mut idx = idx;
                idx.sort_unstable();
                Move::Discard(idx)
            };
            state
                .apply(&mv)
                .map_err(|e| Error::internal(format!("the SAT plan's turn {t}: {e}")))?;
            let count = cards.len();
            hand.retain(|k| !cards.contains(k));
            for _ in 0..count.min(self.seq.len() - next) {
                hand.push(next);
                next += 1;
            }
            moves.push(mv);
        }
        while !state.is_over() {
            let all: Vec<usize> = (0..state.hand().len()).collect();
            let mv = Move::Discard(all);
            let mv = if state.check(&mv).is_ok() {
                mv
            } else {
                Move::Discard(vec![0])
            };
            state
                .apply(&mv)
                .map_err(|e| Error::internal_from("discarding to the end", e))?;
            moves.push(mv);
        }
        Ok(moves)
    }
}
