//! Clause sinks: where encoders write CNF, so one encoder serves solving, DIMACS and statistics.
//!
//! An encoder takes `&mut impl ClauseSink` instead of a solver. Any varisat
//! [`ExtendFormula`] is a sink (a [`varisat::Solver`] to solve directly,
//! a [`varisat::CnfFormula`] to print as DIMACS), and [`Counter`] only counts what it is given.
//! Encodings of single constraints live in the submodules, e.g. [`amo`].
//!
//! ```
//! use queens_engine::encode::amo::{exactly_one, Encoding};
//! use queens_engine::encode::Counter;
//! use varisat::{CnfFormula, ExtendFormula, Solver};
//!
//! // Solve directly: exactly one of four literals.
//! let mut solver = Solver::new();
//! let lits: Vec<_> = (0..4).map(|_| solver.new_lit()).collect();
//! exactly_one(&mut solver, &lits, Encoding::Seq);
//! assert_eq!(solver.solve().ok(), Some(true));
//!
//! // The same encoder, into a formula printed as DIMACS.
//! let mut formula = CnfFormula::new();
//! let lits: Vec<_> = (0..4).map(|_| formula.new_lit()).collect();
//! exactly_one(&mut formula, &lits, Encoding::Seq);
//! let mut dimacs = Vec::new();
//! varisat::dimacs::write_dimacs(&mut dimacs, &formula).unwrap();
//! assert!(String::from_utf8(dimacs).unwrap().starts_with("p cnf 7 9"));
//!
//! // Or only count: 1 at-least-one clause + 3·4 − 4 sequential-counter clauses.
//! let mut counter = Counter { vars: 4, ..Counter::default() };
//! exactly_one(&mut counter, &lits, Encoding::Seq);
//! assert_eq!((counter.vars, counter.clauses, counter.literals), (7, 9, 20));
//! ```
//!
//! Importing both [`ClauseSink`] and [`ExtendFormula`] makes `solver.add_clause(..)`
//! ambiguous; encoders only need `ClauseSink`, callers usually only `ExtendFormula`.

use varisat::{ExtendFormula, Lit, Var};

pub mod amo;

/// Something clauses can be written into.
pub trait ClauseSink {
    /// Allocates a fresh variable (1-based DIMACS index, i.e. [`Var::from_dimacs`] semantics)
    /// and returns it as a positive literal.
    fn new_var(&mut self) -> Lit;

    /// Adds one clause (a disjunction of `lits`; the empty slice is the empty clause).
    fn add_clause(&mut self, lits: &[Lit]);

    /// True when the sink wants no more clauses: an encoder may stop between constraints
    /// (what it wrote is then incomplete). Only sinks that measure are ever full: a size
    /// estimate stops as soon as it is over its limit.
    fn full(&self) -> bool {
        false
    }
}

impl<T: ExtendFormula> ClauseSink for T {
    fn new_var(&mut self) -> Lit {
        self.new_lit()
    }

    fn add_clause(&mut self, lits: &[Lit]) {
        ExtendFormula::add_clause(self, lits);
    }
}

/// A sink that keeps nothing but the numbers: variables allocated, clauses and literals added.
///
/// Variables it hands out are numbered `vars + 1`, `vars + 2`, …, so set `vars` to the number
/// of variables already in use before encoding (inputs, earlier constraints) if the literals
/// must not collide with them; the counts themselves do not depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counter {
    /// Variables allocated so far (the highest DIMACS index handed out).
    pub vars: usize,
    /// Clauses added so far.
    pub clauses: usize,
    /// Literals in all clauses added so far.
    pub literals: usize,
}

impl ClauseSink for Counter {
    fn new_var(&mut self) -> Lit {
        self.vars += 1;
        Var::from_index(self.vars - 1).positive()
    }

    fn add_clause(&mut self, lits: &[Lit]) {
        self.clauses += 1;
        self.literals += lits.len();
    }
}
