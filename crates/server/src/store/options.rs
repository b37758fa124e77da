//! How a store is opened and named: its options, the URL of a shared one (and that URL fit
//! for messages), and the name of the process that owns its claims.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How a store behaves, whichever the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// How long a claim (or its last renewal) holds a running job for its owner.
    pub lease: Duration,
    /// The largest result or artifact stored, in bytes; a larger one fails the job instead of
    /// being stored cut short.
    pub max_artifact: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            lease: Duration::from_secs(30),
            max_artifact: 512 << 20,
        }
    }
}

/// Whether `spec` names a Postgres database.
pub fn is_postgres(spec: &str) -> bool {
    spec.starts_with("postgres://") || spec.starts_with("postgresql://")
}

/// `spec` without a password (`postgres://user:***@host/db`), for messages and logs.
pub fn redact(spec: &str) -> String {
    let Some((scheme, rest)) = spec.split_once("://") else {
        return spec.to_string();
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((name, _)) => format!("{scheme}://{name}:***@{host}{tail}"),
            None => spec.to_string(),
        },
        None => spec.to_string(),
    }
}

/// A name for one store instance that says where it runs: the host (the pod's name under
/// Kubernetes), the process and a counter, so two stores in one process differ too.
pub(super) fn owner() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .unwrap_or_else(|| "localhost".to_string());
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{host}/{}/{}-{nanos:x}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}
