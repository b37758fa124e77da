//! Text grids: a classic board of `.`, `Q` and `x`, or a region map, with optional
//! `queens:`, `blocked:` and `diagonals:` lines; or, for boards of any size, a line `n: N`
//! in place of the grid.

use super::text::{strip_bom, EMPTY_INPUT};
use crate::error::Error;
use crate::model::{find_duplicate, DiagonalRule, Pos, Problem, Regions, MAX_N};

/// Splits a grid row into cells: whitespace-separated tokens, or (without whitespace)
/// characters as a reader sees them. A cell is one `char` together with what displays as part
/// of it: combining marks, variation selectors (`❤️` is U+2764 U+FE0F), emoji skin-tone
/// modifiers and tag characters, a zero-width joiner with the character after it (`👩‍🚀`),
/// and a pair of regional indicators (a flag, `🇫🇷`). This is a subset of Unicode's grapheme
/// clusters that covers region labels people write, without a segmentation table.
pub fn grid_cells(line: &str, tokens: bool) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if tokens {
            rest = rest.trim_start();
            if rest.is_empty() {
                return None;
            }
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let (cell, tail) = rest.split_at(end);
            rest = tail;
            return Some(cell);
        }
        let mut chars = rest.char_indices();
        let (_, base) = chars.next()?;
        let mut end = base.len_utf8();
        let mut joined = false;
        let mut flags = usize::from(is_regional_indicator(base));
        for (i, c) in chars {
            let attach = if joined {
                joined = false;
                true
            } else if c == '\u{200D}' {
                joined = true;
                true
            } else if is_regional_indicator(c) && flags == 1 {
                flags += 1;
                true
            } else {
                extends_cell(c)
            };
            if !attach {
                break;
            }
            end = i + c.len_utf8();
        }
        let (cell, tail) = rest.split_at(end);
        rest = tail;
        Some(cell)
    })
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

/// Characters that display as part of the character before them.
fn extends_cell(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F      // combining diacritical marks
        | 0x1AB0..=0x1AFF    // … extended
        | 0x1DC0..=0x1DFF    // … supplement
        | 0x20D0..=0x20FF    // … for symbols (keycap U+20E3)
        | 0xFE00..=0xFE0F    // variation selectors (U+FE0F: emoji presentation)
        | 0xFE20..=0xFE2F    // combining half marks
        | 0x1F3FB..=0x1F3FF  // emoji skin-tone modifiers
        | 0xE0020..=0xE007F  // tag characters (subdivision flags)
        | 0xE0100..=0xE01EF) // variation selectors supplement
}

/// Cells listed by the grid and option lines, with the line each came from, so a cell given
/// twice is refused naming both lines.
#[derive(Default)]
struct Listed {
    cells: Vec<Pos>,
    lines: Vec<usize>,
}

impl Listed {
    fn push(&mut self, p: Pos, line: usize) {
        self.cells.push(p);
        self.lines.push(line);
    }

    /// The error for the first cell listed twice, if any.
    fn duplicate(&self, n: usize, key: &str, what: &str) -> Option<(usize, String)> {
        let (first, again) = find_duplicate(n, &self.cells)?;
        let (r, c) = self.cells[again];
        Some((
            self.lines[again],
            format!(
                "{key}: {what} ({r},{c}) is given twice (also on line {})",
                self.lines[first]
            ),
        ))
    }
}

/// Parses the text grid format.
///
/// `n` lines of `n` cells, `#` starts a comment. A grid of only `.`, `Q` and `x` is a classic
/// board (rule `full`); any other grid is a region map (rule `touch`), whitespace-separated
/// tokens when a line contains whitespace, else one cell per character as [`grid_cells`]
/// splits them (any non-whitespace character, emoji included, names a region). After the
/// grid: `queens: r,c r,c …`, `blocked: r,c …`, `marks: r,c …` (a player's "no queen here"
/// notes, see `queens_engine::puzzle`) and `diagonals: full|touch`. A queen, blocked cell or mark
/// given twice is an error.
///
/// Memory is proportional to the board, never to the number of cells the text claims: a
/// grid wider or taller than [`MAX_N`] is refused before anything per cell is stored.
pub fn parse_grid(origin: &str, text: &str) -> Result<Problem, Error> {
    let err = |line: usize, msg: String| Error::input_at_line(origin, line, msg);
    let mut lines = strip_bom(text)
        .lines()
        .enumerate()
        .map(|(i, raw)| (i + 1, raw.split('#').next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty());
    let mut rows: Vec<(usize, &str)> = Vec::new();
    let mut first_option = None;
    for (ln, line) in lines.by_ref() {
        if option_line(line).is_some() {
            first_option = Some((ln, line));
            break;
        }
        if rows.len() == MAX_N {
            return Err(err(
                ln,
                format!(
                    "the grid has more than {MAX_N} rows; the largest board is {MAX_N}×{MAX_N}"
                ),
            ));
        }
        rows.push((ln, line));
    }
    if rows.is_empty() {
        return match first_option {
            None => Err(Error::input(origin, EMPTY_INPUT)),
            Some((ln, line)) if option_line(line).is_some_and(|(k, _)| k == "n") => {
                sized(origin, ln, line, lines)
            }
            Some(_) => Err(Error::input(
                origin,
                "no grid found (expected n lines of n cells, or a first line `n: N`)",
            )),
        };
    }
    let tokens_mode = rows.iter().any(|(_, l)| l.contains(char::is_whitespace));
    let n = grid_cells(rows[0].1, tokens_mode).count();
    for &(ln, row) in &rows {
        let len = grid_cells(row, tokens_mode).count();
        if len != n {
            return Err(err(
                ln,
                format!("row has {len} cells, expected {n} like the first row"),
            ));
        }
    }
    if rows.len() != n {
        return Err(err(
            rows[rows.len() - 1].0,
            format!(
                "the grid has {} rows of {n} cells; a board is square, expected {n} rows",
                rows.len()
            ),
        ));
    }
    let classic = !tokens_mode
        && rows
            .iter()
            .all(|(_, row)| row.chars().all(|c| matches!(c, '.' | 'Q' | 'x')));
    let mut problem = Problem::new(n).map_err(|e| err(rows[0].0, e.to_string()))?;
    let mut fixed = Listed::default();
    let mut blocked = Listed::default();
    let mut marks = Listed::default();
    if classic {
        for (r, &(ln, row)) in rows.iter().enumerate() {
            for (c, cell) in row.chars().enumerate() {
                match cell {
                    'Q' => fixed.push((r, c), ln),
                    'x' => blocked.push((r, c), ln),
                    _ => {}
                }
            }
        }
    } else {
        let cells = rows.iter().flat_map(|&(_, l)| grid_cells(l, tokens_mode));
        let regions = Regions::from_cells(n, cells).map_err(|e| {
            Error::input(
                origin,
                format!("lines {}-{}: {e}", rows[0].0, rows[n - 1].0),
            )
        })?;
        problem = problem
            .with_regions(regions)
            .expect("sizes match")
            .with_rule(DiagonalRule::Touch);
    }
    for (ln, line) in first_option.into_iter().chain(lines) {
        let Some((key, value)) = option_line(line) else {
            return Err(err(
                ln,
                format!("grid row after the option lines: {line:?} (the grid comes first)"),
            ));
        };
        match key {
            "queens" | "blocked" | "marks" => {
                let list = match key {
                    "queens" => &mut fixed,
                    "blocked" => &mut blocked,
                    _ => &mut marks,
                };
                for tok in value.split_whitespace() {
                    let p = parse_cell_token(tok, n).map_err(|m| err(ln, format!("{key}: {m}")))?;
                    list.push(p, ln);
                }
            }
            "n" => {
                return Err(err(
                    ln,
                    "n: the grid gives the board size; `n: N` stands alone, in place of a grid"
                        .into(),
                ))
            }
            "diags" => {
                return Err(err(
                    ln,
                    "diags: excluded diagonals go with a board given by `n: N` (or in JSON or \
                     CSPLib files), not with a grid"
                        .into(),
                ))
            }
            "diagonals" => {
                problem = problem.with_rule(rule_option(value).map_err(|m| err(ln, m))?);
            }
            _ => unreachable!("option_line only returns known keys"),
        }
    }
    let twice = fixed
        .duplicate(n, "queens", "queen")
        .into_iter()
        .chain(blocked.duplicate(n, "blocked", "blocked cell"))
        .chain(marks.duplicate(n, "marks", "mark"))
        .min_by_key(|(ln, _)| *ln);
    if let Some((ln, m)) = twice {
        return Err(err(ln, m));
    }
    problem
        .with_fixed(&fixed.cells)
        .and_then(|p| p.with_blocked(&blocked.cells))
        .and_then(|p| p.with_marks(&marks.cells))
        .map_err(|e| Error::input(origin, e.to_string()))
}

/// A classic board given by its size instead of a grid, for any n the model accepts: the line
/// `n: N` first, then `queens:`, `blocked:` and `diags:` lines (`diags: k,t …` excludes
/// diagonals as CSPLib prob079 writes them, see [`crate::model::Diagonal::from_csplib`]).
/// Nothing per cell is stored, so a board of 10⁸ rows with 10⁶ fixed queens is read in
/// memory linear in the lists. A cell or diagonal given twice is an error naming both lines.
fn sized<'a>(
    origin: &str,
    n_line: usize,
    first: &str,
    rest: impl Iterator<Item = (usize, &'a str)>,
) -> Result<Problem, Error> {
    let err = |line: usize, msg: String| Error::input(origin, format!("line {line}: {msg}"));
    let (_, value) = option_line(first).expect("an `n:` line");
    let value = value.trim();
    let n = value
        .parse::<usize>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| {
            err(
                n_line,
                format!("n: expected the board size, a whole number from 1, got {value:?}"),
            )
        })?;
    let mut problem = Problem::sized(n).map_err(|e| err(n_line, format!("n: {e}")))?;
    let mut fixed = Listed::default();
    let mut blocked = Listed::default();
    let mut diags: Vec<(crate::model::Diagonal, usize)> = Vec::new();
    for (ln, line) in rest {
        let Some((key, value)) = option_line(line) else {
            return Err(err(
                ln,
                format!(
                    "expected `queens:`, `blocked:`, `diags:` or `diagonals:` after `n: {n}`, \
                     got {:?} (a board given by its size has no grid)",
                    preview_line(line)
                ),
            ));
        };
        match key {
            "queens" | "blocked" => {
                let list = if key == "queens" {
                    &mut fixed
                } else {
                    &mut blocked
                };
                for tok in value.split_whitespace() {
                    let p = parse_cell_token(tok, n).map_err(|m| err(ln, format!("{key}: {m}")))?;
                    list.push(p, ln);
                }
            }
            "diags" => {
                for tok in value.split_whitespace() {
                    let d =
                        parse_diagonal_token(tok, n).map_err(|m| err(ln, format!("diags: {m}")))?;
                    diags.push((d, ln));
                }
            }
            "diagonals" => {
                problem = problem.with_rule(rule_option(value).map_err(|m| err(ln, m))?);
            }
            "n" => {
                return Err(err(
                    ln,
                    format!("n: the size is already given on line {n_line}"),
                ))
            }
            _ => {
                return Err(err(
                    ln,
                    format!("{key}: not available on a board given by its size"),
                ))
            }
        }
    }
    let twice = fixed
        .duplicate(n, "queens", "queen")
        .into_iter()
        .chain(blocked.duplicate(n, "blocked", "blocked cell"))
        .min_by_key(|(ln, _)| *ln);
    if let Some((ln, m)) = twice {
        return Err(err(ln, m));
    }
    // A diagonal listed twice: sort by diagonal, then line, and report the later line.
    let mut sorted: Vec<(crate::model::Diagonal, usize)> = diags.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .min_by_key(|w| w[1].1)
    {
        let (k, t) = super::csplib::to_csplib(n, w[0].0);
        return Err(err(
            w[1].1,
            format!(
                "diags: diagonal {k},{t} is given twice (also on line {})",
                w[0].1
            ),
        ));
    }
    drop(sorted);
    let list: Vec<crate::model::Diagonal> = diags.into_iter().map(|(d, _)| d).collect();
    problem
        .with_fixed(&fixed.cells)
        .and_then(|p| p.with_blocked(&blocked.cells))
        .and_then(|p| p.with_excluded(&list))
        .map_err(|e| Error::input(origin, e.to_string()))
}

/// At most 40 characters of a line, for an error message.
fn preview_line(line: &str) -> String {
    match line.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

/// `k,t`: the diagonal CSPLib prob079 writes as `[k, t]`.
fn parse_diagonal_token(tok: &str, n: usize) -> Result<crate::model::Diagonal, String> {
    let bad = || {
        format!(
            "{tok:?} is not a diagonal: expected k,t with k in 0..={} and t 0 (r − c = k − \
             (n − 1)) or 1 (r + c = k)",
            2 * n - 2
        )
    };
    let (k, t) = tok.split_once(',').ok_or_else(bad)?;
    let k = k.trim().parse::<usize>().map_err(|_| bad())?;
    let t = match t.trim() {
        "0" => 0,
        "1" => 1,
        _ => return Err(bad()),
    };
    crate::model::Diagonal::from_csplib(n, k, t).ok_or_else(bad)
}

fn option_line(line: &str) -> Option<(&'static str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim().to_ascii_lowercase();
    ["queens", "blocked", "marks", "diagonals", "n", "diags"]
        .into_iter()
        .find(|k| *k == key)
        .map(|k| (k, value))
}

/// The value of a `diagonals:` line, or the message that says what it should be.
fn rule_option(value: &str) -> Result<DiagonalRule, String> {
    parse_rule(value.trim())
        .ok_or_else(|| format!("diagonals: expected full or touch, got {:?}", value.trim()))
}

pub(super) fn parse_rule(s: &str) -> Option<DiagonalRule> {
    match s {
        "full" => Some(DiagonalRule::Full),
        "touch" => Some(DiagonalRule::Touch),
        _ => None,
    }
}

/// `r,c` (0-based) or a chess square like `b4`.
fn parse_cell_token(tok: &str, n: usize) -> Result<Pos, String> {
    if let Some((r, c)) = tok.split_once(',') {
        let num = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("{tok:?} is not a cell: expected row,col with whole numbers"))
        };
        let p = (num(r)?, num(c)?);
        on_board(p, n, tok)
    } else {
        chess_square(tok, n)
    }
}

pub(super) fn on_board(p: Pos, n: usize, shown: &str) -> Result<Pos, String> {
    if p.0 >= n || p.1 >= n {
        Err(format!(
            "cell {shown} is off the {n}×{n} board (rows and columns are 0..{})",
            n - 1
        ))
    } else {
        Ok(p)
    }
}

/// A chess square: file `a` = column 0, rank 1 = the bottom row (row n-1).
pub(super) fn chess_square(tok: &str, n: usize) -> Result<Pos, String> {
    let mut chars = tok.chars();
    let file = chars.next().filter(|c| c.is_ascii_lowercase());
    let rank = chars.as_str().parse::<usize>().ok();
    match (file, rank) {
        (Some(f), Some(rank)) if rank >= 1 => {
            let col = (f as u8 - b'a') as usize;
            if rank > n || col >= n {
                return Err(format!("square {tok:?} is off the {n}×{n} board"));
            }
            Ok((n - rank, col))
        }
        _ => Err(format!(
            "{tok:?} is not a cell: expected row,col or a chess square like \"b4\""
        )),
    }
}
