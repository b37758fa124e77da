//! The engines' names, one type for the command line (`--engine`), the service's JSON
//! (`"engine"`, `"answered_by"`) and `compare`'s tables: a family of
//! [`crate::spec::EngineSpec`]s (`spec.rs` turns a name into a spec and back).

use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

/// Which engine answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
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
    /// Knuth's Dancing Links: exact cover by Algorithm X (rows, columns and regions exactly
    /// once, diagonals at most once), boards up to 512; complete, it counts and lists.
    Dlx,
    /// The engine for the board: on a completion the core search and local search side by
    /// side after cheap refutations; backtrack on small boards and for all/limit/proof, local
    /// search on empty boards past 4096, a race of the two in between (`answered_by` says
    /// which answered).
    Auto,
}

/// Every engine's name, in the order the refusal of an unknown one lists them.
const NAMES: [EngineName; 7] = [
    EngineName::Auto,
    EngineName::Backtrack,
    EngineName::Sat,
    EngineName::Race,
    EngineName::Local,
    EngineName::Dlx,
    EngineName::Ext,
];

impl EngineName {
    /// The engine named `s` (as JSON writes it); for any other name, the command line's
    /// refusal of `--engine s`.
    pub fn parse(s: &str) -> Result<EngineName, String> {
        NAMES
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| Self::unknown(s))
    }

    /// The built-in engines, in the table's order (all but `ext`, whose solvers are listed
    /// apart): what `GET /v1/engines` lists.
    pub fn built_in() -> impl Iterator<Item = EngineName> {
        NAMES.into_iter().filter(|&e| e != EngineName::Ext)
    }

    /// The refusal of an engine name that is none of these.
    pub fn unknown(s: &str) -> String {
        format!(
            "`{s}`: use auto, backtrack, sat, race, local, dlx or ext:SOLVER (e.g. ext:cadical)"
        )
    }

    /// The engine's name as the CLI and JSON write it.
    pub fn name(self) -> &'static str {
        match self {
            EngineName::Backtrack => "backtrack",
            EngineName::Sat => "sat",
            EngineName::Race => "race",
            EngineName::Ext => "ext",
            EngineName::Local => "local",
            EngineName::Dlx => "dlx",
            EngineName::Auto => "auto",
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
            | EngineName::Dlx
            | EngineName::Auto => EngineName::Backtrack,
        }
    }
}

/// A name it does not know is refused with the same words in the service's JSON and in Python
/// as on the command line ([`EngineName::parse`]), not serde's `unknown variant`.
impl<'de> Deserialize<'de> for EngineName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = EngineName;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an engine name")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<EngineName, E> {
                EngineName::parse(s).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name reads back as its engine, and an unknown one is refused in the command
    /// line's words, not serde's `unknown variant`.
    #[test]
    fn names_read_back_and_an_unknown_one_is_refused_in_the_cli_words() {
        for e in NAMES {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(serde_json::from_str::<EngineName>(&json).unwrap(), e);
            assert_eq!(EngineName::parse(e.name()), Ok(e));
        }
        let err = serde_json::from_str::<EngineName>("\"sta\"").unwrap_err();
        assert_eq!(
            err.to_string(),
            "`sta`: use auto, backtrack, sat, race, local, dlx or ext:SOLVER (e.g. ext:cadical) \
             at line 1 column 5"
        );
        assert!(serde_json::from_str::<EngineName>("3").is_err());
    }
}
