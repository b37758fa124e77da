//! Certified "no solution": proofs from the backtracker (and varisat) for every family of
//! instance, checked by the built-in checker, rejected when mutated, and accepted by
//! drat-trim and lrat-check where they are installed.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use proptest::prelude::*;
use queens::cnf::FixedMode;
use queens::encode::amo::Encoding;
use queens::engine::prove::{solve_certified, Certificate, CertifiedAnswer};
use queens::engine::{Budget, EngineSpec};
use queens::proof::{check_proof, ProofFormat};
use queens::Problem;
use varisat::CnfFormula;

use super::gen;
use crate::temp;

const ENCODINGS: [Encoding; 6] = [
    Encoding::Pairwise,
    Encoding::Seq,
    Encoding::Commander,
    Encoding::Product,
    Encoding::Bimander,
    Encoding::Auto,
];

fn certify(
    p: &Problem,
    spec: EngineSpec,
    enc: Encoding,
    mode: FixedMode,
    f: ProofFormat,
) -> CertifiedAnswer {
    solve_certified(p, spec, enc, mode, f, &Budget::default())
        .unwrap_or_else(|e| panic!("{spec} {enc} {mode:?} {f}: {e}"))
        .answer
}

/// The LRAT proof with its first lemma left out that a later lemma names as a hint (the
/// empty clause is no lemma to drop: that mutation is tested on its own). A lemma nobody
/// names can be left out of a valid proof: the search on several threads streams each
/// subtree's lemmas as it goes, so a subtree whose set the nodes above do not need leaves
/// lemmas the refutation never uses.
fn without_a_used_lemma(proof: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(proof).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    // Ids are used again once deleted: a hint names the line that holds its id at that point.
    let mut holder: HashMap<&str, usize> = HashMap::new();
    let mut used = vec![false; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        let words: Vec<&str> = l.split_whitespace().collect();
        let Some((id, body)) = words.split_first() else {
            continue;
        };
        if body.first() == Some(&"d") {
            for d in body[1..].iter().take_while(|w| **w != "0") {
                holder.remove(d);
            }
            continue;
        }
        let lits = body.iter().take_while(|w| **w != "0").count();
        for h in body.iter().skip(lits + 1).take_while(|w| **w != "0") {
            if let Some(&j) = holder.get(h) {
                used[j] = true;
            }
        }
        if lits > 0 {
            holder.insert(id, i);
        }
    }
    let at = used.iter().position(|&u| u)?;
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != at)
        .map(|(_, l)| *l)
        .collect();
    Some((kept.join("\n") + "\n").into_bytes())
}

/// The proof without its final empty clause.
fn without_empty_clause(proof: &[u8], format: ProofFormat) -> Vec<u8> {
    match format {
        ProofFormat::BinaryDrat => {
            assert!(
                proof.ends_with(b"a\0"),
                "a binary proof ends with the empty clause"
            );
            proof[..proof.len() - 2].to_vec()
        }
        _ => {
            let text = std::str::from_utf8(proof).unwrap();
            let mut lines: Vec<&str> = text.lines().collect();
            let last = lines.pop().unwrap();
            let ends_empty = match format {
                ProofFormat::Lrat => last.split_whitespace().nth(1) == Some("0"),
                _ => last.trim() == "0",
            };
            assert!(ends_empty, "the proof ends with the empty clause: {last}");
            (lines.join("\n") + "\n").into_bytes()
        }
    }
}

fn assert_rejected(formula: &CnfFormula, format: ProofFormat, proof: &[u8], what: &str) {
    assert!(
        check_proof(formula, format, proof).is_err(),
        "a {format} proof {what} was accepted"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Every family (fixed queens, blocked cells, excluded diagonals, regions, both rules),
    /// both CNF modes, every encoding and format: the backtracker's answer agrees with
    /// brute force, and its UNSAT proof checks; a proof without its empty clause, or (LRAT)
    /// without a lemma a later one names as a hint, does not.
    #[test]
    fn backtracker_proofs_check_for_every_family(
        p in gen::problem_with_diagonals(7),
        enc in 0..ENCODINGS.len(),
        assume in any::<bool>(),
        format in 0..3usize,
        threads in 1..3usize,
    ) {
        let (enc, format) = (ENCODINGS[enc], ProofFormat::ALL[format]);
        let mode = if assume { FixedMode::Assume } else { FixedMode::Simplify };
        let solvable = !gen::brute_force(&p).is_empty();
        match certify(&p, EngineSpec::Backtrack { threads }, enc, mode, format) {
            CertifiedAnswer::Sat(q) => {
                prop_assert!(solvable);
                prop_assert!(queens::verify(&p, &q).is_ok());
            }
            CertifiedAnswer::Unsat(cert) => {
                prop_assert!(!solvable, "a proof of a solvable problem");
                let Certificate { cnf, proof, .. } = *cert;
                prop_assert!(check_proof(&cnf.formula, format, &proof).is_ok());
                assert_rejected(&cnf.formula, format, &without_empty_clause(&proof, format), "without its empty clause");
                if format == ProofFormat::Lrat {
                    if let Some(dropped) = without_a_used_lemma(&proof) {
                        assert_rejected(&cnf.formula, format, &dropped, "without a lemma it uses");
                    }
                }
            }
            CertifiedAnswer::GaveUp | CertifiedAnswer::Interrupted => {
                prop_assert!(false, "no budget, no interruption")
            }
        }
    }

    /// varisat proves the same instances; in `Assume` mode too, now that assumptions are
    /// written as unit clauses.
    #[test]
    fn sat_proofs_check_in_both_modes(
        p in gen::problem_with_diagonals(6),
        assume in any::<bool>(),
        format in 0..3usize,
    ) {
        let format = ProofFormat::ALL[format];
        let mode = if assume { FixedMode::Assume } else { FixedMode::Simplify };
        let solvable = !gen::brute_force(&p).is_empty();
        match certify(&p, EngineSpec::Sat(Encoding::Auto), Encoding::Auto, mode, format) {
            CertifiedAnswer::Sat(_) => prop_assert!(solvable),
            CertifiedAnswer::Unsat(cert) => {
                prop_assert!(!solvable);
                prop_assert!(check_proof(&cert.cnf.formula, format, &cert.proof).is_ok());
            }
            CertifiedAnswer::GaveUp | CertifiedAnswer::Interrupted => {
                prop_assert!(false, "no budget, no interruption")
            }
        }
    }
}

/// UNSAT instances that need a search, one per family.
fn unsat_instances() -> Vec<(&'static str, Problem)> {
    let parse = |name, text: &str| queens::formats::parse(name, text).unwrap();
    vec![
        // 6-queens has 4 solutions, none with a queen in a corner.
        (
            "6-queens, corner queen",
            parse("corner", "Q.....\n......\n......\n......\n......\n......\n"),
        ),
        ("3-queens", Problem::new(3).unwrap()),
        (
            "the unsolvable completion",
            queens::formats::read_path(Path::new(&super::cli::instance(
                "unsolvable-completion.txt",
            )))
            .unwrap(),
        ),
        (
            "10-queens, 4 excluded diagonals",
            Problem::new(10)
                .unwrap()
                .with_excluded(&[
                    queens::model::Diagonal::Sum(9),
                    queens::model::Diagonal::Diff(9),
                    queens::model::Diagonal::Sum(8),
                    queens::model::Diagonal::Diff(10),
                ])
                .unwrap(),
        ),
    ]
}

/// An outside checker's verdict on a proof: `None` when it is not installed.
fn outside_check(checker: &str, dir: &Path, cnf: &[u8], proof: &[u8]) -> Option<bool> {
    let (c, p) = (dir.join("f.cnf"), dir.join("f.proof"));
    std::fs::write(&c, cnf).unwrap();
    std::fs::write(&p, proof).unwrap();
    let Ok(out) = Command::new(checker).arg(&c).arg(&p).output() else {
        crate::need::missing(checker, "the outside proof checker is not on PATH");
        return None;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .any(|l| matches!(l.trim(), "s VERIFIED" | "c VERIFIED" | "s VERIFIED UNSAT")),
    )
}

#[test]
fn outside_checkers_accept_the_backtrackers_proofs() {
    let dir = temp::dir("proofs");
    let mut checked = 0;
    for (name, p) in unsat_instances() {
        for enc in [Encoding::Pairwise, Encoding::Auto, Encoding::Seq] {
            for (format, checker) in [
                (ProofFormat::Drat, "drat-trim"),
                (ProofFormat::BinaryDrat, "drat-trim"),
                (ProofFormat::Lrat, "lrat-check"),
                (ProofFormat::Lrat, "cake_lpr"),
            ] {
                let CertifiedAnswer::Unsat(cert) = certify(
                    &p,
                    EngineSpec::Backtrack { threads: 0 },
                    enc,
                    FixedMode::Simplify,
                    format,
                ) else {
                    panic!("{name} is unsatisfiable");
                };
                let mut cnf = Vec::new();
                cert.cnf.write_dimacs(&mut cnf, &[]).unwrap();
                match outside_check(checker, &dir, &cnf, &cert.proof) {
                    Some(ok) => {
                        assert!(ok, "{checker} rejects the {format} proof of {name} ({enc})");
                        checked += 1;
                    }
                    None => eprintln!("{checker}: outside check skipped"),
                }
            }
        }
    }
    eprintln!("{checked} proofs checked outside");
}

#[test]
fn a_hard_csplib_instance_is_certified_by_the_backtracker() {
    let Some(path) = crate::need::shared_data("csplib-prob079-excluded-diagonals.jsonl") else {
        return;
    };
    let selection = queens::formats::sources::Selection {
        filters: vec![("id".into(), "diag-21-4-102".into())],
        first: Some(19),
        take: None,
    };
    let p = queens::formats::sources::load_one(&path, &selection)
        .unwrap()
        .problem;
    let CertifiedAnswer::Unsat(cert) = certify(
        &p,
        EngineSpec::Backtrack { threads: 0 },
        Encoding::Auto,
        FixedMode::Simplify,
        ProofFormat::BinaryDrat,
    ) else {
        panic!("diag-21-4-102 (first 19 diagonals) is unsatisfiable");
    };
    assert!(cert.lemmas > 1000, "a real search: {} lemmas", cert.lemmas);
    let dir = temp::dir("hard");
    let mut cnf = Vec::new();
    cert.cnf.write_dimacs(&mut cnf, &[]).unwrap();
    match outside_check("drat-trim", &dir, &cnf, &cert.proof) {
        Some(ok) => assert!(ok, "drat-trim rejects the proof of diag-21-4-102"),
        None => eprintln!("drat-trim: outside check skipped"),
    }
}

#[test]
fn cli_backtrack_proof_round_trip_and_certified_explanation() {
    let dir = temp::dir("cli-proof");
    let file = super::cli::instance("unsolvable-completion.txt");
    for format in ProofFormat::ALL {
        let (proof, cnf) = (
            dir.join(format!("p.{format}")),
            dir.join(format!("p.{format}.cnf")),
        );
        let o = super::cli::queens(
            &[
                "solve",
                &file,
                "--proof",
                proof.to_str().unwrap(),
                "--proof-format",
                &format.to_string(),
                "--json",
            ],
            None,
        );
        super::cli::exited(&o, 1);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        // The default engine, auto, proves with the backtracker.
        assert_eq!(v["engine"], "auto");
        assert_eq!(v["answered_by"], "backtrack");
        assert_eq!(v["proof"]["checked"], true);
        assert_eq!(v["proof"]["cnf"].as_str(), cnf.to_str());
        let formula =
            varisat::dimacs::DimacsParser::parse(&std::fs::read(&cnf).unwrap()[..]).unwrap();
        let bytes = std::fs::read(&proof).unwrap();
        assert_eq!(bytes.len() as u64, v["proof"]["bytes"].as_u64().unwrap());
        check_proof(&formula, format, &bytes).expect("the written proof checks");
    }
    // explain: the minimal core, certified on its own board.
    let proof = dir.join("core.lrat");
    let o = super::cli::queens(
        &[
            "explain",
            &file,
            "--proof",
            proof.to_str().unwrap(),
            "--proof-format",
            "lrat",
            "--json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["engine"], "backtrack");
    assert_eq!(v["core"], serde_json::json!([[0, 4], [4, 7], [7, 0]]));
    let cnf = dir.join("core.lrat.cnf");
    let formula = varisat::dimacs::DimacsParser::parse(&std::fs::read(&cnf).unwrap()[..]).unwrap();
    check_proof(&formula, ProofFormat::Lrat, &std::fs::read(&proof).unwrap())
        .expect("the core's proof checks");
    // Under --timeout the explanation runs in a child process; its files come back from it
    // (LRAT, the default format).
    let proof = dir.join("core-timeout.lrat");
    let o = super::cli::queens(
        &[
            "explain",
            &file,
            "--proof",
            proof.to_str().unwrap(),
            "--timeout",
            "60",
        ],
        None,
    );
    super::cli::exited(&o, 1);
    let cnf = dir.join("core-timeout.lrat.cnf");
    let formula = varisat::dimacs::DimacsParser::parse(&std::fs::read(&cnf).unwrap()[..]).unwrap();
    check_proof(&formula, ProofFormat::Lrat, &std::fs::read(&proof).unwrap())
        .expect("the core's proof from the child checks");
}

#[test]
fn explain_by_search_minimises_excluded_diagonals() {
    // 10-queens with 4 excluded diagonals has no solution; the core keeps only diagonals
    // whose removal makes the rest solvable, and it is minimal.
    let (_, p) = unsat_instances().pop().unwrap();
    let found = queens::engine::explain::explain(&p, &Budget::default()).unwrap();
    let Some(queens::engine::sat::Explanation::Unsolvable { excluded_core, .. }) =
        found.explanation
    else {
        panic!("unsolvable");
    };
    assert!(!excluded_core.is_empty() && excluded_core.len() <= 4);
    let alone = p.replace_excluded(&excluded_core).unwrap();
    assert!(
        gen::brute_force(&alone).is_empty(),
        "the core alone is unsolvable"
    );
    for i in 0..excluded_core.len() {
        let mut fewer = excluded_core.clone();
        fewer.remove(i);
        let p = p.replace_excluded(&fewer).unwrap();
        assert!(
            !gen::brute_force(&p).is_empty(),
            "dropping {i} leaves it unsolvable"
        );
    }
}

#[test]
fn race_answers_with_either_engine_and_says_which() {
    let file = super::cli::instance("unsolvable-completion.txt");
    let o = super::cli::queens(&["solve", &file, "--engine", "race", "--json"], None);
    super::cli::exited(&o, 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "unsat");
    assert_eq!(v["engine"], "race");
    assert!(
        ["backtrack", "sat"].contains(&v["answered_by"].as_str().unwrap()),
        "{v}"
    );
    // The answer says what ran and which side answered.
    assert_eq!(
        v["why"].as_str().unwrap(),
        format!(
            "race: the backtracker here against the SAT engine in a child process; the {} \
             engine answered first",
            v["answered_by"].as_str().unwrap()
        ),
        "{v}"
    );
    let o = super::cli::queens(
        &[
            "solve",
            &super::cli::instance("nauck-1850.txt"),
            "--engine",
            "race",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("engine: ") && l.ends_with(" engine answered first)")),
        "{text}"
    );
    // A race counts nothing: a usage error, not a wrong count.
    let o = super::cli::queens(&["count", "--n", "6", "--engine", "race"], None);
    assert_eq!(o.status.code(), Some(2));
    // compare takes race as an engine.
    let o = super::cli::queens(
        &["compare", &file, "--engines", "backtrack,race", "--json"],
        None,
    );
    super::cli::exited(&o, 0);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("\"answered_by\""), "{text}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The multi-word board (every board above 64 wide) writes proofs through its own
    /// paths: sets of many words, and no per-row masks. Forced here on small boards.
    #[test]
    fn large_board_proofs_check(p in gen::problem_with_diagonals(7), threads in 1..3usize, binary in any::<bool>()) {
        use queens::engine::backtrack::certify::{refute, DratStyle, Refutation};
        use queens::engine::backtrack::{BoardKind, Config};
        let cnf = queens::engine::sat::encode_problem(&p, Encoding::Auto, FixedMode::Simplify);
        let vars = cnf.map.var_table();
        let style = if binary { DratStyle::Binary } else { DratStyle::Text };
        let config = Config { board: BoardKind::Large, threads, ..Config::default() };
        let solvable = !gen::brute_force(&p).is_empty();
        match refute(&p, &vars, style, u64::MAX, &config).0 {
            Refutation::Sat(q) => {
                prop_assert!(solvable);
                prop_assert!(queens::verify(&p, &q).is_ok());
            }
            Refutation::Unsat(proof) => {
                prop_assert!(!solvable);
                let checked = queens::proof::check_drat(&cnf.formula, &proof.bytes, binary);
                prop_assert!(checked.is_ok(), "{:?}", checked);
            }
            other => prop_assert!(false, "{:?}", other),
        }
    }
}

#[test]
fn a_board_wider_than_64_is_certified() {
    // 66×66 (the multi-word board): a solution's first 52 queens fixed, and the cells of its
    // last 14 blocked. The rest has no other completion, which takes a search to see.
    let n = 66;
    let (Some(solution), _) =
        queens::engine::backtrack::first_solution(&Problem::new(n).unwrap(), &Default::default())
    else {
        panic!("66-queens has solutions");
    };
    let p = Problem::new(n)
        .unwrap()
        .with_fixed(&solution[..52])
        .unwrap()
        .with_blocked(&solution[52..])
        .unwrap();
    let CertifiedAnswer::Unsat(cert) = certify(
        &p,
        EngineSpec::Backtrack { threads: 0 },
        Encoding::Auto,
        FixedMode::Simplify,
        ProofFormat::Drat,
    ) else {
        panic!("no other completion");
    };
    assert!(
        cert.lemmas > 1,
        "a search, not a dead root: {}",
        cert.lemmas
    );
    assert!(check_proof(&cert.cnf.formula, ProofFormat::Drat, &cert.proof).is_ok());
}

/// The LRAT lemma lines of a proof: `(line index, id, hints)`.
fn lrat_lemmas(text: &str) -> Vec<(usize, String, Vec<String>)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let words: Vec<&str> = l.split_whitespace().collect();
            if words.get(1) == Some(&"d") || words.is_empty() {
                return None;
            }
            let zero = words.iter().skip(1).position(|w| *w == "0")? + 1;
            let hints = words[zero + 1..words.len() - 1]
                .iter()
                .map(|w| w.to_string())
                .collect();
            Some((i, words[0].to_string(), hints))
        })
        .collect()
}

/// The proof with lemma line `at` rewritten with `hints`.
fn with_hints(text: &str, at: usize, hints: &[String]) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let words: Vec<&str> = lines[at].split_whitespace().collect();
    let zero = words.iter().skip(1).position(|w| *w == "0").unwrap() + 1;
    let mut new: Vec<String> = words[..=zero].iter().map(|w| w.to_string()).collect();
    new.extend(hints.iter().cloned());
    new.push("0".into());
    lines[at] = new.join(" ");
    (lines.join("\n") + "\n").into_bytes()
}

/// A mutated LRAT proof is rejected, the error naming lemma `id`.
fn assert_names_lemma(formula: &CnfFormula, proof: &[u8], id: &str, what: &str) {
    match queens::proof::check_lrat(formula, proof) {
        Ok(_) => panic!("an LRAT proof {what} was accepted"),
        Err(e) => assert!(
            e.to_string().contains(&format!("lemma {id} ")),
            "the error for a proof {what} names lemma {id}: {e}"
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// The backtracker's own LRAT (pairwise CNF, hints from the search) for every family,
    /// one and two threads: it passes the hint-only checker, and a lemma with its last hint
    /// dropped, with its last hint pointing at the wrong clause, or a proof with a lemma
    /// removed, is rejected with the lemma named.
    #[test]
    fn backtracker_lrat_follows_its_hints(
        p in gen::problem_with_diagonals(8),
        threads in 1..3usize,
    ) {
        let solvable = !gen::brute_force(&p).is_empty();
        let spec = EngineSpec::Backtrack { threads };
        match certify(&p, spec, Encoding::Auto, FixedMode::Simplify, ProofFormat::Lrat) {
            CertifiedAnswer::Sat(_) => prop_assert!(solvable),
            CertifiedAnswer::Unsat(cert) => {
                prop_assert!(!solvable);
                prop_assert_eq!(cert.encoding, Encoding::Pairwise);
                let f = &cert.cnf.formula;
                let stats = queens::proof::check_lrat(f, &cert.proof).unwrap();
                prop_assert_eq!(stats.lemmas, cert.lemmas);
                let text = std::str::from_utf8(&cert.proof).unwrap();
                let lemmas = lrat_lemmas(text);
                for (at, id, hints) in &lemmas {
                    if hints.len() < 2 {
                        continue;
                    }
                    let dropped = with_hints(text, *at, &hints[..hints.len() - 1]);
                    assert_names_lemma(f, &dropped, id, "with a hint dropped");
                    let mut wrong = hints.clone();
                    *wrong.last_mut().unwrap() = hints[0].clone();
                    assert_names_lemma(f, &with_hints(text, *at, &wrong), id, "with a wrong hint");
                    break;
                }
                // Removing a lemma that a later one names: that one is rejected.
                let names = |h: &String, id: &String| h == id;
                if let Some((at, id, _)) = lemmas.iter().find(|(_, id, _)| {
                    lemmas.iter().any(|(_, _, hints)| hints.iter().any(|h| names(h, id)))
                }) {
                    let user = lemmas
                        .iter()
                        .find(|(_, _, hints)| hints.iter().any(|h| h == id))
                        .map(|(_, user, _)| user.clone())
                        .unwrap();
                    let kept: Vec<&str> = text
                        .lines()
                        .enumerate()
                        .filter(|&(i, _)| i != *at)
                        .map(|(_, l)| l)
                        .collect();
                    let removed = (kept.join("\n") + "\n").into_bytes();
                    assert_names_lemma(f, &removed, &user, "with a lemma removed");
                }
            }
            CertifiedAnswer::GaveUp | CertifiedAnswer::Interrupted => {
                prop_assert!(false, "no budget, no interruption")
            }
        }
    }
}

/// A proof written to a file is checked as the search writes it (one or two threads, text
/// or binary LRAT), is in the file exactly as checked (the file's own check agrees), and
/// `lrat-check` (text) and `cake_lpr` (both) accept it where they are installed.
#[test]
fn lrat_streamed_to_a_file_checks_inside_and_outside() {
    use queens::engine::prove::{solve_certified_to, ProofTarget};
    let dir = temp::dir("lrat-file");
    for (name, p) in unsat_instances() {
        for (threads, format) in [
            (1, ProofFormat::Lrat),
            (2, ProofFormat::Lrat),
            (1, ProofFormat::BinaryLrat),
            (2, ProofFormat::BinaryLrat),
        ] {
            let path = dir.join("p.lrat");
            let certified = solve_certified_to(
                &p,
                EngineSpec::Backtrack { threads },
                Encoding::Auto,
                FixedMode::Simplify,
                format,
                &Budget::default(),
                &ProofTarget::File(path.clone()),
            )
            .unwrap();
            let CertifiedAnswer::Unsat(cert) = certified.answer else {
                panic!("{name} is unsatisfiable");
            };
            assert_eq!(cert.format, format);
            assert_eq!(cert.proof_file.as_deref(), Some(path.as_path()));
            assert!(cert.proof.is_empty(), "the proof is in its file only");
            let stats = match format {
                ProofFormat::Lrat => queens::proof::check_lrat_file(&cert.cnf.formula, &path),
                _ => queens::proof::check_lrat_binary_file(&cert.cnf.formula, &path),
            }
            .unwrap();
            assert_eq!(stats.lemmas, cert.lemmas);
            assert_eq!(std::fs::metadata(&path).unwrap().len(), cert.bytes);
            let proof = std::fs::read(&path).unwrap();
            let mut cnf = Vec::new();
            cert.cnf.write_dimacs(&mut cnf, &[]).unwrap();
            let checkers: &[&str] = match format {
                ProofFormat::Lrat => &["lrat-check", "cake_lpr"],
                _ => &["cake_lpr"],
            };
            for checker in checkers {
                match outside_check(checker, &dir, &cnf, &proof) {
                    Some(ok) => assert!(
                        ok,
                        "{checker} rejects the {format} proof of {name}, {threads} threads"
                    ),
                    None => eprintln!("{checker}: outside check skipped"),
                }
            }
            // Nothing but the proof is left behind.
            let left: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
                .collect();
            assert!(left.is_empty(), "part files left: {left:?}");
        }
    }
}

/// A binary LRAT proof with a hint dropped or a lemma removed is rejected, the error naming
/// the byte offset of the step and the lemma.
#[test]
fn binary_lrat_mutations_are_rejected_with_the_lemma_named() {
    let (name, p) = unsat_instances().into_iter().next().unwrap();
    let cert = match certify(
        &p,
        EngineSpec::Backtrack { threads: 1 },
        Encoding::Auto,
        FixedMode::Simplify,
        ProofFormat::BinaryLrat,
    ) {
        CertifiedAnswer::Unsat(cert) => cert,
        _ => panic!("{name} is unsatisfiable"),
    };
    let f = &cert.cnf.formula;
    let proof = &cert.proof;
    let stats = queens::proof::check_lrat_binary_reader(f, &proof[..]).unwrap();
    assert_eq!(stats.lemmas, cert.lemmas);
    // Steps: (start, id, end of literals (their 0), end of hints (their 0)).
    let varint = |at: &mut usize| {
        let (mut v, mut shift) = (0u64, 0);
        loop {
            let b = proof[*at];
            *at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return v;
            }
            shift += 7;
        }
    };
    let mut steps = Vec::new();
    let mut at = 0;
    while at < proof.len() {
        let start = at;
        let kind = proof[at];
        at += 1;
        if kind == b'd' {
            while varint(&mut at) != 0 {}
            continue;
        }
        let id = varint(&mut at) / 2;
        while varint(&mut at) != 0 {}
        let lits_end = at - 1;
        let mut hints = 0;
        while varint(&mut at) != 0 {
            hints += 1;
        }
        steps.push((start, id, lits_end, at - 1, hints));
    }
    // A lemma with two or more hints, its last hint dropped.
    let &(start, id, _, hints_end, _) = steps.iter().find(|s| s.4 >= 2).unwrap();
    let mut last = hints_end - 1;
    while last > 0 && proof[last - 1] & 0x80 != 0 {
        last -= 1;
    }
    let mut dropped = proof[..last].to_vec();
    dropped.extend_from_slice(&proof[hints_end..]);
    match queens::proof::check_lrat_binary_reader(f, &dropped[..]) {
        Ok(_) => panic!("a binary LRAT proof with a hint dropped was accepted"),
        Err(e) => {
            let e = e.to_string();
            assert!(e.contains(&format!("lemma {id} ")), "names lemma {id}: {e}");
            assert!(
                e.contains(&format!("byte {start}")),
                "names byte {start}: {e}"
            );
        }
    }
    // The first lemma removed: a later step names it.
    let (start, _, _, end, _) = steps[0];
    let mut removed = proof[..start].to_vec();
    removed.extend_from_slice(&proof[end + 1..]);
    if steps.len() > 1 {
        assert!(queens::proof::check_lrat_binary_reader(f, &removed[..]).is_err());
    }
}
