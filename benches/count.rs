//! Counting the empty classic board: the product's counter against a plain reference.
//!
//! The reference is the textbook recursive bitboard counter with only the left/right mirror
//! trick (first queen in the left half, doubled; the middle column for odd n), single-threaded.
//! The product's counter uses all eight symmetries (constellations) and all cores; at n = 16 it
//! also runs on one thread, so the speed-up per core and the gain from the second core come from
//! the same run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use queens::engine::backtrack::{self, Config};
use queens::Problem;

/// Plain recursive bitboard counter with the mirror trick only.
fn reference_count(n: usize) -> u64 {
    fn go(mask: u64, down: u64, left: u64, right: u64) -> u64 {
        if down == mask {
            return 1;
        }
        let mut free = mask & !(down | left | right);
        let mut total = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            total += go(mask, down | bit, (left | bit) << 1, (right | bit) >> 1);
        }
        total
    }
    let mask = (1u64 << n) - 1;
    let mut total = 0;
    for c in 0..n / 2 {
        let bit = 1u64 << c;
        total += 2 * go(mask, bit, bit << 1, bit >> 1);
    }
    if n % 2 == 1 {
        let bit = 1u64 << (n / 2);
        total += go(mask, bit, bit << 1, bit >> 1);
    }
    total
}

fn count(c: &mut Criterion) {
    let mut group = c.benchmark_group("count_empty_board");
    group.sample_size(10);
    for n in [12usize, 14, 16] {
        let problem = Problem::new(n).unwrap();
        assert_eq!(
            reference_count(n),
            backtrack::count(&problem, &Config::default(), None).total
        );
        group.bench_with_input(BenchmarkId::new("reference_mirror", n), &n, |b, &n| {
            b.iter(|| reference_count(n))
        });
        group.bench_with_input(BenchmarkId::new("queens_symmetric", n), &problem, |b, p| {
            b.iter(|| backtrack::count(p, &Config::default(), None).total)
        });
        if n == 16 {
            let one = Config {
                threads: 1,
                ..Config::default()
            };
            group.bench_with_input(
                BenchmarkId::new("queens_symmetric_1thread", n),
                &problem,
                |b, p| b.iter(|| backtrack::count(p, &one, None).total),
            );
        }
    }
    group.finish();
}

/// The general search (most-constrained line choice) on completion and region instances.
fn count_general(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("instances");
    let mut group = c.benchmark_group("count_instances");
    for name in [
        "nauck-1850.txt",
        "blocked-8.txt",
        "region-7.txt",
        "unsolvable-completion.txt",
    ] {
        let problem = queens::formats::read_path(&dir.join(name)).unwrap();
        group.bench_with_input(BenchmarkId::from_parameter(name), &problem, |b, p| {
            b.iter(|| {
                backtrack::count(
                    p,
                    &Config {
                        threads: 1,
                        ..Config::default()
                    },
                    None,
                )
                .total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, count, count_general);
criterion_main!(benches);
