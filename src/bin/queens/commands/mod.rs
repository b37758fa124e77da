//! The commands written by hand, one file each: a question's arguments (clap), how they make
//! the operation's request ([`crate::runner::Run`]) and its answer as text
//! ([`crate::print::Text`]). A command made from its operation's declaration
//! ([`crate::derived`]) has a file here only for a text of its own (`grade`, `hint`).

pub(crate) mod check;
pub(crate) mod count;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod explain;
pub(crate) mod generate;
pub(crate) mod grade;
pub(crate) mod hint;
pub(crate) mod question;
pub(crate) mod rings;
pub(crate) mod solve;
pub(crate) mod threshold;
