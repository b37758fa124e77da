//! Every instance family through every layer, on generated instances with fixed seeds.
//!
//! One criterion group per layer and family (`encode/<family>`, `sat_solve/<family>`,
//! `backtrack_solve/<family>`, `backtrack_count/<family>`), so a regression names the layer it
//! is in. Instances come from `queens::generate` with fixed seeds, so every run measures the
//! same boards; setup checks each one still has the expected answer (a generator change that
//! alters an instance fails here instead of silently moving the figures). Instances are small
//! enough that the whole file runs in about three minutes; `benches/sat.rs` and
//! `benches/count.rs` cover the large classic boards. The `race/*` groups run the first
//! instances of BENCHMARKS.md's hard-instance race from `../shared/data` (skipped when absent).

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};
use queens::cnf::{self, FixedMode};
use queens::encode::amo::Encoding;
use queens::encode::Counter;
use queens::engine::backtrack::{self, Config};
use queens::engine::sat;
use queens::formats::sources::{self, Selection};
use queens::{generate, Problem};

/// A named instance and whether it has a solution.
struct Instance {
    name: &'static str,
    problem: Problem,
    solvable: bool,
}

fn instance(name: &'static str, problem: Problem, solvable: bool) -> Instance {
    Instance {
        name,
        problem,
        solvable,
    }
}

/// The first `d` diagonals of the seeded Excluded Diagonals list (min_free = 1).
fn diagonals(n: usize, d: usize, seed: u64) -> Problem {
    let list = generate::diagonals(n, 1, seed);
    generate::diagonals_problem(n, &list, Some(d)).unwrap()
}

/// Instances to solve, by family. Seeds were picked for one solvable and one unsolvable
/// instance where the family has both at this size.
fn solve_families() -> Vec<(&'static str, Vec<Instance>)> {
    vec![
        (
            "classic",
            vec![instance("n30", Problem::new(30).unwrap(), true)],
        ),
        (
            "completion",
            vec![
                instance("n30-q10-s0", generate::completion(30, 10, 0).unwrap(), true),
                instance(
                    "n30-q18-s0",
                    generate::completion(30, 18, 0).unwrap(),
                    false,
                ),
            ],
        ),
        (
            "diagonals",
            vec![
                instance("n16-d14-s0", diagonals(16, 14, 0), true),
                instance("n17-d15-s2", diagonals(17, 15, 2), false),
            ],
        ),
        (
            "regions",
            vec![
                instance("n9-s0", generate::puzzle(9, 0).unwrap(), true),
                instance("n11-s1", generate::puzzle(11, 1).unwrap(), true),
            ],
        ),
    ]
}

/// Instances to count (few solutions), with their counts.
fn count_families() -> Vec<(&'static str, &'static str, Problem, u64)> {
    vec![
        ("classic", "n10", Problem::new(10).unwrap(), 724),
        (
            "completion",
            "n30-q18-s3",
            generate::completion(30, 18, 3).unwrap(),
            12,
        ),
        ("diagonals", "n15-d14-s1", diagonals(15, 14, 1), 61),
        ("regions", "n11-s1", generate::puzzle(11, 1).unwrap(), 1),
    ]
}

fn single_thread() -> Config {
    Config {
        threads: 1,
        ..Config::default()
    }
}

/// Short runs: these are regression alarms, not publication figures.
fn quick(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
}

fn encode(c: &mut Criterion) {
    for (family, instances) in solve_families() {
        let mut group = c.benchmark_group(format!("encode/{family}"));
        quick(&mut group);
        for inst in &instances {
            group.bench_with_input(
                BenchmarkId::new("auto", inst.name),
                &inst.problem,
                |b, p| {
                    b.iter(|| {
                        let mut sink = Counter::default();
                        cnf::encode(p, Encoding::Auto, FixedMode::Simplify, &mut sink);
                        sink.clauses
                    })
                },
            );
        }
        group.finish();
    }
}

fn sat_solve(c: &mut Criterion) {
    for (family, instances) in solve_families() {
        let mut group = c.benchmark_group(format!("sat_solve/{family}"));
        quick(&mut group);
        for inst in &instances {
            for enc in [Encoding::Auto, Encoding::Seq] {
                let found = sat::first_solution(&inst.problem, enc).unwrap().0.is_some();
                assert_eq!(found, inst.solvable, "{family} {} with {enc}", inst.name);
                group.bench_with_input(
                    BenchmarkId::new(enc.to_string(), inst.name),
                    &inst.problem,
                    |b, p| b.iter(|| sat::first_solution(p, enc).unwrap().0.is_some()),
                );
            }
        }
        group.finish();
    }
}

fn backtrack_solve(c: &mut Criterion) {
    let config = single_thread();
    for (family, instances) in solve_families() {
        let mut group = c.benchmark_group(format!("backtrack_solve/{family}"));
        quick(&mut group);
        for inst in &instances {
            let found = backtrack::first_solution(&inst.problem, &config)
                .0
                .is_some();
            assert_eq!(found, inst.solvable, "{family} {}", inst.name);
            group.bench_with_input(
                BenchmarkId::from_parameter(inst.name),
                &inst.problem,
                |b, p| b.iter(|| backtrack::first_solution(p, &config).0.is_some()),
            );
        }
        group.finish();
    }
}

fn backtrack_count(c: &mut Criterion) {
    // One thread: the machine is shared, and parallel speed-up is not what this measures.
    let config = single_thread();
    for (family, name, problem, expected) in count_families() {
        assert_eq!(
            backtrack::count(&problem, &config, None).total,
            expected,
            "{family} {name}"
        );
        let mut group = c.benchmark_group(format!("backtrack_count/{family}"));
        quick(&mut group);
        group.bench_with_input(BenchmarkId::from_parameter(name), &problem, |b, p| {
            b.iter(|| backtrack::count(p, &config, None).total)
        });
        group.finish();
    }
}

/// The hard-instance race of BENCHMARKS.md in small: the first six CSPLib prob079 Excluded
/// Diagonals instances with n = 21 and 19 diagonals (two of them unsatisfiable).
fn race(c: &mut Criterion) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/csplib-prob079-excluded-diagonals.jsonl");
    if !path.exists() {
        eprintln!("race: {} is absent, skipped", path.display());
        return;
    }
    let selection = Selection {
        filters: vec![("n".into(), "21".into())],
        first: Some(19),
        take: Some(6),
    };
    let instances = sources::load(&[path], &selection).unwrap();
    let all_cores = Config::default();
    let mut group = c.benchmark_group("race/backtrack_solve");
    quick(&mut group);
    for inst in &instances {
        for (name, config) in [("1-thread", &single_thread()), ("all-cores", &all_cores)] {
            group.bench_with_input(BenchmarkId::new(name, &inst.id), &inst.problem, |b, p| {
                b.iter(|| backtrack::first_solution(p, config).0.is_some())
            });
        }
    }
    group.finish();
    // Only the satisfiable ones: varisat needs about half a minute per unsatisfiable instance.
    let mut group = c.benchmark_group("race/sat_solve");
    quick(&mut group);
    for inst in &instances {
        if backtrack::first_solution(&inst.problem, &all_cores)
            .0
            .is_none()
        {
            continue;
        }
        group.bench_with_input(BenchmarkId::new("auto", &inst.id), &inst.problem, |b, p| {
            b.iter(|| sat::first_solution(p, Encoding::Auto).unwrap().0.is_some())
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    encode,
    sat_solve,
    backtrack_solve,
    backtrack_count,
    race
);
criterion_main!(benches);
