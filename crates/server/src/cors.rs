//! Cross-origin calls from browsers (`queens serve --cors-origin`): tower-http's
//! [`CorsLayer`] with what this API needs listed, or no layer at all by default.

use std::time::Duration;

use axum::http::{header, HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

use super::config::Cors;

/// The layer for `cors`, outermost on the router so that every answer gets its headers
/// (401, 429 and other problem+json errors too, which a page must be able to read), and
/// every `OPTIONS` (a preflight, on any path) is answered before the key check, since a
/// browser sends no credentials on it. `None` without `--cors-origin`: no CORS header at
/// all, and `OPTIONS` stays `405`.
pub fn layer(cors: &Cors) -> Option<CorsLayer> {
    let origin = match cors {
        Cors::Off => return None,
        Cors::Any => AllowOrigin::any(),
        Cors::Origins(list) => AllowOrigin::list(
            list.iter()
                .filter_map(|o| HeaderValue::from_str(o).ok())
                .collect::<Vec<_>>(),
        ),
    };
    let request_id = HeaderName::from_static("x-request-id");
    Some(
        CorsLayer::new()
            .allow_origin(origin)
            .allow_methods([
                Method::GET,
                Method::HEAD,
                Method::POST,
                Method::DELETE,
                Method::OPTIONS,
            ])
            // The API key (`Authorization: Bearer KEY`), JSON bodies, a client's own request
            // id, and the event stream's reconnect header.
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                request_id.clone(),
                HeaderName::from_static("last-event-id"),
            ])
            // What a page reads besides the body: a job's `Location`, the wait of a 429 or
            // 503, the request id to quote, the key scheme of a 401, a CNF's sizes.
            .expose_headers([
                header::LOCATION,
                header::RETRY_AFTER,
                header::WWW_AUTHENTICATE,
                request_id,
                HeaderName::from_static("x-queens-vars"),
                HeaderName::from_static("x-queens-clauses"),
            ])
            // `Vary: Origin` (and the preflight's request headers) is the layer's default,
            // so a cache never hands one origin's answer to another.
            .max_age(Duration::from_secs(600)),
    )
}
