//! Seeded solo deals for every difficulty: the box's contents after the difficulty's
//! removals, the setup deal of the pawns onto the boxes by revealed cards, and the shuffled
//! pile with the first hand.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::format::Deal;
use super::rules::{
    Board, Card, Colour, Rules, State, CARDS_PER_COLOUR, COLOURS, HAND_SIZE, PAWNS_PER_COLOUR,
    WILDS,
};
use queens_model::rng::Rng;

/// Pawns the solo game takes out before the deal, one of each of this many colours.
pub const SOLO_REMOVED_PAWNS: usize = 4;

/// How hard a deal is: the beginner side of the boxes, one card of each colour out of the
/// game, and up to 3 wilds out.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct Difficulty {
    /// Boxes of 2 spaces, 2 pawns of each colour, 2 points per sorted box (16 at most).
    pub beginner: bool,
    /// One card of each colour out of the game (3 of each left).
    pub remove_colour_cards: bool,
    /// Wilds out of the game, 0..=3.
    #[schema(maximum = 3)]
    pub remove_wilds: u8,
}

// The schema's maximum above is a literal (the derive takes no constants): the game's.
const _: () = assert!(Difficulty::MAX_REMOVED_WILDS == 3);

impl Difficulty {
    /// Most wilds a difficulty takes out.
    pub const MAX_REMOVED_WILDS: u8 = 3;

    /// The set measured in BENCHMARKS.md: normal, beginner, colour cards out, 1, 2 and 3
    /// wilds out, and the hardest (colour cards and 3 wilds out).
    pub fn measured() -> Vec<Difficulty> {
        let d = Difficulty::default();
        vec![
            d,
            Difficulty {
                beginner: true,
                ..d
            },
            Difficulty {
                remove_colour_cards: true,
                ..d
            },
            Difficulty {
                remove_wilds: 1,
                ..d
            },
            Difficulty {
                remove_wilds: 2,
                ..d
            },
            Difficulty {
                remove_wilds: 3,
                ..d
            },
            Difficulty {
                remove_colour_cards: true,
                remove_wilds: 3,
                ..d
            },
        ]
    }

    /// Checks the wild count (the message is about field `remove_wilds`).
    pub fn validate(&self) -> Result<(), String> {
        if self.remove_wilds > Self::MAX_REMOVED_WILDS {
            return Err(format!(
                "0 to {} wilds may be taken out, not {}",
                Self::MAX_REMOVED_WILDS,
                self.remove_wilds
            ));
        }
        Ok(())
    }

    /// Spaces per box.
    pub fn capacity(&self) -> u8 {
        if self.beginner {
            2
        } else {
            3
        }
    }

    /// Pawns of each colour in the game before the solo removal.
    pub fn pawns_per_colour(&self) -> u8 {
        if self.beginner {
            PAWNS_PER_COLOUR - 1
        } else {
            PAWNS_PER_COLOUR
        }
    }

    /// The cards in the game, by kind, colours in [`Colour::ALL`] order then the wilds.
    pub fn cards(&self) -> Vec<Card> {
        let per_colour = CARDS_PER_COLOUR - u8::from(self.remove_colour_cards);
        let mut cards = Vec::new();
        for c in Colour::ALL {
            cards.extend(std::iter::repeat_n(
                Card::Colour(c),
                usize::from(per_colour),
            ));
        }
        cards.extend(std::iter::repeat_n(
            Card::Wild,
            usize::from(WILDS - self.remove_wilds),
        ));
        cards
    }

    /// The highest score: every colour sorted, each box scoring its spaces.
    pub fn max_score(&self) -> i32 {
        COLOURS as i32 * i32::from(self.capacity())
    }

    /// A short name: `normal`, or the parts joined by `+` (`beginner`, `colour-cards`,
    /// `wilds-K`).
    pub fn name(&self) -> String {
        let mut parts = Vec::new();
        if self.beginner {
            parts.push("beginner".to_string());
        }
        if self.remove_colour_cards {
            parts.push("colour-cards".to_string());
        }
        if self.remove_wilds > 0 {
            parts.push(format!("wilds-{}", self.remove_wilds));
        }
        if parts.is_empty() {
            "normal".into()
        } else {
            parts.join("+")
        }
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for Difficulty {
    type Err = String;

    /// Reads [`Difficulty::name`]'s spelling: `normal`, or `beginner`, `colour-cards` and
    /// `wilds-K` joined by `+`.
    fn from_str(s: &str) -> Result<Difficulty, String> {
        let mut d = Difficulty::default();
        if s == "normal" {
            return Ok(d);
        }
        for part in s.split('+') {
            match part {
                "beginner" => d.beginner = true,
                "colour-cards" | "color-cards" => d.remove_colour_cards = true,
                _ => {
                    let k = part
                        .strip_prefix("wilds-")
                        .and_then(|k| k.parse::<u8>().ok())
                        .ok_or_else(|| {
                            format!(
                                "unknown difficulty `{part}`: expected normal, or beginner, \
                                 colour-cards and wilds-K (K = 1..3) joined by +"
                            )
                        })?;
                    d.remove_wilds = k;
                }
            }
        }
        d.validate().map_err(|e| format!("difficulty `{s}`: {e}"))?;
        Ok(d)
    }
}

/// The solo deal of `seed` at `difficulty`: the boxes laid in a random circle, 4 pawns of 4
/// different colours taken out, the rest dealt by revealed cards, then every card shuffled
/// into the pile and the first 3 drawn into the hand.
///
/// The setup deal, clockwise from box 0: a colour card puts a pawn of its colour on the
/// current box and the deal moves to the next box; a pawn of the box's own colour goes to
/// the next box instead (and a full box is passed over), and the deal goes on after the box
/// it went to; a wild skips the current box; a colour with no pawn left is discarded and the
/// same box waits for the next card. The deal never sticks in solo: at least 4 spaces stay
/// free (24 spaces for 20 pawns, 16 for 12 on the beginner side) on at least 2 boxes, so
/// some box of another colour has room; and a colour's cards (3 or 4) are never fewer than
/// its pawns (at most 3), so one pass of the cards places every pawn.
///
/// # Panics
/// When `difficulty` takes out more than 3 wilds.
pub fn deal(seed: u64, difficulty: &Difficulty) -> Deal {
    difficulty
        .validate()
        .unwrap_or_else(|e| panic!("bad difficulty: {e}"));
    let mut rng = Rng::new(seed);
    let mut colours = Colour::ALL;
    rng.shuffle(&mut colours);
    let mut board = Board::new(colours, difficulty.capacity());

    let mut supply = [difficulty.pawns_per_colour(); COLOURS];
    let mut out = Colour::ALL;
    rng.shuffle(&mut out);
    for c in &out[..SOLO_REMOVED_PAWNS] {
        supply[c.index()] -= 1;
    }

    let mut cards = difficulty.cards();
    rng.shuffle(&mut cards);
    let mut at = 0usize;
    let mut left: usize = supply.iter().map(|&n| usize::from(n)).sum();
    let mut revealed = cards.iter();
    while left > 0 {
        let card = *revealed
            .next()
            .expect("a colour's cards are never fewer than its pawns");
        // The current box: the next one clockwise with room.
        let current = (0..COLOURS)
            .map(|k| (at + k) % COLOURS)
            .find(|&b| board.has_room(b))
            .expect("free spaces remain while pawns do");
        match card {
            Card::Wild => at = current + 1,
            Card::Colour(c) if supply[c.index()] == 0 => {}
            Card::Colour(c) => {
                let target = (0..COLOURS)
                    .map(|k| (current + k) % COLOURS)
                    .find(|&b| board.has_room(b) && board.colour(b) != c)
                    .expect("at least 4 free spaces lie on at least 2 boxes");
                board.add(target, c);
                supply[c.index()] -= 1;
                left -= 1;
                at = target + 1;
            }
        }
        at %= COLOURS;
    }

    let mut pile = difficulty.cards();
    rng.shuffle(&mut pile);
    let hand: Vec<Card> = pile.drain(..HAND_SIZE).collect();
    Deal::from_state(&State::new(board, &hand, pile, Rules::default()))
}
