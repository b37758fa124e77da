//! Certified answers: a verified solution, or "no solution" with a proof of unsatisfiability
//! of the exact CNF `queens encode` writes, accepted by the built-in checker before anyone
//! sees it. Either engine can prove: varisat writes DRAT as it solves, the backtracker turns
//! its search tree into lemmas ([`crate::engine::backtrack::certify`]).

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use varisat::ExtendFormula;

use super::{checked, ms, Answer, Budget, EngineSpec, Work};
use crate::encode::amo::Encoding;
use crate::encode::cnf::FixedMode;
use crate::engine::backtrack::certify::{
    refute, refute_lrat, ClauseIds, DratStyle, LratOut, Refutation,
};
use crate::engine::sat::{self, Encoded, SatStats};
use crate::error::Error;
use crate::model::{Pos, Problem};
use crate::proof::lrat::LratPipe;
use crate::proof::{self, ProofFormat};

/// The certificate of an UNSAT answer.
pub struct Certificate {
    /// The CNF the proof refutes (its DIMACS form is what `queens encode` writes).
    pub cnf: Encoded,
    /// The proof, in `format` (empty when it is in `proof_file`).
    pub proof: Vec<u8>,
    /// Where the proof is when it was written to a file ([`ProofTarget::File`]).
    pub proof_file: Option<PathBuf>,
    /// Size of the proof in bytes.
    pub bytes: u64,
    /// The at-most-one encoding of the CNF (the backtracker's LRAT is written for
    /// pairwise clauses, whatever was asked).
    pub encoding: Encoding,
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
    /// The checker that accepted it: `built-in`, or `drat-trim` (an external solver's DRAT,
    /// where drat-trim is installed).
    pub checker: &'static str,
}

/// Where a proof goes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProofTarget {
    /// Into [`Certificate::proof`].
    #[default]
    Memory,
    /// Into this file, streamed as the backtracker writes LRAT and checked on its way there:
    /// memory does not bound the proof. Other proofs are built in memory and then written
    /// there.
    File(PathBuf),
}

/// Whether the backtracker writes LRAT with its own hints for this request: LRAT, from the
/// backtracker, for the CNF with fixed queens simplified away, with pairwise at-most-one
/// clauses (asked for, or `auto`, which the proof then overrides).
pub fn direct_lrat(
    spec: EngineSpec,
    encoding: Encoding,
    mode: FixedMode,
    format: ProofFormat,
) -> bool {
    matches!(spec, EngineSpec::Backtrack { .. })
        && matches!(format, ProofFormat::Lrat | ProofFormat::BinaryLrat)
        && mode == FixedMode::Simplify
        && matches!(encoding, Encoding::Auto | Encoding::Pairwise)
}

/// A certified answer: a verified solution, or "no solution" with a checked proof (never
/// [`Answer::GaveUp`]: the local engine proves nothing).
pub type CertifiedAnswer = Answer<Vec<Pos>, Box<Certificate>>;

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
    solve_certified_to(
        problem,
        spec,
        encoding,
        mode,
        format,
        budget,
        &ProofTarget::Memory,
    )
}

/// [`solve_certified`], the proof going to `target`.
///
/// The backtracker's LRAT ([`direct_lrat`]) carries its own hints and streams through the
/// hint-only checker as it is written: to the file, or to memory, bounded there by a quarter
/// of `budget.max_memory`. The other proofs are
/// built in memory (the SAT engine's DRAT, the backtracker's DRAT, LRAT converted from
/// DRAT), bounded the same way.
pub fn solve_certified_to(
    problem: &Problem,
    spec: EngineSpec,
    encoding: Encoding,
    mode: FixedMode,
    format: ProofFormat,
    budget: &Budget,
    target: &ProofTarget,
) -> Result<Certified, Error> {
    let start = Instant::now();
    // Proofs come from the complete engines: `auto` proves with the backtracker.
    let spec = match spec {
        EngineSpec::Auto { .. } => EngineSpec::Backtrack { threads: 0 },
        EngineSpec::Local { .. } => {
            return Err(Error::unsupported_at_field(
                "proof",
                "the local engine proves nothing; ask backtrack, sat or auto \
                 for a proof",
            ))
        }
        spec => spec,
    };
    super::complete_only(problem, spec)?;
    let direct = direct_lrat(spec, encoding, mode, format);
    let encoding = if direct { Encoding::Pairwise } else { encoding };
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
        (EngineSpec::Backtrack { .. }, Err(Error::TooLarge { .. })) => {
            let limit = budget.max_memory.unwrap_or(0);
            return Err(Error::too_large(format!(
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
    if direct {
        let vars = cnf.map.var_table();
        if let Some(ids) = ClauseIds::new(problem, &cnf.formula, &vars) {
            let threads = match spec {
                EngineSpec::Backtrack { threads } => threads,
                _ => 0,
            };
            return certify_lrat(
                problem, cnf, &vars, &ids, threads, budget, target, start, format,
            );
        }
    }
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
                &crate::engine::backtrack::Config::within(budget, threads),
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
                Refutation::Failed(message) => return Err(Error::internal(message)),
                Refutation::TooLarge(bytes) => {
                    return Err(Error::too_large(format!(
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
        EngineSpec::BacktrackRings { .. } => {
            return Err(Error::unsupported(
                "a proof comes from the backtracker without the ring prune: drop --rings".into(),
            ))
        }
        EngineSpec::Ext(x) => {
            if format == ProofFormat::BinaryDrat {
                return Err(Error::unsupported(
                    "an external solver's proof is checked as text DRAT: ask for drat (or \
                     lrat, converted from it)"
                        .into(),
                ));
            }
            if x.rings {
                super::ext::add_rings(problem, &mut cnf)?;
            }
            let run = super::ext::solve_proving(problem, x, &cnf, budget)?;
            work.sat = Some(run.stats);
            match run.answer {
                super::ext::ExtAnswer::Sat(q) => (Some(q), Vec::new()),
                super::ext::ExtAnswer::Unsat => (None, run.proof.unwrap_or_default()),
                super::ext::ExtAnswer::Unknown | super::ext::ExtAnswer::Interrupted => {
                    work.time_ms = ms(start);
                    return Ok(Certified {
                        answer: CertifiedAnswer::Interrupted,
                        work,
                    });
                }
            }
        }
        EngineSpec::Local { .. } | EngineSpec::Auto { .. } => unreachable!("mapped above"),
        EngineSpec::Sat(_) => {
            let solve_start = Instant::now();
            let mut drat = Vec::new();
            let drat_format = if binary {
                ProofFormat::BinaryDrat
            } else {
                ProofFormat::Drat
            };
            let model = crate::engine::sat::solve_with_proof(&cnf.formula, drat_format, &mut drat)
                .map_err(|e| Error::internal_from("proof", e))?;
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
        Error::internal(format!(
            "the {} engine's proof of unsatisfiability does not check: {e}",
            spec.name()
        ))
    };
    let convert_start = Instant::now();
    let lrat_format = matches!(format, ProofFormat::Lrat | ProofFormat::BinaryLrat);
    let (proof, trimmed) = if lrat_format {
        let mut lrat = Vec::new();
        let stats = proof::drat_to_lrat(
            &cnf.formula,
            &drat,
            // An external solver writes text DRAT.
            !matches!(spec, EngineSpec::Ext(_)),
            &mut lrat,
        )
        .map_err(rejected)?;
        if format == ProofFormat::BinaryLrat {
            let mut binary = Vec::new();
            proof::check_and_write(&cnf.formula, &lrat[..], false, &mut binary, false)
                .map_err(rejected)?;
            lrat = binary;
        }
        (lrat, stats.trimmed)
    } else {
        (drat, 0)
    };
    let convert_ms = if lrat_format { ms(convert_start) } else { 0.0 };
    let check_start = Instant::now();
    // An external solver's DRAT may use RAT steps, which the built-in checker refuses:
    // drat-trim checks it where it is installed.
    let outside = match spec {
        EngineSpec::Ext(_) if format == ProofFormat::Drat => {
            super::ext::check_with_drat_trim(&cnf, &proof, budget)
        }
        _ => None,
    };
    let stats = match outside {
        Some(Ok(())) => proof::ProofStats {
            // drat-trim accepted it (see `checker` below).
            lemmas: count_text_lemmas(&proof),
            ..proof::ProofStats::default()
        },
        Some(Err(why)) => {
            return Err(Error::internal(format!(
                "the {spec} engine's proof of unsatisfiability does not check: {why}"
            )))
        }
        None => proof::check_proof(&cnf.formula, format, &proof).map_err(rejected)?,
    };
    let check_ms = ms(check_start);
    let mut proof_file = None;
    if let ProofTarget::File(path) = target {
        std::fs::write(path, &proof).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
        proof_file = Some(path.clone());
    }
    let bytes = proof.len() as u64;
    Ok(Certified {
        answer: CertifiedAnswer::Unsat(Box::new(Certificate {
            cnf,
            proof: if proof_file.is_some() {
                Vec::new()
            } else {
                proof
            },
            proof_file,
            bytes,
            encoding,
            format,
            lemmas: stats.lemmas,
            trimmed,
            convert_ms,
            check_ms,
            checker: if outside.is_some() {
                "drat-trim"
            } else {
                "built-in"
            },
        })),
        work,
    })
}

/// Lemmas (added clauses) in a text DRAT proof: its lines that are not deletions or comments.
fn count_text_lemmas(proof: &[u8]) -> u64 {
    proof
        .split(|&b| b == b'\n')
        .filter(|l| {
            let l = l.trim_ascii_start();
            !l.is_empty() && !l.starts_with(b"d ") && !l.starts_with(b"c")
        })
        .count() as u64
}

/// The backtracker's LRAT with its own hints, checked as it is written: the search threads
/// hand binary LRAT to a pipe, and one consumer thread checks each step with the hint-only
/// checker and writes it to `target` (text LRAT, or binary for [`ProofFormat::BinaryLrat`]),
/// so the proof is read once, from memory, while the search goes on.
#[allow(clippy::too_many_arguments)]
fn certify_lrat(
    problem: &Problem,
    cnf: Encoded,
    vars: &[u32],
    ids: &ClauseIds,
    threads: usize,
    budget: &Budget,
    target: &ProofTarget,
    start: Instant,
    format: ProofFormat,
) -> Result<Certified, Error> {
    let mut work = Work::default();
    let config = crate::engine::backtrack::Config::within(budget, threads);
    let text = format == ProofFormat::Lrat;
    let io_error = |path: &PathBuf, e: std::io::Error| Error::Io {
        path: path.clone(),
        source: e,
    };
    let (mut out, max_bytes) = match target {
        ProofTarget::Memory => {
            // The search counts binary bytes; text is about three times as long.
            let share = budget.max_memory.unwrap_or_else(super::default_max_memory) / 4;
            (
                ProofOut::Memory(Vec::new()),
                if text { share / 3 } else { share },
            )
        }
        ProofTarget::File(path) => {
            let file = File::create(path).map_err(|e| io_error(path, e))?;
            (ProofOut::File(file), u64::MAX)
        }
    };
    let (pipe, mut reader) = LratPipe::new();
    let formula = &cnf.formula;
    let (refutation, stats, check, wait_ms) = std::thread::scope(|s| {
        let out = &mut out;
        let consumer = s.spawn(move || {
            let checked = proof::check_and_write(formula, &mut reader, true, out, text);
            reader.drain();
            checked
        });
        let (refutation, stats) = refute_lrat(
            problem,
            vars,
            ids,
            LratOut { sink: &pipe },
            max_bytes,
            &config,
        );
        pipe.close();
        let searched = Instant::now();
        let checked = consumer.join().expect("the proof checker does not panic");
        (refutation, stats, checked, ms(searched))
    });
    work.nodes = Some(stats.nodes);
    work.time_ms = ms(start);
    match refutation {
        Refutation::Sat(q) => {
            if let ProofTarget::File(path) = target {
                let _ = std::fs::remove_file(path);
            }
            checked(problem, &q, "backtrack")?;
            return Ok(Certified {
                answer: CertifiedAnswer::Sat(q),
                work,
            });
        }
        Refutation::Unsat(_) => {}
        Refutation::Interrupted => {
            return Ok(Certified {
                answer: CertifiedAnswer::Interrupted,
                work,
            })
        }
        Refutation::Failed(message) => return Err(Error::internal(message)),
        Refutation::TooLarge(bytes) => {
            return Err(Error::too_large(format!(
                "the proof outgrew its share of the memory limit ({} MB written, limit {} MB): \
                 raise the limit (--max-memory), write the proof to a file, or solve without \
                 a proof",
                bytes >> 20,
                max_bytes >> 20
            )))
        }
    }
    let (stats, bytes) = match check {
        Ok(checked) => checked,
        Err(proof::ProofError::Io(e)) => {
            return Err(match target {
                ProofTarget::File(path) => io_error(path, e),
                ProofTarget::Memory => Error::internal_from("writing the proof", e),
            })
        }
        Err(e) => {
            return Err(Error::internal_from(
                "the backtrack engine's proof of unsatisfiability does not check",
                e,
            ))
        }
    };
    let (proof, proof_file) = match out {
        ProofOut::Memory(bytes) => (bytes, None),
        ProofOut::File(_) => (Vec::new(), target_path(target)),
    };
    Ok(Certified {
        answer: CertifiedAnswer::Unsat(Box::new(Certificate {
            cnf,
            proof,
            proof_file,
            bytes,
            encoding: Encoding::Pairwise,
            format,
            lemmas: stats.lemmas,
            trimmed: 0,
            convert_ms: 0.0,
            check_ms: wait_ms,
            checker: "built-in",
        })),
        work,
    })
}

fn target_path(target: &ProofTarget) -> Option<PathBuf> {
    match target {
        ProofTarget::File(path) => Some(path.clone()),
        ProofTarget::Memory => None,
    }
}

/// Where the checked LRAT goes.
enum ProofOut {
    Memory(Vec<u8>),
    File(File),
}

impl Write for ProofOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            ProofOut::Memory(v) => v.write(buf),
            ProofOut::File(f) => f.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            ProofOut::Memory(v) => v.write_all(buf),
            ProofOut::File(f) => f.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            ProofOut::Memory(_) => Ok(()),
            ProofOut::File(f) => f.flush(),
        }
    }
}
