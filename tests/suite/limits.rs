//! The real binary under an address-space limit (`ulimit -v`, as a pod's memory limit
//! behaves): every input that allocates by its size is answered or refused with an
//! estimate, never aborted by a failed allocation.

use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};

/// Runs `queens ARGS` with `RLIMIT_AS` set to `bytes` in the child before it starts.
fn queens_under(bytes: u64, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_queens"));
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches nothing of the parent's.
    unsafe {
        command.pre_exec(move || {
            let limit = rustix::process::Rlimit {
                current: Some(bytes),
                maximum: Some(bytes),
            };
            rustix::process::setrlimit(rustix::process::Resource::As, limit)
                .map_err(std::io::Error::from)
        });
    }
    command.output().unwrap()
}

/// The inputs that allocate by their size: a SAT encoding past the limit (issue: `solve --n
/// 3000 --engine sat` aborted after 8.6 s under 4 GB), its DIMACS text, a proof's CNF on the
/// largest board, the backtracker's thread stacks on the largest board, and the card game's
/// table. Each with the exit codes it may end with.
const REPRODUCERS: &[(&[&str], &[i32])] = &[
    (&["solve", "--n", "3000", "--engine", "sat"], &[0, 2]),
    (
        &["count", "--n", "3000", "--engine", "sat", "--limit", "1"],
        &[2, 4],
    ),
    (&["encode", "--n", "3000", "-o", "/dev/null"], &[0, 2]),
    (
        &["solve", "--n", "4096", "--engine", "sat", "--proof", "lrat"],
        &[0, 2],
    ),
    (&["count", "--n", "4096", "--limit", "1"], &[4]),
    (&["solve", "--n", "4096"], &[0]),
];

/// The default memory limit of a child under an address-space limit of `bytes`: half the
/// smallest of that, the machine's memory and this cgroup's limit.
fn default_limit_under(bytes: u64) -> u64 {
    queens::limits::memory_ceiling().map_or(bytes, |(b, _)| b.min(bytes)) / 2
}

#[test]
fn no_input_aborts_under_an_address_space_limit_from_1_gb_up() {
    for gb in [1.0, 1.5, 4.0] {
        let bytes = (gb * (1u64 << 30) as f64) as u64;
        for (args, codes) in REPRODUCERS {
            let t = std::time::Instant::now();
            let o = queens_under(bytes, args);
            let err = String::from_utf8_lossy(&o.stderr);
            let code = o.status.code();
            assert!(
                code.is_some_and(|c| codes.contains(&c)),
                "{args:?} under {gb} GB: {:?} after {:.1} s\n{err}",
                o.status,
                t.elapsed().as_secs_f64()
            );
            assert!(!err.contains("memory allocation"), "{args:?}: {err}");
            if code == Some(2) {
                // Refused with the estimate and the limit it is over.
                let mb = default_limit_under(bytes) >> 20;
                assert!(
                    err.contains(&format!("memory limit of {mb} MB")),
                    "{args:?} under {gb} GB: {err}"
                );
            }
        }
    }
}

#[test]
fn the_card_games_table_is_refused_under_an_address_space_limit() {
    let deal = queens_under(1 << 30, &["collection", "deal", "--seed", "1", "--json"]);
    assert_eq!(deal.status.code(), Some(0));
    let dir = std::env::temp_dir().join(format!("queens-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("deal.json");
    std::fs::write(&path, &deal.stdout).unwrap();
    let o = queens_under(
        1 << 30,
        &[
            "collection",
            "solve",
            path.to_str().unwrap(),
            "--max-entries",
            "20000000",
            "--timeout",
            "2",
        ],
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let mb = default_limit_under(1 << 30) / 1_000_000;
    assert!(
        err.contains(&format!("over the memory limit of {mb} MB")),
        "{err}"
    );
}
