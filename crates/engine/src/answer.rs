//! What the engines answer: one [`Answer`] for every engine, with the [`Work`] a run did,
//! and its forms for one solution ([`Solved`]), one column per row ([`SolvedColumns`]), a
//! listing ([`Listed`]) and a count ([`Counted`]).

use crate::work::Work;
use queens_model::model::Pos;

/// The answer to "is there a solution?": a solution `S`, or a proven "no" carrying `U`, or no
/// answer. One type for every engine: [`crate::execute::solve`]'s (cells sorted by row, nothing more),
/// [`ColumnAnswer`] (one column per row, and the reason a cheap refutation found) and
/// [`crate::prove::CertifiedAnswer`] (the checked proof).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer<S = Vec<Pos>, U = ()> {
    /// A solution, checked by the verifier.
    Sat(S),
    /// Proven: no solution.
    Unsat(U),
    /// The local engine spent its restarts: no answer (not "no solution").
    GaveUp,
    /// The budget ran out (deadline or cancel) before an answer.
    Interrupted,
}

impl<S, U> Answer<S, U> {
    /// A solution or a proven "no" (not a stop).
    pub fn is_decided(&self) -> bool {
        matches!(self, Answer::Sat(_) | Answer::Unsat(_))
    }

    /// The same answer with its solution given another way.
    pub fn map_sat<T>(self, f: impl FnOnce(S) -> T) -> Answer<T, U> {
        match self {
            Answer::Sat(s) => Answer::Sat(f(s)),
            Answer::Unsat(u) => Answer::Unsat(u),
            Answer::GaveUp => Answer::GaveUp,
            Answer::Interrupted => Answer::Interrupted,
        }
    }

    /// The same answer with another "no".
    pub fn map_unsat<V>(self, f: impl FnOnce(U) -> V) -> Answer<S, V> {
        match self {
            Answer::Sat(s) => Answer::Sat(s),
            Answer::Unsat(u) => Answer::Unsat(f(u)),
            Answer::GaveUp => Answer::GaveUp,
            Answer::Interrupted => Answer::Interrupted,
        }
    }
}

/// [`crate::execute::solve`]'s result.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The answer.
    pub answer: Answer,
    /// Work done.
    pub work: Work,
}

/// [`crate::execute::enumerate`]'s result.
#[derive(Clone, Debug)]
pub struct Listed {
    /// The solutions found, each verified.
    pub solutions: Vec<Vec<Pos>>,
    /// True when the cap stopped the listing (there may be more).
    pub limited: bool,
    /// True when the budget ran out first: the list is incomplete.
    pub interrupted: bool,
    /// Work done.
    pub work: Work,
}

/// [`crate::execute::count`]'s result.
#[derive(Clone, Copy, Debug)]
pub struct Counted {
    /// Solutions counted (a lower bound when `limited` or `interrupted`).
    pub count: u64,
    /// Solutions up to rotation and reflection, where defined (the empty classic board,
    /// backtracker, counted in full).
    pub unique: Option<u64>,
    /// True when the count stopped at the limit.
    pub limited: bool,
    /// True when the budget ran out first.
    pub interrupted: bool,
    /// Work done.
    pub work: Work,
}

/// An answer given as one column per row (what [`crate::execute::solve_columns`] returns: a board of 10⁸
/// rows is 400 MB this way, 1.6 GB as cells): `cols[r]` is the column of row `r`'s queen;
/// a "no" carries the reason when a cheap refutation found it.
pub type ColumnAnswer = Answer<Vec<u32>, Option<Reason>>;

/// Why a "no" holds, found without search or by it: the sentence for people, and, for
/// Hall's condition, the rows and columns it is about as data (the sentence lists at most
/// eight of each). Reads as its sentence (`Deref<Target = str>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    /// The sentence.
    pub text: String,
    /// Hall's condition: the free rows whose usable cells lie in fewer free columns.
    pub hall: Option<HallSets>,
}

/// The sets of a failed Hall's condition: `rows` (0-based board rows, increasing) can only
/// use `columns`, one fewer than them, so they cannot all get a queen.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
pub struct HallSets {
    /// The free rows, in increasing order.
    pub rows: Vec<u32>,
    /// The free columns their usable cells lie in, in increasing order.
    pub columns: Vec<u32>,
}

impl From<String> for Reason {
    fn from(text: String) -> Reason {
        Reason { text, hall: None }
    }
}

impl std::ops::Deref for Reason {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// [`crate::execute::solve_columns`]'s result.
#[derive(Clone, Debug)]
pub struct SolvedColumns {
    /// The answer.
    pub answer: ColumnAnswer,
    /// Work done; `answered_by` names the engine that answered.
    pub work: Work,
}

/// One column per row from a full set of cells (one queen per row).
pub(crate) fn columns_of(n: usize, queens: &[Pos]) -> Vec<u32> {
    let mut cols = vec![u32::MAX; n];
    for &(r, c) in queens {
        if r < n {
            cols[r] = c as u32;
        }
    }
    cols
}

impl SolvedColumns {
    /// The answer as cells sorted by row, from one column per row.
    pub fn into_cells(self) -> Solved {
        let answer = self
            .answer
            .map_sat(|cols| {
                cols.iter()
                    .enumerate()
                    .map(|(r, &c)| (r, c as usize))
                    .collect()
            })
            .map_unsat(|_| ());
        Solved {
            answer,
            work: self.work,
        }
    }
}
