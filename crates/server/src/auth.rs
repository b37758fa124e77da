//! Who may call: API keys (`--api-keys FILE`, sent as `Authorization: Bearer KEY`), the
//! caller each request is made by, and rate limits per key or per client address
//! (`--rate-limit R`).
//!
//! Keys are kept only as SHA-256 digests and compared in constant time against every key
//! (no early exit, so the time says neither which key nor how much of one matched); a key
//! is never logged, only its name. With keys, every `/v1/` request needs one (401
//! problem+json otherwise); health, readiness, `/play` and its assets stay open, and
//! `/metrics` too unless `--metrics-need-key`.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::error::ApiError;

/// Shortest key accepted: 16 characters of a random key are beyond guessing.
const MIN_KEY_LEN: usize = 16;

/// The API keys of `--api-keys FILE`: a name and the SHA-256 of each key.
#[derive(Clone)]
pub struct Keys {
    entries: Vec<(Arc<str>, [u8; 32])>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Names only: the digests stay out of logs and panics too.
        let names: Vec<&str> = self.entries.iter().map(|(n, _)| &**n).collect();
        f.debug_struct("Keys").field("names", &names).finish()
    }
}

fn digest(key: &[u8]) -> [u8; 32] {
    Sha256::digest(key).into()
}

impl Keys {
    /// Reads a key file: one `name:key` per line (spaces around either are not part of
    /// it); blank lines and lines starting with `#` are skipped. Errors name the file and line (never the key): a line without `:`, an
    /// empty or repeated name, a key shorter than 16 characters or containing spaces, a
    /// key given twice, or no key at all.
    pub fn load(path: &Path) -> Result<Keys, queens_model::Error> {
        let text = std::fs::read_to_string(path).map_err(|e| queens_model::Error::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Keys::parse(&path.display().to_string(), &text)
    }

    /// [`Keys::load`] on text already read; `origin` names it in errors.
    pub fn parse(origin: &str, text: &str) -> Result<Keys, queens_model::Error> {
        let bad = |line: usize, message: &str| {
            if line == 0 {
                queens_model::Error::input(origin, message)
            } else {
                queens_model::Error::input_at_line(origin, line, message)
            }
        };
        let mut entries: Vec<(Arc<str>, [u8; 32])> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((name, key)) = line.split_once(':') else {
                return Err(bad(i + 1, "expected `name:key`"));
            };
            let (name, key) = (name.trim(), key.trim());
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c))
            {
                return Err(bad(
                    i + 1,
                    "the name must be letters, digits, `-`, `_`, `.` or `@`",
                ));
            }
            if key.len() < MIN_KEY_LEN || key.chars().any(|c| c.is_whitespace()) {
                return Err(bad(
                    i + 1,
                    &format!(
                        "the key of `{name}` must be at least {MIN_KEY_LEN} characters, \
                         without spaces"
                    ),
                ));
            }
            let d = digest(key.as_bytes());
            if entries.iter().any(|(n, _)| &**n == name) {
                return Err(bad(i + 1, &format!("`{name}` is given twice")));
            }
            if entries.iter().any(|(_, k)| bool::from(k.ct_eq(&d))) {
                return Err(bad(i + 1, "this key is also another name's key"));
            }
            entries.push((name.into(), d));
        }
        if entries.is_empty() {
            return Err(bad(
                0,
                "no `name:key` line: a key file needs at least one key",
            ));
        }
        Ok(Keys { entries })
    }

    /// The name of the key `presented`, if it is one. Every key is compared, each in
    /// constant time, whatever matched before.
    pub fn identify(&self, presented: &str) -> Option<Arc<str>> {
        let d = digest(presented.as_bytes());
        let mut found = None;
        for (name, key) in &self.entries {
            if bool::from(key.ct_eq(&d)) {
                found = Some(name.clone());
            }
        }
        found
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are none (never, for a loaded file).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Who may call, and how often: the parts of the configuration the guard reads.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// The API keys; `None`: every caller is let in.
    pub keys: Option<Keys>,
    /// Requests per second (and burst) one key, or one client address without keys, may
    /// make to `/v1/`; `None`: no limit.
    pub rate_limit: Option<NonZeroU32>,
    /// `/metrics` needs a key too.
    pub metrics_need_key: bool,
}

/// The caller of a request, as the guard found it: the key's name, or `None` on a server
/// without keys. Handlers read it to give jobs an owner and to hide other callers' jobs.
#[derive(Clone, Debug, Default)]
pub struct Caller(pub Option<Arc<str>>);

impl Caller {
    /// The key's name, for the store.
    pub fn owner(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// True when this caller may see a job owned by `owner`: the same key, or a server
    /// without keys.
    pub fn owns(&self, owner: Option<&str>) -> bool {
        match &self.0 {
            None => true,
            Some(name) => owner == Some(&**name),
        }
    }
}

/// The guard's state: the keys and the rate limiter (GCRA per key or address, from the
/// `governor` crate).
#[derive(Clone)]
pub struct Guard {
    access: Access,
    limiter: Option<Arc<DefaultKeyedRateLimiter<String>>>,
    seen: Arc<AtomicU64>,
}

impl Guard {
    /// The guard for this configuration.
    pub fn new(access: &Access) -> Guard {
        Guard {
            access: access.clone(),
            limiter: access
                .rate_limit
                .map(|r| Arc::new(DefaultKeyedRateLimiter::keyed(Quota::per_second(r)))),
            seen: Arc::new(AtomicU64::new(0)),
        }
    }
}

/// The key in `Authorization: Bearer KEY`, if the header is there and well-formed.
fn bearer(req: &Request) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, key) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| key.trim())
}

fn unauthorized(detail: &str) -> Response {
    let mut resp = ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", detail).into_response();
    resp.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"queens\""),
    );
    resp
}

/// The middleware: identifies the caller (401 without a valid key where one is needed),
/// applies the rate limit (429 with `Retry-After`), and hands the [`Caller`] on.
pub async fn guard(State(guard): State<Guard>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let api = path == "/v1" || path.starts_with("/v1/");
    let keyed = api || (path == "/metrics" && guard.access.metrics_need_key);
    let mut caller = Caller(None);
    if let Some(keys) = &guard.access.keys {
        if keyed {
            match bearer(&req).map(|k| keys.identify(k)) {
                None => {
                    return unauthorized(
                        "this server needs an API key: send `Authorization: Bearer KEY`",
                    )
                }
                Some(None) => return unauthorized("the API key is not valid"),
                Some(Some(name)) => caller = Caller(Some(name)),
            }
        } else if let Some(name) = bearer(&req).and_then(|k| keys.identify(k)) {
            caller = Caller(Some(name));
        }
    }
    if let (Some(limiter), true) = (&guard.limiter, api) {
        let client = match &caller.0 {
            Some(name) => format!("key:{name}"),
            None => format!(
                "addr:{}",
                req.extensions()
                    .get::<ConnectInfo<SocketAddr>>()
                    .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip())
            ),
        };
        // Forget idle clients now and then, so one address per request cannot grow the
        // table without bound.
        if guard.seen.fetch_add(1, Ordering::Relaxed) % 4096 == 4095 {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        if let Err(not_until) = limiter.check_key(&client) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let mut e = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too many requests",
                format!(
                    "over this server's rate limit of {} requests a second (--rate-limit): \
                     retry after {secs} s",
                    guard.access.rate_limit.map_or(0, |r| r.get())
                ),
            );
            e.retry_after = Some(secs.clamp(1, u64::from(u32::MAX)) as u32);
            return e.into_response();
        }
    }
    req.extensions_mut().insert(caller);
    next.run(req).await
}

/// Puts the API key scheme into the OpenAPI document (`components.securitySchemes.api_key`,
/// HTTP bearer) and, when this server has keys, requires it on every `/v1/` operation (the
/// others say `security: []`).
pub fn document(openapi: &mut utoipa::openapi::OpenApi, access: &Access) {
    use utoipa::openapi::security::{
        HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
    };
    let mut description = String::from(
        "An API key from the server's --api-keys file, sent as `Authorization: Bearer KEY`. \
         Without a valid key every /v1/ request is 401; a job is visible (and cancellable) \
         only with the key that submitted it.",
    );
    if let Some(r) = access.rate_limit {
        description.push_str(&format!(
            " Each key (or client address, without keys) may make {r} requests a second to \
             /v1/, in bursts of {r}; more are 429 with Retry-After."
        ));
    }
    openapi
        .components
        .get_or_insert_with(Default::default)
        .add_security_scheme(
            "api_key",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(description))
                    .build(),
            ),
        );
    if access.keys.is_none() {
        return;
    }
    openapi.security = Some(vec![SecurityRequirement::new(
        "api_key",
        Vec::<String>::new(),
    )]);
    for (path, item) in openapi.paths.paths.iter_mut() {
        if path.starts_with("/v1/") {
            continue;
        }
        for op in [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
        {
            op.security = Some(vec![SecurityRequirement::default()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_file_is_read_and_keys_identify_their_names() {
        let keys = Keys::parse(
            "keys",
            "# team keys\nalice:0123456789abcdef0123\n\nbob: spaces-around-are-not-the-key \n",
        )
        .unwrap();
        assert_eq!(keys.len(), 2);
        assert_eq!(
            keys.identify("0123456789abcdef0123").as_deref(),
            Some("alice")
        );
        assert_eq!(
            keys.identify("spaces-around-are-not-the-key").as_deref(),
            Some("bob")
        );
        assert_eq!(keys.identify("0123456789abcdef012"), None);
        assert_eq!(keys.identify(""), None);
        // Names only in Debug.
        assert!(!format!("{keys:?}").contains("0123456789"));
    }

    #[test]
    fn bad_key_files_name_the_line_and_never_the_key() {
        for (text, line, words) in [
            ("alice 0123456789abcdef", 1, "expected `name:key`"),
            ("alice:short", 1, "at least 16"),
            (":0123456789abcdef0", 1, "the name must be"),
            ("a:0123456789abcdef0\na:0123456789abcdefX", 2, "given twice"),
            (
                "a:0123456789abcdef0\nb:0123456789abcdef0",
                2,
                "another name's key",
            ),
            ("# nothing\n", 0, "no `name:key` line"),
        ] {
            let e = Keys::parse("keys.txt", text).unwrap_err().to_string();
            assert!(e.starts_with("keys.txt: "), "{e}");
            assert_eq!(e.contains(&format!("line {line}:")), line > 0, "{e}");
            assert!(e.contains(words), "{e}");
            assert!(!e.contains("0123456789abcdef"), "{e}");
        }
    }

    #[test]
    fn callers_own_their_jobs_only() {
        let alice = Caller(Some("alice".into()));
        assert!(alice.owns(Some("alice")));
        assert!(!alice.owns(Some("bob")));
        assert!(!alice.owns(None));
        assert!(Caller(None).owns(Some("bob")));
    }
}
