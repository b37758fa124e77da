//! Human-style deduction: named techniques, simplest first, each a small unit that finds one
//! step (cells to place or to eliminate) with the lines involved and a sentence a player
//! understands. A step is only ever a consequence of the rules and the position, so on a
//! puzzle with one solution it never contradicts that solution.
//!
//! `step.rs` says what a step is, `words.rs` how a sentence names cells and lines, one file
//! per technique finds its steps, and `direct.rs` tries the techniques that need no "what
//! if" chain, in order; the chain (`contradiction.rs`) climbs that ladder.

mod attacked;
mod confined;
mod contradiction;
mod direct;
mod last_cell;
mod step;
mod subsets;
#[cfg(test)]
mod testing;
mod words;
mod would_empty;

use super::Position;

pub use step::{Deduction, Technique};

/// The next step by the simplest technique that finds one, up to `hardest`; `None` when the
/// position is solved, stuck, or already contradictory (see [`Position::dead_line`]).
pub fn next_step(pos: &Position, hardest: Technique) -> Option<Deduction> {
    if pos.dead_line().is_some() {
        return None;
    }
    direct::next_step(pos, hardest).or_else(|| {
        (hardest >= Technique::Contradiction)
            .then(|| contradiction::find(pos))
            .flatten()
    })
}
