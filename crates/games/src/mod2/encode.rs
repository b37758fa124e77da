//! SAT encodings of "a reachable board with K queens" and "a reachable locked board with at
//! most K queens", written into a [`ClauseSink`].
//!
//! Two ways to say *reachable*:
//!
//! - [`Encoding::Plan`], the planning encoding: the board after each of K steps, one placement
//!   per step (a step may be a no-op when the goal allows fewer queens; no-ops come last), and
//!   the placed square empty and open before its step. Independent placements commute
//!   (queens that do not attack each other leave each other's values alone), so of two
//!   consecutive non-attacking placements the lower square goes first: the trace-theory
//!   (Foata) normal form of a plan, which every plan can be brought to by swaps.
//! - [`Encoding::Rank`], the ordering encoding: openness depends only on the set, so a set is
//!   reachable iff its queens can be ordered so that each has an even number of attackers
//!   placed before it. Each square gets a layer `1..=K` (order encoding); attacking queens
//!   get different layers, and for each queen the parity of its attackers in lower layers is
//!   even. Layers are the longest-path layering of the order (a queen above layer 1 has an
//!   attacker in the layer just below; an empty square sits in layer 1), which every valid
//!   order induces, so that freedom is not searched.
//!
//! Parity is a chain of XOR gates (Tseitin). A square's value counts the queens on its
//! four lines; a queen on the square itself would count four times, so the value's parity
//! is the XOR of the four lines' parities and each line's parity is shared by its squares.
//! The rank encoding counts queens with a totalizer (Bailleux & Boufkhad, CP 2003). Both
//! add lex-leader constraints for the board's 8 symmetries on the final set (Crawford,
//! Ginsberg, Luks & Roy, KR 1996): the goals are closed under symmetry, so this is sound.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use varisat::Lit;

use super::search::symmetry;
use queens_engine::encode::ClauseSink;
use queens_model::model::Pos;

/// How reachability is encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
// Its own name in the OpenAPI document: the at-most-one `Encoding` is another type.
#[schema(as = Mod2Encoding)]
pub enum Encoding {
    /// Board after every step, one placement per step.
    Plan,
    /// A layer per square; parity of earlier attackers even.
    #[default]
    Rank,
}

impl Encoding {
    /// The name the CLI and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Plan => "plan",
            Encoding::Rank => "rank",
        }
    }
}

impl std::str::FromStr for Encoding {
    type Err = String;

    fn from_str(s: &str) -> Result<Encoding, String> {
        match s {
            "plan" => Ok(Encoding::Plan),
            "rank" => Ok(Encoding::Rank),
            _ => Err(format!("unknown encoding `{s}`, expected plan or rank")),
        }
    }
}

/// What the formula asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// A reachable board with exactly this many queens (by prefix closure: at least).
    Queens(usize),
    /// A reachable locked board with at most this many queens.
    LockedAtMost(usize),
}

/// Options of an encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Which encoding.
    pub encoding: Encoding,
    /// Add lex-leader constraints for the 8 symmetries.
    pub symmetry: bool,
}

/// How to read a model back into a move order.
pub enum Decoder {
    /// Action literals per step, per cell.
    Plan(Vec<Vec<Lit>>),
    /// Queen literal and layer literals (`ge[k]` is "layer ≥ k + 2") per cell.
    Rank(Vec<(Lit, Vec<Lit>)>),
}

impl Decoder {
    /// The move order a model describes (`is_true` reads the model).
    pub fn moves(&self, n: usize, is_true: impl Fn(Lit) -> bool) -> Vec<Pos> {
        let pos = |cell: usize| (cell / n, cell % n);
        match self {
            Decoder::Plan(steps) => steps
                .iter()
                .filter_map(|acts| acts.iter().position(|&a| is_true(a)).map(pos))
                .collect(),
            Decoder::Rank(cells) => {
                let mut placed: Vec<(usize, usize)> = cells
                    .iter()
                    .enumerate()
                    .filter(|(_, (x, _))| is_true(*x))
                    .map(|(cell, (_, ge))| (ge.iter().filter(|&&l| is_true(l)).count(), cell))
                    .collect();
                placed.sort_unstable();
                placed.into_iter().map(|(_, cell)| pos(cell)).collect()
            }
        }
    }
}

/// A literal or a constant: encoders fold constants away instead of making variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bit {
    Const(bool),
    Lit(Lit),
}

impl std::ops::Not for Bit {
    type Output = Bit;
    fn not(self) -> Bit {
        match self {
            Bit::Const(b) => Bit::Const(!b),
            Bit::Lit(l) => Bit::Lit(!l),
        }
    }
}

/// Adds a clause of bits: a true bit satisfies it, false bits drop out.
fn clause(sink: &mut impl ClauseSink, bits: &[Bit]) {
    let mut lits = Vec::with_capacity(bits.len());
    for &b in bits {
        match b {
            Bit::Const(true) => return,
            Bit::Const(false) => {}
            Bit::Lit(l) => lits.push(l),
        }
    }
    sink.add_clause(&lits);
}

/// `a ⊕ b` as a bit (a Tseitin gate when both are literals).
fn xor2(sink: &mut impl ClauseSink, a: Bit, b: Bit) -> Bit {
    match (a, b) {
        (Bit::Const(x), y) | (y, Bit::Const(x)) => {
            if x {
                !y
            } else {
                y
            }
        }
        (Bit::Lit(a), Bit::Lit(b)) => {
            let t = sink.new_var();
            sink.add_clause(&[!t, a, b]);
            sink.add_clause(&[!t, !a, !b]);
            sink.add_clause(&[t, !a, b]);
            sink.add_clause(&[t, a, !b]);
            Bit::Lit(t)
        }
    }
}

/// The XOR of `bits` as a chain of gates.
fn xor(sink: &mut impl ClauseSink, bits: &[Bit]) -> Bit {
    bits.iter()
        .fold(Bit::Const(false), |acc, &b| xor2(sink, acc, b))
}

/// `a ∧ b` as a bit.
fn and2(sink: &mut impl ClauseSink, a: Bit, b: Bit) -> Bit {
    match (a, b) {
        (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
        (Bit::Const(true), y) | (y, Bit::Const(true)) => y,
        (Bit::Lit(a), Bit::Lit(b)) => {
            let t = sink.new_var();
            sink.add_clause(&[!t, a]);
            sink.add_clause(&[!t, b]);
            sink.add_clause(&[t, !a, !b]);
            Bit::Lit(t)
        }
    }
}

/// The board's lines: rows, columns, diagonals, anti-diagonals, each as its cells.
fn lines(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for r in 0..n {
        out.push((0..n).map(|c| r * n + c).collect());
    }
    for c in 0..n {
        out.push((0..n).map(|r| r * n + c).collect());
    }
    for d in 0..2 * n - 1 {
        let diag: Vec<usize> = (0..n)
            .filter_map(|r| {
                (r + n - 1)
                    .checked_sub(d)
                    .filter(|&c| c < n)
                    .map(|c| r * n + c)
            })
            .collect();
        let anti: Vec<usize> = (0..n)
            .filter_map(|r| d.checked_sub(r).filter(|&c| c < n).map(|c| r * n + c))
            .collect();
        out.push(diag);
        out.push(anti);
    }
    out
}

/// For each cell, the parity of its value on the board `x` (one bit per cell): the XOR of
/// its four lines' parities (a queen on the cell itself counts four times, so not at all).
fn value_parity(sink: &mut impl ClauseSink, n: usize, x: &[Bit]) -> Vec<Bit> {
    let lines = lines(n);
    let parities: Vec<Bit> = lines
        .iter()
        .map(|l| {
            let bits: Vec<Bit> = l.iter().map(|&c| x[c]).collect();
            xor(sink, &bits)
        })
        .collect();
    let mut of_cell = vec![Vec::new(); n * n];
    for (i, l) in lines.iter().enumerate() {
        for &c in l {
            of_cell[c].push(parities[i]);
        }
    }
    of_cell.iter().map(|p| xor(sink, p)).collect()
}

/// Lex-leader: the set `x` (cells row-major) is no greater than any of its 7 other images
/// (a queen read as 1, the first differing cell decides).
fn lex_leader(sink: &mut impl ClauseSink, n: usize, x: &[Bit]) {
    for s in 1..8 {
        // y[i] = x[σ⁻¹(i)]: the image's cell i holds what σ sent there.
        let mut y = vec![Bit::Const(false); n * n];
        for (cell, &b) in x.iter().enumerate() {
            let (r, c) = symmetry(s, n, (cell / n, cell % n));
            y[r * n + c] = b;
        }
        if y == x {
            continue;
        }
        // eq: the prefix so far is equal (a literal forced true while it is).
        let mut eq = Bit::Const(true);
        for i in 0..n * n {
            if x[i] == y[i] {
                continue;
            }
            // eq → x_i ≤ y_i
            clause(sink, &[!eq, !x[i], y[i]]);
            if i + 1 < n * n {
                let next = Bit::Lit(sink.new_var());
                clause(sink, &[!eq, x[i], y[i], next]);
                clause(sink, &[!eq, !x[i], !y[i], next]);
                eq = next;
            }
        }
    }
}

/// A totalizer's unary outputs over `xs`, counting up to `cap`: `out[j]` is true iff at
/// least `j + 1` of `xs` are (both directions are encoded).
fn totalizer(sink: &mut impl ClauseSink, xs: &[Bit], cap: usize) -> Vec<Bit> {
    if xs.len() <= 1 {
        return xs.iter().copied().take(cap).collect();
    }
    let (l, r) = xs.split_at(xs.len() / 2);
    let a = totalizer(sink, l, cap);
    let b = totalizer(sink, r, cap);
    let m = (a.len() + b.len()).min(cap);
    let out: Vec<Bit> = (0..m).map(|_| Bit::Lit(sink.new_var())).collect();
    let get = |v: &[Bit], i: usize| -> Bit {
        // v[i - 1] for i ≥ 1; "at least 0" is true; beyond the list false.
        if i == 0 {
            Bit::Const(true)
        } else {
            v.get(i - 1).copied().unwrap_or(Bit::Const(false))
        }
    };
    for i in 0..=a.len() {
        // Past the sink's deadline: the caller throws the formula away.
        if sink.full() {
            return out;
        }
        for j in 0..=b.len() {
            // a ≥ i ∧ b ≥ j → out ≥ i + j
            if i + j >= 1 {
                let k = (i + j).min(m);
                clause(sink, &[!get(&a, i), !get(&b, j), out[k - 1]]);
            }
            // a < i + 1 ∧ b < j + 1 → out < i + j + 1
            if i + j < m {
                clause(sink, &[get(&a, i + 1), get(&b, j + 1), !out[i + j]]);
            }
        }
    }
    out
}

/// Encodes `goal` on the n×n board into `sink`; returns how to read a model back.
pub fn encode(sink: &mut impl ClauseSink, n: usize, goal: Goal, opts: Options) -> Decoder {
    match opts.encoding {
        Encoding::Plan => plan(sink, n, goal, opts.symmetry),
        Encoding::Rank => rank(sink, n, goal, opts.symmetry),
    }
}

fn attack_lists(n: usize) -> Vec<Vec<usize>> {
    let cells = n * n;
    (0..cells)
        .map(|a| {
            (0..cells)
                .filter(|&b| super::rules::attacks((a / n, a % n), (b / n, b % n)))
                .collect()
        })
        .collect()
}

fn lock(sink: &mut impl ClauseSink, n: usize, x: &[Bit]) {
    // Every empty square closed…
    let parity = value_parity(sink, n, x);
    for (c, &p) in parity.iter().enumerate() {
        clause(sink, &[x[c], p]);
    }
    // …and some square empty (a complete board is not locked).
    let empty: Vec<Bit> = x.iter().map(|&b| !b).collect();
    clause(sink, &empty);
}

fn plan(sink: &mut impl ClauseSink, n: usize, goal: Goal, symmetry: bool) -> Decoder {
    let cells = n * n;
    let (steps, noops) = match goal {
        Goal::Queens(k) => (k, false),
        Goal::LockedAtMost(k) => (k, true),
    };
    let attack = attack_lists(n);
    // Whether two cells attack each other, looked up in the Foata loop below (cells² pairs
    // a step: a search of the attack list each made a 32×32 step take seconds).
    let mut attacked = vec![false; cells * cells];
    for (s, list) in attack.iter().enumerate() {
        for &u in list {
            attacked[s * cells + u] = true;
        }
    }
    let mut x = vec![Bit::Const(false); cells];
    let mut actions: Vec<Vec<Lit>> = Vec::with_capacity(steps);
    let mut prev_noop: Option<Lit> = None;
    for _ in 0..steps {
        if sink.full() {
            break;
        }
        let parity = value_parity(sink, n, &x);
        let a: Vec<Lit> = (0..cells).map(|_| sink.new_var()).collect();
        // At most one placement per step (sequential counter), at least one unless a no-op.
        queens_engine::encode::amo::at_most_one(
            sink,
            &a,
            queens_engine::encode::amo::Encoding::Seq,
        );
        if noops {
            let noop = sink.new_var();
            let mut some: Vec<Lit> = a.clone();
            some.push(noop);
            sink.add_clause(&some);
            for &ai in &a {
                sink.add_clause(&[!noop, !ai]);
            }
            if let Some(p) = prev_noop {
                sink.add_clause(&[!p, noop]);
            }
            prev_noop = Some(noop);
        } else {
            sink.add_clause(&a);
        }
        // The placed square is empty and open before the step.
        for c in 0..cells {
            clause(sink, &[Bit::Lit(!a[c]), !x[c]]);
            clause(sink, &[Bit::Lit(!a[c]), !parity[c]]);
        }
        // Foata normal form: of two consecutive non-attacking placements, the lower square
        // first.
        if let Some(before) = actions.last() {
            for (s, &b) in before.iter().enumerate() {
                if sink.full() {
                    break;
                }
                for (u, &au) in a[..s].iter().enumerate() {
                    if !attacked[s * cells + u] {
                        sink.add_clause(&[!b, !au]);
                    }
                }
            }
        }
        // Frame: x' = x ∨ a.
        let next: Vec<Bit> = (0..cells)
            .map(|c| match x[c] {
                Bit::Const(false) => Bit::Lit(a[c]),
                Bit::Const(true) => Bit::Const(true),
                Bit::Lit(old) => {
                    let v = sink.new_var();
                    sink.add_clause(&[!old, v]);
                    sink.add_clause(&[!a[c], v]);
                    sink.add_clause(&[!v, old, a[c]]);
                    Bit::Lit(v)
                }
            })
            .collect();
        x = next;
        actions.push(a);
    }
    if let Goal::LockedAtMost(_) = goal {
        lock(sink, n, &x);
    }
    if symmetry {
        lex_leader(sink, n, &x);
    }
    Decoder::Plan(actions)
}

fn rank(sink: &mut impl ClauseSink, n: usize, goal: Goal, symmetry: bool) -> Decoder {
    let cells = n * n;
    let layers = match goal {
        Goal::Queens(k) | Goal::LockedAtMost(k) => k.max(1),
    };
    let attack = attack_lists(n);
    let xl: Vec<Lit> = (0..cells).map(|_| sink.new_var()).collect();
    let x: Vec<Bit> = xl.iter().map(|&l| Bit::Lit(l)).collect();
    // ge[c][k]: layer of c ≥ k + 2 (layer ≥ 1 always holds).
    let ge: Vec<Vec<Lit>> = (0..cells)
        .map(|_| (2..=layers).map(|_| sink.new_var()).collect())
        .collect();
    let at_least = |c: usize, k: usize| -> Bit {
        if k <= 1 {
            Bit::Const(true)
        } else if k > layers {
            Bit::Const(false)
        } else {
            Bit::Lit(ge[c][k - 2])
        }
    };
    for (c, &xc) in x.iter().enumerate() {
        // Past the sink's deadline: the caller throws the formula away.
        if sink.full() {
            return Decoder::Rank(Vec::new());
        }
        for k in 3..=layers {
            clause(sink, &[!at_least(c, k), at_least(c, k - 1)]);
        }
        // An empty square sits in layer 1.
        clause(sink, &[xc, !at_least(c, 2)]);
    }
    // lt[a][i]: layer of attack[a][i] < layer of a.
    let mut lt: Vec<Vec<Lit>> = Vec::with_capacity(cells);
    for (a, attackers) in attack.iter().enumerate() {
        // Past the sink's deadline: the caller throws the formula away.
        if sink.full() {
            return Decoder::Rank(Vec::new());
        }
        let mut row = Vec::with_capacity(attackers.len());
        for &b in attackers {
            let l = sink.new_var();
            let lb = Bit::Lit(l);
            // l → ∀k: t_b ≥ k → t_a ≥ k + 1
            for k in 1..=layers {
                clause(sink, &[!lb, !at_least(b, k), at_least(a, k + 1)]);
            }
            // ¬l → ∀k: t_a ≥ k → t_b ≥ k
            for k in 2..=layers {
                clause(sink, &[lb, !at_least(a, k), at_least(b, k)]);
            }
            row.push(l);
        }
        lt.push(row);
    }
    for a in 0..cells {
        // Past the sink's deadline: the caller throws the formula away.
        if sink.full() {
            return Decoder::Rank(Vec::new());
        }
        for (i, &b) in attack[a].iter().enumerate() {
            if b < a {
                // Attacking queens stand in different layers.
                let j = attack[b]
                    .iter()
                    .position(|&c| c == a)
                    .expect("attack is symmetric");
                sink.add_clause(&[!xl[a], !xl[b], lt[a][i], lt[b][j]]);
            }
        }
        // Even number of attackers placed before a.
        let before: Vec<Bit> = attack[a]
            .iter()
            .enumerate()
            .map(|(i, &b)| and2(sink, x[b], Bit::Lit(lt[a][i])))
            .collect();
        let p = xor(sink, &before);
        clause(sink, &[!x[a], !p]);
    }
    // Longest-path layering: a queen in layer k ≥ 2 has an attacker in layer k − 1.
    let mut exactly: Vec<Vec<Bit>> = Vec::with_capacity(cells);
    for (c, &xc) in x.iter().enumerate() {
        if sink.full() {
            return Decoder::Rank(Vec::new());
        }
        exactly.push(
            (1..layers)
                .map(|k| {
                    let at = and2(sink, at_least(c, k), !at_least(c, k + 1));
                    and2(sink, xc, at)
                })
                .collect(),
        );
    }
    for a in 0..cells {
        // Past the sink's deadline: the caller throws the formula away.
        if sink.full() {
            return Decoder::Rank(Vec::new());
        }
        for k in 2..=layers {
            let mut cl = vec![!x[a], !at_least(a, k), at_least(a, k + 1)];
            cl.extend(attack[a].iter().map(|&b| exactly[b][k - 2]));
            clause(sink, &cl);
        }
    }
    let count = match goal {
        Goal::Queens(k) => k,
        Goal::LockedAtMost(k) => k,
    };
    let total = totalizer(sink, &x, count + 1);
    if sink.full() {
        return Decoder::Rank(Vec::new());
    }
    match goal {
        Goal::Queens(k) => {
            if k >= 1 {
                clause(
                    sink,
                    &[total.get(k - 1).copied().unwrap_or(Bit::Const(false))],
                );
            }
            if let Some(&over) = total.get(k) {
                clause(sink, &[!over]);
            }
        }
        Goal::LockedAtMost(k) => {
            if let Some(&over) = total.get(k) {
                clause(sink, &[!over]);
            }
            lock(sink, n, &x);
        }
    }
    if symmetry {
        lex_leader(sink, n, &x);
    }
    Decoder::Rank(xl.into_iter().zip(ge).collect())
}
