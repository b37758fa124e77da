//! The bottom of the queens flow: one [`Problem`] model, the file formats that read it, the
//! one verifier every answer passes, and what a run may spend.
//!
//! Nothing here searches. The engines (`queens-engine`) answer over this model, and the
//! proof checkers (`queens-proof`) depend on it alone, so neither the verifier nor a checker
//! can call a solver.
//!
//! ```
//! use queens_model::{formats, verify};
//!
//! // Nauck's 1850 instance: queens on b4 and d5 of the 8×8 board.
//! let problem = formats::parse("example", r#"{"n": 8, "queens": ["b4", "d5"]}"#).unwrap();
//! // One of its two completions, as (row, column) cells, row 0 the top row: b4 is (4, 1) and
//! // d5 is (3, 3).
//! let good = [(0, 4), (1, 0), (2, 7), (3, 3), (4, 1), (5, 6), (6, 2), (7, 5)];
//! assert!(verify(&problem, &good).is_ok());
//! // Swap two columns and two queens share a diagonal.
//! let bad = [(0, 0), (1, 4), (2, 7), (3, 3), (4, 1), (5, 6), (6, 2), (7, 5)];
//! assert!(verify(&problem, &bad).is_err());
//! ```
#![warn(missing_docs)]

pub mod budget;
pub mod error;
pub mod formats;
pub mod hash;
pub mod machine;
pub mod model;
pub mod report;
pub mod rng;
pub mod status;
pub mod verify;

pub use budget::{Budget, Progress};
pub use error::Error;
pub use model::{DiagonalRule, Pos, Problem, Regions};
pub use status::Status;
pub use verify::{verify, Violation};
