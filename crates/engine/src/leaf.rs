//! The name of an engine without options, which its folder gives ([`About`]) and the engine
//! table lists ([`crate::table::LEAVES`]).

/// What an engine without options says of itself.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct About {
    /// Its name on the command line and in JSON.
    pub name: &'static str,
    /// One line of help: what it is and what it takes.
    pub help: &'static str,
}

/// One engine without options, as the engine table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeafName(&'static About);

impl LeafName {
    /// The leaf that says `about` of itself (the engine table makes these).
    pub(crate) const fn of(about: &'static About) -> LeafName {
        LeafName(about)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// Its line of help.
    pub fn help(self) -> &'static str {
        self.0.help
    }
}
