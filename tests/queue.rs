//! One request must not hold the service: the real `queens serve` with few workers, loaded
//! with work that runs to its time limit. A request past its deadline frees its worker
//! within a second; a request no worker can start in time is a 503 with `Retry-After` at
//! once; one key's flood of jobs does not hold back another key's job beyond one job's time
//! limit; `/metrics` shows the job queue.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "support/serve.rs"]
mod serve;

use serve::{Serve, Server};

/// The tests time workers against deadlines: they run one at a time, not four servers
/// loading two cores at once.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Status, `Retry-After`, content type and body of a request (`key`: an API key).
fn send(
    method: &str,
    url: &str,
    body: Option<&Value>,
    key: Option<&str>,
) -> (u16, Option<String>, String, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let auth = key.map(|k| format!("Bearer {k}"));
    let resp = match (method, body) {
        ("GET", _) => {
            let mut r = agent.get(url);
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.call()
        }
        ("DELETE", _) => {
            let mut r = agent.delete(url);
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.call()
        }
        (_, b) => {
            let mut r = agent.post(url).header("content-type", "application/json");
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.send(b.map(Value::to_string).unwrap_or_default().as_bytes())
        }
    };
    let mut resp = resp.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let retry = header("retry-after");
    let ctype = header("content-type").unwrap_or_default();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, retry, ctype, value)
}

fn post(s: &Server, path: &str, body: &Value) -> (u16, Option<String>, String, Value) {
    send("POST", &s.url(path), Some(body), None)
}

/// Work that runs until its time limit stops it, one request of each kind that used to
/// hold its worker past the deadline or that takes long: the mod-2 optimum's SAT encoding
/// of a 21×21 board (built before any solver runs) and its min-lock question on 22×22
/// (3.2 million clauses, serialized for the solver's child after they are built), the
/// mod-2 game search on 9×9, a lookahead simulation. Each with the field of its answer
/// that says `timeout`.
fn expensive() -> Vec<(&'static str, Value, &'static str)> {
    vec![
        (
            "/v1/mod2/optimum",
            json!({"n": 21, "question": "max", "encoding": "plan"}),
            "status",
        ),
        (
            "/v1/mod2/optimum",
            json!({"n": 22, "question": "min-lock"}),
            "status",
        ),
        (
            "/v1/mod2/solve",
            json!({"n": 9, "method": "memo"}),
            "status",
        ),
        (
            "/v1/collection/simulate",
            json!({"policy": "lookahead", "deals": 10000}),
            "status",
        ),
    ]
}

#[test]
fn a_request_past_its_deadline_frees_its_worker_within_a_second() {
    let _serial = serial();
    let limit = Duration::from_millis(1500);
    let s = Serve::new()
        .env("RUST_LOG", "error")
        .args(["--workers", "1", "--timeout-ms", "1500"])
        .start();
    for (path, body, field) in expensive() {
        let start = Instant::now();
        let slow = {
            let url = s.url(path);
            std::thread::spawn(move || {
                let answer = send("POST", &url, Some(&body), None);
                (answer, start.elapsed())
            })
        };
        std::thread::sleep(Duration::from_millis(200));
        // A trivial request behind it: the one worker is busy until the deadline, then free.
        let (status, _, _, small) = post(&s, "/v1/mod2/solve", &json!({"n": 1}));
        let small_done = start.elapsed();
        let ((status_slow, _, _, answer), slow_done) = slow.join().unwrap();
        assert!(
            status_slow == 200 || status_slow == 503,
            "{path}: a request out of time is a timeout answer or a 503, not {status_slow}: \
             {answer}"
        );
        if status_slow == 200 {
            assert_eq!(
                answer[field], "timeout",
                "{path} cannot finish in time: {answer}"
            );
        }
        assert!(
            slow_done < limit + Duration::from_secs(1),
            "{path} answered {slow_done:?} after it came, past its deadline by more than a second"
        );
        assert_eq!(status, 200, "{path}: the request behind it: {small}");
        assert!(
            small_done < limit + Duration::from_secs(1),
            "{path}: the worker was free only {small_done:?} after the first request came \
             (its deadline: {limit:?})"
        );
    }
    // No worker keeps running the work it stopped answering: the server is idle again.
    std::thread::sleep(Duration::from_millis(300));
    let (_, _, _, health) = send("GET", &s.url("/healthz"), None, None);
    assert_eq!(health["busy"], 0, "{health}");
}

#[test]
fn a_request_no_worker_can_start_in_time_is_refused_at_once() {
    let _serial = serial();
    // One worker, taken by a job for up to a minute: a synchronous request cannot start
    // within its 2 s.
    let s = Serve::new()
        .env("RUST_LOG", "error")
        .args([
            "--workers",
            "1",
            "--timeout-ms",
            "2000",
            "--job-timeout-ms",
            "60000",
        ])
        .start();
    let (status, _, _, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "collection_simulate", "policy": "lookahead", "deals": 100000}),
    );
    assert_eq!(status, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        // Claimed, and taken by the worker.
        let (_, _, _, job) = send("GET", &s.url(&format!("/v1/jobs/{id}")), None, None);
        let (_, _, _, health) = send("GET", &s.url("/healthz"), None, None);
        if job["status"] == "running" && health["busy"] == 1 {
            break;
        }
        assert!(Instant::now() < until, "the job never started: {job}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let start = Instant::now();
    let (status, retry, ctype, problem) = post(&s, "/v1/mod2/solve", &json!({"n": 1}));
    let took = start.elapsed();
    assert_eq!(status, 503, "{problem}");
    assert!(
        took < Duration::from_millis(500),
        "refused after {took:?}, not at once"
    );
    assert!(ctype.starts_with("application/problem+json"), "{ctype}");
    let retry: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!(
        (30..=61).contains(&retry),
        "Retry-After {retry}: the job may hold the worker for a minute"
    );
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("within its time limit"),
        "{problem}"
    );
    // Invalid requests are refused before they would wait: a 422, not a 503.
    let (status, _, _, problem) = post(
        &s,
        "/v1/collection/solve",
        &json!({"deal": {"boxes": [], "hand": [], "pile": []}}),
    );
    assert_eq!(status, 422, "{problem}");
    assert_eq!(problem["field"], "deal.boxes", "{problem}");
    // The job cancelled, the worker is free within a deal (a fraction of a second).
    let (status, _, _, _) = send("DELETE", &s.url(&format!("/v1/jobs/{id}")), None, None);
    assert_eq!(status, 200);
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let (status, _, _, answer) = post(&s, "/v1/mod2/solve", &json!({"n": 1}));
        if status == 200 {
            assert_eq!(answer["status"], "ok", "{answer}");
            break;
        }
        assert!(
            Instant::now() < until,
            "still refused after the cancel: {answer}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

const ALICE: &str = "alice-key-0123456789abcdef";
const BOB: &str = "bob-key-0123456789abcdef0";

fn with_keys(workers: &str, extra: &[&str]) -> Server {
    Serve::new()
        .env("RUST_LOG", "error")
        .file("--api-keys", "keys", &format!("alice:{ALICE}\nbob:{BOB}\n"))
        .args(["--workers", workers, "--job-timeout-ms", "1500"])
        .args(extra)
        .start()
}

fn submit(s: &Server, key: &str, body: &Value) -> String {
    let (status, _, _, job) = send("POST", &s.url("/v1/jobs"), Some(body), Some(key));
    assert_eq!(status, 202, "{job}");
    job["id"].as_str().unwrap().to_string()
}

fn job(s: &Server, key: &str, id: &str) -> Value {
    let (status, _, _, job) = send("GET", &s.url(&format!("/v1/jobs/{id}")), None, Some(key));
    assert_eq!(status, 200, "{job}");
    job
}

fn flood() -> Value {
    json!({"op": "collection_simulate", "policy": "lookahead", "deals": 100000})
}

/// Waits for job `id` of `key` to end; returns it and when it ended.
fn wait_done(s: &Server, key: &str, id: &str, secs: u64) -> (Value, Instant) {
    let until = Instant::now() + Duration::from_secs(secs);
    loop {
        let j = job(s, key, id);
        if matches!(j["status"].as_str(), Some("done" | "failed" | "cancelled")) {
            return (j, Instant::now());
        }
        assert!(Instant::now() < until, "job {id} never ended: {j}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_flood_of_one_keys_jobs_delays_another_keys_job_by_one_job_at_most() {
    let _serial = serial();
    // Two workers: one job slot. Alice's five jobs each run to the 1.5 s job limit.
    let s = with_keys("2", &[]);
    let limit = Duration::from_millis(1500);
    let flood: Vec<String> = (0..5).map(|_| submit(&s, ALICE, &flood())).collect();
    std::thread::sleep(Duration::from_millis(300));
    let submitted = Instant::now();
    let small = submit(&s, BOB, &json!({"op": "mod2_solve", "n": 1}));
    let (j, done) = wait_done(&s, BOB, &small, 30);
    assert_eq!(j["status"], "done", "{j}");
    assert_eq!(j["result"]["status"], "ok", "{j}");
    let waited = done - submitted;
    assert!(
        waited < limit + Duration::from_millis(1000),
        "bob's job took {waited:?} behind alice's flood: more than one job's limit ({limit:?})"
    );
    // The queue's state is in /metrics meanwhile.
    let (status, _, _, metrics) = send("GET", &s.url("/metrics"), None, None);
    assert_eq!(status, 200);
    let metrics = metrics.as_str().unwrap().to_string();
    let gauge = |name: &str| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /metrics:\n{metrics}"))
    };
    assert!(gauge("queens_jobs_queued{op=\"collection_simulate\"}") >= 1.0);
    assert_eq!(
        gauge("queens_jobs_running{op=\"collection_simulate\"}"),
        1.0
    );
    assert!(gauge("queens_jobs_oldest_queued_seconds") > 0.5);
    for id in &flood {
        send(
            "DELETE",
            &s.url(&format!("/v1/jobs/{id}")),
            None,
            Some(ALICE),
        );
    }
}

#[test]
fn one_key_runs_at_most_its_share_of_the_job_workers() {
    let _serial = serial();
    // Three workers: two job slots, one job of each key at a time.
    let s = with_keys("3", &["--jobs-per-key", "1"]);
    let flood: Vec<String> = (0..3).map(|_| submit(&s, ALICE, &flood())).collect();
    let until = Instant::now() + Duration::from_secs(2);
    while Instant::now() < until {
        let running = flood
            .iter()
            .filter(|id| job(&s, ALICE, id)["status"] == "running")
            .count();
        assert!(running <= 1, "{running} of alice's jobs run at once");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The other slot is free for bob at once.
    let submitted = Instant::now();
    let small = submit(&s, BOB, &json!({"op": "mod2_solve", "n": 1}));
    let (j, done) = wait_done(&s, BOB, &small, 30);
    assert_eq!(j["status"], "done", "{j}");
    assert!(
        done - submitted < Duration::from_millis(1000),
        "bob waited {:?} with a job slot free",
        done - submitted
    );
    for id in &flood {
        send(
            "DELETE",
            &s.url(&format!("/v1/jobs/{id}")),
            None,
            Some(ALICE),
        );
    }
}
