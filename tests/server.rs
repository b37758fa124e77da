//! The service as a client meets it: the real `queens serve` binary on 127.0.0.1:0, real
//! HTTP, every board checked by the verifier.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "support/need.rs"]
mod need;
#[path = "support/procs.rs"]
mod procs;
#[path = "support/serve.rs"]
mod serve;
#[path = "support/temp.rs"]
mod temp;

use serve::{Serve, Server};

use queens::{formats, verify};

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .new_agent()
}

/// Status, content type and body of a request.
fn call(method: &str, url: &str, body: Option<&str>) -> (u16, String, String) {
    let a = agent();
    let resp = match (method, body) {
        ("GET", _) => a.get(url).call(),
        ("DELETE", _) => a.delete(url).call(),
        (_, Some(b)) => a
            .post(url)
            .header("content-type", "application/json")
            .send(b.as_bytes()),
        _ => a.post(url).send_empty(),
    };
    let mut resp = resp.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = resp.status().as_u16();
    let ctype = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let text = resp
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap();
    (status, ctype, text)
}

fn post(s: &Server, path: &str, body: &Value) -> (u16, Value) {
    let (status, _, text) = call("POST", &s.url(path), Some(&body.to_string()));
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn get(s: &Server, path: &str) -> (u16, Value) {
    let (status, _, text) = call("GET", &s.url(path), None);
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

fn instance_file(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("instances")
            .join(name),
    )
    .unwrap()
}

fn nauck() -> Value {
    serde_json::from_str(&instance_file("nauck-1850.json")).unwrap()
}

/// An Excluded Diagonals instance the backtracker refutes in about a second and varisat
/// does not settle in ten minutes (BENCHMARKS.md): SAT work that only a kill stops.
fn sat_hard() -> Value {
    let text = instance_file("excluded-diagonals/diag-22-d20.jsonl");
    let line = text
        .lines()
        .find(|l| l.contains("\"diag-22-4-5\""))
        .expect("diag-22-4-5 is in the file");
    serde_json::from_str(line).unwrap()
}

fn board(v: &Value) -> Vec<(usize, usize)> {
    serde_json::from_value(v.clone()).unwrap()
}

fn assert_verified(instance: &Value, queens: &Value) {
    let problem = formats::problem_from_json(instance).unwrap();
    verify(&problem, &board(queens)).unwrap();
}

fn wait_job(s: &Server, id: &str, until: impl Fn(&Value) -> bool, secs: u64) -> Value {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let (code, job) = get(s, &format!("/v1/jobs/{id}"));
        assert_eq!(code, 200, "{job}");
        if until(&job) {
            return job;
        }
        assert!(Instant::now() < end, "job {id} never got there: {job}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn terminal(job: &Value) -> bool {
    matches!(
        job["status"].as_str(),
        Some("done" | "failed" | "cancelled")
    )
}

/// `queens op` children of this server still alive.
fn op_children(server_pid: u32) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            let ppid = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            // A killed child that is still a zombie has an empty command line.
            ppid == Some(server_pid) && cmd.split(|&b| b == 0).nth(1) == Some(b"op")
        })
        .count()
}

#[test]
fn every_endpoint_answers_and_every_board_verifies() {
    let s = Server::start(&[]);
    // solve: Nauck's instance.
    let (code, v) = post(&s, "/v1/solve", &json!({"instance": nauck()}));
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "sat");
    assert_verified(&nauck(), &v["queens"]);
    // solve, all, SAT engine, cross-checked: exactly Nauck's 2 completions.
    let (code, v) = post(
        &s,
        "/v1/solve",
        &json!({"instance": nauck(), "all": true, "engine": "sat", "cross_check": true}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["count"], 2);
    assert_eq!(v["cross_checked"], "backtrack");
    for q in v["solutions"].as_array().unwrap() {
        assert_verified(&nauck(), q);
    }
    // A grid file's text as the instance.
    let text = instance_file("region-7.txt");
    let (code, v) = post(&s, "/v1/solve", &json!({"instance": {"text": text}}));
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "sat");
    // count: A000170(8) = 92, 12 up to symmetry.
    let (code, v) = post(
        &s,
        "/v1/count",
        &json!({"instance": {"n": 8}, "unique": true}),
    );
    assert_eq!(
        (code, v["count"].clone(), v["unique"].clone()),
        (200, json!(92), json!(12))
    );
    assert_eq!(v["status"], "sat");
    // count with a limit is a lower bound.
    let (_, v) = post(&s, "/v1/count", &json!({"instance": {"n": 8}, "limit": 2}));
    assert_eq!(
        (v["status"].clone(), v["count"].clone()),
        (json!("limited"), json!(2))
    );
    // check: a player's placement with two conflicts, on the puzzle.
    let (code, v) = post(
        &s,
        "/v1/check",
        &json!({"instance": {"n": 4}, "queens": [[0, 0], [1, 1], [3, 0]]}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "invalid");
    assert_eq!(v["violations"].as_array().unwrap().len(), 2);
    let (_, v) = post(&s, "/v1/check", &json!({"instance": nauck()}));
    assert_eq!(
        (v["status"].clone(), v["completable"].clone()),
        (json!("consistent"), json!(true))
    );
    // explain: the three presets of the unsolvable completion.
    let text = instance_file("unsolvable-completion.txt");
    let (code, v) = post(&s, "/v1/explain", &json!({"instance": {"text": text}}));
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "unsat");
    assert_eq!(v["core"], json!([[0, 4], [4, 7], [7, 0]]));
    // encode: DIMACS as text, sizes in headers.
    let (code, ctype, cnf) = call(
        "POST",
        &s.url("/v1/encode"),
        Some(&json!({"instance": nauck(), "encoding": "seq"}).to_string()),
    );
    assert_eq!(code, 200);
    assert!(ctype.starts_with("text/plain"), "{ctype}");
    assert!(cnf.contains("p cnf "), "{cnf}");
    // decode: a model made from the known solution's cells, read back and verified.
    let (_, solved) = post(&s, "/v1/solve", &json!({"instance": nauck()}));
    let queens = board(&solved["queens"]);
    let lits: Vec<String> = cnf
        .lines()
        .filter_map(|l| l.strip_prefix("c cell "))
        .map(|l| {
            let f: Vec<usize> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let sign = if queens.contains(&(f[1], f[2])) {
                ""
            } else {
                "-"
            };
            format!("{sign}{}", f[0])
        })
        .collect();
    let model = format!("s SATISFIABLE\nv {} 0\n", lits.join(" "));
    let (code, v) = post(
        &s,
        "/v1/decode",
        &json!({"instance": nauck(), "model": model}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "sat");
    assert_eq!(v["queens"], solved["queens"]);
    // generate: a unique 7×7 region puzzle, then confirmed unique by count.
    let (code, v) = post(
        &s,
        "/v1/generate",
        &json!({"kind": "regions", "n": 7, "seed": 3}),
    );
    assert_eq!(code, 200, "{v}");
    let puzzle = v["instances"][0].clone();
    let (_, c) = post(&s, "/v1/count", &json!({"instance": puzzle, "limit": 2}));
    assert_eq!(
        (c["count"].clone(), c["status"].clone()),
        (json!(1), json!("sat"))
    );
    // health, metrics, OpenAPI, index.
    let (code, v) = get(&s, "/healthz");
    assert_eq!((code, v["status"].clone()), (200, json!("ok")));
    let (code, _, metrics) = call("GET", &s.url("/metrics"), None);
    assert_eq!(code, 200);
    assert!(
        metrics.contains(
            "queens_http_requests_total{method=\"POST\",route=\"/v1/solve\",status=\"200\"}"
        ),
        "{metrics}"
    );
    assert!(metrics.contains("queens_op_seconds_bucket{op=\"solve\""));
    let (code, api) = get(&s, "/openapi.json");
    assert_eq!(code, 200);
    for path in [
        "/v1/solve",
        "/v1/count",
        "/v1/check",
        "/v1/jobs",
        "/v1/jobs/{id}/proof",
    ] {
        assert!(
            api["paths"].get(path).is_some(),
            "{path} missing from the OpenAPI document"
        );
    }
    assert!(api["components"]["schemas"].get("SolveResponse").is_some());
    let (code, ctype, page) = call("GET", &s.url("/"), None);
    assert_eq!(code, 200);
    assert!(ctype.starts_with("text/html") && page.contains("/v1/solve"));
}

fn assert_problem(s: &Server, body: &str, status: u16, field: Option<&str>, detail: &str) {
    let (code, ctype, text) = call("POST", &s.url("/v1/solve"), Some(body));
    assert_eq!(code, status, "{body} -> {text}");
    assert_eq!(ctype, "application/problem+json");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["status"], status);
    assert!(v["title"].as_str().is_some_and(|t| !t.is_empty()));
    assert!(
        v["detail"].as_str().unwrap().contains(detail),
        "{text} does not say {detail:?}"
    );
    assert_eq!(v["field"].as_str(), field, "{text}");
}

#[test]
fn bad_requests_get_problem_bodies_naming_the_field() {
    let s = Server::start(&["--max-body", "4096", "--max-n", "100", "--max-memory", "20"]);
    assert_problem(&s, "{\"instance\":", 400, None, "EOF");
    assert_problem(&s, "[1,2]", 422, Some("."), "");
    let big = format!("{{\"instance\":{{\"text\":\"{}\"}}}}", ".".repeat(5000));
    assert_problem(&s, &big, 413, None, "--max-body");
    assert_problem(
        &s,
        r#"{"instance":{"n":8},"engine":"quantum"}"#,
        422,
        Some("engine"),
        // The command line's words for `--engine quantum`.
        "`quantum`: use auto, backtrack, sat, race, local, dlx or ext:SOLVER",
    );
    assert_problem(
        &s,
        r#"{"instance":{"n":8,"queens":[[1,9]]}}"#,
        422,
        Some("instance.queens[0]"),
        "off the 8×8 board",
    );
    assert_problem(
        &s,
        r#"{"instance":{"text":"..\n.\n"}}"#,
        422,
        Some("instance"),
        "line 2",
    );
    assert_problem(
        &s,
        r#"{"instance":{"n":8},"colour":"red"}"#,
        422,
        Some("colour"),
        "unknown field `colour`",
    );
    assert_problem(
        &s,
        r#"{"instance":{"n":101}}"#,
        422,
        Some("instance.n"),
        "--max-n",
    );
    assert_problem(
        &s,
        r#"{"instance":{"n":8},"limit":0}"#,
        422,
        Some("limit"),
        "at least 1",
    );
    // A SAT encoding over the memory limit is refused before it is built.
    let (code, v) = post(
        &s,
        "/v1/solve",
        &json!({"instance": {"n": 100}, "engine": "sat"}),
    );
    assert_eq!(code, 422, "{v}");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("memory limit of 20 MB"),
        "{v}"
    );
    // Unbounded work on a synchronous endpoint: use a job or a limit.
    let (code, v) = post(&s, "/v1/count", &json!({"instance": {"n": 30}}));
    assert_eq!(code, 422, "{v}");
    assert!(v["detail"].as_str().unwrap().contains("job"), "{v}");
    let (code, v) = get(&s, "/v1/jobs/nosuchjob");
    assert_eq!(code, 404, "{v}");
    let (code, v) = get(&s, "/v1/nothing");
    assert_eq!(code, 404, "{v}");
}

/// Every 422 says which request field to change, as data: the engine for work it cannot do
/// within the memory limit or at all, the proof, the ring prune, the board size.
#[test]
fn every_refusal_names_its_field() {
    let s = Server::start(&["--max-memory", "20"]);
    for (path, body, field, says) in [
        (
            "/v1/solve",
            json!({"instance": {"n": 100}, "engine": "sat"}),
            "engine",
            "fixed cost alone",
        ),
        (
            "/v1/explain",
            json!({"instance": {"n": 200, "queens": [[0, 0]]}, "engine": "sat"}),
            "engine",
            "memory limit of 20 MB",
        ),
        (
            "/v1/count",
            json!({"instance": {"n": 8}, "engine": "local"}),
            "engine",
            "finds one solution",
        ),
        (
            "/v1/solve",
            json!({"instance": {"n": 8, "queens": [[0, 0]]}, "proof": "drat",
                   "engine": "backtrack", "rings": true}),
            "rings",
            "drop --rings",
        ),
        (
            "/v1/generate",
            json!({"kind": "regions", "n": 3}),
            "n",
            "no region puzzle exists",
        ),
    ] {
        let (code, v) = post(&s, path, &body);
        assert_eq!(code, 422, "{path} {body} -> {v}");
        assert_eq!(v["field"], field, "{path} {body} -> {v}");
        assert!(
            v["detail"].as_str().unwrap().contains(says),
            "{path} {body} -> {v}"
        );
        // No figure of a count that never started.
        assert!(
            !v["detail"].as_str().unwrap().contains("over 0 variables"),
            "{v}"
        );
    }
}

/// A board over `--max-n` is refused naming the field that holds its size: `instance.n`
/// for an instance, `n` where the size is a field of its own.
#[test]
fn a_board_over_max_n_names_the_field_that_holds_n() {
    let s = Server::start(&["--max-n", "5"]);
    for (path, body, field) in [
        ("/v1/solve", json!({"instance": {"n": 6}}), "instance.n"),
        (
            "/v1/generate",
            json!({"kind": "completion", "n": 6, "queens": 1}),
            "n",
        ),
        ("/v1/mod2/solve", json!({"n": 6}), "n"),
        ("/v1/mod2/optimum", json!({"n": 6, "question": "max"}), "n"),
    ] {
        let (code, v) = post(&s, path, &body);
        assert_eq!(code, 422, "{path} {body} -> {v}");
        assert_eq!(v["field"], field, "{path} {body} -> {v}");
        assert!(
            v["detail"].as_str().unwrap().contains("--max-n"),
            "{path} {body} -> {v}"
        );
    }
    // A board past --max-n that only a job may take, over the memory limit: `instance.n`
    // as a job too, as on the synchronous call that sent it there.
    let s = Server::start(&["--max-n", "5", "--max-memory", "20"]);
    let big = json!({"n": 10_000_000});
    let (code, v) = post(&s, "/v1/solve", &json!({"instance": big}));
    assert_eq!((code, &v["field"]), (422, &json!("instance.n")), "{v}");
    let (code, v) = post(&s, "/v1/jobs", &json!({"op": "solve", "instance": big}));
    assert_eq!((code, &v["field"]), (422, &json!("instance.n")), "{v}");
    assert!(v["detail"].as_str().unwrap().contains("MB"), "{v}");
}

#[test]
fn job_bodies_are_checked_like_synchronous_ones() {
    let s = Server::start(&[]);
    for (body, field, says) in [
        (
            json!({"op": "solve", "instance": {"n": 8, "queens": [[1, 9]]}}),
            "instance.queens[0]",
            "off the 8×8 board",
        ),
        (
            json!({"op": "solve", "instance": {"n": 8}, "engine": "quantum"}),
            "engine",
            "quantum",
        ),
        (
            json!({"op": "solve", "instance": {"n": 8}, "limit": 0}),
            "limit",
            "at least 1",
        ),
        (
            json!({"op": "solve", "instance": {"n": 8}, "proof": "drat", "all": true}),
            "proof",
            "needs a single solve",
        ),
        (
            json!({"op": "generate", "kind": "completion", "n": 8}),
            "queens",
            "number of queens",
        ),
        (
            json!({"op": "dance", "instance": {"n": 8}}),
            "op",
            "unknown op",
        ),
        (json!({"instance": {"n": 8}}), "op", "missing field `op`"),
    ] {
        let (code, v) = post(&s, "/v1/jobs", &body);
        assert_eq!(code, 422, "{body} -> {v}");
        assert_eq!(v["field"], field, "{body} -> {v}");
        assert!(
            v["detail"].as_str().unwrap().contains(says),
            "{body} -> {v}"
        );
    }
    // A decode error names the request's `model` field, whatever the origin is called.
    let (code, v) = post(
        &s,
        "/v1/decode",
        &json!({"instance": nauck(), "model": "v 1 x 0", "model_origin": "evil"}),
    );
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["field"], "model", "{v}");
    // A method an endpoint does not take is a problem body too.
    let (code, ctype, _) = call("GET", &s.url("/v1/solve"), None);
    assert_eq!((code, ctype.as_str()), (405, "application/problem+json"));
}

#[test]
fn a_deadline_gives_status_timeout_promptly_and_frees_the_worker() {
    let s = Server::start(&["--workers", "1"]);
    // The backtracker stops itself at the deadline.
    let t = Instant::now();
    let (code, v) = post(
        &s,
        "/v1/count",
        &json!({"instance": {"n": 20}, "limit": 1_000_000_000_000u64, "timeout_ms": 300}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "timeout");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // varisat cannot stop: its child process is killed at the deadline.
    let t = Instant::now();
    let (code, v) = post(
        &s,
        "/v1/solve",
        &json!({"instance": sat_hard(), "engine": "sat", "timeout_ms": 500}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "timeout", "{v}");
    assert!(v["queens"].is_null());
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    assert_eq!(op_children(s.pid()), 0, "the SAT child was not killed");
    // The one worker is free again.
    let t = Instant::now();
    let (code, _) = post(&s, "/v1/solve", &json!({"instance": nauck()}));
    assert_eq!(code, 200);
    // Generous for a loaded 2-core machine; a worker still on the count or the SAT child
    // would take minutes.
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn cancelling_running_jobs_frees_the_worker() {
    let s = Server::start(&["--workers", "2"]);
    for body in [
        json!({"op": "solve", "instance": sat_hard(), "engine": "sat"}),
        json!({"op": "count", "instance": {"n": 20}}),
    ] {
        let (code, job) = post(&s, "/v1/jobs", &body);
        assert_eq!(code, 202, "{job}");
        let id = job["id"].as_str().unwrap().to_string();
        wait_job(&s, &id, |j| j["status"] == "running", 10);
        std::thread::sleep(Duration::from_millis(200));
        let (code, _, text) = call("DELETE", &s.url(&format!("/v1/jobs/{id}")), None);
        assert_eq!(code, 200);
        let job: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(job["status"], "cancelled", "{job}");
        assert!(job["result"].is_null());
        let t = Instant::now();
        // The job's worker is the one jobs may use; a following job runs on it at once.
        let (_, next) = post(&s, "/v1/jobs", &json!({"op": "solve", "instance": nauck()}));
        let next_id = next["id"].as_str().unwrap().to_string();
        let done = wait_job(&s, &next_id, terminal, 10);
        assert_eq!(done["status"], "done", "{done}");
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        assert_eq!(get(&s, &format!("/v1/jobs/{id}")).0, 404, "deleted");
    }
    assert_eq!(op_children(s.pid()), 0, "a cancelled SAT child survived");
}

#[test]
fn a_job_with_a_proof_serves_the_proof_and_events() {
    let s = Server::start(&[]);
    let text = instance_file("unsolvable-completion.txt");
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": {"text": text}, "engine": "sat", "proof": "lrat"}),
    );
    assert_eq!(code, 202, "{job}");
    assert_eq!(job["status"], "queued");
    let id = job["id"].as_str().unwrap().to_string();
    // The event stream ends with the finished job.
    let (code, ctype, events) = call("GET", &s.url(&format!("/v1/jobs/{id}/events")), None);
    assert_eq!(code, 200);
    assert!(ctype.starts_with("text/event-stream"), "{ctype}");
    let last: Value = serde_json::from_str(
        events
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .next_back()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(last["status"], "done", "{events}");
    let result = &last["result"];
    assert_eq!(result["status"], "unsat");
    assert_eq!(result["proof"]["checked"], true);
    assert_eq!(result["proof"]["format"], "lrat");
    // The proof and the CNF it refutes: the built-in checker accepts them.
    let (code, _, proof) = call("GET", &s.url(&format!("/v1/jobs/{id}/proof")), None);
    assert_eq!(code, 200);
    assert_eq!(
        proof.len() as u64,
        result["proof"]["bytes"].as_u64().unwrap()
    );
    let (code, _, cnf) = call("GET", &s.url(&format!("/v1/jobs/{id}/cnf")), None);
    assert_eq!(code, 200);
    let formula = varisat::dimacs::DimacsParser::parse(cnf.as_bytes()).unwrap();
    queens::proof::check_lrat(&formula, proof.as_bytes()).expect("the served proof checks");
    assert_outside_checker_accepts("lrat-check", &cnf, proof.as_bytes());
    // DRAT too, checked by drat-trim when it is installed.
    let (_, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": {"text": text}, "engine": "sat", "proof": "drat"}),
    );
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(&s, &id, terminal, 10);
    assert_eq!(done["result"]["proof"]["format"], "drat", "{done}");
    let (_, _, proof) = call("GET", &s.url(&format!("/v1/jobs/{id}/proof")), None);
    let (_, _, cnf) = call("GET", &s.url(&format!("/v1/jobs/{id}/cnf")), None);
    assert_outside_checker_accepts("drat-trim", &cnf, proof.as_bytes());
    // No proof for a job without one.
    let (_, plain) = post(&s, "/v1/jobs", &json!({"op": "solve", "instance": nauck()}));
    let pid = plain["id"].as_str().unwrap();
    wait_job(&s, pid, terminal, 10);
    let (code, v) = get(&s, &format!("/v1/jobs/{pid}/proof"));
    assert_eq!(code, 409, "{v}");
}

/// A threshold job's certificate is served file by file (`links.files`); the files, saved
/// into one folder, are what `queens threshold check` accepts, and a name the job did not
/// leave is a 409 that lists the ones it did.
#[test]
fn a_threshold_job_serves_its_certificate_for_the_check() {
    let s = Server::start(&[]);
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "threshold", "n": 8, "certificate": true}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(&s, &id, terminal, 30);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["result"]["threshold"], 1, "a(8) = 1: {done}");
    let files = done["links"]["files"].as_object().expect("links.files");
    let names: Vec<&str> = files.keys().map(String::as_str).collect();
    for name in [
        "cover.txt",
        "threshold.json",
        "counterexample.json",
        "counterexample.lrat",
        "counterexample.lrat.cnf",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }
    let dir = temp::dir("server-threshold");
    for (name, url) in files {
        let (code, ctype, body) = call("GET", &s.url(url.as_str().unwrap()), None);
        assert_eq!(code, 200, "{name}: {body}");
        if name.ends_with(".json") {
            assert!(ctype.starts_with("application/json"), "{name}: {ctype}");
        }
        std::fs::write(dir.join(name), body).unwrap();
    }
    let check = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(["threshold", "check", dir.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(check.status.code(), Some(0), "{v}");
    assert_eq!(v["accepted"], true, "{v}");
    assert_eq!(v["k"], 1, "{v}");
    let (code, v) = get(&s, &format!("/v1/jobs/{id}/files/nothing.txt"));
    assert_eq!(code, 409, "{v}");
    assert!(
        v["detail"].as_str().unwrap().contains("cover.txt"),
        "the 404 lists the files: {v}"
    );
}

/// Fetches the CNF and the proof job `id` serves, checks the proof with the built-in checker
/// (as `format`) and with the outside `checker`, and returns the CNF.
fn check_served_proof(
    s: &Server,
    id: &str,
    format: queens::proof::ProofFormat,
    checker: &str,
) -> String {
    let (code, _, cnf) = call("GET", &s.url(&format!("/v1/jobs/{id}/cnf")), None);
    assert_eq!(code, 200);
    let proof = agent()
        .get(&s.url(&format!("/v1/jobs/{id}/proof")))
        .call()
        .unwrap()
        .body_mut()
        .read_to_vec()
        .unwrap();
    let formula = varisat::dimacs::DimacsParser::parse(cnf.as_bytes()).unwrap();
    queens::proof::check_proof(&formula, format, &proof).expect("the served proof checks");
    assert_outside_checker_accepts(checker, &cnf, &proof);
    cnf
}

/// Runs an outside proof checker (drat-trim or lrat-check, built from marijnheule/drat-trim)
/// on a served proof; skipped when the checker is not installed.
fn assert_outside_checker_accepts(checker: &str, cnf: &str, proof: &[u8]) {
    let dir = temp::dir("server");
    let (cnf_path, proof_path) = (dir.join("f.cnf"), dir.join("f.proof"));
    std::fs::write(&cnf_path, cnf).unwrap();
    std::fs::write(&proof_path, proof).unwrap();
    let out = match Command::new(checker)
        .arg(&cnf_path)
        .arg(&proof_path)
        .output()
    {
        Ok(out) => out,
        Err(_) => {
            need::missing(checker, "the outside proof checker is not on PATH");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.trim() == "s VERIFIED" || l.trim() == "c VERIFIED"),
        "{checker} rejects the served proof:\n{text}"
    );
}

#[test]
fn overload_gets_only_200s_and_503s_and_no_job_is_lost_or_run_twice() {
    let s = Server::start(&["--workers", "1", "--queue", "2", "--max-jobs", "5"]);
    let base = s.base.clone();
    // 24 concurrent counts of n = 13 (73712 solutions) against 1 worker + 2 places.
    let handles: Vec<_> = (0..24)
        .map(|_| {
            let url = format!("{base}/v1/count");
            std::thread::spawn(move || {
                let mut resp = agent()
                    .post(&url)
                    .header("content-type", "application/json")
                    .send(json!({"instance": {"n": 13}}).to_string().as_bytes())
                    .unwrap();
                let retry = resp.headers().get("retry-after").cloned();
                let text = resp.body_mut().read_to_string().unwrap();
                (resp.status().as_u16(), text, retry)
            })
        })
        .collect();
    let mut by_code = std::collections::BTreeMap::new();
    for h in handles {
        let (code, text, retry) = h.join().unwrap();
        *by_code.entry(code).or_insert(0) += 1;
        match code {
            200 => assert!(text.contains("\"count\":73712"), "{text}"),
            503 => {
                assert!(text.contains("queue full"), "{text}");
                assert_eq!(retry.unwrap(), "1");
            }
            other => panic!("status {other}: {text}"),
        }
    }
    assert!(
        by_code.contains_key(&200) && by_code.contains_key(&503),
        "{by_code:?}"
    );
    // Jobs: at most 5 wait; every accepted one runs exactly once.
    let mut accepted = Vec::new();
    let mut refused = 0;
    for i in 0..30 {
        let (code, v) = post(
            &s,
            "/v1/jobs",
            &json!({"op": "count", "instance": {"n": 10 + i % 3}}),
        );
        match code {
            202 => accepted.push(v["id"].as_str().unwrap().to_string()),
            503 => refused += 1,
            other => panic!("status {other}: {v}"),
        }
    }
    assert!(
        !accepted.is_empty() && refused > 0,
        "{} / {refused}",
        accepted.len()
    );
    for id in &accepted {
        let job = wait_job(&s, id, terminal, 30);
        assert_eq!(job["status"], "done", "{job}");
        assert_eq!(job["attempts"], 1, "{job}");
    }
}

#[test]
fn a_killed_server_loses_no_job_and_keeps_finished_results() {
    let data = temp::dir("server-restart");
    let s = Serve::new().data(&data).args(["--workers", "2"]).start();
    let (_, small) = post(&s, "/v1/jobs", &json!({"op": "solve", "instance": nauck()}));
    let small_id = small["id"].as_str().unwrap().to_string();
    let finished = wait_job(&s, &small_id, terminal, 10);
    // A count that takes a second or more (n = 17: 95,815,104 solutions, about 3 s on two
    // cores; n = 16 is now done in under half a second, before the kill).
    let (_, big) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "count", "instance": {"n": 17}}),
    );
    let big_id = big["id"].as_str().unwrap().to_string();
    wait_job(&s, &big_id, |j| j["status"] == "running", 10);
    // SIGKILL: no chance to clean up.
    drop(s);
    let s = Serve::new().data(&data).args(["--workers", "2"]).start();
    let job = wait_job(&s, &big_id, terminal, 60);
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(job["result"]["count"], 95_815_104);
    assert_eq!(job["attempts"], 2, "{job}");
    let (_, again) = get(&s, &format!("/v1/jobs/{small_id}"));
    assert_eq!(again["result"], finished["result"]);
    assert_eq!(again["status"], "done");
}

#[test]
fn sigterm_lets_running_jobs_finish_within_the_grace_and_takes_no_new_work() {
    let data = temp::dir("server-grace");
    let mut s = Serve::new()
        .data(&data)
        .args(["--workers", "2", "--shutdown-grace", "5m"])
        .start();
    // A job that runs 6 s of wall time whatever the load (a count of n = 20 takes minutes;
    // its own time limit ends it), so it is still running when the new work below is
    // refused: a count that finished by its own speed could end first on a loaded machine,
    // and the server with it.
    let (_, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "count", "instance": {"n": 20}, "timeout_ms": 6000}),
    );
    let id = job["id"].as_str().unwrap().to_string();
    wait_job(&s, &id, |j| j["status"] == "running", 10);
    let t = Instant::now();
    unsafe_kill(s.pid(), "TERM");
    std::thread::sleep(Duration::from_millis(300));
    // Shutting down: no new work, while the running job goes on.
    let (code, refused) = post(&s, "/v1/jobs", &json!({"op": "solve", "instance": nauck()}));
    assert_eq!(code, 503, "{refused}");
    let (code, refused) = post(&s, "/v1/solve", &json!({"instance": nauck()}));
    assert_eq!(code, 503, "{refused}");
    assert!(refused["detail"]
        .as_str()
        .unwrap()
        .contains("shutting down"));
    let status = s.wait();
    assert!(status.success(), "{status:?}: {}", s.log().join("\n"));
    // It exits as soon as the job is done, not at the end of the grace.
    assert!(t.elapsed() < Duration::from_secs(120), "{:?}", t.elapsed());
    let store = queens::server::store::Store::open(&data).unwrap();
    let stored = store.get(&id).unwrap().unwrap();
    assert_eq!(stored.status, queens::server::store::JobStatus::Done);
    let result: Value = serde_json::from_str(stored.result.as_deref().unwrap()).unwrap();
    assert_eq!(result["status"], "timeout", "{result}");
    assert!(result["count"].as_u64().unwrap() > 0, "{result}");
}

#[test]
fn sigterm_past_the_grace_reports_jobs_interrupted_and_cuts_off_requests() {
    let data = temp::dir("server-interrupt");
    let mut s = Serve::new()
        .data(&data)
        .args([
            "--workers",
            "3",
            "--shutdown-grace",
            "1s",
            "--timeout-ms",
            "120000",
        ])
        .start();
    let ids: Vec<String> = (0..3)
        .map(|_| {
            let (code, job) = post(
                &s,
                "/v1/jobs",
                &json!({"op": "count", "instance": {"n": 20}}),
            );
            assert_eq!(code, 202, "{job}");
            job["id"].as_str().unwrap().to_string()
        })
        .collect();
    let id = ids[0].clone();
    // Three workers: two job slots, so the third job waits.
    for id in &ids[..2] {
        wait_job(&s, id, |j| j["status"] == "running", 10);
    }
    // A synchronous count of minutes, allowed by --timeout-ms: only the grace bounds it.
    let url = s.url("/v1/count");
    let request = std::thread::spawn(move || {
        let body = json!({"instance": {"n": 20}, "limit": 1_000_000_000_000u64}).to_string();
        agent()
            .post(&url)
            .header("content-type", "application/json")
            .send(body.as_bytes())
            .map(|r| r.status().as_u16())
    });
    std::thread::sleep(Duration::from_millis(500));
    let t = Instant::now();
    unsafe_kill(s.pid(), "TERM");
    let status = s.wait();
    assert!(status.success(), "{status:?}");
    // One second of grace, the hand-back and the cut-off: seconds, not minutes.
    assert!(t.elapsed() < Duration::from_secs(8), "{:?}", t.elapsed());
    // The cut-off request got no answer (or a 503), never a hang.
    if let Ok(code) = request.join().unwrap() {
        assert_eq!(code, 503);
    }
    // Nothing is left running: the jobs that ran are reported interrupted, the one that
    // never started waits for the next start.
    let store = queens::server::store::Store::open(&data).unwrap();
    let mut interrupted = 0;
    for id in &ids {
        let job = store.get(id).unwrap().unwrap();
        match job.status {
            queens::server::store::JobStatus::Failed => {
                let error: Value = serde_json::from_str(job.error.as_deref().unwrap()).unwrap();
                assert_eq!(error["title"], "interrupted", "{error}");
                assert_eq!(error["status"], 503);
                assert!(
                    error["detail"]
                        .as_str()
                        .unwrap()
                        .contains("--shutdown-grace"),
                    "{error}"
                );
                interrupted += 1;
            }
            queens::server::store::JobStatus::Queued => assert_eq!(job.attempts, 0),
            other => panic!("job {id} is {other}"),
        }
    }
    assert_eq!(interrupted, 2, "the two that ran");
    assert_eq!(store.counts().unwrap().running, 0);
    drop(store);
    // The next start runs the queued one; the interrupted ones stay as they are.
    let s = Serve::new().data(&data).args(["--workers", "3"]).start();
    let job = wait_job(&s, &id, terminal, 10);
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["error"]["title"], "interrupted");
}

fn unsafe_kill(pid: u32, signal: &str) {
    let ok = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{signal} {pid}");
}

#[test]
fn a_client_that_goes_away_cancels_its_work() {
    let s = Server::start(&["--workers", "1"]);
    let addr = s.base.trim_start_matches("http://").to_string();
    let body = json!({"instance": {"n": 20}, "limit": 1_000_000_000_000u64}).to_string();
    let mut conn = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        conn,
        "POST /v1/count HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // Wait until the worker is on it, then hang up.
    let end = Instant::now() + Duration::from_secs(5);
    while get(&s, "/healthz").1["busy"] != 1 {
        assert!(Instant::now() < end, "the count never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(conn);
    let t = Instant::now();
    while get(&s, "/healthz").1["busy"] != 0 {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the worker kept counting for a client that left"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_cli_json_and_the_http_body_are_the_same() {
    let s = Server::start(&[]);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/nauck-1850.json");
    // Times differ from run to run, in the answer and in its plan's steps.
    fn untimed(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for key in ["time_ms", "encode_ms", "solve_ms", "start_ms", "end_ms"] {
                    m.remove(key);
                }
                m.values_mut().for_each(untimed);
            }
            Value::Array(a) => a.iter_mut().for_each(untimed),
            _ => {}
        }
    }
    let strip = |mut v: Value| {
        untimed(&mut v);
        v
    };
    for (cmd, path, extra) in [
        ("solve", "/v1/solve", vec![]),
        ("solve", "/v1/solve", vec!["--engine", "sat"]),
        ("count", "/v1/count", vec![]),
        ("check", "/v1/check", vec![]),
        ("explain", "/v1/explain", vec![]),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_queens"))
            .arg(cmd)
            .arg(&file)
            .args(&extra)
            .arg("--json")
            .output()
            .unwrap();
        let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut body = json!({"instance": nauck()});
        if extra.contains(&"sat") {
            body["engine"] = json!("sat");
        }
        let (code, http) = post(&s, path, &body);
        assert_eq!(code, 200, "{http}");
        assert_eq!(strip(cli), strip(http), "{cmd} {extra:?}");
    }
}

#[test]
fn request_ids_are_returned() {
    let s = Server::start(&[]);
    let resp = agent().get(&s.url("/healthz")).call().unwrap();
    assert!(resp.headers().get("x-request-id").is_some());
    let mut buf = String::new();
    resp.into_body()
        .into_reader()
        .read_to_string(&mut buf)
        .unwrap();
    assert!(buf.contains("ok"));
}

#[test]
fn the_backtracker_certifies_jobs_and_the_race_answers_synchronously() {
    let s = Server::start(&[]);
    let text = instance_file("unsolvable-completion.txt");
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": {"text": text}, "engine": "backtrack", "proof": "binary-drat"}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(&s, &id, terminal, 10);
    let result = &done["result"];
    assert_eq!(result["status"], "unsat", "{done}");
    assert_eq!(result["engine"], "backtrack", "{done}");
    assert_eq!(result["proof"]["checked"], true, "{done}");
    check_served_proof(&s, &id, queens::proof::ProofFormat::BinaryDrat, "drat-trim");
    // LRAT with the search's own hints, on the pairwise CNF the job serves.
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": {"text": text}, "engine": "backtrack", "proof": "lrat"}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(&s, &id, terminal, 10);
    assert_eq!(done["result"]["proof"]["checked"], true, "{done}");
    let cnf = check_served_proof(&s, &id, queens::proof::ProofFormat::Lrat, "lrat-check");
    assert!(cnf.contains("encoding pairwise"), "{cnf}");
    // The race, synchronously: either engine may answer, and the reply says which.
    let (code, v) = post(
        &s,
        "/v1/solve",
        &json!({"instance": {"text": text}, "engine": "race"}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(
        (v["status"].as_str(), v["engine"].as_str()),
        (Some("unsat"), Some("race"))
    );
    assert!(
        ["backtrack", "sat"].contains(&v["answered_by"].as_str().unwrap()),
        "{v}"
    );
    let (code, v) = post(
        &s,
        "/v1/count",
        &json!({"instance": nauck(), "engine": "race"}),
    );
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["field"], "engine", "{v}");
    // An explanation as a job serves the certificate of its core.
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "explain", "instance": {"text": text}, "proof": "lrat"}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(&s, &id, terminal, 10);
    let result = &done["result"];
    assert_eq!(result["core"], json!([[0, 4], [4, 7], [7, 0]]), "{done}");
    assert_eq!(
        result["proof"]["url"].as_str(),
        Some(format!("/v1/jobs/{id}/proof").as_str())
    );
    let (code, _, proof) = call("GET", &s.url(&format!("/v1/jobs/{id}/proof")), None);
    assert_eq!(code, 200, "{proof}");
    let (code, _, cnf) = call("GET", &s.url(&format!("/v1/jobs/{id}/cnf")), None);
    assert_eq!(code, 200, "{cnf}");
    let formula = varisat::dimacs::DimacsParser::parse(cnf.as_bytes()).unwrap();
    queens::proof::check_lrat(&formula, proof.as_bytes()).expect("the core's proof checks");
    assert_outside_checker_accepts("lrat-check", &cnf, proof.as_bytes());
}

#[test]
fn hints_are_served_for_a_position() {
    let s = Server::start(&[]);
    let text = instance_file("region-7.txt");
    let (code, v) = post(&s, "/v1/hint", &json!({"instance": {"text": text}}));
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["technique"], "last-cell", "{v}");
    assert_eq!(v["place"], json!([[0, 1]]));
    // A grade answers with a status too, as every answer does.
    let (code, v) = post(&s, "/v1/grade", &json!({"instance": {"text": text}}));
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "ok", "{v}");
    // A JSON position with the player's queens and marks.
    let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    let (code, v) = post(
        &s,
        "/v1/hint",
        &json!({"instance": {"regions": rows, "queens": [[0, 1]], "marks": [[6, 6]]}}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "sat", "{v}");
    assert_eq!(v["technique"], "attacked", "{v}");
    let (code, v) = post(
        &s,
        "/v1/hint",
        &json!({"instance": {"regions": rows, "marks": [[0, 9]]}}),
    );
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["field"], "instance.marks[0]", "{v}");
}

#[test]
fn the_play_page_is_served_whole_and_linked_from_the_index() {
    let s = Server::start(&[]);
    let (status, ctype, page) = call("GET", &s.url("/play"), None);
    assert_eq!(status, 200, "{page}");
    assert!(ctype.starts_with("text/html"), "{ctype}");
    for part in [
        "id=\"board\"",
        "id=\"status\"",
        "id=\"hint-reason\"",
        "/v1/hint",
    ] {
        assert!(page.contains(part), "the page has {part}");
    }
    // One file with everything inline: no script, style or font from anywhere else.
    assert!(
        !page.contains("http://") && !page.contains("https://") && !page.contains("src="),
        "the page loads nothing from elsewhere"
    );
    let (status, _, index) = call("GET", &s.url("/"), None);
    assert_eq!(status, 200);
    assert!(index.contains("href=\"/play\""), "the index links the page");
    // The index lists every route of the document, from the routes as registered.
    let (_, doc) = get(&s, "/openapi.json");
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let line = format!("<code>{} {path}</code>", method.to_uppercase());
            assert!(index.contains(&line), "the index lacks {line}");
        }
    }
    for path in ["/v1/hint", "/v1/grade", "/v1/threshold"] {
        assert!(index.contains(&format!("POST {path}</code>")), "{path}");
    }
}

#[test]
fn the_collection_game_deals_plays_and_simulates() {
    let s = Server::start(&[]);
    let (code, deal) = post(&s, "/v1/collection/deal", &json!({"seed": 9}));
    assert_eq!(code, 200, "{deal}");
    assert_eq!(deal["boxes"].as_array().unwrap().len(), 8);
    assert_eq!(deal["hand"].as_array().unwrap().len(), 3);
    // The same deal as the CLI prints for the same seed.
    let cli = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(["collection", "deal", "--seed", "9", "--json"])
        .output()
        .unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&cli.stdout).unwrap(), deal);

    let (code, played) = post(
        &s,
        "/v1/collection/play",
        &json!({"deal": deal, "policy": "greedy", "seed": 1}),
    );
    assert_eq!(code, 200, "{played}");
    let (code, replayed) = post(
        &s,
        "/v1/collection/play",
        &json!({"deal": deal, "moves": played["moves"]}),
    );
    assert_eq!(code, 200, "{replayed}");
    assert_eq!(replayed, played);

    // An illegal move is a 422 naming its index and rule.
    let (code, problem) = post(
        &s,
        "/v1/collection/play",
        &json!({"deal": deal, "moves": [{"discard": [0]}, {"discard": [7]}]}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "moves[1]");
    assert!(
        problem["detail"].as_str().unwrap().contains("(card-index)"),
        "{problem}"
    );

    let (code, sim) = post(
        &s,
        "/v1/collection/simulate",
        &json!({"policy": "greedy", "deals": 200, "difficulty": {"beginner": true}}),
    );
    assert_eq!(code, 200, "{sim}");
    assert_eq!(sim["deals"], 200);
    assert_eq!(sim["max_score"], 16);
    assert_eq!(sim["status"], "ok");
    assert!(sim["histogram"].as_object().unwrap().len() > 1);

    // Over the synchronous cap: a 422 pointing to jobs; as a job it is accepted.
    let (code, problem) = post(
        &s,
        "/v1/collection/simulate",
        &json!({"policy": "random", "deals": 20000}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "deals");
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "collection_simulate", "policy": "random", "deals": 20000}),
    );
    assert_eq!(code, 202, "{job}");
    let done = wait_job(&s, job["id"].as_str().unwrap(), terminal, 120);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["result"]["deals"], 20000);
    let (code, problem) = post(
        &s,
        "/v1/collection/simulate",
        &json!({"policy": "greedy", "deals": 10, "difficulty": {"remove_wilds": 5}}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "difficulty.remove_wilds");
}

#[test]
fn the_collection_optimum_is_served_replayable_and_bounded() {
    let s = Server::start(&[]);
    let (_, deal) = post(&s, "/v1/collection/deal", &json!({"seed": 5}));
    let (code, best) = post(&s, "/v1/collection/solve", &json!({"deal": deal}));
    assert_eq!(code, 200, "{best}");
    assert!(best["proven"].as_bool().unwrap(), "{best}");
    assert_eq!(best["score"], best["upper_bound"]);
    assert_eq!(best["budget"], "ok");
    // The moves replay through /v1/collection/play to the same score, and no policy beats
    // the proven optimum.
    let (code, replayed) = post(
        &s,
        "/v1/collection/play",
        &json!({"deal": deal, "moves": best["moves"]}),
    );
    assert_eq!(code, 200, "{replayed}");
    assert_eq!(replayed["score"], best["score"]);
    for policy in ["greedy", "lookahead"] {
        let (_, played) = post(
            &s,
            "/v1/collection/play",
            &json!({"deal": deal, "policy": policy}),
        );
        assert!(played["score"].as_i64().unwrap() <= best["score"].as_i64().unwrap());
    }

    // Bad sizes name their field; a study too big to answer at once points to jobs.
    let (code, problem) = post(
        &s,
        "/v1/collection/solve",
        &json!({"deal": deal, "max_entries": 0}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "max_entries");
    let (code, problem) = post(&s, "/v1/collection/study", &json!({"deals": 101}));
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "deals");
    let (code, study) = post(
        &s,
        "/v1/collection/study",
        &json!({"deals": 2, "seed": 5, "timeout_each_ms": 5000}),
    );
    assert_eq!(code, 200, "{study}");
    assert_eq!(study["summary"]["deals"], 2);
    assert_eq!(study["results"][0]["seed"], 5);
    assert_eq!(study["results"][0]["optimum"], best["score"]);
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "collection_solve", "deal": deal}),
    );
    assert_eq!(code, 202, "{job}");
    let done = wait_job(&s, job["id"].as_str().unwrap(), terminal, 120);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["result"]["score"], best["score"]);
}

#[test]
fn an_optimum_search_over_the_memory_limit_is_refused_with_its_estimate() {
    let s = Server::start(&["--max-memory", "400"]);
    let (_, deal) = post(&s, "/v1/collection/deal", &json!({"seed": 1}));
    let (code, problem) = post(
        &s,
        "/v1/collection/solve",
        &json!({"deal": deal, "max_entries": 10_000_000}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "max_entries");
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("about 664 MB"), "{detail}");
    // The default table and beam fit.
    let (code, best) = post(&s, "/v1/collection/solve", &json!({"deal": deal}));
    assert_eq!(code, 200, "{best}");
}

#[test]
fn external_solvers_come_only_from_the_servers_allowlist() {
    let fake = format!(
        "wrong=sh {}/tests/data/solvers/wrong-model.sh {{cnf}}",
        env!("CARGO_MANIFEST_DIR")
    );
    let s = Server::start(&["--solver", &fake, "--solver", "minisat"]);
    let (code, v) = get(&s, "/v1/engines");
    assert_eq!(code, 200, "{v}");
    let names: Vec<&str> = v["solvers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["wrong", "minisat"]);
    let (_, openapi) = get(&s, "/openapi.json");
    assert!(openapi["paths"]["/v1/engines"].is_object());
    // A solver the server does not list is refused, even one installed on its PATH.
    let body = json!({"instance": nauck(), "engine": "ext", "solver": "cadical"});
    let (code, v) = post(&s, "/v1/solve", &body);
    assert_eq!(code, 422, "{v}");
    assert!(
        v["detail"]
            .as_str()
            .unwrap()
            .contains("not on this server's list"),
        "{v}"
    );
    assert_eq!(v["field"], "solver", "{v}");
    // The same as a job, and for a count.
    let mut job = body.clone();
    job["op"] = json!("solve");
    let (code, v) = post(&s, "/v1/jobs", &job);
    assert_eq!((code, &v["field"]), (422, &json!("solver")), "{v}");
    let count = json!({"instance": nauck(), "engine": "ext", "solver": "cadical", "limit": 1});
    let (code, v) = post(&s, "/v1/count", &count);
    assert_eq!((code, &v["field"]), (422, &json!("solver")), "{v}");
    // A request cannot give a command: the solver field is a name.
    let body = json!({"instance": nauck(), "engine": "ext", "solver": "sh -c 'rm -rf /'"});
    let (code, v) = post(&s, "/v1/solve", &body);
    assert_eq!(code, 422, "{v}");
    assert!(v["field"].is_string(), "{v}");
    // A listed solver whose model is wrong is a server-side failure, never an answer.
    let body = json!({"instance": nauck(), "engine": "ext", "solver": "wrong"});
    let (code, v) = post(&s, "/v1/solve", &body);
    assert_eq!(code, 500, "{v}");
    if queens::engine::ext::find_program("minisat").is_some() {
        let body = json!({"instance": nauck(), "engine": "ext", "solver": "minisat"});
        let (code, v) = post(&s, "/v1/solve", &body);
        assert_eq!(code, 200, "{v}");
        assert_verified(&nauck(), &v["queens"]);
    } else {
        need::missing("minisat", "not on PATH; the minisat request is skipped");
    }
}

/// An external solver is named as on the command line, `"engine": "ext:NAME"`, or as
/// `"engine": "ext", "solver": "NAME"`, on every endpoint that takes an engine; a `solver`
/// beside the word that names another is refused by its field.
#[test]
fn the_engine_word_ext_solver_reads_as_on_the_command_line() {
    let giveup = format!(
        "giveup=sh {}/tests/data/solvers/unknown.sh {{cnf}}",
        env!("CARGO_MANIFEST_DIR")
    );
    let s = Server::start(&["--solver", &giveup]);
    for body in [
        json!({"instance": {"n": 6}, "engine": "ext:giveup"}),
        json!({"instance": {"n": 6}, "engine": "ext", "solver": "giveup"}),
        json!({"instance": {"n": 6}, "engine": "ext:giveup", "solver": "giveup"}),
        json!({"instance": {"n": 6}, "engine": "ext:giveup:seq", "encoding": "seq"}),
    ] {
        let (code, v) = post(&s, "/v1/solve", &body);
        assert_eq!(
            (code, &v["status"]),
            (200, &json!("unknown")),
            "{body}: {v}"
        );
        let mut count = body.clone();
        count["limit"] = json!(1);
        let (code, v) = post(&s, "/v1/count", &count);
        assert_eq!(code, 200, "{count}: {v}");
        let mut job = body.clone();
        job["op"] = json!("solve");
        let (code, v) = post(&s, "/v1/jobs", &job);
        assert_eq!(code, 202, "{job}: {v}");
        // explain reads the engine, then refuses an external solver for what it is.
        let (code, v) = post(&s, "/v1/explain", &body);
        assert_eq!((code, &v["field"]), (422, &json!("engine")), "{body}: {v}");
        assert!(
            v["detail"].as_str().unwrap().contains("not race or ext"),
            "{v}"
        );
    }
    for (body, field) in [
        (
            json!({"instance": {"n": 6}, "engine": "ext:giveup", "solver": "other"}),
            "solver",
        ),
        (
            json!({"instance": {"n": 6}, "engine": "ext:giveup:seq", "encoding": "pairwise"}),
            "encoding",
        ),
        (json!({"instance": {"n": 6}, "engine": "ext:"}), "engine"),
    ] {
        let (code, v) = post(&s, "/v1/solve", &body);
        assert_eq!((code, &v["field"]), (422, &json!(field)), "{body}: {v}");
        let mut job = body.clone();
        job["op"] = json!("solve");
        let (code, v) = post(&s, "/v1/jobs", &job);
        assert_eq!((code, &v["field"]), (422, &json!(field)), "{job}: {v}");
    }
}

/// A throw-away Postgres server for the replica tests.
#[path = "support/postgres.rs"]
mod pg;

/// Three replicas on one Postgres, one SIGKILLed while it runs jobs: every job ends once, the
/// killed replica's jobs run again elsewhere after its lease (and say so in `attempts`), any
/// replica answers for any job, and a cancel sent to one replica stops the work on another.
#[test]
fn replicas_on_one_postgres_lose_no_job_when_one_is_killed() {
    let Some(url) = pg::database("replicas") else {
        return;
    };
    let args = ["--store", &url, "--lease-ms", "2000", "--workers", "3"];
    let mut replicas: Vec<Server> = (0..3).map(|_| Server::start(&args)).collect();
    for s in &replicas {
        let (code, ready) = get(s, "/readyz");
        assert_eq!(
            (code, &ready["store"]),
            (200, &json!("postgres")),
            "{ready}"
        );
    }
    let submit = |s: &Server, body: &Value| -> String {
        let (code, job) = post(s, "/v1/jobs", body);
        assert_eq!(code, 202, "{job}");
        job["id"].as_str().unwrap().to_string()
    };

    // Six jobs of six seconds fill the 3 × 2 job slots: each replica runs two of them.
    let slow_body = json!({"op": "count", "instance": {"n": 20}, "timeout_ms": 6000});
    let slow: Vec<String> = (0..6)
        .map(|i| submit(&replicas[i % 3], &slow_body))
        .collect();
    for id in &slow {
        wait_job(&replicas[0], id, |j| j["status"] == "running", 20);
    }
    // Small solves queue up behind them, round-robin, 60 before the kill and 240 after.
    let small = |i: usize| json!({"n": 4 + i % 20});
    let mut jobs: Vec<(String, usize)> = (0..60)
        .map(|i| {
            (
                submit(
                    &replicas[i % 3],
                    &json!({"op": "solve", "instance": small(i)}),
                ),
                i,
            )
        })
        .collect();
    let killed = replicas.remove(2);
    unsafe_kill(killed.pid(), "KILL");
    drop(killed);
    jobs.extend((60..300).map(|i| {
        let id = submit(
            &replicas[i % 2],
            &json!({"op": "solve", "instance": small(i)}),
        );
        (id, i)
    }));

    // Every job is polled from the replica that did not take it (or a surviving one).
    let until = Instant::now() + Duration::from_secs(45);
    let mut pending: Vec<(String, usize)> = jobs.clone();
    let mut ended = std::collections::HashMap::new();
    while !pending.is_empty() {
        assert!(Instant::now() < until, "{} jobs never ended", pending.len());
        pending.retain(|(id, i)| {
            let (code, job) = get(&replicas[(i + 1) % 2], &format!("/v1/jobs/{id}"));
            assert_eq!(code, 200, "{job}");
            if terminal(&job) {
                ended.insert(id.clone(), job);
                false
            } else {
                true
            }
        });
        std::thread::sleep(Duration::from_millis(100));
    }
    for (id, i) in &jobs {
        let job = &ended[id];
        assert_eq!(job["status"], "done", "{job}");
        assert_eq!(job["result"]["status"], "sat", "{job}");
        assert_verified(&small(*i), &job["result"]["queens"]);
    }
    let small_retried = jobs
        .iter()
        .filter(|(id, _)| ended[id]["attempts"] != 1)
        .count();
    assert_eq!(small_retried, 0, "no small job ran on the killed replica");
    // The killed replica's two slow jobs ran again on the others after its lease.
    let mut attempts = Vec::new();
    for id in &slow {
        let job = wait_job(&replicas[1], id, terminal, 30);
        assert_eq!(job["status"], "done", "{job}");
        assert_eq!(job["result"]["status"], "timeout", "{job}");
        attempts.push(job["attempts"].as_u64().unwrap());
    }
    attempts.sort();
    assert_eq!(
        attempts,
        [1, 1, 1, 1, 2, 2],
        "retried after the lease, and said so"
    );
    let metrics = |s: &Server| call("GET", &s.url("/metrics"), None).2;
    let requeued: u64 = replicas
        .iter()
        .map(|s| {
            metrics(s)
                .lines()
                .find_map(|l| l.strip_prefix("queens_jobs_requeued_total "))
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(requeued, 2, "each orphan put back once");

    // A cancel sent to one replica stops the work where it runs.
    let long = submit(&replicas[0], &json!({"op": "count", "instance": {"n": 20}}));
    wait_job(&replicas[1], &long, |j| j["status"] == "running", 10);
    let busy = |s: &Server| get(s, "/healthz").1["busy"].as_u64().unwrap();
    // The store says `running` from the claim on; the worker takes the job a moment later.
    let t = Instant::now();
    let owner = loop {
        if let Some(r) = (0..2).find(|&r| busy(&replicas[r]) == 1) {
            break r;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "a replica runs it");
        std::thread::sleep(Duration::from_millis(20));
    };
    let (code, _, text) = call(
        "DELETE",
        &replicas[1 - owner].url(&format!("/v1/jobs/{long}")),
        None,
    );
    assert_eq!(code, 200);
    let deleted: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(deleted["status"], "cancelled", "{deleted}");
    assert!(deleted["result"].is_null());
    let t = Instant::now();
    while replicas.iter().any(|s| busy(s) != 0) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the cancelled count still runs"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(get(&replicas[0], &format!("/v1/jobs/{long}")).0, 404);
}

#[test]
fn a_result_over_the_artifact_limit_fails_the_job_with_422() {
    let s = Server::start(&["--max-artifact", "1"]);
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "encode", "instance": {"n": 60}}),
    );
    assert_eq!(code, 202, "{job}");
    let job = wait_job(&s, job["id"].as_str().unwrap(), terminal, 30);
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["error"]["status"], 422, "{job}");
    let detail = job["error"]["detail"].as_str().unwrap();
    assert!(
        detail.contains("over this server's limit of 1048576 bytes"),
        "{detail}"
    );
    assert!(job["result"].is_null());
}

/// A job refused by its worker process (`queens op`, where a formula runs) fails with the
/// same problem body a synchronous call would get, the refused field included: the field
/// crosses the process boundary as data.
#[test]
fn a_job_refused_in_its_worker_process_names_the_field() {
    let s = Server::start(&["--max-memory", "20"]);
    // 20,000 variables: about 20.6 MB by the solver's estimate, over the 20 MB limit.
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve_cnf", "cnf": "p cnf 20000 1\n20000 0\n"}),
    );
    assert_eq!(code, 202, "{job}");
    let job = wait_job(&s, job["id"].as_str().unwrap(), terminal, 30);
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["error"]["status"], 422, "{job}");
    assert_eq!(job["error"]["field"], "cnf", "{job}");
    let detail = job["error"]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("field `cnf`: ") && detail.contains("memory limit of 20 MB"),
        "{detail}"
    );
}

/// A board past the complete engines is a solve job: done with `answered_by: local`, no
/// inline queens, the solution as column-per-row text at its link, which verifies; the same
/// board synchronously is refused (422 naming `instance.n`), and one over the memory limit
/// is refused before it is queued.
#[test]
fn big_boards_are_jobs_with_a_solution_download() {
    let s = Server::start(&["--max-memory", "200"]);
    let body = json!({"op": "solve", "instance": {"n": 200_000, "queens": [[0, 5]]}, "seed": 2});
    let (code, job) = post(&s, "/v1/jobs", &body);
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(&s, &id, terminal, 60);
    assert_eq!(done["status"], "done", "{done}");
    let result = &done["result"];
    assert_eq!(result["status"], "sat");
    assert_eq!(result["answered_by"], "local");
    assert!(result["queens"].is_null());
    let url = result["solution_url"].as_str().unwrap();
    assert_eq!(done["links"]["solution"], url);
    let (code, _, text) = call("GET", &s.url(url), None);
    assert_eq!(code, 200);
    let cols = queens::formats::columns::read("download", text.as_bytes()).unwrap();
    let problem = queens::Problem::sized(200_000)
        .unwrap()
        .with_fixed(&[(0, 5)])
        .unwrap();
    queens::verify::verify_columns(&problem, &cols).unwrap();
    // Synchronously: refused, pointing to jobs.
    let (code, v) = post(&s, "/v1/solve", &json!({"instance": {"n": 200_000}}));
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["field"], "instance.n");
    // Over --max-memory (200 MB): refused up front with the estimate.
    let (code, v) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": {"n": 100_000_000}}),
    );
    assert_eq!(code, 422, "{v}");
    assert!(v["detail"].as_str().unwrap().contains("MB"), "{v}");
}

/// `queens mod2 …` on the command line, its JSON.
fn mod2_cli(args: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_queens"))
        .arg("mod2")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// A JSON value without its timings, which differ from run to run.
fn untimed(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.remove("time_ms");
        for (_, x) in m.iter_mut() {
            *x = untimed(x.take());
        }
    }
    if let Value::Array(a) = &mut v {
        for x in a.iter_mut() {
            *x = untimed(x.take());
        }
    }
    v
}

#[test]
fn the_mod2_game_is_served_like_the_cli() {
    let s = Server::start(&[]);
    let dir = temp::dir("server");

    // check: the same answer as the command line's.
    let board = json!({"n": 4, "queens": [[0, 0], [1, 2]]});
    let file = dir.join("board.json");
    std::fs::write(&file, board.to_string()).unwrap();
    let (code, checked) = post(&s, "/v1/mod2/check", &json!({"instance": board}));
    assert_eq!(code, 200, "{checked}");
    // A board the instance format allows but the game does not (it keeps every square) is
    // refused before any work, not checked square by square.
    let (code, problem) = post(
        &s,
        "/v1/mod2/check",
        &json!({"instance": {"n": 2000, "queens": [[0, 0]]}}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "instance", "{problem}");
    assert_eq!(checked["state"], "unlocked");
    assert_eq!(checked, mod2_cli(&["check", file.to_str().unwrap()]));
    let (code, problem) = post(
        &s,
        "/v1/mod2/check",
        &json!({"instance": {"n": 2, "regions": ["AB", "AB"]}}),
    );
    assert_eq!(code, 422, "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().contains("plain board"),
        "{problem}"
    );
    assert_eq!(problem["field"], "instance", "{problem}");

    // solve: the winner, as the command line finds it.
    let (code, solved) = post(&s, "/v1/mod2/solve", &json!({"n": 4}));
    assert_eq!(code, 200, "{solved}");
    assert_eq!(solved["status"], "ok");
    assert_eq!(untimed(solved), untimed(mod2_cli(&["solve", "--n", "4"])));
    // The retrograde sweep takes hours: a job, not a synchronous call; past 11, refused.
    let (code, problem) = post(&s, "/v1/mod2/solve", &json!({"n": 6}));
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "n");
    assert!(problem["detail"]
        .as_str()
        .unwrap()
        .contains("POST /v1/jobs"));
    // n ≤ 5 sweeps in well under a second: answered on the call, and over the memory
    // limit it is refused naming `n`.
    let (code, swept) = post(
        &s,
        "/v1/mod2/solve",
        &json!({"n": 5, "method": "retrograde"}),
    );
    assert_eq!(code, 200, "{swept}");
    assert_eq!(swept["method"], "retrograde", "{swept}");
    assert_eq!(
        untimed(swept.clone())["winner"],
        untimed(mod2_cli(&["solve", "--n", "5"]))["winner"]
    );
    let small = Server::start(&["--max-memory", "20"]);
    let (code, problem) = post(
        &small,
        "/v1/mod2/solve",
        &json!({"n": 5, "method": "retrograde"}),
    );
    assert_eq!((code, &problem["field"]), (422, &json!("n")), "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().contains("needs about"),
        "{problem}"
    );
    let (code, problem) = post(&s, "/v1/mod2/solve", &json!({"n": 12, "method": "memo"}));
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "n", "{problem}");
    assert!(
        problem["detail"].as_str().unwrap().contains("field `n`"),
        "{problem}"
    );

    // optimum: the most queens on a reachable 3×3 board, and its move order replays.
    let (code, max) = post(&s, "/v1/mod2/optimum", &json!({"n": 3, "question": "max"}));
    assert_eq!(code, 200, "{max}");
    assert_eq!(max["optimal"], true, "{max}");
    assert_eq!(max["status"], "ok");
    assert_eq!(
        untimed(max.clone()),
        untimed(mod2_cli(&["max", "--n", "3"]))
    );
    let (code, replayed) = post(&s, "/v1/mod2/replay", &json!({"game": max}));
    assert_eq!(code, 200, "{replayed}");
    assert_eq!(replayed["status"], "legal", "{replayed}");
    assert_eq!(replayed["queens"], max["queens"]);
    // The same square twice is illegal, named by its index; a false claim is named too.
    let (code, replayed) = post(
        &s,
        "/v1/mod2/replay",
        &json!({"game": {"n": 3, "moves": [[0, 0], [0, 0]]}}),
    );
    assert_eq!(code, 200, "{replayed}");
    assert_eq!(replayed["status"], "illegal");
    assert_eq!(replayed["illegal"]["index"], 1);
    let (code, replayed) = post(
        &s,
        "/v1/mod2/replay",
        &json!({"game": {"n": 3, "moves": [[0, 0]], "queens": 2}}),
    );
    assert_eq!(code, 200, "{replayed}");
    assert_eq!(replayed["status"], "false_claim");
    // A bad move list names the field inside `game`, in the detail and as data.
    let (code, problem) = post(&s, "/v1/mod2/replay", &json!({"game": {"moves": []}}));
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "game.n", "{problem}");
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("field `game.n`"),
        "{problem}"
    );
    let (code, problem) = post(
        &s,
        "/v1/mod2/replay",
        &json!({"game": {"n": 3, "moves": [[0, 0], [0, 5]]}}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "game.moves[1]", "{problem}");
    let (code, problem) = post(&s, "/v1/mod2/replay", &json!({"game": [1, 2]}));
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "game", "{problem}");

    // As a job: the fewest queens on a locked 4×4 board, each bound with a checked proof.
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "mod2_optimum", "n": 4, "question": "min-lock"}),
    );
    assert_eq!(code, 202, "{job}");
    let done = wait_job(&s, job["id"].as_str().unwrap(), terminal, 120);
    assert_eq!(done["status"], "done", "{done}");
    let result = &done["result"];
    assert_eq!(result["optimal"], true, "{result}");
    assert_eq!(result["state"], "locked");
    assert!(
        result["calls"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["result"] == "unsat" && c["lemmas"].is_u64()),
        "{result}"
    );
    // A job body is checked like a synchronous one.
    let (code, problem) = post(&s, "/v1/jobs", &json!({"op": "mod2_solve", "n": "six"}));
    assert_eq!(code, 422, "{problem}");
    assert_eq!(problem["field"], "n");
    // The contract lists the routes.
    let (code, doc) = get(&s, "/openapi.json");
    assert_eq!(code, 200);
    for path in ["check", "replay", "solve", "optimum"] {
        assert!(
            doc["paths"][format!("/v1/mod2/{path}")]["post"].is_object(),
            "/v1/mod2/{path} is not documented"
        );
    }
}

#[test]
fn a_cnf_job_answers_with_a_model_or_a_checked_proof() {
    let s = Server::start(&[]);
    // x1 and not x1: unsatisfiable; the job keeps the LRAT proof.
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve_cnf", "cnf": "p cnf 1 2\n1 0\n-1 0\n"}),
    );
    assert_eq!(code, 202, "{job}");
    let done = wait_job(&s, job["id"].as_str().unwrap(), terminal, 60);
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(done["result"]["status"], "unsat", "{done}");
    let id = job["id"].as_str().unwrap();
    let (code, _, proof) = call("GET", &s.url(&format!("/v1/jobs/{id}/proof")), None);
    assert_eq!(code, 200, "{proof}");
    assert!(!proof.trim().is_empty(), "an empty proof");
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve_cnf", "cnf": "p cnf 2 2\n1 2 0\n-1 0\n"}),
    );
    assert_eq!(code, 202, "{job}");
    let done = wait_job(&s, job["id"].as_str().unwrap(), terminal, 60);
    assert_eq!(done["result"]["status"], "sat", "{done}");
    assert_eq!(done["result"]["model"], json!([-1, 2]));
    let (code, problem) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve_cnf", "cnf": "p cnf 1 1\nx 0\n"}),
    );
    assert_eq!(code, 422, "{problem}");
    assert_eq!(
        call(
            "POST",
            &s.url("/v1/jobs"),
            Some("{\"op\":\"solve_cnf\",\"cnf\":\"p cnf 1 1\\nx 0\\n\"}")
        )
        .1,
        "application/problem+json"
    );
}

/// A proof job's proof streams to a file of the artifacts folder, past the store's size
/// limit for stored bytes (`--max-artifact 1`: 1 MB; this proof is about 4 MB), and is served
/// from there with its length; it checks, and it is still served after a restart.
#[test]
fn a_proof_job_streams_its_proof_to_the_artifacts_folder_and_keeps_it_across_a_restart() {
    let data = temp::dir("server-artifacts");
    let artifacts = data.join("shared-artifacts");
    let args = [
        "--max-artifact",
        "1",
        "--artifacts",
        artifacts.to_str().unwrap(),
    ];
    let instance = json!({"n": 16, "diags": [[15, 0], [25, 1], [8, 1], [25, 0], [17, 0],
        [12, 0], [26, 0], [29, 1], [7, 0], [23, 0], [13, 1], [5, 0], [0, 1], [1, 1], [30, 1],
        [0, 0]]});
    let s = Serve::new().data(&data).args(args).start();
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": instance, "engine": "backtrack", "proof": "lrat"}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(&s, &id, terminal, 60);
    assert_eq!(done["status"], "done", "{done}");
    let info = &done["result"]["proof"];
    assert_eq!(info["checked"], true, "{done}");
    // The answer names no path on the server, only the downloads.
    assert!(
        info.get("path").is_none() && info.get("cnf").is_none(),
        "{info}"
    );
    let bytes = info["bytes"].as_u64().unwrap();
    assert!(
        bytes > 1 << 20,
        "a proof over the 1 MB of --max-artifact: {bytes}"
    );
    let on_disk = artifacts.join(&id).join("proof");
    assert_eq!(std::fs::metadata(&on_disk).unwrap().len(), bytes);
    // Nothing but the proof and the CNF is left in the job's folder.
    let mut names: Vec<String> = std::fs::read_dir(artifacts.join(&id))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["cnf", "proof"]);
    let download = |s: &Server| {
        let mut resp = agent()
            .get(&s.url(&format!("/v1/jobs/{id}/proof")))
            .call()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let header = |h: &str| {
            resp.headers()
                .get(h)
                .map(|v| v.to_str().unwrap().to_string())
        };
        assert_eq!(
            header("content-type").as_deref(),
            Some("application/octet-stream")
        );
        assert_eq!(header("content-length"), Some(bytes.to_string()));
        let proof = resp
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_vec()
            .unwrap();
        let (code, _, cnf) = call("GET", &s.url(&format!("/v1/jobs/{id}/cnf")), None);
        assert_eq!(code, 200);
        (proof, cnf)
    };
    let (proof, cnf) = download(&s);
    assert_eq!(proof.len() as u64, bytes);
    let formula = varisat::dimacs::DimacsParser::parse(cnf.as_bytes()).unwrap();
    queens::proof::check_proof(&formula, queens::proof::ProofFormat::Lrat, &proof)
        .expect("the served proof checks");
    assert_outside_checker_accepts("lrat-check", &cnf, &proof);
    // A job that ends with a solution leaves no folder behind.
    let (_, sat) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": nauck(), "engine": "backtrack", "proof": "lrat"}),
    );
    let sat_id = sat["id"].as_str().unwrap().to_string();
    let sat_done = wait_job(&s, &sat_id, terminal, 10);
    assert_eq!(sat_done["result"]["status"], "sat", "{sat_done}");
    assert!(!artifacts.join(&sat_id).exists());
    drop(s);
    // After a restart the store still names the file, and the file is served.
    let s = Serve::new().data(&data).args(args).start();
    let (again, cnf_again) = download(&s);
    assert!(again == proof && cnf_again == cnf);
}

#[test]
fn an_external_solvers_children_go_with_a_cancelled_or_late_job() {
    let dir = temp::dir("server-wrapper");
    let (script, marker) = procs::hanging_wrapper(&dir);
    let (late, late_marker) = procs::hanging_wrapper(&dir);
    let s = Server::start(&[
        "--workers",
        "3",
        "--solver",
        &format!("hang={} {{cnf}}", script.display()),
        "--solver",
        &format!("late={} {{cnf}}", late.display()),
    ]);
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": {"n": 6}, "engine": "ext", "solver": "hang"}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    assert!(
        procs::wait_for(&marker, Duration::from_secs(10)),
        "the wrapper never started its child"
    );
    // DELETE cancels the running job first (its answer is the job as it was), then removes it.
    let (code, _, body) = call("DELETE", &s.url(&format!("/v1/jobs/{id}")), None);
    assert_eq!(code, 200, "{body}");
    let job: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(job["status"], "cancelled", "{job}");
    assert_eq!(procs::survivors(&marker), Vec::<u32>::new());
    // Past its deadline the same: the answer comes at the deadline, nothing stays.
    let t = Instant::now();
    let (code, v) = post(
        &s,
        "/v1/solve",
        &json!({"instance": {"n": 6}, "engine": "ext", "solver": "late", "timeout_ms": 1000}),
    );
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["status"], "timeout", "{v}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(procs::survivors(&late_marker), Vec::<u32>::new());
}

#[test]
fn a_done_job_shows_its_result_not_its_last_progress() {
    let s = Server::start(&["--workers", "2"]);
    let (code, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "count", "instance": {"n": 13}}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let job = wait_job(&s, &id, terminal, 60);
    assert_eq!(job["status"], "done", "{job}");
    assert_eq!(job["result"]["count"], 73712, "{job}");
    // The count reported progress as it went; once done, the answer is the result.
    assert!(job["progress"].is_null(), "{job}");
}

/// The stores a test of retention runs on: SQLite, and Postgres when a throw-away server can
/// be started (`--store URL`).
fn each_store(test: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut stores = vec![("sqlite", Vec::new())];
    if let Some(url) = pg::database(test) {
        stores.push(("postgres", vec!["--store".to_string(), url]));
    }
    stores
}

/// A proof job (an UNSAT completion with an LRAT proof) run to its end; returns its id.
fn proof_job(s: &Server) -> String {
    let text = instance_file("unsolvable-completion.txt");
    let (code, job) = post(
        s,
        "/v1/jobs",
        &json!({"op": "solve", "instance": {"text": text}, "engine": "sat", "proof": "lrat"}),
    );
    assert_eq!(code, 202, "{job}");
    let id = job["id"].as_str().unwrap().to_string();
    let done = wait_job(s, &id, terminal, 60);
    assert_eq!(done["status"], "done", "{done}");
    id
}

#[test]
fn a_deleted_job_and_an_expired_one_are_gone_with_their_files() {
    for (store, args) in each_store("retention") {
        let artifacts = temp::dir("retention-artifacts");
        let s = Serve::new()
            .args(&args)
            .args(["--workers", "2", "--keep-finished", "3s", "--artifacts"])
            .args([&*artifacts])
            .start();
        let kept = proof_job(&s);
        let deleted = proof_job(&s);
        for id in [&kept, &deleted] {
            assert!(artifacts.join(id).join("proof").is_file(), "{store}");
        }
        // DELETE: the job as it was, then nothing: no job, no proof, no folder.
        let (code, _, text) = call("DELETE", &s.url(&format!("/v1/jobs/{deleted}")), None);
        assert_eq!(code, 200, "{store}: {text}");
        let view: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(view["status"], "done");
        assert!(view["links"]["proof"].is_null(), "{view}");
        for path in ["", "/proof", "/cnf", "/events"] {
            let (code, _) = get(&s, &format!("/v1/jobs/{deleted}{path}"));
            assert_eq!(code, 404, "{store}: {path}");
        }
        assert!(!artifacts.join(&deleted).exists(), "{store}");
        let (code, _, _) = call("DELETE", &s.url(&format!("/v1/jobs/{deleted}")), None);
        assert_eq!(code, 404, "{store}: twice");

        // A folder no job owns (a server killed between a delete and its files) goes with
        // the next sweep; anything else in the folder stays.
        let orphan = artifacts.join("0123456789abcdef0123456789abcdef");
        std::fs::create_dir(&orphan).unwrap();
        std::fs::write(orphan.join("proof"), b"half").unwrap();
        std::fs::create_dir(artifacts.join("lost+found")).unwrap();
        // A job still running is never expired, however long it runs.
        let (_, long) = post(
            &s,
            "/v1/jobs",
            &json!({"op": "count", "instance": {"n": 20}}),
        );
        let long = long["id"].as_str().unwrap().to_string();
        // Expired: --keep-finished after it finished, at the next sweep (every second here).
        let t = Instant::now();
        loop {
            let (code, job) = get(&s, &format!("/v1/jobs/{kept}"));
            if code == 404 {
                break;
            }
            assert_eq!(job["status"], "done", "{store}");
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "{store}: never expired"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        assert!(
            t.elapsed() > Duration::from_millis(1500),
            "{store}: {:?}",
            t.elapsed()
        );
        let (code, _) = get(&s, &format!("/v1/jobs/{kept}/proof"));
        assert_eq!(code, 404, "{store}");
        let gone = Instant::now();
        while artifacts.join(&kept).exists() || orphan.exists() {
            assert!(
                gone.elapsed() < Duration::from_secs(5),
                "{store}: files stayed"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(artifacts.join("lost+found").is_dir(), "{store}");
        let (_, job) = get(&s, &format!("/v1/jobs/{long}"));
        assert_eq!(job["status"], "running", "{store}: {job}");
        let (code, _, _) = call("DELETE", &s.url(&format!("/v1/jobs/{long}")), None);
        assert_eq!(code, 200);
    }
}

#[test]
fn the_artifacts_quota_refuses_proof_jobs_with_507_and_accepts_others() {
    for (store, args) in each_store("quota") {
        let artifacts = temp::dir("quota-artifacts");
        let s = Serve::new()
            .args(&args)
            .args([
                "--workers",
                "2",
                "--max-artifacts-total",
                "1",
                "--artifacts",
            ])
            .args([&*artifacts])
            .start();
        // Under the quota: accepted.
        proof_job(&s);
        // Over it (2 MB of other files): refused before anything is stored.
        std::fs::write(artifacts.join("filler"), vec![0u8; 2 << 20]).unwrap();
        std::thread::sleep(Duration::from_millis(1100));
        let text = instance_file("unsolvable-completion.txt");
        let body =
            json!({"op": "solve", "instance": {"text": text}, "engine": "sat", "proof": "lrat"});
        let (code, ctype, problem) = call("POST", &s.url("/v1/jobs"), Some(&body.to_string()));
        assert_eq!(code, 507, "{store}: {problem}");
        assert_eq!(ctype, "application/problem+json");
        let problem: Value = serde_json::from_str(&problem).unwrap();
        assert_eq!(problem["title"], "artifacts quota reached");
        assert_eq!(problem["field"], "proof");
        let detail = problem["detail"].as_str().unwrap();
        assert!(
            detail.contains("--max-artifacts-total") && detail.contains("1.0 MB"),
            "{detail}"
        );
        // Work without a proof file is not held back.
        let (code, job) = post(&s, "/v1/jobs", &json!({"op": "solve", "instance": nauck()}));
        assert_eq!(code, 202, "{store}: {job}");
        // Room again: accepted again.
        std::fs::remove_file(artifacts.join("filler")).unwrap();
        std::thread::sleep(Duration::from_millis(1100));
        proof_job(&s);

        // A proof being written when the folder passes the quota (SAT work of minutes) is
        // stopped, its partial file removed, and its job fails with 507: never done.
        let (code, job) = post(
            &s,
            "/v1/jobs",
            &json!({"op": "solve", "instance": sat_hard(), "engine": "sat", "proof": "drat"}),
        );
        assert_eq!(code, 202, "{store}: {job}");
        let id = job["id"].as_str().unwrap().to_string();
        wait_job(&s, &id, |j| j["status"] == "running", 10);
        let t = Instant::now();
        while !artifacts.join(&id).is_dir() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "{store}: no folder for the proof"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::write(artifacts.join("filler"), vec![0u8; 2 << 20]).unwrap();
        let failed = wait_job(&s, &id, terminal, 10);
        assert_eq!(failed["status"], "failed", "{store}: {failed}");
        assert_eq!(failed["error"]["status"], 507, "{failed}");
        assert_eq!(failed["error"]["title"], "artifacts quota reached");
        assert!(failed["links"]["proof"].is_null(), "{failed}");
        let (code, _) = get(&s, &format!("/v1/jobs/{id}/proof"));
        assert_eq!(code, 409, "{store}");
        assert!(
            !artifacts.join(&id).exists(),
            "{store}: the partial proof is gone"
        );
    }
}

/// On a shared store, a job that outlives the grace goes straight back to the queue (not
/// failed, not left to its lease), and another replica runs it.
#[test]
fn sigterm_on_postgres_hands_jobs_that_outlive_the_grace_back_to_the_queue() {
    let Some(url) = pg::database("grace") else {
        return;
    };
    let args = ["--store", &url, "--workers", "2", "--shutdown-grace", "1s"];
    let mut s = Server::start(&args);
    let (_, job) = post(
        &s,
        "/v1/jobs",
        &json!({"op": "count", "instance": {"n": 20}}),
    );
    let id = job["id"].as_str().unwrap().to_string();
    wait_job(&s, &id, |j| j["status"] == "running", 10);
    let t = Instant::now();
    unsafe_kill(s.pid(), "TERM");
    let status = s.wait();
    assert!(status.success(), "{status:?}: {}", s.log().join("\n"));
    assert!(t.elapsed() < Duration::from_secs(6), "{:?}", t.elapsed());
    let store =
        queens::server::store::Store::connect(&url, queens::server::store::Options::default())
            .unwrap();
    let stored = store.get(&id).unwrap().unwrap();
    assert_eq!(
        (stored.status, stored.attempts),
        (queens::server::store::JobStatus::Queued, 1)
    );
    let other = Server::start(&["--store", &url, "--workers", "2"]);
    let job = wait_job(&other, &id, |j| j["attempts"] == 2, 10);
    assert_eq!(job["status"], "running", "{job}");
    let (code, _, _) = call("DELETE", &other.url(&format!("/v1/jobs/{id}")), None);
    assert_eq!(code, 200);
}

/// A request with `Origin` (and a preflight's `Access-Control-Request-*` for `OPTIONS`):
/// its status and headers (names in lower case, repeated ones joined with `, `).
fn with_origin(
    s: &Server,
    method: &str,
    path: &str,
    origin: &str,
    key: Option<&str>,
    body: Option<&str>,
) -> (u16, std::collections::BTreeMap<String, String>) {
    let a = agent();
    let url = s.url(path);
    let resp = match method {
        "OPTIONS" => a
            .options(&url)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type",
            )
            .call(),
        "GET" => {
            let mut r = a.get(&url).header("origin", origin);
            if let Some(k) = key {
                r = r.header("authorization", &format!("Bearer {k}"));
            }
            r.call()
        }
        _ => {
            let mut r = a
                .post(&url)
                .header("origin", origin)
                .header("content-type", "application/json");
            if let Some(k) = key {
                r = r.header("authorization", &format!("Bearer {k}"));
            }
            r.send(body.unwrap_or("{}").as_bytes())
        }
    };
    let resp = resp.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let mut headers = std::collections::BTreeMap::<String, String>::new();
    for (name, value) in resp.headers() {
        let value = value.to_str().unwrap().to_string();
        headers
            .entry(name.as_str().to_ascii_lowercase())
            .and_modify(|v| {
                v.push_str(", ");
                v.push_str(&value);
            })
            .or_insert(value);
    }
    (resp.status().as_u16(), headers)
}

/// The comma-separated items of header `name`, in lower case.
fn header_items(headers: &std::collections::BTreeMap<String, String>, name: &str) -> Vec<String> {
    headers.get(name).map_or_else(Vec::new, |v| {
        v.split(',')
            .map(|i| i.trim().to_ascii_lowercase())
            .collect()
    })
}

#[test]
fn cors_answers_listed_origins_only_and_nothing_by_default() {
    const APP: &str = "http://app.example:3000";
    const KEY: &str = "cors-key-0123456789abcdef";
    let solve = r#"{"instance": {"n": 8, "queens": ["b4", "d5"]}}"#;
    // By default: no CORS at all, as before the flag.
    let plain = Server::start(&[]);
    let (status, headers) = with_origin(&plain, "OPTIONS", "/v1/solve", APP, None, None);
    assert_eq!(status, 405, "{headers:?}");
    assert!(
        !headers.keys().any(|h| h.starts_with("access-control-")),
        "{headers:?}"
    );
    let (status, headers) = with_origin(&plain, "POST", "/v1/solve", APP, None, Some(solve));
    assert_eq!(status, 200);
    assert!(
        !headers.keys().any(|h| h.starts_with("access-control-")),
        "{headers:?}"
    );
    drop(plain);

    let s = Serve::new()
        .args([
            "--cors-origin",
            APP,
            "--cors-origin",
            "https://other.example",
        ])
        .file("--api-keys", "keys", &format!("app:{KEY}\n"))
        .start();
    // A preflight is answered on every route, before the key check (a browser sends no key
    // on it), listing the methods and the headers a page sends, the API key's among them.
    for path in [
        "/v1/solve",
        "/v1/jobs",
        "/v1/jobs/0123/events",
        "/healthz",
        "/no/such",
    ] {
        let (status, headers) = with_origin(&s, "OPTIONS", path, APP, None, None);
        assert_eq!(status, 200, "{path}: {headers:?}");
        assert_eq!(headers["access-control-allow-origin"], APP, "{path}");
        let methods = header_items(&headers, "access-control-allow-methods");
        for m in ["get", "post", "delete"] {
            assert!(methods.contains(&m.to_string()), "{path}: {methods:?}");
        }
        let allowed = header_items(&headers, "access-control-allow-headers");
        for h in ["authorization", "content-type"] {
            assert!(allowed.contains(&h.to_string()), "{path}: {allowed:?}");
        }
        assert!(
            header_items(&headers, "vary").contains(&"origin".to_string()),
            "{headers:?}"
        );
    }
    // An origin not listed gets no allow-origin, so its browser refuses the answer.
    let (_, headers) = with_origin(
        &s,
        "OPTIONS",
        "/v1/solve",
        "http://evil.example",
        None,
        None,
    );
    assert!(
        !headers.contains_key("access-control-allow-origin"),
        "{headers:?}"
    );
    let (status, headers) = with_origin(
        &s,
        "POST",
        "/v1/solve",
        "http://evil.example",
        Some(KEY),
        Some(solve),
    );
    assert_eq!(status, 200);
    assert!(
        !headers.contains_key("access-control-allow-origin"),
        "{headers:?}"
    );

    // Real answers carry it for a listed origin, with what a page needs to read exposed:
    // a 200, a job's 202 and its Location, and problem+json errors (401, 422, 404).
    let (status, headers) = with_origin(&s, "POST", "/v1/solve", APP, Some(KEY), Some(solve));
    assert_eq!(status, 200);
    assert_eq!(headers["access-control-allow-origin"], APP);
    assert!(
        header_items(&headers, "vary").contains(&"origin".to_string()),
        "{headers:?}"
    );
    let exposed = header_items(&headers, "access-control-expose-headers");
    for h in ["location", "retry-after", "x-request-id"] {
        assert!(exposed.contains(&h.to_string()), "{exposed:?}");
    }
    let job = r#"{"op": "solve", "instance": {"n": 8}}"#;
    let (status, headers) = with_origin(&s, "POST", "/v1/jobs", APP, Some(KEY), Some(job));
    assert_eq!(status, 202, "{headers:?}");
    assert_eq!(headers["access-control-allow-origin"], APP);
    assert!(headers["location"].starts_with("/v1/jobs/"), "{headers:?}");
    let (status, headers) = with_origin(&s, "GET", &headers["location"], APP, Some(KEY), None);
    assert_eq!(status, 200);
    assert_eq!(headers["access-control-allow-origin"], APP);
    for (key, body, want) in [
        (None, solve, 401),
        (
            Some(KEY),
            r#"{"instance": {"n": 8, "queens": [[9, 9]]}}"#,
            422,
        ),
    ] {
        let (status, headers) = with_origin(&s, "POST", "/v1/solve", APP, key, Some(body));
        assert_eq!(status, want, "{headers:?}");
        assert_eq!(headers["content-type"], "application/problem+json");
        assert_eq!(headers["access-control-allow-origin"], APP, "{want}");
    }
    let (status, headers) = with_origin(&s, "GET", "/v1/jobs/0123", APP, Some(KEY), None);
    assert_eq!(status, 404);
    assert_eq!(headers["access-control-allow-origin"], APP);
    drop(s);

    // `*`: any origin.
    let any = Server::start(&["--cors-origin", "*"]);
    let (status, headers) = with_origin(&any, "OPTIONS", "/v1/solve", APP, None, None);
    assert_eq!(status, 200);
    assert_eq!(headers["access-control-allow-origin"], "*");
    drop(any);

    // Something that is not an origin is refused at the start, naming the flag.
    for bad in [
        "https://app.example/",
        "app.example",
        "https://app.example:99999",
    ] {
        let out = Serve::new().args(["--cors-origin", bad]).output();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--cors-origin"), "{bad}: {err}");
    }
}

#[test]
fn a_halls_condition_refutation_gives_its_rows_and_columns_as_data() {
    // A 100×100 completion of a solution's first 90 rows, two free rows a and b closed but
    // for one free column: no row is empty, and Hall's condition says "no". The answer gives
    // the rows and the column as data beside the sentence.
    let s = Server::start(&[]);
    let (code, solved) = post(&s, "/v1/solve", &json!({"instance": {"n": 100}}));
    assert_eq!(code, 200, "{solved}");
    let mut col = [0usize; 100];
    for (r, c) in board(&solved["queens"]) {
        col[r] = c;
    }
    let fixed: Vec<[usize; 2]> = (0..90).map(|r| [r, col[r]]).collect();
    let free: Vec<usize> = (90..100).collect();
    for &a in &free {
        for &b in free.iter().filter(|&&b| b > a) {
            let keep = col[a];
            let blocked: Vec<[usize; 2]> = [a, b]
                .iter()
                .flat_map(|&r| free.iter().map(move |&f| [r, col[f]]))
                .filter(|cell| cell[1] != keep)
                .collect();
            let instance = json!({"n": 100, "queens": fixed, "blocked": blocked});
            let (code, v) = post(&s, "/v1/solve", &json!({"instance": instance}));
            assert_eq!(code, 200, "{v}");
            assert_eq!(v["status"], "unsat", "{v}");
            if v.get("hall").is_none() {
                // Row b has no usable cell at all: an empty line, said in words alone.
                continue;
            }
            assert_eq!(v["hall"], json!({"rows": [a, b], "columns": [keep]}), "{v}");
            let reason = v["reason"].as_str().unwrap();
            assert!(
                reason.contains(&format!("the 2 free rows [{a}, {b}]")),
                "{reason}"
            );
            return;
        }
    }
    panic!("no two free rows share a usable column");
}
