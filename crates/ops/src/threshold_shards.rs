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
    check_certificate_part, claim_text, cover_bin, cover_path, cover_text, read_claim,
    read_cover_file, Accepted, Verdict, CLAIM, COUNTEREXAMPLE, COVER, COVER_BIN,
};
use queens_proof::threshold::walk::{first_queens, WalkStats, Witnesses};

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
/// cover holds each solution once, up to symmetry, as `cover.bin` when `binary`, else
/// `cover.txt`.
pub fn merge(dirs: &[PathBuf], binary: bool) -> Result<Merged, Error> {
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
        let cover = cover_path(dir);
        let cover_origin = cover.display().to_string();
        let read = match read_cover_file(&cover, head.n)? {
            Ok(w) => w,
            Err(why) => return Err(Error::input(&cover_origin, why)),
        };
        for s in read.solutions().iter() {
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
            if binary {
                (COVER_BIN.into(), cover_bin(witnesses.solutions()))
            } else {
                (COVER.into(), cover_text(witnesses.solutions()).into_bytes())
            },
        ],
    })
}

/// The record of one part of a certificate's check (`queens threshold check DIR --shard
/// I/N`), written beside the certificate as [`check_record_name`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRecord {
    /// The claim checked.
    pub n: usize,
    /// The claim's `k`.
    pub k: usize,
    /// Which part of the walk.
    pub shard: Shard,
    /// SHA-256 of the cover file checked (hex).
    pub cover_sha256: String,
    /// Placements of `k` queens walked in this part, and smaller ones.
    pub placements: u64,
    /// Smaller placements walked in this part.
    pub smaller: u64,
    /// Lines of the cover, and witnesses with their images.
    pub solutions: usize,
    /// Witnesses with their images.
    pub witnesses: usize,
    /// Part 0 also checked the counterexample and its proof (lemmas).
    pub exact: bool,
    /// Lemmas of the proof checked (part 0).
    pub lemmas: u64,
}

/// The file name of part `shard`'s check record.
pub fn check_record_name(shard: Shard) -> String {
    format!("check-{}-of-{}.json", shard.index, shard.of)
}

/// SHA-256 of a file, hex.
pub fn sha256_file(path: &Path) -> Result<String, Error> {
    use sha2::Digest;
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(format!("{:x}", sha2::Sha256::digest(&bytes)))
}

/// Checks part `shard` of the certificate in `dir`
/// ([`queens_proof::threshold::certificate::check_certificate_part`]) and, when accepted,
/// its record (written by the caller beside the certificate).
pub fn check_part(dir: &Path, shard: Shard) -> Result<(Verdict, Option<CheckRecord>), Error> {
    // A claim of a bound only has no cover to share out: refused, naming the whole check.
    read_claim(dir)?;
    let sha = sha256_file(&cover_path(dir))?;
    let verdict = check_certificate_part(dir, (shard.index, shard.of))?;
    let record = match &verdict {
        Verdict::Accepted(a) => Some(CheckRecord {
            n: a.n,
            k: a.k,
            shard,
            cover_sha256: sha,
            placements: a.walk.placements,
            smaller: a.walk.smaller,
            solutions: a.solutions,
            witnesses: a.witnesses,
            exact: a.exact,
            lemmas: a.lemmas,
        }),
        Verdict::Rejected(_) => None,
    };
    Ok((verdict, record))
}

/// Puts the records of all `parts` parts of the check of `dir` together: accepted when every
/// part's record is there, of the claim and the cover the folder holds now; the placements
/// are the parts' sums. A part missing is an error naming it.
pub fn merge_checks(dir: &Path, parts: usize) -> Result<Verdict, Error> {
    let (n, k) = read_claim(dir)?;
    let cover = cover_path(dir);
    let sha = sha256_file(&cover)?;
    let mut total = Accepted {
        n,
        k,
        exact: false,
        covered: true,
        solutions: 0,
        witnesses: 0,
        walk: WalkStats::default(),
        lemmas: 0,
    };
    let mut missing = Vec::new();
    for index in 0..parts {
        let shard =
            Shard::new(index, parts).map_err(|e| Error::unsupported_at_field("parts", e))?;
        let path = dir.join(check_record_name(shard));
        if !path.exists() {
            missing.push(format!("{shard}"));
            continue;
        }
        let origin = path.display().to_string();
        let r: CheckRecord = serde_json::from_str(&read(path)?)
            .map_err(|e| Error::input(&origin, format!("not a check record: {e}")))?;
        if (r.n, r.k, r.shard) != (n, k, shard) {
            return Err(Error::input(
                &origin,
                format!(
                    "the check of n = {}, k = {}, part {}, not of n = {n}, k = {k}, part {shard}",
                    r.n, r.k, r.shard
                ),
            ));
        }
        if r.cover_sha256 != sha {
            return Ok(Verdict::Rejected(format!(
                "{origin}: checked a cover of SHA-256 {}, but {} is {sha} now",
                r.cover_sha256,
                cover.display()
            )));
        }
        total.walk.placements += r.placements;
        total.walk.smaller += r.smaller;
        total.solutions = r.solutions;
        total.witnesses = r.witnesses;
        if index == 0 {
            total.exact = r.exact;
            total.lemmas = r.lemmas;
        }
    }
    if !missing.is_empty() {
        return Err(Error::input(
            &dir.display().to_string(),
            format!(
                "no check record of part{} {} (`queens threshold check {} --shard I/{parts}` \
                 writes one)",
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                dir.display()
            ),
        ));
    }
    if dir.join(COUNTEREXAMPLE).exists() && !total.exact {
        return Ok(Verdict::Rejected(format!(
            "{}: the counterexample was not checked by part 0",
            dir.display()
        )));
    }
    Ok(Verdict::Accepted(total))
}
