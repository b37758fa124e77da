//! Shards and merges: count shards add up to the count on every family, and the
//! CLI's batch/count shards run by several local processes (standing in for a Slurm array or
//! a Kubernetes Indexed Job) merge to what one run gives.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use proptest::prelude::*;
use queens::engine::{Budget, EngineSpec};
use queens::ops::shard::{self, Shard};

use super::cli::{json, queens, stdout, succeeded};
use super::gen;
use crate::temp;

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_queens"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs the commands as concurrent processes, as a scheduler would, and returns their exit
/// codes.
fn run_all(commands: &[Vec<String>]) -> Vec<Option<i32>> {
    let children: Vec<Child> = commands
        .iter()
        .map(|c| spawn(&c.iter().map(String::as_str).collect::<Vec<_>>()))
        .collect();
    children
        .into_iter()
        .map(|c| {
            let o = c.wait_with_output().unwrap();
            assert!(
                o.stderr.is_empty(),
                "{}",
                String::from_utf8_lossy(&o.stderr)
            );
            o.status.code()
        })
        .collect()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// Every family (fixed queens, blocked cells, regions, both diagonal rules): the shards'
    /// counts add up to the brute-force count, whatever the number of shards.
    #[test]
    fn count_shards_add_up_to_brute_force(p in gen::problem(7)) {
        let expected = gen::brute_force(&p).len() as u64;
        for of in [1, 2, 3, 7] {
            let mut total = 0;
            let mut tasks = 0;
            let mut all_tasks = None;
            for i in 0..of {
                let c = shard::count(
                    &p,
                    Shard::new(i, of).unwrap(),
                    EngineSpec::Backtrack { threads: 1 },
                    &Budget::default(),
                )
                .unwrap();
                prop_assert!(!c.interrupted);
                total += c.count;
                tasks += c.tasks;
                // Every shard names the same whole; the empty classic board is cut by the
                // constellation counter's tasks, anything else by the row split.
                prop_assert_eq!(*all_tasks.get_or_insert(c.all_tasks), c.all_tasks);
                if !p.is_empty_classic() || p.n() < 5 {
                    prop_assert_eq!(c.all_tasks, shard::split(&p).parts.len() as u64);
                }
            }
            prop_assert_eq!(total, expected, "{} shards", of);
            prop_assert_eq!(Some(tasks), all_tasks);
        }
    }

    /// Each solution extends exactly one subproblem of the split.
    #[test]
    fn every_solution_extends_exactly_one_subproblem(p in gen::problem_with_diagonals(7)) {
        let split = shard::split(&p);
        for q in gen::brute_force(&p) {
            let owners = split
                .parts
                .iter()
                .filter(|part| part.iter().all(|cell| q.contains(cell)))
                .count();
            prop_assert_eq!(owners, 1, "{:?} in {:?}", q, split.parts);
        }
    }
}

#[test]
fn sat_engine_shards_add_up_too() {
    let p = queens::formats::read_path(Path::new(&super::cli::instance("nauck-1850.txt"))).unwrap();
    let total: u64 = (0..3)
        .map(|i| {
            shard::count(
                &p,
                Shard::new(i, 3).unwrap(),
                EngineSpec::Sat(queens::encode::amo::Encoding::Auto),
                &Budget::default(),
            )
            .unwrap()
            .count
        })
        .sum();
    assert_eq!(total, 2, "Nauck's b4+d5 has exactly 2 completions");
}

#[test]
fn count_shards_from_local_processes_merge_to_the_count() {
    let dir = temp::dir("batch-count");
    let of = 4;
    let files: Vec<PathBuf> = (0..of).map(|i| dir.join(format!("c{i}.json"))).collect();
    let commands: Vec<Vec<String>> = (0..of)
        .map(|i| {
            ["count", "--n", "10", "--shard", &format!("{i}/{of}"), "-o"]
                .iter()
                .map(|a| a.to_string())
                .chain([s(&files[i])])
                .collect()
        })
        .collect();
    // A finished shard exits 0 even when its part is 0: a scheduler reads 1 as a failure.
    assert!(run_all(&commands).iter().all(|c| *c == Some(0)));
    let mut args = vec!["merge".to_string(), "--json".to_string()];
    args.extend(files.iter().map(|f| s(f)));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = queens(&args, None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let m = json(&o);
    assert_eq!(m["count"], 724, "A000170(10)");
    assert_eq!(m["shards"], 4);

    // One shard missing: refused, with nothing that looks like a count.
    let o = queens(
        &["merge", &s(&files[0]), &s(&files[2]), &s(&files[3])],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("shard 1"));

    // A shard of another count (n = 9) is refused too.
    let other = dir.join("other.json");
    let o = queens(
        &["count", "--n", "9", "--shard", "1/4", "-o", &s(&other)],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let o = queens(
        &[
            "merge",
            &s(&files[0]),
            &s(&other),
            &s(&files[2]),
            &s(&files[3]),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("another count"));

    // The same shard given twice with different counts is a failed check (3).
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["count"] = serde_json::json!(v["count"].as_u64().unwrap() + 1);
    let forged = dir.join("forged.json");
    std::fs::write(&forged, v.to_string()).unwrap();
    let mut args = vec!["merge".to_string()];
    args.extend(files.iter().map(|f| s(f)));
    args.push(s(&forged));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(queens(&args, None).status.code(), Some(3));

    // Shards of a completion instance (the general split) add up as well.
    let nauck = super::cli::instance("nauck-1850.json");
    let mut all = String::new();
    for i in 0..3 {
        let o = queens(
            &["count", &nauck, "--shard", &format!("{i}/3"), "--json"],
            None,
        );
        assert_eq!(o.status.code(), Some(0));
        all.push_str(&stdout(&o));
    }
    let lines = dir.join("nauck.jsonl");
    std::fs::write(&lines, all).unwrap();
    let o = queens(&["merge", &s(&lines), "--json"], None);
    assert_eq!(json(&o)["count"], 2);
}

#[test]
fn batch_shards_from_local_processes_merge_to_a_single_run() {
    let dir = temp::dir("batch-corpus");
    let corpus = dir.join("corpus.jsonl");
    // 30 Excluded Diagonals instances (some solvable, some not) and a completion.
    let o = queens(
        &[
            "generate",
            "diagonals",
            "--n",
            "12",
            "--min-free",
            "3",
            "--count",
            "30",
            "-o",
            &s(&corpus),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let inputs = [s(&corpus), super::cli::instance("nauck-1850.txt")];
    let of = 3;
    let shard_file = |i: usize| dir.join(format!("s{i}.jsonl"));
    let commands: Vec<Vec<String>> = (0..of)
        .map(|i| {
            let mut c: Vec<String> = ["batch", "--shard", &format!("{i}/{of}"), "--jobs", "1"]
                .iter()
                .map(|a| a.to_string())
                .collect();
            c.extend(inputs.iter().cloned());
            c.extend(["-o".to_string(), s(&shard_file(i))]);
            c
        })
        .collect();
    assert!(run_all(&commands).iter().all(|c| *c == Some(0)));
    let single = dir.join("single.jsonl");
    let mut args = vec!["batch".to_string(), "-o".to_string(), s(&single)];
    args.extend(inputs.iter().cloned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(queens(&args, None).status.code(), Some(0));

    let merged = dir.join("merged.jsonl");
    let mut args = vec![
        "merge".to_string(),
        "--json".to_string(),
        "-o".to_string(),
        s(&merged),
    ];
    args.extend((0..of).map(|i| s(&shard_file(i))));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = queens(&args, None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let summary = json(&o);
    assert_eq!(summary["total"], 31);
    assert_eq!(summary["missing"], serde_json::json!([]));

    let single_merged = dir.join("single-merged.jsonl");
    let o = queens(&["merge", &s(&single), "-o", &s(&single_merged)], None);
    assert_eq!(o.status.code(), Some(0));
    let answers = |p: &Path| -> Vec<(String, String, String)> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let f = |k: &str| v[k].as_str().unwrap().to_string();
                (f("id"), f("hash"), f("status"))
            })
            .collect()
    };
    let a = answers(&merged);
    assert_eq!(a, answers(&single_merged));
    assert_eq!(a.len(), 31);
    assert!(a.iter().any(|x| x.2 == "sat") && a.iter().any(|x| x.2 == "unsat"));

    // Every sat line's queens pass the verifier for its instance.
    let problems = queens::formats::sources::load(
        &[corpus.clone(), PathBuf::from(&inputs[1])],
        &Default::default(),
    )
    .unwrap();
    for l in std::fs::read_to_string(&merged).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        if v["status"] == "sat" {
            let q: Vec<(usize, usize)> = serde_json::from_value(v["queens"].clone()).unwrap();
            let p = &problems[v["index"].as_u64().unwrap() as usize];
            queens::verify(&p.problem, &q).unwrap();
        }
    }

    // A shard missing: reported, exit 4.
    let o = queens(&["merge", &s(&shard_file(0)), &s(&shard_file(2))], None);
    assert_eq!(o.status.code(), Some(4));
    assert!(stdout(&o).contains("missing shards: 1"), "{}", stdout(&o));

    // Re-running a shard after a crash keeps the answers it wrote and solves the rest.
    let text = std::fs::read_to_string(shard_file(1)).unwrap();
    let kept: Vec<&str> = text.lines().take(3).collect(); // header + 2 answers
    let partial = dir.join("s1.jsonl.partial");
    std::fs::write(
        &partial,
        format!("{}\n{{\"index\": 4, \"id\"", kept.join("\n")),
    )
    .unwrap();
    std::fs::remove_file(shard_file(1)).unwrap();
    let mut args = commands[1].clone();
    args.push("--json".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = queens(&args, None);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(json(&o)["reused"], 2);
    assert!(!partial.exists());
    let again = std::fs::read_to_string(shard_file(1)).unwrap();
    let strip = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                if let Some(o) = v.as_object_mut() {
                    o.remove("time_ms");
                }
                v.to_string()
            })
            .collect()
    };
    assert_eq!(strip(&again).len(), strip(&text).len());
}

#[test]
fn bad_shards_are_usage_errors() {
    for bad in ["4/4", "1/0", "x"] {
        let o = queens(&["count", "--n", "8", "--shard", bad], None);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
    let o = queens(
        &["count", "--n", "8", "--shard", "0/2", "--limit", "3"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let o = queens(&["merge", &super::cli::instance("nauck-1850.json")], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("neither a batch shard file"));
}

/// The deploy recipes themselves, with local processes standing in for the schedulers:
/// `deploy/local.sh`, the Slurm array scripts (with the variables Slurm sets), and the
/// Kubernetes Indexed Job's `queens-shard` command (with `JOB_COMPLETION_INDEX`).
#[test]
fn deploy_recipes_run_on_local_processes() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_queens");
    let dir = temp::dir("batch-deploy");
    let run = |script: &str, args: &[&str], env: &[(&str, String)]| {
        let o = Command::new("bash")
            .arg(repo.join(script))
            .args(args)
            .env("QUEENS", bin)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{script} {args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8(o.stdout).unwrap()
    };

    // local.sh: 5 shards, 2 at a time, then the merge.
    let out = run(
        "deploy/local.sh",
        &["5", "2", "count", "local", "--n", "10"],
        &[],
    );
    assert!(out.contains("count: 724"), "{out}");

    // Slurm: each array task as Slurm starts it, then the merge job.
    for i in 0..3 {
        run(
            "deploy/slurm/count.sbatch",
            &[],
            &[
                ("SLURM_ARRAY_TASK_ID", i.to_string()),
                ("SLURM_ARRAY_TASK_COUNT", "3".into()),
                ("SLURM_SUBMIT_DIR", repo.display().to_string()),
                ("N", "9".into()),
                ("OUT", "slurm".into()),
            ],
        );
    }
    let out = run(
        "deploy/slurm/merge.sbatch",
        &[],
        &[("N", "9".into()), ("OUT", "slurm".into())],
    );
    assert!(out.contains("count: 352"), "{out}");

    // Kubernetes: the Indexed Job's SHARDS must be its completions; each pod runs the
    // manifest's command with its JOB_COMPLETION_INDEX.
    let manifest = std::fs::read_to_string(repo.join("deploy/k8s/count-job.yaml")).unwrap();
    let field = |name: &str| {
        manifest
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(|v| v.trim().trim_matches('"').to_string())
            .unwrap()
    };
    assert_eq!(field("completionMode:"), "Indexed");
    let completions = field("completions:");
    let shards_line = manifest.find("name: SHARDS").unwrap();
    let shards_value = manifest[shards_line..]
        .lines()
        .nth(1)
        .unwrap()
        .trim()
        .strip_prefix("value:")
        .unwrap()
        .trim()
        .trim_matches('"')
        .to_string();
    assert_eq!(shards_value, completions);
    assert!(manifest.contains(r#"command: ["queens-shard", "count", "/results/count-n19""#));
    for i in 0..4 {
        run(
            "deploy/shard.sh",
            &["count", "k8s", "--n", "8"],
            &[
                ("JOB_COMPLETION_INDEX", i.to_string()),
                ("SHARDS", "4".into()),
            ],
        );
    }
    let merged = queens(
        &[
            "merge",
            &s(&dir.join("k8s/shard-0-of-4.json")),
            &s(&dir.join("k8s/shard-1-of-4.json")),
            &s(&dir.join("k8s/shard-2-of-4.json")),
            &s(&dir.join("k8s/shard-3-of-4.json")),
        ],
        None,
    );
    assert!(stdout(&merged).contains("count: 92"));

    // A batch through local.sh: shards, then merged.jsonl.
    let out = run(
        "deploy/local.sh",
        &[
            "3",
            "2",
            "batch",
            "b",
            &super::cli::instance("nauck-1850.txt"),
            &super::cli::instance("unsolvable-completion.txt"),
            &super::cli::instance("region-7.txt"),
        ],
        &[],
    );
    assert!(
        out.contains("3 of 3 instances merged from 3 of 3 shards"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("b/merged.jsonl"))
            .unwrap()
            .lines()
            .count(),
        3
    );
}

/// An outside checker's verdict on a proof file: `None` when it is not installed.
pub(super) fn outside_check(checker: &str, cnf: &Path, proof: &Path) -> Option<bool> {
    let Ok(out) = Command::new(checker).arg(cnf).arg(proof).output() else {
        crate::need::missing(checker, "the outside proof checker is not on PATH");
        return None;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .any(|l| matches!(l.trim(), "s VERIFIED" | "c VERIFIED" | "s VERIFIED UNSAT")),
    )
}

/// Checks a proof file against its CNF file with the built-in checker, read from disk
/// (not the check the run did as it wrote it), and with `outside` where it is installed.
pub(super) fn assert_proof_files_check(
    format: queens::proof::ProofFormat,
    cnf: &Path,
    proof: &Path,
    outside: Option<&str>,
) {
    let cnf_text = std::fs::read(cnf).unwrap();
    let formula = varisat::dimacs::DimacsParser::parse(&cnf_text[..]).unwrap();
    let bytes = std::fs::read(proof).unwrap();
    let stats = queens::proof::check_proof(&formula, format, &bytes)
        .unwrap_or_else(|e| panic!("the built-in checker rejects {}: {e}", proof.display()));
    assert!(stats.lemmas > 0);
    if let Some(checker) = outside {
        match outside_check(checker, cnf, proof) {
            Some(ok) => assert!(ok, "{checker} rejects {}", proof.display()),
            None => eprintln!("{checker}: outside check skipped"),
        }
    }
}

fn result_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes `count` excluded-diagonals instances on 8 × 8 boards (some without a solution) to
/// `corpus`.
fn generate_diagonals(corpus: &Path, count: usize) {
    let count = count.to_string();
    let args = [
        "generate",
        "diagonals",
        "--n",
        "8",
        "--min-free",
        "2",
        "--count",
        &count,
    ];
    let o = queens(&[&args[..], &["-o", &s(corpus)]].concat(), None);
    succeeded(&o);
}

#[test]
fn batch_proves_every_unsat_answer_into_the_proof_folder() {
    use queens::proof::ProofFormat;
    let dir = temp::dir("batch-proofs");
    let corpus = dir.join("corpus.jsonl");
    // Ten excluded-diagonals instances, some without a solution, and ids that need care:
    // a slash, and two that differ only in case.
    generate_diagonals(&corpus, 10);
    let mut text = String::new();
    for (i, line) in std::fs::read_to_string(&corpus)
        .unwrap()
        .lines()
        .enumerate()
    {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["id"] = match i {
            0 => "sub/dir".into(),
            1 => "Twin".into(),
            2 => "twin".into(),
            _ => format!("d{i}").into(),
        };
        text.push_str(&format!("{v}\n"));
    }
    std::fs::write(&corpus, text).unwrap();
    for (engine, format, outside) in [
        ("backtrack", ProofFormat::Lrat, Some("lrat-check")),
        ("backtrack", ProofFormat::BinaryLrat, None),
        ("sat", ProofFormat::Drat, Some("drat-trim")),
    ] {
        let proofs = dir.join(format!("proofs-{engine}-{format}"));
        let out = dir.join(format!("{engine}-{format}.jsonl"));
        let o = queens(
            &[
                "batch",
                &s(&corpus),
                "--engine",
                engine,
                "--proof",
                &s(&proofs),
                "--proof-format",
                &format.to_string(),
                "-o",
                &s(&out),
                "--json",
            ],
            None,
        );
        succeeded(&o);
        let summary = json(&o);
        assert_eq!(summary["proofs"], s(&proofs));
        let lines = result_lines(&out);
        let unsat: Vec<&serde_json::Value> =
            lines.iter().filter(|l| l["status"] == "unsat").collect();
        assert!(
            !unsat.is_empty(),
            "the corpus has instances without a solution"
        );
        assert_eq!(summary["unsat"], unsat.len());
        for l in &unsat {
            let p = &l["proof"];
            assert_eq!(p["checked"], true, "{l}");
            assert_eq!(p["format"], format.to_string());
            assert!(p["lemmas"].as_u64().unwrap() > 0);
            let (proof, cnf) = (
                PathBuf::from(p["path"].as_str().unwrap()),
                PathBuf::from(p["cnf"].as_str().unwrap()),
            );
            assert_eq!(proof.parent(), Some(proofs.as_path()));
            assert_eq!(
                std::fs::metadata(&proof).unwrap().len(),
                p["bytes"].as_u64().unwrap()
            );
            assert_proof_files_check(format, &cnf, &proof, outside);
        }
        // No proof beside an answer that has none; every name is a plain file name.
        for l in lines.iter().filter(|l| l["status"] != "unsat") {
            assert!(l.get("proof").is_none(), "{l}");
        }
        let names: Vec<String> = std::fs::read_dir(&proofs)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 2 * unsat.len(), "{names:?}");
        for n in &names {
            assert!(!n.starts_with('.') && !n.contains('/'), "{n}");
        }
    }
}

#[test]
fn batch_proofs_survive_shards_merge_and_reruns() {
    let dir = temp::dir("batch-proof-shards");
    let corpus = dir.join("corpus.jsonl");
    generate_diagonals(&corpus, 12);
    let proofs = dir.join("proofs");
    let shard = |i: usize| dir.join(format!("s{i}.jsonl"));
    let run_shard = |i: usize, extra: &[&str]| {
        let (part, out) = (format!("{i}/2"), s(&shard(i)));
        let args = [
            "batch",
            &s(&corpus),
            "--shard",
            &part,
            "--proof",
            &s(&proofs),
            "-o",
            &out,
        ];
        queens(&[&args[..], extra].concat(), None)
    };
    for i in 0..2 {
        succeeded(&run_shard(i, &[]));
    }
    let merged = dir.join("merged.jsonl");
    let o = queens(
        &["merge", &s(&shard(0)), &s(&shard(1)), "-o", &s(&merged)],
        None,
    );
    succeeded(&o);
    let text = std::fs::read_to_string(&merged).unwrap();
    let unsat: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|l| l["status"] == "unsat")
        .collect();
    assert!(!unsat.is_empty());
    for l in &unsat {
        assert_eq!(l["proof"]["checked"], true, "{l}");
        assert!(Path::new(l["proof"]["path"].as_str().unwrap()).is_file());
    }
    // A rerun keeps a proven answer while its proof is there, and proves it again when not.
    let gone = PathBuf::from(unsat[0]["proof"]["path"].as_str().unwrap());
    std::fs::remove_file(&gone).unwrap();
    let mut reused = 0;
    for i in 0..2 {
        let o = run_shard(i, &["--json"]);
        assert_eq!(o.status.code(), Some(0));
        let v = json(&o);
        reused += v["reused"].as_u64().unwrap();
    }
    assert_eq!(reused, 11);
    assert!(gone.is_file(), "the missing proof is written again");
    // The same shard without proofs starts afresh: its unsat answers would carry none.
    let o = queens(
        &[
            "batch",
            &s(&corpus),
            "--shard",
            "0/2",
            "-o",
            &s(&shard(0)),
            "--json",
        ],
        None,
    );
    assert_eq!(json(&o)["reused"], 0);
}

#[test]
fn a_bad_proof_folder_is_a_usage_error_naming_it() {
    let dir = temp::dir("batch-bad-proof-dir");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    for bad in [file.clone(), file.join("below")] {
        let o = queens(
            &[
                "batch",
                &super::cli::instance("nauck-1850.txt"),
                "--proof",
                &s(&bad),
                "-o",
                &s(&dir.join("out.jsonl")),
            ],
            None,
        );
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&s(&bad)), "{err}");
    }
}

#[test]
fn proof_file_names_are_safe_and_never_shared() {
    use queens::ops::batch_file::Member;
    let ids = ["a/b", "a_b", "A_B", "..hidden", "", "plain", "ünïcode"];
    let members: Vec<Member> = ids
        .iter()
        .enumerate()
        .map(|(index, id)| Member {
            index,
            id: id.to_string(),
            hash: String::new(),
        })
        .collect();
    let names = queens::ops::batch_file::proof_names(&members);
    assert_eq!(names[&0], "a_b~0");
    assert_eq!(names[&1], "a_b~1");
    assert_eq!(names[&2], "A_B~2");
    assert_eq!(names[&3], "hidden");
    assert_eq!(names[&4], "instance");
    assert_eq!(names[&5], "plain");
    assert_eq!(names[&6], "_n_code");
    let lower: std::collections::HashSet<String> =
        names.values().map(|n| n.to_lowercase()).collect();
    assert_eq!(lower.len(), ids.len());
}

#[test]
fn batch_leaves_no_process_of_a_wrapper_behind() {
    let dir = temp::dir("batch-wrapper");
    let (script, marker) = crate::procs::hanging_wrapper(&dir);
    let corpus = dir.join("corpus.jsonl");
    std::fs::write(
        &corpus,
        "{\"id\": \"six\", \"n\": 6}\n{\"id\": \"seven\", \"n\": 7}\n",
    )
    .unwrap();
    let out = dir.join("out.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_queens"))
        .arg("batch")
        .arg(&corpus)
        .args([
            "--engine",
            "ext:hang",
            "--timeout",
            "1",
            "--jobs",
            "2",
            "--json",
        ])
        .arg("--solver")
        .arg(format!("hang={} {{cnf}}", script.display()))
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    // 4: some instance had no answer within its limit.
    super::cli::exited(&o, 4);
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.matches("\"timeout\"").count(), 2, "{lines}");
    assert_eq!(crate::procs::survivors(&marker), Vec::<u32>::new());
}

#[test]
fn an_interrupted_batch_keeps_every_finished_answer_and_says_so() {
    // Three boards the SAT engine answers at once, then diag-22-4-5 (unsatisfiable; varisat
    // needs minutes) under a 60 s limit. SIGTERM or SIGINT once the three are written stops
    // the run: their lines are in the partial file, the stopped one is not passed off as a
    // timeout, the summary names what finished, exit 130, no child left (the run's
    // processes carry a tag in their environment); the same command run again keeps them.
    let hard = std::fs::read_to_string(format!(
        "{}/instances/excluded-diagonals/diag-22-d20.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .lines()
    .find(|l| l.contains("\"diag-22-4-5\""))
    .unwrap()
    .to_string();
    for signal in ["TERM", "INT"] {
        let tag = format!("batch-interrupt-{signal}-{}", std::process::id());
        let dir = temp::dir("batch-interrupt");
        let corpus = dir.join("corpus.jsonl");
        std::fs::write(
            &corpus,
            format!(
                "{{\"id\": \"six\", \"n\": 6}}\n{{\"id\": \"seven\", \"n\": 7}}\n\
                 {{\"id\": \"eight\", \"n\": 8}}\n{hard}\n"
            ),
        )
        .unwrap();
        let out = dir.join("out.jsonl");
        let partial = dir.join("out.jsonl.partial");
        let run = |timeout: &str| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_queens"));
            c.arg("batch")
                .arg(&corpus)
                .args(["--engine", "sat", "--timeout", timeout, "--jobs", "1"])
                .arg("-o")
                .arg(&out)
                .env("QUEENS_TEST_TAG", &tag)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            c
        };
        let child = run("60").spawn().unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        // The header, then one line per finished instance, flushed as each ends.
        while std::fs::read_to_string(&partial).map_or(0, |t| t.lines().count()) < 1 + 3 {
            assert!(std::time::Instant::now() < until, "no three answers");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        super::compare::send_signal(child.id(), signal);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{err}");
        assert!(
            err.contains(&format!("interrupted by SIG{signal}")),
            "{err}"
        );
        assert!(err.contains(&s(&partial)), "{err}");
        let summary = stdout(&o);
        assert!(
            summary.contains("3 answered before the interruption, of 4 instances"),
            "{summary}"
        );
        let lines = result_lines(&partial);
        let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
        assert_eq!(ids, ["six", "seven", "eight"], "{lines:?}");
        assert!(lines.iter().all(|l| l["status"] == "sat"), "{lines:?}");
        assert!(!out.exists());
        assert_eq!(
            super::compare::processes_tagged(&tag),
            0,
            "a child outlived batch"
        );
        // Run again, the three are kept and only the fourth is solved (here: timed out).
        let again = run("1").output().unwrap();
        super::cli::exited(&again, 4);
        assert_eq!(result_lines(&out).len(), 4);
        assert!(stdout(&again).contains("(3 kept from an earlier run)"));
        assert_eq!(
            super::compare::processes_tagged(&tag),
            0,
            "a child outlived batch"
        );
    }
}

#[test]
fn an_interrupted_count_shard_writes_what_it_finished_and_merge_refuses_it() {
    // Half of the n = 18 count runs for tens of seconds on two cores: SIGINT a moment in
    // writes the shard's file with the subproblems finished, marked `cancelled`, says so
    // and exits 130; merge refuses the file as unfinished.
    let dir = temp::dir("count-interrupt");
    let out = dir.join("c0.json");
    let child = spawn(&["count", "--n", "18", "--shard", "0/2", "-o", &s(&out)]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    super::compare::send_signal(child.id(), "INT");
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    assert!(err.contains(&s(&out)), "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["status"], "cancelled", "{v}");
    let shard = &v["shard"];
    assert!(
        shard["finished"].as_u64().unwrap() < shard["tasks"].as_u64().unwrap(),
        "{v}"
    );
    let o = queens(&["merge", &s(&out)], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("did not finish"));
}
