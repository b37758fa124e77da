//! `grade`: how hard a region puzzle is for a player who reasons, from the logical path
//! ([`queens_engine::puzzle::grade::logical_path`]).

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Context};
use crate::instance::Instance;
use crate::limits::check_size;
use queens_engine::puzzle::Position;
use queens_model::error::Error;
use queens_model::model::Pos;
use queens_model::status::Status;

/// One step of a logical path, as JSON reports it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StepReport {
    /// The technique.
    pub technique: String,
    /// Cells that must hold a queen.
    #[schema(value_type = Vec<Vec<usize>>)]
    pub place: Vec<Pos>,
    /// Cells that cannot hold one.
    #[schema(value_type = Vec<Vec<usize>>)]
    pub eliminate: Vec<Pos>,
    /// The lines the reasoning is about.
    pub lines: Vec<String>,
    /// One sentence for the player.
    pub reason: String,
}

/// The logical path of a puzzle (the simplest technique at every step), as reports.
pub(super) fn path_report(
    problem: &queens_model::model::Problem,
) -> (queens_engine::puzzle::grade::Path, Vec<StepReport>) {
    let path = queens_engine::puzzle::grade::logical_path(problem);
    let pos = Position::new(problem, &[]);
    let reports = path
        .steps
        .iter()
        .map(|s| StepReport {
            technique: s.technique.name().to_string(),
            place: s.place.clone(),
            eliminate: s.eliminate.clone(),
            lines: s.lines.iter().map(|&l| pos.name(l)).collect(),
            reason: s.reason.clone(),
        })
        .collect();
    (path, reports)
}

/// `grade`: how hard a puzzle is for a player who reasons, not guesses.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GradeRequest {
    /// The puzzle (its queens and marks are the starting position).
    #[schema(value_type = Object)]
    pub instance: Instance,
    /// Also list the steps.
    #[serde(default)]
    pub steps: bool,
}

/// `grade`'s answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GradeResponse {
    /// `ok`: the logical path was followed to its end (solved by logic or stuck, as
    /// `solved_by_logic` says); a grade has no other answer (out of time is an error).
    pub status: Status,
    /// `easy`, `medium`, `hard` or `expert` (docs/puzzles.md, "Grades": the definition).
    pub grade: String,
    /// True when the techniques solve the puzzle without a guess.
    pub solved_by_logic: bool,
    /// The hardest technique the path needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardest: Option<String>,
    /// Steps in the path.
    pub step_count: usize,
    /// Steps per technique, by name.
    pub techniques: std::collections::BTreeMap<String, usize>,
    /// With `steps`: the path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<StepReport>>,
    /// Board size.
    pub n: usize,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

/// Grades a puzzle by the path of [`queens_engine::puzzle::grade::logical_path`].
pub fn grade(req: &GradeRequest, _ctx: &Context) -> Result<GradeResponse, Error> {
    let start = Instant::now();
    let problem = &req.instance.0;
    check_size(problem.n())?;
    let (path, reports) = path_report(problem);
    let mut techniques = std::collections::BTreeMap::new();
    for s in &path.steps {
        *techniques
            .entry(s.technique.name().to_string())
            .or_insert(0) += 1;
    }
    Ok(GradeResponse {
        status: Status::Ok,
        grade: queens_engine::puzzle::grade::grade(&path)
            .name()
            .to_string(),
        solved_by_logic: path.solved,
        hardest: path
            .steps
            .iter()
            .map(|s| s.technique)
            .max()
            .map(|t| t.name().to_string()),
        step_count: path.steps.len(),
        techniques,
        steps: req.steps.then_some(reports),
        n: problem.n(),
        time_ms: ms(start),
    })
}

/// `grade`. Deduction looks at no deadline: under one it runs in a child (killed there, it
/// has no answer to give).
pub struct Grade;

impl crate::operation::Operation for Grade {
    const NAME: &'static str = "grade";
    type Request = GradeRequest;
    type Response = GradeResponse;

    fn run(
        req: &GradeRequest,
        ctx: &Context,
    ) -> Result<(GradeResponse, crate::context::Artifacts), Error> {
        Ok((grade(req, ctx)?, crate::context::Artifacts::default()))
    }
}

impl crate::operation::Served for Grade {
    const PATH: &'static str = "/v1/grade";
    const SUMMARY: &'static str = "A puzzle's grade and, with `steps`, its logical path.";
}

impl crate::operation::OnInstance for Grade {
    fn instance(req: &GradeRequest) -> &Instance {
        &req.instance
    }
    fn instance_mut(req: &mut GradeRequest) -> &mut Instance {
        &mut req.instance
    }
}

impl crate::operation::Isolated for Grade {
    fn uninterruptible(_req: &GradeRequest) -> bool {
        true
    }
    fn reply(stdout: &str) -> Result<GradeResponse, Error> {
        crate::operation::reply(stdout)
    }
}

impl crate::operation::Library for Grade {}
