//! Instance formats: text grids (classic or region map) and JSON, auto-detected.
//!
//! Every error names the origin (file name or `<stdin>`) and the line or JSON field, and says
//! what was expected. Well-formed but contradictory input (two fixed queens attacking each
//! other) parses fine: that is a result for the engines, not an input error.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::path::Path;

use crate::error::Error;
use crate::model::{find_duplicate, Diagonal, DiagonalRule, Pos, Problem, Regions, MAX_N};

/// What an input without any grid, JSON or option line is told.
pub const EMPTY_INPUT: &str =
    "empty input: expected a text grid (n lines of n cells) or a JSON object like {\"n\": 8}";

/// Reads an instance from a path, or from standard input when the path is `-`.
pub fn read_path(path: &Path) -> Result<Problem, Error> {
    let (origin, text) = read_text(path)?;
    parse(&origin, &text)
}

/// Reads a file's text, or standard input when the path is `-`, with the name error messages
/// should use for it (`<stdin>` for `-`). A leading byte-order mark is dropped; bytes that are
/// not UTF-8 are an input error naming the line and byte column (see [`decode_text`]).
pub fn read_text(path: &Path) -> Result<(String, String), Error> {
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let (origin, bytes) = if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(io)?;
        ("<stdin>".to_string(), bytes)
    } else {
        (path.display().to_string(), std::fs::read(path).map_err(io)?)
    };
    let text = decode_text(&origin, bytes)?;
    Ok((origin, text))
}

/// The text in `bytes`, without a leading UTF-8 byte-order mark (what Windows editors write).
/// Invalid UTF-8 is an input error naming the line and the byte column (1-based) of the first
/// bad byte. The buffer is reused, not copied.
pub fn decode_text(origin: &str, bytes: Vec<u8>) -> Result<String, Error> {
    let mut text = String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        let before = &bytes[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        Error::input(
            origin,
            format!(
                "line {line} column {column}: invalid UTF-8 (byte 0x{:02X}; the column counts \
                 bytes); the input must be UTF-8 text",
                bytes[at]
            ),
        )
    })?;
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    Ok(text)
}

/// `text` without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{FEFF}').unwrap_or(text)
}

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

/// Whether [`parse`] reads `text` as JSON: it starts with `{` or `[`, or is one JSON scalar
/// (`3`, `"x"`, `true`), which can only be a mistake. The price is that a 1×1 region map
/// named by a number, or a grid whose first cell is `{` or `[`, cannot be written as a text
/// grid; the JSON format holds them.
pub fn looks_like_json(text: &str) -> bool {
    let t = strip_bom(text).trim_start();
    t.starts_with(['{', '['])
        || (t.starts_with(|c: char| {
            c == '"' || c == '-' || c.is_ascii_digit() || c == 't' || c == 'f' || c == 'n'
        }) && serde_json::from_str::<de::IgnoredAny>(t).is_ok())
}

/// Parses an instance, detecting the format: JSON when [`looks_like_json`], a text grid
/// otherwise. `origin` names the source in error messages. A leading byte-order mark is
/// skipped; an input with nothing but blanks and comments is refused as [`EMPTY_INPUT`].
pub fn parse(origin: &str, text: &str) -> Result<Problem, Error> {
    if looks_like_json(text) {
        parse_json(origin, text)
    } else {
        parse_grid(origin, text)
    }
}

/// Splits a grid row into cells: whitespace-separated tokens, or (without whitespace)
/// characters as a reader sees them. A cell is one `char` together with what displays as part
/// of it: combining marks, variation selectors (`❤️` is U+2764 U+FE0F), emoji skin-tone
/// modifiers and tag characters, a zero-width joiner with the character after it (`👩‍🚀`),
/// and a pair of regional indicators (a flag, `🇫🇷`). This is a subset of Unicode's grapheme
/// clusters that covers region labels people write, without a segmentation table.
pub fn grid_cells(line: &str, tokens: bool) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if tokens {
            rest = rest.trim_start();
            if rest.is_empty() {
                return None;
            }
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (cell, tail) = rest.split_at(end);
            rest = tail;
            return Some(cell);
        }
        let mut chars = rest.char_indices();
        let (_, base) = chars.next()?;
        let mut end = base.len_utf8();
        let mut joined = false;
        let mut flags = usize::from(is_regional_indicator(base));
        for (i, c) in chars {
            let attach = if joined {
                joined = false;
                true
            } else if c == '\u{200D}' {
                joined = true;
                true
            } else if is_regional_indicator(c) && flags == 1 {
                flags += 1;
                true
            } else {
                extends_cell(c)
            };
            if !attach {
                break;
            }
            end = i + c.len_utf8();
        }
        let (cell, tail) = rest.split_at(end);
        rest = tail;
        Some(cell)
    })
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

/// Characters that display as part of the character before them.
fn extends_cell(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F      // combining diacritical marks
        | 0x1AB0..=0x1AFF    // … extended
        | 0x1DC0..=0x1DFF    // … supplement
        | 0x20D0..=0x20FF    // … for symbols (keycap U+20E3)
        | 0xFE00..=0xFE0F    // variation selectors (U+FE0F: emoji presentation)
        | 0xFE20..=0xFE2F    // combining half marks
        | 0x1F3FB..=0x1F3FF  // emoji skin-tone modifiers
        | 0xE0020..=0xE007F  // tag characters (subdivision flags)
        | 0xE0100..=0xE01EF) // variation selectors supplement
}

/// Cells listed by the grid and option lines, with the line each came from, so a cell given
/// twice is refused naming both lines.
#[derive(Default)]
struct Listed {
    cells: Vec<Pos>,
    lines: Vec<usize>,
}

impl Listed {
    fn push(&mut self, p: Pos, line: usize) {
        self.cells.push(p);
        self.lines.push(line);
    }

    /// The error for the first cell listed twice, if any.
    fn duplicate(&self, n: usize, key: &str, what: &str) -> Option<(usize, String)> {
        let (first, again) = find_duplicate(n, &self.cells)?;
        let (r, c) = self.cells[again];
        Some((
            self.lines[again],
            format!(
                "{key}: {what} ({r},{c}) is given twice (also on line {})",
                self.lines[first]
            ),
        ))
    }
}

/// Parses the text grid format.
///
/// `n` lines of `n` cells, `#` starts a comment. A grid of only `.`, `Q` and `x` is a classic
/// board (rule `full`); any other grid is a region map (rule `touch`), whitespace-separated
/// tokens when a line contains whitespace, else one cell per character as [`grid_cells`]
/// splits them (any non-whitespace character, emoji included, names a region). After the
/// grid: `queens: r,c r,c …`, `blocked: r,c …` and `diagonals: full|touch`. A queen or
/// blocked cell given twice is an error.
///
/// Memory is proportional to the board, never to the number of cells the text claims: a
/// grid wider or taller than [`MAX_N`] is refused before anything per cell is stored.
pub fn parse_grid(origin: &str, text: &str) -> Result<Problem, Error> {
    let err = |line: usize, msg: String| Error::input(origin, format!("line {line}: {msg}"));
    let mut lines = strip_bom(text)
        .lines()
        .enumerate()
        .map(|(i, raw)| (i + 1, raw.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty());
    let mut rows: Vec<(usize, &str)> = Vec::new();
    let mut first_option = None;
    for (ln, line) in lines.by_ref() {
        if option_line(line).is_some() {
            first_option = Some((ln, line));
            break;
        }
        if rows.len() == MAX_N {
            return Err(err(
                ln,
                format!(
                    "the grid has more than {MAX_N} rows; the largest board is {MAX_N}×{MAX_N}"
                ),
            ));
        }
        rows.push((ln, line));
    }
    if rows.is_empty() {
        return Err(match first_option {
            None => Error::input(origin, EMPTY_INPUT),
            Some(_) => Error::input(origin, "no grid found (expected n lines of n cells)"),
        });
    }
    let tokens_mode = rows.iter().any(|(_, l)| l.contains(char::is_whitespace));
    let n = grid_cells(rows[0].1, tokens_mode).count();
    for &(ln, row) in &rows {
        let len = grid_cells(row, tokens_mode).count();
        if len != n {
            return Err(err(
                ln,
                format!("row has {len} cells, expected {n} like the first row"),
            ));
        }
    }
    if rows.len() != n {
        return Err(err(
            rows[rows.len() - 1].0,
            format!(
                "the grid has {} rows of {n} cells; a board is square, expected {n} rows",
                rows.len()
            ),
        ));
    }
    let classic = !tokens_mode
        && rows
            .iter()
            .all(|(_, row)| row.chars().all(|c| matches!(c, '.' | 'Q' | 'x')));
    let mut problem = Problem::new(n).map_err(|e| err(rows[0].0, e.to_string()))?;
    let mut fixed = Listed::default();
    let mut blocked = Listed::default();
    if classic {
        for (r, &(ln, row)) in rows.iter().enumerate() {
            for (c, cell) in row.chars().enumerate() {
                match cell {
                    'Q' => fixed.push((r, c), ln),
                    'x' => blocked.push((r, c), ln),
                    _ => {}
                }
            }
        }
    } else {
        let cells = rows.iter().flat_map(|&(_, l)| grid_cells(l, tokens_mode));
        let regions = Regions::from_cells(n, cells).map_err(|e| {
            Error::input(
                origin,
                format!("lines {}-{}: {e}", rows[0].0, rows[n - 1].0),
            )
        })?;
        problem = problem
            .with_regions(regions)
            .expect("sizes match")
            .with_rule(DiagonalRule::Touch);
    }
    for (ln, line) in first_option.into_iter().chain(lines) {
        let Some((key, value)) = option_line(line) else {
            return Err(err(
                ln,
                format!("grid row after the option lines: {line:?} (the grid comes first)"),
            ));
        };
        match key {
            "queens" | "blocked" => {
                let list = if key == "queens" {
                    &mut fixed
                } else {
                    &mut blocked
                };
                for tok in value.split_whitespace() {
                    let p = parse_cell_token(tok, n).map_err(|m| err(ln, format!("{key}: {m}")))?;
                    list.push(p, ln);
                }
            }
            "diagonals" => {
                let rule = parse_rule(value.trim()).ok_or_else(|| {
                    err(
                        ln,
                        format!("diagonals: expected full or touch, got {:?}", value.trim()),
                    )
                })?;
                problem = problem.with_rule(rule);
            }
            _ => unreachable!("option_line only returns known keys"),
        }
    }
    let twice = fixed
        .duplicate(n, "queens", "queen")
        .into_iter()
        .chain(blocked.duplicate(n, "blocked", "blocked cell"))
        .min_by_key(|(ln, _)| *ln);
    if let Some((ln, m)) = twice {
        return Err(err(ln, m));
    }
    problem
        .with_fixed(&fixed.cells)
        .and_then(|p| p.with_blocked(&blocked.cells))
        .map_err(|e| Error::input(origin, e.to_string()))
}

fn option_line(line: &str) -> Option<(&'static str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim().to_ascii_lowercase();
    ["queens", "blocked", "diagonals"]
        .into_iter()
        .find(|k| *k == key)
        .map(|k| (k, value))
}

fn parse_rule(s: &str) -> Option<DiagonalRule> {
    match s {
        "full" => Some(DiagonalRule::Full),
        "touch" => Some(DiagonalRule::Touch),
        _ => None,
    }
}

/// `r,c` (0-based) or a chess square like `b4`.
fn parse_cell_token(tok: &str, n: usize) -> Result<Pos, String> {
    if let Some((r, c)) = tok.split_once(',') {
        let num = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("{tok:?} is not a cell: expected row,col with whole numbers"))
        };
        let p = (num(r)?, num(c)?);
        on_board(p, n, tok)
    } else {
        chess_square(tok, n)
    }
}

fn on_board(p: Pos, n: usize, shown: &str) -> Result<Pos, String> {
    if p.0 >= n || p.1 >= n {
        Err(format!(
            "cell {shown} is off the {n}×{n} board (rows and columns are 0..{})",
            n - 1
        ))
    } else {
        Ok(p)
    }
}

/// A chess square: file `a` = column 0, rank 1 = the bottom row (row n-1).
fn chess_square(tok: &str, n: usize) -> Result<Pos, String> {
    let mut chars = tok.chars();
    let file = chars.next().filter(|c| c.is_ascii_lowercase());
    let rank = chars.as_str().parse::<usize>().ok();
    match (file, rank) {
        (Some(f), Some(rank)) if rank >= 1 => {
            let col = (f as u8 - b'a') as usize;
            if rank > n || col >= n {
                return Err(format!("square {tok:?} is off the {n}×{n} board"));
            }
            Ok((n - rank, col))
        }
        _ => Err(format!(
            "{tok:?} is not a cell: expected row,col or a chess square like \"b4\""
        )),
    }
}

const JSON_FIELDS: &[&str] = &[
    "n",
    "regions",
    "queens",
    "blocked",
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
    problem_from_json(&value).map_err(|m| Error::input(origin, m))
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
pub fn problem_from_json(value: &Value) -> Result<Problem, String> {
    let obj = value.as_object().ok_or_else(|| not_an_object(value))?;
    if let Some(k) = obj.keys().find(|k| !JSON_FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "field `{k}`: unknown field (known: {})",
            JSON_FIELDS.join(", ")
        ));
    }
    let regions = match obj.get("regions") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_array()
                .ok_or_else(|| format!("field `regions`: expected an array of rows, got {v}"))?,
        ),
    };
    let n = match (obj.get("n"), regions) {
        (Some(v), _) => {
            let n = v
                .as_u64()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("field `n`: expected a positive whole number, got {v}"))?;
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if let Some(rows) = regions {
                if rows.len() != n {
                    return Err(format!(
                        "field `regions`: has {} rows but `n` is {n}",
                        rows.len()
                    ));
                }
            }
            n
        }
        (None, Some(rows)) => rows.len(),
        (None, None) => return Err("field `n`: missing (give `n` or `regions`)".into()),
    };
    // The size is checked before anything per cell is built.
    let field = if obj.contains_key("n") {
        "n"
    } else {
        "regions"
    };
    let mut problem = Problem::new(n).map_err(|e| format!("field `{field}`: {e}"))?;
    if let Some(rows) = regions {
        let g = json_regions(rows, n)?;
        problem = problem
            .with_regions(g)
            .expect("sizes match")
            .with_rule(DiagonalRule::Touch);
    }
    if let Some(v) = obj.get("diagonals") {
        let rule = v
            .as_str()
            .and_then(parse_rule)
            .ok_or_else(|| format!("field `diagonals`: expected \"full\" or \"touch\", got {v}"))?;
        problem = problem.with_rule(rule);
    }
    let fixed = json_cells(obj.get("queens"), "queens", "queen", n)?;
    let blocked = json_cells(obj.get("blocked"), "blocked", "blocked cell", n)?;
    let diags = json_diags(obj.get("diags"), n)?;
    problem
        .with_fixed(&fixed)
        .and_then(|p| p.with_blocked(&blocked))
        .and_then(|p| p.with_excluded(&diags))
        .map_err(|e| e.to_string())
}

/// The region map of `rows` (strings split as [`grid_cells`] does, or arrays of names), whose
/// count is already known to be `n`. Every row is checked before any name is stored.
fn json_regions(rows: &[Value], n: usize) -> Result<Regions, String> {
    for (r, row) in rows.iter().enumerate() {
        let len = match row {
            Value::String(s) => grid_cells(s, false).count(),
            Value::Array(items) => {
                for (c, t) in items.iter().enumerate() {
                    match t {
                        Value::String(s) if !s.is_empty() => {}
                        Value::Number(_) => {}
                        _ => {
                            return Err(format!(
                                "field `regions[{r}][{c}]`: expected a region name (string or \
                                 number), got {t}"
                            ))
                        }
                    }
                }
                items.len()
            }
            _ => {
                return Err(format!(
                    "field `regions[{r}]`: expected a string or an array of region names, got {row}"
                ))
            }
        };
        if len != n {
            return Err(format!(
                "field `regions[{r}]`: has {len} cells, expected {n}"
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
    Regions::from_cells(n, cells).map_err(|e| format!("field `regions`: {e}"))
}

fn json_cells(v: Option<&Value>, field: &str, what: &str, n: usize) -> Result<Vec<Pos>, String> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let items = v
        .as_array()
        .ok_or_else(|| format!("field `{field}`: expected an array of cells, got {v}"))?;
    let cells = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = |m: String| format!("field `{field}[{i}]`: {m}");
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
        .collect::<Result<Vec<Pos>, String>>()?;
    if let Some((first, again)) = find_duplicate(n, &cells) {
        let (r, c) = cells[again];
        return Err(format!(
            "field `{field}[{again}]`: {what} ({r},{c}) is given twice (also `{field}[{first}]`)"
        ));
    }
    Ok(cells)
}

fn json_diags(v: Option<&Value>, n: usize) -> Result<Vec<Diagonal>, String> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let items = v
        .as_array()
        .ok_or_else(|| format!("field `diags`: expected an array of [k, t] pairs, got {v}"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let pair = item.as_array().filter(|a| a.len() == 2);
            let kt = pair.and_then(|a| Some((a[0].as_u64()?, a[1].as_u64()?)));
            kt.and_then(|(k, t)| Diagonal::from_csplib(n, k as usize, t as u8).filter(|_| t <= 1))
                .ok_or_else(|| {
                    format!(
                        "field `diags[{i}]`: expected [k, t] with k in 0..={} and t 0 or 1, got {item}",
                        2 * n - 2
                    )
                })
        })
        .collect()
}
