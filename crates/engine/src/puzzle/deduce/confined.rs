//! A region whose open cells all lie in one row (column) holds that row's queen, so no other
//! cell of the row can; a row (column) whose open cells all lie in one region holds that
//! region's queen, so no other cell of the region can.

use super::step::{Deduction, Technique};
use super::words::{capitalised, cells};
use crate::puzzle::{Line, Position};

pub(super) fn find(pos: &Position) -> Option<Deduction> {
    let regions = pos.problem().regions()?;
    let n = pos.n();
    let open_lines = |make: fn(usize) -> Line| {
        (0..n)
            .map(make)
            .filter(|&l| !pos.has_queen(l))
            .collect::<Vec<_>>()
    };
    for region in open_lines(Line::Region) {
        let open = pos.open_in(region);
        for (axis, of) in [(Line::Row as fn(usize) -> Line, 0), (Line::Col, 1)] {
            let Some(&first) = open.first() else { continue };
            let at = |p: (usize, usize)| if of == 0 { p.0 } else { p.1 };
            if open.iter().all(|&p| at(p) == at(first)) {
                let line = axis(at(first));
                let out: Vec<_> = pos
                    .open_in(line)
                    .into_iter()
                    .filter(|&p| Line::Region(regions.id(p)) != region)
                    .collect();
                if !out.is_empty() {
                    return Some(Deduction {
                        technique: Technique::Confined,
                        place: vec![],
                        lines: vec![region, line],
                        reason: format!(
                            "{} lies entirely in {}, so no other cell of {} can hold a queen: {}.",
                            capitalised(&pos.name(region)),
                            pos.name(line),
                            pos.name(line),
                            cells(pos, &out)
                        ),
                        eliminate: out,
                    });
                }
            }
        }
    }
    for line in open_lines(Line::Row)
        .into_iter()
        .chain(open_lines(Line::Col))
    {
        let open = pos.open_in(line);
        let Some(&first) = open.first() else { continue };
        let g = regions.id(first);
        if open.iter().all(|&p| regions.id(p) == g) {
            let region = Line::Region(g);
            let on_line = |p: (usize, usize)| match line {
                Line::Row(r) => p.0 == r,
                _ => p.1 == first.1,
            };
            let out: Vec<_> = pos
                .open_in(region)
                .into_iter()
                .filter(|&p| !on_line(p))
                .collect();
            if !out.is_empty() {
                return Some(Deduction {
                    technique: Technique::Confined,
                    place: vec![],
                    lines: vec![line, region],
                    reason: format!(
                        "Every open cell of {} is in {}, so no other cell of {} can hold a queen: {}.",
                        pos.name(line),
                        pos.name(region),
                        pos.name(region),
                        cells(pos, &out)
                    ),
                    eliminate: out,
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

    #[test]
    fn a_region_in_one_row_clears_the_row() {
        // Region B is the last three cells of row 0.
        let p = puzzle(&["ABBB", "AACC", "DDCC", "DDCC"]);
        let pos = Position::new(&p, &[]);
        let step = find(&pos).unwrap();
        assert_eq!(step.eliminate, vec![(0, 0)]);
        assert_eq!(
            step.reason,
            "Region B lies entirely in row 0, so no other cell of row 0 can hold a queen: (0,0)."
        );
    }

    #[test]
    fn a_row_in_one_region_clears_the_region() {
        let p = puzzle(&["AAAA", "ABBB", "CCBD", "CCDD"]);
        let mut pos = Position::new(&p, &[]);
        // Row 0 is all A already; marking nothing, region A also has (1,0).
        let step = find(&pos).unwrap();
        assert_eq!(step.eliminate, vec![(1, 0)]);
        pos.mark((1, 0));
        assert!(step
            .reason
            .starts_with("Every open cell of row 0 is in region A"));
    }
}
