//! The portfolio's loser is stopped, not abandoned: when `auto` answers a completion, the
//! thread of the engine that lost has ended. The only test of this binary, so the threads
//! counted are the portfolio's alone.

use std::time::{Duration, Instant};

use queens_engine::{generate, solve_columns, Budget, EngineName, EngineSpec};

/// Threads of this process, from /proc (Linux); `None` elsewhere.
fn threads() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count())
}

#[test]
fn a_stopped_engine_leaves_no_thread_behind() {
    let Some(before) = threads() else {
        eprintln!("skipped: no /proc/self/task on this system to count threads");
        return;
    };
    // Near the crossing: the core answers in milliseconds while local search, which gives up
    // there after hundreds of starts, is still running and must be stopped.
    let p = generate::completion(2000, 1850, 2).unwrap();
    let start = Instant::now();
    let auto = EngineSpec::Auto { seed: 1 };
    let solved = solve_columns(&p, auto, &Budget::default()).unwrap();
    assert!(solved.answer.is_decided(), "{:?}", solved.answer);
    assert_eq!(
        solved.work.answered_by.map(EngineName::of),
        Some(EngineName::Backtrack)
    );
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(
        threads(),
        Some(before),
        "a portfolio thread outlived the answer"
    );
}
