//! A made command's options: one per field of its operation's request, from the field's
//! schema (its type, values and bounds, its description as the help), and the request's
//! fields read back from them.

use clap::builder::PossibleValuesParser;
use clap::{value_parser, Arg, ArgAction, ArgMatches};
use serde_json::{json, Map, Value};

/// The request's fields (its instance apart).
pub(super) fn fields(described: &Value) -> impl Iterator<Item = &Value> {
    described["fields"].as_array().into_iter().flatten()
}

/// What an option takes, from its field's schema.
enum Kind {
    /// A flag (a boolean that is false unless given).
    Flag,
    /// A whole number, within the field's bounds.
    Integer { min: Option<i64>, max: Option<i64> },
    /// A number.
    Number,
    /// One of the listed words.
    Word(Vec<String>),
    /// Text.
    Text,
    /// Anything else, as JSON (`--moves '[[0,1]]'`).
    Json,
}

impl Kind {
    fn of(schema: &Value) -> Kind {
        if let Some(values) = schema["enum"].as_array() {
            return Kind::Word(
                values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            );
        }
        let is = |kind: &str| {
            schema["type"] == kind
                || schema["type"]
                    .as_array()
                    .is_some_and(|k| k.iter().any(|t| t == kind))
        };
        if is("boolean") {
            Kind::Flag
        } else if is("integer") {
            Kind::Integer {
                min: schema["minimum"].as_i64(),
                max: schema["maximum"].as_i64(),
            }
        } else if is("number") {
            Kind::Number
        } else if is("string") {
            Kind::Text
        } else {
            Kind::Json
        }
    }
}

/// The option of one field of the request.
pub(super) fn option(field: &Value) -> Arg {
    let name = leak(text(&field["name"]));
    let mut help = sentence(&field["description"]);
    match &field["default"] {
        Value::Null | Value::Bool(false) => {}
        Value::String(s) => help += &format!(" [default: {s}]"),
        other => help += &format!(" [default: {other}]"),
    }
    let arg = Arg::new(name)
        .long(leak(name.replace('_', "-")))
        .help(help)
        .required(field["required"] == true);
    let value_name = leak(name.to_uppercase());
    match Kind::of(&field["schema"]) {
        Kind::Flag => arg.action(ArgAction::SetTrue),
        Kind::Integer { min, max } => arg.value_name(value_name).value_parser(
            value_parser!(i64).range(min.unwrap_or(i64::MIN)..=max.unwrap_or(i64::MAX)),
        ),
        Kind::Number => arg.value_name(value_name).value_parser(value_parser!(f64)),
        Kind::Word(values) => {
            arg.value_parser(PossibleValuesParser::new(values.into_iter().map(leak)))
        }
        Kind::Text => arg
            .value_name(value_name)
            .value_parser(value_parser!(String)),
        Kind::Json => arg
            .value_name("JSON")
            .value_parser(|s: &str| serde_json::from_str::<Value>(s).map_err(|e| e.to_string())),
    }
}

/// The request's fields the options give, as JSON (those not given are left to their
/// defaults).
pub(super) fn given(described: &Value, m: &ArgMatches) -> Map<String, Value> {
    let mut options = Map::new();
    for field in fields(described) {
        let name = text(&field["name"]);
        let value = match Kind::of(&field["schema"]) {
            Kind::Flag => m.get_flag(&name).then_some(Value::Bool(true)),
            Kind::Integer { .. } => m.get_one::<i64>(&name).map(|v| json!(v)),
            Kind::Number => m.get_one::<f64>(&name).map(|v| json!(v)),
            Kind::Word(_) | Kind::Text => m.get_one::<String>(&name).map(|v| json!(v)),
            Kind::Json => m.get_one::<Value>(&name).cloned(),
        };
        if let Some(value) = value {
            options.insert(name, value);
        }
    }
    options
}

/// A JSON string's text (empty for anything else).
pub(super) fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().replace('\n', " ")
}

/// A description as clap shows a doc comment: on one line, without the period that ends it.
pub(super) fn sentence(value: &Value) -> String {
    let text = text(value);
    text.strip_suffix('.').unwrap_or(&text).to_string()
}

/// A name clap keeps for the life of the process (a made command's names are made once).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}
