//! How the service runs: `queens serve`'s flags ([`ServeArgs`]) and the configuration they
//! are checked into ([`Config`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use super::{auth, store};

/// Default of `--max-simulate-deals`: 100,000 greedy deals take seconds, lookahead ones
/// about four hours (a job's time limit stops them first).
pub const DEFAULT_SIMULATE_DEALS: u64 = 100_000;

/// Default of `--max-study-deals`: each deal's optimum may take `timeout_each_ms`.
pub const DEFAULT_STUDY_DEALS: u64 = 1_000;

/// How the service runs: `queens serve`'s flags.
#[derive(Clone, Debug)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:0` picks a free port; the chosen one is printed).
    pub addr: SocketAddr,
    /// Worker threads for solving (default: the number of cores).
    pub workers: usize,
    /// Synchronous requests that may wait for a worker; more get 503.
    pub queue: usize,
    /// Largest board size accepted.
    pub max_n: usize,
    /// Time limit of a synchronous request, milliseconds (a request may ask for less).
    pub timeout_ms: u64,
    /// Largest request body, bytes.
    pub max_body: usize,
    /// Folder of the job database.
    pub data: PathBuf,
    /// Jobs that may wait in the store; more get 503.
    pub max_jobs: usize,
    /// Estimated memory one operation may use, bytes; more is refused with 422.
    pub max_memory: u64,
    /// Time limit of a job, milliseconds (a job may ask for less).
    pub job_timeout_ms: u64,
    /// The `queens` executable that runs uninterruptible work (`queens op`).
    pub exe: PathBuf,
    /// API keys, rate limit, and whether `/metrics` needs a key.
    pub access: auth::Access,
    /// The external SAT solvers requests may name (engine `ext`): this allowlist only.
    pub solvers: queens_engine::ext::SolverTable,
    /// The shared job store's URL (`postgres://…`); `None`: SQLite in `data`.
    pub store: Option<String>,
    /// How long a running job stays this server's without a renewal of its lease.
    pub lease: Duration,
    /// The largest result or artifact (proof, CNF) a job may store, bytes.
    pub max_artifact: usize,
    /// The folder of the jobs' proofs and CNFs, one subfolder per job: proofs stream there
    /// as they are written and are served from there (replicas must share it).
    pub artifacts: PathBuf,
    /// How long a finished job is kept, with its result and files, before it is removed.
    pub keep_finished: Duration,
    /// The most the artifacts folder may hold, bytes; `None`: no quota.
    pub max_artifacts_total: Option<u64>,
    /// How long running jobs may go on after SIGTERM before they are stopped.
    pub shutdown_grace: Duration,
    /// Most deals a `collection_simulate` may ask for (a synchronous call: at most 10,000).
    pub max_simulate_deals: u64,
    /// Most deals a `collection_study` may ask for (a synchronous call: at most 100).
    pub max_study_deals: u64,
    /// Most jobs of one API key (one client address without keys) running at once here.
    pub jobs_per_key: usize,
    /// The web origins whose pages may call the API from a browser (`--cors-origin`):
    /// none (no CORS headers at all), a list, or any (`*`).
    pub cors: Cors,
}

/// Which other origins' pages a browser lets call this server (`--cors-origin`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Cors {
    /// No cross-origin calls: no `Access-Control-*` header, `OPTIONS` is `405`.
    #[default]
    Off,
    /// These origins only (`https://example.org`, `http://localhost:3000`).
    Origins(Vec<String>),
    /// Any origin (`*`).
    Any,
}

impl Cors {
    /// The `--cors-origin` values, checked: `*`, or origins as a browser sends them in
    /// `Origin` (scheme, host and an optional port; no path, no trailing slash).
    pub fn from_args(values: &[String]) -> Result<Cors, queens_model::Error> {
        if values.is_empty() {
            return Ok(Cors::Off);
        }
        if values.iter().any(|v| v == "*") {
            return Ok(Cors::Any);
        }
        let mut origins = Vec::new();
        for v in values {
            if !is_origin(v) {
                return Err(queens_model::Error::unsupported(format!(
                    "--cors-origin {v:?}: expected an origin as a browser sends it, such as                      https://example.org or http://localhost:3000 (scheme, host, optional                      port; no path or trailing slash), or * for any"
                )));
            }
            if !origins.contains(v) {
                origins.push(v.clone());
            }
        }
        Ok(Cors::Origins(origins))
    }
}

/// `scheme://host[:port]`: a scheme of letters, digits and `+-.` starting with a letter; a
/// host of letters, digits and `.-`, or an IPv6 address in brackets; a numeric port.
fn is_origin(v: &str) -> bool {
    let Some((scheme, rest)) = v.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    let (host_ok, port) = match rest.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, tail)) => (addr.parse::<std::net::Ipv6Addr>().is_ok(), tail),
            None => return false,
        },
        None => {
            let (host, port) = match rest.find(':') {
                Some(at) => rest.split_at(at),
                None => (rest, ""),
            };
            let ok = !host.is_empty()
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-".contains(c));
            (ok, port)
        }
    };
    let port_ok = match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(p) => {
            p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok()
        }
    };
    scheme_ok && host_ok && port_ok
}

/// `queens serve`'s flags (clap), turned into a [`Config`] by [`ServeArgs::config`].
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port; the chosen one is printed on stderr).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Worker threads that run the solving (default: one per core).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Synchronous requests that may wait for a worker; more are answered 503.
    #[arg(long, default_value_t = 64)]
    pub queue: usize,
    /// Largest board size accepted.
    #[arg(long, default_value_t = 1000)]
    pub max_n: usize,
    /// Time limit of a synchronous request, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Time limit of a job, in milliseconds (default: 15 minutes; a job may ask for less).
    /// The mod-2 retrograde sweep (n = 6) and long simulations and studies need more.
    #[arg(long, default_value_t = 900_000)]
    pub job_timeout_ms: u64,
    /// Largest request body, in bytes.
    #[arg(long, default_value_t = 1 << 20)]
    pub max_body: usize,
    /// Jobs that may wait in the queue; more are answered 503.
    #[arg(long, default_value_t = 10_000)]
    pub max_jobs: usize,
    /// Folder of the job database (created if missing).
    #[arg(long, default_value = "queens-data")]
    pub data: PathBuf,
    /// Estimated memory one operation may use, in MB (default: half the smallest of the
    /// machine's memory, the cgroup's limit and `ulimit -v`, shared by the workers); a SAT
    /// encoding over it is refused with 422.
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<u64>,
    /// API keys, one `name:key` per line: every /v1/ request then needs
    /// `Authorization: Bearer KEY`, and a job is seen only by the key that made it.
    #[arg(long, value_name = "FILE")]
    pub api_keys: Option<PathBuf>,
    /// Requests a second (and burst) one key, or one client address without keys, may make
    /// to /v1/; more are answered 429 with Retry-After.
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_limit: Option<u32>,
    /// /metrics needs an API key too (with --api-keys).
    #[arg(long, requires = "api_keys")]
    pub metrics_need_key: bool,
    /// An external SAT solver requests may use with `"engine": "ext", "solver": NAME`:
    /// NAME=CMD ({cnf}, {proof}, {model} are replaced by file paths; no shell), or a known
    /// NAME alone (cadical, kissat, minisat, cryptominisat5, picosat). Repeatable; requests
    /// can name no other solver and never give a command.
    #[arg(long = "solver", value_name = "NAME=CMD")]
    pub solver: Vec<String>,
    /// The job store shared by replicas: a postgres:// URL (default: the QUEENS_STORE
    /// environment variable; without either, SQLite in --data).
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// How long a running job stays this server's without a renewal, in milliseconds; a
    /// replica that stops renewing (killed, cut off) has its jobs run again by the others after
    /// this. Renewals go out every third of it (at most every second).
    #[arg(long, default_value_t = 30_000, value_name = "MS")]
    pub lease_ms: u64,
    /// The largest result or artifact (proof, CNF) one job may store, in MB; a job over it
    /// fails with 422 instead of being stored cut short.
    #[arg(long, default_value_t = 512, value_name = "MB")]
    pub max_artifact: u64,
    /// The folder of the jobs' proofs and the CNFs they refute (created if missing; default:
    /// `artifacts` in --data, beside the SQLite store). A proof streams to its file as it is
    /// written and checked, so neither memory nor --max-artifact bounds it. Replicas on one
    /// Postgres store must all be given one folder they share.
    #[arg(long, value_name = "DIR")]
    pub artifacts: Option<PathBuf>,
    /// How long a finished job (done, failed or cancelled) is kept with its result, proof and
    /// CNF before it is removed (`30m`, `12h`, `7d`, from `1s`); afterwards it is 404.
    #[arg(long, default_value = "7d", value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub keep_finished: Duration,
    /// The most the artifacts folder may hold, in MB: at or over it, a new proof job is
    /// refused with 507, and a proof being written when the folder passes it is stopped and
    /// its job fails with 507 (default: no quota; the disk is the limit).
    #[arg(long, value_name = "MB")]
    pub max_artifacts_total: Option<u64>,
    /// On SIGTERM or Ctrl-C, how long running jobs and requests may go on to finish (`10s`,
    /// `2m`); then running jobs are stopped and go back to the queue (Postgres) or fail as
    /// interrupted (SQLite), open requests are cut off, and the server exits.
    #[arg(long, default_value = "10s", value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub shutdown_grace: Duration,
    /// Most deals a collection_simulate request (a job; a synchronous call at most 10,000)
    /// may ask for; more are refused with 422.
    #[arg(long, default_value_t = DEFAULT_SIMULATE_DEALS, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=queens_ops::collection::MAX_SIMULATE_DEALS))]
    pub max_simulate_deals: u64,
    /// Most deals a collection_study request (a job; a synchronous call at most 100) may ask
    /// for; more are refused with 422.
    #[arg(long, default_value_t = DEFAULT_STUDY_DEALS, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=queens_ops::collection::MAX_STUDY_DEALS))]
    pub max_study_deals: u64,
    /// Most jobs of one API key running at once on this server (default: half the job
    /// workers, at least 1); the others wait while other keys' jobs run. Without
    /// --api-keys every job counts as one key's.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs_per_key: Option<u64>,
    /// A web origin whose pages may call this API from a browser (`https://example.org`,
    /// `http://localhost:3000`), or `*` for any: preflights (`OPTIONS`) are answered and
    /// answers carry `Access-Control-Allow-Origin` for it. Repeatable. Default: none (no
    /// CORS headers; browsers let only this server's own pages, such as /play, call it).
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origin: Vec<String>,
}

impl ServeArgs {
    /// Checks the flags and makes the server's configuration.
    pub fn config(&self) -> Result<Config, queens_model::Error> {
        let bad = |m: &str| Err(queens_model::Error::unsupported(m.to_string()));
        if self.workers.is_some_and(|w| w == 0 || w > 1024) {
            return bad("--workers must be from 1 to 1024");
        }
        if self.queue == 0 {
            return bad("--queue must be at least 1");
        }
        if self.max_n == 0 || self.max_n > queens_model::model::MAX_N {
            return bad(&format!(
                "--max-n must be from 1 to {}",
                queens_model::model::MAX_N
            ));
        }
        if self.timeout_ms == 0 || self.job_timeout_ms == 0 {
            return bad("--timeout-ms and --job-timeout-ms must be at least 1");
        }
        if self.max_body < 64 {
            return bad("--max-body must be at least 64 bytes");
        }
        let exe = std::env::current_exe().map_err(|e| queens_model::Error::Io {
            path: "queens".into(),
            source: e,
        })?;
        let workers = self
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if self.max_memory == Some(0) {
            return bad("--max-memory must be at least 1 MB");
        }
        if !(300..=3_600_000).contains(&self.lease_ms) {
            return bad("--lease-ms must be from 300 to 3600000");
        }
        // Postgres takes at most 1 GB in one value.
        if !(1..=1000).contains(&self.max_artifact) {
            return bad("--max-artifact must be from 1 to 1000 MB");
        }
        if self.keep_finished < Duration::from_secs(1) {
            return bad("--keep-finished must be at least 1s");
        }
        if self.max_artifacts_total == Some(0) {
            return bad("--max-artifacts-total must be at least 1 MB");
        }
        if self.shutdown_grace > Duration::from_secs(3600) {
            return bad("--shutdown-grace must be at most 1h");
        }
        let store = self.store.clone().or_else(|| {
            std::env::var("QUEENS_STORE")
                .ok()
                .filter(|s| !s.trim().is_empty())
        });
        if let Some(spec) = &store {
            if !store::is_postgres(spec) {
                return bad(&format!(
                    "--store (or QUEENS_STORE) {:?}: expected a postgres:// or postgresql:// \
                     URL; without it, jobs are kept in SQLite in --data",
                    store::redact(spec)
                ));
            }
        }
        Ok(Config {
            addr: self.addr,
            workers,
            max_memory: self
                .max_memory
                .map_or(queens_engine::default_max_memory() / workers as u64, |mb| {
                    mb.saturating_mul(1 << 20)
                }),
            queue: self.queue,
            max_n: self.max_n,
            timeout_ms: self.timeout_ms,
            max_body: self.max_body,
            data: self.data.clone(),
            max_jobs: self.max_jobs,
            job_timeout_ms: self.job_timeout_ms,
            exe,
            access: auth::Access {
                keys: self.api_keys.as_deref().map(auth::Keys::load).transpose()?,
                rate_limit: self.rate_limit.and_then(std::num::NonZeroU32::new),
                metrics_need_key: self.metrics_need_key,
            },
            solvers: queens_engine::ext::SolverTable::from_args(&self.solver, true)?,
            store,
            lease: Duration::from_millis(self.lease_ms),
            max_artifact: usize::try_from(self.max_artifact << 20).unwrap_or(usize::MAX),
            artifacts: self
                .artifacts
                .clone()
                .unwrap_or_else(|| self.data.join("artifacts")),
            keep_finished: self.keep_finished,
            max_artifacts_total: self
                .max_artifacts_total
                .map(|mb| mb.saturating_mul(1 << 20)),
            shutdown_grace: self.shutdown_grace,
            max_simulate_deals: self.max_simulate_deals,
            max_study_deals: self.max_study_deals,
            // Jobs get every worker but one (workers.rs).
            jobs_per_key: self.jobs_per_key.map_or_else(
                || workers.saturating_sub(1).max(1).div_ceil(2),
                |k| k as usize,
            ),
            cors: Cors::from_args(&self.cors_origin)?,
        })
    }
}
