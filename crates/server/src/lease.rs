//! The lease keeper: one thread per server that, every third of the lease (at most every
//! second), renews the leases of the jobs this server runs, stops the ones it no longer owns
//! (cancelled from another replica, or taken away after this server was cut off for longer
//! than a lease), and puts back in the queue the jobs whose owner stopped renewing.
//!
//! Cancels and lost leases are found by polling the store, not LISTEN/NOTIFY: one query a
//! second per replica works the same on SQLite and Postgres, and survives a dropped
//! connection without a resubscription.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::state::AppState;

/// How often the keeper runs for a given lease.
pub(super) fn period(lease: Duration) -> Duration {
    (lease / 3).min(Duration::from_secs(1))
}

/// Runs until the server shuts down.
pub(super) fn keep(state: AppState) {
    let period = period(state.config.lease);
    let mut next = Instant::now() + period;
    while !state.shutting_down.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now < next {
            std::thread::sleep((next - now).min(Duration::from_millis(100)));
            continue;
        }
        next = now + period;
        renew(&state);
        match state.store.requeue_expired() {
            Ok(ids) if !ids.is_empty() => {
                tracing::warn!(
                    jobs = ids.len(),
                    ids = ?ids,
                    "jobs whose owner stopped renewing its lease go back to the queue"
                );
                state.metrics.requeued(ids.len());
                state.wake_dispatcher();
            }
            Ok(_) => {}
            Err(e) => {
                state.metrics.store_error();
                tracing::error!(error = %e, "requeueing expired jobs failed");
            }
        }
    }
}

/// Renews this server's leases and stops the jobs it runs that are no longer its own.
fn renew(state: &AppState) {
    // The jobs registered before the renewal: each was claimed before it was registered, so
    // a renewal that does not return it means the store no longer has it as ours. A job
    // registered after this snapshot is left for the next round.
    let before: Vec<String> = state
        .running
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .keys()
        .cloned()
        .collect();
    let ours: HashSet<String> = match state.store.renew() {
        Ok(ids) => ids.into_iter().collect(),
        Err(e) => {
            state.metrics.store_error();
            tracing::error!(error = %e, "renewing the leases of running jobs failed");
            return;
        }
    };
    let running = state.running.lock().unwrap_or_else(|e| e.into_inner());
    for id in before.iter().filter(|id| !ours.contains(*id)) {
        if let Some(flag) = running.get(id) {
            tracing::info!(job = %id, "the job is no longer this server's (cancelled or taken over): stopping it");
            flag.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renewals_come_three_times_a_lease_and_at_least_every_second() {
        assert_eq!(
            period(Duration::from_millis(900)),
            Duration::from_millis(300)
        );
        assert_eq!(period(Duration::from_secs(30)), Duration::from_secs(1));
    }
}
