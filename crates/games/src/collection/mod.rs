//! The Queen's Collection, solo mode: sort 20 pawns onto their colours' boxes
//! with swaps paid by cards.
//!
//! - [`rules`]: the board, the hand and the pile, the three actions with the rule each
//!   illegal move breaks, apply and undo, the score, and [`rules::replay`], the independent
//!   checker of every move list the other modules report;
//! - [`mod@format`]: deals and move lists as JSON, every error naming its field;
//! - [`deal`]: seeded deals for every difficulty;
//! - [`policy`]: policies that play without seeing the pile (random, greedy, lookahead);
//! - [`simulate`]: many seeded deals played by one policy on all cores.
//! - [`solve`]: the clairvoyant optimum, by branch and bound;
//! - [`plan`]: the same optimum by SAT (bounded planning), to hold the search to;
//! - [`study`]: optima against the policies' scores on many deals: luck against play.
//!
//! ```
//! use queens_games::collection::{deal, Difficulty, Rules, Move};
//!
//! let d = deal::deal(7, &Difficulty::default());
//! let mut game = d.to_state(Rules::default()).unwrap();
//! assert_eq!(game.board().total(), 20);
//! assert_eq!(game.score(), -20); // the deal puts no pawn on its own box
//! let undo = game.apply(&Move::Discard(vec![0])).unwrap();
//! assert_eq!(game.pile_len(), 34);
//! game.undo(undo);
//! assert_eq!(game.pile_len(), 35);
//! ```

pub mod deal;
pub mod format;
pub mod plan;
pub mod policy;
pub mod rules;
pub mod simulate;
pub mod solve;
pub mod study;

pub use deal::Difficulty;
pub use format::{parse_deal, parse_moves, Deal};
pub use policy::{play, Policy, PolicyName, View};
pub use rules::{
    replay, Board, Card, Colour, DrawRule, Illegal, IllegalMove, Move, Pawn, Rule, Rules, State,
    Status,
};
