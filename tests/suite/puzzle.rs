//! Human-style deduction on region puzzles: a hint never contradicts the unique solution,
//! on every LinkedIn level (when ../shared is there).

use queens::puzzle::deduce::{next_step, Technique};
use queens::puzzle::Position;

#[test]
fn hints_never_contradict_the_solution_of_any_linkedin_level() {
    let Some(path) = crate::need::shared_data("linkedin-official-1-616.jsonl") else {
        return;
    };
    let levels = queens::formats::sources::load_all(&[path], &Default::default()).unwrap();
    let (mut solved, mut total) = (0, 0);
    let mut used = std::collections::BTreeMap::new();
    for level in levels {
        let level = level.unwrap();
        let p = &level.problem;
        let (Some(solution), _) = queens::engine::backtrack::first_solution(p, &Default::default())
        else {
            panic!("level {} has no solution", level.id);
        };
        let mut pos = Position::new(p, &[]);
        let mut steps = 0;
        while let Some(step) = next_step(&pos, Technique::Contradiction) {
            for q in &step.place {
                assert!(
                    solution.contains(q),
                    "level {}: {step:?} places off the solution",
                    level.id
                );
            }
            for x in &step.eliminate {
                assert!(
                    !solution.contains(x),
                    "level {}: {step:?} eliminates a solution cell",
                    level.id
                );
            }
            *used.entry(step.technique).or_insert(0u32) += 1;
            step.apply(&mut pos);
            steps += 1;
            assert!(steps < 10_000, "level {}: no progress", level.id);
        }
        total += 1;
        if pos.solved() {
            assert_eq!(pos.queens(), solution, "level {}", level.id);
            solved += 1;
        }
    }
    eprintln!("{solved} of {total} levels solved by deduction alone; steps by technique: {used:?}");
    assert!(
        solved * 10 >= total * 9,
        "only {solved} of {total} levels solved by deduction"
    );
}

/// What a client does: ask for a hint, apply it to its queens and marks, ask again, through
/// the operation and its JSON, until the board is solved.
fn solve_by_hints(problem: &queens::Problem) -> Vec<queens::Pos> {
    use queens::ops::{hint, Context, HintRequest, Instance, Status};
    let (mut queens, mut marks) = (problem.fixed().to_vec(), Vec::new());
    for _ in 0..1000 {
        let p = problem
            .replace_fixed(&queens)
            .unwrap()
            .with_marks(&marks)
            .unwrap();
        let json = queens::formats::write_json(&p, "position");
        let instance: Instance =
            serde_json::from_value(serde_json::json!({ "text": json })).unwrap();
        let r = hint(&HintRequest { instance }, &Context::default()).unwrap();
        match r.status {
            Status::Solved => return queens,
            Status::Sat => {
                assert!(r.reason.is_some() && r.technique.is_some(), "{r:?}");
                queens.extend(&r.place);
                marks.extend(&r.eliminate);
            }
            other => panic!("{other:?}: {r:?}"),
        }
    }
    panic!("no progress");
}

#[test]
fn hints_applied_in_a_loop_solve_the_puzzle() {
    let p = queens::formats::read_path(std::path::Path::new(&super::cli::instance("region-7.txt")))
        .unwrap();
    let (solution, _) = queens::engine::backtrack::first_solution(&p, &Default::default());
    let mut got = solve_by_hints(&p);
    got.sort_unstable();
    assert_eq!(Some(got), solution);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/linkedin-official-1-616.jsonl");
    if !path.exists() {
        return;
    }
    let selection = queens::formats::sources::Selection {
        take: Some(40),
        ..Default::default()
    };
    for level in queens::formats::sources::load_all(&[path], &selection).unwrap() {
        let level = level.unwrap();
        let (solution, _) =
            queens::engine::backtrack::first_solution(&level.problem, &Default::default());
        let mut got = solve_by_hints(&level.problem);
        got.sort_unstable();
        assert_eq!(Some(got), solution, "level {}", level.id);
    }
}

#[test]
fn cli_hint_names_the_step_or_the_mistake() {
    use super::cli::{instance, queens};
    let grid = std::fs::read_to_string(instance("region-7.txt")).unwrap();
    let o = queens(&["hint", &instance("region-7.txt"), "--json"], None);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["status"], "sat");
    assert_eq!(v["technique"], "last-cell");
    assert_eq!(v["place"], serde_json::json!([[0, 1]]));
    assert_eq!(
        v["reason"],
        "Region A has one cell left that can hold a queen: (0,1)."
    );
    // A wrong queen: the hint says so instead of deducing from it.
    let wrong = format!("{grid}queens: 0,0\n");
    let o = queens(&["hint", "-"], Some(&wrong));
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("leave no solution"), "{text}");
    // Marks are read from the file (and a mark off the board is an input error).
    let marked = format!("{grid}marks: 0,0 0,2\n");
    let o = queens(&["hint", "-"], Some(&marked));
    assert_eq!(o.status.code(), Some(0));
    let o = queens(&["hint", "-"], Some(&format!("{grid}marks: 7,7\n")));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn grade_and_the_logical_path() {
    use super::cli::{instance, queens};
    let o = queens(&["grade", &instance("region-7.txt"), "--json"], None);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["grade"], "easy", "{v}");
    assert_eq!(v["solved_by_logic"], true);
    assert_eq!(v["hardest"], "last-cell");
    // The path: every step named, ending in the board the solver finds.
    let o = queens(&["solve", &instance("region-7.txt"), "--steps"], None);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("  1. "), "{text}");
    assert!(
        text.trim_end().ends_with("attacked 6, last-cell 7)"),
        "{text}"
    );
    let o = queens(&["solve", &instance("region-7.txt")], None);
    let board: String = String::from_utf8_lossy(&o.stdout)
        .lines()
        .take(7)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.contains(&board),
        "the path ends in the solver's board:\n{text}\n{board}"
    );
    // `grade --steps` (the request's field `steps`, an option of the command made from the
    // declaration) prints the same path, and a misspelt option is a usage error.
    let o = queens(&["grade", &instance("region-7.txt"), "--steps"], None);
    assert_eq!(o.status.code(), Some(0));
    let graded = String::from_utf8_lossy(&o.stdout);
    assert!(graded.contains("  1. "), "{graded}");
    assert!(
        graded.trim_end().ends_with("attacked 6, last-cell 7)"),
        "{graded}"
    );
    super::cli::exited(&queens(&["grade", "-", "--stpes"], Some("")), 2);
    // No grade within the time limit is exit 4, as for every question.
    let o = queens(
        &["grade", &instance("region-7.txt"), "--timeout", "0.000001"],
        None,
    );
    super::cli::exited(&o, 4);
    assert!(String::from_utf8_lossy(&o.stderr).contains("timeout: no answer"));
    // A board too large for deduction is refused before any work.
    let o = queens(&["grade", "--help"], None);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("--steps"));
    let big = serde_json::json!({"n": 40}).to_string();
    let o = queens(&["grade", "-"], Some(&big));
    super::cli::exited(&o, 2);
}

#[test]
fn grades_of_the_linkedin_levels() {
    let Some(path) = crate::need::shared_data("linkedin-official-1-616.jsonl") else {
        return;
    };
    use queens::puzzle::grade::{grade, logical_path, Grade};
    let mut counts = std::collections::BTreeMap::new();
    for level in queens::formats::sources::load_all(&[path], &Default::default()).unwrap() {
        let level = level.unwrap();
        let path = logical_path(&level.problem);
        assert!(path.solved, "level {} is solved by logic", level.id);
        *counts.entry(grade(&path)).or_insert(0) += 1;
    }
    eprintln!("grades: {counts:?}");
    // BENCHMARKS.md quotes this distribution.
    let expected = [
        (Grade::Easy, 20),
        (Grade::Medium, 142),
        (Grade::Hard, 339),
        (Grade::Expert, 107),
    ];
    assert_eq!(counts, expected.into_iter().collect());
}

#[test]
fn grades_of_a_thousand_generated_9x9_puzzles() {
    use queens::generate::puzzle;
    use queens::puzzle::grade::{grade, logical_path, Grade};
    let mut counts = std::collections::BTreeMap::new();
    for seed in 0..1000 {
        let p = puzzle(9, seed).unwrap();
        *counts.entry(grade(&logical_path(&p))).or_insert(0) += 1;
    }
    eprintln!("grades: {counts:?}");
    // BENCHMARKS.md compares this distribution with the LinkedIn levels' (the one above).
    let expected = [
        (Grade::Easy, 27),
        (Grade::Medium, 136),
        (Grade::Hard, 658),
        (Grade::Expert, 179),
    ];
    assert_eq!(counts, expected.into_iter().collect());
}

#[test]
fn cli_generates_puzzles_of_the_grade_asked_for() {
    use super::cli::queens;
    let o = queens(
        &[
            "generate",
            "regions",
            "--n",
            "8",
            "--difficulty",
            "expert",
            "--count",
            "3",
        ],
        None,
    );
    super::cli::exited(&o, 0);
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    for line in lines {
        assert!(line.contains(r#""id": "regions-8-expert-"#), "{line}");
        let g = queens(&["grade", "-", "--json"], Some(line));
        assert_eq!(g.status.code(), Some(0));
        let v: serde_json::Value = serde_json::from_slice(&g.stdout).unwrap();
        assert_eq!(v["grade"], "expert", "{v}");
    }
    // A grade for a generator without one is a usage error.
    let o = queens(
        &["generate", "diagonals", "--n", "8", "--difficulty", "easy"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

/// Dancing Links answers region puzzles as the backtracker does: the same number of
/// solutions (up to 2) on the repository's region files, on generated puzzles, and on every
/// LinkedIn level when ../shared is there; every board it gives passes the verifier.
#[test]
fn dancing_links_agrees_with_the_backtracker_on_region_puzzles() {
    use queens::engine::{count, Budget, EngineSpec};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut puzzles: Vec<(String, queens::Problem)> = ["region-7.txt", "region-9.json"]
        .iter()
        .map(|f| {
            let p = queens::formats::read_path(&root.join("instances").join(f)).unwrap();
            (f.to_string(), p)
        })
        .collect();
    for seed in 1..=6 {
        let p = queens::engine::generate::puzzle(8, seed).unwrap();
        puzzles.push((format!("generated 8×8 seed {seed}"), p));
    }
    if let Some(path) = crate::need::shared_data("linkedin-official-1-616.jsonl") {
        for level in queens::formats::sources::load_all(&[path], &Default::default()).unwrap() {
            let level = level.unwrap();
            puzzles.push((format!("level {}", level.id), level.problem));
        }
    }
    let budget = Budget::default();
    let dlx: EngineSpec = "dlx".parse().unwrap();
    for (name, p) in &puzzles {
        let by = |spec| count(p, spec, Some(2), &budget).unwrap().count;
        let want = by(EngineSpec::Backtrack { threads: 1 });
        assert_eq!(by(dlx), want, "{name}");
        let one = queens::engine::solve(p, dlx, &budget).unwrap();
        if let queens::engine::Answer::Sat(q) = one.answer {
            assert!(queens::verify::verify(p, &q).is_ok(), "{name}");
        }
    }
}
