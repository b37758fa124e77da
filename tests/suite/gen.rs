//! Proptest generators for small random problems: fixed queens, blocked cells, region maps and
//! both diagonal rules. Reused by every property test that compares engines.

use proptest::prelude::*;
use queens::model::Diagonal;
use queens::{DiagonalRule, Pos, Problem, Regions};

/// A random problem with 1 ≤ n ≤ `max_n`.
pub fn problem(max_n: usize) -> impl Strategy<Value = Problem> {
    (1..=max_n).prop_flat_map(|n| {
        let cell = (0..n, 0..n);
        (
            Just(n),
            any::<bool>(),
            prop::collection::vec(cell.clone(), 0..=2),
            prop::collection::vec(cell, 0..=n),
            prop::option::of(regions(n)),
        )
            .prop_map(|(n, touch, fixed, blocked, regions)| {
                build(n, touch, &fixed, &blocked, regions)
            })
    })
}

/// [`problem`] with up to three excluded diagonals as well (CSPLib prob079's presets): every
/// kind of preset the model has.
pub fn problem_with_diagonals(max_n: usize) -> impl Strategy<Value = Problem> {
    problem(max_n).prop_flat_map(|p| {
        let n = p.n();
        let diagonal = (0..2 * n - 1, any::<bool>()).prop_map(|(k, sum)| {
            if sum {
                Diagonal::Sum(k)
            } else {
                Diagonal::Diff(k)
            }
        });
        (Just(p), prop::collection::vec(diagonal, 0..=3))
            .prop_map(|(p, ds)| p.with_excluded(&ds).expect("diagonals on the board"))
    })
}

fn build(
    n: usize,
    touch: bool,
    fixed: &[Pos],
    blocked: &[Pos],
    regions: Option<Vec<u8>>,
) -> Problem {
    let rule = if touch {
        DiagonalRule::Touch
    } else {
        DiagonalRule::Full
    };
    let mut p = Problem::new(n).unwrap().with_rule(rule);
    if let Some(ids) = regions {
        let names: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
        p = p
            .with_regions(Regions::from_names(n, &names).unwrap())
            .unwrap();
    }
    p.with_fixed(fixed).unwrap().with_blocked(blocked).unwrap()
}

/// A region map with exactly n regions (not necessarily connected): a random labelling in
/// which each label appears at least once.
fn regions(n: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0..n as u8, n * n).prop_map(move |mut ids| {
        // Give each missing label one cell of a label that has several.
        for g in 0..n as u8 {
            if !ids.contains(&g) {
                let counts = |ids: &[u8], h: u8| ids.iter().filter(|&&x| x == h).count();
                let at = (0..n * n)
                    .find(|&i| counts(&ids, ids[i]) > 1)
                    .expect("n*n cells, fewer than n labels: some label repeats");
                ids[at] = g;
            }
        }
        ids
    })
}

/// Every solution by brute force over permutations (row r gets column perm[r]), checked by
/// the verifier alone: the oracle the engines are compared with.
pub fn brute_force(problem: &Problem) -> Vec<Vec<Pos>> {
    let n = problem.n();
    let mut perm: Vec<usize> = (0..n).collect();
    let mut out = Vec::new();
    permute(&mut perm, 0, &mut |p| {
        let queens: Vec<Pos> = p.iter().enumerate().map(|(r, &c)| (r, c)).collect();
        if queens::verify(problem, &queens).is_ok() {
            out.push(queens);
        }
    });
    out.sort();
    out
}

fn permute(p: &mut [usize], k: usize, f: &mut impl FnMut(&[usize])) {
    if k == p.len() {
        f(p);
        return;
    }
    for i in k..p.len() {
        p.swap(k, i);
        permute(p, k + 1, f);
        p.swap(k, i);
    }
}

/// Solves DIMACS text as an external solver would and returns its output in the SAT
/// competition format (`s SATISFIABLE` and one `v … 0` line).
pub fn external_solver_output(cnf: &str) -> String {
    let mut solver = varisat::Solver::new();
    solver.add_dimacs_cnf(cnf.as_bytes()).unwrap();
    assert!(solver.solve().unwrap(), "expected a satisfiable CNF");
    let lits: Vec<String> = solver
        .model()
        .unwrap()
        .iter()
        .map(|l| l.to_dimacs().to_string())
        .collect();
    format!("c from varisat\ns SATISFIABLE\nv {} 0\n", lits.join(" "))
}
