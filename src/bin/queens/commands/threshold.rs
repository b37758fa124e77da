//! `queens threshold`: the n-queens completion threshold (OEIS A374013) with its certificate,
//! `queens threshold check DIR`, the certificate's check, and `queens threshold merge`, the
//! shards' covers put together, as glue over [`queens::ops::threshold`],
//! [`queens::ops::threshold_shards`] and [`queens::proof::threshold::certificate`].

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};

use queens::engine::threshold::{stop_on_signals, stopped, Report};
use queens::ops::shard::Shard;
use queens::ops::{self, Context, Declared, ThresholdRequest, ThresholdResponse};
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
    /// same command started again with the same folder resumes where it stopped. SIGINT and
    /// SIGTERM save it before the process exits (exit 130).
    #[arg(long, value_name = "DIR")]
    checkpoint: Option<PathBuf>,
    /// Start from the solutions of this cover (cover.txt or cover.bin: a smaller round's, or
    /// other shards' merged), each checked by the verifier; a shard keeps those that can
    /// hold one of its first queens.
    #[arg(long, value_name = "FILE")]
    seed_cover: Option<PathBuf>,
    /// Write the cover as cover.bin (n bytes a solution) instead of cover.txt.
    #[arg(long)]
    binary_cover: bool,
    /// Print a progress line on stderr every SECS seconds: placements walked, rate, searches,
    /// witnesses, memory, share done and ETA.
    #[arg(long, value_name = "SECS")]
    progress_every: Option<f64>,
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
        /// Check only part I of N of the cover's walk (0-based; part 0 also checks the
        /// counterexample), and write its record DIR/check-I-of-N.json.
        #[arg(long, value_name = "I/N", conflicts_with = "parts")]
        shard: Option<Shard>,
        /// Accept the certificate from the records of all N parts of its check
        /// (DIR/check-I-of-N.json, each of the cover the folder holds).
        #[arg(long, value_name = "N")]
        parts: Option<usize>,
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
        /// Write the merged cover as cover.bin (n bytes a solution) instead of cover.txt.
        #[arg(long)]
        binary_cover: bool,
    },
}

pub(crate) fn run(
    out: &mut impl Write,
    args: ThresholdArgs,
    started: Instant,
) -> Result<u8, Failure> {
    match args.command {
        Some(ThresholdCommand::Check {
            dir,
            shard,
            parts,
            json,
        }) => return check(out, dir, shard, parts, json),
        Some(ThresholdCommand::Merge {
            dirs,
            out: into,
            binary_cover,
        }) => return merge(out, &dirs, &into, binary_cover),
        None => {}
    }
    let n = args
        .n
        .ok_or_else(|| Error::unsupported_at_field("n", "--n is required"))?;
    let req = ThresholdRequest {
        n,
        k: args.k,
        shard: args.shard,
        certificate: args.certificate.is_some(),
        timeout_ms: None,
        checkpoint: args.checkpoint.clone(),
        seed_cover: args.seed_cover.clone(),
        binary_cover: args.binary_cover,
    };
    let every = match args.progress_every {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            return Err(Error::unsupported_at_field(
                "progress_every",
                format!("{s} is not a positive number of seconds"),
            )
            .into())
        }
        Some(s) => Some(std::time::Duration::from_secs_f64(s)),
        None => None,
    };
    let bar = progress::bar("threshold", "first queens");
    let limits = Limits::new(started, args.timeout);
    let mut ctx = Context::default();
    ctx.budget.deadline = limits.deadline;
    ctx.budget.max_memory = Some(limits.max_memory);
    if let Some(bar) = &bar {
        let bar = bar.clone();
        ctx = ctx.with_progress(move |done, total| {
            bar.set_length(total);
            bar.set_position(done);
        });
    }
    let shown = bar.clone();
    let lines = args.progress_every.is_some();
    let report = move |r: &Report| {
        if let Some(bar) = &shown {
            bar.set_message(format!("threshold: {r}"));
        } else if lines {
            eprintln!("threshold: {r}");
        }
    };
    let reporting = bar.is_some() || lines;
    // Ctrl-C and SIGTERM stop the walk at the next placement, so the checkpoint is saved
    // and the bound so far printed before the process exits.
    stop_on_signals();
    let ran = ops::threshold_reporting(
        &req,
        &ctx,
        reporting.then_some(&report as &(dyn Fn(&Report) + Sync)),
        every,
    );
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
        // A run stopped before its end writes no certificate.
        let written = args
            .certificate
            .as_ref()
            .filter(|_| !artifacts.0.is_empty());
        print(out, &resp, written)?;
    }
    if stopped() {
        if let Some(dir) = &args.checkpoint {
            eprintln!(
                "queens: stopped by a signal; the checkpoint in {} is saved (run the same \
                 command again to resume)",
                dir.display()
            );
        }
        return Ok(130);
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
        (None, _, Some(lower)) => writeln!(
            out,
            "{}: no answer yet; every placement of at most {lower} queens completes",
            resp.status
        )?,
        (None, _, None) => writeln!(
            out,
            "{}: no answer yet; no round finished, so no bound is shown",
            resp.status
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
            "  k = {}, {}: {} placements ({} smaller), {} searched, {} witnesses ({:.1} MB), \
             {:.0} ms ({:.0} placements/s)",
            r.k,
            r.region,
            r.placements,
            r.smaller,
            r.searched,
            r.witnesses,
            r.witness_bytes as f64 / 1e6,
            r.time_ms,
            rate
        )?;
    }
    if let Some(dir) = certificate {
        writeln!(out, "certificate: {}", dir.display())?;
    }
    writeln!(out, "time: {:.3} s", resp.time_ms / 1000.0)?;
    Ok(())
}

fn merge(
    out: &mut impl Write,
    dirs: &[PathBuf],
    into: &PathBuf,
    binary: bool,
) -> Result<u8, Failure> {
    let merged = ops::threshold_shards::merge(dirs, binary)?;
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

fn check(
    out: &mut impl Write,
    dir: PathBuf,
    shard: Option<Shard>,
    parts: Option<usize>,
    json: bool,
) -> Result<u8, Failure> {
    let start = Instant::now();
    let verdict = match (shard, parts) {
        (Some(shard), _) => {
            let (verdict, record) = ops::threshold_shards::check_part(&dir, shard)?;
            if let Some(record) = record {
                let path = dir.join(ops::threshold_shards::check_record_name(shard));
                let mut text = serde_json::to_string(&record).expect("a record serializes");
                text.push('\n');
                std::fs::write(&path, text).map_err(|source| Error::Io { path, source })?;
                if !json {
                    writeln!(
                        out,
                        "part {shard} of the check: only the placements whose first queen's \
                         index in the walk is {} modulo {}",
                        shard.index, shard.of
                    )?;
                }
            }
            verdict
        }
        (None, Some(parts)) => {
            let verdict = ops::threshold_shards::merge_checks(&dir, parts)?;
            if !json {
                writeln!(out, "the {parts} parts of the check put together")?;
            }
            verdict
        }
        (None, None) => check_certificate(&dir)?,
    };
    let time_ms = start.elapsed().as_secs_f64() * 1000.0;
    match verdict {
        Verdict::Accepted(a) => {
            if json {
                let v = serde_json::json!({
                    "accepted": true,
                    "n": a.n,
                    "k": a.k,
                    "exact": a.exact,
                    "covered": a.covered,
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
                // One part shows its share of the claim, not the claim.
                let what = match shard {
                    Some(shard) => format!(
                        "part {shard} accepted, toward a({n}) {} {k} once all {} parts are \
                         (`--parts {}`)",
                        if a.exact { "=" } else { "≥" },
                        shard.of,
                        shard.of
                    ),
                    None => match (a.covered, a.exact) {
                        (false, _) => format!("accepted: a({n}) ≤ {k} (no cover: a bound only)"),
                        (true, true) => format!("accepted: a({n}) = {k}"),
                        (true, false) => format!("accepted: a({n}) ≥ {k}"),
                    },
                };
                writeln!(out, "{what}")?;
                if a.covered {
                    writeln!(
                        out,
                        "cover: {} solutions ({} with images) hold the {} placements of k = \
                         {k} walked and the {} smaller ones",
                        a.solutions, a.witnesses, a.walk.placements, a.walk.smaller
                    )?;
                }
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
