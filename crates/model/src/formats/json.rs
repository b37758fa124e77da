//! The JSON instance format, read strictly (a key given twice is an error) and written in a
//! readable layout.

use std::borrow::Cow;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::csplib::to_csplib;
use super::grid::{chess_square, grid_cells, on_board, parse_rule};
use super::text::{strip_bom, EMPTY_INPUT};
use crate::error::Error;
use crate::model::{find_duplicate, Diagonal, DiagonalRule, Pos, Problem, Regions};

/// Parses JSON text that starts on line `first_line` of its file (1 for a whole file, the
/// line number for a JSON-lines record); the error gives the file's line and column once, in
/// front (`line 3 column 0: invalid JSON: EOF while parsing an object`).
///
/// Unlike `serde_json::from_str::<Value>`, which keeps the last of two equal keys silently,
/// an object with a key given twice is refused, naming the key
/// (`line 1 column 15: field `n` is given twice`).
pub fn json_value(text: &str, first_line: usize) -> Result<Value, String> {
    let text = strip_bom(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = StrictValue::deserialize(&mut de).and_then(|v| de.end().map(|()| v.0));
    parsed.map_err(|e| {
        // serde_json's Display ends with " at line L column C", counted within `text`.
        let full = e.to_string();
        let message = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(m, _)| m);
        let kind = if e.is_data() { "" } else { "invalid JSON: " };
        format!(
            "line {} column {}: {kind}{message}",
            first_line.saturating_add(e.line().saturating_sub(1)),
            e.column()
        )
    })
}

/// A JSON value read by a visitor that refuses an object with a key given twice (the
/// service reads instances inside request bodies with it, as [`json_value`] reads files).
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(i.into())
    }

    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(u.into())
    }

    fn visit_f64<E>(self, f: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        StrictValue::deserialize(d).map(|v| v.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut obj = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if obj.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "field `{key}` is given twice"
                )));
            }
            let StrictValue(v) = map.next_value()?;
            obj.insert(key, v);
        }
        Ok(Value::Object(obj))
    }
}

const JSON_FIELDS: &[&str] = &[
    "n",
    "regions",
    "queens",
    "blocked",
    "marks",
    "diagonals",
    "diags",
    "id",
    "name",
    "comment",
    "source",
];

/// Parses the JSON format: `{"n":8, "regions":[…], "queens":[[3,1],"d5"], "blocked":[[0,0]],
/// "diagonals":"full"|"touch", "diags":[[k,t],…]}`.
///
/// `diags` lists excluded diagonals as CSPLib prob079 writes them (`[k,1]`: r + c = k;
/// `[k,0]`: r − c = k − (n − 1)).
pub fn parse_json(origin: &str, text: &str) -> Result<Problem, Error> {
    if strip_bom(text).trim().is_empty() {
        return Err(Error::input(origin, EMPTY_INPUT));
    }
    let value = json_value(text, 1).map_err(|m| Error::input(origin, m))?;
    problem_from_json(&value).map_err(|e| e.in_input(origin))
}

/// An error in a JSON instance: what is wrong, and the field it is about (`queens[1]`) when
/// it is about one. Displayed as ``field `queens[1]`: …``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// The field, as a path into the instance object.
    pub field: Option<String>,
    /// What is wrong with it.
    pub message: String,
}

impl JsonError {
    fn at(field: impl Into<String>, message: impl Into<String>) -> JsonError {
        JsonError {
            field: Some(field.into()),
            message: message.into(),
        }
    }

    /// The input error of an instance read from `origin`, its field kept as data.
    pub fn in_input(self, origin: &str) -> Error {
        match self.field {
            Some(field) => Error::input_at_field(origin, field, self.message),
            None => Error::input(origin, self.message),
        }
    }
}

impl From<String> for JsonError {
    fn from(message: String) -> JsonError {
        JsonError {
            field: None,
            message,
        }
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(f, "field `{field}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// What a JSON value is, for "expected an object, got an array".
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The error for a JSON instance that is not an object.
pub fn not_an_object(v: &Value) -> String {
    format!(
        "expected a JSON object like {{\"n\": 8}}, got {}",
        json_kind(v)
    )
}

/// Builds a problem from a parsed JSON object; the error names the field. A queen or blocked
/// cell listed twice is an error naming both entries.
pub fn problem_from_json(value: &Value) -> Result<Problem, JsonError> {
    let obj = value.as_object().ok_or_else(|| not_an_object(value))?;
    if let Some(k) = obj.keys().find(|k| !JSON_FIELDS.contains(&k.as_str())) {
        return Err(JsonError::at(
            k.as_str(),
            format!("unknown field (known: {})", JSON_FIELDS.join(", ")),
        ));
    }
    let regions = match obj.get("regions") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_array().ok_or_else(|| {
            JsonError::at("regions", format!("expected an array of rows, got {v}"))
        })?),
    };
    let n = match (obj.get("n"), regions) {
        (Some(v), _) => {
            let n = v.as_u64().filter(|&n| n >= 1).ok_or_else(|| {
                JsonError::at("n", format!("expected a positive whole number, got {v}"))
            })?;
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if let Some(rows) = regions {
                if rows.len() != n {
                    return Err(JsonError::at(
                        "regions",
                        format!("has {} rows but `n` is {n}", rows.len()),
                    ));
                }
            }
            n
        }
        (None, Some(rows)) => rows.len(),
        (None, None) => return Err(JsonError::at("n", "missing (give `n` or `regions`)")),
    };
    // The size is checked before anything per cell is built.
    let field = if obj.contains_key("n") {
        "n"
    } else {
        "regions"
    };
    let mut problem = Problem::sized(n).map_err(|e| JsonError::at(field, e.to_string()))?;
    if let Some(rows) = regions {
        let g = json_regions(rows, n)?;
        problem = problem
            .with_regions(g)
            .expect("sizes match")
            .with_rule(DiagonalRule::Touch);
    }
    if let Some(v) = obj.get("diagonals") {
        let rule = v.as_str().and_then(parse_rule).ok_or_else(|| {
            JsonError::at(
                "diagonals",
                format!("expected \"full\" or \"touch\", got {v}"),
            )
        })?;
        problem = problem.with_rule(rule);
    }
    let fixed = json_cells(obj.get("queens"), "queens", "queen", n)?;
    let blocked = json_cells(obj.get("blocked"), "blocked", "blocked cell", n)?;
    let marks = json_cells(obj.get("marks"), "marks", "mark", n)?;
    let diags = json_diags(obj.get("diags"), n)?;
    problem
        .with_fixed(&fixed)
        .and_then(|p| p.with_blocked(&blocked))
        .and_then(|p| p.with_marks(&marks))
        .and_then(|p| p.with_excluded(&diags))
        .map_err(|e| JsonError::from(e.to_string()))
}

/// The region map of `rows` (strings split as [`grid_cells`] does, or arrays of names), whose
/// count is already known to be `n`. Every row is checked before any name is stored.
fn json_regions(rows: &[Value], n: usize) -> Result<Regions, JsonError> {
    for (r, row) in rows.iter().enumerate() {
        let len = match row {
            Value::String(s) => grid_cells(s, false).count(),
            Value::Array(items) => {
                for (c, t) in items.iter().enumerate() {
                    match t {
                        Value::String(s) if !s.is_empty() => {}
                        Value::Number(_) => {}
                        _ => {
                            return Err(JsonError::at(
                                format!("regions[{r}][{c}]"),
                                format!(
                                    "expected a region name (string or \
                                 number), got {t}"
                                ),
                            ))
                        }
                    }
                }
                items.len()
            }
            _ => {
                return Err(JsonError::at(
                    format!("regions[{r}]"),
                    format!("expected a string or an array of region names, got {row}"),
                ))
            }
        };
        if len != n {
            return Err(JsonError::at(
                format!("regions[{r}]"),
                format!("has {len} cells, expected {n}"),
            ));
        }
    }
    let cells = rows
        .iter()
        .flat_map(|row| -> Box<dyn Iterator<Item = Cow<str>>> {
            match row {
                Value::String(s) => Box::new(grid_cells(s, false).map(Cow::Borrowed)),
                Value::Array(items) => Box::new(items.iter().map(|t| match t {
                    Value::String(s) => Cow::Borrowed(s.as_str()),
                    other => Cow::Owned(other.to_string()),
                })),
                _ => Box::new(std::iter::empty()),
            }
        });
    Regions::from_cells(n, cells).map_err(|e| JsonError::at("regions", e.to_string()))
}

fn json_cells(v: Option<&Value>, field: &str, what: &str, n: usize) -> Result<Vec<Pos>, JsonError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let items = v
        .as_array()
        .ok_or_else(|| JsonError::at(field, format!("expected an array of cells, got {v}")))?;
    let cells = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = |m: String| JsonError::at(format!("{field}[{i}]"), m);
            match item {
                Value::String(s) => chess_square(s, n).map_err(at),
                Value::Array(rc) if rc.len() == 2 => match (rc[0].as_u64(), rc[1].as_u64()) {
                    (Some(r), Some(c)) => {
                        let big = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
                        on_board((big(r), big(c)), n, &item.to_string()).map_err(at)
                    }
                    _ => Err(at(format!(
                        "expected [row, col] with whole numbers, got {item}"
                    ))),
                },
                _ => Err(at(format!(
                    "expected [row, col] or a chess square like \"b4\", got {item}"
                ))),
            }
        })
        .collect::<Result<Vec<Pos>, JsonError>>()?;
    if let Some((first, again)) = find_duplicate(n, &cells) {
        let (r, c) = cells[again];
        return Err(JsonError::at(
            format!("{field}[{again}]"),
            format!("{what} ({r},{c}) is given twice (also `{field}[{first}]`)"),
        ));
    }
    Ok(cells)
}

fn json_diags(v: Option<&Value>, n: usize) -> Result<Vec<Diagonal>, JsonError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let items = v.as_array().ok_or_else(|| {
        JsonError::at(
            "diags",
            format!("expected an array of [k, t] pairs, got {v}"),
        )
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let pair = item.as_array().filter(|a| a.len() == 2);
            let kt = pair.and_then(|a| Some((a[0].as_u64()?, a[1].as_u64()?)));
            kt.and_then(|(k, t)| Diagonal::from_csplib(n, k as usize, t as u8).filter(|_| t <= 1))
                .ok_or_else(|| {
                    JsonError::at(
                        format!("diags[{i}]"),
                        format!(
                            "expected [k, t] with k in 0..={} and t 0 or 1, got {item}",
                            2 * n - 2
                        ),
                    )
                })
        })
        .collect()
}

/// Writes a problem in the project's JSON instance format, so that [`crate::formats::parse`]
/// reads back an equal problem. Regions are row strings when every name is one character,
/// arrays of names otherwise; excluded diagonals are CSPLib `[k, t]` pairs.
pub fn write_json(problem: &Problem, id: &str) -> String {
    let n = problem.n();
    let q = |s: &str| serde_json::to_string(s).expect("strings serialize");
    let cells = |cells: &[Pos]| {
        let items: Vec<String> = cells.iter().map(|&(r, c)| format!("[{r}, {c}]")).collect();
        format!("[{}]", items.join(", "))
    };
    let mut fields = vec![
        format!("  \"id\": {}", q(id)),
        format!("  \"n\": {n}"),
        format!("  \"diagonals\": {}", q(&problem.rule().to_string())),
    ];
    if let Some(g) = problem.regions() {
        let one_char = g.names().iter().all(|s| s.chars().count() == 1);
        let rows: Vec<String> = (0..n)
            .map(|r| {
                let names = (0..n).map(|c| g.name(g.id((r, c))));
                if one_char {
                    format!("    {}", q(&names.collect::<String>()))
                } else {
                    let items: Vec<String> = names.map(q).collect();
                    format!("    [{}]", items.join(", "))
                }
            })
            .collect();
        fields.push(format!("  \"regions\": [\n{}\n  ]", rows.join(",\n")));
    }
    if !problem.fixed().is_empty() {
        fields.push(format!("  \"queens\": {}", cells(problem.fixed())));
    }
    if !problem.blocked().is_empty() {
        fields.push(format!("  \"blocked\": {}", cells(problem.blocked())));
    }
    if !problem.marks().is_empty() {
        fields.push(format!("  \"marks\": {}", cells(problem.marks())));
    }
    if !problem.excluded().is_empty() {
        let items: Vec<String> = problem
            .excluded()
            .iter()
            .map(|&d| {
                let (k, t) = to_csplib(n, d);
                format!("[{k}, {t}]")
            })
            .collect();
        fields.push(format!("  \"diags\": [{}]", items.join(", ")));
    }
    format!("{{\n{}\n}}\n", fields.join(",\n"))
}

/// Writes an Excluded Diagonals instance as JSON keeping the list's order, so that `--first`
/// on the written file still takes a prefix of the generated list (the prob079 convention).
pub fn write_diagonals_json(n: usize, list: &[Diagonal], id: &str) -> String {
    let pairs: Vec<String> = list
        .iter()
        .map(|&d| {
            let (k, t) = to_csplib(n, d);
            format!("[{k}, {t}]")
        })
        .collect();
    format!(
        "{{\n  \"id\": {},\n  \"n\": {n},\n  \"diags\": [{}]\n}}\n",
        serde_json::to_string(id).expect("strings serialize"),
        pairs.join(", ")
    )
}

/// Writes a JSON instance object (one that went through [`serde_json::Value`], like the
/// instances of `queens_ops::GenerateResponse`) in the layout of [`write_json`] and
/// [`write_diagonals_json`]: one field per line in their order (`id`, `n`, `diagonals`,
/// `regions`, `queens`, `blocked`, `diags`, then any other), one region row per line, lists
/// of cells on one line. A value that is not an object is written as compact JSON.
pub fn write_value(value: &serde_json::Value) -> String {
    use serde_json::Value;
    fn inline(v: &Value) -> String {
        match v {
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(inline).collect();
                format!("[{}]", items.join(", "))
            }
            v => v.to_string(),
        }
    }
    let Value::Object(map) = value else {
        return format!("{value}\n");
    };
    const ORDER: [&str; 8] = [
        "id",
        "n",
        "diagonals",
        "regions",
        "queens",
        "blocked",
        "marks",
        "diags",
    ];
    let rank = |k: &str| ORDER.iter().position(|&o| o == k).unwrap_or(ORDER.len());
    let mut keys: Vec<&String> = map.keys().collect();
    // Stable: keys outside ORDER keep the map's (alphabetical) order after the known ones.
    keys.sort_by_key(|k| rank(k));
    let fields: Vec<String> = keys
        .into_iter()
        .map(|k| {
            let name = Value::String(k.clone());
            match (k.as_str(), &map[k]) {
                ("regions", Value::Array(rows)) if !rows.is_empty() => {
                    let rows: Vec<String> =
                        rows.iter().map(|r| format!("    {}", inline(r))).collect();
                    format!("  {name}: [\n{}\n  ]", rows.join(",\n"))
                }
                (_, v) => format!("  {name}: {}", inline(v)),
            }
        })
        .collect();
    format!("{{\n{}\n}}\n", fields.join(",\n"))
}
