//! Move lists as files: `{"n": N, "moves": [[r,c], …]}`, optionally with `variant`, and the
//! JSON `queens mod2 max|min-lock` print, read back as it is (its `queens` and `state` are
//! claims the replay re-checks).

use serde_json::Value;

use super::rules::{State, Variant};
use queens_model::error::Error;
use queens_model::model::Pos;

/// Largest board a move list may name (the rules have no limit; this keeps a hostile file
/// from asking for a huge board).
pub const MAX_N: usize = 1024;

/// A move list read from a file, with the claims it makes about its final board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveList {
    /// Board side.
    pub n: usize,
    /// Which game the moves are played in (default standard).
    pub variant: Variant,
    /// The moves, in order.
    pub moves: Vec<Pos>,
    /// `queens`: how many queens the final board holds, if the file says.
    pub queens: Option<usize>,
    /// `state`: the final board's state, if the file says.
    pub state: Option<State>,
}

/// Reads a move list; errors name `origin`, then the line and column (malformed JSON) or the
/// field (``field `moves[3]`: …``). When the text is the request field `root` (`game`),
/// errors name fields under it (``field `game.moves[3]`: …``).
pub fn parse_moves(origin: &str, root: Option<&str>, text: &str) -> Result<MoveList, Error> {
    let at = Where { origin, root };
    let text = queens_model::formats::strip_bom(text);
    let value: Value =
        serde_json::from_str(text).map_err(|e| at.whole(format!("invalid JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(at.whole("expected a JSON object {\"n\": N, \"moves\": [[r,c], …]}".into()));
    };
    let n = match map.get("n") {
        Some(v) => v
            .as_u64()
            .filter(|&n| (1..=MAX_N as u64).contains(&n))
            .ok_or_else(|| at.field("n", format!("expected a board size 1..={MAX_N}, got {v}")))?
            as usize,
        None => return Err(at.field("n", "missing (the board size)")),
    };
    let variant = match map.get("variant") {
        None | Some(Value::Null) => Variant::Standard,
        Some(Value::String(s)) => s.parse().map_err(|e| at.field("variant", e))?,
        Some(v) => return Err(at.field("variant", format!("expected a string, got {v}"))),
    };
    let moves = match map.get("moves") {
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, m)| square(n, m).map_err(|e| at.field(&format!("moves[{i}]"), e)))
            .collect::<Result<Vec<_>, _>>()?,
        Some(Value::Null) => {
            return Err(at.field("moves", "null (the answer has no board: nothing to replay)"))
        }
        Some(v) => return Err(at.field("moves", format!("expected a list of [r,c], got {v}"))),
        None => return Err(at.field("moves", "missing (the list of [r,c] moves)")),
    };
    let queens = match map.get("queens") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| at.field("queens", format!("expected a count, got {v}")))?
                as usize,
        ),
    };
    let state = match map.get("state") {
        None | Some(Value::Null) => None,
        Some(v) => Some(serde_json::from_value::<State>(v.clone()).map_err(|_| {
            at.field(
                "state",
                format!("expected \"complete\", \"locked\" or \"unlocked\", got {v}"),
            )
        })?),
    };
    Ok(MoveList {
        n,
        variant,
        moves,
        queens,
        state,
    })
}

/// Where a text being read came from: its origin, and the request field holding it, if any.
#[derive(Clone, Copy)]
struct Where<'a> {
    origin: &'a str,
    root: Option<&'a str>,
}

impl Where<'_> {
    /// An error about the text as a whole (the request field itself, when it is one).
    fn whole(&self, msg: String) -> Error {
        match self.root {
            Some(root) => Error::input_at_field(self.origin, root, msg),
            None => Error::input(self.origin, msg),
        }
    }

    /// An error about `field` inside the text.
    fn field(&self, field: &str, msg: impl std::fmt::Display) -> Error {
        let path = match self.root {
            Some(root) => format!("{root}.{field}"),
            None => field.to_string(),
        };
        Error::input_at_field(self.origin, path, msg)
    }
}

fn square(n: usize, v: &Value) -> Result<Pos, String> {
    let pair = v
        .as_array()
        .filter(|a| a.len() == 2)
        .ok_or_else(|| format!("expected [row, col], got {v}"))?;
    let coord = |x: &Value| {
        x.as_u64()
            .filter(|&x| x < n as u64)
            .map(|x| x as usize)
            .ok_or_else(|| {
                format!(
                    "square {v} is off the {n}×{n} board (rows and columns are 0..{})",
                    n - 1
                )
            })
    };
    Ok((coord(&pair[0])?, coord(&pair[1])?))
}

/// A winner's strategy read from a file: `{"n": N, "variant"?, "strategy": {"move":
/// [r,c], "replies": [{"reply": [r,c], "move": [r,c], "replies": […]}, …]}}` (what
/// `queens mod2 solve --strategy FILE` writes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyFile {
    /// Board side.
    pub n: usize,
    /// The game.
    pub variant: Variant,
    /// The first player's first move and what follows.
    pub root: StrategyNode,
}

/// A move of the winner, and every reply the file answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyNode {
    /// The move (None at the root of the second player's strategy, whose replies are the
    /// first moves).
    pub mv: Option<Pos>,
    /// Replies, each with the answer to it (None: the strategy ends after the reply).
    pub replies: Vec<(Pos, Option<StrategyNode>)>,
}

/// Reads a strategy file, or None when the object has no `strategy` field (a move list);
/// errors name `origin` and the field, under `root` as in [`parse_moves`].
pub fn parse_strategy(
    origin: &str,
    root: Option<&str>,
    text: &str,
) -> Result<Option<StrategyFile>, Error> {
    let at = Where { origin, root };
    let text = queens_model::formats::strip_bom(text);
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
        return Ok(None);
    };
    let Some(strategy) = map.get("strategy") else {
        return Ok(None);
    };
    let n = map
        .get("n")
        .and_then(Value::as_u64)
        .filter(|&n| (1..=MAX_N as u64).contains(&n))
        .ok_or_else(|| at.field("n", format!("expected a board size 1..={MAX_N}")))?
        as usize;
    let variant = match map.get("variant") {
        None | Some(Value::Null) => Variant::Standard,
        Some(Value::String(s)) => s.parse().map_err(|e| at.field("variant", e))?,
        Some(v) => return Err(at.field("variant", format!("expected a string, got {v}"))),
    };
    let root = node(n, strategy, "strategy").map_err(|(field, msg)| at.field(&field, msg))?;
    Ok(Some(StrategyFile { n, variant, root }))
}

/// A strategy node at the path `at`; an error is the field it is about and what is wrong.
fn node(n: usize, v: &Value, at: &str) -> Result<StrategyNode, (String, String)> {
    let Value::Object(map) = v else {
        return Err((at.into(), "expected an object with `move`".into()));
    };
    let mv = match map.get("move") {
        Some(m) => Some(square(n, m).map_err(|e| (format!("{at}.move"), e))?),
        None if at == "strategy" => None,
        None => return Err((format!("{at}.move"), "missing".into())),
    };
    let replies = match map.get("replies") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let here = format!("{at}.replies[{i}]");
                let reply = r
                    .get("reply")
                    .ok_or_else(|| "missing".to_string())
                    .and_then(|m| square(n, m))
                    .map_err(|e| (format!("{here}.reply"), e))?;
                let then = if r.get("move").is_some() {
                    Some(node(n, r, &here)?)
                } else {
                    None
                };
                Ok((reply, then))
            })
            .collect::<Result<Vec<_>, (String, String)>>()?,
        Some(v) => return Err((format!("{at}.replies"), format!("expected a list, got {v}"))),
    };
    Ok(StrategyNode { mv, replies })
}
