//! The instance a request is about, as the JSON of a request holds it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use queens_model::error::Error;
use queens_model::model::Problem;

/// An instance inside a request: the JSON instance format the CLI reads (an object with
/// `n`, `regions`, `queens`, …), or `{"text": "<the contents of a grid or JSON file>"}`.
#[derive(Clone, Debug)]
pub struct Instance(pub Problem);

impl<'de> Deserialize<'de> for Instance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Instance, D::Error> {
        use serde::de::Error as _;
        // Like the CLI's reader: an object with a key given twice is refused, not merged.
        let value = queens_model::formats::StrictValue::deserialize(d)?.0;
        let text = match &value {
            serde_json::Value::Object(m) if m.len() == 1 && m.contains_key("text") => {
                match &m["text"] {
                    serde_json::Value::String(t) => Some(t.as_str()),
                    _ => return Err(D::Error::custom("field `text`: expected a string")),
                }
            }
            serde_json::Value::Object(_) => None,
            _ => {
                return Err(D::Error::custom(
                    "expected a JSON object (an instance, or {\"text\": \"<grid>\"})",
                ))
            }
        };
        let problem = match text {
            Some(t) => queens_model::formats::parse("text", t).map_err(|e| match e {
                Error::Input { message, .. } => D::Error::custom(format!("text: {message}")),
                e => D::Error::custom(e),
            })?,
            None => queens_model::formats::problem_from_json(&value).map_err(D::Error::custom)?,
        };
        Ok(Instance(problem))
    }
}

impl Serialize for Instance {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let text = queens_model::formats::write_json(&self.0, "instance");
        let value: serde_json::Value = serde_json::from_str(&text).map_err(S::Error::custom)?;
        value.serialize(s)
    }
}
