//! Instance formats: text grids (classic or region map) and JSON, auto-detected.
//!
//! Every error names the origin (file name or `<stdin>`) and the line or JSON field, and says
//! what was expected. Well-formed but contradictory input (two fixed queens attacking each
//! other) parses fine: that is a result for the engines, not an input error.

use serde_json::Value;
use std::path::Path;

use crate::error::Error;
use crate::model::{Diagonal, DiagonalRule, Pos, Problem, Regions};

/// Reads an instance from a path, or from standard input when the path is `-`.
pub fn read_path(path: &Path) -> Result<Problem, Error> {
    let (origin, text) = read_text(path)?;
    parse(&origin, &text)
}

/// Reads a file's text, or standard input when the path is `-`, with the name error messages
/// should use for it (`<stdin>` for `-`).
pub fn read_text(path: &Path) -> Result<(String, String), Error> {
    let io = |e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    };
    if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(io)?;
        Ok(("<stdin>".to_string(), s))
    } else {
        let text = std::fs::read_to_string(path).map_err(io)?;
        Ok((path.display().to_string(), text))
    }
}

/// Parses JSON text that starts on line `first_line` of its file (1 for a whole file, the
/// line number for a JSON-lines record); the error gives the file's line and column once, in
/// front (`line 3 column 0: invalid JSON: EOF while parsing an object`).
pub fn json_value(text: &str, first_line: usize) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| {
        // serde_json's Display ends with " at line L column C", counted within `text`.
        let full = e.to_string();
        let message = full
            .rsplit_once(" at line ")
            .map_or(full.as_str(), |(m, _)| m);
        format!(
            "line {} column {}: invalid JSON: {message}",
            first_line + e.line().saturating_sub(1),
            e.column()
        )
    })
}

/// Parses an instance, detecting the format: JSON when the first non-blank character is `{`,
/// a text grid otherwise. `origin` names the source in error messages.
pub fn parse(origin: &str, text: &str) -> Result<Problem, Error> {
    if text.trim_start().starts_with('{') {
        parse_json(origin, text)
    } else {
        parse_grid(origin, text)
    }
}

/// Parses the text grid format.
///
/// `n` lines of `n` cells, `#` starts a comment. A grid of only `.`, `Q` and `x` is a classic
/// board (rule `full`); any other grid is a region map (rule `touch`), whitespace-separated
/// tokens when a line contains whitespace. After the grid: `queens: r,c r,c …`,
/// `blocked: r,c …` and `diagonals: full|touch`.
pub fn parse_grid(origin: &str, text: &str) -> Result<Problem, Error> {
    let err = |line: usize, msg: String| Error::input(origin, format!("line {line}: {msg}"));
    let mut rows: Vec<(usize, &str)> = Vec::new();
    let mut extras: Vec<(usize, &str, &str)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some((key, value)) = option_line(line) {
            extras.push((i + 1, key, value));
        } else if !extras.is_empty() {
            return Err(err(
                i + 1,
                format!("grid row after the option lines: {line:?} (the grid comes first)"),
            ));
        } else {
            rows.push((i + 1, line));
        }
    }
    if rows.is_empty() {
        return Err(Error::input(
            origin,
            "no grid found (expected n lines of n cells)",
        ));
    }
    let tokens_mode = rows.iter().any(|(_, l)| l.contains(char::is_whitespace));
    let cells: Vec<(usize, Vec<String>)> = rows
        .iter()
        .map(|&(ln, l)| {
            let cells = if tokens_mode {
                l.split_whitespace().map(str::to_string).collect()
            } else {
                l.chars().map(String::from).collect()
            };
            (ln, cells)
        })
        .collect();
    let n = cells[0].1.len();
    for (ln, row) in &cells {
        if row.len() != n {
            return Err(err(
                *ln,
                format!(
                    "row has {} cells, expected {n} like the first row",
                    row.len()
                ),
            ));
        }
    }
    if cells.len() != n {
        return Err(err(
            cells[cells.len() - 1].0,
            format!(
                "the grid has {} rows of {n} cells; a board is square, expected {n} rows",
                cells.len()
            ),
        ));
    }
    let classic = !tokens_mode
        && cells
            .iter()
            .all(|(_, row)| row.iter().all(|c| matches!(c.as_str(), "." | "Q" | "x")));
    let mut problem = Problem::new(n).map_err(|e| err(rows[0].0, e.to_string()))?;
    let mut fixed = Vec::new();
    let mut blocked = Vec::new();
    if classic {
        for (r, (_, row)) in cells.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                match cell.as_str() {
                    "Q" => fixed.push((r, c)),
                    "x" => blocked.push((r, c)),
                    _ => {}
                }
            }
        }
    } else {
        let names: Vec<&String> = cells.iter().flat_map(|(_, row)| row).collect();
        let regions = Regions::from_names(n, &names).map_err(|e| {
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
    for (ln, key, value) in extras {
        match key {
            "queens" | "blocked" => {
                let list = if key == "queens" {
                    &mut fixed
                } else {
                    &mut blocked
                };
                for tok in value.split_whitespace() {
                    list.push(
                        parse_cell_token(tok, n).map_err(|m| err(ln, format!("{key}: {m}")))?,
                    );
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
    problem
        .with_fixed(&fixed)
        .and_then(|p| p.with_blocked(&blocked))
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
    let value = json_value(text, 1).map_err(|m| Error::input(origin, m))?;
    problem_from_json(&value).map_err(|m| Error::input(origin, m))
}

/// Builds a problem from a parsed JSON object; the error names the field.
pub fn problem_from_json(value: &Value) -> Result<Problem, String> {
    let obj = value
        .as_object()
        .ok_or("expected a JSON object like {\"n\": 8}")?;
    if let Some(k) = obj.keys().find(|k| !JSON_FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "field `{k}`: unknown field (known: {})",
            JSON_FIELDS.join(", ")
        ));
    }
    let regions = match obj.get("regions") {
        None | Some(Value::Null) => None,
        Some(v) => Some(json_regions(v)?),
    };
    let n = match (obj.get("n"), &regions) {
        (Some(v), _) => {
            let n =
                v.as_u64().filter(|&n| n >= 1).ok_or_else(|| {
                    format!("field `n`: expected a positive whole number, got {v}")
                })? as usize;
            if let Some(rows) = &regions {
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
    let mut problem = Problem::new(n).map_err(|e| format!("field `n`: {e}"))?;
    if let Some(rows) = regions {
        for (r, row) in rows.iter().enumerate() {
            if row.len() != n {
                return Err(format!(
                    "field `regions[{r}]`: has {} cells, expected {n}",
                    row.len()
                ));
            }
        }
        let names: Vec<&String> = rows.iter().flatten().collect();
        let g = Regions::from_names(n, &names).map_err(|e| format!("field `regions`: {e}"))?;
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
    let fixed = json_cells(obj.get("queens"), "queens", n)?;
    let blocked = json_cells(obj.get("blocked"), "blocked", n)?;
    let diags = json_diags(obj.get("diags"), n)?;
    problem
        .with_fixed(&fixed)
        .and_then(|p| p.with_blocked(&blocked))
        .and_then(|p| p.with_excluded(&diags))
        .map_err(|e| e.to_string())
}

fn json_regions(v: &Value) -> Result<Vec<Vec<String>>, String> {
    let rows = v
        .as_array()
        .ok_or_else(|| format!("field `regions`: expected an array of rows, got {v}"))?;
    rows.iter()
        .enumerate()
        .map(|(r, row)| match row {
            Value::String(s) => Ok(s.chars().map(String::from).collect()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(c, t)| match t {
                    Value::String(s) if !s.is_empty() => Ok(s.clone()),
                    Value::Number(x) => Ok(x.to_string()),
                    _ => Err(format!(
                        "field `regions[{r}][{c}]`: expected a region name (string or number), got {t}"
                    )),
                })
                .collect(),
            _ => Err(format!(
                "field `regions[{r}]`: expected a string or an array of region names, got {row}"
            )),
        })
        .collect()
}

fn json_cells(v: Option<&Value>, field: &str, n: usize) -> Result<Vec<Pos>, String> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let items = v
        .as_array()
        .ok_or_else(|| format!("field `{field}`: expected an array of cells, got {v}"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let at = |m: String| format!("field `{field}[{i}]`: {m}");
            match item {
                Value::String(s) => chess_square(s, n).map_err(at),
                Value::Array(rc) if rc.len() == 2 => match (rc[0].as_u64(), rc[1].as_u64()) {
                    (Some(r), Some(c)) => {
                        on_board((r as usize, c as usize), n, &item.to_string()).map_err(at)
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
        .collect()
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
