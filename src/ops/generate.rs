//! `generate`: seeded instances (completions, excluded diagonals, unique region puzzles),
//! the same for the same seed.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Context, Instance, Status};
use crate::error::Error;
use crate::generate as gen;
use crate::model::Problem;

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
}

/// One generated instance as JSON text (the writer's readable layout) with its id.
pub fn generate_one(req: &GenerateRequest, seed: u64) -> Result<String, Error> {
    let n = req.n;
    match req.kind {
        GenerateKind::Completion => {
            let m = req.queens.ok_or_else(|| {
                Error::Unsupported("field `queens`: completion needs the number of queens".into())
            })?;
            let problem = gen::completion(n, m, seed)?;
            Ok(crate::formats::write_json(
                &problem,
                &format!("completion-{n}-{m}-{seed}"),
            ))
        }
        GenerateKind::Diagonals => {
            let k = req.min_free.unwrap_or(4);
            Problem::new(n)?;
            let list = gen::diagonals(n, k, seed);
            let d = req.first.unwrap_or(list.len());
            if d > list.len() {
                return Err(Error::Unsupported(format!(
                    "field `first`: {d}: seed {seed} gives a maximal list of only {} diagonals \
                     for n = {n}, K = {k}",
                    list.len()
                )));
            }
            Ok(crate::formats::json::write_diagonals_json(
                n,
                &list[..d],
                &format!("diag-{n}-{k}-{seed}"),
            ))
        }
        GenerateKind::Regions => {
            let problem = gen::regions(n, seed)
                .map_err(|e| Error::Unsupported(format!("seed {seed}: {e}")))?;
            Ok(crate::formats::write_json(
                &problem,
                &format!("regions-{n}-{seed}"),
            ))
        }
    }
}

impl GenerateRequest {
    /// Checks the options before any work.
    pub fn validate(&self) -> Result<(), Error> {
        if self.count == 0 || self.count > MAX_GENERATE_COUNT {
            return Err(Error::Unsupported(format!(
                "field `count`: must be from 1 to {MAX_GENERATE_COUNT}"
            )));
        }
        if self.kind == GenerateKind::Completion && self.queens.is_none() {
            return Err(Error::Unsupported(
                "field `queens`: completion needs the number of queens".into(),
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
    for i in 0..req.count {
        if ctx.budget.exhausted() {
            return Ok(GenerateResponse {
                status: Status::interrupted(&ctx.budget),
                instances,
            });
        }
        let seed = req
            .seed
            .checked_add(i)
            .ok_or_else(|| Error::Unsupported("field `seed`: seed + count overflows".into()))?;
        let text = generate_one(req, seed)?;
        let value = serde_json::from_str(&text)
            .map_err(|e| Error::Internal(format!("a generated instance is not JSON: {e}")))?;
        instances.push(value);
    }
    Ok(GenerateResponse {
        status: Status::Sat,
        instances,
    })
}

impl GenerateResponse {
    /// The instances as problems (for callers that solve them next).
    pub fn problems(&self) -> Result<Vec<Problem>, Error> {
        self.instances
            .iter()
            .map(|v| {
                let inst: Instance = serde_json::from_value(v.clone())
                    .map_err(|e| Error::Internal(format!("a generated instance: {e}")))?;
                Ok(inst.0)
            })
            .collect()
    }
}
