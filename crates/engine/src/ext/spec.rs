//! How an external engine is named: the solver's name and the spec `ext:NAME[:ENCODING][+rings]`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::encode::amo::Encoding;

/// Longest solver name.
pub const MAX_NAME: usize = 24;

/// A solver's name: 1 to [`MAX_NAME`] characters, a letter then letters, digits, `_` or `-`
/// (`cadical`, `cryptominisat5`). A plain value, so an engine spec stays `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExtName {
    len: u8,
    bytes: [u8; MAX_NAME],
}

impl ExtName {
    /// Checks and stores a name.
    pub fn new(name: &str) -> Result<ExtName, String> {
        let ok = !name.is_empty()
            && name.len() <= MAX_NAME
            && name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !ok {
            return Err(format!(
                "`{name}` is not a solver name (1 to {MAX_NAME} characters: a letter, then \
                 letters, digits, `_` or `-`)"
            ));
        }
        let mut bytes = [0u8; MAX_NAME];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Ok(ExtName {
            len: name.len() as u8,
            bytes,
        })
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored.
        std::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("")
    }
}

impl fmt::Display for ExtName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for ExtName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl FromStr for ExtName {
    type Err = String;
    fn from_str(s: &str) -> Result<ExtName, String> {
        ExtName::new(s)
    }
}

impl Serialize for ExtName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ExtName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ExtName, D::Error> {
        let s = String::deserialize(d)?;
        ExtName::new(&s).map_err(serde::de::Error::custom)
    }
}

/// An external engine: which solver, on which encoding, with the ring constraints
/// ([`crate::cnf::rings`]) or without. Written `ext:NAME[:ENCODING][+rings]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtSpec {
    /// The solver.
    pub solver: ExtName,
    /// The at-most-one encoding of the CNF it gets.
    pub encoding: Encoding,
    /// Add the rings' redundant cardinality constraints.
    pub rings: bool,
}

impl fmt::Display for ExtSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ext:{}", self.solver)?;
        if self.encoding != Encoding::Auto {
            write!(f, ":{}", self.encoding)?;
        }
        if self.rings {
            write!(f, "+rings")?;
        }
        Ok(())
    }
}

impl ExtSpec {
    /// Parses what follows `ext:` (`cadical`, `cadical:seq`, `minisat+rings`).
    pub fn parse(rest: &str) -> Result<ExtSpec, String> {
        let (body, rings) = match rest.strip_suffix("+rings") {
            Some(b) => (b, true),
            None => (rest, false),
        };
        let (name, encoding) = match body.split_once(':') {
            Some((n, e)) => (n, e.parse::<Encoding>().map_err(|e| e.to_string())?),
            None => (body, Encoding::Auto),
        };
        Ok(ExtSpec {
            solver: ExtName::new(name)?,
            encoding,
            rings,
        })
    }
}
