//! The child's side of [`crate::isolate`] (`queens op`): reads a request on stdin, runs it
//! here, and prints its [`crate::reply`]; a proof streams into the folder named by
//! `--artifacts`.

use std::io::{Read, Write};
use std::path::Path;

use crate::context::{Artifacts, Context};
use crate::reply::{ErrorBody, Reply};
use crate::Request;
use queens_model::error::Error;

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
    queens_engine::child::die_with_parent();
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
