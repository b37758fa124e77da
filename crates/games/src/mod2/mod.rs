//! The mod-2 n-queens game: a queen may go only on a square attacked by an even
//! number of queens, counted without blocking.
//!
//! - [`rules`]: values, open squares, complete/locked/unlocked, and [`rules::replay`], the
//!   independent checker of every move order the other modules report;
//! - [`mod@format`]: move lists as JSON files;
//! - [`search`]: bitboards, the 8 symmetries, the winner by memoised search, the reachable
//!   positions layer by layer;
//! - [`encode`]: SAT encodings of reachability (each call certified by
//!   [`queens_engine::formula`]);
//! - [`questions`]: the most queens (Q4) and the fewest locked queens (Q7), proven.

pub mod encode;
pub mod format;
pub mod questions;
pub mod retro;
pub mod rules;
pub mod search;

pub use rules::{replay, Board, IllegalMove, State, Variant};
