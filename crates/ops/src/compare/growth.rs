//! How each engine's time grows with the board size: per-size medians, an exponential fit
//! per engine with its interval, as a table and a plot.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::report::fmt_ms;
use super::{median, EngineSpec, Row, Status};

/// One engine at one board size, for the growth table.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GrowthPoint {
    /// Engine name.
    pub engine: String,
    /// Board size.
    pub n: usize,
    /// Instances of this size that ran.
    pub instances: usize,
    /// Of which answered within the limit (every board verified).
    pub solved: usize,
    /// `solved / instances`.
    pub share_solved: f64,
    /// Median milliseconds, a timeout counting as longer than any answer; `None` when half
    /// or more of the instances timed out (the median is then past the limit).
    pub median_time_ms: Option<f64>,
}

/// The fitted growth of one engine's median time: time ≈ a·bⁿ, by least squares on the
/// logarithms of the medians (sizes whose median is past the limit are left out).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GrowthFit {
    /// Engine name.
    pub engine: String,
    /// Board sizes fitted.
    pub points: usize,
    /// The growth rate per extra row; `None` with fewer than two sizes.
    pub b: Option<f64>,
    /// `b` at minus and plus two standard errors of the slope (three sizes or more).
    pub b_low: Option<f64>,
    /// See `b_low`.
    pub b_high: Option<f64>,
    /// `a` in milliseconds.
    pub a_ms: Option<f64>,
}

/// Per engine and board size: instances, share solved and median time; then per engine the
/// fitted growth rate. Rows whose input could not be read are left out.
pub fn growth(engines: &[EngineSpec], rows: &[Row]) -> (Vec<GrowthPoint>, Vec<GrowthFit>) {
    let mut sizes: Vec<usize> = rows
        .iter()
        .filter(|r| r.error.is_none())
        .filter_map(|r| r.n)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut points = Vec::new();
    let mut fits = Vec::new();
    for (e, spec) in engines.iter().enumerate() {
        let mut mine = Vec::new();
        for &n in &sizes {
            let mut times: Vec<f64> = rows
                .iter()
                .filter(|r| r.error.is_none() && r.n == Some(n))
                .map(|r| &r.attempts[e])
                // An engine that cannot run at this size has no point here.
                .filter(|a| a.outcome != Status::Unsupported)
                .map(|a| match a.outcome {
                    Status::Sat | Status::Unsat => a.time_ms,
                    _ => f64::INFINITY,
                })
                .collect();
            times.sort_by(f64::total_cmp);
            if times.is_empty() {
                continue;
            }
            let solved = times.iter().filter(|t| t.is_finite()).count();
            let p = GrowthPoint {
                engine: spec.to_string(),
                n,
                instances: times.len(),
                solved,
                share_solved: solved as f64 / times.len().max(1) as f64,
                median_time_ms: median(&times).filter(|m| m.is_finite()),
            };
            mine.push(p);
        }
        fits.push(fit(&spec.to_string(), &mine));
        points.extend(mine);
    }
    (points, fits)
}

fn fit(engine: &str, points: &[GrowthPoint]) -> GrowthFit {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|p| {
            p.median_time_ms
                .filter(|&m| m > 0.0)
                .map(|m| (p.n as f64, m.ln()))
        })
        .collect();
    let k = xy.len();
    let mut f = GrowthFit {
        engine: engine.to_string(),
        points: k,
        b: None,
        b_low: None,
        b_high: None,
        a_ms: None,
    };
    if k < 2 {
        return f;
    }
    let mx = xy.iter().map(|p| p.0).sum::<f64>() / k as f64;
    let my = xy.iter().map(|p| p.1).sum::<f64>() / k as f64;
    let sxx: f64 = xy.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = xy.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    f.b = Some(slope.exp());
    f.a_ms = Some(intercept.exp());
    if k >= 3 {
        let ssr: f64 = xy
            .iter()
            .map(|p| (p.1 - intercept - slope * p.0).powi(2))
            .sum();
        let se = (ssr / (k as f64 - 2.0) / sxx).sqrt();
        f.b_low = Some((slope - 2.0 * se).exp());
        f.b_high = Some((slope + 2.0 * se).exp());
    }
    f
}

/// The growth table (one line per n, one column per engine: median and solved/instances)
/// and the fitted rates.
pub fn growth_text(engines: &[EngineSpec], points: &[GrowthPoint], fits: &[GrowthFit]) -> String {
    let mut s = format!("{:>4}", "n");
    for e in engines {
        s += &format!("  {:>24}", e.to_string());
    }
    s += "\n";
    let mut sizes: Vec<usize> = points.iter().map(|p| p.n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for n in sizes {
        s += &format!("{n:>4}");
        for e in engines {
            let name = e.to_string();
            let cell =
                points
                    .iter()
                    .find(|p| p.n == n && p.engine == name)
                    .map_or("-".to_string(), |p| {
                        format!(
                            "{} {}/{}",
                            p.median_time_ms.map_or(">limit".into(), fmt_ms),
                            p.solved,
                            p.instances
                        )
                    });
            s += &format!("  {cell:>24}");
        }
        s += "\n";
    }
    s += "median time, solved/instances within the limit; growth time ≈ a·bⁿ fitted to the medians:\n";
    for f in fits {
        let b = match (f.b, f.b_low, f.b_high) {
            (Some(b), Some(lo), Some(hi)) => format!("b = {b:.3} ({lo:.3}–{hi:.3}, ±2 s.e.)"),
            (Some(b), _, _) => format!("b = {b:.3} (two sizes: no spread)"),
            _ => "b: fewer than two sizes with a median under the limit".to_string(),
        };
        s += &format!("{:<28} {b} over {} sizes\n", f.engine, f.points);
    }
    s
}

/// Writes the growth plot: each engine's median time against n (log scale), timeouts and
/// medians past the limit left out.
pub fn growth_plot(
    path: &Path,
    engines: &[EngineSpec],
    points: &[GrowthPoint],
    timeout: Duration,
) -> Result<(), queens_model::error::Error> {
    let series: Vec<(String, Vec<(f64, f64)>)> = engines
        .iter()
        .map(|e| {
            let name = e.to_string();
            let pts = points
                .iter()
                .filter(|p| p.engine == name)
                .filter_map(|p| p.median_time_ms.map(|m| (p.n as f64, m / 1e3)))
                .collect();
            (name, pts)
        })
        .collect();
    crate::plot::growth_svg(
        path,
        "median time per board size",
        "n",
        "median seconds",
        &series,
        Some(timeout.as_secs_f64()),
    )
}
