//! `queens rings`: how many queens each concentric ring of a solution can hold.

use std::io::Write;

use queens::Error;

use crate::output::Failure;

/// `queens rings`: the bounds of every ring, with the paper's n = 8 table beside ours.
pub(crate) fn run(out: &mut impl Write, n: usize, json: bool) -> Result<u8, Failure> {
    use queens::cnf::rings::{bounds, PAPER_N8};
    if n == 0 || n > queens::model::MAX_N {
        return Err(
            Error::unsupported(format!("--n must be from 1 to {}", queens::model::MAX_N)).into(),
        );
    }
    let b = bounds(n);
    let paper = |k: usize| (n == 8).then(|| PAPER_N8[k]);
    if json {
        let rings: Vec<serde_json::Value> = b
            .iter()
            .map(|r| {
                let mut v = serde_json::json!({
                    "ring": r.ring, "cells": r.cells, "min": r.min, "max": r.max,
                });
                if let Some((_, lo, hi)) = paper(r.ring) {
                    v["paper"] = serde_json::json!({"min": lo, "max": hi});
                }
                v
            })
            .collect();
        writeln!(out, "{}", serde_json::json!({"n": n, "rings": rings}))?;
        return Ok(0);
    }
    writeln!(
        out,
        "ring  cells  min  max{}",
        if n == 8 { "   paper (2021)" } else { "" }
    )?;
    for r in &b {
        let p = paper(r.ring).map_or(String::new(), |(_, lo, hi)| format!("   {lo}–{hi}"));
        writeln!(
            out,
            "{:>4}  {:>5}  {:>3}  {:>3}{p}",
            r.ring, r.cells, r.min, r.max
        )?;
    }
    writeln!(
        out,
        "ring 0 is the border; the counts of a solution sum to {n} (bounds: docs/sat-solvers.md)"
    )?;
    Ok(0)
}
