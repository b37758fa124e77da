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
use crate::formats::csplib::parse_csplib;
use crate::formats::{
    json_value, looks_like_json, not_an_object, parse, problem_from_json, read_text, strip_bom,
    EMPTY_INPUT,
};
use crate::model::Problem;

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

    /// Whether every filter matches the field `lookup` gives for its name.
    fn matches(&self, lookup: impl Fn(&str) -> Option<Value>) -> bool {
        self.filters.iter().all(|(field, want)| {
            lookup(field).is_some_and(|v| match v {
                Value::String(s) => s == *want,
                other => serde_json::from_str::<Value>(want).is_ok_and(|w| w == other),
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
    let text = strip_bom(text);
    // The first line with code on it; no per-line allocation, since a grid file may have
    // thousands of lines.
    let first = text
        .lines()
        .map(|l| l.split('$').next().unwrap_or("").trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let word = first
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .next()
        .unwrap_or("");
    // `n = 21` or `n be …`, not a region map whose first row starts with the tokens `n b`.
    // `word` is a prefix of `first`, so this cuts at a character boundary whatever the text.
    let after_word = first.strip_prefix(word).unwrap_or("").trim_start();
    if word == "letting"
        || (word == "n"
            && (after_word.starts_with('=') || after_word.split_whitespace().next() == Some("be")))
    {
        return Format::Csplib;
    }
    let mut records = 0;
    let all_objects = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .all(|l| {
            records += 1;
            l.starts_with('{') && l.ends_with('}')
        });
    if all_objects && records > 1 {
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

/// What to say when a selection leaves nothing, so the user learns what can be selected on.
pub const NOTHING_SELECTED: &str = "no instance matches the selection (--select compares JSON \
     fields; a text grid or CSPLib file offers only `id`, its file name, and `n`)";

/// Loads exactly one instance (the `solve`/`count` input): a corpus must be narrowed to a
/// single record with the selection.
pub fn load_one(path: &Path, selection: &Selection) -> Result<Instance, Error> {
    let mut all = load(&[path.to_path_buf()], selection)?;
    match all.len() {
        1 => Ok(all.pop().expect("one instance")),
        0 => Err(Error::input(&path.display().to_string(), NOTHING_SELECTED)),
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

/// Adds the instances of one file that the selection keeps. A single JSON object is selected
/// on like a corpus record; a text grid or CSPLib file like the record `{"id": file name,
/// "n": size}`, so `--select` can pick from a folder of mixed files.
fn load_file(path: &Path, selection: &Selection, out: &mut Vec<Instance>) -> Result<(), Error> {
    let (origin, text) = read_text(path)?;
    if text.trim().is_empty() {
        return Err(Error::input(&origin, EMPTY_INPUT));
    }
    let stem = match path.file_stem().and_then(|s| s.to_str()) {
        Some(s) if path != Path::new("-") => s.to_string(),
        _ => "stdin".to_string(),
    };
    // Files without fields are selected on their name and size.
    let plain_matches = |problem: &Problem| {
        selection.matches(|field| match field {
            "id" => Some(Value::String(stem.clone())),
            "n" => Some(problem.n().into()),
            _ => None,
        })
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
                let record = json_value(line, line_no).map_err(|m| Error::input(&origin, m))?;
                let default_id = format!("{stem}:{line_no}");
                out.extend(from_record(record, selection, default_id).map_err(err)?);
            }
        }
        Format::Csplib => {
            // The filters look at the whole instance; a --first error only concerns a
            // selected file.
            let whole = parse_csplib(&origin, &text, None)?;
            if plain_matches(&whole) {
                let problem = match selection.first {
                    Some(_) => parse_csplib(&origin, &text, selection.first)?,
                    None => whole,
                };
                out.push(Instance {
                    id: stem.clone(),
                    problem,
                });
            }
        }
        Format::Single if looks_like_json(&text) => {
            let record = json_value(&text, 1).map_err(|m| Error::input(&origin, m))?;
            let found = from_record(record, selection, stem.clone())
                .map_err(|m| Error::input(&origin, m))?;
            out.extend(found);
        }
        Format::Single => {
            let problem = parse(&origin, &text)?;
            if !plain_matches(&problem) {
                return Ok(());
            }
            if selection.first.is_some() {
                return Err(Error::input(
                    &origin,
                    "--first needs an ordered list of diagonals or queens (JSON, JSON lines \
                     or a CSPLib parameter file), not a text grid",
                ));
            }
            out.push(Instance {
                id: stem.clone(),
                problem,
            });
        }
    }
    Ok(())
}

/// The instance a JSON record describes, if the selection keeps it; errors name the field.
/// A record without `id` is selected on the id it is listed under, and one without `n` on the
/// size its other fields give (a region map's), as the table shows them.
fn from_record(
    mut record: Value,
    selection: &Selection,
    default_id: String,
) -> Result<Option<Instance>, String> {
    if !record.is_object() {
        return Err(not_an_object(&record));
    }
    let lookup = |field: &str| match (field, record.get(field)) {
        (_, Some(v)) => Some(v.clone()),
        ("id", None) => Some(Value::String(default_id.clone())),
        ("n", None) => problem_from_json(&record).ok().map(|p| p.n().into()),
        _ => None,
    };
    if !selection.matches(lookup) {
        return Ok(None);
    }
    if let Some(d) = selection.first {
        truncate(&mut record, d)?;
    }
    let problem = problem_from_json(&record)?;
    let id = json_id(&record).unwrap_or(default_id);
    Ok(Some(Instance { id, problem }))
}

/// Keeps the first `d` entries of a record's diagonal list and fixed queens. An empty list is
/// left alone (prob079's excluded-diagonal records carry `"queens": []`); a list that is not
/// empty must have at least `d` entries, so a prefix never silently means the whole list.
fn truncate(record: &mut Value, d: usize) -> Result<(), String> {
    let mut any = false;
    for field in ["diags", "queens"] {
        if let Some(Value::Array(list)) = record.get_mut(field) {
            if list.len() >= d {
                list.truncate(d);
                any = true;
            } else if !list.is_empty() {
                return Err(format!(
                    "field `{field}`: --first {d} asks for more than its {} entries",
                    list.len()
                ));
            }
        }
    }
    if any {
        Ok(())
    } else {
        Err(format!(
            "--first {d}: the record has no `diags` or `queens` entries to take a prefix of"
        ))
    }
}

fn json_id(record: &Value) -> Option<String> {
    match record.get("id")? {
        Value::String(s) => Some(s.clone()),
        v => Some(v.to_string()),
    }
}
