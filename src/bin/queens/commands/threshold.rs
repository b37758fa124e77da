//! `queens threshold`: the n-queens completion threshold (OEIS A374013) with its certificate,
//! `queens threshold check DIR`, the certificate's check, and `queens threshold merge`, the
//! shards' covers put together, as glue over [`queens::ops::threshold`],
//! [`queens::ops::threshold_shards`] and [`queens::proof::threshold::certificate`].

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};

use queens::ops::shard::Shard;
use queens::ops::{self, Declared, Member, ThresholdRequest, ThresholdResponse};
use queens::proof::threshold::certificate::{check_certificate, Verdict};
use queens::Error;

use crate::args::Timeout;
use crate::budget::Limits;
use crate::output::{to_json, Failure};
use crate::progress;

/// `queens threshold`'s arguments.
#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct ThresholdArgs {
    #[command(subcommand)]
    command: Option<ThresholdCommand>,
    /// Board size (4..=64).
    #[arg(long, required = true)]
    n: Option<usize>,
    /// Ask only: does every placement of at most K queens complete? (exit 0 yes, 1 no)
    #[arg(long)]
    k: Option<usize>,
    /// With --k: walk only shard I of N (0-based) of the round, the first queens whose
    /// index is I modulo N; the certificate holds its cover and shard.json, and `queens
    /// threshold merge` puts all N together.
    #[arg(long, value_name = "I/N", requires = "k")]
    shard: Option<Shard>,
    /// Write the certificate into this folder: threshold.json, cover.txt and, when a
    /// placement has no completion, counterexample.json with counterexample.lrat and
    /// counterexample.lrat.cnf.
    #[arg(long, value_name = "DIR")]
    certificate: Option<PathBuf>,
    /// Save the run's progress into this folder (threshold-checkpoint.txt) as it goes; the
    /// same command started again with the same folder resumes where it stopped.
    #[arg(long, value_name = "DIR")]
    checkpoint: Option<PathBuf>,
    #[command(flatten)]
    timeout: Timeout,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum ThresholdCommand {
    /// Check a certificate folder with the verifier and the LRAT checker (no search): exit 0
    /// accepted, 1 rejected.
    Check {
        /// The certificate folder.
        dir: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Put the certificates of all shards of one round (`--k K --shard I/N`) together into
    /// one certificate for `queens threshold check`: exit 0 merged, 2 when a shard is
    /// missing or does not belong.
    Merge {
        /// The shards' certificate folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Write the merged certificate into this folder.
        #[arg(long, short = 'o', value_name = "DIR")]
        out: PathBuf,
    },
}

pub(crate) fn run(
    out: &mut impl Write,
    args: ThresholdArgs,
    started: Instant,
) -> Result<u8, Failure> {
    match args.command {
        Some(ThresholdCommand::Check { dir, json }) => return check(out, dir, json),
        Some(ThresholdCommand::Merge { dirs, out: into }) => return merge(out, &dirs, &into),
        None => {}
    }
    let n = args
        .n
        .ok_or_else(|| Error::unsupported_at_field("n", "--n is required"))?;
    let req = ops::Threshold::wrap(ThresholdRequest {
        n,
        k: args.k,
        shard: args.shard,
        certificate: args.certificate.is_some(),
        timeout_ms: None,
        checkpoint: args.checkpoint.clone(),
    });
    let bar = progress::bar("threshold", "first queens");
    let ran = Limits::new(started, args.timeout).run::<ops::Threshold>(&req, bar.as_ref());
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let (resp, artifacts) = ran?;
    if let Some(dir) = &args.certificate {
        if !artifacts.0.is_empty() {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.clone(),
                source,
            })?;
        }
        for (name, bytes) in &artifacts.0 {
            let path = dir.join(name);
            std::fs::write(&path, bytes).map_err(|source| Error::Io { path, source })?;
        }
    }
    if args.json {
        writeln!(out, "{}", to_json(&resp)?)?;
    } else {
        print(out, &resp, args.certificate.as_ref())?;
    }
    Ok(ops::Threshold::exit_code(&resp))
}

fn print(
    out: &mut impl Write,
    resp: &ThresholdResponse,
    certificate: Option<&PathBuf>,
) -> Result<(), Failure> {
    let n = resp.n;
    if let Some(s) = resp.shard {
        writeln!(
            out,
            "shard {s}: only the placements whose first queen's index in the walk is {} \
             modulo {}",
            s.index, s.of
        )?;
    }
    match (resp.threshold, resp.k, resp.lower) {
        (Some(t), _, _) => writeln!(out, "a({n}) = {t}")?,
        (None, Some(k), Some(_)) => writeln!(
            out,
            "yes: every placement of at most {k} queens on the {n}×{n} board {}completes",
            if resp.shard.is_some() {
                "in this shard "
            } else {
                ""
            }
        )?,
        (None, Some(k), None) if resp.counterexample.is_some() => writeln!(
            out,
            "no: not every placement of at most {k} queens on the {n}×{n} board completes"
        )?,
        (None, _, lower) => writeln!(
            out,
            "{}: no answer yet; every placement of at most {} queens completes",
            resp.status,
            lower.map_or("-".to_string(), |l| l.to_string())
        )?,
    }
    writeln!(
        out,
        "cover: {} solutions ({} with their images); {} placements searched",
        resp.solutions, resp.witnesses, resp.searched
    )?;
    if let Some(p) = &resp.counterexample {
        let cells: Vec<String> = p.iter().map(|[r, c]| format!("[{r}, {c}]")).collect();
        writeln!(
            out,
            "no completion: {} queens at [{}]",
            p.len(),
            cells.join(", ")
        )?;
    }
    if let Some(p) = &resp.proof {
        writeln!(
            out,
            "proof: LRAT, {} lemmas, {} bytes (CNF {} bytes), checked, {:.0} ms",
            p.lemmas, p.bytes, p.cnf_bytes, p.time_ms
        )?;
    }
    for r in &resp.rounds {
        let rate = r.placements as f64 / (r.time_ms / 1000.0).max(1e-9);
        writeln!(
            out,
            "  k = {}, {}: {} placements ({} smaller), {} searched, {} witnesses, \
             {:.0} ms ({:.0} placements/s)",
            r.k, r.region, r.placements, r.smaller, r.searched, r.witnesses, r.time_ms, rate
        )?;
    }
    if let Some(dir) = certificate {
        writeln!(out, "certificate: {}", dir.display())?;
    }
    writeln!(out, "time: {:.3} s", resp.time_ms / 1000.0)?;
    Ok(())
}

fn merge(out: &mut impl Write, dirs: &[PathBuf], into: &PathBuf) -> Result<u8, Failure> {
    let merged = ops::threshold_shards::merge(dirs)?;
    std::fs::create_dir_all(into).map_err(|source| Error::Io {
        path: into.clone(),
        source,
    })?;
    for (name, bytes) in &merged.files {
        let path = into.join(name);
        std::fs::write(&path, bytes).map_err(|source| Error::Io { path, source })?;
    }
    writeln!(
        out,
        "merged {} shards of n = {}, k = {}: {} cover lines read, {} distinct up to symmetry",
        merged.shards, merged.n, merged.k, merged.lines_read, merged.solutions
    )?;
    writeln!(
        out,
        "certificate: {} (check it with `queens threshold check`)",
        into.display()
    )?;
    Ok(0)
}

fn check(out: &mut impl Write, dir: PathBuf, json: bool) -> Result<u8, Failure> {
    let start = Instant::now();
    let verdict = check_certificate(&dir)?;
    let time_ms = start.elapsed().as_secs_f64() * 1000.0;
    match verdict {
        Verdict::Accepted(a) => {
            if json {
                let v = serde_json::json!({
                    "accepted": true,
                    "n": a.n,
                    "k": a.k,
                    "exact": a.exact,
                    "solutions": a.solutions,
                    "witnesses": a.witnesses,
                    "placements": a.walk.placements,
                    "smaller": a.walk.smaller,
                    "lemmas": a.lemmas,
                    "time_ms": time_ms,
                });
                writeln!(out, "{v}")?;
            } else {
                let (n, k) = (a.n, a.k);
                if a.exact {
                    writeln!(out, "accepted: a({n}) = {k}")?;
                } else {
                    writeln!(out, "accepted: a({n}) ≥ {k}")?;
                }
                writeln!(
                    out,
                    "cover: {} solutions ({} with images) hold the {} placements of k = {k} \
                     walked and the {} smaller ones",
                    a.solutions, a.witnesses, a.walk.placements, a.walk.smaller
                )?;
                if a.exact {
                    writeln!(
                        out,
                        "counterexample: {} queens, no completion: the LRAT proof ({} lemmas) \
                         refutes a CNF every completion satisfies",
                        k + 1,
                        a.lemmas
                    )?;
                }
                writeln!(out, "time: {:.3} s", time_ms / 1000.0)?;
            }
            Ok(0)
        }
        Verdict::Rejected(why) => {
            if json {
                let v = serde_json::json!({"accepted": false, "reason": why, "time_ms": time_ms});
                writeln!(out, "{v}")?;
            } else {
                writeln!(out, "rejected: {why}")?;
            }
            Ok(1)
        }
    }
}
