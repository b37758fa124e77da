//! The bounded pool of worker threads that runs all solving: CPU-bound work never runs on
//! the async runtime's threads.
//!
//! Two queues share the workers. Synchronous requests wait in a bounded queue (full: the
//! caller answers 503) and are always taken first; jobs get at most `job_slots` workers, so
//! a backlog of long jobs never starves the synchronous endpoints.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

type Task = Box<dyn FnOnce() + Send + 'static>;

#[derive(Default)]
struct Queues {
    sync: VecDeque<Task>,
    jobs: VecDeque<Task>,
    jobs_running: usize,
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

/// The synchronous queue is full.
#[derive(Debug)]
pub struct Full;

impl Pool {
    /// Starts `workers` threads with room for `capacity` waiting synchronous requests; jobs
    /// use at most `workers - 1` of them (at least one).
    pub fn new(workers: usize, capacity: usize) -> Arc<Pool> {
        let workers = workers.max(1);
        let pool = Arc::new(Pool {
            queues: Mutex::new(Queues::default()),
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
                .spawn(move || pool.work())
                .expect("starting a worker thread");
        }
        pool
    }

    fn lock(&self) -> MutexGuard<'_, Queues> {
        // A task that panicked poisons nothing we rely on: the queues stay consistent.
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn work(&self) {
        loop {
            let (task, is_job) = {
                let mut q = self.lock();
                loop {
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
                }
            };
            self.busy.fetch_add(1, Ordering::Relaxed);
            // A panicking task must not take the worker with it.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(task));
            self.busy.fetch_sub(1, Ordering::Relaxed);
            if is_job {
                self.lock().jobs_running -= 1;
                self.job_done.notify_all();
            }
        }
    }

    /// Queues a synchronous request's work, or refuses when the queue is full.
    pub fn try_submit(&self, task: impl FnOnce() + Send + 'static) -> Result<(), Full> {
        let mut q = self.lock();
        if q.closed || q.sync.len() >= self.capacity {
            return Err(Full);
        }
        q.sync.push_back(Box::new(task));
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

    /// Runs a job in a slot reserved by [`Pool::reserve_job_slot`].
    pub fn run_job(&self, task: impl FnOnce() + Send + 'static) {
        self.lock().jobs.push_back(Box::new(task));
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
