//! `queens hint`: the next logical step for a region puzzle position.

use clap::Args;
use queens::model::cell;
use queens::ops::{self, HintRequest, HintResponse, Status};
use queens::{Error, Pos};
use std::io::{self, Write};

use super::question::{AnswerArgs, InstanceArgs};
use crate::print::{Style, Text};
use crate::runner::{Common, Run};

#[derive(Args)]
pub(crate) struct HintArgs {
    #[command(flatten)]
    pub(crate) instance: InstanceArgs,
    #[command(flatten)]
    pub(crate) answer: AnswerArgs,
}

impl Run for HintArgs {
    type Op = ops::Hint;

    fn common(&self) -> Common<'_> {
        self.answer.common()
    }

    fn request(&self) -> Result<HintRequest, Error> {
        Ok(HintRequest {
            instance: self.instance.load()?,
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
