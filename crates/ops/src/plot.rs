//! Log-log scatter plots of two engines' times per instance, and histograms of game scores,
//! written as SVG.
//!
//! The usual way to compare solvers (one point per instance, reference engine on x, the other
//! on y, the diagonal y = x): points below the diagonal are instances where the other engine is
//! faster. Shapes say how the instance ended, colours which engine pair a point belongs to.

use std::path::Path;

use plotters::coord::{CoordTranslate, Shift};
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;

use queens_model::error::Error;

/// Times at or below this many seconds (including 0 and negative ones) are drawn here, so the
/// log scale always has a finite lower end.
pub const MIN_SECONDS: f64 = 1e-4;

/// One instance in a scatter: x = reference engine seconds, y = other engine seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Seconds the reference engine took.
    pub x: f64,
    /// Seconds the other engine took.
    pub y: f64,
    /// Whether the instance has a solution (`None` when no run finished).
    pub satisfiable: Option<bool>,
    /// The reference run hit the time limit (drawn at the timeout).
    pub x_timed_out: bool,
    /// The other run hit the time limit (drawn at the timeout).
    pub y_timed_out: bool,
}

/// One engine's points (label shown in the legend).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// One point per instance.
    pub points: Vec<Point>,
}

/// Writes a log-log scatter plot as SVG: one colour per series, SAT instances as circles, UNSAT as crosses (unknown status = triangles), a dashed y = x line, and timed-out runs drawn at the `timeout` value (pass Some(secs) if any timed out) with the axis range covering it.
///
/// Times are clamped to at least [`MIN_SECONDS`]; points with a NaN or infinite time that did
/// not time out are left out. A timed-out run with `timeout` `None` is drawn at its own time.
/// Both axes share one range, whole powers of ten, so the diagonal runs corner to corner.
pub fn scatter_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    timeout: Option<f64>,
) -> Result<(), Error> {
    let timeout = timeout.filter(|t| t.is_finite()).map(clamp);
    let placed: Vec<Vec<(f64, f64, Option<bool>)>> = series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter_map(|p| {
                    let x = place(p.x, p.x_timed_out, timeout)?;
                    let y = place(p.y, p.y_timed_out, timeout)?;
                    Some((x, y, p.satisfiable))
                })
                .collect()
        })
        .collect();
    let range = axis_range(placed.iter().flatten().map(|&(x, y, _)| (x, y)), timeout);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 640)).into_drawing_area();
        draw(
            &root, title, x_label, y_label, series, &placed, range, timeout,
        )
        .map_err(|e| plot_error(path, e))?;
        root.present().map_err(|e| plot_error(path, e))?;
    }
    std::fs::write(path, svg).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Writes a bar chart as SVG: one bar per integer `x` (a score) with its count, every `x`
/// from the lowest to the highest given drawn (empty ones as gaps), the y axis from 0. Used
/// for the Queen's Collection's score distributions (`queens collection simulate --plot`).
pub fn histogram_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    bars: &[(i32, u64)],
) -> Result<(), Error> {
    let lo = bars.iter().map(|b| b.0).min().unwrap_or(0);
    let hi = bars.iter().map(|b| b.0).max().unwrap_or(0);
    let top = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 480)).into_drawing_area();
        draw_histogram(&root, title, x_label, y_label, bars, (lo, hi), top)
            .map_err(|e| plot_error(path, e))?;
        root.present().map_err(|e| plot_error(path, e))?;
    }
    std::fs::write(path, svg).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn draw_histogram(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    bars: &[(i32, u64)],
    (lo, hi): (i32, i32),
    top: u64,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    root.fill(&WHITE)?;
    let x_range = f64::from(lo) - 0.5..f64::from(hi) + 0.5;
    let y_range = 0.0..top as f64 * 1.05;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d(x_range, y_range)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;
    let colour = Palette99::pick(0).to_rgba();
    chart.draw_series(bars.iter().map(|&(x, n)| {
        let x = f64::from(x);
        Rectangle::new([(x - 0.4, 0.0), (x + 0.4, n as f64)], colour.filled())
    }))?;
    Ok(())
}

fn clamp(v: f64) -> f64 {
    if v > MIN_SECONDS {
        v
    } else {
        MIN_SECONDS
    }
}

/// Where a time is drawn, or `None` when it cannot be drawn (NaN or infinite, not timed out).
fn place(v: f64, timed_out: bool, timeout: Option<f64>) -> Option<f64> {
    match (timed_out, timeout) {
        (true, Some(t)) => Some(t),
        _ if v.is_nan() || v == f64::INFINITY => None,
        _ => Some(clamp(v)),
    }
}

/// Whole powers of ten around every point and the timeout (at least one decade wide).
fn axis_range(points: impl Iterator<Item = (f64, f64)>, timeout: Option<f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in points.flat_map(|(x, y)| [x, y]).chain(timeout) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (1e-3, 1.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    (lo, hi)
}

/// Seconds as tick text: `1e-3`, `0.01`, `1`, `100`, `1e4`.
fn seconds_label(v: f64) -> String {
    if (1e-2..1e4).contains(&v) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

fn plot_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(format!("could not draw the plot: {e}")),
    }
}

const MARKER: i32 = 4;

#[allow(clippy::too_many_arguments)]
fn draw(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    placed: &[Vec<(f64, f64, Option<bool>)>],
    (lo, hi): (f64, f64),
    timeout: Option<f64>,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    root.fill(&WHITE)?;
    // plotters finds the first tick as 10^ceil(ln(lo) / ln(10)), which rounding can push one
    // decade up (1e-4 came out as 1e-3): widen the range a hair so both ends get their tick.
    let (lo, hi) = (lo * (1.0 - 1e-9), hi * (1.0 + 1e-9));
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&|v| seconds_label(*v))
        .y_label_formatter(&|v| seconds_label(*v))
        .light_line_style(WHITE.mix(0.0))
        .draw()?;

    chart
        .draw_series(DashedLineSeries::new(
            [(lo, lo), (hi, hi)],
            6,
            4,
            BLACK.mix(0.6).stroke_width(1),
        ))?
        .label("y = x")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.mix(0.6)));
    if let Some(t) = timeout {
        let grey = BLACK.mix(0.35).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new([(t, lo), (t, hi)], 2, 3, grey))?
            .label(format!("timeout {}s", seconds_label(t)))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], grey));
        chart.draw_series(DashedLineSeries::new([(lo, t), (hi, t)], 2, 3, grey))?;
    }

    for (i, (s, points)) in series.iter().zip(placed).enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let style = colour.stroke_width(2);
        chart
            .draw_series(points.iter().map(|&(x, y, sat)| marker((x, y), sat, style)))?
            .label(s.label.as_str())
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 4), (x + 12, y + 4)], colour.filled()).into_dyn()
            });
    }
    // Shape key in black, only for the outcomes that occur.
    let statuses = [
        (Some(true), "SAT"),
        (Some(false), "UNSAT"),
        (None, "unknown"),
    ];
    for (status, name) in statuses {
        if placed.iter().flatten().any(|&(_, _, s)| s == status) {
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())?
                .label(name)
                .legend(move |(x, y)| marker((x + 6, y), status, BLACK.stroke_width(2)));
        }
    }
    legend(&mut chart)
}

/// The series' legend, top left on a light box: the same on every plot.
fn legend<'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, CT>,
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
}

/// Circle for SAT, cross for UNSAT, triangle for unknown.
fn marker<'a, 'd, C: Clone + 'a>(
    at: C,
    status: Option<bool>,
    style: ShapeStyle,
) -> DynElement<'a, SVGBackend<'d>, C>
where
    Circle<C, i32>: Drawable<SVGBackend<'d>>,
    Cross<C, i32>: Drawable<SVGBackend<'d>>,
    TriangleMarker<C, i32>: Drawable<SVGBackend<'d>>,
    for<'b> &'b Circle<C, i32>: PointCollection<'b, C>,
    for<'b> &'b Cross<C, i32>: PointCollection<'b, C>,
    for<'b> &'b TriangleMarker<C, i32>: PointCollection<'b, C>,
{
    match status {
        Some(true) => Circle::new(at, MARKER, style).into_dyn(),
        Some(false) => Cross::new(at, MARKER, style).into_dyn(),
        None => TriangleMarker::new(at, MARKER, style).into_dyn(),
    }
}

/// Writes a line plot as SVG: one line with markers per series of (x, seconds) points, the
/// y axis logarithmic (whole decades, times clamped to at least [`MIN_SECONDS`]), and a dashed
/// line at `limit` seconds.
pub fn growth_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
    limit: Option<f64>,
) -> Result<(), Error> {
    let pts = || series.iter().flat_map(|s| s.1.iter().copied());
    let (mut x0, mut x1) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
        (a.min(p.0), b.max(p.0))
    });
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    let (x0, x1) = (x0 - 0.5, x1 + 0.5);
    let (lo, hi) = axis_range(pts().map(|p| (clamp(p.1), clamp(p.1))), limit.map(clamp));
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    let draw = || -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
        root.fill(&WHITE)?;
        let (lo, hi) = (lo * (1.0 - 1e-9), hi * (1.0 + 1e-9));
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .y_label_formatter(&|v| seconds_label(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        if let Some(t) = limit.map(clamp) {
            let grey = BLACK.mix(0.35).stroke_width(1);
            chart
                .draw_series(DashedLineSeries::new([(x0, t), (x1, t)], 2, 3, grey))?
                .label(format!("limit {}s", seconds_label(t)))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], grey));
        }
        for (i, (label, points)) in series.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            let placed: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x, clamp(y))).collect();
            chart
                .draw_series(LineSeries::new(placed.clone(), colour.stroke_width(2)))?
                .label(label.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 4), (x + 12, y + 4)], colour.filled()).into_dyn()
                });
            chart.draw_series(
                placed
                    .iter()
                    .map(|&p| Circle::new(p, MARKER, colour.stroke_width(2))),
            )?;
        }
        legend(&mut chart)?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| plot_error(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path for an SVG in a fresh folder, removed with the folder when dropped.
    fn temp(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix("queens-plot-")
            .tempdir()
            .unwrap();
        let path = dir.path().join(format!("{name}.svg"));
        (dir, path)
    }

    fn point(x: f64, y: f64, satisfiable: Option<bool>) -> Point {
        Point {
            x,
            y,
            satisfiable,
            x_timed_out: false,
            y_timed_out: false,
        }
    }

    fn write(name: &str, series: &[Series], timeout: Option<f64>) -> String {
        let (_dir, path) = temp(name);
        scatter_svg(&path, "title", "backtrack (s)", "sat (s)", series, timeout).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        svg
    }

    #[test]
    fn writes_svg_with_labels_and_all_shapes() {
        let series = [
            Series {
                label: "sat auto".into(),
                points: vec![
                    point(0.5, 0.01, Some(true)),
                    point(2.0, 3.0, Some(false)),
                    point(0.0, -1.0, None),
                ],
            },
            Series {
                label: "sat seq".into(),
                points: vec![point(1e-7, 1e3, Some(true)), point(f64::NAN, 1.0, None)],
            },
        ];
        let svg = write("labels", &series, None);
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        for text in [
            "sat auto", "sat seq", "y = x", "SAT", "UNSAT", "unknown", "title",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
        assert!(svg.contains("<circle"));
    }

    #[test]
    fn empty_input_still_writes_a_plot() {
        assert!(write("empty", &[], None).starts_with("<svg"));
        let empty = [Series {
            label: "nothing".into(),
            points: Vec::new(),
        }];
        let svg = write("empty-series", &empty, Some(10.0));
        assert!(svg.starts_with("<svg") && svg.contains("nothing"));
    }

    #[test]
    fn timeouts_are_drawn_at_the_limit_inside_the_range() {
        let series = [Series {
            label: "hard".into(),
            points: vec![
                Point {
                    x_timed_out: true,
                    ..point(f64::INFINITY, 0.2, Some(true))
                },
                Point {
                    y_timed_out: true,
                    ..point(0.3, 99.0, None)
                },
            ],
        }];
        let svg = write("timeouts", &series, Some(60.0));
        assert!(svg.contains("timeout 60s") && svg.contains("hard"));
        let placed = [(60.0, 0.2), (0.3, 60.0)];
        assert_eq!(axis_range(placed.into_iter(), Some(60.0)), (0.1, 100.0));
    }

    #[test]
    fn range_is_whole_decades_and_never_empty() {
        assert_eq!(axis_range(std::iter::empty(), None), (1e-3, 1.0));
        assert_eq!(axis_range([(1.0, 1.0)].into_iter(), None), (1.0, 10.0));
        assert_eq!(place(-3.0, false, None), Some(MIN_SECONDS));
        assert_eq!(place(f64::NAN, false, Some(5.0)), None);
        assert_eq!(place(f64::NAN, true, Some(5.0)), Some(5.0));
    }

    #[test]
    fn histogram_writes_bars_and_labels() {
        let (_dir, path) = temp("histogram");
        histogram_svg(
            &path,
            "greedy, normal",
            "score",
            "deals",
            &[(-3, 5), (0, 12), (24, 1)],
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("greedy, normal") && svg.contains("score"));
        assert!(svg.matches("<rect").count() >= 3);
        let (_empty_dir, empty) = temp("histogram-empty");
        histogram_svg(&empty, "t", "x", "y", &[]).unwrap();
        std::fs::remove_file(&empty).unwrap();
    }

    #[test]
    fn unwritable_path_is_an_io_error() {
        let path = Path::new("/nonexistent-dir/x/plot.svg");
        let err = scatter_svg(path, "t", "x", "y", &[], None).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
    }
}
