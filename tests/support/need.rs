//! What a test needs from outside the repository (a proof checker, a SAT solver, the shared
//! corpora, Postgres, Slurm, Chromium) and what happens when it is missing. Outside CI the test
//! says why on stderr and skips; with `CI` set it fails, because `.ci/run` installs or builds
//! every one of them and a skip there would pass without checking what the README claims.
//!
//! Each skip is also counted: when a test binary that skipped anything exits (after the
//! harness's `test result` line), it prints how many checks it skipped, for want of what, the
//! command that provides them, and the total of the `cargo test` run so far, from a log under
//! `target/` that the run's test binaries share (named after the `cargo` process that runs
//! them, so two runs never add up).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// What this test binary skipped: the missing thing (or `None` for a skip of another kind)
/// and how many times.
static SKIPPED: Mutex<BTreeMap<Option<String>, usize>> = Mutex::new(BTreeMap::new());
static AT_EXIT: Once = Once::new();

/// The command that provides `what`, when one does.
fn command_for(what: &str) -> &'static str {
    match what {
        "drat-trim" | "lrat-check" | "cake_lpr" => {
            "bash tools/proof-checkers.sh ../shared/tools/proof-checkers && export \
             PATH=\"$PWD/target/proof-checkers:$PATH\""
        }
        "cadical" | "minisat" | "picosat" | "cryptominisat5" => {
            "apt-get install cadical minisat picosat cryptominisat"
        }
        _ => "what .ci/run does (README.md, Test)",
    }
}

/// Counts one skip of this binary, in the run's log too, and arranges the summary at exit.
fn record(what: Option<&str>) {
    *SKIPPED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(what.map(str::to_string))
        .or_default() += 1;
    if let Some(log) = run_log() {
        if let Some(dir) = log.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
        {
            // One write per line: the binary's test threads append at once.
            let _ = f.write_all(format!("{}\n", what.unwrap_or("-")).as_bytes());
        }
    }
    AT_EXIT.call_once(|| {
        extern "C" {
            fn atexit(f: extern "C" fn()) -> std::os::raw::c_int;
        }
        // SAFETY: atexit only stores the pointer; `summary` is a plain function that
        // touches no thread-local state, as handlers run while the process exits.
        unsafe {
            atexit(summary);
        }
    });
}

/// The log of the skips of this `cargo test` run: `target/test-skips/PID-START`, after the
/// parent process (`cargo`) and its start time, beside the test binary's folder.
fn run_log() -> Option<PathBuf> {
    let parent = std::os::unix::process::parent_id();
    let stat = std::fs::read_to_string(format!("/proc/{parent}/stat")).ok()?;
    // Field 22 (start time) counts from the one after the command's closing parenthesis.
    let start = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .to_string();
    let exe = std::env::current_exe().ok()?;
    // target/<profile>/deps/<binary>
    let target = exe.parent()?.parent()?.parent()?;
    Some(target.join("test-skips").join(format!("{parent}-{start}")))
}

/// Printed at exit by a binary that skipped: its count, what was missing, the commands that
/// provide it, and the run's total so far.
extern "C" fn summary() {
    let skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let here: usize = skipped.values().sum();
    let mut missing: Vec<&str> = skipped.keys().flatten().map(String::as_str).collect();
    missing.dedup();
    let mut commands: Vec<&str> = missing.iter().map(|w| command_for(w)).collect();
    if skipped.contains_key(&None) {
        commands.push(command_for(""));
    }
    commands.sort_unstable();
    commands.dedup();
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|s| {
            s.rsplit_once('-')
                .map_or(s.clone(), |(name, _)| name.to_string())
        })
        .unwrap_or_else(|| "this test binary".into());
    let run = run_log()
        .and_then(|log| std::fs::read_to_string(log).ok())
        .map(|t| t.lines().count());
    let mut text = format!(
        "\nskipped {here} check(s) in {binary}{}; to run them: {}\n",
        if missing.is_empty() {
            String::new()
        } else {
            format!(", for want of {}", missing.join(", "))
        },
        commands.join("; ")
    );
    if let Some(run) = run {
        text.push_str(&format!(
            "skipped {run} check(s) so far in this cargo test run (each test binary that skips \
             says so at its end)\n"
        ));
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Records that `what` is missing (`why` says how to get it): fails the test under CI,
/// prints the reason and lets the caller skip otherwise.
pub fn missing(what: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} is missing ({why}), and CI must run this test: .ci/run provides it"
    );
    say(&format!("{what} is missing ({why})"));
    record(Some(what));
}

/// Says, on the terminal whatever the test harness captures, that the running test skips a
/// part and why. The harness keeps a passing test's `eprintln!` to itself, so a skip would
/// read as one more `ok`; a write to the stderr handle is not captured, and `cargo test`
/// shows every skip in the run, by test name.
pub fn skipping(why: &str) {
    say(why);
    record(None);
}

/// One more line about a skip already counted (where it happened), not counted again.
pub fn detail(why: &str) {
    say(why);
}

/// The `skipped in TEST: WHY` line, past the harness's capture.
fn say(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    // One write per line, so lines of tests running at once do not mix.
    let line = format!("skipped in {test}: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// `name` on PATH, if it is there.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// `name` on PATH, or `None` after [`missing`].
pub fn program(name: &str) -> Option<PathBuf> {
    let found = on_path(name);
    if found.is_none() {
        missing(name, "not on PATH");
    }
    found
}

/// An outside proof checker (`drat-trim`, `lrat-check`, `cake_lpr`) on PATH, or `None` after
/// [`missing`]. `.ci/run` builds all three from their sources and puts them on PATH.
pub fn checker(name: &str) -> Option<PathBuf> {
    let found = on_path(name);
    if found.is_none() {
        missing(
            name,
            "the outside proof checker is not on PATH; .ci/run builds it from the proof-checker \
             sources beside the repository",
        );
    }
    found
}

/// A file of the shared corpora (`../shared/data/NAME` beside the repository), or `None` after
/// [`missing`].
pub fn shared_data(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(name);
    if path.is_file() {
        Some(path)
    } else {
        missing(
            &path.display().to_string(),
            "the shared corpora are not beside the repository",
        );
        None
    }
}
