//! At-most-one and exactly-one constraints, one module per encoding, chosen by [`Encoding`].
//!
//! Every encoding takes the literals it constrains (of either polarity) and writes clauses and
//! fresh variables into a [`ClauseSink`]. [`stats`] reports what an encoding costs for a given
//! size; the test suite `tests/amo_encodings.rs` checks every encoding on every assignment of up
//! to ten inputs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use varisat::{Lit, Var};

use crate::encode::{ClauseSink, Counter};

pub mod bimander;
pub mod commander;
pub mod pairwise;
pub mod product;
pub mod seq;

/// Which CNF encoding an at-most-one constraint gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
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
    /// literals, [`Bimander`](Encoding::Bimander) up to [`AUTO_BIMANDER_UP_TO`],
    /// [`Product`](Encoding::Product) above.
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

/// [`Encoding::Auto`] uses bimander for constraints of more than [`AUTO_PAIRWISE_UP_TO`] and
/// at most this many literals, and [`product`] above.
///
/// Bimander searches best on the small hard instances we have, prob079 excluded diagonals
/// (lines of at most 21 cells), in `queens compare` runs on 2 busy cores with bimander or
/// product above 12 literals: n = 18, first 16 diagonals, 40 instances: 87.9 s against
/// 118 s (1.34×; commander 129 s); n = 21, first 19 diagonals, 20 instances, 60 s limit:
/// 54.6 s against 78.9 s (1.45×) on the 14 both solved. Product has the fewest clauses (`O(n)` against
/// bimander's `O(n log n)`), and on long lines that is what counts: there the search is
/// easy (an open board's first descent is a random greedy placement, see `sat.rs`) and
/// loading the clauses into varisat is most of the run. `queens solve --n N --engine sat`,
/// least CPU time of 5–7 runs each, bimander against product above 12 literals:
///
/// | n    | bimander           | product            |
/// |------|--------------------|--------------------|
/// | 100  | 0.033 s            | 0.025 s            |
/// | 200  | 0.096 s            | 0.095 s            |
/// | 300  | 0.25 s             | 0.18 s             |
/// | 500  | 0.68 s             | 0.48 s             |
/// | 1000 | 3.8 s, 674 MiB     | 2.5 s, 460 MiB     |
/// | 2000 | 22.2 s, 2.5 GiB    | 15.7 s, 1.6 GiB    |
///
/// Nothing was measured between 21 and 100 literals where the two differ: 100 keeps bimander
/// wherever the search can be hard and product where the clauses dominate.
pub const AUTO_BIMANDER_UP_TO: usize = 100;

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
            Encoding::Auto if len <= AUTO_BIMANDER_UP_TO => Encoding::Bimander,
            Encoding::Auto => Encoding::Product,
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
