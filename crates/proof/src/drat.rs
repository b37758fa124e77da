//! DRAT: the forward RUP checker, which also replays a DRAT proof into trimmed LRAT
//! ([`drat_to_lrat`]).

use std::collections::{BinaryHeap, HashMap};
use std::io::Write;

use varisat_formula::CnfFormula;

use super::lrat::LratWriter;
use super::{
    dimacs_code, rejected, show, ProofError, ProofStats, Tokens, FALSE, MAX_VAR, OPEN, TRUE,
};

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

pub(crate) fn replay_drat(
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
