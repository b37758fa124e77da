//! Games played on the queens board or with the queen's pieces, each with its rules, its
//! search and its questions.

// The crates below, and this one, under the names the modules use.
pub(crate) use queens_engine as engine;
pub(crate) use queens_engine::encode;
pub(crate) use queens_model::{error, formats, model, rng, status};

pub mod collection;
pub mod mod2;
