//! Human-style deduction: named techniques, simplest first, each a small unit that finds one
//! step (cells to place or to eliminate) with the lines involved and a sentence a player
//! understands. A step is only ever a consequence of the rules and the position, so on a
//! puzzle with one solution it never contradicts that solution.

mod attacked;
mod confined;
mod contradiction;
mod last_cell;
mod subsets;
mod would_empty;

use serde::Serialize;

use super::{Line, Position};
use crate::model::Pos;

/// The techniques, simplest first: [`next_step`] tries them in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Technique {
    /// A queen rules out the other cells of its row, column and region, and the cells it
    /// attacks or touches.
    Attacked,
    /// A line with one open cell left: the queen goes there.
    LastCell,
    /// A region confined to one row or column clears the rest of that row or column; a row
    /// or column confined to one region clears the rest of that region.
    Confined,
    /// k regions confined to k rows (or columns) clear the rest of those rows; k rows (or
    /// columns) confined to k regions clear the rest of those regions.
    Subsets,
    /// A cell whose queen would leave some line without a cell.
    WouldEmpty,
    /// A cell whose queen leads, by the techniques above, to a line without a cell.
    Contradiction,
}

impl Technique {
    /// Every technique, simplest first.
    pub const ALL: [Technique; 6] = [
        Technique::Attacked,
        Technique::LastCell,
        Technique::Confined,
        Technique::Subsets,
        Technique::WouldEmpty,
        Technique::Contradiction,
    ];

    /// The technique's name as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Technique::Attacked => "attacked",
            Technique::LastCell => "last-cell",
            Technique::Confined => "confined",
            Technique::Subsets => "subsets",
            Technique::WouldEmpty => "would-empty",
            Technique::Contradiction => "contradiction",
        }
    }

    fn find(self, pos: &Position) -> Option<Step> {
        match self {
            Technique::Attacked => attacked::find(pos),
            Technique::LastCell => last_cell::find(pos),
            Technique::Confined => confined::find(pos),
            Technique::Subsets => subsets::find(pos),
            Technique::WouldEmpty => would_empty::find(pos),
            Technique::Contradiction => contradiction::find(pos),
        }
    }
}

/// One deduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// How it was found.
    pub technique: Technique,
    /// Cells that must hold a queen.
    pub place: Vec<Pos>,
    /// Cells that cannot hold one.
    pub eliminate: Vec<Pos>,
    /// The lines the reasoning is about.
    pub lines: Vec<Line>,
    /// One sentence for the player.
    pub reason: String,
}

impl Step {
    /// Applies the step to a position.
    pub fn apply(&self, pos: &mut Position) {
        for &p in &self.eliminate {
            pos.mark(p);
        }
        for &p in &self.place {
            pos.place(p);
        }
    }
}

/// The next step by the simplest technique that finds one, up to `hardest`; `None` when the
/// position is solved, stuck, or already contradictory (see [`Position::dead_line`]).
pub fn next_step(pos: &Position, hardest: Technique) -> Option<Step> {
    if pos.dead_line().is_some() {
        return None;
    }
    Technique::ALL
        .into_iter()
        .filter(|&t| t <= hardest)
        .find_map(|t| t.find(pos))
}

/// Names cells for a sentence: `(1,2)`, `(1,2) and (3,4)`, `(1,2), (3,4) and (5,6)`.
fn cells(pos: &Position, cells: &[Pos]) -> String {
    let names: Vec<String> = cells.iter().map(|&p| pos.cell_name(p)).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Names lines for a sentence, like [`cells`].
fn lines(pos: &Position, lines: &[Line]) -> String {
    let names: Vec<String> = lines.iter().map(|&l| pos.name(l)).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::model::Problem;

    /// A region puzzle from its rows of region letters (touch rule).
    pub fn puzzle(rows: &[&str]) -> Problem {
        let text = format!("{}\n", rows.join("\n"));
        crate::formats::parse("test", &text).expect("a region puzzle")
    }
}
