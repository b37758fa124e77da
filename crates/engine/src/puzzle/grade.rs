//! Difficulty: the logical path a player can follow (the simplest technique at every step)
//! and a grade from the hardest technique it needs and how often.

use serde::{Deserialize, Serialize};

use super::deduce::{next_step, Deduction, Technique};
use super::Position;
use queens_model::model::Problem;

/// A grade, easiest first.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Grade {
    /// Only `attacked` and `last-cell`.
    Easy,
    /// Needs `confined`.
    Medium,
    /// Needs `subsets` or `would-empty`.
    Hard,
    /// Needs `contradiction`, or more than [`HARD_STEPS`] steps of `subsets`/`would-empty`,
    /// or is not solved by the techniques at all.
    Expert,
}

/// Steps of the `hard` techniques above which a puzzle is `expert`.
pub const HARD_STEPS: usize = 6;

impl Grade {
    /// The grade's name as JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Grade::Easy => "easy",
            Grade::Medium => "medium",
            Grade::Hard => "hard",
            Grade::Expert => "expert",
        }
    }
}

/// The logical path from the problem's position (its queens and marks).
pub struct Path {
    /// The steps, in order.
    pub steps: Vec<Deduction>,
    /// True when the steps reach a solved board.
    pub solved: bool,
}

/// Applies the simplest technique that finds a step until the board is solved or none does.
pub fn logical_path(problem: &Problem) -> Path {
    let mut pos = Position::new(problem, problem.marks());
    let mut steps = Vec::new();
    // Each step places or eliminates at least one open cell.
    while steps.len() <= problem.n() * problem.n() {
        match next_step(&pos, Technique::Contradiction) {
            Some(step) => {
                step.apply(&mut pos);
                steps.push(step);
            }
            None => break,
        }
    }
    Path {
        solved: pos.solved(),
        steps,
    }
}

/// The grade of a path: by its hardest technique, then by how often it needed the hard ones.
pub fn grade(path: &Path) -> Grade {
    let hardest = path.steps.iter().map(|s| s.technique).max();
    let hard_steps = path
        .steps
        .iter()
        .filter(|s| matches!(s.technique, Technique::Subsets | Technique::WouldEmpty))
        .count();
    match hardest {
        _ if !path.solved => Grade::Expert,
        Some(Technique::Contradiction) => Grade::Expert,
        Some(Technique::Subsets | Technique::WouldEmpty) if hard_steps > HARD_STEPS => {
            Grade::Expert
        }
        Some(Technique::Subsets | Technique::WouldEmpty) => Grade::Hard,
        Some(Technique::Confined) => Grade::Medium,
        _ => Grade::Easy,
    }
}
