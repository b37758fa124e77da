//! `generate`: seeded instances (completions, excluded diagonals, unique region puzzles),
//! the same for the same seed.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::Context;
use crate::instance::Instance;
use crate::operation::Bound;
use queens_engine::generate as gen;
use queens_engine::puzzle::grade::Grade;
use queens_engine::Budget;
use queens_model::error::Error;
use queens_model::model::Problem;
use queens_model::status::Status;

/// Which generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum GenerateKind {
    /// Gent, Jefferson & Nightingale's n-queens completion generator.
    Completion,
    /// A maximal random Excluded Diagonals list (CSPLib prob079).
    Diagonals,
    /// A region Queens puzzle with exactly one solution.
    Regions,
}

/// `generate`: `count` instances with seeds `seed`, `seed + 1`, ….
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateRequest {
    /// `completion`, `diagonals` or `regions`.
    pub kind: GenerateKind,
    /// Board size.
    pub n: usize,
    /// `completion`: fixed queens to place (fewer when n² attempts run out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queens: Option<usize>,
    /// `diagonals`: open cells every row and column keeps (default 4, as prob079).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_free: Option<usize>,
    /// `diagonals`: keep only the first D diagonals of the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<usize>,
    /// Random seed (default 1).
    #[serde(default = "one")]
    pub seed: u64,
    /// How many instances (default 1).
    #[serde(default = "one")]
    pub count: u64,
    /// `regions`: only puzzles of this grade (`easy`, `medium`, `hard` or `expert`; the
    /// definition is `grade`'s). Puzzles are made from the seed's stream until one has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<Grade>,
    /// `completion`: where the fixed queens come from: `random` (default; Gent, Jefferson &
    /// Nightingale's non-attacking random presets, which may leave no completion) or
    /// `solution` (rows of a random solution: always completable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presets: Option<PresetSource>,
}

/// Where a completion instance's fixed queens come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PresetSource {
    /// Random cells no earlier queen attacks (Gent, Jefferson & Nightingale): the
    /// instance may have no completion, which makes the hard ones.
    #[default]
    Random,
    /// Random rows of a random solution (local search on the empty board): always
    /// completable.
    Solution,
}

fn one() -> u64 {
    1
}

/// Most instances one request may ask for.
pub const MAX_GENERATE_COUNT: u64 = 1000;

/// `generate`'s answer: the instances in the JSON instance format, each with its `id`.
/// `status`: `sat` (every instance asked for is there), `timeout` or `cancelled` (the
/// instances made before the limit).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct GenerateResponse {
    /// `sat`, `timeout` or `cancelled`.
    pub status: Status,
    /// The instances, in seed order.
    #[schema(value_type = Vec<Object>)]
    pub instances: Vec<serde_json::Value>,
    /// `regions`: each puzzle's grade, in the same order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grades: Vec<Grade>,
}

/// One generated instance.
pub struct Made {
    /// JSON text (the writer's readable layout) with its id.
    pub text: String,
    /// A region puzzle's grade.
    pub grade: Option<Grade>,
}

/// One generated instance, or `None` when the budget ran out first (only region puzzles look
/// at it: making one of a given grade may take many tries).
pub fn generate_one(
    req: &GenerateRequest,
    seed: u64,
    budget: &Budget,
) -> Result<Option<Made>, Error> {
    let made = |text| Ok(Some(Made { text, grade: None }));
    let n = req.n;
    match req.kind {
        GenerateKind::Completion => {
            let m = req.queens.ok_or_else(|| {
                Error::unsupported_at_field("queens", "completion needs the number of queens")
            })?;
            let problem = match req.presets.unwrap_or_default() {
                PresetSource::Random => gen::completion(n, m, seed)?,
                PresetSource::Solution => gen::completion_from_solution(n, m, seed)?,
            };
            made(queens_model::formats::write_json(
                &problem,
                &format!("completion-{n}-{m}-{seed}"),
            ))
        }
        GenerateKind::Diagonals => {
            let k = req.min_free.unwrap_or(4);
            let list = gen::diagonals_prefix(n, k, seed, req.first)?;
            made(queens_model::formats::json::write_diagonals_json(
                n,
                &list,
                &format!("diag-{n}-{k}-{seed}"),
            ))
        }
        GenerateKind::Regions => {
            let Some(puzzle) = gen::regions(n, seed, req.difficulty, budget)? else {
                return Ok(None);
            };
            let id = match req.difficulty {
                Some(g) => format!("regions-{n}-{}-{seed}", g.name()),
                None => format!("regions-{n}-{seed}"),
            };
            Ok(Some(Made {
                text: queens_model::formats::write_json(&puzzle.problem, &id),
                grade: Some(puzzle.grade),
            }))
        }
    }
}

impl GenerateRequest {
    /// Checks the options before any work.
    pub fn validate(&self) -> Result<(), Error> {
        if self.count == 0 || self.count > MAX_GENERATE_COUNT {
            return Err(Error::unsupported_at_field(
                "count",
                format!("must be from 1 to {MAX_GENERATE_COUNT}"),
            ));
        }
        if self.difficulty.is_some() && self.kind != GenerateKind::Regions {
            return Err(Error::unsupported_at_field(
                "difficulty",
                "only region puzzles have a grade",
            ));
        }
        if self.kind == GenerateKind::Completion && self.queens.is_none() {
            return Err(Error::unsupported_at_field(
                "queens",
                "completion needs the number of queens",
            ));
        }
        Ok(())
    }
}

/// Generates the instances. The seeds run `seed..seed + count`; each instance's `id` names
/// its generator, size and seed. The budget is looked at between instances: when it runs
/// out, the answer is the instances made so far with status `timeout` (or `cancelled`).
pub fn generate(req: &GenerateRequest, ctx: &Context) -> Result<GenerateResponse, Error> {
    req.validate()?;
    let mut instances = Vec::new();
    let mut grades = Vec::new();
    let stopped = |instances, grades| {
        Ok(GenerateResponse {
            status: Status::interrupted(&ctx.budget),
            instances,
            grades,
        })
    };
    for i in 0..req.count {
        if ctx.budget.exhausted() {
            return stopped(instances, grades);
        }
        let seed = req
            .seed
            .checked_add(i)
            .ok_or_else(|| Error::unsupported_at_field("seed", "seed + count overflows"))?;
        let Some(made) = generate_one(req, seed, &ctx.budget)? else {
            return stopped(instances, grades);
        };
        let value = serde_json::from_str(&made.text)
            .map_err(|e| Error::internal_from("a generated instance is not JSON", e))?;
        instances.push(value);
        grades.extend(made.grade);
    }
    Ok(GenerateResponse {
        status: Status::Sat,
        instances,
        grades,
    })
}

impl GenerateResponse {
    /// The instances as problems (for callers that solve them next).
    pub fn problems(&self) -> Result<Vec<Problem>, Error> {
        self.instances
            .iter()
            .map(|v| {
                let inst: Instance = serde_json::from_value(v.clone())
                    .map_err(|e| Error::internal_from("a generated instance", e))?;
                Ok(inst.0)
            })
            .collect()
    }
}

/// `generate`.
pub struct Generate;

impl crate::operation::Operation for Generate {
    const NAME: &'static str = "generate";
    type Request = GenerateRequest;
    type Response = GenerateResponse;

    fn run(
        req: &GenerateRequest,
        ctx: &Context,
    ) -> Result<(GenerateResponse, crate::context::Artifacts), Error> {
        Ok((generate(req, ctx)?, crate::context::Artifacts::default()))
    }
    fn validate(req: &GenerateRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for Generate {
    const PATH: &'static str = "/v1/generate";
    const SUMMARY: &'static str =
        "Seeded instances: completions, excluded diagonals, unique region puzzles.";
}

impl crate::operation::OwnSize for Generate {
    const N_FIELD: &'static str = "n";
    fn n(req: &GenerateRequest) -> usize {
        req.n
    }
}

impl crate::operation::Bounded for Generate {
    const BOUNDS: &'static [Bound] = &[Bound::new("count", 1, MAX_GENERATE_COUNT)];
}

impl crate::operation::Budgeted for Generate {
    fn status(resp: &GenerateResponse) -> Status {
        resp.status
    }
    fn stopped(_req: &GenerateRequest, status: Status, _time_ms: f64) -> Option<GenerateResponse> {
        Some(GenerateResponse {
            status,
            instances: Vec::new(),
            grades: Vec::new(),
        })
    }
}

impl crate::operation::Isolated for Generate {
    fn uninterruptible(req: &GenerateRequest) -> bool {
        req.kind == GenerateKind::Regions
    }
    fn reply(stdout: &str) -> Result<GenerateResponse, Error> {
        crate::operation::reply(stdout)
    }
}

impl crate::operation::Library for Generate {}
