//! Deals and move lists as JSON: `{"boxes": [{"color", "capacity", "pawns"}, …8 in circle
//! order], "hand": [...], "pile": [...top first]}` and `[{"swap": …}, {"wild": …},
//! {"discard": […]}, …]`. Every error names the field it is about.

use serde::{Deserialize, Serialize};

use super::rules::{
    card_counts, Board, Card, Colour, Move, Rules, State, CARDS_PER_COLOUR, COLOURS, HAND_SIZE,
    PAWNS_PER_COLOUR, WILDS,
};
use queens_model::error::Error;

/// One box of a deal: its colour, its spaces and the pawns on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    /// The box's colour.
    #[serde(rename = "color")]
    pub colour: Colour,
    /// Its pawn spaces: 3, or 2 on the beginner side.
    #[schema(minimum = 2, maximum = 3)]
    pub capacity: u8,
    /// The pawns on it.
    #[schema(max_items = 3)]
    pub pawns: Vec<Colour>,
}

/// A position as JSON: the eight boxes in circle order, the hand, and the draw pile top
/// first. A fresh deal, or any position of a game (then the cards already played are
/// simply absent).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    /// The boxes, in circle order (clockwise), one of each colour.
    #[schema(min_items = 8, max_items = 8)]
    pub boxes: Vec<BoxSpec>,
    /// The face-up hand, at most 3 cards.
    #[schema(max_items = 3)]
    pub hand: Vec<Card>,
    /// The draw pile, top first.
    pub pile: Vec<Card>,
}

// The schema's bounds above are literals (the derive takes no constants): the game's.
const _: () = assert!(COLOURS == 8 && HAND_SIZE == 3 && PAWNS_PER_COLOUR == 3);

/// A deal that the game's box could not produce, with the field it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: {message}")]
pub struct DealError {
    /// The JSON field, e.g. `boxes[2].pawns`.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

fn bad(field: impl Into<String>, message: impl Into<String>) -> DealError {
    DealError {
        field: field.into(),
        message: message.into(),
    }
}

impl Deal {
    /// The game this deal starts, if the box could hold it: eight boxes of distinct colours
    /// showing the same side (2 or 3 spaces), no box over its spaces, at most 3 pawns of a
    /// colour (2 on the beginner side), at most 4 cards of a colour and 6 wilds, at most 3
    /// cards in hand and at least one while the pile has cards.
    pub fn to_state(&self, rules: Rules) -> Result<State, DealError> {
        if self.boxes.len() != COLOURS {
            return Err(bad(
                "boxes",
                format!(
                    "expected {COLOURS} boxes, one of each colour, got {}",
                    self.boxes.len()
                ),
            ));
        }
        let capacity = self.boxes[0].capacity;
        let mut colours = [Colour::Red; COLOURS];
        for (i, b) in self.boxes.iter().enumerate() {
            if !(2..=3).contains(&b.capacity) {
                return Err(bad(
                    format!("boxes[{i}].capacity"),
                    format!(
                        "a box has 3 spaces, or 2 on the beginner side, not {}",
                        b.capacity
                    ),
                ));
            }
            if b.capacity != capacity {
                return Err(bad(
                    format!("boxes[{i}].capacity"),
                    format!(
                        "every box shows the same side: boxes[0] has {capacity} spaces, this \
                         one {}",
                        b.capacity
                    ),
                ));
            }
            if let Some(j) = self.boxes[..i].iter().position(|o| o.colour == b.colour) {
                return Err(bad(
                    format!("boxes[{i}].color"),
                    format!("boxes[{j}] is {} too: one box of each colour", b.colour),
                ));
            }
            if b.pawns.len() > usize::from(b.capacity) {
                return Err(bad(
                    format!("boxes[{i}].pawns"),
                    format!("{} pawns on a box of {} spaces", b.pawns.len(), b.capacity),
                ));
            }
            colours[i] = b.colour;
        }
        let mut board = Board::new(colours, capacity);
        let per_colour = if capacity == 2 {
            PAWNS_PER_COLOUR - 1
        } else {
            PAWNS_PER_COLOUR
        };
        for (i, b) in self.boxes.iter().enumerate() {
            for (k, &p) in b.pawns.iter().enumerate() {
                if board.count(p) == per_colour {
                    return Err(bad(
                        format!("boxes[{i}].pawns[{k}]"),
                        format!(
                            "one {p} pawn too many: the game has {per_colour} of each colour \
                             with boxes of {capacity} spaces"
                        ),
                    ));
                }
                board.add(i, p);
            }
        }
        if self.hand.len() > HAND_SIZE {
            return Err(bad(
                "hand",
                format!(
                    "{} cards: a hand holds at most {HAND_SIZE}",
                    self.hand.len()
                ),
            ));
        }
        if self.hand.is_empty() && !self.pile.is_empty() {
            return Err(bad(
                "hand",
                "no card in hand while the pile has cards: no action could be paid for",
            ));
        }
        let all: Vec<Card> = self.hand.iter().chain(&self.pile).copied().collect();
        let counts = card_counts(&all);
        for kind in Card::KINDS {
            let most = if kind == Card::Wild {
                WILDS
            } else {
                CARDS_PER_COLOUR
            };
            if counts[kind.index()] > most {
                return Err(bad(
                    "pile",
                    format!(
                        "{} {kind} cards in hand and pile: the game has {most}",
                        counts[kind.index()]
                    ),
                ));
            }
        }
        Ok(State::new(board, &self.hand, self.pile.clone(), rules))
    }

    /// The position of `state` as a deal: its boxes (pawns in colour order), hand and the
    /// pile it has left.
    pub fn from_state(state: &State) -> Deal {
        let board = state.board();
        Deal {
            boxes: (0..COLOURS)
                .map(|b| BoxSpec {
                    colour: board.colour(b),
                    capacity: board.capacity(),
                    pawns: board.box_pawns(b),
                })
                .collect(),
            hand: state.hand().cards().to_vec(),
            pile: state.pile().to_vec(),
        }
    }
}

fn input(origin: &str, message: String) -> Error {
    Error::input(origin, message)
}

/// Reads JSON into `T`, naming the field of a bad value (``field `boxes[2].color`: …``) or
/// the line and column of malformed JSON.
fn from_json<T: serde::de::DeserializeOwned>(origin: &str, text: &str) -> Result<T, Error> {
    let text = queens_model::formats::strip_bom(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            input(origin, format!("invalid JSON: {inner}"))
        } else if path == "." {
            input(origin, inner.to_string())
        } else {
            Error::input_at_field(origin, path, inner)
        }
    })?;
    de.end()
        .map_err(|e| input(origin, format!("invalid JSON: {e}")))?;
    Ok(value)
}

/// Reads a deal and checks that the game's box could produce it; errors name `origin` and
/// the field.
pub fn parse_deal(origin: &str, text: &str, rules: Rules) -> Result<(Deal, State), Error> {
    let deal: Deal = from_json(origin, text)?;
    let state = deal
        .to_state(rules)
        .map_err(|e| input(origin, e.to_string()))?;
    Ok((deal, state))
}

/// Reads a move list (a list, or an object with `moves`); errors name `origin` and the
/// field (``field `[3].swap.cards`: …``).
pub fn parse_moves(origin: &str, text: &str) -> Result<Vec<Move>, Error> {
    // An untagged enum would lose the path of an error: pick the shape first, then read it.
    let trimmed = queens_model::formats::strip_bom(text).trim_start();
    if trimmed.starts_with('[') {
        return from_json(origin, text);
    }
    /// The other fields (`score`, `turns`, `status`) are claims this reader leaves alone.
    #[derive(Deserialize)]
    struct Object {
        moves: Vec<Move>,
    }
    from_json::<Object>(origin, text).map(|o| o.moves)
}
