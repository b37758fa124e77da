//! k regions whose open cells lie within k rows hold those rows' k queens, so no other cell
//! of those rows can hold one; k rows whose open cells lie within k regions hold those
//! regions' queens, so no other cell of those regions can. Columns likewise. (k = 1 is
//! [`super::confined`].)

use super::step::{Deduction, Technique};
use super::words::{cells, lines};
use crate::puzzle::{Line, Position};
use queens_model::model::Pos;

/// Largest k tried: the search over sets of lines grows fast, and larger sets are found as
/// their complements (n − k lines of the other kind).
const MAX_K: usize = 4;

pub(super) fn find(pos: &Position) -> Option<Deduction> {
    let regions = pos.problem().regions()?;
    let n = pos.n();
    if n > 64 {
        return None;
    }
    let free = |make: fn(usize) -> Line| -> Vec<Line> {
        (0..n).map(make).filter(|&l| !pos.has_queen(l)).collect()
    };
    // The other kind of line a cell lies in.
    let key = |other: fn(usize) -> Line, p: Pos| match other(0) {
        Line::Row(_) => p.0,
        Line::Col(_) => p.1,
        Line::Region(_) => regions.id(p),
    };
    // (the group of lines chosen k at a time, the kind of line their cells must fit in)
    type Kind = fn(usize) -> Line;
    let cases: [(Kind, Kind); 6] = [
        (Line::Region, Line::Row),
        (Line::Region, Line::Col),
        (Line::Row, Line::Region),
        (Line::Col, Line::Region),
        (Line::Row, Line::Col),
        (Line::Col, Line::Row),
    ];
    for (kind, other) in cases {
        let group = free(kind);
        // Each line of the group as the set of other-kind lines its open cells lie in.
        let masks: Vec<u64> = group
            .iter()
            .map(|&l| {
                pos.open_in(l)
                    .iter()
                    .fold(0u64, |m, &p| m | 1 << key(other, p))
            })
            .collect();
        for k in 2..=MAX_K.min(group.len().saturating_sub(1)) {
            let mut chosen = Vec::new();
            if let Some(step) = search(pos, &group, &masks, other, k, 0, 0, &mut chosen) {
                return Some(step);
            }
        }
    }
    None
}

/// Depth-first over sets of `k` lines of `group` whose masks' union has `k` bits.
#[allow(clippy::too_many_arguments)]
fn search(
    pos: &Position,
    group: &[Line],
    masks: &[u64],
    other: fn(usize) -> Line,
    k: usize,
    from: usize,
    union: u64,
    chosen: &mut Vec<usize>,
) -> Option<Deduction> {
    if union.count_ones() as usize > k {
        return None;
    }
    if chosen.len() == k {
        let inside: Vec<Line> = chosen.iter().map(|&i| group[i]).collect();
        let targets: Vec<Line> = (0..64).filter(|b| union >> b & 1 == 1).map(other).collect();
        // The k target lines' queens are all in the chosen lines: clear the rest of them.
        let members: Vec<Pos> = inside.iter().flat_map(|&l| pos.cells_of(l)).collect();
        let mut out: Vec<Pos> = targets
            .iter()
            .flat_map(|&t| pos.open_in(t))
            .filter(|p| !members.contains(p))
            .collect();
        out.sort_unstable();
        out.dedup();
        if out.is_empty() || union.count_ones() as usize != k {
            return None;
        }
        return Some(Deduction {
            technique: Technique::Subsets,
            place: vec![],
            lines: inside.iter().chain(&targets).copied().collect(),
            reason: format!(
                "The open cells of {} all lie in {}: those {k} queens are theirs, so no other \
                 cell there can hold one: {}.",
                lines(pos, &inside),
                lines(pos, &targets),
                cells(pos, &out)
            ),
            eliminate: out,
        });
    }
    for i in from..group.len() {
        if masks[i] == 0 {
            continue;
        }
        chosen.push(i);
        let found = search(pos, group, masks, other, k, i + 1, union | masks[i], chosen);
        chosen.pop();
        if found.is_some() {
            return found;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::testing::puzzle;
    use super::*;

    #[test]
    fn two_regions_in_two_rows_clear_those_rows() {
        // Regions A and B live in rows 0 and 1 only; C's cells in those rows go.
        let p = puzzle(&["AABC", "ABBC", "CCCC", "DDDC"]);
        let pos = Position::new(&p, &[]);
        let step = find(&pos).unwrap();
        assert_eq!(step.eliminate, vec![(0, 3), (1, 3)]);
        assert!(
            step.reason
                .starts_with("The open cells of region A and region B all lie in row 0 and row 1"),
            "{}",
            step.reason
        );
    }
}
