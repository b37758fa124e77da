//! The work a run did, as answers report it: one [`Work`] for every engine, with the figures
//! of the engine that ran (the backtracker's nodes, the SAT run's size and timings, local
//! search's swaps, the size of a completion's core), and [`ms`], the one clock they read.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::spec::EngineSpec;

/// The work one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Backtracker: queens placed by the search.
    pub nodes: Option<u64>,
    /// SAT engine: formula size, timings, solver calls.
    pub sat: Option<SatStats>,
    /// Local engine: starts, swaps, collisions after the start.
    pub local: Option<LocalStats>,
    /// With `auto`: the engine whose answer this is.
    pub answered_by: Option<EngineSpec>,
    /// When the search ran on the core of a completion ([`crate::completion`]): its size.
    pub core: Option<CoreSize>,
    /// Wall time of the whole run, milliseconds.
    pub time_ms: f64,
}

/// Milliseconds since `t`, rounded to microseconds.
pub fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// Size and timings of one SAT run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SatStats {
    /// Variables in the CNF (cells plus auxiliary).
    pub vars: usize,
    /// Clauses in the CNF.
    pub clauses: usize,
    /// Cells with a variable.
    pub cell_vars: usize,
    /// Milliseconds spent encoding. When solving, the clauses go straight into the solver, so
    /// this includes the solver's loading of them.
    pub encode_ms: f64,
    /// Milliseconds spent in the solver (searching, and decoding each model).
    pub solve_ms: f64,
    /// Solver calls made.
    pub solver_calls: u64,
    /// Clauses the solver learned (one per conflict, plus a few from inprocessing), when
    /// counted: see [`crate::sat::solve_counting_learned`].
    pub learned: Option<u64>,
}

/// What local search did ([`crate::local`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LocalStats {
    /// Fresh starts after the first.
    pub restarts: u64,
    /// Swaps kept.
    pub swaps: u64,
    /// Swaps tried (kept or undone).
    pub tries: u64,
    /// Collisions left by the last start, before the repair.
    pub start_conflicts: u64,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

/// The size of a core, as answers report it (`"core": {"rows": …, "cells": …}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CoreSize {
    /// Free rows (and free columns).
    pub rows: usize,
    /// Open cells among them.
    pub cells: usize,
}
