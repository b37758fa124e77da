//! The job store: accepted jobs, their results and artifacts, durable across crashes, behind
//! one API over two databases.
//!
//! - `sqlite.rs`: one embedded file (the default): nothing to install, one server per folder.
//! - `postgres.rs`: one shared server (`serve --store postgres://…`): any number of replicas
//!   claim from the same queue.
//!
//! These two files are the only ones in the crate that speak SQL: the rest of the service
//! sees this API, which carries no driver type, so a third store or a schema change touches
//! one file and its tests, not the handlers.
//!
//! A job moves `queued → running → done | failed`, and `queued | running → cancelled`. A claim
//! gives the job to this store's *owner* (one per [`Store`], so one per server process) with a
//! *lease*: the owner renews it while the job runs ([`Store::renew`]), and once a lease has run
//! out without renewal (the owner was killed, hung or cut off), any owner puts the job back in
//! the queue ([`Store::requeue_expired`]); the next claim counts another attempt. Only the
//! owner of a running job may record its progress or its end, so a job taken away from a
//! replica that was cut off is never recorded twice. Every change is one transaction that is
//! durable when the call returns, so a job is never lost once [`Store::insert`] has returned.
//!
//! The calls block (a write waits for an fsync or a round trip): from async code, run them on a
//! blocking thread.

mod error;
mod options;
mod postgres;
mod row;
mod sqlite;
mod tls;

use std::path::Path;
use std::time::Duration;

pub use error::StoreError;
pub use options::{is_postgres, redact, Options};
pub use row::{Artifact, Counts, Job, JobStatus, OpQueue, UnknownStatus};
use row::{Finished, NewJob};
pub use sqlite::{FILE_NAME, SCHEMA_VERSION};

use options::owner;

/// The durable job store. `Send + Sync`: share it in an `Arc`.
pub struct Store {
    backend: Backend,
    max_artifact: usize,
}

enum Backend {
    Sqlite(sqlite::Sqlite),
    // Boxed: its pool and connection settings are twice SQLite's size, and a store is one
    // value per server.
    Postgres(Box<postgres::Postgres>),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("origin", &self.origin())
            .finish_non_exhaustive()
    }
}

/// Calls the same method on whichever backend this store has.
macro_rules! each {
    ($self:ident, $b:ident => $call:expr) => {
        match &$self.backend {
            Backend::Sqlite($b) => $call,
            Backend::Postgres($b) => $call,
        }
    };
}

impl Store {
    /// Opens (creating if needed) the SQLite store `dir/queens.sqlite3`, creating `dir` too,
    /// with the default [`Options`]; see [`Store::open_with`].
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        Store::open_with(dir, Options::default())
    }

    /// Opens (creating if needed) the SQLite store `dir/queens.sqlite3`, creating `dir` too,
    /// and brings an older schema up to date. Refuses a database whose schema is newer than
    /// this binary's ([`StoreError::TooNew`]) without changing it.
    pub fn open_with(dir: &Path, options: Options) -> Result<Store, StoreError> {
        let backend = Backend::Sqlite(sqlite::Sqlite::open(dir, owner(), options)?);
        Ok(Store::with(backend, options))
    }

    /// Opens a fresh SQLite store that lives in memory and dies with it (for tests).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let options = Options::default();
        let backend = Backend::Sqlite(sqlite::Sqlite::open_in_memory(owner(), options)?);
        Ok(Store::with(backend, options))
    }

    /// Connects to the Postgres store at `url` (`postgres://user:password@host:port/db`, or
    /// the key=value form) and brings its schema up to date; any number of stores (replicas)
    /// may share it. The password never appears in an error or in [`Store::origin`].
    pub fn connect(url: &str, options: Options) -> Result<Store, StoreError> {
        let backend = Backend::Postgres(Box::new(postgres::Postgres::connect(
            url,
            owner(),
            options,
        )?));
        Ok(Store::with(backend, options))
    }

    /// Opens the store `spec` names: a `postgres://` or `postgresql://` URL, or else SQLite in
    /// the folder `data`.
    pub fn open_spec(
        spec: Option<&str>,
        data: &Path,
        options: Options,
    ) -> Result<Store, StoreError> {
        match spec {
            Some(url) if is_postgres(url) => Store::connect(url, options),
            Some(other) => Err(StoreError::Db(format!(
                "--store {:?}: expected a postgres:// or postgresql:// URL (without --store, \
                 jobs are kept in SQLite in --data)",
                redact(other)
            ))),
            None => Store::open_with(data, options),
        }
    }

    fn with(backend: Backend, options: Options) -> Store {
        Store {
            backend,
            max_artifact: options.max_artifact,
        }
    }

    /// The database file (or `:memory:`), or the Postgres server and database without the
    /// password, for logs.
    pub fn origin(&self) -> &str {
        each!(self, b => b.origin())
    }

    /// `sqlite` or `postgres`.
    pub fn kind(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// Whether other processes may be running this store's jobs right now: true for Postgres.
    /// Then a starting server must not take the running jobs back ([`Store::requeue_all_running`]);
    /// their leases say when they are orphans.
    pub fn is_shared(&self) -> bool {
        matches!(self.backend, Backend::Postgres(_))
    }

    /// This store's owner name, as recorded on the jobs it claims (host, process, instance).
    pub fn owner(&self) -> &str {
        each!(self, b => b.owner())
    }

    /// Checks that the database answers and holds a job store (for readiness probes).
    pub fn ping(&self) -> Result<(), StoreError> {
        each!(self, b => b.ping())
    }

    /// Accepts a job: stores it as queued and returns it once it is durable. Refuses with
    /// [`StoreError::Full`] when `max_queued` jobs or more are already queued. On SQLite the
    /// count and the insert are one locked transaction, so the limit is exact; on Postgres
    /// concurrent inserts may pass it by as many as are in flight at once.
    pub fn insert(
        &self,
        op: &str,
        request_json: &str,
        max_queued: usize,
    ) -> Result<Job, StoreError> {
        self.insert_for(op, request_json, max_queued, None)
    }

    /// [`Store::insert`], for the API key named `key`: only that key's callers see the job.
    pub fn insert_for(
        &self,
        op: &str,
        request_json: &str,
        max_queued: usize,
        key: Option<&str>,
    ) -> Result<Job, StoreError> {
        each!(self, b => b.accept(NewJob { op, request: request_json, max_queued, key }))
    }

    /// The job `id` with its artifacts' names, or `None` if there is no such job.
    pub fn get(&self, id: &str) -> Result<Option<Job>, StoreError> {
        each!(self, b => b.get(id))
    }

    /// Gives the oldest queued job to this store's owner: marks it running with a fresh lease,
    /// counts the attempt, sets `started_ms` and clears the progress of an earlier attempt.
    /// `None` if nothing is queued. Atomic: two claims (threads, processes, replicas) never
    /// get the same job.
    pub fn claim_next(&self) -> Result<Option<Job>, StoreError> {
        each!(self, b => b.claim_next())
    }

    /// Renews the lease of every job this owner is running; returns their ids. A job the
    /// caller runs that is not among them was cancelled or taken away: stop it.
    pub fn renew(&self) -> Result<Vec<String>, StoreError> {
        each!(self, b => b.renew())
    }

    /// Puts every running job whose lease has run out back in the queue, at its old place;
    /// returns their ids.
    pub fn requeue_expired(&self) -> Result<Vec<String>, StoreError> {
        each!(self, b => b.requeue_expired())
    }

    /// Records the progress of a running job of this owner. Returns `false` (and records
    /// nothing) if it is no longer running here: a worker learns here that its job was
    /// cancelled. Each call is a durable write: report every second or so, not every node.
    pub fn set_progress(&self, id: &str, progress_json: &str) -> Result<bool, StoreError> {
        each!(self, b => b.set_progress(id, progress_json))
    }

    /// Marks a running job of this owner done with its result and stores its artifacts (name,
    /// bytes), all in one transaction. Returns `false`, storing nothing, if the job is no
    /// longer running here (cancelled, or taken away after its lease). Two artifacts with the
    /// same name are an error, and then nothing is stored either; so is a result or artifact
    /// over [`Options::max_artifact`] ([`StoreError::TooLarge`]): never stored cut short.
    pub fn finish(
        &self,
        id: &str,
        result_json: &str,
        artifacts: &[(&str, &[u8])],
    ) -> Result<bool, StoreError> {
        self.finish_with_files(id, result_json, artifacts, &[])
    }

    /// [`Store::finish`], some artifacts being files of the artifacts folder (name, path
    /// relative to that folder) rather than bytes: a proof streamed there as it was written,
    /// which no size limit of the store applies to.
    pub fn finish_with_files(
        &self,
        id: &str,
        result_json: &str,
        artifacts: &[(&str, &[u8])],
        files: &[(&str, &str)],
    ) -> Result<bool, StoreError> {
        let sizes = std::iter::once(("result", result_json.len()))
            .chain(artifacts.iter().map(|(name, bytes)| (*name, bytes.len())));
        for (what, bytes) in sizes {
            if bytes > self.max_artifact {
                return Err(StoreError::TooLarge {
                    what: what.to_string(),
                    bytes,
                    limit: self.max_artifact,
                });
            }
        }
        each!(self, b => b.complete(Finished { id, result: result_json, artifacts, files }))
    }

    /// Marks a running job of this owner failed with its error. Returns `false`, storing
    /// nothing, if the job is no longer running here.
    pub fn fail(&self, id: &str, error_json: &str) -> Result<bool, StoreError> {
        each!(self, b => b.fail(id, error_json))
    }

    /// Cancels a queued or running job, whoever runs it. Returns the status the job had before
    /// (`None`: no such job); a job that had already finished is left as it was. The worker
    /// learns from [`Store::renew`], `set_progress` or `finish`, or from the caller.
    pub fn cancel(&self, id: &str) -> Result<Option<JobStatus>, StoreError> {
        each!(self, b => b.cancel(id))
    }

    /// Hands a running job of this owner back to the queue (a server shutting down
    /// gracefully), at its original place. Returns `false` if it was not running here.
    pub fn requeue(&self, id: &str) -> Result<bool, StoreError> {
        each!(self, b => b.requeue(id))
    }

    /// Hands every running job back to the queue, whoever's; returns how many. For the start
    /// of a server that has the store to itself ([`Store::is_shared`] false): after a crash,
    /// the jobs that were running have no worker any more.
    pub fn requeue_all_running(&self) -> Result<usize, StoreError> {
        each!(self, b => b.requeue_all_running())
    }

    /// The bytes of artifact `name` of job `id`, or `None` if there is no such artifact or
    /// it is a file ([`Store::artifact_source`]).
    pub fn artifact(&self, id: &str, name: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(match self.artifact_source(id, name)? {
            Some(Artifact::Bytes(b)) => Some(b),
            _ => None,
        })
    }

    /// Artifact `name` of job `id`: its bytes, or the file of the artifacts folder it is in.
    pub fn artifact_source(&self, id: &str, name: &str) -> Result<Option<Artifact>, StoreError> {
        each!(self, b => b.artifact_source(id, name))
    }

    /// Removes job `id` and its stored artifacts, whatever its status, and returns the
    /// status it had (`None`: no such job). The files of its artifacts are the caller's to
    /// remove. A running job should be cancelled first ([`Store::cancel`]); its owner learns
    /// from [`Store::renew`] that it is gone, and its `finish` records nothing.
    pub fn delete(&self, id: &str) -> Result<Option<JobStatus>, StoreError> {
        each!(self, b => b.delete(id))
    }

    /// Removes at most `limit` jobs that finished (done, failed or cancelled) more than `age`
    /// ago, oldest first, with their stored artifacts; returns their ids (the caller removes
    /// their files). Safe with several replicas sweeping at once: each job is removed and
    /// returned once.
    pub fn delete_finished(&self, age: Duration, limit: usize) -> Result<Vec<String>, StoreError> {
        let age_ms = i64::try_from(age.as_millis()).unwrap_or(i64::MAX);
        each!(self, b => b.delete_finished(age_ms, limit))
    }

    /// Which of `ids` are jobs of this store (the others' files are orphans).
    pub fn existing(&self, ids: &[String]) -> Result<Vec<String>, StoreError> {
        each!(self, b => b.existing(ids))
    }

    /// How many jobs are in each status (for `/metrics`).
    pub fn counts(&self) -> Result<Counts, StoreError> {
        each!(self, b => b.counts())
    }
}

/// Fair dispatch: which keys have work waiting, and a claim of one key's oldest job.
impl Store {
    /// The API keys (`None`: jobs without one) that have queued jobs, each with the arrival
    /// order (`seq`) of its oldest, oldest first.
    pub fn queued_keys(&self) -> Result<Vec<(Option<String>, i64)>, StoreError> {
        each!(self, b => b.queued_keys())
    }

    /// [`Store::claim_next`] among the jobs of API key `key` only (`None`: jobs without one).
    pub fn claim_next_of(&self, key: Option<&str>) -> Result<Option<Job>, StoreError> {
        each!(self, b => b.claim_next_of(key))
    }

    /// Queued and running jobs per operation, with the oldest queued one's age.
    pub fn queue_by_op(&self) -> Result<Vec<OpQueue>, StoreError> {
        each!(self, b => b.queue_by_op())
    }
}
