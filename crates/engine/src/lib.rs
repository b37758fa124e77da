//! One interface over every engine: which engine, within what budget, and verified answers.
//!
//! Every board an engine returns passes [`queens_model::verify()`] here before anyone sees it; a board that
//! does not is an [`Error::Internal`], never an answer. "No solution" is [`Answer::Unsat`], a
//! result; running out of time or being cancelled is [`Answer::Interrupted`], neither.
//!
//! `spec.rs` is the engine spec grammar (`name.rs` its families), `table.rs` the engine
//! table (the leaf each spec names; an engine without options is its folder and one line
//! there), `answer.rs` what engines
//! answer and `work.rs` the work a run did, `memory.rs` the memory estimates made before any
//! work, `checked.rs` the check of every board. The routing, three files: `plan.rs` makes
//! the one plan of a request (a tree of steps: `auto`'s choice and the completion portfolio's
//! decision), `execute.rs` runs any plan (the portfolio's steps like any others, listings and
//! counts too), and `side_by_side.rs` is the one combinator of two steps at once. `step.rs`
//! holds the tree's steps and shows them (JSON and text), as `answer.rs` holds answers.
//! The core's estimates the portfolio decides on are the completion's
//! (`completion/estimate.rs`).

pub mod child;
pub mod cnf;
pub mod encode;
pub mod generate;
pub mod puzzle;

pub use queens_model::{Budget, Progress};

#[cfg(doc)]
use queens_model::error::Error;

pub mod answer;
pub mod backtrack;
pub mod checked;
pub mod completion;
pub mod dlx;
pub mod engines;
pub mod execute;
pub mod explain;
pub mod ext;
pub mod formula;
pub mod leaf;
pub mod local;
pub mod memory;
pub mod name;
pub mod plan;
pub mod prove;
pub mod sat;
pub mod side_by_side;
pub mod spec;
pub mod step;
pub mod table;
pub mod threshold;
pub mod work;

pub use answer::{Answer, ColumnAnswer, Counted, HallSets, Listed, Reason, Solved, SolvedColumns};
pub use checked::{checked, verify_columns};
pub use engines::solve_counting_learned;
pub use engines::Engine;
pub use execute::{count, enumerate, solve, solve_columns};
pub use memory::{
    check_local_memory, check_sat_memory, complete_only, default_max_memory, dimacs_text_bound,
    sat_estimate, SatEstimate, SatMemory,
};
pub use name::EngineName;
pub use spec::EngineSpec;
pub use work::{ms, Work};
