//! queens: solve, count, check and prove n-queens, n-queens completion and region Queens.
//!
//! The data flows one way: [`formats`] read input into one [`Problem`] model; the
//! [`engine`]s answer over it (the bitset [`engine::backtrack`]er, local search, or the
//! [`engine::sat`] engine over the [`encode`] encodings); one independent [`verify()`] checks
//! every answer, and [`proof`] writes and checks the certificate of a "no"; [`ops`] turns a
//! request into a response, for the command line (`src/bin/queens/`) and the HTTP [`server`]
//! alike. `docs/architecture.md` draws the call order.
//!
//! ```
//! use queens::engine::backtrack;
//! use queens::{formats, verify};
//!
//! // Nauck's 1850 instance: queens on b4 and d5 of the 8×8 board.
//! let problem = formats::parse("example", r#"{"n": 8, "queens": ["b4", "d5"]}"#).unwrap();
//! let count = backtrack::count(&problem, &backtrack::Config::default(), None);
//! assert_eq!(count.total, 2);
//!
//! let (queens, _) = queens::engine::sat::solve(&problem, queens::encode::amo::Encoding::Auto).unwrap();
//! verify(&problem, &queens.unwrap()).unwrap();
//! ```
#![warn(missing_docs)]

pub mod batch;
pub mod child;
pub mod encode;
pub mod engine;
pub mod error;
pub mod formats;
pub mod games;
pub mod generate;
pub mod limits;
pub mod model;
pub mod ops;
pub mod plot;
pub mod proof;
pub mod puzzle;
pub mod report;
pub mod rng;
pub mod server;
pub mod status;
pub mod verify;

pub use error::Error;
pub use model::{DiagonalRule, Pos, Problem, Regions};
pub use verify::{verify, Violation};
