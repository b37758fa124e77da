//! How a comparison reads: times, counts and sizes in the unit that reads best, the table,
//! the per-engine summary, the problems worth a look, CSV, JSON and the plot.

use std::path::Path;

use super::{
    entry_id, Attempt, EngineName, EngineSpec, Entry, Plan, ProofRun, Row, Status, Summary,
};

/// `1.23s`, `45ms`, `812µs`: three significant figures.
pub fn fmt_seconds(s: f64) -> String {
    if s >= 100.0 {
        format!("{s:.0}s")
    } else if s >= 1.0 {
        format!("{s:.2}s")
    } else if s >= 1e-3 {
        format!("{:.1}ms", s * 1e3)
    } else {
        format!("{:.0}µs", s * 1e6)
    }
}

/// [`fmt_seconds`] for a time in milliseconds.
pub fn fmt_ms(ms: f64) -> String {
    fmt_seconds(ms / 1e3)
}

/// Three significant figures: `812`, `4.12k`, `758k`, `2.31M`.
pub fn fmt_count(k: u64) -> String {
    let f = k as f64;
    match k {
        0..=9_999 => k.to_string(),
        10_000..=99_999 => format!("{:.1}k", f / 1e3),
        100_000..=999_999 => format!("{:.0}k", f / 1e3),
        1_000_000..=9_999_999 => format!("{:.2}M", f / 1e6),
        10_000_000..=99_999_999 => format!("{:.1}M", f / 1e6),
        _ => format!("{:.0}M", f / 1e6),
    }
}

/// `812B`, `4.1kB`, `3.2MB`, `1.05GB`.
pub fn fmt_bytes(b: u64) -> String {
    let f = b as f64;
    if b < 1000 {
        format!("{b}B")
    } else if b < 1_000_000 {
        format!("{:.1}kB", f / 1e3)
    } else if b < 1_000_000_000 {
        format!("{:.1}MB", f / 1e6)
    } else {
        format!("{:.2}GB", f / 1e9)
    }
}

/// One table cell for an attempt: time, then nodes (backtracker) or learned clauses and
/// variables/clauses (SAT); `>60.0s` for a timeout.
pub fn fmt_attempt(a: &Attempt) -> String {
    match (&a.outcome, &a.report) {
        (Status::Timeout, Some(_)) if a.gave_up().is_some() => {
            format!("timeout (gave up at {})", fmt_ms(a.time_ms))
        }
        (Status::Timeout, _) => format!("timeout >{}", fmt_ms(a.time_ms)),
        (Status::Error, _) => "ERROR".into(),
        (Status::Unsupported, _) => "n/a (cannot run here)".into(),
        (_, Some(r)) => {
            let mut s = fmt_ms(r.time_ms);
            if let Some(w) = r.answered_by {
                s += &format!(" by {}", w.name());
            }
            if let Some(k) = r.nodes {
                s += &format!(" {} nodes", fmt_count(k));
            }
            if let Some(k) = r.learned {
                s += &format!(" {} learned", fmt_count(k));
            }
            if let (Some(v), Some(c)) = (r.vars, r.clauses) {
                s += &format!(" {}v/{}c", fmt_count(v as u64), fmt_count(c as u64));
            }
            match &a.proof {
                Some(ProofRun {
                    time_ms,
                    info: Some(p),
                }) => {
                    s += &format!(
                        " | proof {} {}",
                        fmt_ms(*time_ms),
                        fmt_bytes(p.bytes as u64)
                    )
                }
                Some(ProofRun {
                    time_ms,
                    info: None,
                }) => s += &format!(" | proof timeout >{}", fmt_ms(*time_ms)),
                None => {}
            }
            s
        }
        (_, None) => fmt_ms(a.time_ms),
    }
}

/// Width of the instance column: the longest id, at least 8.
pub fn id_width(instances: &[Entry]) -> usize {
    instances
        .iter()
        .map(|e| entry_id(e).chars().count())
        .max()
        .unwrap_or(8)
        .max(8)
}

/// The table's first line: instance, n, status, then one column per engine.
pub fn table_header(engines: &[EngineSpec], id_width: usize) -> String {
    let mut h = format!("{:<id_width$} {:>5} {:<8}", "instance", "n", "status");
    for e in engines {
        h += &format!("  {:<34}", e.to_string());
    }
    h.trim_end().to_string()
}

/// One table line per instance, as [`table_header`] lays it out.
pub fn table_line(row: &Row, id_width: usize) -> String {
    let n = row.n.map_or("-".into(), |n| n.to_string());
    let mut l = format!("{:<id_width$} {:>5} {:<8}", row.id, n, row.status_name());
    for a in &row.attempts {
        l += &format!("  {:<34}", fmt_attempt(a));
    }
    l.trim_end().to_string()
}

/// The per-engine summary under the table, ending with the limit and what the times mean.
pub fn summary_text(plan: &Plan, summary: &[Summary]) -> String {
    let mut s = format!(
        "{:<14} {:>6} {:>5} {:>5} {:>8} {:>6} {:>9} {:>9}  vs {} (same instances)\n",
        "engine",
        "solved",
        "sat",
        "unsat",
        "timeouts",
        "errors",
        "median",
        "total",
        plan.engines[0]
    );
    for (i, e) in summary.iter().enumerate() {
        let mut ratio = match e.ratio_to_reference {
            _ if i == 0 => "reference".into(),
            Some(r) => format!("{r:.2}× on {}", e.common),
            None => "-".into(),
        };
        if e.unsupported > 0 {
            ratio += &format!("; cannot run {} instance(s)", e.unsupported);
        }
        s += &format!(
            "{:<14} {:>6} {:>5} {:>5} {:>8} {:>6} {:>9} {:>9}  {}\n",
            e.engine,
            e.solved,
            e.sat,
            e.unsat,
            e.timeouts,
            e.errors,
            e.median_time_ms.map_or("-".into(), fmt_ms),
            fmt_ms(e.total_time_ms),
            ratio
        );
    }
    for e in summary {
        if let (Some(k), Some(t), Some(plain), Some(b)) = (
            e.proofs,
            e.proof_time_ms,
            e.proven_plain_time_ms,
            e.proof_bytes,
        ) {
            let price = if plain > 0.0 {
                format!(", {:.2}× the plain answers' time", t / plain)
            } else {
                String::new()
            };
            s += &format!(
                "{:<14} {k} unsat answers proven and checked: {} in all{price}, {}\n",
                e.engine,
                fmt_ms(t),
                fmt_bytes(b)
            );
        }
    }
    s += &format!(
        "limit {} per attempt, {} instance(s) at a time; times are engine time (SAT includes \
         encoding); every reported board was verified\n",
        fmt_seconds(plan.timeout.as_secs_f64()),
        plan.jobs
    );
    s
}

/// What must not pass quietly: inputs that could not be run, engines disagreeing on an
/// instance, and attempts that failed (crashed, or reported a board the verifier rejects).
/// Empty when all is well.
pub fn problems(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for row in rows {
        if let Some(m) = &row.error {
            // Once, not once per engine: no engine ran.
            out.push(format!("{} was not run: {m}", row.id));
            continue;
        }
        if row.disagreement() {
            let said: Vec<String> = row
                .attempts
                .iter()
                .map(|a| format!("{} says {}", a.engine, a.outcome.name()))
                .collect();
            out.push(format!(
                "ENGINES DISAGREE on {}: {}",
                row.id,
                said.join(", ")
            ));
        }
        for a in &row.attempts {
            if let Some(m) = &a.error {
                out.push(format!("{} failed on {}: {m}", a.engine, row.id));
            }
        }
    }
    out
}

/// CSV, one line per attempt, with a header; the columns are named as in [`to_json`]. Fields
/// are quoted where they need it (an id or an error message with a comma, a quote or a line
/// break), as RFC 4180 says.
pub fn csv(rows: &[Row]) -> String {
    csv_columns(rows, false)
}

/// [`csv()`] of a run of `plan`: with proofs, five more columns: `proof_time_ms` (the certified
/// run), `proof_check_ms`, `proof_bytes`, `proof_lemmas` and `proof_path`.
pub fn plan_csv(plan: &Plan, rows: &[Row]) -> String {
    csv_columns(rows, plan.proof.is_some())
}

fn csv_columns(rows: &[Row], proofs: bool) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    let header = [
        "instance",
        "n",
        "engine",
        "status",
        "time_ms",
        "nodes",
        "learned",
        "vars",
        "clauses",
        "answered_by",
        "error",
        "proof_time_ms",
        "proof_check_ms",
        "proof_bytes",
        "proof_lemmas",
        "proof_path",
    ];
    let width = if proofs {
        header.len()
    } else {
        header.len() - 5
    };
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    // Writing into memory cannot fail: csv's only errors here would be the Vec's.
    out.write_record(&header[..width])
        .expect("writing CSV into memory");
    for row in rows {
        for a in &row.attempts {
            let r = a.report.as_ref();
            let err = a.error_text().unwrap_or_default();
            let info = a.proof.as_ref().and_then(|p| p.info.as_ref());
            let record = [
                row.id.clone(),
                row.n.map(|n| n.to_string()).unwrap_or_default(),
                a.engine.to_string(),
                a.outcome.name().to_string(),
                format!("{:.3}", a.time_ms),
                opt(r.and_then(|r| r.nodes)),
                opt(r.and_then(|r| r.learned)),
                opt(r.and_then(|r| r.vars.map(|v| v as u64))),
                opt(r.and_then(|r| r.clauses.map(|v| v as u64))),
                r.and_then(|r| r.answered_by)
                    .map_or("", EngineName::name)
                    .to_string(),
                err.to_string(),
                a.proof
                    .as_ref()
                    .map(|p| format!("{:.3}", p.time_ms))
                    .unwrap_or_default(),
                info.map(|p| format!("{:.3}", p.check_ms))
                    .unwrap_or_default(),
                opt(info.map(|p| p.bytes as u64)),
                opt(info.map(|p| p.lemmas)),
                info.and_then(|p| p.path.clone()).unwrap_or_default(),
            ];
            out.write_record(&record[..width])
                .expect("writing CSV into memory");
        }
    }
    let bytes = out.into_inner().expect("flushing CSV into memory");
    String::from_utf8(bytes).expect("CSV of UTF-8 strings is UTF-8")
}

/// The whole comparison as one JSON value. Fields are named as in the other commands' JSON:
/// `status` (of a row: the answer the engines agree on; of an attempt: how it ended), `n`,
/// `engine`, and `time_ms` (milliseconds).
pub fn to_json(plan: &Plan, rows: &[Row], summary: &[Summary]) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            let attempts: Vec<serde_json::Value> = row
                .attempts
                .iter()
                .map(|a| {
                    let r = a.report.as_ref();
                    serde_json::json!({
                        "engine": a.engine.to_string(),
                        "status": a.outcome.name(),
                        "time_ms": a.time_ms,
                        "nodes": r.and_then(|r| r.nodes),
                        "learned": r.and_then(|r| r.learned),
                        "vars": r.and_then(|r| r.vars),
                        "clauses": r.and_then(|r| r.clauses),
                        "answered_by": r.and_then(|r| r.answered_by).map(EngineName::name),
                        "steps": r.map(|r| &r.steps),
                        "error": a.error_text(),
                        "gave_up": a.gave_up(),
                        "proof_time_ms": a.proof.as_ref().map(|p| p.time_ms),
                        "proof": a.proof.as_ref().and_then(|p| p.info.as_ref()),
                    })
                })
                .collect();
            serde_json::json!({
                "id": row.id,
                "n": row.n,
                "status": row.status_name(),
                "error": row.error,
                "attempts": attempts,
            })
        })
        .collect();
    serde_json::json!({
        "engines": plan.engines.iter().map(|e| e.to_string()).collect::<Vec<_>>(),
        "proof_format": plan.proof,
        "timeout_ms": plan.timeout.as_secs_f64() * 1e3,
        "jobs": plan.jobs,
        "instances": rows,
        "summary": summary,
    })
}

/// Whether [`plot`] can draw these engines: it needs a reference (x axis) and one more.
pub fn check_plot(engines: &[EngineSpec]) -> Result<(), queens_model::error::Error> {
    if engines.len() < 2 {
        return Err(queens_model::error::Error::unsupported(
            "--plot needs at least two engines (the first is the x axis)".into(),
        ));
    }
    Ok(())
}

/// Writes the --plot scatter: each engine's time against the first engine's, per instance.
pub fn plot(path: &Path, plan: &Plan, rows: &[Row]) -> Result<(), queens_model::error::Error> {
    check_plot(&plan.engines)?;
    let series: Vec<crate::plot::Series> = (1..plan.engines.len())
        .map(|e| crate::plot::Series {
            label: plan.engines[e].to_string(),
            points: rows
                .iter()
                .filter(|r| !matches!(r.attempts[0].outcome, Status::Error | Status::Unsupported))
                .filter(|r| !matches!(r.attempts[e].outcome, Status::Error | Status::Unsupported))
                .map(|r| crate::plot::Point {
                    x: r.attempts[0].time_ms / 1e3,
                    y: r.attempts[e].time_ms / 1e3,
                    satisfiable: r.status(),
                    x_timed_out: r.attempts[0].outcome == Status::Timeout,
                    y_timed_out: r.attempts[e].outcome == Status::Timeout,
                })
                .collect(),
        })
        .collect();
    let reference = plan.engines[0].to_string();
    crate::plot::scatter_svg(
        path,
        &format!("{} instances: time per instance", rows.len()),
        &format!("{reference} seconds"),
        "other engine seconds",
        &series,
        Some(plan.timeout.as_secs_f64()),
    )
}
