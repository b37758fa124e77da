//! The core's size before it is built: its open cells estimated from the bitmaps
//! ([`Open::estimate_cells`]) and its memory against local search's and the budget's limit,
//! on which the completion portfolio chooses ([`CoreEstimate`]), and the choice for people
//! ([`CoreEstimate::why`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::Open;
use crate::local;
use queens_model::model::Problem;
use queens_model::Budget;

/// How long the portfolio searches a core built at once alone, before local search starts
/// beside it: near the crossing the core search answers in well under this, and starting two
/// threads costs more than the answer; a search not done by then starts again on its thread.
pub const CORE_ALONE: Duration = Duration::from_millis(20);

/// The completion portfolio's estimates, made before any core is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CoreEstimate {
    /// Free rows.
    pub free_rows: usize,
    /// The core's open cells, estimated from a sample of its rows.
    pub cells: u64,
    /// The core's memory at its peak, in bytes ([`super::memory_estimate`]).
    pub core_memory: u64,
    /// Local search's memory, in bytes ([`local::memory_estimate`]).
    pub local_memory: u64,
    /// Local search runs (it fits the memory limit).
    pub local: bool,
    /// The core may be built at all: it fits [`super::fits`] and the memory limit.
    pub core: bool,
    /// The core is built at once, beside local search; otherwise only once local search has
    /// given up (or when it does not run).
    pub core_first: bool,
}

/// The portfolio's estimates for a classic completion: the core's memory estimated from the
/// bitmaps ([`Open::estimate_cells`]) against local search's and the budget's limit.
pub fn estimate_core(problem: &Problem, open: &Open, budget: &Budget) -> CoreEstimate {
    let cells = open.estimate_cells();
    let core_memory = super::memory_estimate(problem.n(), cells as usize);
    let local_memory = local::memory_estimate(problem);
    let under = |need: u64| budget.max_memory.is_none_or(|limit| need <= limit);
    let local = under(local_memory) && local::supports(problem).is_ok();
    let core = under(core_memory) && super::fits(problem).is_ok();
    // A core no larger than local search's own memory (at least 8 MiB) is built at once:
    // it keeps `auto` within twice the faster engine's peak, and it is built in about the
    // time local search takes to start. Past that the core costs more than local search in
    // time too (measured: 1,000 rows with 600 free, 4,000 with 800 free), until local
    // search gives up.
    let core_first = core && (!local || core_memory <= local_memory);
    CoreEstimate {
        free_rows: open.free_rows(),
        cells,
        core_memory,
        local_memory,
        local,
        core,
        core_first,
    }
}

impl CoreEstimate {
    /// The decision for people, in one clause: the estimates, and what ran first.
    pub fn why(&self) -> String {
        let estimate = format!(
            "the core ({} free rows) was estimated at {} against local search's {}",
            self.free_rows,
            bytes(self.core_memory),
            bytes(self.local_memory)
        );
        match (self.local, self.core, self.core_first) {
            (true, true, true) => format!(
                "{estimate}, so the core was built at once and searched alone for up to {} ms, \
                 then beside local search",
                CORE_ALONE.as_millis()
            ),
            (true, true, false) => format!(
                "{estimate}, so local search ran first, beside Hall's condition on the bitmaps, \
                 and the core only once local search gave up"
            ),
            (true, false, _) => format!(
                "{estimate}, and the core is over the limits (the core search's bound or the \
                 memory limit), so local search ran, beside Hall's condition on the bitmaps"
            ),
            (false, true, _) => format!(
                "{estimate}, and local search is over the memory limit, so the core search ran \
                 alone"
            ),
            (false, false, _) => format!("{estimate}: neither fits the limits"),
        }
    }
}

/// A size for people: kilobytes under a megabyte, megabytes above.
pub fn bytes(b: u64) -> String {
    if b < 1 << 20 {
        format!("{} KB", b.div_ceil(1 << 10))
    } else {
        format!("{} MB", b.div_ceil(1 << 20))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::completion;
    use crate::generate;

    /// The core's memory, estimated from a sample of rows before it is built, against the
    /// arrays the built core holds.
    #[test]
    fn the_memory_estimate_bounds_the_built_core() {
        for (n, queens, seed) in [(1000, 900, 1), (2000, 1500, 3), (3000, 1800, 4)] {
            let p = generate::completion(n, queens, seed).unwrap();
            let (open, _) = Open::new(&p);
            let estimated = open.estimate_cells();
            let Some(completion::Presolved::Core(core)) =
                completion::presolve(&p, false, &Budget::default()).unwrap()
            else {
                panic!("a core")
            };
            let cells = core.cells() as f64;
            assert!(
                (estimated as f64 - cells).abs() <= 0.15 * cells,
                "n {n}: estimated {estimated} cells, built {cells}"
            );
            let measured = core.heap_bytes() + (3 * n as u64) / 4;
            let bound = completion::memory_estimate(n, core.cells());
            assert!(
                measured <= bound && bound <= 3 * measured,
                "n {n}: {measured} bytes held, {bound} estimated"
            );
        }
    }

    /// A lightly preset board: the core would hold far more than local search, so it waits;
    /// a memory limit at local search's leaves the core out.
    #[test]
    fn a_large_core_waits_for_local_search_and_a_tight_limit_leaves_it_out() {
        let p = generate::completion(4000, 2000, 1).unwrap();
        let (open, _) = Open::new(&p);
        let e = estimate_core(&p, &open, &Budget::default());
        assert!(e.core && e.local && !e.core_first, "{e:?}");
        assert!(e.core_memory > 2 * e.local_memory, "{e:?}");
        assert_eq!(e.free_rows, 2000);
        let tight = Budget {
            max_memory: Some(e.local_memory),
            ..Budget::default()
        };
        let e = estimate_core(&p, &open, &tight);
        assert!(!e.core && e.local && !e.core_first, "{e:?}");
    }
}
