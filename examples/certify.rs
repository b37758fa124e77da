//! What a certified "no" costs with the backtracker: for each instance, the plain search,
//! the search that writes a proof (text and binary DRAT), the proof's size, and the
//! built-in checker's time. One CSV line per instance on stdout, totals on stderr.
//!
//! ```text
//! cargo run --release --example certify -- ../shared/data/csplib-prob079-excluded-diagonals.jsonl \
//!     --select n=21 --first 19 --take 100
//! cargo run --release --example certify -- instances/excluded-diagonals
//! ```
//!
//! Each figure is the best of `--repeat` runs (default 3) on all cores; BENCHMARKS.md,
//! section 7, quotes a run.

use std::path::PathBuf;
use std::time::Instant;

use queens::cnf::FixedMode;
use queens::encode::amo::Encoding;
use queens::engine::backtrack::certify::{refute, DratStyle, Refutation};
use queens::engine::backtrack::{self, Config};
use queens::formats::sources::{self, Selection};
use queens::proof;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut paths = Vec::new();
    let mut selection = Selection::default();
    let mut repeat = 3;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--select" => selection
                .filters
                .push(Selection::parse_filter(&args.next().expect("--select F=V")).unwrap()),
            "--first" => selection.first = Some(args.next().unwrap().parse().unwrap()),
            "--take" => selection.take = Some(args.next().unwrap().parse().unwrap()),
            "--repeat" => repeat = args.next().unwrap().parse().unwrap(),
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let instances = sources::load_all(&paths, &selection).expect("instances load");
    let config = Config::default();
    // As `solve --proof` allows by default: a quarter of half the machine's memory.
    let max_bytes = queens::engine::default_max_memory() / 4;
    let best = |f: &mut dyn FnMut() -> f64| (0..repeat).map(|_| f()).fold(f64::MAX, f64::min);
    println!("id,status,nodes,search_ms,proof_text_ms,proof_binary_ms,lemmas,text_bytes,binary_bytes,check_ms");
    let (mut unsat, mut search, mut text, mut binary, mut check) = (0, 0.0, 0.0, 0.0, 0.0);
    let (mut bytes, mut lemmas) = (0u64, 0u64);
    let mut all_search = 0.0;
    for entry in instances {
        let inst = entry.unwrap_or_else(|broken| panic!("{broken:?}"));
        let p = &inst.problem;
        let mut nodes = 0;
        let mut sat = false;
        let plain = best(&mut || {
            let t = Instant::now();
            let (found, stats) = backtrack::first_solution(p, &config);
            nodes = stats.nodes;
            sat = found.is_some();
            t.elapsed().as_secs_f64() * 1e3
        });
        all_search += plain;
        if sat {
            println!("{},sat,{nodes},{plain:.3},,,,,,", inst.id);
            continue;
        }
        let cnf = queens::engine::sat::encode_problem(p, Encoding::Auto, FixedMode::Simplify);
        let vars = cnf.map.var_table();
        let mut proofs = [None, None];
        let mut times = [0.0; 2];
        for (k, style) in [DratStyle::Text, DratStyle::Binary].into_iter().enumerate() {
            times[k] = best(&mut || {
                let t = Instant::now();
                let (r, _) = refute(p, &vars, style, max_bytes, &config);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                match r {
                    Refutation::Unsat(proof) => proofs[k] = Some(proof),
                    Refutation::TooLarge(bytes) => {
                        eprintln!(
                            "{}: the {style:?} proof is over the limit ({bytes} bytes written)",
                            inst.id
                        )
                    }
                    other => panic!("{}: {other:?}", inst.id),
                }
                ms
            });
        }
        let [t, Some(b)] = proofs else {
            println!("{},unsat,{nodes},{plain:.3},,,,,,too large", inst.id);
            continue;
        };
        let text_bytes = t.map_or("over the limit".to_string(), |t| t.bytes.len().to_string());
        let t0 = Instant::now();
        proof::check_drat(&cnf.formula, &b.bytes, true).expect("the proof checks");
        let check_ms = t0.elapsed().as_secs_f64() * 1e3;
        println!(
            "{},unsat,{nodes},{plain:.3},{:.3},{:.3},{},{},{},{check_ms:.1}",
            inst.id,
            times[0],
            times[1],
            b.lemmas,
            text_bytes,
            b.bytes.len()
        );
        unsat += 1;
        search += plain;
        text += times[0];
        binary += times[1];
        check += check_ms;
        bytes += b.bytes.len() as u64;
        lemmas += b.lemmas;
    }
    eprintln!("all instances: plain search {:.0} ms", all_search);
    eprintln!(
        "{unsat} unsat, every one certified: plain search {search:.0} ms; with a text DRAT proof \
         {text:.0} ms ({:.2}×), binary {binary:.0} ms ({:.2}×); {lemmas} lemmas, {:.1} MB binary; \
         built-in check {check:.0} ms ({:.1}× the plain search)",
        text / search,
        binary / search,
        bytes as f64 / 1e6,
        check / search
    );
}
