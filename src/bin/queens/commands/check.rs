//! `queens check`: the queens in a file against the rules, every conflict named.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use queens::model::cell;
use queens::ops::{self, CheckRequest, CheckResponse, Status};
use queens::{formats, report, Error, Pos, Problem};

use super::question::{common, InstanceArgs};
use crate::args::Timeout;
use crate::input::read_bytes;
use crate::print::{no_answer, Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) instance: InstanceArgs,
    #[command(flatten)]
    pub(crate) timeout: Timeout,
    /// Also list the empty cells the queens rule out.
    #[arg(long)]
    pub(crate) hints: bool,
    /// Also count the ways the board can still be completed, up to K.
    #[arg(long, value_name = "K")]
    pub(crate) completions: Option<u64>,
    /// Check this full board, one column per row (what `solve -o` writes), against FILE's
    /// rules and presets, in time linear in n.
    #[arg(long, value_name = "SOLUTION", conflicts_with_all = ["hints", "completions"])]
    pub(crate) board: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

impl Run for CheckArgs {
    type Op = ops::Check;

    fn common(&self) -> Common<'_> {
        common(self.timeout, self.json)
    }

    fn request(&self) -> Result<CheckRequest, Error> {
        Ok(CheckRequest {
            instance: self.instance.load()?,
            queens: Vec::new(),
            timeout_ms: None,
            hints: self.hints,
            completions: self.completions,
        })
    }

    /// `--board`: a full board, read and checked here in time linear in n (a board of
    /// millions of rows is no request).
    fn answered(&self) -> Result<Option<(CheckRequest, CheckResponse)>, Error> {
        let Some(board) = &self.board else {
            return Ok(None);
        };
        let instance = self.instance.load()?;
        let (origin, bytes) = read_bytes(board)?;
        let cols = formats::columns::read(&origin, &bytes)?;
        drop(bytes);
        let resp = ops::check_columns(&instance.0, &cols);
        let req = CheckRequest {
            instance,
            queens: Vec::new(),
            timeout_ms: None,
            hints: false,
            completions: None,
        };
        Ok(Some((req, resp)))
    }
}

impl Text for ops::Check {
    fn text(
        out: &mut impl Write,
        q: &CheckRequest,
        r: &CheckResponse,
        s: &Style,
    ) -> io::Result<()> {
        check(out, &q.instance.0, &q.queens, r, s)
    }
}

fn check(
    out: &mut impl Write,
    problem: &Problem,
    more: &[Pos],
    r: &CheckResponse,
    style: &Style,
) -> io::Result<()> {
    let mut queens = problem.fixed().to_vec();
    queens.extend_from_slice(more);
    // Not drawn: a board past the complete engines' size (n² characters), or a full board
    // read with --board (its queens are not the instance's).
    if !problem.is_sparse() && r.placed == queens.len() {
        write!(out, "{}", report::board(problem, &queens, style.color))?;
    }
    match r.status {
        Status::Solved => writeln!(out, "solved: all {} queens placed, no conflict", r.n),
        Status::Consistent => {
            let completable = match r.completable {
                Some(true) => "can be completed".to_string(),
                Some(false) => "cannot be completed".to_string(),
                None => format!(
                    "can it be completed? {}",
                    no_answer(Status::Timeout, style.timeout)
                ),
            };
            writeln!(
                out,
                "consistent, {} of {} placed ({completable})",
                r.placed, r.n
            )?;
            if let Some(cells) = &r.attacked {
                let list: Vec<String> = cells.iter().map(|&c| cell(c)).collect();
                writeln!(
                    out,
                    "ruled out by the queens ({}): {}",
                    cells.len(),
                    list.join(" ")
                )?;
            }
            match &r.completions {
                Some(c) if c.limited => writeln!(out, "completions: at least {}", c.count),
                Some(c) => writeln!(out, "completions: {}", c.count),
                None => Ok(()),
            }
        }
        _ => {
            writeln!(out, "invalid: {} conflict(s)", r.violations_total)?;
            for v in &r.violations {
                writeln!(out, "  {}", v.message)?;
            }
            let rest = r.violations_total.saturating_sub(r.violations.len() as u64);
            if rest > 0 {
                writeln!(out, "  … and {rest} more, not listed")?;
            }
            Ok(())
        }
    }
}
