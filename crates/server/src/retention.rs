//! What keeps finished work from filling the disk, and how a job stopped by the server (not
//! by its client) is recorded.
//!
//! - Retention: one thread per server removes the jobs that finished more than
//!   `--keep-finished` ago, with their files (`Store::delete_finished`: each expired job is
//!   removed by one replica only), and the job folders of the artifacts folder that no job
//!   of the store owns any more (a server killed between a delete and its files).
//! - The artifacts quota (`--max-artifacts-total`): the folder's size is measured (at most
//!   once a second); a new proof job is refused with 507 while it is at or over the quota,
//!   and a proof being written when the folder passes it is stopped, its file removed, and
//!   its job failed with 507: a proof is served whole or not at all.
//! - A job the server stops ([`Halt`]): at the end of `--shutdown-grace`, it goes back to the
//!   queue of a shared store (another replica runs it now) or, on SQLite, fails as
//!   `interrupted`; over the quota, it fails with 507.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use axum::http::StatusCode;

use super::error::ApiError;
use super::quota::MEASURE_EVERY;
use super::state::AppState;
use super::store::StoreError;
use queens_ops::Request;

/// Expired jobs removed by one statement; a sweep repeats it until fewer come back.
const BATCH: usize = 500;

/// Why the server, not the client, stopped a running job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Halt {
    /// The server is shutting down and `--shutdown-grace` has passed.
    Shutdown,
    /// The artifacts folder passed `--max-artifacts-total` while the job wrote its proof.
    Quota,
}

/// Whether a job writes its proof to the artifacts folder as it runs.
pub(super) fn streams_proof(req: &Request) -> bool {
    req.wants_proof()
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
}

/// 507 for a new proof job while the artifacts folder is at or over its quota.
pub(super) fn admit(state: &AppState, req: &Request) -> Result<(), ApiError> {
    let Some(limit) = state.quota.limit.filter(|_| streams_proof(req)) else {
        return Ok(());
    };
    let used = state.quota.used(&state.config.artifacts);
    if used < limit {
        return Ok(());
    }
    let mut e = ApiError::new(
        StatusCode::INSUFFICIENT_STORAGE,
        "artifacts quota reached",
        format!(
            "the artifacts folder holds {} of this server's {} for proofs \
             (--max-artifacts-total): no proof job is accepted until finished jobs are deleted \
             (DELETE /v1/jobs/{{id}}) or expire (--keep-finished); jobs without a proof are \
             accepted",
            mb(used),
            mb(limit)
        ),
    )
    .field("proof");
    e.retry_after = Some(60);
    Err(e)
}

/// The folder of job `id`'s files in the artifacts folder, if `id` is a plain name (the
/// store makes ids; this keeps any other out of the path).
pub(super) fn job_folder(artifacts: &Path, id: &str) -> Option<PathBuf> {
    let plain = !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    plain.then(|| artifacts.join(id))
}

/// Removes job `id`'s folder of the artifacts folder, if it has one.
pub(super) fn remove_files(artifacts: &Path, id: &str) {
    let Some(folder) = job_folder(artifacts, id) else {
        return;
    };
    match std::fs::remove_dir_all(&folder) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::error!(path = %folder.display(), error = %e, "removing a job's files failed")
        }
    }
}

/// Why the server stopped the running job `id`, if it did (`None`: its client cancelled it).
pub(super) fn halted(state: &AppState, id: &str) -> Option<Halt> {
    if state.quota.take(id) {
        Some(Halt::Quota)
    } else if state.shutting_down.load(Ordering::SeqCst) {
        Some(Halt::Shutdown)
    } else {
        None
    }
}

/// Records the end of a running job the server stopped (its files are already gone).
pub(super) fn record(state: &AppState, id: &str, halt: Halt) -> Result<(), StoreError> {
    let problem = match halt {
        // Another replica claims it at once; nothing of this attempt is kept.
        Halt::Shutdown if state.store.is_shared() => {
            state.store.requeue(id)?;
            return Ok(());
        }
        Halt::Shutdown => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "interrupted",
            format!(
                "the server shut down while the job ran, and it did not finish within \
                 --shutdown-grace ({} s): submit it again",
                state.config.shutdown_grace.as_secs_f64()
            ),
        ),
        Halt::Quota => ApiError::new(
            StatusCode::INSUFFICIENT_STORAGE,
            "artifacts quota reached",
            format!(
                "the artifacts folder passed this server's {} for proofs \
                 (--max-artifacts-total) while the job wrote its proof: the partial proof was \
                 removed; delete finished jobs (DELETE /v1/jobs/{{id}}) and submit it again",
                mb(state.quota.limit.unwrap_or(0))
            ),
        ),
    };
    let text = serde_json::to_string(&problem.problem).unwrap_or_default();
    state.store.fail(id, &text)?;
    Ok(())
}

/// The retention thread: runs until the server shuts down.
pub(super) fn keep(state: AppState) {
    let period = sweep_period(state.config.keep_finished);
    let mut next_sweep = Instant::now();
    while !state.shutting_down.load(Ordering::SeqCst) {
        if state.quota.limit.is_some() {
            enforce_quota(&state);
        }
        if Instant::now() >= next_sweep {
            next_sweep = Instant::now() + period;
            sweep(&state);
        }
        let until = Instant::now() + MEASURE_EVERY;
        while Instant::now() < until && !state.shutting_down.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// How often expired jobs are looked for: a quarter of `--keep-finished`, from a second to
/// a minute.
pub(super) fn sweep_period(keep: Duration) -> Duration {
    (keep / 4).clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// Removes the expired jobs with their files, then the folders no job owns.
fn sweep(state: &AppState) {
    let mut removed = 0;
    loop {
        match state
            .store
            .delete_finished(state.config.keep_finished, BATCH)
        {
            Ok(ids) => {
                for id in &ids {
                    remove_files(&state.config.artifacts, id);
                }
                removed += ids.len();
                if ids.len() < BATCH {
                    break;
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "removing expired jobs failed");
                return;
            }
        }
    }
    if removed > 0 {
        tracing::info!(
            jobs = removed,
            "finished jobs older than --keep-finished removed with their files"
        );
    }
    remove_orphans(state);
}

/// Removes the job folders of the artifacts folder whose job is not in the store. A job's
/// row is stored before its folder is made, so such a folder belongs to a deleted job.
fn remove_orphans(state: &AppState) {
    let Ok(entries) = std::fs::read_dir(&state.config.artifacts) else {
        return;
    };
    let folders: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| is_job_id(name))
        .collect();
    if folders.is_empty() {
        return;
    }
    let known: HashSet<String> = match state.store.existing(&folders) {
        Ok(ids) => ids.into_iter().collect(),
        Err(e) => {
            tracing::error!(error = %e, "looking up the jobs of the artifacts folder failed");
            return;
        }
    };
    for id in folders.iter().filter(|id| !known.contains(*id)) {
        tracing::info!(job = %id, "removing the files of a job that is no longer stored");
        remove_files(&state.config.artifacts, id);
    }
}

/// A job id as the stores make them: 32 lowercase hex digits.
fn is_job_id(name: &str) -> bool {
    name.len() == 32 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Over the quota: stops this server's running jobs that are writing a proof.
fn enforce_quota(state: &AppState) {
    let Some(limit) = state.quota.limit else {
        return;
    };
    let used = state.quota.used(&state.config.artifacts);
    if used <= limit {
        return;
    }
    let running = state.running.lock().unwrap_or_else(|e| e.into_inner());
    for (id, flag) in running.iter() {
        let writing = job_folder(&state.config.artifacts, id).is_some_and(|folder| folder.is_dir());
        if writing && !flag.load(Ordering::SeqCst) {
            tracing::warn!(job = %id, used, limit, "the artifacts folder passed its quota: stopping a proof");
            state
                .quota
                .stopped
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id.clone());
            flag.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_come_four_times_a_retention_within_a_second_and_a_minute() {
        assert_eq!(sweep_period(Duration::from_secs(2)), Duration::from_secs(1));
        assert_eq!(
            sweep_period(Duration::from_secs(120)),
            Duration::from_secs(30)
        );
        assert_eq!(
            sweep_period(Duration::from_secs(7 * 86_400)),
            Duration::from_secs(60)
        );
    }

    #[test]
    fn only_job_folders_are_orphans() {
        assert!(is_job_id("0123456789abcdef0123456789abcdef"));
        assert!(!is_job_id("0123456789ABCDEF0123456789abcdef"));
        assert!(!is_job_id("lost+found"));
        assert!(!is_job_id("0123456789abcdef"));
    }
}
