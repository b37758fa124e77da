//! The certificate of a threshold term, and its check, which uses the verifier and the LRAT
//! checker and nothing that searches.
//!
//! A certificate is a folder:
//! - `threshold.json`: the claim, `{"n": N, "k": K}`: every placement of at most `K` queens
//!   on the `N`×`N` board completes;
//! - `cover.txt`: solutions, one a line, as 0-based columns separated by spaces, such that
//!   every non-attacking placement of at most `K` queens lies, after one of the eight
//!   symmetries, inside one of them (`#` starts a comment line);
//! - optionally `counterexample.json`, a placement of `K + 1` queens as an instance
//!   (`{"n": N, "queens": [[r, c], …]}`), with `counterexample.lrat.cnf`, a CNF whose every
//!   clause holds in every completion of it (checked clause by clause, below), and
//!   `counterexample.lrat`, a text LRAT refutation of that CNF: then the term is exactly `K`.
//!
//! A folder may instead claim only an upper bound, `{"n": N, "at_most": K}`: it holds no
//! cover, only the counterexample of `K + 1` queens, which shows `a(N) ≤ K` (a placement of
//! more queens was found to have no completion before any round walked the board).
//!
//! The CNF's clauses are checked against the placement, not against an encoder: its
//! variables are cells (`c cell VAR ROW COL` comment lines, as `queens encode` writes them),
//! and each clause must be one of: two negated cells that share a line (they cannot both hold
//! a queen), a negated cell a queen of the placement attacks, or a set of cells holding every
//! cell of some free row or column that no queen attacks (that line's queen stands on one of
//! them). A completion then satisfies every clause, so a refutation of the CNF proves that
//! the placement has none.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use varisat_formula::{CnfFormula, ExtendFormula, Lit};

use super::walk::{walk_part, Cell, Flow, Lines, Settle, WalkStats, Walked, Witnesses, MAX_WALK_N};
use queens_model::error::Error;
use queens_model::model::{DiagonalRule, Problem};

/// The claim's file name.
pub const CLAIM: &str = "threshold.json";
/// The cover's file name.
pub const COVER: &str = "cover.txt";
/// The cover's file name in binary form ([`cover_bin`]), read in place of [`COVER`] when a
/// folder holds it.
pub const COVER_BIN: &str = "cover.bin";
/// The first bytes of a binary cover.
pub const COVER_MAGIC: &[u8; 16] = b"queens-cover-v1\n";
/// The counterexample's file name.
pub const COUNTEREXAMPLE: &str = "counterexample.json";
/// Its proof's file name.
pub const PROOF: &str = "counterexample.lrat";
/// The CNF its proof refutes.
pub const PROOF_CNF: &str = "counterexample.lrat.cnf";

/// What an accepted certificate shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The board size.
    pub n: usize,
    /// Every placement of at most `k` queens completes.
    pub k: usize,
    /// True when a placement of `k + 1` queens was proved to have no completion: the term
    /// is exactly `k` (or, without a cover, at most `k`).
    pub exact: bool,
    /// False for a claim of an upper bound only (`at_most`): no cover was checked, and the
    /// counterexample shows `a(n) ≤ k`.
    pub covered: bool,
    /// Lines of the cover.
    pub solutions: usize,
    /// The cover with its symmetric images.
    pub witnesses: usize,
    /// The placements walked.
    pub walk: WalkStats,
    /// Lemmas of the proof (0 without a counterexample).
    pub lemmas: u64,
}

/// A certificate's check: accepted, or rejected with the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every part checked.
    Accepted(Accepted),
    /// Why not.
    Rejected(String),
}

fn read(dir: &Path, name: &str) -> Result<String, Error> {
    let path = dir.join(name);
    std::fs::read_to_string(&path).map_err(|source| Error::Io { path, source })
}

/// Reads the claim `threshold.json` of a folder with a cover: `(n, k)`. A claim of an upper
/// bound only (`at_most`) is refused, naming the command that checks it.
pub fn read_claim(dir: &Path) -> Result<(usize, usize), Error> {
    let (n, k, covered) = read_any_claim(dir)?;
    if !covered {
        return Err(bound_only(dir, n, k));
    }
    Ok((n, k))
}

/// The refusal of a claim of a bound only (`at_most`) where a cover is needed.
fn bound_only(dir: &Path, n: usize, k: usize) -> Error {
    Error::input_at_field(
        &dir.join(CLAIM).display().to_string(),
        "at_most",
        format!(
            "claims only a({n}) ≤ {k}, from its counterexample: there is no cover to check \
             in parts or merge; check it whole with `queens threshold check {}`",
            dir.display()
        ),
    )
}

/// Reads either claim: `(n, k, true)` for `{"n", "k"}`, `(n, k, false)` for
/// `{"n", "at_most": k}`.
pub fn read_any_claim(dir: &Path) -> Result<(usize, usize, bool), Error> {
    let origin = dir.join(CLAIM).display().to_string();
    let text = read(dir, CLAIM)?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| Error::input(&origin, e.to_string()))?;
    let covered = value.get("at_most").is_none();
    let field = |name: &str| {
        value
            .get(name)
            .and_then(serde_json::Value::as_u64)
            .map(|v| v as usize)
            .ok_or_else(|| {
                Error::input_at_field(
                    &origin,
                    name,
                    format!("field `{name}` must be a non-negative integer"),
                )
            })
    };
    let (n, k) = (field("n")?, field(if covered { "k" } else { "at_most" })?);
    if !(1..=MAX_WALK_N).contains(&n) {
        return Err(Error::input_at_field(
            &origin,
            "n",
            format!("field `n`: {n} is out of range (1..={MAX_WALK_N})"),
        ));
    }
    if k > n {
        let name = if covered { "k" } else { "at_most" };
        return Err(Error::input_at_field(
            &origin,
            name,
            format!("field `{name}`: {k} is more queens than the board's {n} rows"),
        ));
    }
    Ok((n, k, covered))
}

/// The claim's text.
pub fn claim_text(n: usize, k: usize) -> String {
    format!("{{\"n\": {n}, \"k\": {k}}}\n")
}

/// The text of a claim of an upper bound only: a counterexample of `k + 1` queens, no cover.
pub fn bound_claim_text(n: usize, k: usize) -> String {
    format!("{{\"n\": {n}, \"at_most\": {k}}}\n")
}

/// The cover's text: one solution a line.
pub fn cover_text(solutions: Lines<'_>) -> String {
    let mut out = String::with_capacity(solutions.len() * solutions.n() * 3);
    for s in solutions.iter() {
        for (i, c) in s.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&c.to_string());
        }
        out.push('\n');
    }
    out
}

/// The cover in binary form: [`COVER_MAGIC`], the board size as one byte, the number of
/// solutions as 8 bytes little-endian, then each solution as `n` bytes, one column (0-based)
/// per row. At `n = 24` that is 24 bytes a line against about 62 in `cover.txt`.
pub fn cover_bin(solutions: Lines<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(25 + solutions.len() * solutions.n());
    out.extend_from_slice(COVER_MAGIC);
    out.push(solutions.n() as u8);
    out.extend_from_slice(&(solutions.len() as u64).to_le_bytes());
    for s in solutions.iter() {
        out.extend_from_slice(s);
    }
    out
}

/// Reads a cover from its bytes, binary ([`cover_bin`], told by [`COVER_MAGIC`]) or text
/// ([`read_cover`]), as [`read_cover`] does.
pub fn read_cover_bytes(
    origin: &str,
    bytes: &[u8],
    n: usize,
) -> Result<Result<Witnesses, String>, Error> {
    let Some(rest) = bytes.strip_prefix(COVER_MAGIC.as_slice()) else {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::input(origin, format!("neither a binary cover nor text: {e}")))?;
        return read_cover(origin, text, n);
    };
    if rest.len() < 9 {
        return Err(Error::input(
            origin,
            "a binary cover cut short in its header",
        ));
    }
    let file_n = rest[0] as usize;
    if file_n != n {
        return Err(Error::input_at_field(
            origin,
            "n",
            format!("a cover of the {file_n}×{file_n} board, not {n}×{n}"),
        ));
    }
    let count = u64::from_le_bytes(rest[1..9].try_into().expect("8 bytes"));
    let body = &rest[9..];
    if n == 0 || body.len() as u64 != count.saturating_mul(n as u64) {
        return Err(Error::input_at_field(
            origin,
            "count",
            format!(
                "{count} solutions of {n} bytes, but {} bytes follow the header",
                body.len()
            ),
        ));
    }
    let board = Problem::new(n)?;
    let mut witnesses = Witnesses::new(n);
    let mut cols = vec![0u32; n];
    for (i, line) in body.chunks_exact(n).enumerate() {
        if let Some(&c) = line.iter().find(|&&c| c as usize >= n) {
            return Err(Error::input_at_field(
                origin,
                "solutions",
                format!("solution {}: column {c} is off the board (0..{n})", i + 1),
            ));
        }
        for (x, &c) in cols.iter_mut().zip(line) {
            *x = u32::from(c);
        }
        if let Err(v) = queens_model::verify::verify_columns(&board, &cols) {
            return Ok(Err(format!(
                "{origin}: solution {}: not a solution: {v}",
                i + 1
            )));
        }
        witnesses.add(line);
    }
    Ok(Ok(witnesses))
}

/// The cover file of a certificate folder: [`COVER_BIN`] when it is there, else [`COVER`].
pub fn cover_path(dir: &Path) -> PathBuf {
    let bin = dir.join(COVER_BIN);
    if bin.exists() {
        bin
    } else {
        dir.join(COVER)
    }
}

/// Reads the cover file at `path`, binary or text ([`read_cover_bytes`]).
pub fn read_cover_file(path: &Path, n: usize) -> Result<Result<Witnesses, String>, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    read_cover_bytes(&path.display().to_string(), &bytes, n)
}

/// Reads a cover for the `n`×`n` board: every line must be a solution the verifier accepts
/// (else `Ok(Err(reason))`); a line that is not `n` numbers is an input error naming it.
pub fn read_cover(origin: &str, text: &str, n: usize) -> Result<Result<Witnesses, String>, Error> {
    let board = Problem::new(n)?;
    let mut witnesses = Witnesses::new(n);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<u32> = line
            .split_whitespace()
            .map(|w| {
                w.parse::<u32>().map_err(|_| {
                    Error::input_at_line(origin, i + 1, format!("{w:?} is not a column"))
                })
            })
            .collect::<Result<_, _>>()?;
        if cols.len() != n {
            return Err(Error::input_at_line(
                origin,
                i + 1,
                format!("{} columns, expected {n}", cols.len()),
            ));
        }
        if let Some(&c) = cols.iter().find(|&&c| c as usize >= n) {
            return Err(Error::input_at_line(
                origin,
                i + 1,
                format!("column {c} is off the board (0..{n})"),
            ));
        }
        if let Err(v) = queens_model::verify::verify_columns(&board, &cols) {
            return Ok(Err(format!(
                "{origin}: line {}: not a solution: {v}",
                i + 1
            )));
        }
        let cols: Vec<u8> = cols.iter().map(|&c| c as u8).collect();
        witnesses.add(&cols);
    }
    Ok(Ok(witnesses))
}

/// Stops at the first placement no witness holds.
struct Refuse;

impl Settle for Refuse {
    fn uncovered(&mut self, _: &[Cell], _: &mut Witnesses) -> Flow {
        Flow::Stop
    }
}

/// Checks that every placement of at most `k` queens lies, up to symmetry, in a witness.
pub fn check_cover(k: usize, witnesses: &mut Witnesses) -> Result<WalkStats, String> {
    check_cover_part(k, (0, 1), witnesses)
}

/// [`check_cover`] over part `index` of `parts` of the walk only (the placements whose first
/// queen's index in the walk's list is `index` modulo `parts`): the parts together check
/// what [`check_cover`] checks.
pub fn check_cover_part(
    k: usize,
    part: (usize, usize),
    witnesses: &mut Witnesses,
) -> Result<WalkStats, String> {
    match walk_part(k, None, part, witnesses, &mut Refuse) {
        Walked::Covered(stats) => Ok(stats),
        Walked::Stopped(_, Some(p)) => Err(format!(
            "the placement {} lies in no line of the cover, under any symmetry",
            show_cells(&p)
        )),
        Walked::Stopped(_, None) => Err("the cover's walk stopped".into()),
    }
}

/// Cells as `[[r, c], …]`.
pub fn show_cells(cells: &[Cell]) -> String {
    let parts: Vec<String> = cells.iter().map(|(r, c)| format!("[{r}, {c}]")).collect();
    format!("[{}]", parts.join(", "))
}

/// True when two cells share a row, column or diagonal.
fn share_line((a, b): Cell, (c, d): Cell) -> bool {
    a == c || b == d || a + d == c + b || a + b == c + d
}

/// Reads the counterexample and checks it is a non-attacking placement of `k + 1` queens on
/// the `n`×`n` board, that its CNF holds in its every completion, and that the proof refutes
/// the CNF. `Ok(Err(reason))` when a check fails; the lemmas checked when all pass.
pub fn check_counterexample(dir: &Path, n: usize, k: usize) -> Result<Result<u64, String>, Error> {
    let path = dir.join(COUNTEREXAMPLE);
    let problem = queens_model::formats::read_path(&path)?;
    let origin = path.display().to_string();
    if problem.n() != n {
        return Ok(Err(format!(
            "{origin}: a {0}×{0} board, the claim is about {n}×{n}",
            problem.n()
        )));
    }
    if problem.regions().is_some()
        || !problem.blocked().is_empty()
        || !problem.excluded().is_empty()
        || problem.rule() != DiagonalRule::Full
    {
        return Ok(Err(format!(
            "{origin}: not a placement on the classic board (regions, blocked cells, \
             excluded diagonals or another diagonal rule)"
        )));
    }
    let queens: Vec<Cell> = problem.fixed().to_vec();
    if queens.len() != k + 1 {
        return Ok(Err(format!(
            "{origin}: {} queens, a counterexample to k = {k} has {}",
            queens.len(),
            k + 1
        )));
    }
    for (i, &a) in queens.iter().enumerate() {
        for &b in &queens[i + 1..] {
            if share_line(a, b) {
                return Ok(Err(format!(
                    "{origin}: the queens {} and {} attack each other",
                    show_cells(&[a]),
                    show_cells(&[b])
                )));
            }
        }
    }
    let cnf_path = dir.join(PROOF_CNF);
    let formula = match implied_cnf(&cnf_path, n, &queens)? {
        Ok(f) => f,
        Err(why) => return Ok(Err(why)),
    };
    match crate::check::check_lrat_file(&formula, &dir.join(PROOF)) {
        Ok(stats) => Ok(Ok(stats.lemmas)),
        Err(e) => Ok(Err(format!("{}: {e}", dir.join(PROOF).display()))),
    }
}

/// Reads the DIMACS CNF at `path` and checks that each clause holds in every completion of
/// `queens` (module documentation); the formula when all do, `Ok(Err(reason))` naming the
/// first line that does not.
fn implied_cnf(
    path: &Path,
    n: usize,
    queens: &[Cell],
) -> Result<Result<CnfFormula, String>, Error> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: PathBuf::from(path),
        source,
    })?;
    let mut cells: HashMap<usize, Cell> = HashMap::new();
    let mut vars: Option<usize> = None;
    let mut formula = CnfFormula::new();
    let mut clause: Vec<isize> = Vec::new();
    let mut clause_line = 0;
    let attacked = |x: Cell| queens.iter().any(|&q| q != x && share_line(q, x));
    let free_rows: Vec<usize> = (0..n)
        .filter(|r| queens.iter().all(|q| q.0 != *r))
        .collect();
    let free_cols: Vec<usize> = (0..n)
        .filter(|c| queens.iter().all(|q| q.1 != *c))
        .collect();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix('c') {
            let words: Vec<&str> = rest.split_whitespace().collect();
            if words.first() == Some(&"cell") {
                let nums: Vec<usize> = words[1..]
                    .iter()
                    .map(|w| w.parse::<usize>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| Error::input_at_line(&origin, i + 1, "bad `c cell` line"))?;
                match nums[..] {
                    [v, r, c] if r < n && c < n && v >= 1 => {
                        if cells.insert(v, (r, c)).is_some() {
                            return Err(Error::input_at_line(
                                &origin,
                                i + 1,
                                format!("variable {v} mapped twice"),
                            ));
                        }
                    }
                    _ => {
                        return Err(Error::input_at_line(
                            &origin,
                            i + 1,
                            "expected `c cell VAR ROW COL` on the board",
                        ))
                    }
                }
            }
            continue;
        }
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("p cnf") {
            let v = rest
                .split_whitespace()
                .next()
                .and_then(|w| w.parse::<usize>().ok())
                .ok_or_else(|| Error::input_at_line(&origin, i + 1, "bad `p cnf` line"))?;
            vars = Some(v);
            continue;
        }
        if vars.is_none() {
            return Err(Error::input_at_line(
                &origin,
                i + 1,
                "a clause before the `p cnf` line",
            ));
        }
        for w in line.split_whitespace() {
            let x: isize = w.parse().map_err(|_| {
                Error::input_at_line(&origin, i + 1, format!("{w:?} is not a literal"))
            })?;
            if clause.is_empty() {
                clause_line = i + 1;
            }
            if x != 0 {
                clause.push(x);
                continue;
            }
            // The clause is complete: is it implied?
            let mut pos = Vec::new();
            let mut neg = Vec::new();
            for &l in &clause {
                let Some(&cell) = cells.get(&l.unsigned_abs()) else {
                    return Ok(Err(format!(
                        "{origin}: line {clause_line}: variable {} is no cell",
                        l.unsigned_abs()
                    )));
                };
                if l > 0 {
                    pos.push(cell);
                } else {
                    neg.push(cell);
                }
            }
            let implied = if neg.is_empty() {
                free_rows
                    .iter()
                    .any(|&r| (0..n).all(|c| attacked((r, c)) || pos.contains(&(r, c))))
                    || free_cols
                        .iter()
                        .any(|&c| (0..n).all(|r| attacked((r, c)) || pos.contains(&(r, c))))
            } else if pos.is_empty() {
                match neg[..] {
                    [a] => attacked(a),
                    [a, b] => a != b && share_line(a, b),
                    _ => false,
                }
            } else {
                false
            };
            if !implied {
                return Ok(Err(format!(
                    "{origin}: line {clause_line}: the clause {:?} does not hold in every \
                     completion of the placement",
                    clause
                )));
            }
            let lits: Vec<Lit> = clause.iter().map(|&l| Lit::from_dimacs(l)).collect();
            formula.add_clause(&lits);
            clause.clear();
        }
    }
    if !clause.is_empty() {
        return Err(Error::input_at_line(
            &origin,
            clause_line,
            "the last clause has no closing 0",
        ));
    }
    let vars = vars.ok_or_else(|| Error::input(&origin, "no `p cnf` line"))?;
    formula.set_var_count(vars.max(formula.var_count()));
    Ok(Ok(formula))
}

/// Checks the certificate in `dir` (module documentation).
pub fn check_certificate(dir: &Path) -> Result<Verdict, Error> {
    check_certificate_part(dir, (0, 1))
}

/// [`check_certificate`] over part `index` of `parts` of the cover's walk
/// ([`check_cover_part`]); the counterexample, when there is one, is checked by part 0.
pub fn check_certificate_part(dir: &Path, part: (usize, usize)) -> Result<Verdict, Error> {
    let (n, k, covered) = read_any_claim(dir)?;
    if !covered {
        if part != (0, 1) {
            return Err(bound_only(dir, n, k));
        }
        if !dir.join(COUNTEREXAMPLE).exists() {
            return Ok(Verdict::Rejected(format!(
                "{}: the claim a({n}) ≤ {k} needs {COUNTEREXAMPLE}, and there is none",
                dir.display()
            )));
        }
        return Ok(match check_counterexample(dir, n, k)? {
            Ok(lemmas) => Verdict::Accepted(Accepted {
                n,
                k,
                exact: true,
                covered: false,
                solutions: 0,
                witnesses: 0,
                walk: WalkStats::default(),
                lemmas,
            }),
            Err(why) => Verdict::Rejected(why),
        });
    }
    let path = cover_path(dir);
    let origin = path.display().to_string();
    if !path.exists() {
        return Ok(Verdict::Rejected(format!(
            "{}: the claim that every placement of at most {k} queens completes needs a \
             cover ({COVER} or {COVER_BIN}), and there is none",
            dir.display()
        )));
    }
    let mut witnesses = match read_cover_file(&path, n)? {
        Ok(w) => w,
        Err(why) => return Ok(Verdict::Rejected(why)),
    };
    let walk = match check_cover_part(k, part, &mut witnesses) {
        Ok(stats) => stats,
        Err(why) => return Ok(Verdict::Rejected(format!("{origin}: {why}"))),
    };
    // One part checks the counterexample: the parts together check the whole certificate.
    let exact = dir.join(COUNTEREXAMPLE).exists() && part.0 == 0;
    let lemmas = if exact {
        match check_counterexample(dir, n, k)? {
            Ok(lemmas) => lemmas,
            Err(why) => return Ok(Verdict::Rejected(why)),
        }
    } else {
        0
    };
    Ok(Verdict::Accepted(Accepted {
        n,
        k,
        exact,
        covered: true,
        solutions: witnesses.solutions().len(),
        witnesses: witnesses.len(),
        walk,
        lemmas,
    }))
}
