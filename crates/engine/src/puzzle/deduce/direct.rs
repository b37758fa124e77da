//! The techniques that read the position as it stands, without a "what if" chain: the
//! ladder a contradiction chain climbs after each supposed queen.

use super::step::{Deduction, Technique};
use super::{attacked, confined, last_cell, subsets, would_empty};
use crate::puzzle::Position;

/// The next step by the simplest of these techniques that finds one, up to `hardest`; `None`
/// when the position is solved, stuck, or already contradictory.
pub(super) fn next_step(pos: &Position, hardest: Technique) -> Option<Deduction> {
    if pos.dead_line().is_some() {
        return None;
    }
    Technique::ALL
        .into_iter()
        .filter(|&t| t <= hardest)
        .find_map(|t| find(t, pos))
}

/// The step one technique finds; a contradiction chain is not one of these.
fn find(technique: Technique, pos: &Position) -> Option<Deduction> {
    match technique {
        Technique::Attacked => attacked::find(pos),
        Technique::LastCell => last_cell::find(pos),
        Technique::Confined => confined::find(pos),
        Technique::Subsets => subsets::find(pos),
        Technique::WouldEmpty => would_empty::find(pos),
        Technique::Contradiction => None,
    }
}
