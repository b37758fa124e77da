//! Who may call the service: the real `queens serve` with `--api-keys` and `--rate-limit`,
//! over real HTTP. No `/v1/` answer without a key, no job seen or cancelled across keys, and
//! one key's flood answered 429 while another key is still served.

use std::time::Duration;

use serde_json::Value;

#[path = "support/serve.rs"]
mod serve;

const ALICE: &str = "alice-key-0123456789abcdef";
const BOB: &str = "bob-key-fedcba9876543210";

/// A server whose log is searched for the keys when the test is over: a key must never
/// reach the log.
struct Server(Option<serve::Server>);

impl std::ops::Deref for Server {
    type Target = serve::Server;

    fn deref(&self) -> &serve::Server {
        self.0.as_ref().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let log = self.0.take().unwrap().stop();
        // A test already failing says why; a second panic would abort the run.
        if !std::thread::panicking() {
            for line in log {
                assert!(
                    !line.contains(ALICE) && !line.contains(BOB),
                    "a key reached the log: {line}"
                );
            }
        }
    }
}

/// `queens serve` with a key file for alice and bob (when `keys`) and `args`.
fn start(keys: bool, args: &[&str]) -> Server {
    let mut serve = serve::Serve::new();
    if keys {
        serve = serve.file(
            "--api-keys",
            "keys",
            &format!("# test keys\nalice:{ALICE}\nbob:{BOB}\n"),
        );
    }
    Server(Some(serve.args(args).start()))
}

struct Answer {
    status: u16,
    ctype: String,
    retry_after: Option<u64>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

fn call(s: &Server, method: &str, path: &str, key: Option<&str>, body: Option<&str>) -> Answer {
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .new_agent();
    let url = s.url(path);
    let auth = key.map(|k| format!("Bearer {k}"));
    let resp = match method {
        "GET" => {
            let mut r = agent.get(&url);
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.call()
        }
        "DELETE" => {
            let mut r = agent.delete(&url);
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.call()
        }
        _ => {
            let mut r = agent.post(&url).header("content-type", "application/json");
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.send(body.unwrap_or("{}").as_bytes())
        }
    };
    let mut resp = resp.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let ctype = header("content-type").unwrap_or_default();
    let retry_after = header("retry-after").and_then(|v| v.parse().ok());
    let status = resp.status().as_u16();
    let body = resp.body_mut().read_to_string().unwrap_or_default();
    Answer {
        status,
        ctype,
        retry_after,
        body,
    }
}

const SOLVE: &str = r#"{"instance": {"n": 8, "queens": ["b4", "d5"]}}"#;

#[test]
fn no_v1_answer_without_a_valid_key() {
    let s = start(true, &[]);
    let v1 = [
        ("POST", "/v1/solve", Some(SOLVE)),
        ("POST", "/v1/count", Some(r#"{"instance": {"n": 6}}"#)),
        (
            "POST",
            "/v1/check",
            Some(r#"{"instance": {"n": 4}, "queens": []}"#),
        ),
        (
            "POST",
            "/v1/generate",
            Some(r#"{"kind": "regions", "n": 6}"#),
        ),
        ("POST", "/v1/collection/deal", Some(r#"{"seed": 1}"#)),
        (
            "POST",
            "/v1/jobs",
            Some(r#"{"op": "solve", "instance": {"n": 8}}"#),
        ),
        ("GET", "/v1/jobs/0123456789abcdef0123456789abcdef", None),
        ("DELETE", "/v1/jobs/0123456789abcdef0123456789abcdef", None),
        (
            "GET",
            "/v1/jobs/0123456789abcdef0123456789abcdef/events",
            None,
        ),
        (
            "GET",
            "/v1/jobs/0123456789abcdef0123456789abcdef/proof",
            None,
        ),
        ("GET", "/v1/no-such-endpoint", None),
    ];
    for (method, path, body) in v1 {
        for key in [None, Some("not-a-key-of-this-server"), Some(&ALICE[1..])] {
            let a = call(&s, method, path, key, body);
            assert_eq!(a.status, 401, "{method} {path} with {key:?}: {}", a.body);
            assert_eq!(a.ctype, "application/problem+json");
            assert_eq!(a.json()["status"], 401);
        }
    }
    // With a key, the same requests are answered.
    let a = call(&s, "POST", "/v1/solve", Some(ALICE), Some(SOLVE));
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.json()["status"], "sat");
    // Health, the page, the document and (without --metrics-need-key) metrics stay open.
    for path in ["/healthz", "/play", "/", "/openapi.json", "/metrics"] {
        assert_eq!(call(&s, "GET", path, None, None).status, 200, "{path}");
    }
    let doc = call(&s, "GET", "/openapi.json", None, None).json();
    assert_eq!(
        doc["components"]["securitySchemes"]["api_key"]["scheme"],
        "bearer"
    );
    assert_eq!(doc["security"][0]["api_key"], serde_json::json!([]));
    assert_eq!(
        doc["paths"]["/healthz"]["get"]["security"],
        serde_json::json!([{}])
    );

    let s = start(true, &["--metrics-need-key"]);
    assert_eq!(call(&s, "GET", "/metrics", None, None).status, 401);
    let m = call(&s, "GET", "/metrics", Some(BOB), None);
    assert_eq!(m.status, 200);
    // The 401s are counted like any answer.
    assert!(m.body.contains("status=\"401\""), "{}", m.body);
}

#[test]
fn a_job_is_seen_and_cancelled_only_with_the_key_that_made_it() {
    let s = start(true, &["--workers", "2"]);
    // A finished job with a proof, and a long one that is still running.
    let done = call(
        &s,
        "POST",
        "/v1/jobs",
        Some(ALICE),
        Some(
            r#"{"op": "solve", "instance": {"n": 8, "queens": [[0,4],[4,7],[7,0]]},
                "engine": "sat", "proof": "drat"}"#,
        ),
    );
    assert_eq!(done.status, 202, "{}", done.body);
    let done_id = done.json()["id"].as_str().unwrap().to_string();
    let long = call(
        &s,
        "POST",
        "/v1/jobs",
        Some(ALICE),
        Some(r#"{"op": "count", "instance": {"n": 19}}"#),
    );
    assert_eq!(long.status, 202, "{}", long.body);
    let long_id = long.json()["id"].as_str().unwrap().to_string();

    let until = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let j = call(&s, "GET", &format!("/v1/jobs/{done_id}"), Some(ALICE), None).json();
        if j["status"] == "done" {
            break;
        }
        assert!(std::time::Instant::now() < until, "{j}");
        std::thread::sleep(Duration::from_millis(50));
    }

    for id in [&done_id, &long_id] {
        for (method, path) in [
            ("GET", format!("/v1/jobs/{id}")),
            ("GET", format!("/v1/jobs/{id}/events")),
            ("GET", format!("/v1/jobs/{id}/proof")),
            ("GET", format!("/v1/jobs/{id}/cnf")),
            ("DELETE", format!("/v1/jobs/{id}")),
        ] {
            let a = call(&s, method, &path, Some(BOB), None);
            assert_eq!(a.status, 404, "bob: {method} {path}: {}", a.body);
            assert_eq!(a.ctype, "application/problem+json");
            // The same answer as for a job that does not exist: nothing to tell them apart.
            let none = call(
                &s,
                method,
                &path.replace(id.as_str(), "ffffffffffffffffffffffffffffffff"),
                Some(BOB),
                None,
            );
            assert_eq!(none.status, 404);
            assert_eq!(
                a.json()["title"],
                none.json()["title"],
                "{} / {}",
                a.body,
                none.body
            );
        }
    }
    // Bob's cancel did nothing: alice's long job is still queued or running, her proof is
    // there; her own cancel works.
    let j = call(&s, "GET", &format!("/v1/jobs/{long_id}"), Some(ALICE), None).json();
    assert!(j["status"] == "running" || j["status"] == "queued", "{j}");
    let proof = call(
        &s,
        "GET",
        &format!("/v1/jobs/{done_id}/proof"),
        Some(ALICE),
        None,
    );
    assert_eq!(proof.status, 200);
    let c = call(
        &s,
        "DELETE",
        &format!("/v1/jobs/{long_id}"),
        Some(ALICE),
        None,
    );
    assert_eq!(c.status, 200, "{}", c.body);
    assert_eq!(c.json()["status"], "cancelled");
    // Her delete of a finished job removes it, its proof with it.
    let d = call(
        &s,
        "DELETE",
        &format!("/v1/jobs/{done_id}"),
        Some(ALICE),
        None,
    );
    assert_eq!(d.status, 200, "{}", d.body);
    assert_eq!(d.json()["status"], "done");
    for id in [&done_id, &long_id] {
        for path in [format!("/v1/jobs/{id}"), format!("/v1/jobs/{id}/proof")] {
            let a = call(&s, "GET", &path, Some(ALICE), None);
            assert_eq!(a.status, 404, "{path}: {}", a.body);
        }
    }
}

#[test]
fn a_flood_from_one_key_gets_429_while_another_key_is_served() {
    let s = start(true, &["--rate-limit", "5"]);
    let mut limited = None;
    for _ in 0..40 {
        let a = call(&s, "POST", "/v1/solve", Some(ALICE), Some(SOLVE));
        match a.status {
            200 => {}
            429 => {
                limited = Some(a);
                break;
            }
            other => panic!("{other}: {}", a.body),
        }
    }
    let a = limited.expect("40 requests at once stayed under 5 a second");
    assert_eq!(a.ctype, "application/problem+json");
    assert!(a.retry_after.is_some_and(|s| s >= 1), "{:?}", a.retry_after);
    assert!(a.json()["detail"]
        .as_str()
        .unwrap()
        .contains("--rate-limit"));
    // Bob has his own budget.
    let b = call(&s, "POST", "/v1/solve", Some(BOB), Some(SOLVE));
    assert_eq!(b.status, 200, "{}", b.body);
    // Health checks are never limited.
    for _ in 0..20 {
        assert_eq!(call(&s, "GET", "/healthz", None, None).status, 200);
    }
    // After the wait it says, alice is served again.
    std::thread::sleep(Duration::from_secs(a.retry_after.unwrap()));
    let again = call(&s, "POST", "/v1/solve", Some(ALICE), Some(SOLVE));
    assert_eq!(again.status, 200, "{}", again.body);
}

#[test]
fn without_keys_the_rate_limit_is_per_client_address() {
    let s = start(false, &["--rate-limit", "3"]);
    let codes: Vec<u16> = (0..20)
        .map(|_| call(&s, "POST", "/v1/solve", None, Some(SOLVE)).status)
        .collect();
    assert!(codes.starts_with(&[200, 200, 200]), "{codes:?}");
    assert!(codes.contains(&429), "{codes:?}");
}

#[test]
fn a_bad_key_file_is_refused_at_start_naming_the_line() {
    let o = serve::Serve::new()
        .file("--api-keys", "keys", &format!("alice:{ALICE}\nbob short\n"))
        .output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("line 2: expected `name:key`"), "{err}");
    assert!(!err.contains(ALICE), "{err}");
}
