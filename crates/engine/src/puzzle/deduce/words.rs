//! Cells and lines named in a sentence for the player.

use crate::puzzle::{Line, Position};
use queens_model::model::Pos;

/// Names cells for a sentence: `(1,2)`, `(1,2) and (3,4)`, `(1,2), (3,4) and (5,6)`.
pub(super) fn cells(pos: &Position, cells: &[Pos]) -> String {
    listed(cells.iter().map(|&p| pos.cell_name(p)).collect())
}

/// Names lines for a sentence, like [`cells`].
pub(super) fn lines(pos: &Position, lines: &[Line]) -> String {
    listed(lines.iter().map(|&l| pos.name(l)).collect())
}

/// Names as a list in a sentence: `a`, `a and b`, `a, b and c`.
fn listed(names: Vec<String>) -> String {
    match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The text with its first letter in upper case, to open a sentence.
pub(super) fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
