//! The operations layer: one function per question the product answers, shared by the CLI
//! and the HTTP service.
//!
//! Each operation takes a serde request and a [`Context`] (deadline, cancel flag, progress,
//! and whether uninterruptible work runs in a child process) and returns a serde response or
//! a typed [`Error`]. The CLI's `--json` output and the service's response body are the same
//! serialization of the same response type, so one schema is documented once
//! (`GET /openapi.json`). Every board in a response has passed [`crate::verify()`].

pub mod batch_file;
pub mod compare;
pub mod merge;
pub mod plot;
pub mod shard;

// The crates below, and this one, under the names the modules use.
pub(crate) use crate as ops;
pub(crate) use queens_engine as engine;
pub(crate) use queens_engine::child;
pub(crate) use queens_games as games;
pub(crate) use queens_model::{error, formats, model, report, status, verify};
pub(crate) use queens_proof as proof;

pub mod batch;
mod check;
pub mod collection;
mod count;
mod decode;
mod encode;
mod explain;
mod generate;
mod grade;
mod hint;
mod isolate;
pub mod mod2;
mod operation;
mod race;
mod solve;
mod solve_cnf;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use crate::engine::Budget;
use crate::error::Error;
use crate::model::Problem;

pub use crate::engine::EngineName;
pub use crate::status::Status;
pub use check::{
    check, check_columns, Check, CheckRequest, CheckResponse, CheckViolation, Completions,
    MAX_COMPLETIONS,
};
pub use collection::{
    CollectionDeal, CollectionPlay, CollectionSimulate, CollectionSolve, CollectionStudy,
};
pub use count::{count, Count, CountRequest, CountResponse};
pub use decode::{decode, Decode, DecodeRequest, DecodeResponse};
pub use encode::{encode, Encode, EncodeRequest, EncodeResponse};
pub use explain::{explain, Explain, ExplainRequest, ExplainResponse};
pub use generate::{
    generate, Generate, GenerateKind, GenerateRequest, GenerateResponse, PresetSource,
    MAX_GENERATE_COUNT,
};
pub use grade::{grade, Grade, GradeRequest, GradeResponse, StepReport};
pub use hint::{hint, Hint, HintRequest, HintResponse};
pub use isolate::{child_main, child_main_of};
pub use mod2::{Mod2Check, Mod2Optimum, Mod2Replay, Mod2Solve};
pub use operation::{Member, Operation, PlainText, Sparse, Visit};
pub use solve::{check_memory, ProofInfo, SolveRequest, SolveResponse, WorkReport, INLINE_MAX_N};
pub use solve_cnf::{solve_cnf, SolveCnf, SolveCnfRequest, SolveCnfResponse};

/// An instance inside a request: the JSON instance format the CLI reads (an object with
/// `n`, `regions`, `queens`, …), or `{"text": "<the contents of a grid or JSON file>"}`.
#[derive(Clone, Debug)]
pub struct Instance(pub Problem);

impl<'de> Deserialize<'de> for Instance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Instance, D::Error> {
        use serde::de::Error as _;
        // Like the CLI's reader: an object with a key given twice is refused, not merged.
        let value = crate::formats::StrictValue::deserialize(d)?.0;
        let text = match &value {
            serde_json::Value::Object(m) if m.len() == 1 && m.contains_key("text") => {
                match &m["text"] {
                    serde_json::Value::String(t) => Some(t.as_str()),
                    _ => return Err(D::Error::custom("field `text`: expected a string")),
                }
            }
            serde_json::Value::Object(_) => None,
            _ => {
                return Err(D::Error::custom(
                    "expected a JSON object (an instance, or {\"text\": \"<grid>\"})",
                ))
            }
        };
        let problem = match text {
            Some(t) => crate::formats::parse("text", t).map_err(|e| match e {
                Error::Input { message, .. } => D::Error::custom(format!("text: {message}")),
                e => D::Error::custom(e),
            })?,
            None => crate::formats::problem_from_json(&value).map_err(D::Error::custom)?,
        };
        Ok(Instance(problem))
    }
}

impl Serialize for Instance {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let text = crate::formats::write_json(&self.0, "instance");
        let value: serde_json::Value = serde_json::from_str(&text).map_err(S::Error::custom)?;
        value.serialize(s)
    }
}

/// Files an operation produced beside its JSON answer (an UNSAT proof and the CNF it
/// refutes), by name: the CLI writes them where the user asked, the service stores them with
/// the job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Artifacts(pub Vec<(String, Vec<u8>)>);

impl Artifacts {
    /// The artifact called `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
    }
}

/// How an operation may run: its budget, and whether work on an engine that cannot be
/// interrupted (varisat) runs in a child process of `isolate` (this program's executable,
/// as `queens op`), killed at the deadline or on cancel.
#[derive(Clone, Default)]
pub struct Context {
    /// Deadline, cancel flag and progress callback.
    pub budget: Budget,
    /// The `queens` executable to run uninterruptible work in; `None` runs it in-process
    /// (the deadline is then only looked at between solver calls).
    pub isolate: Option<PathBuf>,
    /// Where a proof goes when the caller wants it in a file (the CLI's `--proof`): the
    /// backtracker's LRAT then streams there instead of coming back as an artifact, so the
    /// disk, not memory, bounds it. `None`: proofs are artifacts.
    pub proof_file: Option<PathBuf>,
}

impl Context {
    /// This context with the deadline moved up to `timeout_ms` from now, if that is sooner.
    pub fn with_timeout_ms(&self, timeout_ms: Option<u64>) -> Context {
        let mut ctx = self.clone();
        if let Some(ms) = timeout_ms {
            let d = Instant::now().checked_add(Duration::from_millis(ms));
            ctx.budget.deadline = match (ctx.budget.deadline, d) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        ctx
    }

    /// This context with a progress callback.
    pub fn with_progress(mut self, progress: impl Fn(u64, u64) + Send + Sync + 'static) -> Self {
        self.budget.progress = Some(Arc::new(progress));
        self
    }
}

/// The table of operations: each line an operation's variant in [`Request`] and
/// [`Response`] (whose serde name, in snake case, is its [`Operation::NAME`]) and its
/// declaration. The order is the job body's schema's.
macro_rules! operations {
    ($d:tt $($variant:ident => $op:ty,)*) => {
        /// Any operation's request, tagged by `op` (the body of `POST /v1/jobs`, and what a
        /// child process `queens op` reads).
        #[derive(Clone, Debug, Serialize, Deserialize)]
        #[serde(tag = "op", rename_all = "snake_case")]
        pub enum Request {
            $(
                #[allow(missing_docs)]
                $variant(<$op as Operation>::Request),
            )*
        }

        /// Any operation's response (untagged: each is the operation's own JSON).
        #[derive(Clone, Debug, Serialize)]
        #[serde(untagged)]
        pub enum Response {
            $(
                #[allow(missing_docs)]
                $variant(<$op as Operation>::Response),
            )*
        }

        $(
            impl Member for $op {
                fn wrap(req: Self::Request) -> Request {
                    Request::$variant(req)
                }
                fn request(req: &Request) -> Option<&Self::Request> {
                    match req {
                        Request::$variant(r) => Some(r),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
                fn wrap_response(resp: Self::Response) -> Response {
                    Response::$variant(resp)
                }
                fn response(resp: Response) -> Option<Self::Response> {
                    match resp {
                        Response::$variant(r) => Some(r),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*

        /// Calls `v` with every operation of the table, in its order.
        pub fn for_each(v: &mut impl Visit) {
            $( v.visit::<$op>(); )*
        }

        // `with_request!(req, |O, r| body)`: `body` with `O` the request's operation and
        // `r` its request; `with_response!` the same for a response.
        macro_rules! with_request {
            ($d req:expr, |$d o:ident, $d r:ident| $d body:expr) => {
                match $d req {
                    $( Request::$variant($d r) => { type $d o = $op; $d body } )*
                }
            };
        }
        macro_rules! with_response {
            ($d resp:expr, |$d o:ident, $d r:ident| $d body:expr) => {
                match $d resp {
                    $( Response::$variant($d r) => { type $d o = $op; $d body } )*
                }
            };
        }
    };
}

operations! {
    $
    Solve => Solve,
    Count => count::Count,
    Check => check::Check,
    Explain => explain::Explain,
    Encode => encode::Encode,
    Decode => decode::Decode,
    Generate => generate::Generate,
    Hint => hint::Hint,
    Grade => grade::Grade,
    CollectionDeal => collection::CollectionDeal,
    CollectionPlay => collection::CollectionPlay,
    CollectionSimulate => collection::CollectionSimulate,
    CollectionSolve => collection::CollectionSolve,
    CollectionStudy => collection::CollectionStudy,
    SolveCnf => solve_cnf::SolveCnf,
    Mod2Check => mod2::Mod2Check,
    Mod2Replay => mod2::Mod2Replay,
    Mod2Solve => mod2::Mod2Solve,
    Mod2Optimum => mod2::Mod2Optimum,
}

impl Response {
    /// The CLI's exit code for this answer: its operation's ([`Operation::exit_code`]).
    pub fn exit_code(&self) -> u8 {
        with_response!(self, |O, r| O::exit_code(r))
    }

    /// True when the budget cut the operation short (`timeout` or `cancelled`).
    pub fn interrupted(&self) -> bool {
        with_response!(self, |O, r| matches!(
            O::status(r),
            Some(Status::Timeout | Status::Cancelled)
        ))
    }

    /// The answer's proof, if it has one ([`Operation::proof_mut`]).
    pub fn proof_mut(&mut self) -> Option<&mut ProofInfo> {
        with_response!(self, |O, r| O::proof_mut(r))
    }

    /// The boards in the answer ([`Operation::boards`]).
    pub(crate) fn boards(&self) -> Vec<&Vec<crate::model::Pos>> {
        with_response!(self, |O, r| O::boards(r))
    }

    /// True when the answer comes with a proof and its CNF ([`Operation::certified`]).
    pub(crate) fn certified(&self) -> bool {
        with_response!(self, |O, r| O::certified(r))
    }
}

impl Request {
    /// The operation's name (`solve`, `count`, …).
    pub fn op(&self) -> &'static str {
        with_request!(self, |O, _r| O::NAME)
    }

    /// The instance the request is about (none for `generate` and the games).
    pub fn problem(&self) -> Option<&Problem> {
        with_request!(self, |O, r| O::problem(r))
    }

    /// The board size the request works on.
    pub fn n(&self) -> usize {
        with_request!(self, |O, r| O::n(r))
    }

    /// Checks the request's options against each other and the limits, before any work (the
    /// operation checks them again; the service checks before it accepts a job).
    pub fn validate(&self) -> Result<(), Error> {
        self.check_sparse()?;
        with_request!(self, |O, r| O::validate(r))
    }

    /// Refuses a board past [`crate::model::MAX_N`] to every operation but `solve`, `check`,
    /// `count` (which refuse what their engines cannot do, with the engine's reason), and
    /// `encode` and `decode` of a core that fits: the others keep n² structures.
    pub fn check_sparse(&self) -> Result<(), Error> {
        let Some(p) = self.problem().filter(|p| p.is_sparse()) else {
            return Ok(());
        };
        match with_request!(self, |O, _r| O::SPARSE) {
            Sparse::Taken => Ok(()),
            Sparse::Core => crate::engine::completion::fits(p),
            Sparse::Refused => Err(Error::too_large_at_field(
                "n",
                format!(
                    "{} works on boards up to {max}×{max}, not {n}×{n}; past {max} only \
                     solve, count, check, encode and decode take a board (local search, or \
                     the complete engines on the core of a completion)",
                    self.op(),
                    max = crate::model::MAX_N,
                    n = p.n()
                ),
            )),
        }
    }

    /// Why this request has no bound on its work, if it has none: counting or listing every
    /// solution of a board too large to finish quickly. Synchronous callers (the service's
    /// `/v1/*` endpoints) refuse these and point to jobs or a limit.
    pub fn unbounded(&self) -> Option<String> {
        let n = self.n();
        with_request!(self, |O, r| O::unbounded(r, n))
    }

    /// True when the request asks for a proof.
    pub fn wants_proof(&self) -> bool {
        with_request!(self, |O, r| O::wants_proof(r))
    }

    /// The request's own time limit ([`Operation::timeout_ms`]).
    pub(crate) fn timeout_ms(&self) -> Option<u64> {
        with_request!(self, |O, r| O::timeout_ms(r))
    }

    /// See [`Operation::ANSWERS_AT_DEADLINE`].
    pub(crate) fn answers_at_deadline(&self) -> bool {
        with_request!(self, |O, _r| O::ANSWERS_AT_DEADLINE)
    }

    /// The answer when a child running the request was killed ([`Operation::stopped`]).
    pub(crate) fn stopped(&self, status: Status, time_ms: f64) -> Option<Response> {
        with_request!(self, |O, r| O::stopped(r, status, time_ms)
            .map(O::wrap_response))
    }

    /// A child's reply to the request ([`Operation::reply`]).
    pub(crate) fn reply(&self, stdout: &str) -> Result<Response, Error> {
        with_request!(self, |O, _r| O::reply(stdout).map(O::wrap_response))
    }

    /// Runs the request under the context: in a child process when it needs an engine that
    /// cannot be interrupted and the context asks for isolation, in-process otherwise.
    pub fn run(&self, ctx: &Context) -> Result<(Response, Artifacts), Error> {
        self.check_sparse()?;
        if let Some(exe) = &ctx.isolate {
            if self.uninterruptible() {
                return isolate::run(exe, self, ctx);
            }
        }
        self.run_here(ctx)
    }

    /// Runs the request in a child `queens op` of `exe` whatever it is, killed at the
    /// context's deadline or on cancel (then the answer says `timeout` / `cancelled`); every
    /// board the child reports is verified here. `compare` runs each attempt this way, so
    /// every engine's time is measured apart from the others' memory and threads.
    pub fn run_in_child(
        &self,
        exe: &std::path::Path,
        ctx: &Context,
    ) -> Result<(Response, Artifacts), Error> {
        self.check_sparse()?;
        isolate::run(exe, self, ctx)
    }

    /// Runs the request in this process.
    pub fn run_here(&self, ctx: &Context) -> Result<(Response, Artifacts), Error> {
        with_request!(self, |O, r| {
            let (resp, artifacts) = O::run(r, ctx)?;
            Ok((O::wrap_response(resp), artifacts))
        })
    }

    /// True when the request runs part of its work in a child of the `queens` executable
    /// whatever the deadline (the race's SAT side): callers must set [`Context::isolate`].
    pub fn spawns(&self) -> bool {
        with_request!(self, |O, r| O::spawns(r))
    }

    /// True when the request runs an engine that only stops when its process is killed
    /// (the SAT engine, the region generator's uniqueness search).
    pub fn uninterruptible(&self) -> bool {
        with_request!(self, |O, r| O::uninterruptible(r))
    }

    /// Reads a job body whose `op` is `op` with `read` (which reads the rest of the body as
    /// the operation's request type); `None` for an unknown `op`.
    pub fn read_as<E>(op: &str, read: impl ReadRequest<E>) -> Option<Result<Request, E>> {
        struct Reader<'a, R, E> {
            op: &'a str,
            read: Option<R>,
            out: Option<Result<Request, E>>,
        }
        impl<R: ReadRequest<E>, E> Visit for Reader<'_, R, E> {
            fn visit<O: Member>(&mut self) {
                if O::NAME == self.op {
                    if let Some(read) = self.read.take() {
                        self.out = Some(read.read::<O::Request>().map(O::wrap));
                    }
                }
            }
        }
        let mut reader = Reader {
            op,
            read: Some(read),
            out: None,
        };
        for_each(&mut reader);
        reader.out
    }

    /// Every operation's name, in the table's order.
    pub fn names() -> Vec<&'static str> {
        struct Names(Vec<&'static str>);
        impl Visit for Names {
            fn visit<O: Member>(&mut self) {
                self.0.push(O::NAME);
            }
        }
        let mut names = Names(Vec::new());
        for_each(&mut names);
        names.0
    }
}

/// Reads a request of a type known only once the job's `op` is ([`Request::read_as`]).
pub trait ReadRequest<E> {
    /// Reads the request as a `T`.
    fn read<T: serde::de::DeserializeOwned>(self) -> Result<T, E>;
}

/// The job body's schema: one branch per operation, its request and `{"op": NAME}` (the
/// document's completion turns them into one closed object per operation, told apart by
/// `op`).
impl utoipa::PartialSchema for Request {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{
            AllOfBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
        };
        use utoipa::openapi::{Ref, RefOr};
        struct Branches(OneOfBuilder);
        impl Visit for Branches {
            fn visit<O: Member>(&mut self) {
                let op = ObjectBuilder::new()
                    .property(
                        "op",
                        ObjectBuilder::new()
                            .schema_type(SchemaType::Type(Type::String))
                            .enum_values(Some([O::NAME])),
                    )
                    .required("op");
                let branch = AllOfBuilder::new()
                    .item(Ref::from_schema_name(<O::Request as ToSchema>::name()))
                    .item(op);
                let one_of = std::mem::take(&mut self.0);
                self.0 = one_of.item(branch);
            }
        }
        let mut branches = Branches(OneOfBuilder::new());
        for_each(&mut branches);
        RefOr::T(Schema::OneOf(
            branches
                .0
                .description(Some(
                    "Any operation's request, tagged by `op` (the body of `POST /v1/jobs`, and \
                     what a child\nprocess `queens op` reads).",
                ))
                .build(),
        ))
    }
}

impl ToSchema for Request {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        struct Parts<'a>(
            &'a mut Vec<(
                String,
                utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
            )>,
        );
        impl Visit for Parts<'_> {
            fn visit<O: Member>(&mut self) {
                self.0.push((
                    <O::Request as ToSchema>::name().into_owned(),
                    <O::Request as utoipa::PartialSchema>::schema(),
                ));
                <O::Request as ToSchema>::schemas(self.0);
            }
        }
        for_each(&mut Parts(schemas));
    }
}

/// `solve`: finds a solution (or up to `limit`, or all), verified; engine `race` runs the
/// backtracker against the SAT engine in a child ([`race`]).
pub struct Solve;

impl Operation for Solve {
    const NAME: &'static str = "solve";
    const PATH: Option<&'static str> = Some("/v1/solve");
    const SUMMARY: &'static str = "Find a solution (or up to `limit`), verified; `status` is \
                                   `sat`, `unsat`, `timeout` or\n`cancelled`.";
    const SPARSE: Sparse = Sparse::Taken;
    const LARGE_AS_JOB: bool = true;
    type Request = SolveRequest;
    type Response = SolveResponse;

    fn run(req: &SolveRequest, ctx: &Context) -> Result<(SolveResponse, Artifacts), Error> {
        solve(req, ctx)
    }
    fn problem(req: &SolveRequest) -> Option<&Problem> {
        Some(&req.instance.0)
    }
    fn validate(req: &SolveRequest) -> Result<(), Error> {
        req.validate()
    }
    fn unbounded(req: &SolveRequest, n: usize) -> Option<String> {
        (req.all && req.limit.is_none() && n > UNBOUNDED_LIST_N).then(|| {
            format!(
                "listing every solution of a {n}×{n} board is unbounded: give `limit`, or \
                 submit it as a job (POST /v1/jobs)"
            )
        })
    }
    fn uninterruptible(req: &SolveRequest) -> bool {
        // A proof's conversion and check run to the end once started.
        req.engine == EngineName::Sat || req.cross_check || req.proof.is_some()
    }
    fn spawns(req: &SolveRequest) -> bool {
        req.engine == EngineName::Race
    }
    fn timeout_ms(req: &SolveRequest) -> Option<u64> {
        req.timeout_ms
    }
    fn status(resp: &SolveResponse) -> Option<Status> {
        Some(resp.status)
    }
    fn stopped(req: &SolveRequest, status: Status, time_ms: f64) -> Option<SolveResponse> {
        let many = req.all || req.limit.is_some();
        Some(SolveResponse {
            time_ms,
            solutions: many.then(Vec::new),
            count: many.then_some(0),
            limited: many.then_some(false),
            ..SolveResponse::nothing(status, req.instance.0.n(), req.engine)
        })
    }
    fn reply(stdout: &str) -> Result<SolveResponse, Error> {
        operation::reply(stdout)
    }
    fn boards(resp: &SolveResponse) -> Vec<&Vec<crate::model::Pos>> {
        resp.queens
            .iter()
            .chain(resp.solutions.iter().flatten())
            .collect()
    }
    fn certified(resp: &SolveResponse) -> bool {
        resp.proof.is_some()
    }
    fn proof_mut(resp: &mut SolveResponse) -> Option<&mut ProofInfo> {
        resp.proof.as_mut()
    }
    fn wants_proof(req: &SolveRequest) -> bool {
        req.proof.is_some()
    }
}

/// Finds a solution (or up to `limit`, or all) and verifies it; with `proof`, certifies an
/// UNSAT answer. Artifacts: `proof` and `cnf` when a proof was made. Engine `race` is the
/// backtracker here against the SAT engine in a child process ([`race`]).
pub fn solve(req: &SolveRequest, ctx: &Context) -> Result<(SolveResponse, Artifacts), Error> {
    if req.engine == EngineName::Race {
        req.validate()?;
        return race::solve(req, &ctx.with_timeout_ms(req.timeout_ms));
    }
    solve::solve(req, ctx)
}

/// Largest board whose solutions a synchronous call may count without a limit (n = 16:
/// 1.4 s on two cores).
pub const UNBOUNDED_COUNT_N: usize = 16;

/// Largest board whose solutions a synchronous call may list without a limit (n = 10: 724).
pub const UNBOUNDED_LIST_N: usize = 10;

/// Milliseconds a timeout stands for in a response, rounded to microseconds.
pub(crate) fn ms(t: Instant) -> f64 {
    crate::engine::ms(t)
}
