//! A cell whose queen would rule out every open cell of some other line cannot hold one.

use super::step::{Deduction, Technique};
use crate::puzzle::{Cell, Position};

pub(super) fn find(pos: &Position) -> Option<Deduction> {
    let n = pos.n();
    let lines = pos.lines();
    for i in 0..n * n {
        let x = (i / n, i % n);
        if pos.at(x) != Cell::Open {
            continue;
        }
        let own = pos.lines_of(x);
        let gone = pos.ruled_out_by(x);
        for &line in &lines {
            if own.contains(&line) || pos.has_queen(line) {
                continue;
            }
            let open = pos.open_in(line);
            if open.iter().all(|p| gone.contains(p)) {
                return Some(Deduction {
                    technique: Technique::WouldEmpty,
                    place: vec![],
                    eliminate: vec![x],
                    lines: vec![line],
                    reason: format!(
                        "A queen on {} would rule out every remaining cell of {}, so it cannot go there.",
                        pos.cell_name(x),
                        pos.name(line)
                    ),
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::testing::puzzle;
    use super::*;
    use crate::puzzle::Line;

    #[test]
    fn a_cell_that_would_empty_a_region_is_eliminated() {
        // Region B is (0,3) and (1,3); a queen on (0,2) or (1,2) touches both.
        let p = puzzle(&["AAAB", "CCCB", "CCDD", "CCDD"]);
        let pos = Position::new(&p, &[]);
        let step = find(&pos).unwrap();
        assert_eq!(step.eliminate, vec![(0, 2)]);
        assert_eq!(step.lines, vec![Line::Region(1)]);
    }
}
