//! Answers as text for people: how text is shown, the trait each command implements for its
//! operation's answer (in the command's file), and the lines several answers share.

use std::io::{self, Write};
use std::time::Duration;

use queens::ops::{EngineName, Member, ProofInfo, Status};

/// How text is shown.
pub struct Style {
    /// Colour region boards (stdout is a terminal and `NO_COLOR` is unset).
    pub color: bool,
    /// The command's `--timeout`, named when an answer ran out of time.
    pub timeout: Option<Duration>,
}

/// An operation whose answer the command line shows as text for people (the others print
/// their own output, or their JSON).
pub trait Text: Member {
    /// Writes `resp`, the answer to `req`, as text.
    fn text(
        out: &mut impl Write,
        req: &Self::Request,
        resp: &Self::Response,
        style: &Style,
    ) -> io::Result<()>;
}

/// The line for an answer that ran out of time (or was cancelled):
/// `timeout: no answer within 2 s`.
pub fn no_answer(status: Status, timeout: Option<Duration>) -> String {
    match (status, timeout) {
        (Status::Cancelled, _) => "cancelled: no answer".to_string(),
        (Status::Unknown, _) => "unknown: the solver gave up without an answer".to_string(),
        (_, Some(t)) => format!("timeout: no answer within {} s", t.as_secs_f64()),
        (_, None) => "timeout: no answer within the time limit".to_string(),
    }
}

/// True when the budget cut the answer short (`timeout` or `cancelled`).
pub fn interrupted(status: Status) -> bool {
    matches!(status, Status::Timeout | Status::Cancelled)
}

/// The line saying the other engine agreed, when `--cross-check` ran it.
pub fn cross_checked(out: &mut impl Write, other: Option<EngineName>) -> io::Result<()> {
    match other {
        Some(e) => writeln!(out, "cross-checked: the {} engine agrees", e.name()),
        None => Ok(()),
    }
}

/// The line that names a checked proof and the CNF it refutes, `what` said after the CNF.
pub fn proof(out: &mut impl Write, p: &ProofInfo, what: &str) -> io::Result<()> {
    let plural = if p.lemmas == 1 { "" } else { "s" };
    writeln!(
        out,
        "proof: {} ({}, {} lemma{plural}, checked by {} in {} ms) refutes {}{what}",
        p.path.as_deref().unwrap_or("(not written)"),
        p.format,
        p.lemmas,
        p.checker
            .as_deref()
            .map_or("the built-in checker".to_string(), |c| c.to_string()),
        p.check_ms,
        p.cnf.as_deref().unwrap_or("(not written)")
    )
}

/// Generated instances as a file: one in the writer's readable layout, or (`json_lines`)
/// one object per line.
pub fn instances(instances: &[serde_json::Value], json_lines: bool) -> String {
    let mut text = String::new();
    for value in instances {
        let one = queens::formats::json::write_value(value);
        if json_lines {
            // One object per line: the readable layout, joined.
            let line: Vec<&str> = one.lines().map(str::trim).collect();
            text += &line.join(" ");
            text.push('\n');
        } else {
            text += &one;
        }
    }
    text
}
