//! `threshold`: the n-queens completion threshold (OEIS A374013), the largest `k` such that
//! every non-attacking placement of at most `k` queens completes, with its certificate (a
//! cover by solutions, a refuted counterexample) as artifacts named by their files in the
//! certificate folder ([`queens_proof::threshold::certificate`]).

use std::time::Instant;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::context::{ms, Artifacts, Context};
use crate::shard::Shard;
use crate::threshold_checkpoint::Checkpoint;
use crate::threshold_shards::{ShardRecord, SHARD_RECORD};
use queens_engine::threshold::{Options, Report};
use queens_model::error::Error;
use queens_model::status::Status;
use queens_proof::threshold::certificate::{
    bound_claim_text, claim_text, cover_bin, cover_text, read_cover_file, CLAIM, COUNTEREXAMPLE,
    COVER, COVER_BIN, PROOF, PROOF_CNF,
};

/// Boards up to this size answer in seconds, so a synchronous call may ask for them.
pub const SYNC_THRESHOLD_N: usize = 12;

/// `threshold`: the completion threshold of the `n`×`n` board, or (with `k`) whether every
/// placement of at most `k` queens completes.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ThresholdRequest {
    /// Board size (4..=64).
    pub n: usize,
    /// Ask only: does every placement of at most `k` queens complete?
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// With `k`: walk only this shard of the round (`{"index": i, "of": n}`), the first
    /// queens whose index in the walk's list is `i` modulo `n`; the certificate then holds
    /// the shard's cover and a shard record (`shard.json`) in place of the claim, for
    /// `queens threshold merge` to put together with the other shards' (docs/threshold.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Also return the certificate (the cover, the claim, and the counterexample with its
    /// LRAT proof and CNF) as artifacts.
    #[serde(default)]
    pub certificate: bool,
    /// Give up after this many milliseconds (`status: "timeout"`, the bound so far).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Command line only: the checkpoint folder; a run saves its progress there and, started
    /// again with the same arguments, resumes from it ([`crate::threshold_checkpoint`]).
    #[serde(skip)]
    pub checkpoint: Option<std::path::PathBuf>,
    /// Command line only: a cover to start from (`cover.txt` or `cover.bin`, e.g. the merged
    /// cover of a smaller round or of other shards); each line is checked by the verifier.
    #[serde(skip)]
    pub seed_cover: Option<std::path::PathBuf>,
    /// Command line only: write the cover as `cover.bin` ([`queens_proof::threshold::certificate::cover_bin`])
    /// instead of `cover.txt`.
    #[serde(skip)]
    pub binary_cover: bool,
}

/// One walk of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ThresholdRound {
    /// Queens.
    pub k: usize,
    /// The cells its placements use: `board`, or where a counterexample is looked for
    /// first (`centre box 2`, `edge band 0 and centre box 3`, …).
    pub region: String,
    /// Placements of `k` queens walked (up to symmetry, about an eighth of all).
    pub placements: u64,
    /// Placements of fewer queens walked.
    pub smaller: u64,
    /// Placements the core search decided (the rest a witness held).
    pub searched: u64,
    /// Witnesses after the walk (solutions with their images).
    pub witnesses: usize,
    /// Bytes the witnesses took after the walk.
    pub witness_bytes: usize,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

/// The counterexample's proof.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ThresholdProof {
    /// Lemmas in the LRAT proof.
    pub lemmas: u64,
    /// Size of the proof (text LRAT), bytes.
    pub bytes: usize,
    /// Size of the CNF it refutes, bytes.
    pub cnf_bytes: usize,
    /// Milliseconds to prove and check it.
    pub time_ms: f64,
}

/// `threshold`'s answer. `status`: `sat` (every placement of at most `lower` queens completes
/// and, without `k`, `counterexample` has none, so `threshold` is exact), `unsat` (with `k`:
/// `counterexample` has no completion), `timeout` or `cancelled` (the bound so far).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ThresholdResponse {
    /// `sat`, `unsat`, `timeout` or `cancelled`.
    pub status: Status,
    /// Board size.
    pub n: usize,
    /// The `k` asked, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// The shard walked, if any: `lower` and `counterexample` are about its placements only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The term `a(n)`, when it is settled.
    pub threshold: Option<usize>,
    /// Every placement of at most this many queens completes.
    pub lower: Option<usize>,
    /// A placement with no completion, as `[[row, col], …]`.
    pub counterexample: Option<Vec<[usize; 2]>>,
    /// Lines of the cover (solutions found; their images are implied).
    pub solutions: usize,
    /// Witnesses (solutions with their images).
    pub witnesses: usize,
    /// Placements the core search decided, in all.
    pub searched: u64,
    /// The walks, in order.
    pub rounds: Vec<ThresholdRound>,
    /// With `certificate` and a counterexample: its proof.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<ThresholdProof>,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

impl ThresholdRequest {
    /// Checks the options before any work.
    pub fn validate(&self) -> Result<(), Error> {
        queens_engine::threshold::check_n(self.n)?;
        if let Some(k) = self.k {
            if k > self.n {
                return Err(Error::unsupported_at_field(
                    "k",
                    format!("{k} queens do not fit on {} rows", self.n),
                ));
            }
        }
        if let Some(s) = self.shard {
            Shard::new(s.index, s.of).map_err(|e| Error::unsupported_at_field("shard", e))?;
            if self.k.is_none() {
                return Err(Error::unsupported_at_field(
                    "shard",
                    "a shard walks one round: give `k` too",
                ));
            }
        }
        Ok(())
    }
}

/// Computes the threshold (or answers `k`), with the certificate as artifacts.
pub fn threshold(
    req: &ThresholdRequest,
    ctx: &Context,
) -> Result<(ThresholdResponse, Artifacts), Error> {
    threshold_reporting(req, ctx, None, None)
}

/// [`threshold`], telling `report` where each walk has got to every `every` (10 s when
/// `None`).
pub fn threshold_reporting(
    req: &ThresholdRequest,
    ctx: &Context,
    report: Option<&(dyn Fn(&Report) + Sync)>,
    every: Option<std::time::Duration>,
) -> Result<(ThresholdResponse, Artifacts), Error> {
    req.validate()?;
    let ctx = &ctx.with_timeout_ms(req.timeout_ms);
    let start = Instant::now();
    let part = req.shard.map_or((0, 1), |s| (s.index, s.of));
    let seed = match &req.seed_cover {
        Some(path) => match read_cover_file(path, req.n)? {
            Ok(w) => Some(w),
            Err(why) => return Err(Error::input(&path.display().to_string(), why)),
        },
        None => None,
    };
    let opts = Options {
        seed,
        report,
        report_every: every,
        max_bytes: ctx.budget.max_memory.map(|m| m as usize),
    };
    let run = match &req.checkpoint {
        Some(dir) => {
            let mut keep = Checkpoint::open(dir, req.n, req.k, req.shard)?;
            let resume = keep.load()?;
            queens_engine::threshold::threshold_resumable(
                req.n,
                req.k,
                part,
                resume,
                Some(&mut keep),
                opts,
                &ctx.budget,
            )?
        }
        None => queens_engine::threshold::threshold_resumable(
            req.n,
            req.k,
            part,
            None,
            None,
            opts,
            &ctx.budget,
        )?,
    };
    if run.full {
        return Err(Error::too_large(format!(
            "the witnesses of n = {} outgrew the memory limit ({} MB){}",
            req.n,
            ctx.budget.max_memory.unwrap_or(0) >> 20,
            if req.checkpoint.is_some() {
                "; the checkpoint is saved: resume with more memory or in shards"
            } else {
                ": run it in shards (`--shard I/N`) or with more memory"
            }
        ))
        .about("shard"));
    }
    let status = if run.interrupted {
        if queens_engine::threshold::stopped() {
            Status::Cancelled
        } else {
            Status::interrupted(&ctx.budget)
        }
    } else if req.k.is_some() && run.counterexample.is_some() {
        Status::Unsat
    } else {
        Status::Sat
    };
    let threshold = match (req.k, &run.counterexample) {
        (None, Some(_)) => run.lower,
        _ => None,
    };
    let mut artifacts = Artifacts::default();
    let mut proof = None;
    if req.certificate && !run.interrupted {
        if let (Some(shard), Some(k)) = (req.shard, req.k) {
            // The record stands in for the claim: a shard's cover holds only its part.
            let record = ShardRecord::new(req.n, k, shard);
            artifacts
                .0
                .push((SHARD_RECORD.into(), record.text().into_bytes()));
        } else if let Some(k) = run.lower {
            artifacts
                .0
                .push((CLAIM.into(), claim_text(req.n, k).into_bytes()));
        }
        if run.lower.is_some() || req.shard.is_some() {
            if req.binary_cover {
                let cover = cover_bin(run.witnesses.solutions());
                artifacts.0.push((COVER_BIN.into(), cover));
            } else {
                let cover = cover_text(run.witnesses.solutions());
                artifacts.0.push((COVER.into(), cover.into_bytes()));
            }
        }
        if let Some(p) = &run.counterexample {
            // With no round walked to a lower bound, the counterexample shows only an
            // upper bound: the claim says `at_most`, with no cover.
            if run.lower.is_none() && req.shard.is_none() {
                let k = p.len().saturating_sub(1);
                artifacts
                    .0
                    .push((CLAIM.into(), bound_claim_text(req.n, k).into_bytes()));
            }
            match queens_engine::threshold::prove_counterexample(req.n, p, &ctx.budget)? {
                Some(cert) => {
                    proof = Some(ThresholdProof {
                        lemmas: cert.lemmas,
                        bytes: cert.lrat.len(),
                        cnf_bytes: cert.cnf.len(),
                        time_ms: cert.ms,
                    });
                    let queens: Vec<String> =
                        p.iter().map(|(r, c)| format!("[{r}, {c}]")).collect();
                    let json = format!(
                        "{{\"n\": {}, \"queens\": [{}]}}\n",
                        req.n,
                        queens.join(", ")
                    );
                    artifacts.0.push((COUNTEREXAMPLE.into(), json.into_bytes()));
                    artifacts.0.push((PROOF.into(), cert.lrat));
                    artifacts.0.push((PROOF_CNF.into(), cert.cnf));
                }
                None => {
                    return Ok((
                        ThresholdResponse {
                            status: Status::interrupted(&ctx.budget),
                            ..response(req, &run, None, None, start)
                        },
                        Artifacts::default(),
                    ))
                }
            }
        }
    }
    let mut resp = response(req, &run, threshold, proof, start);
    resp.status = status;
    Ok((resp, artifacts))
}

/// The answer of a run (status `sat`; the caller sets its own).
fn response(
    req: &ThresholdRequest,
    run: &queens_engine::threshold::Threshold,
    threshold: Option<usize>,
    proof: Option<ThresholdProof>,
    start: Instant,
) -> ThresholdResponse {
    ThresholdResponse {
        status: Status::Sat,
        n: req.n,
        k: req.k,
        shard: req.shard,
        threshold,
        lower: run.lower,
        counterexample: run
            .counterexample
            .as_ref()
            .map(|p| p.iter().map(|&(r, c)| [r, c]).collect()),
        solutions: run.witnesses.solutions().len(),
        witnesses: run.witnesses.len(),
        searched: run.rounds.iter().map(|r| r.searched).sum(),
        rounds: run
            .rounds
            .iter()
            .map(|r| ThresholdRound {
                k: r.k,
                region: r.region.to_string(),
                placements: r.stats.placements,
                smaller: r.stats.smaller,
                searched: r.searched,
                witnesses: r.witnesses,
                witness_bytes: r.bytes,
                time_ms: r.ms,
            })
            .collect(),
        proof,
        time_ms: ms(start),
    }
}

/// `threshold`.
pub struct Threshold;

impl crate::operation::Operation for Threshold {
    const NAME: &'static str = "threshold";
    type Request = ThresholdRequest;
    type Response = ThresholdResponse;

    fn run(req: &ThresholdRequest, ctx: &Context) -> Result<(ThresholdResponse, Artifacts), Error> {
        threshold(req, ctx)
    }
    fn validate(req: &ThresholdRequest) -> Result<(), Error> {
        req.validate()
    }
}

impl crate::operation::Served for Threshold {
    const PATH: &'static str = "/v1/threshold";
    const SUMMARY: &'static str = "The n-queens completion threshold (OEIS A374013), or whether \
                                   every placement of at most `k` queens completes; boards past \
                                   n = 12 only as a job or with `timeout_ms`.";
}

impl crate::operation::OwnSize for Threshold {
    const N_FIELD: &'static str = "n";
    fn n(req: &ThresholdRequest) -> usize {
        req.n
    }
}

impl crate::operation::Bounded for Threshold {
    const BOUNDS: &'static [crate::operation::Bound] = &[crate::operation::Bound::new(
        "n",
        queens_engine::threshold::MIN_THRESHOLD_N as u64,
        queens_proof::threshold::walk::MAX_WALK_N as u64,
    )];
    const BOUND_FIELD: &'static str = "timeout_ms";
    fn unbounded(req: &ThresholdRequest, n: usize) -> Option<String> {
        (req.timeout_ms.is_none() && n > SYNC_THRESHOLD_N).then(|| {
            format!(
                "the threshold of a {n}×{n} board can take minutes to hours: give \
                 `timeout_ms`, or submit it as a job (POST /v1/jobs with \"op\": \"threshold\")"
            )
        })
    }
}

impl crate::operation::Budgeted for Threshold {
    fn status(resp: &ThresholdResponse) -> Status {
        resp.status
    }
    fn timeout_ms(req: &ThresholdRequest) -> Option<u64> {
        req.timeout_ms
    }
}

impl crate::operation::Library for Threshold {}
