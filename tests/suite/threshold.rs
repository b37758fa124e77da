//! The completion threshold (OEIS A374013): the terms known for n = 4…20 reproduced, each
//! with a certificate `queens threshold check` accepts; the outside checkers accept a
//! counterexample's proof; tampered certificates are rejected.

use std::path::Path;
use std::process::Command;

use queens::proof::threshold::certificate::{check_certificate, Verdict, COVER};

use super::cli::{json, queens, stdout};
use crate::temp;

/// A374013 from n = 4.
const A374013: [usize; 17] = [0, 1, 0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4];

fn term(n: usize) -> usize {
    A374013[n - 4]
}

/// Computes the term of the `n`×`n` board with its certificate in `dir`, and checks it.
fn computed_and_checked(n: usize, dir: &Path) {
    let ns = n.to_string();
    let dir_s = dir.to_str().unwrap();
    let o = queens(
        &["threshold", "--n", &ns, "--certificate", dir_s, "--json"],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v = json(&o);
    assert_eq!(v["threshold"], term(n), "n = {n}: {v}");
    assert_eq!(v["lower"], term(n), "n = {n}");
    assert_eq!(
        v["counterexample"].as_array().unwrap().len(),
        term(n) + 1,
        "n = {n}"
    );
    let c = queens(&["threshold", "check", dir_s, "--json"], None);
    assert_eq!(
        c.status.code(),
        Some(0),
        "n = {n}: {}",
        String::from_utf8_lossy(&c.stdout)
    );
    let v = json(&c);
    assert_eq!(v["accepted"], true);
    assert_eq!(v["exact"], true);
    assert_eq!(v["k"], term(n), "n = {n}");
}

#[test]
fn terms_4_to_14_match_a374013_with_checked_certificates() {
    for n in 4..=14 {
        let dir = temp::dir(&format!("threshold-{n}"));
        computed_and_checked(n, &dir);
    }
}

/// Minutes on two cores in all (n = 20 alone takes about ten seconds).
#[test]
#[ignore = "slow: n = 15…20"]
fn terms_15_to_20_match_a374013_with_checked_certificates() {
    for n in 15..=20 {
        let dir = temp::dir(&format!("threshold-{n}"));
        computed_and_checked(n, &dir);
    }
}

#[test]
fn outside_checkers_accept_the_counterexample_proof() {
    let dir = temp::dir("threshold-outside");
    computed_and_checked(14, &dir);
    let cnf = dir.join("counterexample.lrat.cnf");
    let proof = dir.join("counterexample.lrat");
    for checker in ["lrat-check", "cake_lpr"] {
        let Some(path) = crate::need::checker(checker) else {
            continue;
        };
        let out = Command::new(path).arg(&cnf).arg(&proof).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines()
                .any(|l| matches!(l.trim(), "c VERIFIED" | "s VERIFIED UNSAT")),
            "{checker} rejects the counterexample's proof: {text}"
        );
    }
}

#[test]
fn asking_k_answers_yes_or_no_with_exit_codes() {
    let yes = queens(&["threshold", "--n", "14", "--k", "3", "--json"], None);
    assert_eq!(yes.status.code(), Some(0));
    let v = json(&yes);
    assert_eq!(v["status"], "sat");
    assert_eq!(v["lower"], 3);
    let no = queens(&["threshold", "--n", "14", "--k", "4", "--json"], None);
    assert_eq!(no.status.code(), Some(1));
    let v = json(&no);
    assert_eq!(v["status"], "unsat");
    assert_eq!(v["counterexample"].as_array().unwrap().len(), 4, "{v}");
}

#[test]
fn a_board_out_of_range_and_a_timeout_are_reported() {
    let o = queens(&["threshold", "--n", "3"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("4..=64"));
    let o = queens(
        &["threshold", "--n", "26", "--timeout", "0.3", "--json"],
        None,
    );
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(json(&o)["status"], "timeout");
    // The text says what holds so far, and says so when nothing does yet.
    for (timeout, first) in [
        (
            "0.000001",
            "timeout: no answer yet; no round finished, so no bound is shown",
        ),
        ("0.3", "timeout: no answer yet; every placement of at most "),
    ] {
        let o = queens(&["threshold", "--n", "26", "--timeout", timeout], None);
        assert_eq!(o.status.code(), Some(4));
        let text = stdout(&o);
        assert!(text.starts_with(first), "{timeout}: {text}");
        assert!(!text.contains("at most -"), "{timeout}: {text}");
    }
}

/// A certificate of n = 10 in a fresh folder, checked.
fn certificate(what: &str) -> temp::Dir {
    let dir = temp::dir(what);
    computed_and_checked(10, &dir);
    dir
}

fn rejected(dir: &Path) -> String {
    match check_certificate(dir).unwrap() {
        Verdict::Rejected(why) => why,
        Verdict::Accepted(a) => panic!("a tampered certificate was accepted: {a:?}"),
    }
}

#[test]
fn a_cover_missing_a_needed_line_is_rejected() {
    let dir = certificate("threshold-drop");
    let text = std::fs::read_to_string(dir.join(COVER)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Some line is the only one holding some placement (the search added each for a
    // placement no earlier line held): dropping it must be caught.
    let mut caught = 0;
    for skip in 0..lines.len() {
        let kept: Vec<&str> = (0..lines.len())
            .filter(|&i| i != skip)
            .map(|i| lines[i])
            .collect();
        std::fs::write(dir.join(COVER), kept.join("\n")).unwrap();
        if let Verdict::Rejected(why) = check_certificate(&dir).unwrap() {
            assert!(why.contains("lies in no line of the cover"), "{why}");
            caught += 1;
        }
    }
    assert!(caught > 0, "no line of the cover is needed");
    // Half the cover is surely not enough.
    std::fs::write(dir.join(COVER), lines[..lines.len() / 2].join("\n")).unwrap();
    rejected(&dir);
}

#[test]
fn a_cover_line_that_is_not_a_solution_is_rejected() {
    let dir = certificate("threshold-wrong");
    let text = std::fs::read_to_string(dir.join(COVER)).unwrap();
    let mut lines: Vec<Vec<u32>> = text
        .lines()
        .map(|l| l.split(' ').map(|w| w.parse().unwrap()).collect())
        .collect();
    // Two rows' queens moved onto one column.
    lines[3][1] = lines[3][0];
    let text: Vec<String> = lines
        .iter()
        .map(|l| l.iter().map(u32::to_string).collect::<Vec<_>>().join(" "))
        .collect();
    std::fs::write(dir.join(COVER), text.join("\n")).unwrap();
    let why = rejected(&dir);
    assert!(why.contains("line 4: not a solution"), "{why}");
}

#[test]
fn a_proof_of_another_placement_is_rejected() {
    let dir = certificate("threshold-other");
    // A placement of three queens that completes (the first three rows of a cover line),
    // beside the proof written for the real counterexample.
    let text = std::fs::read_to_string(dir.join(COVER)).unwrap();
    let cols: Vec<usize> = text
        .lines()
        .next()
        .unwrap()
        .split(' ')
        .map(|w| w.parse().unwrap())
        .collect();
    let json = format!(
        "{{\"n\": 10, \"queens\": [[0, {}], [1, {}], [2, {}]]}}",
        cols[0], cols[1], cols[2]
    );
    std::fs::write(dir.join("counterexample.json"), json).unwrap();
    let why = rejected(&dir);
    assert!(why.contains("does not hold in every completion"), "{why}");
}

#[test]
fn a_cut_proof_and_a_claim_too_high_are_rejected() {
    let dir = certificate("threshold-cut");
    let proof = std::fs::read_to_string(dir.join("counterexample.lrat")).unwrap();
    let lines: Vec<&str> = proof.lines().collect();
    // Without its last step the proof never adds the empty clause.
    std::fs::write(
        dir.join("counterexample.lrat"),
        lines[..lines.len() - 1].join("\n"),
    )
    .unwrap();
    rejected(&dir);
    let dir = certificate("threshold-claim");
    std::fs::write(dir.join("threshold.json"), "{\"n\": 10, \"k\": 3}").unwrap();
    let why = rejected(&dir);
    assert!(why.contains("lies in no line of the cover"), "{why}");
}

/// Shard `i` of 3 of the round `k` on the `n`×`n` board, its certificate in `dir`.
fn shard(n: usize, k: usize, i: usize, dir: &Path) -> serde_json::Value {
    let (ns, ks, shard) = (n.to_string(), k.to_string(), format!("{i}/3"));
    let o = queens(
        &[
            "threshold",
            "--n",
            &ns,
            "--k",
            &ks,
            "--shard",
            &shard,
            "--certificate",
            dir.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    json(&o)
}

#[test]
fn three_shards_merge_into_a_certificate_the_check_accepts() {
    let root = temp::dir("threshold-shards");
    let dirs: Vec<_> = (0..3).map(|i| root.join(format!("shard-{i}"))).collect();
    let mut placements = 0;
    for (i, dir) in dirs.iter().enumerate() {
        let v = shard(10, 2, i, dir);
        assert_eq!(v["shard"]["index"], i);
        assert_eq!(v["lower"], 2);
        let rounds = v["rounds"].as_array().unwrap();
        placements += rounds.last().unwrap()["placements"].as_u64().unwrap();
        assert!(dir.join("shard.json").exists());
        // A shard's cover holds only its part: it is no certificate by itself.
        assert!(!dir.join("threshold.json").exists());
    }
    let whole = queens(&["threshold", "--n", "10", "--k", "2", "--json"], None);
    let whole = json(&whole);
    let rounds = whole["rounds"].as_array().unwrap();
    assert_eq!(
        placements,
        rounds.last().unwrap()["placements"].as_u64().unwrap(),
        "the shards' walks add up to the whole round's"
    );
    let merged = root.join("merged");
    let mut args = vec!["threshold", "merge"];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    args.extend(["-o", merged.to_str().unwrap()]);
    let o = queens(&args, None);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let c = queens(
        &["threshold", "check", merged.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(
        c.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&c.stdout)
    );
    let v = json(&c);
    assert_eq!(v["accepted"], true);
    assert_eq!(v["exact"], false);
    assert_eq!((v["n"].clone(), v["k"].clone()), (10.into(), 2.into()));
    // Each shard's cover alone leaves placements of the others out.
    let partial = root.join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::copy(dirs[0].join(COVER), partial.join(COVER)).unwrap();
    std::fs::write(partial.join("threshold.json"), "{\"n\": 10, \"k\": 2}").unwrap();
    let why = rejected(&partial);
    assert!(why.contains("lies in no line of the cover"), "{why}");
}

#[test]
fn a_missing_shard_or_one_of_another_round_is_refused() {
    let root = temp::dir("threshold-shards-missing");
    let dirs: Vec<_> = (0..3).map(|i| root.join(format!("shard-{i}"))).collect();
    for (i, dir) in dirs.iter().enumerate() {
        shard(10, 2, i, dir);
    }
    let merged = root.join("merged");
    let o = queens(
        &[
            "threshold",
            "merge",
            dirs[0].to_str().unwrap(),
            dirs[2].to_str().unwrap(),
            "-o",
            merged.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("shard is 1/3 of n = 10, k = 2 missing"),
        "{err}"
    );
    assert!(!merged.join("threshold.json").exists());
    // Shard 1 of the round k = 1 does not belong with shards of k = 2.
    let other = root.join("other");
    shard(10, 1, 1, &other);
    let o = queens(
        &[
            "threshold",
            "merge",
            dirs[0].to_str().unwrap(),
            other.to_str().unwrap(),
            dirs[2].to_str().unwrap(),
            "-o",
            merged.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("field `k`") && err.contains("not shards of one round"),
        "{err}"
    );
    // A shard that found a placement with no completion has no cover to merge.
    let no = root.join("no");
    let o = queens(
        &[
            "threshold",
            "--n",
            "10",
            "--k",
            "3",
            "--shard",
            "0/1",
            "--certificate",
            no.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let o = queens(
        &[
            "threshold",
            "merge",
            no.to_str().unwrap(),
            "-o",
            merged.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("shard 0/1 found a placement"), "{err}");
    assert!(!merged.join("threshold.json").exists());
    // A shard needs the round.
    let o = queens(&["threshold", "--n", "10", "--shard", "0/3"], None);
    assert_eq!(o.status.code(), Some(2));
}

/// `deploy/local.sh` runs a round's shards through `deploy/shard.sh`, as a Slurm array or a
/// Kubernetes Indexed Job would, then the merge; the merged certificate is accepted.
#[test]
fn the_deploy_recipe_runs_threshold_shards_and_merges_them() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = temp::dir("threshold-deploy");
    let o = Command::new("sh")
        .arg(repo.join("deploy/local.sh"))
        .args(["3", "2", "threshold", "out", "--n", "10", "--k", "2"])
        .env("QUEENS", env!("CARGO_BIN_EXE_queens"))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("merged 3 shards of n = 10, k = 2"), "{out}");
    for i in 0..3 {
        assert!(dir.join(format!("out/shard-{i}-of-3/shard.json")).exists());
    }
    match check_certificate(&dir.join("out/merged")).unwrap() {
        Verdict::Accepted(a) => assert_eq!((a.n, a.k, a.exact), (10, 2, false)),
        Verdict::Rejected(why) => panic!("the merged shards are rejected: {why}"),
    }
}

/// `queens threshold --n N --checkpoint DIR --certificate CERT` (with `extra` arguments).
fn checkpointed(n: usize, dir: &Path, cert: &Path, extra: &[&str]) -> std::process::Output {
    let ns = n.to_string();
    let mut args = vec![
        "threshold",
        "--n",
        &ns,
        "--checkpoint",
        dir.to_str().unwrap(),
        "--certificate",
        cert.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    queens(&args, None)
}

#[test]
fn a_run_stopped_by_a_timeout_resumes_from_its_checkpoint_to_the_same_certificate() {
    let root = temp::dir("threshold-checkpoint");
    let whole = root.join("whole");
    computed_and_checked(13, &whole);
    let o = queens(
        &[
            "threshold",
            "--n",
            "13",
            "--certificate",
            whole.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    let want = json(&o);
    let (ck, cert) = (root.join("checkpoint"), root.join("cert"));
    let stopped = checkpointed(13, &ck, &cert, &["--timeout", "0.005"]);
    assert_eq!(
        stopped.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&stopped.stderr)
    );
    // Runs stopped a little later each time resume from one another, until the checkpoint
    // holds a finished walk.
    let file = ck.join("threshold-checkpoint.txt");
    let mut timeout = 0.005;
    let head = loop {
        let text = std::fs::read_to_string(&file).unwrap();
        let head: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(head["n"], 13, "{head}");
        assert_eq!(head["solutions"], text.lines().count() - 1, "{head}");
        if !head["rounds"].as_array().unwrap().is_empty() {
            break head;
        }
        timeout *= 2.0;
        let o = checkpointed(13, &ck, &cert, &["--timeout", &timeout.to_string()]);
        assert!(matches!(o.status.code(), Some(0 | 4)), "{o:?}");
    };
    let resumed = checkpointed(13, &ck, &cert, &[]);
    assert_eq!(
        resumed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let got = json(&resumed);
    for field in [
        "threshold",
        "lower",
        "counterexample",
        "solutions",
        "witnesses",
        "searched",
    ] {
        assert_eq!(got[field], want[field], "{field}: {got}");
    }
    assert_eq!(got["threshold"], term(13));
    // The walks finished before were not walked again: their records are the checkpoint's.
    for (i, r) in head["rounds"].as_array().unwrap().iter().enumerate() {
        assert_eq!(got["rounds"][i]["time_ms"], r["ms"], "{got}");
    }
    // The search's seeds follow the placements: the resumed run found the same cover.
    assert_eq!(
        std::fs::read_to_string(cert.join(COVER)).unwrap(),
        std::fs::read_to_string(whole.join(COVER)).unwrap()
    );
    let c = queens(
        &["threshold", "check", cert.to_str().unwrap(), "--json"],
        None,
    );
    assert_eq!(c.status.code(), Some(0));
    let v = json(&c);
    assert_eq!(
        (v["accepted"].clone(), v["k"].clone()),
        (true.into(), 2.into())
    );
}

#[test]
fn a_checkpoint_of_another_run_is_refused() {
    let root = temp::dir("threshold-checkpoint-other");
    let ck = root.join("checkpoint");
    let o = checkpointed(12, &ck, &root.join("cert12"), &[]);
    assert_eq!(o.status.code(), Some(0));
    let o = checkpointed(13, &ck, &root.join("cert13"), &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("threshold-checkpoint.txt"), "{err}");
    assert!(
        err.contains("the checkpoint of another run: n = 12, not n = 13"),
        "{err}"
    );
    assert!(!root.join("cert13").exists());
    // A round asked of the same board is another run too.
    let o = checkpointed(12, &ck, &root.join("cert12k"), &["--k", "2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("n = 12, not n = 12, k = 2"), "{err}");
}

/// The status code of `o`, with its stderr when it is not `want`.
fn exited(o: &std::process::Output, want: i32) {
    assert_eq!(
        o.status.code(),
        Some(want),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A binary cover (`--binary-cover`) is accepted like the text one; the check cut into parts
/// (`check --shard I/N`) and put together (`check --parts N`) walks what the whole check
/// walks; a part missing or a cover changed since is refused.
#[test]
fn a_binary_cover_is_checked_whole_and_in_parts() {
    let root = temp::dir("threshold-binary");
    let (text, bin) = (root.join("text"), root.join("bin"));
    let o = queens(
        &[
            "threshold",
            "--n",
            "11",
            "--certificate",
            text.to_str().unwrap(),
        ],
        None,
    );
    exited(&o, 0);
    let o = queens(
        &[
            "threshold",
            "--n",
            "11",
            "--binary-cover",
            "--certificate",
            bin.to_str().unwrap(),
        ],
        None,
    );
    exited(&o, 0);
    assert!(!bin.join(COVER).exists());
    let lines = std::fs::read_to_string(text.join(COVER))
        .unwrap()
        .lines()
        .count();
    let bytes = std::fs::read(bin.join("cover.bin")).unwrap();
    assert_eq!(bytes.len(), 16 + 1 + 8 + 11 * lines);
    let whole = json(&queens(
        &["threshold", "check", bin.to_str().unwrap(), "--json"],
        None,
    ));
    assert_eq!(
        (whole["accepted"].clone(), whole["exact"].clone()),
        (true.into(), true.into())
    );
    let b = bin.to_str().unwrap();
    for i in 0..3 {
        let o = queens(
            &["threshold", "check", b, "--shard", &format!("{i}/3")],
            None,
        );
        exited(&o, 0);
        // A part claims its share, not the term.
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!("part {i}/3 accepted, toward a(")) && out.contains("--parts 3"),
            "{out}"
        );
    }
    let o = queens(&["threshold", "check", b, "--parts", "3", "--json"], None);
    exited(&o, 0);
    let parts = json(&o);
    for field in [
        "accepted",
        "exact",
        "k",
        "placements",
        "smaller",
        "solutions",
    ] {
        assert_eq!(
            parts[field], whole[field],
            "{field}: {parts} against {whole}"
        );
    }
    let o = queens(&["threshold", "check", b, "--parts", "4"], None);
    exited(&o, 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("3/4"), "{o:?}");
    // A cover changed after its parts were checked is not accepted from their records.
    let mut changed = bytes.clone();
    let last = changed.len() - 1;
    changed.truncate(last + 1 - 11);
    changed[17..25].copy_from_slice(&((lines as u64) - 1).to_le_bytes());
    std::fs::write(bin.join("cover.bin"), &changed).unwrap();
    let o = queens(&["threshold", "check", b, "--parts", "3"], None);
    exited(&o, 1);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("SHA-256"),
        "{o:?}"
    );
}

/// A seed cover settles what it holds: a run seeded with a whole round's cover searches
/// nothing, and a shard keeps only the seed's solutions that can hold its first queens.
#[test]
fn a_seed_cover_is_not_searched_again() {
    let root = temp::dir("threshold-seed");
    let whole = root.join("whole");
    let o = queens(
        &[
            "threshold",
            "--n",
            "12",
            "--k",
            "2",
            "--certificate",
            whole.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    exited(&o, 0);
    let all = json(&o)["solutions"].as_u64().unwrap();
    let seed = whole.join(COVER);
    let o = queens(
        &[
            "threshold",
            "--n",
            "12",
            "--k",
            "2",
            "--seed-cover",
            seed.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    exited(&o, 0);
    let v = json(&o);
    assert_eq!(
        (v["searched"].clone(), v["solutions"].clone()),
        (0.into(), all.into()),
        "{v}"
    );
    let o = queens(
        &[
            "threshold",
            "--n",
            "12",
            "--k",
            "2",
            "--shard",
            "1/4",
            "--seed-cover",
            seed.to_str().unwrap(),
            "--json",
        ],
        None,
    );
    exited(&o, 0);
    let v = json(&o);
    assert_eq!(v["searched"], 0, "{v}");
    assert!(v["solutions"].as_u64().unwrap() < all, "{v}");
    // A seed of another board is refused, naming the file.
    let o = queens(
        &[
            "threshold",
            "--n",
            "13",
            "--k",
            "2",
            "--seed-cover",
            seed.to_str().unwrap(),
        ],
        None,
    );
    exited(&o, 2);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cover.txt"),
        "{o:?}"
    );
}

/// SIGTERM (and Ctrl-C) stop a run at the next placement: the checkpoint is saved, the
/// bound so far printed, and the process exits 130; run again, it resumes from there.
#[test]
fn sigterm_saves_the_checkpoint_and_exits_130() {
    let root = temp::dir("threshold-sigterm");
    let ck = root.join("ck");
    let child = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args([
            "threshold",
            "--n",
            "24",
            "--k",
            "5",
            "--json",
            "--checkpoint",
        ])
        .arg(&ck)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    exited(&o, 130);
    let v = json(&o);
    assert_eq!(v["status"], "cancelled", "{v}");
    let text = std::fs::read_to_string(ck.join("threshold-checkpoint.txt")).unwrap();
    let head: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (head["n"].clone(), head["k"].clone()),
        (24.into(), 5.into()),
        "{head}"
    );
    assert_eq!(head["solutions"], text.lines().count() - 1, "{head}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("checkpoint"),
        "{o:?}"
    );
}

/// `deploy/threshold-local.sh` walks the shards, merges them into a binary cover, checks
/// it in parts and accepts it from the parts; run again, it keeps what is finished.
#[test]
fn the_local_threshold_script_walks_merges_and_checks_in_parts() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = temp::dir("threshold-local");
    let run = || {
        Command::new("sh")
            .arg(repo.join("deploy/threshold-local.sh"))
            .args(["10", "2", "3", "2", "out"])
            .env("QUEENS", env!("CARGO_BIN_EXE_queens"))
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let o = run();
    exited(&o, 0);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("merged 3 shards of n = 10, k = 2"), "{out}");
    assert!(out.contains("accepted: a(10) ≥ 2"), "{out}");
    assert!(dir.join("out/merged/cover.bin").exists());
    for i in 0..3 {
        assert!(dir.join(format!("out/merged/check-{i}-of-3.json")).exists());
    }
    exited(&run(), 0);
}

/// `--progress-every` prints where the walk is on stderr; witnesses past `--max-memory` stop
/// the run with exit 2, naming the limit, and the checkpoint saved.
#[test]
fn progress_lines_and_the_memory_limit() {
    let o = queens(
        &[
            "threshold",
            "--n",
            "14",
            "--k",
            "3",
            "--progress-every",
            "0.001",
        ],
        None,
    );
    exited(&o, 0);
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("threshold: k = 3, board: first queen "))
        .unwrap_or_else(|| panic!("no progress line of the board walk: {err}"));
    for part in [
        "placements (",
        "/s), ",
        " searched, ",
        " solutions (",
        " witnesses), ",
        " MB, ",
        "% done",
    ] {
        assert!(line.contains(part), "{part:?} in {line}");
    }
    let root = temp::dir("threshold-memory");
    let ck = root.join("ck");
    let o = queens(
        &[
            "threshold",
            "--n",
            "19",
            "--k",
            "4",
            "--max-memory",
            "1",
            "--checkpoint",
            ck.to_str().unwrap(),
        ],
        None,
    );
    exited(&o, 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("outgrew the memory limit"), "{err}");
    assert!(ck.join("threshold-checkpoint.txt").exists());
}

/// A placement of `k` queens found before any round walked the board shows only
/// `a(n) ≤ k - 1`: the certificate claims that bound (`at_most`), holds no cover, and the
/// check accepts it as a bound; checking it in parts is refused, naming the whole check.
#[test]
fn a_counterexample_alone_certifies_an_upper_bound_only() {
    let root = temp::dir("threshold-bound");
    let dir = root.join("c24k6");
    let o = queens(
        &[
            "threshold",
            "--n",
            "24",
            "--k",
            "6",
            "--certificate",
            dir.to_str().unwrap(),
        ],
        None,
    );
    exited(&o, 1);
    let claim: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("threshold.json")).unwrap())
            .unwrap();
    assert_eq!(claim, serde_json::json!({"n": 24, "at_most": 5}));
    assert!(!dir.join(COVER).exists() && !dir.join("cover.bin").exists());
    let o = queens(&["threshold", "check", dir.to_str().unwrap()], None);
    exited(&o, 0);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("accepted: a(24) ≤ 5"), "{out}");
    assert!(out.contains("counterexample: 6 queens"), "{out}");
    let o = queens(
        &["threshold", "check", dir.to_str().unwrap(), "--json"],
        None,
    );
    let v = json(&o);
    assert_eq!(
        (v["covered"].clone(), v["k"].clone()),
        (false.into(), 5.into()),
        "{v}"
    );
    let o = queens(
        &[
            "threshold",
            "check",
            dir.to_str().unwrap(),
            "--shard",
            "0/2",
        ],
        None,
    );
    exited(&o, 2);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("claims only a(24) ≤ 5"), "{err}");
    // Claiming more than the folder holds is rejected: the same folder claiming a(24) = 5
    // has no cover.
    std::fs::write(dir.join("threshold.json"), "{\"n\": 24, \"k\": 5}\n").unwrap();
    let o = queens(&["threshold", "check", dir.to_str().unwrap()], None);
    exited(&o, 1);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("needs a cover"), "{out}");
}
