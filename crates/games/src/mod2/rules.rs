//! The rules of the mod-2 n-queens game, stated once and without search: values, open
//! squares, the state of a board, and the replay of a move list (the independent checker
//! every reported board passes).
//!
//! Nothing here looks at bitboards, memo tables or SAT: [`super::search`] and
//! [`super::encode`] restate the rules for speed, and the tests hold them to this file.

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use queens_model::model::Pos;

/// Which game: how the board starts and which moves are legal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Start empty; place a queen on an empty square whose value is even (open).
    #[default]
    Standard,
    /// "Alternate universe": start empty; the first queen goes anywhere (the empty board has
    /// no odd square, so the game starts from one queen), every later queen on an empty square
    /// whose value is odd.
    Alternate,
    /// "Complementary": start with every square holding a queen; remove a queen whose value
    /// (the other queens attacking its square) is even.
    Complementary,
}

impl Variant {
    /// Every variant, in the order the CLI lists them.
    pub const ALL: [Variant; 3] = [
        Variant::Standard,
        Variant::Alternate,
        Variant::Complementary,
    ];

    /// The variant's name as the CLI and JSON spell it.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Alternate => "alternate",
            Variant::Complementary => "complementary",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Variant {
    type Err = String;

    fn from_str(s: &str) -> Result<Variant, String> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| {
                format!("unknown variant `{s}`, expected standard, alternate or complementary")
            })
    }
}

/// A board's state in the standard game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Every square holds a queen.
    Complete,
    /// Some square is empty and no empty square is open.
    Locked,
    /// Some empty square is open: the game goes on.
    Unlocked,
}

impl State {
    /// The state's name as JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            State::Complete => "complete",
            State::Locked => "locked",
            State::Unlocked => "unlocked",
        }
    }
}

/// A set of queens on an n×n board (any n ≥ 1; no bit tricks, so no size limit here).
///
/// The board also counts the queens on each row, column and diagonal, so that a square's
/// value is four lookups, not a look at every queen: a whole board's values cost n², not
/// n⁴ (a 533×533 board's check took minutes that way). The tests hold the counts to the
/// definition, queen by queen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    n: usize,
    queens: Vec<bool>,
    lines: Lines,
}

/// Queens per row, column, diagonal (`r + n - 1 - c`) and anti-diagonal (`r + c`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Lines {
    rows: Vec<u32>,
    cols: Vec<u32>,
    diags: Vec<u32>,
    antis: Vec<u32>,
}

impl Lines {
    fn new(n: usize, each: u32) -> Lines {
        let diagonals = (0..(2 * n).saturating_sub(1))
            .map(|d| each * (n - d.abs_diff(n - 1)) as u32)
            .collect::<Vec<u32>>();
        Lines {
            rows: vec![each * n as u32; n],
            cols: vec![each * n as u32; n],
            diags: diagonals.clone(),
            antis: diagonals,
        }
    }

    /// Adds `delta` (+1 or -1) queens on `(r, c)`'s four lines.
    fn add(&mut self, n: usize, (r, c): Pos, delta: i32) {
        for count in [
            &mut self.rows[r],
            &mut self.cols[c],
            &mut self.diags[r + n - 1 - c],
            &mut self.antis[r + c],
        ] {
            *count = count.wrapping_add_signed(delta);
        }
    }
}

impl Board {
    /// The empty n×n board.
    pub fn empty(n: usize) -> Board {
        Board {
            n,
            queens: vec![false; n * n],
            lines: Lines::new(n, 0),
        }
    }

    /// The n×n board with a queen on every square.
    pub fn full(n: usize) -> Board {
        Board {
            n,
            queens: vec![true; n * n],
            lines: Lines::new(n, 1),
        }
    }

    /// The board holding `queens` (each on the board; a square named twice holds one queen).
    pub fn with_queens(n: usize, queens: &[Pos]) -> Board {
        let mut b = Board::empty(n);
        for &(r, c) in queens {
            assert!(r < n && c < n, "queen ({r},{c}) is off the {n}×{n} board");
            b.set((r, c), true);
        }
        b
    }

    /// Puts a queen on `p` or takes it off, keeping the line counts.
    fn set(&mut self, p: Pos, queen: bool) {
        let i = p.0 * self.n + p.1;
        if self.queens[i] != queen {
            self.queens[i] = queen;
            self.lines.add(self.n, p, if queen { 1 } else { -1 });
        }
    }

    /// The side of the board.
    pub fn n(&self) -> usize {
        self.n
    }

    /// True when a queen stands on `p`.
    pub fn has_queen(&self, (r, c): Pos) -> bool {
        self.queens[r * self.n + c]
    }

    /// The queens, row by row.
    pub fn queens(&self) -> Vec<Pos> {
        self.squares().filter(|&p| self.has_queen(p)).collect()
    }

    /// How many queens stand on the board.
    pub fn count(&self) -> usize {
        self.queens.iter().filter(|&&q| q).count()
    }

    fn squares(&self) -> impl Iterator<Item = Pos> {
        let n = self.n;
        (0..n).flat_map(move |r| (0..n).map(move |c| (r, c)))
    }

    /// The value of square `p`: the queens on its row, its column and its two diagonals,
    /// every one of them (a queen between does not block), not counting a queen on `p`.
    pub fn value(&self, (r, c): Pos) -> usize {
        let n = self.n;
        let l = &self.lines;
        let on_lines = l.rows[r] + l.cols[c] + l.diags[r + n - 1 - c] + l.antis[r + c];
        // A queen on `p` itself is on all four lines and does not attack its own square.
        on_lines as usize - 4 * usize::from(self.has_queen((r, c)))
    }

    /// [`Board::value`] by its definition: every queen looked at.
    #[cfg(test)]
    fn value_by_definition(&self, p: Pos) -> usize {
        self.squares()
            .filter(|&q| q != p && self.has_queen(q) && attacks(p, q))
            .count()
    }

    /// True when `p` is empty and its value is even (0 included).
    pub fn is_open(&self, p: Pos) -> bool {
        !self.has_queen(p) && self.value(p) % 2 == 0
    }

    /// The empty squares with their values, row by row.
    pub fn empty_values(&self) -> Vec<(Pos, usize)> {
        self.squares()
            .filter(|&p| !self.has_queen(p))
            .map(|p| (p, self.value(p)))
            .collect()
    }

    /// The open squares, row by row.
    pub fn open_squares(&self) -> Vec<Pos> {
        self.squares().filter(|&p| self.is_open(p)).collect()
    }

    /// Complete, locked or unlocked (the standard game's terms).
    pub fn state(&self) -> State {
        if self.count() == self.n * self.n {
            State::Complete
        } else if self.open_squares().is_empty() {
            State::Locked
        } else {
            State::Unlocked
        }
    }

    /// Pairs of queens that attack each other. A reachable board has an even number: each
    /// queen went on a square with an even number of attackers already there, and each
    /// attacking pair is counted once, at its later queen.
    pub fn attacking_pairs(&self) -> usize {
        let queens = self.queens();
        queens
            .iter()
            .enumerate()
            .map(|(i, &a)| queens[i + 1..].iter().filter(|&&b| attacks(a, b)).count())
            .sum()
    }

    /// Why `mv` (the `index`-th move, 0-based) is not legal in `variant` on this board, if
    /// it is not.
    fn illegal(&self, variant: Variant, index: usize, mv: Pos) -> Option<String> {
        let n = self.n;
        if mv.0 >= n || mv.1 >= n {
            return Some(format!("square is off the {n}×{n} board"));
        }
        let value = self.value(mv);
        match variant {
            Variant::Standard | Variant::Alternate if self.has_queen(mv) => {
                Some("the square already holds a queen".into())
            }
            Variant::Standard if value % 2 == 1 => Some(format!(
                "the square is closed: its value is {value} (odd), a queen may only go on an \
                 even square"
            )),
            Variant::Alternate if index > 0 && value % 2 == 0 => Some(format!(
                "the square's value is {value} (even): after the first queen, queens go on odd \
                 squares only"
            )),
            Variant::Complementary if !self.has_queen(mv) => {
                Some("no queen stands on the square to remove".into())
            }
            Variant::Complementary if value % 2 == 1 => Some(format!(
                "the queen's value is {value} (odd): only a queen of even value may be removed"
            )),
            _ => None,
        }
    }
}

/// True when squares `a` and `b` (distinct) share a row, a column or a diagonal.
pub fn attacks(a: Pos, b: Pos) -> bool {
    a != b && (a.0 == b.0 || a.1 == b.1 || a.0.abs_diff(b.0) == a.1.abs_diff(b.1))
}

/// The first illegal move of a move list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// Its index in the list (0-based).
    pub index: usize,
    /// The square.
    pub square: Pos,
    /// Which rule it breaks.
    pub reason: String,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move {} ({},{}) is illegal: {}",
            self.index + 1,
            self.square.0,
            self.square.1,
            self.reason
        )
    }
}

/// Plays `moves` from the variant's start on the n×n board and returns the final board, or
/// the first move that breaks the rules. In the complementary game a move removes a queen.
pub fn replay(n: usize, variant: Variant, moves: &[Pos]) -> Result<Board, IllegalMove> {
    let mut board = match variant {
        Variant::Complementary => Board::full(n),
        Variant::Standard | Variant::Alternate => Board::empty(n),
    };
    for (index, &mv) in moves.iter().enumerate() {
        if let Some(reason) = board.illegal(variant, index, mv) {
            return Err(IllegalMove {
                index,
                square: mv,
                reason,
            });
        }
        board.set(mv, variant != Variant::Complementary);
    }
    Ok(board)
}

/// The legal moves from `board` in `variant`, where `moved` moves have been made so far
/// (the alternate game's first move is free). For tests and small boards.
pub fn legal_moves(board: &Board, variant: Variant, moved: usize) -> Vec<Pos> {
    board
        .squares()
        .filter(|&p| board.illegal(variant, moved, p).is_none())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line counts agree with the definition on every square, on boards built queen
    /// by queen and on boards a complementary game emptied.
    #[test]
    fn values_by_line_counts_are_values_by_definition() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for n in 1..=9 {
            for _ in 0..20 {
                let queens: Vec<Pos> = (0..next(n * n + 1)).map(|_| (next(n), next(n))).collect();
                let mut boards = vec![Board::with_queens(n, &queens), Board::full(n)];
                for &p in &queens {
                    boards[1].set(p, false);
                }
                for b in &boards {
                    for p in b.squares() {
                        assert_eq!(b.value(p), b.value_by_definition(p), "n = {n}, {p:?}");
                    }
                }
            }
        }
    }
}
