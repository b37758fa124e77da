//! The n-queens completion threshold (OEIS A374013): the largest `k` such that every
//! non-attacking placement of at most `k` queens on the `n`×`n` board extends to a solution.
//!
//! Rounds `k = 0, 1, …` walk the placements of up to `k` queens once per symmetry class
//! ([`queens_proof::threshold::walk`]); the witnesses, solutions found so far with their
//! images, settle most of them, and each placement none holds is completed in this process by
//! the core search ([`crate::completion::solve_columns`]), its verified solution becoming a
//! new witness. A round whose every placement is settled shows `a(n) ≥ k`; a placement the
//! core search proves has no completion shows `a(n) < k`. Before each full round, walks
//! restricted to the cells near the edges (where queens block the most) look for that
//! placement first. The witnesses and the counterexample are the certificate
//! ([`queens_proof::threshold::certificate`]); [`prove_counterexample`] refutes it in LRAT.

use std::time::Instant;

use crate::{completion, ms, Answer, Budget, EngineSpec};
use queens_model::error::Error;
use queens_model::model::Problem;
use queens_proof::threshold::walk::{
    centre_box, edge_band, walk_part, Cell, Flow, Settle, WalkStats, Walked, Witnesses, MAX_WALK_N,
};
use queens_proof::ProofFormat;

/// The smallest board the threshold is asked of (below it a board has no solution or one
/// queen, and the term is not defined).
pub const MIN_THRESHOLD_N: usize = 4;

/// The cells a walk's placements use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The whole board.
    Board,
    /// Cells within this distance of an edge.
    Edge(usize),
    /// Cells within this distance of the centre ([`centre_box`]).
    Centre(usize),
    /// Both: within the first distance of an edge or the second of the centre.
    EdgeAndCentre(usize, usize),
}

impl Region {
    /// True when the region is smaller than the board.
    fn fits(self, n: usize) -> bool {
        match self {
            Region::Board => true,
            Region::Edge(b) => 2 * b + 2 < n,
            Region::Centre(r) | Region::EdgeAndCentre(_, r) => 2 * r + 4 < n,
        }
    }

    /// The column masks of its cells (`None`: the board).
    fn cells(self, n: usize) -> Option<Vec<u64>> {
        match self {
            Region::Board => None,
            Region::Edge(b) => Some(edge_band(n, b)),
            Region::Centre(r) => Some(centre_box(n, r)),
            Region::EdgeAndCentre(b, r) => Some(
                edge_band(n, b)
                    .iter()
                    .zip(centre_box(n, r))
                    .map(|(a, b)| a | b)
                    .collect(),
            ),
        }
    }
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Region::Board => write!(f, "board"),
            Region::Edge(b) => write!(f, "edge band {b}"),
            Region::Centre(r) => write!(f, "centre box {r}"),
            Region::EdgeAndCentre(b, r) => write!(f, "edge band {b} and centre box {r}"),
        }
    }
}

/// One walk: over every placement of up to `k` queens, or only over those near the edges.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    /// Queens.
    pub k: usize,
    /// The cells the walk's placements use.
    pub region: Region,
    /// What the walk met.
    pub stats: WalkStats,
    /// Placements the core search decided.
    pub searched: u64,
    /// Witnesses held after the round (images included).
    pub witnesses: usize,
    /// Wall time, milliseconds.
    pub ms: f64,
}

/// How a threshold run ended.
#[derive(Clone, Debug)]
pub struct Threshold {
    /// Board size.
    pub n: usize,
    /// Every placement of at most `lower` queens completes (`None`: not even the first
    /// round finished).
    pub lower: Option<usize>,
    /// A placement with no completion, when found: every placement of its size completing
    /// is then false, so `a(n)` is below its size (one queen more than `lower` in a full
    /// run).
    pub counterexample: Option<Vec<Cell>>,
    /// The budget stopped the run.
    pub interrupted: bool,
    /// The witnesses (their solutions are the cover).
    pub witnesses: Witnesses,
    /// The walks, in order.
    pub rounds: Vec<Round>,
}

/// Settles uncovered placements with the core search.
struct Search<'a> {
    n: usize,
    budget: &'a Budget,
    /// Progress: rounds before this one, and their count, scale the walk's own.
    seed: u64,
    searched: u64,
    counterexample: Option<Vec<Cell>>,
    interrupted: bool,
    error: Option<Error>,
    round: (u64, u64),
}

impl Settle for Search<'_> {
    fn uncovered(&mut self, placement: &[Cell], witnesses: &mut Witnesses) -> Flow {
        self.searched += 1;
        self.seed = self.seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let problem = match Problem::new(self.n).and_then(|p| p.with_fixed(placement)) {
            Ok(p) => p,
            Err(e) => {
                self.error = Some(e);
                return Flow::Stop;
            }
        };
        let solved = match completion::solve_columns(&problem, self.seed, self.budget) {
            Ok(s) => s,
            Err(e) => {
                self.error = Some(e);
                return Flow::Stop;
            }
        };
        match solved.answer {
            Answer::Sat(cols) => {
                if let Err(v) = queens_model::verify::verify_columns(&problem, &cols) {
                    self.error = Some(Error::internal(format!(
                        "the core search returned a board that breaks a rule: {v}"
                    )));
                    return Flow::Stop;
                }
                let cols: Vec<u8> = cols.iter().map(|&c| c as u8).collect();
                witnesses.add(&cols);
                Flow::Continue
            }
            Answer::Unsat(_) => {
                self.counterexample = Some(placement.to_vec());
                Flow::Stop
            }
            Answer::GaveUp | Answer::Interrupted => {
                self.interrupted = true;
                Flow::Stop
            }
        }
    }

    fn tick(&mut self, done: u64, total: u64) -> Flow {
        if self.budget.exhausted() {
            self.interrupted = true;
            return Flow::Stop;
        }
        if let Some(p) = &self.budget.progress {
            let (i, of) = self.round;
            p(i * total + done, of * total);
        }
        Flow::Continue
    }
}

/// Checks the board size for a threshold run.
pub fn check_n(n: usize) -> Result<(), Error> {
    if !(MIN_THRESHOLD_N..=MAX_WALK_N).contains(&n) {
        return Err(Error::unsupported_at_field(
            "n",
            format!(
                "the completion threshold is computed for boards of \
                 {MIN_THRESHOLD_N}..={MAX_WALK_N} rows, not {n}"
            ),
        ));
    }
    Ok(())
}

/// The threshold of the `n`×`n` board: rounds `k = 0, 1, …` until a placement has no
/// completion (then `a(n) = lower`, with the counterexample), or only the round `only`
/// (`--k`: does every placement of at most `only` queens complete?).
pub fn threshold(n: usize, only: Option<usize>, budget: &Budget) -> Result<Threshold, Error> {
    threshold_part(n, only, (0, 1), budget)
}

/// [`threshold`], walking only part `index` of `parts` of every round: the placements whose
/// first queen is the walk's `index`-th modulo `parts` ([`walk_part`]). The parts of a round
/// `only = k` together meet every placement it meets, so their covers together are its
/// cover.
pub fn threshold_part(
    n: usize,
    only: Option<usize>,
    part: (usize, usize),
    budget: &Budget,
) -> Result<Threshold, Error> {
    check_n(n)?;
    if part.0 >= part.1 {
        return Err(Error::unsupported_at_field(
            "shard",
            format!("shard {} of {} does not exist", part.0, part.1),
        ));
    }
    if let Some(k) = only {
        if k > n {
            return Err(Error::unsupported_at_field(
                "k",
                format!("{k} queens do not fit on {n} rows"),
            ));
        }
    }
    let mut out = Threshold {
        n,
        lower: None,
        counterexample: None,
        interrupted: false,
        witnesses: Witnesses::new(n),
        rounds: Vec::new(),
    };
    let mut search = Search {
        n,
        budget,
        seed: n as u64,
        searched: 0,
        counterexample: None,
        interrupted: false,
        error: None,
        round: (0, 1),
    };
    let ks: Vec<usize> = match only {
        Some(k) => vec![k],
        None => (0..=n).collect(),
    };
    for k in ks {
        // Where placements block the most first (clusters at the centre, queens at the
        // edges and corners), each a walk of its own, then the whole board.
        let regions: Vec<Region> = if k >= 2 {
            [
                Region::Centre(2),
                Region::Centre(3),
                Region::EdgeAndCentre(0, 3),
                Region::Edge(1),
            ]
            .into_iter()
            .filter(|r| r.fits(n))
            .chain([Region::Board])
            .collect()
        } else {
            vec![Region::Board]
        };
        let of = regions.len() as u64;
        for (i, region) in regions.into_iter().enumerate() {
            search.round = (i as u64, of);
            let start = Instant::now();
            let before = search.searched;
            let within = region.cells(n);
            let walked = walk_part(k, within.as_deref(), part, &mut out.witnesses, &mut search);
            let stats = match &walked {
                Walked::Covered(s) | Walked::Stopped(s, _) => *s,
            };
            out.rounds.push(Round {
                k,
                region,
                stats,
                searched: search.searched - before,
                witnesses: out.witnesses.len(),
                ms: ms(start),
            });
            if let Some(e) = search.error.take() {
                return Err(e);
            }
            if search.interrupted {
                out.interrupted = true;
                return Ok(out);
            }
            if let Some(p) = search.counterexample.take() {
                // In a full run every smaller placement was settled by the rounds before,
                // so the term is `k - 1`.
                if only.is_none() {
                    out.lower = k.checked_sub(1);
                }
                out.counterexample = Some(p);
                return Ok(out);
            }
            if let Walked::Stopped(_, p) = walked {
                return Err(Error::internal(format!(
                    "the threshold walk stopped at {p:?} without a reason"
                )));
            }
        }
        out.lower = Some(k);
    }
    Ok(out)
}

/// A checked LRAT refutation of a placement's completion.
pub struct CounterexampleProof {
    /// The proof, text LRAT.
    pub lrat: Vec<u8>,
    /// The CNF it refutes, DIMACS with the cell map as comments.
    pub cnf: Vec<u8>,
    /// Lemmas.
    pub lemmas: u64,
    /// Wall time, milliseconds.
    pub ms: f64,
}

/// Proves that the placement `queens` on the `n`×`n` board has no completion: the
/// backtracker's LRAT for the CNF `queens encode` writes, checked by the built-in checker
/// before it is returned.
pub fn prove_counterexample(
    n: usize,
    queens: &[Cell],
    budget: &Budget,
) -> Result<Option<CounterexampleProof>, Error> {
    let start = Instant::now();
    let problem = Problem::new(n)?.with_fixed(queens)?;
    let spec = EngineSpec::Backtrack { threads: 0 };
    let certified = crate::prove::prove_no(
        &problem,
        spec,
        crate::encode::amo::Encoding::Pairwise,
        ProofFormat::Lrat,
        budget,
        &crate::prove::ProofTarget::Memory,
    )?;
    match certified.answer {
        Answer::Unsat(cert) => Ok(Some(CounterexampleProof {
            cnf: cert.cnf_text(&problem, spec)?,
            lrat: cert.proof,
            lemmas: cert.lemmas,
            ms: ms(start),
        })),
        Answer::Sat(_) => Err(Error::internal(
            "the placement the core search refuted has a solution for the backtracker",
        )),
        Answer::GaveUp | Answer::Interrupted => Ok(None),
    }
}
