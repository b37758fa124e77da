//! Presenting answers: boards as text grids (ANSI colours per region on a terminal).

use crate::model::{Pos, Problem};

/// Background colours (xterm-256) cycled over regions; chosen to stay readable with black text.
const PALETTE: [u8; 12] = [217, 153, 229, 157, 183, 223, 195, 250, 216, 151, 189, 187];

/// Renders a board: classic boards as `.`/`x`/`Q` (the text grid format, so the output is
/// itself an instance), region maps as their region names with `Q` on the queens' cells.
/// With `color`, each region gets a background colour so queens keep their region visible.
pub fn board(problem: &Problem, queens: &[Pos], color: bool) -> String {
    let n = problem.n();
    let mut is_queen = vec![false; n * n];
    for &(r, c) in queens {
        if r < n && c < n {
            is_queen[r * n + c] = true;
        }
    }
    let regions = problem.regions();
    let width = regions.map_or(1, |g| {
        g.names()
            .iter()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(1)
    });
    let sep = if width > 1 { " " } else { "" };
    let mut out = String::with_capacity(n * (n * (width + 1) + 1));
    for r in 0..n {
        for c in 0..n {
            if c > 0 {
                out.push_str(sep);
            }
            let text = if is_queen[r * n + c] {
                "Q".to_string()
            } else if let Some(g) = regions {
                g.name(g.id((r, c))).to_string()
            } else if problem.is_open((r, c)) {
                ".".to_string()
            } else {
                "x".to_string()
            };
            let padded = format!("{text:<width$}");
            match (color, regions) {
                (true, Some(g)) => {
                    let bg = PALETTE[g.id((r, c)) % PALETTE.len()];
                    let weight = if is_queen[r * n + c] { "1;" } else { "" };
                    out.push_str(&format!("\x1b[{weight}30;48;5;{bg}m{padded}\x1b[0m"));
                }
                (true, None) if is_queen[r * n + c] => {
                    out.push_str(&format!("\x1b[1;33m{padded}\x1b[0m"));
                }
                _ => out.push_str(&padded),
            }
        }
        out.push('\n');
    }
    out
}

/// Describes a problem in one line: size, family, rule and presets.
pub fn summary(problem: &Problem) -> String {
    let mut parts = vec![format!("{0}×{0}", problem.n())];
    parts.push(if problem.regions().is_some() {
        "regions".into()
    } else {
        "classic".into()
    });
    parts.push(format!("diagonals {}", problem.rule()));
    if !problem.fixed().is_empty() {
        parts.push(format!("{} fixed", problem.fixed().len()));
    }
    if !problem.blocked().is_empty() {
        parts.push(format!("{} blocked", problem.blocked().len()));
    }
    if !problem.excluded().is_empty() {
        parts.push(format!("{} excluded diagonals", problem.excluded().len()));
    }
    parts.join(", ")
}
