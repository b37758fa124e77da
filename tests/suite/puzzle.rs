//! Human-style deduction on region puzzles: a hint never contradicts the unique solution,
//! on every LinkedIn level (when ../shared is there).

use queens::puzzle::deduce::{next_step, Technique};
use queens::puzzle::Position;

#[test]
fn hints_never_contradict_the_solution_of_any_linkedin_level() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data/linkedin-official-1-616.jsonl");
    if !path.exists() {
        eprintln!("../shared is absent: skipped");
        return;
    }
    let levels = queens::formats::sources::load_all(&[path], &Default::default()).unwrap();
    let (mut solved, mut total) = (0, 0);
    let mut used = std::collections::BTreeMap::new();
    for level in levels {
        let level = level.unwrap();
        let p = &level.problem;
        let (Some(solution), _) = queens::backtrack::solve(p, &Default::default()) else {
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
