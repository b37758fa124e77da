//! The SAT engine against known facts, the backtracker and the verifier.

use proptest::prelude::*;
use queens::encode::amo::Encoding;
use queens::engine::backtrack::{self, Config};
use queens::engine::sat::{self, Explanation};
use queens::{formats::dimacs, Problem};

use super::facts::instance;
use super::gen;

const A000170: [u64; 9] = [1, 0, 0, 2, 10, 4, 40, 92, 352];

#[test]
fn sat_counts_match_a000170_up_to_9_for_every_encoding() {
    for enc in Encoding::ALL.into_iter().chain([Encoding::Auto]) {
        for n in 1..=9 {
            let (count, limited, _) = sat::count(&Problem::new(n).unwrap(), enc, None).unwrap();
            assert_eq!(count, A000170[n - 1], "n = {n}, {enc}");
            assert!(!limited);
        }
    }
}

#[test]
fn nauck_1850_has_two_sat_solutions_that_verify() {
    for enc in Encoding::ALL {
        let p = instance("nauck-1850.json");
        let mut found = Vec::new();
        sat::enumerate(&p, enc, None, |q| {
            queens::verify(&p, q).unwrap();
            found.push(q.to_vec());
            true
        })
        .unwrap();
        assert_eq!(found.len(), 2, "{enc}");
    }
}

/// The solver's first descent places queens on shuffled cells (`sat::load` declares the
/// variables so): on an open board that leaves a handful of conflicts at any size (5–20 at
/// n = 300). Declared in the order the encoding first uses them, varisat needed 266–825
/// learned clauses at n = 300, depending on the encoding. This fails if a varisat upgrade
/// stops honouring the declared order or the first phase.
#[test]
fn an_open_board_is_solved_by_the_first_descent_with_few_conflicts() {
    for enc in [Encoding::Auto, Encoding::Product, Encoding::Seq] {
        let p = Problem::new(300).unwrap();
        let (queens, stats) = sat::solve_counting_learned(&p, enc).unwrap();
        queens::verify(&p, &queens.unwrap()).unwrap();
        let learned = stats.learned.unwrap();
        assert!(learned <= 60, "{enc}: {learned} learned clauses");
    }
}

#[test]
fn explanation_of_the_unsolvable_instance_is_minimal() {
    let p = instance("unsolvable-completion.txt");
    for enc in [Encoding::Auto, Encoding::Pairwise] {
        let (exp, _) = sat::explain(&p, enc).unwrap();
        let Explanation::Unsolvable {
            core, blocked_core, ..
        } = exp
        else {
            panic!("the instance is unsolvable")
        };
        assert_eq!(core, vec![(0, 4), (4, 7), (7, 0)]);
        assert!(blocked_core.is_empty());
        assert_minimal(&p, &core, &blocked_core);
    }
}

/// The core alone has no completion, and dropping any member gives one (checked by the
/// backtracker, not by the SAT engine that made the core).
fn assert_minimal(p: &Problem, core: &[queens::Pos], blocked: &[queens::Pos]) {
    let with = |q: &[queens::Pos], b: &[queens::Pos]| {
        let sub = p.replace_fixed(q).unwrap().replace_blocked(b).unwrap();
        backtrack::first_solution(&sub, &Config::default())
            .0
            .is_some()
    };
    assert!(!with(core, blocked), "the core itself must be unsolvable");
    for i in 0..core.len() {
        let mut q = core.to_vec();
        q.remove(i);
        assert!(
            with(&q, blocked),
            "without {:?} the rest must be completable",
            core[i]
        );
    }
    for i in 0..blocked.len() {
        let mut b = blocked.to_vec();
        b.remove(i);
        assert!(
            with(core, &b),
            "without blocked {:?} the rest must be completable",
            blocked[i]
        );
    }
}

#[test]
fn explanation_names_attacking_pairs_and_blocked_queens() {
    let p = queens::formats::parse(
        "t",
        "Q.......\n........\n..Q.....\n........\n.......Q\n........\n........\n........\n",
    )
    .unwrap();
    let (exp, _) = sat::explain(&p, Encoding::Auto).unwrap();
    let Explanation::Unsolvable { core, reason, .. } = exp else {
        panic!()
    };
    assert_eq!(core, vec![(0, 0), (2, 2)]);
    assert_eq!(
        reason.as_deref(),
        Some("fixed queens (0,0) and (2,2) attack each other")
    );
    let p =
        queens::formats::parse("t", "Q....\n.....\n.....\n.....\n.....\nblocked: 0,0\n").unwrap();
    let (exp, _) = sat::explain(&p, Encoding::Auto).unwrap();
    assert_eq!(
        exp,
        Explanation::Unsolvable {
            core: vec![(0, 0)],
            blocked_core: vec![(0, 0)],
            excluded_core: vec![],
            reason: Some("fixed queen (0,0) stands on a blocked cell".into())
        }
    );
}

#[test]
fn encode_then_external_model_then_decode_round_trip() {
    let p = instance("region-7-started.json");
    let encoded = sat::encode_problem(&p, Encoding::Seq, queens::cnf::FixedMode::Simplify);
    let mut cnf = Vec::new();
    encoded.write_dimacs(&mut cnf, &["test".into()]).unwrap();
    let cnf = String::from_utf8(cnf).unwrap();
    assert!(cnf.contains("c fixed 3 4\n") && cnf.contains("\np cnf "));
    let text = gen::external_solver_output(&cnf);
    let dimacs::ModelAnswer::Sat(true_vars) = dimacs::parse_model("m", &text).unwrap() else {
        panic!()
    };
    let decoded = encoded.map.decode(|l| true_vars.contains(&(l.index() + 1)));
    queens::verify(&p, &decoded).unwrap();
    assert_eq!(
        dimacs::parse_model("m", "s UNSATISFIABLE\n").unwrap(),
        dimacs::ModelAnswer::Unsat
    );
    assert_eq!(
        dimacs::parse_model("m", "s SATISFIABLE\nv 1 x 0\n")
            .unwrap_err()
            .to_string(),
        "m: line 2: \"x\" is not a literal (expected a signed integer)"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn sat_agrees_with_backtracker_and_verifier(p in gen::problem(6), e in 0usize..5) {
        let enc = Encoding::ALL[e];
        let expected = backtrack::count(&p, &Config::default(), None).total;
        let mut found = 0u64;
        sat::enumerate(&p, enc, None, |q| {
            assert!(queens::verify(&p, q).is_ok(), "{enc}: {:?}", queens::verify(&p, q));
            found += 1;
            true
        }).unwrap();
        prop_assert_eq!(found, expected, "{}", enc);
        let (one, _) = sat::first_solution(&p, enc).unwrap();
        prop_assert_eq!(one.is_some(), expected > 0);
        // Unsolvable: the explanation is minimal (or empty when no preset is to blame).
        if expected == 0 {
            if let (Explanation::Unsolvable { core, blocked_core, .. }, _) = sat::explain(&p, enc).unwrap() {
                if !core.is_empty() || !blocked_core.is_empty() {
                    assert_minimal(&p, &core, &blocked_core);
                }
            } else {
                prop_assert!(false, "explain found a solution the engines did not");
            }
        }
    }
}

/// UNSAT proofs for several unsolvable instances, in every format, checked by the crate's own
/// RUP/LRAT checker against the CNF as written to disk (re-read from its DIMACS text).
#[test]
fn unsat_proofs_check_against_the_written_cnf() {
    use queens::proof::{self, ProofFormat};
    let mut cases = vec![
        instance("unsolvable-completion.txt"),
        Problem::new(3).unwrap(),
        queens::formats::parse(
            "t",
            "QQ......\n........\n........\n........\n........\n........\n........\n........\n",
        )
        .unwrap(),
        // Nauck's instance with its two completions' free cells in row 0 blocked.
        instance("nauck-1850.txt").with_blocked(&[(0, 4)]).unwrap(),
    ];
    cases.push(Problem::new(6).unwrap().with_fixed(&[(0, 0)]).unwrap());
    for p in &cases {
        assert_eq!(backtrack::count(p, &Config::default(), None).total, 0);
        for enc in [Encoding::Auto, Encoding::Seq] {
            let encoded = sat::encode_problem(p, enc, queens::cnf::FixedMode::Simplify);
            let mut text = Vec::new();
            encoded.write_dimacs(&mut text, &[]).unwrap();
            let reread = varisat::dimacs::DimacsParser::parse(&text[..]).unwrap();
            for format in ProofFormat::ALL {
                let mut proof_bytes = Vec::new();
                let model = queens::engine::sat::solve_with_proof(
                    &encoded.formula,
                    format,
                    &mut proof_bytes,
                )
                .unwrap();
                assert!(model.is_none(), "{format}: expected UNSAT");
                proof::check_proof(&reread, format, &proof_bytes)
                    .unwrap_or_else(|e| panic!("{enc}/{format}: {e}"));
            }
        }
    }
}
