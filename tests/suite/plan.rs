//! The plan and its executor, through the engine's public entry points: `auto`'s choice and
//! the plan's JSON, the completion portfolio's decisions and runs on boards built for each
//! band (Hall's condition, the middle band, the crossing), and the side-by-side combinator.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use queens::engine::completion::{self, Hall, Open};
use queens::engine::plan::{plan, plans_made, Action, Ask, Ending, Step};
use queens::engine::side_by_side::{first_answer, Side};
use queens::engine::{self, execute, generate, local, Budget, ColumnAnswer, EngineName};
use queens::engine::{EngineSpec, SolvedColumns};
use queens::{Error, Problem};

// ---------------------------------------------------------------------------------------------
// The plan.

#[test]
fn auto_on_a_completion_is_the_portfolio_and_lists_with_the_backtracker() {
    let b = Budget::default();
    let p = Problem::new(100).unwrap().with_fixed(&[(0, 1)]).unwrap();
    let auto = EngineSpec::Auto { seed: 1 };
    let one = plan(&p, auto, Ask::default(), &b);
    assert_eq!(one.root.step, Action::Portfolio);
    assert!(one.columns && one.root.estimate.is_some());
    let empty = Problem::new(100).unwrap();
    assert_eq!(
        plan(&empty, auto, Ask::default(), &b).root.step,
        Action::SideBySide
    );
    let small = Problem::new(10).unwrap();
    let alone = plan(&small, auto, Ask::default(), &b).root;
    assert_eq!(alone.engine, Some(EngineSpec::Backtrack { threads: 0 }));
    let many = Ask {
        many: true,
        ..Ask::default()
    };
    let listing = plan(&p, auto, many, &b);
    assert!(!listing.columns);
    assert_eq!(
        listing.root.engine,
        Some(EngineSpec::Backtrack { threads: 0 })
    );
    // A count searches the core where it suits, and otherwise counts as a listing lists.
    let count = Ask {
        count: true,
        ..many
    };
    let big = generate::completion(10_000, 9_990, 1).unwrap();
    let on_core = plan(&big, auto, count, &b).root;
    assert_eq!(on_core.step, Action::Presolve);
    assert_eq!(
        on_core.steps[0].engine,
        Some(EngineSpec::Backtrack { threads: 1 })
    );
    assert_eq!(plan(&big, auto, many, &b).root.step, Action::Run);
    let whole = plan(&small, auto, count, &b).root;
    assert_eq!(whole.engine, Some(EngineSpec::Backtrack { threads: 0 }));
    // An explanation: the SAT engine's assumptions, else deletion by the backtracker.
    let explain = Ask {
        explain: true,
        ..Ask::default()
    };
    let sat = EngineSpec::Sat(engine::encode::amo::Encoding::Auto);
    assert_eq!(plan(&p, sat, explain, &b).root.engine, Some(sat));
    let by_search = plan(&p, auto, explain, &b).root;
    assert_eq!(by_search.engine, Some(EngineSpec::Backtrack { threads: 0 }));
    let local = EngineSpec::Local { seed: 1 };
    let refused = execute::count(&small, local, None, &b).unwrap_err();
    assert!(
        refused.to_string().contains("finds one solution"),
        "{refused}"
    );
}

/// One request, one plan: the counter moves by one per call, and a plan's JSON reads
/// back as the same tree.
#[test]
fn a_plan_is_counted_and_reads_back_from_its_json() {
    let p = Problem::new(100).unwrap().with_fixed(&[(0, 1)]).unwrap();
    let before = plans_made();
    let made = plan(
        &p,
        EngineSpec::Race(engine::encode::amo::Encoding::Auto),
        Ask::default(),
        &Budget::default(),
    );
    assert_eq!(plans_made(), before + 1);
    let json = serde_json::to_string(&made.root).unwrap();
    assert!(json.contains("\"engine\":\"backtrack:1\""), "{json}");
    assert!(json.contains("\"child\":true"), "{json}");
    let back: Step = serde_json::from_str(&json).unwrap();
    assert_eq!(back, made.root);
    assert!(made.root.text().contains("side by side"));
}

// ---------------------------------------------------------------------------------------------
// The completion portfolio.

fn by(solved: &SolvedColumns) -> Option<EngineName> {
    solved.work.answered_by.map(EngineName::of)
}

/// `auto` on `p`: the answer, the account of what ran and why (as `solve` gives it), and
/// the executed plan.
fn solve(p: &Problem, budget: &Budget) -> (SolvedColumns, String, Step) {
    let auto = EngineSpec::Auto { seed: 1 };
    let mut made = plan(p, auto, Ask::default(), budget);
    assert_eq!(made.root.step, Action::Portfolio);
    let solved = execute::execute(&mut made, p, auto, budget).unwrap();
    (solved, made.why(), made.root)
}

/// How the executed steps ended, depth first: each step's action, engine and ending; every
/// step that ran has its times, in order.
fn endings(root: &Step) -> Vec<(Action, Option<EngineSpec>, Ending)> {
    root.all()
        .iter()
        .map(|s| {
            let ending = s.ending.expect("every step has an ending");
            if ending != Ending::Skipped {
                let (a, b) = (s.start_ms.unwrap(), s.end_ms.unwrap());
                assert!(0.0 <= a && a <= b, "{s:?}");
            }
            (s.step, s.engine, ending)
        })
        .collect()
}

/// An n×n board whose last `free` rows are free, the others holding the queens of a
/// solution local search found, with two free rows closed but for one column they share:
/// no row is empty, so local search's checks pass and it can only give up, but Hall's
/// condition says "no".
fn hall_board(n: usize, free: usize) -> Problem {
    let budget = Budget::default();
    let (local::Outcome::Solved(sol), _) =
        local::search(&Problem::new(n).unwrap(), local::Config::default(), &budget).unwrap()
    else {
        panic!("local search solves the empty board")
    };
    let rows: Vec<usize> = (n - free..n).collect();
    let fixed: Vec<(usize, usize)> = (0..n - free).map(|r| (r, sol[r] as usize)).collect();
    let base = Problem::new(n).unwrap().with_fixed(&fixed).unwrap();
    let (open, _) = Open::new(&base);
    // Rows a and b both open in column sol[a]: close the rest of the two rows.
    let (a, b) = rows
        .iter()
        .flat_map(|&a| rows.iter().map(move |&b| (a, b)))
        .find(|&(a, b)| a != b && open.open(b, sol[a] as usize))
        .expect("two free rows share an open column");
    let keep = sol[a] as usize;
    let cols: Vec<usize> = rows.iter().map(|&r| sol[r] as usize).collect();
    let blocked: Vec<(usize, usize)> = [a, b]
        .iter()
        .flat_map(|&r| cols.iter().filter(|&&c| c != keep).map(move |&c| (r, c)))
        .collect();
    base.with_blocked(&blocked).unwrap()
}

/// Two free rows whose open cells all lie in one column: no row is empty, so local
/// search's checks pass and it can only give up, but Hall's condition says "no".
#[test]
fn a_refutation_local_search_never_gives() {
    let (n, budget) = (100, Budget::default());
    let p = hall_board(n, 10);
    assert_eq!(
        local::refute(&p),
        None,
        "local search's checks see no empty line"
    );
    let (open, _) = Open::new(&p);
    assert!(matches!(
        completion::hall_on_bitmaps(&open, u64::MAX, &budget),
        Hall::Fails(_)
    ));
    let (solved, said, root) = solve(&p, &budget);
    let ColumnAnswer::Unsat(Some(why)) = &solved.answer else {
        panic!("{:?}", solved.answer)
    };
    assert!(why.contains("cannot all get a queen"), "{why}");
    assert_eq!(by(&solved), Some(EngineName::Backtrack));
    // The core is small: it is built beside local search, and its presolve refutes it.
    assert_eq!(
        root.said.as_deref(),
        Some("the core's presolve refuted the board before any search (the reason says how)")
    );
    assert!(root.all().iter().all(|s| s.ending.is_some()), "{root:?}");
    assert!(
        said.starts_with("portfolio: the core (10 free rows) was estimated at ")
            && said.contains("so the core was built at once and searched alone for up to 20 ms, then beside local search")
            && said.ends_with(
                "the core's presolve refuted the board before any search (the reason says how)"
            ),
        "{said}"
    );
    // A limit under local search's memory leaves the refutation to the core alone.
    let decision = root.estimate.expect("a decision");
    let tight = Budget {
        max_memory: Some(decision.core_memory + 1024),
        ..Budget::default()
    };
    assert!(decision.local_memory > decision.core_memory + 1024);
    let (solved, said, _) = solve(&p, &tight);
    assert!(matches!(solved.answer, ColumnAnswer::Unsat(_)));
    assert!(
        said.contains("local search is over the memory limit, so the core search ran alone"),
        "{said}"
    );
    // Fixed queens that break a rule: nothing runs.
    let mut fixed = p.fixed().to_vec();
    fixed[1] = (fixed[1].0, fixed[0].1);
    let clash = Problem::new(n).unwrap().with_fixed(&fixed).unwrap();
    let (solved, said, _) = solve(&clash, &budget);
    assert!(matches!(solved.answer, ColumnAnswer::Unsat(_)));
    assert_eq!(
        said,
        "portfolio: refuted by the fixed queens before any engine ran"
    );
}

/// The same refutation on a core larger than local search: the core is not built, and
/// Hall's condition on the bitmaps refutes the board beside local search.
#[test]
fn a_refutation_on_the_bitmaps_before_any_core() {
    let p = hall_board(3000, 1000);
    let (open, _) = Open::new(&p);
    let decision = completion::estimate_core(&p, &open, &Budget::default());
    assert!(decision.local && !decision.core_first, "{decision:?}");
    let (solved, said, root) = solve(&p, &Budget::default());
    assert!(matches!(solved.answer, ColumnAnswer::Unsat(_)));
    assert_eq!(solved.work.core, None, "the core was never built");
    let local = EngineSpec::Local { seed: 1 };
    let whole = EngineSpec::Backtrack { threads: 0 };
    let mut ended = endings(&root);
    // Local search gave up, or was stopped by the refutation: whichever came first.
    let (_, _, last) = ended.pop().unwrap();
    assert!(matches!(last, Ending::GaveUp | Ending::Stopped), "{last:?}");
    assert_eq!(
        ended,
        [
            (Action::Portfolio, None, Ending::Answered),
            (Action::Refute, None, Ending::Passed),
            (Action::SideBySide, None, Ending::Answered),
            (Action::ThenIfGaveUp, None, Ending::Answered),
            (Action::Hall, None, Ending::Refuted),
            (Action::Run, Some(whole), Ending::Skipped),
        ]
    );
    assert_eq!(root.steps[1].steps[1].engine, Some(local));
    assert!(
        said.contains("so local search ran first")
            && said.ends_with("; Hall's condition refuted the board before the core was built"),
        "{said}"
    );
}

/// A lightly preset board: the core would hold far more than local search, so it is not
/// built, and local search answers.
#[test]
fn a_middle_band_board_goes_to_local_search_without_its_core() {
    let p = generate::completion(4000, 2000, 1).unwrap();
    let (open, _) = Open::new(&p);
    let decision = completion::estimate_core(&p, &open, &Budget::default());
    assert!(
        decision.core && decision.local && !decision.core_first,
        "{decision:?}"
    );
    assert!(
        decision.core_memory > 2 * decision.local_memory,
        "{decision:?}"
    );
    let (solved, said, root) = solve(&p, &Budget::default());
    assert!(matches!(solved.answer, ColumnAnswer::Sat(_)));
    assert_eq!(by(&solved), Some(EngineName::Local));
    // Local search answered: the core's side was stopped before its complete engine ran.
    let ended = endings(&root);
    assert_eq!(
        ended.last(),
        Some(&(
            Action::Run,
            Some(EngineSpec::Local { seed: 1 }),
            Ending::Answered
        ))
    );
    assert_eq!(ended[3], (Action::ThenIfGaveUp, None, Ending::Stopped));
    assert_eq!(
        ended[5],
        (
            Action::Run,
            Some(EngineSpec::Backtrack { threads: 0 }),
            Ending::Skipped
        )
    );
    assert_eq!(solved.work.core, None, "the core was never built");
    let (core, local) = (
        decision.core_memory.div_ceil(1 << 20),
        decision.local_memory.div_ceil(1 << 20),
    );
    assert_eq!(
        said,
        format!(
            "portfolio: the core (2000 free rows) was estimated at {core} MB against local \
             search's {local} MB, so local search ran first, beside Hall's condition on the \
             bitmaps, and the core only once local search gave up; local search answered"
        )
    );
}

/// Near the crossing local search gives up; the core search decides.
#[test]
fn a_crossing_board_is_decided_by_the_core_where_local_search_gives_up() {
    let p = generate::completion(1000, 900, 2).unwrap();
    let quick = local::Config {
        seed: 1,
        restarts: 3,
    };
    let (outcome, _) = local::search(&p, quick, &Budget::default()).unwrap();
    assert!(matches!(outcome, local::Outcome::GaveUp), "{outcome:?}");
    let (solved, said, root) = solve(&p, &Budget::default());
    assert!(solved.answer.is_decided(), "{:?}", solved.answer);
    assert_eq!(by(&solved), Some(EngineName::Backtrack));
    assert!(solved.work.core.is_some());
    // The core is searched alone for at most its limit, then beside local search.
    let ended = endings(&root);
    assert_eq!(ended[2], (Action::Presolve, None, Ending::Passed));
    assert_eq!(root.steps[2].limit_ms, Some(20));
    let core = Some(EngineSpec::Backtrack { threads: 1 });
    let answered = ended
        .iter()
        .filter(|e| e.2 == Ending::Answered && e.0 == Action::Run)
        .collect::<Vec<_>>();
    assert_eq!(answered.len(), 1, "{ended:?}");
    assert_eq!(answered[0].1, core);
    // The core is no larger than local search's memory: both ran, and the core answered.
    assert!(
        said.starts_with("portfolio: the core (100 free rows) was estimated at ")
            && said.ends_with(
                "so the core was built at once and searched alone for up to 20 ms, then beside local search; the core search answered"
            ),
        "{said}"
    );
}

// ---------------------------------------------------------------------------------------------
// The side-by-side combinator.

fn until_stopped(stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn the_first_answer_wins_and_stops_the_other() {
    let got = first_answer(
        |stop| {
            until_stopped(&stop);
            Ok(None::<u32>)
        },
        |_| Ok(Some(7)),
        None,
        None,
    )
    .unwrap();
    assert_eq!(got, Some((Side::Second, 7)));
    let got = first_answer(
        |_| Ok(Some(1)),
        |stop| {
            until_stopped(&stop);
            Ok(None)
        },
        None,
        None,
    )
    .unwrap();
    assert_eq!(got, Some((Side::First, 1)));
}

#[test]
fn an_error_on_one_side_leaves_the_race_to_the_other() {
    let got = first_answer(
        |_| Err(Error::too_large("no".into())),
        |_| {
            std::thread::sleep(Duration::from_millis(20));
            Ok(Some(2))
        },
        None,
        None,
    )
    .unwrap();
    assert_eq!(got, Some((Side::Second, 2)));
    let err = first_answer::<u32>(
        |_| Err(Error::too_large("no".into())),
        |_| Ok(None),
        None,
        None,
    );
    assert!(matches!(err, Err(Error::TooLarge { .. })));
}

#[test]
fn the_deadline_stops_both_sides() {
    let start = Instant::now();
    let got = first_answer::<u32>(
        |stop| {
            until_stopped(&stop);
            Ok(None)
        },
        |stop| {
            until_stopped(&stop);
            Ok(None)
        },
        None,
        Some(Instant::now() + Duration::from_millis(30)),
    )
    .unwrap();
    assert_eq!(got, None);
    assert!(start.elapsed() < Duration::from_secs(5));
}
