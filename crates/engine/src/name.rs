//! The engines' names, one type for the command line (`--engine`), the service's JSON
//! (`"engine"`, `"answered_by"`) and `compare`'s tables: a family of [`EngineSpec`]s.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::ext::{ExtName, ExtSpec};
use super::EngineSpec;
use crate::encode::amo::Encoding;
use crate::error::Error;

/// Which engine answers.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema, ValueEnum,
)]
#[serde(rename_all = "lowercase")]
#[value(rename_all = "lowercase")]
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
    #[value(skip)]
    Ext,
    /// Local search (iterative repair): classic boards of any size up to 2³¹ − 1, one
    /// solution; it proves nothing beyond cheap checks, and gives up as `timeout`.
    Local,
    /// The engine for the board: backtrack on small boards and for all/limit/proof, local
    /// search past 4096, a race of the two in between (`answered_by` says which answered).
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

    /// The engine spec of a request: `solver` names the external solver of `ext` (and is
    /// refused with any other engine), `rings` adds the ring constraints to its CNF.
    pub fn spec(
        self,
        encoding: Encoding,
        solver: Option<ExtName>,
        rings: bool,
    ) -> Result<EngineSpec, Error> {
        if rings
            && !matches!(
                self,
                EngineName::Ext | EngineName::Backtrack | EngineName::Auto
            )
        {
            return Err(Error::unsupported_at_field(
                "rings",
                "the ring bounds prune the backtracker and go into the CNF of an \
                 external solver (engine backtrack or ext; `queens encode --rings` writes them \
                 for any solver)",
            ));
        }
        Ok(match (self, solver) {
            (EngineName::Ext, Some(solver)) => EngineSpec::Ext(ExtSpec {
                solver,
                encoding,
                rings,
            }),
            (EngineName::Ext, None) => {
                return Err(Error::unsupported_at_field(
                    "solver",
                    "engine ext needs the name of a solver (GET /v1/engines \
                     lists them; on the command line --engine ext:NAME)",
                ))
            }
            (_, Some(_)) => {
                return Err(Error::unsupported_at_field(
                    "solver",
                    "names the solver of engine ext only",
                ))
            }
            (EngineName::Backtrack, None) if rings => EngineSpec::BacktrackRings { threads: 0 },
            (EngineName::Backtrack, None) => EngineSpec::Backtrack { threads: 0 },
            (EngineName::Sat, None) => EngineSpec::Sat(encoding),
            (EngineName::Race, None) => EngineSpec::Race(encoding),
            (EngineName::Local, None) => EngineSpec::Local { seed: 1 },
            // The ring prune is the backtracker's: `auto` with rings is the backtracker.
            (EngineName::Auto, None) if rings => EngineSpec::BacktrackRings { threads: 0 },
            (EngineName::Auto, None) => EngineSpec::Auto { seed: 1 },
        })
    }

    /// The name of the family a spec belongs to.
    pub fn of(spec: EngineSpec) -> EngineName {
        match spec {
            EngineSpec::Backtrack { .. } | EngineSpec::BacktrackRings { .. } => {
                EngineName::Backtrack
            }
            EngineSpec::Sat(_) => EngineName::Sat,
            EngineSpec::Race(_) => EngineName::Race,
            EngineSpec::Ext(_) => EngineName::Ext,
            EngineSpec::Local { .. } => EngineName::Local,
            EngineSpec::Auto { .. } => EngineName::Auto,
        }
    }
}
