//! The SQLite job store: one embedded file in the server's data folder, the default.
//!
//! Every change is one transaction that is on disk when the call returns (WAL, synchronous=FULL),
//! so a job is never lost once `insert` has returned, even if the process is killed or the
//! machine loses power right after. One server uses a folder at a time (it locks it), so at
//! start it takes back every job a crash left running; leases are kept as in Postgres all the
//! same, so both stores behave alike.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::error::StoreError;
use super::options::Options;
use super::row::{
    fold_queue, now_ms, parse_status, Artifact, Counts, Finished, Job, JobStatus, NewJob, OpQueue,
    REQUEUED,
};

use rusqlite::types::ToSql;
use rusqlite::{
    params, params_from_iter, Connection, OptionalExtension, Transaction, TransactionBehavior,
};

/// The database file's name inside the data folder.
pub const FILE_NAME: &str = "queens.sqlite3";

/// The schema, one migration per version: `MIGRATIONS[i]` takes a database from version `i`
/// to version `i + 1` (the version lives in `PRAGMA user_version`). Append, never edit: a
/// database in the field has run the old text.
const MIGRATIONS: &[&str] = &[
    // 1: jobs and their artifacts. `seq` is the arrival order that `claim_next` follows (an
    // AUTOINCREMENT key never reuses a value, so the order survives deletions); `id` is what
    // clients see. Artifacts (proofs of tens of MB) have their own table so that reading a
    // job never reads them.
    "PRAGMA application_id = 1364542798;
     CREATE TABLE jobs (
         seq         INTEGER PRIMARY KEY AUTOINCREMENT,
         id          TEXT    NOT NULL UNIQUE,
         op          TEXT    NOT NULL,
         request     TEXT    NOT NULL,
         status      TEXT    NOT NULL
                     CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
         progress    TEXT,
         result      TEXT,
         error       TEXT,
         attempts    INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
         created_ms  INTEGER NOT NULL,
         started_ms  INTEGER,
         finished_ms INTEGER
     );
     CREATE INDEX jobs_by_status ON jobs (status, seq);
     CREATE TABLE artifacts (
         job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
         name   TEXT NOT NULL,
         bytes  BLOB NOT NULL,
         PRIMARY KEY (job_id, name)
     );",
    // 2: the owner of a running job and when its lease runs out (ms since the epoch).
    "ALTER TABLE jobs ADD COLUMN owner TEXT;
     ALTER TABLE jobs ADD COLUMN lease_ms INTEGER;",
    // 3: the API key (its name, never the key) that submitted a job; NULL on a server
    // without keys. Another key's caller does not see the job.
    "ALTER TABLE jobs ADD COLUMN api_key TEXT;",
    // 4: an artifact may live in a file of the artifacts folder (a proof streamed there as
    // it was written): `path`, relative to that folder, and no bytes here.
    "ALTER TABLE artifacts ADD COLUMN path TEXT;",
    // 5: retention removes finished jobs oldest first (`--keep-finished`); this index keeps
    // that a walk over the expired ones, not over the whole table.
    "CREATE INDEX jobs_finished ON jobs (finished_ms)
         WHERE status IN ('done', 'failed', 'cancelled');",
];

/// The schema version this binary writes: the number of migrations it knows.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// `PRAGMA application_id` of a job store ("QUEN"), so that another program's SQLite file is
/// refused instead of having our tables added to it.
const APPLICATION_ID: i64 = 0x5155_454E;

/// How long a write waits for another connection's lock before failing with "database is
/// locked". Generous: the only long writer is `finish` storing a large proof.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The columns of `jobs` that make a [`Job`], in the order `load_job` reads them.
const JOB_COLUMNS: &str =
    "id, op, request, status, progress, result, error, attempts, created_ms, started_ms, finished_ms, api_key";

/// The job store over one SQLite database.
///
/// One connection behind a mutex serializes this process's calls; every write also runs in an
/// `IMMEDIATE` transaction, so several processes (or several stores) on the same file stay
/// correct too.
pub(super) struct Sqlite {
    conn: Mutex<Connection>,
    /// The file, or `:memory:`; for error messages.
    origin: String,
    /// Recorded on the jobs this store claims.
    owner: String,
    /// The lease of a claim, ms.
    lease_ms: i64,
}

impl std::fmt::Debug for Sqlite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sqlite")
            .field("origin", &self.origin)
            .field("owner", &self.owner)
            .finish_non_exhaustive()
    }
}

impl Sqlite {
    /// Opens (creating if needed) the store `dir/queens.sqlite3`, creating `dir` too, and
    /// brings an older schema up to date. Refuses a database whose schema is newer than this
    /// binary's ([`StoreError::TooNew`]) without changing it.
    pub(super) fn open(dir: &Path, owner: String, options: Options) -> Result<Sqlite, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::Db(format!("creating the directory {}: {e}", dir.display()))
        })?;
        let path: PathBuf = dir.join(FILE_NAME);
        let origin = path.display().to_string();
        let conn = Connection::open(&path).map_err(ctx(&format!("opening {origin}")))?;
        Sqlite::from_connection(conn, origin, MIGRATIONS).map(|store| store.owned(owner, options))
    }

    /// Opens a fresh store that lives in memory and dies with it (for tests).
    pub(super) fn open_in_memory(owner: String, options: Options) -> Result<Sqlite, StoreError> {
        let conn = Connection::open_in_memory().map_err(ctx("opening an in-memory job store"))?;
        Sqlite::from_connection(conn, ":memory:".to_string(), MIGRATIONS)
            .map(|store| store.owned(owner, options))
    }

    fn owned(self, owner: String, options: Options) -> Sqlite {
        Sqlite {
            owner,
            lease_ms: i64::try_from(options.lease.as_millis()).unwrap_or(i64::MAX),
            ..self
        }
    }

    /// The database file (or `:memory:`), for logs.
    pub(super) fn origin(&self) -> &str {
        &self.origin
    }

    pub(super) fn owner(&self) -> &str {
        &self.owner
    }

    pub(super) fn ping(&self) -> Result<(), StoreError> {
        self.read("checking the job store", |tx| {
            tx.query_row("SELECT COUNT(*) FROM jobs WHERE seq < 0", [], |row| {
                row.get::<_, i64>(0)
            })
        })
        .map(|_| ())
    }

    fn from_connection(
        mut conn: Connection,
        origin: String,
        migrations: &[&str],
    ) -> Result<Sqlite, StoreError> {
        let at = |what: &str| format!("{origin}: {what}");
        // Wait for another connection's lock instead of failing at once with SQLITE_BUSY.
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(ctx(&at("setting busy_timeout")))?;
        // Refuse a newer schema (or a foreign file) before anything below writes to the file.
        check_version(&conn, &origin, migrations.len())?;
        if origin != ":memory:" {
            // WAL: a commit appends to one file and needs one fsync, where a rollback journal
            // needs several, and readers on other connections (a second process, `sqlite3`
            // looking at the file) do not wait for the writer. It is a property of the file,
            // kept across opens; we insist on it, since a silent fallback would change the
            // locking under load.
            let mode: String = conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
                .map_err(ctx(&at("setting journal_mode=WAL")))?;
            if !mode.eq_ignore_ascii_case("wal") {
                return Err(StoreError::Db(at(&format!(
                    "SQLite refused journal_mode=WAL (got {mode}); is the data directory on a \
                     network filesystem?"
                ))));
            }
        }
        // synchronous=FULL: in WAL mode every commit fsyncs the WAL before returning, so an
        // accepted job survives power loss, not only a killed process (NORMAL would only sync
        // at checkpoints and could lose the last commits on power loss). The cost, one fsync
        // per write, is small next to solving. fullfsync makes that fsync reach the disk on
        // macOS (F_FULLFSYNC); it does nothing elsewhere. foreign_keys is off by default in
        // SQLite and per connection: artifacts must belong to a job. journal_size_limit: a
        // proof of tens of MB passes through the WAL, which SQLite reuses after a checkpoint
        // but does not shrink; this truncates it back to 64 MiB at most.
        for (pragma, value) in [
            ("synchronous", "FULL"),
            ("fullfsync", "ON"),
            ("foreign_keys", "ON"),
            ("journal_size_limit", "67108864"),
        ] {
            conn.pragma_update(None, pragma, value)
                .map_err(ctx(&at(&format!("setting {pragma}={value}"))))?;
        }
        migrate(&mut conn, &origin, migrations)?;
        Ok(Sqlite {
            conn: Mutex::new(conn),
            origin,
            owner: String::new(),
            lease_ms: 0,
        })
    }

    /// The connection. A thread that panicked while holding it cannot have left a transaction
    /// open (a dropped `Transaction` rolls back), so a poisoned lock is safe to take over.
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` in one transaction and commits it; if `f` fails, the transaction rolls back.
    /// `IMMEDIATE` takes the write lock up front (waiting up to the busy timeout): a deferred
    /// transaction that reads and then writes, as `insert` counts and then inserts, fails at
    /// once with SQLITE_BUSY_SNAPSHOT when another connection wrote in between.
    fn write<T>(
        &self,
        what: &str,
        f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        self.transaction(TransactionBehavior::Immediate, what, f)
    }

    /// Runs `f` over one consistent snapshot (a deferred, read-only transaction).
    fn read<T>(
        &self,
        what: &str,
        f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        self.transaction(TransactionBehavior::Deferred, what, f)
    }

    fn transaction<T>(
        &self,
        behavior: TransactionBehavior,
        what: &str,
        f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let mut conn = self.conn();
        let run = || {
            let tx = conn.transaction_with_behavior(behavior)?;
            let value = f(&tx)?;
            tx.commit()?;
            Ok(value)
        };
        run().map_err(ctx(what))
    }

    /// Accepts a job for the API key named `key`: stores it as queued and returns it once it
    /// is on disk. Refuses with [`StoreError::Full`] when `max_queued` jobs or more are already
    /// queued; the count and the insert are one transaction, so concurrent inserts cannot
    /// overshoot the limit.
    pub(super) fn accept(&self, job: NewJob<'_>) -> Result<Job, StoreError> {
        let created_ms = now_ms();
        let outcome = self.write(&format!("accepting a {} job", job.op), |tx| {
            let queued = count_status(tx, JobStatus::Queued)?;
            if queued >= job.max_queued {
                return Ok(Err(queued));
            }
            // randomblob draws from SQLite's PRNG, seeded from the OS's randomness: 128 bits
            // nobody can guess, so a job id works as a capability for its results.
            let id: String = tx.query_row(
                "INSERT INTO jobs (id, op, request, status, attempts, created_ms, api_key)
                 VALUES (lower(hex(randomblob(16))), ?1, ?2, 'queued', 0, ?3, ?4)
                 RETURNING id",
                params![job.op, job.request, created_ms, job.key],
                |row| row.get(0),
            )?;
            Ok(Ok(id))
        })?;
        let id = outcome.map_err(StoreError::Full)?;
        Ok(Job {
            id,
            op: job.op.to_string(),
            request: job.request.to_string(),
            status: JobStatus::Queued,
            progress: None,
            result: None,
            error: None,
            attempts: 0,
            created_ms,
            started_ms: None,
            finished_ms: None,
            artifacts: Vec::new(),
            key: job.key.map(str::to_string),
        })
    }

    /// The job `id` with its artifacts' names, or `None` if there is no such job.
    pub(super) fn get(&self, id: &str) -> Result<Option<Job>, StoreError> {
        self.read(&format!("reading job {id}"), |tx| load_job(tx, id))?
            .transpose()
    }

    /// Gives the oldest queued job to a worker: marks it running, counts the attempt, sets
    /// `started_ms` and clears the progress of an earlier attempt. `None` if nothing is
    /// queued. Atomic: two dispatchers (threads or processes) never claim the same job.
    pub(super) fn claim_next(&self) -> Result<Option<Job>, StoreError> {
        self.claim("claiming the next queued job", "", &[])
    }

    /// Claims the oldest queued job that also passes `filter` (`AND …`, its parameters from
    /// `?4`): running for this owner with a fresh lease, its attempt counted.
    fn claim(
        &self,
        what: &str,
        filter: &str,
        filter_params: &[&dyn ToSql],
    ) -> Result<Option<Job>, StoreError> {
        let started_ms = now_ms();
        let claim = format!(
            "UPDATE jobs
             SET status = 'running', attempts = attempts + 1, started_ms = ?1,
                 progress = NULL, owner = ?2, lease_ms = ?1 + ?3
             WHERE seq = (SELECT seq FROM jobs WHERE status = 'queued' {filter}
                          ORDER BY seq LIMIT 1)
             RETURNING id"
        );
        let own: [&dyn ToSql; 3] = [&started_ms, &self.owner, &self.lease_ms];
        self.write(what, |tx| {
            let id: Option<String> = tx
                .query_row(
                    &claim,
                    params_from_iter(own.iter().chain(filter_params)),
                    |row| row.get(0),
                )
                .optional()?;
            match id {
                Some(id) => load_job(tx, &id),
                None => Ok(None),
            }
        })?
        .transpose()
    }

    /// Records the progress of a running job. Returns `false` (and records nothing) if the
    /// job is no longer running: a worker learns here that its job was cancelled. Each call
    /// is an fsync: report every second or so, not every node.
    pub(super) fn set_progress(&self, id: &str, progress_json: &str) -> Result<bool, StoreError> {
        self.write(&format!("recording the progress of job {id}"), |tx| {
            let changed = tx.execute(
                "UPDATE jobs SET progress = ?2
                 WHERE id = ?1 AND status = 'running' AND owner = ?3",
                params![id, progress_json, self.owner],
            )?;
            Ok(changed == 1)
        })
    }

    /// Marks a running job done with its result and stores its artifacts (name, bytes) and
    /// its files (name, path in the artifacts folder), all in one transaction. Returns
    /// `false`, storing nothing, if the job is no longer running (cancelled meanwhile). Two
    /// artifacts with the same name are an error, and then nothing is stored either.
    pub(super) fn complete(&self, done: Finished<'_>) -> Result<bool, StoreError> {
        let finished_ms = now_ms();
        self.write(&format!("finishing job {}", done.id), |tx| {
            let changed = tx.execute(
                "UPDATE jobs SET status = 'done', result = ?2, finished_ms = ?3, lease_ms = NULL
                 WHERE id = ?1 AND status = 'running' AND owner = ?4",
                params![done.id, done.result, finished_ms, self.owner],
            )?;
            if changed == 0 {
                return Ok(false);
            }
            let mut insert =
                tx.prepare("INSERT INTO artifacts (job_id, name, bytes) VALUES (?1, ?2, ?3)")?;
            for (name, bytes) in done.artifacts {
                insert.execute(params![done.id, name, bytes])?;
            }
            let mut insert = tx.prepare(
                "INSERT INTO artifacts (job_id, name, bytes, path) VALUES (?1, ?2, x'', ?3)",
            )?;
            for (name, path) in done.files {
                insert.execute(params![done.id, name, path])?;
            }
            Ok(true)
        })
    }

    /// Marks a running job failed with its error. Returns `false`, storing nothing, if the job
    /// is no longer running.
    pub(super) fn fail(&self, id: &str, error_json: &str) -> Result<bool, StoreError> {
        let finished_ms = now_ms();
        self.write(&format!("failing job {id}"), |tx| {
            let changed = tx.execute(
                "UPDATE jobs SET status = 'failed', error = ?2, finished_ms = ?3, lease_ms = NULL
                 WHERE id = ?1 AND status = 'running' AND owner = ?4",
                params![id, error_json, finished_ms, self.owner],
            )?;
            Ok(changed == 1)
        })
    }

    /// Cancels a queued or running job. Returns the status the job had before (`None`: no such
    /// job); a job that had already finished (done, failed or cancelled) is left as it was.
    /// A running job's worker is not told: it learns from `set_progress` or `finish`
    /// returning `false`, or from the caller.
    pub(super) fn cancel(&self, id: &str) -> Result<Option<JobStatus>, StoreError> {
        let finished_ms = now_ms();
        let before = self.write(&format!("cancelling job {id}"), |tx| {
            let before: Option<String> = tx
                .query_row("SELECT status FROM jobs WHERE id = ?1", [id], |row| {
                    row.get(0)
                })
                .optional()?;
            tx.execute(
                "UPDATE jobs SET status = 'cancelled', finished_ms = ?2, lease_ms = NULL
                 WHERE id = ?1 AND status IN ('queued', 'running')",
                params![id, finished_ms],
            )?;
            Ok(before)
        })?;
        before.map(|status| parse_status(&status, id)).transpose()
    }

    /// Hands a running job back to the queue (a server shutting down gracefully), at its
    /// original place: it is claimed before jobs that arrived after it. Returns `false` if the
    /// job was not running.
    pub(super) fn requeue(&self, id: &str) -> Result<bool, StoreError> {
        self.write(&format!("requeueing job {id}"), |tx| {
            let changed = tx.execute(
                &format!(
                    "UPDATE jobs SET {REQUEUED}
                     WHERE id = ?1 AND status = 'running' AND owner = ?2"
                ),
                params![id, self.owner],
            )?;
            Ok(changed == 1)
        })
    }

    /// Hands every running job back to the queue; returns how many. For start-up: after a
    /// crash, the jobs that were running have no worker any more. Not for a store that other
    /// live processes share, since their running jobs would run twice.
    pub(super) fn requeue_all_running(&self) -> Result<usize, StoreError> {
        self.write("requeueing the jobs that were running", |tx| {
            tx.execute(
                &format!("UPDATE jobs SET {REQUEUED} WHERE status = 'running'"),
                [],
            )
        })
    }

    pub(super) fn renew(&self) -> Result<Vec<String>, StoreError> {
        let until = now_ms().saturating_add(self.lease_ms);
        self.write("renewing the leases of running jobs", |tx| {
            tx.prepare(
                "UPDATE jobs SET lease_ms = ?1
                 WHERE status = 'running' AND owner = ?2 RETURNING id",
            )?
            .query_map(params![until, self.owner], |row| row.get(0))?
            .collect()
        })
    }

    pub(super) fn requeue_expired(&self) -> Result<Vec<String>, StoreError> {
        let now = now_ms();
        self.write("requeueing jobs whose lease ran out", |tx| {
            tx.prepare(&format!(
                "UPDATE jobs SET {REQUEUED}
                 WHERE status = 'running' AND lease_ms < ?1 RETURNING id"
            ))?
            .query_map([now], |row| row.get(0))?
            .collect()
        })
    }

    pub(super) fn artifact_source(
        &self,
        id: &str,
        name: &str,
    ) -> Result<Option<Artifact>, StoreError> {
        self.read(&format!("reading artifact {name:?} of job {id}"), |tx| {
            tx.query_row(
                "SELECT bytes, path FROM artifacts WHERE job_id = ?1 AND name = ?2",
                [id, name],
                |row| {
                    let path: Option<String> = row.get(1)?;
                    Ok(match path {
                        Some(p) => Artifact::File(p),
                        None => Artifact::Bytes(row.get(0)?),
                    })
                },
            )
            .optional()
        })
    }

    /// How many jobs are in each status (for `/metrics`).
    pub(super) fn counts(&self) -> Result<Counts, StoreError> {
        let rows = self.read("counting jobs", |tx| {
            let mut stmt = tx.prepare("SELECT status, COUNT(*) FROM jobs GROUP BY status")?;
            let rows = stmt
                .query_map([], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        Counts::from_rows(rows)
    }
}

impl Sqlite {
    /// Removes job `id` and its artifacts, whatever its status; returns the status it had
    /// (`None`: no such job). A running job's owner learns from `renew` or `finish`.
    pub(super) fn delete(&self, id: &str) -> Result<Option<JobStatus>, StoreError> {
        let before: Option<String> = self.write(&format!("deleting job {id}"), |tx| {
            tx.query_row(
                "DELETE FROM jobs WHERE id = ?1 RETURNING status",
                [id],
                |row| row.get(0),
            )
            .optional()
        })?;
        before.map(|status| parse_status(&status, id)).transpose()
    }

    /// Removes at most `limit` jobs that finished more than `age_ms` ago, oldest first, with
    /// their artifacts; returns their ids.
    pub(super) fn delete_finished(
        &self,
        age_ms: i64,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let cutoff = now_ms().saturating_sub(age_ms);
        self.write("deleting expired jobs", |tx| {
            tx.prepare(
                "DELETE FROM jobs WHERE seq IN (
                     SELECT seq FROM jobs
                     WHERE status IN ('done', 'failed', 'cancelled') AND finished_ms < ?1
                     ORDER BY finished_ms LIMIT ?2)
                 RETURNING id",
            )?
            .query_map(
                params![cutoff, i64::try_from(limit).unwrap_or(i64::MAX)],
                |row| row.get(0),
            )?
            .collect()
        })
    }

    /// Which of `ids` are jobs of this store.
    pub(super) fn existing(&self, ids: &[String]) -> Result<Vec<String>, StoreError> {
        self.read("looking up jobs", |tx| {
            let mut stmt = tx.prepare("SELECT id FROM jobs WHERE id = ?1")?;
            let mut found = Vec::new();
            for id in ids {
                if let Some(id) = stmt.query_row([id], |row| row.get(0)).optional()? {
                    found.push(id);
                }
            }
            Ok(found)
        })
    }
}

/// Fair dispatch and the queue's shape ([`super::Store::queued_keys`], …).
impl Sqlite {
    pub(super) fn queued_keys(&self) -> Result<Vec<(Option<String>, i64)>, StoreError> {
        self.read("listing the keys with queued jobs", |tx| {
            let mut stmt = tx.prepare(
                "SELECT api_key, MIN(seq) AS first FROM jobs WHERE status = 'queued'
                 GROUP BY api_key ORDER BY first",
            )?;
            let rows = stmt
                .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })
    }

    pub(super) fn claim_next_of(&self, key: Option<&str>) -> Result<Option<Job>, StoreError> {
        self.claim(
            "claiming the next queued job of a key",
            "AND api_key IS ?4",
            &[&key],
        )
    }

    pub(super) fn queue_by_op(&self) -> Result<Vec<OpQueue>, StoreError> {
        let rows = self.read("counting queued and running jobs", |tx| {
            let mut stmt = tx.prepare(
                "SELECT op, status, COUNT(*), MIN(created_ms) FROM jobs
                 WHERE status IN ('queued', 'running') GROUP BY op, status",
            )?;
            let rows = stmt
                .query_map([], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        Ok(fold_queue(rows))
    }
}

/// Wraps a database error with what was being done.
fn ctx(what: &str) -> impl FnOnce(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError::Db(format!("{what}: {e}"))
}

/// Refuses a database whose schema is newer than `known`, or that belongs to another program.
fn check_version(conn: &Connection, origin: &str, known: usize) -> Result<(), StoreError> {
    let read = |pragma: &str| -> Result<i64, StoreError> {
        conn.query_row(&format!("PRAGMA {pragma}"), [], |row| row.get(0))
            .map_err(ctx(&format!("{origin}: reading {pragma}")))
    };
    let application_id = read("application_id")?;
    if application_id != 0 && application_id != APPLICATION_ID {
        return Err(StoreError::Db(format!(
            "{origin} is not a queens job store (application_id {application_id:#x})"
        )));
    }
    let found = read("user_version")?;
    if found < 0 {
        return Err(StoreError::Db(format!(
            "{origin}: user_version {found} is not a job store schema version"
        )));
    }
    if found > known as i64 {
        return Err(StoreError::TooNew {
            path: origin.to_string(),
            found,
            known: u32::try_from(known).unwrap_or(u32::MAX),
        });
    }
    Ok(())
}

/// Brings the schema to `migrations.len()`: the missing migrations and the new `user_version`
/// in one transaction, so a failed migration leaves the database at its old version.
fn migrate(conn: &mut Connection, origin: &str, migrations: &[&str]) -> Result<(), StoreError> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(ctx(&format!("{origin}: starting the schema migration")))?;
    // Read again under the write lock: another process may have migrated since the check.
    check_version(&tx, origin, migrations.len())?;
    let found: i64 = tx
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(ctx(&format!("{origin}: reading user_version")))?;
    let found = usize::try_from(found).unwrap_or(0);
    if found == migrations.len() {
        return Ok(());
    }
    for (i, sql) in migrations.iter().enumerate().skip(found) {
        tx.execute_batch(sql).map_err(ctx(&format!(
            "{origin}: migrating the schema to version {}",
            i + 1
        )))?;
    }
    tx.pragma_update(None, "user_version", migrations.len() as i64)
        .map_err(ctx(&format!("{origin}: setting user_version")))?;
    tx.commit().map_err(ctx(&format!(
        "{origin}: committing the schema migration to version {}",
        migrations.len()
    )))
}

fn count_status(tx: &Transaction<'_>, status: JobStatus) -> rusqlite::Result<usize> {
    tx.query_row(
        "SELECT COUNT(*) FROM jobs WHERE status = ?1",
        [status.as_str()],
        |row| row.get(0),
    )
}

/// Reads job `id` and its artifacts' names. The outer result is the database's; the inner one
/// a row that does not make a job.
fn load_job(tx: &Transaction<'_>, id: &str) -> rusqlite::Result<Option<Result<Job, StoreError>>> {
    let job = tx
        .query_row(
            &format!("SELECT {JOB_COLUMNS} FROM jobs WHERE id = ?1"),
            [id],
            |row| {
                Ok((
                    Job {
                        id: row.get(0)?,
                        op: row.get(1)?,
                        request: row.get(2)?,
                        status: JobStatus::Queued,
                        progress: row.get(4)?,
                        result: row.get(5)?,
                        error: row.get(6)?,
                        attempts: row.get(7)?,
                        created_ms: row.get(8)?,
                        started_ms: row.get(9)?,
                        finished_ms: row.get(10)?,
                        artifacts: Vec::new(),
                        key: row.get(11)?,
                    },
                    row.get::<_, String>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((mut job, status)) = job else {
        return Ok(None);
    };
    job.artifacts = tx
        .prepare("SELECT name FROM artifacts WHERE job_id = ?1 ORDER BY name")?
        .query_map([id], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some(
        parse_status(&status, id).map(|status| Job { status, ..job }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;

    /// The SQLite store as the rest of the crate opens it.
    struct Store;

    impl Store {
        fn open(dir: &Path) -> Result<Sqlite, StoreError> {
            Sqlite::open(dir, super::super::options::owner(), Options::default())
        }

        fn open_in_memory() -> Result<Sqlite, StoreError> {
            Sqlite::open_in_memory(super::super::options::owner(), Options::default())
        }

        fn from_connection(
            conn: Connection,
            origin: String,
            migrations: &[&str],
        ) -> Result<Sqlite, StoreError> {
            Sqlite::from_connection(conn, origin, migrations)
                .map(|s| s.owned(super::super::options::owner(), Options::default()))
        }
    }

    /// A fresh directory under the system's temp dir, removed when dropped.
    fn temp_dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("queens-store-{name}-"))
            .tempdir()
            .unwrap()
    }

    /// The facade's `insert` (a job with no API key) and `finish` (no files).
    trait Short {
        fn insert(&self, op: &str, request: &str, max_queued: usize) -> Result<Job, StoreError>;
        fn finish(
            &self,
            id: &str,
            result: &str,
            artifacts: &[(&str, &[u8])],
        ) -> Result<bool, StoreError>;
    }

    impl Short for Sqlite {
        fn insert(&self, op: &str, request: &str, max_queued: usize) -> Result<Job, StoreError> {
            let key = None;
            self.accept(NewJob {
                op,
                request,
                max_queued,
                key,
            })
        }

        fn finish(
            &self,
            id: &str,
            result: &str,
            artifacts: &[(&str, &[u8])],
        ) -> Result<bool, StoreError> {
            let files = &[];
            self.complete(Finished {
                id,
                result,
                artifacts,
                files,
            })
        }
    }

    fn store() -> Sqlite {
        Store::open_in_memory().unwrap()
    }

    /// The bytes of an artifact held in the store (`None`: none, or a file).
    fn bytes(store: &Sqlite, id: &str, name: &str) -> Option<Vec<u8>> {
        match store.artifact_source(id, name).unwrap() {
            Some(Artifact::Bytes(b)) => Some(b),
            _ => None,
        }
    }

    fn user_version(path: &Path) -> i64 {
        Connection::open(path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap()
    }

    #[test]
    fn store_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Sqlite>();
    }

    #[test]
    fn status_names_round_trip() {
        for status in JobStatus::ALL {
            assert_eq!(status.as_str().parse::<JobStatus>().unwrap(), status);
            assert_eq!(
                serde_json::to_string(&status).unwrap(),
                format!("\"{status}\"")
            );
        }
        assert!("Done".parse::<JobStatus>().is_err());
        let terminal: Vec<_> = JobStatus::ALL
            .into_iter()
            .filter(|s| s.is_terminal())
            .collect();
        assert_eq!(
            terminal,
            [JobStatus::Done, JobStatus::Failed, JobStatus::Cancelled]
        );
    }

    #[test]
    fn full_lifecycle() {
        let store = store();
        let job = store.insert("prove", r#"{"n":8}"#, 10).unwrap();
        assert_eq!(job.id.len(), 32);
        assert!(job
            .id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        assert_eq!(job.status, JobStatus::Queued);
        assert!(job.created_ms > 1_600_000_000_000, "ms since the epoch");
        assert_eq!(store.get(&job.id).unwrap().unwrap(), job);

        let claimed = store.claim_next().unwrap().unwrap();
        assert_eq!(claimed.id, job.id);
        assert_eq!(claimed.status, JobStatus::Running);
        assert_eq!(claimed.attempts, 1);
        assert!(claimed.started_ms.unwrap() >= job.created_ms);
        assert_eq!(store.claim_next().unwrap(), None, "nothing else queued");

        assert!(store.set_progress(&job.id, r#"{"nodes":100}"#).unwrap());
        assert_eq!(
            store.get(&job.id).unwrap().unwrap().progress.as_deref(),
            Some(r#"{"nodes":100}"#)
        );

        let proof = vec![7u8; 1 << 20];
        let artifacts: [(&str, &[u8]); 2] = [("proof", &proof), ("cnf", b"p cnf 1 1\n1 0\n")];
        assert!(store
            .finish(&job.id, r#"{"unsat":true}"#, &artifacts)
            .unwrap());
        let done = store.get(&job.id).unwrap().unwrap();
        assert_eq!(done.status, JobStatus::Done);
        assert_eq!(done.result.as_deref(), Some(r#"{"unsat":true}"#));
        assert_eq!(done.artifacts, ["cnf", "proof"]);
        assert!(done.finished_ms.unwrap() >= claimed.started_ms.unwrap());
        assert_eq!(bytes(&store, &job.id, "proof"), Some(proof));
        assert_eq!(
            bytes(&store, &job.id, "cnf").as_deref(),
            Some(&b"p cnf 1 1\n1 0\n"[..])
        );
        assert_eq!(bytes(&store, &job.id, "drat"), None);

        // A finished job no longer moves.
        assert!(!store.set_progress(&job.id, "{}").unwrap());
        assert!(!store.finish(&job.id, "{}", &[]).unwrap());
        assert!(!store.fail(&job.id, "{}").unwrap());
        assert!(!store.requeue(&job.id).unwrap());
        assert_eq!(store.get(&job.id).unwrap().unwrap(), done);

        // The failing path.
        let bad = store.insert("solve", "{}", 10).unwrap();
        assert!(
            !store.fail(&bad.id, "{}").unwrap(),
            "only a running job fails"
        );
        store.claim_next().unwrap().unwrap();
        assert!(store.fail(&bad.id, r#"{"title":"too large"}"#).unwrap());
        let failed = store.get(&bad.id).unwrap().unwrap();
        assert_eq!(failed.status, JobStatus::Failed);
        assert_eq!(failed.error.as_deref(), Some(r#"{"title":"too large"}"#));
        assert_eq!(failed.result, None);
        assert!(failed.finished_ms.is_some());

        assert_eq!(
            store.counts().unwrap(),
            Counts {
                done: 1,
                failed: 1,
                ..Counts::default()
            }
        );
        assert_eq!(store.get("0123456789abcdef0123456789abcdef").unwrap(), None);
        assert_eq!(bytes(&store, "nope", "proof"), None);
    }

    #[test]
    fn ids_are_distinct() {
        let store = store();
        let ids: HashSet<String> = (0..100)
            .map(|_| store.insert("solve", "{}", 1000).unwrap().id)
            .collect();
        assert_eq!(ids.len(), 100);
    }

    #[test]
    fn full_at_the_limit_and_accepting_again_after_a_claim() {
        let store = store();
        for _ in 0..3 {
            store.insert("count", "{}", 3).unwrap();
        }
        let err = store.insert("count", "{}", 3).unwrap_err();
        assert!(matches!(err, StoreError::Full(3)), "{err:?}");
        assert_eq!(err.to_string(), "the job queue is full (3 jobs waiting)");
        assert_eq!(
            store.counts().unwrap().queued,
            3,
            "the refused job is not stored"
        );
        assert!(matches!(
            store.insert("count", "{}", 0),
            Err(StoreError::Full(3))
        ));

        // Running jobs do not count against the queue.
        store.claim_next().unwrap().unwrap();
        store.insert("count", "{}", 3).unwrap();
        assert!(matches!(
            store.insert("count", "{}", 3),
            Err(StoreError::Full(3))
        ));
        assert_eq!(
            store.counts().unwrap(),
            Counts {
                queued: 3,
                running: 1,
                ..Counts::default()
            }
        );
    }

    #[test]
    fn claims_oldest_first_and_requeued_jobs_keep_their_place() {
        let store = store();
        // Inserted within the same millisecond, most likely: the order must not rest on time.
        let ids: Vec<String> = (0..5)
            .map(|i| {
                store
                    .insert("solve", &format!("{{\"i\":{i}}}"), 10)
                    .unwrap()
                    .id
            })
            .collect();
        let first = store.claim_next().unwrap().unwrap();
        let second = store.claim_next().unwrap().unwrap();
        assert_eq!([&first.id, &second.id], [&ids[0], &ids[1]]);

        // Handed back: it runs again before the jobs that arrived after it.
        assert!(store.requeue(&first.id).unwrap());
        assert!(!store.requeue(&first.id).unwrap(), "no longer running");
        let requeued = store.get(&first.id).unwrap().unwrap();
        assert_eq!(requeued.status, JobStatus::Queued);
        assert_eq!(requeued.started_ms, None);
        let again = store.claim_next().unwrap().unwrap();
        assert_eq!(again.id, ids[0]);
        assert_eq!(again.attempts, 2);

        let rest: Vec<String> = std::iter::from_fn(|| store.claim_next().unwrap())
            .map(|job| job.id)
            .collect();
        assert_eq!(rest, ids[2..]);
    }

    #[test]
    fn cancel_queued_running_and_finished_jobs() {
        let store = store();
        // Claims follow arrival order, so each job is claimed before the next one arrives.
        let done = store.insert("solve", "{}", 10).unwrap();
        store.claim_next().unwrap().unwrap();
        assert!(store.finish(&done.id, r#"{"ok":1}"#, &[]).unwrap());
        let done = store.get(&done.id).unwrap().unwrap();
        let running = store.insert("solve", "{}", 10).unwrap();
        assert_eq!(store.claim_next().unwrap().unwrap().id, running.id);
        let queued = store.insert("solve", "{}", 10).unwrap();

        assert_eq!(store.cancel(&queued.id).unwrap(), Some(JobStatus::Queued));
        let cancelled = store.get(&queued.id).unwrap().unwrap();
        assert_eq!(cancelled.status, JobStatus::Cancelled);
        assert!(cancelled.finished_ms.is_some());
        assert_eq!(
            store.claim_next().unwrap(),
            None,
            "a cancelled job is not run"
        );

        assert_eq!(store.cancel(&running.id).unwrap(), Some(JobStatus::Running));
        assert_eq!(
            store.get(&running.id).unwrap().unwrap().status,
            JobStatus::Cancelled
        );
        assert!(
            !store.set_progress(&running.id, "{}").unwrap(),
            "the worker learns"
        );
        assert!(!store.requeue(&running.id).unwrap());

        // Finished jobs are left as they were.
        assert_eq!(store.cancel(&done.id).unwrap(), Some(JobStatus::Done));
        assert_eq!(store.get(&done.id).unwrap().unwrap(), done);
        assert_eq!(
            store.cancel(&queued.id).unwrap(),
            Some(JobStatus::Cancelled)
        );
        assert_eq!(store.get(&queued.id).unwrap().unwrap(), cancelled);
        assert_eq!(store.cancel("no-such-job").unwrap(), None);

        assert_eq!(
            store.counts().unwrap(),
            Counts {
                done: 1,
                cancelled: 2,
                ..Counts::default()
            }
        );
    }

    #[test]
    fn finish_after_cancel_stores_nothing() {
        let store = store();
        let job = store.insert("prove", "{}", 10).unwrap();
        store.claim_next().unwrap().unwrap();
        assert_eq!(store.cancel(&job.id).unwrap(), Some(JobStatus::Running));
        let cancelled = store.get(&job.id).unwrap().unwrap();

        let proof: &[u8] = b"d 1 2 0\n";
        assert!(!store
            .finish(&job.id, r#"{"unsat":true}"#, &[("proof", proof)])
            .unwrap());
        assert!(!store.fail(&job.id, r#"{"title":"late"}"#).unwrap());
        let after = store.get(&job.id).unwrap().unwrap();
        assert_eq!(after, cancelled);
        assert_eq!(after.status, JobStatus::Cancelled);
        assert_eq!(after.result, None);
        assert!(after.artifacts.is_empty());
        assert_eq!(bytes(&store, &job.id, "proof"), None);
    }

    #[test]
    fn duplicate_artifact_names_store_nothing() {
        let store = store();
        let job = store.insert("prove", "{}", 10).unwrap();
        store.claim_next().unwrap().unwrap();
        let err = store
            .finish(&job.id, "{}", &[("proof", b"a"), ("proof", b"b")])
            .unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("job store: finishing job {}: ", job.id)),
            "{message}"
        );
        let after = store.get(&job.id).unwrap().unwrap();
        assert_eq!(after.status, JobStatus::Running, "rolled back");
        assert!(after.artifacts.is_empty());
        assert!(store.finish(&job.id, "{}", &[("proof", b"a")]).unwrap());
    }

    #[test]
    fn a_panic_holding_the_store_rolls_back_and_does_not_poison_it() {
        let store = Arc::new(store());
        let shared = Arc::clone(&store);
        let panicked = std::thread::spawn(move || {
            let mut conn = shared.conn.lock().unwrap();
            let tx = conn.transaction().unwrap();
            tx.execute(
                "INSERT INTO jobs (id, op, request, status, created_ms)
                 VALUES ('half', 'solve', '{}', 'queued', 0)",
                [],
            )
            .unwrap();
            panic!("a worker dies mid-transaction");
        })
        .join();
        assert!(panicked.is_err());
        assert!(store.conn.is_poisoned());
        assert_eq!(store.get("half").unwrap(), None, "rolled back");
        store.insert("solve", "{}", 10).unwrap();
        assert_eq!(store.counts().unwrap().queued, 1);
    }

    #[test]
    fn reopened_file_has_every_job_and_running_ones_run_again() {
        let dir = temp_dir("reopen");
        let (done, running, queued) = {
            let store = Store::open(dir.path()).unwrap();
            let done = store.insert("prove", r#"{"n":4}"#, 10).unwrap();
            store.claim_next().unwrap().unwrap();
            assert!(store
                .finish(&done.id, r#"{"unsat":false}"#, &[("proof", b"xyz")])
                .unwrap());
            let running = store.insert("count", r#"{"n":12}"#, 10).unwrap();
            store.claim_next().unwrap().unwrap();
            store.set_progress(&running.id, r#"{"pct":40}"#).unwrap();
            let queued = store.insert("solve", r#"{"n":30}"#, 10).unwrap();
            (store.get(&done.id).unwrap().unwrap(), running.id, queued.id)
            // Dropped without any shutdown call.
        };
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.get(&done.id).unwrap().unwrap(), done);
        assert_eq!(bytes(&store, &done.id, "proof").unwrap(), b"xyz");
        assert_eq!(
            store.get(&running).unwrap().unwrap().status,
            JobStatus::Running
        );
        assert_eq!(
            store.get(&queued).unwrap().unwrap().status,
            JobStatus::Queued
        );

        assert_eq!(store.requeue_all_running().unwrap(), 1);
        assert_eq!(store.requeue_all_running().unwrap(), 0);
        let again = store.claim_next().unwrap().unwrap();
        assert_eq!(again.id, running, "the interrupted job runs first");
        assert_eq!(again.attempts, 2);
        assert_eq!(again.progress, None, "the old attempt's progress is gone");
        assert_eq!(store.claim_next().unwrap().unwrap().id, queued);
    }

    /// Set for the child process of `sigkill_loses_no_accepted_job`.
    const CRASH_DIR: &str = "QUEENS_STORE_TEST_CRASH_DIR";

    /// Run by `sigkill_loses_no_accepted_job` in a child process: writes, reports the ids,
    /// then waits to be killed.
    #[test]
    #[ignore = "a helper process for sigkill_loses_no_accepted_job"]
    fn sigkill_child() {
        let Some(dir) = std::env::var_os(CRASH_DIR) else {
            return;
        };
        let store = Store::open(Path::new(&dir)).unwrap();
        let done = store.insert("prove", "{}", 10).unwrap();
        store.claim_next().unwrap().unwrap();
        assert!(store
            .finish(&done.id, r#"{"r":1}"#, &[("proof", b"p")])
            .unwrap());
        let running = store.insert("count", "{}", 10).unwrap();
        store.claim_next().unwrap().unwrap();
        let queued = store.insert("solve", "{}", 10).unwrap();
        println!("ready {} {} {}", done.id, running.id, queued.id);
        // Bounded, so that a parent that missed the line waits a minute, not forever.
        std::thread::sleep(Duration::from_secs(60));
    }

    #[test]
    fn sigkill_loses_no_accepted_job() {
        use std::io::BufRead;
        use std::process::{Command, Stdio};

        let dir = temp_dir("sigkill");
        // The harness names a test by its path inside the crate, without the crate's name.
        let (_, module) = module_path!().split_once("::").unwrap();
        let child_test = format!("{module}::sigkill_child");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                child_test.as_str(),
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CRASH_DIR, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        // The harness prints `test … ... ` before the child's own output, on the same line.
        let line = stdout
            .lines()
            .map(Result::unwrap)
            .find_map(|line| line.split_once("ready ").map(|(_, ids)| ids.to_string()));
        child.kill().unwrap(); // SIGKILL on Unix: no destructor, no close, no checkpoint.
        child.wait().unwrap();
        let line = line.expect("the child process reports its jobs");
        let ids: Vec<&str> = line.split_whitespace().collect();
        let [done, running, queued] = ids[..] else {
            panic!("unexpected line {line:?}");
        };

        let store = Store::open(dir.path()).unwrap();
        let job = |id| store.get(id).unwrap().unwrap();
        assert_eq!(job(done).status, JobStatus::Done);
        assert_eq!(job(done).result.as_deref(), Some(r#"{"r":1}"#));
        assert_eq!(bytes(&store, done, "proof").unwrap(), b"p");
        assert_eq!(job(running).status, JobStatus::Running);
        assert_eq!(job(queued).status, JobStatus::Queued);
        assert_eq!(store.requeue_all_running().unwrap(), 1);
        let again = store.claim_next().unwrap().unwrap();
        assert_eq!((again.id.as_str(), again.attempts), (running, 2));
    }

    #[test]
    fn concurrent_claims_never_share_a_job() {
        let dir = temp_dir("claims");
        // Two stores on one file stand for two processes; two threads share each store.
        let stores = [
            Arc::new(Store::open(dir.path()).unwrap()),
            Arc::new(Store::open(dir.path()).unwrap()),
        ];
        let inserted: HashSet<String> = (0..60)
            .map(|i| stores[i % 2].insert("solve", "{}", 100).unwrap().id)
            .collect();
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let store = Arc::clone(&stores[i % 2]);
                std::thread::spawn(move || {
                    std::iter::from_fn(|| store.claim_next().unwrap())
                        .map(|job| {
                            assert_eq!(job.attempts, 1);
                            job.id
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let claimed: Vec<String> = workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap())
            .collect();
        assert_eq!(claimed.len(), 60, "each job claimed exactly once");
        assert_eq!(claimed.into_iter().collect::<HashSet<_>>(), inserted);
        assert_eq!(stores[0].counts().unwrap().running, 60);
    }

    #[test]
    fn concurrent_inserts_stop_exactly_at_the_limit() {
        let dir = temp_dir("inserts");
        let stores = [
            Arc::new(Store::open(dir.path()).unwrap()),
            Arc::new(Store::open(dir.path()).unwrap()),
        ];
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let store = Arc::clone(&stores[i % 2]);
                std::thread::spawn(move || {
                    (0..20)
                        .filter(|_| match store.insert("solve", "{}", 30) {
                            Ok(_) => true,
                            Err(StoreError::Full(30)) => false,
                            Err(e) => panic!("{e}"),
                        })
                        .count()
                })
            })
            .collect();
        let accepted: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
        assert_eq!(accepted, 30);
        assert_eq!(stores[1].counts().unwrap().queued, 30);
    }

    #[test]
    fn file_store_is_durable_by_its_pragmas() {
        let dir = temp_dir("pragmas");
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(
            store.origin(),
            dir.path().join(FILE_NAME).display().to_string()
        );
        let conn = store.conn();
        let pragma = |name: &str| -> String {
            conn.query_row(&format!("PRAGMA {name}"), [], |row| {
                row.get::<_, rusqlite::types::Value>(0)
            })
            .map(|value| match value {
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Text(s) => s,
                other => format!("{other:?}"),
            })
            .unwrap()
        };
        assert_eq!(pragma("journal_mode"), "wal");
        assert_eq!(pragma("synchronous"), "2", "FULL");
        assert_eq!(pragma("foreign_keys"), "1");
        assert_eq!(pragma("busy_timeout"), "10000");
        assert_eq!(pragma("journal_size_limit"), "67108864");
        assert_eq!(pragma("user_version"), SCHEMA_VERSION.to_string());
        assert_eq!(pragma("application_id"), APPLICATION_ID.to_string());
        // Foreign keys hold: no artifact without its job.
        let orphan = conn.execute(
            "INSERT INTO artifacts (job_id, name, bytes) VALUES ('none', 'proof', x'00')",
            [],
        );
        assert!(orphan.is_err());
    }

    #[test]
    fn a_newer_schema_is_refused_and_left_alone() {
        let dir = temp_dir("too-new");
        let path = dir.path().join(FILE_NAME);
        drop(Store::open(dir.path()).unwrap());
        let newer = i64::from(SCHEMA_VERSION) + 1;
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "user_version", newer)
            .unwrap();

        let err = Store::open(dir.path()).unwrap_err();
        match &err {
            StoreError::TooNew {
                path: p,
                found,
                known,
            } => {
                assert_eq!(p, &path.display().to_string());
                assert_eq!((*found, *known), (newer, SCHEMA_VERSION));
            }
            other => panic!("expected TooNew, got {other:?}"),
        }
        let message = err.to_string();
        assert!(
            message.contains(&format!("schema version {newer} is newer")),
            "{message}"
        );
        assert_eq!(user_version(&path), newer, "left alone");
    }

    #[test]
    fn an_older_schema_is_brought_up_to_date() {
        // Every older version this binary knows, the empty file included.
        for k in 0..MIGRATIONS.len() {
            let dir = temp_dir(&format!("v{k}"));
            let path = dir.path().join(FILE_NAME);
            let old = Store::from_connection(
                Connection::open(&path).unwrap(),
                path.display().to_string(),
                &MIGRATIONS[..k],
            )
            .unwrap();
            drop(old);
            assert_eq!(user_version(&path), k as i64);
            let store = Store::open(dir.path()).unwrap();
            assert_eq!(user_version(&path), i64::from(SCHEMA_VERSION));
            let job = store.insert("solve", "{}", 1).unwrap();
            assert_eq!(store.claim_next().unwrap().unwrap().id, job.id);
        }

        // A future binary with one more migration keeps today's jobs, and today's binary
        // then refuses its database.
        let dir = temp_dir("v-next");
        let path = dir.path().join(FILE_NAME);
        let id = Store::open(dir.path())
            .unwrap()
            .insert("solve", r#"{"n":5}"#, 1)
            .unwrap()
            .id;
        let mut next = MIGRATIONS.to_vec();
        next.push("ALTER TABLE jobs ADD COLUMN note TEXT;");
        let future = Store::from_connection(
            Connection::open(&path).unwrap(),
            path.display().to_string(),
            &next,
        )
        .unwrap();
        assert_eq!(user_version(&path), next.len() as i64);
        assert_eq!(future.get(&id).unwrap().unwrap().request, r#"{"n":5}"#);
        drop(future);
        assert!(matches!(
            Store::open(dir.path()),
            Err(StoreError::TooNew { .. })
        ));
    }

    #[test]
    fn a_failed_migration_leaves_the_old_version() {
        let dir = temp_dir("bad-migration");
        let path = dir.path().join(FILE_NAME);
        let mut bad = MIGRATIONS.to_vec();
        bad.push("CREATE TABLE jobs (x);"); // jobs exists: fails after migration 1 ran
        let err = Store::from_connection(
            Connection::open(&path).unwrap(),
            path.display().to_string(),
            &bad,
        )
        .unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains(&format!("migrating the schema to version {}", bad.len())),
            "{message}"
        );
        // All or nothing: not even migration 1 stayed.
        assert_eq!(user_version(&path), 0);
        let tables: i64 = Connection::open(&path)
            .unwrap()
            .query_row("SELECT COUNT(*) FROM sqlite_schema", [], |row| row.get(0))
            .unwrap();
        assert_eq!(tables, 0);
        Store::open(dir.path()).unwrap();
    }

    #[test]
    fn another_programs_database_is_refused() {
        let dir = temp_dir("foreign");
        let path = dir.path().join(FILE_NAME);
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA application_id = 42; CREATE TABLE t (x);")
            .unwrap();
        let err = Store::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is not a queens job store"), "{err}");
    }

    #[test]
    fn open_names_the_directory_it_cannot_create() {
        let dir = temp_dir("not-a-dir");
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        let err = Store::open(&file.join("sub")).unwrap_err().to_string();
        assert!(
            err.contains(&file.join("sub").display().to_string()),
            "{err}"
        );
    }
}
