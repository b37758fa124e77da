//! Long runs that keep what they finished when interrupted (`compare`, `batch`, a count
//! shard): the first SIGINT, SIGTERM or SIGHUP sets the run's cancel flag instead of ending
//! the process; the run stops its work, writes every finished row, says it was interrupted
//! and exits [`EXIT`]. A second signal ends the process at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The exit code of an interrupted run (128 + SIGINT, as a shell reports Ctrl-C).
pub const EXIT: u8 = 130;

/// Watches for the signal while it lives, and sets [`Interrupt::flag`] when it comes.
pub struct Interrupt {
    flag: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    watcher: Option<JoinHandle<()>>,
}

impl Interrupt {
    /// Takes over the stop signals for this run, setting `flag` on the first one.
    pub fn watch(flag: Arc<AtomicBool>) -> Interrupt {
        queens::child::finish_on_signals();
        let done = Arc::new(AtomicBool::new(false));
        let (set, finished) = (Arc::clone(&flag), Arc::clone(&done));
        // A signal handler may only touch atomics: this thread passes the recorded signal
        // on to the run's own flag, which its workers and children's watchers poll.
        let watcher = std::thread::Builder::new()
            .name("queens-interrupt".into())
            .spawn(move || {
                while !finished.load(Ordering::Relaxed) {
                    if queens::child::interrupted().is_some() {
                        set.store(true, Ordering::SeqCst);
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
            .ok();
        Interrupt {
            flag,
            done,
            watcher,
        }
    }

    /// The run's cancel flag.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.flag
    }

    /// The signal that interrupted the run, if one did.
    pub fn signal(&self) -> Option<&'static str> {
        queens::child::interrupted()
    }
}

impl Drop for Interrupt {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }
}
