//! CSPLib parameter files: prob079 (`init`, `diags`) and prob080 Blocked n-Queens (`blocks`).

use std::collections::HashMap;

use crate::error::Error;
use crate::model::{Diagonal, Problem};

/// The pair `[k, t]` CSPLib prob079 writes for a diagonal (inverse of
/// [`Diagonal::from_csplib`]).
pub fn to_csplib(n: usize, d: Diagonal) -> (usize, u8) {
    match d {
        Diagonal::Sum(k) => (k, 1),
        Diagonal::Diff(k) => (2 * (n - 1) - k, 0),
    }
}

/// Parses a CSPLib prob079 or prob080 parameter file (Essence' `letting` statements; `$` starts
/// a comment; a list may end with a comma before its `]`).
///
/// prob079 completion files give `n` and `init = [[r, c], …]`; Excluded Diagonals files give
/// `n` and `diags = [[k, t], …]` (the [`Diagonal::from_csplib`] convention). prob080 Blocked
/// n-Queens files give `n` and `blocks = [[r, c], …]`, the cells no queen may stand on. The
/// `letting` keyword is optional, since `queens-diag-gen.py` prints `n = 10` and `diags = …`
/// without it, and `be` may stand for `=`. The list lengths the models declare must match the
/// lists when present: `given_queens` (of `init`, or of `blocks` in prob080's strong model),
/// `numdiags` and `blocked_squares` (prob080's commander model).
///
/// prob079 coordinates are 0-based: its models declare rows and columns as `int(0..n-1)`, the
/// generator draws them from `range(n)`, and the data notes say "the boards are assumed to be
/// indexed from 0". prob080 coordinates are 1-based: its models declare `blocks` over
/// `int(1..n)` and block `m[blocks[i,1]-1, blocks[i,2]-1]`, and its generator writes
/// `[r+1, c+1]`. `[r, c]` is taken as row `r`, column `c` of this crate's model (less one for
/// `blocks`). Since the two bases cannot be told apart in the numbers, a file with `blocks`
/// and `init` or `diags` is refused; JSON holds such a board.
///
/// `first` keeps only the first that many queens and diagonals, since prob079 defines an
/// instance as a prefix of the generated list; prob080 has no prefixes, so `blocks` is kept
/// whole.
pub fn parse_csplib(origin: &str, text: &str, first: Option<usize>) -> Result<Problem, Error> {
    let err = |line: usize, msg: String| Error::input_at_line(origin, line, msg);
    let tokens = tokenize(text).map_err(|(line, m)| err(line, m))?;
    let mut lettings: HashMap<String, (usize, Value)> = HashMap::new();
    let mut p = Parser {
        tokens,
        at: 0,
        depth: 0,
    };
    while let Some(&(line, ref tok)) = p.peek() {
        let name = match tok {
            Tok::Word(w) if w == "letting" => {
                p.at += 1;
                match p.next() {
                    Some((_, Tok::Word(w))) => w,
                    Some((l, t)) => {
                        return Err(err(
                            l,
                            format!("expected a name after `letting`, found {t}"),
                        ))
                    }
                    None => return Err(err(line, "expected a name after `letting`".into())),
                }
            }
            Tok::Word(w) => {
                let w = w.clone();
                p.at += 1;
                w
            }
            other => {
                return Err(err(
                    line,
                    format!("expected `letting name = value`, found {other}"),
                ))
            }
        };
        match p.next() {
            Some((_, Tok::Eq)) => {}
            Some((_, Tok::Word(w))) if w == "be" => {}
            Some((l, t)) => return Err(err(l, format!("expected `=` after `{name}`, found {t}"))),
            None => return Err(err(line, format!("expected `=` after `{name}`"))),
        }
        let value = p.value(line).map_err(|(l, m)| err(l, m))?;
        if !KNOWN.contains(&name.as_str()) {
            return Err(err(
                line,
                format!("unknown parameter `{name}` (known: {})", KNOWN.join(", ")),
            ));
        }
        if let Some((before, _)) = lettings.get(&name) {
            return Err(err(
                line,
                format!("`{name}` is already given on line {before}"),
            ));
        }
        lettings.insert(name, (line, value));
    }
    if let Some((blocks_line, _)) = lettings.get("blocks") {
        for other in ["init", "diags"] {
            if let Some((other_line, _)) = lettings.get(other) {
                return Err(err(
                    *blocks_line.max(other_line),
                    format!(
                        "`{other}` (line {other_line}) is a prob079 parameter, counted from 0, \
                         and `blocks` (line {blocks_line}) a prob080 one, counted from 1: one \
                         file gives one of them; write a board with both as JSON"
                    ),
                ));
            }
        }
    }
    let (n_line, n) = match lettings.get("n") {
        Some((l, Value::Int(n, _))) if *n >= 1 => (*l, *n as usize),
        Some((l, _)) => return Err(err(*l, "`n` must be a positive whole number".into())),
        None => {
            return Err(Error::input(
                origin,
                "line 1: no `letting n = …` in the file",
            ))
        }
    };
    // Sparse past MAX_N: nothing per cell, so the file's lists are the only big part.
    let mut problem = Problem::sized(n).map_err(|e| err(n_line, e.to_string()))?;
    let pairs = |name: &str, prefix: Option<usize>| -> Result<Option<Vec<Pair>>, Error> {
        let Some((line, v)) = lettings.get(name) else {
            return Ok(None);
        };
        let Value::List(items, _) = v else {
            return Err(err(
                *line,
                format!("`{name}` must be a list of pairs like [[1, 2], [3, 4]]"),
            ));
        };
        let mut out = Vec::new();
        for item in items {
            match item {
                Value::List(xy, l) if xy.len() == 2 => match (&xy[0], &xy[1]) {
                    (Value::Int(a, _), Value::Int(b, _)) => out.push((*l, *a, *b)),
                    _ => {
                        return Err(err(
                            *l,
                            format!("`{name}`: expected a pair of whole numbers"),
                        ))
                    }
                },
                Value::List(_, l) | Value::Int(_, l) => {
                    return Err(err(*l, format!("`{name}`: expected a pair like [1, 2]")))
                }
            }
        }
        let keep = prefix.unwrap_or(out.len());
        if keep > out.len() {
            return Err(err(
                *line,
                format!(
                    "asked for the first {keep} of `{name}` but the file lists {}",
                    out.len()
                ),
            ));
        }
        out.truncate(keep);
        Ok(Some(out))
    };
    let count_matches = |name: &str, list: &str, len: Option<usize>| -> Result<(), Error> {
        if let (Some((l, v)), Some(len)) = (lettings.get(name), len) {
            match v {
                Value::Int(k, _) if first.is_some() || *k as usize == len => {}
                _ => {
                    return Err(err(
                        *l,
                        format!("`{name}` does not match the {len} entries of `{list}`"),
                    ))
                }
            }
        }
        Ok(())
    };
    let init = pairs("init", first)?;
    let diags = pairs("diags", first)?;
    let blocks = pairs("blocks", None)?;
    // Never both lists: `blocks` with `init` is refused above.
    match (&init, &blocks) {
        (Some(queens), _) => count_matches("given_queens", "init", Some(queens.len()))?,
        (None, Some(cells)) => count_matches("given_queens", "blocks", Some(cells.len()))?,
        (None, None) => {}
    }
    count_matches("numdiags", "diags", diags.as_ref().map(Vec::len))?;
    count_matches("blocked_squares", "blocks", blocks.as_ref().map(Vec::len))?;
    if init.is_none() && diags.is_none() && first.is_some() {
        return Err(err(
            n_line,
            "a prefix was asked for but the file has no `init` or `diags` list".into(),
        ));
    }
    // `[r, c]` entries counted from `base` (0 in prob079, 1 in prob080) as cells of the board;
    // an entry off the board or listed twice is an error on its line, in the file's numbers.
    let board_cells = |list: &str, what: &str, base: u64, entries: Vec<Pair>| {
        let (lo, hi) = (base, n as u64 - 1 + base);
        let mut cells = Vec::with_capacity(entries.len());
        for &(l, r, c) in &entries {
            if !(lo..=hi).contains(&r) || !(lo..=hi).contains(&c) {
                return Err(err(
                    l,
                    format!(
                        "{what} [{r}, {c}] is off the {n}×{n} board (coordinates are {lo}..{hi})"
                    ),
                ));
            }
            cells.push(((r - base) as usize, (c - base) as usize));
        }
        if let Some((first, again)) = crate::model::find_duplicate(n, &cells) {
            let (l, r, c) = entries[again];
            return Err(err(
                l,
                format!(
                    "{list}: {what} [{r}, {c}] is given twice (also on line {})",
                    entries[first].0
                ),
            ));
        }
        Ok(cells)
    };
    if let Some(entries) = init {
        let fixed = board_cells("init", "queen", 0, entries)?;
        problem = problem
            .with_fixed(&fixed)
            .map_err(|e| err(n_line, e.to_string()))?;
    }
    if let Some(kts) = diags {
        let mut list = Vec::new();
        for (l, k, t) in kts {
            let d = (t <= 1)
                .then(|| Diagonal::from_csplib(n, k as usize, t as u8))
                .flatten()
                .ok_or_else(|| {
                    err(
                        l,
                        format!(
                            "diagonal [{k}, {t}]: expected [k, t] with k in 0..={} and t 0 or 1",
                            2 * n - 2
                        ),
                    )
                })?;
            list.push(d);
        }
        problem = problem
            .with_excluded(&list)
            .map_err(|e| err(n_line, e.to_string()))?;
    }
    if let Some(entries) = blocks {
        let blocked = board_cells("blocks", "blocked cell", 1, entries)?;
        problem = problem
            .with_blocked(&blocked)
            .map_err(|e| err(n_line, e.to_string()))?;
    }
    Ok(problem)
}

/// The parameters the prob079 and prob080 models declare.
const KNOWN: [&str; 7] = [
    "n",
    "init",
    "diags",
    "given_queens",
    "numdiags",
    "blocks",
    "blocked_squares",
];

/// One `[a, b]` entry of a parameter list, with the line it starts on.
type Pair = (usize, u64, u64);

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Int(u64),
    Open,
    Close,
    Comma,
    Eq,
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "`{w}`"),
            Tok::Int(i) => write!(f, "`{i}`"),
            Tok::Open => f.write_str("`[`"),
            Tok::Close => f.write_str("`]`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Eq => f.write_str("`=`"),
        }
    }
}

/// A parameter value; the `usize` is the line it starts on.
#[derive(Clone, Debug)]
enum Value {
    Int(u64, usize),
    List(Vec<Value>, usize),
}

fn tokenize(text: &str) -> Result<Vec<(usize, Tok)>, (usize, String)> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let code = raw.split('$').next().unwrap_or("");
        let mut chars = code.char_indices().peekable();
        while let Some(&(start, ch)) = chars.peek() {
            match ch {
                c if c.is_whitespace() => {
                    chars.next();
                }
                '[' | ']' | ',' | '=' => {
                    chars.next();
                    out.push((
                        line,
                        match ch {
                            '[' => Tok::Open,
                            ']' => Tok::Close,
                            ',' => Tok::Comma,
                            _ => Tok::Eq,
                        },
                    ));
                }
                c if c.is_ascii_alphanumeric() || c == '_' || c == '-' => {
                    let mut end = start;
                    while let Some(&(j, c)) = chars.peek() {
                        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                            end = j + c.len_utf8();
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    let word = &code[start..end];
                    if word.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                        let v = word.parse::<u64>().map_err(|_| {
                            (line, format!("`{word}` is not a whole number (0 or more)"))
                        })?;
                        out.push((line, Tok::Int(v)));
                    } else {
                        out.push((line, Tok::Word(word.to_string())));
                    }
                }
                c => return Err((line, format!("unexpected character {c:?}"))),
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(usize, Tok)>,
    at: usize,
    /// Lists open around the current value.
    depth: usize,
}

/// Deepest list nesting a parameter file may have: prob079 and prob080 files nest two deep; a
/// deeper file is refused before the recursive parser could run out of stack (fuzzing found a
/// 10,000-deep `init` that aborted the process).
const MAX_NESTING: usize = 32;

impl Parser {
    fn peek(&self) -> Option<&(usize, Tok)> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<(usize, Tok)> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    /// `int` or `[value, …]`; `line` is where the statement began, for errors at end of file.
    fn value(&mut self, line: usize) -> Result<Value, (usize, String)> {
        match self.next() {
            Some((l, Tok::Int(v))) => Ok(Value::Int(v, l)),
            Some((l, Tok::Open)) if self.depth >= MAX_NESTING => Err((
                l,
                format!("lists nested more than {MAX_NESTING} deep (CSPLib files nest two)"),
            )),
            Some((l, Tok::Open)) => {
                self.depth += 1;
                let result = self.list(l);
                self.depth -= 1;
                result
            }
            Some((l, t)) => Err((l, format!("expected a number or a list, found {t}"))),
            None => Err((line, "missing value at end of file".into())),
        }
    }

    /// The rest of a list whose `[` was on line `l`. One comma may close a list that has
    /// items (`[[1,1],\n[1,2],\n]`): CSPLib's prob080 ASP-competition files end every
    /// `blocks` list that way. `[,]` and `[1,,]` stay errors.
    fn list(&mut self, l: usize) -> Result<Value, (usize, String)> {
        let mut items = Vec::new();
        if matches!(self.peek(), Some((_, Tok::Close))) {
            self.at += 1;
            return Ok(Value::List(items, l));
        }
        loop {
            items.push(self.value(l)?);
            match self.next() {
                Some((_, Tok::Comma)) if matches!(self.peek(), Some((_, Tok::Close))) => {
                    self.at += 1;
                    return Ok(Value::List(items, l));
                }
                Some((_, Tok::Comma)) => {}
                Some((_, Tok::Close)) => return Ok(Value::List(items, l)),
                Some((l2, t)) => {
                    return Err((l2, format!("expected `,` or `]` in a list, found {t}")))
                }
                None => return Err((l, "list opened here is never closed".into())),
            }
        }
    }
}
