//! Certified answers: a verified solution, or "no solution" with a proof of unsatisfiability
//! of the exact CNF `queens encode` writes, accepted by the built-in checker before anyone
//! sees it. Either engine can prove: varisat writes DRAT as it solves, the backtracker turns
//! its search tree into lemmas ([`crate::backtrack::certify`]).

use std::collections::HashSet;
use std::time::Instant;

use varisat::ExtendFormula;

use super::{checked, ms, Budget, EngineSpec, Work};
use crate::backtrack::certify::{refute, DratStyle, Refutation};
use crate::cnf::FixedMode;
use crate::encode::amo::Encoding;
use crate::error::Error;
use crate::model::{Pos, Problem};
use crate::proof::{self, ProofFormat};
use crate::sat::{self, Encoded, SatStats};

/// The certificate of an UNSAT answer.
pub struct Certificate {
    /// The CNF the proof refutes (its DIMACS form is what `queens encode` writes).
    pub cnf: Encoded,
    /// The proof, in `format`.
    pub proof: Vec<u8>,
    /// Its format.
    pub format: ProofFormat,
    /// Lemmas in the proof (after trimming, for LRAT).
    pub lemmas: u64,
    /// LRAT: lemmas of the search left out because the refutation does not use them.
    pub trimmed: u64,
    /// Milliseconds spent turning the engine's DRAT into LRAT (0 for DRAT formats).
    pub convert_ms: f64,
    /// Milliseconds the built-in checker took to accept the proof.
    pub check_ms: f64,
}

/// A certified answer.
pub enum CertifiedAnswer {
    /// A solution, verified.
    Sat(Vec<Pos>),
    /// No solution, with a checked proof.
    Unsat(Box<Certificate>),
    /// The budget ran out first.
    Interrupted,
}

/// [`solve_certified`]'s result.
pub struct Certified {
    /// The answer.
    pub answer: CertifiedAnswer,
    /// The engine's work (the search or the SAT run; proof conversion and checking are in
    /// the certificate).
    pub work: Work,
}

/// Solves with `spec` and, on UNSAT, proves it: a proof in `format` of the CNF of `problem`
/// in `encoding` and `mode`, checked by [`proof::check_proof`]. In [`FixedMode::Assume`] the
/// assumptions (fixed queens, blocked cells) are written into the CNF as unit clauses, since
/// a DRAT proof has no assumptions.
///
/// The proof is built in memory: the backtracker stops with [`Error::TooLarge`] once it
/// would take more than a quarter of `budget.max_memory` (LRAT conversion needs several
/// times the DRAT proof's size).
pub fn solve_certified(
    problem: &Problem,
    spec: EngineSpec,
    encoding: Encoding,
    mode: FixedMode,
    format: ProofFormat,
    budget: &Budget,
) -> Result<Certified, Error> {
    let start = Instant::now();
    // Proofs come from the complete engines: `auto` proves with the backtracker.
    let spec = match spec {
        EngineSpec::Auto { .. } => EngineSpec::Backtrack { threads: 0 },
        EngineSpec::Local { .. } => {
            return Err(Error::Unsupported(
                "field `proof`: the local engine proves nothing; ask backtrack, sat or auto \
                 for a proof"
                    .into(),
            ))
        }
        spec => spec,
    };
    super::complete_only(problem, spec)?;
    if budget.exhausted() {
        return Ok(Certified {
            answer: CertifiedAnswer::Interrupted,
            work: Work::default(),
        });
    }
    match (
        spec,
        super::check_sat_memory(problem, encoding, super::SatMemory::WithFormula, budget),
    ) {
        (_, Ok(())) => {}
        // The SAT engine's refusal advises the backtracker; here the backtracker needs the
        // CNF too, to refute it.
        (EngineSpec::Backtrack { .. }, Err(Error::TooLarge(_))) => {
            let limit = budget.max_memory.unwrap_or(0);
            return Err(Error::TooLarge(format!(
                "the CNF a proof would refute ({encoding} encoding) needs more than the memory \
                 limit of {} MB: raise the limit (--max-memory), or solve without a proof",
                limit >> 20
            )));
        }
        (_, Err(e)) => return Err(e),
    }
    let mut cnf = sat::encode_problem(problem, encoding, mode);
    if mode == FixedMode::Assume {
        let units: Vec<_> = cnf.map.assumptions().iter().map(|&(l, _)| l).collect();
        for l in units {
            cnf.formula.add_clause(&[l]);
        }
        cnf.stats.clauses = cnf.formula.len();
    }
    // The engines write DRAT; LRAT is derived from binary DRAT.
    let binary = format != ProofFormat::Drat;
    let mut work = Work::default();
    let (found, drat) = match spec {
        EngineSpec::Backtrack { threads } => {
            let vars = cnf.map.var_table();
            let style = if binary {
                DratStyle::Binary
            } else {
                DratStyle::Text
            };
            let max_bytes = budget.max_memory.unwrap_or_else(super::default_max_memory) / 4;
            let (refutation, stats) = refute(
                problem,
                &vars,
                style,
                max_bytes,
                &budget.backtrack_config(threads),
            );
            work.nodes = Some(stats.nodes);
            match refutation {
                Refutation::Sat(q) => (Some(q), Vec::new()),
                Refutation::Unsat(p) => (None, p.bytes),
                Refutation::Interrupted => {
                    work.time_ms = ms(start);
                    return Ok(Certified {
                        answer: CertifiedAnswer::Interrupted,
                        work,
                    });
                }
                Refutation::TooLarge(bytes) => {
                    return Err(Error::TooLarge(format!(
                        "the proof outgrew its share of the memory limit ({} MB written, \
                         limit {} MB): raise the limit (--max-memory), or solve without a \
                         proof",
                        bytes >> 20,
                        max_bytes >> 20
                    )))
                }
            }
        }
        EngineSpec::Race(_) => return Err(super::race_needs_a_caller()),
        EngineSpec::Local { .. } | EngineSpec::Auto { .. } => unreachable!("mapped above"),
        EngineSpec::Sat(_) => {
            let solve_start = Instant::now();
            let mut drat = Vec::new();
            let drat_format = if binary {
                ProofFormat::BinaryDrat
            } else {
                ProofFormat::Drat
            };
            let model = proof::solve_with_proof(&cnf.formula, drat_format, &mut drat)
                .map_err(|e| Error::Internal(format!("proof: {e}")))?;
            work.sat = Some(SatStats {
                solve_ms: ms(solve_start),
                solver_calls: 1,
                ..cnf.stats
            });
            let found = model.map(|model| {
                let set: HashSet<varisat::Lit> = model.into_iter().collect();
                cnf.map.decode(|l| set.contains(&l))
            });
            (found, drat)
        }
    };
    if let Some(q) = found {
        checked(problem, &q, spec.name())?;
        work.time_ms = ms(start);
        return Ok(Certified {
            answer: CertifiedAnswer::Sat(q),
            work,
        });
    }
    work.time_ms = ms(start);
    let rejected = |e: proof::ProofError| {
        Error::Internal(format!(
            "the {} engine's proof of unsatisfiability does not check: {e}",
            spec.name()
        ))
    };
    let convert_start = Instant::now();
    let (proof, trimmed) = if format == ProofFormat::Lrat {
        let mut lrat = Vec::new();
        let stats = proof::drat_to_lrat(&cnf.formula, &drat, true, &mut lrat).map_err(rejected)?;
        (lrat, stats.trimmed)
    } else {
        (drat, 0)
    };
    let convert_ms = if format == ProofFormat::Lrat {
        ms(convert_start)
    } else {
        0.0
    };
    let check_start = Instant::now();
    let stats = proof::check_proof(&cnf.formula, format, &proof).map_err(rejected)?;
    let check_ms = ms(check_start);
    Ok(Certified {
        answer: CertifiedAnswer::Unsat(Box::new(Certificate {
            cnf,
            proof,
            format,
            lemmas: stats.lemmas,
            trimmed,
            convert_ms,
            check_ms,
        })),
        work,
    })
}
