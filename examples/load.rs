//! `load`: an HTTP/1.1 load generator for benchmarking `queens serve` on this machine.
//!
//! ```text
//! cargo run --release --example load -- [OPTIONS] URL
//!
//!   URL                   http://HOST[:PORT]/path[?query]; HOST must be loopback:
//!                         127.0.0.0/8, localhost (dialled as 127.0.0.1) or [::1].
//!                         Anything else is refused: this tool never sends traffic off the machine.
//!   --method GET|POST     default GET
//!   --body-file F         request bodies, one JSON document per line (blank lines skipped);
//!                         request i sends body i mod n, with Content-Type: application/json
//!   --concurrency C       keep-alive connections, one task each (default 32, at most 10000)
//!   --duration SECS       measured time (default 10, 1..=300)
//!   --rate R              open loop: R requests/s in total, evenly spaced; latency counts from
//!                         each request's *scheduled* send time, so when the server (or the client)
//!                         falls behind, the queueing shows in the latency instead of being hidden
//!                         (coordinated omission). Without it: closed loop, every connection sends
//!                         its next request as soon as the previous response is in.
//!                         Open loop needs connections to spare: more than rate × latency
//!                         (Little's law), or the client itself falls behind (see `unsent`).
//!   --warmup SECS         traffic before the measurement, not recorded (default 1, 0..=60)
//!   --max-requests N      safety bound on requests sent, warmup included (default 50 000 000)
//!   --threads T           client threads, each a single-threaded tokio runtime running its
//!                         share of the connections (default: number of CPUs)
//!   --json                one JSON object on stdout instead of the text summary
//! ```
//!
//! The run is bounded: no request is sent after warmup + duration, requests still in flight
//! then get 5 s more, and `--max-requests` caps the count. Exit status 0, or 1 if no response
//! at all was received, 2 on bad arguments (including a non-loopback host).
//!
//! Examples (the service on port 3000, bodies from a JSON-lines file of 9×9 levels):
//!
//! ```text
//! cargo run --release --example load -- http://127.0.0.1:3000/healthz
//! cargo run --release --example load -- --method POST --body-file levels.jsonl \
//!     --concurrency 64 --duration 20 --json http://127.0.0.1:3000/v1/solve
//! cargo run --release --example load -- --method POST --body-file levels.jsonl \
//!     --rate 8000 http://127.0.0.1:3000/v1/check        # p99 at a fixed 8000 req/s
//! ```
//!
//! What is reported (JSON field names; the text summary says the same). A request is recorded
//! if it ends, with a response or an error, after the warmup, whenever it was sent: under
//! overload, requests due during the warmup and answered later are part of what is measured.
//!
//! - `sent`: recorded requests. Each ended as exactly one of a response (`completed`, counted
//!   per status code in `status`) or an error (`errors`): `connect` (TCP connect failed), `io`
//!   (connection reset or closed mid-response, malformed response) or `timeout` (no response
//!   5 s after the end), with the text of the first one in `errors.first`. So
//!   `sent = completed + errors.total`. `warmup_done`: requests that ended during the warmup.
//! - `rps`: responses received between the end of the warmup and the end of the run, per
//!   second (`measured_s` is shorter than the duration if `--max-requests` ended the run).
//! - open loop only: `scheduled`, requests that fell due (warmup included), and `unsent`, those
//!   never sent because every connection was still busy when the run ended. Their latency
//!   would have been at least as long as they had waited, and they are left out of the
//!   percentiles: a non-zero `unsent` means the rate is above what the server (or this client)
//!   sustains, and the latencies are optimistic.
//! - `latency_ms` of the responses (any status): from the send in closed loop (including a
//!   reconnect if the server had closed the connection), from the scheduled time in open loop,
//!   to the last byte of the body. `min`, `mean`, `p50`, `p90`, `p99`, `p99_9`, `max`. Samples go
//!   into an HDR-style log-linear histogram with 256 sub-buckets per power of two of
//!   nanoseconds: a percentile is the upper edge of its bucket (never below the true value, at
//!   most 0.4 % above it); min, max and mean are exact.
//!
//! Connections are HTTP/1.1 keep-alive (hyper's client connection, no pool, TCP_NODELAY); a
//! connection the server closes (`Connection: close`, HTTP/1.0) is reopened, and a request that
//! had not been written when that happened is retried on the new connection, not counted as an
//! error. Open-loop pacing uses a dedicated thread sleeping with the OS timer (tens of µs)
//! rather than tokio's millisecond timer wheel, which would add up to 1 ms of lateness to every
//! request; requests are sent in schedule order by whichever connection is free first.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::{Connection, SendRequest};
use hyper::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE, HOST};
use hyper::{Method, Request, Uri};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::time::Sleep;

/// How long requests still in flight at the end of the run may take before they count as
/// timeouts and the run stops regardless.
const GRACE: Duration = Duration::from_secs(5);
/// A request whose connection keeps closing before it can be written is given up after this
/// many attempts (as an `io` error).
const MAX_TRIES: u32 = 3;
/// Pause after a failed TCP connect, so a server that is down is not hammered in a hot loop.
const CONNECT_BACKOFF: Duration = Duration::from_millis(10);

#[derive(Parser)]
#[command(
    about = "HTTP/1.1 load generator for loopback servers: closed or open loop, latency percentiles"
)]
struct Args {
    /// http://HOST[:PORT]/path with HOST in 127.0.0.0/8, localhost or [::1]
    url: String,
    /// Request method
    #[arg(long, value_enum, ignore_case = true, default_value = "GET")]
    method: HttpMethod,
    /// File of request bodies, one JSON document per line; requests cycle through them
    #[arg(long, value_name = "F")]
    body_file: Option<PathBuf>,
    /// Keep-alive connections, one task each
    #[arg(long, short = 'c', value_name = "C", default_value_t = 32,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    concurrency: u32,
    /// Measured duration in seconds
    #[arg(long, short = 'd', value_name = "SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=300))]
    duration: u64,
    /// Open loop at R requests/s in total, latency from the scheduled send time
    #[arg(long, value_name = "R", value_parser = parse_rate)]
    rate: Option<f64>,
    /// Seconds of unrecorded traffic before the measurement
    #[arg(long, value_name = "SECS", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(0..=60))]
    warmup: u64,
    /// Stop after this many requests (warmup included), whatever the duration
    #[arg(long, value_name = "N", default_value_t = 50_000_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_requests: u64,
    /// Client threads, each running its share of the connections [default: number of CPUs]
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Option<u32>,
    /// Print one JSON object instead of the text summary
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum HttpMethod {
    #[value(name = "GET")]
    Get,
    #[value(name = "POST")]
    Post,
}

fn parse_rate(text: &str) -> Result<f64, String> {
    let rate: f64 = text.parse().map_err(|e| format!("{e}"))?;
    if rate.is_finite() && rate > 0.0 && rate <= 10_000_000.0 {
        Ok(rate)
    } else {
        Err("must be a number of requests per second in (0, 10000000]".into())
    }
}

/// Where the traffic goes: the address to dial, the Host header and the request target.
struct Target {
    addr: SocketAddr,
    host: HeaderValue,
    path: Uri,
}

/// Parses `url` and refuses anything that is not plain HTTP to a loopback address.
fn target(url: &str) -> Result<Target, String> {
    let uri: Uri = url.parse().map_err(|e| format!("bad URL {url:?}: {e}"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!("{url}: only http:// URLs are supported"));
    }
    let authority = uri.authority().ok_or_else(|| format!("{url}: no host"))?;
    if authority.as_str().contains('@') {
        return Err(format!(
            "{url}: user information in the URL is not supported"
        ));
    }
    let host = authority.host();
    let refuse = || {
        format!(
            "refusing to send load to {host:?}: only 127.0.0.0/8, localhost and [::1] are allowed"
        )
    };
    let ip = if host.eq_ignore_ascii_case("localhost") {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    } else if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        match inner.parse::<Ipv6Addr>() {
            Ok(v6) if v6 == Ipv6Addr::LOCALHOST => IpAddr::V6(v6),
            _ => return Err(refuse()),
        }
    } else {
        match host.parse::<Ipv4Addr>() {
            Ok(v4) if v4.is_loopback() => IpAddr::V4(v4),
            _ => return Err(refuse()),
        }
    };
    let port = authority.port_u16().unwrap_or(80);
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    Ok(Target {
        addr: SocketAddr::new(ip, port),
        host: HeaderValue::from_str(authority.as_str()).map_err(|e| format!("{url}: {e}"))?,
        path: path.parse().map_err(|e| format!("{url}: {e}"))?,
    })
}

/// Reads the bodies file: one JSON document per line, each checked to be JSON so a typo is
/// caught before the run rather than showing up as 400s.
fn read_bodies(path: &PathBuf) -> Result<Vec<Bytes>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut bodies = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        serde_json::from_str::<serde_json::Value>(line)
            .map_err(|e| format!("{}:{}: not JSON: {e}", path.display(), number + 1))?;
        bodies.push(Bytes::copy_from_slice(line.as_bytes()));
    }
    if bodies.is_empty() {
        return Err(format!("{}: no request bodies", path.display()));
    }
    Ok(bodies)
}

// ===== Latency histogram

/// log2 of the number of sub-buckets per power of two: relative error at most 2^-SUB_BITS.
const SUB_BITS: u32 = 8;
const SUB: u64 = 1 << SUB_BITS;

/// An HDR-style log-linear histogram of nanosecond values: exact below 2·SUB, then SUB
/// equal-width buckets per power of two. Grows on demand (loopback latencies stay in the first
/// few thousand buckets), so one per connection is cheap.
#[derive(Default)]
struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    min: u64,
    max: u64,
}

fn bucket_of(value: u64) -> usize {
    if value < SUB {
        value as usize
    } else {
        let shift = 63 - value.leading_zeros() - SUB_BITS;
        ((u64::from(shift) + 1) * SUB + ((value >> shift) - SUB)) as usize
    }
}

/// The largest value that falls in `bucket`.
fn bucket_high(bucket: usize) -> u64 {
    let bucket = bucket as u64;
    if bucket < SUB {
        return bucket;
    }
    let shift = bucket / SUB - 1;
    let mantissa = u128::from(bucket % SUB + SUB);
    u64::try_from(((mantissa + 1) << shift) - 1).unwrap_or(u64::MAX)
}

impl Histogram {
    fn record(&mut self, nanos: u64) {
        let bucket = bucket_of(nanos);
        if bucket >= self.counts.len() {
            self.counts.resize(bucket + 1, 0);
        }
        self.counts[bucket] += 1;
        if self.total == 0 || nanos < self.min {
            self.min = nanos;
        }
        self.max = self.max.max(nanos);
        self.total += 1;
        self.sum += u128::from(nanos);
    }

    fn merge(&mut self, other: &Histogram) {
        if other.total == 0 {
            return;
        }
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
        self.min = if self.total == 0 {
            other.min
        } else {
            self.min.min(other.min)
        };
        self.max = self.max.max(other.max);
        self.total += other.total;
        self.sum += other.sum;
    }

    /// The value at quantile `q` (0 < q ≤ 1): the upper edge of the bucket holding the
    /// ⌈q·total⌉-th smallest sample, capped at the exact maximum.
    fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (bucket, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return bucket_high(bucket).min(self.max);
            }
        }
        self.max
    }

    fn mean(&self) -> u64 {
        if self.total == 0 {
            0
        } else {
            (self.sum / u128::from(self.total)) as u64
        }
    }
}

// ===== Run state

/// What one connection saw in the measured window.
#[derive(Default)]
struct Stats {
    latency: Histogram,
    sent: u64,
    status: BTreeMap<u16, u64>,
    connect_errors: u64,
    io_errors: u64,
    timeouts: u64,
    /// Responses received before the end of the measured window (for the rate).
    in_window: u64,
    /// Requests that ended (either way) during the warmup, not recorded.
    warmup_done: u64,
    first_error: Option<String>,
}

impl Stats {
    fn merge(&mut self, other: Stats) {
        self.latency.merge(&other.latency);
        self.sent += other.sent;
        for (code, count) in other.status {
            *self.status.entry(code).or_default() += count;
        }
        self.connect_errors += other.connect_errors;
        self.io_errors += other.io_errors;
        self.timeouts += other.timeouts;
        self.in_window += other.in_window;
        self.warmup_done += other.warmup_done;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    fn completed(&self) -> u64 {
        self.status.values().sum()
    }

    fn errors(&self) -> u64 {
        self.connect_errors + self.io_errors + self.timeouts
    }
}

enum Outcome {
    /// A response: its status code and latency in nanoseconds.
    Status(u16, u64),
    Connect(String),
    Io(String),
    Timeout,
}

/// One request to make: its index (which body, which schedule slot) and the instant its
/// latency counts from.
struct Ticket {
    index: u64,
    from: Instant,
    tries: u32,
}

struct Shared {
    target: Target,
    method: Method,
    bodies: Vec<Bytes>,
    json_bodies: bool,
    /// Start of the run (and of the open-loop schedule).
    t0: Instant,
    warm_end: Instant,
    end: Instant,
    /// `end + GRACE`: nothing waits beyond this.
    hard_end: Instant,
    max_requests: u64,
    /// Next request index.
    next: AtomicU64,
    /// Open loop: the rate, and the permits the pacer releases as requests fall due.
    rate: Option<f64>,
    permits: Semaphore,
}

impl Shared {
    fn scheduled(&self, index: u64, rate: f64) -> Instant {
        self.t0 + Duration::from_secs_f64(index as f64 / rate)
    }

    /// The next request to make, or `None` when the run is over.
    async fn claim(&self) -> Option<Ticket> {
        match self.rate {
            None => {
                let now = Instant::now();
                if now >= self.end {
                    return None;
                }
                let index = self.next.fetch_add(1, Ordering::Relaxed);
                (index < self.max_requests).then_some(Ticket {
                    index,
                    from: now,
                    tries: 0,
                })
            }
            Some(rate) => {
                // Permits are released in index order as requests fall due, so the index taken
                // after acquiring one is always due already.
                self.permits.acquire().await.ok()?.forget();
                let index = self.next.fetch_add(1, Ordering::Relaxed);
                if index + 1 >= self.max_requests {
                    // The last one: every permit has been taken, let the other connections go.
                    self.permits.close();
                }
                Some(Ticket {
                    index,
                    from: self.scheduled(index, rate),
                    tries: 0,
                })
            }
        }
    }

    fn request(&self, index: u64) -> Request<Full<Bytes>> {
        let body = if self.bodies.is_empty() {
            Bytes::new()
        } else {
            self.bodies[(index % self.bodies.len() as u64) as usize].clone()
        };
        let length = body.len();
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = self.method.clone();
        *request.uri_mut() = self.target.path.clone();
        let headers = request.headers_mut();
        headers.insert(HOST, self.target.host.clone());
        if self.json_bodies {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        if length > 0 || self.method == Method::POST {
            headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
        }
        request
    }
}

/// Releases open-loop permits as requests fall due, sleeping with the OS timer between
/// batches; closes the semaphore at the end of the run. Returns how many requests fell due.
fn pace(shared: &Shared, rate: f64) -> u64 {
    let mut released: u64 = 0;
    loop {
        let now = Instant::now();
        if now >= shared.end || shared.permits.is_closed() {
            break;
        }
        let elapsed = now.duration_since(shared.t0).as_secs_f64();
        let due = ((elapsed * rate).floor() as u64 + 1).min(shared.max_requests);
        if due > released {
            shared.permits.add_permits((due - released) as usize);
            released = due;
        }
        let wake = if released < shared.max_requests {
            shared.scheduled(released, rate).min(shared.end)
        } else {
            shared.end
        };
        std::thread::sleep(wake.saturating_duration_since(Instant::now()));
    }
    shared.permits.close();
    released
}

type Conn = Connection<TokioIo<TcpStream>, Full<Bytes>>;

/// A live HTTP/1 connection: the handle to send on and the connection future, polled by the
/// same task while it waits for anything.
struct Link {
    sender: SendRequest<Full<Bytes>>,
    conn: Pin<Box<Conn>>,
    conn_done: bool,
}

/// Awaits `future` while also driving the connection's I/O; `None` if `deadline` comes first.
/// The deadline is one timer per connection, armed once, not one per request.
async fn with_conn<F: Future>(
    conn: &mut Pin<Box<Conn>>,
    conn_done: &mut bool,
    mut deadline: Pin<&mut Sleep>,
    future: F,
) -> Option<F::Output> {
    tokio::pin!(future);
    loop {
        tokio::select! {
            biased;
            output = &mut future => return Some(output),
            _ = conn.as_mut(), if !*conn_done => *conn_done = true,
            () = &mut deadline => return None,
        }
    }
}

async fn connect(addr: SocketAddr) -> Result<Link, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("set_nodelay: {e}"))?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    Ok(Link {
        sender,
        conn: Box::pin(conn),
        conn_done: false,
    })
}

/// Opens a connection, giving up at `give_up`.
async fn connect_until(addr: SocketAddr, give_up: Instant) -> Result<Link, String> {
    let attempt = tokio::time::timeout_at(give_up.into(), connect(addr));
    match attempt.await {
        Ok(result) => result,
        Err(_) => Err(format!("connect {addr}: timed out")),
    }
}

/// One connection's whole run: claim a request, make sure there is a live connection, send,
/// read the full response, record; until the run is over.
async fn connection(shared: Arc<Shared>) -> Stats {
    let mut stats = Stats::default();
    // Connect before the first request so open-loop requests do not all pay for it; a failure
    // here is retried (and counted) when there is a request to send.
    let mut link = connect_until(shared.target.addr, shared.hard_end)
        .await
        .ok();
    let mut pending: Option<Ticket> = None;
    let deadline = tokio::time::sleep_until(shared.hard_end.into());
    tokio::pin!(deadline);
    loop {
        let ticket = match pending.take() {
            Some(ticket) => ticket,
            None => {
                let claim = shared.claim();
                let claimed = match link.as_mut() {
                    Some(l) => with_conn(&mut l.conn, &mut l.conn_done, deadline.as_mut(), claim)
                        .await
                        .flatten(),
                    None => claim.await,
                };
                match claimed {
                    Some(ticket) => ticket,
                    None => break,
                }
            }
        };
        let outcome = send(&shared, &mut link, deadline.as_mut(), ticket, &mut pending).await;
        let Some(outcome) = outcome else {
            continue; // not written before the connection closed: retry on a new one
        };
        // Recorded if it ended after the warmup, whenever it was sent: under overload, requests
        // due during the warmup and answered after it are part of what the window measures.
        let now = Instant::now();
        if now < shared.warm_end {
            stats.warmup_done += 1;
            continue;
        }
        stats.sent += 1;
        match outcome {
            Outcome::Status(code, nanos) => {
                *stats.status.entry(code).or_default() += 1;
                stats.latency.record(nanos);
                if now < shared.end {
                    stats.in_window += 1;
                }
            }
            Outcome::Connect(error) => {
                stats.connect_errors += 1;
                stats.first_error.get_or_insert(error);
            }
            Outcome::Io(error) => {
                stats.io_errors += 1;
                stats.first_error.get_or_insert(error);
            }
            Outcome::Timeout => {
                stats.timeouts += 1;
                break;
            }
        }
    }
    stats
}

/// Sends the request for `ticket` (connecting first if needed) and reads the whole response.
/// `None`, with the ticket put back in `pending`, when the connection turned out to be closed
/// before the request was written.
async fn send(
    shared: &Shared,
    link: &mut Option<Link>,
    deadline: Pin<&mut Sleep>,
    mut ticket: Ticket,
    pending: &mut Option<Ticket>,
) -> Option<Outcome> {
    ticket.tries += 1;
    if link
        .as_ref()
        .is_some_and(|l| l.conn_done || l.sender.is_closed())
    {
        *link = None;
    }
    if link.is_none() {
        match connect_until(shared.target.addr, shared.hard_end).await {
            Ok(new) => *link = Some(new),
            Err(error) => {
                if Instant::now() >= shared.hard_end {
                    return Some(Outcome::Timeout);
                }
                tokio::time::sleep(CONNECT_BACKOFF).await;
                return Some(Outcome::Connect(error));
            }
        }
    }
    let l = link.as_mut().expect("connected above");
    let request = shared.request(ticket.index);
    let exchange = async {
        if l.sender.ready().await.is_err() {
            return Err((true, String::new()));
        }
        let response = match l.sender.try_send_request(request).await {
            Ok(response) => response,
            Err(mut error) => {
                let unsent = error.take_message().is_some();
                return Err((unsent, error.into_error().to_string()));
            }
        };
        let status = response.status().as_u16();
        let mut body = response.into_body();
        while let Some(frame) = body.frame().await {
            frame.map_err(|e| (false, format!("reading the body: {e}")))?;
        }
        Ok(status)
    };
    let result = with_conn(&mut l.conn, &mut l.conn_done, deadline, exchange).await;
    match result {
        None => {
            *link = None;
            Some(Outcome::Timeout)
        }
        Some(Ok(status)) => {
            let nanos = ticket.from.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64;
            Some(Outcome::Status(status, nanos))
        }
        Some(Err((true, _))) if ticket.tries < MAX_TRIES => {
            *link = None;
            *pending = Some(ticket);
            None
        }
        Some(Err((_, error))) => {
            *link = None;
            Some(Outcome::Io(if error.is_empty() {
                "connection closed before the request was written".into()
            } else {
                error
            }))
        }
    }
}

// ===== Run and report

struct Report {
    url: String,
    method: &'static str,
    connections: u32,
    duration: u64,
    warmup: u64,
    rate: Option<f64>,
    /// Seconds of the measured window actually run (shorter if `--max-requests` ended it).
    measured: f64,
    /// Open loop: requests that fell due (warmup included), and how many of them were never
    /// sent.
    due: Option<u64>,
    unsent: Option<u64>,
    stats: Stats,
}

fn ms(nanos: u64) -> f64 {
    nanos as f64 / 1e6
}

impl Report {
    fn rps(&self) -> f64 {
        if self.measured > 0.0 {
            self.stats.in_window as f64 / self.measured
        } else {
            0.0
        }
    }

    fn percentiles(&self) -> [(&'static str, u64); 5] {
        let h = &self.stats.latency;
        [
            ("p50", h.quantile(0.50)),
            ("p90", h.quantile(0.90)),
            ("p99", h.quantile(0.99)),
            ("p99_9", h.quantile(0.999)),
            ("max", h.max),
        ]
    }

    fn json(&self) -> serde_json::Value {
        let s = &self.stats;
        let h = &s.latency;
        let mut latency = serde_json::Map::new();
        latency.insert("min".into(), json!(ms(h.min)));
        latency.insert("mean".into(), json!(ms(h.mean())));
        for (name, nanos) in self.percentiles() {
            latency.insert(name.into(), json!(ms(nanos)));
        }
        let status: serde_json::Map<String, serde_json::Value> = s
            .status
            .iter()
            .map(|(code, count)| (code.to_string(), json!(count)))
            .collect();
        json!({
            "url": self.url,
            "method": self.method,
            "mode": if self.rate.is_some() { "open" } else { "closed" },
            "connections": self.connections,
            "duration_s": self.duration,
            "warmup_s": self.warmup,
            "target_rate": self.rate,
            "measured_s": self.measured,
            "scheduled": self.due,
            "sent": s.sent,
            "completed": s.completed(),
            "unsent": self.unsent,
            "status": status,
            "errors": {
                "total": s.errors(),
                "connect": s.connect_errors,
                "io": s.io_errors,
                "timeout": s.timeouts,
                "first": s.first_error,
            },
            "warmup_done": s.warmup_done,
            "rps": self.rps(),
            "latency_ms": latency,
        })
    }

    fn text(&self) -> String {
        let s = &self.stats;
        let mode = match self.rate {
            Some(rate) => format!("open loop at {rate} req/s"),
            None => "closed loop".into(),
        };
        let mut out = format!(
            "{} {}: {mode}, {} connections, {} s measured after {} s warmup\n",
            self.method, self.url, self.connections, self.duration, self.warmup
        );
        if let (Some(due), Some(unsent)) = (self.due, self.unsent) {
            out += &format!("  scheduled {due} (warmup included), never sent {unsent}");
            out += if unsent > 0 {
                " (the client fell behind: the percentiles leave them out)\n"
            } else {
                "\n"
            };
        }
        out += &format!("  warmup  {} requests, not recorded\n", s.warmup_done);
        out += &format!(
            "  sent {}, completed {}, errors {} (connect {}, io {}, timeout {})\n",
            s.sent,
            s.completed(),
            s.errors(),
            s.connect_errors,
            s.io_errors,
            s.timeouts
        );
        if let Some(error) = &s.first_error {
            out += &format!("  first error: {error}\n");
        }
        let status: Vec<String> = s
            .status
            .iter()
            .map(|(code, count)| format!("{code}: {count}"))
            .collect();
        if status.is_empty() {
            out += "  status  (no responses)\n";
        } else {
            out += &format!("  status  {}\n", status.join(", "));
        }
        out += &format!(
            "  rate    {:.1} req/s over {:.3} s\n",
            self.rps(),
            self.measured
        );
        let h = &s.latency;
        let percentiles: Vec<String> = self
            .percentiles()
            .iter()
            .map(|(name, nanos)| format!("{} {:.3}", name.replace('_', "."), ms(*nanos)))
            .collect();
        out += &format!(
            "  latency ms  {}  (min {:.3}, mean {:.3})\n",
            percentiles.join("  "),
            ms(h.min),
            ms(h.mean())
        );
        out
    }
}

/// Runs `connections` connection tasks on a runtime of this thread's own.
fn client_thread(shared: Arc<Shared>, connections: u32) -> Result<Stats, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    Ok(runtime.block_on(async {
        let tasks: Vec<_> = (0..connections)
            .map(|_| tokio::spawn(connection(Arc::clone(&shared))))
            .collect();
        let mut total = Stats::default();
        for task in tasks {
            total.merge(task.await.expect("connection task panicked"));
        }
        total
    }))
}

fn run(args: &Args) -> Result<Report, String> {
    let target = target(&args.url)?;
    let bodies = match &args.body_file {
        Some(path) => read_bodies(path)?,
        None => Vec::new(),
    };
    let t0 = Instant::now();
    let warm_end = t0 + Duration::from_secs(args.warmup);
    let end = warm_end + Duration::from_secs(args.duration);
    let method = match args.method {
        HttpMethod::Get => Method::GET,
        HttpMethod::Post => Method::POST,
    };
    let shared = Arc::new(Shared {
        target,
        method: method.clone(),
        json_bodies: !bodies.is_empty(),
        bodies,
        t0,
        warm_end,
        end,
        hard_end: end + GRACE,
        max_requests: args.max_requests,
        next: AtomicU64::new(0),
        rate: args.rate,
        permits: Semaphore::new(0),
    });
    let pacer = args.rate.map(|rate| {
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("pacer".into())
            .spawn(move || pace(&shared, rate))
            .expect("spawn the pacer thread")
    });
    // One single-threaded runtime per client thread, each with its share of the connections
    // (like wrk's threads): no work stealing and no cross-thread wake-ups per request.
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
    let threads = threads.min(args.concurrency);
    let workers: Vec<_> = (0..threads)
        .map(|thread| {
            let shared = Arc::clone(&shared);
            let connections =
                args.concurrency / threads + u32::from(thread < args.concurrency % threads);
            std::thread::Builder::new()
                .name(format!("client-{thread}"))
                .spawn(move || client_thread(shared, connections))
                .expect("spawn a client thread")
        })
        .collect();
    let mut stats = Stats::default();
    for worker in workers {
        stats.merge(worker.join().expect("client thread panicked")?);
    }
    let finished = Instant::now();
    let due = pacer.map(|pacer| pacer.join().expect("pacer thread panicked"));
    let unsent = due.map(|due| due.saturating_sub(shared.next.load(Ordering::Relaxed)));
    let measured = finished.min(end).saturating_duration_since(warm_end);
    Ok(Report {
        url: args.url.clone(),
        method: match args.method {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
        },
        connections: args.concurrency,
        duration: args.duration,
        warmup: args.warmup,
        rate: args.rate,
        measured: measured.as_secs_f64(),
        due,
        unsent,
        stats,
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(report) => {
            if args.json {
                println!("{}", report.json());
            } else {
                print!("{}", report.text());
            }
            if report.stats.completed() == 0 {
                eprintln!("load: no request completed");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("load: {message}");
            ExitCode::from(2)
        }
    }
}
