//! Instance sources: one file, a CSPLib parameter file, a JSON-lines corpus or a folder.
//!
//! Every source yields named [`Instance`]s, so a whole corpus is one input to `queens compare`
//! and one line of it can be picked for `queens solve` with `--select id=…`. A [`Selection`]
//! filters JSON-lines records on their fields, keeps the first `d` diagonals / fixed queens of
//! each (CSPLib prob079 defines an instance as a prefix of its generated list) and takes the
//! first `k` matches. [`load_all`] goes past a file or line it cannot use, listing it as a
//! [`Broken`] entry, so one bad file does not cost a whole comparison.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::formats::csplib::parse_csplib;
use crate::formats::{
    json_value, looks_like_json, not_an_object, parse, problem_from_json, read_text, strip_bom,
    JsonError, EMPTY_INPUT,
};
use crate::model::Problem;

/// A named problem.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The record's `id`, or `file` / `file:line` when it has none; unique among the
    /// instances loaded together (see [`load_all`]).
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
    /// A CSPLib prob079 or prob080 Essence' parameter file (`letting n = …`), read by
    /// [`parse_csplib`].
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

/// An input that cannot be run: a file that cannot be read or parsed (or is not a regular
/// file), or one bad line of a corpus. `compare` shows it as an error row.
#[derive(Debug)]
pub struct Broken {
    /// The id it is listed under, made unique like instance ids: the record's `id` when the
    /// line could be read as JSON and has one, else `file` or `file:line`.
    pub id: String,
    /// What is wrong, naming the file and the line.
    pub error: Error,
}

/// One input of a run, in input order: an instance, or why it cannot be run.
pub type Entry = Result<Instance, Broken>;

/// Loads every instance the paths name (files, or folders read in name order), keeping what
/// the selection asks for, with ids made unique as [`load_all`] says. The first file or line
/// that cannot be used is the error; errors name the file and line.
pub fn load(paths: &[PathBuf], selection: &Selection) -> Result<Vec<Instance>, Error> {
    Ok(strict(paths, selection)?.0)
}

/// Loads like [`load`], but goes past a file or corpus line it cannot use, listing it in its
/// place as a [`Broken`] entry (`compare` goes on with the rest). Still an error, since nothing
/// could be run: a path given that does not exist, a folder given that cannot be listed, and
/// finding no entry at all (the message says whether the inputs held no file or the selection
/// kept nothing).
///
/// Ids are an instance's `id` field, else its file name without the extension (`x` for
/// `x.txt`), or `file:line` for a corpus line. They are made unique, the same way on every
/// run: when inputs of different file names would share an id (`x.txt` and `x.json`, or a file
/// `x.txt` and a record with `"id": "x"`), the ids made from a file name keep its extension
/// (`x.txt`, `x.json`, `c.jsonl:3`); an id still shared (the same file given twice, two records
/// with one `id`) is kept by its first entry and gets `#2`, `#3`, … on the later ones.
/// `--select id=…` matches the id before this, as the file or record gives it.
pub fn load_all(paths: &[PathBuf], selection: &Selection) -> Result<Vec<Entry>, Error> {
    let g = Gather::run(paths, selection, true)?;
    if g.found.is_empty() {
        return Err(nothing(paths, g.seen));
    }
    Ok(unique_ids(g.found))
}

/// What to say when a selection leaves nothing, so the user learns what can be selected on.
pub const NOTHING_SELECTED: &str = "no instance matches the selection (--select compares JSON \
     fields; a text grid or CSPLib file offers only `id`, its file name, and `n`)";

/// What to say when the inputs hold no file at all (only folders can be empty: an empty file
/// is an input error of its own).
pub const NO_FILES: &str =
    "no instances: no file to read (in a folder, hidden files and subfolders are skipped)";

/// Loads exactly one instance (the `solve`/`count` input): a corpus must be narrowed to a
/// single record with the selection.
pub fn load_one(path: &Path, selection: &Selection) -> Result<Instance, Error> {
    let paths = [path.to_path_buf()];
    let (mut all, seen) = strict(&paths, selection)?;
    match all.len() {
        1 => Ok(all.pop().expect("one instance")),
        0 => Err(nothing(&paths, seen)),
        k => Err(Error::input(
            &path.display().to_string(),
            format!(
                "{k} instances match; pick one with --select id=… (or run them all with \
                 `queens compare`)"
            ),
        )),
    }
}

/// The instances, stopping at the first error, and how many files were read.
fn strict(paths: &[PathBuf], selection: &Selection) -> Result<(Vec<Instance>, usize), Error> {
    let g = Gather::run(paths, selection, false)?;
    let seen = g.seen;
    let all = unique_ids(g.found)
        .into_iter()
        .collect::<Result<Vec<_>, Broken>>()
        .map_err(|b| b.error)?;
    Ok((all, seen))
}

/// Nothing found: the inputs held no file (`seen` is 0), or the selection kept none of them.
fn nothing(paths: &[PathBuf], seen: usize) -> Error {
    let msg = if seen == 0 {
        NO_FILES
    } else {
        NOTHING_SELECTED
    };
    match paths {
        [one] => Error::input(&one.display().to_string(), msg),
        _ => Error::unsupported(msg.to_string()),
    }
}

/// Why a folder entry is not read: opening a FIFO would wait for a writer, maybe forever.
const NOT_A_FILE: &str = "not a regular file (a FIFO, socket or device); only the files in a \
     folder are read";

/// An id before [`unique_ids`]: `alt` is the same id with the file's extension, for ids made
/// from a file name.
struct Id {
    base: String,
    alt: Option<String>,
}

impl Id {
    /// A record's own `id`.
    fn record(id: String) -> Id {
        Id {
            base: id,
            alt: None,
        }
    }

    /// A file's: `x` for `x.txt` (`stdin` for `-`).
    fn file(path: &Path) -> Id {
        let (stem, name) = names(path);
        Id {
            base: stem,
            alt: Some(name),
        }
    }

    /// A corpus line's: `c:3`.
    fn line(path: &Path, line: usize) -> Id {
        let (stem, name) = names(path);
        Id {
            base: format!("{stem}:{line}"),
            alt: Some(format!("{name}:{line}")),
        }
    }
}

/// A file's name without and with its extension, `stdin` for `-`.
fn names(path: &Path) -> (String, String) {
    if path == Path::new("-") {
        return ("stdin".into(), "stdin".into());
    }
    let lossy = |s: Option<&std::ffi::OsStr>| s.map(|s| s.to_string_lossy().into_owned());
    let name = lossy(path.file_name()).unwrap_or_else(|| path.display().to_string());
    let stem = lossy(path.file_stem()).unwrap_or_else(|| name.clone());
    (stem, name)
}

/// Gives every entry its final id, as [`load_all`] describes.
fn unique_ids(found: Vec<Found>) -> Vec<Entry> {
    // The file names behind each id: more than one (or a record's own id among them) and the
    // extension tells the entries apart.
    let mut sources: HashMap<&str, HashSet<Option<&str>>> = HashMap::new();
    for f in &found {
        sources
            .entry(&f.id.base)
            .or_default()
            .insert(f.id.alt.as_deref());
    }
    let ids: Vec<String> = found
        .iter()
        .map(|f| match &f.id.alt {
            Some(alt) if sources[f.id.base.as_str()].len() > 1 => alt.clone(),
            _ => f.id.base.clone(),
        })
        .collect();
    // Every id as given, so a `#k` never takes one that comes later.
    let mut taken: HashSet<String> = ids.iter().cloned().collect();
    let mut used = HashSet::new();
    ids.into_iter()
        .zip(found)
        .map(|(id, f)| {
            let id = if used.insert(id.clone()) {
                id
            } else {
                let mut k = 2;
                while taken.contains(&format!("{id}#{k}")) {
                    k += 1;
                }
                let fresh = format!("{id}#{k}");
                taken.insert(fresh.clone());
                fresh
            };
            match f.item {
                Ok(problem) => Ok(Instance { id, problem }),
                Err(error) => Err(Broken { id, error }),
            }
        })
        .collect()
}

/// An entry before [`unique_ids`].
struct Found {
    id: Id,
    item: Result<Problem, Error>,
}

/// The walk over the inputs that every loader shares.
struct Gather<'a> {
    selection: &'a Selection,
    /// List a file or line that cannot be used and go on, instead of stopping at it.
    keep_going: bool,
    found: Vec<Found>,
    /// Files read, whatever the selection kept of them: tells "no file" from "none selected".
    seen: usize,
    /// Instances kept, for `take`.
    kept: usize,
}

impl<'a> Gather<'a> {
    fn run(paths: &[PathBuf], selection: &'a Selection, keep_going: bool) -> Result<Self, Error> {
        let mut g = Gather {
            selection,
            keep_going,
            found: Vec::new(),
            seen: 0,
            kept: 0,
        };
        for path in paths {
            if g.full() {
                break;
            }
            // A path given that cannot be found is a usage error, whatever the mode: a typo
            // should not cost a run of hours before it is seen.
            let is_dir = path != Path::new("-")
                && std::fs::metadata(path).map_err(|e| io(path, e))?.is_dir();
            if !is_dir {
                g.file(path)?;
                continue;
            }
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| io(path, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| !is_hidden(p))
                .collect();
            entries.sort();
            for p in entries {
                if g.full() {
                    break;
                }
                // Follows symbolic links: a dangling one is an entry that cannot be read.
                match std::fs::metadata(&p) {
                    Ok(m) if m.is_dir() => {}
                    Ok(m) if m.is_file() => g.file(&p)?,
                    Ok(_) => g.broken(
                        Id::file(&p),
                        Error::input(&p.display().to_string(), NOT_A_FILE),
                    )?,
                    Err(e) => g.broken(Id::file(&p), unreadable_entry(&p, e))?,
                }
            }
        }
        Ok(g)
    }

    fn full(&self) -> bool {
        self.selection.is_full(self.kept)
    }

    fn keep(&mut self, id: Id, problem: Problem) -> Result<(), Error> {
        self.found.push(Found {
            id,
            item: Ok(problem),
        });
        self.kept += 1;
        Ok(())
    }

    /// Lists what cannot be used and goes on, or stops with the error.
    fn broken(&mut self, id: Id, error: Error) -> Result<(), Error> {
        if !self.keep_going {
            return Err(error);
        }
        self.found.push(Found {
            id,
            item: Err(error),
        });
        Ok(())
    }

    /// Adds the instances of one file that the selection keeps. A single JSON object is
    /// selected on like a corpus record; a text grid or CSPLib file like the record `{"id":
    /// file name, "n": size}`, so `--select` can pick from a folder of mixed files.
    fn file(&mut self, path: &Path) -> Result<(), Error> {
        let (origin, text) = match read_text(path) {
            Ok(read) => read,
            Err(e) => return self.broken(Id::file(path), e),
        };
        self.seen += 1;
        if text.trim().is_empty() {
            return self.broken(Id::file(path), Error::input(&origin, EMPTY_INPUT));
        }
        let selection = self.selection;
        let stem = Id::file(path).base;
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
                    if self.full() {
                        break;
                    }
                    let line_no = i + 1;
                    if line.trim().is_empty() {
                        continue;
                    }
                    let record = match json_value(line, line_no) {
                        Ok(record) => record,
                        Err(m) => {
                            self.broken(Id::line(path, line_no), Error::input(&origin, m))?;
                            continue;
                        }
                    };
                    let id = json_id(&record).map_or_else(|| Id::line(path, line_no), Id::record);
                    match from_record(record, selection, &id.base) {
                        Ok(Some(problem)) => self.keep(id, problem)?,
                        Ok(None) => {}
                        Err(JsonError { field, message }) => {
                            let e = match field {
                                Some(f) => {
                                    Error::input_at_line_and_field(&origin, line_no, f, message)
                                }
                                None => Error::input_at_line(&origin, line_no, message),
                            };
                            self.broken(id, e)?
                        }
                    }
                }
                Ok(())
            }
            Format::Csplib => {
                // The filters look at the whole instance; a --first error only concerns a
                // selected file.
                let whole = match parse_csplib(&origin, &text, None) {
                    Ok(p) => p,
                    Err(e) => return self.broken(Id::file(path), e),
                };
                if !plain_matches(&whole) {
                    return Ok(());
                }
                match selection.first {
                    None => self.keep(Id::file(path), whole),
                    Some(_) => match parse_csplib(&origin, &text, selection.first) {
                        Ok(p) => self.keep(Id::file(path), p),
                        Err(e) => self.broken(Id::file(path), e),
                    },
                }
            }
            Format::Single if looks_like_json(&text) => {
                let record = match json_value(&text, 1) {
                    Ok(record) => record,
                    Err(m) => return self.broken(Id::file(path), Error::input(&origin, m)),
                };
                let id = json_id(&record).map_or_else(|| Id::file(path), Id::record);
                match from_record(record, selection, &id.base) {
                    Ok(Some(problem)) => self.keep(id, problem),
                    Ok(None) => Ok(()),
                    Err(e) => self.broken(id, e.in_input(&origin)),
                }
            }
            Format::Single => {
                let problem = match parse(&origin, &text) {
                    Ok(p) => p,
                    Err(e) => return self.broken(Id::file(path), e),
                };
                if !plain_matches(&problem) {
                    return Ok(());
                }
                if selection.first.is_some() {
                    return self.broken(
                        Id::file(path),
                        Error::input(
                            &origin,
                            "--first needs an ordered list of diagonals or queens (JSON, JSON \
                             lines or a CSPLib parameter file), not a text grid",
                        ),
                    );
                }
                self.keep(Id::file(path), problem)
            }
        }
    }
}

fn is_hidden(p: &Path) -> bool {
    p.file_name()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s.starts_with('.'))
}

/// Why a folder entry cannot be looked at, saying where a dangling symbolic link points.
fn unreadable_entry(path: &Path, e: std::io::Error) -> Error {
    match std::fs::read_link(path) {
        Ok(target) => Error::input(
            &path.display().to_string(),
            format!(
                "symbolic link to {}, which cannot be read: {e}",
                target.display()
            ),
        ),
        Err(_) => io(path, e),
    }
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

/// The problem a JSON record describes, if the selection keeps it; errors name the field.
/// A record without `id` is selected on the id it is listed under, and one without `n` on the
/// size its other fields give (a region map's), as the table shows them.
fn from_record(
    mut record: Value,
    selection: &Selection,
    listed_id: &str,
) -> Result<Option<Problem>, JsonError> {
    if !record.is_object() {
        return Err(not_an_object(&record).into());
    }
    let lookup = |field: &str| match (field, record.get(field)) {
        (_, Some(v)) => Some(v.clone()),
        ("id", None) => Some(Value::String(listed_id.to_string())),
        ("n", None) => problem_from_json(&record).ok().map(|p| p.n().into()),
        _ => None,
    };
    if !selection.matches(lookup) {
        return Ok(None);
    }
    if let Some(d) = selection.first {
        truncate(&mut record, d)?;
    }
    problem_from_json(&record).map(Some)
}

/// Keeps the first `d` entries of a record's diagonal list and fixed queens. An empty list is
/// left alone (prob079's excluded-diagonal records carry `"queens": []`); a list that is not
/// empty must have at least `d` entries, so a prefix never silently means the whole list.
fn truncate(record: &mut Value, d: usize) -> Result<(), JsonError> {
    let mut any = false;
    for field in ["diags", "queens"] {
        if let Some(Value::Array(list)) = record.get_mut(field) {
            if list.len() >= d {
                list.truncate(d);
                any = true;
            } else if !list.is_empty() {
                return Err(JsonError {
                    field: Some(field.into()),
                    message: format!("--first {d} asks for more than its {} entries", list.len()),
                });
            }
        }
    }
    if any {
        Ok(())
    } else {
        Err(format!(
            "--first {d}: the record has no `diags` or `queens` entries to take a prefix of"
        )
        .into())
    }
}

fn json_id(record: &Value) -> Option<String> {
    match record.get("id")? {
        Value::String(s) => Some(s.clone()),
        v => Some(v.to_string()),
    }
}
