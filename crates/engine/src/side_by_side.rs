//! The one side-by-side combinator of the executor: two sides at once, each on a scoped
//! thread with its own stop flag; a side whose result ends the pair stops the other, and the
//! combinator returns once both have returned (a side must come back soon after its flag is
//! set). The caller's cancel flag and deadline stop both, so nothing it started is left
//! running. [`first_answer`] is the rule where the first answer wins; its sides are closures
//! that take their stop flag, so a side may run in a child process the caller supplies
//! (varisat in engine `race`, which only a kill stops): this module knows nothing of
//! processes or protocols.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use queens_model::error::Error;

/// Which of two steps side by side.
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
    /// When each side came back.
    pub ended: [Instant; 2],
}

impl<T> Finish<T> {
    /// The result of `side`.
    pub fn of(&self, side: Side) -> &Result<T, Error> {
        match side {
            Side::First => &self.first,
            Side::Second => &self.second,
        }
    }
}

/// Runs both sides at once. Once a side returns a result for which `ends` holds, both stop
/// flags are set; a result for which it does not leaves the other side running. The
/// caller's `cancel` flag and `deadline` set both flags.
pub fn side_by_side<T: Send>(
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
    let order: Mutex<Vec<(Side, Instant)>> = Mutex::new(Vec::new());
    let stop_both = || {
        for s in &stops {
            s.store(true, Ordering::Relaxed);
        }
    };
    let finish = |side: Side, result: Result<T, Error>| {
        order
            .lock()
            .expect("no side panics")
            .push((side, Instant::now()));
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
                .unwrap_or_else(|_| Err(Error::internal("a side-by-side step panicked")))
        };
        (join(a), join(b))
    });
    let order = order.into_inner().expect("no side panics");
    let earlier = order.first().map_or(Side::First, |&(side, _)| side);
    let now = Instant::now();
    let when = |side| {
        order
            .iter()
            .find(|&&(s, _)| s == side)
            .map_or(now, |&(_, t)| t)
    };
    let ended = [when(Side::First), when(Side::Second)];
    Finish {
        first,
        second,
        earlier,
        ended,
    }
}

/// What one side of [`first_answer`] returns: `Ok(Some(answer))` to win, `Ok(None)` when it
/// stopped without an answer (its flag was set, or its own limit passed), `Err` when it
/// failed.
pub type SideResult<T> = Result<Option<T>, Error>;

/// [`side_by_side`] where the first answer wins. Returns the winner and its answer, or `None`
/// when neither answered. A side's error is returned only if the other side did not answer
/// either (the later error, when both failed).
pub fn first_answer<T: Send>(
    first: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    second: impl FnOnce(Arc<AtomicBool>) -> SideResult<T> + Send,
    cancel: Option<&AtomicBool>,
    deadline: Option<Instant>,
) -> Result<Option<(Side, T)>, Error> {
    let done = side_by_side(
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
