//! `queens compare`: the table on stdout as rows finish, a progress bar, CSV, plot and the
//! exit code; the work itself is [`queens::ops::compare`].

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use queens::formats::sources;
use queens::ops::compare::{self as cmp, EngineSpec};
use queens::Error;

use super::args::CompareArgs;
use super::interrupt::{self, Interrupt};
use super::output::Failure;
use super::progress;

pub fn run(out: &mut impl Write, args: CompareArgs) -> Result<u8, Failure> {
    let usage = |m: &str| Failure::Error(Error::unsupported(m.to_string()));
    if args.plot.is_some() {
        cmp::check_plot(&args.engines)?;
    }
    if args.jobs == 0 {
        return Err(usage("--jobs must be at least 1"));
    }
    if args.take == Some(0) {
        return Err(usage("--take must be at least 1"));
    }
    if args.engines.is_empty() {
        return Err(usage("--engines needs at least one engine"));
    }
    // A file or corpus line that cannot be used is an error row, not the end of the run; a
    // path that does not exist, or no instance at all, is still a usage error.
    // From here a Ctrl-C or SIGTERM stops the attempts (killing their children) and keeps
    // every finished row: the table, summary, CSV and plots are written of those.
    let interrupt = Interrupt::watch(Arc::new(AtomicBool::new(false)));
    let instances = load(&args)?;
    // Fail on an unwritable output now, not after hours of attempts (and only once the
    // arguments and inputs are known to be good, so a typo does not empty an old file).
    for path in args.csv.iter().chain(&args.plot) {
        std::fs::File::create(path).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
    }
    let exe = std::env::current_exe().map_err(|e| Error::Io {
        path: "queens".into(),
        source: e,
    })?;
    // The proofs' folder: the one asked for, or a temporary one that goes at the end.
    let mut temporary = None;
    let proof_dir = match (&args.proof_dir, args.proof) {
        (Some(dir), _) => {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io {
                path: dir.clone(),
                source: e,
            })?;
            Some(dir.clone())
        }
        (None, true) => {
            let dir = queens::child::temp_dir("queens-compare-proofs")?;
            let path = dir.path().to_path_buf();
            temporary = Some(dir);
            Some(path)
        }
        (None, false) => None,
    };
    let plan = cmp::Plan {
        exe,
        engines: args.engines.clone(),
        timeout: args.timeout,
        jobs: args.jobs,
        proof: args.proof.then_some(args.proof_format),
        proof_dir,
    };
    let width = cmp::id_width(&instances);
    let bar = progress::bar("", "attempts");
    if let Some(b) = &bar {
        let runnable = instances.iter().filter(|e| e.is_ok()).count();
        b.set_length((runnable * plan.engines.len()) as u64);
    }
    if !args.json {
        writeln!(out, "{}", cmp::table_header(&plan.engines, width))?;
    }
    let on_attempt = |inst: &sources::Instance, spec: EngineSpec| {
        if let Some(b) = &bar {
            b.set_message(format!("{} {spec}", inst.id));
            b.inc(1);
        }
    };
    // Workers hand finished rows to this thread, which owns stdout. When stdout fails (the
    // reader of `compare … | head` has gone), `stop` kills the running children and no more
    // attempts start: nobody is left to read them.
    let (tx, rx) = mpsc::channel::<String>();
    let stop = interrupt.flag();
    let (plan_ref, instances_ref, on_attempt_ref, stop_ref) =
        (&plan, &instances, &on_attempt, stop);
    let (rows, cut_short) = std::thread::scope(|s| {
        let worker = s.spawn(move || {
            let tx = Mutex::new(tx);
            let on_row = |row: &cmp::Row| {
                // The receiver lives until every row is in; a send cannot fail before that.
                let _ = tx.lock().expect("sender").send(cmp::table_line(row, width));
            };
            cmp::run(plan_ref, instances_ref, on_attempt_ref, &on_row, stop_ref)
        });
        let mut failed = None;
        loop {
            let text = match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(text) => text,
                Err(RecvTimeoutError::Disconnected) => break,
                // Between rows, which may be minutes apart: has the reader gone?
                Err(RecvTimeoutError::Timeout) => {
                    if failed.is_none() && stdout_reader_gone() {
                        stop.store(true, Ordering::Relaxed);
                        failed = Some(std::io::ErrorKind::BrokenPipe.into());
                    }
                    continue;
                }
            };
            if args.json || failed.is_some() {
                continue;
            }
            let res = match &bar {
                Some(b) => b.suspend(|| writeln!(out, "{text}").and_then(|_| out.flush())),
                None => writeln!(out, "{text}"),
            };
            if let Err(e) = res {
                stop.store(true, Ordering::Relaxed);
                failed = Some(e);
            }
        }
        let rows = worker.join().expect("the comparison thread does not panic");
        (rows, failed)
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // Cut short, stdout takes nothing more, but the rows finished by then still go to the
    // CSV and plot, and their disagreements and failures are still reported.
    if cut_short.is_none() {
        let summary = cmp::summarize(&plan.engines, &rows);
        if args.json {
            let mut v = cmp::to_json(&plan, &rows, &summary);
            if args.growth || args.growth_plot.is_some() {
                let (points, fits) = cmp::growth(&plan.engines, &rows);
                v["growth"] = serde_json::json!({"sizes": points, "fits": fits});
            }
            writeln!(out, "{v}")?;
        } else {
            writeln!(out)?;
            write!(out, "{}", cmp::summary_text(&plan, &summary))?;
        }
        out.flush()?;
    }
    // After the results are shown, so a file that cannot be written loses nothing on screen.
    if let Some(path) = &args.csv {
        std::fs::write(path, cmp::plan_csv(&plan, &rows)).map_err(|e| Error::Io {
            path: path.clone(),
            source: e,
        })?;
    }
    if let Some(path) = &args.plot {
        cmp::plot(path, &plan, &rows)?;
    }
    if args.growth || args.growth_plot.is_some() {
        let (points, fits) = cmp::growth(&plan.engines, &rows);
        if cut_short.is_none() && !args.json {
            writeln!(out)?;
            write!(out, "{}", cmp::growth_text(&plan.engines, &points, &fits))?;
        }
        if let Some(path) = &args.growth_plot {
            cmp::growth_plot(path, &plan.engines, &points, plan.timeout)?;
        }
    }
    drop(temporary);
    let problems = cmp::problems(&rows);
    for p in &problems {
        eprintln!("queens: {p}");
    }
    if let Some(signal) = interrupt.signal() {
        let total = instances.len();
        eprintln!(
            "queens: interrupted by {signal}: {} of {total} instances finished, and the table, \
             summary{} hold those; the attempts running were stopped",
            rows.len(),
            written(&args)
        );
        return Ok(interrupt::EXIT);
    }
    match cut_short {
        _ if !problems.is_empty() => Ok(3),
        // A reader that left is no error (exit 0); a stdout that failed otherwise is.
        Some(e) => Err(e.into()),
        None => Ok(0),
    }
}

/// The files the run wrote, as a list to quote (`, CSV g.csv and plot g.svg`).
fn written(args: &CompareArgs) -> String {
    let files: Vec<String> = [
        args.csv.as_ref().map(|p| format!("CSV {}", p.display())),
        args.plot.as_ref().map(|p| format!("plot {}", p.display())),
        args.growth_plot
            .as_ref()
            .map(|p| format!("growth plot {}", p.display())),
    ]
    .into_iter()
    .flatten()
    .collect();
    match files.split_last() {
        None => String::new(),
        Some((last, [])) => format!(" and {last}"),
        Some((last, rest)) => format!(", {} and {last}", rest.join(", ")),
    }
}

/// The instances: as selected, or with --first-ratio / --per-n, each board size loaded on
/// its own (its own prefix of diagonals, at most K instances), sizes in increasing order.
fn load(args: &CompareArgs) -> Result<Vec<sources::Entry>, Error> {
    let selection = args.selection.get(args.take);
    if args.first_ratio.is_none() && args.per_n.is_none() {
        return sources::load_all(&args.inputs, &selection);
    }
    if let Some(r) = args.first_ratio {
        if !(r > 0.0 && r.is_finite()) {
            return Err(Error::unsupported(
                "--first-ratio must be a positive number".into(),
            ));
        }
    }
    let all = sources::load_all(
        &args.inputs,
        &sources::Selection {
            first: None,
            take: None,
            ..selection.clone()
        },
    )?;
    let mut sizes: Vec<usize> = all
        .iter()
        .filter_map(|e| e.as_ref().ok().map(|i| i.problem.n()))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut out = Vec::new();
    for n in sizes {
        let mut filters = selection.filters.clone();
        filters.push(("n".into(), n.to_string()));
        let one = sources::Selection {
            filters,
            first: args
                .first_ratio
                .map(|r| (r * n as f64).round() as usize)
                .or(selection.first),
            take: args.per_n,
        };
        out.extend(sources::load_all(&args.inputs, &one)?);
    }
    if let Some(k) = args.take {
        out.truncate(k);
    }
    Ok(out)
}

/// True when stdout is a pipe whose read end has closed (`queens compare … | head` after
/// `head` exits). Writing would fail with EPIPE; polling tells without writing.
#[cfg(unix)]
fn stdout_reader_gone() -> bool {
    use rustix::event::{poll, PollFd, PollFlags};
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    // A zero timeout: just look. POLLERR is reported for a pipe with no readers left.
    let zero = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&zero)).is_ok_and(|k| k > 0)
        && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

#[cfg(not(unix))]
fn stdout_reader_gone() -> bool {
    false
}
