//! The Postgres job store: one database that any number of `queens serve` replicas share.
//!
//! - Claims take the oldest queued job with `FOR UPDATE SKIP LOCKED`, so replicas claiming at
//!   once neither wait for each other nor get the same job.
//! - Leases and timestamps come from the database's clock (`clock_timestamp()`), so replicas
//!   whose clocks disagree still agree on when a lease has run out.
//! - An insert counts the queue and inserts in one statement, without a lock, so concurrent
//!   commits share their WAL flushes; the queue limit may then be passed by the inserts in
//!   flight at once. The schema migration takes an advisory lock, so replicas starting
//!   together migrate once.
//! - Tables are prefixed `queens_`, so the store can live in a database shared with others.
//!
//! Connections come from a small pool of blocking clients (rust-postgres); a connection that
//! broke is dropped and the next call opens a new one.

use std::str::FromStr;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, Config, NoTls, Row, Transaction};

use super::error::StoreError;
use super::options::{redact, Options};
use super::row::{
    fold_queue, parse_status, Artifact, Counts, Finished, Job, JobStatus, NewJob, OpQueue, REQUEUED,
};
use super::tls::Connector;

/// The schema, one migration per version: `MIGRATIONS[i]` takes a database from version `i`
/// to version `i + 1` (the version lives in `queens_schema`). Append, never edit.
const MIGRATIONS: &[&str] = &[
    // 1: jobs with their lease, and their artifacts. `seq` is the arrival order claims follow;
    // `id` is what clients see. Artifacts (proofs of tens of MB, TOASTed out of line) have
    // their own table so that reading a job never reads them. JSON stays text: results are
    // served as they were written, field order and all.
    "CREATE TABLE queens_jobs (
         seq         BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
         id          TEXT    NOT NULL UNIQUE,
         op          TEXT    NOT NULL,
         request     TEXT    NOT NULL,
         status      TEXT    NOT NULL
                     CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
         progress    TEXT,
         result      TEXT,
         error       TEXT,
         attempts    INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
         created_ms  BIGINT  NOT NULL,
         started_ms  BIGINT,
         finished_ms BIGINT,
         owner       TEXT,
         lease_ms    BIGINT
     );
     CREATE INDEX queens_jobs_by_status ON queens_jobs (status, seq);
     CREATE INDEX queens_jobs_leases ON queens_jobs (lease_ms) WHERE status = 'running';
     CREATE TABLE queens_artifacts (
         job_id TEXT  NOT NULL REFERENCES queens_jobs (id) ON DELETE CASCADE,
         name   TEXT  NOT NULL,
         bytes  BYTEA NOT NULL,
         PRIMARY KEY (job_id, name)
     );",
    // 2: the API key (its name, never the key) that submitted a job; NULL on a server
    // without keys. Another key's caller does not see the job.
    "ALTER TABLE queens_jobs ADD COLUMN api_key TEXT;",
    // 3: an artifact may live in a file of the artifacts folder the replicas share (a proof
    // streamed there as it was written): `path`, relative to that folder, and no bytes here.
    "ALTER TABLE queens_artifacts ADD COLUMN path TEXT;",
    // 4: retention removes finished jobs oldest first (`--keep-finished`), a walk over this
    // index rather than the table.
    "CREATE INDEX queens_jobs_finished ON queens_jobs (finished_ms)
         WHERE status IN ('done', 'failed', 'cancelled');",
];

/// The advisory lock key ("QUEN" and one) of the schema migration.
const MIGRATION_LOCK: i64 = 0x5155_454E_0001;

/// Milliseconds since the epoch by the database's clock.
const NOW_MS: &str = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/// The columns that make a [`Job`], in the order `job_of` reads them.
const JOB_COLUMNS: &str =
    "id, op, request, status, progress, result, error, attempts, created_ms, started_ms, finished_ms, api_key";

/// Connections one store keeps open at most: the workers, the dispatcher, the lease keeper and
/// the HTTP handlers that read or insert at once. Five replicas stay under Postgres's default
/// of 100.
const MAX_CONNECTIONS: usize = 16;

/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) struct Postgres {
    config: Config,
    /// Plain TCP, or TLS as the URL's `sslmode` says (tls.rs).
    connector: Connector,
    pool: Mutex<Pool>,
    returned: Condvar,
    origin: String,
    owner: String,
    lease_ms: i64,
}

#[derive(Default)]
struct Pool {
    idle: Vec<Client>,
    open: usize,
}

impl Postgres {
    pub(super) fn connect(
        url: &str,
        owner: String,
        options: Options,
    ) -> Result<Postgres, StoreError> {
        let redacted = redact(url);
        let (url, ssl) = super::tls::split(url, &format!("--store {redacted}"))?;
        let mut config = Config::from_str(&url)
            .map_err(|e| StoreError::Db(format!("--store {redacted}: {e}")))?;
        let (connector, mode) =
            Connector::new(&ssl).map_err(|e| StoreError::Db(format!("--store {redacted}: {e}")))?;
        config.ssl_mode(mode);
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        config.application_name("queens");
        let store = Postgres {
            config,
            connector,
            pool: Mutex::new(Pool::default()),
            returned: Condvar::new(),
            origin: redacted,
            owner,
            lease_ms: i64::try_from(options.lease.as_millis()).unwrap_or(i64::MAX),
        };
        store.migrate(MIGRATIONS)?;
        Ok(store)
    }

    pub(super) fn origin(&self) -> &str {
        &self.origin
    }

    pub(super) fn owner(&self) -> &str {
        &self.owner
    }

    fn pool(&self) -> MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on a pooled connection (waiting for one when all are busy). A connection that
    /// broke is not put back.
    fn with<T>(
        &self,
        what: &str,
        f: impl FnOnce(&mut Client) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        let mut client = {
            let mut pool = self.pool();
            loop {
                if let Some(client) = pool.idle.pop() {
                    if !client.is_closed() {
                        break client;
                    }
                    pool.open -= 1;
                    continue;
                }
                if pool.open < MAX_CONNECTIONS {
                    pool.open += 1;
                    drop(pool);
                    let connected = match &self.connector {
                        Connector::Plain => self.config.connect(NoTls),
                        Connector::Tls(tls) => self.config.connect(tls.clone()),
                    };
                    match connected {
                        Ok(client) => break client,
                        Err(e) => {
                            self.pool().open -= 1;
                            self.returned.notify_one();
                            return Err(StoreError::Db(format!(
                                "{what}: connecting to {}: {}",
                                self.origin,
                                with_causes(&e)
                            )));
                        }
                    }
                }
                pool = self
                    .returned
                    .wait(pool)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let result = f(&mut client);
        let mut pool = self.pool();
        if client.is_closed() {
            pool.open -= 1;
        } else {
            pool.idle.push(client);
        }
        drop(pool);
        self.returned.notify_one();
        result.map_err(|e| StoreError::Db(format!("{what}: {}", describe(&e))))
    }

    /// Runs `f` in one transaction and commits it; if `f` fails, it rolls back.
    fn tx<T>(
        &self,
        what: &str,
        f: impl FnOnce(&mut Transaction<'_>) -> Result<T, postgres::Error>,
    ) -> Result<T, StoreError> {
        self.with(what, |client| {
            let mut tx = client.transaction()?;
            let value = f(&mut tx)?;
            tx.commit()?;
            Ok(value)
        })
    }

    /// Brings the schema to `migrations.len()` in one transaction, under an advisory lock so
    /// that replicas starting together migrate once. Refuses a newer schema untouched.
    fn migrate(&self, migrations: &[&str]) -> Result<(), StoreError> {
        let known = migrations.len();
        let outcome = self.tx(&format!("{}: migrating the schema", self.origin), |tx| {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
            tx.batch_execute(
                "CREATE TABLE IF NOT EXISTS queens_schema (
                     one     BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
                     version INTEGER NOT NULL CHECK (version >= 0)
                 );
                 INSERT INTO queens_schema (version) VALUES (0) ON CONFLICT DO NOTHING;",
            )?;
            let found: i32 = tx
                .query_one("SELECT version FROM queens_schema", &[])?
                .get(0);
            let found = i64::from(found);
            if found > known as i64 {
                return Ok(Err(found));
            }
            for (i, sql) in migrations.iter().enumerate().skip(found as usize) {
                if let Err(e) = tx.batch_execute(sql) {
                    tracing::error!(version = i + 1, error = %describe(&e), "a migration failed");
                    return Err(e);
                }
            }
            tx.execute(
                "UPDATE queens_schema SET version = $1",
                &[&i32::try_from(known).unwrap_or(i32::MAX)],
            )?;
            Ok(Ok(()))
        })?;
        outcome.map_err(|found| StoreError::TooNew {
            path: self.origin.clone(),
            found,
            known: u32::try_from(known).unwrap_or(u32::MAX),
        })
    }

    pub(super) fn ping(&self) -> Result<(), StoreError> {
        self.with("checking the job store", |c| {
            c.query_one("SELECT version FROM queens_schema", &[])
                .map(|_| ())
        })
    }

    pub(super) fn accept(&self, job: NewJob<'_>) -> Result<Job, StoreError> {
        // No lock around the count: a lock held through the commit's WAL flush would
        // serialize every insert behind one fsync (200 a second on a disk with 5 ms fsyncs),
        // where concurrent commits otherwise share their flushes. So the limit may be passed
        // by the inserts in flight at once (at most the connections of all replicas): it
        // guards memory, not an exact count.
        let outcome = self.with(&format!("accepting a {} job", job.op), |tx| {
            // 128 bits of sha256 over two gen_random_uuid()s (244 bits from the server's
            // strong random source): nobody can guess an id, so it works as a capability.
            // The count and the insert are one statement: one round trip.
            let row = tx.query_opt(
                &format!(
                    "INSERT INTO queens_jobs (id, op, request, status, attempts, created_ms, api_key)
                     SELECT left(encode(sha256(convert_to(gen_random_uuid()::text
                                                || gen_random_uuid()::text, 'UTF8')),
                                        'hex'), 32),
                            $1, $2, 'queued', 0, {NOW_MS}, $4
                     WHERE (SELECT COUNT(*) FROM queens_jobs WHERE status = 'queued') < $3
                     RETURNING {JOB_COLUMNS}"
                ),
                &[
                    &job.op,
                    &job.request,
                    &i64::try_from(job.max_queued).unwrap_or(i64::MAX),
                    &job.key,
                ],
            )?;
            match row {
                Some(row) => Ok(Ok(row)),
                None => {
                    let queued: i64 = tx
                        .query_one(
                            "SELECT COUNT(*) FROM queens_jobs WHERE status = 'queued'",
                            &[],
                        )?
                        .get(0);
                    Ok(Err(usize::try_from(queued).unwrap_or(usize::MAX)))
                }
            }
        })?;
        let row = outcome.map_err(StoreError::Full)?;
        job_of(&row)
    }

    pub(super) fn get(&self, id: &str) -> Result<Option<Job>, StoreError> {
        // One statement, so one snapshot: the job and its artifacts' names agree.
        let row = self.with(&format!("reading job {id}"), |c| {
            c.query_opt(
                &format!(
                    "SELECT {JOB_COLUMNS},
                            ARRAY(SELECT name FROM queens_artifacts
                                  WHERE job_id = j.id ORDER BY name)
                     FROM queens_jobs j WHERE id = $1"
                ),
                &[&id],
            )
        })?;
        row.map(|row| {
            let artifacts: Vec<String> = row.get(12);
            job_of(&row).map(|job| Job { artifacts, ..job })
        })
        .transpose()
    }

    pub(super) fn claim_next(&self) -> Result<Option<Job>, StoreError> {
        self.claim(
            "claiming the next queued job",
            "",
            &[&self.owner, &self.lease_ms],
        )
    }

    /// Claims the oldest queued job that also passes `filter` (`AND …`, its parameters from
    /// `$3`): running for this owner with a fresh lease, its attempt counted. Replicas
    /// claiming at once skip each other's row (`SKIP LOCKED`).
    fn claim(
        &self,
        what: &str,
        filter: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Job>, StoreError> {
        let row = self.with(what, |c| {
            c.query_opt(
                &format!(
                    "UPDATE queens_jobs
                     SET status = 'running', attempts = attempts + 1, started_ms = {NOW_MS},
                         progress = NULL, owner = $1, lease_ms = {NOW_MS} + $2
                     WHERE seq = (SELECT seq FROM queens_jobs WHERE status = 'queued' {filter}
                                  ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
                     RETURNING {JOB_COLUMNS}"
                ),
                params,
            )
        })?;
        // A queued job has no artifacts: only a done one does.
        row.map(|row| job_of(&row)).transpose()
    }

    pub(super) fn renew(&self) -> Result<Vec<String>, StoreError> {
        self.with("renewing the leases of running jobs", |c| {
            c.query(
                &format!(
                    "UPDATE queens_jobs SET lease_ms = {NOW_MS} + $2
                     WHERE status = 'running' AND owner = $1 RETURNING id"
                ),
                &[&self.owner, &self.lease_ms],
            )
        })
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) fn requeue_expired(&self) -> Result<Vec<String>, StoreError> {
        self.with("requeueing jobs whose lease ran out", |c| {
            c.query(
                &format!(
                    "UPDATE queens_jobs SET {REQUEUED}
                     WHERE status = 'running' AND lease_ms < {NOW_MS} RETURNING id"
                ),
                &[],
            )
        })
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) fn set_progress(&self, id: &str, progress_json: &str) -> Result<bool, StoreError> {
        self.with(&format!("recording the progress of job {id}"), |c| {
            c.execute(
                "UPDATE queens_jobs SET progress = $2
                 WHERE id = $1 AND status = 'running' AND owner = $3",
                &[&id, &progress_json, &self.owner],
            )
        })
        .map(|n| n == 1)
    }

    /// Marks a running job done with its result and artifacts (bytes, and files: name, path
    /// in the artifacts folder), in one transaction.
    pub(super) fn complete(&self, done: Finished<'_>) -> Result<bool, StoreError> {
        let finish = format!(
            "UPDATE queens_jobs
             SET status = 'done', result = $2, finished_ms = {NOW_MS}, lease_ms = NULL
             WHERE id = $1 AND status = 'running' AND owner = $3"
        );
        if done.artifacts.is_empty() && done.files.is_empty() {
            return self
                .with(&format!("finishing job {}", done.id), |c| {
                    c.execute(&finish, &[&done.id, &done.result, &self.owner])
                })
                .map(|n| n == 1);
        }
        self.tx(&format!("finishing job {}", done.id), |tx| {
            let changed = tx.execute(&finish, &[&done.id, &done.result, &self.owner])?;
            if changed == 0 {
                return Ok(false);
            }
            let insert = tx.prepare(
                "INSERT INTO queens_artifacts (job_id, name, bytes) VALUES ($1, $2, $3)",
            )?;
            for (name, bytes) in done.artifacts {
                tx.execute(&insert, &[&done.id, name, bytes])?;
            }
            let insert = tx.prepare(
                "INSERT INTO queens_artifacts (job_id, name, bytes, path) VALUES ($1, $2, '', $3)",
            )?;
            for (name, path) in done.files {
                tx.execute(&insert, &[&done.id, name, path])?;
            }
            Ok(true)
        })
    }

    pub(super) fn fail(&self, id: &str, error_json: &str) -> Result<bool, StoreError> {
        self.with(&format!("failing job {id}"), |c| {
            c.execute(
                &format!(
                    "UPDATE queens_jobs
                     SET status = 'failed', error = $2, finished_ms = {NOW_MS}, lease_ms = NULL
                     WHERE id = $1 AND status = 'running' AND owner = $3"
                ),
                &[&id, &error_json, &self.owner],
            )
        })
        .map(|n| n == 1)
    }

    pub(super) fn cancel(&self, id: &str) -> Result<Option<JobStatus>, StoreError> {
        let before: Option<String> = self.tx(&format!("cancelling job {id}"), |tx| {
            let Some(row) = tx.query_opt(
                "SELECT status FROM queens_jobs WHERE id = $1 FOR UPDATE",
                &[&id],
            )?
            else {
                return Ok(None);
            };
            tx.execute(
                &format!(
                    "UPDATE queens_jobs
                     SET status = 'cancelled', finished_ms = {NOW_MS}, lease_ms = NULL
                     WHERE id = $1 AND status IN ('queued', 'running')"
                ),
                &[&id],
            )?;
            Ok(Some(row.get(0)))
        })?;
        before.map(|status| parse_status(&status, id)).transpose()
    }

    pub(super) fn requeue(&self, id: &str) -> Result<bool, StoreError> {
        self.with(&format!("requeueing job {id}"), |c| {
            c.execute(
                &format!(
                    "UPDATE queens_jobs SET {REQUEUED}
                     WHERE id = $1 AND status = 'running' AND owner = $2"
                ),
                &[&id, &self.owner],
            )
        })
        .map(|n| n == 1)
    }

    pub(super) fn requeue_all_running(&self) -> Result<usize, StoreError> {
        self.with("requeueing the jobs that were running", |c| {
            c.execute(
                &format!("UPDATE queens_jobs SET {REQUEUED} WHERE status = 'running'"),
                &[],
            )
        })
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
    }

    pub(super) fn artifact_source(
        &self,
        id: &str,
        name: &str,
    ) -> Result<Option<Artifact>, StoreError> {
        self.with(&format!("reading artifact {name:?} of job {id}"), |c| {
            c.query_opt(
                "SELECT bytes, path FROM queens_artifacts WHERE job_id = $1 AND name = $2",
                &[&id, &name],
            )
        })
        .map(|row| {
            row.map(|r| match r.get::<_, Option<String>>(1) {
                Some(p) => Artifact::File(p),
                None => Artifact::Bytes(r.get(0)),
            })
        })
    }

    pub(super) fn counts(&self) -> Result<Counts, StoreError> {
        let rows = self.with("counting jobs", |c| {
            c.query(
                "SELECT status, COUNT(*) FROM queens_jobs GROUP BY status",
                &[],
            )
        })?;
        Counts::from_rows(rows.iter().map(|row| (row.get(0), row.get(1))))
    }
}

impl Postgres {
    pub(super) fn delete(&self, id: &str) -> Result<Option<JobStatus>, StoreError> {
        let before: Option<String> = self
            .with(&format!("deleting job {id}"), |c| {
                c.query_opt(
                    "DELETE FROM queens_jobs WHERE id = $1 RETURNING status",
                    &[&id],
                )
            })?
            .map(|row| row.get(0));
        before.map(|status| parse_status(&status, id)).transpose()
    }

    /// Removes at most `limit` jobs finished more than `age_ms` ago by the database's clock,
    /// oldest first. Replicas sweeping at once skip each other's rows (`SKIP LOCKED`), so
    /// each expired job is removed, and reported, by exactly one of them.
    pub(super) fn delete_finished(
        &self,
        age_ms: i64,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        self.with("deleting expired jobs", |c| {
            c.query(
                &format!(
                    "DELETE FROM queens_jobs WHERE seq IN (
                         SELECT seq FROM queens_jobs
                         WHERE status IN ('done', 'failed', 'cancelled')
                           AND finished_ms < {NOW_MS} - $1
                         ORDER BY finished_ms LIMIT $2 FOR UPDATE SKIP LOCKED)
                     RETURNING id"
                ),
                &[&age_ms, &i64::try_from(limit).unwrap_or(i64::MAX)],
            )
        })
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
    }

    pub(super) fn existing(&self, ids: &[String]) -> Result<Vec<String>, StoreError> {
        self.with("looking up jobs", |c| {
            c.query("SELECT id FROM queens_jobs WHERE id = ANY($1)", &[&ids])
        })
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
    }
}

/// An error and its causes (a failed TLS handshake says why only in its source: an unknown
/// issuer, a certificate for another host).
fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        cause = c.source();
    }
    text
}

/// Fair dispatch and the queue's shape ([`super::Store::queued_keys`], …).
impl Postgres {
    pub(super) fn queued_keys(&self) -> Result<Vec<(Option<String>, i64)>, StoreError> {
        let rows = self.with("listing the keys with queued jobs", |c| {
            c.query(
                "SELECT api_key, MIN(seq) AS first FROM queens_jobs WHERE status = 'queued'
                 GROUP BY api_key ORDER BY first",
                &[],
            )
        })?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    pub(super) fn claim_next_of(&self, key: Option<&str>) -> Result<Option<Job>, StoreError> {
        self.claim(
            "claiming the next queued job of a key",
            "AND api_key IS NOT DISTINCT FROM $3",
            &[&self.owner, &self.lease_ms, &key],
        )
    }

    pub(super) fn queue_by_op(&self) -> Result<Vec<OpQueue>, StoreError> {
        let rows = self.with("counting queued and running jobs", |c| {
            c.query(
                "SELECT op, status, COUNT(*), MIN(created_ms) FROM queens_jobs
                 WHERE status IN ('queued', 'running') GROUP BY op, status",
                &[],
            )
        })?;
        Ok(fold_queue(
            rows.iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
                .collect(),
        ))
    }
}

/// A database error with the server's own message and its SQLSTATE, when there is one.
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) if db.code() == &SqlState::UNIQUE_VIOLATION => {
            format!("{} ({})", db.message(), db.detail().unwrap_or("duplicate"))
        }
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => e.to_string(),
    }
}

/// A row of [`JOB_COLUMNS`] as a job (without its artifacts' names).
fn job_of(row: &Row) -> Result<Job, StoreError> {
    let id: String = row.get(0);
    let status: String = row.get(3);
    let attempts: i32 = row.get(7);
    Ok(Job {
        status: parse_status(&status, &id)?,
        op: row.get(1),
        request: row.get(2),
        progress: row.get(4),
        result: row.get(5),
        error: row.get(6),
        attempts: u32::try_from(attempts).unwrap_or(0),
        created_ms: row.get(8),
        started_ms: row.get(9),
        finished_ms: row.get(10),
        artifacts: Vec::new(),
        key: row.get(11),
        id,
    })
}
