//! Requests on engines that cannot be interrupted run in a child process, `queens op`,
//! which is killed at the deadline or on cancel; the worker that waited is free again within
//! milliseconds.
//!
//! Protocol: the request as JSON on the child's stdin; on stdout one JSON object,
//! `{"ok": <response>}` or `{"error": {"kind", "origin", "line", "field", "message"}}` (the
//! field, when the error is about one, as data: the parent's error names it as the child's
//! did); on stderr, lines
//! `progress DONE TOTAL`; artifacts (proofs) as files in the folder named by `--artifacts`.
//! A proof streams into that folder as it is written (the child's [`Context::proof_file`]);
//! when the parent wants it in a file too, the folder is made beside that file and the proof
//! is renamed there, so no process holds it in memory.
//! It is the only child protocol: `compare`'s attempts, the race's SAT side and the games'
//! SAT calls (`solve_cnf`) all run this way.
//! The parent verifies every board the child reports before passing it on. This is the
//! parent's side; the child's is [`crate::worker`], the reply [`crate::reply`].

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde::Serialize;

use crate::context::{ms, Artifacts, Context};
use crate::operation::Declared;
use queens_engine::checked;
use queens_engine::child::{self, Exit};
use queens_model::error::Error;
use queens_model::status::Status;

/// A request as a child reads it: tagged with its operation's name, as in a job body.
#[derive(Serialize)]
struct Tagged<'a, T> {
    op: &'static str,
    #[serde(flatten)]
    request: &'a T,
}

/// How long after the deadline a child that has not answered is killed: time for one that
/// noticed the deadline itself to send what it found.
const KILL_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// The parent's side: runs `req` in a child of `exe`, killed at the context's deadline or
/// when its cancel flag is set (then the answer is `timeout` / `cancelled`).
pub fn run<O: Declared>(
    exe: &Path,
    req: &O::Request,
    ctx: &Context,
) -> Result<(O::Response, Artifacts), Error> {
    let start = Instant::now();
    let ctx = &ctx.with_timeout_ms(O::timeout_ms(req));
    if ctx.budget.exhausted() {
        return interrupted::<O>(req, Status::interrupted(&ctx.budget), start);
    }
    // Beside the proof's destination, so that the proof streamed there is renamed into
    // place, not copied.
    let dir = match ctx.proof_file.as_deref().and_then(Path::parent) {
        Some(parent) => tempfile::Builder::new()
            .prefix(".queens-op-")
            .tempdir_in(if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            })
            .map_err(|source| Error::Io {
                path: parent.to_path_buf(),
                source,
            })?,
        None => child::temp_dir("queens-op")?,
    };
    let mut command = Command::new(exe);
    command.arg("op").arg("--artifacts").arg(dir.path());
    // The child may run exactly the external solvers this process may.
    command.args(queens_engine::ext::table().child_args());
    if let Some(bytes) = ctx.budget.max_memory {
        command.arg("--max-memory").arg(bytes.to_string());
    }
    if let Some(d) = ctx.budget.deadline {
        let left = d.saturating_duration_since(Instant::now()).as_millis();
        command.arg("--timeout-ms").arg(left.to_string());
    }
    let input = serde_json::to_vec(&Tagged {
        op: O::NAME,
        request: req,
    })
    .map_err(|e| Error::internal_from("cannot write the request", e))?;
    let progress = ctx.budget.progress.clone();
    let on_line = move |line: &str| {
        let mut words = line.split_whitespace();
        if let (Some("progress"), Some(d), Some(t)) = (words.next(), words.next(), words.next()) {
            if let (Some(p), Ok(d), Ok(t)) = (&progress, d.parse(), t.parse()) {
                p(d, t);
            }
        }
    };
    let grace = if O::ANSWERS_AT_DEADLINE {
        KILL_GRACE
    } else {
        std::time::Duration::ZERO
    };
    let exit = child::run(
        command,
        &input,
        ctx.budget.deadline.and_then(|d| d.checked_add(grace)),
        &|| ctx.budget.cancelled(),
        &on_line,
    )?;
    let stdout = match exit {
        Exit::TimedOut => return interrupted::<O>(req, Status::Timeout, start),
        Exit::Stopped => return interrupted::<O>(req, Status::Cancelled, start),
        Exit::Finished {
            status,
            stdout,
            stderr,
        } => {
            if !status.success() {
                return Err(Error::internal(format!(
                    "the worker process exited with {status}: {}",
                    child::last_message(&stderr)
                )));
            }
            stdout
        }
    };
    let problem = O::problem(req);
    let response = O::reply(&stdout)?;
    // The parent trusts no board it has not checked itself.
    if let Some(problem) = problem {
        for q in O::boards(&response) {
            checked(problem, q, "worker's")?;
        }
    }
    let mut response = response;
    let mut artifacts = Artifacts::default();
    // Only a certified UNSAT answer (a solve's, or an explanation's core) comes with files.
    let certified = O::certified(&response);
    let info = O::proof_mut(&mut response);
    // The child's folder goes away: the answer names where the proof is now, if anywhere.
    if let Some(info) = info {
        info.path = None;
        let streamed = dir.path().join("proof");
        if let (Some(to), true) = (&ctx.proof_file, streamed.exists()) {
            std::fs::rename(&streamed, to).map_err(|source| Error::Io {
                path: to.clone(),
                source,
            })?;
            info.path = Some(to.display().to_string());
        }
    }
    for name in ["proof", "cnf"].into_iter().filter(|_| certified) {
        let path = dir.path().join(name);
        if let Ok(bytes) = std::fs::read(&path) {
            artifacts.0.push((name.to_string(), bytes));
        }
    }
    Ok((response, artifacts))
}

/// The answer of a request whose child was killed: no answer, in the operation's shape.
fn interrupted<O: Declared>(
    req: &O::Request,
    status: Status,
    start: Instant,
) -> Result<(O::Response, Artifacts), Error> {
    match O::stopped(req, status, ms(start)) {
        Some(response) => Ok((response, Artifacts::default())),
        // No partial answer to give: the instance asks for more work than the time limit
        // allows (a job, or the command line without `--timeout`, has the time).
        None => Err(Error::too_large(format!(
            "{} did not finish within the time limit ({}): this instance needs more time; \
             submit it as a job or give a longer limit",
            O::NAME,
            match status {
                Status::Cancelled => "cancelled",
                _ => "timeout",
            }
        ))
        .about("instance")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An operation with no answer of its own for a deadline (a grade) is a 422 about the
    /// instance, which asks for more time than the limit gives.
    #[test]
    fn no_answer_by_the_deadline_names_the_instance() {
        let req = crate::grade::GradeRequest {
            instance: serde_json::from_value(serde_json::json!({"n": 5})).unwrap(),
            steps: false,
        };
        for status in [Status::Timeout, Status::Cancelled] {
            let e = interrupted::<crate::grade::Grade>(&req, status, Instant::now()).unwrap_err();
            assert_eq!(e.field().as_deref(), Some("instance"), "{e}");
            assert_eq!(e.http_status(), 422, "{e}");
            assert!(e.to_string().contains("grade did not finish"), "{e}");
        }
    }
}
