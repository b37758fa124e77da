//! The real binary under an address-space limit (`ulimit -v`, as a pod's memory limit
//! behaves): every input that allocates by its size is answered or refused with an
//! estimate, never aborted by a failed allocation.

use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};

use crate::serve::Serve;
use crate::temp;

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
    queens::machine::memory_ceiling().map_or(bytes, |(b, _)| b.min(bytes)) / 2
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
    let dir = temp::dir("limits");
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
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let mb = default_limit_under(1 << 30) / 1_000_000;
    assert!(
        err.contains(&format!("over the memory limit of {mb} MB")),
        "{err}"
    );
}

/// A cgroup (v1) made for a test, with a memory limit and a CPU quota; removed when dropped
/// (once the processes in it have ended).
struct TestCgroup {
    dirs: Vec<std::path::PathBuf>,
}

impl Drop for TestCgroup {
    fn drop(&mut self) {
        for dir in &self.dirs {
            for _ in 0..50 {
                if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }
}

/// Makes `memory` and `cpu` cgroups (v1) under this process's own, limited to `bytes` and
/// one CPU; `Err` says why it cannot be done here (cgroup v2 only, not root, read-only).
fn v1_cgroup(bytes: u64) -> Result<TestCgroup, String> {
    let own = std::fs::read_to_string("/proc/self/cgroup").map_err(|e| e.to_string())?;
    let path_of = |controller: &str| {
        own.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
            ctrls
                .split(',')
                .any(|c| c == controller)
                .then(|| (ctrls.to_string(), path.trim_start_matches('/').to_string()))
        })
    };
    let name = format!("queens-test-{}", std::process::id());
    let mut group = TestCgroup { dirs: Vec::new() };
    for (controller, settings) in [
        ("memory", vec![("memory.limit_in_bytes", bytes.to_string())]),
        (
            "cpu",
            vec![
                ("cpu.cfs_period_us", "100000".to_string()),
                ("cpu.cfs_quota_us", "100000".to_string()),
            ],
        ),
    ] {
        let (mount, path) =
            path_of(controller).ok_or(format!("no cgroup v1 `{controller}` hierarchy"))?;
        let dir = std::path::Path::new("/sys/fs/cgroup")
            .join(&mount)
            .join(path)
            .join(&name);
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        group.dirs.push(dir.clone());
        for (file, value) in settings {
            std::fs::write(dir.join(file), value)
                .map_err(|e| format!("{}: {e}", dir.join(file).display()))?;
        }
    }
    Ok(group)
}

#[test]
fn a_cgroups_memory_limit_and_cpu_quota_size_the_service() {
    let limit = 1u64 << 30;
    let group = match v1_cgroup(limit) {
        Ok(g) => g,
        Err(why) => {
            crate::need::skipping(&format!("cannot make a cgroup here ({why})"));
            return;
        }
    };
    let mut script = String::new();
    for dir in &group.dirs {
        script += &format!("echo $$ > '{}/cgroup.procs' && ", dir.display());
    }
    script += "exec \"$0\" \"$@\"";
    // Declared after the group, so dropped (killed) before the group is removed.
    let server = Serve::new().via(&["sh", "-c", &script]).start();
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent();
    let health: serde_json::Value = agent
        .get(server.url("/healthz"))
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    assert_eq!(
        health["workers"], 1,
        "one CPU's quota, one worker: {health}"
    );
    let mut resp = agent
        .post(server.url("/v1/solve"))
        .header("content-type", "application/json")
        .send(r#"{"instance": {"n": 1000}, "engine": "sat"}"#.as_bytes())
        .unwrap();
    assert_eq!(resp.status().as_u16(), 422);
    let body = resp.body_mut().read_to_string().unwrap();
    let mb = default_limit_under(limit) >> 20;
    assert!(body.contains(&format!("memory limit of {mb} MB")), "{body}");
}
