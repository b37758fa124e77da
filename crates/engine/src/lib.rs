//! One interface over every engine: which engine, within what budget, and verified answers.
//!
//! Every board an engine returns passes [`verify`] here before anyone sees it; a board that
//! does not is an [`Error::Internal`], never an answer. "No solution" is [`Answer::Unsat`], a
//! result; running out of time or being cancelled is [`Answer::Interrupted`], neither.
//!
//! `spec.rs` is the engine spec grammar, `answer.rs` what engines answer, `memory.rs` the
//! memory estimates made before any work, and `dispatch.rs` the calls that run an engine.

pub mod child;
pub mod encode;
pub mod generate;
pub mod puzzle;

pub use queens_model::{Budget, Progress};

// The crates below, and this one, under the names the modules use.
pub(crate) use crate as engine;
pub(crate) use queens_model::{error, formats, limits, model, report, rng, verify};
pub(crate) use queens_proof as proof;

#[cfg(doc)]
use crate::error::Error;

pub mod answer;
pub mod auto;
pub mod backtrack;
pub mod completion;
pub mod dispatch;
pub mod engines;
pub mod explain;
pub mod ext;
pub mod formula;
pub mod local;
pub mod memory;
pub mod name;
pub mod prove;
pub mod race;
pub mod sat;
pub mod spec;

pub use answer::{ms, Answer, ColumnAnswer, Counted, Listed, Solved, SolvedColumns, Work};
pub use dispatch::{
    checked, complete_only, count, enumerate, solve, solve_columns, solve_counting_learned,
    verify_columns,
};
pub(crate) use dispatch::{columns_of, race_needs_a_caller};
pub use engines::Engine;
pub use memory::{
    check_local_memory, check_sat_memory, default_max_memory, dimacs_text_bound, sat_estimate,
    SatEstimate, SatMemory,
};
pub use name::EngineName;
/// The proof pipeline under its earlier name.
pub use prove as certify;
pub use spec::EngineSpec;
