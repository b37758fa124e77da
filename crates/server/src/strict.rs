//! Objects only where the document says object: serde's derived structs also take a JSON
//! array of their fields in order (`{"difficulty": []}` read as every field's default), which
//! the OpenAPI document forbids and clients never mean. [`check`] reads a body already parsed
//! once more, through a deserializer over its JSON value that refuses an array wherever a
//! struct is expected, and names the field.

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess,
    SeqAccess, VariantAccess, Visitor,
};
use serde_json::{Error, Value};

/// `Err((field path, message))` when `body` (which `T` was read from once already) gives
/// something else than an object for a struct of `T`. Any other difference between the two
/// readings is left to the first.
pub fn check<T: DeserializeOwned>(body: &Value) -> Result<(), (String, String)> {
    match serde_path_to_error::deserialize::<_, T>(Strict(body)) {
        Ok(_) => Ok(()),
        Err(e) => {
            let path = e.path().to_string();
            let message = e.into_inner().to_string();
            if message.contains(EXPECTED) {
                Err((path, message))
            } else {
                Ok(())
            }
        }
    }
}

/// What [`Named`] says: how a refusal of this reading is told from any other error.
const EXPECTED: &str = "expected an object (struct ";

/// A JSON value as a deserializer that takes only objects for structs.
struct Strict<'a>(&'a Value);

impl<'de, 'a> Deserializer<'de> for Strict<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    v.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    v.visit_i64(i)
                } else {
                    v.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => v.visit_str(s),
            Value::Array(items) => v.visit_seq(Items(items.iter())),
            Value::Object(map) => v.visit_map(Entries {
                iter: map.iter(),
                value: None,
            }),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(v),
            other => Err(de::Error::invalid_type(unexpected(other), &Named(name))),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => v.visit_enum(s.as_str().into_deserializer()),
            Value::Object(map) if map.len() == 1 => {
                let (tag, content) = map.iter().next().expect("one entry");
                v.visit_enum(Variant { tag, content })
            }
            other => Err(de::Error::invalid_type(unexpected(other), &"an enum")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier ignored_any
    }
}

/// What a struct is called in a message: "struct Difficulty".
struct Named(&'static str);

impl de::Expected for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{})", &EXPECTED["expected ".len()..], self.0)
    }
}

fn unexpected(v: &Value) -> de::Unexpected<'_> {
    match v {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => n
            .as_i64()
            .map(de::Unexpected::Signed)
            .unwrap_or(de::Unexpected::Float(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

struct Items<'a>(std::slice::Iter<'a, Value>);

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(Strict(v)))
            .transpose()
    }
}

struct Entries<'a> {
    iter: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(k.as_str().into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let v = self
            .value
            .take()
            .ok_or_else(|| <Error as de::Error>::custom("a value without its key"))?;
        seed.deserialize(Strict(v))
    }
}

struct Variant<'a> {
    tag: &'a String,
    content: &'a Value,
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a> {
    type Error = Error;
    type Variant = Strict<'a>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Strict<'a>), Error> {
        let tag = seed.deserialize(self.tag.as_str().into_deserializer())?;
        Ok((tag, Strict(self.content)))
    }
}

impl<'de> VariantAccess<'de> for Strict<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(de::Error::invalid_type(
                unexpected(other),
                &"a unit variant",
            )),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, Error> {
        self.deserialize_any(v)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_struct("variant", fields, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        #[serde(default)]
        a: u32,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        #[serde(default)]
        inner: Option<Inner>,
        #[serde(default)]
        list: Vec<Inner>,
        #[serde(default)]
        any: Value,
    }

    #[test]
    fn arrays_for_structs_are_refused_with_their_path() {
        assert!(check::<Outer>(&serde_json::json!({"inner": {"a": 1}, "any": [1, {}]})).is_ok());
        let (path, message) = check::<Outer>(&serde_json::json!({"inner": []})).unwrap_err();
        assert_eq!(path, "inner");
        assert!(message.contains("struct Inner"), "{message}");
        let (path, _) = check::<Outer>(&serde_json::json!({"list": [{}, [3]]})).unwrap_err();
        assert_eq!(path, "list[1]");
        assert!(check::<Outer>(&serde_json::json!([])).is_err());
    }
}
