//! The HTTP service (`queens serve`): an axum router over one [`AppState`], calling the
//! operations layer ([`queens_ops`]) on a bounded pool of worker threads.
//!
//! - `routes.rs`: the synchronous endpoints (`/v1/solve`, …), health, metrics, OpenAPI, and
//!   the `/play` page (`static/play.html`, embedded).
//! - `jobs.rs`: long work as jobs, stored before they are accepted, run by a dispatcher.
//! - `config.rs`: `queens serve`'s flags and the [`Config`] they make; `state.rs`: the
//!   [`AppState`] every handler shares; `body.rs`: request bodies and their 400/422s;
//!   `admit.rs`: the checks a request passes before it is queued; `call.rs`: a synchronous
//!   call on a worker within the time limit.
//! - `workers.rs`: the worker pool; `store/`: the job store, SQLite or a Postgres that replicas
//!   share (the only modules that speak SQL); `lease.rs`: renews this server's claims and
//!   requeues the jobs of replicas that stopped renewing theirs; `retention.rs`: expiry of
//!   finished jobs and their files, and jobs stopped at shutdown or over the artifacts quota
//!   (`quota.rs`); `error.rs`: every error response as problem+json; `contract.rs`: completes
//!   the OpenAPI document (error bodies, the statuses every route shares, the job body's
//!   schema); `metrics.rs`: Prometheus counters; `cors.rs`: the headers that let pages of
//!   other origins call the API (`--cors-origin`).
//!
//! This file starts the server ([`AppState::start`], [`serve`]) and stops it
//! ([`AppState::shutdown`]); the files it declares never use it.

mod admit;
pub mod auth;
mod body;
mod bounds;
mod call;
mod config;
mod contract;
mod cors;
mod error;
mod fair;
mod jobs;
mod lease;
mod metrics;
mod quota;
mod requests;
mod retention;
mod routes;
mod state;
pub mod store;
mod strict;
mod workers;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

pub use body::{parse_body, parse_job, JsonBody, RawBody};
pub use config::{Config, ServeArgs};
pub use error::{ApiError, Problem};
pub use state::{AppState, Shared};

use fair::Fair;
use metrics::Metrics;
use quota::Quota;
use store::Store;
use workers::Pool;

/// Takes the data folder for this server alone: a second server on the same folder would
/// re-run the first one's running jobs as if they had been left by a crash.
fn lock_data(dir: &std::path::Path) -> Result<std::fs::File, queens_model::Error> {
    let io = |source| queens_model::Error::Io {
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
            queens_model::Error::unsupported(format!(
                "{} is in use by another queens serve (--data): give each server its own folder",
                dir.display()
            ))
        },
    )?;
    Ok(file)
}

impl AppState {
    /// Opens the store (re-queueing jobs a crash left running) and starts the workers and
    /// the job dispatcher.
    pub fn start(config: Config) -> Result<AppState, queens_model::Error> {
        std::fs::create_dir_all(&config.artifacts).map_err(|e| queens_model::Error::Io {
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
                queens_model::Error::Io {
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
                .map_err(|e| queens_model::Error::internal(e.to_string()))?
        };
        if requeued > 0 {
            tracing::info!(
                requeued,
                "jobs left running by the last run go back to the queue"
            );
        }
        let quota = config.max_artifacts_total;
        let state = AppState(std::sync::Arc::new(Shared {
            pool: Pool::new(config.workers, config.queue),
            config,
            store,
            metrics: Metrics::default(),
            running: Mutex::new(HashMap::new()),
            shutting_down: AtomicBool::new(false),
            job_signal: (Mutex::new(false), Condvar::new()),
            quota: Quota::new(quota),
            fair: Fair::default(),
            _lock: lock,
        }));
        let dispatcher = state.clone();
        std::thread::Builder::new()
            .name("queens-jobs".into())
            .spawn(move || jobs::dispatch(dispatcher))
            .map_err(|e| queens_model::Error::internal_from("starting the job dispatcher", e))?;
        let keeper = state.clone();
        std::thread::Builder::new()
            .name("queens-leases".into())
            .spawn(move || lease::keep(keeper))
            .map_err(|e| queens_model::Error::internal_from("starting the lease keeper", e))?;
        let keeper = state.clone();
        std::thread::Builder::new()
            .name("queens-retention".into())
            .spawn(move || retention::keep(keeper))
            .map_err(|e| queens_model::Error::internal_from("starting the retention thread", e))?;
        Ok(state)
    }

    /// Graceful shutdown, bounded: no new job starts and no new work is accepted; running
    /// jobs get `--shutdown-grace` to finish, then are stopped and recorded as
    /// `retention::record` says (back in a shared store's queue, or failed as interrupted
    /// on SQLite). A job that does not stop within `HAND_BACK` of its cancel is recorded
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

/// Runs the service until SIGINT or SIGTERM, then shuts down gracefully.
pub fn serve(config: Config) -> Result<(), queens_model::Error> {
    // Requests resolve solver names against the allowlist alone (and the workers' child
    // processes get it too).
    queens_engine::ext::configure(config.solvers.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("queens-http")
        .build()
        .map_err(|e| queens_model::Error::internal_from("starting the async runtime", e))?;
    let result: Result<AppState, queens_model::Error> = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| queens_model::Error::Io {
                path: config.addr.to_string().into(),
                source: e,
            })?;
        let addr = listener.local_addr().map_err(|e| queens_model::Error::Io {
            path: config.addr.to_string().into(),
            source: e,
        })?;
        let state = tokio::task::spawn_blocking(move || AppState::start(config))
            .await
            .map_err(|e| queens_model::Error::internal(e.to_string()))??;
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
                served.map_err(|e| queens_model::Error::internal_from("the server failed", e))?;
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
