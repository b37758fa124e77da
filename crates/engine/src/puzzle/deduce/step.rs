//! What a deduction is: the techniques, simplest first, and one step found by one of them.

use serde::Serialize;

use crate::puzzle::{Line, Position};
use queens_model::model::Pos;

/// The techniques, simplest first: [`super::next_step`] tries them in this order.
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
}

/// One deduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deduction {
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

impl Deduction {
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
