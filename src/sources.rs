//! Instance sources: one file, a CSPLib prob079 parameter file, a JSON-lines corpus or a folder.
//!
//! Every source yields named [`Instance`]s, so a whole corpus is one input to `queens compare`
//! and one line of it can be picked for `queens solve` with `--select id=…`. A [`Selection`]
//! filters JSON-lines records on their fields, keeps the first `d` diagonals / fixed queens of
//! each (CSPLib prob079 defines an instance as a prefix of its generated list) and takes the
//! first `k` matches.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::generate::parse_csplib;
use crate::model::Problem;
use crate::parse::{parse, problem_from_json};

/// A named problem.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The record's `id`, or `file` / `file:line` when it has none.
    pub id: String,
    /// The problem, with any `--first` prefix already applied.
    pub problem: Problem,
}

/// Which records of a source to keep.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// `field=value` filters on JSON-lines records (all must match). The value is compared
    /// with the field's JSON text, quotes removed for strings: `n=21`, `id=diag-21-4-162`.
    pub filters: Vec<(String, String)>,
    /// Keep only the first `d` excluded diagonals and fixed queens of each instance.
    pub first: Option<usize>,
    /// Stop after this many instances (over all sources).
    pub take: Option<usize>,
}

impl Selection {
    /// Parses one `field=value` filter, as given to `--select`.
    pub fn parse_filter(text: &str) -> Result<(String, String), String> {
        match text.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
            _ => Err(format!("expected FIELD=VALUE (like n=21), got `{text}`")),
        }
    }

    fn matches(&self, record: &Value) -> bool {
        self.filters.iter().all(|(field, want)| {
            record.get(field).is_some_and(|v| match v {
                Value::String(s) => s == want,
                other => serde_json::from_str::<Value>(want).is_ok_and(|w| w == *other),
            })
        })
    }

    fn is_full(&self, got: usize) -> bool {
        self.take.is_some_and(|k| got >= k)
    }
}

/// What kind of text a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line (`.jsonl`, or several lines that each hold an object).
    JsonLines,
    /// A CSPLib prob079 Essence' parameter file (`letting n = …`).
    Csplib,
    /// The project's own formats: a text grid or one JSON object.
    Single,
}

/// Guesses the format of a file from its name and text.
pub fn detect(path: &Path, text: &str) -> Format {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if matches!(ext, "jsonl" | "ndjson") {
        return Format::JsonLines;
    }
    if matches!(ext, "param" | "eprime-param" | "essence-param") {
        return Format::Csplib;
    }
    let code: Vec<&str> = text
        .lines()
        .map(|l| l.split('$').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .collect();
    let first = code.first().copied().unwrap_or("");
    let word = first
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next();
    // `n = 21` or `n be …`, not a region map whose first row starts with the tokens `n b`.
    let after_n = first[1..].trim_start();
    if word == Some("letting")
        || (word == Some("n")
            && (after_n.starts_with('=') || after_n.split_whitespace().next() == Some("be")))
    {
        return Format::Csplib;
    }
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.len() > 1 && lines.iter().all(|l| l.starts_with('{') && l.ends_with('}')) {
        return Format::JsonLines;
    }
    Format::Single
}

/// Loads every instance the paths name (files, or folders read in name order), keeping what
/// the selection asks for. Errors name the file and line.
pub fn load(paths: &[PathBuf], selection: &Selection) -> Result<Vec<Instance>, Error> {
    let mut out = Vec::new();
    for path in paths {
        if selection.is_full(out.len()) {
            break;
        }
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| io(path, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && !is_hidden(p))
                .collect();
            entries.sort();
            for p in entries {
                if selection.is_full(out.len()) {
                    break;
                }
                load_file(&p, selection, &mut out)?;
            }
        } else {
            load_file(path, selection, &mut out)?;
        }
    }
    Ok(out)
}

/// Loads exactly one instance (the `solve`/`count` input): a corpus must be narrowed to a
/// single record with the selection.
pub fn load_one(path: &Path, selection: &Selection) -> Result<Instance, Error> {
    let mut all = load(&[path.to_path_buf()], selection)?;
    match all.len() {
        1 => Ok(all.pop().expect("one instance")),
        0 => Err(Error::input(
            &path.display().to_string(),
            "no instance matches the selection",
        )),
        k => Err(Error::input(
            &path.display().to_string(),
            format!(
                "{k} instances match; pick one with --select id=… (or run them all with \
                 `queens compare`)"
            ),
        )),
    }
}

fn is_hidden(p: &Path) -> bool {
    p.file_name()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s.starts_with('.'))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn load_file(path: &Path, selection: &Selection, out: &mut Vec<Instance>) -> Result<(), Error> {
    let (origin, text) = if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| io(path, e))?;
        ("<stdin>".to_string(), s)
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
        (path.display().to_string(), text)
    };
    let stem = match path.file_stem().and_then(|s| s.to_str()) {
        Some(s) if path != Path::new("-") => s.to_string(),
        _ => "stdin".to_string(),
    };
    match detect(path, &text) {
        Format::JsonLines => {
            for (i, line) in text.lines().enumerate() {
                if selection.is_full(out.len()) {
                    break;
                }
                let line_no = i + 1;
                if line.trim().is_empty() {
                    continue;
                }
                let err = |m: String| Error::input(&origin, format!("line {line_no}: {m}"));
                let mut record: Value = serde_json::from_str(line)
                    .map_err(|e| err(format!("column {}: invalid JSON: {e}", e.column())))?;
                if !selection.matches(&record) {
                    continue;
                }
                if let Some(d) = selection.first {
                    truncate(&mut record, d).map_err(err)?;
                }
                let problem = problem_from_json(&record).map_err(err)?;
                let id = json_id(&record).unwrap_or_else(|| format!("{stem}:{line_no}"));
                out.push(Instance { id, problem });
            }
        }
        Format::Csplib => {
            if !selection.filters.is_empty() {
                return Err(Error::input(
                    &origin,
                    "--select applies to JSON-lines corpora only; this CSPLib parameter file \
                     holds one instance",
                ));
            }
            let problem = parse_csplib(&origin, &text, selection.first)?;
            out.push(Instance { id: stem, problem });
        }
        Format::Single => {
            if !selection.filters.is_empty() {
                return Err(Error::input(
                    &origin,
                    "--select applies to JSON-lines corpora only; this file holds one instance",
                ));
            }
            let is_json = text.trim_start().starts_with('{');
            let (problem, id) = match (is_json, selection.first) {
                (true, Some(d)) => {
                    let mut record: Value = serde_json::from_str(&text).map_err(|e| {
                        Error::input(
                            &origin,
                            format!("line {} column {}: invalid JSON: {e}", e.line(), e.column()),
                        )
                    })?;
                    truncate(&mut record, d).map_err(|m| Error::input(&origin, m))?;
                    let problem =
                        problem_from_json(&record).map_err(|m| Error::input(&origin, m))?;
                    (problem, json_id(&record))
                }
                (false, Some(_)) => {
                    return Err(Error::input(
                        &origin,
                        "--first needs an ordered list of diagonals or queens (JSON, JSON lines \
                         or a CSPLib parameter file), not a text grid",
                    ))
                }
                (true, None) => {
                    let problem = parse(&origin, &text)?;
                    let id = serde_json::from_str::<Value>(&text)
                        .ok()
                        .and_then(|v| json_id(&v));
                    (problem, id)
                }
                (false, None) => (parse(&origin, &text)?, None),
            };
            let id = id.unwrap_or(stem);
            out.push(Instance { id, problem });
        }
    }
    Ok(())
}

/// Keeps the first `d` entries of a record's diagonal lists and fixed queens.
fn truncate(record: &mut Value, d: usize) -> Result<(), String> {
    let mut any = false;
    for field in ["diags", "queens"] {
        if let Some(Value::Array(list)) = record.get_mut(field) {
            if list.len() < d {
                return Err(format!(
                    "field `{field}`: --first {d} asks for more than its {} entries",
                    list.len()
                ));
            }
            list.truncate(d);
            any = true;
        }
    }
    if any {
        Ok(())
    } else {
        Err(format!(
            "--first {d}: the record has no `diags` or `queens` list to take a prefix of"
        ))
    }
}

fn json_id(record: &Value) -> Option<String> {
    match record.get("id")? {
        Value::String(s) => Some(s.clone()),
        v => Some(v.to_string()),
    }
}
