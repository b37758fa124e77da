//! Instance generators, one module per kind of instance: n-queens completions
//! (`completion.rs`), Excluded Diagonals lists (`diagonals.rs`) and region puzzles with exactly
//! one solution (`regions.rs`). Their files are written by [`queens_model::formats`]; the `generate`
//! operation of the operations layer calls them.
//!
//! Every generator is driven by [`queens_model::rng::Rng`] (the model's `rng.rs`), a SplitMix64
//! stream, so one seed gives the same instance on every platform and every release that keeps
//! these files' algorithms.
//!
//! The generators sit above the engines: completions with presets from a solution ask local
//! search for it, and each region puzzle is checked by the backtracker and graded by the
//! puzzle deduction. No engine uses a generator.

mod completion;
mod diagonals;
mod regions;

pub use completion::{completion, completion_from_solution};
pub use diagonals::{diagonals, diagonals_prefix, diagonals_problem};
pub use regions::{puzzle, regions, Generated, MAX_N as MAX_REGIONS_N};
