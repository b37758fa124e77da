//! The artifacts quota (`--max-artifacts-total`): the folder's size, measured at most once a
//! second, and the running jobs this server stopped for it.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the artifacts folder is measured and the quota enforced.
pub(super) const MEASURE_EVERY: Duration = Duration::from_secs(1);

/// The artifacts quota and the folder's last measured size.
pub(super) struct Quota {
    /// `--max-artifacts-total`, bytes.
    pub(super) limit: Option<u64>,
    used: AtomicU64,
    measured: Mutex<Option<Instant>>,
    /// Running jobs this server stopped for the quota.
    pub(super) stopped: Mutex<HashSet<String>>,
}

impl Quota {
    pub(super) fn new(limit: Option<u64>) -> Quota {
        Quota {
            limit,
            used: AtomicU64::new(0),
            measured: Mutex::new(None),
            stopped: Mutex::new(HashSet::new()),
        }
    }

    /// The artifacts folder's size, measured at most once every [`MEASURE_EVERY`].
    pub(super) fn used(&self, artifacts: &Path) -> u64 {
        let mut measured = self.measured.lock().unwrap_or_else(|e| e.into_inner());
        if measured.is_none_or(|at| at.elapsed() >= MEASURE_EVERY) {
            // A proof streams into a folder of its job's folder (`<id>/.queens-op-…/proof`).
            self.used
                .store(folder_size(artifacts, 3), Ordering::Relaxed);
            *measured = Some(Instant::now());
        }
        self.used.load(Ordering::Relaxed)
    }

    /// Whether this server stopped job `id` for the quota (and forgets it).
    pub(super) fn take(&self, id: &str) -> bool {
        self.stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
    }
}

/// The bytes of the files under `dir` and its folders, `depth` levels down.
pub(super) fn folder_size(dir: &Path, depth: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| match entry.metadata() {
            Ok(m) if m.is_dir() && depth > 0 => folder_size(&entry.path(), depth - 1),
            Ok(m) if m.is_file() => m.len(),
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_size_counts_the_files_of_job_folders() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a").join("proof"), vec![0u8; 1000]).unwrap();
        std::fs::write(dir.path().join("a").join("cnf"), vec![0u8; 24]).unwrap();
        std::fs::write(dir.path().join("loose"), vec![0u8; 7]).unwrap();
        assert_eq!(folder_size(dir.path(), 2), 1031);
        assert_eq!(folder_size(&dir.path().join("none"), 2), 0);
    }
}
