//! The engine spec grammar: one engine configuration (`backtrack:4`, `sat:seq`, `race`,
//! `ext:cadical:product+rings`, `local:7`, `auto`), how it is written and how `--engine`
//! strings parse into it (in the engine table, [`crate::table`], which knows the engines
//! without options). [`crate::name::EngineName`] is its family.

use std::fmt;

use crate::encode::amo::Encoding;
use crate::ext::spec::{ExtName, ExtSpec};
use crate::leaf::LeafName;
use crate::name::EngineName;
use queens_model::error::Error;

/// One engine configuration, written `backtrack`, `backtrack:T` (T threads), `sat:ENCODING`
/// or `race` / `race:ENCODING` (the backtracker on one core against the SAT engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// The bitset backtracker; 0 threads means all cores.
    Backtrack {
        /// Worker threads (0 = all cores).
        threads: usize,
    },
    /// varisat on the given at-most-one encoding.
    Sat(Encoding),
    /// The backtracker (one thread) and varisat (this encoding, in a child process) at
    /// once; the first answer wins ([`crate::side_by_side::first_answer`]). It answers "is there a solution?" only, and
    /// runs through a caller that can start the child: the operations layer or `compare`.
    Race(Encoding),
    /// An external SAT solver ([`crate::ext`]) on the CNF `queens encode` writes, in a child
    /// process killed at the deadline: `ext:NAME[:ENCODING][+rings]`.
    Ext(ExtSpec),
    /// The backtracker pruning with the ring bounds ([`crate::cnf::rings`]):
    /// `backtrack+rings`, `backtrack:T+rings`. The n-queens rule only.
    BacktrackRings {
        /// Worker threads (0 = all cores).
        threads: usize,
    },
    /// Local search ([`crate::local`]) with this seed: any classic board up to
    /// [`queens_model::model::MAX_BIG_N`]; incomplete (it finds solutions, it proves nothing
    /// beyond [`crate::local::refute`]'s cheap checks).
    Local {
        /// The seed (`local:SEED`; 1 when not given).
        seed: u64,
    },
    /// An engine without options, from the engine table ([`crate::table::LEAVES`]).
    Leaf(LeafName),
    /// The engine for the job (a plan of engines, [`crate::plan`]): on a completion the
    /// portfolio of the core search and local search (a node of the plan); the
    /// backtracker on small boards and whatever must be proved or counted, local search on
    /// empty boards past [`queens_model::model::MAX_N`], and a race of the two in between. The
    /// answer names the engine that answered.
    Auto {
        /// The local engine's seed.
        seed: u64,
    },
}

impl EngineSpec {
    /// The engine's family name, as JSON output reports it ([`EngineName`]).
    pub fn name(self) -> &'static str {
        EngineName::of(self).name()
    }

    /// The other family (for cross-checks), with its defaults and this spec's encoding.
    pub fn other(self, encoding: Encoding) -> EngineSpec {
        match self {
            EngineSpec::Backtrack { .. }
            | EngineSpec::BacktrackRings { .. }
            | EngineSpec::Race(_) => EngineSpec::Sat(encoding),
            EngineSpec::Sat(_)
            | EngineSpec::Ext(_)
            | EngineSpec::Local { .. }
            | EngineSpec::Leaf(_)
            | EngineSpec::Auto { .. } => EngineSpec::Backtrack { threads: 0 },
        }
    }

    /// True for engines that cannot be interrupted in-process (varisat): a caller that needs
    /// a hard deadline runs them in a child process.
    pub fn uninterruptible(self) -> bool {
        matches!(self, EngineSpec::Sat(_))
    }
}

/// The error for a race asked of an entry point that cannot start its SAT child, or for
/// more than one solution.
pub(crate) fn race_needs_a_caller() -> Error {
    Error::unsupported(
        "engine race answers whether there is a solution (solve, one solution); use \
         backtrack or sat for counting and listing"
            .into(),
    )
}

/// A spec taken apart into the fields of a request (`engine`, `threads`, `encoding`,
/// `solver`, `rings`, `seed`): the inverse of [`EngineName::spec`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecFields {
    /// The engine's family.
    pub engine: EngineName,
    /// The backtracker's worker threads (0 = all cores); `None` for an engine without.
    pub threads: Option<usize>,
    /// The at-most-one encoding of an engine on the CNF; `None` for one without.
    pub encoding: Option<Encoding>,
    /// The external solver.
    pub solver: Option<ExtName>,
    /// The ring bounds (the backtracker's prune, or clauses in an external solver's CNF).
    pub rings: bool,
    /// The seed of local search (and of `auto`'s local search).
    pub seed: Option<u64>,
}

/// What the layers above ask of a spec instead of matching on it.
impl EngineSpec {
    /// The spec as a request's fields.
    pub fn fields(self) -> SpecFields {
        let none = SpecFields {
            engine: EngineName::of(self),
            threads: None,
            encoding: None,
            solver: None,
            rings: false,
            seed: None,
        };
        match self {
            EngineSpec::Backtrack { threads } => SpecFields {
                threads: Some(threads),
                ..none
            },
            EngineSpec::BacktrackRings { threads } => SpecFields {
                threads: Some(threads),
                rings: true,
                ..none
            },
            EngineSpec::Sat(encoding) | EngineSpec::Race(encoding) => SpecFields {
                encoding: Some(encoding),
                ..none
            },
            EngineSpec::Ext(x) => SpecFields {
                encoding: Some(x.encoding),
                solver: Some(x.solver),
                rings: x.rings,
                ..none
            },
            EngineSpec::Local { seed } | EngineSpec::Auto { seed } => SpecFields {
                seed: Some(seed),
                ..none
            },
            EngineSpec::Leaf(_) => none,
        }
    }

    /// The spec with this seed for the engines that take one (local search, `auto`).
    pub fn with_seed(self, seed: u64) -> EngineSpec {
        match self {
            EngineSpec::Local { .. } => EngineSpec::Local { seed },
            EngineSpec::Auto { .. } => EngineSpec::Auto { seed },
            other => other,
        }
    }

    /// The spec with this many worker threads for the engines that take a count (the
    /// backtracker, with or without the rings).
    pub fn with_threads(self, threads: usize) -> EngineSpec {
        match self {
            EngineSpec::Backtrack { .. } => EngineSpec::Backtrack { threads },
            EngineSpec::BacktrackRings { .. } => EngineSpec::BacktrackRings { threads },
            other => other,
        }
    }

    /// The external solver's spec; `None` for any other engine.
    pub fn ext(self) -> Option<ExtSpec> {
        match self {
            EngineSpec::Ext(x) => Some(x),
            _ => None,
        }
    }

    /// The engine that proves a "no" for this one: the backtracker without the ring prune,
    /// varisat or an external solver (`auto` proves with the backtracker); the others are
    /// refused, saying what to ask instead.
    pub fn proving(self) -> Result<EngineSpec, Error> {
        let nothing = |what: &str| {
            Err(Error::unsupported_at_field(
                "proof",
                format!("{what}; ask backtrack, sat or auto for a proof"),
            ))
        };
        match self {
            EngineSpec::Auto { .. } => Ok(EngineSpec::Backtrack { threads: 0 }),
            EngineSpec::Local { .. } => nothing("the local engine proves nothing"),
            EngineSpec::Leaf(leaf) => nothing(&format!(
                "the {} engine writes no proof of its \"no\"",
                leaf.name()
            )),
            EngineSpec::Race(_) => Err(race_needs_a_caller()),
            EngineSpec::BacktrackRings { .. } => Err(Error::unsupported(
                "a proof comes from the backtracker without the ring prune: drop --rings".into(),
            )
            .about("rings")),
            EngineSpec::Backtrack { .. } | EngineSpec::Sat(_) | EngineSpec::Ext(_) => Ok(self),
        }
    }

    /// The encoding of the in-process SAT engine (varisat); `None` for any other engine.
    pub fn sat_encoding(self) -> Option<Encoding> {
        match self {
            EngineSpec::Sat(encoding) => Some(encoding),
            _ => None,
        }
    }

    /// The threads of the bitset backtracker without the ring prune (the engine of the
    /// symmetric counter); `None` for any other engine.
    pub fn plain_backtracker_threads(self) -> Option<usize> {
        match self {
            EngineSpec::Backtrack { threads } => Some(threads),
            _ => None,
        }
    }

    /// True for the engines whose work counts the queens they placed (`nodes`): the
    /// backtracker, with or without the rings.
    pub fn counts_nodes(self) -> bool {
        self.fields().threads.is_some()
    }

    /// True for the engines that write a proof of their "no" in `compare` (the backtracker's
    /// refutation, varisat's DRAT).
    pub fn proves(self) -> bool {
        matches!(self, EngineSpec::Backtrack { .. } | EngineSpec::Sat(_))
    }

    /// True for local search, which takes only the boards [`crate::local::supports`] accepts.
    pub fn is_local_search(self) -> bool {
        matches!(self, EngineSpec::Local { .. })
    }

    /// True for an external solver, which may give up (`s UNKNOWN`) within the limits.
    pub fn may_give_up(self) -> bool {
        matches!(self, EngineSpec::Ext(_))
    }

    /// True for the engines that keep the whole board (n² bits): every engine but local
    /// search and `auto`, whose plan chooses ([`crate::memory::complete_only`]).
    pub fn keeps_the_board(self) -> bool {
        !matches!(self, EngineSpec::Local { .. } | EngineSpec::Auto { .. })
    }

    /// True for the complete engines that search the core of a classic completion past
    /// [`queens_model::model::MAX_N`]: backtrack, sat, ext and their race.
    pub fn searches_the_core(self) -> bool {
        matches!(
            self,
            EngineSpec::Backtrack { .. }
                | EngineSpec::Sat(_)
                | EngineSpec::Ext(_)
                | EngineSpec::Race(_)
        )
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Backtrack { threads: 0 } => write!(f, "backtrack"),
            EngineSpec::Backtrack { threads } => write!(f, "backtrack:{threads}"),
            EngineSpec::Sat(e) => write!(f, "sat:{e}"),
            EngineSpec::Race(Encoding::Auto) => write!(f, "race"),
            EngineSpec::Race(e) => write!(f, "race:{e}"),
            EngineSpec::Ext(x) => write!(f, "{x}"),
            EngineSpec::BacktrackRings { threads: 0 } => write!(f, "backtrack+rings"),
            EngineSpec::BacktrackRings { threads } => write!(f, "backtrack:{threads}+rings"),
            EngineSpec::Local { seed: 1 } => write!(f, "local"),
            EngineSpec::Local { seed } => write!(f, "local:{seed}"),
            EngineSpec::Leaf(leaf) => f.write_str(leaf.name()),
            EngineSpec::Auto { seed: 1 } => write!(f, "auto"),
            EngineSpec::Auto { seed } => write!(f, "auto:{seed}"),
        }
    }
}

/// A name and a request's options as a spec, and the family of a spec.
impl EngineName {
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
            (EngineName::Leaf(leaf), None) => EngineSpec::Leaf(leaf),
            // The ring prune is the backtracker's: `auto` with rings is the backtracker.
            (EngineName::Auto, None) if rings => EngineSpec::BacktrackRings { threads: 0 },
            (EngineName::Auto, None) => EngineSpec::Auto { seed: 1 },
        })
    }

    /// The engine and its options as one word (a batch file's header): `backtrack`,
    /// `ext:SOLVER:ENCODING`, else `NAME:ENCODING`.
    pub fn label(self, solver: Option<ExtName>, encoding: Encoding) -> String {
        match (self, solver) {
            (EngineName::Backtrack, _) => "backtrack".to_string(),
            (EngineName::Ext, Some(s)) => format!("ext:{s}:{encoding}"),
            (e, _) => format!("{}:{encoding}", e.name()),
        }
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
            EngineSpec::Leaf(leaf) => EngineName::Leaf(leaf),
            EngineSpec::Auto { .. } => EngineName::Auto,
        }
    }
}
