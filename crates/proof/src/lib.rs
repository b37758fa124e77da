//! UNSAT proofs: varisat's DRAT output, LRAT replayed from it or written by the backtracker
//! with its hints, and independent checkers.
//!
//! - [`mod@write`]: the one writer of DRAT (text and binary) and binary LRAT lines, which the
//!   backtracker's refutations and the SAT engine's added empty clause go through.
//! - [`drat`]: DRAT (text and binary): the forward RUP checker.
//! - [`lrat`]: the LRAT a DRAT replay ([`drat_to_lrat`]) fills, and the chunk pipe the
//!   backtracker's binary LRAT streams through to the checker.
//! - [`check`]: [`check_proof`], any format's check, and the LRAT checker that only follows
//!   hints, streaming from a reader.

use std::fmt;
use std::io;
use std::str::FromStr;

pub mod check;
pub mod drat;
pub mod lrat;
pub mod threshold;
pub mod write;

pub use check::{
    check_and_write, check_lrat, check_lrat_binary_file, check_lrat_binary_reader, check_lrat_file,
    check_lrat_reader, check_proof,
};
pub use drat::{check_drat, drat_to_lrat};

/// The proof formats the engines write and the built-in checker reads.
///
/// Variables are numbered as in the formula's DIMACS form (varisat keeps user variable numbers in
/// its DRAT output), and LRAT clause ids `1..=m` are the formula's clauses in order, so a proof
/// is only meaningful next to the exact CNF it was written for, e.g. from
/// `varisat_dimacs::write_dimacs`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum ProofFormat {
    /// Text DRAT, written by varisat: `1 -2 0` adds a lemma, `d 1 -2 0` deletes a clause.
    Drat,
    /// Binary DRAT, written by varisat: an `a` or `d` byte, then each literal as the LEB128
    /// varint of `2 * var + negative`, then a zero byte.
    BinaryDrat,
    /// Text LRAT: varisat 0.2.2 writes no LRAT, so its DRAT proof is replayed through this
    /// module's RUP checker, which records each lemma's unit-propagation chain as its hints.
    Lrat,
    /// Binary LRAT (as CaDiCaL writes it and `cake_lpr` reads it): `a`, the lemma's id,
    /// literals, 0, hints, 0, or `d`, ids, 0, every number the LEB128 varint of
    /// `2 * |x| + (x < 0)`. About a third of the text's size.
    BinaryLrat,
}

impl ProofFormat {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [ProofFormat; 4] = [
        ProofFormat::Drat,
        ProofFormat::BinaryDrat,
        ProofFormat::Lrat,
        ProofFormat::BinaryLrat,
    ];
}

impl fmt::Display for ProofFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProofFormat::Drat => "drat",
            ProofFormat::BinaryDrat => "binary-drat",
            ProofFormat::Lrat => "lrat",
            ProofFormat::BinaryLrat => "binary-lrat",
        })
    }
}

impl FromStr for ProofFormat {
    type Err = queens_model::Error;

    fn from_str(s: &str) -> Result<ProofFormat, queens_model::Error> {
        ProofFormat::ALL
            .into_iter()
            .find(|format| format.to_string() == s)
            .ok_or_else(|| {
                queens_model::Error::input(
                    "proof format",
                    format!(
                        "unknown format `{s}`, expected drat, binary-drat, lrat or binary-lrat"
                    ),
                )
            })
    }
}

/// Why a proof could not be written or was not accepted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProofError {
    /// Writing the proof failed (varisat reports its own write errors through this too).
    #[error("writing the proof: {0}")]
    Io(#[from] io::Error),
    /// varisat stopped without an answer.
    #[error("SAT solver: {0}")]
    Solver(String),
    /// The proof is not well-formed DRAT or LRAT.
    #[error("{at}: {message}")]
    Malformed {
        /// Where: `line N` (text), `byte N` (binary) or `end of proof`.
        at: String,
        /// What is wrong.
        message: String,
    },
    /// The proof is well-formed but does not refute the formula.
    #[error("{at}: {message}")]
    Rejected {
        /// Where: `line N` (text), `byte N` (binary) or `end of proof`.
        at: String,
        /// Which step fails and why.
        message: String,
    },
}

/// What a checker (or the LRAT conversion) went through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProofStats {
    /// Lemmas checked, the final empty clause included.
    pub lemmas: u64,
    /// Clauses deleted.
    pub deletions: u64,
    /// DRAT deletions skipped: of a clause that is the reason of a top-level unit (drat-trim
    /// skips those too), of a clause not in the database, or after a top-level conflict.
    /// Skipping a deletion keeps a clause that is implied anyway, so RUP checking stays sound.
    pub ignored_deletions: u64,
    /// LRAT hint ids checked by [`check_lrat`] or written by [`drat_to_lrat`].
    pub hints: u64,
    /// [`drat_to_lrat`]: lemmas left out because the refutation does not use them.
    pub trimmed: u64,
}

/// Largest variable a proof may use; bounds the checker's per-variable arrays.
pub(crate) const MAX_VAR: i64 = 1 << 24;

/// Literal code (`2 * (var - 1) + negative`, varisat's `Lit::code`) of a DIMACS literal.
pub(crate) fn dimacs_code(lit: i64) -> Option<u32> {
    let var = lit.unsigned_abs() as i64;
    (1..=MAX_VAR)
        .contains(&var)
        .then(|| (2 * (var - 1) + i64::from(lit < 0)) as u32)
}

pub(crate) fn code_dimacs(code: u32) -> i64 {
    let var = i64::from(code >> 1) + 1;
    if code & 1 == 1 {
        -var
    } else {
        var
    }
}

pub(crate) fn show(lits: &[u32]) -> String {
    let parts: Vec<String> = lits.iter().map(|&l| code_dimacs(l).to_string()).collect();
    format!("[{}]", parts.join(" "))
}

pub(crate) fn rejected(at: String, message: String) -> ProofError {
    ProofError::Rejected { at, message }
}

/// Whitespace-separated integers (and `d`) of text DRAT and LRAT, with line numbers.
pub(crate) struct Tokens<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) line: usize,
}

impl Tokens<'_> {
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    pub(crate) fn location(&self) -> String {
        format!("line {}", self.line)
    }

    pub(crate) fn malformed(&self, message: String) -> ProofError {
        ProofError::Malformed {
            at: self.location(),
            message,
        }
    }

    pub(crate) fn skip_space(&mut self) {
        while let Some(b) = self.peek() {
            if !b.is_ascii_whitespace() {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
    }

    /// Skips whitespace and `c` comment lines between steps.
    pub(crate) fn skip_space_and_comments(&mut self) {
        loop {
            self.skip_space();
            if self.peek() != Some(b'c') {
                return;
            }
            while let Some(b) = self.peek() {
                if b == b'\n' {
                    break;
                }
                self.pos += 1;
            }
        }
    }

    pub(crate) fn number(&mut self) -> Result<i64, ProofError> {
        self.skip_space();
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let start = self.pos;
        let mut value: i64 = 0;
        while let Some(b) = self.peek().filter(u8::is_ascii_digit) {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(b - b'0')))
                .ok_or_else(|| self.malformed("number too large".into()))?;
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.malformed(match self.peek() {
                None => "unexpected end of proof, expected a number".into(),
                Some(b) => format!("expected a number, found {:?}", char::from(b)),
            }));
        }
        Ok(if negative { -value } else { value })
    }
}

pub const OPEN: u8 = 0;
pub const TRUE: u8 = 1;
pub const FALSE: u8 = 2;
