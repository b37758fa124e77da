//! queens: solve, count, check and prove n-queens, n-queens completion and region Queens.
//!
//! One [`Problem`] model serves every family; two engines answer over it (the bitset
//! [`backtrack`]er and the [`sat`] engine over [`cnf`] encodings), and one independent
//! [`verify`] function checks every answer.
//!
//! ```
//! use queens::{backtrack, parse, verify};
//!
//! // Nauck's 1850 instance: queens on b4 and d5 of the 8×8 board.
//! let problem = parse::parse("example", r#"{"n": 8, "queens": ["b4", "d5"]}"#).unwrap();
//! let count = backtrack::count(&problem, &backtrack::Config::default(), None);
//! assert_eq!(count.total, 2);
//!
//! let (queens, _) = queens::sat::solve(&problem, queens::encode::amo::Encoding::Auto).unwrap();
//! verify(&problem, &queens.unwrap()).unwrap();
//! ```
#![warn(missing_docs)]

pub mod backtrack;
pub mod child;
pub mod cnf;
pub mod compare;
pub mod dimacs;
pub mod encode;
pub mod engine;
pub mod error;
pub mod generate;
pub mod model;
pub mod ops;
pub mod parse;
pub mod plot;
pub mod proof;
pub mod report;
pub mod sat;
pub mod server;
pub mod sources;
pub mod verify;

pub use error::Error;
pub use model::{DiagonalRule, Pos, Problem, Regions};
pub use verify::{verify, Violation};
