//! Games played on the queens board or with the queen's pieces, each with its rules, its
//! search and its questions.

pub mod collection;
pub mod mod2;
