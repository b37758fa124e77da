//! Proving "no": the one home of certified answers. A verified solution, or "no solution"
//! with a proof of unsatisfiability of the exact CNF `queens encode` writes, accepted by the
//! built-in checker before anyone sees it. Every complete engine can prove: varisat writes
//! DRAT as it solves, an external solver writes DRAT (checked by drat-trim where it may use
//! RAT steps), the backtracker turns its search tree into lemmas or LRAT with its own hints
//! ([`crate::backtrack::certify`]); past [`queens_model::model::MAX_N`] the backtracker
//! refutes the core of the completion ([`prove_core`]).
//!
//! The operations call [`prove_no`] and [`prove_core`]; each answer carries the CNF it
//! refutes as DIMACS text ([`Certificate::cnf_text`], [`CoreRefutation::cnf`]).

use std::collections::HashSet;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use varisat::ExtendFormula;

use crate::answer::Answer;
use crate::backtrack::certify::{refute, refute_lrat, ClauseIds, DratStyle, LratOut, Refutation};
use crate::checked::checked;
use crate::cnf::FixedMode;
use crate::encode::amo::Encoding;
use crate::sat::{self, Encoded, SatStats};
use crate::spec::EngineSpec;
use crate::work::{ms, Work};
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::Budget;
use queens_proof::lrat::LratPipe;
use queens_proof::ProofFormat;

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
    spec.plain_backtracker_threads().is_some()
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
/// in `encoding` and `mode`, checked by [`queens_proof::check_proof`]. In [`FixedMode::Assume`] the
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
///
/// The steps: the engine that proves, the CNF (checked against the memory limit, then
/// built), the search that writes DRAT, the solution checked or the DRAT converted to the
/// format asked, the proof checked, and the proof stored.
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
    let spec = spec.proving()?;
    crate::memory::complete_only(problem, spec)?;
    let direct = direct_lrat(spec, encoding, mode, format);
    let encoding = if direct { Encoding::Pairwise } else { encoding };
    if budget.exhausted() {
        return Ok(Certified::stopped(Work::default()));
    }
    check_cnf_memory(problem, spec, encoding, budget)?;
    let mut cnf = encode(problem, encoding, mode);
    if direct {
        let vars = cnf.map.var_table();
        if let Some(ids) = ClauseIds::new(problem, &cnf.formula, &vars) {
            let threads = spec.plain_backtracker_threads().unwrap_or(0);
            return certify_lrat(
                problem, cnf, &vars, &ids, threads, budget, target, start, format,
            );
        }
    }
    let mut work = Work::default();
    let drat = match search(problem, spec, &mut cnf, format, budget, &mut work)? {
        Searched::Solution(q) => {
            checked(problem, &q, spec.name())?;
            work.time_ms = ms(start);
            return Ok(Certified {
                answer: CertifiedAnswer::Sat(q),
                work,
            });
        }
        Searched::Stopped => {
            work.time_ms = ms(start);
            return Ok(Certified::stopped(work));
        }
        Searched::Refuted(drat) => drat,
    };
    work.time_ms = ms(start);
    let converted = convert(&cnf, spec, format, drat)?;
    let check = check(&cnf, spec, format, &converted.proof, budget)?;
    let (proof, proof_file) = store(converted.proof, target)?;
    Ok(Certified {
        answer: CertifiedAnswer::Unsat(Box::new(Certificate {
            cnf,
            bytes: check.bytes,
            proof,
            proof_file,
            encoding,
            format,
            lemmas: check.lemmas,
            trimmed: converted.trimmed,
            convert_ms: converted.ms,
            check_ms: check.ms,
            checker: check.checker,
        })),
        work,
    })
}

impl Certified {
    /// No answer: the budget ran out, or an external solver gave up.
    fn stopped(work: Work) -> Certified {
        Certified {
            answer: CertifiedAnswer::Interrupted,
            work,
        }
    }
}

/// Refuses a CNF to refute over the memory limit. The SAT engine's refusal advises the
/// backtracker; here the backtracker needs the CNF too, to refute it.
fn check_cnf_memory(
    problem: &Problem,
    spec: EngineSpec,
    encoding: Encoding,
    budget: &Budget,
) -> Result<(), Error> {
    match (
        spec.plain_backtracker_threads(),
        super::check_sat_memory(problem, encoding, super::SatMemory::WithFormula, budget),
    ) {
        (_, Ok(())) => Ok(()),
        (Some(_), Err(Error::TooLarge { .. })) => {
            let limit = budget.max_memory.unwrap_or(0);
            Err(Error::too_large(format!(
                "the CNF a proof would refute ({encoding} encoding) needs more than the memory \
                 limit of {} MB: raise the limit (--max-memory), or solve without a proof",
                limit >> 20
            ))
            .about("proof"))
        }
        (_, Err(e)) => Err(e),
    }
}

/// The CNF the proof refutes. In [`FixedMode::Assume`] the assumptions (fixed queens, blocked
/// cells) are written into it as unit clauses, since a DRAT proof has no assumptions.
fn encode(problem: &Problem, encoding: Encoding, mode: FixedMode) -> Encoded {
    let mut cnf = sat::encode_problem(problem, encoding, mode);
    if mode == FixedMode::Assume {
        let units: Vec<_> = cnf.map.assumptions().iter().map(|&(l, _)| l).collect();
        for l in units {
            cnf.formula.add_clause(&[l]);
        }
        cnf.stats.clauses = cnf.formula.len();
    }
    cnf
}

/// What a proving search found.
enum Searched {
    /// A solution (not yet verified).
    Solution(Vec<Pos>),
    /// No solution: the engine's DRAT (binary unless text DRAT was asked for; an external
    /// solver's is text).
    Refuted(Vec<u8>),
    /// No answer (the budget ran out, or an external solver gave up).
    Stopped,
}

/// The search, by the engine `spec`, that writes DRAT as it goes: the backtracker's lemmas,
/// varisat's proof, or an external solver's. Its work goes into `work`.
fn search(
    problem: &Problem,
    spec: EngineSpec,
    cnf: &mut Encoded,
    format: ProofFormat,
    budget: &Budget,
    work: &mut Work,
) -> Result<Searched, Error> {
    // The engines write DRAT; LRAT is derived from binary DRAT.
    let binary = format != ProofFormat::Drat;
    if let Some(threads) = spec.plain_backtracker_threads() {
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
            &crate::backtrack::Config::within(budget, threads),
        );
        work.nodes = Some(stats.nodes);
        match refutation {
            Refutation::Sat(q) => Ok(Searched::Solution(q)),
            Refutation::Unsat(p) => Ok(Searched::Refuted(p.bytes)),
            Refutation::Interrupted => Ok(Searched::Stopped),
            Refutation::Failed(message) => Err(Error::internal(message)),
            Refutation::TooLarge(bytes) => Err(Error::too_large(format!(
                "the proof outgrew its share of the memory limit ({} MB written, \
                 limit {} MB): raise the limit (--max-memory), or solve without a \
                 proof",
                bytes >> 20,
                max_bytes >> 20
            ))
            .about("proof")),
        }
    } else if let Some(x) = spec.ext() {
        if format == ProofFormat::BinaryDrat {
            return Err(Error::unsupported(
                "an external solver's proof is checked as text DRAT: ask for drat (or \
                 lrat, converted from it)"
                    .into(),
            )
            .about("proof"));
        }
        if x.rings {
            super::ext::add_rings(problem, cnf)?;
        }
        let run = super::ext::solve_proving(problem, x, cnf, budget)?;
        work.sat = Some(run.stats);
        match run.answer {
            super::ext::ExtAnswer::Sat(q) => Ok(Searched::Solution(q)),
            super::ext::ExtAnswer::Unsat => Ok(Searched::Refuted(run.proof.unwrap_or_default())),
            super::ext::ExtAnswer::Unknown | super::ext::ExtAnswer::Interrupted => {
                Ok(Searched::Stopped)
            }
        }
    } else if spec.sat_encoding().is_some() {
        let solve_start = Instant::now();
        let mut drat = Vec::new();
        let drat_format = if binary {
            ProofFormat::BinaryDrat
        } else {
            ProofFormat::Drat
        };
        let model = crate::sat::solve_with_proof(&cnf.formula, drat_format, &mut drat)
            .map_err(|e| Error::internal_from("proof", e))?;
        work.sat = Some(SatStats {
            solve_ms: ms(solve_start),
            solver_calls: 1,
            ..cnf.stats
        });
        Ok(match model {
            Some(model) => {
                let set: HashSet<varisat::Lit> = model.into_iter().collect();
                Searched::Solution(cnf.map.decode(|l| set.contains(&l)))
            }
            None => Searched::Refuted(drat),
        })
    } else {
        Err(Error::internal(
            "the proof's engine is the backtracker, sat or ext",
        ))
    }
}

/// The error for a proof the checker (or the conversion) refused: a bug in the engine.
fn rejected(spec: EngineSpec) -> impl Fn(queens_proof::ProofError) -> Error {
    move |e| {
        Error::internal(format!(
            "the {} engine's proof of unsatisfiability does not check: {e}",
            spec.name()
        ))
    }
}

/// A proof in the format asked for.
struct Converted {
    proof: Vec<u8>,
    /// LRAT: lemmas left out because the refutation does not use them.
    trimmed: u64,
    /// Milliseconds the conversion took (0 for DRAT).
    ms: f64,
}

/// The engine's DRAT in the format asked for: kept for DRAT, turned into LRAT (text, then
/// binary for binary LRAT) otherwise.
fn convert(
    cnf: &Encoded,
    spec: EngineSpec,
    format: ProofFormat,
    drat: Vec<u8>,
) -> Result<Converted, Error> {
    let start = Instant::now();
    if !matches!(format, ProofFormat::Lrat | ProofFormat::BinaryLrat) {
        return Ok(Converted {
            proof: drat,
            trimmed: 0,
            ms: 0.0,
        });
    }
    let mut lrat = Vec::new();
    let stats = queens_proof::drat_to_lrat(
        &cnf.formula,
        &drat,
        // An external solver writes text DRAT.
        spec.ext().is_none(),
        &mut lrat,
    )
    .map_err(rejected(spec))?;
    if format == ProofFormat::BinaryLrat {
        let mut binary = Vec::new();
        queens_proof::check_and_write(&cnf.formula, &lrat[..], false, &mut binary, false)
            .map_err(rejected(spec))?;
        lrat = binary;
    }
    Ok(Converted {
        proof: lrat,
        trimmed: stats.trimmed,
        ms: ms(start),
    })
}

/// What the check of a proof found.
struct Checked {
    lemmas: u64,
    bytes: u64,
    ms: f64,
    checker: &'static str,
}

/// The proof checked against the CNF: by the built-in checker, or, for an external solver's
/// DRAT, which may use RAT steps the built-in checker refuses, by drat-trim where it is
/// installed.
fn check(
    cnf: &Encoded,
    spec: EngineSpec,
    format: ProofFormat,
    proof: &[u8],
    budget: &Budget,
) -> Result<Checked, Error> {
    let start = Instant::now();
    let outside = if spec.ext().is_some() && format == ProofFormat::Drat {
        super::ext::check_with_drat_trim(cnf, proof, budget)
    } else {
        None
    };
    let stats = match &outside {
        Some(Ok(())) => queens_proof::ProofStats {
            // drat-trim accepted it (see `checker` below).
            lemmas: count_text_lemmas(proof),
            ..queens_proof::ProofStats::default()
        },
        Some(Err(why)) => {
            return Err(Error::internal(format!(
                "the {spec} engine's proof of unsatisfiability does not check: {why}"
            )))
        }
        None => queens_proof::check_proof(&cnf.formula, format, proof).map_err(rejected(spec))?,
    };
    Ok(Checked {
        lemmas: stats.lemmas,
        bytes: proof.len() as u64,
        ms: ms(start),
        checker: if outside.is_some() {
            "drat-trim"
        } else {
            "built-in"
        },
    })
}

/// A checked proof where it was asked to go: kept in memory, or written to the target file
/// (and then not kept).
fn store(proof: Vec<u8>, target: &ProofTarget) -> Result<(Vec<u8>, Option<PathBuf>), Error> {
    match target {
        ProofTarget::Memory => Ok((proof, None)),
        ProofTarget::File(path) => {
            std::fs::write(path, &proof).map_err(|e| Error::Io {
                path: path.clone(),
                source: e,
            })?;
            Ok((Vec::new(), Some(path.clone())))
        }
    }
}

/// Solves `problem` with `spec` and, on UNSAT, proves it in `format` for the CNF `queens
/// encode` writes (fixed queens simplified away), the proof going to `target`: what `solve`
/// and `explain` ask with a proof.
pub fn prove_no(
    problem: &Problem,
    spec: EngineSpec,
    encoding: Encoding,
    format: ProofFormat,
    budget: &Budget,
    target: &ProofTarget,
) -> Result<Certified, Error> {
    solve_certified_to(
        problem,
        spec,
        encoding,
        FixedMode::Simplify,
        format,
        budget,
        target,
    )
}

impl Certificate {
    /// The CNF the proof refutes as DIMACS text, its header naming the problem, the encoding
    /// and the engine (`spec`) that proved.
    pub fn cnf_text(&self, problem: &Problem, spec: EngineSpec) -> Result<Vec<u8>, Error> {
        let header = vec![
            format!("queens CNF: {}", queens_model::report::summary(problem)),
            format!(
                "encoding {}; refuted by a {} proof from the {} engine",
                self.encoding,
                self.format,
                spec.name()
            ),
        ];
        let mut text = Vec::new();
        self.cnf
            .write_dimacs(&mut text, &header)
            .map_err(|e| Error::internal_from("writing the CNF", e))?;
        Ok(text)
    }
}

/// A checked refutation of the core of a completion, for a caller.
pub struct CoreRefutation {
    /// The proof: LRAT or DRAT text.
    pub proof: Vec<u8>,
    /// The core CNF it refutes as DIMACS text, whose comment lines map each variable to its
    /// board cell.
    pub cnf: Vec<u8>,
    /// Lemmas in the proof.
    pub lemmas: u64,
    /// Milliseconds the built-in checker took to accept it.
    pub check_ms: f64,
}

/// What [`prove_core`] found.
pub enum CoreProved {
    /// A solution, one column per row, verified.
    Sat(Vec<u32>),
    /// No solution: the reason, and the refutation (none when the fixed queens themselves
    /// break a rule: no core exists, and the verifier shows the broken rule directly).
    Unsat(String, Option<CoreRefutation>),
    /// The budget ran out.
    Interrupted,
}

/// Solves a classic problem past [`queens_model::model::MAX_N`] on the core of its completion
/// ([`crate::completion::prove`]), the backtracker refuting the core CNF when there is no
/// solution: LRAT or DRAT text (`format`), checked before it is returned.
pub fn prove_core(
    problem: &Problem,
    format: ProofFormat,
    budget: &Budget,
) -> Result<(CoreProved, Work), Error> {
    use crate::completion::{self, Proved};
    let lrat = format == ProofFormat::Lrat;
    let (proved, work) = completion::prove(problem, lrat, budget)?;
    let proved = match proved {
        Proved::Interrupted => CoreProved::Interrupted,
        Proved::Sat(cols) => {
            queens_model::verify::verify_columns(problem, &cols).map_err(|v| {
                Error::internal(format!(
                    "the backtrack engine returned a board that breaks a rule: {v}"
                ))
            })?;
            CoreProved::Sat(cols)
        }
        Proved::Unsat(why, None) => CoreProved::Unsat(why, None),
        Proved::Unsat(why, Some(proof)) => {
            let header = vec![
                format!("queens CNF: {}", queens_model::report::summary(problem)),
                format!(
                    "the core of the completion; refuted by a {format} proof from the \
                     backtrack engine"
                ),
            ];
            let mut cnf = Vec::new();
            completion::cnf::write_dimacs(&proof.core, &proof.formula, &header, &mut cnf)
                .map_err(|e| Error::internal_from("writing the core CNF", e))?;
            CoreProved::Unsat(
                why,
                Some(CoreRefutation {
                    proof: proof.proof,
                    cnf,
                    lemmas: proof.lemmas,
                    check_ms: proof.check_ms,
                }),
            )
        }
    };
    Ok((proved, work))
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
    let config = crate::backtrack::Config::within(budget, threads);
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
            let checked = queens_proof::check_and_write(formula, &mut reader, true, out, text);
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
            ))
            .about("proof"))
        }
    }
    let (stats, bytes) = match check {
        Ok(checked) => checked,
        Err(queens_proof::ProofError::Io(e)) => {
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
