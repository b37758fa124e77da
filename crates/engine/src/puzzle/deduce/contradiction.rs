//! A cell whose queen leads, by the simpler techniques, to a line with no cell left cannot
//! hold one: a bounded "if this cell held a queen" chain.

use super::direct::next_step;
use super::step::{Deduction, Technique};
use crate::puzzle::{Cell, Position};

/// Most steps a chain may take before it is given up.
const MAX_CHAIN: usize = 64;

pub(super) fn find(pos: &Position) -> Option<Deduction> {
    let n = pos.n();
    for i in 0..n * n {
        let x = (i / n, i % n);
        if pos.at(x) != Cell::Open {
            continue;
        }
        let mut what_if = pos.clone();
        what_if.place(x);
        let mut steps = 0;
        while what_if.dead_line().is_none() && steps < MAX_CHAIN {
            match next_step(&what_if, Technique::WouldEmpty) {
                Some(s) => s.apply(&mut what_if),
                None => break,
            }
            steps += 1;
        }
        if let Some(line) = what_if.dead_line() {
            return Some(Deduction {
                technique: Technique::Contradiction,
                place: vec![],
                eliminate: vec![x],
                lines: vec![line],
                reason: format!(
                    "If {} held a queen, {} step{} of simpler reasoning would leave {} without \
                     a cell, so it cannot.",
                    pos.cell_name(x),
                    steps,
                    if steps == 1 { "" } else { "s" },
                    pos.name(line)
                ),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::testing::puzzle;
    use super::*;

    #[test]
    fn a_queen_that_starves_a_line_two_steps_later_is_eliminated() {
        // LinkedIn level 1: no simpler technique applies to its first position that
        // eliminates (0,0), but the chain does. Whatever it eliminates must be off the
        // unique solution.
        let p = puzzle(&[
            "AABBBCCC", "ADBDBECC", "ADBDBCCC", "ADDDBFGC", "ADDDBFGG", "ADHDBFGG", "HDHDBFFG",
            "HHHHGGGG",
        ]);
        let (solution, _) = crate::backtrack::first_solution(&p, &Default::default());
        let solution = solution.unwrap();
        let pos = Position::new(&p, &[]);
        let step = find(&pos).expect("some cell leads to a contradiction");
        assert_eq!(step.technique, Technique::Contradiction);
        assert!(step.eliminate.iter().all(|p| !solution.contains(p)));
        assert!(step.reason.starts_with("If ("), "{}", step.reason);
    }
}
