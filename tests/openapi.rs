//! The OpenAPI document is the contract: the real `queens serve` answers every route of its
//! own `/openapi.json`, in success and in error, and each answer is checked against the
//! document: its status must be documented for the route, its content type among that
//! status's, and its body valid against the schema given there (JSON Schema 2020-12, the
//! dialect of OpenAPI 3.1). The routes are read from the document, so a new route is covered
//! by the error cases at once, and fails here until it has a success case below.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

#[path = "support/serve.rs"]
mod serve;

use serve::{Serve, Server};

/// The server under test: two workers, logging only errors.
fn serve() -> Serve {
    Serve::new()
        .env("RUST_LOG", "error")
        .args(["--workers", "2"])
}

/// One answer: status, content type, body.
struct Answer {
    status: u16,
    ctype: String,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

fn send(method: &str, url: &str, body: Option<&[u8]>, key: Option<&str>) -> Answer {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let auth = key.map(|k| format!("Bearer {k}"));
    let resp = match method {
        "get" => {
            let mut r = agent.get(url);
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.call()
        }
        "delete" => {
            let mut r = agent.delete(url);
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.call()
        }
        "post" => {
            let mut r = agent.post(url).header("content-type", "application/json");
            if let Some(a) = &auth {
                r = r.header("authorization", a);
            }
            r.send(body.unwrap_or_default())
        }
        other => panic!("no client for method {other}"),
    };
    let mut resp = resp.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = resp.status().as_u16();
    let ctype = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = resp
        .body_mut()
        .with_config()
        .limit(1 << 26)
        .read_to_vec()
        .unwrap_or_else(|e| panic!("{method} {url}: reading the body: {e}"));
    Answer {
        status,
        ctype,
        body,
    }
}

/// A server and its own document; every answer it gives goes through [`Contract::check`].
struct Contract {
    server: Server,
    doc: Value,
    key: Option<String>,
    /// (method, route, status) seen, to show what was covered.
    seen: std::cell::RefCell<BTreeSet<(String, String, u16)>>,
}

impl Contract {
    fn new(server: Server) -> Contract {
        let a = send("get", &server.url("/openapi.json"), None, None);
        assert_eq!(a.status, 200);
        let doc = a.json();
        assert!(
            doc["openapi"].as_str().unwrap_or("").starts_with("3.1"),
            "an OpenAPI 3.1 document (JSON Schema 2020-12): {}",
            doc["openapi"]
        );
        Contract {
            server,
            doc,
            key: None,
            seen: Default::default(),
        }
    }

    /// Every (route, method) of the document.
    fn operations(&self) -> Vec<(String, String)> {
        let mut ops = Vec::new();
        for (path, item) in self.doc["paths"].as_object().expect("paths") {
            for method in ["get", "post", "put", "delete", "patch"] {
                if item.get(method).is_some() {
                    ops.push((path.clone(), method.to_string()));
                }
            }
        }
        ops
    }

    /// Calls `route` (a document path) at `url_path` and checks the answer against the
    /// document.
    fn call(&self, method: &str, route: &str, url_path: &str, body: Option<&[u8]>) -> Answer {
        let url = self.server.url(url_path);
        let a = send(method, &url, body, self.key.as_deref());
        self.check(method, route, &a);
        a
    }

    fn post(&self, route: &str, body: &Value) -> Answer {
        self.call("post", route, route, Some(body.to_string().as_bytes()))
    }

    fn check(&self, method: &str, route: &str, a: &Answer) {
        let what = format!(
            "{} {route} answered {} {}: {}",
            method.to_uppercase(),
            a.status,
            a.ctype,
            String::from_utf8_lossy(&a.body[..a.body.len().min(600)])
        );
        let op = &self.doc["paths"][route][method];
        assert!(op.is_object(), "not in the document: {what}");
        let response = &op["responses"][a.status.to_string()];
        assert!(
            response.is_object(),
            "status {} is not documented for {} {route}: {what}",
            a.status,
            method.to_uppercase()
        );
        self.seen
            .borrow_mut()
            .insert((method.into(), route.into(), a.status));
        let media = a.ctype.split(';').next().unwrap_or("").trim();
        let content = &response["content"];
        if content.is_null() {
            assert!(a.body.is_empty(), "no content is documented: {what}");
            return;
        }
        let entry = &content[media];
        assert!(
            entry.is_object(),
            "content type {media:?} is not documented (documented: {:?}): {what}",
            content.as_object().map(|c| c.keys().collect::<Vec<_>>())
        );
        let Some(schema) = entry.get("schema") else {
            return;
        };
        if media == "text/event-stream" {
            // The schema describes one event (`event`, `data`, …).
            for event in events(&a.body) {
                self.validate(schema, &event, &what);
            }
            return;
        }
        let body = if media == "application/json" || media.ends_with("+json") {
            a.json()
        } else if media.starts_with("text/") {
            Value::String(String::from_utf8(a.body.clone()).expect("text is UTF-8"))
        } else {
            return;
        };
        self.validate(schema, &body, &what);
    }

    /// Validates `value` against `schema`, whose `$ref`s point into the document.
    fn validate(&self, schema: &Value, value: &Value, what: &str) {
        let mut root = match schema {
            Value::Object(_) => schema.clone(),
            other => json!({ "allOf": [other] }),
        };
        root["components"] = self.doc["components"].clone();
        let validator = jsonschema::draft202012::new(&root)
            .unwrap_or_else(|e| panic!("the document's schema does not compile: {e}: {what}"));
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("at {}: {e}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "the body does not match the documented schema:\n{}\n{what}",
            errors.join("\n")
        );
    }

    /// True when `value` is valid against the component schema `name`.
    fn is_valid(&self, name: &str, value: &Value) -> bool {
        let mut root = json!({ "allOf": [self.component(name)] });
        root["components"] = self.doc["components"].clone();
        jsonschema::draft202012::new(&root)
            .unwrap_or_else(|e| panic!("the document's schema does not compile: {e}"))
            .is_valid(value)
    }

    /// The component schema `name` (`#/components/schemas/NAME`).
    fn component(&self, name: &str) -> Value {
        json!({ "$ref": format!("#/components/schemas/{name}") })
    }

    /// The schema of a route's 200 JSON answer.
    fn ok_schema(&self, route: &str) -> Value {
        self.doc["paths"][route]["post"]["responses"]["200"]["content"]["application/json"]
            ["schema"]
            .clone()
    }
}

/// The events of a server-sent event stream as objects (`{"event": …, "data": …}`).
fn events(body: &[u8]) -> Vec<Value> {
    let text = String::from_utf8(body.to_vec()).expect("an event stream is UTF-8");
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut event = serde_json::Map::new();
        let mut data: Vec<&str> = Vec::new();
        for line in block.lines() {
            if line.starts_with(':') {
                continue;
            }
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match name {
                "data" => data.push(value),
                "retry" => {
                    event.insert(name.into(), json!(value.parse::<u64>().expect("retry")));
                }
                _ => {
                    event.insert(name.into(), json!(value));
                }
            }
        }
        if !data.is_empty() {
            event.insert("data".into(), json!(data.join("\n")));
            out.push(Value::Object(event));
        }
    }
    out
}

/// A valid body for each synchronous `POST` route (the job body is the same plus `op`).
fn examples(c: &Contract) -> Vec<(&'static str, Value)> {
    // A unique region puzzle for hint and grade, and a deal for the card game.
    let generated = c.post(
        "/v1/generate",
        &json!({"kind": "regions", "n": 6, "seed": 2}),
    );
    assert_eq!(generated.status, 200);
    let puzzle = generated.json()["instances"][0].clone();
    let deal = c.post("/v1/collection/deal", &json!({"seed": 9}));
    assert_eq!(deal.status, 200);
    let deal = deal.json();
    // A model for decode: the CNF's cell lines name the variables of a 4×4 solution.
    let encoded = c.post("/v1/encode", &json!({"instance": {"n": 4}}));
    assert_eq!(encoded.status, 200);
    let solution = [(0, 1), (1, 3), (2, 0), (3, 2)];
    let lits: Vec<String> = String::from_utf8(encoded.body)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("c cell "))
        .map(|l| {
            let f: Vec<usize> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            let sign = if solution.contains(&(f[1], f[2])) {
                ""
            } else {
                "-"
            };
            format!("{sign}{}", f[0])
        })
        .collect();
    let model = format!("s SATISFIABLE\nv {} 0\n", lits.join(" "));
    // A mod-2 game to replay: the optimum's own line of play.
    let optimum = c.post("/v1/mod2/optimum", &json!({"n": 3, "question": "max"}));
    assert_eq!(optimum.status, 200);
    let game = optimum.json();
    vec![
        ("/v1/solve", json!({"instance": {"n": 8}})),
        ("/v1/count", json!({"instance": {"n": 6}})),
        (
            "/v1/check",
            json!({"instance": {"n": 4, "queens": [[0, 1], [1, 3], [2, 0], [3, 2]]}}),
        ),
        (
            "/v1/explain",
            json!({"instance": {"n": 4, "queens": [[0, 0]]}}),
        ),
        ("/v1/encode", json!({"instance": {"n": 5}})),
        ("/v1/decode", json!({"instance": {"n": 4}, "model": model})),
        (
            "/v1/generate",
            json!({"kind": "regions", "n": 5, "seed": 1}),
        ),
        ("/v1/hint", json!({"instance": puzzle})),
        ("/v1/grade", json!({"instance": puzzle, "steps": true})),
        ("/v1/collection/deal", json!({"seed": 3})),
        (
            "/v1/collection/play",
            json!({"deal": deal, "policy": "greedy", "seed": 1}),
        ),
        (
            "/v1/collection/simulate",
            json!({"policy": "greedy", "deals": 20}),
        ),
        ("/v1/collection/solve", json!({"deal": deal})),
        (
            "/v1/mod2/check",
            json!({"instance": {"n": 4, "queens": [[0, 0], [1, 2]]}}),
        ),
        ("/v1/mod2/solve", json!({"n": 4})),
        ("/v1/mod2/optimum", json!({"n": 3, "question": "max"})),
        ("/v1/mod2/replay", json!({"game": game})),
        (
            "/v1/collection/study",
            json!({"deals": 1, "seed": 5, "timeout_each_ms": 3000}),
        ),
        ("/v1/threshold", json!({"n": 8, "certificate": true})),
    ]
}

/// The job op whose body is a route's body: the discriminator's mapping names the schema
/// (`Job.solve`), whose properties are the route's request schema's plus `op`.
fn job_ops(c: &Contract) -> Vec<String> {
    let mapping = c.doc["components"]["schemas"]["Request"]["discriminator"]["mapping"]
        .as_object()
        .expect("the job body has a discriminator on op")
        .clone();
    mapping.keys().cloned().collect()
}

/// The synchronous route of a job op (`collection_deal` → `/v1/collection/deal`).
fn route_of(op: &str) -> String {
    format!("/v1/{}", op.replace('_', "/"))
}

fn wait_for_job(c: &Contract, id: &str) -> Value {
    let route = "/v1/jobs/{id}";
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        let a = c.call("get", route, &format!("/v1/jobs/{id}"), None);
        assert_eq!(a.status, 200);
        let v = a.json();
        if ["done", "failed", "cancelled"].contains(&v["status"].as_str().unwrap_or("")) {
            return v;
        }
        assert!(Instant::now() < until, "job {id} did not finish: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn submit(c: &Contract, body: &Value) -> String {
    let a = c.post("/v1/jobs", body);
    assert_eq!(a.status, 202, "{}", String::from_utf8_lossy(&a.body));
    a.json()["id"].as_str().unwrap().to_string()
}

#[test]
fn every_route_answers_as_its_document_says() {
    let c = Contract::new(serve().args(["--max-body", "4096"]).start());
    let ops = c.operations();
    let examples = examples(&c);

    // Errors every route with a body shares: not JSON, not an object, a field that is not
    // there, and a body over --max-body.
    let too_large = format!("{{\"pad\": \"{}\"}}", "x".repeat(5000));
    for (route, method) in &ops {
        if method == "post" {
            for (body, status) in [
                (&b"{"[..], 400),
                (b"[1, 2]", 422),
                (b"{\"no such field\": 1}", 422),
                (too_large.as_bytes(), 413),
            ] {
                let a = c.call(method, route, route, Some(body));
                assert_eq!(a.status, status, "POST {route}");
            }
        }
        if route.contains("{id}") {
            let a = c.call(method, route, &route.replace("{id}", "no-such-job"), None);
            assert_eq!(a.status, 404, "{method} {route}");
        }
    }

    // Success: every synchronous route with its example, and a 422 naming a field.
    for (route, method) in &ops {
        if method != "post" || route == "/v1/jobs" {
            continue;
        }
        let body = examples
            .iter()
            .find(|(r, _)| r == route)
            .map(|(_, b)| b)
            .unwrap_or_else(|| {
                panic!("POST {route} has no success case in tests/openapi.rs `examples`")
            });
        let a = c.post(route, body);
        assert_eq!(
            a.status,
            200,
            "POST {route}: {}",
            String::from_utf8_lossy(&a.body)
        );
        if body.get("instance").is_some() {
            let mut bad = body.clone();
            bad["instance"] = json!({"n": 0});
            let a = c.post(route, &bad);
            assert_eq!(a.status, 422, "POST {route}");
            assert!(
                a.json()["field"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with("instance"),
                "POST {route}: the problem names the instance's field"
            );
        }
    }
    // JSON with a wrong value is a 422 naming it, even where serde_json calls it syntax.
    let a = c.post(
        "/v1/check",
        &json!({"instance": {"n": 4}, "queens": [[1, 2, 3]]}),
    );
    assert_eq!(a.status, 422);
    assert_eq!(a.json()["field"], "queens[0]");
    for (route, method) in &ops {
        if method == "get" && !route.contains("{id}") {
            let a = c.call(method, route, route, None);
            assert_eq!(a.status, 200, "GET {route}");
        }
    }

    // Jobs: every op of the job body, its example with `op`; the stored result is the
    // synchronous route's answer and must match that route's schema too.
    let mut first = None;
    // Ops that exist only as jobs (no synchronous route): their body, and the schema their
    // result must match.
    let job_only = [(
        "solve_cnf",
        json!({"cnf": "p cnf 2 2\n1 2 0\n-1 0\n"}),
        "SolveCnfResponse",
    )];
    for op in job_ops(&c) {
        if let Some((_, body, schema)) = job_only.iter().find(|(o, _, _)| *o == op) {
            assert!(
                c.doc["components"]["schemas"][*schema].is_object(),
                "job op {op}: {schema} is not in the document"
            );
            let mut job = body.clone();
            job["op"] = json!(op);
            let id = submit(&c, &job);
            let view = wait_for_job(&c, &id);
            assert_eq!(view["status"], "done", "job {op}: {view}");
            c.validate(
                &c.component(schema),
                &view["result"],
                &format!("the result of job {op}"),
            );
            continue;
        }
        let route = route_of(&op);
        let body = examples
            .iter()
            .find(|(r, _)| *r == route)
            .map(|(_, b)| b.clone())
            .unwrap_or_else(|| {
                panic!("job op {op} has no success case in tests/openapi.rs `examples`")
            });
        let mut job = body.clone();
        job["op"] = json!(op);
        let id = submit(&c, &job);
        let view = wait_for_job(&c, &id);
        assert_eq!(view["status"], "done", "job {op}: {view}");
        if route != "/v1/encode" {
            c.validate(
                &c.ok_schema(&route),
                &view["result"],
                &format!("the result of job {op}"),
            );
        }
        first.get_or_insert(id);
    }
    let a = c.post("/v1/jobs", &json!({"op": "no-such-op"}));
    assert_eq!(a.status, 422);

    // Events of a finished job: the stream sends its state and ends; each event's data is
    // a job view.
    let id = first.expect("at least one job op");
    let a = c.call(
        "get",
        "/v1/jobs/{id}/events",
        &format!("/v1/jobs/{id}/events"),
        None,
    );
    assert_eq!(a.status, 200);
    let views: Vec<Value> = events(&a.body)
        .iter()
        .map(|e| serde_json::from_str(e["data"].as_str().unwrap()).expect("event data is JSON"))
        .collect();
    assert!(!views.is_empty(), "{}", String::from_utf8_lossy(&a.body));
    // contentSchema is an annotation to a validator: the data is checked here.
    for v in &views {
        c.validate(&c.component("JobView"), v, "an event's data");
    }
    assert_eq!(views.last().unwrap()["status"], "done");

    // An UNSAT solve with a proof: proof and CNF downloads; a SAT solve: the solution.
    let id = submit(
        &c,
        &json!({"op": "solve", "instance": {"n": 3}, "engine": "sat", "proof": "drat"}),
    );
    assert_eq!(wait_for_job(&c, &id)["status"], "done");
    for part in ["proof", "cnf"] {
        let route = format!("/v1/jobs/{{id}}/{part}");
        let a = c.call("get", &route, &format!("/v1/jobs/{id}/{part}"), None);
        assert_eq!(a.status, 200, "{part}");
    }
    // The same files by name, as `links.files` lists them; a name the job did not leave is
    // a 409, as a proof the job has not (yet) written.
    let route = "/v1/jobs/{id}/files/{name}";
    for (name, status) in [("proof", 200), ("cnf", 200), ("cover.txt", 409)] {
        let a = c.call("get", route, &format!("/v1/jobs/{id}/files/{name}"), None);
        assert_eq!(a.status, status, "{name}");
    }
    // No solution to download from an UNSAT job: a 409 problem (the job is there).
    let a = c.call(
        "get",
        "/v1/jobs/{id}/solution",
        &format!("/v1/jobs/{id}/solution"),
        None,
    );
    assert_eq!(a.status, 409);
    let id = submit(&c, &json!({"op": "solve", "instance": {"n": 8}}));
    assert_eq!(wait_for_job(&c, &id)["status"], "done");
    let a = c.call(
        "get",
        "/v1/jobs/{id}/solution",
        &format!("/v1/jobs/{id}/solution"),
        None,
    );
    assert_eq!(a.status, 200);
    assert_eq!(String::from_utf8(a.body).unwrap().lines().count(), 8);
    // No proof for a SAT job.
    let a = c.call(
        "get",
        "/v1/jobs/{id}/proof",
        &format!("/v1/jobs/{id}/proof"),
        None,
    );
    assert_eq!(a.status, 409);
    let a = c.call("delete", "/v1/jobs/{id}", &format!("/v1/jobs/{id}"), None);
    assert_eq!(a.status, 200);

    // Every operation of the document was called, and every one answered with success.
    let seen = c.seen.borrow();
    for (route, method) in &ops {
        assert!(
            seen.iter()
                .any(|(m, r, s)| m == method && r == route && (200..300).contains(s)),
            "{} {route} never answered with success here",
            method.to_uppercase()
        );
    }
}

#[test]
fn keys_and_rate_limits_answer_as_documented() {
    let mut c = Contract::new(
        serve()
            .file(
                "--api-keys",
                "keys",
                "tester:0123456789abcdef0123456789abcdef\n",
            )
            .args(["--rate-limit", "1"])
            .start(),
    );
    let body = json!({"instance": {"n": 5}});
    let a = c.post("/v1/solve", &body);
    assert_eq!(a.status, 401);
    c.key = Some("0123456789abcdef0123456789abcdef".into());
    let statuses: Vec<u16> = (0..5).map(|_| c.post("/v1/solve", &body).status).collect();
    assert!(statuses.contains(&429), "{statuses:?}");
}

/// The maximum the document gives `schema`'s property `field`.
fn maximum(c: &Contract, schema: &str, field: &str) -> u64 {
    c.doc["components"]["schemas"][schema]["properties"][field]["maximum"]
        .as_u64()
        .unwrap_or_else(|| panic!("{schema}.{field} has no maximum in the document"))
}

/// Fields that size the work are bounded in the document, and one past the bound is a 422
/// naming the field, on the synchronous route and as a job (a job of 2,395,554 lookahead
/// deals, which the document accepted, once held a worker for what would have been 110
/// hours).
#[test]
fn the_work_a_request_may_ask_for_is_bounded_as_documented() {
    let c = Contract::new(serve().args(["--timeout-ms", "2000"]).start());
    let sim = maximum(&c, "SimulateRequest", "deals");
    let sim_job = maximum(&c, "Job.collection_simulate", "deals");
    let study = maximum(&c, "StudyRequest", "deals");
    let study_job = maximum(&c, "Job.collection_study", "deals");
    assert_eq!(
        (sim, sim_job, study, study_job),
        (10_000, 100_000, 100, 1_000)
    );
    let samples = maximum(&c, "Lookahead", "samples");
    let cases = [
        (
            "/v1/collection/simulate",
            json!({"policy": "greedy", "deals": sim + 1}),
            "deals",
        ),
        (
            "/v1/jobs",
            json!({"op": "collection_simulate", "policy": "lookahead", "deals": sim_job + 1}),
            "deals",
        ),
        ("/v1/collection/study", json!({"deals": study + 1}), "deals"),
        (
            "/v1/jobs",
            json!({"op": "collection_study", "deals": study_job + 1}),
            "deals",
        ),
        (
            "/v1/collection/simulate",
            json!({"policy": "lookahead", "deals": 1,
                   "lookahead": {"candidates": 4, "samples": samples + 1}}),
            "lookahead.samples",
        ),
        (
            "/v1/mod2/solve",
            json!({"n": maximum(&c, "Mod2SolveRequest", "n") + 1}),
            "n",
        ),
        (
            "/v1/jobs",
            json!({"op": "mod2_optimum", "question": "max",
                   "n": maximum(&c, "Job.mod2_optimum", "n") + 1}),
            "n",
        ),
        (
            "/v1/collection/solve",
            json!({"deal": {"boxes": [], "hand": [], "pile": []},
                   "beam": maximum(&c, "CollectionSolveRequest", "beam") + 1}),
            "beam",
        ),
    ];
    for (route, body, field) in cases {
        let a = c.post(route, &body);
        assert_eq!(a.status, 422, "{route} {body}: {}", a.json());
        assert_eq!(a.json()["field"], field, "{route} {body}: {}", a.json());
    }
    // At the bound, accepted.
    let a = c.post(
        "/v1/collection/simulate",
        &json!({"policy": "greedy", "deals": sim}),
    );
    assert_eq!(a.status, 200, "{}", a.json());
}

/// An object of the document given as an array (serde reads a struct from an array of its
/// fields in order) is refused, naming the field: `{"difficulty": []}` was a deal.
#[test]
fn an_array_for_an_object_is_refused() {
    let c = Contract::new(serve().start());
    let cases = [
        (
            "/v1/collection/deal",
            json!({"difficulty": []}),
            "difficulty",
        ),
        (
            "/v1/collection/simulate",
            json!({"policy": "greedy", "deals": 1, "rules": [], "lookahead": {}}),
            "rules",
        ),
        (
            "/v1/jobs",
            json!({"op": "collection_simulate", "policy": "greedy", "deals": 1, "lookahead": [4, 0]}),
            "lookahead",
        ),
    ];
    for (route, body, field) in cases {
        let a = c.post(route, &body);
        assert_eq!(a.status, 422, "{route} {body}: {}", a.json());
        assert_eq!(a.json()["field"], field, "{route} {body}: {}", a.json());
    }
    let a = c.post("/v1/collection/deal", &json!({"difficulty": {}}));
    assert_eq!(a.status, 200);
}

/// Answers schemathesis runs over many seeds found wrong (`benches/contract-soak.sh`), each
/// kept: under load a bad request must not wait for a worker before its 422; work past its
/// deadline is a `timeout` answer or a 503, never a 500, and frees its worker.
#[test]
fn requests_under_load_and_past_their_deadline_answer_as_documented() {
    let c = Contract::new(serve().args(["--timeout-ms", "2000"]).start());
    // Both workers busy until their deadlines.
    let busy: Vec<_> = (0..2)
        .map(|_| {
            let url = c.server.url("/v1/mod2/solve");
            std::thread::spawn(move || {
                let body = json!({"n": 9, "method": "memo"}).to_string();
                send("post", &url, Some(body.as_bytes()), None)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let a = c.post(
        "/v1/collection/solve",
        &json!({"deal": {"boxes": [], "hand": [], "pile": []}}),
    );
    assert_eq!(a.status, 422, "{}", a.json());
    assert_eq!(a.json()["field"], "deal.boxes");
    assert!(
        start.elapsed() < Duration::from_millis(500),
        "the 422 waited {:?} for a worker",
        start.elapsed()
    );
    for t in busy {
        let a = t.join().unwrap();
        c.check("post", "/v1/mod2/solve", &a);
        assert_eq!(a.status, 200);
        assert_eq!(a.json()["status"], "timeout");
    }
    // A mod-2 check of a 533×533 board: once minutes of work (n⁴), a 500 after 20 s.
    let start = Instant::now();
    let body = json!({"instance": {"n": 533}}).to_string();
    let a = send(
        "post",
        &c.server.url("/v1/mod2/check"),
        Some(body.as_bytes()),
        None,
    );
    let took = start.elapsed();
    c.check("post", "/v1/mod2/check", &a);
    assert_eq!(a.status, 200);
    assert_eq!(a.json()["state"], "unlocked");
    assert!(took < Duration::from_secs(2), "answered after {took:?}");
    // The SAT encoding of a 21×21 mod-2 board, built before any solver runs: once a 500
    // "the worker did not answer within its time limit" after 12 s.
    let start = Instant::now();
    let a = c.post(
        "/v1/mod2/optimum",
        &json!({"encoding": "plan", "n": 21, "question": "max"}),
    );
    assert!(a.status == 200 || a.status == 503, "{}", a.json());
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "answered after {:?}",
        start.elapsed()
    );
    // The rank encoding of a 32×32 board: its building went on past the deadline (a 503
    // "did not finish" after 5 s, the worker busy longer still).
    let start = Instant::now();
    let a = c.post("/v1/mod2/optimum", &json!({"n": 32, "question": "max"}));
    assert_eq!(a.status, 200, "{}", a.json());
    assert_eq!(a.json()["optimal"], false);
    let a = c.post(
        "/v1/mod2/optimum",
        &json!({"encoding": "plan", "method": "sat", "n": 32, "question": "max",
                "symmetry": false}),
    );
    assert_eq!(a.status, 200, "{}", a.json());
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "answered after {:?}",
        start.elapsed()
    );
    let a = c.post("/v1/mod2/solve", &json!({"n": 1, "method": "auto"}));
    assert_eq!(a.status, 200);
}

/// Two types named `Encoding` (the at-most-one encoding, the mod-2 game's reachability
/// encoding) once shared one schema, the last one registered: a SAT solve's answer with
/// `"encoding": "auto"` then violated its documented schema. Each has its own now.
#[test]
fn each_encoding_has_its_own_schema() {
    let c = Contract::new(serve().start());
    let schemas = &c.doc["components"]["schemas"];
    assert!(
        schemas["Encoding"]["enum"]
            .as_array()
            .is_some_and(|e| e.contains(&json!("auto"))),
        "{}",
        schemas["Encoding"]
    );
    assert_eq!(schemas["Mod2Encoding"]["enum"], json!(["plan", "rank"]));
    let a = c.post(
        "/v1/solve",
        &json!({"engine": "sat", "cross_check": true, "instance": {"n": 1}}),
    );
    assert_eq!(a.status, 200);
    assert_eq!(a.json()["encoding"], "auto");
    let a = c.post(
        "/v1/solve",
        &json!({"engine": "sat", "encoding": "pairwise", "instance": {"n": 4}}),
    );
    assert_eq!(a.status, 200, "{}", a.json());
    let a = c.post(
        "/v1/mod2/optimum",
        &json!({"n": 3, "question": "max", "encoding": "rank"}),
    );
    assert_eq!(a.status, 200, "{}", a.json());
}

/// The operations of the table (`queens::ops::for_each`): name, route, declared bounds.
fn table() -> Vec<(
    &'static str,
    Option<&'static str>,
    &'static [queens::ops::Bound],
)> {
    struct Table(
        Vec<(
            &'static str,
            Option<&'static str>,
            &'static [queens::ops::Bound],
        )>,
    );
    impl queens::ops::Visit for Table {
        fn visit<O: queens::ops::Member>(&mut self) {
            self.0.push((O::NAME, O::PATH, O::BOUNDS));
        }
    }
    let mut table = Table(Vec::new());
    queens::ops::for_each(&mut table);
    table.0
}

/// The document speaks to a client, not to the code: no description or summary carries a
/// Rust doc link (`` [`solve`]'s request ``), which names a function a client never sees.
#[test]
fn no_description_in_the_document_links_to_the_code() {
    let c = Contract::new(serve().start());
    fn walk(v: &Value, path: &str, found: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, v) in m {
                    let here = format!("{path}/{k}");
                    match (k.as_str(), v) {
                        ("description" | "summary", Value::String(s)) if s.contains("[`") => {
                            found.push(format!("{here}: {s}"))
                        }
                        _ => walk(v, &here, found),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|v| walk(v, path, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(&c.doc, "", &mut found);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Every operation of the table is reachable from the service (its job body, and its route
/// when it declares one) and from the command line: the subcommand its name spells
/// (`collection_deal` is `queens collection deal`), or `queens op` for one that only runs in
/// a child process.
#[test]
fn every_operation_of_the_table_is_reachable_from_the_service_and_the_command_line() {
    let c = Contract::new(serve().start());
    let jobs = job_ops(&c);
    let table = table();
    assert!(table.len() >= 19, "{} operations in the table", table.len());
    for (name, path, _) in table {
        assert!(jobs.iter().any(|j| j == name), "{name}: no job body");
        if let Some(path) = path {
            assert!(
                c.doc["paths"][path]["post"].is_object(),
                "{name}: POST {path} is not in the document"
            );
        }
        let commands: Vec<Vec<&str>> = match (name, path) {
            // One operation, two questions of the game.
            ("mod2_optimum", _) => vec![vec!["mod2", "max"], vec!["mod2", "min-lock"]],
            (_, None) => vec![vec!["op"]],
            _ => vec![name.split('_').collect()],
        };
        for command in commands {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_queens"))
                .args(&command)
                .arg("--help")
                .output()
                .expect("queens runs");
            let help = String::from_utf8_lossy(&out.stdout);
            let usage = format!("Usage: queens {}", command.join(" "));
            assert!(
                out.status.success() && help.contains(&usage),
                "{name}: `queens {} --help` does not show its usage: {help}{}",
                command.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// The property `field` (a path through nested objects, `lookahead.samples`) of `schema`.
fn property<'a>(c: &'a Contract, schema: &str, field: &str) -> &'a Value {
    let schemas = &c.doc["components"]["schemas"];
    let mut at = &schemas[schema];
    for (i, key) in field.split('.').enumerate() {
        if i > 0 {
            let name = at["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
                .unwrap_or_else(|| panic!("{schema}.{field}: {key} is not behind a $ref"));
            at = &schemas[name];
        }
        at = &at["properties"][key];
    }
    at
}

/// Every bound an operation declares is in the document (its minimum, and a maximum no
/// larger), and one past the document's maximum is a 422 naming the field, on the route and
/// as a job: the schema says what the service takes.
#[test]
fn every_declared_bound_is_in_the_document_and_enforced() {
    let c = Contract::new(serve().args(["--timeout-ms", "2000"]).start());
    let examples = examples(&c);
    let mut checked = 0;
    for (name, path, bounds) in table() {
        for bound in bounds {
            let route = route_of(name);
            let example = examples
                .iter()
                .find(|(r, _)| *r == route)
                .map(|(_, b)| b.clone())
                .unwrap_or_else(|| panic!("{name} has no example"));
            let mut cases = vec![(format!("Job.{name}"), "/v1/jobs".to_string())];
            if let Some(path) = path {
                let schema = c.doc["paths"][path]["post"]["requestBody"]["content"]
                    ["application/json"]["schema"]["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                    .expect("the route's request schema")
                    .to_string();
                cases.push((schema, path.to_string()));
            }
            for (schema, route) in cases {
                let prop = property(&c, &schema, bound.field);
                assert_eq!(
                    prop["minimum"],
                    json!(bound.min),
                    "{schema}.{}",
                    bound.field
                );
                let max = prop["maximum"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{schema}.{}: no maximum", bound.field));
                assert!(max <= bound.max, "{schema}.{}: {max}", bound.field);
                let mut body = example.clone();
                if route == "/v1/jobs" {
                    body["op"] = json!(name);
                }
                let keys: Vec<&str> = bound.field.split('.').collect();
                let (last, parents) = keys.split_last().expect("a field");
                let mut at = &mut body;
                for key in parents {
                    if !at[*key].is_object() {
                        at[*key] = json!({});
                    }
                    at = &mut at[*key];
                }
                at[*last] = json!(max + 1);
                let a = c.post(&route, &body);
                assert_eq!(a.status, 422, "{route} {body}: {}", a.json());
                assert_eq!(a.json()["field"], bound.field, "{route} {body}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked} bounds checked");
}

/// What the service checks of a deal, a play, a solver's model and a puzzle to generate is in
/// the document (a tester generating requests from it once had almost all of them refused):
/// every example the document gives is valid and accepted by its route, each request below is
/// refused by both the schema and the service (naming the field), and each model below is
/// taken by both.
#[test]
fn the_document_says_what_a_deal_a_play_a_model_and_a_puzzle_must_be() {
    let c = Contract::new(
        serve()
            .args(["--timeout-ms", "2000", "--max-n", "64"])
            .start(),
    );
    let mut accepted = 0;
    for (path, item) in c.doc["paths"].as_object().expect("paths") {
        let Some(name) = item["post"]["requestBody"]["content"]["application/json"]["schema"]
            ["$ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
        else {
            continue;
        };
        let examples = c.doc["components"]["schemas"][name]["examples"].clone();
        for example in examples.as_array().into_iter().flatten() {
            assert!(c.is_valid(name, example), "{name}'s example {example}");
            let a = c.post(path, example);
            assert_eq!(a.status, 200, "{path} {example}: {}", a.json());
            accepted += 1;
        }
    }
    assert!(accepted >= 5, "{accepted} examples");
    let deal = c.doc["components"]["schemas"]["Deal"]["examples"][0].clone();
    let mut twice = deal.clone();
    twice["boxes"][1]["color"] = deal["boxes"][0]["color"].clone();
    let mut no_hand = deal.clone();
    no_hand["hand"] = json!([]);
    let mut sides = deal.clone();
    sides["boxes"][0]["capacity"] = json!(2);
    sides["boxes"][0]["pawns"] = json!([]);
    let model = |m: &str| json!({"instance": {"n": 3}, "model": m});
    let refused = [
        (
            "/v1/collection/play",
            "PlayRequest",
            json!({"deal": twice, "policy": "greedy"}),
            "deal.boxes[1].color",
        ),
        (
            "/v1/collection/play",
            "PlayRequest",
            json!({"deal": deal, "policy": "greedy", "moves": []}),
            "policy",
        ),
        (
            "/v1/collection/solve",
            "CollectionSolveRequest",
            json!({"deal": no_hand}),
            "deal.hand",
        ),
        (
            "/v1/collection/solve",
            "CollectionSolveRequest",
            json!({"deal": sides}),
            "deal.boxes[1].capacity",
        ),
        ("/v1/decode", "DecodeRequest", model(""), "model"),
        ("/v1/decode", "DecodeRequest", model("c a comment"), "model"),
        (
            "/v1/decode",
            "DecodeRequest",
            model("s UNSATISFIABLE\ns UNKNOWN"),
            "model",
        ),
        ("/v1/decode", "DecodeRequest", model("x 1"), "model"),
        (
            "/v1/decode",
            "DecodeRequest",
            json!({"instance": {"n": 65}, "model": "s UNKNOWN"}),
            "instance.n",
        ),
        (
            "/v1/generate",
            "GenerateRequest",
            json!({"kind": "completion", "n": 8}),
            "queens",
        ),
        (
            "/v1/generate",
            "GenerateRequest",
            json!({"kind": "diagonals", "n": 8, "difficulty": "easy"}),
            "difficulty",
        ),
        // No 3×3 region puzzle exists; the refusal names no field.
        (
            "/v1/generate",
            "GenerateRequest",
            json!({"kind": "regions", "n": 3}),
            "",
        ),
    ];
    for (route, schema, body, field) in refused {
        assert!(!c.is_valid(schema, &body), "{schema} takes {body}");
        let a = c.post(route, &body);
        assert_eq!(a.status, 422, "{route} {body}: {}", a.json());
        if !field.is_empty() {
            assert_eq!(a.json()["field"], field, "{route} {body}");
        }
    }
    for m in [
        "s UNSATISFIABLE\n",
        "c by a solver\r\ns UNKNOWN\r\n",
        "UNSAT",
        "\u{feff} c x\n\tINDET \u{85}",
        "v -1 0\ns UNSATISFIABLE",
    ] {
        assert!(c.is_valid("DecodeRequest", &model(m)), "{m:?}");
        let a = c.post("/v1/decode", &model(m));
        assert_eq!(a.status, 200, "{m:?}: {}", a.json());
    }
}
