//! queens: solve, count, check and prove n-queens, n-queens completion and region Queens.
#![warn(missing_docs)]

pub mod backtrack;
pub mod error;
pub mod model;
pub mod proof;
pub mod verify;

pub use error::Error;
pub use model::{DiagonalRule, Pos, Problem, Regions};
pub use verify::{verify, Violation};
