//! The LRAT checker that only follows hints: each lemma's hints are visited once, in order,
//! against the negated lemma (no search, no watches), so checking takes time linear in the
//! proof. The proof is read as a stream (a file of any size, a socket) and only live clauses
//! are kept: memory is the formula plus the lemmas not yet deleted.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read};
use std::path::Path;

use varisat::CnfFormula;

use super::{dimacs_code, rejected, show, ProofError, ProofStats, FALSE, OPEN, TRUE};

/// Checks a text LRAT proof of `formula` held in memory; see [`check_lrat_reader`].
pub fn check_lrat(formula: &CnfFormula, proof: &[u8]) -> Result<ProofStats, ProofError> {
    check_lrat_reader(formula, proof)
}

/// Checks the text LRAT proof in the file at `path`, streaming; see [`check_lrat_reader`].
pub fn check_lrat_file(formula: &CnfFormula, path: &Path) -> Result<ProofStats, ProofError> {
    let file = File::open(path)?;
    check_lrat_reader(formula, file)
}

/// Checks a text LRAT proof of `formula` strictly, reading it as a stream.
///
/// Clauses `1..=m` are the formula's clauses in order. For each lemma `id lits 0 hints 0` the
/// negated lemma is assumed and the hints are visited in order: each must name a live clause
/// that is unit (its one open literal is then set) or, as the last hint, falsified; a hint
/// that is already satisfied, or that conflicts before the last, is an error. A lemma's id
/// must not be a live clause's (ids need not increase, as in `lrat-check` and `cake_lpr`),
/// deletions (`id d ids 0`) must name live clauses, RAT (negative) hints are rejected, a
/// tautological lemma needs no hints, and the proof must add the empty clause (what follows it
/// is not read). Errors name the line and the lemma.
pub fn check_lrat_reader(formula: &CnfFormula, proof: impl Read) -> Result<ProofStats, ProofError> {
    let mut db = Db::new(formula);
    let mut input = Input::new(proof);
    let mut stats = ProofStats::default();
    let mut lits: Vec<u32> = Vec::new();
    let mut hints: Vec<u64> = Vec::new();
    let mut vals = Values::default();
    loop {
        if !input.skip_to_step()? {
            break;
        }
        let line = input.line;
        let at = || format!("line {line}");
        let id = input.number()?;
        if id <= 0 {
            return Err(input.malformed(format!("clause id {id} is not positive")));
        }
        let id = id as u64;
        if input.take_d()? {
            loop {
                let victim = input.number()?;
                if victim == 0 {
                    break;
                }
                if victim < 0 || !db.delete(victim as u64) {
                    return Err(rejected(
                        at(),
                        format!("deletes clause {victim}, which is not live"),
                    ));
                }
                stats.deletions += 1;
            }
            continue;
        }
        lits.clear();
        loop {
            let lit = input.number()?;
            if lit == 0 {
                break;
            }
            lits.push(
                dimacs_code(lit)
                    .ok_or_else(|| input.malformed(format!("literal {lit} is out of range")))?,
            );
        }
        hints.clear();
        loop {
            let hint = input.number()?;
            if hint == 0 {
                break;
            }
            if hint < 0 {
                return Err(rejected(
                    at(),
                    format!(
                        "lemma {id} {}: hint {hint} is a RAT hint, which is not supported",
                        show(&lits)
                    ),
                ));
            }
            hints.push(hint as u64);
        }
        if db.is_live(id) {
            return Err(rejected(
                at(),
                format!("lemma {id} reuses the id of a live clause"),
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
            return Ok(stats);
        }
        db.add(id, &lits);
    }
    Err(rejected(
        "end of proof".into(),
        "the proof never adds the empty clause".into(),
    ))
}

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

/// A hasher for clause ids: one multiplication (ids are not chosen by an adversary that
/// gains anything from collisions; a bad proof only checks slower).
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, id: u64) {
        self.0 = (id ^ id >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7;
    }
}

/// Live clauses: the formula's by id in an array (a deleted one is marked), lemmas by id in
/// a map into an arena that is compacted once it is mostly garbage.
struct Db {
    formula: Vec<u32>,
    /// `formula_at[id]`: start and end of formula clause `id` in `formula` (index 0 unused).
    formula_at: Vec<(u32, u32)>,
    formula_live: Vec<bool>,
    lemmas: HashMap<u64, (usize, usize), BuildHasherDefault<IdHasher>>,
    arena: Vec<u32>,
    garbage: usize,
}

impl Db {
    fn new(formula: &CnfFormula) -> Db {
        let mut db = Db {
            formula: Vec::new(),
            formula_at: vec![(0, 0)],
            formula_live: vec![false],
            lemmas: HashMap::default(),
            arena: Vec::new(),
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
        let &(start, end) = self.lemmas.get(&id)?;
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
        self.lemmas.insert(id, (start, self.arena.len()));
    }

    fn delete(&mut self, id: u64) -> bool {
        if id <= self.formula_clauses() {
            let i = id as usize;
            return i > 0 && std::mem::replace(&mut self.formula_live[i], false);
        }
        match self.lemmas.remove(&id) {
            Some((start, end)) => {
                self.garbage += end - start;
                true
            }
            None => false,
        }
    }

    fn compact(&mut self) {
        let mut arena = Vec::with_capacity(2 * (self.arena.len() - self.garbage));
        for span in self.lemmas.values_mut() {
            let start = arena.len();
            arena.extend_from_slice(&self.arena[span.0..span.1]);
            *span = (start, arena.len());
        }
        self.arena = arena;
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
}

impl<R: Read> Input<R> {
    fn new(inner: R) -> Input<R> {
        Input {
            inner,
            buf: vec![0; 1 << 20].into_boxed_slice(),
            pos: 0,
            end: 0,
            line: 1,
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
        ProofError::Malformed {
            at: format!("line {}", self.line),
            message,
        }
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
