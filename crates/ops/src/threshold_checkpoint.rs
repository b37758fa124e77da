//! A threshold run's checkpoint (`queens threshold --checkpoint DIR`): one file,
//! [`CHECKPOINT`], whose first line is a JSON record of the run's arguments and of the point
//! reached (round, walk, first queens finished, the search's seed, the walks finished), and
//! whose other lines are the cover lines found so far, in the order found. It is written to a
//! temporary name, synced and renamed, so a run killed at any moment leaves the last whole
//! checkpoint; a run started again with the same arguments resumes from it
//! ([`queens_engine::threshold::threshold_resumable`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::shard::Shard;
use queens_engine::threshold::{regions, Keep, Resume, Round, Saved};
use queens_model::error::Error;
use queens_proof::threshold::certificate::read_cover;
use queens_proof::threshold::walk::{first_queens, WalkStats};

/// The checkpoint's file name in its folder.
pub const CHECKPOINT: &str = "threshold-checkpoint.txt";

const FORMAT: u32 = 1;

/// A finished walk, as the checkpoint records it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoundRecord {
    k: usize,
    /// Index in the round's walks ([`regions`]).
    region: usize,
    placements: u64,
    smaller: u64,
    uncovered: u64,
    left: u64,
    searched: u64,
    witnesses: usize,
    #[serde(default)]
    bytes: usize,
    ms: f64,
}

/// The checkpoint's first line.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    format: u32,
    /// The run's arguments.
    n: usize,
    k: Option<usize>,
    shard: Option<Shard>,
    /// The point reached: round, walk, first queens of that walk finished.
    round: usize,
    region: usize,
    first_queens_done: u64,
    /// Of the next first queen, the second queen's rows above this one are finished too.
    #[serde(default)]
    second_queen_row: usize,
    seed: u64,
    searched: u64,
    /// Searches before the walk reached began.
    began: u64,
    /// Cover lines below.
    solutions: usize,
    rounds: Vec<RoundRecord>,
}

/// The checkpoint folder of one run.
pub struct Checkpoint {
    path: PathBuf,
    n: usize,
    k: Option<usize>,
    shard: Option<Shard>,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Checkpoint {
    /// The checkpoint in `dir` of the run of `n`, `k` and `shard` (the folder is made).
    pub fn open(
        dir: &Path,
        n: usize,
        k: Option<usize>,
        shard: Option<Shard>,
    ) -> Result<Checkpoint, Error> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        Ok(Checkpoint {
            path: dir.join(CHECKPOINT),
            n,
            k,
            shard,
        })
    }

    /// The point saved, if the folder holds one; a checkpoint of other arguments, or a
    /// damaged one, is an error naming the file.
    pub fn load(&self) -> Result<Option<Resume>, Error> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&self.path)(e)),
        };
        let origin = self.path.display().to_string();
        let (head, body) = text.split_once('\n').unwrap_or((&text, ""));
        let h: Header = serde_json::from_str(head).map_err(|e| {
            Error::input_at_line(&origin, 1, format!("not a threshold checkpoint: {e}"))
        })?;
        if h.format != FORMAT {
            return Err(Error::input_at_field(
                &origin,
                "format",
                format!("{}, not {FORMAT}", h.format),
            ));
        }
        let show = |k: Option<usize>, s: Option<Shard>| {
            let mut t = k.map_or(String::new(), |k| format!(", k = {k}"));
            if let Some(s) = s {
                t.push_str(&format!(", shard {s}"));
            }
            t
        };
        if (h.n, h.k, h.shard) != (self.n, self.k, self.shard) {
            return Err(Error::input(
                &origin,
                format!(
                    "the checkpoint of another run: n = {}{}, not n = {}{} (name another \
                     folder, or delete the file to start over)",
                    h.n,
                    show(h.k, h.shard),
                    self.n,
                    show(self.k, self.shard)
                ),
            ));
        }
        let walks = regions(h.n, h.round).len();
        let firsts = first_queens(h.n).len() as u64;
        if h.round > h.n
            || h.k.is_some_and(|k| k != h.round)
            || h.region > walks
            || h.first_queens_done > firsts
            || (h.region == walks && h.first_queens_done > 0)
            || h.second_queen_row >= h.n
            || (h.second_queen_row > 0 && (h.round < 3 || h.first_queens_done >= firsts))
            || h.began > h.searched
        {
            return Err(Error::input(
                &origin,
                format!(
                    "round {}, walk {}, {} first queens done: no such point of a run of n = {} \
                     (a damaged checkpoint: delete it to start over)",
                    h.round, h.region, h.first_queens_done, h.n
                ),
            ));
        }
        // A blank first line keeps the cover's line numbers those of the file.
        let witnesses = match read_cover(&origin, &format!("\n{body}"), h.n)? {
            Ok(w) => w,
            Err(why) => return Err(Error::input(&origin, why)),
        };
        if witnesses.solutions().len() != h.solutions {
            return Err(Error::input_at_field(
                &origin,
                "solutions",
                format!(
                    "{} cover lines, but the file holds {} distinct ones (a damaged \
                     checkpoint: delete it to start over)",
                    h.solutions,
                    witnesses.solutions().len()
                ),
            ));
        }
        let mut rounds = Vec::new();
        for r in &h.rounds {
            let Some(&region) = regions(h.n, r.k).get(r.region) else {
                return Err(Error::input_at_field(
                    &origin,
                    "rounds",
                    format!("round k = {} has no walk {}", r.k, r.region),
                ));
            };
            rounds.push(Round {
                k: r.k,
                region,
                stats: WalkStats {
                    placements: r.placements,
                    smaller: r.smaller,
                    uncovered: r.uncovered,
                    left: r.left,
                },
                searched: r.searched,
                witnesses: r.witnesses,
                bytes: r.bytes,
                ms: r.ms,
            });
        }
        Ok(Some(Resume {
            k: h.round,
            region: h.region,
            done: h.first_queens_done,
            row: h.second_queen_row,
            seed: h.seed,
            searched: h.searched,
            began: h.began,
            witnesses,
            rounds,
        }))
    }
}

impl Keep for Checkpoint {
    fn save(&mut self, at: &Saved<'_>) -> Result<(), Error> {
        let header = Header {
            format: FORMAT,
            n: self.n,
            k: self.k,
            shard: self.shard,
            round: at.k,
            region: at.region,
            first_queens_done: at.done,
            second_queen_row: at.row,
            seed: at.seed,
            searched: at.searched,
            began: at.began,
            solutions: at.solutions.len(),
            rounds: at
                .rounds
                .iter()
                .map(|r| RoundRecord {
                    k: r.k,
                    region: regions(self.n, r.k)
                        .iter()
                        .position(|&x| x == r.region)
                        .unwrap_or(0),
                    placements: r.stats.placements,
                    smaller: r.stats.smaller,
                    uncovered: r.stats.uncovered,
                    left: r.stats.left,
                    searched: r.searched,
                    witnesses: r.witnesses,
                    bytes: r.bytes,
                    ms: r.ms,
                })
                .collect(),
        };
        let mut head = serde_json::to_string(&header).expect("a header serializes");
        head.push('\n');
        let tmp = self.path.with_extension("tmp");
        {
            // Streamed: a cover of millions of lines is not built in memory first.
            let f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            w.write_all(head.as_bytes()).map_err(io(&tmp))?;
            let mut line = String::new();
            for s in at.solutions.iter() {
                line.clear();
                for (i, c) in s.iter().enumerate() {
                    if i > 0 {
                        line.push(' ');
                    }
                    line.push_str(&c.to_string());
                }
                line.push('\n');
                w.write_all(line.as_bytes()).map_err(io(&tmp))?;
            }
            let f = w.into_inner().map_err(|e| io(&tmp)(e.into_error()))?;
            f.sync_all().map_err(io(&tmp))?;
        }
        std::fs::rename(&tmp, &self.path).map_err(io(&self.path))
    }
}
