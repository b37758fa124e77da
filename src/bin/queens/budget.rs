//! What a command may spend ([`Limits`]: a deadline from `--timeout`, a memory limit, where
//! a proof goes, what runs in a child), and running one operation's request within it.

use std::path::PathBuf;
use std::time::Instant;

use queens::ops::{Artifacts, Context, Member, Request};
use queens::Error;

use super::args::Timeout;

/// Where work that cannot be interrupted runs under a deadline.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Isolate {
    /// The whole request in a child `queens op` when it is uninterruptible (and whatever
    /// the deadline when it spawns children): what the service does.
    #[default]
    Request,
    /// The request in this process, the SAT calls it makes in children of this executable
    /// killed at the deadline (`mod2 max --method sat`, `collection solve --method sat`).
    Calls,
    /// All of it in this process: the operation looks at the deadline itself.
    Never,
}

/// What a command may spend, from `--timeout`, counted from the start of the command.
pub(crate) struct Limits {
    pub(crate) deadline: Option<Instant>,
    pub(crate) max_memory: u64,
    /// Where a proof goes (see [`queens::ops::Context::proof_file`]).
    pub(crate) proof_file: Option<PathBuf>,
    /// What runs in a child under the deadline.
    pub(crate) isolate: Isolate,
    /// Set to stop the work early (a run that keeps what it finished when interrupted).
    pub(crate) cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Limits {
    pub(crate) fn new(started: Instant, timeout: Timeout) -> Limits {
        Limits {
            deadline: timeout.timeout.and_then(|t| started.checked_add(t)),
            max_memory: timeout
                .max_memory
                .map_or_else(queens::engine::default_max_memory, |mb| {
                    mb.saturating_mul(1 << 20)
                }),
            proof_file: None,
            isolate: Isolate::default(),
            cancel: None,
        }
    }

    /// These limits, uninterruptible work run as `isolate` says.
    pub(crate) fn isolate(mut self, isolate: Isolate) -> Limits {
        self.isolate = isolate;
        self
    }

    /// These limits, a proof going straight to `path`.
    pub(crate) fn proof_to(mut self, path: Option<PathBuf>) -> Limits {
        self.proof_file = path;
        self
    }

    /// Runs the request (operation `O`'s) under these limits, reporting progress to `bar`,
    /// and returns `O`'s answer. Under a deadline, work varisat does (which cannot be
    /// interrupted) runs in a child process of this executable that is killed when the
    /// deadline passes: the whole request (`queens op`) or its SAT calls, as
    /// [`Limits::isolate`] says.
    pub(crate) fn run<O: Member>(
        &self,
        req: &Request,
        bar: Option<&indicatif::ProgressBar>,
    ) -> Result<(O::Response, Artifacts), Error> {
        self.run_with::<O>(req, bar, |_, _| None)
    }

    /// [`Limits::run`], unless `call` runs the request itself under the context (`Some`).
    #[allow(clippy::type_complexity)]
    pub(crate) fn run_with<O: Member>(
        &self,
        req: &Request,
        bar: Option<&indicatif::ProgressBar>,
        call: impl FnOnce(&O::Request, &Context) -> Option<Result<O::Response, Error>>,
    ) -> Result<(O::Response, Artifacts), Error> {
        let mut ctx = Context::default();
        ctx.budget.deadline = self.deadline;
        ctx.budget.max_memory = Some(self.max_memory);
        ctx.proof_file = self.proof_file.clone();
        // A cancel stops what looks at it and no more: work cut into parts (a count shard's
        // subproblems) then keeps the parts it finished, which a child killed would lose.
        ctx.budget.cancel = self.cancel.clone();
        let isolate = match self.isolate {
            Isolate::Request => self.deadline.is_some() && req.uninterruptible() || req.spawns(),
            Isolate::Calls => self.deadline.is_some(),
            Isolate::Never => false,
        };
        if isolate {
            ctx.isolate = Some(std::env::current_exe().map_err(|e| Error::Io {
                path: "queens".into(),
                source: e,
            })?);
        }
        if let Some(bar) = bar {
            let bar = bar.clone();
            ctx = ctx.with_progress(move |done, total| {
                bar.set_length(total);
                bar.set_position(done);
            });
        }
        if let Some(called) = O::request(req).and_then(|r| call(r, &ctx)) {
            return Ok((called?, Artifacts::default()));
        }
        let (resp, artifacts) = match self.isolate {
            Isolate::Request => req.run(&ctx)?,
            Isolate::Calls | Isolate::Never => req.run_here(&ctx)?,
        };
        let resp = O::response(resp).ok_or_else(|| {
            Error::internal(format!(
                "{} answered with another operation's answer",
                O::NAME
            ))
        })?;
        Ok((resp, artifacts))
    }
}
