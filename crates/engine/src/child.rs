//! Work in a child process that can be killed: varisat cannot be interrupted, so a deadline
//! or a cancel that must really stop the work (and free the CPU) needs a process boundary.
//!
//! Used by `compare` (one attempt per child), by the operations layer (a request whose
//! engine cannot be interrupted, under a deadline or a cancel flag) and by external solvers.
//!
//! Every child starts its own process group, and is killed as a group: a solver run through
//! a wrapper (a shell script, `timeout`, a container or module loader) goes with everything
//! the wrapper started, at the deadline, on cancel, when it exits (what it left behind) and
//! when this process is told to stop ([`stop_children_on_signals`]) or its parent dies
//! ([`die_with_parent`]). The child's pipes are read with `poll`, never waited on past the
//! deadline: a process that left the group and still holds them is let go.

use std::io::{Read, Write};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};

use queens_model::error::Error;

/// Ends this process with its parent, its children first: the kernel sends SIGTERM when the
/// parent dies (prctl `PR_SET_PDEATHSIG`), and the handler [`stop_children_on_signals`]
/// installs kills every child's group before this process ends. A worker whose parent is
/// gone (a CLI killed by Ctrl-C, a server killed by SIGKILL, a race attempt killed at its
/// limit) has nobody to answer, and the solvers it started would run on as orphans. The
/// signal is only sent off Linux.
pub fn die_with_parent() {
    stop_children_on_signals();
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_parent_process_death_signal(Some(Signal::TERM));
}

/// How many children's groups [`kill_all`] can know of at once: a server's workers and
/// their solvers stay far below. A child past it is still killed at its deadline and on
/// cancel, only not by a signal to this process.
const SLOTS: usize = 4096;

/// The process group of every child running now, for [`kill_all`]: the group's id, negative
/// for a `queens` worker (asked with SIGTERM, so that it kills its own children's groups
/// first), 0 for a free slot. Atomics, because a signal handler reads them.
static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// A child's entry in [`GROUPS`], freed when dropped: before the child is reaped, so that a
/// group id is never signalled after the kernel may have given it to another process.
struct Tracked(Option<usize>);

impl Tracked {
    fn new(group: Pid, worker: bool) -> Tracked {
        let id = group.as_raw_pid();
        let value = if worker { -id } else { id };
        Tracked(GROUPS.iter().position(|slot| {
            slot.compare_exchange(0, value, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        }))
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            GROUPS[i].store(0, Ordering::SeqCst);
        }
    }
}

/// Kills the process group of every child running now: SIGTERM to a `queens` worker, which
/// then kills its own children's groups and ends, SIGKILL to every other program. Only
/// atomic loads and kill(2), so a signal handler may call it.
pub fn kill_all() {
    for slot in &GROUPS {
        let value = slot.load(Ordering::SeqCst);
        let signal = if value < 0 {
            Signal::TERM
        } else {
            Signal::KILL
        };
        if let Some(group) = Pid::from_raw(value.saturating_abs()) {
            let _ = kill_process_group(group, signal);
        }
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP kill every child's group ([`kill_all`]) before they end
/// this process as they would have (the exit status still names the signal). Children run
/// in their own process groups, so a Ctrl-C at the terminal reaches only this process: it
/// passes the stop on. A signal this process ignores (`nohup`) stays ignored. The CLI calls
/// this at its start; the service stops its children through its own shutdown instead.
pub fn stop_children_on_signals() {
    on_signals(on_stop_signal);
}

/// For a run that keeps what it finished (`compare`, `batch`, a count shard): the first
/// SIGINT, SIGTERM or SIGHUP is only recorded, for the run to see ([`interrupted`]) and stop
/// its work (its cancel flag kills its children), write what finished and exit 130; a second
/// one ends this process at once, children first, as [`stop_children_on_signals`] does.
pub fn finish_on_signals() {
    on_signals(on_finish_signal);
}

/// The first stop signal [`finish_on_signals`] recorded, by name (`SIGINT`), if any came.
pub fn interrupted() -> Option<&'static str> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        libc::SIGINT => Some("SIGINT"),
        libc::SIGTERM => Some("SIGTERM"),
        libc::SIGHUP => Some("SIGHUP"),
        _ => Some("a signal"),
    }
}

/// The signal [`finish_on_signals`] recorded; 0 while none came.
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

fn on_signals(handler: extern "C" fn(libc::c_int)) {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: sigaction with a zeroed (empty-mask) action whose handler only calls
        // async-signal-safe functions (kill, signal, raise) and reads atomics.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

extern "C" fn on_finish_signal(signal: libc::c_int) {
    if INTERRUPTED
        .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        on_stop_signal(signal);
    }
}

extern "C" fn on_stop_signal(signal: libc::c_int) {
    kill_all();
    // SAFETY: both are async-signal-safe. The signal is blocked while this handler runs, so
    // the raised one is delivered, with its default action, as the handler returns.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
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

/// Runs a `queens` worker (this program's `queens op`) with `input` on its stdin until it
/// exits, the deadline passes or `stop` returns true (polled every 0.2–20 ms, so a kill
/// follows a cancel within milliseconds). Each line the child writes to stderr is also passed
/// to `on_line` as it arrives (progress reports). A worker to stop gets SIGTERM first, so it
/// kills the groups of the solvers it started, then its group gets SIGKILL. Err: the child
/// could not be started or waited for ([`Error::Internal`], with the I/O error as its source).
pub fn run(
    command: Command,
    input: &[u8],
    deadline: Option<Instant>,
    stop: &dyn Fn() -> bool,
    on_line: &(dyn Fn(&str) + Sync),
) -> Result<Exit, Error> {
    run_child(command, input, deadline, stop, on_line, None, true)
}

/// [`run`] for a program that is not ours, such as an external SAT solver: its group gets
/// SIGKILL at once, and its address space is limited to `max_memory` bytes (`RLIMIT_AS`, set
/// right after the start; Linux only), so it fails to allocate instead of taking the
/// machine's memory.
pub fn run_limited(
    command: Command,
    input: &[u8],
    deadline: Option<Instant>,
    stop: &dyn Fn() -> bool,
    on_line: &(dyn Fn(&str) + Sync),
    max_memory: Option<u64>,
) -> Result<Exit, Error> {
    run_child(command, input, deadline, stop, on_line, max_memory, false)
}

/// How long a worker asked to stop has to kill its own children and end.
const WORKER_GRACE: Duration = Duration::from_millis(500);

/// How long the pipes are read after the child's group is gone: only a process that left
/// the group can still hold them, and it is not waited for.
const DRAIN: Duration = Duration::from_millis(200);

fn run_child(
    mut command: Command,
    input: &[u8],
    deadline: Option<Instant>,
    stop: &dyn Fn() -> bool,
    on_line: &(dyn Fn(&str) + Sync),
    max_memory: Option<u64>,
    worker: bool,
) -> Result<Exit, Error> {
    let start = Instant::now();
    let program = command.get_program().to_string_lossy().into_owned();
    {
        use std::os::unix::process::CommandExt;
        // A group of its own (its id is the child's pid): a kill of the group reaches
        // everything the child starts, and a Ctrl-C at the terminal reaches only us.
        command.process_group(0);
        // The child dies with this process even when nothing here can run (SIGKILL).
        #[cfg(target_os = "linux")]
        // SAFETY: the closure runs between fork and exec and only makes the prctl system
        // call, which is async-signal-safe; it allocates nothing and takes no lock.
        unsafe {
            command.pre_exec(|| {
                rustix::process::set_parent_process_death_signal(Some(Signal::KILL))
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
    let group = Pid::from_child(&child);
    let tracked = Tracked::new(group, worker);
    let end = |child: &mut Child, tracked: Tracked| {
        let _ = kill_process_group(group, Signal::KILL);
        drop(tracked);
        child.wait()
    };
    #[cfg(target_os = "linux")]
    if let Some(bytes) = max_memory {
        use rustix::process::{prlimit, Resource, Rlimit};
        let limit = Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        };
        if prlimit(Some(group), Resource::As, limit).is_err() {
            let _ = end(&mut child, tracked);
            return Err(Error::internal(format!(
                "cannot limit the memory of {program}"
            )));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = max_memory;
    let mut pipes = match Pipes::new(&mut child, input) {
        Ok(p) => p,
        Err(e) => {
            let _ = end(&mut child, tracked);
            return Err(Error::internal_from(
                format!("cannot read the output of {program}"),
                e,
            ));
        }
    };
    let ended = loop {
        match exited(group) {
            Ok(true) => break None,
            Ok(false) => {}
            Err(e) => {
                let _ = end(&mut child, tracked);
                return Err(Error::internal_from(
                    format!("waiting for {program} failed"),
                    e,
                ));
            }
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            break Some(Exit::TimedOut);
        }
        if stop() {
            break Some(Exit::Stopped);
        }
        let mut wait = poll_interval(start.elapsed());
        if let Some(d) = deadline {
            wait = wait.min(d.saturating_duration_since(now));
        }
        pipes.pump(wait, on_line);
    };
    if ended.is_some() && worker {
        let _ = kill_process_group(group, Signal::TERM);
        let until = Instant::now() + WORKER_GRACE;
        while Instant::now() < until && !exited(group).unwrap_or(true) {
            pipes.pump(Duration::from_millis(2), on_line);
        }
    }
    // Whatever is left of the group goes too: after a deadline the whole group, after an
    // exit what the child left running (a wrapper's solver, a background process).
    let _ = kill_process_group(group, Signal::KILL);
    let until = Instant::now() + DRAIN;
    while pipes.open() {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        pipes.pump(left, on_line);
    }
    let (stdout, stderr) = pipes.finish(on_line);
    drop(tracked);
    let status = child
        .wait()
        .map_err(|e| Error::internal_from(format!("waiting for {program} failed"), e))?;
    Ok(ended.unwrap_or(Exit::Finished {
        status,
        stdout,
        stderr,
    }))
}

/// True once the child has ended, without reaping it: its pid, the group's id, stays its
/// own until [`Child::wait`].
fn exited(child: Pid) -> std::io::Result<bool> {
    use rustix::process::{waitid, WaitId, WaitIdOptions};
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    Ok(waitid(WaitId::Pid(child), options)?.is_some())
}

/// Most bytes read from one pipe in one [`Pipes::pump`], so a child that writes without end
/// cannot keep the loop from its deadline.
const READ_CAP: usize = 1 << 20;

/// A child's stdin, stdout and stderr, moved without blocking: its input is written as it
/// takes it, its output read as it comes, each only as far as the pipe allows.
struct Pipes<'a> {
    input: &'a [u8],
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    out: Vec<u8>,
    err: Vec<u8>,
    /// Where the next stderr line starts in `err`.
    line_start: usize,
}

impl<'a> Pipes<'a> {
    fn new(child: &mut Child, input: &'a [u8]) -> std::io::Result<Pipes<'a>> {
        let stdin = child.stdin.take().filter(|_| !input.is_empty());
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        if let Some(p) = &stdin {
            rustix::io::ioctl_fionbio(p, true)?;
        }
        if let Some(p) = &stdout {
            rustix::io::ioctl_fionbio(p, true)?;
        }
        if let Some(p) = &stderr {
            rustix::io::ioctl_fionbio(p, true)?;
        }
        Ok(Pipes {
            input,
            stdin,
            stdout,
            stderr,
            out: Vec::new(),
            err: Vec::new(),
            line_start: 0,
        })
    }

    /// True while the child's stdout or stderr may still bring something.
    fn open(&self) -> bool {
        self.stdout.is_some() || self.stderr.is_some()
    }

    /// Waits up to `wait` for a pipe to be ready, then moves what it can; complete stderr
    /// lines go to `on_line`.
    fn pump(&mut self, wait: Duration, on_line: &(dyn Fn(&str) + Sync)) {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        let done = PollFlags::HUP | PollFlags::ERR;
        let (mut write, mut read_out, mut read_err) = (false, false, false);
        {
            let mut fds = Vec::with_capacity(3);
            if let Some(p) = &self.stdin {
                fds.push(PollFd::new(p, PollFlags::OUT));
            }
            if let Some(p) = &self.stdout {
                fds.push(PollFd::new(p, PollFlags::IN));
            }
            if let Some(p) = &self.stderr {
                fds.push(PollFd::new(p, PollFlags::IN));
            }
            if fds.is_empty() {
                std::thread::sleep(wait);
                return;
            }
            let timeout = Timespec {
                tv_sec: wait.as_secs() as _,
                tv_nsec: wait.subsec_nanos() as _,
            };
            if poll(&mut fds, Some(&timeout)).is_err() {
                // EINTR: the caller's loop comes back.
                return;
            }
            let mut ready = fds.iter().map(|f| {
                f.revents()
                    .intersects(PollFlags::IN | PollFlags::OUT | done)
            });
            if self.stdin.is_some() {
                write = ready.next().unwrap_or(false);
            }
            if self.stdout.is_some() {
                read_out = ready.next().unwrap_or(false);
            }
            if self.stderr.is_some() {
                read_err = ready.next().unwrap_or(false);
            }
        }
        if write {
            if let Some(p) = &mut self.stdin {
                match p.write(self.input) {
                    Ok(k) => self.input = &self.input[k..],
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    // A child that stopped reading reports its own error, or its answer.
                    Err(_) => self.input = &[],
                }
            }
            if self.input.is_empty() {
                // Closing stdin is the end of the input.
                self.stdin = None;
            }
        }
        if read_out && !read_available(self.stdout.as_mut(), &mut self.out) {
            self.stdout = None;
        }
        if read_err {
            if !read_available(self.stderr.as_mut(), &mut self.err) {
                self.stderr = None;
            }
            while let Some(k) = self.err[self.line_start..].iter().position(|&b| b == b'\n') {
                let line = &self.err[self.line_start..self.line_start + k];
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                on_line(&String::from_utf8_lossy(line));
                self.line_start += k + 1;
            }
        }
    }

    /// What the child wrote to stdout and to stderr; a last stderr line without its line
    /// break goes to `on_line` too.
    fn finish(self, on_line: &(dyn Fn(&str) + Sync)) -> (String, String) {
        if self.line_start < self.err.len() {
            on_line(&String::from_utf8_lossy(&self.err[self.line_start..]));
        }
        (
            String::from_utf8_lossy(&self.out).into_owned(),
            String::from_utf8_lossy(&self.err).into_owned(),
        )
    }
}

/// Reads what `pipe` holds now into `buf`, up to [`READ_CAP`]: false once it has ended.
fn read_available(pipe: Option<&mut impl Read>, buf: &mut Vec<u8>) -> bool {
    let Some(pipe) = pipe else {
        return false;
    };
    let mut chunk = [0u8; 1 << 16];
    let mut read = 0;
    while read < READ_CAP {
        match pipe.read(&mut chunk) {
            Ok(0) => return false,
            Ok(k) => {
                buf.extend_from_slice(&chunk[..k]);
                read += k;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return true,
            Err(_) => return false,
        }
    }
    true
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
