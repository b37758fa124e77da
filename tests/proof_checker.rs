//! varisat's proofs, in every format, pass the crate's own checkers; broken proofs do not.

use std::time::Instant;

use queens::engine::backtrack;
use queens::engine::sat::solve_with_proof;
use queens::proof::{check_proof, ProofError, ProofFormat};
use queens::Problem;
use varisat::{CnfFormula, ExtendFormula, Lit};

fn formula(clauses: &[Vec<isize>]) -> CnfFormula {
    let mut f = CnfFormula::new();
    for clause in clauses {
        let lits: Vec<Lit> = clause.iter().map(|&x| Lit::from_dimacs(x)).collect();
        f.add_clause(&lits);
    }
    f
}

/// PHP(n+1, n): n+1 pigeons, each in one of n holes, no hole shared. Hard for resolution.
fn pigeonhole(n: usize) -> CnfFormula {
    let p = |pigeon: usize, hole: usize| (pigeon * n + hole + 1) as isize;
    let mut clauses = Vec::new();
    for pigeon in 0..=n {
        clauses.push((0..n).map(|hole| p(pigeon, hole)).collect());
    }
    for hole in 0..n {
        for a in 0..=n {
            for b in a + 1..=n {
                clauses.push(vec![-p(a, hole), -p(b, hole)]);
            }
        }
    }
    formula(&clauses)
}

/// Uniform random 3-SAT from a fixed xorshift seed; far above the threshold ratio 4.26.
fn random_3sat(vars: usize, clauses: usize, mut seed: u64) -> CnfFormula {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut out = Vec::new();
    while out.len() < clauses {
        let clause: Vec<isize> = (0..3)
            .map(|_| {
                let var = (next() % vars as u64) as isize + 1;
                if next() % 2 == 0 {
                    var
                } else {
                    -var
                }
            })
            .collect();
        out.push(clause);
    }
    formula(&out)
}

/// Classic n-queens, pairwise at-most-one, with the given queens fixed by unit clauses.
fn queens_cnf(n: usize, fixed: &[(usize, usize)]) -> CnfFormula {
    let q = |r: usize, c: usize| (r * n + c + 1) as isize;
    let mut clauses: Vec<Vec<isize>> = (0..n).map(|r| (0..n).map(|c| q(r, c)).collect()).collect();
    let cells: Vec<(usize, usize)> = (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
    for (i, &(r1, c1)) in cells.iter().enumerate() {
        for &(r2, c2) in &cells[i + 1..] {
            if r1 == r2 || c1 == c2 || r1.abs_diff(r2) == c1.abs_diff(c2) {
                clauses.push(vec![-q(r1, c1), -q(r2, c2)]);
            }
        }
    }
    clauses.extend(fixed.iter().map(|&(r, c)| vec![q(r, c)]));
    formula(&clauses)
}

fn prove(f: &CnfFormula, format: ProofFormat) -> Vec<u8> {
    let mut proof = Vec::new();
    let model = solve_with_proof(f, format, &mut proof).unwrap();
    assert!(model.is_none(), "expected UNSAT");
    proof
}

fn assert_all_formats_check(f: &CnfFormula) {
    for format in ProofFormat::ALL {
        let proof = prove(f, format);
        let stats = check_proof(f, format, &proof)
            .unwrap_or_else(|e| panic!("{format} proof rejected: {e}"));
        assert!(stats.lemmas >= 1, "{format}: no empty clause counted");
    }
}

fn assert_rejected(f: &CnfFormula, format: ProofFormat, proof: &[u8], what: &str) {
    match check_proof(f, format, proof) {
        Err(ProofError::Rejected { .. } | ProofError::Malformed { .. }) => {}
        other => panic!("{format} proof with {what} was not rejected: {other:?}"),
    }
}

fn lines(proof: &[u8]) -> Vec<String> {
    String::from_utf8(proof.to_vec())
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn unlines(lines: &[String]) -> Vec<u8> {
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

#[test]
fn pigeonhole_proofs_check_in_every_format() {
    for n in 3..=6 {
        assert_all_formats_check(&pigeonhole(n));
    }
}

#[test]
fn random_3sat_proofs_check_in_every_format() {
    for seed in 1..=5 {
        assert_all_formats_check(&random_3sat(40, 280, seed));
    }
}

#[test]
fn queens_with_a_preplacement_that_has_no_completion_checks_in_every_format() {
    // The backtracker finds the first two-queen preplacement of 8-queens without completion.
    let n = 8;
    let fixed = (2..n)
        .map(|c| [(0, 0), (1, c)])
        .find(|fixed| {
            let problem = Problem::new(n).unwrap().with_fixed(fixed).unwrap();
            backtrack::first_solution(&problem, &backtrack::Config::default())
                .0
                .is_none()
        })
        .expect("some preplacement in row 1 has no completion");
    assert_all_formats_check(&queens_cnf(n, &fixed));
}

#[test]
fn satisfiable_formula_reports_a_model_that_satisfies_it() {
    let f = queens_cnf(8, &[]);
    for format in ProofFormat::ALL {
        let mut proof = Vec::new();
        let model = solve_with_proof(&f, format, &mut proof)
            .unwrap()
            .expect("SAT");
        for clause in f.iter() {
            assert!(clause.iter().any(|lit| model.contains(lit)), "{format}");
        }
    }
}

#[test]
fn formulas_refuted_while_loading_still_get_an_empty_clause() {
    // varisat writes no proof step for these; solve_with_proof appends the empty clause.
    let units = formula(&[vec![1, 2], vec![1], vec![-2, 3], vec![-1]]);
    let empty = formula(&[vec![1, 2], vec![]]);
    for f in [&units, &empty] {
        assert_all_formats_check(f);
        assert_eq!(prove(f, ProofFormat::Drat), b"0\n");
    }
}

#[test]
fn duplicate_literals_tautologies_and_duplicate_clauses_are_handled() {
    let mut clauses = vec![vec![1, 1, 2], vec![3, -3, 1], vec![1, 2], vec![1, 2]];
    let php: Vec<Vec<isize>> = pigeonhole(3)
        .iter()
        .map(|c| {
            c.iter()
                .map(|l| l.to_dimacs() + 3 * l.to_dimacs().signum())
                .collect()
        })
        .collect();
    clauses.extend(php);
    assert_all_formats_check(&formula(&clauses));
}

#[test]
fn dropping_the_final_lemmas_is_rejected() {
    let f = pigeonhole(4);
    for format in [ProofFormat::Drat, ProofFormat::Lrat] {
        let proof = lines(&prove(&f, format));
        // The last line adds the empty clause: `0` in DRAT, `id 0 hints 0` in LRAT.
        let last: Vec<&str> = proof.last().unwrap().split(' ').collect();
        assert!(last == ["0"] || last[1] == "0", "{format}: {last:?}");
        let half = unlines(&proof[..proof.len() / 2]);
        assert_rejected(&f, format, &half, "only its first half");
        let no_empty = unlines(&proof[..proof.len() - 1]);
        assert_rejected(&f, format, &no_empty, "no empty clause");
    }
    let binary = prove(&f, ProofFormat::BinaryDrat);
    assert!(binary.ends_with(b"a\0"));
    assert_rejected(
        &f,
        ProofFormat::BinaryDrat,
        &binary[..binary.len() - 2],
        "no empty clause",
    );
    // Cut right after a step: every zero byte ends one.
    let ends: Vec<usize> = (0..binary.len()).filter(|&i| binary[i] == 0).collect();
    let half = &binary[..ends[ends.len() / 2] + 1];
    assert_rejected(&f, ProofFormat::BinaryDrat, half, "only its first half");
    assert_rejected(
        &f,
        ProofFormat::BinaryDrat,
        &binary[..binary.len() / 2],
        "a cut step",
    );
}

#[test]
fn a_flipped_literal_in_a_lemma_is_rejected() {
    let f = pigeonhole(4);
    let drat = lines(&prove(&f, ProofFormat::Drat));
    let k = drat
        .iter()
        .position(|l| !l.starts_with('d') && l.split(' ').count() >= 3)
        .unwrap();
    let mut broken = drat.clone();
    broken[k] = flip_first_literal(&broken[k], 0);
    let err = check_proof(&f, ProofFormat::Drat, &unlines(&broken)).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!("line {}:", k + 1)),
        "{err}"
    );

    let lrat = lines(&prove(&f, ProofFormat::Lrat));
    let k = lrat
        .iter()
        .position(|l| !l.contains(" d ") && !l.contains(" 0 0"))
        .unwrap();
    let mut broken = lrat.clone();
    broken[k] = flip_first_literal(&broken[k], 1);
    let err = check_proof(&f, ProofFormat::Lrat, &unlines(&broken)).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!("line {}:", k + 1)),
        "{err}"
    );
}

fn flip_first_literal(line: &str, skip: usize) -> String {
    let mut tokens: Vec<String> = line.split(' ').map(str::to_string).collect();
    let lit: i64 = tokens[skip].parse().unwrap();
    tokens[skip] = (-lit).to_string();
    tokens.join(" ")
}

#[test]
fn a_removed_hint_is_rejected() {
    let f = pigeonhole(5);
    let lrat = lines(&prove(&f, ProofFormat::Lrat));
    let lemmas: Vec<usize> = (0..lrat.len())
        .filter(|&k| !lrat[k].contains(" d "))
        .collect();
    // Dropping the conflict (last hint) always breaks a strict chain; dropping the first hint
    // breaks these particular lemmas too.
    for &k in [lemmas[0], lemmas[lemmas.len() / 2], *lemmas.last().unwrap()].iter() {
        let tokens: Vec<&str> = lrat[k].split(' ').collect();
        let zero = tokens.iter().skip(1).position(|&t| t == "0").unwrap() + 1;
        let hints = tokens.len() - zero - 2;
        assert!(hints >= 1);
        for drop in [zero + 1, tokens.len() - 2] {
            let mut kept = tokens.clone();
            kept.remove(drop);
            let mut broken = lrat.clone();
            broken[k] = kept.join(" ");
            assert_rejected(&f, ProofFormat::Lrat, &unlines(&broken), "a hint removed");
        }
    }
}

#[test]
fn a_proof_for_a_different_formula_is_rejected() {
    for format in ProofFormat::ALL {
        let proof = prove(&pigeonhole(4), format);
        assert_rejected(&pigeonhole(5), format, &proof, "another formula");
        assert_rejected(&random_3sat(40, 280, 1), format, &proof, "another formula");
        let proof = prove(&random_3sat(40, 280, 1), format);
        assert_rejected(&random_3sat(40, 280, 2), format, &proof, "another formula");
    }
    // LRAT ids are clause positions: the same clauses in another order do not fit.
    let f = pigeonhole(4);
    let mut reversed: Vec<Vec<isize>> = f
        .iter()
        .map(|c| c.iter().map(|l| l.to_dimacs()).collect())
        .collect();
    reversed.reverse();
    let proof = prove(&f, ProofFormat::Lrat);
    assert_rejected(
        &formula(&reversed),
        ProofFormat::Lrat,
        &proof,
        "reordered clauses",
    );
}

#[test]
fn hand_written_proofs() {
    // (x1 ∨ x2), (¬x1 ∨ x2), (x1 ∨ ¬x2), (¬x1 ∨ ¬x2)
    let f = formula(&[vec![1, 2], vec![-1, 2], vec![1, -2], vec![-1, -2]]);
    check_proof(&f, ProofFormat::Drat, b"c a comment\n2 0\nd 1 2 0\n0\n").unwrap();
    check_proof(&f, ProofFormat::BinaryDrat, b"a\x04\x00d\x02\x04\x00a\x00").unwrap();
    let stats = check_proof(
        &f,
        ProofFormat::Lrat,
        b"5 2 0 1 2 0\n5 d 1 2 0\n6 0 5 3 4 0\n",
    )
    .unwrap();
    assert_eq!((stats.lemmas, stats.deletions, stats.hints), (2, 2, 5));
    // The empty clause straight away is not RUP; neither is a lemma over a fresh variable.
    assert_rejected(&f, ProofFormat::Drat, b"0\n", "a non-RUP empty clause");
    assert_rejected(&f, ProofFormat::Drat, b"3 0\n0\n", "a non-RUP lemma");
    // Hints in the wrong order, a deleted hint, a RAT hint, a satisfied hint, repeated ids.
    for bad in [
        &b"5 2 0 1 2 0\n6 0 3 5 4 0\n"[..],
        b"4 d 1 0\n5 2 0 1 2 0\n6 0 5 3 4 0\n",
        b"5 2 0 1 -2 0\n6 0 5 3 4 0\n",
        b"5 2 0 1 2 0\n6 0 5 2 3 4 0\n",
        b"5 2 0 1 2 0\n5 0 5 3 4 0\n",
        b"5 2 0 1 2 0\n",
    ] {
        assert_rejected(&f, ProofFormat::Lrat, bad, "a broken hint chain");
    }
}

#[test]
fn proof_format_names_round_trip() {
    for format in ProofFormat::ALL {
        assert_eq!(format.to_string().parse::<ProofFormat>().unwrap(), format);
    }
    let err = "rup".parse::<ProofFormat>().unwrap_err().to_string();
    assert!(err.contains("unknown format `rup`"), "{err}");
}

/// Timing of the largest pigeonhole instances; run with
/// `cargo test --release --test proof_checker -- --ignored --nocapture`.
#[test]
#[ignore]
fn large_pigeonhole_timings() {
    for n in [7, 8, 9] {
        let f = pigeonhole(n);
        for format in [
            ProofFormat::BinaryDrat,
            ProofFormat::Drat,
            ProofFormat::Lrat,
        ] {
            let start = Instant::now();
            let proof = prove(&f, format);
            let solved = start.elapsed();
            let start = Instant::now();
            let stats = check_proof(&f, format, &proof).unwrap();
            println!(
                "PHP({}, {n}) {format}: solve+write {solved:.2?}, {} bytes, check {:.2?}, {stats:?}",
                n + 1,
                proof.len(),
                start.elapsed()
            );
        }
    }
}
