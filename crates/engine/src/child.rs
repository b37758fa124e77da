//! Work in a child process that can be killed: varisat cannot be interrupted, so a deadline
//! or a cancel that must really stop the work (and free the CPU) needs a process boundary.
//!
//! Used by `compare` (one attempt per child) and by the operations layer (a request whose
//! engine cannot be interrupted, under a deadline or a cancel flag).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::error::Error;

/// Asks the kernel to kill this process when its parent dies: a worker whose parent is gone
/// (a CLI killed by Ctrl-C, a server killed by SIGKILL, a race attempt killed at its limit)
/// has nobody to answer. A no-op off Linux.
pub fn die_with_parent() {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
}

/// A fresh folder for one child's files, removed when dropped: `<prefix>-<pid>-<random>` in
/// the system's temporary folder (the pid of the process that made it, so an operator can tell
/// whose it is), only this user can enter, never one that already exists (left by a killed
/// run, or planted).
pub fn temp_dir(prefix: &str) -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix(&format!("{prefix}-{}-", std::process::id()))
        .tempdir()
        .map_err(|source| Error::Io {
            path: std::env::temp_dir(),
            source,
        })
}

/// How a child run ended.
#[derive(Debug)]
pub enum Exit {
    /// The child exited by itself.
    Finished {
        /// Its exit status.
        status: ExitStatus,
        /// Everything it wrote to stdout.
        stdout: String,
        /// Everything it wrote to stderr.
        stderr: String,
    },
    /// The deadline passed; the child was killed.
    TimedOut,
    /// `stop` said so; the child was killed.
    Stopped,
}

/// Runs `command` with `input` on its stdin until it exits, the deadline passes or `stop`
/// returns true (polled every 0.2–20 ms, so a kill follows a cancel within milliseconds).
/// Each line the child writes to stderr is also passed to `on_line` as it arrives (progress
/// reports). Err: the child could not be started or waited for ([`Error::Internal`], with the
/// I/O error as its source).
pub fn run(
    command: Command,
    input: &[u8],
    deadline: Option<Instant>,
    stop: &dyn Fn() -> bool,
    on_line: &(dyn Fn(&str) + Sync),
) -> Result<Exit, Error> {
    run_limited(command, input, deadline, stop, on_line, None)
}

/// [`run`], with the child's address space limited to `max_memory` bytes (`RLIMIT_AS`, set
/// right after the start; Linux only): a program that is not ours, such as an external SAT
/// solver, then fails to allocate instead of taking the machine's memory.
pub fn run_limited(
    mut command: Command,
    input: &[u8],
    deadline: Option<Instant>,
    stop: &dyn Fn() -> bool,
    on_line: &(dyn Fn(&str) + Sync),
    max_memory: Option<u64>,
) -> Result<Exit, Error> {
    let start = Instant::now();
    let program = command.get_program().to_string_lossy().into_owned();
    // The child dies with this process: a `queens op` worker killed at its deadline must
    // not leave an external solver running on as an orphan.
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs between fork and exec and only makes the prctl system
        // call, which is async-signal-safe; it allocates nothing and takes no lock.
        unsafe {
            command.pre_exec(|| {
                rustix::process::set_parent_process_death_signal(Some(
                    rustix::process::Signal::KILL,
                ))
                .map_err(std::io::Error::from)
            });
        }
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::internal_from(format!("cannot start {program}"), e))?;
    #[cfg(target_os = "linux")]
    if let Some(bytes) = max_memory {
        use rustix::process::{prlimit, Pid, Resource, Rlimit};
        let limit = Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        };
        if prlimit(Some(Pid::from_child(&child)), Resource::As, limit).is_err() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::internal(format!(
                "cannot limit the memory of {program}"
            )));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = max_memory;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    std::thread::scope(|s| {
        // Readers on their own threads, so a child writing a large answer never blocks on a
        // full pipe while we wait for it.
        let out_reader = s.spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        let err_reader = s.spawn(move || {
            let mut text = String::new();
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                on_line(&line);
                text.push_str(&line);
                text.push('\n');
            }
            text
        });
        if let Some(mut stdin) = child.stdin.take() {
            // A child that dies before reading reports its own error below.
            let _ = stdin.write_all(input);
        }
        let ended = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Ok(Some(status)),
                Ok(None) if deadline.is_some_and(|d| Instant::now() >= d) => break Ok(None),
                Ok(None) if stop() => break Err(Exit::Stopped),
                Ok(None) => std::thread::sleep(poll_interval(start.elapsed())),
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(Error::internal_from(
                        format!("waiting for {program} failed"),
                        e,
                    ));
                }
            }
        };
        if !matches!(ended, Ok(Some(_))) {
            let _ = child.kill();
            let _ = child.wait();
        }
        let stdout = out_reader.join().unwrap_or_default();
        let stderr = err_reader.join().unwrap_or_default();
        Ok(match ended {
            Ok(Some(status)) => Exit::Finished {
                status,
                stdout,
                stderr,
            },
            Ok(None) => Exit::TimedOut,
            Err(exit) => exit,
        })
    })
}

/// The message of a child that failed: its last line that is not a panic's `note:` or a
/// backtrace frame.
pub fn last_message(stderr: &str) -> String {
    stderr
        .lines()
        .rfind(|l| {
            !l.trim().is_empty()
                && !l.starts_with("note:")
                && !l.starts_with("stack backtrace:")
                && !l.starts_with(' ')
        })
        .unwrap_or("no message")
        .trim()
        .to_string()
}

/// Short runs are polled often (their times are what `compare` measures), long ones less.
fn poll_interval(elapsed: Duration) -> Duration {
    Duration::from_micros((elapsed.as_micros() as u64 / 100).clamp(200, 20_000))
}
