//! Puzzles for the techniques' tests.

use queens_model::model::Problem;

/// A region puzzle from its rows of region letters (touch rule).
pub fn puzzle(rows: &[&str]) -> Problem {
    let text = format!("{}\n", rows.join("\n"));
    queens_model::formats::parse("test", &text).expect("a region puzzle")
}
