//! The racing engine: the backtracker and the SAT engine on one core each, the first answer
//! wins and the other is stopped.
//!
//! The backtracker stops on a flag; varisat cannot be interrupted, so the SAT side must run
//! where it can be killed (a child process). The caller supplies both sides as closures that
//! take their stop flag, so this module knows nothing of processes or protocols: the
//! operations layer runs the SAT side as a `queens op` child (`compare` runs a race as one
//! `solve` request in a child, whose race then starts its own SAT child).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::Error;

/// Which side of a race answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The backtracker.
    Backtrack,
    /// The SAT engine.
    Sat,
}

/// What one side returns: `Ok(Some(answer))` to win, `Ok(None)` when it stopped without an
/// answer (its flag was set, or its own limit passed), `Err` when it failed.
pub type SideResult<T> = Result<Option<T>, Error>;

/// How often the race looks at the caller's cancel flag and deadline.
const POLL: Duration = Duration::from_millis(2);

/// Runs both sides at once. The first to answer wins: the other's stop flag is set, and the
/// race returns once both have returned (a side must come back soon after its flag is
/// set). The caller's `cancel` flag and `deadline` stop both. Returns the winner and its
/// answer, or `None` when neither answered. A side's error is returned only if the other
/// side did not answer either.
pub fn race<T: Send>(
    backtrack: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    sat: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    cancel: Option<&AtomicBool>,
    deadline: Option<Instant>,
) -> Result<Option<(Side, T)>, Error> {
    let stops = [
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    ];
    let winner: Mutex<Option<(Side, T)>> = Mutex::new(None);
    let errors: Mutex<Vec<Error>> = Mutex::new(Vec::new());
    let finish = |side: Side, result: SideResult<T>| {
        match result {
            Ok(Some(answer)) => {
                let mut w = winner.lock().expect("no race side panics");
                if w.is_none() {
                    *w = Some((side, answer));
                }
            }
            Ok(None) => {}
            Err(e) => errors.lock().expect("no race side panics").push(e),
        }
        // Once either side has answered, both stop. A side that failed or stopped without
        // an answer leaves the other running.
        if winner.lock().expect("no race side panics").is_some() {
            for s in &stops {
                s.store(true, Ordering::Relaxed);
            }
        }
    };
    std::thread::scope(|s| {
        let (bt_stop, sat_stop) = (stops[0].clone(), stops[1].clone());
        let finish = &finish;
        let bt = s.spawn(move || finish(Side::Backtrack, backtrack(bt_stop)));
        let sat = s.spawn(move || finish(Side::Sat, sat(sat_stop)));
        while !(bt.is_finished() && sat.is_finished()) {
            let cancelled = cancel.is_some_and(|c| c.load(Ordering::Relaxed))
                || deadline.is_some_and(|d| Instant::now() >= d);
            if cancelled {
                for s in &stops {
                    s.store(true, Ordering::Relaxed);
                }
            }
            std::thread::sleep(POLL);
        }
    });
    let winner = winner.into_inner().expect("no race side panics");
    match winner {
        Some(w) => Ok(Some(w)),
        None => match errors.into_inner().expect("no race side panics").pop() {
            Some(e) => Err(e),
            None => Ok(None),
        },
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
        assert_eq!(got, Some((Side::Sat, 7)));
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
        assert_eq!(got, Some((Side::Backtrack, 1)));
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
        assert_eq!(got, Some((Side::Sat, 2)));
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
