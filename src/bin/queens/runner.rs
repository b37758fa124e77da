//! One way to run an operation from the command line, the same for every command that asks
//! one question: its arguments make the request, which runs under the command's limits (a
//! progress bar on a terminal); the answer is printed as text or as its JSON (byte for byte
//! what the service sends), and the exit code is the operation's ([`Operation::exit_code`]).

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use queens::ops::{Artifacts, Context, Declared, Member, Operation, Request, Status};
use queens::Error;

use super::args::{ProofArgs, SolverArgs, Timeout};
use super::budget::{Isolate, Limits};
use super::interrupt::{self, Interrupt};
use super::output::{to_json, Failure};
use super::print::{no_answer, Style, Text};
use super::progress;

/// What every question's arguments say besides the request: the limits, the output, the
/// external solvers and where a proof goes.
#[derive(Default)]
pub(crate) struct Common<'a> {
    /// `--timeout` and `--max-memory`.
    pub(crate) timeout: Timeout,
    /// `--json`: the answer's JSON instead of text.
    pub(crate) json: bool,
    /// `--solver`: made the process's solver table before the run.
    pub(crate) solvers: Option<&'a SolverArgs>,
    /// `--proof`: the proof (written as the search runs where it can) and its CNF.
    pub(crate) proof: Option<&'a ProofArgs>,
}

/// A command's arguments that ask operation [`Run::Op`] one question.
pub(crate) trait Run {
    /// The operation asked.
    type Op: Member;
    /// The progress bar's message and units, for an operation that reports progress.
    const PROGRESS: Option<(&'static str, &'static str)> = None;

    /// The limits, output, solvers and proof the arguments ask for.
    fn common(&self) -> Common<'_>;

    /// The request the arguments make.
    fn request(&self) -> Result<<Self::Op as Operation>::Request, Error>;

    /// Where uninterruptible work runs under `--timeout`: by default as the service runs it.
    fn isolate(&self) -> Isolate {
        Isolate::Request
    }

    /// The bar (or spinner) on stderr while the operation runs: [`Run::PROGRESS`]'s unless
    /// the arguments name what is done (`collection simulate`'s policy and difficulty).
    fn progress(&self) -> Option<indicatif::ProgressBar> {
        Self::PROGRESS.and_then(|(what, units)| progress::bar(what, units))
    }

    /// Runs the request under `ctx` in this process, for a command that calls the operation
    /// its own way (`mod2 solve` prints a sweep's levels as they finish); `None`: the
    /// limits run it.
    #[allow(clippy::type_complexity)]
    fn call(
        &self,
        _req: &<Self::Op as Operation>::Request,
        _ctx: &Context,
    ) -> Option<Result<<Self::Op as Operation>::Response, Error>> {
        None
    }

    /// The answer, when the arguments ask for one the command finds without running the
    /// operation (`check --board` reads a file too large for a request).
    #[allow(clippy::type_complexity)]
    fn answered(
        &self,
    ) -> Result<
        Option<(
            <Self::Op as Operation>::Request,
            <Self::Op as Operation>::Response,
        )>,
        Error,
    > {
        Ok(None)
    }

    /// For a run that keeps what it finished when interrupted (a count shard): what the
    /// interruption leaves, said on stderr after the answer so far is printed or written;
    /// `None` (the default): a stop signal ends the command at once.
    fn on_interrupt(&self) -> Option<String> {
        None
    }

    /// Writes the files the arguments ask for (the answer names them); `Some(code)` when the
    /// answer itself went to a file and nothing is printed.
    fn finish(
        &self,
        _resp: &mut <Self::Op as Operation>::Response,
        _artifacts: &Artifacts,
    ) -> Result<Option<u8>, Failure> {
        Ok(None)
    }
}

/// Runs `args`'s question (the command started at `started`), prints the answer to `out`
/// and returns its exit code.
pub(crate) fn run<R: Run>(out: &mut impl Write, args: &R, started: Instant) -> Result<u8, Failure>
where
    R::Op: Text,
{
    run_showing(out, args, started, &|mut out, req, resp, style| {
        R::Op::text(&mut out, req, resp, style)
    })
}

/// The answer's text: operation `O`'s answer to a request, written for people.
pub(crate) type Shows<'a, O> = dyn Fn(
        &mut dyn Write,
        &<O as Operation>::Request,
        &<O as Operation>::Response,
        &Style,
    ) -> io::Result<()>
    + 'a;

/// [`run`], the answer shown as text by `show`.
pub(crate) fn run_showing<R: Run>(
    out: &mut impl Write,
    args: &R,
    started: Instant,
    show: &Shows<'_, R::Op>,
) -> Result<u8, Failure> {
    let common = args.common();
    if let Some(solvers) = common.solvers {
        solvers.configure()?;
    }
    let style = Style {
        color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        timeout: common.timeout.timeout,
    };
    if let Some((req, resp)) = args.answered()? {
        return answer::<R::Op>(out, &R::Op::wrap(req), resp, common.json, &style, show);
    }
    let req = R::Op::wrap(args.request()?);
    let interrupt = args
        .on_interrupt()
        .map(|left| (left, Interrupt::watch(Arc::new(AtomicBool::new(false)))));
    let bar = args.progress();
    let mut limits = Limits::new(started, common.timeout)
        .proof_to(common.proof.and_then(|p| p.proof.clone()))
        .isolate(args.isolate());
    limits.cancel = interrupt.as_ref().map(|(_, i)| Arc::clone(i.flag()));
    let ran = limits.run_with::<R::Op>(&req, bar.as_ref(), |req, ctx| args.call(req, ctx));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let (mut resp, artifacts) = match ran {
        Ok(ran) => ran,
        // An operation with no answer of its own for a budget that ran out (`grade`) fails
        // when its child is killed at the deadline: that is no answer within the limits, as
        // the service also reads it.
        Err(Error::TooLarge { .. } | Error::Internal { .. })
            if limits.deadline.is_some_and(|d| Instant::now() >= d) =>
        {
            eprintln!(
                "queens: {}",
                no_answer(Status::Timeout, common.timeout.timeout)
            );
            return Ok(Status::Timeout.exit_code());
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(proof) = common.proof {
        proof.write(R::Op::proof_mut(&mut resp), &artifacts)?;
    }
    let code = match args.finish(&mut resp, &artifacts)? {
        Some(code) => code,
        None => answer::<R::Op>(out, &req, resp, common.json, &style, show)?,
    };
    if let Some((left, signal)) = interrupt.and_then(|(left, i)| Some((left, i.signal()?))) {
        out.flush()?;
        eprintln!("queens: interrupted by {signal}: {left}");
        return Ok(interrupt::EXIT);
    }
    Ok(code)
}

/// Prints the answer of operation `O` to `req`, as the operation's JSON or as text, and
/// returns its exit code.
fn answer<O: Member>(
    out: &mut impl Write,
    req: &Request,
    resp: O::Response,
    json: bool,
    style: &Style,
    show: &Shows<'_, O>,
) -> Result<u8, Failure> {
    let code = O::exit_code(&resp);
    if json {
        writeln!(out, "{}", to_json(&resp)?)?;
    } else {
        let req = O::request(req).ok_or_else(|| {
            Error::internal(format!("{} was asked another operation's request", O::NAME))
        })?;
        show(out, req, &resp, style)?;
    }
    Ok(code)
}
