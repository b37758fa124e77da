//! The LRAT checker that only follows hints.

use std::collections::HashMap;

use varisat::CnfFormula;

use super::{dimacs_code, rejected, show, ProofError, ProofStats, Tokens, FALSE, OPEN, TRUE};

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
