//! Region puzzles as a player sees them: a position (queens placed, cells marked "no queen")
//! and human-style deduction over it ([`deduce`]), and the grade that deduction gives a
//! puzzle ([`grade`]). The generator of unique puzzles is [`crate::generate::regions`].

pub mod deduce;
pub mod grade;

use queens_model::model::{cell, Pos, Problem};

/// What a cell holds in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Still possible.
    Open,
    /// Marked "no queen" (by the player, a deduction, or the problem: blocked cells and
    /// excluded diagonals).
    Marked,
    /// A queen.
    Queen,
}

/// A line that must hold exactly one queen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Line {
    /// A row.
    Row(usize),
    /// A column.
    Col(usize),
    /// A region, by index.
    Region(usize),
}

/// A position of a puzzle: the problem, and what each cell holds.
#[derive(Clone, Debug)]
pub struct Position<'p> {
    problem: &'p Problem,
    cells: Vec<Cell>,
}

impl<'p> Position<'p> {
    /// The starting position: the problem's fixed queens placed, its closed cells marked,
    /// and `marks` marked too.
    pub fn new(problem: &'p Problem, marks: &[Pos]) -> Position<'p> {
        let n = problem.n();
        let mut cells: Vec<Cell> = (0..n * n)
            .map(|i| {
                if problem.is_open((i / n, i % n)) {
                    Cell::Open
                } else {
                    Cell::Marked
                }
            })
            .collect();
        for &(r, c) in marks {
            cells[r * n + c] = Cell::Marked;
        }
        for &(r, c) in problem.fixed() {
            cells[r * n + c] = Cell::Queen;
        }
        Position { problem, cells }
    }

    /// The problem.
    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.problem.n()
    }

    /// What a cell holds.
    pub fn at(&self, (r, c): Pos) -> Cell {
        self.cells[r * self.n() + c]
    }

    /// Places a queen.
    pub fn place(&mut self, (r, c): Pos) {
        let n = self.n();
        self.cells[r * n + c] = Cell::Queen;
    }

    /// Marks a cell "no queen".
    pub fn mark(&mut self, (r, c): Pos) {
        let n = self.n();
        self.cells[r * n + c] = Cell::Marked;
    }

    /// The queens, row-major.
    pub fn queens(&self) -> Vec<Pos> {
        self.all_cells()
            .filter(|&p| self.at(p) == Cell::Queen)
            .collect()
    }

    /// The marked cells, row-major.
    pub fn marks(&self) -> Vec<Pos> {
        self.all_cells()
            .filter(|&p| self.at(p) == Cell::Marked)
            .collect()
    }

    fn all_cells(&self) -> impl Iterator<Item = Pos> {
        let n = self.n();
        (0..n * n).map(move |i| (i / n, i % n))
    }

    /// Every line: rows, columns, then regions (if the problem has them).
    pub fn lines(&self) -> Vec<Line> {
        let n = self.n();
        let mut out: Vec<Line> = (0..n).map(Line::Row).chain((0..n).map(Line::Col)).collect();
        if self.problem.regions().is_some() {
            out.extend((0..n).map(Line::Region));
        }
        out
    }

    /// The cells of a line.
    pub fn cells_of(&self, line: Line) -> Vec<Pos> {
        let n = self.n();
        match line {
            Line::Row(r) => (0..n).map(|c| (r, c)).collect(),
            Line::Col(c) => (0..n).map(|r| (r, c)).collect(),
            Line::Region(g) => {
                let regions = self.problem.regions().expect("region lines need regions");
                self.all_cells().filter(|&p| regions.id(p) == g).collect()
            }
        }
    }

    /// The open cells of a line.
    pub fn open_in(&self, line: Line) -> Vec<Pos> {
        self.cells_of(line)
            .into_iter()
            .filter(|&p| self.at(p) == Cell::Open)
            .collect()
    }

    /// Whether a line already holds a queen.
    pub fn has_queen(&self, line: Line) -> bool {
        self.cells_of(line)
            .into_iter()
            .any(|p| self.at(p) == Cell::Queen)
    }

    /// The lines through a cell: its row, column and region.
    pub fn lines_of(&self, p: Pos) -> Vec<Line> {
        let mut out = vec![Line::Row(p.0), Line::Col(p.1)];
        if let Some(g) = self.problem.regions() {
            out.push(Line::Region(g.id(p)));
        }
        out
    }

    /// The open cells a queen on `p` would rule out (the cells it attacks or touches).
    pub fn ruled_out_by(&self, p: Pos) -> Vec<Pos> {
        self.all_cells()
            .filter(|&x| self.at(x) == Cell::Open && self.problem.attacks(p, x))
            .collect()
    }

    /// True when every line holds a queen.
    pub fn solved(&self) -> bool {
        self.lines().into_iter().all(|l| self.has_queen(l))
    }

    /// A line that can no longer hold a queen (none placed, no open cell), if any.
    pub fn dead_line(&self) -> Option<Line> {
        self.lines()
            .into_iter()
            .find(|&l| !self.has_queen(l) && self.open_in(l).is_empty())
    }

    /// A line's name for a player: `row 3`, `column 5`, `region C`.
    pub fn name(&self, line: Line) -> String {
        match line {
            Line::Row(r) => format!("row {r}"),
            Line::Col(c) => format!("column {c}"),
            Line::Region(g) => {
                let name = self.problem.regions().map_or("?", |x| x.name(g));
                format!("region {name}")
            }
        }
    }

    /// A cell's name for a player: `(3,5)`, rows and columns counted from 0 as in JSON.
    pub fn cell_name(&self, p: Pos) -> String {
        cell(p)
    }
}
