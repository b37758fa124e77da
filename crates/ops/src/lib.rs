//! The operations layer: one function per question the product answers, shared by the CLI
//! and the HTTP service.
//!
//! Each operation takes a serde request and a [`Context`] (deadline, cancel flag, progress,
//! and whether uninterruptible work runs in a child process) and returns a serde response or
//! a typed [`Error`]. The CLI's `--json` output and the service's response body are the same
//! serialization of the same response type, so one schema is documented once
//! (`GET /openapi.json`). Every board in a response has passed [`queens_model::verify()`].

pub mod batch_file;
pub mod compare;
pub mod merge;
pub mod plot;
pub mod shard;

pub mod batch;
mod check;
pub mod collection;
mod context;
mod count;
mod decode;
mod encode;
pub mod engine_word;
mod explain;
mod generate;
mod grade;
mod hint;
mod instance;
mod isolate;
pub mod library;
mod limits;
pub mod mod2;
mod operation;
mod proof_info;
mod race_sides;
mod reply;
mod solve;
mod solve_cnf;
mod threshold;
pub mod threshold_checkpoint;
pub mod threshold_shards;
mod worker;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use queens_model::error::Error;
use queens_model::model::Problem;

pub use check::{
    check, check_columns, Check, CheckRequest, CheckResponse, CheckViolation, Completions,
    MAX_COMPLETIONS,
};
pub use collection::{
    CollectionDeal, CollectionPlay, CollectionSimulate, CollectionSolve, CollectionStudy,
};
pub use context::{Artifacts, Context};
pub use count::{count, Count, CountRequest, CountResponse};
pub use decode::{check_instance, decode, Decode, DecodeRequest, DecodeResponse};
pub use encode::{
    cnf_vars, encode, instance_json, sha256_hex, CnfHeader, Encode, EncodeRequest, EncodeResponse,
};
pub use explain::{explain, Explain, ExplainRequest, ExplainResponse};
pub use generate::{
    generate, Generate, GenerateKind, GenerateRequest, GenerateResponse, PresetSource,
    MAX_GENERATE_COUNT,
};
pub use grade::{grade, Grade, GradeRequest, GradeResponse, StepReport};
pub use hint::{hint, Hint, HintRequest, HintResponse};
pub use instance::Instance;
pub use limits::{UNBOUNDED_COUNT_N, UNBOUNDED_LIST_N};
pub use mod2::{Mod2Check, Mod2Optimum, Mod2Replay, Mod2Solve};
pub use operation::{
    Bound, Bounded, Budgeted, Certifying, Declared, Isolated, Library, OnInstance, Operation,
    OwnSize, PlainText, Served, Sparse, Verdict,
};
pub use proof_info::ProofInfo;
pub use queens_engine::EngineName;
pub use queens_model::status::Status;
pub use solve::{check_memory, SolveRequest, SolveResponse, WorkReport, INLINE_MAX_N};
pub use solve_cnf::{solve_cnf, SolveCnf, SolveCnfRequest, SolveCnfResponse};
pub use threshold::{
    threshold, threshold_reporting, Threshold, ThresholdProof, ThresholdRequest, ThresholdResponse,
    ThresholdRound,
};
pub use worker::{child_main, child_main_of};

/// An operation of the table, as every caller sees it: how its request and response sit in
/// [`Request`] and [`Response`], and ([`Declared`]) each capability the table names for it.
/// Implemented by the table (the `operations!` table below), never by hand.
pub trait Member: Declared {
    /// The request as any operation's.
    fn wrap(req: Self::Request) -> Request;
    /// The request, if `req` is this operation's.
    fn request(req: &Request) -> Option<&Self::Request>;
    /// The response as any operation's.
    fn wrap_response(resp: Self::Response) -> Response;
    /// The response, if `resp` is this operation's.
    fn response(resp: Response) -> Option<Self::Response>;
}

/// The items of [`Declared`] a capability of the table's line gives: the capability trait's,
/// read through [`Declared`]'s names.
macro_rules! capability {
    (Served) => {
        const PATH: Option<&'static str> = Some(<Self as $crate::operation::Served>::PATH);
        const SUMMARY: &'static str = <Self as $crate::operation::Served>::SUMMARY;
        const PLAIN_TEXT: Option<fn(Self::Response) -> $crate::operation::PlainText> =
            <Self as $crate::operation::Served>::PLAIN_TEXT;
    };
    (OnInstance) => {
        fn problem(req: &Self::Request) -> Option<&queens_model::model::Problem> {
            Some(&<Self as $crate::operation::OnInstance>::instance(req).0)
        }
        fn instance_mut(req: &mut Self::Request) -> Option<&mut $crate::Instance> {
            Some(<Self as $crate::operation::OnInstance>::instance_mut(req))
        }
        fn n(req: &Self::Request) -> usize {
            <Self as $crate::operation::OnInstance>::instance(req).0.n()
        }
        const SPARSE: $crate::operation::Sparse = <Self as $crate::operation::OnInstance>::SPARSE;
        const LARGE_AS_JOB: bool = <Self as $crate::operation::OnInstance>::LARGE_AS_JOB;
    };
    (OwnSize) => {
        fn n(req: &Self::Request) -> usize {
            <Self as $crate::operation::OwnSize>::n(req)
        }
        const N_FIELD: &'static str = <Self as $crate::operation::OwnSize>::N_FIELD;
    };
    (Bounded) => {
        const BOUNDS: &'static [$crate::operation::Bound] =
            <Self as $crate::operation::Bounded>::BOUNDS;
        const BOUND_FIELD: &'static str = <Self as $crate::operation::Bounded>::BOUND_FIELD;
        fn unbounded(req: &Self::Request, n: usize) -> Option<String> {
            <Self as $crate::operation::Bounded>::unbounded(req, n)
        }
    };
    (Budgeted) => {
        fn status(resp: &Self::Response) -> Option<Status> {
            Some(<Self as $crate::operation::Budgeted>::status(resp))
        }
        fn timeout_ms(req: &Self::Request) -> Option<u64> {
            <Self as $crate::operation::Budgeted>::timeout_ms(req)
        }
        fn stopped(req: &Self::Request, status: Status, time_ms: f64) -> Option<Self::Response> {
            <Self as $crate::operation::Budgeted>::stopped(req, status, time_ms)
        }
    };
    (Verdict) => {
        fn exit_code(resp: &Self::Response) -> u8 {
            <Self as $crate::operation::Verdict>::exit_code(resp)
        }
    };
    (Isolated) => {
        fn uninterruptible(req: &Self::Request) -> bool {
            <Self as $crate::operation::Isolated>::uninterruptible(req)
        }
        fn spawns(req: &Self::Request) -> bool {
            <Self as $crate::operation::Isolated>::spawns(req)
        }
        const ANSWERS_AT_DEADLINE: bool =
            <Self as $crate::operation::Isolated>::ANSWERS_AT_DEADLINE;
        fn reply(stdout: &str) -> Result<Self::Response, Error> {
            <Self as $crate::operation::Isolated>::reply(stdout)
        }
        fn boards(resp: &Self::Response) -> Vec<&Vec<queens_model::model::Pos>> {
            <Self as $crate::operation::Isolated>::boards(resp)
        }
    };
    (Certifying) => {
        fn certified(resp: &Self::Response) -> bool {
            <Self as $crate::operation::Certifying>::certified(resp)
        }
        fn proof_mut(resp: &mut Self::Response) -> Option<&mut ProofInfo> {
            <Self as $crate::operation::Certifying>::proof_mut(resp)
        }
        fn wants_proof(req: &Self::Request) -> bool {
            <Self as $crate::operation::Certifying>::wants_proof(req)
        }
    };
    (Library) => {
        const LIBRARY: bool = {
            // Fails to compile unless the operation implements the trait.
            fn implements<O: $crate::operation::Library>() {}
            let _ = implements::<Self>;
            true
        };
    };
}

/// Something done with every operation of the table, in its order ([`crate::for_each`]).
pub trait Visit {
    /// Called once per operation.
    fn visit<O: Member>(&mut self);
}

/// The table of operations: each line an operation's variant in [`Request`] and
/// [`Response`] (whose serde name, in snake case, is its [`Operation::NAME`]), its
/// declaration, and the capability traits it implements, from which the table implements
/// [`Declared`] for it (`capability!`). The order is the job body's schema's.
macro_rules! operations {
    ($d:tt $($variant:ident => $op:ty: [$($cap:ident),*],)*) => {
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
        // One response is made per request and moved once, to be written out: a box for the
        // largest (solve's, with its plan and reasons) would cost an allocation and save
        // nothing.
        #[allow(clippy::large_enum_variant)]
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

            impl Declared for $op {
                $( capability!($cap); )*
            }
        )*

        /// Each operation's name and the capabilities its line in the table names.
        #[cfg(test)]
        fn listed() -> Vec<(&'static str, Vec<&'static str>)> {
            vec![$( (<$op as Operation>::NAME, vec![$( stringify!($cap) ),*]) ),*]
        }

        /// Each operation's name and the capability traits it implements.
        #[cfg(test)]
        fn implemented() -> Vec<(&'static str, Vec<&'static str>)> {
            vec![$( (<$op as Operation>::NAME, probe::found!($op)) ),*]
        }

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

/// Which capability traits an operation implements, read for a concrete type (autoref
/// specialization: the `Is…` trait's method is found first when its impl applies), so a test
/// can hold the table's lines to the impls.
#[cfg(test)]
mod probe {
    use std::marker::PhantomData;

    /// Stands for operation `O`.
    pub struct Probe<O>(PhantomData<O>);

    impl<O> Probe<O> {
        pub fn new() -> Probe<O> {
            Probe(PhantomData)
        }
    }

    macro_rules! probes {
        ($($cap:ident $is:ident $not:ident $method:ident;)*) => {
            $(
                pub trait $is {
                    fn $method(&self) -> bool {
                        true
                    }
                }
                impl<O: crate::operation::$cap> $is for Probe<O> {}
                pub trait $not {
                    fn $method(&self) -> bool {
                        false
                    }
                }
                impl<O> $not for &Probe<O> {}
            )*
        };
    }

    probes! {
        Served IsServed NotServed served;
        OnInstance IsOnInstance NotOnInstance on_instance;
        OwnSize IsOwnSize NotOwnSize own_size;
        Bounded IsBounded NotBounded bounded;
        Budgeted IsBudgeted NotBudgeted budgeted;
        Verdict IsVerdict NotVerdict verdict;
        Isolated IsIsolated NotIsolated isolated;
        Certifying IsCertifying NotCertifying certifying;
        Library IsLibrary NotLibrary library;
    }

    /// The capability traits operation `$op` (a concrete type) implements, by name.
    macro_rules! found {
        ($op:ty) => {{
            #[allow(unused_imports)]
            use probe::*;
            let p = &probe::Probe::<$op>::new();
            let all = [
                ("Served", p.served()),
                ("OnInstance", p.on_instance()),
                ("OwnSize", p.own_size()),
                ("Bounded", p.bounded()),
                ("Budgeted", p.budgeted()),
                ("Verdict", p.verdict()),
                ("Isolated", p.isolated()),
                ("Certifying", p.certifying()),
                ("Library", p.library()),
            ];
            all.iter()
                .filter(|(_, has)| *has)
                .map(|(name, _)| *name)
                .collect::<Vec<&str>>()
        }};
    }
    pub(crate) use found;
}

operations! {
    $
    Solve => Solve: [Served, OnInstance, Bounded, Budgeted, Isolated, Certifying, Library],
    Count => count::Count: [Served, OnInstance, Bounded, Budgeted, Verdict, Isolated, Library],
    Check => check::Check: [Served, OnInstance, Budgeted, Library],
    Explain => explain::Explain: [Served, OnInstance, Budgeted, Isolated, Certifying, Library],
    Encode => encode::Encode: [Served, OnInstance, Library],
    Decode => decode::Decode: [Served, OnInstance, Budgeted, Library],
    Generate => generate::Generate: [Served, OwnSize, Bounded, Budgeted, Isolated, Library],
    Hint => hint::Hint: [Served, OnInstance, Budgeted, Isolated, Library],
    Grade => grade::Grade: [Served, OnInstance, Isolated, Library],
    CollectionDeal => collection::CollectionDeal: [Served, Library],
    CollectionPlay => collection::CollectionPlay: [Served, Bounded, Library],
    CollectionSimulate => collection::CollectionSimulate: [Served, Bounded, Budgeted, Library],
    CollectionSolve => collection::CollectionSolve: [Served, Bounded, Budgeted, Library],
    CollectionStudy => collection::CollectionStudy: [Served, Bounded, Budgeted, Library],
    SolveCnf => solve_cnf::SolveCnf: [Budgeted, Isolated, Certifying],
    Mod2Check => mod2::Mod2Check: [Served, OnInstance, Library],
    Mod2Replay => mod2::Mod2Replay: [Served, Verdict, Library],
    Mod2Solve => mod2::Mod2Solve: [Served, OwnSize, Bounded, Budgeted, Verdict, Isolated, Library],
    Mod2Optimum => mod2::Mod2Optimum: [Served, OwnSize, Bounded, Budgeted, Verdict, Isolated, Library],
    Threshold => threshold::Threshold: [Served, OwnSize, Bounded, Budgeted, Library],
}

impl Response {
    /// The CLI's exit code for this answer: its operation's ([`Declared::exit_code`]).
    pub fn exit_code(&self) -> u8 {
        with_response!(self, |O, r| <O as Declared>::exit_code(r))
    }

    /// True when the budget cut the operation short (`timeout` or `cancelled`).
    pub fn interrupted(&self) -> bool {
        with_response!(self, |O, r| matches!(
            <O as Declared>::status(r),
            Some(Status::Timeout | Status::Cancelled)
        ))
    }

    /// The answer's proof, if it has one ([`Declared::proof_mut`]).
    pub fn proof_mut(&mut self) -> Option<&mut ProofInfo> {
        with_response!(self, |O, r| <O as Declared>::proof_mut(r))
    }
}

impl Request {
    /// The operation's name (`solve`, `count`, …).
    pub fn op(&self) -> &'static str {
        with_request!(self, |O, _r| O::NAME)
    }

    /// The instance the request is about (none for `generate` and the games).
    pub fn problem(&self) -> Option<&Problem> {
        with_request!(self, |O, r| <O as Declared>::problem(r))
    }

    /// The request's instance, for a library caller to put its problem in (none for
    /// `generate` and the games; [`Declared::instance_mut`]).
    pub fn instance_mut(&mut self) -> Option<&mut Instance> {
        with_request!(self, |O, r| <O as Declared>::instance_mut(r))
    }

    /// The board size the request works on.
    pub fn n(&self) -> usize {
        with_request!(self, |O, r| <O as Declared>::n(r))
    }

    /// Checks the request's options against each other and the limits, before any work (the
    /// operation checks them again; the service checks before it accepts a job).
    pub fn validate(&self) -> Result<(), Error> {
        self.check_sparse()?;
        with_request!(self, |O, r| {
            O::validate(r)?;
            // The declared bounds, which the service's document states: a value the
            // operation's own checks let through past them is refused here all the same.
            if !<O as Declared>::BOUNDS.is_empty() {
                let value = serde_json::to_value(r)
                    .map_err(|e| Error::internal_from("a request does not serialize", e))?;
                for bound in <O as Declared>::BOUNDS {
                    bound.check(&value)?;
                }
            }
            Ok(())
        })
    }

    /// Refuses a board past [`queens_model::model::MAX_N`] to every operation but `solve`, `check`,
    /// `count` (which refuse what their engines cannot do, with the engine's reason), and
    /// `encode` and `decode` of a core that fits: the others keep n² structures.
    pub fn check_sparse(&self) -> Result<(), Error> {
        let Some(p) = self.problem().filter(|p| p.is_sparse()) else {
            return Ok(());
        };
        match with_request!(self, |O, _r| <O as Declared>::SPARSE) {
            Sparse::Taken => Ok(()),
            Sparse::Core => queens_engine::completion::fits(p),
            Sparse::Refused => Err(Error::too_large_at_field(
                "n",
                format!(
                    "{} works on boards up to {max}×{max}, not {n}×{n}; past {max} only \
                     solve, count, check, encode and decode take a board (local search, or \
                     the complete engines on the core of a completion)",
                    self.op(),
                    max = queens_model::model::MAX_N,
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
        with_request!(self, |O, r| <O as Declared>::unbounded(r, n))
    }

    /// True when the request asks for a proof.
    pub fn wants_proof(&self) -> bool {
        with_request!(self, |O, r| <O as Declared>::wants_proof(r))
    }

    /// Runs the request under the context: in a child process when it needs an engine that
    /// cannot be interrupted and the context asks for isolation, in-process otherwise.
    pub fn run(&self, ctx: &Context) -> Result<(Response, Artifacts), Error> {
        self.check_sparse()?;
        if let Some(exe) = &ctx.isolate {
            if self.uninterruptible() {
                return self.run_isolated(exe, ctx);
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
        self.run_isolated(exe, ctx)
    }

    /// [`Request::run_in_child`] of a request already checked.
    fn run_isolated(
        &self,
        exe: &std::path::Path,
        ctx: &Context,
    ) -> Result<(Response, Artifacts), Error> {
        with_request!(self, |O, r| {
            let (resp, artifacts) = isolate::run::<O>(exe, r, ctx)?;
            Ok((O::wrap_response(resp), artifacts))
        })
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
        with_request!(self, |O, r| <O as Declared>::spawns(r))
    }

    /// True when the request runs an engine that only stops when its process is killed
    /// (the SAT engine, the region generator's uniqueness search).
    pub fn uninterruptible(&self) -> bool {
        with_request!(self, |O, r| <O as Declared>::uninterruptible(r))
    }

    /// Reads a job body whose `op` is `op` with `read` (which reads the rest of the body as
    /// the operation's request type); `None` for an unknown `op`.
    pub fn read_as<E>(op: &str, read: impl ReadRequest<E>) -> Option<Result<Request, E>> {
        Request::read_of(op, read, false)
    }

    /// [`Request::read_as`] for a library caller: `None` also for an operation not offered
    /// to library callers ([`Library`]).
    pub fn read_for_library<E>(op: &str, read: impl ReadRequest<E>) -> Option<Result<Request, E>> {
        Request::read_of(op, read, true)
    }

    /// The request of operation `op` read by `read`, of the library's operations only when
    /// `library` is set.
    fn read_of<E>(
        op: &str,
        read: impl ReadRequest<E>,
        library: bool,
    ) -> Option<Result<Request, E>> {
        struct Reader<'a, R, E> {
            op: &'a str,
            library: bool,
            read: Option<R>,
            out: Option<Result<Request, E>>,
        }
        impl<R: ReadRequest<E>, E> Visit for Reader<'_, R, E> {
            fn visit<O: Member>(&mut self) {
                if O::NAME == self.op && (<O as Declared>::LIBRARY || !self.library) {
                    if let Some(read) = self.read.take() {
                        self.out = Some(read.read::<O::Request>().map(O::wrap));
                    }
                }
            }
        }
        let mut reader = Reader {
            op,
            library,
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
/// backtracker against the SAT engine in a child (`race_sides.rs`).
pub struct Solve;

impl Operation for Solve {
    const NAME: &'static str = "solve";
    type Request = SolveRequest;
    type Response = SolveResponse;

    fn run(req: &SolveRequest, ctx: &Context) -> Result<(SolveResponse, Artifacts), Error> {
        solve(req, ctx)
    }
    fn validate(req: &SolveRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl operation::Served for Solve {
    const PATH: &'static str = "/v1/solve";
    const SUMMARY: &'static str = "Find a solution (or up to `limit`), verified; `status` is \
                                   `sat`, `unsat`, `timeout` or\n`cancelled`.";
}

impl operation::OnInstance for Solve {
    fn instance(req: &SolveRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut SolveRequest) -> &mut Instance {
        &mut req.instance
    }
    const SPARSE: Sparse = Sparse::Taken;
    const LARGE_AS_JOB: bool = true;
}

impl operation::Bounded for Solve {
    fn unbounded(req: &SolveRequest, n: usize) -> Option<String> {
        (req.all && req.limit.is_none() && n > UNBOUNDED_LIST_N).then(|| {
            format!(
                "listing every solution of a {n}×{n} board is unbounded: give `limit`, or \
                 submit it as a job (POST /v1/jobs)"
            )
        })
    }
}

impl operation::Budgeted for Solve {
    fn status(resp: &SolveResponse) -> Status {
        resp.status
    }
    fn timeout_ms(req: &SolveRequest) -> Option<u64> {
        req.timeout_ms
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
}

impl operation::Isolated for Solve {
    fn uninterruptible(req: &SolveRequest) -> bool {
        // A proof's conversion and check run to the end once started.
        req.engine == EngineName::Sat || req.cross_check || req.proof.is_some()
    }
    fn spawns(req: &SolveRequest) -> bool {
        req.engine == EngineName::Race
    }
    fn reply(stdout: &str) -> Result<SolveResponse, Error> {
        operation::reply(stdout)
    }
    fn boards(resp: &SolveResponse) -> Vec<&Vec<queens_model::model::Pos>> {
        resp.queens
            .iter()
            .chain(resp.solutions.iter().flatten())
            .collect()
    }
}

impl operation::Certifying for Solve {
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

impl operation::Library for Solve {}

/// Finds a solution (or up to `limit`, or all) and verifies it; with `proof`, certifies an
/// UNSAT answer. Artifacts: `proof` and `cnf` when a proof was made. Engine `race` is the
/// backtracker here against the SAT engine in a child process (`race_sides.rs`).
pub fn solve(req: &SolveRequest, ctx: &Context) -> Result<(SolveResponse, Artifacts), Error> {
    let child = |side: &SolveRequest, side_ctx: &Context| {
        let exe = side_ctx.isolate.clone().ok_or_else(|| {
            Error::unsupported(
                "engine race runs its SAT side in a child process of the queens executable,                  and this caller named none (Context::isolate)"
                    .into(),
            )
        })?;
        isolate::run::<Solve>(&exe, side, side_ctx)
    };
    let with_child = |req: &SolveRequest, step: &mut queens_engine::plan::Step, ctx: &Context| {
        race_sides::run(req, step, ctx, &child)
    };
    solve::solve_planned(req, ctx, &with_child)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library caller reaches the operations offered to it and no other, and finds the
    /// instance of a request that takes one.
    /// The capabilities each line of the table names are exactly the capability traits its
    /// operation implements: one implemented but not named would be invisible to every
    /// caller, and one named but not implemented does not compile.
    #[test]
    fn the_table_names_every_capability_an_operation_implements() {
        let sorted = |mut v: Vec<&'static str>| {
            v.sort_unstable();
            v
        };
        let implemented: Vec<_> = implemented()
            .into_iter()
            .map(|(name, caps)| (name, sorted(caps)))
            .collect();
        let listed: Vec<_> = listed()
            .into_iter()
            .map(|(name, caps)| (name, sorted(caps)))
            .collect();
        assert_eq!(listed.len(), 20);
        for (l, i) in listed.iter().zip(&implemented) {
            assert_eq!(l, i, "the table's line (left) against the impls (right)");
        }
        // Every operation with an endpoint is offered to library callers too: the service,
        // the command line (a made command) and Python reach the same operations.
        for (name, caps) in &listed {
            assert!(
                !caps.contains(&"Served") || caps.contains(&"Library"),
                "{name} has an endpoint but no Python function"
            );
        }
        // The probe tells an implemented trait from a missing one.
        assert!(listed
            .iter()
            .any(|(n, c)| *n == "encode" && !c.contains(&"Budgeted")));
    }

    #[test]
    fn library_callers_reach_their_operations_and_instances() {
        struct Json(serde_json::Value);
        impl ReadRequest<serde_json::Error> for Json {
            fn read<T: serde::de::DeserializeOwned>(self) -> Result<T, serde_json::Error> {
                serde_json::from_value(self.0)
            }
        }
        let solve = || Json(serde_json::json!({ "instance": { "n": 4 } }));
        let mut req = Request::read_for_library("solve", solve())
            .unwrap()
            .unwrap();
        assert_eq!(req.instance_mut().map(|i| i.0.n()), Some(4));
        let cnf = || Json(serde_json::json!({ "cnf": "p cnf 1 1\n1 0\n" }));
        assert!(Request::read_for_library("solve_cnf", cnf()).is_none());
        let mut req = Request::read_as("solve_cnf", cnf()).unwrap().unwrap();
        assert!(req.instance_mut().is_none());
        assert!(Request::read_for_library("no_such_operation", solve()).is_none());
    }

    /// Every operation's name is its variant's serde tag: a job body with that `op` is read
    /// as that operation's request (and refused for its missing fields, not its `op`).
    #[test]
    fn names_are_the_serde_tags() {
        struct Tags(Vec<String>);
        impl Visit for Tags {
            fn visit<O: Member>(&mut self) {
                let body = serde_json::json!({ "op": O::NAME });
                if let Err(e) = serde_json::from_value::<Request>(body) {
                    if e.to_string().contains("unknown variant") {
                        self.0.push(format!("{}: {e}", O::NAME));
                    }
                }
            }
        }
        let mut wrong = Tags(Vec::new());
        for_each(&mut wrong);
        assert!(wrong.0.is_empty(), "{:?}", wrong.0);
        let names = Request::names();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(
            names.len(),
            unique.len(),
            "two operations share a name: {names:?}"
        );
    }
}
