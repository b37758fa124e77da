//! UNSAT proofs: varisat's DRAT output, LRAT replayed from it, and an independent RUP/LRAT checker.

use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::str::FromStr;

use varisat::{CnfFormula, Lit, Solver};

/// The proof formats [`solve_with_proof`] writes and [`check_proof`] reads.
///
/// Variables are numbered as in the formula's DIMACS form (varisat keeps user variable numbers in
/// its DRAT output), and LRAT clause ids `1..=m` are the formula's clauses in order, so a proof
/// is only meaningful next to the exact CNF it was written for, e.g. from
/// `varisat::dimacs::write_dimacs`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ProofFormat {
    /// Text DRAT, written by varisat: `1 -2 0` adds a lemma, `d 1 -2 0` deletes a clause.
    Drat,
    /// Binary DRAT, written by varisat: an `a` or `d` byte, then each literal as the LEB128
    /// varint of `2 * var + negative`, then a zero byte.
    BinaryDrat,
    /// Text LRAT: varisat 0.2.2 writes no LRAT, so its DRAT proof is replayed through this
    /// module's RUP checker, which records each lemma's unit-propagation chain as its hints.
    Lrat,
}

impl ProofFormat {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [ProofFormat; 3] = [
        ProofFormat::Drat,
        ProofFormat::BinaryDrat,
        ProofFormat::Lrat,
    ];
}

impl fmt::Display for ProofFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProofFormat::Drat => "drat",
            ProofFormat::BinaryDrat => "binary-drat",
            ProofFormat::Lrat => "lrat",
        })
    }
}

impl FromStr for ProofFormat {
    type Err = crate::Error;

    fn from_str(s: &str) -> Result<ProofFormat, crate::Error> {
        ProofFormat::ALL
            .into_iter()
            .find(|format| format.to_string() == s)
            .ok_or_else(|| {
                crate::Error::input(
                    "proof format",
                    format!("unknown format `{s}`, expected drat, binary-drat or lrat"),
                )
            })
    }
}

/// Why a proof could not be written or was not accepted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProofError {
    /// Writing the proof failed (varisat reports its own write errors through this too).
    #[error("writing the proof: {0}")]
    Io(#[from] io::Error),
    /// varisat stopped without an answer.
    #[error("SAT solver: {0}")]
    Solver(String),
    /// The proof is not well-formed DRAT or LRAT.
    #[error("{at}: {message}")]
    Malformed {
        /// Where: `line N` (text), `byte N` (binary) or `end of proof`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// The proof is well-formed but does not refute the formula.
    #[error("{at}: {message}")]
    Rejected {
        /// Where: `line N` (text), `byte N` (binary) or `end of proof`.
        at: String,
        /// Which step fails and why.
        message: String,
    },
}

/// What a checker (or the LRAT conversion) went through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProofStats {
    /// Lemmas checked, the final empty clause included.
    pub lemmas: u64,
    /// Clauses deleted.
    pub deletions: u64,
    /// DRAT deletions skipped: of a clause that is the reason of a top-level unit (drat-trim
    /// skips those too), of a clause not in the database, or after a top-level conflict.
    /// Skipping a deletion keeps a clause that is implied anyway, so RUP checking stays sound.
    pub ignored_deletions: u64,
    /// LRAT hint ids checked by [`check_lrat`] or written by [`drat_to_lrat`].
    pub hints: u64,
    /// [`drat_to_lrat`]: lemmas left out because the refutation does not use them.
    pub trimmed: u64,
}

/// Solves `formula` with varisat and writes a proof in `format` to `out`.
///
/// Returns the model (one literal per variable) if the formula is satisfiable, `None` if it is
/// not; only then is `out` a complete proof of unsatisfiability of exactly `formula`. On SAT a
/// DRAT `out` holds the lemmas varisat learned before finding the model and an LRAT `out` is
/// left empty.
///
/// There are no assumptions: varisat 0.2.2 panics when it has to write an assumption step into
/// a DRAT proof. Add assumed literals as unit clauses (and write them into the CNF) instead.
///
/// varisat writes no empty clause when it finds the formula unsatisfiable while loading it (an
/// empty clause or two complementary unit clauses in the input); the empty clause is appended
/// here in that case so that every proof ends with it. LRAT is produced by [`drat_to_lrat`]
/// from a binary DRAT proof kept in memory.
pub fn solve_with_proof(
    formula: &CnfFormula,
    format: ProofFormat,
    out: &mut dyn Write,
) -> Result<Option<Vec<Lit>>, ProofError> {
    match format {
        ProofFormat::Drat => run_varisat(formula, false, out),
        ProofFormat::BinaryDrat => run_varisat(formula, true, out),
        ProofFormat::Lrat => {
            let mut drat = Vec::new();
            let model = run_varisat(formula, true, &mut drat)?;
            if model.is_none() {
                drat_to_lrat(formula, &drat, true, out)?;
            }
            Ok(model)
        }
    }
}

fn run_varisat(
    formula: &CnfFormula,
    binary: bool,
    out: &mut dyn Write,
) -> Result<Option<Vec<Lit>>, ProofError> {
    let solver_error = |e: varisat::solver::SolverError| match e {
        varisat::solver::SolverError::ProofIoError { cause } => ProofError::Io(cause),
        other => ProofError::Solver(other.to_string()),
    };
    let mut solver = Solver::new();
    let varisat_format = if binary {
        varisat::ProofFormat::BinaryDrat
    } else {
        varisat::ProofFormat::Drat
    };
    solver.write_proof(&mut *out, varisat_format);
    solver.add_formula(formula);
    let sat = solver.solve().map_err(solver_error)?;
    // Flushes varisat's buffer; the DRAT writers ignore the `End` step it adds.
    solver.close_proof().map_err(solver_error)?;
    let model = if sat { solver.model() } else { None };
    drop(solver);
    if !sat && refuted_while_loading(formula) {
        out.write_all(if binary { b"a\0" } else { b"0\n" })?;
    }
    out.flush()?;
    Ok(model)
}

/// The two cases in which varisat's loader sets UNSAT without writing a proof step.
fn refuted_while_loading(formula: &CnfFormula) -> bool {
    let mut units = HashMap::new();
    for clause in formula.iter() {
        let mut lits = clause.to_vec();
        lits.sort_unstable();
        lits.dedup();
        match lits[..] {
            [] => return true,
            [lit] => {
                if units.get(&lit.var()) == Some(&!lit.is_positive()) {
                    return true;
                }
                units.insert(lit.var(), lit.is_positive());
            }
            _ => {}
        }
    }
    false
}

/// Checks a proof in any [`ProofFormat`] against `formula`, without using varisat's checker.
pub fn check_proof(
    formula: &CnfFormula,
    format: ProofFormat,
    proof: &[u8],
) -> Result<ProofStats, ProofError> {
    match format {
        ProofFormat::Drat => check_drat(formula, proof, false),
        ProofFormat::BinaryDrat => check_drat(formula, proof, true),
        ProofFormat::Lrat => check_lrat(formula, proof),
    }
}

/// Checks a DRAT proof (text, or binary if `binary`) by forward RUP checking.
///
/// Every added lemma must make unit propagation on the current clauses conflict once its
/// negation is assumed; deletions remove clauses; the proof must add the empty clause, and
/// anything after it is ignored. RAT lemmas are rejected: varisat 0.2.2 only writes RUP lemmas.
/// Propagation uses two watched literals; deleting a clause that is the reason of a top-level
/// unit is skipped (see [`ProofStats::ignored_deletions`]).
pub fn check_drat(
    formula: &CnfFormula,
    proof: &[u8],
    binary: bool,
) -> Result<ProofStats, ProofError> {
    replay_drat(formula, proof, binary, None)
}

/// Converts a DRAT proof (text, or binary if `binary`) of `formula` into text LRAT on `out`.
///
/// The DRAT proof is checked as by [`check_drat`]; for each lemma the clauses that took part in
/// the conflict (reasons of the propagated literals, top-level ones included, in propagation
/// order, then the conflicting clause) become its hints. Lemma ids continue after the formula's
/// `m` clauses; DRAT deletions become LRAT deletion lines. The result is trimmed backwards:
/// only lemmas the refutation uses are written ([`ProofStats::trimmed`] counts the others,
/// and `lemmas` and `hints` count what was written).
pub fn drat_to_lrat(
    formula: &CnfFormula,
    drat: &[u8],
    binary: bool,
    out: &mut dyn Write,
) -> Result<ProofStats, ProofError> {
    let mut writer = LratWriter::default();
    let mut stats = replay_drat(formula, drat, binary, Some(&mut writer))?;
    let (lemmas, hints) = writer.finish(formula.len() as u64, out)?;
    stats.trimmed = stats.lemmas - lemmas;
    stats.lemmas = lemmas;
    stats.hints = hints;
    Ok(stats)
}

/// Checks a text LRAT proof of `formula` strictly.
///
/// Clauses `1..=m` are the formula's clauses in order. For each lemma `id lits 0 hints 0` the
/// negated lemma is assumed and the hints are visited in order: each must name a live clause
/// that is unit (its one open literal is then set) or, as the last hint, falsified. Lemma ids
/// must increase, deletions (`id d ids 0`) must name live clauses, RAT (negative) hints are
/// rejected, a tautological lemma needs no hints, and the proof must add the empty clause.
pub fn check_lrat(formula: &CnfFormula, proof: &[u8]) -> Result<ProofStats, ProofError> {
    let mut clauses: HashMap<u64, Box<[u32]>> = HashMap::new();
    let mut vals = Values::default();
    for (index, clause) in formula.iter().enumerate() {
        let mut lits: Vec<u32> = clause.iter().map(|lit| lit.code() as u32).collect();
        lits.sort_unstable();
        lits.dedup();
        clauses.insert(index as u64 + 1, lits.into());
    }
    let mut last_id = formula.len() as u64;
    let mut stats = ProofStats::default();
    let mut tokens = Tokens {
        data: proof,
        pos: 0,
        line: 1,
    };
    let mut lits = Vec::new();
    let mut hints = Vec::new();
    loop {
        tokens.skip_space_and_comments();
        if tokens.at_end() {
            break;
        }
        let at = tokens.location();
        let id = tokens.number()?;
        if id <= 0 {
            return Err(tokens.malformed(format!("clause id {id} is not positive")));
        }
        let id = id as u64;
        tokens.skip_space();
        if tokens.peek() == Some(b'd') {
            tokens.pos += 1;
            loop {
                let victim = tokens.number()?;
                if victim == 0 {
                    break;
                }
                if victim < 0 || clauses.remove(&(victim as u64)).is_none() {
                    return Err(rejected(
                        at,
                        format!("deletes clause {victim}, which is not live"),
                    ));
                }
                stats.deletions += 1;
            }
            continue;
        }
        if id <= last_id {
            return Err(rejected(
                at,
                format!("lemma id {id} is not larger than the previous id {last_id}"),
            ));
        }
        lits.clear();
        loop {
            let lit = tokens.number()?;
            if lit == 0 {
                break;
            }
            lits.push(
                dimacs_code(lit)
                    .ok_or_else(|| tokens.malformed(format!("literal {lit} is out of range")))?,
            );
        }
        hints.clear();
        loop {
            let hint = tokens.number()?;
            if hint == 0 {
                break;
            }
            hints.push(hint);
        }
        lits.sort_unstable();
        lits.dedup();
        let tautology = lits.windows(2).any(|w| w[0] ^ 1 == w[1]);
        if !tautology {
            check_lrat_hints(&clauses, &mut vals, &lits, &hints).map_err(|message| {
                rejected(at.clone(), format!("lemma {id} {}: {message}", show(&lits)))
            })?;
        }
        stats.lemmas += 1;
        stats.hints += hints.len() as u64;
        clauses.insert(id, lits.clone().into());
        last_id = id;
        if lits.is_empty() {
            return Ok(stats);
        }
    }
    Err(rejected(
        "end of proof".into(),
        "the proof never adds the empty clause".into(),
    ))
}

fn check_lrat_hints(
    clauses: &HashMap<u64, Box<[u32]>>,
    vals: &mut Values,
    lemma: &[u32],
    hints: &[i64],
) -> Result<(), String> {
    for &lit in lemma {
        vals.set(lit ^ 1);
    }
    let result = (|| {
        for (k, &hint) in hints.iter().enumerate() {
            if hint < 0 {
                return Err(format!("hint {hint} is a RAT hint, which is not supported"));
            }
            let clause = clauses
                .get(&(hint as u64))
                .ok_or_else(|| format!("hint {hint} is not a live clause"))?;
            let mut open = None;
            for &lit in clause.iter() {
                match vals.get(lit) {
                    TRUE => return Err(format!("hint {hint} {} is satisfied", show(clause))),
                    FALSE => {}
                    _ if open.is_some() => {
                        return Err(format!("hint {hint} {} is not unit", show(clause)))
                    }
                    _ => open = Some(lit),
                }
            }
            match open {
                Some(lit) => vals.set(lit),
                None if k + 1 == hints.len() => return Ok(()),
                None => return Err(format!("hint {hint} conflicts before the last hint")),
            }
        }
        Err("the hints do not end in a conflict".into())
    })();
    vals.clear();
    result
}

const OPEN: u8 = 0;
const TRUE: u8 = 1;
const FALSE: u8 = 2;

/// Literal values for the LRAT checker, indexed by literal code, with an undo list.
#[derive(Default)]
struct Values {
    vals: Vec<u8>,
    set: Vec<u32>,
}

impl Values {
    fn get(&self, lit: u32) -> u8 {
        self.vals.get(lit as usize).copied().unwrap_or(OPEN)
    }

    fn set(&mut self, lit: u32) {
        let need = (lit as usize | 1) + 1;
        if self.vals.len() < need {
            self.vals.resize(need, OPEN);
        }
        self.vals[lit as usize] = TRUE;
        self.vals[(lit ^ 1) as usize] = FALSE;
        self.set.push(lit);
    }

    fn clear(&mut self) {
        for lit in self.set.drain(..) {
            self.vals[lit as usize] = OPEN;
            self.vals[(lit ^ 1) as usize] = OPEN;
        }
    }
}

/// Largest variable a proof may use; bounds the checker's per-variable arrays.
const MAX_VAR: i64 = 1 << 24;

/// Literal code (`2 * (var - 1) + negative`, varisat's `Lit::code`) of a DIMACS literal.
fn dimacs_code(lit: i64) -> Option<u32> {
    let var = lit.unsigned_abs() as i64;
    (1..=MAX_VAR)
        .contains(&var)
        .then(|| (2 * (var - 1) + i64::from(lit < 0)) as u32)
}

fn code_dimacs(code: u32) -> i64 {
    let var = i64::from(code >> 1) + 1;
    if code & 1 == 1 {
        -var
    } else {
        var
    }
}

fn show(lits: &[u32]) -> String {
    let parts: Vec<String> = lits.iter().map(|&l| code_dimacs(l).to_string()).collect();
    format!("[{}]", parts.join(" "))
}

fn rejected(at: String, message: String) -> ProofError {
    ProofError::Rejected { at, message }
}

/// Whitespace-separated integers (and `d`) of text DRAT and LRAT, with line numbers.
struct Tokens<'a> {
    data: &'a [u8],
    pos: usize,
    line: usize,
}

impl Tokens<'_> {
    fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn location(&self) -> String {
        format!("line {}", self.line)
    }

    fn malformed(&self, message: String) -> ProofError {
        ProofError::Malformed {
            at: self.location(),
            message,
        }
    }

    fn skip_space(&mut self) {
        while let Some(b) = self.peek() {
            if !b.is_ascii_whitespace() {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
    }

    /// Skips whitespace and `c` comment lines between steps.
    fn skip_space_and_comments(&mut self) {
        loop {
            self.skip_space();
            if self.peek() != Some(b'c') {
                return;
            }
            while let Some(b) = self.peek() {
                if b == b'\n' {
                    break;
                }
                self.pos += 1;
            }
        }
    }

    fn number(&mut self) -> Result<i64, ProofError> {
        self.skip_space();
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let start = self.pos;
        let mut value: i64 = 0;
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(b - b'0')))
                .ok_or_else(|| self.malformed("number too large".into()))?;
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.malformed(match self.peek() {
                None => "unexpected end of proof, expected a number".into(),
                Some(b) => format!("expected a number, found {:?}", char::from(b)),
            }));
        }
        Ok(if negative { -value } else { value })
    }
}

/// Reads DRAT steps, text or binary, as literal codes.
struct DratReader<'a> {
    tokens: Tokens<'a>,
    binary: bool,
}

impl DratReader<'_> {
    fn location(&self) -> String {
        if self.binary {
            format!("byte {}", self.tokens.pos)
        } else {
            self.tokens.location()
        }
    }

    /// Reads the next step into `lits`; `Some(true)` for a deletion, `None` at the end.
    fn next_step(&mut self, lits: &mut Vec<u32>) -> Result<Option<bool>, ProofError> {
        lits.clear();
        if self.binary {
            return self.next_binary(lits);
        }
        let t = &mut self.tokens;
        t.skip_space_and_comments();
        if t.at_end() {
            return Ok(None);
        }
        let delete = t.peek() == Some(b'd');
        if delete {
            t.pos += 1;
        }
        loop {
            let lit = t.number()?;
            if lit == 0 {
                return Ok(Some(delete));
            }
            let code = dimacs_code(lit)
                .ok_or_else(|| t.malformed(format!("literal {lit} is out of range")))?;
            lits.push(code);
        }
    }

    fn next_binary(&mut self, lits: &mut Vec<u32>) -> Result<Option<bool>, ProofError> {
        let t = &mut self.tokens;
        let delete = match t.peek() {
            None => return Ok(None),
            Some(b'a') => false,
            Some(b'd') => true,
            Some(b) => {
                return Err(ProofError::Malformed {
                    at: format!("byte {}", t.pos),
                    message: format!("expected 'a' or 'd', found byte {b:#04x}"),
                })
            }
        };
        t.pos += 1;
        loop {
            let start = t.pos;
            let mut value: u64 = 0;
            let mut shift = 0;
            loop {
                let b = t.peek().ok_or_else(|| ProofError::Malformed {
                    at: format!("byte {start}"),
                    message: "unexpected end of proof inside a step".into(),
                })?;
                t.pos += 1;
                value |= u64::from(b & 0x7f) << shift;
                if b & 0x80 == 0 {
                    break;
                }
                shift += 7;
                if shift > 35 {
                    return Err(ProofError::Malformed {
                        at: format!("byte {start}"),
                        message: "literal too large".into(),
                    });
                }
            }
            if value == 0 {
                return Ok(Some(delete));
            }
            // Binary DRAT stores 2 * var + negative, i.e. varisat's literal code + 2.
            if value < 2 || value > 2 * MAX_VAR as u64 + 1 {
                return Err(ProofError::Malformed {
                    at: format!("byte {start}"),
                    message: format!("literal code {value} is out of range"),
                });
            }
            lits.push((value - 2) as u32);
        }
    }
}

/// Collects the LRAT steps of a replay, then writes the ones the refutation uses.
///
/// Trimming is backwards, as drat-trim's: the empty clause is used, and so is every clause
/// a used lemma names as a hint; a lemma nobody uses is left out, with its deletion.
/// Consecutive deletions share one line.
#[derive(Default)]
struct LratWriter {
    /// Per lemma: id, then the ends of its literals and hints in `lits` and `hints`.
    lemmas: Vec<(u32, usize, usize)>,
    lits: Vec<u32>,
    hints: Vec<u32>,
    /// Deleted clause ids, each after the lemma count at the time: `(lemmas.len(), id)`.
    deletions: Vec<(usize, u32)>,
    pending_deletions: Vec<u32>,
}

impl LratWriter {
    fn lemma(&mut self, id: u32, lits: &[u32], hints: &[u32]) {
        for d in self.pending_deletions.drain(..) {
            self.deletions.push((self.lemmas.len(), d));
        }
        self.lits.extend_from_slice(lits);
        self.hints.extend_from_slice(hints);
        self.lemmas.push((id, self.lits.len(), self.hints.len()));
    }

    /// Writes the used lemmas and the deletions of used clauses; returns the lemmas written
    /// and their hints.
    fn finish(self, formula_clauses: u64, out: &mut dyn Write) -> io::Result<(u64, u64)> {
        // Lemma ids increase, so a binary search finds a lemma's index.
        let index = |id: u32| self.lemmas.binary_search_by_key(&id, |l| l.0).ok();
        let mut used = vec![false; self.lemmas.len()];
        if let Some(last) = used.last_mut() {
            *last = true;
        }
        for i in (0..self.lemmas.len()).rev() {
            if !used[i] {
                continue;
            }
            let start = if i == 0 { 0 } else { self.lemmas[i - 1].2 };
            for &h in &self.hints[start..self.lemmas[i].2] {
                if let Some(j) = index(h) {
                    used[j] = true;
                }
            }
        }
        let keep = |id: u32| u64::from(id) <= formula_clauses || index(id).is_some_and(|j| used[j]);
        let mut out = BufWriter::new(out);
        let (mut written, mut hints_written) = (0u64, 0u64);
        let mut last_id = formula_clauses;
        let mut deletions = self.deletions.iter().peekable();
        let mut line = String::new();
        for (i, &(id, lits_end, hints_end)) in self.lemmas.iter().enumerate() {
            line.clear();
            while let Some(&(_, d)) = deletions.next_if(|&&(at, _)| at <= i) {
                if keep(d) {
                    line.push_str(&format!(" {d}"));
                }
            }
            if !line.is_empty() {
                writeln!(out, "{last_id} d{line} 0")?;
            }
            if !used[i] {
                continue;
            }
            let lits_start = if i == 0 { 0 } else { self.lemmas[i - 1].1 };
            let hints_start = if i == 0 { 0 } else { self.lemmas[i - 1].2 };
            write!(out, "{id}")?;
            for &lit in &self.lits[lits_start..lits_end] {
                write!(out, " {}", code_dimacs(lit))?;
            }
            out.write_all(b" 0")?;
            for &hint in &self.hints[hints_start..hints_end] {
                write!(out, " {hint}")?;
            }
            out.write_all(b" 0\n")?;
            written += 1;
            hints_written += (hints_end - hints_start) as u64;
            last_id = u64::from(id);
        }
        out.flush()?;
        Ok((written, hints_written))
    }
}

fn replay_drat(
    formula: &CnfFormula,
    proof: &[u8],
    binary: bool,
    mut lrat: Option<&mut LratWriter>,
) -> Result<ProofStats, ProofError> {
    let mut db = Rup::new(formula);
    let mut reader = DratReader {
        tokens: Tokens {
            data: proof,
            pos: 0,
            line: 1,
        },
        binary,
    };
    let mut stats = ProofStats::default();
    let mut lits = Vec::new();
    let mut hints = Vec::new();
    loop {
        if !binary {
            reader.tokens.skip_space_and_comments();
        }
        let at = reader.location();
        let delete = match reader.next_step(&mut lits)? {
            None => break,
            Some(delete) => delete,
        };
        let tautology = db.normalize(&mut lits);
        if delete {
            stats.deletions += 1;
            match (!tautology).then(|| db.delete(&lits)).flatten() {
                Some(id) => {
                    if let Some(w) = lrat.as_deref_mut() {
                        w.pending_deletions.push(id);
                    }
                }
                None => stats.ignored_deletions += 1,
            }
            continue;
        }
        stats.lemmas += 1;
        if tautology {
            // Implied by anything and useless for propagation: not added.
            continue;
        }
        let Some(conflict) = db.find_conflict(&lits) else {
            db.backtrack();
            return Err(rejected(
                at,
                format!(
                    "lemma {} is not implied by unit propagation (RUP); RAT is not supported",
                    show(&lits)
                ),
            ));
        };
        if lrat.is_some() {
            db.analyze(&lits, conflict, &mut hints);
            stats.hints += hints.len() as u64;
        }
        db.backtrack();
        let id = db.add(&lits);
        if let Some(w) = lrat.as_deref_mut() {
            w.lemma(id, &lits, &hints);
        }
        if lits.is_empty() {
            return Ok(stats);
        }
    }
    Err(rejected(
        "end of proof".into(),
        "the proof never adds the empty clause".into(),
    ))
}

#[derive(Clone, Copy)]
struct Watch {
    /// Where the clause starts in the arena.
    offset: u32,
    /// Another literal of the clause: if it is true the clause needs no visit.
    blocker: u32,
}

/// Arena header bit of a deleted clause (the rest of the word is its length).
const DELETED: u32 = 1 << 31;
/// `offsets` entry of an id without a stored clause (id 0, tautologies).
const NO_CLAUSE: u32 = u32::MAX;

/// The clause database of the forward RUP checker.
///
/// Literals are varisat literal codes (`2 * var_index + negative`); clause ids are LRAT ids
/// (formula clauses `1..=m`, then lemmas), index 0 unused. Top-level ("root") assignments are
/// kept between lemmas and never undone, which is why deleting a root reason is skipped.
struct Rup {
    /// Clauses as `[id, length | DELETED, literals...]`; watches point here directly so that
    /// propagation touches one cache line per visited clause, not an id table first.
    arena: Vec<u32>,
    /// Per clause id: its offset in `arena`, or `NO_CLAUSE`.
    offsets: Vec<u32>,
    /// `watches[l]`: long clauses watching literal `l`, visited when `l` becomes false.
    watches: Vec<Vec<Watch>>,
    /// `binary_watches[l]`: `(other literal, id)` of the binary clauses containing `l`.
    binary_watches: Vec<Vec<(u32, u32)>>,
    /// Next trail position whose binary clauses are to be propagated.
    binary_head: usize,
    /// Per literal: OPEN, TRUE or FALSE.
    vals: Vec<u8>,
    /// Per variable: the clause that propagated it, 0 for an assumed lemma literal.
    reason: Vec<u32>,
    /// Per variable: its index in `trail`.
    trail_pos: Vec<u32>,
    trail: Vec<u32>,
    queue_head: usize,
    root_len: usize,
    /// A clause falsified by the root assignment, once there is one.
    root_conflict: Option<u32>,
    /// Clause ids by an order-independent hash of their literals, for deletions.
    by_hash: HashMap<u64, Vec<u32>>,
    /// Per literal scratch flags for normalising and matching clauses.
    marks: Vec<bool>,
    /// Per variable scratch flags for conflict analysis.
    seen: Vec<bool>,
}

fn lit_hash(lit: u32) -> u64 {
    // splitmix64 finaliser; summing it keeps the clause hash independent of literal order.
    let mut z = u64::from(lit).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn clause_hash(lits: &[u32]) -> u64 {
    lits.iter().fold(0, |h, &l| h.wrapping_add(lit_hash(l)))
}

fn clause_lits<'a>(arena: &'a [u32], offsets: &[u32], id: u32) -> &'a [u32] {
    let offset = offsets[id as usize];
    if offset == NO_CLAUSE {
        return &[];
    }
    let start = offset as usize + 2;
    &arena[start..start + (arena[start - 1] & !DELETED) as usize]
}

impl Rup {
    fn new(formula: &CnfFormula) -> Rup {
        let mut db = Rup {
            arena: Vec::new(),
            offsets: vec![NO_CLAUSE],
            watches: Vec::new(),
            binary_watches: Vec::new(),
            binary_head: 0,
            vals: Vec::new(),
            reason: Vec::new(),
            trail_pos: Vec::new(),
            trail: Vec::new(),
            queue_head: 0,
            root_len: 0,
            root_conflict: None,
            by_hash: HashMap::new(),
            marks: Vec::new(),
            seen: Vec::new(),
        };
        db.ensure_vars(formula.var_count());
        let mut lits = Vec::new();
        for clause in formula.iter() {
            lits.clear();
            lits.extend(clause.iter().map(|lit| lit.code() as u32));
            if db.normalize(&mut lits) {
                // A tautology keeps its id but can never propagate.
                db.offsets.push(NO_CLAUSE);
            } else {
                db.add(&lits);
            }
        }
        db
    }

    fn ensure_vars(&mut self, vars: usize) {
        if self.reason.len() >= vars {
            return;
        }
        self.watches.resize_with(2 * vars, Vec::new);
        self.binary_watches.resize_with(2 * vars, Vec::new);
        self.vals.resize(2 * vars, OPEN);
        self.marks.resize(2 * vars, false);
        self.reason.resize(vars, 0);
        self.trail_pos.resize(vars, 0);
        self.seen.resize(vars, false);
    }

    fn lits(&self, id: u32) -> &[u32] {
        clause_lits(&self.arena, &self.offsets, id)
    }

    fn val(&self, lit: u32) -> u8 {
        self.vals[lit as usize]
    }

    /// Removes duplicate literals; returns whether the clause is a tautology.
    fn normalize(&mut self, lits: &mut Vec<u32>) -> bool {
        let max = lits
            .iter()
            .map(|&l| (l >> 1) as usize + 1)
            .max()
            .unwrap_or(0);
        self.ensure_vars(max);
        let mut tautology = false;
        lits.retain(|&l| {
            tautology |= self.marks[(l ^ 1) as usize];
            !std::mem::replace(&mut self.marks[l as usize], true)
        });
        for &l in lits.iter() {
            self.marks[l as usize] = false;
        }
        tautology
    }

    fn assign(&mut self, lit: u32, reason: u32) {
        let var = (lit >> 1) as usize;
        self.vals[lit as usize] = TRUE;
        self.vals[(lit ^ 1) as usize] = FALSE;
        self.reason[var] = reason;
        self.trail_pos[var] = self.trail.len() as u32;
        self.trail.push(lit);
    }

    /// Adds a clause at the root level and propagates; returns its id.
    fn add(&mut self, lits: &[u32]) -> u32 {
        let id = self.offsets.len() as u32;
        let offset = self.arena.len() as u32;
        self.offsets.push(offset);
        self.arena.extend_from_slice(&[id, lits.len() as u32]);
        self.arena.extend_from_slice(lits);
        self.by_hash.entry(clause_hash(lits)).or_default().push(id);
        if self.root_conflict.is_some() {
            return id;
        }
        // Watch the two best literals: true, then open, then false.
        let start = offset as usize + 2;
        let rank = |db: &Rup, l: u32| match db.val(l) {
            TRUE => 2,
            OPEN => 1,
            _ => 0,
        };
        for slot in 0..lits.len().min(2) {
            let best = (slot..lits.len())
                .max_by_key(|&k| rank(self, self.arena[start + k]))
                .unwrap_or(slot);
            self.arena.swap(start + slot, start + best);
        }
        let c = &self.arena[start..start + lits.len()];
        match *c {
            [] => self.root_conflict = Some(id),
            [a] => match self.val(a) {
                // A unit clause is the simplest reason: switching to it lets the old reason be
                // deleted (varisat deletes clauses satisfied at the root right after this).
                TRUE => self.reason[(a >> 1) as usize] = id,
                OPEN => self.assign(a, id),
                _ => self.root_conflict = Some(id),
            },
            [a, b] => {
                self.binary_watches[a as usize].push((b, id));
                self.binary_watches[b as usize].push((a, id));
                match (self.val(a), self.val(b)) {
                    (FALSE, _) => self.root_conflict = Some(id),
                    (OPEN, FALSE) => self.assign(a, id),
                    _ => {}
                }
            }
            [a, b, ..] => {
                self.watches[a as usize].push(Watch { offset, blocker: b });
                self.watches[b as usize].push(Watch { offset, blocker: a });
                match (self.val(a), self.val(b)) {
                    (FALSE, _) => self.root_conflict = Some(id),
                    (OPEN, FALSE) => self.assign(a, id),
                    _ => {}
                }
            }
        }
        if self.root_conflict.is_none() {
            self.root_conflict = self.propagate();
        }
        self.root_len = self.trail.len();
        id
    }

    /// Deletes a clause with exactly these literals; `None` if there is none or it is skipped.
    fn delete(&mut self, lits: &[u32]) -> Option<u32> {
        if self.root_conflict.is_some() {
            return None;
        }
        let hash = clause_hash(lits);
        for &l in lits {
            self.marks[l as usize] = true;
        }
        let candidates = self.by_hash.get(&hash).map_or(&[][..], Vec::as_slice);
        let found = candidates.iter().position(|&id| {
            let c = self.lits(id);
            c.len() == lits.len()
                && c.iter().all(|&l| self.marks[l as usize])
                && !c
                    .iter()
                    .any(|&l| self.val(l) == TRUE && self.reason[(l >> 1) as usize] == id)
        });
        for &l in lits {
            self.marks[l as usize] = false;
        }
        let ids = self.by_hash.get_mut(&hash)?;
        let id = ids.swap_remove(found?);
        if ids.is_empty() {
            self.by_hash.remove(&hash);
        }
        // Watches of a deleted long clause are dropped lazily by `propagate`.
        self.arena[self.offsets[id as usize] as usize + 1] |= DELETED;
        if let [a, b] = *self.lits(id) {
            for lit in [a, b] {
                let list = &mut self.binary_watches[lit as usize];
                if let Some(k) = list.iter().position(|&(_, other_id)| other_id == id) {
                    list.swap_remove(k);
                }
            }
        }
        Some(id)
    }

    /// Unit propagation from the queue; returns a falsified clause.
    fn propagate(&mut self) -> Option<u32> {
        loop {
            // Binary clauses first (as drat-trim does): they are cheap and often make the
            // blockers of long clauses true before those are visited.
            while self.binary_head < self.trail.len() {
                let false_lit = self.trail[self.binary_head] ^ 1;
                self.binary_head += 1;
                for k in 0..self.binary_watches[false_lit as usize].len() {
                    let (other, id) = self.binary_watches[false_lit as usize][k];
                    match self.vals[other as usize] {
                        TRUE => {}
                        FALSE => return Some(id),
                        _ => self.assign(other, id),
                    }
                }
            }
            if self.queue_head == self.trail.len() {
                return None;
            }
            let false_lit = self.trail[self.queue_head] ^ 1;
            self.queue_head += 1;
            let mut watches = std::mem::take(&mut self.watches[false_lit as usize]);
            let (mut i, mut j) = (0, 0);
            let mut conflict = None;
            while i < watches.len() {
                let w = watches[i];
                i += 1;
                if self.vals[w.blocker as usize] == TRUE {
                    watches[j] = w;
                    j += 1;
                    continue;
                }
                let start = w.offset as usize + 2;
                let header = self.arena[start - 1];
                if header & DELETED != 0 {
                    continue;
                }
                let id = self.arena[start - 2];
                let lits = &mut self.arena[start..start + header as usize];
                if lits[0] == false_lit {
                    lits.swap(0, 1);
                }
                let first = lits[0];
                let kept = Watch {
                    offset: w.offset,
                    blocker: first,
                };
                if self.vals[first as usize] == TRUE {
                    watches[j] = kept;
                    j += 1;
                    continue;
                }
                if let Some(k) = (2..lits.len()).find(|&k| self.vals[lits[k] as usize] != FALSE) {
                    lits.swap(1, k);
                    self.watches[lits[1] as usize].push(kept);
                    continue;
                }
                watches[j] = kept;
                j += 1;
                if self.vals[first as usize] == FALSE {
                    conflict = Some(id);
                    while i < watches.len() {
                        watches[j] = watches[i];
                        j += 1;
                        i += 1;
                    }
                } else {
                    self.assign(first, id);
                }
            }
            watches.truncate(j);
            self.watches[false_lit as usize] = watches;
            if conflict.is_some() {
                return conflict;
            }
        }
    }

    /// Assumes the negated lemma and returns the clause that conflicts, if unit propagation
    /// finds one. Call [`Rup::backtrack`] afterwards.
    fn find_conflict(&mut self, lemma: &[u32]) -> Option<u32> {
        // A lemma literal true at the root conflicts with its own reason. Taking the earliest
        // one keeps the other true lemma literals out of the hint chain, where assuming them
        // false would contradict the root assignment the chain relies on.
        let earliest_true = lemma
            .iter()
            .filter(|&&l| self.val(l) == TRUE)
            .min_by_key(|&&l| self.trail_pos[(l >> 1) as usize]);
        if let Some(&l) = earliest_true {
            return Some(self.reason[(l >> 1) as usize]);
        }
        if self.root_conflict.is_some() {
            return self.root_conflict;
        }
        for &l in lemma {
            if self.val(l) == OPEN {
                self.assign(l ^ 1, 0);
            }
        }
        self.propagate()
    }

    /// Collects into `hints` the reasons of the literals behind `conflict`, in propagation
    /// order, then `conflict`: an LRAT hint list for `lemma`. Lemma variables count as assumed.
    fn analyze(&mut self, lemma: &[u32], conflict: u32, hints: &mut Vec<u32>) {
        hints.clear();
        let mut touched: Vec<usize> = Vec::new();
        for &l in lemma {
            let var = (l >> 1) as usize;
            if !self.seen[var] {
                self.seen[var] = true;
                touched.push(var);
            }
        }
        let mut heap = BinaryHeap::new();
        let mut clause = conflict;
        loop {
            for &l in clause_lits(&self.arena, &self.offsets, clause) {
                let var = (l >> 1) as usize;
                if !self.seen[var] {
                    self.seen[var] = true;
                    touched.push(var);
                    heap.push(self.trail_pos[var]);
                }
            }
            let Some(pos) = heap.pop() else { break };
            clause = self.reason[(self.trail[pos as usize] >> 1) as usize];
            hints.push(clause);
        }
        hints.reverse();
        hints.push(conflict);
        for var in touched {
            self.seen[var] = false;
        }
    }

    fn backtrack(&mut self) {
        for &lit in &self.trail[self.root_len..] {
            self.vals[lit as usize] = OPEN;
            self.vals[(lit ^ 1) as usize] = OPEN;
        }
        self.trail.truncate(self.root_len);
        self.queue_head = self.queue_head.min(self.root_len);
        self.binary_head = self.binary_head.min(self.root_len);
    }
}
