//! A job as the store records it and returns it, whichever the database: its status, its
//! fields, the counts and queue shape for `/metrics`, and the helpers both backends read rows
//! with.

use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use super::error::StoreError;

/// Where an artifact's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// In the store.
    Bytes(Vec<u8>),
    /// In this file, relative to the artifacts folder.
    File(String),
}

/// Now, in milliseconds since the Unix epoch (the store's timestamps).
pub(super) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// What a job handed back to the queue is reset to, as the `SET` list of an `UPDATE` in
/// either database's SQL: queued again, with no start, progress, owner or lease.
pub(super) const REQUEUED: &str =
    "status = 'queued', started_ms = NULL, progress = NULL, owner = NULL, lease_ms = NULL";

/// Parses a status read from the database; an unknown one means the database is damaged or
/// was written by something else.
pub(super) fn parse_status(status: &str, id: &str) -> Result<JobStatus, StoreError> {
    status
        .parse()
        .map_err(|e: UnknownStatus| StoreError::Db(format!("job {id}: {e}")))
}

/// Where a job is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// Accepted and waiting for a worker.
    Queued,
    /// Claimed by a worker.
    Running,
    /// Finished with a result.
    Done,
    /// Finished with an error.
    Failed,
    /// Cancelled by a client before it finished.
    Cancelled,
}

impl JobStatus {
    /// Every status, in the order of a job's life.
    pub const ALL: [JobStatus; 5] = [
        JobStatus::Queued,
        JobStatus::Running,
        JobStatus::Done,
        JobStatus::Failed,
        JobStatus::Cancelled,
    ];

    /// The name used in JSON, in the database and in metrics labels.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    /// Whether the job will never change again (done, failed or cancelled).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            JobStatus::Done | JobStatus::Failed | JobStatus::Cancelled
        )
    }
}

impl std::fmt::Display for JobStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status name that is not one of [`JobStatus::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown job status {0:?} (expected queued, running, done, failed or cancelled)")]
pub struct UnknownStatus(pub String);

impl FromStr for JobStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<JobStatus, UnknownStatus> {
        JobStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| UnknownStatus(s.to_string()))
    }
}

/// A job as stored. The JSON fields are kept as text: the store neither parses nor checks them.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Job {
    /// Unguessable and URL-safe: 32 lowercase hex digits (128 random bits).
    pub id: String,
    /// The operation asked for (e.g. `solve`, `count`, `prove`).
    pub op: String,
    /// The request body, JSON text.
    pub request: String,
    /// Where the job is in its life.
    pub status: JobStatus,
    /// The latest progress report of the current or last attempt, JSON text.
    pub progress: Option<String>,
    /// The result of a done job, JSON text.
    pub result: Option<String>,
    /// The error of a failed job, JSON text.
    pub error: Option<String>,
    /// How many times a worker has claimed the job; above 1 after a crash or a hand-back.
    pub attempts: u32,
    /// When the job was accepted, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// When the current or last attempt started (unset while queued), ms since the epoch.
    pub started_ms: Option<i64>,
    /// When the job became done, failed or cancelled, ms since the epoch.
    pub finished_ms: Option<i64>,
    /// The names of the job's artifacts (sorted); the bytes come from [`Store::artifact`](super::Store::artifact).
    pub artifacts: Vec<String>,
    /// The name of the API key that submitted the job (`None` without keys).
    pub key: Option<String>,
}

/// A job to accept, as the facade hands it to either backend: its operation, its request
/// (JSON), the most jobs that may be queued for it to be accepted, and the API key that
/// submits it (`None` on a server without keys).
pub(super) struct NewJob<'a> {
    pub op: &'a str,
    pub request: &'a str,
    pub max_queued: usize,
    pub key: Option<&'a str>,
}

/// A running job's end as the facade hands it to either backend: its id, its result (JSON),
/// its artifacts held as bytes (name, bytes) and those that are files of the artifacts
/// folder (name, path relative to that folder).
pub(super) struct Finished<'a> {
    pub id: &'a str,
    pub result: &'a str,
    pub artifacts: &'a [(&'a str, &'a [u8])],
    pub files: &'a [(&'a str, &'a str)],
}

/// How many jobs are in each status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Jobs waiting for a worker.
    pub queued: u64,
    /// Jobs a worker is on.
    pub running: u64,
    /// Jobs finished with a result.
    pub done: u64,
    /// Jobs finished with an error.
    pub failed: u64,
    /// Jobs cancelled by a client.
    pub cancelled: u64,
}

impl Counts {
    /// The count for one status.
    pub fn get(&self, status: JobStatus) -> u64 {
        match status {
            JobStatus::Queued => self.queued,
            JobStatus::Running => self.running,
            JobStatus::Done => self.done,
            JobStatus::Failed => self.failed,
            JobStatus::Cancelled => self.cancelled,
        }
    }

    /// The counts from a backend's `(status, COUNT(*))` rows, the same tally for both
    /// databases.
    pub(super) fn from_rows(
        rows: impl IntoIterator<Item = (String, i64)>,
    ) -> Result<Counts, StoreError> {
        let mut counts = Counts::default();
        for (status, n) in rows {
            let status: JobStatus = status
                .parse()
                .map_err(|e: UnknownStatus| StoreError::Db(format!("counting jobs: {e}")))?;
            let slot = match status {
                JobStatus::Queued => &mut counts.queued,
                JobStatus::Running => &mut counts.running,
                JobStatus::Done => &mut counts.done,
                JobStatus::Failed => &mut counts.failed,
                JobStatus::Cancelled => &mut counts.cancelled,
            };
            *slot = u64::try_from(n).unwrap_or(0);
        }
        Ok(counts)
    }
}

/// Jobs of one operation waiting and running, for `/metrics`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpQueue {
    /// The operation (`solve`, `collection_simulate`, …).
    pub op: String,
    /// Jobs queued.
    pub queued: u64,
    /// Jobs running (on any replica).
    pub running: u64,
    /// When the oldest queued one was accepted, ms since the Unix epoch.
    pub oldest_queued_ms: Option<i64>,
}

/// Folds `(op, status, count, oldest created_ms)` rows into [`OpQueue`]s.
pub(super) fn fold_queue(rows: Vec<(String, String, i64, Option<i64>)>) -> Vec<OpQueue> {
    let mut out: Vec<OpQueue> = Vec::new();
    for (op, status, n, oldest) in rows {
        let i = match out.iter().position(|q| q.op == op) {
            Some(i) => i,
            None => {
                out.push(OpQueue {
                    op,
                    ..OpQueue::default()
                });
                out.len() - 1
            }
        };
        let n = u64::try_from(n).unwrap_or(0);
        match status.as_str() {
            "queued" => {
                out[i].queued = n;
                out[i].oldest_queued_ms = oldest;
            }
            _ => out[i].running = n,
        }
    }
    out.sort_by(|a, b| a.op.cmp(&b.op));
    out
}
