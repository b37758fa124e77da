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

use super::body::JsonBody;
use super::error::{ApiError, Problem};
use super::jobs;
use super::metrics::Gauges;
use super::state::AppState;
use queens_ops::{Member, Visit};

/// The whole router: API routes (collected into the OpenAPI document as they are
/// registered), then the layers.
pub fn router(state: AppState) -> axum::Router {
    let mut operations = Operations(OpenApiRouter::new());
    queens_ops::for_each(&mut operations);
    let (api, mut openapi) = operations
        .0
        .routes(routes!(healthz))
        .routes(routes!(engines))
        .routes(routes!(readyz))
        .merge(jobs::router())
        .split_for_parts();
    openapi.info.title = "queens".into();
    openapi.info.description = Some(
        "Solve, count, check, explain and generate n-queens, completion and region Queens \
         problems. Every board in a response has passed an independent verifier."
            .into(),
    );
    super::auth::document(&mut openapi, &state.config.access);
    let mut document = serde_json::to_value(&openapi).unwrap_or_default();
    super::contract::complete(&mut document, &state.config.access);
    super::bounds::document(&mut document, &state.config);
    let openapi_json = serde_json::to_string_pretty(&document).unwrap_or_default();
    let index_html: Arc<str> = index_page(&document).into();
    let x_request_id = HeaderName::from_static("x-request-id");
    let max_body = state.config.max_body;
    api.route(
        "/openapi.json",
        axum::routing::get(move || async move {
            ([(header::CONTENT_TYPE, "application/json")], openapi_json)
        }),
    )
    .route("/metrics", axum::routing::get(metrics))
    .route(
        "/",
        axum::routing::get(move || async move { Html(index_html.to_string()) }),
    )
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
        ApiError::from(queens_model::Error::internal("a request handler panicked")).into_response()
    }))
    .layer(TraceLayer::new_for_http())
    .layer(PropagateRequestIdLayer::new(x_request_id.clone()))
    .layer(SetRequestIdLayer::new(x_request_id, Sequential::new()))
    // Outermost: preflights are answered before anything else runs, and every answer (the
    // guard's 401s and 429s too) gets the headers (none without --cors-origin).
    .layer(tower::util::option_layer(super::cors::layer(
        &state.config.cors,
    )))
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

/// Adds every operation of the table to the router: its synchronous endpoint, if it has
/// one, with its OpenAPI entry, and its response's schema (a job-only operation's too, so
/// that a job's `result` is documented).
struct Operations(OpenApiRouter<AppState>);

impl Visit for Operations {
    fn visit<O: Member>(&mut self) {
        use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem, Paths};
        use utoipa::openapi::request_body::RequestBodyBuilder;
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        use utoipa::openapi::{ContentBuilder, Ref, Required, ResponseBuilder};
        use utoipa::{PartialSchema, ToSchema};
        let mut schemas = Vec::new();
        let response = match O::PLAIN_TEXT {
            Some(_) => ContentBuilder::new()
                .schema(Some(
                    ObjectBuilder::new().schema_type(SchemaType::Type(Type::String)),
                ))
                .build(),
            None => {
                <O::Response as ToSchema>::schemas(&mut schemas);
                schemas.push((
                    <O::Response as ToSchema>::name().into_owned(),
                    <O::Response as PartialSchema>::schema(),
                ));
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name(
                        <O::Response as ToSchema>::name(),
                    )))
                    .build()
            }
        };
        let Some(path) = O::PATH else {
            let components = self
                .0
                .get_openapi_mut()
                .components
                .get_or_insert_with(Default::default);
            components.schemas.extend(schemas);
            return;
        };
        <O::Request as ToSchema>::schemas(&mut schemas);
        schemas.push((
            <O::Request as ToSchema>::name().into_owned(),
            <O::Request as PartialSchema>::schema(),
        ));
        let content_type = if O::PLAIN_TEXT.is_some() {
            "text/plain"
        } else {
            "application/json"
        };
        let problem = || {
            ResponseBuilder::new()
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("Problem")))
                        .build(),
                )
                .build()
        };
        let operation = OperationBuilder::new()
            .operation_id(Some(O::NAME))
            .summary(Some(O::SUMMARY))
            .request_body(Some(
                RequestBodyBuilder::new()
                    .content(
                        "application/json",
                        ContentBuilder::new()
                            .schema(Some(
                                Ref::from_schema_name(<O::Request as ToSchema>::name()),
                            ))
                            .build(),
                    )
                    .required(Some(Required::True))
                    .build(),
            ))
            .response(
                "200",
                ResponseBuilder::new().content(content_type, response),
            )
            .response("400", problem())
            .response("413", problem())
            .response("422", problem())
            .response("500", problem())
            .response("503", problem());
        let mut paths = Paths::new();
        paths
            .paths
            .insert(path.to_string(), PathItem::new(HttpMethod::Post, operation));
        let router = std::mem::take(&mut self.0);
        self.0 = router.routes((schemas, paths, axum::routing::post(sync::<O>)));
    }
}

/// An operation's synchronous endpoint: the body read as its request, run on a worker
/// within the server's time limit, the answer as JSON (or as text, for an operation that
/// answers so).
async fn sync<O: Member>(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<O::Request>,
) -> Result<HttpResponse, ApiError> {
    let (resp, _) = s.run_sync(O::wrap(req)).await?;
    let resp = O::response(resp).ok_or_else(|| {
        ApiError::from(queens_model::Error::internal(format!(
            "the {} operation returned another operation's answer",
            O::NAME
        )))
    })?;
    let Some(text) = O::PLAIN_TEXT else {
        return Ok(Json(resp).into_response());
    };
    let text = text(resp);
    let mut reply = (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        text.body,
    )
        .into_response();
    for (name, value) in text.headers {
        let value = HeaderValue::from_str(&value)
            .map_err(|e| queens_model::Error::internal_from("a header value", e))?;
        reply
            .headers_mut()
            .insert(HeaderName::from_static(name), value);
    }
    Ok(reply)
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
    /// The built-in engines, in the engine table's order: `auto`, `backtrack`, `sat`, `race`,
    /// `local`, then the engines without options.
    engines: Vec<&'static str>,
    /// The external SAT solvers this server allows (`"engine": "ext", "solver": NAME`):
    /// only those given to `queens serve --solver`.
    solvers: Vec<queens_engine::ext::SolverInfo>,
}

/// The engines a request may name, and the external solvers on this server's allowlist.
#[utoipa::path(get, path = "/v1/engines", responses((status = 200, body = Engines)))]
async fn engines() -> Json<Engines> {
    Json(Engines {
        engines: queens_ops::EngineName::built_in()
            .map(queens_ops::EngineName::name)
            .collect(),
        solvers: queens_engine::ext::table().offered(),
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

/// `GET /play`: the puzzle page, one self-contained file (no build step, nothing fetched
/// from elsewhere) that plays through the JSON API above.
async fn play() -> Html<&'static str> {
    Html(PLAY)
}

const PLAY: &str = include_str!("../../../static/play.html");

/// The index page: what the service is, then every route of the OpenAPI document (the
/// routes as registered: every operation of the table, the jobs, health), each with its
/// methods and summary, and the routes outside the document.
fn index_page(document: &serde_json::Value) -> String {
    let escape = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut items = String::new();
    let paths = document["paths"].as_object().cloned().unwrap_or_default();
    for (path, item) in &paths {
        let Some(methods) = item.as_object() else {
            continue;
        };
        for (method, op) in methods {
            if !["get", "post", "delete", "put", "patch"].contains(&method.as_str()) {
                continue;
            }
            let summary = op["summary"]
                .as_str()
                .or_else(|| op["description"].as_str())
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("");
            items += &format!(
                "<li><code>{} {}</code>: {}</li>\n",
                method.to_uppercase(),
                escape(path),
                escape(summary)
            );
        }
    }
    format!("{INDEX_HEAD}<ul>\n{items}{INDEX_OTHERS}</ul>\n{INDEX_TAIL}")
}

const INDEX_HEAD: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>queens</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52em;margin:2em auto;padding:0 1em}
code{background:#f3f3f3;padding:0 .2em}</style></head><body>
<h1>queens</h1>
<p><a href="/play">Play a region Queens puzzle</a> in the browser: generated or pasted, with
conflicts shown as you go, hints that say why, and the solver one click away.</p>
<p>Solves, counts, checks, explains and generates n-queens, n-queens completion and region
Queens problems. Every board in an answer has passed an independent verifier; an UNSAT answer
can come with a proof a DRAT/LRAT checker accepts.</p>
<h2>Endpoints</h2>
<p>A <code>POST</code> takes a JSON body (<code>{"instance": {...}, ...options}</code> for the
operations on an instance) and answers synchronously within the server's time limit; long work
is a job (<code>POST /v1/jobs</code> with <code>"op"</code> and the operation's body).
<a href="/openapi.json">/openapi.json</a> has every schema.</p>
"#;

const INDEX_OTHERS: &str = r#"<li><code>GET /openapi.json</code>: the OpenAPI 3.1 document</li>
<li><code>GET /metrics</code>: Prometheus counters</li>
<li><code>GET /play</code>: the puzzle page</li>
"#;

const INDEX_TAIL: &str = r#"<p>Example: <code>curl -s localhost:8080/v1/solve -d '{"instance":{"n":8,"queens":["b4","d5"]}}'</code></p>
</body></html>
"#;
