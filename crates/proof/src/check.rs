//! [`check_proof`], which hands a proof to its format's checker, and the LRAT checker that
//! only follows hints: each lemma's hints are visited once, in order, against the negated
//! lemma (no search, no watches), so checking takes time linear in the proof. The proof is read as a stream (a file of any size, a socket) and only live clauses
//! are kept: memory is the formula plus the lemmas not yet deleted.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use queens_model::hash::FastMap;
use varisat_formula::CnfFormula;

use super::drat::check_drat;
use super::lrat::put_varint;
use super::{dimacs_code, rejected, show, ProofError, ProofFormat, ProofStats, FALSE, OPEN, TRUE};

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
        ProofFormat::BinaryLrat => check_lrat_binary_reader(formula, proof),
    }
}

/// Checks a text LRAT proof of `formula` held in memory; see [`check_lrat_reader`].
pub fn check_lrat(formula: &CnfFormula, proof: &[u8]) -> Result<ProofStats, ProofError> {
    check_lrat_reader(formula, proof)
}

/// Checks the text LRAT proof in the file at `path`, streaming; see [`check_lrat_reader`].
pub fn check_lrat_file(formula: &CnfFormula, path: &Path) -> Result<ProofStats, ProofError> {
    let file = File::open(path)?;
    check_lrat_reader(formula, file)
}

/// Checks the binary LRAT proof in the file at `path`, streaming; see
/// [`check_lrat_binary_reader`].
pub fn check_lrat_binary_file(formula: &CnfFormula, path: &Path) -> Result<ProofStats, ProofError> {
    let file = File::open(path)?;
    check_lrat_binary_reader(formula, file)
}

/// Checks a text LRAT proof of `formula` strictly, reading it as a stream.
///
/// Clauses `1..=m` are the formula's clauses in order. For each lemma `id lits 0 hints 0` the
/// negated lemma is assumed and the hints are visited in order: each must name a live clause
/// that is unit (its one open literal is then set) or, as the last hint, falsified; a hint
/// that is already satisfied, or that conflicts before the last, is an error. A lemma's id
/// must not be a live clause's (ids need not increase, and the id of a deleted clause may be
/// used again, as in `lrat-check` and `cake_lpr`), deletions (`id d ids 0`) must name live
/// clauses, RAT (negative) hints are rejected, a tautological lemma needs no hints, and the
/// proof must add the empty clause (what follows it is not read). Errors name the line and
/// the lemma.
pub fn check_lrat_reader(formula: &CnfFormula, proof: impl Read) -> Result<ProofStats, ProofError> {
    check_steps(formula, Input::new(proof), false, None).map(|(stats, _)| stats)
}

/// Checks a binary LRAT proof of `formula` as [`check_lrat_reader`] checks text: each step
/// an `a` (a lemma: its id, literals, 0, hints, 0) or a `d` (ids, 0), every number a LEB128
/// varint of `2 * |x| + (x < 0)` (the format CaDiCaL writes and `cake_lpr` reads). Errors
/// name the byte offset and the lemma.
pub fn check_lrat_binary_reader(
    formula: &CnfFormula,
    proof: impl Read,
) -> Result<ProofStats, ProofError> {
    check_steps(formula, Input::new(proof), true, None).map(|(stats, _)| stats)
}

/// Checks an LRAT proof (binary if `binary`, else text) as it streams in and writes every
/// step to `out` as it is read, as text LRAT (`text`) or binary, up to the empty clause;
/// returns the bytes written with the stats. The writer of the proof and its checker then
/// share one pass over it: `out` gets exactly the steps the checker read.
pub fn check_and_write(
    formula: &CnfFormula,
    proof: impl Read,
    binary: bool,
    out: &mut dyn Write,
    text: bool,
) -> Result<(ProofStats, u64), ProofError> {
    let m = formula.len() as u64;
    let mut echo = Echo {
        out,
        buf: Vec::with_capacity(ECHO_BYTES + 4096),
        text,
        last: m,
        written: 0,
        m,
        next: m + 1,
        dense: Vec::new(),
        sparse: FastMap::default(),
    };
    let (stats, _) = check_steps(formula, Input::new(proof), binary, Some(&mut echo))?;
    echo.flush()?;
    echo.out.flush()?;
    Ok((stats, echo.written))
}

/// Steps written back out by [`check_and_write`], buffered.
///
/// Lemma ids are renumbered `m + 1, m + 2, …` in the order of the steps, the hints and
/// deletions following, while the checker reads the ids as they came (a writer may reuse
/// the ids of deleted lemmas): both outside checkers want ids that increase through the
/// file. `lrat-check` compacts its clause table in place in id order (reused ids corrupt
/// it), and `cake_lpr` took minutes instead of seconds on a proof with reused ids.
struct Echo<'a> {
    out: &'a mut dyn Write,
    buf: Vec<u8>,
    text: bool,
    /// The last lemma id written (text deletion lines start with it).
    last: u64,
    written: u64,
    /// Clauses in the formula, the next id, and each live lemma's new id by its id in the
    /// input (`dense` up to [`DENSE_IDS`] above `m`).
    m: u64,
    next: u64,
    dense: Vec<u64>,
    sparse: FastMap<u64, u64>,
}

const ECHO_BYTES: usize = 1 << 20;

impl Echo<'_> {
    /// The new id of input id `id` (formula ids stay).
    #[inline]
    fn renamed(&self, id: u64) -> u64 {
        let k = id.wrapping_sub(self.m + 1);
        if id <= self.m {
            id
        } else if k < DENSE_IDS {
            self.dense.get(k as usize).copied().unwrap_or(0)
        } else {
            self.sparse.get(&id).copied().unwrap_or(0)
        }
    }

    fn lemma(&mut self, id: u64, lits: &[u32], hints: &[u64]) -> io::Result<()> {
        let new = self.next;
        self.next += 1;
        if self.text {
            let b = &mut self.buf;
            put_decimal(b, new);
            for &l in lits {
                b.push(b' ');
                if l & 1 == 1 {
                    b.push(b'-');
                }
                put_decimal(b, u64::from(l >> 1) + 1);
            }
            b.extend_from_slice(b" 0");
            for &h in hints {
                let h = self.renamed(h);
                self.buf.push(b' ');
                put_decimal(&mut self.buf, h);
            }
            self.buf.extend_from_slice(b" 0\n");
        } else {
            let b = &mut self.buf;
            b.push(b'a');
            put_varint(b, 2 * new);
            for &l in lits {
                put_varint(b, u64::from(l) + 2);
            }
            b.push(0);
            for &h in hints {
                let h = self.renamed(h);
                put_varint(&mut self.buf, 2 * h);
            }
            self.buf.push(0);
        }
        let k = id.wrapping_sub(self.m + 1);
        if k < DENSE_IDS {
            let k = k as usize;
            if self.dense.len() <= k {
                self.dense.resize((k + 1).max(2 * self.dense.len()), 0);
            }
            self.dense[k] = new;
        } else {
            self.sparse.insert(id, new);
        }
        self.last = new;
        self.maybe_flush()
    }

    fn deletion(&mut self, ids: &[u64]) -> io::Result<()> {
        if self.text {
            put_decimal(&mut self.buf, self.last);
            self.buf.extend_from_slice(b" d");
            for &id in ids {
                let id = self.renamed(id);
                self.buf.push(b' ');
                put_decimal(&mut self.buf, id);
            }
            self.buf.extend_from_slice(b" 0\n");
        } else {
            self.buf.push(b'd');
            for &id in ids {
                let id = self.renamed(id);
                put_varint(&mut self.buf, 2 * id);
            }
            self.buf.push(0);
        }
        self.maybe_flush()
    }

    #[inline]
    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= ECHO_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.written += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }
}

/// Appends `x` in decimal, two digits a step.
#[inline]
fn put_decimal(out: &mut Vec<u8>, mut x: u64) {
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    while x >= 100 {
        let k = (x % 100) as usize * 2;
        x /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[k..k + 2]);
    }
    if x >= 10 {
        let k = x as usize * 2;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[k..k + 2]);
    } else {
        i -= 1;
        buf[i] = b'0' + x as u8;
    }
    out.extend_from_slice(&buf[i..]);
}

/// The checking loop over text or binary steps, each step written to `echo` (if any)
/// before it is checked.
fn check_steps<R: Read>(
    formula: &CnfFormula,
    mut input: Input<R>,
    binary: bool,
    mut echo: Option<&mut Echo>,
) -> Result<(ProofStats, ()), ProofError> {
    let mut db = Db::new(formula);
    let mut stats = ProofStats::default();
    let mut lits: Vec<u32> = Vec::new();
    let mut hints: Vec<u64> = Vec::new();
    let mut victims: Vec<u64> = Vec::new();
    let mut vals = Values::default();
    loop {
        let step = if binary {
            input.binary_step(&mut lits, &mut hints, &mut victims)?
        } else {
            input.text_step(&mut lits, &mut hints, &mut victims)?
        };
        let Some((id, deletion)) = step else {
            break;
        };
        let at = || input.location_of_step();
        if deletion {
            if let Some(e) = echo.as_deref_mut() {
                e.deletion(&victims)?;
            }
            for &victim in &victims {
                if !db.delete(victim) {
                    return Err(rejected(
                        at(),
                        format!("deletes clause {victim}, which is not live"),
                    ));
                }
                stats.deletions += 1;
            }
            continue;
        }
        if let Some(e) = echo.as_deref_mut() {
            e.lemma(id, &lits, &hints)?;
        }
        if let Some(&rat) = hints.iter().find(|&&h| h & RAT != 0) {
            return Err(rejected(
                at(),
                format!(
                    "lemma {id} {}: hint -{} is a RAT hint, which is not supported",
                    show(&lits),
                    rat & !RAT
                ),
            ));
        }
        if db.is_live(id) {
            return Err(rejected(
                at(),
                format!("lemma {id} reuses the id of a live clause"),
            ));
        }
        if id <= db.formula_clauses() {
            return Err(rejected(
                at(),
                format!("lemma {id} takes the id of a formula clause"),
            ));
        }
        lits.sort_unstable();
        lits.dedup();
        let tautology = lits.windows(2).any(|w| w[0] ^ 1 == w[1]);
        if !tautology {
            follow_hints(&db, &mut vals, &lits, &hints).map_err(|message| {
                rejected(at(), format!("lemma {id} {}: {message}", show(&lits)))
            })?;
        }
        stats.lemmas += 1;
        stats.hints += hints.len() as u64;
        if lits.is_empty() {
            return Ok((stats, ()));
        }
        db.add(id, &lits);
    }
    Err(rejected(
        "end of proof".into(),
        "the proof never adds the empty clause".into(),
    ))
}

/// A RAT (negative) hint as the step readers return it: its id with this bit set.
const RAT: u64 = 1 << 63;

/// Assumes the negation of `lemma` and visits `hints`: each unit, the last falsified.
fn follow_hints(db: &Db, vals: &mut Values, lemma: &[u32], hints: &[u64]) -> Result<(), String> {
    for &lit in lemma {
        vals.set(lit ^ 1);
    }
    let result = (|| {
        for (k, &hint) in hints.iter().enumerate() {
            let clause = db
                .get(hint)
                .ok_or_else(|| format!("hint {hint} is not a live clause"))?;
            let mut open = None;
            for &lit in clause {
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

/// Literal values, indexed by literal code, with an undo list.
#[derive(Default)]
struct Values {
    vals: Vec<u8>,
    set: Vec<u32>,
}

impl Values {
    #[inline]
    fn get(&self, lit: u32) -> u8 {
        self.vals.get(lit as usize).copied().unwrap_or(OPEN)
    }

    #[inline]
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

/// Live clauses: the formula's by id in an array (a deleted one is marked), lemmas by id
/// into an arena that is compacted once it is mostly garbage. Lemma ids up to
/// [`DENSE_IDS`] above the formula's are looked up in an array (writers that reuse the ids
/// of deleted lemmas keep them there), larger ones in a map.
struct Db {
    formula: Vec<u32>,
    /// `formula_at[id]`: start and end of formula clause `id` in `formula` (index 0 unused).
    formula_at: Vec<(u32, u32)>,
    formula_live: Vec<bool>,
    /// `dense[id - m - 1]`: the span of a live lemma, or [`DEAD`].
    dense: Vec<(usize, usize)>,
    lemmas: FastMap<u64, (usize, usize)>,
    arena: Vec<u32>,
    /// The arena [`Db::compact`] copies into next.
    spare: Vec<u32>,
    garbage: usize,
}

/// Lemma ids (above the formula's) kept in [`Db::dense`].
const DENSE_IDS: u64 = 1 << 22;
const DEAD: (usize, usize) = (usize::MAX, 0);

impl Db {
    fn new(formula: &CnfFormula) -> Db {
        let mut db = Db {
            formula: Vec::new(),
            formula_at: vec![(0, 0)],
            formula_live: vec![false],
            dense: Vec::new(),
            lemmas: FastMap::default(),
            arena: Vec::new(),
            spare: Vec::new(),
            garbage: 0,
        };
        let mut lits: Vec<u32> = Vec::new();
        for clause in formula.iter() {
            lits.clear();
            lits.extend(clause.iter().map(|lit| lit.code() as u32));
            lits.sort_unstable();
            lits.dedup();
            let start = db.formula.len() as u32;
            db.formula.extend_from_slice(&lits);
            db.formula_at.push((start, db.formula.len() as u32));
            db.formula_live.push(true);
        }
        db
    }

    fn formula_clauses(&self) -> u64 {
        self.formula_at.len() as u64 - 1
    }

    #[inline]
    fn get(&self, id: u64) -> Option<&[u32]> {
        if id <= self.formula_clauses() {
            let i = id as usize;
            let (start, end) = self.formula_at[i];
            return (i > 0 && self.formula_live[i])
                .then(|| &self.formula[start as usize..end as usize]);
        }
        let k = id.wrapping_sub(self.formula_clauses() + 1);
        let &(start, end) = if k < DENSE_IDS {
            self.dense
                .get(k as usize)
                .filter(|span| span.0 != usize::MAX)?
        } else {
            self.lemmas.get(&id)?
        };
        Some(&self.arena[start..end])
    }

    fn is_live(&self, id: u64) -> bool {
        self.get(id).is_some()
    }

    fn add(&mut self, id: u64, lits: &[u32]) {
        if self.garbage > 1 << 20 && self.garbage > 2 * (self.arena.len() - self.garbage) {
            self.compact();
        }
        let start = self.arena.len();
        self.arena.extend_from_slice(lits);
        let span = (start, self.arena.len());
        let k = id.wrapping_sub(self.formula_clauses() + 1);
        if k < DENSE_IDS {
            let k = k as usize;
            if self.dense.len() <= k {
                self.dense.resize((k + 1).max(2 * self.dense.len()), DEAD);
            }
            self.dense[k] = span;
        } else {
            self.lemmas.insert(id, span);
        }
    }

    fn delete(&mut self, id: u64) -> bool {
        if id <= self.formula_clauses() {
            let i = id as usize;
            return i > 0 && std::mem::replace(&mut self.formula_live[i], false);
        }
        let k = id.wrapping_sub(self.formula_clauses() + 1);
        let span = if k < DENSE_IDS {
            match self.dense.get_mut(k as usize) {
                Some(span) if span.0 != usize::MAX => Some(std::mem::replace(span, DEAD)),
                _ => None,
            }
        } else {
            self.lemmas.remove(&id)
        };
        match span {
            Some((start, end)) => {
                self.garbage += end - start;
                true
            }
            None => false,
        }
    }

    /// Copies the live lemmas into the spare arena and swaps the two: both keep their
    /// capacity, so a long proof compacts without allocating (or faulting in) new memory.
    fn compact(&mut self) {
        let mut arena = std::mem::take(&mut self.spare);
        arena.clear();
        for span in self
            .dense
            .iter_mut()
            .filter(|span| span.0 != usize::MAX)
            .chain(self.lemmas.values_mut())
        {
            let start = arena.len();
            arena.extend_from_slice(&self.arena[span.0..span.1]);
            *span = (start, arena.len());
        }
        self.spare = std::mem::replace(&mut self.arena, arena);
        self.garbage = 0;
    }
}

/// The proof's bytes as a stream of numbers, with line numbers for errors.
struct Input<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    line: u64,
    /// Bytes of the proof before `buf[0]`.
    consumed: u64,
    /// Where the current step starts: its line (text) or byte offset (binary).
    step_line: u64,
    step_byte: Option<u64>,
}

impl<R: Read> Input<R> {
    fn new(inner: R) -> Input<R> {
        Input {
            inner,
            buf: vec![0; 1 << 20].into_boxed_slice(),
            pos: 0,
            end: 0,
            line: 1,
            consumed: 0,
            step_line: 1,
            step_byte: None,
        }
    }

    /// Where the step just read starts, for errors.
    fn location_of_step(&self) -> String {
        match self.step_byte {
            Some(b) => format!("byte {b}"),
            None => format!("line {}", self.step_line),
        }
    }

    /// Reads a text step: `Some((id, true))` for a deletion (its ids in `victims`),
    /// `Some((id, false))` for a lemma, `None` at the end of the proof.
    fn text_step(
        &mut self,
        lits: &mut Vec<u32>,
        hints: &mut Vec<u64>,
        victims: &mut Vec<u64>,
    ) -> Result<Option<(u64, bool)>, ProofError> {
        if !self.skip_to_step()? {
            return Ok(None);
        }
        self.step_line = self.line;
        let id = self.number()?;
        if id <= 0 {
            return Err(self.malformed(format!("clause id {id} is not positive")));
        }
        let id = id as u64;
        if self.take_d()? {
            victims.clear();
            loop {
                let victim = self.number()?;
                if victim == 0 {
                    break;
                }
                if victim < 0 {
                    return Err(rejected(
                        self.location_of_step(),
                        format!("deletes clause {victim}, which is not live"),
                    ));
                }
                victims.push(victim as u64);
            }
            return Ok(Some((id, true)));
        }
        lits.clear();
        loop {
            let lit = self.number()?;
            if lit == 0 {
                break;
            }
            lits.push(
                dimacs_code(lit)
                    .ok_or_else(|| self.malformed(format!("literal {lit} is out of range")))?,
            );
        }
        hints.clear();
        loop {
            let hint = self.number()?;
            if hint == 0 {
                break;
            }
            hints.push(if hint < 0 {
                hint.unsigned_abs() | RAT
            } else {
                hint as u64
            });
        }
        Ok(Some((id, false)))
    }

    /// Reads a binary step, as [`Input::text_step`].
    fn binary_step(
        &mut self,
        lits: &mut Vec<u32>,
        hints: &mut Vec<u64>,
        victims: &mut Vec<u64>,
    ) -> Result<Option<(u64, bool)>, ProofError> {
        let Some(kind) = self.peek()? else {
            return Ok(None);
        };
        self.step_byte = Some(self.consumed + self.pos as u64);
        self.pos += 1;
        match kind {
            b'd' => {
                victims.clear();
                loop {
                    let v = self.varint()?;
                    if v == 0 {
                        return Ok(Some((0, true)));
                    }
                    if v & 1 == 1 {
                        return Err(rejected(
                            self.location_of_step(),
                            format!("deletes clause -{}, which is not live", v >> 1),
                        ));
                    }
                    victims.push(v >> 1);
                }
            }
            b'a' => {
                let v = self.varint()?;
                if v & 1 == 1 || v == 0 {
                    return Err(self.malformed(format!(
                        "clause id {}{} is not positive",
                        if v & 1 == 1 { "-" } else { "" },
                        v >> 1
                    )));
                }
                let id = v >> 1;
                lits.clear();
                loop {
                    let v = self.varint()?;
                    if v == 0 {
                        break;
                    }
                    let var = (v >> 1) as i64;
                    let lit = if v & 1 == 1 { -var } else { var };
                    lits.push(
                        dimacs_code(lit).ok_or_else(|| {
                            self.malformed(format!("literal {lit} is out of range"))
                        })?,
                    );
                }
                hints.clear();
                loop {
                    let v = self.varint()?;
                    if v == 0 {
                        break;
                    }
                    hints.push(if v & 1 == 1 { (v >> 1) | RAT } else { v >> 1 });
                }
                Ok(Some((id, false)))
            }
            other => Err(self.malformed(format!(
                "expected a step (`a` or `d`), found byte {other:#04x}"
            ))),
        }
    }

    /// A LEB128 number of binary LRAT.
    #[inline]
    fn varint(&mut self) -> Result<u64, ProofError> {
        // Most numbers are whole inside the buffer and one to three bytes long.
        if let Some(&[b0, b1, b2]) = self.buf[..self.end].get(self.pos..self.pos + 3) {
            if b0 & 0x80 == 0 {
                self.pos += 1;
                return Ok(u64::from(b0));
            }
            if b1 & 0x80 == 0 {
                self.pos += 2;
                return Ok(u64::from(b0 & 0x7f) | u64::from(b1) << 7);
            }
            if b2 & 0x80 == 0 {
                self.pos += 3;
                return Ok(u64::from(b0 & 0x7f) | u64::from(b1 & 0x7f) << 7 | u64::from(b2) << 14);
            }
        }
        self.varint_slow()
    }

    fn varint_slow(&mut self) -> Result<u64, ProofError> {
        let mut value: u64 = 0;
        let mut shift = 0;
        loop {
            let Some(b) = self.peek()? else {
                return Err(self.malformed("unexpected end of proof inside a step".into()));
            };
            self.pos += 1;
            if shift > 56 {
                return Err(self.malformed("number too large".into()));
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    /// The next byte without taking it; `None` at the end of the proof.
    #[inline]
    fn peek(&mut self) -> Result<Option<u8>, ProofError> {
        if self.pos == self.end && !self.fill()? {
            return Ok(None);
        }
        Ok(Some(self.buf[self.pos]))
    }

    #[cold]
    fn fill(&mut self) -> Result<bool, ProofError> {
        loop {
            match self.inner.read(&mut self.buf) {
                Ok(0) => return Ok(false),
                Ok(k) => {
                    self.consumed += self.end as u64;
                    self.pos = 0;
                    self.end = k;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ProofError::Io(e)),
            }
        }
    }

    fn malformed(&self, message: String) -> ProofError {
        let at = match self.step_byte {
            Some(_) => format!("byte {}", self.consumed + self.pos as u64),
            None => format!("line {}", self.line),
        };
        ProofError::Malformed { at, message }
    }

    #[inline]
    fn skip_space(&mut self) -> Result<(), ProofError> {
        while let Some(b) = self.peek()? {
            if !b.is_ascii_whitespace() {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// Skips whitespace and `c` comment lines; false at the end of the proof.
    fn skip_to_step(&mut self) -> Result<bool, ProofError> {
        loop {
            self.skip_space()?;
            match self.peek()? {
                None => return Ok(false),
                Some(b'c') => {
                    while let Some(b) = self.peek()? {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                Some(_) => return Ok(true),
            }
        }
    }

    /// Takes a `d` (a deletion step) if one comes next.
    fn take_d(&mut self) -> Result<bool, ProofError> {
        self.skip_space()?;
        if self.peek()? == Some(b'd') {
            self.pos += 1;
            return Ok(true);
        }
        Ok(false)
    }

    #[inline]
    fn number(&mut self) -> Result<i64, ProofError> {
        self.skip_space()?;
        let negative = self.peek()? == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let mut value: i64 = 0;
        let mut digits = 0;
        while let Some(b) = self.peek()? {
            if !b.is_ascii_digit() {
                break;
            }
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(b - b'0')))
                .ok_or_else(|| self.malformed("number too large".into()))?;
            digits += 1;
            self.pos += 1;
        }
        if digits == 0 {
            let message = match self.peek()? {
                None => "unexpected end of proof, expected a number".into(),
                Some(b) => format!("expected a number, found {:?}", char::from(b)),
            };
            return Err(self.malformed(message));
        }
        Ok(if negative { -value } else { value })
    }
}
