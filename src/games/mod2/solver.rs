//! One SAT call with a certificate: a model, or UNSAT with an LRAT proof that the crate's own
//! checker ([`crate::proof::check_lrat`]) accepts before anyone sees the answer.
//!
//! varisat cannot be interrupted, so under a deadline the call runs in a child process of
//! the `queens` executable (`queens mod2 sat-child`, hidden), killed when the deadline
//! passes: the formula goes to it as DIMACS on stdin, the model comes back on stdout and the
//! proof as a file. The parent checks the proof against its own copy of the formula.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use varisat::{CnfFormula, Lit};

use crate::error::Error;
use crate::proof::{self, ProofFormat};

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

fn internal(what: &str) -> impl Fn(proof::ProofError) -> Error + '_ {
    move |e| Error::internal(format!("mod2 {what}: {e}"))
}

/// Solves `formula`, in a child of `exe` when a deadline is given (and `exe` is), here
/// otherwise. Every UNSAT answer carries an LRAT proof checked here.
pub fn solve(
    formula: &CnfFormula,
    deadline: Option<Instant>,
    exe: Option<&Path>,
) -> Result<Outcome, Error> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Ok(Outcome::Timeout);
    }
    let (model, lrat) = match (deadline, exe) {
        (Some(deadline), Some(exe)) => match in_child(formula, deadline, exe)? {
            Some(answer) => answer,
            None => return Ok(Outcome::Timeout),
        },
        _ => {
            let mut lrat = Vec::new();
            let model = crate::engine::sat::solve_with_proof(formula, ProofFormat::Lrat, &mut lrat)
                .map_err(internal("SAT call"))?;
            (model, lrat)
        }
    };
    if let Some(model) = model {
        return Ok(Outcome::Sat(model));
    }
    let start = Instant::now();
    let stats = proof::check_lrat(formula, &lrat).map_err(internal("proof check"))?;
    Ok(Outcome::Unsat(Proof {
        lemmas: stats.lemmas,
        check_ms: crate::engine::ms(start),
        lrat,
    }))
}

type Answer = (Option<Vec<Lit>>, Vec<u8>);

fn in_child(formula: &CnfFormula, deadline: Instant, exe: &Path) -> Result<Option<Answer>, Error> {
    let dir = crate::child::temp_dir("queens-mod2")?;
    let proof_path = dir.path().join("proof.lrat");
    let mut cnf = Vec::new();
    varisat::dimacs::write_dimacs(&mut cnf, formula).map_err(|e| Error::Io {
        path: "<cnf>".into(),
        source: e,
    })?;
    let mut command = Command::new(exe);
    command
        .args(["mod2", "sat-child", "--proof"])
        .arg(&proof_path);
    let exit = crate::child::run(command, &cnf, Some(deadline), &|| false, &|_| {});
    match exit? {
        crate::child::Exit::Finished {
            status,
            stdout,
            stderr,
        } => {
            if !status.success() {
                return Err(Error::internal(format!(
                    "the SAT child process failed: {}",
                    crate::child::last_message(&stderr)
                )));
            }
            let line = stdout.trim();
            if line == "UNSAT" {
                let lrat = std::fs::read(&proof_path).map_err(|e| Error::Io {
                    path: proof_path.clone(),
                    source: e,
                })?;
                return Ok(Some((None, lrat)));
            }
            let model = line
                .strip_prefix("SAT")
                .ok_or_else(|| Error::internal(format!("the SAT child said `{line}`")))?
                .split_whitespace()
                .map(|t| t.parse::<isize>().map(Lit::from_dimacs))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| Error::internal_from("the SAT child's model", e))?;
            Ok(Some((Some(model), Vec::new())))
        }
        _ => Ok(None),
    }
}

/// The child's side: DIMACS on `input`, `SAT lits…` or `UNSAT` on `out`, the LRAT proof of
/// an UNSAT answer written to `proof_path`. Returns the exit code.
pub fn child_main(input: impl std::io::Read, out: &mut impl Write, proof_path: &Path) -> u8 {
    crate::child::die_with_parent();
    let formula = match varisat::dimacs::DimacsParser::parse(input) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("queens: mod2 sat-child: the CNF does not parse: {e}");
            return 3;
        }
    };
    let mut lrat = Vec::new();
    match crate::engine::sat::solve_with_proof(&formula, ProofFormat::Lrat, &mut lrat) {
        Ok(Some(model)) => {
            let text: Vec<String> = model.iter().map(|l| l.to_dimacs().to_string()).collect();
            let _ = writeln!(out, "SAT {}", text.join(" "));
            0
        }
        Ok(None) => match std::fs::write(proof_path, &lrat) {
            Ok(()) => {
                let _ = writeln!(out, "UNSAT");
                0
            }
            Err(e) => {
                eprintln!("queens: mod2 sat-child: {}: {e}", proof_path.display());
                3
            }
        },
        Err(e) => {
            eprintln!("queens: mod2 sat-child: {e}");
            3
        }
    }
}
