//! Exhaustive search over positions as bitboards: the game's winner by memoised negamax, and
//! the reachable positions layer by layer (Q11), both up to the board's 8 symmetries.
//!
//! Whether a square is open depends only on the set of queens, so a position is a set: one
//! `u128` (n ≤ 11), canonical as the least of its 8 images. The parity of every square's
//! value is kept beside it as a second bitboard, updated by one XOR per move (a queen flips
//! the parity of exactly the squares it attacks).

use std::time::Instant;

use super::rules::Variant;
use queens_model::hash::FastMap;
use queens_model::model::Pos;

/// Largest board the bitboards hold.
pub const MAX_N: usize = 11;

/// A set of squares, bit `r * n + c` for square (r, c).
pub type Bits = u128;

/// Squares, attack masks and the 8 symmetries of the n×n board, as bitboards.
pub struct Geometry {
    n: usize,
    full: Bits,
    attack: Vec<Bits>,
    /// `tables[s][k][b]`: the image under symmetry `s` of byte value `b` at byte `k`.
    tables: Vec<Vec<[Bits; 256]>>,
}

/// The 8 symmetries of the square as maps of (r, c) on an n×n board; index 0 is the identity.
pub fn symmetry(s: usize, n: usize, (r, c): Pos) -> Pos {
    let m = n - 1;
    match s {
        0 => (r, c),
        1 => (c, m - r),
        2 => (m - r, m - c),
        3 => (m - c, r),
        4 => (r, m - c),
        5 => (m - r, c),
        6 => (c, r),
        _ => (m - c, m - r),
    }
}

impl Geometry {
    /// The geometry of the n×n board (1 ≤ n ≤ [`MAX_N`]).
    pub fn new(n: usize) -> Geometry {
        assert!((1..=MAX_N).contains(&n), "bitboards hold n = 1..={MAX_N}");
        let cells = n * n;
        let full = if cells == 128 {
            !0
        } else {
            (1u128 << cells) - 1
        };
        let attack = (0..cells)
            .map(|a| {
                (0..cells)
                    .filter(|&b| super::rules::attacks((a / n, a % n), (b / n, b % n)))
                    .fold(0, |m, b| m | 1u128 << b)
            })
            .collect();
        let chunks = cells.div_ceil(8);
        let tables = (0..8)
            .map(|s| {
                (0..chunks)
                    .map(|k| {
                        let mut t = [0; 256];
                        for (byte, image) in t.iter_mut().enumerate() {
                            for bit in 0..8 {
                                let cell = k * 8 + bit;
                                if byte >> bit & 1 == 1 && cell < cells {
                                    let (r, c) = symmetry(s, n, (cell / n, cell % n));
                                    *image |= 1u128 << (r * n + c);
                                }
                            }
                        }
                        t
                    })
                    .collect()
            })
            .collect();
        Geometry {
            n,
            full,
            attack,
            tables,
        }
    }

    /// The board side.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Every square.
    pub fn full(&self) -> Bits {
        self.full
    }

    /// The squares attacking square `cell` (not itself).
    pub fn attack(&self, cell: usize) -> Bits {
        self.attack[cell]
    }

    /// The image of `b` under symmetry `s`.
    pub fn transform(&self, s: usize, b: Bits) -> Bits {
        self.tables[s]
            .iter()
            .enumerate()
            .fold(0, |m, (k, t)| m | t[(b >> (8 * k)) as usize & 0xff])
    }

    /// The least of the 8 images of `b`.
    pub fn canonical(&self, b: Bits) -> Bits {
        (1..8).fold(b, |m, s| m.min(self.transform(s, b)))
    }

    /// How many distinct sets the 8 symmetries make of `b` (1, 2, 4 or 8).
    pub fn orbit(&self, b: Bits) -> u32 {
        let mut images: Vec<Bits> = (0..8).map(|s| self.transform(s, b)).collect();
        images.sort_unstable();
        images.dedup();
        images.len() as u32
    }

    /// The squares of odd value: bit s is the parity of the queens of `queens` attacking s.
    pub fn parity(&self, queens: Bits) -> Bits {
        ones(queens).fold(0, |p, q| p ^ self.attack[q])
    }

    /// The start position of `variant`.
    pub fn start(&self, variant: Variant) -> Bits {
        match variant {
            Variant::Complementary => self.full,
            Variant::Standard | Variant::Alternate => 0,
        }
    }

    /// The legal moves from `queens` (with `parity = self.parity(queens)`) in `variant`.
    pub fn moves(&self, variant: Variant, queens: Bits, parity: Bits) -> Bits {
        match variant {
            Variant::Standard => self.full & !queens & !parity,
            Variant::Alternate if queens == 0 => self.full,
            Variant::Alternate => self.full & !queens & parity,
            Variant::Complementary => queens & !parity,
        }
    }

    /// The cell as (row, col).
    pub fn pos(&self, cell: usize) -> Pos {
        (cell / self.n, cell % self.n)
    }

    /// The squares of `b`, row by row.
    pub fn squares(&self, b: Bits) -> Vec<Pos> {
        ones(b).map(|c| self.pos(c)).collect()
    }
}

/// The set bits of `b`, lowest first.
pub fn ones(mut b: Bits) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            i
        })
    })
}

/// A map keyed by bitboards.
pub type BitsMap<V> = FastMap<Bits, V>;

/// Why a search stopped before its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The deadline passed.
    Timeout,
    /// The table of positions reached its limit.
    Memory,
}

/// Limits of a search.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop once this instant passes.
    pub deadline: Option<Instant>,
    /// Stop once this many positions are stored.
    pub max_positions: Option<u64>,
}

impl Limits {
    fn check(&self, stored: usize) -> Result<(), Stop> {
        if self.max_positions.is_some_and(|m| stored as u64 > m) {
            return Err(Stop::Memory);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(Stop::Timeout);
        }
        Ok(())
    }
}

/// Who wins with perfect play, found by [`play_out`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// True when the player to move first wins.
    pub first_wins: bool,
    /// A winning first move, when the first player wins.
    pub winning_move: Option<Pos>,
    /// Every first move that wins (up to nothing: all of them, as squares).
    pub winning_moves: Vec<Pos>,
    /// Positions (up to symmetry) whose value the search stored.
    pub positions: u64,
}

/// Plays the game out: memoised negamax over canonical positions. The player who cannot
/// move loses. All first moves are evaluated, so [`Solved::winning_moves`] is complete.
pub fn play_out(geo: &Geometry, variant: Variant, limits: &Limits) -> Result<Solved, Stop> {
    let mut memo: BitsMap<bool> = BitsMap::default();
    let mut steps = 0u64;
    let start = geo.start(variant);
    let parity = geo.parity(start);
    let mut winning = Vec::new();
    for m in ones(geo.moves(variant, start, parity)) {
        let child = start ^ 1u128 << m;
        if !wins(
            geo,
            variant,
            child,
            parity ^ geo.attack[m],
            &mut memo,
            limits,
            &mut steps,
        )? {
            winning.push(geo.pos(m));
        }
    }
    Ok(Solved {
        first_wins: !winning.is_empty(),
        winning_move: winning.first().copied(),
        winning_moves: winning,
        positions: memo.len() as u64,
    })
}

/// True when the player to move at `queens` (some move made already, so the alternate
/// game's free first move is over) wins: the same memoised search from any position.
pub fn wins_from(
    geo: &Geometry,
    variant: Variant,
    queens: Bits,
    limits: &Limits,
) -> Result<bool, Stop> {
    let mut memo: BitsMap<bool> = BitsMap::default();
    let mut steps = 0u64;
    wins(
        geo,
        variant,
        queens,
        geo.parity(queens),
        &mut memo,
        limits,
        &mut steps,
    )
}

fn wins(
    geo: &Geometry,
    variant: Variant,
    queens: Bits,
    parity: Bits,
    memo: &mut BitsMap<bool>,
    limits: &Limits,
    steps: &mut u64,
) -> Result<bool, Stop> {
    let key = geo.canonical(queens);
    if let Some(&w) = memo.get(&key) {
        return Ok(w);
    }
    *steps += 1;
    if *steps % 4096 == 0 {
        limits.check(memo.len())?;
    }
    let mut win = false;
    for m in ones(geo.moves(variant, queens, parity)) {
        if !wins(
            geo,
            variant,
            queens ^ 1u128 << m,
            parity ^ geo.attack[m],
            memo,
            limits,
            steps,
        )? {
            win = true;
            break;
        }
    }
    memo.insert(key, win);
    Ok(win)
}

/// One layer of reachable positions: those after `moves` moves.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Layer {
    /// Moves made.
    pub moves: usize,
    /// Queens on the board.
    pub queens: usize,
    /// Positions up to symmetry.
    pub classes: u64,
    /// Positions.
    pub positions: u64,
    /// Of them, positions with no legal move (complete or locked, in the standard game).
    pub terminal: u64,
    /// Move sequences (paths of the game tree) that reach this layer, when they fit in 128
    /// bits.
    pub sequences: Option<u128>,
}

/// The reachable positions of a game, layer by layer, and what they answer.
pub struct Reachable {
    /// Layer `d`: the canonical positions after `d` moves, each with the number of move
    /// sequences reaching its orbit (None once a count overflows).
    pub tables: Vec<BitsMap<Option<u128>>>,
    /// Per-layer counts.
    pub layers: Vec<Layer>,
}

/// Builds every reachable position of `variant`, breadth first, up to symmetry.
pub fn reachable(geo: &Geometry, variant: Variant, limits: &Limits) -> Result<Reachable, Stop> {
    reachable_from(geo, variant, &[geo.start(variant)], limits)
}

/// Like [`reachable`], from each of `starts` (one move sequence each) instead of the
/// variant's start; layer `d` is `d` moves after a start.
pub fn reachable_from(
    geo: &Geometry,
    variant: Variant,
    starts: &[Bits],
    limits: &Limits,
) -> Result<Reachable, Stop> {
    let cells = geo.n * geo.n;
    let mut first: BitsMap<Option<u128>> = BitsMap::default();
    for &s in starts {
        let slot = first.entry(geo.canonical(s)).or_insert(Some(0));
        *slot = slot.and_then(|v| v.checked_add(1));
    }
    let mut tables = vec![first];
    let mut stored = 1usize;
    let mut steps = 0u64;
    loop {
        let last = tables.last().expect("the first layer is there");
        let mut next: BitsMap<Option<u128>> = BitsMap::default();
        for (&queens, &seq) in last {
            steps += 1;
            if steps % 1024 == 0 {
                limits.check(stored + next.len())?;
            }
            let parity = geo.parity(queens);
            for m in ones(geo.moves(variant, queens, parity)) {
                let key = geo.canonical(queens ^ 1u128 << m);
                let slot = next.entry(key).or_insert(Some(0));
                *slot = match (*slot, seq) {
                    (Some(a), Some(b)) => a.checked_add(b),
                    _ => None,
                };
            }
        }
        if next.is_empty() {
            break;
        }
        stored += next.len();
        tables.push(next);
    }
    let layers = tables
        .iter()
        .enumerate()
        .map(|(d, t)| {
            let mut layer = Layer {
                moves: d,
                queens: {
                    let q = t.keys().next().map_or(0, |b| b.count_ones() as usize);
                    debug_assert!(q <= cells);
                    q
                },
                classes: t.len() as u64,
                positions: 0,
                terminal: 0,
                sequences: Some(0),
            };
            for (&q, &seq) in t {
                let orbit = u64::from(geo.orbit(q));
                layer.positions += orbit;
                if geo.moves(variant, q, geo.parity(q)) == 0 {
                    layer.terminal += orbit;
                }
                layer.sequences = match (layer.sequences, seq) {
                    (Some(a), Some(b)) => a.checked_add(b),
                    _ => None,
                };
            }
            layer
        })
        .collect();
    Ok(Reachable { tables, layers })
}

impl Reachable {
    /// Positions up to symmetry, in all layers.
    pub fn classes(&self) -> u64 {
        self.layers.iter().map(|l| l.classes).sum()
    }

    /// Positions, in all layers.
    pub fn positions(&self) -> u64 {
        self.layers.iter().map(|l| l.positions).sum()
    }

    /// Nodes of the game tree (every legal move sequence from the start, the empty one
    /// included), when the count fits in 128 bits.
    pub fn game_tree_nodes(&self) -> Option<u128> {
        self.layers
            .iter()
            .try_fold(0u128, |a, l| a.checked_add(l.sequences?))
    }

    /// Finished games: move sequences that end in a position with no legal move.
    pub fn games(&self, geo: &Geometry, variant: Variant) -> Option<u128> {
        let mut total = 0u128;
        for t in &self.tables {
            for (&q, &seq) in t {
                if geo.moves(variant, q, geo.parity(q)) == 0 {
                    total = total.checked_add(seq?)?;
                }
            }
        }
        Some(total)
    }

    /// The deepest layer's first position (in the placement games: a reachable board with
    /// the most queens).
    pub fn deepest(&self) -> (usize, Bits) {
        let d = self.tables.len() - 1;
        (
            d,
            *self.tables[d].keys().min().expect("layers are not empty"),
        )
    }

    /// The shallowest position with no legal move that is not the full board (in the
    /// standard game: a reachable locked board with the fewest queens), if any.
    pub fn first_locked(&self, geo: &Geometry, variant: Variant) -> Option<(usize, Bits)> {
        self.tables.iter().enumerate().find_map(|(d, t)| {
            t.keys()
                .filter(|&&q| q != geo.full && geo.moves(variant, q, geo.parity(q)) == 0)
                .min()
                .map(|&q| (d, q))
        })
    }

    /// A legal move order from the start to `target`, a position in layer `depth` (any
    /// member of the orbit stored there), read back from the layers.
    pub fn move_order(
        &self,
        geo: &Geometry,
        variant: Variant,
        depth: usize,
        target: Bits,
    ) -> Vec<Pos> {
        let mut moves = Vec::with_capacity(depth);
        let mut cur = target;
        for d in (1..=depth).rev() {
            // The previous position differs by one square; the move must be legal there.
            let candidates = if variant == Variant::Complementary {
                geo.full & !cur
            } else {
                cur
            };
            let m = ones(candidates)
                .find(|&m| {
                    let prev = cur ^ 1u128 << m;
                    self.tables[d - 1].contains_key(&geo.canonical(prev))
                        && geo.moves(variant, prev, geo.parity(prev)) >> m & 1 == 1
                })
                .expect("a reachable position has a reachable predecessor");
            moves.push(geo.pos(m));
            cur ^= 1u128 << m;
        }
        moves.reverse();
        moves
    }
}

/// A legal move order (in the standard game) that builds exactly `target`, if there is one:
/// a depth-first search backwards, taking off a queen that could have come last (its value
/// among the others is even), remembering the sets that lead nowhere.
pub fn order(geo: &Geometry, target: Bits, limits: &Limits) -> Result<Option<Vec<Pos>>, Stop> {
    let mut dead: BitsMap<()> = BitsMap::default();
    let mut steps = 0u64;
    let mut moves = Vec::new();
    if unbuild(geo, target, &mut dead, limits, &mut steps, &mut moves)? {
        moves.reverse();
        Ok(Some(moves.into_iter().map(|c| geo.pos(c)).collect()))
    } else {
        Ok(None)
    }
}

fn unbuild(
    geo: &Geometry,
    set: Bits,
    dead: &mut BitsMap<()>,
    limits: &Limits,
    steps: &mut u64,
    moves: &mut Vec<usize>,
) -> Result<bool, Stop> {
    if set == 0 {
        return Ok(true);
    }
    let key = geo.canonical(set);
    if dead.contains_key(&key) {
        return Ok(false);
    }
    *steps += 1;
    if *steps % 4096 == 0 {
        limits.check(dead.len())?;
    }
    // Squares of `set` whose value among the other queens is even could be the last placed.
    let last = set & !geo.parity(set);
    for q in ones(last) {
        moves.push(q);
        if unbuild(geo, set ^ 1u128 << q, dead, limits, steps, moves)? {
            return Ok(true);
        }
        moves.pop();
    }
    dead.insert(key, ());
    Ok(false)
}

/// A legal move order (standard game) reaching a board with `k` queens, if any: depth first
/// from the empty board, remembering positions (up to symmetry) that cannot reach `k`.
pub fn deep(geo: &Geometry, k: usize, limits: &Limits) -> Result<Option<Vec<Pos>>, Stop> {
    let mut dead: BitsMap<()> = BitsMap::default();
    let mut steps = 0u64;
    let mut moves = Vec::new();
    if extend(geo, 0, 0, k, &mut dead, limits, &mut steps, &mut moves)? {
        Ok(Some(moves.into_iter().map(|c| geo.pos(c)).collect()))
    } else {
        Ok(None)
    }
}

#[allow(clippy::too_many_arguments)]
fn extend(
    geo: &Geometry,
    queens: Bits,
    parity: Bits,
    k: usize,
    dead: &mut BitsMap<()>,
    limits: &Limits,
    steps: &mut u64,
    moves: &mut Vec<usize>,
) -> Result<bool, Stop> {
    if moves.len() >= k {
        return Ok(true);
    }
    let key = geo.canonical(queens);
    if dead.contains_key(&key) {
        return Ok(false);
    }
    *steps += 1;
    if *steps % 4096 == 0 {
        limits.check(dead.len())?;
    }
    for m in ones(geo.moves(Variant::Standard, queens, parity)) {
        moves.push(m);
        if extend(
            geo,
            queens | 1u128 << m,
            parity ^ geo.attack[m],
            k,
            dead,
            limits,
            steps,
            moves,
        )? {
            return Ok(true);
        }
        moves.pop();
    }
    dead.insert(key, ());
    Ok(false)
}
