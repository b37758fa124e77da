//! Counters for `GET /metrics` in the Prometheus text format: requests by route and status,
//! queue depth, busy workers, jobs by status, queued and running jobs by operation with the
//! oldest queued job's age, and a histogram of operation times.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Upper bounds (seconds) of the operation-time histogram's buckets.
const BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 1.0, 5.0, 30.0, 300.0,
];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

/// The service's counters.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    ops: Mutex<BTreeMap<String, Histogram>>,
    /// Jobs this server found with an expired lease and put back in the queue.
    requeued: AtomicU64,
    /// Failed calls of the lease keeper to the job store.
    store_errors: AtomicU64,
}

/// Gauges read at render time.
pub struct Gauges {
    /// Synchronous requests waiting for a worker.
    pub queued: usize,
    /// Room in that queue.
    pub capacity: usize,
    /// Workers running something.
    pub busy: usize,
    /// Worker threads.
    pub workers: usize,
    /// Jobs per status, from the store.
    pub jobs: Vec<(&'static str, u64)>,
    /// Queued and running jobs per operation, from the store.
    pub job_queue: Vec<super::store::OpQueue>,
    /// Now, ms since the Unix epoch (for the oldest queued job's age).
    pub now_ms: i64,
}

impl Metrics {
    /// Counts one answered request.
    pub fn request(&self, method: &str, route: &str, status: u16) {
        let mut m = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *m.entry((method.to_string(), route.to_string(), status))
            .or_default() += 1;
    }

    /// Records how long an operation ran on a worker.
    pub fn op_time(&self, op: &str, seconds: f64) {
        let mut m = self.ops.lock().unwrap_or_else(|e| e.into_inner());
        let h = m.entry(op.to_string()).or_default();
        for (i, &b) in BUCKETS.iter().enumerate() {
            if seconds <= b {
                h.counts[i] += 1;
            }
        }
        h.sum += seconds;
        h.count += 1;
    }

    /// Counts jobs put back in the queue after their owner's lease ran out.
    pub fn requeued(&self, jobs: usize) {
        self.requeued.fetch_add(jobs as u64, Ordering::Relaxed);
    }

    /// Counts a failed call of the lease keeper to the job store.
    pub fn store_error(&self) {
        self.store_errors.fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text exposition.
    pub fn render(&self, g: &Gauges) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# HELP queens_http_requests_total HTTP requests answered, by route and status."
        );
        let _ = writeln!(out, "# TYPE queens_http_requests_total counter");
        for ((method, route, status), n) in self
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            let _ = writeln!(
                out,
                "queens_http_requests_total{{method=\"{method}\",route=\"{}\",status=\"{status}\"}} {n}",
                route.replace('"', "'")
            );
        }
        let gauges = [
            (
                "queens_queue_depth",
                "Synchronous requests waiting for a worker.",
                g.queued,
            ),
            (
                "queens_queue_capacity",
                "Room in the synchronous queue.",
                g.capacity,
            ),
            (
                "queens_workers_busy",
                "Workers running an operation.",
                g.busy,
            ),
            ("queens_workers", "Worker threads.", g.workers),
        ];
        for (name, help, v) in gauges {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
        }
        let counters = [
            (
                "queens_jobs_requeued_total",
                "Jobs this server put back in the queue because their owner stopped renewing its lease.",
                self.requeued.load(Ordering::Relaxed),
            ),
            (
                "queens_store_errors_total",
                "Failed lease renewals and requeue sweeps against the job store.",
                self.store_errors.load(Ordering::Relaxed),
            ),
        ];
        for (name, help, v) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}"
            );
        }
        let _ = writeln!(out, "# HELP queens_jobs Jobs in the store, by status.");
        let _ = writeln!(out, "# TYPE queens_jobs gauge");
        for (status, n) in &g.jobs {
            let _ = writeln!(out, "queens_jobs{{status=\"{status}\"}} {n}");
        }
        let _ = writeln!(
            out,
            "# HELP queens_jobs_queued Jobs waiting for a worker, by operation.\n\
             # TYPE queens_jobs_queued gauge"
        );
        for q in &g.job_queue {
            let _ = writeln!(out, "queens_jobs_queued{{op=\"{}\"}} {}", q.op, q.queued);
        }
        let _ = writeln!(
            out,
            "# HELP queens_jobs_running Jobs running (on any replica), by operation.\n\
             # TYPE queens_jobs_running gauge"
        );
        for q in &g.job_queue {
            let _ = writeln!(out, "queens_jobs_running{{op=\"{}\"}} {}", q.op, q.running);
        }
        let oldest = g
            .job_queue
            .iter()
            .filter_map(|q| q.oldest_queued_ms)
            .min()
            .map_or(0.0, |t| (g.now_ms - t).max(0) as f64 / 1000.0);
        let _ = writeln!(
            out,
            "# HELP queens_jobs_oldest_queued_seconds Age of the oldest queued job (0: none).\n\
             # TYPE queens_jobs_oldest_queued_seconds gauge\n\
             queens_jobs_oldest_queued_seconds {oldest}"
        );
        let _ = writeln!(
            out,
            "# HELP queens_op_seconds Time an operation ran on a worker."
        );
        let _ = writeln!(out, "# TYPE queens_op_seconds histogram");
        for (op, h) in self.ops.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            for (i, b) in BUCKETS.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "queens_op_seconds_bucket{{op=\"{op}\",le=\"{b}\"}} {}",
                    h.counts[i]
                );
            }
            let _ = writeln!(
                out,
                "queens_op_seconds_bucket{{op=\"{op}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(out, "queens_op_seconds_sum{{op=\"{op}\"}} {}", h.sum);
            let _ = writeln!(out, "queens_op_seconds_count{{op=\"{op}\"}} {}", h.count);
        }
        out
    }
}
