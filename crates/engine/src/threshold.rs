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

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::answer::Answer;
use crate::completion;
use crate::spec::EngineSpec;
use crate::work::ms;
use queens_model::error::Error;
use queens_model::model::Problem;
use queens_model::Budget;
use queens_proof::threshold::walk::{
    centre_box, edge_band, first_queens, map_solution, walk_part_resume, Cell, Flow, Lines, Settle,
    WalkStats, Walked, Witnesses, MAX_WALK_N,
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
    /// Bytes the witnesses took after the round ([`Witnesses::bytes`]).
    pub bytes: usize,
    /// Wall time, milliseconds.
    pub ms: f64,
}

/// Where a walk has got to, as [`Options::report`] is told it.
#[derive(Clone, Debug)]
pub struct Report {
    /// The round.
    pub k: usize,
    /// The walk of the round.
    pub region: Region,
    /// First queens of the walk's list passed (this shard's and the others').
    pub first_queens_done: u64,
    /// First queens in the walk's list.
    pub first_queens: u64,
    /// Placements of `k` queens walked in this walk since it started (or resumed).
    pub placements: u64,
    /// Placements the core search decided in this walk since it started (or resumed).
    pub searched: u64,
    /// Solutions held (the cover's lines).
    pub solutions: usize,
    /// Witnesses held, images included.
    pub witnesses: usize,
    /// Bytes they take.
    pub bytes: usize,
    /// Seconds since the walk started (or resumed).
    pub seconds: f64,
    /// Estimated share of the walk's placements (of this shard) walked: the first queens
    /// finished, each weighed by the cells below it to the power `k - 1`, and of the one
    /// under way, the rows of the second queen finished, weighed the same way.
    pub fraction: f64,
    /// That share when the walk started (or resumed): the rate, and so the time left, counts
    /// only what this run walked.
    pub fraction_at_start: f64,
}

impl Report {
    /// Placements walked a second.
    pub fn rate(&self) -> f64 {
        self.placements as f64 / self.seconds.max(1e-9)
    }

    /// Estimated seconds left in the walk.
    pub fn eta(&self) -> Option<f64> {
        let walked = self.fraction - self.fraction_at_start;
        (walked > 0.0).then(|| self.seconds * (1.0 - self.fraction) / walked)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "k = {}, {}: first queen {}/{}, {} placements ({:.0}/s), {} searched, {} solutions \
             ({} witnesses), {:.1} MB, {:.1}% done",
            self.k,
            self.region,
            self.first_queens_done,
            self.first_queens,
            self.placements,
            self.rate(),
            self.searched,
            self.solutions,
            self.witnesses,
            self.bytes as f64 / 1e6,
            100.0 * self.fraction
        )?;
        match self.eta() {
            Some(s) => write!(f, ", ETA {}", show_seconds(s)),
            None => Ok(()),
        }
    }
}

/// Seconds as `1 h 02 min`, `3 min 05 s` or `12 s`.
fn show_seconds(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{} h {:02} min", s / 3600, s / 60 % 60)
    } else if s >= 60 {
        format!("{} min {:02} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// What a run may use besides its board, round and shard.
#[derive(Default)]
pub struct Options<'a> {
    /// Solutions to start from (a cover shared between shards, or a smaller round's): each
    /// must be verified already; a shard keeps those with an image holding one of its first
    /// queens.
    pub seed: Option<Witnesses>,
    /// Told where the walk has got to every [`Options::report_every`].
    pub report: Option<&'a (dyn Fn(&Report) + Sync)>,
    /// How often to report (`None`: 10 s).
    pub report_every: Option<Duration>,
    /// Stop (as the budget does, saving the checkpoint) once the witnesses take more than
    /// this many bytes.
    pub max_bytes: Option<usize>,
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
    /// The budget stopped the run (or a signal, [`stopped`], or the witnesses' memory,
    /// `full`).
    pub interrupted: bool,
    /// The witnesses grew past [`Options::max_bytes`].
    pub full: bool,
    /// The witnesses (their solutions are the cover).
    pub witnesses: Witnesses,
    /// The walks, in order.
    pub rounds: Vec<Round>,
}

/// Settles uncovered placements with the core search.
struct Search<'a, 'k, 'r> {
    n: usize,
    budget: &'a Budget,
    /// Progress: rounds before this one, and their count, scale the walk's own.
    seed: u64,
    searched: u64,
    counterexample: Option<Vec<Cell>>,
    interrupted: bool,
    error: Option<Error>,
    round: (u64, u64),
    /// Where the run is saved for a later resume, if anywhere.
    keep: Option<&'k mut dyn Keep>,
    /// The last resumable point: round `k`, region index, first queens finished, seed,
    /// searches, cover lines held.
    mark: Mark,
    /// The walks finished before the current one.
    rounds: Vec<Round>,
    saved: Instant,
    /// Time from the last save to the start of this one, and the wait before the next.
    since: Duration,
    save_every: Duration,
    /// Reports: the hook, how often, when last, and the walk's start.
    report: Option<&'r (dyn Fn(&Report) + Sync)>,
    report_every: Duration,
    reported: Instant,
    walk: WalkClock,
    max_bytes: Option<usize>,
    /// The witnesses grew past `max_bytes`.
    full: bool,
    /// The witnesses' size, images and lines, as of the last look.
    bytes: usize,
    images: usize,
    lines: usize,
}

/// The walk under way, for reports.
#[derive(Clone, Debug)]
struct WalkClock {
    k: usize,
    region: Region,
    start: Instant,
    searched: u64,
    /// Weights of the walk's first queens (this shard's; others 0), and their sum.
    weights: Vec<f64>,
    total: f64,
    /// Of each first queen `(m, c)`, `m`, and the share of its weight left when the
    /// second queen starts row `m + 1 + i`, at `[i]`.
    left: Vec<(usize, Vec<f64>)>,
    /// The share done when the walk started (or resumed).
    at_start: f64,
}

impl WalkClock {
    fn new(n: usize, k: usize, region: Region, part: (usize, usize), searched: u64) -> Self {
        let within = region.cells(n);
        let power = k.saturating_sub(1) as i32;
        let mut weights = Vec::new();
        let mut left = Vec::new();
        for (i, &(m, c)) in first_queens(n).iter().enumerate() {
            let hi = n - 1 - m;
            let ok = |r: usize, c: usize| within.as_ref().is_none_or(|w| w[r] >> c & 1 != 0);
            if i % part.1 != part.0 || !ok(m, c) {
                weights.push(0.0);
                left.push((m, Vec::new()));
                continue;
            }
            // The cells in the rows from each row below the first queen's down.
            let mut cells: Vec<usize> = (m + 1..=hi)
                .map(|r| (m..=hi).filter(|&x| ok(r, x)).count())
                .collect();
            for j in (1..cells.len()).rev() {
                cells[j - 1] += cells[j];
            }
            let below = cells.first().copied().unwrap_or(0);
            weights.push((below as f64).powi(power));
            left.push((
                m,
                cells
                    .iter()
                    .map(|&b| (b as f64 / below.max(1) as f64).powi(power))
                    .collect(),
            ));
        }
        let total = weights.iter().sum();
        WalkClock {
            k,
            region,
            start: Instant::now(),
            searched,
            weights,
            total,
            left,
            at_start: 0.0,
        }
    }

    /// The clock of a walk that starts at `done` first queens and, of the next, `row`.
    fn resumed_at(mut self, done: u64, row: usize) -> Self {
        self.at_start = self.fraction(done, row);
        self
    }

    /// The estimated share done once the first queens before `done` are finished and, of
    /// first queen `done`, the second queen's rows above `row`.
    fn fraction(&self, done: u64, row: usize) -> f64 {
        if self.total <= 0.0 {
            return 1.0;
        }
        let done = (done as usize).min(self.weights.len());
        let mut walked = self.weights[..done].iter().sum::<f64>();
        if let (Some(&w), Some((m, left))) = (self.weights.get(done), self.left.get(done)) {
            if let Some(&l) = row.checked_sub(m + 1).and_then(|i| left.get(i)) {
                walked += w * (1.0 - l);
            }
        }
        (walked / self.total).min(1.0)
    }
}

/// A resumable point of a run: the state after `done` first queens of region `region` of
/// round `k`.
#[derive(Clone, Copy, Debug, Default)]
struct Mark {
    k: usize,
    region: usize,
    done: u64,
    /// Of first queen `done`, the second queen's rows above this one are finished too.
    row: usize,
    seed: u64,
    searched: u64,
    solutions: usize,
    /// Searches when the walk began.
    began: u64,
}

/// How often a run with a [`Keep`] is saved while a walk goes on.
pub const SAVE_EVERY: Duration = Duration::from_secs(5);

/// A resumable point of a run, as a [`Keep`] saves it and [`threshold_resumable`] resumes
/// it: every first queen before `done` of the `region`-th walk of round `k` ([`regions`])
/// is finished, and `solutions` are the cover lines found so far, in the order found.
pub struct Saved<'a> {
    /// The round.
    pub k: usize,
    /// The walk of the round ([`regions`]).
    pub region: usize,
    /// First queens of that walk finished.
    pub done: u64,
    /// Of first queen `done`, the rows of the second queen above this one are finished
    /// too (0: none).
    pub row: usize,
    /// The core search's seed.
    pub seed: u64,
    /// Placements the core search decided, in all.
    pub searched: u64,
    /// Of those, the ones decided before the walk began.
    pub began: u64,
    /// Cover lines found so far, in order.
    pub solutions: Lines<'a>,
    /// The walks finished before.
    pub rounds: &'a [Round],
}

/// Where a run saves its resumable points.
pub trait Keep {
    /// Saves the point (replacing the one before).
    fn save(&mut self, at: &Saved<'_>) -> Result<(), Error>;
}

/// A saved point to resume from (see [`Saved`]); `witnesses` holds its cover lines, added
/// in the order found.
pub struct Resume {
    /// The round.
    pub k: usize,
    /// The walk of the round ([`regions`]).
    pub region: usize,
    /// First queens of that walk finished.
    pub done: u64,
    /// Of first queen `done`, the rows of the second queen above this one are finished
    /// too (0: none).
    pub row: usize,
    /// The core search's seed.
    pub seed: u64,
    /// Placements the core search decided, in all.
    pub searched: u64,
    /// Of those, the ones decided before the walk began.
    pub began: u64,
    /// The witnesses found so far.
    pub witnesses: Witnesses,
    /// The walks finished before.
    pub rounds: Vec<Round>,
}

impl Search<'_, '_, '_> {
    /// A resumable point: first queens before `done` finished and, of first queen `done`,
    /// the second queen's rows above `row`; saved when one is due.
    fn point(&mut self, done: u64, row: usize, witnesses: &Witnesses) -> Flow {
        self.bytes = witnesses.bytes();
        self.mark.done = done;
        self.mark.row = row;
        self.mark.seed = self.seed;
        self.mark.searched = self.searched;
        self.mark.solutions = witnesses.solutions().len();
        if self.keep.is_some() && self.saved.elapsed() >= self.save_every {
            if let Err(e) = self.save(witnesses.solutions()) {
                self.error = Some(e);
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// Saves the last resumable point, with the first `mark.solutions` cover lines of
    /// `solutions`.
    fn save(&mut self, solutions: Lines<'_>) -> Result<(), Error> {
        let m = self.mark;
        if let Some(keep) = self.keep.as_mut() {
            self.since = self.saved.elapsed();
            keep.save(&Saved {
                k: m.k,
                region: m.region,
                done: m.done,
                row: m.row,
                seed: m.seed,
                searched: m.searched,
                began: m.began,
                solutions: solutions.prefix(m.solutions),
                rounds: &self.rounds,
            })?;
            // A cover of millions of lines takes seconds to save: save at most a twentieth
            // of the time.
            self.save_every = SAVE_EVERY.max(self.saved.elapsed().saturating_sub(self.since) * 20);
            self.saved = Instant::now();
        }
        Ok(())
    }
}

impl Settle for Search<'_, '_, '_> {
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
                self.bytes = witnesses.bytes();
                self.images = witnesses.len();
                self.lines = witnesses.solutions().len();
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

    fn finished(&mut self, done: u64, witnesses: &Witnesses) -> Flow {
        self.point(done, 0, witnesses)
    }

    fn row_finished(&mut self, index: u64, row: usize, witnesses: &Witnesses) -> Flow {
        self.point(index, row, witnesses)
    }

    fn tick(&mut self, done: u64, total: u64, stats: &WalkStats) -> Flow {
        if self.budget.exhausted() || stopped() {
            self.interrupted = true;
            return Flow::Stop;
        }
        if self.max_bytes.is_some_and(|m| self.bytes > m) {
            self.full = true;
            self.interrupted = true;
            return Flow::Stop;
        }
        if let Some(report) = self.report {
            if self.reported.elapsed() >= self.report_every {
                self.reported = Instant::now();
                report(&Report {
                    k: self.walk.k,
                    region: self.walk.region,
                    first_queens_done: done,
                    first_queens: total,
                    placements: stats.placements,
                    searched: self.searched - self.walk.searched,
                    solutions: self.lines,
                    witnesses: self.images,
                    bytes: self.bytes,
                    seconds: self.walk.start.elapsed().as_secs_f64(),
                    fraction: self.walk.fraction(self.mark.done, self.mark.row),
                    fraction_at_start: self.walk.at_start,
                });
            }
        }
        if let Some(p) = &self.budget.progress {
            // In thousandths of the walks, each first queen weighed by the placements below
            // it (the share the progress line shows), not counted as one: the first
            // queens of row 0 hold most of a board walk.
            let (i, of) = self.round;
            let share = (self.walk.fraction(self.mark.done, self.mark.row) * 1000.0).round() as u64;
            p(i * 1000 + share.min(1000), of * 1000);
        }
        Flow::Continue
    }
}

/// Set by SIGINT or SIGTERM once [`stop_on_signals`] is called: runs stop at the next first
/// queen or row, saving their checkpoint.
static STOP: AtomicBool = AtomicBool::new(false);

/// True once a signal asked the run to stop ([`stop_on_signals`]).
pub fn stopped() -> bool {
    STOP.load(Ordering::Relaxed)
}

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// From now on SIGINT and SIGTERM ask threshold runs in this process to stop (at the next
/// first queen or row of the second queen: within seconds), so they save their checkpoint
/// and return interrupted, instead of ending the process at once ([`stopped`] tells the
/// caller which).
pub fn stop_on_signals() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: sigaction with an empty-mask action whose handler only stores an atomic.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
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
/// first queen is the walk's `index`-th modulo `parts` (`walk_part`). The parts of a round
/// `only = k` together meet every placement it meets, so their covers together are its
/// cover.
pub fn threshold_part(
    n: usize,
    only: Option<usize>,
    part: (usize, usize),
    budget: &Budget,
) -> Result<Threshold, Error> {
    threshold_resumable(n, only, part, None, None, Options::default(), budget)
}

/// The walks of round `k` on the `n`×`n` board, in order: where placements block the most
/// first (clusters at the centre, queens at the edges and corners), then the whole board.
pub fn regions(n: usize, k: usize) -> Vec<Region> {
    if k >= 2 {
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
    }
}

/// [`threshold_part`], resuming from `resume` (a point `keep` saved for the same `n`,
/// `only` and `part`) and saving resumable points into `keep`: after each walk, every
/// [`SAVE_EVERY`] between first queens, and when the budget stops the run. The search's
/// seeds follow the placements, so a resumed run finds what the whole run would have: the
/// same answer and the same cover.
pub fn threshold_resumable(
    n: usize,
    only: Option<usize>,
    part: (usize, usize),
    resume: Option<Resume>,
    keep: Option<&mut dyn Keep>,
    opts: Options<'_>,
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
        full: false,
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
        keep,
        mark: Mark::default(),
        rounds: Vec::new(),
        saved: Instant::now(),
        since: Duration::ZERO,
        save_every: SAVE_EVERY,
        report: opts.report,
        report_every: opts.report_every.unwrap_or(Duration::from_secs(10)),
        reported: Instant::now(),
        walk: WalkClock::new(n, 0, Region::Board, (0, 1), 0),
        max_bytes: opts.max_bytes,
        full: false,
        bytes: 0,
        images: 0,
        lines: 0,
    };
    // Where to start: (round, walk, first queens finished, second queen's row).
    let mut from = (0, 0, 0, 0);
    let mut began = 0;
    if let Some(r) = resume {
        if r.witnesses.n() != n {
            return Err(Error::internal("a resumed run of another board"));
        }
        from = (r.k, r.region, r.done, r.row);
        search.seed = r.seed;
        search.searched = r.searched;
        began = r.began;
        out.witnesses = r.witnesses;
        out.rounds = r.rounds;
        search.rounds = out.rounds.clone();
        search.lines = out.witnesses.solutions().len();
        // Every round before the resumed one was settled.
        out.lower = r.k.checked_sub(1).filter(|_| only.is_none());
    }
    if let Some(seed) = &opts.seed {
        if seed.n() != n {
            return Err(Error::unsupported_at_field(
                "seed_cover",
                format!("a cover of the {0}×{0} board, not {n}×{n}", seed.n()),
            ));
        }
        // A shard keeps the solutions that can hold one of its first queens: the rest are
        // in no list it walks.
        let firsts: Vec<Cell> = first_queens(n)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % part.1 == part.0)
            .map(|(_, q)| q)
            .collect();
        for line in seed.solutions().iter() {
            let useful = part.1 == 1
                || (0..8).any(|s| {
                    let image = map_solution(line, s);
                    firsts.iter().any(|&(r, c)| image[r] as usize == c)
                });
            if useful {
                out.witnesses.add(line);
            }
        }
    }
    search.bytes = out.witnesses.bytes();
    search.images = out.witnesses.len();
    search.lines = out.witnesses.solutions().len();
    let ks: Vec<usize> = match only {
        Some(k) => vec![k],
        None => (0..=n).collect(),
    };
    for k in ks {
        if k < from.0 {
            continue;
        }
        let regions = regions(n, k);
        let of = regions.len() as u64;
        for (i, region) in regions.into_iter().enumerate() {
            if (k, i) < (from.0, from.1) {
                continue;
            }
            let resumed = (k, i) == (from.0, from.1);
            let skip = if resumed { (from.2, from.3) } else { (0, 0) };
            let before = if resumed { began } else { search.searched };
            search.round = (i as u64, of);
            search.mark = Mark {
                k,
                region: i,
                done: skip.0,
                row: skip.1,
                seed: search.seed,
                searched: search.searched,
                solutions: out.witnesses.solutions().len(),
                began: before,
            };
            let start = Instant::now();
            search.walk =
                WalkClock::new(n, k, region, part, search.searched).resumed_at(skip.0, skip.1);
            let within = region.cells(n);
            let walked = walk_part_resume(
                k,
                within.as_deref(),
                part,
                skip,
                &mut out.witnesses,
                &mut search,
            );
            let stats = match &walked {
                Walked::Covered(s) | Walked::Stopped(s, _) => *s,
            };
            out.rounds.push(Round {
                k,
                region,
                stats,
                searched: search.searched - before,
                witnesses: out.witnesses.len(),
                bytes: out.witnesses.bytes(),
                ms: ms(start),
            });
            if let Some(e) = search.error.take() {
                return Err(e);
            }
            if search.interrupted {
                search.save(out.witnesses.solutions())?;
                out.interrupted = true;
                out.full = search.full;
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
            // The walk is finished: the next one starts from here.
            search.rounds = out.rounds.clone();
            search.mark = Mark {
                k,
                region: i + 1,
                done: 0,
                row: 0,
                seed: search.seed,
                searched: search.searched,
                solutions: out.witnesses.solutions().len(),
                began: search.searched,
            };
            search.save(out.witnesses.solutions())?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The points of a walk in order: before each first queen, then before each row of its
    /// second queen.
    fn points(n: usize) -> Vec<(u64, usize)> {
        let mut out = Vec::new();
        for (i, &(m, _)) in first_queens(n).iter().enumerate() {
            out.push((i as u64, 0));
            out.extend((m + 1..n - m).map(|r| (i as u64, r)));
        }
        out.push((first_queens(n).len() as u64, 0));
        out
    }

    /// The share grows from 0 to 1 through the walk, and inside a first queen with its
    /// second queen's rows: the first queen under way counts only for its rows finished.
    #[test]
    fn the_share_done_grows_row_by_row() {
        for (n, k, part) in [
            (14, 3, (0, 1)),
            (14, 5, (0, 1)),
            (20, 5, (1, 3)),
            (9, 4, (0, 2)),
        ] {
            let clock = WalkClock::new(n, k, Region::Board, part, 0);
            let shares: Vec<f64> = points(n)
                .iter()
                .map(|&(d, r)| clock.fraction(d, r))
                .collect();
            assert_eq!(shares[0], 0.0, "n = {n}, k = {k}");
            assert!(
                (shares.last().unwrap() - 1.0).abs() < 1e-12,
                "n = {n}, k = {k}"
            );
            assert!(
                shares.windows(2).all(|w| w[0] <= w[1] + 1e-12),
                "n = {n}, k = {k}: {shares:?}"
            );
            // The shard's first first queen, half-way down its rows: part of its weight.
            let first = part.0 as u64;
            let (m, _) = first_queens(n)[part.0];
            let begun = clock.fraction(first, 0);
            let half = clock.fraction(first, (m + 1 + n - m) / 2);
            let after = clock.fraction(first + 1, 0);
            assert!(
                begun < half && half < after,
                "n = {n}, k = {k}: {begun} {half} {after}"
            );
        }
    }

    /// A resumed walk's time left counts only what it walked since it resumed.
    #[test]
    fn a_resumed_walk_reckons_its_rate_from_where_it_resumed() {
        let clock = WalkClock::new(16, 4, Region::Board, (0, 1), 0).resumed_at(3, 0);
        let at_start = clock.at_start;
        assert!(at_start > 0.0 && at_start < 1.0);
        let report = Report {
            k: 4,
            region: Region::Board,
            first_queens_done: 5,
            first_queens: first_queens(16).len() as u64,
            placements: 1000,
            searched: 0,
            solutions: 0,
            witnesses: 0,
            bytes: 0,
            seconds: 10.0,
            fraction: at_start + (1.0 - at_start) / 2.0,
            fraction_at_start: at_start,
        };
        // Half of what was left walked in 10 s: 10 s to go.
        assert!((report.eta().unwrap() - 10.0).abs() < 1e-9);
    }
}
