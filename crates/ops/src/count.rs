//! `count`: the number of solutions (up to a limit, or in one shard of the search), from one
//! engine or both cross-checked.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Artifacts, Context};
use crate::instance::Instance;
use crate::limits::check_limit;
use crate::shard::{content_hash, Shard, ShardInfo};
use crate::solve::{disagree, no_answer, WorkReport};
use queens_engine::encode::amo::Encoding;
use queens_engine::ext::ExtName;
use queens_engine::{EngineName, EngineSpec};
use queens_model::error::Error;
use queens_model::model::Problem;
use queens_model::status::Status;

/// `count`: the number of solutions, up to `limit`.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CountRequest {
    /// The instance.
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// `backtrack` (default) or `sat`.
    #[serde(default)]
    pub engine: EngineName,
    /// At-most-one encoding for the SAT engine.
    #[serde(default)]
    pub encoding: Encoding,
    /// Stop at this many (`2` asks "is the solution unique?"); at least 1.
    pub limit: Option<u64>,
    /// Also report the count up to rotation and reflection (empty classic board).
    #[serde(default)]
    pub unique: bool,
    /// Also count with the other engine; a different number is an internal error.
    #[serde(default)]
    pub cross_check: bool,
    /// Give up after this many milliseconds (`status: "timeout"`, the count so far).
    pub timeout_ms: Option<u64>,
    /// Count only this shard of the search tree's subproblems (`{"index": i, "of": n}`),
    /// for `queens merge` to sum with the others (docs/batch-and-clusters.md, "Batch runs and shards").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// With engine `ext`: the solver's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub solver: Option<ExtName>,
    /// With engine `ext`: add the ring bounds as redundant cardinality constraints.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rings: bool,
}

impl CountRequest {
    /// The external solver that answers, with engine `ext`.
    pub fn ext_solver(&self) -> Option<ExtName> {
        self.solver.filter(|_| self.engine == EngineName::Ext)
    }

    /// Checks the options before any work.
    pub fn validate(&self) -> Result<(), Error> {
        self.engine.spec(self.encoding, self.solver, self.rings)?;
        if let Some(s) = self.solver {
            queens_engine::ext::table()
                .resolve(s)
                .map_err(|e| e.about("solver"))?;
        }
        if self.engine == EngineName::Ext && (self.limit.is_none() || self.shard.is_some()) {
            return Err(Error::unsupported_at_field(
                "limit",
                "an external solver counts by solving again with each solution \
                 blocked, so it needs a limit (and no shard)",
            ));
        }
        if self.engine == EngineName::Race {
            return Err(Error::unsupported_at_field(
                "engine",
                "race answers one solution or \"no solution\": count with \
                 backtrack or sat",
            ));
        }
        check_limit(self.limit)?;
        if let Some(s) = self.shard {
            Shard::new(s.index, s.of).map_err(|e| Error::unsupported_at_field("shard", e))?;
            if self.limit.is_some() {
                return Err(Error::unsupported_at_field(
                    "shard",
                    "a shard is counted in full, to be summed with the others; \
                     `limit` cannot be combined with it",
                ));
            }
            if self.cross_check {
                return Err(Error::unsupported_at_field(
                    "shard",
                    "the engines cut the tree differently, so shards cannot be \
                     cross-checked one by one; cross-check the merged count",
                ));
            }
        }
        Ok(())
    }
}

/// `count`'s answer. `status`: `sat` (exact, positive), `unsat` (exact, zero), `limited`
/// (stopped at the limit: a lower bound), `timeout` or `cancelled` (the count so far).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CountResponse {
    /// `sat`, `unsat`, `limited`, `timeout` or `cancelled`.
    pub status: Status,
    /// Solutions counted.
    pub count: u64,
    /// Solutions up to rotation and reflection (with `unique`, on the empty classic board).
    pub unique: Option<u64>,
    /// True when the count stopped at the limit.
    pub limited: bool,
    /// Board size.
    pub n: usize,
    /// `backtrack` or `sat`.
    pub engine: EngineName,
    /// Wall time, milliseconds.
    pub time_ms: f64,
    /// The engine's work.
    #[serde(flatten)]
    pub work: WorkReport,
    /// With `cross_check`: the engine that agreed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_checked: Option<EngineName>,
    /// With `shard`: which part of which count this is (`count` is this shard's part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardInfo>,
}

/// Counts solutions (up to `limit`), optionally cross-checked by the other engine.
pub fn count(req: &CountRequest, ctx: &Context) -> Result<CountResponse, Error> {
    req.validate()?;
    let ctx = &ctx.with_timeout_ms(req.timeout_ms);
    let problem = &req.instance.0;
    let start = Instant::now();
    let spec = req.engine.spec(req.encoding, req.solver, req.rings)?;
    if let Some(shard) = req.shard {
        return count_shard(req, problem, shard, spec, ctx, start);
    }
    let counted = queens_engine::count(problem, spec, req.limit, &ctx.budget)?;
    let mut cross_checked = None;
    if req.cross_check && !counted.interrupted {
        let other_spec = spec.other(req.encoding);
        let other = queens_engine::count(problem, other_spec, req.limit, &ctx.budget)?;
        if !other.interrupted {
            if other.count != counted.count {
                let show = |name: &str, c: &queens_engine::Counted| {
                    let lim = if c.limited { " (limit)" } else { "" };
                    format!("{name}: count {}{lim}", c.count)
                };
                return Err(disagree(
                    "count",
                    show(spec.name(), &counted),
                    show(other_spec.name(), &other),
                ));
            }
            cross_checked = Some(req.engine.other());
        }
    }
    let status = if counted.interrupted {
        no_answer(spec, ctx)
    } else if counted.limited {
        Status::Limited
    } else if counted.count > 0 {
        Status::Sat
    } else {
        Status::Unsat
    };
    Ok(CountResponse {
        status,
        count: counted.count,
        unique: if req.unique { counted.unique } else { None },
        limited: counted.limited,
        n: problem.n(),
        engine: req.engine,
        time_ms: ms(start),
        work: WorkReport::from_work(&counted.work, req.encoding, req.ext_solver()),
        cross_checked,
        shard: None,
    })
}

/// `count` of one shard ([`crate::shard::count`]).
fn count_shard(
    req: &CountRequest,
    problem: &Problem,
    shard: Shard,
    spec: EngineSpec,
    ctx: &Context,
    start: Instant,
) -> Result<CountResponse, Error> {
    let c = crate::shard::count(problem, shard, spec, &ctx.budget)?;
    let status = if c.interrupted {
        Status::interrupted(&ctx.budget)
    } else if c.count > 0 {
        Status::Sat
    } else {
        Status::Unsat
    };
    Ok(CountResponse {
        status,
        count: c.count,
        unique: if req.unique { c.unique } else { None },
        limited: false,
        n: problem.n(),
        engine: req.engine,
        time_ms: ms(start),
        work: WorkReport::from_work(&c.work, req.encoding, req.ext_solver()),
        cross_checked: None,
        shard: Some(ShardInfo {
            index: shard.index,
            of: shard.of,
            scheme: c.scheme,
            instance: content_hash(problem),
            tasks: c.tasks,
            all_tasks: c.all_tasks,
            finished: c.finished,
        }),
    })
}

/// `count`.
pub struct Count;

impl crate::operation::Operation for Count {
    const NAME: &'static str = "count";
    type Request = CountRequest;
    type Response = CountResponse;

    fn run(req: &CountRequest, ctx: &Context) -> Result<(CountResponse, Artifacts), Error> {
        Ok((count(req, ctx)?, Artifacts::default()))
    }
    fn validate(req: &CountRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for Count {
    const PATH: &'static str = "/v1/count";
    const SUMMARY: &'static str =
        "Count solutions (up to `limit`); without a limit only boards up to n = 16.";
}

impl crate::operation::OnInstance for Count {
    fn instance(req: &CountRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut CountRequest) -> &mut Instance {
        &mut req.instance
    }
    const SPARSE: crate::operation::Sparse = crate::operation::Sparse::Taken;
}

impl crate::operation::Bounded for Count {
    fn unbounded(req: &CountRequest, n: usize) -> Option<String> {
        (req.limit.is_none() && n > crate::limits::UNBOUNDED_COUNT_N).then(|| {
            format!(
                "counting every solution of a {n}×{n} board can take hours: give `limit`, or \
                 submit it as a job (POST /v1/jobs with \"op\": \"count\")"
            )
        })
    }
}

impl crate::operation::Budgeted for Count {
    fn status(resp: &CountResponse) -> Status {
        resp.status
    }
    fn timeout_ms(req: &CountRequest) -> Option<u64> {
        req.timeout_ms
    }
    fn stopped(req: &CountRequest, status: Status, time_ms: f64) -> Option<CountResponse> {
        Some(CountResponse {
            status,
            count: 0,
            unique: None,
            limited: false,
            n: req.instance.0.n(),
            engine: req.engine,
            time_ms,
            work: WorkReport::default(),
            cross_checked: None,
            shard: None,
        })
    }
}

impl crate::operation::Verdict for Count {
    fn exit_code(resp: &CountResponse) -> u8 {
        // A finished shard is a success whatever its part of the count (a scheduler would
        // take exit 1 for a failed task).
        let interrupted = matches!(resp.status, Status::Timeout | Status::Cancelled);
        if resp.shard.is_some() && !interrupted {
            0
        } else {
            resp.status.exit_code()
        }
    }
}

impl crate::operation::Isolated for Count {
    fn uninterruptible(req: &CountRequest) -> bool {
        req.engine == EngineName::Sat || req.cross_check
    }
    fn reply(stdout: &str) -> Result<CountResponse, Error> {
        crate::operation::reply(stdout)
    }
}

impl crate::operation::Library for Count {}
