//! Every board an engine returns, checked against the rules before anyone sees it: a board
//! that breaks one is a bug in the engine, reported as [`Error::Internal`] naming the engine
//! and the rule, never an answer.

use crate::answer::{columns_of, ColumnAnswer, SolvedColumns};
use crate::spec::EngineSpec;
use crate::work::Work;
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

/// A complete engine's cells as an answer, with its `work`: a solution (checked on the
/// cells first), "no", or no answer when the run stopped. Every engine that finds cells
/// (the backtracker, the SAT engines, Dancing Links) ends its solve with it.
pub fn cells_answer(
    problem: &Problem,
    found: Option<Vec<Pos>>,
    stopped: bool,
    name: &str,
    work: Work,
) -> Result<SolvedColumns, Error> {
    let answer = match found {
        Some(q) => {
            checked(problem, &q, name)?;
            ColumnAnswer::Sat(columns_of(problem.n(), &q))
        }
        None if stopped => ColumnAnswer::Interrupted,
        None => ColumnAnswer::Unsat(None),
    };
    Ok(SolvedColumns { answer, work })
}
