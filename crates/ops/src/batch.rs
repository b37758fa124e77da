//! `batch`: one shard of a corpus, solved instance by instance through [`super::solve`], one
//! verified result line per instance in a JSON-lines file (docs/batch-and-clusters.md, "Batch runs and shards").
//!
//! The shard's instances are those whose content hash falls in it ([`Shard::owns`]), so
//! every machine that loads the same inputs agrees on them. Instances run on all cores, one
//! engine thread each, each under its own time limit (SAT in a child process, killed at the
//! limit, as every deadline of the operations layer).
//!
//! Re-running a shard is safe: lines are appended to `OUT.partial` as instances finish, and
//! the finished file is written sorted and renamed to `OUT` at the end. A run that finds a
//! `.partial` (or a finished `OUT`) of the same shard, instance set and engine keeps its
//! answers (`sat`, `unsat`, unreadable input) and solves only the rest, timeouts included;
//! anything else is started afresh.
//!
//! With a proof folder, every UNSAT answer comes with its proof, checked by the built-in
//! checker as it is written, and the CNF it refutes, named after the instance's id
//! ([`crate::batch_file::proof_names`]); an answer whose proof does not check is an error line, never `unsat`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

use super::{Context, Request, Response, SolveRequest, Status};
use crate::batch_file::{BatchHeader, BatchLine, Member, BATCH_FORMAT};
use crate::context::ms;
use crate::merge::{self, ShardFile};
use crate::shard::{content_hash, hash_text, Shard};
use crate::EngineName;
use queens_engine::encode::amo::Encoding;
use queens_model::error::Error;
use queens_model::formats::sources::Entry;
use queens_proof::ProofFormat;

/// How to run a batch shard.
#[derive(Clone)]
pub struct BatchOptions {
    /// Which shard of how many.
    pub shard: Shard,
    /// The engine for every instance.
    pub engine: EngineName,
    /// The SAT engine's at-most-one encoding.
    pub encoding: Encoding,
    /// With engine `ext`: the external solver.
    pub solver: Option<queens_engine::ext::ExtName>,
    /// The limit per instance, milliseconds.
    pub timeout_ms: Option<u64>,
    /// Instances solved at once (0: one per core).
    pub jobs: usize,
    /// Called with (instances done, instances in the shard).
    pub progress: Option<Arc<dyn Fn(u64, u64) + Send + Sync>>,
    /// Prove every UNSAT answer in this format, into `proof_dir`.
    pub proof: Option<ProofFormat>,
    /// The folder of the proofs and their CNFs (created if missing).
    pub proof_dir: Option<PathBuf>,
}

/// What a batch shard run did.
#[derive(Clone, Debug, Serialize)]
pub struct BatchSummary {
    /// `i/N`.
    pub shard: String,
    /// Instances in all the inputs.
    pub total: usize,
    /// Instances in this shard.
    pub instances: usize,
    /// Answers kept from an earlier run of this shard.
    pub reused: usize,
    /// How many ended each way.
    pub sat: usize,
    /// Proven without solution.
    pub unsat: usize,
    /// No answer within the limit.
    pub timeout: usize,
    /// Could not be read or run.
    pub error: usize,
    /// Wall time of this run, milliseconds.
    pub time_ms: f64,
    /// The result file.
    pub output: String,
    /// With proofs: their folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proofs: Option<String>,
    /// The run was stopped (its context's cancel flag: Ctrl-C, SIGTERM) before every
    /// instance of the shard was answered: `output` is then the partial file, holding every
    /// answer finished, which the same command run again keeps.
    pub interrupted: bool,
}

/// Runs shard `opts.shard` of `entries` (every input, in order: all shards must be given the
/// same inputs) into `out`.
pub fn batch(
    entries: &[Entry],
    opts: &BatchOptions,
    out: &Path,
    ctx: &Context,
) -> Result<BatchSummary, Error> {
    let start = Instant::now();
    let proofs = match (opts.proof, &opts.proof_dir) {
        (Some(format), Some(dir)) => {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            if !dir.is_dir() {
                return Err(Error::Io {
                    path: dir.clone(),
                    source: std::io::Error::other("not a folder"),
                });
            }
            Some((format, dir.as_path()))
        }
        (None, None) => None,
        _ => {
            return Err(Error::internal(
                "a batch with proofs needs both their format and their folder",
            ))
        }
    };
    let all: Vec<Member> = entries
        .iter()
        .enumerate()
        .map(|(index, e)| match e {
            Ok(inst) => Member {
                index,
                id: inst.id.clone(),
                hash: content_hash(&inst.problem),
            },
            Err(b) => Member {
                index,
                id: b.id.clone(),
                hash: hash_text(&format!("unreadable\n{}\n{}", b.id, b.error)),
            },
        })
        .collect();
    let set = hash_text(
        &all.iter()
            .map(|m| format!("{} {} {}\n", m.index, m.id, m.hash))
            .collect::<String>(),
    );
    // Named over the whole set, so that every shard names each proof the same way.
    let names = crate::batch_file::proof_names(&all);
    let members: Vec<Member> = all
        .into_iter()
        .filter(|m| opts.shard.owns(&m.hash))
        .collect();
    let header = BatchHeader {
        format: BATCH_FORMAT.to_string(),
        shard: opts.shard,
        set,
        total: entries.len(),
        engine: opts.engine.label(opts.solver, opts.encoding),
        timeout_ms: opts.timeout_ms,
        proof: opts.proof,
        members,
    };
    let partial = with_suffix(out, ".partial");
    let mut done: HashMap<usize, BatchLine> = HashMap::new();
    for earlier in [out, partial.as_path()] {
        for line in earlier_answers(earlier, &header) {
            done.insert(line.index, line);
        }
    }
    let reused = done.len();

    // The header, the answers kept, then each new line as it comes, flushed: a crash loses
    // at most the instances being solved.
    let file = File::create(&partial).map_err(io(&partial))?;
    let mut w = BufWriter::new(file);
    writeln!(w, "{}", json(&header)?).map_err(io(&partial))?;
    let mut kept: Vec<&BatchLine> = done.values().collect();
    kept.sort_by_key(|l| l.index);
    for l in kept {
        writeln!(w, "{}", json(l)?).map_err(io(&partial))?;
    }
    w.flush().map_err(io(&partial))?;
    let writer = Mutex::new(w);

    let todo: Vec<&Member> = header
        .members
        .iter()
        .filter(|m| !done.contains_key(&m.index))
        .collect();
    let results = Mutex::new(Vec::with_capacity(todo.len()));
    let failure: Mutex<Option<Error>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(reused);
    let in_shard = header.members.len() as u64;
    let report = |d: usize| {
        if let Some(p) = &opts.progress {
            p(d as u64, in_shard);
        }
    };
    report(reused);
    let workers = match opts.jobs {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        j => j,
    };
    std::thread::scope(|s| {
        for _ in 0..workers.min(todo.len()) {
            s.spawn(|| loop {
                if ctx.budget.cancelled() || failure.lock().expect("no panic").is_some() {
                    break;
                }
                let Some(m) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                let proof = proofs.map(|(format, dir)| {
                    let name = &names[&m.index];
                    (
                        format,
                        dir.join(format!("{name}.{format}")),
                        dir.join(format!("{name}.cnf")),
                    )
                });
                let streamed = proof.as_ref().map(|p| p.1.clone());
                let line = solve_one(&entries[m.index], m, opts, proof, ctx);
                // Stopped half-way, an instance has no answer of its own (its limit did not
                // pass): it is left for the next run rather than written as a timeout, and
                // so is the proof it had begun.
                if ctx.budget.cancelled() && !matches!(line.status, Status::Sat | Status::Unsat) {
                    if let Some(path) = streamed {
                        let _ = std::fs::remove_file(path);
                    }
                    break;
                }
                let written = json(&line).and_then(|text| {
                    let mut w = writer.lock().expect("no panic");
                    writeln!(w, "{text}")
                        .and_then(|()| w.flush())
                        .map_err(io(&partial))
                });
                if let Err(e) = written {
                    failure.lock().expect("no panic").get_or_insert(e);
                    break;
                }
                results.lock().expect("no panic").push(line);
                report(finished.fetch_add(1, Ordering::Relaxed) + 1);
            });
        }
    });
    drop(writer);
    if let Some(e) = failure.into_inner().expect("no panic") {
        return Err(e);
    }
    let mut lines: Vec<BatchLine> = done.into_values().collect();
    lines.extend(results.into_inner().expect("no panic"));
    lines.sort_by_key(|l| l.index);
    let count = |o: Status| lines.iter().filter(|l| l.status == o).count();
    let summary = |output: &Path, interrupted: bool| BatchSummary {
        shard: opts.shard.to_string(),
        total: header.total,
        instances: lines.len(),
        reused,
        sat: count(Status::Sat),
        unsat: count(Status::Unsat),
        timeout: count(Status::Timeout),
        error: count(Status::Error),
        time_ms: ms(start),
        output: output.display().to_string(),
        proofs: proofs.map(|(_, dir)| dir.display().to_string()),
        interrupted,
    };
    // Stopped: every answer finished is in the partial file already (flushed line by line),
    // which is where the next run of the shard looks for them.
    if ctx.budget.cancelled() && lines.len() < header.members.len() {
        return Ok(summary(&partial, true));
    }

    // The finished file, written whole and renamed over OUT; then the partial goes.
    let tmp = with_suffix(out, ".tmp");
    {
        let mut w = BufWriter::new(File::create(&tmp).map_err(io(&tmp))?);
        writeln!(w, "{}", json(&header)?).map_err(io(&tmp))?;
        for l in &lines {
            writeln!(w, "{}", json(l)?).map_err(io(&tmp))?;
        }
        w.into_inner()
            .map_err(|e| io(&tmp)(e.into_error()))?
            .sync_all()
            .map_err(io(&tmp))?;
    }
    std::fs::rename(&tmp, out).map_err(io(out))?;
    let _ = std::fs::remove_file(&partial);
    Ok(summary(out, false))
}

/// Solves one instance into its result line; an error (unreadable input, a board too large
/// for the engine) is a line of its own, so one bad instance never stops the shard.
///
/// With `proof` (format, proof file, CNF file), an UNSAT answer's proof streams to its file
/// and is checked on the way; the line names both files.
fn solve_one(
    entry: &Entry,
    m: &Member,
    opts: &BatchOptions,
    proof: Option<(ProofFormat, PathBuf, PathBuf)>,
    ctx: &Context,
) -> BatchLine {
    let start = Instant::now();
    let mut line = BatchLine {
        index: m.index,
        id: m.id.clone(),
        hash: m.hash.clone(),
        status: Status::Error,
        queens: None,
        time_ms: 0.0,
        engine: opts.engine.name().to_string(),
        nodes: None,
        error: None,
        proof: None,
    };
    let problem = match entry {
        Ok(inst) => inst.problem.clone(),
        Err(b) => {
            line.error = Some(b.error.to_string());
            return line;
        }
    };
    let req = Request::Solve(SolveRequest {
        engine: opts.engine,
        encoding: opts.encoding,
        timeout_ms: opts.timeout_ms,
        // One engine thread per instance: the shard's instances share the cores.
        threads: (opts.engine == EngineName::Backtrack).then_some(1),
        solver: opts.solver,
        proof: proof.as_ref().map(|p| p.0),
        ..SolveRequest::new(problem)
    });
    // The limit is per instance: counted from this instance's start.
    let mut ctx = ctx.with_timeout_ms(opts.timeout_ms);
    ctx.proof_file = proof.as_ref().map(|p| p.1.clone());
    let answer = req
        .run(&ctx)
        .and_then(|(resp, artifacts)| match (resp, &proof) {
            (Response::Solve(mut r), Some((_, proof_path, cnf_path))) => {
                if r.status == Status::Unsat {
                    r.proof = Some(write_proof(
                        r.proof.take(),
                        &artifacts,
                        proof_path,
                        cnf_path,
                    )?);
                } else {
                    // A search that found a solution (or ran out of time) leaves no proof.
                    let _ = std::fs::remove_file(proof_path);
                }
                Ok(Response::Solve(r))
            }
            (resp, _) => Ok(resp),
        });
    match answer {
        Ok(Response::Solve(r)) => {
            line.status = match r.status {
                Status::Sat | Status::Unsat => r.status,
                _ => Status::Timeout,
            };
            line.queens = r.queens;
            line.time_ms = r.time_ms;
            line.nodes = r.work.nodes;
            line.proof = r.proof;
            if let Some(e) = r.answered_by {
                line.engine = e.name().to_string();
            }
        }
        Ok(_) => line.error = Some("solve gave another operation's answer".into()),
        Err(e) => {
            line.time_ms = ms(start);
            line.error = Some(e.to_string());
        }
    }
    line
}

/// Puts an UNSAT answer's proof and CNF in their files (the proof is there already when it
/// streamed) and names them in the answer's proof.
fn write_proof(
    info: Option<crate::ProofInfo>,
    artifacts: &super::Artifacts,
    proof_path: &Path,
    cnf_path: &Path,
) -> Result<crate::ProofInfo, Error> {
    let mut info =
        info.ok_or_else(|| Error::internal("the answer unsat came without its proof"))?;
    if info.path.is_none() {
        let bytes = artifacts
            .get("proof")
            .ok_or_else(|| Error::internal("the answer unsat came without its proof"))?;
        std::fs::write(proof_path, bytes).map_err(io(proof_path))?;
    }
    let cnf = artifacts
        .get("cnf")
        .ok_or_else(|| Error::internal("the answer unsat came without its CNF"))?;
    std::fs::write(cnf_path, cnf).map_err(io(cnf_path))?;
    info.path = Some(proof_path.display().to_string());
    info.cnf = Some(cnf_path.display().to_string());
    Ok(info)
}

/// The answers (`sat`, `unsat`, `error`) an earlier run of the same shard left in `path`,
/// if it ran the same instances on the same engine (the limit may differ); nothing
/// otherwise. A last line cut short by a crash is
/// dropped.
fn earlier_answers(path: &Path, header: &BatchHeader) -> Vec<BatchLine> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    // Only whole lines: a crash can leave the last one cut short.
    let whole = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => return Vec::new(),
    };
    let Ok(ShardFile::Batch {
        header: h, lines, ..
    }) = merge::parse(&path.display().to_string(), whole)
    else {
        return Vec::new();
    };
    // Answers stay answers under another limit per instance; timeouts are run again.
    type Key<'a> = (
        &'a str,
        Shard,
        &'a str,
        &'a str,
        Option<ProofFormat>,
        &'a [Member],
    );
    fn same(h: &BatchHeader) -> Key<'_> {
        (&h.format, h.shard, &h.set, &h.engine, h.proof, &h.members)
    }
    if same(&h) != same(header) {
        return Vec::new();
    }
    let mine: HashMap<usize, &Member> = header.members.iter().map(|m| (m.index, m)).collect();
    // An unsat of a run with proofs stays only while its proof file does.
    let proven = |l: &BatchLine| {
        header.proof.is_none()
            || l.status != Status::Unsat
            || l.proof
                .as_ref()
                .and_then(|p| p.path.as_deref())
                .is_some_and(|p| Path::new(p).is_file())
    };
    lines
        .into_iter()
        .filter(|l| l.status != Status::Timeout)
        .filter(proven)
        .filter(|l| mine.get(&l.index).is_some_and(|m| m.hash == l.hash))
        .collect()
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn json(value: &impl Serialize) -> Result<String, Error> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal_from("a batch line does not serialize", e))
}
