//! The engines' names, one type for the command line (`--engine`), the service's JSON
//! (`"engine"`, `"answered_by"`) and `compare`'s tables: a family of
//! [`crate::spec::EngineSpec`]s. The engine table ([`crate::table`]) lists them, reads them
//! and gives their schema; `spec.rs` turns a name into a spec and back.

use serde::{Serialize, Serializer};

use crate::leaf::LeafName;

/// Which engine answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineName {
    /// Native bitset backtracking on all cores.
    #[default]
    Backtrack,
    /// The CNF encoding solved by varisat.
    Sat,
    /// Both at once (the SAT engine in a child process).
    Race,
    /// An external SAT solver named by `solver`. On the command line: `--engine ext:SOLVER`.
    Ext,
    /// Local search (iterative repair).
    Local,
    /// An engine without options, from the engine table ([`crate::table::LEAVES`]).
    Leaf(LeafName),
    /// The engine for the board (a plan of engines).
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
            EngineName::Leaf(leaf) => leaf.name(),
            EngineName::Auto => "auto",
        }
    }

    /// One line of help: what the engine is and what it takes.
    pub fn help(self) -> &'static str {
        match self {
            EngineName::Backtrack => "Native bitset backtracking on all cores",
            EngineName::Sat => "The CNF encoding solved by varisat",
            EngineName::Race => {
                "Both at once, one core each (the SAT engine in a child process); the first \
                 answer wins (`answered_by` says which). One solution or \"no solution\" only"
            }
            EngineName::Ext => {
                "An external SAT solver named by `solver` (from the list `GET /v1/engines` \
                 gives), on the CNF `encode` writes; killed at the deadline, its answer \
                 verified. On the command line: `--engine ext:SOLVER`"
            }
            EngineName::Local => {
                "Local search (iterative repair): classic boards of any size up to 2³¹ − 1, \
                 one solution; it proves nothing beyond cheap checks, and gives up as `timeout`"
            }
            EngineName::Leaf(leaf) => leaf.help(),
            EngineName::Auto => {
                "The engine for the board: on a completion the core search and local search \
                 side by side after cheap refutations; backtrack on small boards and for \
                 all/limit/proof, local search on empty boards past 4096, a race of the two in \
                 between (`answered_by` says which answered)"
            }
        }
    }

    /// True for varisat in this process: its own time is its encoding and its solving, apart
    /// from the request's parsing (`compare` reports that).
    pub fn sat_in_process(self) -> bool {
        self == EngineName::Sat
    }

    /// True when `explain` minimises the excluded diagonals of a core with this engine (the
    /// SAT engine's core keeps all of them).
    pub fn minimises_excluded_diagonals(self) -> bool {
        self != EngineName::Sat
    }

    /// The engine that searches when this one is asked: `auto` is a plan whose complete
    /// search (a count, a listing, the core of a completion) is the backtracker's.
    pub fn searcher(self) -> EngineName {
        match self {
            EngineName::Auto => EngineName::Backtrack,
            e => e,
        }
    }

    /// True for the engines that run (a side) in another process: `race` (its SAT side) and
    /// `ext` (the external solver).
    pub fn runs_in_child(self) -> bool {
        matches!(self, EngineName::Race | EngineName::Ext)
    }

    /// The engine that cross-checks this one.
    pub fn other(self) -> EngineName {
        match self {
            EngineName::Backtrack | EngineName::Race => EngineName::Sat,
            EngineName::Sat
            | EngineName::Ext
            | EngineName::Local
            | EngineName::Leaf(_)
            | EngineName::Auto => EngineName::Backtrack,
        }
    }
}

/// Written as its name.
impl Serialize for EngineName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}
