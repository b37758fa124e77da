//! The core as CNF: one variable per open cell (cell `x` is variable `x + 1`), exactly one
//! per free row and column (Sinz's sequential counter for at most one, which unit
//! propagation keeps arc consistent), at most one per shared diagonal (pairwise: a shared
//! diagonal holds two or three open cells on random completions).
//!
//! Unit propagation on this formula does at least what the core search's propagation does,
//! so the search's DRAT lemmas ([`super::search::prove`]) are each a RUP step here.

use std::io::{self, Write};

use varisat::{CnfFormula, Lit, Var};

use super::core::Core;
use crate::encode::amo::{self, Encoding};
use crate::encode::ClauseSink;

/// The core CNF proofs refute: sequential counters for the rows and columns.
pub fn formula(core: &Core) -> CnfFormula {
    let mut f = CnfFormula::new();
    let lits: Vec<Lit> = (0..core.cells())
        .map(|x| Var::from_index(x).positive())
        .collect();
    f.set_var_count(core.cells());
    core.encode(&lits, Encoding::Seq, &mut f);
    f
}

impl Core {
    /// Writes the core's clauses into `sink`, cell `x` being `lits[x]`: exactly one per row
    /// and column in `encoding`, at most one per shared diagonal, pairwise.
    pub fn encode(&self, lits: &[Lit], encoding: Encoding, sink: &mut impl ClauseSink) {
        let mut line: Vec<Lit> = Vec::new();
        for i in 0..self.rows() as u32 {
            line.clear();
            line.extend(self.row_cells(i).map(|x| lits[x as usize]));
            amo::exactly_one(sink, &line, encoding);
        }
        for j in 0..self.rows() as u32 {
            line.clear();
            line.extend(self.col_cells.get(j).iter().map(|&x| lits[x as usize]));
            amo::exactly_one(sink, &line, encoding);
        }
        for lines in [&self.sum_cells, &self.diff_cells] {
            for d in 0..lines.len() as u32 {
                line.clear();
                line.extend(lines.get(d).iter().map(|&x| lits[x as usize]));
                amo::at_most_one(sink, &line, Encoding::Pairwise);
            }
        }
    }
}

/// Writes the core CNF as DIMACS with `header` comment lines and a `c cell VAR ROW COL` line
/// per cell variable (0-based board cells, as [`queens_model::formats::dimacs::write_cnf`] writes
/// every CNF of the product), so a model of any solver maps back to the n×n board. The fixed
/// queens are the instance's and are not repeated.
pub fn write_dimacs(
    core: &Core,
    formula: &CnfFormula,
    header: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut header = header.to_vec();
    header.push(format!(
        "the core: {} free rows and columns, {} open cells; variables 1 to {} are cells",
        core.rows(),
        core.cells(),
        core.cells()
    ));
    let cells: Vec<_> = (0..core.cells() as u32).map(|x| core.position(x)).collect();
    let mut out = io::BufWriter::new(out);
    queens_model::formats::dimacs::write_cnf(&mut out, formula, &cells, &[], &header)?;
    out.flush()
}

/// The core cells a model sets true (`value(var)` for variables `1..=cells`).
pub fn decode(core: &Core, value: impl Fn(usize) -> bool) -> Vec<u32> {
    (0..core.cells() as u32)
        .filter(|&x| value(x as usize + 1))
        .collect()
}
