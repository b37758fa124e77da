//! The rules of The Queen's Collection, solo mode, stated once and without search: the
//! board, the hand and the pile, the three actions, their legality (each refusal names the
//! rule it breaks), apply and undo, the score and the end of the game.
//!
//! Nothing here looks ahead: [`super::policy`] and any solver restate nothing and call
//! [`State::check`], [`State::apply`] and [`State::undo`]; [`replay`] is the independent
//! checker every reported move list passes.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Number of colours, boxes in the circle, and pawn colours.
pub const COLOURS: usize = 8;

/// Cards a hand holds after every draw that the pile can fill.
pub const HAND_SIZE: usize = 3;

/// Pawns of each colour in the box (3; the beginner side plays with 2 of each).
pub const PAWNS_PER_COLOUR: u8 = 3;

/// Pawn cards of each colour in the box.
pub const CARDS_PER_COLOUR: u8 = 4;

/// Wild cards in the box.
pub const WILDS: u8 = 6;

/// A pawn, box and card colour. The game's pieces name no colours; these eight are ours,
/// in this order, the order in which a box's pawns are listed.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    /// Red.
    Red,
    /// Orange.
    Orange,
    /// Yellow.
    Yellow,
    /// Green.
    Green,
    /// Blue.
    Blue,
    /// Purple.
    Purple,
    /// Black.
    Black,
    /// White.
    White,
}

impl Colour {
    /// The eight colours, in index order.
    pub const ALL: [Colour; COLOURS] = [
        Colour::Red,
        Colour::Orange,
        Colour::Yellow,
        Colour::Green,
        Colour::Blue,
        Colour::Purple,
        Colour::Black,
        Colour::White,
    ];

    /// The colour's index in [`Colour::ALL`] (0..8).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The colour of index `i` (0..8).
    pub fn from_index(i: usize) -> Colour {
        Colour::ALL[i]
    }

    /// The colour's name as JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Orange => "orange",
            Colour::Yellow => "yellow",
            Colour::Green => "green",
            Colour::Blue => "blue",
            Colour::Purple => "purple",
            Colour::Black => "black",
            Colour::White => "white",
        }
    }
}

/// `Display` as the type's `name` spells a value, and `FromStr` back: the value of `$all`
/// with that name, else the error `$unknown` about the name `$s`.
macro_rules! by_name {
    ($t:ty, $all:expr, |$s:ident| $unknown:expr) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $t {
            type Err = String;

            fn from_str($s: &str) -> Result<$t, String> {
                $all.into_iter()
                    .find(|v| v.name() == $s)
                    .ok_or_else(|| $unknown)
            }
        }
    };
}

by_name!(Colour, Colour::ALL, |s| format!(
    "unknown colour `{s}`, expected one of {}",
    colour_list()
));

fn colour_list() -> String {
    let names: Vec<&str> = Colour::ALL.iter().map(|c| c.name()).collect();
    names.join(", ")
}

/// A pawn card: a colour, or a wild that stands for any colour. JSON spells it as the
/// colour's name or `"wild"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Card {
    /// A card of one colour.
    Colour(Colour),
    /// A wild card.
    Wild,
}

impl Card {
    /// Every card kind: the eight colours, then the wild.
    pub const KINDS: [Card; COLOURS + 1] = [
        Card::Colour(Colour::Red),
        Card::Colour(Colour::Orange),
        Card::Colour(Colour::Yellow),
        Card::Colour(Colour::Green),
        Card::Colour(Colour::Blue),
        Card::Colour(Colour::Purple),
        Card::Colour(Colour::Black),
        Card::Colour(Colour::White),
        Card::Wild,
    ];

    /// The card's index in [`Card::KINDS`] (colours 0..8, the wild 8).
    pub fn index(self) -> usize {
        match self {
            Card::Colour(c) => c.index(),
            Card::Wild => COLOURS,
        }
    }

    /// True when the card pays for a pawn of colour `c` in a swap.
    pub fn pays(self, c: Colour) -> bool {
        match self {
            Card::Colour(own) => own == c,
            Card::Wild => true,
        }
    }

    /// The card's name as JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            Card::Colour(c) => c.name(),
            Card::Wild => "wild",
        }
    }
}

by_name!(Card, Card::KINDS, |s| format!(
    "unknown card `{s}`, expected `wild` or a colour ({})",
    colour_list()
));

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl utoipa::PartialSchema for Card {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("a colour's name or \"wild\""))
            .enum_values(Some(Card::KINDS.map(Card::name)))
            .into()
    }
}

impl utoipa::ToSchema for Card {}

/// How many cards of each kind ([`Card::index`]) a set of cards holds.
pub type CardCounts = [u8; COLOURS + 1];

/// The counts of `cards` by kind.
pub fn card_counts(cards: &[Card]) -> CardCounts {
    let mut counts = [0; COLOURS + 1];
    for c in cards {
        counts[c.index()] += 1;
    }
    counts
}

/// The eight boxes in their circle and the pawns on them. Pawns of one colour on one box
/// are interchangeable, so a box holds a count per colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    colours: [Colour; COLOURS],
    home: [u8; COLOURS],
    capacity: u8,
    pawns: [[u8; COLOURS]; COLOURS],
}

impl Board {
    /// An empty board: box `i` of the circle has colour `colours[i]` (each colour once) and
    /// `capacity` spaces (3, or 2 on the beginner side).
    ///
    /// # Panics
    /// When a colour is missing from `colours` or `capacity` is 0.
    pub fn new(colours: [Colour; COLOURS], capacity: u8) -> Board {
        assert!(capacity > 0, "a box has at least one space");
        let mut home = [u8::MAX; COLOURS];
        for (b, c) in colours.iter().enumerate() {
            home[c.index()] = b as u8;
        }
        assert!(
            home.iter().all(|&h| h != u8::MAX),
            "every colour has one box: {colours:?}"
        );
        Board {
            colours,
            home,
            capacity,
            pawns: [[0; COLOURS]; COLOURS],
        }
    }

    /// The colour of box `b` (0..8, in circle order).
    pub fn colour(&self, b: usize) -> Colour {
        self.colours[b]
    }

    /// The colours of the boxes, in circle order.
    pub fn colours(&self) -> [Colour; COLOURS] {
        self.colours
    }

    /// The box of colour `c`: where its pawns belong.
    pub fn home(&self, c: Colour) -> usize {
        self.home[c.index()] as usize
    }

    /// Spaces on every box.
    pub fn capacity(&self) -> u8 {
        self.capacity
    }

    /// Points a box scores when it holds pawns of its own colour only: its spaces (3; 2 on
    /// the beginner side, as the published rules score it).
    pub fn box_points(&self) -> i32 {
        i32::from(self.capacity)
    }

    /// Pawns of colour `c` on box `b`.
    pub fn pawns(&self, b: usize, c: Colour) -> u8 {
        self.pawns[b][c.index()]
    }

    /// Pawns on box `b`.
    pub fn len(&self, b: usize) -> u8 {
        self.pawns[b].iter().sum()
    }

    /// True when box `b` has a free space.
    pub fn has_room(&self, b: usize) -> bool {
        self.len(b) < self.capacity
    }

    /// The pawns on box `b`, in colour order.
    pub fn box_pawns(&self, b: usize) -> Vec<Colour> {
        Colour::ALL
            .iter()
            .flat_map(|&c| std::iter::repeat_n(c, usize::from(self.pawns(b, c))))
            .collect()
    }

    /// Puts a pawn of colour `c` on box `b`.
    ///
    /// # Panics
    /// When the box is full.
    pub fn add(&mut self, b: usize, c: Colour) {
        assert!(self.has_room(b), "box {b} is full");
        self.pawns[b][c.index()] += 1;
    }

    /// Pawns of colour `c` on the whole board.
    pub fn count(&self, c: Colour) -> u8 {
        (0..COLOURS).map(|b| self.pawns[b][c.index()]).sum()
    }

    /// Pawns on the whole board.
    pub fn total(&self) -> usize {
        self.pawns.iter().flatten().map(|&n| usize::from(n)).sum()
    }

    /// Pawns of box `b` that are not of its colour.
    pub fn misplaced_on(&self, b: usize) -> u8 {
        self.len(b) - self.pawns[b][self.colours[b].index()]
    }

    /// Pawns not on their colour's box.
    pub fn misplaced(&self) -> usize {
        (0..COLOURS)
            .map(|b| usize::from(self.misplaced_on(b)))
            .sum()
    }

    /// Box `b`'s part of the score: [`Board::box_points`] when it holds pawns and only of
    /// its colour (an empty box scores 0), minus one per pawn of another colour on it.
    pub fn box_score(&self, b: usize) -> i32 {
        let wrong = i32::from(self.misplaced_on(b));
        let pure = self.len(b) > 0 && wrong == 0;
        if pure {
            self.box_points()
        } else {
            -wrong
        }
    }

    /// The score: +points per box holding only pawns of its colour, −1 per pawn not on its
    /// colour's box.
    pub fn score(&self) -> i32 {
        (0..COLOURS).map(|b| self.box_score(b)).sum()
    }

    /// True when every pawn is on its colour's box.
    pub fn is_sorted(&self) -> bool {
        self.misplaced() == 0
    }

    /// The score of the sorted board with these pawns: points for every colour that has a
    /// pawn (24 in the normal solo game, whose every colour keeps at least 2 pawns).
    pub fn max_score(&self) -> i32 {
        let colours = Colour::ALL.iter().filter(|&&c| self.count(c) > 0).count();
        colours as i32 * self.box_points()
    }

    /// What the score would change by if `mv`'s pawns moved (cards are not looked at; `mv`
    /// must be legal).
    pub fn score_delta(&self, mv: &Move) -> i32 {
        let mut after = *self;
        after.move_pawns(mv);
        match mv {
            Move::Swap { pawns, .. } => {
                let (x, y) = (pawns[0].at, pawns[1].at);
                after.box_score(x) + after.box_score(y) - self.box_score(x) - self.box_score(y)
            }
            Move::Wild { from, to, .. } => {
                after.box_score(*from) + after.box_score(*to)
                    - self.box_score(*from)
                    - self.box_score(*to)
            }
            Move::Discard(_) => 0,
        }
    }

    /// Moves `mv`'s pawns (no checks: `mv` must be legal).
    pub fn move_pawns(&mut self, mv: &Move) {
        match mv {
            Move::Swap { pawns: [p, q], .. } => {
                let (a, b) = (p.colour.index(), q.colour.index());
                self.pawns[p.at][a] -= 1;
                self.pawns[q.at][a] += 1;
                self.pawns[q.at][b] -= 1;
                self.pawns[p.at][b] += 1;
            }
            Move::Wild {
                colour, from, to, ..
            } => {
                self.pawns[*from][colour.index()] -= 1;
                self.pawns[*to][colour.index()] += 1;
            }
            Move::Discard(_) => {}
        }
    }
}

/// The face-up hand: up to [`HAND_SIZE`] cards in order. Played cards leave it and the
/// others keep their order; drawn cards are appended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hand {
    cards: [Card; HAND_SIZE],
    len: u8,
}

impl Hand {
    /// The hand holding `cards`.
    ///
    /// # Panics
    /// When there are more than [`HAND_SIZE`].
    pub fn new(cards: &[Card]) -> Hand {
        assert!(
            cards.len() <= HAND_SIZE,
            "a hand holds at most {HAND_SIZE} cards"
        );
        let mut h = Hand {
            cards: [Card::Wild; HAND_SIZE],
            len: 0,
        };
        for &c in cards {
            h.push(c);
        }
        h
    }

    /// The cards, in order.
    pub fn cards(&self) -> &[Card] {
        &self.cards[..usize::from(self.len)]
    }

    /// How many cards the hand holds.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// True when the hand holds no card.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Card `i`, if the hand has one.
    pub fn get(&self, i: usize) -> Option<Card> {
        self.cards().get(i).copied()
    }

    fn push(&mut self, c: Card) {
        self.cards[usize::from(self.len)] = c;
        self.len += 1;
    }

    /// The hand without the cards at `indices` (distinct, in range), the others in order.
    fn without(&self, indices: &[usize]) -> Hand {
        let mut h = Hand::new(&[]);
        for (i, &c) in self.cards().iter().enumerate() {
            if !indices.contains(&i) {
                h.push(c);
            }
        }
        h
    }
}

/// One pawn named in a swap: its colour and the box (circle index) it sits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Pawn {
    /// The pawn's colour.
    #[serde(rename = "color")]
    pub colour: Colour,
    /// The box it sits on, 0..8 in circle order.
    #[serde(rename = "box")]
    pub at: usize,
}

/// A turn's action. Card numbers index the current hand, boxes the circle (0..8).
///
/// JSON: `{"swap": {"cards": [0, 2], "pawns": [{"color": "red", "box": 1}, {"color":
/// "blue", "box": 4}]}}`, `{"wild": {"card": 1, "color": "red", "from": 2, "to": 0}}`,
/// `{"discard": [0, 1]}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Move {
    /// A: exchange two pawns of two different colours on two different boxes, paying two
    /// cards of those colours (a wild for either; two cards of one colour are not a wild in
    /// solo), then draw 2.
    Swap {
        /// The two cards paid.
        cards: [usize; 2],
        /// The two pawns exchanged.
        pawns: [Pawn; 2],
    },
    /// B: pay a wild to move one pawn of `color` from box `from` to box `to`, then draw 1.
    Wild {
        /// The wild card paid.
        card: usize,
        /// The pawn's colour.
        #[serde(rename = "color")]
        colour: Colour,
        /// The box it leaves.
        from: usize,
        /// The box it goes to (one with a free space).
        to: usize,
    },
    /// C: discard 1 to 3 cards and draw as many.
    Discard(Vec<usize>),
}

impl Move {
    /// The hand indices the move plays.
    pub fn cards(&self) -> Vec<usize> {
        match self {
            Move::Swap { cards, .. } => cards.to_vec(),
            Move::Wild { card, .. } => vec![*card],
            Move::Discard(cards) => cards.clone(),
        }
    }

    /// How many cards the move plays, and so draws.
    pub fn card_count(&self) -> usize {
        match self {
            Move::Swap { .. } => 2,
            Move::Wild { .. } => 1,
            Move::Discard(cards) => cards.len(),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Swap {
                cards,
                pawns: [p, q],
            } => write!(
                f,
                "swap {} on box {} with {} on box {} (cards {} and {})",
                p.colour, p.at, q.colour, q.at, cards[0], cards[1]
            ),
            Move::Wild {
                card,
                colour,
                from,
                to,
            } => write!(
                f,
                "wild (card {card}): {colour} from box {from} to box {to}"
            ),
            Move::Discard(cards) => {
                let list: Vec<String> = cards.iter().map(usize::to_string).collect();
                write!(f, "discard cards {}", list.join(", "))
            }
        }
    }
}

/// What happens when the pile holds fewer cards than a move must draw (the rules are
/// silent; docs/games.md, "Readings where the rules are silent").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DrawRule {
    /// Draw what is left: the hand comes up short and the game ends (the pile is empty at
    /// the start of the next turn).
    #[default]
    Short,
    /// A move is legal only when the pile holds every card it must draw.
    Full,
}

/// The readings a game is played under where the published rules are silent.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// Draws the pile cannot fill.
    pub draw: DrawRule,
}

/// Which rule an illegal move breaks: a stable name for tests and clients, with the details
/// in [`Illegal`]'s message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Rule {
    /// The game is over: every pawn is home or the pile is empty.
    GameOver,
    /// A card number is not in the hand.
    CardIndex,
    /// One card is named twice.
    CardTwice,
    /// A box number is not in the circle (0..8).
    BoxIndex,
    /// No pawn of that colour sits on that box.
    NoSuchPawn,
    /// A swap names two pawns of one colour.
    SameColour,
    /// A swap names two pawns on one box.
    SameBox,
    /// The cards do not pay for the two colours (in solo, two cards of one colour are not a
    /// wild).
    CardsDoNotPay,
    /// A wild move pays with a card that is not a wild.
    NotAWild,
    /// A wild move to the box the pawn is already on.
    NoMove,
    /// The target box has no free space.
    BoxFull,
    /// A discard of no card, or of more than the hand holds.
    DiscardCount,
    /// The pile cannot fill the draw ([`DrawRule::Full`] only).
    PileShort,
}

impl Rule {
    /// The rule's name as JSON spells it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::GameOver => "game-over",
            Rule::CardIndex => "card-index",
            Rule::CardTwice => "card-twice",
            Rule::BoxIndex => "box-index",
            Rule::NoSuchPawn => "no-such-pawn",
            Rule::SameColour => "same-colour",
            Rule::SameBox => "same-box",
            Rule::CardsDoNotPay => "cards-do-not-pay",
            Rule::NotAWild => "not-a-wild",
            Rule::NoMove => "no-move",
            Rule::BoxFull => "box-full",
            Rule::DiscardCount => "discard-count",
            Rule::PileShort => "pile-short",
        }
    }
}

/// Why a move is illegal: the rule and a sentence naming the cards, pawns and boxes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    /// The rule it breaks.
    pub rule: Rule,
    /// What is wrong, e.g. `the two pawns are both red: a swap exchanges two colours`.
    pub message: String,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.rule.name())
    }
}

impl std::error::Error for Illegal {}

fn illegal(rule: Rule, message: impl Into<String>) -> Illegal {
    Illegal {
        rule,
        message: message.into(),
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "kebab-case")]
// Named apart from the operations' `Status` (`sat`, `unsat`, …) in the OpenAPI document.
#[schema(as = GameStatus)]
pub enum Status {
    /// The game goes on.
    Playing,
    /// Over: every pawn is on its colour's box.
    Sorted,
    /// Over: the pile is empty at the start of a turn.
    PileEmpty,
}

/// What [`State::apply`] changed, for [`State::undo`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    board: Board,
    hand: Hand,
    drawn: usize,
    discards: usize,
}

/// A game in progress: the board, the hand, the pile (top first) with how much of it has
/// been drawn, the played cards, and the rules it is played under.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    board: Board,
    hand: Hand,
    pile: Vec<Card>,
    drawn: usize,
    discards: Vec<Card>,
    turns: usize,
    rules: Rules,
}

impl State {
    /// A game from a position: `board`, the hand `hand` (at most [`HAND_SIZE`] cards) and the
    /// draw pile `pile`, top first. [`super::format::Deal`] checks a position read from
    /// JSON against the box's contents before it gets here.
    ///
    /// # Panics
    /// When the hand holds more than [`HAND_SIZE`] cards.
    pub fn new(board: Board, hand: &[Card], pile: Vec<Card>, rules: Rules) -> State {
        State {
            board,
            hand: Hand::new(hand),
            pile,
            drawn: 0,
            discards: Vec::new(),
            turns: 0,
            rules,
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The hand.
    pub fn hand(&self) -> &Hand {
        &self.hand
    }

    /// The cards left in the pile, top first (what a player does not see).
    pub fn pile(&self) -> &[Card] {
        &self.pile[self.drawn..]
    }

    /// Cards left in the pile.
    pub fn pile_len(&self) -> usize {
        self.pile.len() - self.drawn
    }

    /// The counts of the cards left in the pile: what a player knows of it (the box's
    /// contents minus the cards seen), not their order.
    pub fn unseen(&self) -> CardCounts {
        card_counts(self.pile())
    }

    /// The cards played or discarded so far, in the order they left the hand.
    pub fn discards(&self) -> &[Card] {
        &self.discards
    }

    /// Turns played.
    pub fn turns(&self) -> usize {
        self.turns
    }

    /// The rules the game is played under.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The score now.
    pub fn score(&self) -> i32 {
        self.board.score()
    }

    /// Playing, or over (sorted first: a move that sorts the board with the last card of
    /// the pile is a win).
    pub fn status(&self) -> Status {
        if self.board.is_sorted() {
            Status::Sorted
        } else if self.pile_len() == 0 {
            Status::PileEmpty
        } else {
            Status::Playing
        }
    }

    /// True when the game is over.
    pub fn is_over(&self) -> bool {
        self.status() != Status::Playing
    }

    /// The same game with the pile replaced by `pile` (top first): a determinisation of the
    /// unseen cards for a policy that samples them, or a solver's what-if.
    pub fn with_pile(&self, pile: Vec<Card>) -> State {
        State {
            board: self.board,
            hand: self.hand,
            pile,
            drawn: 0,
            discards: self.discards.clone(),
            turns: self.turns,
            rules: self.rules,
        }
    }

    fn card(&self, i: usize) -> Result<Card, Illegal> {
        self.hand.get(i).ok_or_else(|| {
            illegal(
                Rule::CardIndex,
                format!(
                    "card {i} is not in the hand: it holds {} card{} (0..{})",
                    self.hand.len(),
                    if self.hand.len() == 1 { "" } else { "s" },
                    self.hand.len()
                ),
            )
        })
    }

    fn box_index(b: usize) -> Result<(), Illegal> {
        if b < COLOURS {
            Ok(())
        } else {
            Err(illegal(
                Rule::BoxIndex,
                format!("box {b} is not in the circle (boxes 0..{COLOURS})"),
            ))
        }
    }

    fn pawn_on(&self, c: Colour, b: usize) -> Result<(), Illegal> {
        Self::box_index(b)?;
        if self.board.pawns(b, c) == 0 {
            return Err(illegal(
                Rule::NoSuchPawn,
                format!(
                    "no {c} pawn sits on box {b} ({} box: {})",
                    self.board.colour(b),
                    describe(&self.board.box_pawns(b))
                ),
            ));
        }
        Ok(())
    }

    fn draws(&self, n: usize) -> Result<(), Illegal> {
        if self.rules.draw == DrawRule::Full && self.pile_len() < n {
            return Err(illegal(
                Rule::PileShort,
                format!(
                    "the move draws {n} card{} and the pile holds {}",
                    if n == 1 { "" } else { "s" },
                    self.pile_len()
                ),
            ));
        }
        Ok(())
    }

    /// Why `mv` is illegal now, if it is.
    pub fn check(&self, mv: &Move) -> Result<(), Illegal> {
        match self.status() {
            Status::Playing => {}
            Status::Sorted => {
                return Err(illegal(
                    Rule::GameOver,
                    "the game is over: every pawn is home",
                ))
            }
            Status::PileEmpty => {
                return Err(illegal(
                    Rule::GameOver,
                    "the game is over: the pile is empty",
                ))
            }
        }
        match mv {
            Move::Swap {
                cards,
                pawns: [p, q],
            } => {
                let (c0, c1) = (self.card(cards[0])?, self.card(cards[1])?);
                if cards[0] == cards[1] {
                    return Err(illegal(
                        Rule::CardTwice,
                        format!("card {} is paid twice", cards[0]),
                    ));
                }
                Self::box_index(p.at)?;
                Self::box_index(q.at)?;
                if p.colour == q.colour {
                    return Err(illegal(
                        Rule::SameColour,
                        format!(
                            "the two pawns are both {}: a swap exchanges pawns of two \
                             different colours",
                            p.colour
                        ),
                    ));
                }
                if p.at == q.at {
                    return Err(illegal(
                        Rule::SameBox,
                        format!(
                            "both pawns are on box {}: a swap exchanges pawns on two \
                             different boxes",
                            p.at
                        ),
                    ));
                }
                self.pawn_on(p.colour, p.at)?;
                self.pawn_on(q.colour, q.at)?;
                let pays = (c0.pays(p.colour) && c1.pays(q.colour))
                    || (c0.pays(q.colour) && c1.pays(p.colour));
                if !pays {
                    let why = if c0 == c1 {
                        format!(": in solo two {c0} cards are not a wild")
                    } else {
                        String::new()
                    };
                    return Err(illegal(
                        Rule::CardsDoNotPay,
                        format!(
                            "cards {} ({c0}) and {} ({c1}) do not pay for a {} and a {} \
                             pawn{why}",
                            cards[0], cards[1], p.colour, q.colour
                        ),
                    ));
                }
                self.draws(2)
            }
            Move::Wild {
                card,
                colour,
                from,
                to,
            } => {
                let c = self.card(*card)?;
                if c != Card::Wild {
                    return Err(illegal(
                        Rule::NotAWild,
                        format!("card {card} is {c}, not a wild: only a wild moves one pawn"),
                    ));
                }
                Self::box_index(*to)?;
                self.pawn_on(*colour, *from)?;
                if from == to {
                    return Err(illegal(
                        Rule::NoMove,
                        format!("the {colour} pawn is already on box {to}"),
                    ));
                }
                if !self.board.has_room(*to) {
                    return Err(illegal(
                        Rule::BoxFull,
                        format!(
                            "box {to} is full: its {} spaces hold {}",
                            self.board.capacity(),
                            describe(&self.board.box_pawns(*to))
                        ),
                    ));
                }
                self.draws(1)
            }
            Move::Discard(cards) => {
                if cards.is_empty() || cards.len() > HAND_SIZE {
                    return Err(illegal(
                        Rule::DiscardCount,
                        format!("a discard is of 1 to 3 cards, not {}", cards.len()),
                    ));
                }
                for (k, &i) in cards.iter().enumerate() {
                    self.card(i)?;
                    if cards[..k].contains(&i) {
                        return Err(illegal(
                            Rule::CardTwice,
                            format!("card {i} is discarded twice"),
                        ));
                    }
                }
                self.draws(cards.len())
            }
        }
    }

    /// Plays `mv` if it is legal: its pawns move, its cards leave the hand (the others keep
    /// their order) for the discards, and as many cards are drawn from the pile and
    /// appended (fewer when the pile runs out, under [`DrawRule::Short`]).
    pub fn apply(&mut self, mv: &Move) -> Result<Undo, Illegal> {
        self.check(mv)?;
        let undo = Undo {
            board: self.board,
            hand: self.hand,
            drawn: self.drawn,
            discards: self.discards.len(),
        };
        self.board.move_pawns(mv);
        let played = mv.cards();
        for &i in &played {
            self.discards.push(self.hand.cards[i]);
        }
        self.hand = self.hand.without(&played);
        let n = played.len().min(self.pile_len());
        for _ in 0..n {
            self.hand.push(self.pile[self.drawn]);
            self.drawn += 1;
        }
        self.turns += 1;
        Ok(undo)
    }

    /// Takes back the move whose [`State::apply`] returned `undo` (the last one applied).
    pub fn undo(&mut self, undo: Undo) {
        self.board = undo.board;
        self.hand = undo.hand;
        self.drawn = undo.drawn;
        self.discards.truncate(undo.discards);
        self.turns -= 1;
    }

    /// Every legal move: swaps (pawns listed in box order), wild moves, then discards. Hand
    /// cards that are equal give separate moves (they leave different hand orders).
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut moves = Vec::new();
        if self.is_over() {
            return moves;
        }
        let enough = |n: usize| self.rules.draw == DrawRule::Short || self.pile_len() >= n;
        let cards = self.hand.cards();
        let groups = self.groups();
        if enough(2) {
            for i in 0..cards.len() {
                for j in i + 1..cards.len() {
                    for (k, p) in groups.iter().enumerate() {
                        for q in &groups[k + 1..] {
                            if p.colour == q.colour || p.at == q.at {
                                continue;
                            }
                            let pays = (cards[i].pays(p.colour) && cards[j].pays(q.colour))
                                || (cards[i].pays(q.colour) && cards[j].pays(p.colour));
                            if pays {
                                moves.push(Move::Swap {
                                    cards: [i, j],
                                    pawns: [*p, *q],
                                });
                            }
                        }
                    }
                }
            }
        }
        if enough(1) {
            for (i, _) in cards.iter().enumerate().filter(|(_, &c)| c == Card::Wild) {
                for p in &groups {
                    for to in (0..COLOURS).filter(|&b| b != p.at && self.board.has_room(b)) {
                        moves.push(Move::Wild {
                            card: i,
                            colour: p.colour,
                            from: p.at,
                            to,
                        });
                    }
                }
            }
        }
        for mask in 1u8..(1 << cards.len()) {
            let list: Vec<usize> = (0..cards.len()).filter(|&i| mask >> i & 1 == 1).collect();
            if enough(list.len()) {
                moves.push(Move::Discard(list));
            }
        }
        moves
    }

    /// One [`Pawn`] per (box, colour) that holds pawns, in box then colour order.
    pub fn groups(&self) -> Vec<Pawn> {
        let mut groups = Vec::with_capacity(2 * COLOURS);
        for at in 0..COLOURS {
            for colour in Colour::ALL {
                if self.board.pawns(at, colour) > 0 {
                    groups.push(Pawn { colour, at });
                }
            }
        }
        groups
    }
}

/// `2 red, 1 blue`, or `no pawn`.
fn describe(pawns: &[Colour]) -> String {
    if pawns.is_empty() {
        return "no pawn".into();
    }
    let mut parts = Vec::new();
    for c in Colour::ALL {
        let n = pawns.iter().filter(|&&p| p == c).count();
        if n > 0 {
            parts.push(format!("{n} {c}"));
        }
    }
    parts.join(", ")
}

/// The first illegal move of a move list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// Its index in the list (0-based).
    pub index: usize,
    /// The move.
    pub mv: Move,
    /// The rule it breaks, and how.
    pub illegal: Illegal,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "move {} ({}) is illegal: {}",
            self.index, self.mv, self.illegal
        )
    }
}

impl std::error::Error for IllegalMove {}

/// Plays `moves` from `start` and returns the final state, or the first move that breaks
/// the rules (a move after the game is over breaks [`Rule::GameOver`]).
pub fn replay(start: &State, moves: &[Move]) -> Result<State, IllegalMove> {
    let mut state = start.clone();
    for (index, mv) in moves.iter().enumerate() {
        if let Err(illegal) = state.apply(mv) {
            return Err(IllegalMove {
                index,
                mv: mv.clone(),
                illegal,
            });
        }
    }
    Ok(state)
}
