//! `queens hint`'s answer as text: the next logical step for a region puzzle position (the
//! command is made from the operation's declaration, `crate::derived`).

use queens::model::cell;
use queens::ops::{self, HintRequest, HintResponse, Status};
use queens::Pos;
use std::io::{self, Write};

use crate::print::{Style, Text};

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
