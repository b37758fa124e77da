//! At-most-one and exactly-one constraints, one module per encoding, chosen by [`Encoding`].
//!
//! Every encoding takes the literals it constrains (of either polarity) and writes clauses and
//! fresh variables into a [`ClauseSink`]. [`stats`] reports what an encoding costs for a given
//! size; the test suite `tests/amo_encodings.rs` checks every encoding on every assignment of up
//! to ten inputs.

use std::fmt;
use std::str::FromStr;

use varisat::{Lit, Var};

use crate::encode::{ClauseSink, Counter};

pub mod bimander;
pub mod commander;
pub mod pairwise;
pub mod product;
pub mod seq;

/// Which CNF encoding an at-most-one constraint gets.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// [`pairwise`]: `n(n-1)/2` binary clauses, no auxiliary variables.
    Pairwise,
    /// [`seq`]: Sinz's sequential counter, `n-1` variables, `3n-4` clauses.
    Seq,
    /// [`commander`]: Klieber & Kwon, groups of three, recursive.
    Commander,
    /// [`product`]: Chen's two-product, recursive.
    Product,
    /// [`bimander`]: Nguyen & Mai, pairs with binary commander bits.
    Bimander,
    /// Per constraint: [`Pairwise`](Encoding::Pairwise) up to [`AUTO_PAIRWISE_UP_TO`]
    /// literals, [`AUTO_LARGE`] above.
    #[default]
    Auto,
}

/// [`Encoding::Auto`] uses pairwise clauses for constraints of at most this many literals.
///
/// Pairwise propagates best and needs no auxiliary variables; up to 12 literals it costs at
/// most 66 clauses (bimander: 42 plus 3 variables). Measured with varisat 0.2.2 on 2 busy
/// cores (CPU time, still ±30 % noise):
///
/// - Counting all solutions of n-queens by blocking clauses (search-heavy, every line at most
///   n cells): pairwise everywhere was fastest. n = 11: 1.13 s, against 1.21–1.84 s with
///   another encoding above 4–10 literals and 1.55–2.19 s for the other encodings alone;
///   n = 12: 13.3 s against 13.3–26.7 s.
/// - Solving plain n-queens with bimander above the threshold: 12 beat 6 at n = 200
///   (0.26 s against 0.48–0.57 s, two runs) and n = 300 (0.46 s against 0.93 s), tied at
///   n = 100 and 150; 16 was no better than 12.
pub const AUTO_PAIRWISE_UP_TO: usize = 12;

/// The encoding [`Encoding::Auto`] uses above [`AUTO_PAIRWISE_UP_TO`] literals: bimander.
///
/// Not the fewest clauses (that is [`product`] from about 46 literals on, with `O(n)`
/// clauses against bimander's `O(n log n)`), but the fastest to solve: plain n-queens with
/// varisat 0.2.2, median CPU time of 5 runs with shuffled variable numbering, encoding
/// included, pairwise up to 12 literals:
///
/// | n    | bimander | product | commander | seq    |
/// |------|----------|---------|-----------|--------|
/// | 100  | 0.07 s   | 0.26 s  | 0.17 s    | 0.20 s |
/// | 150  | 0.15 s   | 0.37 s  | 0.38 s    |        |
/// | 300  | 0.46 s   | 0.75 s  | 0.82 s    |        |
/// | 500  | 3.0 s    | 4.0 s   | 5.1 s     |        |
/// | 1000 | 12.1 s   | 17.8 s  |           |        |
///
/// Its few auxiliary variables (`⌈log₂(n/2)⌉` per constraint) seem to matter more to varisat
/// than the extra binary clauses, which cost memory rather than time: 37 M clauses and 0.67 GB
/// at n = 1000 against product's 8.9 M clauses and 0.43 GB.
pub const AUTO_LARGE: Encoding = Encoding::Bimander;

impl Encoding {
    /// The five concrete encodings (everything but [`Auto`](Encoding::Auto)).
    pub const ALL: [Encoding; 5] = [
        Encoding::Pairwise,
        Encoding::Seq,
        Encoding::Commander,
        Encoding::Product,
        Encoding::Bimander,
    ];

    /// The name [`FromStr`] and [`Display`](fmt::Display) use.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Pairwise => "pairwise",
            Encoding::Seq => "seq",
            Encoding::Commander => "commander",
            Encoding::Product => "product",
            Encoding::Bimander => "bimander",
            Encoding::Auto => "auto",
        }
    }

    /// The concrete encoding used for a constraint over `len` literals
    /// (resolves [`Auto`](Encoding::Auto), returns the others unchanged).
    pub fn resolve(self, len: usize) -> Encoding {
        match self {
            Encoding::Auto if len <= AUTO_PAIRWISE_UP_TO => Encoding::Pairwise,
            Encoding::Auto => AUTO_LARGE,
            concrete => concrete,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An encoding name that is none of `pairwise|seq|commander|product|bimander|auto`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown encoding `{0}`, expected one of pairwise, seq, commander, product, bimander, auto"
)]
pub struct ParseEncodingError(pub String);

impl FromStr for Encoding {
    type Err = ParseEncodingError;

    fn from_str(s: &str) -> Result<Encoding, ParseEncodingError> {
        Encoding::ALL
            .into_iter()
            .chain([Encoding::Auto])
            .find(|e| e.name() == s)
            .ok_or_else(|| ParseEncodingError(s.to_string()))
    }
}

/// Adds clauses that allow at most one of `lits` to be true; nothing for 0 or 1 literals.
pub fn at_most_one(sink: &mut impl ClauseSink, lits: &[Lit], enc: Encoding) {
    if lits.len() < 2 {
        return;
    }
    match enc.resolve(lits.len()) {
        Encoding::Pairwise => pairwise::at_most_one(sink, lits),
        Encoding::Seq => seq::at_most_one(sink, lits),
        Encoding::Commander => commander::at_most_one(sink, lits),
        Encoding::Product => product::at_most_one(sink, lits),
        Encoding::Bimander => bimander::at_most_one(sink, lits),
        Encoding::Auto => unreachable!("resolve returns a concrete encoding"),
    }
}

/// Adds clauses that make exactly one of `lits` true: the clause `lits` itself plus
/// [`at_most_one`]. No literals gives the empty clause (unsatisfiable).
pub fn exactly_one(sink: &mut impl ClauseSink, lits: &[Lit], enc: Encoding) {
    sink.add_clause(lits);
    at_most_one(sink, lits, enc);
}

/// `(auxiliary variables, clauses)` that [`at_most_one`] adds for `lits_len` literals.
pub fn stats(lits_len: usize, enc: Encoding) -> (usize, usize) {
    let lits: Vec<Lit> = (0..lits_len)
        .map(|i| Var::from_index(i).positive())
        .collect();
    let mut counter = Counter {
        vars: lits_len,
        ..Counter::default()
    };
    at_most_one(&mut counter, &lits, enc);
    (counter.vars - lits_len, counter.clauses)
}
