//! Every board an engine returns, checked against the rules before anyone sees it: a board
//! that breaks one is a bug in the engine, reported as [`Error::Internal`] naming the engine
//! and the rule, never an answer.

use crate::answer::{ColumnAnswer, SolvedColumns};
use crate::spec::EngineSpec;
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::verify::verify;

/// Checks a board an engine returned: a board that breaks a rule is a bug, reported as
/// [`Error::Internal`] naming the engine and the rule.
pub fn checked(problem: &Problem, queens: &[Pos], engine: &str) -> Result<(), Error> {
    verify(problem, queens).map_err(|v| {
        Error::internal(format!(
            "the {engine} engine returned a board that breaks a rule: {v}"
        ))
    })
}

/// Checks the board of an answer given as one column per row ([`queens_model::verify::verify_columns`]):
/// a board that breaks a rule is a bug, reported as [`Error::Internal`] naming the engine
/// that answered.
pub fn verify_columns(
    problem: &Problem,
    spec: EngineSpec,
    solved: &SolvedColumns,
) -> Result<(), Error> {
    if let ColumnAnswer::Sat(cols) = &solved.answer {
        let by = solved.work.answered_by.unwrap_or(spec).name();
        queens_model::verify::verify_columns(problem, cols).map_err(|v| {
            Error::internal(format!(
                "the {by} engine returned a board that breaks a rule: {v}"
            ))
        })?;
    }
    Ok(())
}
