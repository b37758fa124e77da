//! The Rust side of the Python overhead measurement (`python/bench/overhead.py`): the same
//! `solve` request through the operations layer, timed per call in this process.
//!
//!     cargo run --release --example overhead -- ../instances/region-9.json 2000
//!
//! Prints one JSON line: the calls and their median and mean in microseconds.

use std::time::Instant;

use queens_model::formats::sources;
use queens_ops::{Context, Request, SolveRequest};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: overhead INSTANCE [CALLS]")?;
    let calls: usize = args.next().map_or(Ok(2000), |s| s.parse())?;
    let problem = sources::load_one(path.as_ref(), &sources::Selection::default())?.problem;
    let mut ctx = Context::default();
    ctx.budget.max_memory = Some(queens_engine::default_max_memory());
    let req = Request::Solve(SolveRequest::new(problem));
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        let (resp, _) = req.run(&ctx)?;
        std::hint::black_box(&resp);
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / calls as f64;
    println!(
        "{{\"calls\": {calls}, \"median_us\": {:.2}, \"mean_us\": {mean:.2}}}",
        times[calls / 2]
    );
    Ok(())
}
