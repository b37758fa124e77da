//! The engine table: every engine's name and help in the order lists give them, how a
//! name (`--engine`, `"engine"`) reads as an engine, and the leaf engine each [`EngineSpec`]
//! names ([`engine_of`]). An engine without options is one folder, which says its name and
//! help and builds the engine (a [`Leaf`]), and one line of [`LEAVES`]: its name then parses
//! as `--engine NAME` and `"engine": "NAME"`, `GET /v1/engines`, the help and the OpenAPI
//! document list it, and the plan runs it, lists and counts with it and cross-checks it
//! against the backtracker.

use std::str::FromStr;

use serde::{Deserialize, Deserializer};

use crate::encode::amo::Encoding;
use crate::engines::{self, Engine, Leaf};
use crate::ext::spec::ExtSpec;
use crate::leaf::LeafName;
use crate::name::EngineName;
use crate::spec::EngineSpec;
use queens_model::error::Error;

/// The engines without options, in the order lists give them (after the engines with
/// options, before `ext`).
pub static LEAVES: &[Leaf] = &[crate::dlx::LEAF];

/// Every leaf of [`LEAVES`], in its order.
fn leaves() -> impl Iterator<Item = LeafName> {
    LEAVES.iter().map(|l| LeafName::of(&l.about))
}

/// The engines with options, in the order lists give them; the leaves of the engine table
/// follow, then `ext`.
const WITH_OPTIONS: [EngineName; 5] = [
    EngineName::Auto,
    EngineName::Backtrack,
    EngineName::Sat,
    EngineName::Race,
    EngineName::Local,
];

/// The names, read and listed.
impl EngineName {
    /// Every engine's name, in the order the refusal of an unknown one, the help and
    /// `GET /v1/engines` list them.
    pub fn all() -> impl Iterator<Item = EngineName> {
        WITH_OPTIONS
            .into_iter()
            .chain(leaves().map(EngineName::Leaf))
            .chain([EngineName::Ext])
    }

    /// The engine named `s` (as JSON writes it); for any other name, the command line's
    /// refusal of `--engine s`.
    pub fn parse(s: &str) -> Result<EngineName, String> {
        Self::all()
            .find(|e| e.name() == s)
            .ok_or_else(|| Self::unknown(s))
    }

    /// The built-in engines, in the table's order (all but `ext`, whose solvers are listed
    /// apart): what `GET /v1/engines` lists.
    pub fn built_in() -> impl Iterator<Item = EngineName> {
        Self::all().filter(|&e| e != EngineName::Ext)
    }

    /// The refusal of an engine name that is none of these.
    pub fn unknown(s: &str) -> String {
        let names: Vec<&str> = Self::built_in().map(EngineName::name).collect();
        format!(
            "`{s}`: use {} or ext:SOLVER (e.g. ext:cadical)",
            names.join(", ")
        )
    }
}

/// In the OpenAPI document: a string, one of the names.
impl utoipa::PartialSchema for EngineName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("Which engine answers."))
            .enum_values(Some(Self::all().map(EngineName::name)))
            .into()
    }
}

impl utoipa::ToSchema for EngineName {}

/// `--engine NAME` and `--engine` in the help, with each engine's line of help (`ext` is
/// written `ext:SOLVER`, and read apart).
#[cfg(feature = "clap")]
impl clap::ValueEnum for EngineName {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::OnceLock<Vec<EngineName>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| EngineName::built_in().collect())
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()).help(self.help()))
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

impl FromStr for EngineSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<EngineSpec, String> {
        if let Some(plain) = s
            .strip_suffix("+rings")
            .filter(|p| p.starts_with("backtrack"))
        {
            return match plain.parse::<EngineSpec>() {
                Ok(EngineSpec::Backtrack { threads }) => Ok(EngineSpec::BacktrackRings { threads }),
                _ => Err(format!(
                    "`{s}`: use backtrack+rings or backtrack:THREADS+rings"
                )),
            };
        }
        if let Some(leaf) = leaves().find(|l| l.name() == s) {
            return Ok(EngineSpec::Leaf(leaf));
        }
        let (name, arg) = match s.split_once(':') {
            Some((a, b)) => (a, Some(b)),
            None => (s, None),
        };
        match (name, arg) {
            ("backtrack", None) => Ok(EngineSpec::Backtrack { threads: 0 }),
            ("backtrack", Some(t)) => match t.parse::<usize>() {
                Ok(threads) if threads >= 1 => Ok(EngineSpec::Backtrack { threads }),
                _ => Err(format!(
                    "`{s}`: after `backtrack:` give a thread count of 1 or more"
                )),
            },
            ("sat", None) => Ok(EngineSpec::Sat(Encoding::Auto)),
            ("sat", Some(e)) => e
                .parse::<Encoding>()
                .map(EngineSpec::Sat)
                .map_err(|err| format!("`{s}`: {err}")),
            ("race", None) => Ok(EngineSpec::Race(Encoding::Auto)),
            ("race", Some(e)) => e
                .parse::<Encoding>()
                .map(EngineSpec::Race)
                .map_err(|err| format!("`{s}`: {err}")),
            ("ext", Some(rest)) => ExtSpec::parse(rest)
                .map(EngineSpec::Ext)
                .map_err(|err| format!("`{s}`: {err}")),
            ("local", None) => Ok(EngineSpec::Local { seed: 1 }),
            ("auto", None) => Ok(EngineSpec::Auto { seed: 1 }),
            ("local" | "auto", Some(t)) => match t.parse::<u64>() {
                Ok(seed) if name == "local" => Ok(EngineSpec::Local { seed }),
                Ok(seed) => Ok(EngineSpec::Auto { seed }),
                _ => Err(format!(
                    "`{s}`: after `{name}:` give a seed (a whole number)"
                )),
            },
            _ => {
                let leaves: String = leaves().map(|l| format!(", {}", l.name())).collect();
                Err(format!(
                    "`{s}`: unknown engine (use backtrack, backtrack:THREADS, sat:ENCODING, \
                     race, local[:SEED], auto[:SEED]{leaves} or ext:SOLVER, e.g. sat:seq or \
                     ext:cadical)"
                ))
            }
        }
    }
}

/// The leaf engine `spec` names. `auto` is a plan, not a leaf, and a race of the backtracker
/// and the SAT engine needs a caller that can start a child process (the operations layer).
pub fn engine_of(spec: EngineSpec) -> Result<Box<dyn Engine>, Error> {
    Ok(match spec {
        EngineSpec::Backtrack { threads } => Box::new(engines::Backtrack {
            threads,
            rings: false,
        }),
        EngineSpec::BacktrackRings { threads } => Box::new(engines::Backtrack {
            threads,
            rings: true,
        }),
        EngineSpec::Sat(encoding) => Box::new(engines::Sat {
            encoding,
            learned: false,
        }),
        EngineSpec::Ext(x) => Box::new(engines::Ext(x)),
        EngineSpec::Local { seed } => Box::new(engines::Local { seed }),
        EngineSpec::Leaf(leaf) => match LEAVES.iter().find(|l| l.about.name == leaf.name()) {
            Some(l) => (l.build)(),
            None => return Err(Error::internal("a leaf engine is in the engine table")),
        },
        EngineSpec::Auto { .. } => {
            return Err(Error::internal("auto is a plan of engines, not one engine"))
        }
        EngineSpec::Race(_) => return Err(crate::spec::race_needs_a_caller()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name reads back as its engine, and an unknown one is refused in the command
    /// line's words, not serde's `unknown variant`.
    #[test]
    fn names_read_back_and_an_unknown_one_is_refused_in_the_cli_words() {
        for e in EngineName::all() {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(serde_json::from_str::<EngineName>(&json).unwrap(), e);
            assert_eq!(EngineName::parse(e.name()), Ok(e));
        }
        let err = serde_json::from_str::<EngineName>("\"sta\"").unwrap_err();
        let leaves: String = leaves().map(|l| format!(", {}", l.name())).collect();
        assert_eq!(
            err.to_string(),
            format!(
                "`sta`: use auto, backtrack, sat, race, local{leaves} or ext:SOLVER (e.g. \
                 ext:cadical) at line 1 column 5"
            )
        );
        assert!(!leaves.is_empty());
        assert!(serde_json::from_str::<EngineName>("3").is_err());
    }
}
