//! The engines' names, one type for the command line (`--engine`), the service's JSON
//! (`"engine"`, `"answered_by"`) and `compare`'s tables: a family of
//! [`crate::EngineSpec`]s (`spec.rs` turns a name into a spec and back).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which engine answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", value(rename_all = "lowercase"))]
pub enum EngineName {
    /// Native bitset backtracking on all cores.
    #[default]
    Backtrack,
    /// The CNF encoding solved by varisat.
    Sat,
    /// Both at once, one core each (the SAT engine in a child process); the first answer
    /// wins (`answered_by` says which). One solution or "no solution" only.
    Race,
    /// An external SAT solver named by `solver` (from the list `GET /v1/engines` gives), on
    /// the CNF `encode` writes; killed at the deadline, its answer verified. On the command
    /// line: `--engine ext:SOLVER`.
    #[cfg_attr(feature = "clap", value(skip))]
    Ext,
    /// Local search (iterative repair): classic boards of any size up to 2³¹ − 1, one
    /// solution; it proves nothing beyond cheap checks, and gives up as `timeout`.
    Local,
    /// The engine for the board: on a completion the core search and local search side by
    /// side after cheap refutations; backtrack on small boards and for all/limit/proof, local
    /// search on empty boards past 4096, a race of the two in between (`answered_by` says
    /// which answered).
    Auto,
}

impl EngineName {
    /// The engine's name as the CLI and JSON write it.
    pub fn name(self) -> &'static str {
        match self {
            EngineName::Backtrack => "backtrack",
            EngineName::Sat => "sat",
            EngineName::Race => "race",
            EngineName::Ext => "ext",
            EngineName::Local => "local",
            EngineName::Auto => "auto",
        }
    }

    /// The engine that cross-checks this one.
    pub fn other(self) -> EngineName {
        match self {
            EngineName::Backtrack | EngineName::Race => EngineName::Sat,
            EngineName::Sat | EngineName::Ext | EngineName::Local | EngineName::Auto => {
                EngineName::Backtrack
            }
        }
    }
}
