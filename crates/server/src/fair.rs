//! Fairness between API keys in the job queue: the dispatcher gives a free job slot to the
//! key served least recently that has work queued and fewer than `--jobs-per-key` jobs
//! running here, its oldest job first. A flood of one key's jobs then delays another key's
//! job by at most the job running in each slot, not by the whole flood. Jobs without a key
//! (a server without `--api-keys`) are one key, bounded by the job slots alone.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::store::{Job, Store, StoreError};

/// The dispatcher's memory: jobs running here per key, and when each key was last served.
#[derive(Default)]
pub struct Fair {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    running: HashMap<Option<String>, usize>,
    /// The claim count at each key's last claim: lower goes first.
    served: HashMap<Option<String>, u64>,
    claims: u64,
}

impl Fair {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims the next job by the rule above, or `None` when no key with queued work may
    /// run one more. At most `per_key` jobs of one key run here at once.
    pub fn claim(&self, store: &Store, per_key: usize) -> Result<Option<Job>, StoreError> {
        let mut keys = store.queued_keys()?;
        {
            let inner = self.lock();
            keys.retain(|(key, _)| {
                key.is_none() || inner.running.get(key).copied().unwrap_or(0) < per_key
            });
            keys.sort_by_key(|(key, first)| (inner.served.get(key).copied().unwrap_or(0), *first));
        }
        for (key, _) in keys {
            // Another replica may have taken that key's last job meanwhile: try the next key.
            if let Some(job) = store.claim_next_of(key.as_deref())? {
                let mut inner = self.lock();
                inner.claims += 1;
                let tick = inner.claims;
                inner.served.insert(key.clone(), tick);
                *inner.running.entry(key).or_default() += 1;
                return Ok(Some(job));
            }
        }
        Ok(None)
    }

    /// A job of `key` that [`Fair::claim`] gave out has ended here.
    pub fn finished(&self, key: &Option<String>) {
        let mut inner = self.lock();
        if let Some(n) = inner.running.get_mut(key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                inner.running.remove(key);
            }
        }
        // Keys served long ago and idle since need no memory: lowest goes first anyway.
        if inner.served.len() > 10_000 {
            let running = inner.running.keys().cloned().collect::<Vec<_>>();
            inner.served.retain(|k, _| running.contains(k));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flooding_key_waits_its_turn_and_its_running_jobs_are_bounded() {
        let store = Store::open_in_memory().unwrap();
        let fair = Fair::default();
        for _ in 0..5 {
            store.insert_for("solve", "{}", 100, Some("flood")).unwrap();
        }
        store.insert_for("solve", "{}", 100, Some("small")).unwrap();
        // The flood's first job is the oldest: it goes first.
        let first = fair.claim(&store, 2).unwrap().unwrap();
        assert_eq!(first.key.as_deref(), Some("flood"));
        // Then the key not served yet, although the flood's jobs came before it.
        let second = fair.claim(&store, 2).unwrap().unwrap();
        assert_eq!(second.key.as_deref(), Some("small"));
        let third = fair.claim(&store, 2).unwrap().unwrap();
        assert_eq!(third.key.as_deref(), Some("flood"));
        // Two of the flood's jobs run: it may run no more until one ends.
        assert!(fair.claim(&store, 2).unwrap().is_none());
        fair.finished(&first.key);
        let fourth = fair.claim(&store, 2).unwrap().unwrap();
        assert_eq!(fourth.key.as_deref(), Some("flood"));
    }
}
