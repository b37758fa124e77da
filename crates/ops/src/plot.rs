//! Log-log scatter plots of two engines' times per instance, line plots of times against a
//! size, and histograms of game scores, written as SVG.
//!
//! The usual way to compare solvers (one point per instance, reference engine on x, the other
//! on y, the diagonal y = x): points below the diagonal are instances where the other engine is
//! faster. Shapes say how the instance ended, colours which engine pair a point belongs to.
//!
//! What a plot shows is what was measured: every time is drawn at its own value (the axes
//! reach a decade past the smallest and the largest), ticks read in the data's units (`8`,
//! `1e-5`), the legend sits beside the data, never over it, and points that would hide each
//! other are told apart (side by side for different engines, one marker with a count for one
//! engine's).

use std::path::Path;

use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use queens_model::error::Error;

/// The clock's resolution, in seconds: times are measured in whole microseconds, so a time
/// of 0 (under a microsecond) is drawn here, the one value a log axis cannot show. Every
/// other time is drawn at its own value.
pub const MIN_SECONDS: f64 = 1e-6;

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

/// Width of the legend's column, right of the data, in pixels.
const LEGEND_WIDTH: u32 = 200;

/// Writes a log-log scatter plot as SVG: one colour per series, SAT instances as circles, UNSAT as crosses (unknown status = triangles), a dashed y = x line, and timed-out runs drawn at the `timeout` value (pass Some(secs) if any timed out) with the axis range covering it.
///
/// Times under [`MIN_SECONDS`] (0, the clock's resolution) are drawn at it; points with a
/// NaN or infinite time that did not time out are left out. A timed-out run with `timeout`
/// `None` is drawn at its own time. Both axes share one range, whole powers of ten from the
/// one below the smallest time to the one above the largest, so the diagonal runs corner to
/// corner. Points of several series at one spot are drawn side by side; several points of
/// one series at one spot are one marker with their count (`×2`).
pub fn scatter_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    timeout: Option<f64>,
) -> Result<(), Error> {
    let timeout = timeout.filter(|t| t.is_finite()).map(floor);
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
    let range = axis_range(
        placed.iter().flatten().flat_map(|&(x, y, _)| [x, y]),
        timeout,
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720 + LEGEND_WIDTH, 640)).into_drawing_area();
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

/// A time as drawn: at least [`MIN_SECONDS`].
fn floor(v: f64) -> f64 {
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
        _ => Some(floor(v)),
    }
}

/// The largest power of ten strictly below `v` (> 0).
fn decade_below(v: f64) -> f64 {
    let mut d = v.log10().floor();
    while 10f64.powf(d) >= v {
        d -= 1.0;
    }
    while 10f64.powf(d + 1.0) < v {
        d += 1.0;
    }
    10f64.powf(d)
}

/// The smallest power of ten strictly above `v` (> 0).
fn decade_above(v: f64) -> f64 {
    let mut d = v.log10().ceil();
    while 10f64.powf(d) <= v {
        d += 1.0;
    }
    while 10f64.powf(d - 1.0) > v {
        d -= 1.0;
    }
    10f64.powf(d)
}

/// Whole powers of ten strictly around every value and the timeout, so that none is drawn
/// on an axis.
fn axis_range(values: impl Iterator<Item = f64>, timeout: Option<f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.chain(timeout) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (1e-3, 1.0);
    }
    (decade_below(lo), decade_above(hi))
}

/// Seconds as tick text: `1e-3`, `0.01`, `1`, `100`, `1e4`.
fn seconds_label(v: f64) -> String {
    if (1e-2..1e4).contains(&v) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// A linear tick in the data's units: `8`, not `8.0`; `7.5` where a tick falls between.
fn number_label(v: f64) -> String {
    let r = v.round();
    if (v - r).abs() < 1e-9 * v.abs().max(1.0) {
        format!("{}", r as i64)
    } else {
        format!("{v}")
    }
}

fn plot_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(format!("could not draw the plot: {e}")),
    }
}

const MARKER: i32 = 4;

/// Markers side by side at one spot are this far apart, in pixels.
const SPREAD: i32 = 2 * MARKER + 3;

/// What the legend shows for an entry.
enum Key {
    /// A series' colour.
    Swatch(RGBAColor),
    /// A dashed line (y = x, the limit).
    Line(ShapeStyle),
    /// A shape (SAT, UNSAT, unknown), in black.
    Shape(Option<bool>),
    /// Text alone (how overlapping points are drawn).
    Note,
}

/// The legend, in its own column right of the data: one entry a line.
fn legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    entries: &[(Key, String)],
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let font =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (key, label)) in entries.iter().enumerate() {
        let y = 60 + 22 * i as i32;
        let x = 10;
        match key {
            Key::Swatch(c) => {
                area.draw(&Rectangle::new([(x, y - 4), (x + 12, y + 4)], c.filled()))?
            }
            Key::Line(style) => area.draw(&PathElement::new([(x, y), (x + 16, y)], *style))?,
            Key::Shape(status) => area.draw(&marker((x + 6, y), *status, BLACK.stroke_width(2)))?,
            Key::Note => {}
        }
        let at = if matches!(key, Key::Note) { x } else { x + 24 };
        area.draw(&Text::new(label.clone(), (at, y), font.clone()))?;
    }
    Ok(())
}

/// One marker to draw: where (pixels), its series, shape, and how many points it stands for.
struct Mark {
    at: (i32, i32),
    series: usize,
    status: Option<bool>,
    count: usize,
}

/// The markers for points at pixel positions `points` (series, shape, where): points of one
/// series and shape closer than a marker become one marker with their count, at their
/// mean position; then markers of different series closer than a marker are put side by
/// side around their mean position. Returns the markers and whether each rule was used.
fn marks(points: &[(usize, Option<bool>, (i32, i32))]) -> (Vec<Mark>, bool, bool) {
    let near = |a: (i32, i32), b: (i32, i32)| {
        (a.0 - b.0).abs() < 2 * MARKER && (a.1 - b.1).abs() < 2 * MARKER
    };
    let mut marks: Vec<(Mark, (i64, i64))> = Vec::new();
    for &(series, status, at) in points {
        match marks
            .iter_mut()
            .find(|(m, _)| m.series == series && m.status == status && near(m.at, at))
        {
            Some((m, sum)) => {
                m.count += 1;
                sum.0 += i64::from(at.0);
                sum.1 += i64::from(at.1);
                let c = m.count as i64;
                m.at = ((sum.0 / c) as i32, (sum.1 / c) as i32);
            }
            None => marks.push((
                Mark {
                    at,
                    series,
                    status,
                    count: 1,
                },
                (i64::from(at.0), i64::from(at.1)),
            )),
        }
    }
    let mut marks: Vec<Mark> = marks.into_iter().map(|(m, _)| m).collect();
    let counted = marks.iter().any(|m| m.count > 1);
    // Clusters of markers that would overlap, spread along x in series order.
    let mut spread = false;
    let mut done = vec![false; marks.len()];
    for i in 0..marks.len() {
        if done[i] {
            continue;
        }
        let mut cluster = vec![i];
        let mut k = 0;
        while k < cluster.len() {
            let at = marks[cluster[k]].at;
            for (j, m) in marks.iter().enumerate() {
                if !done[j] && !cluster.contains(&j) && near(m.at, at) {
                    cluster.push(j);
                }
            }
            done[cluster[k]] = true;
            k += 1;
        }
        if cluster.len() < 2 {
            continue;
        }
        spread = true;
        cluster.sort_by_key(|&j| (marks[j].series, marks[j].status.map_or(2, u8::from)));
        let n = cluster.len() as i32;
        let cx = cluster.iter().map(|&j| marks[j].at.0).sum::<i32>() / n;
        let cy = cluster.iter().map(|&j| marks[j].at.1).sum::<i32>() / n;
        for (k, &j) in cluster.iter().enumerate() {
            marks[j].at = (cx + (2 * k as i32 - (n - 1)) * SPREAD / 2, cy);
        }
    }
    (marks, counted, spread)
}

/// Draws `marks` on `root` in the series' colours, with a `×k` beside those that stand for
/// k > 1 points.
fn draw_marks(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    marks: &[Mark],
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    let font =
        TextStyle::from(("sans-serif", 12).into_font()).pos(Pos::new(HPos::Left, VPos::Bottom));
    for m in marks {
        let style = Palette99::pick(m.series).to_rgba().stroke_width(2);
        root.draw(&marker(m.at, m.status, style))?;
        if m.count > 1 {
            let at = (m.at.0 + MARKER + 1, m.at.1 - MARKER - 1);
            root.draw(&Text::new(format!("×{}", m.count), at, font.clone()))?;
        }
    }
    Ok(())
}

/// The notes that say how overlapping points are drawn, for the legend.
fn overlap_notes(counted: bool, spread: bool) -> Vec<(Key, String)> {
    let mut notes = Vec::new();
    if counted {
        notes.push((Key::Note, "×k: k instances at one spot".to_string()));
    }
    if spread {
        notes.push((Key::Note, "side by side: one spot".to_string()));
    }
    notes
}

/// A frame round the data area, so that "inside the axes" can be seen (and read back).
fn frame(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    (xs, ys): (std::ops::Range<i32>, std::ops::Range<i32>),
) -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
    root.draw(&Rectangle::new(
        [(xs.start, ys.start), (xs.end, ys.end)],
        BLACK.mix(0.5).stroke_width(1),
    ))
}

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
    let (width, _) = root.dim_in_pixel();
    let (data, key) = root.split_horizontally(width - LEGEND_WIDTH);
    // plotters finds the first tick as 10^ceil(ln(lo) / ln(10)), which rounding can push one
    // decade up (1e-4 came out as 1e-3): widen the range a hair so both ends get their tick.
    let (lo, hi) = (lo * (1.0 - 1e-9), hi * (1.0 + 1e-9));
    let mut chart = ChartBuilder::on(&data)
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
    frame(root, chart.plotting_area().get_pixel_range())?;

    let diagonal = BLACK.mix(0.6).stroke_width(1);
    chart.draw_series(DashedLineSeries::new([(lo, lo), (hi, hi)], 6, 4, diagonal))?;
    let mut entries = vec![(Key::Line(diagonal), "y = x".to_string())];
    if let Some(t) = timeout {
        let grey = BLACK.mix(0.35).stroke_width(1);
        chart.draw_series(DashedLineSeries::new([(t, lo), (t, hi)], 2, 3, grey))?;
        chart.draw_series(DashedLineSeries::new([(lo, t), (hi, t)], 2, 3, grey))?;
        entries.push((Key::Line(grey), format!("timeout {}s", seconds_label(t))));
    }
    let mut at = Vec::new();
    for (i, points) in placed.iter().enumerate() {
        for &(x, y, sat) in points {
            at.push((i, sat, chart.backend_coord(&(x, y))));
        }
    }
    let (marks, counted, spread) = marks(&at);
    draw_marks(root, &marks)?;
    for (i, s) in series.iter().enumerate() {
        entries.push((Key::Swatch(Palette99::pick(i).to_rgba()), s.label.clone()));
    }
    // Shape key in black, only for the outcomes that occur.
    let statuses = [
        (Some(true), "SAT"),
        (Some(false), "UNSAT"),
        (None, "unknown"),
    ];
    for (status, name) in statuses {
        if placed.iter().flatten().any(|&(_, _, s)| s == status) {
            entries.push((Key::Shape(status), name.to_string()));
        }
    }
    entries.extend(overlap_notes(counted, spread));
    legend(&key, &entries)
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
/// y axis logarithmic (whole decades strictly around the times; times under
/// [`MIN_SECONDS`] drawn at it), x ticks in the x values' units (whole numbers for whole
/// sizes), a dashed line at `limit` seconds, and the legend beside the data. Points of
/// several series at one spot are drawn side by side.
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
    // Whole sizes get one tick each (at most 12): a tick step of at least 1.
    let ticks = ((x1 - x0).round() as usize + 1).clamp(1, 12);
    let (x0, x1) = (x0 - 0.5, x1 + 0.5);
    let limit = limit.filter(|t| t.is_finite()).map(floor);
    let (lo, hi) = axis_range(pts().map(|p| floor(p.1)), limit);
    let root = SVGBackend::new(path, (800 + LEGEND_WIDTH, 560)).into_drawing_area();
    let draw = || -> Result<(), DrawingAreaErrorKind<std::io::Error>> {
        root.fill(&WHITE)?;
        let (width, _) = root.dim_in_pixel();
        let (data, key) = root.split_horizontally(width - LEGEND_WIDTH);
        let (lo, hi) = (lo * (1.0 - 1e-9), hi * (1.0 + 1e-9));
        let mut chart = ChartBuilder::on(&data)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_labels(ticks)
            .x_label_formatter(&|v| number_label(*v))
            .y_label_formatter(&|v| seconds_label(*v))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        frame(&root, chart.plotting_area().get_pixel_range())?;
        let mut entries = Vec::new();
        if let Some(t) = limit {
            let grey = BLACK.mix(0.35).stroke_width(1);
            chart.draw_series(DashedLineSeries::new([(x0, t), (x1, t)], 2, 3, grey))?;
            entries.push((Key::Line(grey), format!("limit {}s", seconds_label(t))));
        }
        let mut at = Vec::new();
        for (i, (label, points)) in series.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            let placed: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x, floor(y))).collect();
            chart.draw_series(LineSeries::new(placed.clone(), colour.stroke_width(2)))?;
            at.extend(
                placed
                    .iter()
                    .map(|p| (i, Some(true), chart.backend_coord(p))),
            );
            entries.push((Key::Swatch(colour), label.clone()));
        }
        let (marks, counted, spread) = marks(&at);
        draw_marks(&root, &marks)?;
        entries.extend(overlap_notes(counted, spread));
        legend(&key, &entries)?;
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
        let placed = [60.0, 0.2, 0.3, 60.0];
        assert_eq!(axis_range(placed.into_iter(), Some(60.0)), (0.1, 100.0));
    }

    #[test]
    fn range_is_whole_decades_strictly_around_the_data_and_never_empty() {
        assert_eq!(axis_range(std::iter::empty(), None), (1e-3, 1.0));
        assert_eq!(axis_range([1.0].into_iter(), None), (0.1, 10.0));
        // Backtracker times of tens of microseconds: the axis goes down to them.
        assert_eq!(
            axis_range([29e-6, 55e-6].into_iter(), Some(60.0)),
            (1e-5, 100.0)
        );
        assert_eq!(axis_range([1e-4, 0.5].into_iter(), None), (1e-5, 1.0));
        assert_eq!(place(29e-6, false, None), Some(29e-6));
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

    /// The attributes of every `<tag …>` element of `svg`, with the text it holds.
    fn elements<'a>(svg: &'a str, tag: &str) -> Vec<(&'a str, &'a str)> {
        let open = format!("<{tag} ");
        svg.match_indices(&open)
            .map(|(at, _)| {
                let rest = &svg[at + open.len()..];
                let end = rest.find('>').unwrap();
                let attrs = &rest[..end];
                let inner = if attrs.ends_with('/') {
                    ""
                } else {
                    let body = &rest[end + 1..];
                    &body[..body.find('<').unwrap_or(0)]
                };
                (attrs, inner.trim())
            })
            .collect()
    }

    fn attr(attrs: &str, name: &str) -> Option<f64> {
        let key = format!(" {name}=\"");
        let at = format!(" {attrs}").find(&key)? + key.len() - 1;
        let rest = &attrs[at..];
        rest[..rest.find('"')?].parse().ok()
    }

    fn attr_text<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
        let key = format!(" {name}=\"");
        let at = format!(" {attrs}").find(&key)? + key.len() - 1;
        let rest = &attrs[at..];
        Some(&rest[..rest.find('"')?])
    }

    /// An axis read back from its tick labels: pixel = a + b · t(value), t = log10 or the
    /// identity.
    struct Scale {
        log: bool,
        a: f64,
        b: f64,
    }

    impl Scale {
        /// Fitted to the ticks (value, pixel), every tick checked against the fit.
        fn fit(log: bool, mut ticks: Vec<(f64, f64)>) -> Scale {
            assert!(ticks.len() >= 2, "{ticks:?}");
            ticks.sort_by(|p, q| p.0.total_cmp(&q.0));
            let t = |v: f64| if log { v.log10() } else { v };
            let (first, last) = (ticks[0], ticks[ticks.len() - 1]);
            let b = (last.1 - first.1) / (t(last.0) - t(first.0));
            let scale = Scale {
                log,
                a: first.1 - b * t(first.0),
                b,
            };
            for &(v, px) in &ticks {
                assert!((scale.pixel(v) - px).abs() <= 1.5, "tick {v} at {px}");
            }
            scale
        }

        fn pixel(&self, v: f64) -> f64 {
            self.a + self.b * if self.log { v.log10() } else { v }
        }
    }

    /// The frame of the data area (x0, y0, x1, y1) and both axes, read from the SVG: the
    /// x ticks are the numbers centred under the data, the y ticks those right-aligned
    /// beside it; every tick's text is checked to be a number in the data's units.
    fn axes(svg: &str, x_log: bool) -> ((f64, f64, f64, f64), Scale, Scale) {
        let frame = elements(svg, "rect")
            .into_iter()
            .filter(|(a, _)| attr_text(a, "fill") == Some("none"))
            .map(|(a, _)| {
                let (x, y) = (attr(a, "x").unwrap(), attr(a, "y").unwrap());
                (
                    x,
                    y,
                    x + attr(a, "width").unwrap(),
                    y + attr(a, "height").unwrap(),
                )
            })
            .max_by(|p, q| ((p.2 - p.0) * (p.3 - p.1)).total_cmp(&((q.2 - q.0) * (q.3 - q.1))))
            .expect("a frame round the data");
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for (a, text) in elements(svg, "text") {
            let Ok(v) = text.parse::<f64>() else { continue };
            let (x, y) = (attr(a, "x").unwrap(), attr(a, "y").unwrap());
            match attr_text(a, "text-anchor") {
                Some("middle") if y > frame.3 => {
                    if !x_log {
                        assert!(
                            !text.contains('.'),
                            "x tick {text}: not in the data's units"
                        );
                    }
                    xs.push((v, x));
                }
                Some("end") if x < frame.0 => ys.push((v, y)),
                _ => {}
            }
        }
        (frame, Scale::fit(x_log, xs), Scale::fit(true, ys))
    }

    /// Every datum (x, y) has a circle within `slack` pixels of its own place along x (markers
    /// put side by side) and 1.5 along y, inside the frame and off its edges.
    fn assert_drawn_at_their_values(svg: &str, x_log: bool, data: &[(f64, f64)], slack: f64) {
        let (frame, x, y) = axes(svg, x_log);
        let circles: Vec<(f64, f64)> = elements(svg, "circle")
            .into_iter()
            .map(|(a, _)| (attr(a, "cx").unwrap(), attr(a, "cy").unwrap()))
            .collect();
        for &(vx, vy) in data {
            let (px, py) = (x.pixel(vx), y.pixel(vy));
            assert!(
                px > frame.0 + 1.0
                    && px < frame.2 - 1.0
                    && py > frame.1 + 1.0
                    && py < frame.3 - 1.0,
                "({vx}, {vy}) at ({px}, {py}) is not inside the axes {frame:?}"
            );
            assert!(
                circles
                    .iter()
                    .any(|c| (c.0 - px).abs() <= slack && (c.1 - py).abs() <= 1.5),
                "no marker at ({vx}, {vy}) = ({px}, {py}): {circles:?}"
            );
        }
    }

    /// The legend's labels sit right of the data's frame.
    fn assert_legend_outside(svg: &str, x_log: bool, labels: &[&str]) {
        let (frame, _, _) = axes(svg, x_log);
        for label in labels {
            let (a, _) = elements(svg, "text")
                .into_iter()
                .find(|(_, t)| t == label)
                .unwrap_or_else(|| panic!("no legend entry {label}"));
            assert!(attr(a, "x").unwrap() > frame.2, "{label} is over the data");
        }
    }

    #[test]
    fn a_scatter_draws_every_datum_at_its_own_value_and_tells_overlaps_apart() {
        let timed_out = Point {
            x_timed_out: true,
            y_timed_out: true,
            ..point(60.0, 60.0, Some(true))
        };
        let series = [
            Series {
                label: "sat:seq".into(),
                points: vec![
                    point(29e-6, 2e-3, Some(true)),
                    point(55e-6, 0.4, Some(true)),
                    point(0.01, 0.02, Some(true)),
                    point(0.01, 0.02, Some(true)),
                    timed_out,
                ],
            },
            Series {
                label: "sat:bimander".into(),
                points: vec![point(29e-6, 1.5, Some(true)), timed_out],
            },
        ];
        let svg = write("truth", &series, Some(60.0));
        let data = [
            (29e-6, 2e-3),
            (55e-6, 0.4),
            (0.01, 0.02),
            (29e-6, 1.5),
            (60.0, 60.0),
        ];
        // Two engines' timeouts at one spot: side by side, half a spread each way.
        assert_drawn_at_their_values(&svg, true, &data, f64::from(SPREAD) / 2.0 + 1.5);
        let both: Vec<(f64, f64)> = elements(&svg, "circle")
            .into_iter()
            .map(|(a, _)| (attr(a, "cx").unwrap(), attr(a, "cy").unwrap()))
            .collect();
        let (_, x, y) = axes(&svg, true);
        let at_limit = both
            .iter()
            .filter(|c| (c.0 - x.pixel(60.0)).abs() <= 7.0 && (c.1 - y.pixel(60.0)).abs() <= 1.5)
            .count();
        assert_eq!(at_limit, 2, "both timeouts are seen: {both:?}");
        // One engine's two points at one spot: one marker and its count.
        let texts = elements(&svg, "text");
        assert!(texts.iter().any(|(_, t)| *t == "×2"), "no count");
        assert_legend_outside(
            &svg,
            true,
            &["sat:seq", "sat:bimander", "y = x", "SAT", "timeout 60s"],
        );
        // The floor is a decade under the fastest time, not 10⁻⁴ s.
        assert!(texts.iter().any(|(_, t)| *t == "1e-5"), "no 1e-5 tick");
    }

    #[test]
    fn a_growth_plot_draws_every_median_at_its_own_value_with_whole_sizes() {
        let (_dir, path) = temp("growth-truth");
        let series = vec![
            (
                "backtrack".to_string(),
                vec![(8.0, 29e-6), (10.0, 55e-6), (12.0, 3e-4), (14.0, 0.0)],
            ),
            (
                "sat:seq".to_string(),
                vec![(8.0, 0.004), (10.0, 0.02), (12.0, 0.3), (14.0, 2.5)],
            ),
        ];
        growth_svg(&path, "growth", "n", "median seconds", &series, Some(60.0)).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let mut data: Vec<(f64, f64)> = series.iter().flat_map(|s| s.1.clone()).collect();
        // A median of 0 (under the clock's microsecond) is drawn at the microsecond.
        data.iter_mut()
            .filter(|p| p.1 == 0.0)
            .for_each(|p| p.1 = MIN_SECONDS);
        assert_drawn_at_their_values(&svg, false, &data, 1.5);
        assert_legend_outside(&svg, false, &["backtrack", "sat:seq", "limit 60s"]);
        let (_, x, _) = axes(&svg, false);
        assert!((x.pixel(10.0) - x.pixel(8.0)) > 0.0);
        for n in ["8", "10", "12", "14"] {
            assert!(
                elements(&svg, "text").iter().any(|(_, t)| *t == n),
                "no tick {n}"
            );
        }
    }
}
