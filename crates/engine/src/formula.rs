//! One SAT call on any formula with a certificate: a model, or UNSAT with an LRAT proof that
//! the crate's own checker ([`queens_proof::check_lrat`]) accepts before anyone sees the
//! answer. The mod-2 game's questions and the card game's planner ask their questions this
//! way.
//!
//! varisat cannot be interrupted, so under a deadline the caller hands in a [`Runner`] that
//! runs the call where it can be killed (the operations layer: a `solve_cnf` request in a
//! child `queens op`), and the proof that comes back is checked here against the caller's
//! own copy of the formula.

use std::time::Instant;

use varisat::{CnfFormula, Lit};

use queens_model::error::Error;
use queens_proof::ProofFormat;

/// How one SAT call ended.
pub enum Outcome {
    /// Satisfiable: the model, one literal per variable.
    Sat(Vec<Lit>),
    /// Unsatisfiable, with the checked proof.
    Unsat(Proof),
    /// The deadline passed first.
    Timeout,
}

/// A checked LRAT proof of unsatisfiability.
pub struct Proof {
    /// The proof text.
    pub lrat: Vec<u8>,
    /// Lemmas in it (after trimming).
    pub lemmas: u64,
    /// Milliseconds the built-in checker took.
    pub check_ms: f64,
}

/// Runs one SAT call somewhere else (in a child process killed at a deadline), answering
/// with the model, or `None` and the LRAT proof of UNSAT (checked by [`certify`]), or
/// [`Outcome::Timeout`].
pub type Runner<'a> = &'a (dyn Fn(&CnfFormula) -> Result<Outcome, Error> + Sync);

fn internal(what: &str) -> impl Fn(queens_proof::ProofError) -> Error + '_ {
    move |e| Error::internal_from(format!("SAT call {what}"), e)
}

/// Solves `formula` through `runner` when one is given, here otherwise; [`Outcome::Timeout`]
/// at once when the deadline has passed. Every UNSAT answer carries an LRAT proof checked
/// here.
pub fn decide(
    formula: &CnfFormula,
    deadline: Option<Instant>,
    runner: Option<Runner>,
) -> Result<Outcome, Error> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(Outcome::Timeout);
    }
    match runner {
        Some(run) => run(formula),
        None => solve_here(formula),
    }
}

/// Solves `formula` in this process (it cannot be interrupted), checking the proof of an
/// UNSAT answer.
pub fn solve_here(formula: &CnfFormula) -> Result<Outcome, Error> {
    let mut lrat = Vec::new();
    let model = crate::sat::solve_with_proof(formula, ProofFormat::Lrat, &mut lrat)
        .map_err(internal("in this process"))?;
    match model {
        Some(model) => Ok(Outcome::Sat(model)),
        None => certify(formula, lrat),
    }
}

/// An UNSAT answer from elsewhere, believed only once its LRAT proof checks against
/// `formula`.
pub fn certify(formula: &CnfFormula, lrat: Vec<u8>) -> Result<Outcome, Error> {
    let start = Instant::now();
    let stats = queens_proof::check_lrat(formula, &lrat).map_err(internal("proof check"))?;
    Ok(Outcome::Unsat(Proof {
        lemmas: stats.lemmas,
        check_ms: crate::work::ms(start),
        lrat,
    }))
}
