//! A queen rules out the other cells of its row, column and region, and the cells it
//! attacks (rule `full`) or touches (rule `touch`).

use super::step::{Deduction, Technique};
use super::words::cells;
use crate::puzzle::Position;

pub(super) fn find(pos: &Position) -> Option<Deduction> {
    pos.queens().into_iter().find_map(|q| {
        let out = pos.ruled_out_by(q);
        (!out.is_empty()).then(|| Deduction {
            technique: Technique::Attacked,
            place: vec![],
            lines: pos.lines_of(q),
            reason: format!(
                "The queen at {} rules out the other cells of its row, column{} and the cells \
                 it {}: {}.",
                pos.cell_name(q),
                if pos.problem().regions().is_some() {
                    " and region,"
                } else {
                    ","
                },
                match pos.problem().rule() {
                    queens_model::model::DiagonalRule::Touch => "touches",
                    queens_model::model::DiagonalRule::Full => "attacks along its diagonals",
                },
                cells(pos, &out)
            ),
            eliminate: out,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::puzzle;
    use super::*;

    #[test]
    fn a_queen_clears_its_lines_and_neighbours() {
        let p = puzzle(&["AAB", "ACB", "CCB"])
            .with_fixed(&[(0, 0)])
            .unwrap();
        let pos = Position::new(&p, &[]);
        let step = find(&pos).unwrap();
        // Row 0, column 0, region A, and the touching (1,1).
        assert_eq!(step.eliminate, vec![(0, 1), (0, 2), (1, 0), (1, 1), (2, 0)]);
        assert!(step.reason.contains("(0,0)"), "{}", step.reason);
    }
}
