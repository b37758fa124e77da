//! What a test needs from outside the repository (a proof checker, a SAT solver, the shared
//! corpora, Postgres, Slurm, Chromium) and what happens when it is missing. Outside CI the test
//! says why on stderr and skips; with `CI` set it fails, because `.ci/run` installs or builds
//! every one of them and a skip there would pass without checking what the README claims.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Records that `what` is missing (`why` says how to get it): fails the test under CI,
/// prints the reason and lets the caller skip otherwise.
pub fn missing(what: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} is missing ({why}), and CI must run this test: .ci/run provides it"
    );
    skipping(&format!("{what} is missing ({why})"));
}

/// Says, on the terminal whatever the test harness captures, that the running test skips a
/// part and why. The harness keeps a passing test's `eprintln!` to itself, so a skip would
/// read as one more `ok`; a write to the stderr handle is not captured, and `cargo test`
/// shows every skip in the run, by test name.
pub fn skipping(why: &str) {
    use std::io::Write;
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
