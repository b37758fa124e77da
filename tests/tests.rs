//! The integration suite: one binary, one module per area (STYLE.md lesson 10).

mod suite;

/// A throw-away Postgres server for the job store's tests.
#[path = "support/postgres.rs"]
mod pg;

/// Starting `queens serve` for the tests that need the real service.
#[path = "support/serve.rs"]
mod serve;

/// Test folders removed when dropped.
#[path = "support/temp.rs"]
mod temp;

/// Processes a test left behind, found by a marker argument.
#[path = "support/procs.rs"]
mod procs;
