//! Puzzles for the techniques' tests.

use crate::model::Problem;

/// A region puzzle from its rows of region letters (touch rule).
pub fn puzzle(rows: &[&str]) -> Problem {
    let text = format!("{}\n", rows.join("\n"));
    crate::formats::parse("test", &text).expect("a region puzzle")
}
