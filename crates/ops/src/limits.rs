//! Limits on the work a request may ask for, shared by the operations that take them.

use queens_model::error::Error;

/// Largest board whose solutions a synchronous call may count without a limit (n = 16:
/// 1.4 s on two cores).
pub const UNBOUNDED_COUNT_N: usize = 16;

/// Largest board whose solutions a synchronous call may list without a limit (n = 10: 724).
pub const UNBOUNDED_LIST_N: usize = 10;

/// Refuses a `limit` of 0.
pub(crate) fn check_limit(limit: Option<u64>) -> Result<(), Error> {
    if limit == Some(0) {
        return Err(Error::unsupported_at_field("limit", "must be at least 1"));
    }
    Ok(())
}

/// Largest board hints and grades are given for: deduction is polynomial but steep (the
/// contradiction technique tries every open cell with a chain of up to 64 steps), and
/// region puzzles are far smaller.
pub const MAX_PUZZLE_N: usize = 32;

/// Refuses boards over [`MAX_PUZZLE_N`].
pub(crate) fn check_size(n: usize) -> Result<(), Error> {
    if n > MAX_PUZZLE_N {
        return Err(Error::too_large_at_field(
            "instance",
            format!(
                "hints and grades are for puzzles up to {MAX_PUZZLE_N}×{MAX_PUZZLE_N}; \
                 this board is {n}×{n}"
            ),
        ));
    }
    Ok(())
}
