//! Problem → CNF: one variable per cell that can still hold a queen, lines as exactly-one or
//! at-most-one constraints in a chosen encoding, written into any [`ClauseSink`].
//!
//! Two modes. [`FixedMode::Simplify`] (the default) removes what fixed queens decide, as
//! CSPLib prob079 describes: their rows, columns and regions drop out and the cells they
//! attack get no variable; a line left without a cell is the empty clause. [`FixedMode::Assume`]
//! keeps every open cell and explicitly blocked cell as a variable and returns fixed queens
//! (positive) and blocked cells (negative) as solver assumptions, so one encoding answers many
//! preplacements and failed assumptions explain unsatisfiability.
//!
//! Cell variables are always numbered first, row-major, so DIMACS variables `1..=cells` are
//! cells and the rest are auxiliary variables of the encodings.

pub mod rings;

use varisat::{Lit, Var};

use crate::encode::amo::{at_most_one, exactly_one, Encoding};
use crate::encode::ClauseSink;
use queens_model::model::{Diagonal, DiagonalRule, Pos, Problem};
use queens_model::verify::first_conflict;

/// What to do with fixed queens and blocked cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FixedMode {
    /// Simplify them away before encoding.
    #[default]
    Simplify,
    /// Keep them as assumptions.
    Assume,
}

/// The map between cells and variables of one encoding, plus its assumptions.
#[derive(Clone, Debug)]
pub struct CellMap {
    n: usize,
    /// `lit[r * n + c]`: the cell's positive literal, if it has a variable.
    lit: Vec<Option<Lit>>,
    /// Cells with a variable, in variable order.
    cells: Vec<Pos>,
    /// Queens decided before encoding (fixed queens in `Simplify` mode).
    decided: Vec<Pos>,
    /// Assumptions: fixed queens (positive) and blocked cells (negative) in `Assume` mode.
    assumptions: Vec<(Lit, Preset)>,
    /// Set when encoding found the problem unsatisfiable outright (and added the empty clause).
    trivially_unsat: Option<String>,
}

/// What an assumption stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// A fixed queen on this cell.
    Queen(Pos),
    /// This cell is blocked.
    Blocked(Pos),
}

impl CellMap {
    /// The positive literal of a cell's variable, if the cell has one.
    pub fn lit(&self, (r, c): Pos) -> Option<Lit> {
        if self.lit.is_empty() {
            // A core's map (past MAX_N): cells are in row-major order.
            let i = self.cells.binary_search(&(r, c)).ok()?;
            return Some(Var::from_index(i).positive());
        }
        self.lit[r * self.n + c]
    }

    /// True for the map of a board's core (past [`queens_model::model::MAX_N`]): nothing is held per
    /// cell of the board.
    pub fn is_core(&self) -> bool {
        self.lit.is_empty() && self.n > queens_model::model::MAX_N
    }

    /// The cells that have a variable, in variable order (variable `i + 1` is `cells()[i]`).
    pub fn cells(&self) -> &[Pos] {
        &self.cells
    }

    /// Each cell's DIMACS variable, row-major (`r * n + c`), 0 for a cell without one: the
    /// table [`crate::backtrack::certify::refute`] writes its lemmas with.
    pub fn var_table(&self) -> Vec<u32> {
        self.lit
            .iter()
            .map(|l| l.map_or(0, |l| l.to_dimacs() as u32))
            .collect()
    }

    /// Assumptions to pass to the solver, with what each stands for.
    pub fn assumptions(&self) -> &[(Lit, Preset)] {
        &self.assumptions
    }

    /// Why the encoder already knows there is no solution, if it does.
    pub fn trivially_unsat(&self) -> Option<&str> {
        self.trivially_unsat.as_deref()
    }

    /// The queens a model describes: decided queens plus cells whose variable is true, sorted.
    /// `is_true(lit)` answers for positive cell literals.
    pub fn decode(&self, is_true: impl Fn(Lit) -> bool) -> Vec<Pos> {
        let mut queens = self.decided.clone();
        queens.extend(
            self.cells
                .iter()
                .copied()
                .filter(|&p| is_true(self.lit(p).expect("listed cells have variables"))),
        );
        queens.sort_unstable();
        queens
    }

    /// The clause that forbids one solution again: not all of its cell variables true.
    pub fn blocking_clause(&self, queens: &[Pos]) -> Vec<Lit> {
        queens
            .iter()
            .filter_map(|&p| self.lit(p))
            .map(|l| !l)
            .collect()
    }
}

/// A board past [`queens_model::model::MAX_N`] (classic, always) is encoded as its core
/// ([`crate::completion`]): one variable per open cell of the free rows × free
/// columns, in row-major order, exactly one per free row and column in `encoding`, at most
/// one per shared diagonal (pairwise); the fixed queens are decided. Callers check
/// [`crate::completion::fits`] first: a core past it gets no clauses here, and the
/// verifier then refuses whatever a solver makes of that.
fn encode_core(problem: &Problem, encoding: Encoding, sink: &mut impl ClauseSink) -> CellMap {
    use crate::completion::{presolve, Presolved};
    let mut map = CellMap {
        n: problem.n(),
        lit: Vec::new(),
        cells: Vec::new(),
        decided: problem.fixed().to_vec(),
        assumptions: Vec::new(),
        trivially_unsat: None,
    };
    match presolve(problem, false, &crate::Budget::default()) {
        Ok(Some(Presolved::Core(core))) => {
            let lits: Vec<Lit> = (0..core.cells()).map(|_| sink.new_var()).collect();
            map.cells = (0..core.cells() as u32).map(|x| core.position(x)).collect();
            core.encode(&lits, encoding, sink);
        }
        Ok(Some(Presolved::Refuted(why))) => {
            map.trivially_unsat = Some(why.reason().to_string());
            sink.add_clause(&[]);
        }
        Ok(None) | Err(_) => {}
    }
    map
}

/// Encodes the problem into `sink` and returns the cell map.
pub fn encode(
    problem: &Problem,
    encoding: Encoding,
    mode: FixedMode,
    sink: &mut impl ClauseSink,
) -> CellMap {
    if problem.is_sparse() {
        return encode_core(problem, encoding, sink);
    }
    let n = problem.n();
    let mut map = CellMap {
        n,
        lit: vec![None; n * n],
        cells: Vec::new(),
        decided: Vec::new(),
        assumptions: Vec::new(),
        trivially_unsat: None,
    };
    let regions = problem.regions();
    // Which lines are already satisfied by a decided queen.
    let mut row_done = vec![false; n];
    let mut col_done = vec![false; n];
    let mut region_done = vec![false; n];
    let mut has_var = vec![false; n * n];
    match mode {
        FixedMode::Simplify => {
            if let Some(v) = first_conflict(problem, problem.fixed()) {
                map.trivially_unsat = Some(format!("the fixed queens already break a rule: {v}"));
            }
            for &(r, c) in problem.fixed() {
                row_done[r] = true;
                col_done[c] = true;
                if let Some(g) = regions {
                    region_done[g.id((r, c))] = true;
                }
            }
            map.decided = problem.fixed().to_vec();
            // Cells a fixed queen attacks along a diagonal (rows, columns and regions are
            // covered by the `done` flags).
            let mut sum_hit = vec![false; 2 * n - 1];
            let mut diff_hit = vec![false; 2 * n - 1];
            let mut near = vec![false; n * n];
            for &(r, c) in problem.fixed() {
                match problem.rule() {
                    DiagonalRule::Full => {
                        sum_hit[r + c] = true;
                        diff_hit[c + n - 1 - r] = true;
                    }
                    DiagonalRule::Touch => {
                        for r2 in r.saturating_sub(1)..=(r + 1).min(n - 1) {
                            for c2 in c.saturating_sub(1)..=(c + 1).min(n - 1) {
                                near[r2 * n + c2] = true;
                            }
                        }
                    }
                }
            }
            for r in 0..n {
                for c in 0..n {
                    let p = (r, c);
                    has_var[r * n + c] = !row_done[r]
                        && !col_done[c]
                        && !regions.is_some_and(|g| region_done[g.id(p)])
                        && problem.is_open(p)
                        && !sum_hit[r + c]
                        && !diff_hit[c + n - 1 - r]
                        && !near[r * n + c];
                }
            }
        }
        FixedMode::Assume => {
            for r in 0..n {
                for c in 0..n {
                    let p = (r, c);
                    has_var[r * n + c] =
                        problem.is_open(p) || problem.blocked().binary_search(&p).is_ok();
                }
            }
            // A fixed queen on an excluded diagonal has no variable: no assumption can
            // place it, so the problem is unsatisfiable as stated.
            if let Some(&p) = problem.fixed().iter().find(|&&(r, c)| !has_var[r * n + c]) {
                map.trivially_unsat = Some(format!(
                    "fixed queen ({},{}) stands on an excluded diagonal",
                    p.0, p.1
                ));
            }
        }
    }
    for (i, &v) in has_var.iter().enumerate() {
        if v {
            // A counting sink that is over its cap stops here, before the lines below
            // (two n² lists of cells) are built: refusing a 4096×4096 encoding must not
            // need a gigabyte.
            if sink.full() {
                return map;
            }
            let lit = sink.new_var();
            map.lit[i] = Some(lit);
            map.cells.push((i / n, i % n));
        }
    }
    if map.trivially_unsat.is_some() {
        sink.add_clause(&[]);
    }
    if mode == FixedMode::Assume {
        for &p in problem.fixed() {
            if let Some(l) = map.lit(p) {
                map.assumptions.push((l, Preset::Queen(p)));
            }
        }
        for &p in problem.blocked() {
            let l = map
                .lit(p)
                .expect("blocked cells have variables in Assume mode");
            map.assumptions.push((!l, Preset::Blocked(p)));
        }
    }

    let lits_of = |cells: &mut dyn Iterator<Item = Pos>| -> Vec<Lit> {
        cells.filter_map(|p| map.lit(p)).collect()
    };
    // Rows, columns and regions not yet satisfied: exactly one queen each.
    let mut lines: Vec<(String, Vec<Pos>)> = Vec::new();
    for r in (0..n).filter(|&r| !row_done[r]) {
        lines.push((format!("row {r}"), (0..n).map(|c| (r, c)).collect()));
    }
    for c in (0..n).filter(|&c| !col_done[c]) {
        lines.push((format!("column {c}"), (0..n).map(|r| (r, c)).collect()));
    }
    if let Some(g) = regions {
        for (id, cells) in g.cells().into_iter().enumerate() {
            if !region_done[id] {
                lines.push((format!("region {}", g.name(id)), cells));
            }
        }
    }
    let mut empty_line = None;
    for (name, cells) in lines {
        if sink.full() {
            return map;
        }
        let lits = lits_of(&mut cells.into_iter());
        if lits.is_empty() {
            empty_line.get_or_insert(format!("{name} has no cell left for a queen"));
        }
        exactly_one(sink, &lits, encoding);
    }
    match problem.rule() {
        DiagonalRule::Full => {
            for k in 0..2 * n - 1 {
                if sink.full() {
                    return map;
                }
                for d in [Diagonal::Sum(k), Diagonal::Diff(k)] {
                    at_most_one(sink, &lits_of(&mut d.cells(n)), encoding);
                }
            }
        }
        DiagonalRule::Touch => {
            for r in 0..n.saturating_sub(1) {
                for c in 0..n {
                    let Some(a) = map.lit((r, c)) else { continue };
                    for c2 in [c.wrapping_sub(1), c + 1] {
                        if let Some(b) = (c2 < n).then(|| map.lit((r + 1, c2))).flatten() {
                            sink.add_clause(&[!a, !b]);
                        }
                    }
                }
            }
        }
    }
    if map.trivially_unsat.is_none() {
        map.trivially_unsat = empty_line;
    }
    map
}
