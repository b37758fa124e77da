//! One interface over every engine: which engine, within what budget, and verified answers.
//!
//! Every board an engine returns passes [`queens_model::verify()`] here before anyone sees it; a board that
//! does not is an [`Error::Internal`], never an answer. "No solution" is [`Answer::Unsat`], a
//! result; running out of time or being cancelled is [`Answer::Interrupted`], neither.
//!
//! `spec.rs` is the engine spec grammar (`name.rs` its families), `answer.rs` what engines
//! answer and `work.rs` the work a run did, `memory.rs` the memory estimates made before any
//! work, `checked.rs` the check of every board, `named.rs` the engine a spec names,
//! `plan.rs` the one choice of engines (`auto`'s, and the route of a `solve`), `portfolio.rs`
//! `auto` on a completion, `stages.rs` the solve path as one line of stages (presolve →
//! engine → lift → verify), and
//! `dispatch.rs` the other questions (cells, listings, counts).

pub mod child;
pub mod cnf;
pub mod encode;
pub mod generate;
pub mod puzzle;

pub use queens_model::{Budget, Progress};

#[cfg(doc)]
use queens_model::error::Error;

pub mod answer;
pub mod auto;
pub mod backtrack;
pub mod checked;
pub mod completion;
pub mod decision;
pub mod dispatch;
pub mod engines;
pub mod explain;
pub mod ext;
pub mod formula;
pub mod local;
pub mod memory;
pub mod name;
pub mod named;
pub mod plan;
pub mod portfolio;
pub mod prove;
pub mod race;
pub mod sat;
pub mod spec;
pub mod stages;
pub mod threshold;
pub mod work;

pub use answer::{Answer, ColumnAnswer, Counted, HallSets, Listed, Reason, Solved, SolvedColumns};
pub use checked::{checked, verify_columns};
pub use dispatch::{count, enumerate, solve, solve_counting_learned};
pub use engines::Engine;
pub use memory::{
    check_local_memory, check_sat_memory, default_max_memory, dimacs_text_bound, sat_estimate,
    SatEstimate, SatMemory,
};
pub use name::EngineName;
pub(crate) use named::race_needs_a_caller;
pub use spec::EngineSpec;
pub use stages::{complete_only, solve_columns};
pub use work::{ms, Work};
