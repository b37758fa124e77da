//! What an operation is: a name, a request and a response type and a function from one to
//! the other ([`Operation`]), and the capabilities some operations have beyond that, each a
//! trait of its own that only those operations implement: an endpoint ([`Served`]), an
//! instance in the request ([`OnInstance`]) or a board size of its own ([`OwnSize`]), fields
//! that size the work ([`Bounded`]), an answer the budget can cut short ([`Budgeted`]), an
//! exit code the answer's status does not give ([`Verdict`]), work that may run in a child
//! process ([`Isolated`]), a proof ([`Certifying`]), and a place in the library callers'
//! module ([`Library`]). Each operation declares them in its own module and is listed once,
//! with its capabilities, in the table in `lib.rs` (`operations!`), which makes the
//! one view every caller reads ([`crate::Member`]): the job body ([`crate::Request`]), the
//! dispatch, the service's routes and their OpenAPI entries, the CLI's commands and `queens
//! op`, and the Python functions all follow from that table.

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

    /// The request (a closed JSON object).
    type Request: Serialize + DeserializeOwned + ToSchema + Clone + Debug + Send + Sync + 'static;
    /// The response.
    type Response: Serialize + ToSchema + Clone + Debug + Send + Sync + 'static;

    /// Runs the request in this process.
    fn run(req: &Self::Request, ctx: &Context) -> Result<(Self::Response, Artifacts), Error>;

    /// Checks the request's options against each other and the limits, before any work.
    fn validate(_req: &Self::Request) -> Result<(), Error> {
        Ok(())
    }
}

/// An operation with a synchronous endpoint (`POST PATH`); the others only run as a job or
/// in a child process.
pub trait Served: Operation {
    /// The endpoint's path.
    const PATH: &'static str;
    /// The endpoint's summary in the OpenAPI document (and the made command's help).
    const SUMMARY: &'static str;
    /// Over HTTP, the answer as `text/plain` instead of JSON (body and headers); `None`:
    /// JSON.
    const PLAIN_TEXT: Option<fn(Self::Response) -> PlainText> = None;
}

/// An operation whose request holds an instance (`instance`): its board size is the
/// instance's.
pub trait OnInstance: Operation {
    /// The request's instance.
    fn instance(req: &Self::Request) -> &Instance;
    /// The request's instance, for a library caller or the command line to put its problem
    /// in.
    fn instance_mut(req: &mut Self::Request) -> &mut Instance;
    /// What it does with a board past [`queens_model::model::MAX_N`].
    const SPARSE: Sparse = Sparse::Refused;
    /// True when a sparse board over a service's board-size limit is still taken, as a job:
    /// local search answers it, and [`crate::check_memory`] refuses it before it is queued
    /// when its memory estimate is over the limit.
    const LARGE_AS_JOB: bool = false;
}

/// An operation whose board size is a field of its own request (no instance).
pub trait OwnSize: Operation {
    /// The field that holds it: the field a refusal of a board over a caller's size limit
    /// names.
    const N_FIELD: &'static str;
    /// The board size the request works on.
    fn n(req: &Self::Request) -> usize;
}

/// An operation whose request has fields that size its work.
pub trait Bounded: Operation {
    /// The numeric fields of the request that size its work, with the values the operation
    /// takes: [`crate::Request::validate`] refuses a value outside them, and the service
    /// writes them into its OpenAPI document (`minimum`, `maximum`), so the schema says what
    /// is valid.
    const BOUNDS: &'static [Bound] = &[];
    /// The request's field that bounds its work: the field a synchronous caller's refusal
    /// of an [`Bounded::unbounded`] request names.
    const BOUND_FIELD: &'static str = "limit";
    /// Why the request has no bound on its work (synchronous callers refuse it), if it has
    /// none; `n` is the request's board size.
    fn unbounded(_req: &Self::Request, _n: usize) -> Option<String> {
        None
    }
}

/// An operation whose answer the budget (a deadline, a cancel) can cut short, and says so
/// in its status.
pub trait Budgeted: Operation {
    /// The answer's status: `timeout` or `cancelled` when the budget cut it short.
    fn status(resp: &Self::Response) -> Status;
    /// The request's own time limit, in milliseconds.
    fn timeout_ms(_req: &Self::Request) -> Option<u64> {
        None
    }
    /// The answer of a request whose child process was killed (no answer, in the
    /// operation's shape); `None`: the operation has no such answer, and says it ran out of
    /// time as an error.
    fn stopped(_req: &Self::Request, _status: Status, _time_ms: f64) -> Option<Self::Response> {
        None
    }
}

/// An operation whose answer's exit code is not its status's (a shard's part of a count, a
/// game's verdict).
pub trait Verdict: Operation {
    /// The CLI's exit code for the answer.
    fn exit_code(resp: &Self::Response) -> u8;
}

/// An operation that may run in a child process (`queens op`), killed at the deadline.
pub trait Isolated: Operation {
    /// True when the request runs an engine that only stops when its process is killed.
    fn uninterruptible(req: &Self::Request) -> bool;
    /// True when the request runs part of its work in a child whatever the deadline.
    fn spawns(_req: &Self::Request) -> bool {
        false
    }
    /// False when a child running the request never answers by itself at the deadline
    /// (varisat's SAT calls): it is killed right at the deadline instead of after the grace
    /// a child gets to send what it found, so a worker that made the call still has that
    /// grace to answer.
    const ANSWERS_AT_DEADLINE: bool = true;
    /// Reads a child's reply (`{"ok": …}` or `{"error": …}`) to this operation (this
    /// module's `reply`, for a response that deserializes).
    fn reply(stdout: &str) -> Result<Self::Response, Error>;
    /// The boards in the answer (each is verified again by a parent that got it from a
    /// child).
    fn boards(_resp: &Self::Response) -> Vec<&Vec<Pos>> {
        Vec::new()
    }
}

/// An operation whose answer can come with a proof, and the CNF it refutes, as artifacts.
pub trait Certifying: Operation {
    /// True when the answer comes with a proof.
    fn certified(resp: &Self::Response) -> bool;
    /// The answer's proof, to name where its files went.
    fn proof_mut(_resp: &mut Self::Response) -> Option<&mut ProofInfo> {
        None
    }
    /// True when the request asks for a proof.
    fn wants_proof(_req: &Self::Request) -> bool {
        false
    }
}

/// An operation library callers (the Python package) may run by its name: a function and a
/// result class are made from its declaration ([`crate::library`]).
pub trait Library: Operation {}

/// An operation as every caller sees it: each capability read the same way for every
/// operation, an operation without the capability answering with the default here.
/// Implemented by the table in `lib.rs` from the capabilities its line names, never by hand.
pub trait Declared: Operation {
    /// Its synchronous endpoint ([`Served::PATH`]).
    const PATH: Option<&'static str> = None;
    /// Its endpoint's summary ([`Served::SUMMARY`]).
    const SUMMARY: &'static str = "";
    /// Its answer as text over HTTP ([`Served::PLAIN_TEXT`]).
    const PLAIN_TEXT: Option<fn(Self::Response) -> PlainText> = None;

    /// The instance the request is about ([`OnInstance::instance`]).
    fn problem(_req: &Self::Request) -> Option<&Problem> {
        None
    }
    /// The request's instance, to put a problem in ([`OnInstance::instance_mut`]).
    fn instance_mut(_req: &mut Self::Request) -> Option<&mut Instance> {
        None
    }
    /// What it does with a board past [`queens_model::model::MAX_N`] ([`OnInstance::SPARSE`]).
    const SPARSE: Sparse = Sparse::Refused;
    /// A sparse board over the service's size limit taken as a job
    /// ([`OnInstance::LARGE_AS_JOB`]).
    const LARGE_AS_JOB: bool = false;
    /// The board size the request works on: its instance's, or its own ([`OwnSize::n`]); 0
    /// for none.
    fn n(_req: &Self::Request) -> usize {
        0
    }
    /// The field that holds the board size ([`OwnSize::N_FIELD`]).
    const N_FIELD: &'static str = "instance.n";

    /// The fields that size its work ([`Bounded::BOUNDS`]).
    const BOUNDS: &'static [Bound] = &[];
    /// The field that bounds its work ([`Bounded::BOUND_FIELD`]).
    const BOUND_FIELD: &'static str = "limit";
    /// Why the request has no bound on its work ([`Bounded::unbounded`]).
    fn unbounded(_req: &Self::Request, _n: usize) -> Option<String> {
        None
    }

    /// The answer's status, for an operation the budget can cut short ([`Budgeted::status`]).
    fn status(_resp: &Self::Response) -> Option<Status> {
        None
    }
    /// The request's own time limit ([`Budgeted::timeout_ms`]).
    fn timeout_ms(_req: &Self::Request) -> Option<u64> {
        None
    }
    /// The answer of a request whose child was killed ([`Budgeted::stopped`]).
    fn stopped(_req: &Self::Request, _status: Status, _time_ms: f64) -> Option<Self::Response> {
        None
    }
    /// The CLI's exit code for the answer: its [`Verdict`], else its status's, else 0.
    fn exit_code(resp: &Self::Response) -> u8 {
        Self::status(resp).map_or(0, Status::exit_code)
    }

    /// True when the request runs an engine that only stops when its process is killed
    /// ([`Isolated::uninterruptible`]).
    fn uninterruptible(_req: &Self::Request) -> bool {
        false
    }
    /// True when the request runs part of its work in a child whatever the deadline
    /// ([`Isolated::spawns`]).
    fn spawns(_req: &Self::Request) -> bool {
        false
    }
    /// Whether a child answers by itself at the deadline ([`Isolated::ANSWERS_AT_DEADLINE`]).
    const ANSWERS_AT_DEADLINE: bool = true;
    /// Reads a child's reply ([`Isolated::reply`]).
    fn reply(_stdout: &str) -> Result<Self::Response, Error> {
        Err(Error::internal(format!(
            "{} is not run in a worker",
            Self::NAME
        )))
    }
    /// The boards in the answer ([`Isolated::boards`]).
    fn boards(_resp: &Self::Response) -> Vec<&Vec<queens_model::model::Pos>> {
        Vec::new()
    }

    /// True when the answer comes with a proof ([`Certifying::certified`]).
    fn certified(_resp: &Self::Response) -> bool {
        false
    }
    /// The answer's proof ([`Certifying::proof_mut`]).
    fn proof_mut(_resp: &mut Self::Response) -> Option<&mut ProofInfo> {
        None
    }
    /// True when the request asks for a proof ([`Certifying::wants_proof`]).
    fn wants_proof(_req: &Self::Request) -> bool {
        false
    }

    /// True when library callers may run it by name ([`Library`]).
    const LIBRARY: bool = false;
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
