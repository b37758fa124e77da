//! The HTTP service (`queens serve`): an axum router over one [`AppState`], calling the
//! operations layer ([`crate::ops`]) on a bounded pool of worker threads.
//!
//! - `routes.rs`: the synchronous endpoints (`/v1/solve`, …), health, metrics, OpenAPI, and
//!   the `/play` page (`static/play.html`, embedded).
//! - `jobs.rs`: long work as jobs, stored before they are accepted, run by a dispatcher.
//! - `workers.rs`: the worker pool; `store/`: the job store, SQLite or a Postgres that replicas
//!   share (the only modules that speak SQL); `lease.rs`: renews this server's claims and
//!   requeues the jobs of replicas that stopped renewing theirs; `retention.rs`: expiry of
//!   finished jobs, the artifacts quota, and jobs stopped at shutdown; `error.rs`: every error
//!   response as problem+json; `contract.rs`: completes the OpenAPI document (error bodies,
//!   the statuses every route shares, the job body's schema); `metrics.rs`: Prometheus
//!   counters.

// The crates below, and this one, under the names the modules use.
pub(crate) use queens_engine as engine;
pub(crate) use queens_games as games;
pub(crate) use queens_model::{formats, model, Error};
pub(crate) use queens_ops as ops;

pub mod auth;
mod contract;
mod error;
mod fair;
mod jobs;
mod lease;
mod limits;
mod metrics;
mod retention;
mod routes;
pub mod store;
mod strict;
mod workers;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{FromRequest, Request as HttpRequest};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::engine::Budget;
use crate::ops::{Artifacts, Context, Request, Response};
pub use error::{ApiError, Problem};
use metrics::Metrics;
use store::Store;
use workers::Pool;

/// How the service runs: `queens serve`'s flags.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:0` picks a free port; the chosen one is printed).
    pub addr: SocketAddr,
    /// Worker threads for solving (default: the number of cores).
    pub workers: usize,
    /// Synchronous requests that may wait for a worker; more get 503.
    pub queue: usize,
    /// Largest board size accepted.
    pub max_n: usize,
    /// Time limit of a synchronous request, milliseconds (a request may ask for less).
    pub timeout_ms: u64,
    /// Largest request body, bytes.
    pub max_body: usize,
    /// Folder of the job database.
    pub data: PathBuf,
    /// Jobs that may wait in the store; more get 503.
    pub max_jobs: usize,
    /// Estimated memory one operation may use, bytes; more is refused with 422.
    pub max_memory: u64,
    /// Time limit of a job, milliseconds (a job may ask for less).
    pub job_timeout_ms: u64,
    /// The `queens` executable that runs uninterruptible work (`queens op`).
    pub exe: PathBuf,
    /// API keys, rate limit, and whether `/metrics` needs a key.
    pub access: auth::Access,
    /// The external SAT solvers requests may name (engine `ext`): this allowlist only.
    pub solvers: crate::engine::ext::SolverTable,
    /// The shared job store's URL (`postgres://…`); `None`: SQLite in `data`.
    pub store: Option<String>,
    /// How long a running job stays this server's without a renewal of its lease.
    pub lease: Duration,
    /// The largest result or artifact (proof, CNF) a job may store, bytes.
    pub max_artifact: usize,
    /// The folder of the jobs' proofs and CNFs, one subfolder per job: proofs stream there
    /// as they are written and are served from there (replicas must share it).
    pub artifacts: PathBuf,
    /// How long a finished job is kept, with its result and files, before it is removed.
    pub keep_finished: Duration,
    /// The most the artifacts folder may hold, bytes; `None`: no quota.
    pub max_artifacts_total: Option<u64>,
    /// How long running jobs may go on after SIGTERM before they are stopped.
    pub shutdown_grace: Duration,
    /// Most deals a `collection_simulate` may ask for (a synchronous call: at most 10,000).
    pub max_simulate_deals: u64,
    /// Most deals a `collection_study` may ask for (a synchronous call: at most 100).
    pub max_study_deals: u64,
    /// Most jobs of one API key (one client address without keys) running at once here.
    pub jobs_per_key: usize,
}

/// `queens serve`'s flags (clap), turned into a [`Config`] by [`ServeArgs::config`].
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the chosen one is printed on stderr).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Worker threads that run the solving (default: one per core).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Synchronous requests that may wait for a worker; more are answered 503.
    #[arg(long, default_value_t = 64)]
    pub queue: usize,
    /// Largest board size accepted.
    #[arg(long, default_value_t = 1000)]
    pub max_n: usize,
    /// Time limit of a synchronous request, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Time limit of a job, in milliseconds (default: 15 minutes; a job may ask for less).
    /// The mod-2 retrograde sweep (n = 6) and long simulations and studies need more.
    #[arg(long, default_value_t = 900_000)]
    pub job_timeout_ms: u64,
    /// Largest request body, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_body: usize,
    /// Jobs that may wait in the queue; more are answered 503.
    #[arg(long, default_value_t = 10_000)]
    pub max_jobs: usize,
    /// Folder of the job database (created if missing).
    #[arg(long, default_value = "queens-data")]
    pub data: PathBuf,
    /// Estimated memory one operation may use, in MB (default: half the smallest of the
    /// machine's memory, the cgroup's limit and `ulimit -v`, shared by the workers); a SAT
    /// encoding over it is refused with 422.
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<u64>,
    /// API keys, one `name:key` per line: every /v1/ request then needs
    /// `Authorization: Bearer KEY`, and a job is seen only by the key that made it.
    #[arg(long, value_name = "FILE")]
    pub api_keys: Option<PathBuf>,
    /// Requests a second (and burst) one key, or one client address without keys, may make
    /// to /v1/; more are answered 429 with Retry-After.
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: Option<u32>,
    /// /metrics needs an API key too (with --api-keys).
    #[arg(long, requires = "api_keys")]
    pub metrics_need_key: bool,
    /// An external SAT solver requests may use with `"engine": "ext", "solver": NAME`:
    /// NAME=CMD ({cnf}, {proof}, {model} are replaced by file paths; no shell), or a known
    /// NAME alone (cadical, kissat, minisat, cryptominisat5, picosat). Repeatable; requests
    /// can name no other solver and never give a command.
    #[arg(long = "solver", value_name = "NAME=CMD")]
    pub solver: Vec<String>,
    /// The job store shared by replicas: a postgres:// URL (default: the QUEENS_STORE
    /// environment variable; without either, SQLite in --data).
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// How long a running job stays this server's without a renewal, in milliseconds; a
    /// replica that stops renewing (killed, cut off) has its jobs run again by the others after
    /// this. Renewals go out every third of it (at most every second).
    #[arg(long, default_value_t = 30_000, value_name = "MS")]
    pub lease_ms: u64,
    /// The largest result or artifact (proof, CNF) one job may store, in MB; a job over it
    /// fails with 422 instead of being stored cut short.
    #[arg(long, default_value_t = 512, value_name = "MB")]
    pub max_artifact: u64,
    /// The folder of the jobs' proofs and the CNFs they refute (created if missing; default:
    /// `artifacts` in --data, beside the SQLite store). A proof streams to its file as it is
    /// written and checked, so neither memory nor --max-artifact bounds it. Replicas on one
    /// Postgres store must all be given one folder they share.
    #[arg(long, value_name = "DIR")]
    pub artifacts: Option<PathBuf>,
    /// How long a finished job (done, failed or cancelled) is kept with its result, proof and
    /// CNF before it is removed (`30m`, `12h`, `7d`, from `1s`); afterwards it is 404.
    #[arg(long, default_value = "7d", value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub keep_finished: Duration,
    /// The most the artifacts folder may hold, in MB: at or over it, a new proof job is
    /// refused with 507, and a proof being written when the folder passes it is stopped and
    /// its job fails with 507 (default: no quota; the disk is the limit).
    #[arg(long, value_name = "MB")]
    pub max_artifacts_total: Option<u64>,
    /// On SIGTERM or Ctrl-C, how long running jobs and requests may go on to finish (`10s`,
    /// `2m`); then running jobs are stopped and go back to the queue (Postgres) or fail as
    /// interrupted (SQLite), open requests are cut off, and the server exits.
    #[arg(long, default_value = "10s", value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub shutdown_grace: Duration,
    /// Most deals a collection_simulate request (a job; a synchronous call at most 10,000)
    /// may ask for; more are refused with 422.
    #[arg(long, default_value_t = limits::DEFAULT_SIMULATE_DEALS, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=crate::ops::collection::MAX_SIMULATE_DEALS))]
    pub max_simulate_deals: u64,
    /// Most deals a collection_study request (a job; a synchronous call at most 100) may ask
    /// for; more are refused with 422.
    #[arg(long, default_value_t = limits::DEFAULT_STUDY_DEALS, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=crate::ops::collection::MAX_STUDY_DEALS))]
    pub max_study_deals: u64,
    /// Most jobs of one API key running at once on this server (default: half the job
    /// workers, at least 1); the others wait while other keys' jobs run. Without
    /// --api-keys every job counts as one key's.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs_per_key: Option<u64>,
}

impl ServeArgs {
    /// Checks the flags and makes the server's configuration.
    pub fn config(&self) -> Result<Config, crate::Error> {
        let bad = |m: &str| Err(crate::Error::unsupported(m.to_string()));
        if self.workers.is_some_and(|w| w == 0 || w > 1024) {
            return bad("--workers must be from 1 to 1024");
        }
        if self.queue == 0 {
            return bad("--queue must be at least 1");
        }
        if self.max_n == 0 || self.max_n > crate::model::MAX_N {
            return bad(&format!(
                "--max-n must be from 1 to {}",
                crate::model::MAX_N
            ));
        }
        if self.timeout_ms == 0 || self.job_timeout_ms == 0 {
            return bad("--timeout-ms and --job-timeout-ms must be at least 1");
        }
        if self.max_body < 64 {
            return bad("--max-body must be at least 64 bytes");
        }
        let exe = std::env::current_exe().map_err(|e| crate::Error::Io {
            path: "queens".into(),
            source: e,
        })?;
        let workers = self
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if self.max_memory == Some(0) {
            return bad("--max-memory must be at least 1 MB");
        }
        if !(300..=3_600_000).contains(&self.lease_ms) {
            return bad("--lease-ms must be from 300 to 3600000");
        }
        // Postgres takes at most 1 GB in one value.
        if !(1..=1000).contains(&self.max_artifact) {
            return bad("--max-artifact must be from 1 to 1000 MB");
        }
        if self.keep_finished < Duration::from_secs(1) {
            return bad("--keep-finished must be at least 1s");
        }
        if self.max_artifacts_total == Some(0) {
            return bad("--max-artifacts-total must be at least 1 MB");
        }
        if self.shutdown_grace > Duration::from_secs(3600) {
            return bad("--shutdown-grace must be at most 1h");
        }
        let store = self.store.clone().or_else(|| {
            std::env::var("QUEENS_STORE")
                .ok()
                .filter(|s| !s.trim().is_empty())
        });
        if let Some(spec) = &store {
            if !store::is_postgres(spec) {
                return bad(&format!(
                    "--store (or QUEENS_STORE) {:?}: expected a postgres:// or postgresql:// \
                     URL; without it, jobs are kept in SQLite in --data",
                    store::redact(spec)
                ));
            }
        }
        Ok(Config {
            addr: self.addr,
            workers,
            max_memory: self
                .max_memory
                .map_or(crate::engine::default_max_memory() / workers as u64, |mb| {
                    mb.saturating_mul(1 << 20)
                }),
            queue: self.queue,
            max_n: self.max_n,
            timeout_ms: self.timeout_ms,
            max_body: self.max_body,
            data: self.data.clone(),
            max_jobs: self.max_jobs,
            job_timeout_ms: self.job_timeout_ms,
            exe,
            access: auth::Access {
                keys: self.api_keys.as_deref().map(auth::Keys::load).transpose()?,
                rate_limit: self.rate_limit.and_then(std::num::NonZeroU32::new),
                metrics_need_key: self.metrics_need_key,
            },
            solvers: crate::engine::ext::SolverTable::from_args(&self.solver, true)?,
            store,
            lease: Duration::from_millis(self.lease_ms),
            max_artifact: usize::try_from(self.max_artifact << 20).unwrap_or(usize::MAX),
            artifacts: self
                .artifacts
                .clone()
                .unwrap_or_else(|| self.data.join("artifacts")),
            keep_finished: self.keep_finished,
            max_artifacts_total: self
                .max_artifacts_total
                .map(|mb| mb.saturating_mul(1 << 20)),
            shutdown_grace: self.shutdown_grace,
            max_simulate_deals: self.max_simulate_deals,
            max_study_deals: self.max_study_deals,
            // Jobs get every worker but one (workers.rs).
            jobs_per_key: self.jobs_per_key.map_or_else(
                || workers.saturating_sub(1).max(1).div_ceil(2),
                |k| k as usize,
            ),
        })
    }
}

/// What every handler shares.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

/// The shared parts of [`AppState`].
pub struct Shared {
    config: Config,
    pool: Arc<Pool>,
    store: Store,
    metrics: Metrics,
    /// Cancel flags of the jobs running now, by id.
    running: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Set on SIGTERM/SIGINT: no new jobs start, running ones go back to the queue.
    shutting_down: AtomicBool,
    /// Wakes the job dispatcher when a job is submitted.
    job_signal: (Mutex<bool>, Condvar),
    /// The artifacts quota (retention.rs).
    quota: retention::Quota,
    /// Which key's job runs next ([`fair`]).
    fair: fair::Fair,
    /// The data folder's lock, held while the server runs (SQLite only: replicas share a
    /// Postgres store).
    _lock: Option<std::fs::File>,
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// Takes the data folder for this server alone: a second server on the same folder would
/// re-run the first one's running jobs as if they had been left by a crash.
fn lock_data(dir: &std::path::Path) -> Result<std::fs::File, crate::Error> {
    let io = |source| crate::Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let path = dir.join("queens.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    #[cfg(unix)]
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(
        |_| {
            crate::Error::unsupported(format!(
                "{} is in use by another queens serve (--data): give each server its own folder",
                dir.display()
            ))
        },
    )?;
    Ok(file)
}

/// Sets the cancel flag when dropped: a synchronous request whose client went away (axum
/// drops the handler's future) cancels its work.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl AppState {
    /// Opens the store (re-queueing jobs a crash left running) and starts the workers and
    /// the job dispatcher.
    pub fn start(config: Config) -> Result<AppState, crate::Error> {
        std::fs::create_dir_all(&config.artifacts).map_err(|e| crate::Error::Io {
            path: config.artifacts.clone(),
            source: e,
        })?;
        let lock = match config.store {
            None => Some(lock_data(&config.data)?),
            Some(_) => None,
        };
        let options = store::Options {
            lease: config.lease,
            max_artifact: config.max_artifact,
        };
        let store =
            Store::open_spec(config.store.as_deref(), &config.data, options).map_err(|e| {
                crate::Error::Io {
                    path: config
                        .store
                        .as_deref()
                        .map_or_else(|| config.data.clone(), |s| store::redact(s).into()),
                    source: std::io::Error::other(e.to_string()),
                }
            })?;
        // A shared store's running jobs may be other replicas' live work: their leases say
        // when they are orphans (lease.rs).
        let requeued = if store.is_shared() {
            0
        } else {
            store
                .requeue_all_running()
                .map_err(|e| crate::Error::internal(e.to_string()))?
        };
        if requeued > 0 {
            tracing::info!(
                requeued,
                "jobs left running by the last run go back to the queue"
            );
        }
        let quota = config.max_artifacts_total;
        let state = AppState(Arc::new(Shared {
            pool: Pool::new(config.workers, config.queue),
            config,
            store,
            metrics: Metrics::default(),
            running: Mutex::new(HashMap::new()),
            shutting_down: AtomicBool::new(false),
            job_signal: (Mutex::new(false), Condvar::new()),
            quota: retention::Quota::new(quota),
            fair: fair::Fair::default(),
            _lock: lock,
        }));
        let dispatcher = state.clone();
        std::thread::Builder::new()
            .name("queens-jobs".into())
            .spawn(move || jobs::dispatch(dispatcher))
            .map_err(|e| crate::Error::internal_from("starting the job dispatcher", e))?;
        let keeper = state.clone();
        std::thread::Builder::new()
            .name("queens-leases".into())
            .spawn(move || lease::keep(keeper))
            .map_err(|e| crate::Error::internal_from("starting the lease keeper", e))?;
        let keeper = state.clone();
        std::thread::Builder::new()
            .name("queens-retention".into())
            .spawn(move || retention::keep(keeper))
            .map_err(|e| crate::Error::internal_from("starting the retention thread", e))?;
        Ok(state)
    }

    /// Checks a request against the service's limits before any work is queued.
    fn admit(&self, req: &Request, synchronous: bool) -> Result<(), ApiError> {
        req.validate()?;
        limits::check(req, &self.config)?;
        let n = req.n();
        // A classic board past the complete engines' limit is local search's: a solve job
        // (never a synchronous call), refused up front when its memory estimate is over
        // --max-memory.
        let big_solve = match req {
            Request::Solve(r) if n > self.config.max_n && r.instance.0.is_sparse() => Some(r),
            _ => None,
        };
        if let Some(r) = big_solve {
            if synchronous {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "over a limit",
                    format!(
                        "n = {n} is over this server's limit of {} for synchronous calls: \
                         submit it as a job (POST /v1/jobs with \"op\": \"solve\")",
                        self.config.max_n
                    ),
                )
                .field("instance.n"));
            }
            let ctx = crate::ops::Context {
                budget: Budget {
                    max_memory: Some(self.config.max_memory),
                    ..Budget::default()
                },
                isolate: None,
                proof_file: None,
            };
            crate::ops::check_memory(&r.instance.0, &ctx)?;
            return Ok(());
        }
        if n > self.config.max_n {
            let field = if matches!(req, Request::Generate(_)) {
                "n"
            } else {
                "instance.n"
            };
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "over a limit",
                format!(
                    "n = {n} is over this server's limit of {} (--max-n)",
                    self.config.max_n
                ),
            )
            .field(field));
        }
        if synchronous {
            if let Some(why) = req.unbounded() {
                let field = match req {
                    Request::CollectionSimulate(_) | Request::CollectionStudy(_) => "deals",
                    Request::Mod2Solve(_) => "n",
                    _ => "limit",
                };
                return Err(
                    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "unbounded work", why)
                        .field(field),
                );
            }
        }
        Ok(())
    }

    /// Runs a synchronous request on a worker, within the server's time limit, cancelled if
    /// the client goes away. 503 with `Retry-After` when the queue is full, when no worker
    /// can start the request before its deadline (at once when the pool knows it cannot,
    /// else at the deadline), and when the work does not stop at its deadline.
    async fn run_sync(&self, req: Request) -> Result<(Response, Artifacts), ApiError> {
        self.admit(&req, true)?;
        if self.shutting_down.load(Ordering::SeqCst) {
            return Err(ApiError::busy("the server is shutting down"));
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(cancel.clone());
        let limit = Duration::from_millis(self.config.timeout_ms);
        let deadline = Instant::now() + limit;
        let ctx = Context {
            budget: Budget {
                deadline: Some(deadline),
                cancel: Some(cancel.clone()),
                progress: None,
                max_memory: Some(self.config.max_memory),
            },
            isolate: Some(self.config.exe.clone()),
            proof_file: None,
        };
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        let state = self.clone();
        let op = req.op();
        let started = Arc::new(AtomicBool::new(false));
        let started_here = started.clone();
        self.pool
            .submit_by(deadline, move || {
                // Given up by its caller (client gone, or still queued a while past its
                // deadline): the worker goes on to the next task. One that starts just past
                // its deadline (the task ahead stopped a little after its own) runs with its
                // budget spent and answers `timeout` at once.
                if cancel.load(Ordering::SeqCst) || Instant::now() >= deadline + START_GRACE {
                    return;
                }
                started_here.store(true, Ordering::SeqCst);
                let start = Instant::now();
                let result = req.run(&ctx);
                state.metrics.op_time(op, start.elapsed().as_secs_f64());
                let _ = tx.send(result);
            })
            .map_err(|refused| match refused {
                workers::Refused::Full => ApiError::busy(format!(
                    "all {} workers are busy and {} requests are waiting: retry shortly, or \
                     submit a job (POST /v1/jobs)",
                    self.pool.workers(),
                    self.pool.capacity()
                )),
                workers::Refused::Late(wait) => late(
                    wait,
                    format!(
                        "no worker can start this request within its time limit of {} ms \
                         (--timeout-ms): every worker is taken until then; retry later, or \
                         submit a job (POST /v1/jobs)",
                        self.config.timeout_ms
                    ),
                ),
            })?;
        let answer = match tokio::time::timeout_at((deadline + START_GRACE).into(), &mut rx).await {
            Ok(answer) => answer,
            Err(_) if !started.load(Ordering::SeqCst) => {
                // Still queued past its deadline: the task sees the cancel flag (set when
                // this returns) and is skipped.
                return Err(late(
                    Duration::from_secs(1),
                    format!(
                        "no worker could start this request within its time limit of {} ms \
                         (--timeout-ms): retry later, or submit a job (POST /v1/jobs)",
                        self.config.timeout_ms
                    ),
                ));
            }
            // Running: the operation stops at the deadline (a child process is killed then)
            // and answers `timeout`; the grace period only guards against one that does not.
            Err(_) => match tokio::time::timeout(Duration::from_secs(2), rx).await {
                Ok(answer) => answer,
                Err(_) => {
                    tracing::error!(op, "an operation did not stop at its deadline");
                    return Err(late(
                        Duration::from_secs(1),
                        format!(
                            "the {op} operation did not finish within the time limit of {} ms \
                             (--timeout-ms): submit it as a job (POST /v1/jobs)",
                            self.config.timeout_ms
                        ),
                    ));
                }
            },
        };
        match answer {
            // An internal failure of an operation that ran out of time (its child killed
            // mid-answer, say) is the server's time limit, not a fault. (An operation with
            // no `timeout` answer of its own says so with a 422, as it always has: the work
            // is over what a synchronous call may do.)
            Ok(Err(e))
                if Instant::now() >= deadline && matches!(e, crate::Error::Internal { .. }) =>
            {
                tracing::warn!(op, error = %e, "an operation ran out of time");
                Err(late(
                    Duration::from_secs(1),
                    format!(
                        "the {op} operation ran out of its time limit of {} ms \
                         (--timeout-ms): submit it as a job (POST /v1/jobs)",
                        self.config.timeout_ms
                    ),
                ))
            }
            Ok(result) => result.map_err(ApiError::from),
            // The task was skipped: it came to a worker after its deadline.
            Err(_) => Err(late(
                Duration::from_secs(1),
                format!(
                    "no worker could start this request within its time limit of {} ms \
                     (--timeout-ms): retry later, or submit a job (POST /v1/jobs)",
                    self.config.timeout_ms
                ),
            )),
        }
    }

    /// Wakes the job dispatcher.
    fn wake_dispatcher(&self) {
        let (lock, cv) = &self.job_signal;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
    }

    /// Graceful shutdown, bounded: no new job starts and no new work is accepted; running
    /// jobs get `--shutdown-grace` to finish, then are stopped and recorded as
    /// [`retention::record`] says (back in a shared store's queue, or failed as interrupted
    /// on SQLite). A job that does not stop within [`HAND_BACK`] of its cancel is recorded
    /// all the same, so none is left `running`. Returns once every job is recorded.
    pub fn shutdown(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
        self.wake_dispatcher();
        let running = || self.running.lock().unwrap_or_else(|e| e.into_inner());
        let wait = |until: Instant| {
            while Instant::now() < until && !running().is_empty() {
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        wait(Instant::now() + self.config.shutdown_grace);
        let left: Vec<String> = running().keys().cloned().collect();
        if left.is_empty() {
            return;
        }
        tracing::warn!(
            jobs = left.len(),
            "running jobs did not finish within --shutdown-grace: stopping them"
        );
        for flag in running().values() {
            flag.store(true, Ordering::SeqCst);
        }
        // Jobs notice the flag within milliseconds (a child is killed at once).
        wait(Instant::now() + HAND_BACK);
        for id in running().keys() {
            tracing::error!(job = %id, "a job ignored its cancel: recording it as stopped");
            if let Err(e) = retention::record(self, id, retention::Halt::Shutdown) {
                tracing::error!(job = %id, error = %e, "recording a stopped job failed");
            }
        }
    }
}

/// How long stopped jobs have to hand themselves back at shutdown before the server records
/// them itself.
const HAND_BACK: Duration = Duration::from_secs(5);
/// How long past its deadline a queued synchronous request may still start (with its budget
/// spent, it answers `timeout`): the task ahead of it stops a little after its own deadline,
/// and one that came just after it must not be a 503 for that.
const START_GRACE: Duration = Duration::from_secs(1);

/// 503 `busy`, with `Retry-After` the whole seconds of `wait` (at least 1).
fn late(wait: Duration, detail: String) -> ApiError {
    let mut e = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", detail);
    e.retry_after = Some(u32::try_from(wait.as_secs() + 1).unwrap_or(u32::MAX));
    e
}

/// A JSON request body: 413 over the size limit, 400 when it is not JSON, 422 naming the
/// field when a value is wrong (unknown engine, off-board queen, ragged grid, …).
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: HttpRequest, state: &S) -> Result<Self, ApiError> {
        let RawBody(bytes) = RawBody::from_request(req, state).await?;
        parse_body(&bytes).map(JsonBody)
    }
}

/// A request body as bytes, within the size limit (413 past it).
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: HttpRequest, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body too large",
                    "the request body is over this server's limit (--max-body)",
                )
            } else {
                ApiError::new(StatusCode::BAD_REQUEST, "unreadable body", e.body_text())
            }
        })?;
        Ok(RawBody(bytes))
    }
}

/// Parses a request body, naming the field of a bad value.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // Every body is an object; serde would take an array for a struct's fields in order.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(
            match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                Err(e) => ApiError::new(StatusCode::BAD_REQUEST, "invalid JSON", e.to_string()),
                Ok(_) => ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "invalid request",
                    "expected a JSON object",
                )
                .field("."),
            },
        );
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let body = serde_json::from_slice(bytes).ok();
        invalid(e, body.as_ref())
    })?;
    de.end()
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "invalid JSON", e.to_string()))?;
    if let Ok(body) = serde_json::from_slice::<serde_json::Value>(bytes) {
        objects_only::<T>(&body)?;
    }
    Ok(value)
}

/// 422 naming the field where `body` gives an array for an object ([`strict`]).
fn objects_only<T: DeserializeOwned>(body: &serde_json::Value) -> Result<(), ApiError> {
    strict::check::<T>(body).map_err(|(path, message)| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid request",
            format!("{path}: {message}"),
        )
        .field(path)
    })
}

/// A body that does not deserialize: 400 when it is not JSON (`body` is the body as JSON,
/// `None` when it is not), 422 naming the field when a value is wrong. serde_json reports
/// some wrong values as syntax (a `[row, col]` with a third element: "trailing
/// characters"), so whether the body is JSON decides, not the error's kind.
fn invalid(
    e: serde_path_to_error::Error<serde_json::Error>,
    body: Option<&serde_json::Value>,
) -> ApiError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    let Some(body) = body else {
        return ApiError::new(StatusCode::BAD_REQUEST, "invalid JSON", inner.to_string());
    };
    let message = inner.to_string();
    // serde passes an instance's error up as text only: the instance is read again on its
    // own for the field inside it (`instance.queens[1]`).
    let field = match instance_field(&path, body) {
        Some(f) => format!("instance.{f}"),
        None => path.clone(),
    };
    let detail = if path == "." {
        message
    } else {
        format!("{path}: {message}")
    };
    ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid request", detail).field(field)
}

/// The field inside the request's instance that `path` (where deserializing stopped) fails
/// on, when it is the instance in the JSON format (an error in a `{"text": …}` instance is
/// about the instance as a whole, and says its line).
fn instance_field(path: &str, body: &serde_json::Value) -> Option<String> {
    let instance = body.get("instance").filter(|_| path == "instance")?;
    if instance.get("text").is_some() {
        return None;
    }
    crate::formats::problem_from_json(instance).err()?.field
}

/// A job body: `op` picks the operation, and the rest is read as that operation's request,
/// so an error names its field as on the synchronous endpoint (an internally tagged enum
/// would buffer the body and lose the path).
pub fn parse_job(bytes: &[u8]) -> Result<Request, ApiError> {
    let mut object = match parse_body::<crate::formats::StrictValue>(bytes)?.0 {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("parse_body accepts objects only"),
    };
    let op = match object.remove("op") {
        Some(serde_json::Value::String(op)) => op,
        other => {
            let detail = match other {
                None => "missing field `op`".to_string(),
                Some(v) => format!("expected a string, got {v}"),
            };
            return Err(
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid request", detail)
                    .field("op"),
            );
        }
    };
    let rest = serde_json::Value::Object(object);
    /// The rest of the body as the operation's request.
    struct Typed(serde_json::Value);
    impl crate::ops::ReadRequest<ApiError> for Typed {
        fn read<T: DeserializeOwned>(self) -> Result<T, ApiError> {
            let v = self.0;
            let value = serde_path_to_error::deserialize(&v).map_err(|e| invalid(e, Some(&v)))?;
            objects_only::<T>(&v)?;
            Ok(value)
        }
    }
    match Request::read_as(&op, Typed(rest)) {
        Some(req) => req,
        None => {
            let mut names = Request::names();
            let last = names.pop().unwrap_or_default();
            Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid request",
                format!("unknown op `{op}` (use {} or {last})", names.join(", ")),
            )
            .field("op"))
        }
    }
}

/// Runs the service until SIGINT or SIGTERM, then shuts down gracefully.
pub fn serve(config: Config) -> Result<(), crate::Error> {
    // Requests resolve solver names against the allowlist alone (and the workers' child
    // processes get it too).
    crate::engine::ext::configure(config.solvers.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("queens-http")
        .build()
        .map_err(|e| crate::Error::internal_from("starting the async runtime", e))?;
    let result: Result<AppState, crate::Error> = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| crate::Error::Io {
                path: config.addr.to_string().into(),
                source: e,
            })?;
        let addr = listener.local_addr().map_err(|e| crate::Error::Io {
            path: config.addr.to_string().into(),
            source: e,
        })?;
        let state = tokio::task::spawn_blocking(move || AppState::start(config))
            .await
            .map_err(|e| crate::Error::internal(e.to_string()))??;
        let app = routes::router(state.clone());
        // Tests and scripts read this line to find the port.
        if state.store.is_shared() {
            eprintln!(
                "queens: listening on http://{addr} (jobs in {}, as {})",
                state.store.origin(),
                state.store.owner()
            );
        } else {
            eprintln!(
                "queens: listening on http://{addr} (data in {})",
                state.config.data.display()
            );
        }
        // On the signal, work stops being accepted and the jobs get the grace period (event
        // streams end at once); once they are recorded, axum stops accepting and the
        // requests in flight get what is left of the grace (at least a second). Past that,
        // they are cut off: a request that ignores its deadline cannot keep the server up.
        let stopping = state.clone();
        let (drained, cut_off) = tokio::sync::oneshot::channel::<Instant>();
        let grace = state.config.shutdown_grace;
        // The client's address is the rate limit's key when there are no API keys.
        let server = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            let deadline = Instant::now() + grace;
            eprintln!(
                "queens: shutting down: running jobs and requests get {} s (--shutdown-grace)",
                grace.as_secs_f64()
            );
            let _ = tokio::task::spawn_blocking(move || stopping.shutdown()).await;
            let _ = drained.send(deadline.max(Instant::now() + Duration::from_secs(1)));
        });
        let cut_off = async move {
            match cut_off.await {
                Ok(at) => tokio::time::sleep_until(at.into()).await,
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            served = std::future::IntoFuture::into_future(server) => {
                served.map_err(|e| crate::Error::internal_from("the server failed", e))?;
            }
            () = cut_off => {
                eprintln!("queens: requests still open after --shutdown-grace are cut off");
            }
        }
        state.pool.close();
        Ok(state)
    });
    // Blocking tasks (store calls of requests that were cut off) get a second, not forever.
    runtime.shutdown_timeout(Duration::from_secs(1));
    // The store is dropped here, off the runtime: a Postgres client closes its connection
    // by blocking on a runtime of its own, which a runtime thread may not do.
    drop(result?);
    eprintln!("queens: stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
