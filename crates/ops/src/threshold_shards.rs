//! Shards of a threshold round: `threshold --k K --shard I/N` walks only the first queens
//! whose index in the walk's list ([`first_queens`]) is `I` modulo `N` and writes its cover
//! with a shard record instead of the claim; [`merge`] puts the covers of all `N` shards of
//! one `(n, k)` together into one certificate, which `threshold check` checks like any other
//! (it walks every placement again, so a merge can add nothing it would accept wrongly).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::shard::Shard;
use queens_model::error::Error;
use queens_proof::threshold::certificate::{
    claim_text, cover_text, read_cover, CLAIM, COUNTEREXAMPLE, COVER,
};
use queens_proof::threshold::walk::{first_queens, Witnesses};

/// The shard record's file name (in place of the claim in a shard's certificate).
pub const SHARD_RECORD: &str = "shard.json";

/// How a round is cut: by the first queen's index in the walk's list, modulo the shards.
pub const SCHEME: &str = "first-queen-mod-v1";

/// A shard certificate's record: which round, which part of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardRecord {
    /// Board size.
    pub n: usize,
    /// The round: placements of at most `k` queens.
    pub k: usize,
    /// Which shard of how many.
    pub shard: Shard,
    /// How the round was cut ([`SCHEME`]).
    pub scheme: String,
    /// First queens this shard walked.
    pub first_queens: usize,
    /// First queens of the whole round.
    pub all_first_queens: usize,
}

impl ShardRecord {
    /// The record of shard `shard` of the round `k` on the `n`×`n` board.
    pub fn new(n: usize, k: usize, shard: Shard) -> ShardRecord {
        let all = first_queens(n).len();
        ShardRecord {
            n,
            k,
            shard,
            scheme: SCHEME.into(),
            first_queens: (0..all).filter(|&i| shard.owns_part(i)).count(),
            all_first_queens: all,
        }
    }

    /// The record as its file holds it.
    pub fn text(&self) -> String {
        let mut text = serde_json::to_string(self).expect("a record serializes");
        text.push('\n');
        text
    }
}

/// What a merge put together.
#[derive(Clone, Debug)]
pub struct Merged {
    /// Board size.
    pub n: usize,
    /// Every placement of at most `k` queens lies in the merged cover (the check shows it).
    pub k: usize,
    /// Shards merged.
    pub shards: usize,
    /// Cover lines read from the shards, in all.
    pub lines_read: usize,
    /// Distinct solutions up to symmetry: the merged cover's lines.
    pub solutions: usize,
    /// The certificate's files: the claim and the cover.
    pub files: Vec<(String, Vec<u8>)>,
}

fn read(path: PathBuf) -> Result<String, Error> {
    std::fs::read_to_string(&path).map_err(|source| Error::Io { path, source })
}

/// Reads a shard certificate's record, refusing a folder that is no shard or whose shard
/// found a placement with no completion.
fn read_record(dir: &Path) -> Result<ShardRecord, Error> {
    let path = dir.join(SHARD_RECORD);
    let origin = path.display().to_string();
    if !path.exists() {
        return Err(Error::input(
            &origin,
            "no shard record: not a shard certificate (`queens threshold --k K --shard I/N \
             --certificate DIR` writes one)",
        ));
    }
    let record: ShardRecord = serde_json::from_str(&read(path)?)
        .map_err(|e| Error::input(&origin, format!("not a shard record: {e}")))?;
    Shard::new(record.shard.index, record.shard.of)
        .map_err(|e| Error::input_at_field(&origin, "shard", e))?;
    if record.scheme != SCHEME {
        return Err(Error::input_at_field(
            &origin,
            "scheme",
            format!("`{}` is not `{SCHEME}`", record.scheme),
        ));
    }
    if dir.join(COUNTEREXAMPLE).exists() {
        return Err(Error::input(
            &dir.join(COUNTEREXAMPLE).display().to_string(),
            format!(
                "shard {} found a placement of at most {} queens with no completion (with \
                 its proof beside): not every such placement completes, and there is no \
                 cover to merge",
                record.shard, record.k
            ),
        ));
    }
    Ok(record)
}

/// Merges the shard certificates in `dirs`: every shard of one round (same `n`, `k` and
/// number of shards) must be there, else the error names the ones missing; a shard given
/// twice adds nothing. Each cover line is checked by the verifier as it is read; the merged
/// cover holds each solution once, up to symmetry.
pub fn merge(dirs: &[PathBuf]) -> Result<Merged, Error> {
    let Some(first) = dirs.first() else {
        return Err(Error::unsupported_at_field(
            "dirs",
            "give the shard certificates to merge",
        ));
    };
    let head = read_record(first)?;
    let head_origin = first.join(SHARD_RECORD).display().to_string();
    let mut seen = BTreeSet::new();
    let mut witnesses = Witnesses::new(head.n);
    let mut lines_read = 0;
    for dir in dirs {
        let record = read_record(dir)?;
        let origin = dir.join(SHARD_RECORD).display().to_string();
        for (field, got, want) in [
            ("n", record.n, head.n),
            ("k", record.k, head.k),
            ("shard.of", record.shard.of, head.shard.of),
        ] {
            if got != want {
                return Err(Error::input_at_field(
                    &origin,
                    field,
                    format!("{got}, but {head_origin} has {want}: not shards of one round"),
                ));
            }
        }
        seen.insert(record.shard.index);
        let cover = dir.join(COVER);
        let cover_origin = cover.display().to_string();
        let text = read(cover)?;
        let read = match read_cover(&cover_origin, &text, head.n)? {
            Ok(w) => w,
            Err(why) => return Err(Error::input(&cover_origin, why)),
        };
        for s in read.solutions() {
            lines_read += 1;
            witnesses.add(s);
        }
    }
    let missing: Vec<String> = (0..head.shard.of)
        .filter(|i| !seen.contains(i))
        .map(|i| format!("{i}/{}", head.shard.of))
        .collect();
    if !missing.is_empty() {
        let given: Vec<String> = seen
            .iter()
            .map(|i| format!("{i}/{}", head.shard.of))
            .collect();
        return Err(Error::input(
            &head_origin,
            format!(
                "shard{} {} of n = {}, k = {} missing (given: {}): a cover without them \
                 leaves their placements out",
                if missing.len() == 1 { " is" } else { "s are" },
                missing.join(", "),
                head.n,
                head.k,
                given.join(", ")
            ),
        ));
    }
    Ok(Merged {
        n: head.n,
        k: head.k,
        shards: seen.len(),
        lines_read,
        solutions: witnesses.solutions().len(),
        files: vec![
            (CLAIM.into(), claim_text(head.n, head.k).into_bytes()),
            (COVER.into(), cover_text(witnesses.solutions()).into_bytes()),
        ],
    })
}
