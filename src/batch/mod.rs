//! Runs of many instances, or of one count, cut into shards for a scheduler the user already
//! has (Slurm, Kubernetes, or local processes), and put back together.
//!
//! - [`compare`]: every instance on every engine on this machine, each attempt in a child
//!   process (`queens compare`);
//! - [`shard`]: which shard an instance or a subproblem belongs to, and the count of one
//!   shard of a search tree;
//! - [`merge`]: batch result files and count shards back into one answer, refusing or
//!   reporting what is missing or contradictory;
//! - the records a batch shard file holds ([`BatchHeader`], [`BatchLine`]); the run itself
//!   is [`crate::ops::batch`], which solves each instance through the operations layer.
//!
//! A batch shard file is JSON lines: one [`BatchHeader`] line naming the shard, the whole
//! instance set and this shard's members, then one [`BatchLine`] per instance, sorted by the
//! instance's position in the inputs.

pub mod compare;
pub mod merge;
pub mod shard;

use serde::{Deserialize, Serialize};

use crate::model::Pos;
use crate::status::Status;
pub use shard::Shard;

/// The `format` of a batch shard file's header line.
pub const BATCH_FORMAT: &str = "queens-batch-v1";

/// The first line of a batch shard file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchHeader {
    /// Always [`BATCH_FORMAT`].
    pub format: String,
    /// Which shard of how many.
    pub shard: Shard,
    /// Hash of the whole instance set (every instance's position, id and content hash):
    /// shards of different sets are never merged.
    pub set: String,
    /// Instances in the whole set, over all shards.
    pub total: usize,
    /// The engine asked for (`backtrack`, `sat` or `race`), with the encoding for SAT.
    pub engine: String,
    /// The limit per instance, milliseconds.
    pub timeout_ms: Option<u64>,
    /// This shard's instances.
    pub members: Vec<Member>,
}

/// One instance of a batch: where it stands in the inputs, its id and its content hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// Position in the inputs, counted over all files from 0.
    pub index: usize,
    /// The instance's id (see [`crate::formats::sources::load_all`]).
    pub id: String,
    /// [`shard::content_hash`] of the instance (of the error, for an input that could not be
    /// read).
    pub hash: String,
}

/// One instance's result line in a batch shard file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchLine {
    /// Position in the inputs.
    pub index: usize,
    /// The instance's id.
    pub id: String,
    /// Its content hash.
    pub hash: String,
    /// How it ended: `sat`, `unsat`, `timeout` or `error`.
    pub status: Status,
    /// With `sat`: the solution, `[row, col]` sorted by row, checked by the verifier.
    pub queens: Option<Vec<Pos>>,
    /// Wall time of the solve, milliseconds.
    pub time_ms: f64,
    /// The engine that answered (`backtrack` or `sat`; for `race`, the winner).
    pub engine: String,
    /// Backtracker: queens placed by the search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// With `error`: what went wrong, naming the file and line or the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
