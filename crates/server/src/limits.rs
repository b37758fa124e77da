//! The fields of a request that size its work, with this server's bounds: written into the
//! OpenAPI document as `minimum`/`maximum` (the synchronous endpoint's and the job's), and
//! checked before a request is queued, so that the document and the 422 say the same.
//!
//! Most bounds are the operations' own (a lookahead of at most 1,024 samples, a mod-2 game
//! search of at most 11 rows, …: `Request::validate` refuses past them). The deals of a
//! simulation or a study are this server's: `queens serve --max-simulate-deals` and
//! `--max-study-deals` (a synchronous call stays within its smaller bounds whatever they are).

use axum::http::StatusCode;
use serde_json::{json, Value};

use super::config::Config;
use super::error::ApiError;
use queens_ops::{collection, mod2, Request};

/// One bounded field: the schema it is in, its property (a path through nested objects:
/// `lookahead.samples` is in the `Lookahead` schema), and its bounds.
struct Bound {
    schema: String,
    field: &'static str,
    min: Option<u64>,
    max: u64,
}

/// Every bounded field of every request schema, synchronous and job, on this server.
fn bounds(config: &Config) -> Vec<Bound> {
    let simulate = config.max_simulate_deals;
    let study = config.max_study_deals;
    let mut out = Vec::new();
    let mut both = |sync: &str, op: &str, field: &'static str, min: Option<u64>, max: u64| {
        for schema in [sync.to_string(), format!("Job.{op}")] {
            out.push(Bound {
                schema,
                field,
                min,
                max,
            });
        }
    };
    let sim_sync = simulate.min(collection::MAX_SYNC_SIMULATE_DEALS);
    let study_sync = study.min(collection::MAX_SYNC_STUDY_DEALS);
    both(
        "SimulateRequest",
        "collection_simulate",
        "jobs",
        Some(1),
        collection::MAX_JOBS as u64,
    );
    both(
        "StudyRequest",
        "collection_study",
        "jobs",
        Some(1),
        collection::MAX_JOBS as u64,
    );
    both(
        "StudyRequest",
        "collection_study",
        "timeout_each_ms",
        Some(1),
        3_600_000,
    );
    let entries = collection::MAX_TABLE_ENTRIES as u64;
    both(
        "StudyRequest",
        "collection_study",
        "max_entries",
        Some(1),
        entries,
    );
    both(
        "CollectionSolveRequest",
        "collection_solve",
        "max_entries",
        Some(1),
        entries,
    );
    both(
        "CollectionSolveRequest",
        "collection_solve",
        "beam",
        None,
        collection::MAX_BEAM as u64,
    );
    both(
        "Mod2SolveRequest",
        "mod2_solve",
        "n",
        Some(1),
        queens_games::mod2::search::MAX_N as u64,
    );
    both("Mod2SolveRequest", "mod2_solve", "threads", None, 256);
    both(
        "Mod2SolveRequest",
        "mod2_solve",
        "strategy_plies",
        None,
        mod2::STRATEGY_MAX_PLIES as u64,
    );
    both(
        "Mod2OptimumRequest",
        "mod2_optimum",
        "n",
        Some(1),
        mod2::MAX_OPTIMUM_N as u64,
    );
    both(
        "GenerateRequest",
        "generate",
        "count",
        Some(1),
        queens_ops::MAX_GENERATE_COUNT,
    );
    both(
        "GenerateRequest",
        "generate",
        "n",
        None,
        config.max_n as u64,
    );
    for (schema, max) in [
        ("SimulateRequest".to_string(), sim_sync),
        ("Job.collection_simulate".to_string(), simulate),
    ] {
        out.push(Bound {
            schema,
            field: "deals",
            min: Some(1),
            max,
        });
    }
    for (schema, max) in [
        ("StudyRequest".to_string(), study_sync),
        ("Job.collection_study".to_string(), study),
    ] {
        out.push(Bound {
            schema,
            field: "deals",
            min: Some(1),
            max,
        });
    }
    let look = collection::MAX_LOOKAHEAD;
    for (field, min, max) in [
        ("candidates", Some(1), look.candidates as u64),
        ("samples", None, look.samples as u64),
    ] {
        out.push(Bound {
            schema: "Lookahead".into(),
            field,
            min,
            max,
        });
    }
    out
}

/// Writes the bounds into the document's schemas.
pub(super) fn document(doc: &mut Value, config: &Config) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for b in bounds(config) {
        let Some(prop) = schemas
            .get_mut(&b.schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut(b.field))
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        prop.insert("maximum".into(), json!(b.max));
        if let Some(min) = b.min {
            prop.insert("minimum".into(), json!(min));
        }
    }
}

/// Refuses, with 422 naming the field, a request over one of this server's own bounds (the
/// operations refuse what is over theirs).
pub(super) fn check(req: &Request, config: &Config) -> Result<(), ApiError> {
    let (field, value, max, flag) = match req {
        Request::CollectionSimulate(r) => (
            "deals",
            r.deals,
            config.max_simulate_deals,
            "--max-simulate-deals",
        ),
        Request::CollectionStudy(r) => (
            "deals",
            r.deals,
            config.max_study_deals,
            "--max-study-deals",
        ),
        _ => return Ok(()),
    };
    if value > max {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "over a limit",
            format!("{value} {field} is over this server's limit of {max} ({flag})"),
        )
        .field(field));
    }
    Ok(())
}
