//! A made command's answer as text: the operation's own text where one is written (in
//! `commands/`), else one line per field of the answer.

use std::io::{self, Write};

use serde_json::Value;

use queens::ops::{self, Member, Operation, Request, Response};
use queens::Error;

use crate::print::{Style, Text};

/// A printer of one operation's answer as text, on the operations' common types.
type Show = fn(&mut dyn Write, &Request, &Response, &Style) -> io::Result<()>;

/// The made commands whose answers have a text of their own (in `commands/`); the others
/// print the answer's fields.
const SHOWN: &[(&str, Show)] = &[
    (ops::Grade::NAME, shown::<ops::Grade>),
    (ops::Hint::NAME, shown::<ops::Hint>),
];

/// Writes operation `O`'s answer `resp` to `req` as text: by its [`Text`] when [`SHOWN`]
/// names one, else one line per field of the answer, in the order its JSON lists them.
pub(super) fn show<O: Member>(
    out: &mut dyn Write,
    req: &O::Request,
    resp: &O::Response,
    style: &Style,
) -> io::Result<()> {
    if let Some((_, shown)) = SHOWN.iter().find(|(name, _)| *name == O::NAME) {
        return shown(
            out,
            &O::wrap(req.clone()),
            &O::wrap_response(resp.clone()),
            style,
        );
    }
    // The answer's fields in the order its JSON has them (the declaration's, a flattened
    // part in its place), which a map of them would sort.
    let json = serde_json::to_string(resp).map_err(io::Error::other)?;
    let Fields(fields) = serde_json::from_str(&json).map_err(io::Error::other)?;
    for (name, value) in fields {
        let line = match value {
            Value::Null => continue,
            Value::String(s) => s,
            Value::Array(items) if items.iter().all(|v| !v.is_array() && !v.is_object()) => items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(" "),
            other => other.to_string(),
        };
        writeln!(out, "{name}: {line}")?;
    }
    Ok(())
}

/// A JSON object's fields, in the order the object lists them.
struct Fields(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Fields, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Fields, A::Error> {
                let mut fields = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    fields.push(entry);
                }
                Ok(Fields(fields))
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// [`Text::text`] of operation `O` on the operations' common types.
fn shown<O: Text>(
    mut out: &mut dyn Write,
    req: &Request,
    resp: &Response,
    style: &Style,
) -> io::Result<()> {
    match (O::request(req), O::response(resp.clone())) {
        (Some(req), Some(resp)) => O::text(&mut out, req, &resp, style),
        _ => Err(io::Error::other(Error::internal(format!(
            "{} was shown another operation's answer",
            O::NAME
        )))),
    }
}
