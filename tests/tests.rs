//! The integration suite: one binary, one module per area. One binary links the library once
//! instead of once per file, which keeps the test build and `cargo test`'s start-up short.

mod suite;

/// A throw-away Postgres server for the job store's tests.
#[path = "support/postgres.rs"]
mod pg;

/// Starting `queens serve` for the tests that need the real service.
#[path = "support/serve.rs"]
mod serve;

/// What a test needs from outside the repository: skip with a reason, or fail under CI.
#[path = "support/need.rs"]
mod need;

/// Test folders removed when dropped.
#[path = "support/temp.rs"]
mod temp;

/// Processes a test left behind, found by a marker argument.
#[path = "support/procs.rs"]
mod procs;
