//! The SAT engine by layer: encoding alone, then encode + solve, on the pure n-queens board.
//!
//! n = 500 and 1000 take seconds to minutes per solve, too long for criterion's repeated
//! sampling; their figures (with variables, clauses and peak memory) come from
//! `queens solve --n N --engine sat --encoding E --json` under `/usr/bin/time -v` and are kept
//! in BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use queens::cnf::FixedMode;
use queens::encode::amo::Encoding;
use queens::engine::sat;
use queens::Problem;

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("sat_encode");
    group.sample_size(10);
    for n in [100usize, 200, 500, 1000] {
        let problem = Problem::new(n).unwrap();
        for enc in Encoding::ALL.into_iter().chain([Encoding::Auto]) {
            group.bench_with_input(BenchmarkId::new(enc.to_string(), n), &problem, |b, p| {
                b.iter(|| {
                    sat::encode_problem(p, enc, FixedMode::Simplify)
                        .stats
                        .clauses
                })
            });
        }
    }
    group.finish();
}

fn solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("sat_solve");
    group.sample_size(10);
    for n in [50usize, 100] {
        let problem = Problem::new(n).unwrap();
        for enc in Encoding::ALL.into_iter().chain([Encoding::Auto]) {
            group.bench_with_input(BenchmarkId::new(enc.to_string(), n), &problem, |b, p| {
                b.iter(|| sat::first_solution(p, enc).unwrap().0.is_some())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, encode, solve);
criterion_main!(benches);
