//! The fields of a request that size its work, with this server's bounds: written into the
//! OpenAPI document as `minimum`/`maximum` (the synchronous endpoint's and the job's), and
//! checked before a request is queued, so that the document and the 422 say the same.
//!
//! The bounds are the operations' own, declared with each ([`Member::BOUNDS`]; a lookahead
//! of at most 1,024 samples, a mod-2 game search of at most 11 rows, …), which
//! `Request::validate` enforces. This server lowers two of them: the deals of a simulation or
//! a study (`queens serve --max-simulate-deals`, `--max-study-deals`), and the board size of
//! an operation whose size is a field of its own (`--max-n`).

use std::any::TypeId;

use axum::http::StatusCode;
use serde_json::{json, Value};
use utoipa::ToSchema;

use super::config::Config;
use super::error::ApiError;
use queens_ops::{CollectionSimulate, CollectionStudy, Member, Request, Visit};

/// This server's own maximum of a field of operation `O`, below the operation's, and the
/// flag that sets it.
fn own<O: Member>(config: &Config, field: &str) -> Option<(u64, &'static str)> {
    let op = TypeId::of::<O>();
    match field {
        "deals" if op == TypeId::of::<CollectionSimulate>() => {
            Some((config.max_simulate_deals, "--max-simulate-deals"))
        }
        "deals" if op == TypeId::of::<CollectionStudy>() => {
            Some((config.max_study_deals, "--max-study-deals"))
        }
        _ if field == O::N_FIELD => Some((config.max_n as u64, "--max-n")),
        _ => None,
    }
}

/// Writes the bounds into the document's schemas: each operation's request schema (the
/// synchronous endpoint's) and its job's (`Job.NAME`).
pub(super) fn document(doc: &mut Value, config: &Config) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    queens_ops::for_each(&mut Document { schemas, config });
}

/// [`document`] for each operation of the table.
struct Document<'a> {
    schemas: &'a mut serde_json::Map<String, Value>,
    config: &'a Config,
}

impl Visit for Document<'_> {
    fn visit<O: Member>(&mut self) {
        let sync = <O::Request as ToSchema>::name().into_owned();
        let job = format!("Job.{}", O::NAME);
        for b in O::BOUNDS {
            let max = match own::<O>(self.config, b.field) {
                Some((here, _)) => here.min(b.max),
                None => b.max,
            };
            let sync_max = b.sync_max.map_or(max, |s| s.min(max));
            if O::PATH.is_some() {
                self.bound(&sync, b.field, Some(b.min), sync_max);
            }
            self.bound(&job, b.field, Some(b.min), max);
        }
        // A board size that is a field of the request itself (not of its instance), with no
        // bound of the operation's: `--max-n`.
        let field = O::N_FIELD;
        if !field.contains('.') && O::BOUNDS.iter().all(|b| b.field != field) {
            let max = self.config.max_n as u64;
            if O::PATH.is_some() {
                self.bound(&sync, field, None, max);
            }
            self.bound(&job, field, None, max);
        }
        // A board size in the request's instance, whose schema every operation shares:
        // `--max-n` beside the request's reference to it (a job of an operation that takes
        // a large board as a job is not held to it).
        if let Some(("instance", key)) = field.split_once('.') {
            let max = self.config.max_n as u64;
            if O::PATH.is_some() {
                self.beside_ref(&sync, "instance", key, max);
            }
            if !O::LARGE_AS_JOB {
                self.beside_ref(&job, "instance", key, max);
            }
        }
    }
}

impl Document<'_> {
    /// Writes `maximum` for the property `key` of the object that property `field` of
    /// schema `schema` refers to, beside the reference (the referred schema is shared).
    fn beside_ref(&mut self, schema: &str, field: &str, key: &str, max: u64) {
        let Some(prop) = self
            .schemas
            .get_mut(schema)
            .and_then(|s| s.get_mut("properties"))
            .and_then(|p| p.get_mut(field))
            .and_then(Value::as_object_mut)
            .filter(|p| p.contains_key("$ref"))
        else {
            return;
        };
        prop.insert("properties".into(), json!({ key: { "maximum": max } }));
    }

    /// Writes `minimum` (when given) and `maximum` into the property `field` (a path through
    /// nested objects, each a `$ref` to its schema or inline) of schema `schema`.
    fn bound(&mut self, schema: &str, field: &str, min: Option<u64>, max: u64) {
        let mut at = schema.to_string();
        let mut keys = field.split('.').peekable();
        while let Some(key) = keys.next() {
            let Some(prop) = self
                .schemas
                .get_mut(&at)
                .and_then(|s| s.get_mut("properties"))
                .and_then(|p| p.get_mut(key))
                .and_then(Value::as_object_mut)
            else {
                return;
            };
            if keys.peek().is_some() {
                let Some(next) = prop
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                else {
                    return;
                };
                at = next.to_string();
                continue;
            }
            prop.insert("maximum".into(), json!(max));
            if let Some(min) = min {
                prop.insert("minimum".into(), json!(min));
            }
        }
    }
}

/// Refuses, with 422 naming the field, a request over one of this server's own bounds on
/// deals (the operations refuse what is over theirs; the board size is [`super::admit`]'s).
pub(super) fn check(req: &Request, config: &Config) -> Result<(), ApiError> {
    let (value, own) = match req {
        Request::CollectionSimulate(r) => (r.deals, own::<CollectionSimulate>(config, "deals")),
        Request::CollectionStudy(r) => (r.deals, own::<CollectionStudy>(config, "deals")),
        _ => return Ok(()),
    };
    match own {
        Some((max, flag)) if value > max => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "over a limit",
            format!("{value} deals is over this server's limit of {max} ({flag})"),
        )
        .field("deals")),
        _ => Ok(()),
    }
}
