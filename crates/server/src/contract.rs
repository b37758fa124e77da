//! The OpenAPI document as a contract clients can generate code from: what the handlers'
//! annotations leave implicit is completed here, once for every route (those added later
//! included), on the document as JSON.
//!
//! - Every error answer is `application/problem+json` with the [`super::Problem`] schema.
//! - Every route with a body documents 400 (not JSON), 413 (over `--max-body`), 422 (a
//!   value the operation refuses, naming its field) and 503 (queue full); every `/v1/` route
//!   500 (a failed internal check or job store), 401 with `--api-keys` and 429 with
//!   `--rate-limit`.
//! - The job body (`Request`, tagged by `op`) is one schema per operation with `op` among
//!   its properties, told apart by a discriminator: utoipa's `allOf` of a closed object and
//!   `{op}` could never be satisfied.
//! - An `instance` is the JSON instance format ([`instance_schema`]), not any object.
//! - A deal, a play and a solver's model say what the service checks of them, with an
//!   accepted example ([`super::requests`]).

use serde_json::{json, Map, Value};

use super::auth::Access;

const PROBLEM: &str = "application/problem+json";
const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

/// Completes `doc` (the utoipa document as JSON) for a server with this access control.
pub(super) fn complete(doc: &mut Value, access: &Access) {
    let schemas = &mut doc["components"]["schemas"];
    if let Some(schemas) = schemas.as_object_mut() {
        schemas.insert("Instance".into(), instance_schema());
        for schema in schemas.values_mut() {
            link_instances(schema);
            numbers(schema);
        }
        super::requests::constrain(schemas);
        tag_jobs(schemas);
        super::requests::synchronous(schemas);
    }
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        for method in METHODS {
            let Some(op) = item.get_mut(method).and_then(Value::as_object_mut) else {
                continue;
            };
            let has_body = op.contains_key("requestBody");
            let responses = op
                .entry("responses")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("responses is an object");
            let mut add = |status: &str, why: &str| {
                let response = responses
                    .entry(status)
                    .or_insert_with(|| json!({ "description": why }));
                if response["description"].as_str().is_none_or(str::is_empty) {
                    response["description"] = json!(why);
                }
            };
            if has_body {
                add("400", "The body is not JSON.");
                add(
                    "413",
                    "The body is over this server's limit (`queens serve --max-body`).",
                );
                add(
                    "422",
                    "A value the operation refuses; `field` names it (`instance.queens[1]`).",
                );
                add(
                    "503",
                    "Every worker is busy and the queue is full (or the server is shutting \
                     down): retry after `Retry-After` seconds.",
                );
            }
            if path.starts_with("/v1/") {
                add(
                    "500",
                    "An internal check failed (a bug) or the job store failed.",
                );
                if access.keys.is_some() {
                    add("401", "No valid API key (`Authorization: Bearer KEY`).");
                }
                if access.rate_limit.is_some() {
                    add(
                        "429",
                        "Over the rate limit: retry after `Retry-After` seconds.",
                    );
                }
            }
            for (status, response) in responses.iter_mut() {
                if status.starts_with('4') || status.starts_with('5') {
                    problem_body(response);
                }
                if let Some(events) = response.pointer_mut("/content/text~1event-stream") {
                    events["schema"] = job_event();
                }
            }
        }
    }
}

/// An error answer's body: problem+json, whatever the annotation said.
fn problem_body(response: &mut Value) {
    if response["description"].as_str().is_none_or(str::is_empty) {
        response["description"] = json!("A problem (RFC 9457).");
    }
    response["content"] = json!({
        PROBLEM: { "schema": { "$ref": "#/components/schemas/Problem" } }
    });
}

/// One server-sent event of a job's stream (OpenAPI 3.1 describes a stream by its events):
/// `event: job`, its data the job as `GET /v1/jobs/{id}` shows it.
fn job_event() -> Value {
    json!({
        "type": "object",
        "required": ["data"],
        "properties": {
            "event": { "type": "string", "enum": ["job"] },
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": { "$ref": "#/components/schemas/JobView" }
            },
            "id": { "type": "string" },
            "retry": { "type": "integer" }
        }
    })
}

/// Numbers as JSON carries them: utoipa writes a `u64` as `int64` with `minimum: 0`, whose
/// implied maximum (2^63 − 1) the server does not have, and a map keyed by integers with
/// integer `propertyNames`, which no JSON object has (keys are strings of digits).
fn numbers(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(keys) = map.get_mut("propertyNames") {
                if keys.get("type") == Some(&json!("integer")) {
                    *keys = json!({ "type": "string", "pattern": "^-?[0-9]+$" });
                }
            }
            let non_negative = map
                .get("minimum")
                .and_then(Value::as_f64)
                .is_some_and(|m| m >= 0.0);
            if non_negative {
                match map.get("format").and_then(Value::as_str) {
                    Some("int64") => {
                        map.insert("format".into(), json!("uint64"));
                    }
                    Some("int32") => {
                        map.insert("format".into(), json!("uint32"));
                    }
                    _ => {}
                }
            }
            for v in map.values_mut() {
                numbers(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(numbers),
        _ => {}
    }
}

/// The instance formats (docs/formats.md) as a schema: strict enough that the shape of a
/// request's instance is checked by a client too; what JSON Schema cannot say (a queen on
/// the board, the rows of `regions` agreeing with `n`) is a 422 naming the field.
pub fn instance_schema() -> Value {
    let index = json!({ "type": "integer", "minimum": 0 });
    let cell = json!({
        "oneOf": [
            {
                "type": "array",
                "description": "`[row, column]`, 0-based from the top left.",
                "prefixItems": [index, index],
                "items": false,
                "minItems": 2
            },
            {
                "type": "string",
                "description": "A chess square: file `a` = column 0, rank 1 = the bottom row.",
                "pattern": "^[a-z]\\+?0*[1-9][0-9]*$"
            }
        ]
    });
    // Lists may be null, as if not given.
    let cells =
        |what: &str| json!({ "type": ["array", "null"], "description": what, "items": cell });
    let label = json!({ "description": "A label (corpora name their records with it); ignored." });
    let text = json!({
        "type": "object",
        "description": "An instance in any text format the CLI reads (a grid, CSPLib).",
        "required": ["text"],
        "properties": { "text": { "type": "string" } },
        "additionalProperties": false
    });
    let object = json!({
        "type": "object",
        "description": "An instance in the JSON format: the board size, optionally regions, \
                        preset queens, blocked cells, marks, the diagonal rule and excluded \
                        diagonals.",
        "required": ["n"],
        "properties": {
            "n": {
                "type": "integer",
                "minimum": 1,
                "maximum": queens_model::model::MAX_N,
                "description": "The board size: up to `queens serve --max-n` for every \
                                operation, and past it up to this maximum for a solve job \
                                without regions (local search)."
            },
            "regions": {
                "type": ["array", "null"],
                "description": "n rows of region names: strings of one-character names, or \
                                arrays of names (strings or numbers).",
                "items": {
                    "oneOf": [
                        { "type": "string" },
                        {
                            "type": "array",
                            "items": {
                                "oneOf": [
                                    { "type": "string", "minLength": 1 },
                                    { "type": "number" }
                                ]
                            }
                        }
                    ]
                }
            },
            "queens": cells("Preset queens."),
            "blocked": cells("Cells no queen may take."),
            "marks": cells("A player's \"no queen here\" notes (hint reads them)."),
            "diagonals": {
                "type": "string",
                "enum": ["full", "touch"],
                "description": "`full`: no two queens on a diagonal; `touch`: no two queens \
                                touching (default with regions)."
            },
            "diags": {
                "type": ["array", "null"],
                "description": "Excluded diagonals as CSPLib prob079 writes them: `[k, 1]` \
                                excludes r + c = k, `[k, 0]` excludes r − c = k − (n − 1).",
                "items": {
                    "type": "array",
                    "prefixItems": [index, { "type": "integer", "enum": [0, 1] }],
                    "items": false,
                    "minItems": 2
                }
            },
            "id": label,
            "name": label,
            "comment": label,
            "source": label
        },
        "additionalProperties": false
    });
    json!({
        "description": "An instance: the JSON format, or `{\"text\": …}` in a text format.",
        "oneOf": [object, text]
    })
}

/// A property `instance` (or a list `instances`) typed as any object is an [`instance_schema`].
fn link_instances(schema: &mut Value) {
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let reference = || json!({ "$ref": "#/components/schemas/Instance" });
    let is_object = |v: &Value| v.get("type") == Some(&json!("object"));
    if let Some(p) = props.get_mut("instance").filter(|p| is_object(p)) {
        let description = p.get("description").cloned();
        *p = reference();
        if let Some(d) = description {
            p["description"] = d;
        }
    }
    if let Some(items) = props
        .get_mut("instances")
        .and_then(|p| p.get_mut("items"))
        .filter(|i| is_object(i))
    {
        *items = reference();
    }
}

/// The job body: `Request`'s branches (`allOf` of an operation's closed request object and
/// `{"op": NAME}`) become one schema per operation, `Job.NAME`, with `op` as one of its own
/// properties, and `Request` a `oneOf` of them with a discriminator on `op`.
fn tag_jobs(schemas: &mut Map<String, Value>) {
    let Some(branches) = schemas
        .get("Request")
        .and_then(|r| r.get("oneOf"))
        .and_then(Value::as_array)
        .cloned()
    else {
        return;
    };
    let mut one_of = Vec::new();
    let mut mapping = Map::new();
    for branch in branches {
        let Some(parts) = branch.get("allOf").and_then(Value::as_array) else {
            one_of.push(branch);
            continue;
        };
        let target = parts
            .iter()
            .find_map(|p| p.get("$ref").and_then(Value::as_str))
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
            .and_then(|name| schemas.get(name))
            .cloned();
        let op = parts
            .iter()
            .find_map(|p| p.pointer("/properties/op/enum/0").and_then(Value::as_str));
        let (Some(mut target), Some(op)) = (target, op) else {
            one_of.push(branch);
            continue;
        };
        let mut props = Map::new();
        props.insert(
            "op".into(),
            json!({ "type": "string", "enum": [op], "description": "The operation." }),
        );
        if let Some(rest) = target.get("properties").and_then(Value::as_object) {
            props.extend(rest.clone());
        }
        target["properties"] = Value::Object(props);
        let mut required = vec![json!("op")];
        if let Some(rest) = target.get("required").and_then(Value::as_array) {
            required.extend(rest.iter().cloned());
        }
        target["required"] = Value::Array(required);
        target["type"] = json!("object");
        let name = format!("Job.{op}");
        let reference = format!("#/components/schemas/{name}");
        schemas.insert(name, target);
        one_of.push(json!({ "$ref": reference }));
        mapping.insert(op.to_string(), json!(reference));
    }
    let description = schemas["Request"].get("description").cloned();
    let mut request = json!({
        "oneOf": one_of,
        "discriminator": { "propertyName": "op", "mapping": mapping }
    });
    if let Some(d) = description {
        request["description"] = d;
    }
    schemas.insert("Request".into(), request);
}
