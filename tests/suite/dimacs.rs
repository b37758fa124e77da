//! `encode`, an outside SAT solver, `decode`: the round trip docs/proofs.md shows, for every
//! encoding through every solver `.ci/run` installs (CaDiCaL, MiniSat, PicoSAT,
//! CryptoMiniSat), on a classic completion, a region puzzle and an unsolvable completion. A
//! satisfiable model decodes with the instance and with the CNF alone, and its board is
//! verified here again; a model of another encoding's or another instance's CNF is refused
//! saying which.

use std::path::Path;
use std::process::Command;

use queens::encode::amo::Encoding;
use queens::{formats, Problem};

use super::cli::{exited, instance, json, queens};
use crate::temp;

/// The solvers, each as the command that writes its answer to `out` (`minisat` writes its
/// model to a file argument, the others to stdout).
const SOLVERS: [&str; 4] = ["cadical", "minisat", "picosat", "cryptominisat5"];

/// Runs `solver` on `cnf`, its answer in `out`. Exit 10 is SAT, 20 UNSAT (all four say so).
fn run_solver(solver: &str, cnf: &Path, out: &Path) -> i32 {
    let mut cmd = Command::new(solver);
    match solver {
        "minisat" => cmd.arg("-verb=0").arg(cnf).arg(out),
        "cadical" => cmd.arg("-q").arg(cnf),
        "cryptominisat5" => cmd.arg("--verb").arg("0").arg(cnf),
        _ => cmd.arg(cnf),
    };
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("running {solver}: {e}"));
    if solver != "minisat" {
        std::fs::write(out, &o.stdout).unwrap();
    }
    o.status.code().unwrap_or(-1)
}

fn load(name: &str) -> Problem {
    formats::read_path(Path::new(&instance(name))).unwrap()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The board of a `decode --json` answer, verified against the instance here.
fn verified_board(o: &std::process::Output, p: &Problem, what: &str) -> Vec<(usize, usize)> {
    exited(o, 0);
    let v = json(o);
    assert_eq!(v["status"], "sat", "{what}");
    let queens: Vec<(usize, usize)> = serde_json::from_value(v["queens"].clone()).unwrap();
    queens::verify(p, &queens).unwrap_or_else(|e| panic!("{what}: {e}"));
    queens
}

#[test]
fn every_encoding_round_trips_through_every_installed_solver() {
    let solvers: Vec<&str> = SOLVERS
        .into_iter()
        .filter(|s| {
            let found = queens::engine::ext::find_program(s).is_some();
            if !found {
                crate::need::missing(s, "the SAT solver is not installed");
            }
            found
        })
        .collect();
    if solvers.is_empty() {
        return;
    }
    let dir = temp::dir("dimacs");
    for (name, sat) in [
        ("nauck-1850.txt", true),
        ("region-7.txt", true),
        ("unsolvable-completion.txt", false),
    ] {
        let path = instance(name);
        let p = load(name);
        for encoding in Encoding::ALL {
            let cnf = dir.join(format!("{name}.{encoding}.cnf"));
            let o = queens(
                &[
                    "encode",
                    &path,
                    "--encoding",
                    encoding.name(),
                    "-o",
                    cnf.to_str().unwrap(),
                ],
                None,
            );
            exited(&o, 0);
            for solver in &solvers {
                let what = format!("{name}, {encoding}, {solver}");
                let out = dir.join(format!("{name}.{encoding}.{solver}.out"));
                let code = run_solver(solver, &cnf, &out);
                assert_eq!(code, if sat { 10 } else { 20 }, "{what}");
                let model = out.to_str().unwrap();
                let cnf = cnf.to_str().unwrap();
                // As docs/proofs.md shows it: the instance and the model only.
                let by_instance = queens(&["decode", &path, model, "--json"], None);
                // With the CNF alone, and with both.
                let by_cnf = queens(&["decode", model, "--cnf", cnf, "--json"], None);
                let by_both = queens(&["decode", &path, model, "--cnf", cnf, "--json"], None);
                for o in [&by_instance, &by_cnf, &by_both] {
                    if sat {
                        verified_board(o, &p, &what);
                    } else {
                        exited(o, 1);
                        assert_eq!(json(o)["status"], "unsat", "{what}");
                    }
                }
                if sat {
                    let boards =
                        [&by_instance, &by_cnf, &by_both].map(|o| json(o)["queens"].clone());
                    assert!(boards.iter().all(|b| *b == boards[0]), "{what}");
                }
            }
        }
    }
}

#[test]
fn the_header_says_what_decode_needs_and_matches_the_formula() {
    let p = load("nauck-1850.txt");
    for encoding in Encoding::ALL.into_iter().chain([Encoding::Auto]) {
        for rings in [false, true] {
            let inst = instance("nauck-1850.txt");
            let mut args = vec!["encode", inst.as_str(), "--encoding", encoding.name()];
            if rings {
                args.push("--rings");
            }
            let o = queens(&args, None);
            exited(&o, 0);
            let text = String::from_utf8(o.stdout).unwrap();
            let vars = formats::dimacs::header_vars("cnf", &text).unwrap();
            let (header, _) = queens::ops::CnfHeader::read("cnf", &text).unwrap().unwrap();
            assert_eq!(header.vars, vars, "{encoding} {rings}");
            assert_eq!((header.encoding, header.rings), (encoding, rings));
            assert_eq!(
                queens::ops::cnf_vars(&p, encoding, rings),
                Some(vars),
                "{encoding} rings={rings}: the counted variables are the CNF's"
            );
            let cells = text.lines().filter(|l| l.starts_with("c cell ")).count();
            assert_eq!(header.cells, cells);
            assert_eq!(
                header.instance_sha256,
                queens::ops::sha256_hex(&queens::ops::instance_json(&p))
            );
        }
    }
}

#[test]
fn a_model_of_another_encoding_or_instance_is_refused_saying_which() {
    let dir = temp::dir("dimacs-refused");
    let path = instance("nauck-1850.txt");
    let encode = |encoding: &str, inst: &str| {
        let cnf = dir.join(format!("{encoding}.{}.cnf", inst.len()));
        let o = queens(
            &[
                "encode",
                inst,
                "--encoding",
                encoding,
                "-o",
                cnf.to_str().unwrap(),
            ],
            None,
        );
        exited(&o, 0);
        let text = std::fs::read_to_string(&cnf).unwrap();
        (cnf, super::gen::external_solver_output(&text))
    };
    let (seq_cnf, seq_model) = encode("seq", &path);
    let (pairwise_cnf, _) = encode("pairwise", &path);
    // A seq model decoded as pairwise: the model has more variables than that CNF.
    let o = queens(
        &["decode", &path, "-", "--encoding", "pairwise"],
        Some(&seq_model),
    );
    exited(&o, 2);
    let err = stderr(&o);
    assert!(
        err.contains(
            "as the CNF of the seq encoding of this instance has: a model of another encoding"
        ),
        "{err}"
    );
    let o = queens(
        &["decode", "-", "--cnf", pairwise_cnf.to_str().unwrap()],
        Some(&seq_model),
    );
    exited(&o, 2);
    assert!(
        stderr(&o).contains("a model of another encoding"),
        "{}",
        stderr(&o)
    );
    // A pairwise model (the cells only) against the seq CNF: fewer variables, as exactly the
    // pairwise CNF has.
    let cells_only: String = {
        let (_, text) = encode("pairwise", &path);
        text
    };
    let o = queens(
        &["decode", "-", "--cnf", seq_cnf.to_str().unwrap()],
        Some(&cells_only),
    );
    exited(&o, 2);
    assert!(
        stderr(&o).contains(
            "as the CNF of the auto, pairwise, commander or product encoding of this instance has"
        ),
        "{}",
        stderr(&o)
    );
    // The seq CNF with another instance given: named as another instance's.
    let o = queens(
        &[
            "decode",
            &instance("blocked-8.txt"),
            "-",
            "--cnf",
            seq_cnf.to_str().unwrap(),
        ],
        Some(&seq_model),
    );
    exited(&o, 2);
    assert!(
        stderr(&o).contains("the CNF was made from another instance"),
        "{}",
        stderr(&o)
    );
    // A model of a larger instance's CNF, with no CNF at hand: more variables than any CNF
    // of this instance has.
    let (_, big_model) = encode("seq", &instance("region-9.json"));
    let o = queens(&["decode", &path, "-"], Some(&big_model));
    exited(&o, 2);
    assert!(
        stderr(&o).contains("a model of another instance"),
        "{}",
        stderr(&o)
    );
    // A CNF not written by encode needs the instance.
    let bare = dir.join("bare.cnf");
    std::fs::write(&bare, "p cnf 2 1\n1 2 0\n").unwrap();
    let o = queens(
        &["decode", "-", "--cnf", bare.to_str().unwrap()],
        Some("v 1 2 0\n"),
    );
    exited(&o, 2);
    assert!(
        stderr(&o).contains("give the instance too"),
        "{}",
        stderr(&o)
    );
    // An edited header is named.
    let text = std::fs::read_to_string(&seq_cnf).unwrap();
    let edited = dir.join("edited.cnf");
    std::fs::write(&edited, text.replacen("\"n\":8", "\"n\":9", 1)).unwrap();
    let o = queens(
        &["decode", "-", "--cnf", edited.to_str().unwrap()],
        Some(&seq_model),
    );
    exited(&o, 2);
    assert!(
        stderr(&o).contains("the header was edited"),
        "{}",
        stderr(&o)
    );
}
