//! The plan's tree as a user sees it: the [`Step`]s of a plan, what each does
//! ([`Action`]), and once run how it ended ([`Ending`]), with its JSON (`"plan"` in every
//! answer) and its text (`--plan`, `--trace`). [`crate::plan`] makes the tree and
//! [`crate::execute`] runs it; this file only holds and shows it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

use crate::answer::{Answer, ColumnAnswer};
use crate::completion::{bytes, CoreEstimate};
use crate::spec::EngineSpec;

/// What one step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Cheap, sound reasons for "no": the fixed queens' rules.
    Refute,
    /// Hall's condition on a completion's bitmaps, before any core is built: a quick look at
    /// once, the long one once the other side of its pair has had its time alone or is out.
    Hall,
    /// The fixed queens' lines taken out: the core of a completion.
    Presolve,
    /// One engine.
    Run,
    /// Its steps at once, one core each: the first verified answer wins and stops the other.
    SideBySide,
    /// One side of a pair: its first step; its second only once the other side gave up.
    ThenIfGaveUp,
    /// Its first step, then its second, which must agree.
    CrossCheck,
    /// Its step, whose "no" comes with a proof checked before it is given.
    Certify,
    /// `auto` on a classic completion: its steps in order, each only if the one before
    /// did not answer.
    Portfolio,
}

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// It gave the answer.
    Answered,
    /// It ran out of moves without an answer (local search spent its starts).
    GaveUp,
    /// The limits, or the other side's answer, stopped it.
    Stopped,
    /// It proved "no solution" before any search.
    Refuted,
    /// It never ran (an earlier step answered).
    Skipped,
    /// It ran and left the answer to a later step.
    Passed,
}

impl Ending {
    /// How a step's answer ended it.
    pub fn of(answer: &ColumnAnswer) -> Ending {
        match answer {
            Answer::Sat(_) | Answer::Unsat(_) => Ending::Answered,
            Answer::GaveUp => Ending::GaveUp,
            Answer::Interrupted => Ending::Stopped,
        }
    }
}

/// One step of a plan, and once run, how it went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Step {
    /// What it does.
    pub step: Action,
    /// The engine it runs (`run` steps).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "spec_out",
        deserialize_with = "spec_in"
    )]
    #[schema(value_type = Option<String>)]
    pub engine: Option<EngineSpec>,
    /// What it is, for people.
    pub what: String,
    /// On `run` steps of a portfolio: the step stops this many milliseconds after the
    /// portfolio began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_ms: Option<u64>,
    /// On `run` steps of engine `race`: this side runs in a child process.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub child: bool,
    /// The estimates the choice was made on (the completion portfolio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<CoreEstimate>,
    /// Once run: when it started, in milliseconds from the start of the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<f64>,
    /// Once run: when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ms: Option<f64>,
    /// Once run: how it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ending: Option<Ending>,
    /// Once run, where it says more than its ending: how, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said: Option<String>,
    /// Its own steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub steps: Vec<Step>,
}

fn spec_out<S: Serializer>(spec: &Option<EngineSpec>, s: S) -> Result<S::Ok, S::Error> {
    match spec {
        Some(spec) => s.serialize_str(&spec.to_string()),
        None => s.serialize_none(),
    }
}

fn spec_in<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EngineSpec>, D::Error> {
    let text = Option::<String>::deserialize(d)?;
    text.map(|t| t.parse::<EngineSpec>().map_err(serde::de::Error::custom))
        .transpose()
}

impl Step {
    /// A step that does `step` with `steps` under it.
    pub fn new(step: Action, what: impl Into<String>, steps: Vec<Step>) -> Step {
        Step {
            step,
            engine: None,
            what: what.into(),
            limit_ms: None,
            child: false,
            estimate: None,
            start_ms: None,
            end_ms: None,
            ending: None,
            said: None,
            steps,
        }
    }

    /// A `run` step of `engine`.
    pub fn run(engine: EngineSpec, what: impl Into<String>) -> Step {
        Step {
            engine: Some(engine),
            ..Step::new(Action::Run, what, Vec::new())
        }
    }

    /// The step's trace: started and ended (milliseconds from the plan's start) and how.
    pub fn ran(&mut self, start_ms: f64, end_ms: f64, ending: Ending) {
        self.start_ms = Some(start_ms);
        self.end_ms = Some(end_ms);
        self.ending = Some(ending);
    }

    /// Marks this step and every step under it that has no ending as skipped.
    pub fn skip_rest(&mut self) {
        if self.ending.is_none() {
            self.ending = Some(Ending::Skipped);
        }
        for s in &mut self.steps {
            s.skip_rest();
        }
    }

    /// The tree for people, one step a line, indented two spaces a level: what each does,
    /// and once run, its times and ending.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.write(0, &mut out);
        out
    }

    fn write(&self, depth: usize, out: &mut String) {
        let pad = "  ".repeat(depth);
        let name = match self.step {
            Action::Refute => "refute",
            Action::Hall => "hall",
            Action::Presolve => "presolve",
            Action::Run => "run",
            Action::SideBySide => "side by side",
            Action::ThenIfGaveUp => "then if it gave up",
            Action::CrossCheck => "cross-check",
            Action::Certify => "certify",
            Action::Portfolio => "portfolio",
        };
        let engine = self.engine.map(|e| format!(" {e}")).unwrap_or_default();
        let child = if self.child { " (child process)" } else { "" };
        out.push_str(&format!("{pad}{name}{engine}{child}: {}", self.what));
        if let Some(e) = &self.estimate {
            out.push_str(&format!(
                " [{} free rows; core {}, local search {}]",
                e.free_rows,
                bytes(e.core_memory),
                bytes(e.local_memory)
            ));
        }
        match (self.ending, self.start_ms, self.end_ms) {
            (Some(Ending::Skipped), _, _) => out.push_str(" — skipped"),
            (Some(ending), Some(a), Some(b)) => {
                let ending = serde_json::to_value(ending).expect("an ending serializes");
                let ending = ending.as_str().unwrap_or_default().replace('_', " ");
                out.push_str(&format!(" — {ending}, {a:.3}–{b:.3} ms"));
            }
            _ => {}
        }
        out.push('\n');
        for s in &self.steps {
            s.write(depth + 1, out);
        }
    }

    /// The steps under this one and itself, depth first.
    pub fn all(&self) -> Vec<&Step> {
        let mut v = vec![self];
        for s in &self.steps {
            v.extend(s.all());
        }
        v
    }
}
