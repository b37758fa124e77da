//! `queens explain`: why a completion has no solution, as a minimal set of presets.

use clap::Args;
use queens::encode::amo::Encoding;
use queens::model::{cell, Diagonal};
use queens::ops::{self, EngineName, ExplainRequest, ExplainResponse, Status};
use queens::{report, Error, Pos, Problem};
use std::io::{self, Write};

use super::question::{AnswerArgs, InstanceArgs};
use crate::args::ProofArgs;
use crate::print::{no_answer, proof, Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct ExplainArgs {
    #[command(flatten)]
    pub(crate) instance: InstanceArgs,
    /// backtrack (drop one preset at a time and search again; minimises every kind of
    /// preset) or sat (failed assumptions; fixed queens and blocked cells only).
    #[arg(long, value_enum, default_value_t = EngineName::Backtrack)]
    pub(crate) engine: EngineName,
    /// At-most-one encoding (SAT engine, and the proof's CNF): pairwise, seq,
    /// commander, product, bimander, auto.
    #[arg(long, default_value = "auto")]
    pub(crate) encoding: Encoding,
    #[command(flatten)]
    pub(crate) proof: ProofArgs,
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
}

impl Run for ExplainArgs {
    type Op = ops::Explain;

    fn common(&self) -> Common<'_> {
        Common {
            proof: Some(&self.proof),
            ..self.answer.common()
        }
    }

    fn request(&self) -> Result<ExplainRequest, Error> {
        Ok(ExplainRequest {
            instance: self.instance.load()?,
            engine: self.engine,
            encoding: self.encoding,
            proof: self.proof.format(),
            timeout_ms: None,
            solver: None,
        })
    }
}

impl Text for ops::Explain {
    fn text(
        out: &mut impl Write,
        q: &ExplainRequest,
        r: &ExplainResponse,
        s: &Style,
    ) -> io::Result<()> {
        explain(out, &q.instance.0, r, s)
    }
}

fn explain(
    out: &mut impl Write,
    problem: &Problem,
    r: &ExplainResponse,
    style: &Style,
) -> io::Result<()> {
    match (r.status, &r.queens) {
        (Status::Sat, Some(q)) => {
            write!(out, "{}", report::board(problem, q, style.color))?;
            writeln!(out, "solvable: nothing to explain (a solution is shown)")
        }
        (Status::Unsat, _) => {
            let core = r.core.as_deref().unwrap_or_default();
            let blocked = r.blocked_core.as_deref().unwrap_or_default();
            let excluded = r.excluded_core.as_deref().unwrap_or_default();
            let n = problem.n();
            let diagonals: Vec<Diagonal> = excluded
                .iter()
                .filter_map(|&(k, t)| Diagonal::from_csplib(n, k, t))
                .collect();
            // The core on its own board: the problem with only these presets.
            let shown = queens::engine::explain::with_presets(problem, core, blocked, &diagonals)
                .map_err(io::Error::other)?;
            write!(out, "{}", report::board(&shown, core, style.color))?;
            match &r.reason {
                Some(reason) => writeln!(out, "unsolvable: {reason}")?,
                None => writeln!(out, "unsolvable: these presets alone have no completion")?,
            }
            let cells = |v: &[Pos]| v.iter().map(|&p| cell(p)).collect::<Vec<_>>().join(" ");
            if !core.is_empty() {
                writeln!(out, "minimal core: fixed queens {}", cells(core))?;
            }
            if !blocked.is_empty() {
                writeln!(out, "minimal core: blocked cells {}", cells(blocked))?;
            }
            if !excluded.is_empty() {
                let pairs: Vec<String> =
                    excluded.iter().map(|(k, t)| format!("[{k},{t}]")).collect();
                let what = if r.engine.minimises_excluded_diagonals() {
                    "minimal core: excluded diagonals"
                } else {
                    "excluded diagonals (all of them: sat does not minimise these)"
                };
                writeln!(out, "{what} {}", pairs.join(" "))?;
            }
            let minimised = !core.is_empty()
                || !blocked.is_empty()
                || !excluded.is_empty() && r.engine.minimises_excluded_diagonals();
            if minimised {
                writeln!(out, "removing any one of them makes the rest completable")?;
            }
            if let Some(p) = &r.proof {
                proof(out, p, " (the board with only the core's presets)")?;
            }
            Ok(())
        }
        (status, _) => writeln!(out, "{}", no_answer(status, style.timeout)),
    }
}
