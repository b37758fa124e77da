//! The command line's engine word in a request: `"engine": "ext:SOLVER[:ENCODING][+rings]"`
//! is read as the fields a request carries (`"engine": "ext"`, `"solver"`, and the encoding
//! and rings written in the word), so that an engine name parses the same over HTTP, in a
//! job and in Python as after `--engine`. Both ways may be written at once when they agree.

use queens_engine::encode::amo::Encoding;
use queens_engine::ext::ExtSpec;
use queens_model::error::Error;
use serde_json::{Map, Value};

/// Splits the `engine` word of a request body (an object, at its top level) into its fields;
/// a body whose `engine` is no `ext:` word is left as it is. A `solver`, an `encoding` (other
/// than `auto`) or `rings: false` beside the word that says otherwise is refused, naming
/// that field.
pub fn split_engine_word(body: &mut Map<String, Value>) -> Result<(), Error> {
    let Some(Value::String(word)) = body.get("engine") else {
        return Ok(());
    };
    let Some(rest) = word.strip_prefix("ext:") else {
        return Ok(());
    };
    let word = word.clone();
    let spec = ExtSpec::parse(rest)
        .map_err(|e| Error::unsupported_at_field("engine", format!("`{word}`: {e}")))?;
    let solver = spec.solver.to_string();
    match body.get("solver") {
        Some(Value::String(s)) if *s != solver => {
            return Err(Error::unsupported_at_field(
                "solver",
                format!("`{s}` is not the solver that engine `{word}` names (`{solver}`)"),
            ))
        }
        _ => {}
    }
    if spec.encoding != Encoding::Auto {
        let written = serde_json::to_value(spec.encoding).expect("an encoding is a string");
        match body.get("encoding") {
            Some(Value::String(e)) if e != "auto" && Value::String(e.clone()) != written => {
                return Err(Error::unsupported_at_field(
                    "encoding",
                    format!("`{e}` is not the encoding that engine `{word}` names"),
                ))
            }
            _ => {}
        }
        body.insert("encoding".into(), written);
    }
    if spec.rings {
        if body.get("rings") == Some(&Value::Bool(false)) {
            return Err(Error::unsupported_at_field(
                "rings",
                format!("false, but engine `{word}` adds the rings"),
            ));
        }
        body.insert("rings".into(), Value::Bool(true));
    }
    body.insert("engine".into(), Value::String("ext".into()));
    body.insert("solver".into(), Value::String(solver));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::SolveRequest;
    use serde_json::json;

    fn split(v: Value) -> Result<Value, Error> {
        let Value::Object(mut map) = v else {
            unreachable!()
        };
        split_engine_word(&mut map).map(|()| Value::Object(map))
    }

    /// `ext:cadical` reads as engine `ext` with solver `cadical`, the encoding and the rings
    /// written in the word included, and gives the request the other way gives.
    #[test]
    fn the_ext_word_is_the_engine_and_its_solver() {
        let body = json!({ "instance": { "n": 8 }, "engine": "ext:cadical" });
        let split_body = split(body).unwrap();
        assert_eq!(
            split_body,
            json!({ "instance": { "n": 8 }, "engine": "ext", "solver": "cadical" })
        );
        let a: SolveRequest = serde_json::from_value(split_body).unwrap();
        let b: SolveRequest = serde_json::from_value(
            json!({ "instance": { "n": 8 }, "engine": "ext", "solver": "cadical" }),
        )
        .unwrap();
        assert_eq!(
            (a.engine, a.solver, a.encoding, a.rings),
            (b.engine, b.solver, b.encoding, b.rings)
        );
        assert_eq!(
            split(json!({ "engine": "ext:kissat:seq+rings", "solver": "kissat" })).unwrap(),
            json!({ "engine": "ext", "solver": "kissat", "encoding": "seq", "rings": true })
        );
        // Other words and the split form are left as they are.
        for v in [
            json!({ "engine": "backtrack" }),
            json!({ "engine": "ext", "solver": "cadical" }),
            json!({ "n": 4 }),
        ] {
            assert_eq!(split(v.clone()).unwrap(), v);
        }
    }

    /// A field beside the word that says otherwise is refused, naming that field.
    #[test]
    fn a_field_that_disagrees_with_the_word_is_refused_by_name() {
        for (body, field) in [
            (
                json!({ "engine": "ext:cadical", "solver": "minisat" }),
                "solver",
            ),
            (
                json!({ "engine": "ext:cadical:seq", "encoding": "pairwise" }),
                "encoding",
            ),
            (
                json!({ "engine": "ext:cadical+rings", "rings": false }),
                "rings",
            ),
            (json!({ "engine": "ext:" }), "engine"),
        ] {
            let e = split(body.clone()).unwrap_err();
            assert_eq!(e.field().as_deref(), Some(field), "{body}: {e}");
            assert_eq!(e.http_status(), 422);
        }
    }
}
