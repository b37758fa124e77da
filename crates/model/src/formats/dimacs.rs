//! DIMACS in and out: the CNF with its cell map as comments, and external solvers' models.

use std::io::{self, Write};

use crate::error::Error;
use crate::model::Pos;

/// Writes a formula as DIMACS CNF. Comment lines map cell variables (`c cell VAR ROW COL`:
/// variable i + 1 is `cells[i]`) and name queens decided before encoding (`c fixed ROW COL`), so any external solver's model can be read back.
pub fn write_cnf(
    out: &mut impl Write,
    formula: &varisat_formula::CnfFormula,
    cells: &[Pos],
    fixed: &[Pos],
    header: &[String],
) -> io::Result<()> {
    for line in header {
        writeln!(out, "c {line}")?;
    }
    for (r, c) in fixed {
        writeln!(out, "c fixed {r} {c}")?;
    }
    for (i, &(r, c)) in cells.iter().enumerate() {
        writeln!(out, "c cell {} {r} {c}", i + 1)?;
    }
    varisat_dimacs::write_dimacs(out, formula)
}

/// A solver's answer read from its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelAnswer {
    /// `s SATISFIABLE` / `SAT` (or a bare literal list): the true variables (1-based DIMACS
    /// numbers), in the order listed.
    Sat(Vec<usize>),
    /// `s UNSATISFIABLE` / `UNSAT`.
    Unsat,
    /// `s UNKNOWN` / `s INDETERMINATE` / `INDET`: the solver gave up.
    Unknown,
}

/// Reads a model in the SAT competition format (`s …` line, `v … 0` lines, comments),
/// minisat's result file (`SAT` then the literals ending in `0`; `UNSAT`; `INDET`) or a bare
/// list of literals. Errors name the line: a second status line, a token that is not a
/// literal, and (for a satisfiable answer) a variable listed both true and false.
///
/// Literals are not checked against a variable count here; [`parse_model_for`] does that
/// when the CNF the model answers is known.
pub fn parse_model(origin: &str, text: &str) -> Result<ModelAnswer, Error> {
    read_model(origin, text, None)
}

/// [`parse_model`] for a CNF with `num_vars` variables: a literal whose variable is larger is
/// an error naming the literal and its line (`line 2: literal -9 is out of range: the CNF has
/// 8 variables`).
pub fn parse_model_for(origin: &str, text: &str, num_vars: usize) -> Result<ModelAnswer, Error> {
    read_model(origin, text, Some(num_vars))
}

/// The variable count of a DIMACS CNF, from its `p cnf VARS CLAUSES` line (the first line
/// that is not a comment).
pub fn header_vars(origin: &str, text: &str) -> Result<usize, Error> {
    let text = crate::formats::strip_bom(text);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('c') {
            continue;
        }
        let mut words = line.split_whitespace();
        return match (words.next(), words.next(), words.next()) {
            (Some("p"), Some("cnf"), Some(vars)) => vars.parse().map_err(|_| {
                Error::input_at_line(origin, i + 1, format!("{vars:?} is not a variable count"))
            }),
            _ => Err(Error::input_at_line(
                origin,
                i + 1,
                "expected the `p cnf VARS CLAUSES` line",
            )),
        };
    }
    Err(Error::input(
        origin,
        "no `p cnf VARS CLAUSES` line: not a DIMACS CNF",
    ))
}

/// One line of a model file, classified.
enum ModelLine<'a> {
    Blank,
    Status(ModelAnswer),
    Literals(&'a str),
}

fn classify(line: &str) -> Result<ModelLine<'_>, String> {
    let status = |s: &str| match s {
        "SATISFIABLE" | "SAT" => Some(ModelAnswer::Sat(Vec::new())),
        "UNSATISFIABLE" | "UNSAT" => Some(ModelAnswer::Unsat),
        "UNKNOWN" | "INDETERMINATE" | "INDET" => Some(ModelAnswer::Unknown),
        _ => None,
    };
    if line.is_empty() || line.starts_with('c') {
        return Ok(ModelLine::Blank);
    }
    if let Some(s) = line.strip_prefix("s ") {
        return status(s.trim())
            .map(ModelLine::Status)
            .ok_or_else(|| format!("unknown status {:?}", s.trim()));
    }
    // minisat's result file: a bare status word on its own line.
    if line.starts_with(|c: char| c.is_ascii_uppercase()) {
        if let Some(answer) = status(line) {
            return Ok(ModelLine::Status(answer));
        }
    }
    Ok(ModelLine::Literals(line.strip_prefix('v').unwrap_or(line)))
}

fn literal(tok: &str) -> Result<i64, String> {
    tok.parse()
        .map_err(|_| format!("{tok:?} is not a literal (expected a signed integer)"))
}

fn read_model(origin: &str, text: &str, num_vars: Option<usize>) -> Result<ModelAnswer, Error> {
    let text = crate::formats::strip_bom(text);
    let mut status: Option<(usize, ModelAnswer)> = None;
    let mut true_vars = Vec::new();
    // Every variable listed, signed, to find one listed both ways without a table as large
    // as the largest variable number.
    let mut listed: Vec<i64> = Vec::new();
    let mut saw_literals = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let err = |m: String| Error::input_at_line(origin, line_no, m);
        match classify(raw.trim()).map_err(err)? {
            ModelLine::Blank => {}
            ModelLine::Status(answer) => {
                if let Some((before, _)) = status {
                    return Err(err(format!(
                        "a second status line (the first is on line {before})"
                    )));
                }
                status = Some((line_no, answer));
            }
            ModelLine::Literals(body) => {
                for tok in body.split_whitespace() {
                    let lit = literal(tok).map_err(err)?;
                    saw_literals = true;
                    if lit == 0 {
                        continue;
                    }
                    let var = lit.unsigned_abs();
                    if let Some(max) = num_vars {
                        if var > max as u64 {
                            return Err(err(format!(
                                "literal {lit} is out of range: the CNF has {max} variables"
                            )));
                        }
                    }
                    listed.push(lit);
                    if lit > 0 {
                        true_vars.push(usize::try_from(lit).unwrap_or(usize::MAX));
                    }
                }
            }
        }
    }
    let status = status.map(|(_, answer)| answer);
    match status {
        Some(ModelAnswer::Sat(_)) | None if saw_literals => {
            if let Some(var) = contradiction(&mut listed) {
                return Err(contradiction_error(origin, text, var));
            }
            Ok(ModelAnswer::Sat(true_vars))
        }
        Some(ModelAnswer::Sat(_)) => Err(Error::input(
            origin,
            "says SATISFIABLE but lists no literals (expected `v … 0` lines)",
        )),
        Some(answer) => Ok(answer),
        None => Err(Error::input(
            origin,
            "no solver answer found (expected `s SATISFIABLE`/`s UNSATISFIABLE` or literals)",
        )),
    }
}

/// A variable listed both true and false, if any.
fn contradiction(listed: &mut [i64]) -> Option<u64> {
    listed.sort_unstable_by_key(|&l| (l.unsigned_abs(), l));
    listed
        .windows(2)
        .find(|w| w[0].unsigned_abs() == w[1].unsigned_abs() && w[0] != w[1])
        .map(|w| w[0].unsigned_abs())
}

/// The error for `var` listed both ways, naming the line where its second sign appears.
fn contradiction_error(origin: &str, text: &str, var: u64) -> Error {
    let (mut pos, mut neg) = (false, false);
    for (i, raw) in text.lines().enumerate() {
        let Ok(ModelLine::Literals(body)) = classify(raw.trim()) else {
            continue;
        };
        for lit in body.split_whitespace().filter_map(|t| literal(t).ok()) {
            if lit.unsigned_abs() != var {
                continue;
            }
            if lit > 0 {
                pos = true;
            } else {
                neg = true;
            }
            if pos && neg {
                let other = -i128::from(lit);
                return Error::input_at_line(
                    origin,
                    i + 1,
                    format!(
                        "literal {lit} contradicts {other}, listed before: a model \
                         gives each variable one value"
                    ),
                );
            }
        }
    }
    Error::input(
        origin,
        format!("variable {var} is listed both true and false"),
    )
}
