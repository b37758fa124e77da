//! queens: solve, count, check and prove n-queens, n-queens completion and region Queens.
//!
//! This library is the workspace's crates under one name, for the `queens` binary, the tests
//! and the benches. The data flows one way, and so do the crates' dependencies
//! (`docs/architecture.md` draws both): [`formats`] read input into one [`Problem`] model
//! (`queens-model`); the [`engine`]s answer over it (the bitset [`engine::backtrack`]er, local
//! search, or the [`engine::sat`] engine over the [`encode`] encodings: `queens-engine`); one
//! independent [`verify()`] checks every answer, and [`proof`] writes and checks the certificate
//! of a "no" (`queens-proof`, which depends on the model alone); [`ops`] turns a request into a
//! response (`queens-ops`), for the command line (`src/bin/queens/`) and the HTTP [`server`]
//! (`queens-server`) alike; the [`games`] sit between the engines and the operations.
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
//! let (queens, _) = queens::engine::sat::first_solution(&problem, queens::encode::amo::Encoding::Auto).unwrap();
//! verify(&problem, &queens.unwrap()).unwrap();
//! ```
#![warn(missing_docs)]

pub use queens_engine as engine;
pub use queens_engine::{child, cnf, encode, generate, puzzle};
pub use queens_games as games;
pub use queens_model::{budget, error, formats, machine, model, report, rng, status, verify};
pub use queens_model::{DiagonalRule, Error, Pos, Problem, Regions, Violation};
pub use queens_ops as ops;
pub use queens_ops::plot;
pub use queens_proof as proof;
pub use queens_server as server;
