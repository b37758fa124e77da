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
//! The parent verifies every board the child reports before passing it on.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{ms, Artifacts, Context, Request, Response, Status};
use crate::child::{self, Exit};
use crate::engine::checked;
use crate::error::Error;

/// An error crossing the process boundary.
#[derive(Serialize, Deserialize)]
struct ErrorBody {
    kind: String,
    origin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    message: String,
}

impl From<&Error> for ErrorBody {
    fn from(e: &Error) -> ErrorBody {
        let (kind, origin, line, message) = match e {
            Error::Input {
                origin,
                line,
                message,
                ..
            } => ("input", Some(origin.clone()), *line, message.clone()),
            Error::Model { message, .. } => ("model", None, None, message.clone()),
            Error::Unsupported { message, .. } => ("unsupported", None, None, message.clone()),
            Error::TooLarge { message, .. } => ("too_large", None, None, message.clone()),
            other => ("internal", None, None, other.to_string()),
        };
        ErrorBody {
            kind: kind.into(),
            origin,
            line,
            field: e.field(),
            message,
        }
    }
}

impl From<ErrorBody> for Error {
    fn from(b: ErrorBody) -> Error {
        let ErrorBody {
            kind,
            origin,
            line,
            field,
            message,
        } = b;
        match kind.as_str() {
            "input" => Error::Input {
                origin: origin.unwrap_or_default(),
                line,
                field,
                message,
            },
            "model" => Error::Model { field, message },
            "unsupported" => Error::Unsupported { field, message },
            "too_large" => Error::TooLarge { field, message },
            _ => Error::internal(message),
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Reply<T> {
    Ok(T),
    Error(ErrorBody),
}

/// The child's side (`queens op [--artifacts DIR]`): reads a request from stdin, runs it
/// here, prints the reply. Returns the process exit code (0 whenever a reply was printed).
pub fn child_main(
    artifacts_dir: Option<&Path>,
    max_memory: Option<u64>,
    timeout_ms: Option<u64>,
) -> u8 {
    child_main_of(
        std::env::current_exe().ok(),
        artifacts_dir,
        max_memory,
        timeout_ms,
    )
}

/// [`child_main`] in a worker whose process is not the `queens` executable (the Python
/// package's `queens-worker`, a script run by the interpreter): `exe` is the worker that a
/// race inside this one runs its SAT side in.
pub fn child_main_of(
    exe: Option<std::path::PathBuf>,
    artifacts_dir: Option<&Path>,
    max_memory: Option<u64>,
    timeout_ms: Option<u64>,
) -> u8 {
    crate::child::die_with_parent();
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("queens op: cannot read the request: {e}");
        return 2;
    }
    let reply = match serde_json::from_str::<Request>(&input) {
        Err(e) => Reply::Error(ErrorBody::from(&Error::internal_from(
            "the worker could not read its request",
            e,
        ))),
        Ok(req) => {
            let mut ctx = Context::default().with_progress(|done, total| {
                eprintln!("progress {done} {total}");
            });
            ctx.budget.max_memory = max_memory;
            // A race here runs its SAT side in a grandchild.
            ctx.isolate = exe;
            // A proof streams to its file as it is written, not through memory.
            ctx.proof_file = artifacts_dir.map(|d| d.join("proof"));
            // The parent's deadline, so work that can look at it (listing SAT models, between
            // generated instances) stops by itself and answers with what it has; the parent
            // kills the child only a little later.
            ctx = ctx.with_timeout_ms(timeout_ms);
            match req.run_here(&ctx) {
                Ok((resp, artifacts)) => match write_artifacts(artifacts_dir, &artifacts) {
                    Ok(()) => Reply::Ok(resp),
                    Err(e) => Reply::Error(ErrorBody::from(&e)),
                },
                Err(e) => Reply::Error(ErrorBody::from(&e)),
            }
        }
    };
    let text = serde_json::to_string(&reply).unwrap_or_else(|e| {
        format!(r#"{{"error":{{"kind":"internal","origin":null,"message":"reply: {e}"}}}}"#)
    });
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{text}").and_then(|_| out.flush()).is_err() {
        return 2;
    }
    0
}

fn write_artifacts(dir: Option<&Path>, artifacts: &Artifacts) -> Result<(), Error> {
    let Some(dir) = dir else {
        return Ok(());
    };
    for (name, bytes) in &artifacts.0 {
        let path = dir.join(name);
        // Written there already, as the proof was made.
        if name == "proof" && bytes.is_empty() && path.exists() {
            continue;
        }
        std::fs::write(&path, bytes).map_err(|e| Error::Io { path, source: e })?;
    }
    Ok(())
}

/// How long after the deadline a child that has not answered is killed: time for one that
/// noticed the deadline itself to send what it found.
const KILL_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// The parent's side: runs `req` in a child of `exe`, killed at the context's deadline or
/// when its cancel flag is set (then the answer is `timeout` / `cancelled`).
pub fn run(exe: &Path, req: &Request, ctx: &Context) -> Result<(Response, Artifacts), Error> {
    let start = Instant::now();
    let ctx = &ctx.with_timeout_ms(req.timeout_ms());
    if ctx.budget.exhausted() {
        return interrupted(req, Status::interrupted(&ctx.budget), start);
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
    command.args(crate::engine::ext::table().child_args());
    if let Some(bytes) = ctx.budget.max_memory {
        command.arg("--max-memory").arg(bytes.to_string());
    }
    if let Some(d) = ctx.budget.deadline {
        let left = d.saturating_duration_since(Instant::now()).as_millis();
        command.arg("--timeout-ms").arg(left.to_string());
    }
    let input =
        serde_json::to_vec(req).map_err(|e| Error::internal_from("cannot write the request", e))?;
    let progress = ctx.budget.progress.clone();
    let on_line = move |line: &str| {
        let mut words = line.split_whitespace();
        if let (Some("progress"), Some(d), Some(t)) = (words.next(), words.next(), words.next()) {
            if let (Some(p), Ok(d), Ok(t)) = (&progress, d.parse(), t.parse()) {
                p(d, t);
            }
        }
    };
    let grace = if req.answers_at_deadline() {
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
        Exit::TimedOut => return interrupted(req, Status::Timeout, start),
        Exit::Stopped => return interrupted(req, Status::Cancelled, start),
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
    let problem = req.problem();
    let response = req.reply(&stdout)?;
    // The parent trusts no board it has not checked itself.
    if let Some(problem) = problem {
        for q in response.boards() {
            checked(problem, q, "worker's")?;
        }
    }
    let mut response = response;
    let mut artifacts = Artifacts::default();
    // Only a certified UNSAT answer (a solve's, or an explanation's core) comes with files.
    let certified = response.certified();
    let info = response.proof_mut();
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

pub(crate) fn reply<T: serde::de::DeserializeOwned>(
    stdout: &str,
) -> Result<Result<T, Error>, serde_json::Error> {
    Ok(match serde_json::from_str::<Reply<T>>(stdout.trim())? {
        Reply::Ok(v) => Ok(v),
        Reply::Error(b) => Err(b.into()),
    })
}

/// The answer of a request whose child was killed: no answer, in the operation's shape.
fn interrupted(
    req: &Request,
    status: Status,
    start: Instant,
) -> Result<(Response, Artifacts), Error> {
    match req.stopped(status, ms(start)) {
        Some(response) => Ok((response, Artifacts::default())),
        None => Err(Error::too_large(format!(
            "{} did not finish within the time limit ({status:?})",
            req.op()
        ))),
    }
}
