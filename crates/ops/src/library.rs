//! The operations offered to library callers ([`crate::Library`]), described
//! from their declarations for the Python package to make a function and a result class of each:
//! the name and summary, the request's fields (the schema the service documents, each with
//! the default serde fills in) and the response's. An operation added to the table appears
//! in Python with no code written for it.

use serde_json::{json, Map, Value};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

use crate::{for_each, Member, ReadRequest, Request, Visit};

/// The library's operations, in the table's order, as a JSON array (see the module's doc).
pub fn describe() -> Value {
    describe_except(&[])
}

/// [`describe`] without the operations named in `skip` (a caller that has its own function
/// for them spares the cost of describing them: a millisecond for all of them).
pub fn describe_except(skip: &[&str]) -> Value {
    Value::Array(describe_where(|name, library| {
        library && !skip.contains(&name)
    }))
}

/// The descriptions of the operations of the table that `keep` takes, in the table's order:
/// `keep` is given each one's name and whether library callers may run it (the command line
/// makes the commands nobody wrote from the others' too).
pub fn describe_where(keep: impl Fn(&str, bool) -> bool) -> Vec<Value> {
    struct Described<F>(Vec<Value>, F);
    impl<F: Fn(&str, bool) -> bool> Visit for Described<F> {
        fn visit<O: Member>(&mut self) {
            if (self.1)(O::NAME, O::LIBRARY) {
                self.0.push(describe_one::<O>());
            }
        }
    }
    let mut all = Described(Vec::new(), keep);
    for_each(&mut all);
    all.0
}

/// One operation's description.
fn describe_one<O: Member>() -> Value {
    let mut components = Vec::new();
    <O::Request as ToSchema>::schemas(&mut components);
    <O::Response as ToSchema>::schemas(&mut components);
    let components: Map<String, Value> = components
        .into_iter()
        .map(|(name, schema)| (name, to_json(&schema)))
        .collect();
    let request = to_json(&<O::Request as PartialSchema>::schema());
    let response = to_json(&<O::Response as PartialSchema>::schema());
    let required: Vec<&str> = request["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let takes_instance = request["properties"].get("instance").is_some();
    let options = fields(&request, &components)
        .into_iter()
        .filter(|(name, _)| name != "instance")
        .collect::<Vec<_>>();
    // A value of the right type for each required option, to read the others' defaults with.
    let placeholders: Option<Map<String, Value>> = required
        .iter()
        .filter(|name| **name != "instance")
        .map(|name| {
            let (_, field) = options.iter().find(|(n, _)| n == name)?;
            Some((name.to_string(), placeholder(&field["schema"])?))
        })
        .collect();
    let defaults = placeholders.and_then(|p| defaults::<O>(takes_instance, p));
    let options = options
        .into_iter()
        .map(|(name, mut field)| {
            let is_required = required.contains(&name.as_str());
            field["required"] = json!(is_required);
            if let (Some(d), false) = (defaults.as_ref(), is_required) {
                // A field left out of the written request is one skipped at its default:
                // false for a flag, null otherwise.
                let skipped = match field["schema"]["type"] == "boolean" {
                    true => json!(false),
                    false => Value::Null,
                };
                field["default"] = d.get(&name).cloned().unwrap_or(skipped);
            }
            field
        })
        .collect::<Vec<_>>();
    let response_fields = fields(&response, &components)
        .into_iter()
        .map(|(_, f)| f)
        .collect::<Vec<_>>();
    json!({
        "name": O::NAME,
        "summary": O::SUMMARY,
        "description": request["description"],
        "instance": takes_instance,
        "fields": options,
        "response": {
            "name": <O::Response as ToSchema>::name(),
            "description": response["description"],
            "fields": response_fields,
        },
    })
}

/// A schema as JSON.
fn to_json(schema: &RefOr<Schema>) -> Value {
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

/// The properties of an object schema (and of the objects an `allOf` joins, as a flattened
/// field makes), each `{"name", "description", "schema"}` with a reference to a component
/// replaced by the component (its enum values, its description).
fn fields(object: &Value, components: &Map<String, Value>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for part in object["allOf"].as_array().into_iter().flatten() {
        out.extend(fields(&resolve(part, components), components));
    }
    for (name, schema) in object["properties"].as_object().into_iter().flatten() {
        let resolved = resolve(schema, components);
        let branches = ["allOf", "oneOf"]
            .iter()
            .filter_map(|k| schema[*k].as_array())
            .flatten();
        let description = std::iter::once(schema)
            .chain(branches)
            .chain(std::iter::once(&resolved))
            .find_map(|s| s.get("description"))
            .cloned()
            .unwrap_or(Value::Null);
        let field = json!({
            "name": name,
            "description": description,
            "schema": resolved,
        });
        out.push((name.clone(), field));
    }
    out
}

/// `schema` with a `$ref` to a component (alone, or as the one branch of an `allOf` or the
/// non-null branch of a `oneOf`) replaced by the component.
fn resolve(schema: &Value, components: &Map<String, Value>) -> Value {
    let of_ref = |s: &Value| {
        s.get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .and_then(|name| components.get(name))
            .cloned()
    };
    if let Some(found) = of_ref(schema) {
        return found;
    }
    for key in ["allOf", "oneOf"] {
        if let Some(branches) = schema[key].as_array() {
            let mut refs = branches.iter().filter_map(of_ref);
            if let (Some(found), None) = (refs.next(), refs.next()) {
                return found;
            }
        }
    }
    schema.clone()
}

/// A value of the type `schema` gives (the first of an enum, an empty string, the least
/// integer), for a required field while the others' defaults are read; `None` for another
/// type.
fn placeholder(schema: &Value) -> Option<Value> {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return Some(first.clone());
    }
    let is = |kind: &str| {
        schema["type"] == kind
            || schema["type"]
                .as_array()
                .is_some_and(|k| k.iter().any(|t| t == kind))
    };
    if is("string") {
        Some(json!(""))
    } else if is("integer") {
        Some(schema["minimum"].as_u64().map_or(json!(0), |m| json!(m)))
    } else if is("boolean") {
        Some(json!(false))
    } else {
        None
    }
}

/// The value serde gives each optional field of the request, read from the smallest request
/// (a 1×1 instance when it takes one, and `required`, a placeholder for each other required
/// field) and written back; `None` when that request does not read.
fn defaults<O: Member>(
    takes_instance: bool,
    required: Map<String, Value>,
) -> Option<Map<String, Value>> {
    struct Json(Value);
    impl ReadRequest<serde_json::Error> for Json {
        fn read<T: serde::de::DeserializeOwned>(self) -> Result<T, serde_json::Error> {
            serde_json::from_value(self.0)
        }
    }
    let mut smallest = required.clone();
    if takes_instance {
        smallest.insert("instance".into(), json!({ "n": 1 }));
    }
    let req: Request = Request::read_as(O::NAME, Json(Value::Object(smallest)))?.ok()?;
    match serde_json::to_value(&req) {
        Ok(Value::Object(mut fields)) => {
            fields.remove("op");
            fields.remove("instance");
            for name in required.keys() {
                fields.remove(name);
            }
            Some(fields)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every library operation is described, with its request's options and their defaults
    /// where the smallest request has them.
    #[test]
    fn the_library_operations_are_described_with_their_defaults() {
        let all = describe();
        let by_name = |name: &str| {
            all.as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == name)
                .cloned()
                .unwrap_or_else(|| panic!("{name} is not described: {all}"))
        };
        let solve = by_name("solve");
        assert_eq!(solve["instance"], true);
        let field = |op: &Value, name: &str| {
            op["fields"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["name"] == name)
                .cloned()
                .unwrap_or_else(|| panic!("no field {name} in {op}"))
        };
        let engine = field(&solve, "engine");
        assert_eq!(engine["default"], "auto");
        assert!(engine["schema"]["enum"]
            .as_array()
            .is_some_and(|e| e.contains(&json!("backtrack"))));
        assert_eq!(field(&solve, "all")["default"], false);
        assert_eq!(field(&solve, "limit")["default"], Value::Null);
        assert_eq!(field(&solve, "rings")["default"], false);
        assert_eq!(field(&by_name("grade"), "steps")["default"], false);
        // The answer's fields include those of a flattened part (`nodes` of the work report).
        let answer = |op: &Value| -> Vec<String> {
            op["response"]["fields"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|f| f["name"].as_str().map(str::to_string))
                .collect()
        };
        let solved = answer(&solve);
        assert!(
            ["status", "queens", "time_ms", "nodes"]
                .iter()
                .all(|f| solved.iter().any(|s| s == f)),
            "{solved:?}"
        );
        let hint = by_name("hint");
        assert!(hint["fields"].as_array().unwrap().is_empty());
        let hinted = answer(&hint);
        assert!(hinted.iter().any(|f| f == "technique") && hinted.iter().any(|f| f == "place"));
        // `generate` needs its kind and size: they have no default, its other options do.
        let generate = by_name("generate");
        assert_eq!(generate["instance"], false);
        assert!(field(&generate, "kind")["required"] == true);
        assert!(field(&generate, "kind").get("default").is_none());
        assert!(field(&generate, "n").get("default").is_none());
        assert_eq!(field(&generate, "count")["default"], 1);
        assert_eq!(field(&generate, "seed")["default"], 1);
        assert_eq!(field(&generate, "queens")["default"], Value::Null);
        let decode = by_name("decode");
        assert!(field(&decode, "model")["required"] == true);
        // No encoding given: decode finds it from the model's variable count.
        assert_eq!(field(&decode, "encoding")["default"], Value::Null);
        assert_eq!(field(&decode, "rings")["default"], false);
        let some = describe_except(&["solve", "hint"]);
        let names: Vec<&str> = some
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|o| o["name"].as_str())
            .collect();
        assert!(names.contains(&"grade") && !names.contains(&"solve") && !names.contains(&"hint"));
        // Every operation with an endpoint is for library callers; `solve_cnf`, which only
        // runs in a child process, is not.
        assert!(all
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["name"] != "solve_cnf"));
        assert!(names.contains(&"collection_deal") && names.contains(&"mod2_optimum"));
    }
}
