//! Putting shards back together: batch result files into one result per instance, and count
//! shards into one count.
//!
//! A merge never guesses. Batch results are deduplicated by content hash; two answers that
//! contradict each other (one shard says `sat`, another `unsat` for the same instance) are
//! reported as conflicts, and instances with no result (a shard not run yet, a run cut
//! short) are listed as missing. Count shards are summed only when every shard of one count
//! is there, finished, made by one splitting scheme: anything else is refused with what is
//! wrong, since a partial sum looks exactly like an answer.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::batch_file::{BatchHeader, BatchLine, Member, BATCH_FORMAT};
use crate::shard::ShardInfo;
use queens_model::error::Error;
use queens_model::status::Status;

/// One file given to `queens merge`, read.
#[derive(Clone, Debug)]
pub enum ShardFile {
    /// A batch shard file: its header and result lines.
    Batch {
        /// The file's name, for messages.
        origin: String,
        /// Its header line.
        header: BatchHeader,
        /// Its results.
        lines: Vec<BatchLine>,
    },
    /// One or more count shards (`queens count --shard … --json` output).
    Count {
        /// The file's name, for messages.
        origin: String,
        /// The shards it holds.
        shards: Vec<CountShard>,
    },
}

/// What a count shard's JSON holds that a merge needs (the rest of the count's JSON is
/// ignored).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CountShard {
    /// `sat` or `unsat` for a finished shard.
    pub status: Status,
    /// This shard's count.
    pub count: u64,
    /// This shard's count up to symmetry, when it was asked for and is defined.
    #[serde(default)]
    pub unique: Option<u64>,
    /// Board size.
    pub n: usize,
    /// Wall time of the shard, milliseconds.
    pub time_ms: f64,
    /// Which shard, of which count, cut how.
    pub shard: ShardInfo,
}

/// Reads a file given to `queens merge` (or `-` for stdin, as `origin`).
pub fn read(path: &Path) -> Result<ShardFile, Error> {
    let (origin, text) = queens_model::formats::read_text(path)?;
    parse(&origin, &text)
}

/// Parses a batch shard file or count shard output; errors name the file and line.
pub fn parse(origin: &str, text: &str) -> Result<ShardFile, Error> {
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    loop {
        let at = stream.byte_offset();
        match stream.next() {
            None => break,
            Some(Ok(v)) => values.push((line_of(text, at), v)),
            Some(Err(e)) => {
                return Err(Error::input(
                    origin,
                    format!(
                        "line {}: not JSON ({e}); a shard cut short by a crash is re-run, \
                         not merged",
                        e.line()
                    ),
                ))
            }
        }
    }
    let Some((_, first)) = values.first() else {
        return Err(Error::input(origin, "empty: no shard in it"));
    };
    if first.get("format").is_some() {
        let mut it = values.into_iter();
        let (line, head) = it.next().expect("not empty");
        let header: BatchHeader = from_value(origin, line, head)?;
        if header.format != BATCH_FORMAT {
            return Err(Error::input_at_line_and_field(
                origin,
                line,
                "format",
                format!("`{}` is not `{BATCH_FORMAT}`", header.format),
            ));
        }
        let lines = it
            .map(|(line, v)| from_value(origin, line, v))
            .collect::<Result<Vec<BatchLine>, _>>()?;
        return Ok(ShardFile::Batch {
            origin: origin.to_string(),
            header,
            lines,
        });
    }
    if first.get("shard").is_some() {
        let shards = values
            .into_iter()
            .map(|(line, v)| from_value(origin, line, v))
            .collect::<Result<Vec<CountShard>, _>>()?;
        return Ok(ShardFile::Count {
            origin: origin.to_string(),
            shards,
        });
    }
    Err(Error::input(
        origin,
        "line 1: neither a batch shard file (`queens batch -o`, first line with `format`) nor \
         a count shard (`queens count --shard … --json`, with `shard`)",
    ))
}

fn line_of(text: &str, offset: usize) -> usize {
    let skipped = text[offset..].len() - text[offset..].trim_start().len();
    text[..offset + skipped].matches('\n').count() + 1
}

fn from_value<T: for<'de> Deserialize<'de>>(
    origin: &str,
    line: usize,
    v: Value,
) -> Result<T, Error> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            Error::input_at_line(origin, line, inner)
        } else {
            Error::input_at_line_and_field(origin, line, path, inner)
        }
    })
}

/// Batch results merged.
#[derive(Clone, Debug, Serialize)]
pub struct BatchMerge {
    /// Instances in the whole set.
    pub total: usize,
    /// Shards the set was cut into.
    pub shards: usize,
    /// Shards with no file among the inputs.
    pub missing_shards: Vec<usize>,
    /// One result per distinct instance content, sorted by position in the inputs: an
    /// answer where any shard has one.
    #[serde(skip)]
    pub lines: Vec<BatchLine>,
    /// How many merged results ended each way.
    pub outcomes: BTreeMap<Status, usize>,
    /// Instances of the shards given that have no result line.
    pub missing: Vec<Member>,
    /// Instances in shards with no file (their ids are only in those shards' headers).
    pub missing_in_absent_shards: usize,
    /// Result lines dropped because another line has the same content hash.
    pub duplicates: usize,
    /// Instances answered `sat` in one place and `unsat` in another.
    pub conflicts: Vec<Conflict>,
}

impl BatchMerge {
    /// True when every instance has a result and no two results contradict each other.
    pub fn complete(&self) -> bool {
        self.missing_shards.is_empty() && self.missing.is_empty() && self.conflicts.is_empty()
    }
}

/// Two answers that contradict each other for one instance content.
#[derive(Clone, Debug, Serialize)]
pub struct Conflict {
    /// The content hash.
    pub hash: String,
    /// The ids and answers that disagree.
    pub answers: Vec<(String, Status)>,
}

/// Merges batch shard files of one instance set.
pub fn merge_batch(files: &[ShardFile]) -> Result<BatchMerge, Error> {
    let mut set: Option<(&str, &BatchHeader)> = None;
    let mut present = BTreeSet::new();
    let mut members: BTreeMap<usize, Member> = BTreeMap::new();
    let mut all: Vec<&BatchLine> = Vec::new();
    for file in files {
        let ShardFile::Batch {
            origin,
            header,
            lines,
        } = file
        else {
            return Err(Error::unsupported(
                "batch shard files and count shards cannot be merged together".into(),
            ));
        };
        match set {
            None => set = Some((origin, header)),
            Some((first, h)) => {
                if (h.set.as_str(), h.shard.of) != (header.set.as_str(), header.shard.of) {
                    return Err(Error::input(
                        origin,
                        format!(
                            "line 1: shard {} of another run than {first} (shard {}): the \
                             instance set (`set`) or the number of shards differs",
                            header.shard, h.shard
                        ),
                    ));
                }
            }
        }
        present.insert(header.shard.index);
        for m in &header.members {
            if !header.shard.owns(&m.hash) {
                return Err(Error::input(
                    origin,
                    format!(
                        "line 1: instance `{}` is listed in shard {} but its hash belongs \
                         to another shard",
                        m.id, header.shard
                    ),
                ));
            }
            members.insert(m.index, m.clone());
        }
        all.extend(lines);
    }
    let (_, header) = set.ok_or_else(|| Error::unsupported("no file to merge".into()))?;
    let missing_shards: Vec<usize> = (0..header.shard.of)
        .filter(|i| !present.contains(i))
        .collect();

    // Best line per content hash: an answer beats a timeout beats an error; among answers,
    // a proven one, then the first by position. Contradicting answers are conflicts.
    let rank = |o: Status| match o {
        Status::Sat | Status::Unsat => 0,
        Status::Timeout => 1,
        _ => 2,
    };
    let mut best: HashMap<&str, &BatchLine> = HashMap::new();
    let mut answers: HashMap<&str, BTreeSet<(String, Status)>> = HashMap::new();
    for line in &all {
        if line.status.answer().is_some() {
            answers
                .entry(&line.hash)
                .or_default()
                .insert((line.id.clone(), line.status));
        }
        best.entry(&line.hash)
            .and_modify(|b| {
                // Among answers, one that carries its proof first.
                let key = |l: &BatchLine| (rank(l.status), l.proof.is_none(), l.index);
                if key(line) < key(b) {
                    *b = line;
                }
            })
            .or_insert(line);
    }
    let mut conflicts: Vec<Conflict> = answers
        .into_iter()
        .filter(|(_, a)| {
            a.iter().any(|x| x.1 == Status::Sat) && a.iter().any(|x| x.1 == Status::Unsat)
        })
        .map(|(hash, a)| Conflict {
            hash: hash.to_string(),
            answers: a.into_iter().collect(),
        })
        .collect();
    conflicts.sort_by(|a, b| a.hash.cmp(&b.hash));
    let duplicates = all.len() - best.len();
    let mut lines: Vec<BatchLine> = best.into_values().cloned().collect();
    lines.sort_by_key(|l| l.index);
    let answered: BTreeSet<&str> = lines.iter().map(|l| l.hash.as_str()).collect();
    let missing: Vec<Member> = members
        .values()
        .filter(|m| !answered.contains(m.hash.as_str()))
        .cloned()
        .collect();
    let mut outcomes = BTreeMap::new();
    for l in &lines {
        *outcomes.entry(l.status).or_insert(0) += 1;
    }
    Ok(BatchMerge {
        total: header.total,
        shards: header.shard.of,
        missing_in_absent_shards: header.total.saturating_sub(members.len()),
        missing_shards,
        lines,
        outcomes,
        missing,
        duplicates,
        conflicts,
    })
}

/// Count shards summed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CountMerge {
    /// `sat` (a positive count) or `unsat` (none).
    pub status: Status,
    /// The whole count.
    pub count: u64,
    /// The whole count up to symmetry, when every shard has it.
    pub unique: Option<u64>,
    /// Board size.
    pub n: usize,
    /// Shards summed.
    pub shards: usize,
    /// How the count was cut.
    pub scheme: String,
    /// The content hash of the instance counted.
    pub instance: String,
    /// Subproblems over all shards.
    pub tasks: u64,
    /// The shards' times added up, milliseconds (CPU-side work, not wall time).
    pub shard_time_ms: f64,
}

/// Sums the count shards of one count: refused unless every shard of it is there exactly
/// once (a shard given twice must say the same), finished, and cut by one scheme.
pub fn merge_counts(files: &[ShardFile]) -> Result<CountMerge, Error> {
    let mut first: Option<(&str, &CountShard)> = None;
    let mut by_index: BTreeMap<usize, (&str, &CountShard)> = BTreeMap::new();
    for file in files {
        let ShardFile::Count { origin, shards } = file else {
            return Err(Error::unsupported(
                "batch shard files and count shards cannot be merged together".into(),
            ));
        };
        for s in shards {
            let key = |c: &CountShard| {
                (
                    c.shard.instance.clone(),
                    c.shard.scheme.clone(),
                    c.shard.of,
                    c.shard.all_tasks,
                    c.n,
                )
            };
            if let Some((o, f)) = first {
                if key(f) != key(s) {
                    return Err(Error::input(
                        origin,
                        format!(
                            "shard {}/{} is of another count than {o} (shard {}/{}): the \
                             instance, the number of shards or the splitting scheme differs \
                             ({} {} vs {} {})",
                            s.shard.index,
                            s.shard.of,
                            f.shard.index,
                            f.shard.of,
                            s.shard.scheme,
                            s.shard.instance,
                            f.shard.scheme,
                            f.shard.instance
                        ),
                    ));
                }
            } else {
                first = Some((origin, s));
            }
            if s.shard.index >= s.shard.of {
                return Err(Error::input_at_field(
                    origin,
                    "shard.index",
                    format!("{} is not below `shard.of` = {}", s.shard.index, s.shard.of),
                ));
            }
            if s.status.answer().is_none() {
                return Err(Error::input(
                    origin,
                    format!(
                        "shard {}/{} did not finish (status `{}`): re-run it before merging",
                        s.shard.index, s.shard.of, s.status
                    ),
                ));
            }
            if let Some((o, had)) = by_index.get(&s.shard.index) {
                if (had.count, had.unique, had.shard.tasks) != (s.count, s.unique, s.shard.tasks) {
                    return Err(Error::internal(format!(
                        "shard {}/{} was counted twice with different results: {} in {o}, \
                         {} in {origin}",
                        s.shard.index, s.shard.of, had.count, s.count
                    )));
                }
            }
            by_index.insert(s.shard.index, (origin, s));
        }
    }
    let (_, f) = first.ok_or_else(|| Error::unsupported("no count shard to merge".into()))?;
    let missing: Vec<String> = (0..f.shard.of)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        let shown = if missing.len() > 20 {
            format!("{} … ({} in all)", missing[..20].join(", "), missing.len())
        } else {
            missing.join(", ")
        };
        return Err(Error::unsupported(format!(
            "incomplete: {} of {} shards are missing (shard {shown}); a partial sum is not a \
             count, so nothing is printed",
            missing.len(),
            f.shard.of
        )));
    }
    let count: u64 = by_index.values().map(|(_, s)| s.count).sum();
    let tasks: u64 = by_index.values().map(|(_, s)| s.shard.tasks).sum();
    if tasks != f.shard.all_tasks {
        return Err(Error::internal(format!(
            "the shards hold {tasks} subproblems but the count has {}",
            f.shard.all_tasks
        )));
    }
    let unique = by_index
        .values()
        .map(|(_, s)| s.unique)
        .sum::<Option<u64>>();
    Ok(CountMerge {
        status: if count > 0 {
            Status::Sat
        } else {
            Status::Unsat
        },
        count,
        unique,
        n: f.n,
        shards: f.shard.of,
        scheme: f.shard.scheme.clone(),
        instance: f.shard.instance.clone(),
        tasks,
        shard_time_ms: by_index.values().map(|(_, s)| s.time_ms).sum(),
    })
}
