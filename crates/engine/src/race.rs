//! The one race: two sides at once, each on a thread of its own with its own stop flag; a
//! side whose result ends the race stops the other, and the race returns once both have
//! returned (a side must come back soon after its flag is set). The caller's cancel flag and
//! deadline stop both.
//!
//! Everything that runs two engines at once is this combinator with a rule for which result
//! ends the race and which one wins:
//!
//! - [`Race`], two [`Engine`]s in this process: `auto`'s backtracker against local search
//!   ([`crate::auto`]);
//! - [`race`], the first answer wins: the backtracker against the SAT engine, whose side runs
//!   where it can be killed (a child process), since varisat cannot be interrupted. The
//!   caller supplies both sides as closures that take their stop flag, so this module knows
//!   nothing of processes or protocols: the operations layer runs the SAT side as a
//!   `queens op` child (`compare` runs a race as one `solve` request in a child, whose race
//!   then starts its own SAT child).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::engines::Engine;
use crate::{Budget, ColumnAnswer, EngineName, SolvedColumns, Work};
use queens_model::error::Error;
use queens_model::model::Problem;

/// Which side of a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first side given (the backtracker, in every race here).
    First,
    /// The second side given.
    Second,
}

/// How often the race looks at the caller's cancel flag and deadline.
const POLL: Duration = Duration::from_millis(2);

/// Both sides' results, and the order in which they came back.
pub struct Finish<T> {
    /// The first side's result.
    pub first: Result<T, Error>,
    /// The second side's result.
    pub second: Result<T, Error>,
    /// The side that came back first.
    pub earlier: Side,
}

impl<T> Finish<T> {
    fn of(&self, side: Side) -> &Result<T, Error> {
        match side {
            Side::First => &self.first,
            Side::Second => &self.second,
        }
    }
}

/// Runs both sides at once. Once a side returns a result for which `ends` holds, both stop
/// flags are set; a result for which it does not leaves the other side running. The
/// caller's `cancel` flag and `deadline` set both flags.
pub fn run_both<T: Send>(
    first: impl FnOnce(Arc<AtomicBool>) -> Result<T, Error> + Send,
    second: impl FnOnce(Arc<AtomicBool>) -> Result<T, Error> + Send,
    ends: impl Fn(&Result<T, Error>) -> bool + Sync,
    cancel: Option<&AtomicBool>,
    deadline: Option<Instant>,
) -> Finish<T> {
    let stops = [
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    ];
    let order: Mutex<Vec<Side>> = Mutex::new(Vec::new());
    let stop_both = || {
        for s in &stops {
            s.store(true, Ordering::Relaxed);
        }
    };
    let finish = |side: Side, result: Result<T, Error>| {
        order.lock().expect("no race side panics").push(side);
        if ends(&result) {
            stop_both();
        }
        result
    };
    // Each side says on `done` that it has returned, so the race ends the moment both have,
    // not at the next look at the cancel flag and deadline.
    let (done, returned) = mpsc::channel::<()>();
    let (first, second) = std::thread::scope(|s| {
        let (first_stop, second_stop) = (stops[0].clone(), stops[1].clone());
        let finish = &finish;
        let first_done = done.clone();
        let a = s.spawn(move || {
            let result = finish(Side::First, first(first_stop));
            let _ = first_done.send(());
            result
        });
        let second_done = done;
        let b = s.spawn(move || {
            let result = finish(Side::Second, second(second_stop));
            let _ = second_done.send(());
            result
        });
        let mut back = 0;
        while back < 2 {
            match returned.recv_timeout(POLL) {
                Ok(()) => back += 1,
                Err(RecvTimeoutError::Timeout) => {}
                // A side that panicked dropped its sender without a word: joined below.
                Err(RecvTimeoutError::Disconnected) => break,
            }
            let cancelled = cancel.is_some_and(|c| c.load(Ordering::Relaxed))
                || deadline.is_some_and(|d| Instant::now() >= d);
            if cancelled {
                stop_both();
            }
        }
        let join = |h: std::thread::ScopedJoinHandle<'_, Result<T, Error>>| {
            h.join()
                .unwrap_or_else(|_| Err(Error::internal("a race side panicked")))
        };
        (join(a), join(b))
    });
    let earlier = order
        .into_inner()
        .expect("no race side panics")
        .first()
        .copied()
        .unwrap_or(Side::First);
    Finish {
        first,
        second,
        earlier,
    }
}

/// What one side of a [`race`] returns: `Ok(Some(answer))` to win, `Ok(None)` when it
/// stopped without an answer (its flag was set, or its own limit passed), `Err` when it
/// failed.
pub type SideResult<T> = Result<Option<T>, Error>;

/// [`run_both`] where the first answer wins. Returns the winner and its answer, or `None`
/// when neither answered. A side's error is returned only if the other side did not answer
/// either (the later error, when both failed).
pub fn race<T: Send>(
    first: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    second: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    cancel: Option<&AtomicBool>,
    deadline: Option<Instant>,
) -> Result<Option<(Side, T)>, Error> {
    let done = run_both(
        first,
        second,
        |r| matches!(r, Ok(Some(_))),
        cancel,
        deadline,
    );
    let later = match done.earlier {
        Side::First => Side::Second,
        Side::Second => Side::First,
    };
    let answered = |side| matches!(done.of(side), Ok(Some(_)));
    let winner = [done.earlier, later].into_iter().find(|&s| answered(s));
    let failed = |side| done.of(side).is_err();
    let error = [later, done.earlier].into_iter().find(|&s| failed(s));
    let Finish { first, second, .. } = done;
    let pick = |side: Side, first: SideResult<T>, second: SideResult<T>| match side {
        Side::First => first,
        Side::Second => second,
    };
    match (winner, error) {
        (Some(side), _) => Ok(pick(side, first, second)?.map(|t| (side, t))),
        (None, Some(side)) => pick(side, first, second).map(|_| None),
        (None, None) => Ok(None),
    }
}

/// Two engines at once in this process, on the caller's deadline and memory limit, each
/// with its own stop flag. A solution, a proven "no" or an error ends the race; giving up
/// (local search spent its restarts) leaves the other side to finish alone. With both
/// answered, the first engine's answer wins (in `auto`, the backtracker's: it can prove);
/// with neither, the answer is [`ColumnAnswer::Interrupted`] with both sides' work.
pub struct Race<A, B> {
    /// The family the race answers as.
    pub name: EngineName,
    /// The first side, preferred when both answer.
    pub first: A,
    /// The second side.
    pub second: B,
}

impl<A: Engine, B: Engine> Engine for Race<A, B> {
    fn name(&self) -> EngineName {
        self.name
    }

    fn solve(&self, problem: &Problem, budget: &Budget) -> Result<SolvedColumns, Error> {
        let side = |stop: Arc<AtomicBool>| Budget {
            cancel: Some(stop),
            progress: None,
            ..budget.clone()
        };
        let decided = |r: &Result<SolvedColumns, Error>| match r {
            Ok(s) => s.answer.is_decided(),
            Err(_) => true,
        };
        let done = run_both(
            |stop| self.first.solve(problem, &side(stop)),
            |stop| self.second.solve(problem, &side(stop)),
            |r| decided(r),
            budget.cancel.as_deref(),
            None,
        );
        let (first, second) = (done.first?, done.second?);
        Ok(if first.answer.is_decided() {
            first
        } else if second.answer.is_decided() {
            second
        } else {
            SolvedColumns {
                answer: ColumnAnswer::Interrupted,
                work: Work {
                    nodes: first.work.nodes.or(second.work.nodes),
                    sat: first.work.sat.or(second.work.sat),
                    local: first.work.local.or(second.work.local),
                    ..Work::default()
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn until_stopped(stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn the_first_answer_wins_and_stops_the_other() {
        let got = race(
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
        let got = race(
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
        let got = race(
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
        let err = race::<u32>(
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
        let got = race::<u32>(
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
}
