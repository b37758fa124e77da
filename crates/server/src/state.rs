//! What every handler shares: one [`AppState`], a cheap handle on the server's [`Shared`]
//! parts (its configuration, worker pool, store, metrics, running jobs, quota).

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex};

use super::config::Config;
use super::metrics::Metrics;
use super::quota::Quota;
use super::store::Store;
use super::workers::Pool;
use super::Fair;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState(pub(crate) Arc<Shared>);

/// The shared parts of [`AppState`].
pub struct Shared {
    pub(crate) config: Config,
    pub(crate) pool: Arc<Pool>,
    pub(crate) store: Store,
    pub(crate) metrics: Metrics,
    /// Cancel flags of the jobs running now, by id.
    pub(crate) running: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Set on SIGTERM/SIGINT: no new jobs start, running ones go back to the queue.
    pub(crate) shutting_down: AtomicBool,
    /// Wakes the job dispatcher when a job is submitted.
    pub(crate) job_signal: (Mutex<bool>, Condvar),
    /// The artifacts quota (retention.rs).
    pub(crate) quota: Quota,
    /// Which key's job runs next ([`fair`]).
    pub(crate) fair: Fair,
    /// The data folder's lock, held while the server runs (SQLite only: replicas share a
    /// Postgres store).
    pub(crate) _lock: Option<std::fs::File>,
}

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// Wakes the job dispatcher.
    pub(crate) fn wake_dispatcher(&self) {
        let (lock, cv) = &self.job_signal;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
    }
}
