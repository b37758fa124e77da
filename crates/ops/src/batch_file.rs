//! Runs of many instances, or of one count, cut into shards for a scheduler the user already
//! has (Slurm, Kubernetes, or local processes), and put back together.
//!
//! - [`crate::compare`]: every instance on every engine on this machine, each attempt in a child
//!   process (`queens compare`);
//! - [`crate::shard`]: which shard an instance or a subproblem belongs to, and the count of one
//!   shard of a search tree;
//! - [`crate::merge`]: batch result files and count shards back into one answer, refusing or
//!   reporting what is missing or contradictory;
//! - the records a batch shard file holds ([`BatchHeader`], [`BatchLine`]); the run itself
//!   is [`crate::batch`], which solves each instance through the operations layer.
//!
//! A batch shard file is JSON lines: one [`BatchHeader`] line naming the shard, the whole
//! instance set and this shard's members, then one [`BatchLine`] per instance, sorted by the
//! instance's position in the inputs.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub use crate::shard::Shard;
use queens_model::model::Pos;
use queens_model::status::Status;

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
    /// With `--proof`: the format of every UNSAT answer's proof.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<queens_proof::ProofFormat>,
    /// This shard's instances.
    pub members: Vec<Member>,
}

/// One instance of a batch: where it stands in the inputs, its id and its content hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// Position in the inputs, counted over all files from 0.
    pub index: usize,
    /// The instance's id (see [`queens_model::formats::sources::load_all`]).
    pub id: String,
    /// [`crate::shard::content_hash`] of the instance (of the error, for an input that could not be
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
    /// With `unsat` in a run with `--proof`: the proof, accepted by the built-in checker as
    /// it was written, and the files of it and of the CNF it refutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<crate::ProofInfo>,
}

/// The file name (without extension) of each member's proof and CNF, by position: its id
/// with every character but ASCII letters, digits, `-`, `_` and `.` made `_` (no leading
/// `.`, at most 100 characters). Ids that would share a name, letter case ignored (so that
/// case-insensitive file systems agree), each get `~` and their position in the inputs:
/// `~` is never in a plain name, so no two members share a file.
pub fn proof_names(members: &[Member]) -> HashMap<usize, String> {
    let safe = |id: &str| {
        let s: String = id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .take(100)
            .collect();
        let s = s.trim_start_matches('.');
        if s.is_empty() {
            "instance".to_string()
        } else {
            s.to_string()
        }
    };
    let plain: Vec<(usize, String)> = members.iter().map(|m| (m.index, safe(&m.id))).collect();
    let mut uses: HashMap<String, usize> = HashMap::new();
    for (_, name) in &plain {
        *uses.entry(name.to_lowercase()).or_default() += 1;
    }
    plain
        .into_iter()
        .map(|(index, name)| {
            if uses[&name.to_lowercase()] > 1 {
                (index, format!("{name}~{index}"))
            } else {
                (index, name)
            }
        })
        .collect()
}
