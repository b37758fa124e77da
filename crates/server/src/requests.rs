//! What the request types' derives cannot say and the service checks all the same, written
//! into the document as JSON Schema, with an example of each such request that the service
//! accepts (a client generated from the document, and a tester that generates requests from
//! it, start from a valid one):
//!
//! - a deal ([`Deal`]) has one box of each colour, every box on the same side (3 spaces, or
//!   2 on the beginner side) with no more pawns than spaces, and a card in hand while the
//!   pile has cards;
//! - a play (`PlayRequest`) gives either the moves or a policy;
//! - a completion to generate (`GenerateRequest`) gives its number of queens, only a region
//!   puzzle a grade, and a board at least one row, a region puzzle from 1 to 32 but 2 and 3
//!   (on the endpoint: a job finds out when it runs);
//! - a solver's model (`DecodeRequest.model`, on the endpoint: a job reads it when it runs)
//!   is DIMACS output: comment lines, at most one status line, `v` lines of literals, and an
//!   answer (a status or a literal) somewhere.
//!
//! What JSON Schema cannot say stays a 422 naming the field: a colour's pawns or cards past
//! the game's count, a literal past the CNF's variables, a model that is not a board.

use serde_json::{json, Map, Value};

use queens_engine::generate::MAX_REGIONS_N;
use queens_games::collection::deal::{deal, Difficulty};
use queens_games::collection::rules::{Colour, PAWNS_PER_COLOUR};
use queens_games::collection::Deal;

/// Writes the constraints the service checks before it takes a request, on the endpoint or
/// as a job, into `schemas`: before the job schemas are made from the request schemas, so a
/// job says the same.
pub(super) fn constrain(schemas: &mut Map<String, Value>) {
    if let Some(g) = schemas.get_mut("GenerateRequest") {
        // `completion` needs its number of queens; only region puzzles have a grade.
        g["allOf"] = json!([
            {
                "if": { "required": ["kind"], "properties": { "kind": { "const": "completion" } } },
                "then": { "required": ["queens"], "properties": { "queens": { "type": "integer" } } }
            },
            {
                "if": { "required": ["difficulty"], "not": { "properties": { "difficulty": { "type": "null" } } } },
                "then": { "properties": { "kind": { "const": "regions" } } }
            }
        ]);
    }
    if let Some(d) = schemas.get_mut("Deal") {
        deal_constraints(d);
    }
    if let Some(p) = schemas.get_mut("PlayRequest") {
        p["oneOf"] = json!([
            {
                "description": "The moves to replay.",
                "required": ["moves"],
                "properties": { "moves": { "type": "array" }, "policy": { "type": "null" } }
            },
            {
                "description": "A policy to play with.",
                "required": ["policy"],
                "properties": {
                    "policy": { "$ref": "#/components/schemas/PolicyName" },
                    "moves": { "type": "null" }
                }
            }
        ]);
    }
}

/// Writes what only the synchronous endpoints check, after the job schemas are made: a
/// region puzzle's size and the model's form (a job finds them out when it runs), and an
/// accepted example into each request schema constrained here (a job's body also needs its
/// `op`).
pub(super) fn synchronous(schemas: &mut Map<String, Value>) {
    // A board has a row, and a region puzzle is generated for n from 1 to 32 but 2 and 3,
    // whose boards have none.
    if let Some(g) = schemas.get_mut("GenerateRequest") {
        if let Some(n) = g
            .pointer_mut("/properties/n")
            .and_then(Value::as_object_mut)
        {
            n.insert("minimum".into(), json!(1));
        }
        g["if"] = json!({ "required": ["kind"], "properties": { "kind": { "const": "regions" } } });
        g["then"] = json!({
            "properties": {
                "n": { "minimum": 1, "maximum": MAX_REGIONS_N, "not": { "enum": [2, 3] } }
            }
        });
    }
    if let Some(model) = schemas.get_mut("DecodeRequest").and_then(|d| {
        d.get_mut("properties")
            .and_then(|p| p.get_mut("model"))
            .and_then(Value::as_object_mut)
    }) {
        model.insert("pattern".into(), json!(model_pattern()));
    }
    let fresh = serde_json::to_value(seed_deal()).unwrap_or(Value::Null);
    let mut add = |name: &str, examples: Value| {
        if let Some(s) = schemas.get_mut(name).and_then(Value::as_object_mut) {
            s.insert("examples".into(), examples);
        }
    };
    add("Deal", json!([fresh]));
    add(
        "PlayRequest",
        json!([
            { "deal": fresh, "policy": "greedy" },
            { "deal": fresh, "moves": [{ "discard": [0] }] }
        ]),
    );
    add("CollectionSolveRequest", json!([{ "deal": fresh }]));
    add(
        "DecodeRequest",
        json!([
            { "instance": { "n": 4 }, "model": "s SATISFIABLE\nv 2 8 9 15 0\n" },
            { "instance": { "n": 3 }, "model": "s UNSATISFIABLE\n" }
        ]),
    );
}

/// The deal of seed 0 at the default difficulty.
fn seed_deal() -> Deal {
    deal(0, &Difficulty::default())
}

/// One box of each colour (eight boxes, each colour among them), the same side for every
/// box with no more pawns than spaces, and a card in hand while the pile has cards.
fn deal_constraints(schema: &mut Value) {
    let Some(boxes) = schema.pointer_mut("/properties/boxes") else {
        return;
    };
    let each_colour: Vec<Value> = Colour::ALL
        .iter()
        .map(|c| {
            json!({
                "contains": {
                    "type": "object",
                    "required": ["color"],
                    "properties": { "color": { "const": c.name() } }
                }
            })
        })
        .collect();
    boxes["allOf"] = Value::Array(each_colour);
    let side = |spaces: u8| {
        json!({
            "items": {
                "type": "object",
                "properties": {
                    "capacity": { "const": spaces },
                    "pawns": { "maxItems": spaces }
                }
            }
        })
    };
    boxes["oneOf"] = json!([side(PAWNS_PER_COLOUR), side(PAWNS_PER_COLOUR - 1)]);
    schema["if"] = json!({ "required": ["pile"], "properties": { "pile": { "minItems": 1 } } });
    schema["then"] = json!({ "properties": { "hand": { "minItems": 1 } } });
}

/// DIMACS solver output as `dimacs::parse_model_for` reads it, line by line (each trimmed of
/// white space): blank, a comment (`c …`), a status (`s UNSATISFIABLE` or the bare word), or
/// literals (`v 1 -2 0`, the `v` optional); at most one status, and a status or a literal
/// somewhere. The white space within a line is the reader's (Unicode's, but the line break).
fn model_pattern() -> String {
    let ws = r"[\t\u000b\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]";
    let status = "(SATISFIABLE|SAT|UNSATISFIABLE|UNSAT|UNKNOWN|INDETERMINATE|INDET)";
    let literal = "[+-]?[0-9]+";
    let literals = format!("{literal}({ws}+{literal})*");
    // Lines that are not a status: blank, a comment, or literals (maybe none).
    let other = format!("{ws}*(c[^\\n]*|v?{ws}*({literals})?){ws}*");
    // The line that answers: the status, or literals (at least one).
    let answer = format!("{ws}*(s {ws}*{status}|{status}|v?{ws}*{literals}){ws}*");
    format!("^\u{feff}?({other}\\n)*{answer}(\\n{other})*$")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_deal_is_valid() {
        let d = seed_deal();
        assert!(d.to_state(Default::default()).is_ok());
    }
}
