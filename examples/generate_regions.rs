//! Times the region generator: median and slowest time per puzzle, per size, and the grades
//! made. `cargo run --release --example generate_regions -- FROM TO SEEDS [GRADE]`, e.g.
//! `-- 9 9 1000` or `-- 16 16 20 hard`. Each puzzle gets 60 s; one that runs out is counted
//! as missed.

use std::time::{Duration, Instant};

use queens::engine::Budget;
use queens::generate::regions;
use queens::puzzle::grade::Grade;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> u64 {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| usage())
    };
    let (from, to, seeds) = (number(0) as usize, number(1) as usize, number(2));
    let want = match args.get(3).map(String::as_str) {
        None => None,
        Some("easy") => Some(Grade::Easy),
        Some("medium") => Some(Grade::Medium),
        Some("hard") => Some(Grade::Hard),
        Some("expert") => Some(Grade::Expert),
        Some(_) => usage(),
    };
    println!("n\tmedian_ms\tmax_ms\teasy\tmedium\thard\texpert\ttries\tmissed");
    for n in from..=to {
        let mut times = Vec::new();
        let (mut grades, mut tries, mut missed) = ([0u64; 4], 0, 0);
        for seed in 0..seeds {
            let start = Instant::now();
            let budget = Budget {
                deadline: Some(start + Duration::from_secs(60)),
                ..Budget::default()
            };
            match regions(n, seed, want, &budget) {
                Ok(Some(made)) => {
                    grades[made.grade as usize] += 1;
                    tries += made.tries;
                }
                Ok(None) => missed += 1,
                Err(e) => {
                    eprintln!("n = {n}, seed {seed}: {e}");
                    std::process::exit(2);
                }
            }
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let [e, m, h, x] = grades;
        println!(
            "{n}\t{:.2}\t{:.2}\t{e}\t{m}\t{h}\t{x}\t{tries}\t{missed}",
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
}

fn usage() -> ! {
    eprintln!("usage: generate_regions FROM TO SEEDS [easy|medium|hard|expert]");
    std::process::exit(2)
}
