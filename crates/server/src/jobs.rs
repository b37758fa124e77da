//! Jobs: long work stored in the database before the 202 goes out, run by a dispatcher on
//! the worker pool, observable by polling or server-sent events, cancellable, and never
//! lost: a job a crash left running runs again at the next start.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Extension, Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response as HttpResponse};
use axum::Json;
use futures_util::stream::Stream;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::Caller;
use super::body::{parse_job, RawBody};
use super::error::{ApiError, Problem};
use super::retention;
use super::state::AppState;
use super::store::{Artifact, Job, JobStatus, StoreError};
use queens_engine::Budget;
use queens_ops::{Context, Request, Response};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(submit))
        .routes(routes!(status, delete))
        .routes(routes!(events))
        .routes(routes!(proof))
        .routes(routes!(cnf))
        .routes(routes!(solution))
        .routes(routes!(file))
}

fn store_error(e: StoreError) -> ApiError {
    match e {
        StoreError::Full(_) => ApiError::busy(format!("{e}: retry later")),
        e => ApiError::from(queens_model::Error::internal(e.to_string())),
    }
}

/// Runs blocking store work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::from(queens_model::Error::internal_from("a store task failed", e)))?
}

/// Progress of a running job, where the engine reports it.
#[derive(Clone, Copy, Debug, Serialize, serde::Deserialize, ToSchema)]
pub struct JobProgress {
    /// Units done: subtrees of a count; thousandths of each walk of a threshold round (its
    /// first queens weighed by the placements below them).
    pub done: u64,
    /// Units in all.
    pub total: u64,
}

/// Where to find a job's parts.
#[derive(Serialize, ToSchema)]
pub struct JobLinks {
    /// This job.
    #[serde(rename = "self")]
    pub this: String,
    /// Its server-sent events.
    pub events: String,
    /// The UNSAT proof, once there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof: Option<String>,
    /// The CNF the proof refutes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cnf: Option<String>,
    /// A solve's solution as column-per-row text (a board past 100,000 rows).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solution: Option<String>,
    /// Every file the job left, by name (`GET /v1/jobs/{id}/files/{name}`): the proof and
    /// its CNF, and a threshold certificate's cover, claim, counterexample and its proof.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub files: std::collections::BTreeMap<String, String>,
}

/// A job as the API shows it.
#[derive(Serialize, ToSchema)]
pub struct JobView {
    /// The job's id (unguessable).
    pub id: String,
    /// `solve`, `count`, `check`, `explain`, `encode`, `decode` or `generate`.
    pub op: String,
    /// `queued`, `running`, `done`, `failed` or `cancelled`.
    #[schema(value_type = String)]
    pub status: JobStatus,
    /// Progress while running, where the engine reports it. A `done` job has none (its
    /// result is the answer, not a count of work); a `cancelled` or `failed` one keeps its
    /// last report: how far it got.
    pub progress: Option<JobProgress>,
    /// With `done`: the operation's answer (the same JSON as the synchronous endpoint's).
    #[schema(value_type = Option<Object>)]
    pub result: Option<Box<serde_json::value::RawValue>>,
    /// With `failed`: what went wrong.
    pub error: Option<Problem>,
    /// Times a worker started the job (more than 1 after a restart).
    pub attempts: u32,
    /// Accepted at, ms since the Unix epoch.
    pub created_ms: i64,
    /// Last started at.
    pub started_ms: Option<i64>,
    /// Finished at.
    pub finished_ms: Option<i64>,
    /// Links.
    pub links: JobLinks,
}

impl JobView {
    fn of(job: Job) -> JobView {
        let base = format!("/v1/jobs/{}", job.id);
        let has = |name: &str| job.artifacts.iter().any(|a| a == name);
        let links = JobLinks {
            events: format!("{base}/events"),
            proof: has("proof").then(|| format!("{base}/proof")),
            cnf: has("cnf").then(|| format!("{base}/cnf")),
            solution: has("solution").then(|| format!("{base}/solution")),
            files: job
                .artifacts
                .iter()
                .map(|name| (name.clone(), format!("{base}/files/{name}")))
                .collect(),
            this: base,
        };
        JobView {
            // The last report comes at most once a second: a finished job's would be stale.
            progress: parse(&job.progress).filter(|_| job.status != JobStatus::Done),
            // Passed on as stored: the operation's own JSON, field order and all.
            result: job
                .result
                .and_then(|t| serde_json::value::RawValue::from_string(t).ok()),
            error: job
                .error
                .as_deref()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
                .and_then(|v| problem_from_value(&v)),
            id: job.id,
            op: job.op,
            status: job.status,
            attempts: job.attempts,
            created_ms: job.created_ms,
            started_ms: job.started_ms,
            finished_ms: job.finished_ms,
            links,
        }
    }
}

fn parse<T: serde::de::DeserializeOwned>(text: &Option<String>) -> Option<T> {
    text.as_deref().and_then(|t| serde_json::from_str(t).ok())
}

fn problem_from_value(v: &serde_json::Value) -> Option<Problem> {
    Some(Problem {
        kind: v.get("type")?.as_str()?.to_string(),
        title: v.get("title")?.as_str()?.to_string(),
        status: v.get("status")?.as_u64()? as u16,
        detail: v.get("detail")?.as_str()?.to_string(),
        field: v.get("field").and_then(|f| f.as_str()).map(str::to_string),
    })
}

/// Submit a job: `{"op": "solve" | "count" | …, …the operation's body}`. The job is stored
/// before the 202 is sent.
#[utoipa::path(post, path = "/v1/jobs", request_body = Request,
    responses((status = 202, body = JobView,
               headers(("Location" = String, description = "The job's URL"))),
              (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem),
              (status = 507, body = Problem,
               description = "A proof job while the artifacts folder is at its quota \
                              (`--max-artifacts-total`): delete finished jobs or retry later.")))]
async fn submit(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    RawBody(body): RawBody,
) -> Result<HttpResponse, ApiError> {
    let req = parse_job(&body)?;
    s.admit(&req, false)?;
    retention::admit(&s, &req)?;
    if s.shutting_down.load(Ordering::SeqCst) {
        return Err(ApiError::busy("the server is shutting down"));
    }
    let text = serde_json::to_string(&req)
        .map_err(|e| ApiError::from(queens_model::Error::internal_from("storing a job", e)))?;
    let state = s.clone();
    let op = req.op();
    let job = blocking(move || {
        state
            .store
            .insert_for(op, &text, state.config.max_jobs, caller.owner())
            .map_err(store_error)
    })
    .await?;
    s.wake_dispatcher();
    let view = JobView::of(job);
    let location = view.links.this.clone();
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, location)],
        Json(view),
    )
        .into_response())
}

/// The job `id` if `caller` may see it: another key's job is a 404, as if it did not exist.
async fn load(s: &AppState, caller: &Caller, id: String) -> Result<Job, ApiError> {
    let state = s.clone();
    let wanted = id.clone();
    blocking(move || state.store.get(&wanted).map_err(store_error))
        .await?
        .filter(|job| caller.owns(job.key.as_deref()))
        .ok_or_else(|| ApiError::not_found(format!("no job {id}")))
}

/// A job's status, progress, and result or error.
#[utoipa::path(get, path = "/v1/jobs/{id}", params(("id" = String, Path)),
    responses((status = 200, body = JobView), (status = 404, body = Problem)))]
async fn status(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(JobView::of(load(&s, &caller, id).await?)))
}

/// Delete a job with its result, proof and CNF. A queued job is cancelled first, and a
/// running one is stopped wherever it runs (within a second). The answer is the job as it
/// was when deleted (`cancelled` if it had not finished); afterwards it is 404.
#[utoipa::path(delete, path = "/v1/jobs/{id}", params(("id" = String, Path)),
    responses((status = 200, body = JobView,
               description = "The job as it was when deleted; it is gone now."),
              (status = 404, body = Problem)))]
async fn delete(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    // Another key's job is not there for this caller: nothing is deleted.
    load(&s, &caller, id.clone()).await?;
    let state = s.clone();
    let wanted = id.clone();
    let job = blocking(move || {
        // Cancelled first, so the answer says so and its owner stops it even if the delete
        // below fails.
        state.store.cancel(&wanted).map_err(store_error)?;
        let job = state.store.get(&wanted).map_err(store_error)?;
        state.store.delete(&wanted).map_err(store_error)?;
        retention::remove_files(&state.config.artifacts, &wanted);
        Ok(job)
    })
    .await?
    .ok_or_else(|| ApiError::not_found(format!("no job {id}")))?;
    if let Some(flag) = s.running.lock().unwrap_or_else(|e| e.into_inner()).get(&id) {
        flag.store(true, Ordering::SeqCst);
    }
    Ok(Json(JobView::of(Job {
        artifacts: Vec::new(),
        ..job
    })))
}

/// The job's status as server-sent events (`event: job`, data: the job as `GET` shows it),
/// sent at once and on every change until the job ends. A client that reconnects gets the
/// current state first, so it rebuilds its view from it.
#[utoipa::path(get, path = "/v1/jobs/{id}/events", params(("id" = String, Path)),
    responses((status = 200, body = String, content_type = "text/event-stream",
               description = "`event: job` events whose data is the job as `GET` shows it"),
              (status = 404, body = Problem)))]
async fn events(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let first = load(&s, &caller, id.clone()).await?;
    struct Watch {
        state: AppState,
        caller: Caller,
        id: String,
        last: Option<String>,
        pending: Option<Job>,
        done: bool,
    }
    let watch = Watch {
        state: s,
        caller,
        id,
        last: None,
        pending: Some(first),
        done: false,
    };
    let stream = futures_util::stream::unfold(watch, |mut w| async move {
        if w.done {
            return None;
        }
        loop {
            let job = match w.pending.take() {
                Some(job) => job,
                None => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if w.state.shutting_down.load(Ordering::SeqCst) {
                        return None;
                    }
                    match load(&w.state, &w.caller, w.id.clone()).await {
                        Ok(job) => job,
                        Err(_) => return None,
                    }
                }
            };
            let terminal = job.status.is_terminal();
            let view = JobView::of(job);
            let text = serde_json::to_string(&view).unwrap_or_default();
            if w.last.as_deref() == Some(text.as_str()) {
                continue;
            }
            w.last = Some(text.clone());
            w.done = terminal;
            let event = Event::default().event("job").data(text);
            return Some((Ok(event), w));
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

async fn artifact(
    s: AppState,
    caller: Caller,
    id: String,
    name: &'static str,
) -> Result<HttpResponse, ApiError> {
    let job = load(&s, &caller, id.clone()).await?;
    if !job.artifacts.iter().any(|a| a == name) {
        return Err(ApiError::not_available(format!(
            "job {id} has no {name}: it is {}; a {name} exists once a job with \"proof\" \
             ends UNSAT",
            job.status.as_str()
        )));
    }
    send(s, id, name.to_string(), "application/octet-stream").await
}

/// File `name` of job `id` (its bytes, or streamed from its file), as `content_type`.
async fn send(
    s: AppState,
    id: String,
    name: String,
    content_type: &'static str,
) -> Result<HttpResponse, ApiError> {
    let state = s.clone();
    let (wanted, asked) = (id.clone(), name.clone());
    let found = blocking(move || {
        state
            .store
            .artifact_source(&wanted, &asked)
            .map_err(store_error)
    })
    .await?
    .ok_or_else(|| ApiError::not_found(format!("the {name} is gone")))?;
    let octets = (header::CONTENT_TYPE, content_type);
    match found {
        Artifact::Bytes(bytes) => Ok(([octets], bytes).into_response()),
        // Streamed from its file in chunks: a proof of gigabytes is never in memory whole.
        Artifact::File(rel) => {
            let path = s.config.artifacts.join(&rel);
            let gone = |e: std::io::Error| {
                tracing::error!(path = %path.display(), error = %e, "a job's file is missing");
                ApiError::not_found(format!("the {name} of job {id} is gone from the server"))
            };
            let file = tokio::fs::File::open(&path).await.map_err(gone)?;
            let len = file.metadata().await.map_err(gone)?.len();
            let body = axum::body::Body::from_stream(tokio_util::io::ReaderStream::with_capacity(
                file,
                1 << 16,
            ));
            Ok(([octets, (header::CONTENT_LENGTH, &len.to_string())], body).into_response())
        }
    }
}

/// A file the job left (`links.files` names them): a proof or its CNF, or a threshold
/// certificate's `cover.txt`, `threshold.json`, `counterexample.json`,
/// `counterexample.lrat` and `counterexample.lrat.cnf`, which `queens threshold check`
/// reads from one folder.
#[utoipa::path(get, path = "/v1/jobs/{id}/files/{name}",
    params(("id" = String, Path), ("name" = String, Path)),
    responses((status = 200, description = "the file: JSON for `.json`, text for `.txt`, \
                                            bytes otherwise",
               content_type = "application/octet-stream"),
              (status = 404, body = Problem, description = "No such job."),
              (status = 409, body = Problem,
               description = "The job left no file of that name (yet): its `links.files` \
                              lists those it did.")))]
async fn file(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path((id, name)): Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let job = load(&s, &caller, id.clone()).await?;
    if !job.artifacts.contains(&name) {
        let left = match job.artifacts.is_empty() {
            true => "none".to_string(),
            false => job.artifacts.join(", "),
        };
        return Err(ApiError::not_available(format!(
            "job {id} ({}) left no file {name:?}; its files: {left}",
            job.status.as_str()
        )));
    }
    let content_type = match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("json") => "application/json",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    };
    send(s, id, name, content_type).await
}

/// Moves a certified answer's proof and CNF into the job's folder (the proof is there
/// already when it streamed) and returns them as store files (name, path relative to the
/// artifacts folder), leaving the other artifacts as bytes. The answer keeps no server path.
fn proof_files(
    resp: &mut Response,
    artifacts: &mut queens_ops::Artifacts,
    folder: Option<&std::path::Path>,
    id: &str,
) -> Result<Vec<(&'static str, String)>, queens_model::Error> {
    let info = resp.proof_mut();
    let (Some(info), Some(folder)) = (info, folder) else {
        return Ok(Vec::new());
    };
    let streamed = info.path.take().is_some();
    info.cnf = None;
    let mut files = Vec::new();
    for name in ["proof", "cnf"] {
        let path = folder.join(name);
        if !(name == "proof" && streamed) {
            let Some(i) = artifacts.0.iter().position(|(n, _)| n == name) else {
                continue;
            };
            let (_, bytes) = artifacts.0.remove(i);
            std::fs::write(&path, bytes).map_err(|e| queens_model::Error::Io {
                path: path.clone(),
                source: e,
            })?;
        }
        files.push((name, format!("{id}/{name}")));
    }
    Ok(files)
}

/// The UNSAT proof of a job that asked for one (`"proof": "lrat" | "binary-lrat" | "drat" |
/// "binary-drat"`).
#[utoipa::path(get, path = "/v1/jobs/{id}/proof", params(("id" = String, Path)),
    responses((status = 200, description = "the proof", content_type = "application/octet-stream"),
              (status = 404, body = Problem, description = "No such job."),
              (status = 409, body = Problem, description = "The job has no proof (yet).")))]
async fn proof(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<HttpResponse, ApiError> {
    artifact(s, caller, id, "proof").await
}

/// The exact DIMACS CNF the job's proof refutes.
#[utoipa::path(get, path = "/v1/jobs/{id}/cnf", params(("id" = String, Path)),
    responses((status = 200, description = "DIMACS CNF", content_type = "application/octet-stream"),
              (status = 404, body = Problem, description = "No such job."),
              (status = 409, body = Problem, description = "The job has no proof, so no CNF (yet).")))]
async fn cnf(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<HttpResponse, ApiError> {
    artifact(s, caller, id, "cnf").await
}

/// A solve job's solution as text, one column per row (line r + 1 holds the column of row
/// r, 0-based): the download for boards past 100,000 rows, whose answer does not inline the
/// queens; for smaller boards the same text is made from the answer's `queens`.
#[utoipa::path(get, path = "/v1/jobs/{id}/solution", params(("id" = String, Path)),
    responses((status = 200, description = "column-per-row text", body = String,
               content_type = "text/plain"),
              (status = 404, body = Problem, description = "No such job."),
              (status = 409, body = Problem,
               description = "The job has no solution (yet): not a solve, or not ended sat.")))]
async fn solution(
    State(s): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<HttpResponse, ApiError> {
    let job = load(&s, &caller, id.clone()).await?;
    let text = if job.artifacts.iter().any(|a| a == "solution") {
        let state = s.clone();
        let wanted = id.clone();
        blocking(move || {
            state
                .store
                .artifact(&wanted, "solution")
                .map_err(store_error)
        })
        .await?
        .ok_or_else(|| ApiError::not_found("the solution is gone"))?
    } else {
        let queens = job
            .result
            .as_deref()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
            .filter(|v| job.op == "solve" && v["status"] == "sat")
            .and_then(|v| serde_json::from_value::<Vec<(usize, usize)>>(v["queens"].clone()).ok())
            .ok_or_else(|| {
                ApiError::not_available(format!(
                    "job {id} has no solution: it is {}; a solve job that ends sat has one",
                    job.status.as_str()
                ))
            })?;
        let mut cols = vec![0u32; queens.len()];
        for (r, c) in queens {
            if r < cols.len() {
                cols[r] = c as u32;
            }
        }
        queens_model::formats::columns::write(&cols)
    };
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

/// The dispatcher thread: whenever a job slot is free, claims the next job (the oldest of
/// the key served least recently, `fair.rs`) and runs it on the pool. Ends at shutdown.
pub(super) fn dispatch(state: AppState) {
    while !state.shutting_down.load(Ordering::SeqCst) {
        if !state.pool.reserve_job_slot(Duration::from_millis(500)) {
            continue;
        }
        if state.shutting_down.load(Ordering::SeqCst) {
            state.pool.release_job_slot();
            break;
        }
        match state.fair.claim(&state.store, state.config.jobs_per_key) {
            Ok(Some(job)) => {
                let st = state.clone();
                let deadline =
                    Instant::now().checked_add(Duration::from_millis(state.config.job_timeout_ms));
                state.pool.run_job(deadline, move || {
                    let key = job.key.clone();
                    run(st.clone(), job);
                    // Its key may run another now: the dispatcher looks again.
                    st.fair.finished(&key);
                    st.wake_dispatcher();
                });
            }
            Ok(None) => {
                state.pool.release_job_slot();
                // Sleep until a submit wakes us (or half a second, in case one was missed).
                let (lock, cv) = &state.job_signal;
                let mut woken = lock.lock().unwrap_or_else(|e| e.into_inner());
                if !*woken {
                    woken = cv
                        .wait_timeout(woken, Duration::from_millis(500))
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                *woken = false;
            }
            Err(e) => {
                state.pool.release_job_slot();
                tracing::error!(error = %e, "claiming a job failed");
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
}

/// Starts of one job before it is failed instead: a job that takes the server down with it
/// (out of memory, say) must not do so at every restart.
const MAX_ATTEMPTS: u32 = 5;

/// Runs one claimed job to its end: done, failed, cancelled, or (at shutdown) back to the
/// queue.
fn run(state: AppState, job: Job) {
    let id = job.id.clone();
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let mut running = state.running.lock().unwrap_or_else(|e| e.into_inner());
        // A shutdown that began before the job was registered: it has not started, so it
        // goes back to the queue whatever the store.
        if state.shutting_down.load(Ordering::SeqCst) {
            drop(running);
            if let Err(e) = state.store.requeue(&id) {
                tracing::error!(job = %id, error = %e, "handing back a job failed");
            }
            return;
        }
        running.insert(id.clone(), cancel.clone());
    }
    // Unregistered however the job ends, a panic included.
    struct Registered<'a>(&'a AppState, &'a str);
    impl Drop for Registered<'_> {
        fn drop(&mut self) {
            self.0
                .running
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(self.1);
        }
    }
    let _registered = Registered(&state, &id);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_claimed(&state, &job, cancel)
    }));
    let recorded = match outcome {
        Ok(recorded) => recorded,
        // A bug, not the client's fault: the job fails with a problem body instead of
        // staying `running` until the next start.
        Err(_) => {
            let problem = ApiError::from(queens_model::Error::internal(
                "the job's operation panicked (a bug; please report it)",
            ))
            .problem;
            state.store.fail(&id, &to_json(&problem)).map(|_| ())
        }
    };
    if let Err(e) = recorded {
        tracing::error!(job = %id, error = %e, "recording a job's end failed");
    }
}

fn run_claimed(state: &AppState, job: &Job, cancel: Arc<AtomicBool>) -> Result<(), StoreError> {
    let id = &job.id;
    if job.attempts > MAX_ATTEMPTS {
        let problem = ApiError::from(queens_model::Error::internal(format!(
            "the job was started {MAX_ATTEMPTS} times and never finished (the server stopped \
             or crashed each time); it is not run again"
        )))
        .problem;
        state.store.fail(id, &to_json(&problem))?;
        return Ok(());
    }
    // Cancelled between the claim and now: nothing to do.
    if state
        .store
        .get(id)?
        .is_some_and(|j| j.status == JobStatus::Cancelled)
    {
        return Ok(());
    }
    let req: Request = match serde_json::from_str(&job.request) {
        Ok(r) => r,
        Err(e) => {
            let problem = ApiError::from(queens_model::Error::internal_from(
                "the stored request cannot be read",
                e,
            ))
            .problem;
            state.store.fail(id, &to_json(&problem))?;
            return Ok(());
        }
    };
    let progress_store = state.clone();
    let progress_id = id.clone();
    let last_report = std::sync::Mutex::new(Instant::now() - Duration::from_secs(1));
    let ctx = Context {
        budget: Budget {
            deadline: Instant::now()
                .checked_add(Duration::from_millis(state.config.job_timeout_ms)),
            cancel: Some(cancel.clone()),
            progress: None,
            max_memory: Some(state.config.max_memory),
        },
        isolate: Some(state.config.exe.clone()),
        proof_file: None,
    }
    .with_progress(move |done, total| {
        // At most one write (an fsync) a second; the last one always lands.
        let mut last = last_report.lock().unwrap_or_else(|e| e.into_inner());
        if done < total && last.elapsed() < Duration::from_secs(1) {
            return;
        }
        *last = Instant::now();
        let text = to_json(&JobProgress { done, total });
        let _ = progress_store.store.set_progress(&progress_id, &text);
    });
    // A proof streams to the job's folder as it is written: neither this process nor the
    // store holds it.
    let proving = retention::streams_proof(&req);
    let folder = retention::job_folder(&state.config.artifacts, id).filter(|_| proving);
    let mut ctx = ctx;
    if let Some(folder) = &folder {
        if let Err(e) = std::fs::create_dir_all(folder) {
            let e = queens_model::Error::Io {
                path: folder.clone(),
                source: e,
            };
            state.store.fail(id, &to_json(&ApiError::from(e).problem))?;
            return Ok(());
        }
        ctx.proof_file = Some(folder.join("proof"));
    }
    let remove_folder = || {
        if let Some(folder) = &folder {
            let _ = std::fs::remove_dir_all(folder);
        }
    };
    let start = Instant::now();
    let result = req.run(&ctx);
    state
        .metrics
        .op_time(req.op(), start.elapsed().as_secs_f64());
    // Stopped by the server (shutdown, artifacts quota), not by the client: recorded as
    // retention.rs says, its partial files gone. A job that finished all the same keeps its
    // result.
    let cut_short = match &result {
        Ok((resp, _)) => resp.interrupted(),
        Err(_) => true,
    };
    if cut_short && cancel.load(Ordering::SeqCst) {
        if let Some(halt) = retention::halted(state, id) {
            remove_folder();
            return retention::record(state, id, halt);
        }
    }
    let result = result.and_then(|(mut resp, mut artifacts)| {
        let files = proof_files(&mut resp, &mut artifacts, folder.as_deref(), id)?;
        Ok((resp, artifacts, files))
    });
    if !matches!(&result, Ok((_, _, files)) if !files.is_empty()) {
        remove_folder();
    }
    match result {
        Ok((mut resp, artifacts, files)) => {
            let proof = resp.proof_mut();
            if let Some(p) = proof {
                p.url = Some(format!("/v1/jobs/{id}/proof"));
                p.cnf_url = Some(format!("/v1/jobs/{id}/cnf"));
            }
            if let Response::Solve(r) = &mut resp {
                if artifacts.get("solution").is_some() {
                    r.solution_url = Some(format!("/v1/jobs/{id}/solution"));
                }
            }
            let parts: Vec<(&str, &[u8])> = artifacts
                .0
                .iter()
                .map(|(n, b)| (n.as_str(), b.as_slice()))
                .collect();
            // false: cancelled meanwhile (or taken over after a lost lease); the store keeps
            // what it has.
            let files: Vec<(&str, &str)> = files.iter().map(|(n, p)| (*n, p.as_str())).collect();
            match state
                .store
                .finish_with_files(id, &to_json(&resp), &parts, &files)
            {
                Ok(true) => {}
                // Cancelled meanwhile: its files go.
                Ok(false) => remove_folder(),
                // Over the size limit: refused whole, never stored cut short.
                Err(e @ StoreError::TooLarge { .. }) => {
                    remove_folder();
                    let problem = ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "over a limit",
                        e.to_string(),
                    )
                    .problem;
                    state.store.fail(id, &to_json(&problem))?;
                }
                Err(e) => return Err(e),
            }
        }
        Err(e) => {
            state.store.fail(id, &to_json(&ApiError::from(e).problem))?;
        }
    }
    Ok(())
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
