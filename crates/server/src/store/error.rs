//! What can go wrong in the job store.

/// What can go wrong in the job store. Every message names the operation (and the job) that
/// failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// [`Store::insert`](super::Store::insert) refused a job: this many jobs are already
    /// waiting.
    #[error("the job queue is full ({0} jobs waiting)")]
    Full(usize),
    /// The database was written by a newer queens whose schema this binary does not know.
    #[error(
        "job store {path}: schema version {found} is newer than this queens knows \
         ({known}); run a newer queens or use another data directory"
    )]
    TooNew {
        /// The database file or server.
        path: String,
        /// The database's schema version.
        found: i64,
        /// [`SCHEMA_VERSION`](super::SCHEMA_VERSION).
        known: u32,
    },
    /// A result or artifact is over the store's size limit
    /// ([`Options::max_artifact`](super::Options::max_artifact)); nothing
    /// of the job's end was stored (a proof is never kept cut short).
    #[error(
        "the {what} is {bytes} bytes, over this server's limit of {limit} bytes for one stored \
         result or artifact (--max-artifact)"
    )]
    TooLarge {
        /// `result`, or the artifact's name (`proof`, `cnf`).
        what: String,
        /// Its size.
        bytes: usize,
        /// [`Options::max_artifact`](super::Options::max_artifact).
        limit: usize,
    },
    /// The database failed, or holds something that is not a job store.
    #[error("job store: {0}")]
    Db(String),
}
