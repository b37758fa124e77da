//! What an operation is: a name, a request and a response type, a function from one to the
//! other, and the few properties the callers ask of it (its endpoint, whether it needs a
//! child process, what the budget did to its answer). Each operation declares them once, in
//! its own module, and is listed once, in the table in `lib.rs` ([`crate::operations`]): the
//! job body ([`crate::Request`]), the dispatch, the service's routes and their OpenAPI entries,
//! and the CLI's `queens op` all follow from that table.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;
use utoipa::ToSchema;

use crate::context::{Artifacts, Context};
use crate::instance::Instance;
use crate::proof_info::ProofInfo;
use queens_model::error::Error;
use queens_model::model::{Pos, Problem};
use queens_model::status::Status;

/// An operation: one question the product answers.
pub trait Operation: Sized + 'static {
    /// Its name: the job body's `op`, the worker protocol's, and the endpoint's
    /// `operationId`.
    const NAME: &'static str;
    /// Its synchronous endpoint (`POST PATH`); `None` for an operation only run as a job or
    /// in a child process.
    const PATH: Option<&'static str> = None;
    /// The endpoint's summary in the OpenAPI document.
    const SUMMARY: &'static str = "";
    /// What it does with a board past [`queens_model::model::MAX_N`].
    const SPARSE: Sparse = Sparse::Refused;
    /// Over HTTP, the answer as `text/plain` instead of JSON (body and headers); `None`:
    /// JSON.
    const PLAIN_TEXT: Option<fn(Self::Response) -> PlainText> = None;

    /// The request (a closed JSON object).
    type Request: Serialize + DeserializeOwned + ToSchema + Clone + Debug + Send + Sync + 'static;
    /// The response.
    type Response: Serialize + ToSchema + Clone + Debug + Send + Sync + 'static;

    /// Runs the request in this process.
    fn run(req: &Self::Request, ctx: &Context) -> Result<(Self::Response, Artifacts), Error>;

    /// The instance the request is about, if it takes one.
    fn problem(_req: &Self::Request) -> Option<&Problem> {
        None
    }

    /// The board size the request works on.
    fn n(req: &Self::Request) -> usize {
        Self::problem(req).map_or(0, Problem::n)
    }

    /// Checks the request's options against each other and the limits, before any work.
    fn validate(_req: &Self::Request) -> Result<(), Error> {
        Ok(())
    }

    /// Why the request has no bound on its work (synchronous callers refuse it), if it has
    /// none; `n` is [`Operation::n`].
    fn unbounded(_req: &Self::Request, _n: usize) -> Option<String> {
        None
    }

    /// True when the request runs an engine that only stops when its process is killed.
    fn uninterruptible(_req: &Self::Request) -> bool {
        false
    }

    /// False when a child running the request never answers by itself at the deadline
    /// (varisat's SAT calls): it is killed right at the deadline instead of after the grace
    /// a child gets to send what it found, so a worker that made the call still has that
    /// grace to answer.
    const ANSWERS_AT_DEADLINE: bool = true;

    /// True when the request runs part of its work in a child whatever the deadline.
    fn spawns(_req: &Self::Request) -> bool {
        false
    }

    /// The request's own time limit, in milliseconds.
    fn timeout_ms(_req: &Self::Request) -> Option<u64> {
        None
    }

    /// The answer's status where the budget can cut it short (`None` for an operation that
    /// always answers in full).
    fn status(_resp: &Self::Response) -> Option<Status> {
        None
    }

    /// The CLI's exit code for the answer.
    fn exit_code(resp: &Self::Response) -> u8 {
        Self::status(resp).map_or(0, Status::exit_code)
    }

    /// The answer of a request whose child process was killed (no answer, in the
    /// operation's shape); `None`: the operation has no such answer, and says it ran out
    /// of time as an error.
    fn stopped(_req: &Self::Request, _status: Status, _time_ms: f64) -> Option<Self::Response> {
        None
    }

    /// Reads a child's reply (`{"ok": …}` or `{"error": …}`) to this operation: only those
    /// run in a child ([`Operation::uninterruptible`]) read one.
    fn reply(_stdout: &str) -> Result<Self::Response, Error> {
        Err(Error::internal(format!(
            "{} is not run in a worker",
            Self::NAME
        )))
    }

    /// The boards in the answer (each is verified again by a parent that got it from a
    /// child).
    fn boards(_resp: &Self::Response) -> Vec<&Vec<Pos>> {
        Vec::new()
    }

    /// True when the answer comes with a proof and the CNF it refutes as artifacts.
    fn certified(_resp: &Self::Response) -> bool {
        false
    }

    /// The answer's proof, to name where its files went.
    fn proof_mut(_resp: &mut Self::Response) -> Option<&mut ProofInfo> {
        None
    }

    /// True when the request asks for a proof.
    fn wants_proof(_req: &Self::Request) -> bool {
        false
    }

    /// True when library callers (the Python package) may run the operation by its name.
    const LIBRARY: bool = false;

    /// The request's instance, for a library caller to put its problem in; `None` when the
    /// operation takes none.
    fn instance_mut(_req: &mut Self::Request) -> Option<&mut Instance> {
        None
    }

    /// The request's field that holds the board size ([`Operation::n`]): the field a caller's
    /// refusal of a board over its size limit names.
    const N_FIELD: &'static str = "instance.n";

    /// The request's field that bounds its work: the field a synchronous caller's refusal of
    /// an [`Operation::unbounded`] request names.
    const BOUND_FIELD: &'static str = "limit";

    /// True when a sparse board (past [`queens_model::model::MAX_N`]) over a service's board-size
    /// limit is still taken, as a job: local search answers it, and [`crate::check_memory`]
    /// refuses it before it is queued when its memory estimate is over the limit.
    const LARGE_AS_JOB: bool = false;

    /// The numeric fields of the request that size its work, with the values the operation
    /// takes: [`crate::Request::validate`] refuses a value outside them, and the service
    /// writes them into its OpenAPI document (`minimum`, `maximum`), so the schema says what
    /// is valid.
    const BOUNDS: &'static [Bound] = &[];
}

/// A numeric field of a request and the values an operation takes in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The field: a path through nested objects (`lookahead.samples`).
    pub field: &'static str,
    /// The smallest value taken.
    pub min: u64,
    /// The largest value taken.
    pub max: u64,
    /// The largest value the synchronous endpoint takes, when it is smaller (more goes as
    /// a job).
    pub sync_max: Option<u64>,
}

impl Bound {
    /// `field` takes `min..=max`, on the endpoint and as a job.
    pub const fn new(field: &'static str, min: u64, max: u64) -> Bound {
        Bound {
            field,
            min,
            max,
            sync_max: None,
        }
    }

    /// These bounds, the synchronous endpoint taking at most `max`.
    pub const fn sync_max(self, max: u64) -> Bound {
        Bound {
            sync_max: Some(max),
            ..self
        }
    }

    /// The field's value in `request` (the request's JSON), if it is there and a number.
    pub fn value(&self, request: &serde_json::Value) -> Option<u64> {
        self.field
            .split('.')
            .try_fold(request, |v, key| v.get(key))
            .and_then(serde_json::Value::as_u64)
    }

    /// Refuses `request`'s value of the field when it is outside the bounds.
    pub fn check(&self, request: &serde_json::Value) -> Result<(), Error> {
        match self.value(request) {
            Some(v) if !(self.min..=self.max).contains(&v) => Err(Error::unsupported_at_field(
                self.field,
                format!("from {} to {}, not {v}", self.min, self.max),
            )),
            _ => Ok(()),
        }
    }
}

/// What an operation does with a board past [`queens_model::model::MAX_N`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sparse {
    /// Refused: the operation keeps n² structures.
    Refused,
    /// Taken: the operation's engines refuse what they cannot do, with their reason.
    Taken,
    /// Taken when the core of the completion fits (its CNF is the core's).
    Core,
}

/// An answer as text (`text/plain; charset=utf-8`) with headers.
#[derive(Clone, Debug)]
pub struct PlainText {
    /// The body.
    pub body: String,
    /// Headers beside it (lowercase names).
    pub headers: Vec<(&'static str, String)>,
}

/// Reads a child's reply to an operation whose response deserializes.
pub fn reply<T: DeserializeOwned>(stdout: &str) -> Result<T, Error> {
    crate::reply::read::<T>(stdout)
        .map_err(|e| Error::internal(format!("unreadable worker reply ({e})")))?
}
