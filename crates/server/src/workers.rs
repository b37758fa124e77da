//! The bounded pool of worker threads that runs all solving: CPU-bound work never runs on
//! the async runtime's threads.
//!
//! Two queues share the workers. Synchronous requests wait in a bounded queue (full: the
//! caller answers 503) and are always taken first; jobs get at most `job_slots` workers, so
//! a backlog of long jobs never starves the synchronous endpoints.
//!
//! Every task carries its deadline, and the pool knows until when each worker may be busy:
//! a synchronous request that no worker could start before its own deadline, even if every
//! task ahead of it ran to its limit, is refused at once ([`Refused::Late`], with the time
//! until a worker is sure to be free) instead of waiting to time out.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

type Task = Box<dyn FnOnce() + Send + 'static>;

/// A queued task and the time by which it ends at the latest (`None`: no limit known).
struct Entry {
    task: Task,
    deadline: Option<Instant>,
}

#[derive(Default)]
struct Queues {
    sync: VecDeque<Entry>,
    jobs: VecDeque<Entry>,
    jobs_running: usize,
    /// Per worker: `None` when idle, else the deadline of the task it runs (`Some(None)`:
    /// a task without one).
    running: Vec<Option<Option<Instant>>>,
    closed: bool,
}

/// The pool. Cloning the `Arc` shares it.
pub struct Pool {
    queues: Mutex<Queues>,
    wake: Condvar,
    /// Signalled when a job finishes, for the job dispatcher waiting for a slot.
    job_done: Condvar,
    workers: usize,
    capacity: usize,
    job_slots: usize,
    busy: AtomicUsize,
}

/// Why a synchronous request was not queued.
#[derive(Debug)]
pub enum Refused {
    /// The queue is full (or the pool is closing).
    Full,
    /// No worker can start it before its deadline; one is sure to be free after this long.
    Late(Duration),
}

impl Pool {
    /// Starts `workers` threads with room for `capacity` waiting synchronous requests; jobs
    /// use at most `workers - 1` of them (at least one).
    pub fn new(workers: usize, capacity: usize) -> Arc<Pool> {
        let workers = workers.max(1);
        let pool = Arc::new(Pool {
            queues: Mutex::new(Queues {
                running: vec![None; workers],
                ..Queues::default()
            }),
            wake: Condvar::new(),
            job_done: Condvar::new(),
            workers,
            capacity,
            job_slots: workers.saturating_sub(1).max(1),
            busy: AtomicUsize::new(0),
        });
        for i in 0..workers {
            let pool = Arc::clone(&pool);
            std::thread::Builder::new()
                .name(format!("queens-worker-{i}"))
                .spawn(move || pool.work(i))
                .expect("starting a worker thread");
        }
        pool
    }

    fn lock(&self) -> MutexGuard<'_, Queues> {
        // A task that panicked poisons nothing we rely on: the queues stay consistent.
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self, me: usize) {
        loop {
            let (task, is_job) = {
                let mut q = self.lock();
                let (entry, is_job) = loop {
                    if let Some(t) = q.sync.pop_front() {
                        break (t, false);
                    }
                    if let Some(t) = q.jobs.pop_front() {
                        break (t, true);
                    }
                    if q.closed {
                        return;
                    }
                    q = self.wake.wait(q).unwrap_or_else(|e| e.into_inner());
                };
                q.running[me] = Some(entry.deadline);
                (entry.task, is_job)
            };
            self.busy.fetch_add(1, Ordering::Relaxed);
            // A panicking task must not take the worker with it.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            self.busy.fetch_sub(1, Ordering::Relaxed);
            let mut q = self.lock();
            q.running[me] = None;
            if is_job {
                q.jobs_running -= 1;
                drop(q);
                self.job_done.notify_all();
            }
        }
    }

    /// Queues a synchronous request's work that must end by `deadline`; refuses when the
    /// queue is full, or when no worker can start it before `deadline` (every worker held
    /// by a job, or by tasks whose deadlines, with those of the tasks queued ahead, come
    /// later). The task itself should check that its deadline has not passed when it starts.
    pub fn submit_by(
        &self,
        deadline: Instant,
        task: impl FnOnce() + Send + 'static,
    ) -> Result<(), Refused> {
        let mut q = self.lock();
        if q.closed || q.sync.len() >= self.capacity {
            return Err(Refused::Full);
        }
        let now = Instant::now();
        let start = earliest_start(&q, now);
        if start >= deadline {
            return Err(Refused::Late(start.saturating_duration_since(now)));
        }
        q.sync.push_back(Entry {
            task: Box::new(task),
            deadline: Some(deadline),
        });
        drop(q);
        self.wake.notify_one();
        Ok(())
    }

    /// Blocks until a job slot is free (or `timeout` passes: false), then reserves it. The
    /// reserved slot must be filled with [`Pool::run_job`] or given back with
    /// [`Pool::release_job_slot`].
    pub fn reserve_job_slot(&self, timeout: std::time::Duration) -> bool {
        let q = self.lock();
        let (mut q, _) = self
            .job_done
            .wait_timeout_while(q, timeout, |q| {
                !q.closed && q.jobs_running >= self.job_slots
            })
            .unwrap_or_else(|e| e.into_inner());
        if q.closed || q.jobs_running >= self.job_slots {
            return false;
        }
        q.jobs_running += 1;
        true
    }

    /// Gives back a slot reserved by [`Pool::reserve_job_slot`] that got no job.
    pub fn release_job_slot(&self) {
        self.lock().jobs_running -= 1;
        self.job_done.notify_all();
    }

    /// Runs a job that ends by `deadline` in a slot reserved by [`Pool::reserve_job_slot`].
    pub fn run_job(&self, deadline: Option<Instant>, task: impl FnOnce() + Send + 'static) {
        self.lock().jobs.push_back(Entry {
            task: Box::new(task),
            deadline,
        });
        self.wake.notify_one();
    }

    /// Synchronous requests waiting for a worker.
    pub fn queued(&self) -> usize {
        self.lock().sync.len()
    }

    /// Workers running a task now.
    pub fn busy(&self) -> usize {
        self.busy.load(Ordering::Relaxed)
    }

    /// Worker threads.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Room in the synchronous queue.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Stops taking work: queued tasks still run, then the workers exit.
    pub fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
        self.job_done.notify_all();
    }
}

/// When a worker is sure to be free for a synchronous request queued now: every running
/// task and every synchronous task queued ahead taken to run until its deadline, each
/// queued task on the worker free first. Jobs queued for a slot do not count: synchronous
/// work goes first.
fn earliest_start(q: &Queues, now: Instant) -> Instant {
    // A worker whose task has no deadline is never sure to be free: a day stands for never.
    let never = now + Duration::from_secs(86_400);
    let mut free: Vec<Instant> = q
        .running
        .iter()
        .map(|r| match r {
            None => now,
            Some(None) => never,
            // A task past its deadline is stopping.
            Some(Some(t)) => (*t).max(now),
        })
        .collect();
    for entry in &q.sync {
        if let Some(first) = free.iter_mut().min() {
            *first = entry.deadline.unwrap_or(never).max(*first);
        }
    }
    free.into_iter().min().unwrap_or(never)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_no_worker_can_start_in_time_is_refused_at_once() {
        let pool = Pool::new(1, 8);
        let (hold, release) = std::sync::mpsc::channel::<()>();
        let (started, wait_started) = std::sync::mpsc::channel::<()>();
        let long = Instant::now() + Duration::from_secs(5);
        pool.submit_by(long, move || {
            let _ = started.send(());
            let _ = release.recv();
        })
        .unwrap();
        wait_started.recv().unwrap();
        // The worker may be busy until `long`: a request due sooner cannot start in time.
        let soon = Instant::now() + Duration::from_millis(500);
        match pool.submit_by(soon, || {}) {
            Err(Refused::Late(wait)) => {
                assert!(wait > Duration::from_secs(3) && wait <= Duration::from_secs(5))
            }
            other => panic!("expected Late, got {other:?}"),
        }
        // One due after it can: it waits.
        let (done, wait_done) = std::sync::mpsc::channel::<()>();
        pool.submit_by(long + Duration::from_secs(1), move || {
            let _ = done.send(());
        })
        .unwrap();
        // A third would start only after the second's deadline, past its own.
        assert!(matches!(
            pool.submit_by(long + Duration::from_millis(500), || {}),
            Err(Refused::Late(_))
        ));
        drop(hold);
        wait_done.recv_timeout(Duration::from_secs(5)).unwrap();
        pool.close();
    }

    #[test]
    fn a_full_queue_is_refused() {
        let pool = Pool::new(1, 1);
        let (hold, release) = std::sync::mpsc::channel::<()>();
        let (started, wait_started) = std::sync::mpsc::channel::<()>();
        let far = Instant::now() + Duration::from_secs(60);
        pool.submit_by(far, move || {
            let _ = started.send(());
            let _ = release.recv();
        })
        .unwrap();
        wait_started.recv().unwrap();
        pool.submit_by(far + Duration::from_secs(60), || {})
            .unwrap();
        assert!(matches!(
            pool.submit_by(far + Duration::from_secs(120), || {}),
            Err(Refused::Full)
        ));
        drop(hold);
        pool.close();
    }
}
