//! Finding the processes a test left behind: a hanging wrapper script whose own child, a
//! `sleep` with a duration no other process uses, is the marker to look for in `/proc`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// A solver wrapper in `dir` that never answers: a shell script whose child (not an `exec`)
/// sleeps for 30 s, so killing the script alone leaves the sleeper holding its pipes.
/// Returns the script's path and the sleeper's marker argument.
pub fn hanging_wrapper(dir: &Path) -> (PathBuf, String) {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let marker = format!(
        "30.{}{:04}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    );
    let path = dir.join(format!("hang-{marker}.sh"));
    std::fs::write(&path, format!("#!/bin/sh\nsleep {marker}\necho done\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (path, marker)
}

/// The pids of the processes with `marker` as an argument.
pub fn with_marker(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == marker.as_bytes()))
        })
        .collect()
}

/// Waits until a process with `marker` runs (the wrapper has started its child), up to
/// `within`; false if none came.
pub fn wait_for(marker: &str, within: Duration) -> bool {
    let end = Instant::now() + within;
    while Instant::now() < end {
        if !with_marker(marker).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The processes with `marker` still running a moment after the run that started them
/// ended (a killed process may take a few milliseconds to go); they are killed here, so a
/// failing test leaves nothing behind either.
pub fn survivors(marker: &str) -> Vec<u32> {
    let end = Instant::now() + Duration::from_millis(500);
    let mut left = with_marker(marker);
    while !left.is_empty() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
        left = with_marker(marker);
    }
    for pid in &left {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    left
}
