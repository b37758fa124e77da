//! Minimal explanations by search: which presets (fixed queens, blocked cells, excluded
//! diagonals) already leave no completion, found by dropping one at a time and asking the
//! backtracker again. It needs no assumptions, so unlike the SAT engine's explanation
//! ([`crate::sat::explain`]) it also minimises excluded diagonals, and its core can be
//! certified like any instance ([`crate::prove`]).

use crate::answer::Answer;
use crate::execute::solve;
use crate::sat::Explanation;
use crate::spec::EngineSpec;
use queens_model::error::Error;
use queens_model::model::{Diagonal, Pos, Problem};
use queens_model::Budget;

/// One preset of a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Preset {
    Queen(Pos),
    Blocked(Pos),
    Excluded(Diagonal),
}

/// The problem with only `presets` (its board, rule and regions unchanged).
pub fn with_presets(
    problem: &Problem,
    queens: &[Pos],
    blocked: &[Pos],
    excluded: &[Diagonal],
) -> Result<Problem, Error> {
    problem
        .replace_fixed(queens)?
        .replace_blocked(blocked)?
        .replace_excluded(excluded)
}

fn build(problem: &Problem, presets: &[Preset]) -> Result<Problem, Error> {
    let (mut q, mut b, mut x) = (Vec::new(), Vec::new(), Vec::new());
    for &p in presets {
        match p {
            Preset::Queen(c) => q.push(c),
            Preset::Blocked(c) => b.push(c),
            Preset::Excluded(d) => x.push(d),
        }
    }
    with_presets(problem, &q, &b, &x)
}

/// What [`explain`] found, and how many searches it took.
pub struct Explained {
    /// The explanation; `None` when the budget ran out first.
    pub explanation: Option<Explanation>,
    /// Backtracking searches run.
    pub searches: u64,
}

/// Explains an unsolvable problem with a minimal set of presets by deletion: drop a member,
/// search again (on all cores), keep it out while the rest is still unsolvable. Every strict
/// subset of the result has a completion. Each search is bounded by the budget.
pub fn explain(problem: &Problem, budget: &Budget) -> Result<Explained, Error> {
    let spec = EngineSpec::Backtrack { threads: 0 };
    let mut searches = 0u64;
    let mut ask = |p: &Problem| -> Result<Option<Answer>, Error> {
        searches += 1;
        let answer = solve(p, spec, budget)?.answer;
        Ok(answer.is_decided().then_some(answer))
    };
    let Some(first) = ask(problem)? else {
        return Ok(Explained {
            explanation: None,
            searches,
        });
    };
    if let Answer::Sat(q) = first {
        return Ok(Explained {
            explanation: Some(Explanation::Solvable(q)),
            searches,
        });
    }
    let mut core: Vec<Preset> = problem
        .fixed()
        .iter()
        .map(|&p| Preset::Queen(p))
        .chain(problem.blocked().iter().map(|&p| Preset::Blocked(p)))
        .chain(problem.excluded().iter().map(|&d| Preset::Excluded(d)))
        .collect();
    // Members before `i` are needed: dropping one made the rest solvable, and that stays
    // so as the core shrinks (a subset of a solvable preset set is solvable).
    let mut i = 0;
    while i < core.len() {
        let mut trial = core.clone();
        trial.remove(i);
        match ask(&build(problem, &trial)?)? {
            None => {
                return Ok(Explained {
                    explanation: None,
                    searches,
                })
            }
            Some(Answer::Unsat(())) => core = trial,
            Some(_) => i += 1,
        }
    }
    let pick = |f: fn(&Preset) -> Option<Pos>| -> Vec<Pos> { core.iter().filter_map(f).collect() };
    let queens = pick(|p| match p {
        Preset::Queen(c) => Some(*c),
        _ => None,
    });
    let blocked = pick(|p| match p {
        Preset::Blocked(c) => Some(*c),
        _ => None,
    });
    let excluded: Vec<Diagonal> = core
        .iter()
        .filter_map(|p| match p {
            Preset::Excluded(d) => Some(*d),
            _ => None,
        })
        .collect();
    let reason = crate::sat::core_reason(problem, &queens, &blocked, Some(&excluded));
    Ok(Explained {
        explanation: Some(Explanation::Unsolvable {
            core: queens,
            blocked_core: blocked,
            excluded_core: excluded,
            reason,
        }),
        searches,
    })
}
