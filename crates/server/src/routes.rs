//! The synchronous endpoints, each a few lines over the operations layer, plus health,
//! metrics, the OpenAPI document, the index page and the `/play` page; and the router with
//! its layers.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, MatchedPath, State};
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response as HttpResponse};
use axum::Json;
use serde::Serialize;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::{ApiError, Problem};
use super::metrics::Gauges;
use super::{jobs, AppState, JsonBody};
use crate::games::collection::Deal;
use crate::games::mod2::questions::Optimum as Mod2Optimum;
use crate::ops::collection::{
    DealRequest, PlayRequest, PlayResponse, SimulateRequest, SimulateResponse,
    SolveRequest as CollectionSolveRequest, SolveResponse as CollectionSolveResponse, StudyRequest,
    StudyResponse,
};
use crate::ops::mod2::{
    CheckRequest as Mod2CheckRequest, CheckResponse as Mod2CheckResponse, OptimumRequest,
    ReplayAnswer, ReplayRequest, SolveRequest as Mod2SolveRequest,
    SolveResponse as Mod2SolveResponse,
};
use crate::ops::{
    CheckRequest, CheckResponse, CountRequest, CountResponse, DecodeRequest, DecodeResponse,
    EncodeRequest, ExplainRequest, ExplainResponse, GenerateRequest, GenerateResponse,
    GradeRequest, GradeResponse, HintRequest, HintResponse, Request, Response, SolveRequest,
    SolveResponse,
};

/// The whole router: API routes (collected into the OpenAPI document as they are
/// registered), then the layers.
pub fn router(state: AppState) -> axum::Router {
    let (api, mut openapi) = OpenApiRouter::new()
        .routes(routes!(solve))
        .routes(routes!(count))
        .routes(routes!(check))
        .routes(routes!(hint))
        .routes(routes!(grade))
        .routes(routes!(explain))
        .routes(routes!(encode))
        .routes(routes!(decode))
        .routes(routes!(generate))
        .routes(routes!(collection_deal))
        .routes(routes!(collection_play))
        .routes(routes!(collection_simulate))
        .routes(routes!(collection_solve))
        .routes(routes!(collection_study))
        .routes(routes!(mod2_check))
        .routes(routes!(mod2_replay))
        .routes(routes!(mod2_solve))
        .routes(routes!(mod2_optimum))
        .routes(routes!(healthz))
        .routes(routes!(engines))
        .routes(routes!(readyz))
        .merge(jobs::router())
        .split_for_parts();
    // A job op with no synchronous route answers with a type no handler names: its schema
    // goes into the document by hand, so a job's `result` is documented too.
    {
        use utoipa::{PartialSchema, ToSchema};
        type JobOnly = crate::ops::SolveCnfResponse;
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut nested = Vec::new();
        <JobOnly as ToSchema>::schemas(&mut nested);
        components.schemas.extend(nested);
        components.schemas.insert(
            <JobOnly as ToSchema>::name().into_owned(),
            <JobOnly as PartialSchema>::schema(),
        );
    }
    openapi.info.title = "queens".into();
    openapi.info.description = Some(
        "Solve, count, check, explain and generate n-queens, completion and region Queens \
         problems. Every board in a response has passed an independent verifier."
            .into(),
    );
    super::auth::document(&mut openapi, &state.config.access);
    let mut document = serde_json::to_value(&openapi).unwrap_or_default();
    super::contract::complete(&mut document, &state.config.access);
    super::limits::document(&mut document, &state.config);
    let openapi_json = serde_json::to_string_pretty(&document).unwrap_or_default();
    let x_request_id = HeaderName::from_static("x-request-id");
    let max_body = state.config.max_body;
    api.route(
        "/openapi.json",
        axum::routing::get(move || async move {
            ([(header::CONTENT_TYPE, "application/json")], openapi_json)
        }),
    )
    .route("/metrics", axum::routing::get(metrics))
    .route("/", axum::routing::get(index))
    .route("/play", axum::routing::get(play))
    .fallback(|| async { ApiError::not_found("no such endpoint: see GET / or /openapi.json") })
    .method_not_allowed_fallback(|| async {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed",
            "this endpoint does not take that method: see /openapi.json",
        )
    })
    // Inside the request counter, so 401s and 429s are counted too.
    .layer(middleware::from_fn_with_state(
        super::auth::Guard::new(&state.config.access),
        super::auth::guard,
    ))
    .layer(middleware::from_fn_with_state(
        state.clone(),
        count_requests,
    ))
    .layer(DefaultBodyLimit::max(max_body))
    .layer(CatchPanicLayer::custom(|_| {
        ApiError::from(crate::Error::internal("a request handler panicked")).into_response()
    }))
    .layer(TraceLayer::new_for_http())
    .layer(PropagateRequestIdLayer::new(x_request_id.clone()))
    .layer(SetRequestIdLayer::new(x_request_id, Sequential::new()))
    .with_state(state)
}

/// Request ids: this process's start time and a counter (`18a9c2f3d-42`), unique per
/// server run without a random-number syscall per request (UUIDs cost one).
#[derive(Clone)]
struct Sequential {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl Sequential {
    fn new() -> Sequential {
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros());
        Sequential {
            prefix: format!("{start:x}-{:x}", std::process::id()).into(),
            next: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl MakeRequestId for Sequential {
    fn make_request_id<B>(&mut self, _: &axum::http::Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n}", self.prefix))
            .ok()
            .map(RequestId::new)
    }
}

async fn count_requests(
    State(state): State<AppState>,
    matched: Option<MatchedPath>,
    req: axum::extract::Request,
    next: Next,
) -> HttpResponse {
    // Only the methods the API knows get their own series: a client inventing methods must
    // not grow the metrics without bound.
    let method: &'static str = match req.method().as_str() {
        "GET" => "GET",
        "POST" => "POST",
        "DELETE" => "DELETE",
        "HEAD" => "HEAD",
        "PUT" => "PUT",
        "PATCH" => "PATCH",
        "OPTIONS" => "OPTIONS",
        _ => "other",
    };
    let route = matched.map_or_else(|| "unmatched".to_string(), |m| m.as_str().to_string());
    let resp = next.run(req).await;
    state
        .metrics
        .request(method, &route, resp.status().as_u16());
    resp
}

/// A response of the wrong kind from the operations layer: a bug.
fn mismatch(op: &str) -> ApiError {
    ApiError::from(crate::Error::internal(format!(
        "the {op} operation returned another operation's answer"
    )))
}

/// Find a solution (or up to `limit`), verified; `status` is `sat`, `unsat`, `timeout` or
/// `cancelled`.
#[utoipa::path(post, path = "/v1/solve", request_body = SolveRequest,
    responses((status = 200, body = SolveResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn solve(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<SolveRequest>,
) -> Result<Json<SolveResponse>, ApiError> {
    match s.run_sync(Request::Solve(req)).await? {
        (Response::Solve(r), _) => Ok(Json(r)),
        _ => Err(mismatch("solve")),
    }
}

/// Count solutions (up to `limit`); without a limit only boards up to n = 16.
#[utoipa::path(post, path = "/v1/count", request_body = CountRequest,
    responses((status = 200, body = CountResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn count(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<CountRequest>,
) -> Result<Json<CountResponse>, ApiError> {
    match s.run_sync(Request::Count(req)).await? {
        (Response::Count(r), _) => Ok(Json(r)),
        _ => Err(mismatch("count")),
    }
}

/// Check a placement: every conflict named; whether a partial board can still be completed.
#[utoipa::path(post, path = "/v1/check", request_body = CheckRequest,
    responses((status = 200, body = CheckResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn check(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<CheckRequest>,
) -> Result<Json<CheckResponse>, ApiError> {
    match s.run_sync(Request::Check(req)).await? {
        (Response::Check(r), _) => Ok(Json(r)),
        _ => Err(mismatch("check")),
    }
}

/// The next logical step for a region puzzle position (`queens` and `marks` in the instance).
#[utoipa::path(post, path = "/v1/hint", request_body = HintRequest,
    responses((status = 200, body = HintResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn hint(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<HintRequest>,
) -> Result<Json<HintResponse>, ApiError> {
    match s.run_sync(Request::Hint(req)).await? {
        (Response::Hint(r), _) => Ok(Json(r)),
        _ => Err(mismatch("hint")),
    }
}

/// A puzzle's grade and, with `steps`, its logical path.
#[utoipa::path(post, path = "/v1/grade", request_body = GradeRequest,
    responses((status = 200, body = GradeResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn grade(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<GradeRequest>,
) -> Result<Json<GradeResponse>, ApiError> {
    match s.run_sync(Request::Grade(req)).await? {
        (Response::Grade(r), _) => Ok(Json(r)),
        _ => Err(mismatch("grade")),
    }
}

/// A minimal set of presets with no completion (or a solution when there is one).
#[utoipa::path(post, path = "/v1/explain", request_body = ExplainRequest,
    responses((status = 200, body = ExplainResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn explain(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<ExplainRequest>,
) -> Result<Json<ExplainResponse>, ApiError> {
    match s.run_sync(Request::Explain(req)).await? {
        (Response::Explain(r), _) => Ok(Json(r)),
        _ => Err(mismatch("explain")),
    }
}

/// The SAT encoding as DIMACS CNF (`text/plain`; sizes in `x-queens-vars` and
/// `x-queens-clauses`).
#[utoipa::path(post, path = "/v1/encode", request_body = EncodeRequest,
    responses((status = 200, body = String, content_type = "text/plain"),
              (status = 400, body = Problem), (status = 413, body = Problem),
              (status = 422, body = Problem), (status = 500, body = Problem),
              (status = 503, body = Problem)))]
async fn encode(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<EncodeRequest>,
) -> Result<HttpResponse, ApiError> {
    match s.run_sync(Request::Encode(req)).await? {
        (Response::Encode(r), _) => Ok((
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; charset=utf-8"),
                ),
                (
                    HeaderName::from_static("x-queens-vars"),
                    HeaderValue::from(r.vars),
                ),
                (
                    HeaderName::from_static("x-queens-clauses"),
                    HeaderValue::from(r.clauses),
                ),
            ],
            r.dimacs,
        )
            .into_response()),
        _ => Err(mismatch("encode")),
    }
}

/// An external solver's output read back onto the board and verified.
#[utoipa::path(post, path = "/v1/decode", request_body = DecodeRequest,
    responses((status = 200, body = DecodeResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn decode(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<DecodeRequest>,
) -> Result<Json<DecodeResponse>, ApiError> {
    match s.run_sync(Request::Decode(req)).await? {
        (Response::Decode(r), _) => Ok(Json(r)),
        _ => Err(mismatch("decode")),
    }
}

/// Seeded instances: completions, excluded diagonals, unique region puzzles.
#[utoipa::path(post, path = "/v1/generate", request_body = GenerateRequest,
    responses((status = 200, body = GenerateResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn generate(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<GenerateRequest>,
) -> Result<Json<GenerateResponse>, ApiError> {
    match s.run_sync(Request::Generate(req)).await? {
        (Response::Generate(r), _) => Ok(Json(r)),
        _ => Err(mismatch("generate")),
    }
}

/// A seeded solo deal of The Queen's Collection (`{"seed", "difficulty"}`).
#[utoipa::path(post, path = "/v1/collection/deal", request_body = DealRequest,
    responses((status = 200, body = Deal), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn collection_deal(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<DealRequest>,
) -> Result<Json<Deal>, ApiError> {
    match s.run_sync(Request::CollectionDeal(req)).await? {
        (Response::CollectionDeal(r), _) => Ok(Json(r)),
        _ => Err(mismatch("collection_deal")),
    }
}

/// Play a deal with a move list (the first illegal move is a 422 naming its index and rule)
/// or a policy.
#[utoipa::path(post, path = "/v1/collection/play", request_body = PlayRequest,
    responses((status = 200, body = PlayResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn collection_play(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<PlayRequest>,
) -> Result<Json<PlayResponse>, ApiError> {
    match s.run_sync(Request::CollectionPlay(req)).await? {
        (Response::CollectionPlay(r), _) => Ok(Json(r)),
        _ => Err(mismatch("collection_play")),
    }
}

/// Play seeded deals with a policy: mean, win rate, histogram. At most 10,000 deals here
/// (more as a job); the server's time limit may end the run first (`status: timeout`).
#[utoipa::path(post, path = "/v1/collection/simulate", request_body = SimulateRequest,
    responses((status = 200, body = SimulateResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn collection_simulate(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<SimulateRequest>,
) -> Result<Json<SimulateResponse>, ApiError> {
    match s.run_sync(Request::CollectionSimulate(req)).await? {
        (Response::CollectionSimulate(r), _) => Ok(Json(r)),
        _ => Err(mismatch("collection_simulate")),
    }
}

/// The clairvoyant optimum of a deal whose whole pile is known: the best game, its score,
/// and whether no game scores more (`proven`); the server's time limit may end the search
/// first (`budget: timeout`, the best game found and an upper bound).
#[utoipa::path(post, path = "/v1/collection/solve", request_body = CollectionSolveRequest,
    responses((status = 200, body = CollectionSolveResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn collection_solve(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<CollectionSolveRequest>,
) -> Result<Json<CollectionSolveResponse>, ApiError> {
    match s.run_sync(Request::CollectionSolve(req)).await? {
        (Response::CollectionSolve(r), _) => Ok(Json(r)),
        _ => Err(mismatch("collection_solve")),
    }
}

/// Optima against the policies' scores on seeded deals: how much of a player's loss is luck
/// and how much play. At most 100 deals here (more as a job).
#[utoipa::path(post, path = "/v1/collection/study", request_body = StudyRequest,
    responses((status = 200, body = StudyResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn collection_study(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<StudyRequest>,
) -> Result<Json<StudyResponse>, ApiError> {
    match s.run_sync(Request::CollectionStudy(req)).await? {
        (Response::CollectionStudy(r), _) => Ok(Json(r)),
        _ => Err(mismatch("collection_study")),
    }
}

/// The mod-2 game: a board's state (complete, locked, unlocked) and every empty square's
/// value (the queens attacking it; a square is open when the value is even).
#[utoipa::path(post, path = "/v1/mod2/check", request_body = Mod2CheckRequest,
    responses((status = 200, body = Mod2CheckResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn mod2_check(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<Mod2CheckRequest>,
) -> Result<Json<Mod2CheckResponse>, ApiError> {
    match s.run_sync(Request::Mod2Check(req)).await? {
        (Response::Mod2Check(r), _) => Ok(Json(r)),
        _ => Err(mismatch("mod2_check")),
    }
}

/// The mod-2 game: replay a move list (naming its first illegal move, re-checking its claims)
/// or a strategy against every reply; `status` is `legal`, `illegal`, `false_claim` or
/// `incomplete`.
#[utoipa::path(post, path = "/v1/mod2/replay", request_body = ReplayRequest,
    responses((status = 200, body = ReplayAnswer), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn mod2_replay(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<ReplayRequest>,
) -> Result<Json<ReplayAnswer>, ApiError> {
    match s.run_sync(Request::Mod2Replay(req)).await? {
        (Response::Mod2Replay(r), _) => Ok(Json(r)),
        _ => Err(mismatch("mod2_replay")),
    }
}

/// The mod-2 game: who wins with perfect play, with the winning first moves; `reachable`
/// also counts the reachable positions. The retrograde sweep (n = 6) runs as a job only;
/// `status` is `ok`, `timeout` or `memory`.
#[utoipa::path(post, path = "/v1/mod2/solve", request_body = Mod2SolveRequest,
    responses((status = 200, body = Mod2SolveResponse), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn mod2_solve(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<Mod2SolveRequest>,
) -> Result<Json<Mod2SolveResponse>, ApiError> {
    match s.run_sync(Request::Mod2Solve(req)).await? {
        (Response::Mod2Solve(r), _) => Ok(Json(r)),
        _ => Err(mismatch("mod2_solve")),
    }
}

/// The mod-2 game: the most queens on a reachable board (`max`) or the fewest on a reachable
/// locked one (`min-lock`), with a move order and, by SAT, checked LRAT proofs of the bound;
/// `optimal` is false when the server's time limit came first.
#[utoipa::path(post, path = "/v1/mod2/optimum", request_body = OptimumRequest,
    responses((status = 200, body = Mod2Optimum), (status = 400, body = Problem),
              (status = 413, body = Problem), (status = 422, body = Problem),
              (status = 500, body = Problem), (status = 503, body = Problem)))]
async fn mod2_optimum(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<OptimumRequest>,
) -> Result<Json<Mod2Optimum>, ApiError> {
    match s.run_sync(Request::Mod2Optimum(req)).await? {
        (Response::Mod2Optimum(r), _) => Ok(Json(r)),
        _ => Err(mismatch("mod2_optimum")),
    }
}

/// `GET /healthz`.
#[derive(Serialize, ToSchema)]
struct Health {
    /// Always `ok` while the server answers.
    status: &'static str,
    /// Worker threads.
    workers: usize,
    /// Workers running something.
    busy: usize,
    /// Synchronous requests waiting.
    queued: usize,
}

/// `GET /v1/engines`.
#[derive(Serialize, ToSchema)]
struct Engines {
    /// The built-in engines: `auto`, `backtrack`, `sat`, `race`, `local`.
    engines: Vec<&'static str>,
    /// The external SAT solvers this server allows (`"engine": "ext", "solver": NAME`):
    /// only those given to `queens serve --solver`.
    solvers: Vec<crate::engine::ext::SolverInfo>,
}

/// The engines a request may name, and the external solvers on this server's allowlist.
#[utoipa::path(get, path = "/v1/engines", responses((status = 200, body = Engines)))]
async fn engines() -> Json<Engines> {
    Json(Engines {
        engines: [
            crate::ops::EngineName::Auto,
            crate::ops::EngineName::Backtrack,
            crate::ops::EngineName::Sat,
            crate::ops::EngineName::Race,
            crate::ops::EngineName::Local,
        ]
        .map(crate::ops::EngineName::name)
        .to_vec(),
        solvers: crate::engine::ext::table().offered(),
    })
}

/// Liveness and load, without touching the database.
#[utoipa::path(get, path = "/healthz", responses((status = 200, body = Health)))]
async fn healthz(State(s): State<AppState>) -> Json<Health> {
    Json(Health {
        status: "ok",
        workers: s.pool.workers(),
        busy: s.pool.busy(),
        queued: s.pool.queued(),
    })
}

/// `GET /readyz`.
#[derive(Serialize, ToSchema)]
struct Ready {
    /// `ready`.
    status: &'static str,
    /// `sqlite` or `postgres`.
    store: &'static str,
}

/// Readiness: 200 when the job store answers; 503 (problem+json) when it does not, or while
/// the server shuts down, so that a load balancer sends no more work here.
#[utoipa::path(get, path = "/readyz",
    responses((status = 200, body = Ready), (status = 503, body = Problem)))]
async fn readyz(State(s): State<AppState>) -> Result<Json<Ready>, ApiError> {
    let not_ready =
        |detail: String| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "not ready", detail);
    if s.shutting_down.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(not_ready("the server is shutting down".into()));
    }
    let state = s.clone();
    match tokio::task::spawn_blocking(move || state.store.ping()).await {
        Ok(Ok(())) => Ok(Json(Ready {
            status: "ready",
            store: s.store.kind(),
        })),
        Ok(Err(e)) => Err(not_ready(format!("the job store does not answer: {e}"))),
        Err(e) => Err(not_ready(format!("the job store check failed: {e}"))),
    }
}

async fn metrics(State(s): State<AppState>) -> HttpResponse {
    let store = s.clone();
    let jobs = tokio::task::spawn_blocking(move || store.store.counts())
        .await
        .ok()
        .and_then(Result::ok)
        .map(|c| {
            vec![
                ("queued", c.queued),
                ("running", c.running),
                ("done", c.done),
                ("failed", c.failed),
                ("cancelled", c.cancelled),
            ]
        })
        .unwrap_or_default();
    let store = s.clone();
    let job_queue = tokio::task::spawn_blocking(move || store.store.queue_by_op())
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let text = s.metrics.render(&Gauges {
        job_queue,
        now_ms,
        queued: s.pool.queued(),
        capacity: s.pool.capacity(),
        busy: s.pool.busy(),
        workers: s.pool.workers(),
        jobs,
    });
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        text,
    )
        .into_response()
}

async fn index() -> Html<&'static str> {
    Html(INDEX)
}

/// `GET /play`: the puzzle page, one self-contained file (no build step, nothing fetched
/// from elsewhere) that plays through the JSON API above.
async fn play() -> Html<&'static str> {
    Html(PLAY)
}

const PLAY: &str = include_str!("../../../static/play.html");

const INDEX: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>queens</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto;padding:0 1em}
code{background:#f3f3f3;padding:0 .2em}</style></head><body>
<h1>queens</h1>
<p><a href="/play">Play a region Queens puzzle</a> in the browser: generated or pasted, with
conflicts shown as you go, hints that say why, and the solver one click away.</p>
<p>Solves, counts, checks, explains and generates n-queens, n-queens completion and region
Queens problems. Every board in an answer has passed an independent verifier; an UNSAT answer
can come with a proof a DRAT/LRAT checker accepts.</p>
<h2>Endpoints</h2>
<ul>
<li><code>POST /v1/solve</code>, <code>/v1/count</code>, <code>/v1/check</code>,
<code>/v1/explain</code>, <code>/v1/encode</code>, <code>/v1/decode</code>,
<code>/v1/generate</code>: a JSON body <code>{"instance": {...}, ...options}</code>,
answered synchronously within the server's time limit.</li>
<li><code>POST /v1/collection/deal</code>, <code>/v1/collection/play</code>,
<code>/v1/collection/simulate</code>, <code>/v1/collection/solve</code>,
<code>/v1/collection/study</code>: The Queen's Collection card game, solo (seeded deals,
play a deal with moves or a policy, simulate a policy over many deals, the clairvoyant
optimum of a deal, optima against the policies over many deals).</li>
<li><code>POST /v1/mod2/check</code>, <code>/v1/mod2/replay</code>,
<code>/v1/mod2/solve</code>, <code>/v1/mod2/optimum</code>: the mod-2 n-queens game (a
board's state, a move list or strategy replayed, the winner, the most queens and the fewest
locked queens with checked proofs).</li>
<li><code>POST /v1/jobs</code> <code>{"op": "solve", ...}</code>: long work, stored before it
is accepted; <code>GET /v1/jobs/{id}</code>, <code>/v1/jobs/{id}/events</code> (server-sent
events), <code>/v1/jobs/{id}/proof</code>, <code>DELETE /v1/jobs/{id}</code>.</li>
<li><code>GET /healthz</code>, <code>GET /metrics</code> (Prometheus),
<a href="/openapi.json"><code>GET /openapi.json</code></a> (every schema).</li>
</ul>
<p>Example: <code>curl -s localhost:8080/v1/solve -d '{"instance":{"n":8,"queens":["b4","d5"]}}'</code></p>
</body></html>
"#;
