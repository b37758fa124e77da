//! The Slurm recipes on a real scheduler: a one-node Slurm brought up on this machine by
//! `deploy/slurm/one-node.sh` (munged, slurmctld and slurmd as root, everything in a
//! temporary folder), the count and batch arrays submitted as a user would, each chained to
//! `merge.sbatch` with `--dependency=afterok`, and the merged answers checked against A000170
//! and a local run. Skipped, saying why, where Slurm cannot start (not root, not installed);
//! `.ci/run` installs slurm-wlm and munge, so CI runs it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::temp;

/// Stops the daemons however the test ends.
struct Cluster {
    script: PathBuf,
    /// The daemons' state and logs; `None` once dropped.
    dir: Option<temp::Dir>,
    conf: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let dir = self.dir.take().expect("dropped once");
        let _ = Command::new("bash")
            .arg(&self.script)
            .arg("down")
            .arg(&dir)
            .status();
        // After a failure the folder stays: the daemons' logs in it say what went wrong.
        if std::thread::panicking() {
            eprintln!(
                "the cluster's folder, with its logs: {}",
                dir.keep().display()
            );
        }
    }
}

impl Cluster {
    fn slurm(&self, tool: &str, args: &[&str]) -> String {
        let o = Command::new(tool)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .env(
                "PATH",
                format!("{}:/usr/sbin", std::env::var("PATH").unwrap()),
            )
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{tool} {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    }

    /// Submits a recipe with extra sbatch options; returns the job id.
    fn sbatch(&self, options: &[&str], recipe: &str) -> String {
        let mut args = vec!["--parsable"];
        args.extend_from_slice(options);
        args.push(recipe);
        self.slurm("sbatch", &args)
    }

    /// The job's state once it has ended (COMPLETED, FAILED, …), waiting up to `limit`.
    fn wait(&self, job: &str, limit: Duration) -> String {
        let until = Instant::now() + limit;
        loop {
            let info = self.slurm("scontrol", &["-o", "show", "job", job]);
            let state = info
                .split_whitespace()
                .find_map(|f| f.strip_prefix("JobState="))
                .unwrap_or("")
                .to_string();
            if !matches!(
                state.as_str(),
                "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING"
            ) {
                return state;
            }
            assert!(
                Instant::now() < until,
                "job {job} still {state} after {limit:?}: {info}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("0.0.0.0:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn count_and_batch_recipes_run_on_a_one_node_slurm() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_queens");
    let script = repo.join("deploy/slurm/one-node.sh");
    let work = temp::dir("slurm");
    let dir = work.to_path_buf();
    let (ctld, slurmd) = (free_port(), free_port());
    let up = Command::new("bash")
        .arg(&script)
        .arg("up")
        .arg(&dir)
        .env("SLURMCTLD_PORT", ctld.to_string())
        .env("SLURMD_PORT", slurmd.to_string())
        .output()
        .unwrap();
    let conf = dir.join("slurm.conf");
    let cluster = Cluster {
        script,
        dir: Some(work),
        conf,
    };
    match up.status.code() {
        Some(0) => {}
        Some(77) => {
            crate::need::missing(
                "a one-node Slurm",
                String::from_utf8_lossy(&up.stderr).trim_end(),
            );
            return;
        }
        _ => panic!(
            "one-node.sh up failed: {}",
            String::from_utf8_lossy(&up.stderr)
        ),
    }

    // Both chains at once, as a user would submit them (4 array tasks instead of the
    // recipes' 64 and 8, to stay within seconds on 2 cores).
    let d = dir.display();
    let count_out = format!("{d}/count");
    let batch_out = format!("{d}/batch");
    let corpus = repo.join("tests/data/corpus.jsonl");
    let logs = format!("--output={d}/%x-%A_%a.log");
    let count = cluster.sbatch(
        &[
            "--array=0-3",
            &logs,
            &format!("--export=ALL,N=9,OUT={count_out},QUEENS={bin}"),
        ],
        "deploy/slurm/count.sbatch",
    );
    let merge_logs = format!("--output={d}/%x-%j.log");
    let count_merge = cluster.sbatch(
        &[
            &format!("--dependency=afterok:{count}"),
            &merge_logs,
            &format!("--export=ALL,N=9,OUT={count_out},QUEENS={bin}"),
        ],
        "deploy/slurm/merge.sbatch",
    );
    let batch = cluster.sbatch(
        &[
            "--array=0-3",
            &logs,
            &format!(
                "--export=ALL,CORPUS={},SELECT=,OUT={batch_out},QUEENS={bin}",
                corpus.display()
            ),
        ],
        "deploy/slurm/batch.sbatch",
    );
    let batch_merge = cluster.sbatch(
        &[
            &format!("--dependency=afterok:{batch}"),
            &merge_logs,
            &format!("--export=ALL,KIND=batch,OUT={batch_out},QUEENS={bin}"),
        ],
        "deploy/slurm/merge.sbatch",
    );

    let limit = Duration::from_secs(90);
    assert_eq!(cluster.wait(&count_merge, limit), "COMPLETED");
    assert_eq!(cluster.wait(&batch_merge, limit), "COMPLETED");
    let read = |p: String| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));

    // A000170(9) = 352, from the four shards' files.
    let merged = read(format!("{d}/queens-merge-{count_merge}.log"));
    assert!(merged.contains("count: 352"), "{merged}");
    assert!(merged.contains("4 shards"), "{merged}");

    // Every merged batch line says what a local run of the whole corpus says.
    let local = dir.join("local.jsonl");
    let o = Command::new(bin)
        .arg("batch")
        .arg(&corpus)
        .args(["--shard", "0/1", "-o"])
        .arg(&local)
        .output()
        .unwrap();
    super::cli::exited(&o, 0);
    let answers = |text: &str| -> Vec<(String, String, String)> {
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v.get("status").is_some())
            .map(|v| {
                (
                    v["id"].to_string(),
                    v["status"].to_string(),
                    v["queens"].to_string(),
                )
            })
            .collect()
    };
    let on_slurm = answers(&read(format!("{batch_out}/merged.jsonl")));
    let here = answers(&read(local.display().to_string()));
    assert_eq!(on_slurm.len(), 3, "{on_slurm:?}");
    assert_eq!(on_slurm, here);
}

/// `deploy/slurm/threshold.sbatch`: a round of n = 10 walked as a 3-task array, merged,
/// checked as a 2-task array and accepted from the parts, each step chained to the last with
/// `--dependency=afterok`, as its header shows.
#[test]
fn the_threshold_recipe_runs_on_a_one_node_slurm() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_queens");
    let script = repo.join("deploy/slurm/one-node.sh");
    let work = temp::dir("slurm-threshold");
    let dir = work.to_path_buf();
    let (ctld, slurmd) = (free_port(), free_port());
    let up = Command::new("bash")
        .arg(&script)
        .arg("up")
        .arg(&dir)
        .env("SLURMCTLD_PORT", ctld.to_string())
        .env("SLURMD_PORT", slurmd.to_string())
        .output()
        .unwrap();
    let conf = dir.join("slurm.conf");
    let cluster = Cluster {
        script,
        dir: Some(work),
        conf,
    };
    match up.status.code() {
        Some(0) => {}
        Some(77) => {
            crate::need::missing(
                "a one-node Slurm",
                String::from_utf8_lossy(&up.stderr).trim_end(),
            );
            return;
        }
        _ => panic!(
            "one-node.sh up failed: {}",
            String::from_utf8_lossy(&up.stderr)
        ),
    }
    let d = dir.display();
    let out = format!("{d}/t10");
    let env =
        |step: &str| format!("--export=ALL,N=10,K=2,OUT={out},QUEENS={bin},STEP={step},PARTS=2");
    let logs = format!("--output={d}/%x-%A_%a.log");
    let recipe = "deploy/slurm/threshold.sbatch";
    let walk = cluster.sbatch(&["--array=0-2", &logs, &env("walk")], recipe);
    let merge = cluster.sbatch(
        &[
            &format!("--dependency=afterok:{walk}"),
            &logs,
            &env("merge"),
        ],
        recipe,
    );
    let check = cluster.sbatch(
        &[
            &format!("--dependency=afterok:{merge}"),
            "--array=0-1",
            &logs,
            &env("check"),
        ],
        recipe,
    );
    let accept = cluster.sbatch(
        &[
            &format!("--dependency=afterok:{check}"),
            &logs,
            &env("accept"),
        ],
        recipe,
    );
    assert_eq!(cluster.wait(&accept, Duration::from_secs(120)), "COMPLETED");
    let log = std::fs::read_to_string(format!("{d}/queens-threshold-{accept}_4294967294.log"))
        .or_else(|_| {
            // A job that is no array names its log with the array index unset.
            let prefix = format!("queens-threshold-{accept}_");
            std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(Result::ok)
                .find(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| std::fs::read_to_string(e.path()).unwrap())
                .ok_or(())
        })
        .unwrap_or_else(|_| panic!("no log of the accept step in {d}"));
    assert!(log.contains("accepted: a(10) ≥ 2"), "{log}");
    assert!(dir.join("t10/merged/cover.bin").exists());
}
