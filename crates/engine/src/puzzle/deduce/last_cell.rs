//! A line without a queen that has one open cell left: the queen goes there.

use super::step::{Deduction, Technique};
use super::words::capitalised;
use crate::puzzle::Position;

pub(super) fn find(pos: &Position) -> Option<Deduction> {
    pos.lines().into_iter().find_map(|line| {
        if pos.has_queen(line) {
            return None;
        }
        match pos.open_in(line).as_slice() {
            &[only] => Some(Deduction {
                technique: Technique::LastCell,
                place: vec![only],
                eliminate: vec![],
                lines: vec![line],
                reason: format!(
                    "{} has one cell left that can hold a queen: {}.",
                    capitalised(&pos.name(line)),
                    pos.cell_name(only)
                ),
            }),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::puzzle;
    use super::*;
    use crate::puzzle::Line;

    #[test]
    fn the_last_open_cell_of_a_line_gets_the_queen() {
        let p = puzzle(&["ABBB", "ABBB", "CCDD", "CCDD"]);
        let mut pos = Position::new(&p, &[]);
        pos.mark((0, 0));
        let step = find(&pos).unwrap();
        // Rows and columns have more; region A has only (1,0) left.
        assert_eq!(step.place, vec![(1, 0)]);
        assert_eq!(step.lines, vec![Line::Region(0)]);
        assert_eq!(
            step.reason,
            "Region A has one cell left that can hold a queen: (1,0)."
        );
    }
}
