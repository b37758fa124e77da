//! `queens hint`: the next logical step for a region puzzle position.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use queens::model::cell;
use queens::ops::{self, HintRequest, HintResponse, Status};
use queens::{Error, Pos};

use crate::args::{SelectionArgs, Timeout};
use crate::input::load_one;
use crate::print::{Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct HintArgs {
    /// Instance file (text grid or JSON), or - for stdin.
    pub(crate) file: PathBuf,
    #[command(flatten)]
    pub(crate) selection: SelectionArgs,
    #[command(flatten)]
    pub(crate) timeout: Timeout,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

impl Run for HintArgs {
    type Op = ops::Hint;

    fn common(&self) -> Common<'_> {
        Common {
            timeout: self.timeout,
            json: self.json,
            ..Common::default()
        }
    }

    fn request(&self) -> Result<HintRequest, Error> {
        Ok(HintRequest {
            instance: load_one(&self.file, &self.selection)?,
        })
    }
}

impl Text for ops::Hint {
    fn text(out: &mut impl Write, _: &HintRequest, r: &HintResponse, _: &Style) -> io::Result<()> {
        hint(out, r)
    }
}

fn hint(out: &mut impl Write, r: &HintResponse) -> io::Result<()> {
    let cells = |v: &[Pos]| v.iter().map(|&p| cell(p)).collect::<Vec<_>>().join(" ");
    match (r.status, &r.technique) {
        (Status::Sat, Some(t)) => {
            writeln!(out, "hint ({t}): {}", r.reason.as_deref().unwrap_or(""))?;
            if !r.place.is_empty() {
                writeln!(out, "place: {}", cells(&r.place))?;
            }
            if !r.eliminate.is_empty() {
                writeln!(out, "eliminate: {}", cells(&r.eliminate))?;
            }
            Ok(())
        }
        (Status::Solved, _) => writeln!(out, "solved: nothing left to deduce"),
        (status, _) => writeln!(
            out,
            "{}: {}",
            match status {
                Status::Unsat => "no solution",
                Status::Unknown => "no hint",
                _ => "no answer",
            },
            r.reason.as_deref().unwrap_or("")
        ),
    }
}
